"""Seed 000 on the simulated HP-UX host and the Solaris host's VxFS mount and tunefstab, through the
collection's playbooks as a user runs them: audit_io.yml finds the drift (and the concerns that do
not apply there), harden_io.yml fixes it in the mount table, live (mount -F vxfs -o remount, the
mount SIMULATOR) and in tunefstab (vxtunefs, the VxFS SIMULATOR), a second harden changes nothing,
rollback_io.yml puts every file and value back."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
from labrun import playbook, recap  # noqa: E402 pylint: disable=wrong-import-position

HOSTS = ("iotune-hpux", "iotune-solaris")
TABLES = {"iotune-hpux": "/etc/fstab", "iotune-solaris": "/etc/vfstab"}
MOUNTS = {"iotune-hpux": "/restore", "iotune-solaris": "/data"}
SEED_000 = "ioerror=mwdisable,largefiles,delaylog,mincache=direct,convosync=direct"


def content(host, path):
    """The text of a file on the host, None when there is none (testinfra's File module takes these hosts
    for what uname says they are, and has no HP-UX or Solaris backend)."""
    result = host.run("cat %s" % path)
    return result.stdout if result.rc == 0 else None


def options(host, mount_point):
    """The live options of ``mount_point`` in the host's simulated /etc/mnttab, without dev=."""
    for line in content(host, "/etc/mnttab").splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[1] == mount_point:
            return [option for option in fields[3].split(",") if not option.startswith("dev=")]
    return None


def files(host):
    return dict((path, content(host, path)) for path in (TABLES[host.backend.host], "/etc/vx/tunefstab", "/etc/system"))


def report(step_dir, name):
    with open(os.path.join(step_dir, "hosts", name + ".json")) as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The four playbook runs, once for both hosts; each host's state is read between them by the tests."""
    out = tmp_path_factory.mktemp("unix-runs")
    steps = {}
    for step, name, extra in (("audit", "audit_io", ()), ("harden", "harden_io", ("-e", "iotune_run_id=unix-seeds")),
                              ("again", "harden_io", ("-e", "iotune_run_id=unix-again")),
                              ("rollback", "rollback_io", ("-e", "iotune_run_id=unix-seeds"))):
        steps[step] = playbook(name, "-e", "iotune_report_dir=%s" % (out / step), *extra)
        steps[step + "_dir"] = str(out / step)
    return steps


def test_every_step_runs_on_both_hosts(runs):
    for step in ("audit", "harden", "again", "rollback"):
        rc, output = runs[step]
        assert rc == 0, output[-3000:]
        for name in HOSTS:
            assert recap(output, name)["failed"] == 0, output[-3000:]
    for name in HOSTS:
        assert recap(runs["again"][1], name)["changed"] == 0, runs["again"][1][-3000:]


def test_the_audit_finds_seed_000_on_hpux_and_says_what_does_not_apply(runs):
    found = dict((check["id"], check) for check in report(runs["audit_dir"], "iotune-hpux")["checks"])
    assert [found[key]["status"] for key in ("mount_options:/restore:absent:mincache", "mount_options:/restore:absent:convosync")] \
        == ["drift", "drift"]
    assert found["block_queue:HP-UX:platform"]["status"] == "not_applicable"
    assert "udev" in found["block_queue:HP-UX:platform"]["message"]


def test_the_harden_fixed_both_hosts_live_and_in_their_tables(runs):
    hpux = report(runs["harden_dir"], "iotune-hpux")
    solaris = report(runs["harden_dir"], "iotune-solaris")
    for host_report in (hpux, solaris):
        changed = [check["id"] for check in host_report["checks"] if check.get("changed")]
        # the ARC cap is set in /etc/system, which the kernel reads at boot
        waiting = [check for check in host_report["checks"] if check["id"] == "cache_limits:zfs_arc_max:zfs_arc_max"]
        assert all(check["status"] == "drift" and check["message"].endswith("(needs a reboot)") and check["persistent"] == 2 ** 31
                   for check in waiting), waiting
        assert changed and all(check["status"] in ("compliant", "not_applicable") for check in host_report["checks"]
                               if check not in waiting), host_report["checks"]
    found = dict((check["id"], check) for check in hpux["checks"])
    assert (found["cache_limits:filecache_max:filecache_max"]["status"], found["cache_limits:filecache_max:filecache_max"]["live"]) == \
        ("compliant", 2 ** 31)
    tunefstab = [check for check in solaris["checks"] if check["concern"] == "tunefstab"]
    assert [(check["setting"], check["live"], check["status"]) for check in tunefstab] == \
        [("discovered_direct_iosz", 262144, "compliant")]


def test_rollback_put_every_file_and_live_value_back(host, runs):
    name = host.backend.host
    prepared = json.loads(content(host, "/root/unix-prepared.json"))
    assert files(host) == prepared["files"]
    assert options(host, MOUNTS[name]) == prepared["options"]
    if name == "iotune-hpux":
        # filecache_max back to its expression before the harden (kctune's Default: 50 % of the memory)
        assert host.check_output("kctune -P name,expr filecache_max").split() == ["name", "filecache_max", "expr", "Default"]
    if name == "iotune-hpux":
        assert options(host, "/restore") == SEED_000.split(",")
