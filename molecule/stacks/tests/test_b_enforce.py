"""harden_io.yml on the stacks, then rollback_io.yml (issue 26).

In order, in one fixture: harden in check mode with a diff (nothing changes), harden twice (the second
changes nothing), the kernel's values read back, a multipath path logged out and in again (udev sets
its limit again), then the rollback: the state digest is prepare's again."""
import json
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
import labrun  # noqa: E402 pylint: disable=wrong-import-position
from labrun import differences, digest, playbook, recap  # noqa: E402 pylint: disable=wrong-import-position

HOST = "iotune-stacks"
IQN = "iqn.2026-11.lab.iotune:stacks"
RULES = "/etc/udev/rules.d/60-iotune.rules"
QUEUE = ("read_ahead_kb", "max_sectors_kb", "scheduler", "nr_requests")


def queues(host):
    """{device: {setting: value}} of every block device, and {dm name: kernel name}, read from sysfs."""
    values, dm_names = {}, {}
    out = host.check_output("grep -H . /sys/block/*/queue/{%s} /sys/block/dm-*/dm/name" % ",".join(QUEUE))
    for line in out.splitlines():
        path, value = line.split(":", 1)
        parts = path.split("/")
        if parts[-2] == "dm":
            dm_names[value] = parts[3]
        elif parts[-1] == "scheduler":
            active = [word.strip("[]") for word in value.split() if word.startswith("[")]
            values.setdefault(parts[3], {})["scheduler"] = active[0] if active else value
        else:
            values.setdefault(parts[3], {})[parts[-1]] = int(value)
    return values, dm_names


def map_paths(host):
    return sorted(host.check_output("ls /sys/block/$(basename $(readlink -f /dev/mapper/mpatha))/slaves").split())


def wait_for(what, predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for " + what
        time.sleep(1)


def flap(host):
    """Log the second portal's session out and in; the map's paths before, during and after."""
    before = map_paths(host)
    host.run_expect([0], "iscsiadm -m node -T %s -p 127.0.0.1:3261 --logout" % IQN)
    wait_for("the map to lose a path", lambda: len(map_paths(host)) == 1)
    during = map_paths(host)
    host.run_expect([0], "iscsiadm -m node -T %s -p 127.0.0.1:3261 --login && udevadm settle" % IQN)
    wait_for("the map to have two paths again", lambda: len(map_paths(host)) == 2)
    after = map_paths(host)
    values, dummy = queues(host)
    return {"before": before, "during": during, "after": after,
            "max_sectors_kb": dict((path, values[path]["max_sectors_kb"]) for path in after)}


@pytest.fixture(scope="module")
def prepared(host):
    return labrun.prepared_state(host)


@pytest.fixture(scope="module")
def runs(host, prepared):
    rc, output = playbook("harden_io", "--check", "--diff", "-e", "iotune_run_id=stacks-check")
    result = {"check": {"rc": rc, "output": output, "digest": digest(host)}}
    for run_id in ("stacks-harden-1", "stacks-harden-2"):
        rc, output = playbook("harden_io", "-e", "iotune_run_id=" + run_id)
        result[run_id] = {"rc": rc, "output": output,
                          "report": json.loads(host.file("/var/lib/iotune/reports/harden-%s.json" % run_id).content_string)}
    result["kernel"] = queues(host)
    result["rules"] = host.file(RULES).content_string
    result["nfs"] = host.check_output("findmnt -n -o OPTIONS /mnt/nfs").split(",")
    result["fstab"] = host.file("/etc/fstab").content_string
    result["flap"] = flap(host)
    rc, output = playbook("rollback_io", "-e", "iotune_run_id=stacks-harden-1")
    result["rollback"] = {"rc": rc, "output": output, "digest": digest(host)}
    return result


def test_check_mode_shows_the_rules_and_changes_nothing(runs, prepared):
    check = runs["check"]
    assert check["rc"] == 0 and recap(check["output"], HOST)["changed"] > 0, check["output"][-3000:]
    assert "+++ after: %s" % RULES in check["output"]
    assert 'ATTR{dm/uuid}=="mpath-360014052600000000004000800000000"' in check["output"]
    assert differences(prepared, check["digest"]) == []


def test_harden_then_harden_again_changes_nothing(runs):
    first, second = runs["stacks-harden-1"], runs["stacks-harden-2"]
    assert first["rc"] == 0 and recap(first["output"], HOST)["changed"] > 0, first["output"][-3000:]
    assert [c["id"] for c in first["report"]["checks"] if c["status"] != "compliant"] == []
    assert second["rc"] == 0 and recap(second["output"], HOST)["changed"] == 0, second["output"][-3000:]


def test_the_kernel_has_every_setting_on_the_right_device(runs):
    values, dm_names = runs["kernel"]
    mpath, lv = dm_names["mpatha"], dm_names["labvg-data"]
    assert values[mpath] == {"read_ahead_kb": 4096, "max_sectors_kb": 256, "scheduler": "none", "nr_requests": 64}
    for path in runs["flap"]["before"]:
        # the limit on every path; the paths' own schedulers, which I/O through the map bypasses, untouched
        assert (values[path]["max_sectors_kb"], values[path]["scheduler"]) == (256, "mq-deadline"), path
    assert values[lv]["read_ahead_kb"] == 2048 and values["vdd"]["read_ahead_kb"] == 128
    md = [name for name in values if name.startswith("md")]
    assert [values[name]["read_ahead_kb"] for name in md] == [8192]
    assert (values["nvme0n1"]["read_ahead_kb"], values["nvme0n1"]["scheduler"]) == (1024, "mq-deadline")
    assert values["nvme1n1"]["read_ahead_kb"] == 512


def test_udev_rules_key_on_stable_identities(runs):
    rules = [line for line in runs["rules"].splitlines() if line and not line.startswith("#")]
    assert len(rules) == 6, rules
    assert not [line for line in rules if "KERNEL==" in line or "dm-" in line or "md12" in line], rules
    assert ('ENV{DEVTYPE}=="disk", ATTRS{wwid}=="naa.60014052600000000004000800000000|t10.LIO-ORG lun0:'
            '26000000-0000-4000-8000-00000000abcd", ATTR{queue/max_sectors_kb}="256"') in runs["rules"]


def test_nfs_was_mounted_again_with_the_options(runs):
    assert {"rsize=262144", "wsize=262144", "nconnect=2", "hard", "acregmin=30", "acdirmax=30"} <= set(runs["nfs"])
    line, = [line for line in runs["fstab"].splitlines() if " /mnt/nfs " in line.replace("\t", " ")]
    assert "rsize=262144,wsize=262144" in line and "nconnect=2" in line and "actimeo=30" in line


def test_a_path_that_fails_and_comes_back_gets_its_limit_again(runs):
    flap = runs["flap"]
    print("\npath flap: %(before)s -> %(during)s -> %(after)s, max_sectors_kb %(max_sectors_kb)s" % flap)
    assert len(flap["during"]) == 1 and len(flap["after"]) == 2
    assert flap["max_sectors_kb"] == dict((path, 256) for path in flap["after"])


def test_rollback_restores_the_prepared_state(runs, prepared):
    rollback = runs["rollback"]
    assert rollback["rc"] == 0, rollback["output"][-3000:]
    assert differences(prepared, rollback["digest"]) == []
