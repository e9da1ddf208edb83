"""The container scenario: partial sysfs, bind mounts, tmpfs with an escaped space,
and audit_io.yml against a policy with known drift."""
import json

import pytest


@pytest.fixture(scope="module")
def iotune(host):
    return host.ansible("iotune.storage.io_facts", check=False)["ansible_facts"]["iotune"]


def test_tmpfs_with_space_in_mount_point(iotune):
    m = iotune["mounts"]["/mnt/scratch space"]
    assert m["fstype"] == "tmpfs"
    assert m["device"] is None
    assert {"noexec", "nosuid"} <= set(m["options_live"])
    assert m["options_fstab"] == ["rw", "noexec", "nosuid", "size=16m"]


def test_docker_bind_mounts_are_flagged(iotune):
    hosts = iotune["mounts"]["/etc/hosts"]
    assert hosts["bind"] is True
    assert hosts["root"] != "/"
    assert hosts["options_fstab"] is None


def test_swap_line_is_parsed(iotune):
    swap = [e for e in iotune["fstab"] if e["vfstype"] == "swap"]
    assert len(swap) == 1 and swap[0]["spec"] == "/swapfile"


def test_sysctls_are_readable_but_not_persistent(iotune):
    ratio = iotune["vm"]["dirty_ratio"]
    assert isinstance(ratio["value"], int)
    assert ratio["effective_file"] is None


@pytest.fixture(scope="module")
def report(host):
    return json.loads(host.file("/var/lib/iotune/reports/audit-latest.json").content_string)


def statuses(report, concern):
    return {(c["target"], c["setting"]): c["status"] for c in report["checks"] if c["concern"] == concern}


def test_mount_option_checks(report):
    mounts = statuses(report, "mount_options")
    assert [s for (t, k), s in mounts.items() if t == "/mnt/scratch space" and "noexec" in k] == ["compliant"]
    assert [s for (t, k), s in mounts.items() if t == "/mnt/scratch space" and "nosuid" in k] == ["drift"]


def test_missing_disk_is_not_applicable(report):
    assert set(statuses(report, "block_queue").values()) == {"not_applicable"}


def test_bulk_slice_not_applicable_without_systemd(report):
    assert set(statuses(report, "cache_limits").values()) == {"not_applicable"}


def test_tunefstab_file_drift(report):
    assert [s for (t, k), s in statuses(report, "tunefstab").items() if "write_pref_io" in k] == ["drift"]


def test_copy_tools_drift_and_nothing_installed(host, report):
    tools = statuses(report, "copy_tools")
    assert tools == {
        ("/usr/local/bin/iotune-copy", "installed"): "drift",
        ("/usr/local/bin/iotune-bulk", "installed"): "drift",
        ("/etc/iotune/copy.conf", "installed"): "drift",
    }
    for path in ("/usr/local/bin/iotune-copy", "/usr/local/bin/iotune-bulk", "/etc/iotune"):
        assert not host.file(path).exists, path


# A plain container (no capability beyond docker's defaults): /proc/sys and /sys are read-only and mount(2) is not
# allowed. harden_io.yml --check must give the real run's verdict, and the real run must fail before its first change
# (issue 55, item 1: check mode said "changed", the real run wrote fstab, then failed at the first sysctl).
PLAIN_POLICY = {"iotune_mounts": [{"path": "/mnt/scratch space", "present": ["noexec"], "absent": ["nosuid"]}],
                "iotune_block_devices": [], "iotune_tunefstab": [],
                "iotune_cache": {"dirty_background_bytes": "64m"}}


@pytest.fixture(scope="module")
def plain_runs(host, tmp_path_factory):
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
    import labrun  # pylint: disable=import-outside-toplevel
    policy = tmp_path_factory.mktemp("plain") / "policy.json"
    policy.write_text(json.dumps(PLAIN_POLICY))
    fstab = host.file("/etc/fstab").content_string
    before = labrun.digest(host)
    runs = dict((mode, labrun.playbook("harden_io", "-e", "@%s" % policy, "-e", "iotune_run_id=plain-" + mode,
                                       *(["--check", "--diff"] if mode == "check" else []), reports="plain-reports"))
                for mode in ("check", "real"))
    return {"runs": runs, "fstab": fstab, "before": before, "after": labrun.digest(host), "labrun": labrun}


def test_check_mode_gives_the_real_runs_verdict_in_a_plain_container(host, plain_runs):
    reasons = ("cannot write 67108864 to /proc/sys/vm/dirty_background_bytes: its file system is mounted read-only (at /proc/sys), "
               "as in a container",
               "cannot remount /mnt/scratch space: this process lacks CAP_SYS_ADMIN")
    for mode, (rc, output) in plain_runs["runs"].items():
        assert rc == 2 and plain_runs["labrun"].recap(output, "iotune-default")["failed"] == 1, (mode, output[-3000:])
        assert "nothing changed: " in output and all(reason in output for reason in reasons), (mode, output[-3000:])
    # nothing was changed: not the fstab, not the live options, no journal record
    assert host.file("/etc/fstab").content_string == plain_runs["fstab"]
    assert plain_runs["labrun"].differences(plain_runs["before"], plain_runs["after"]) == []
    assert not host.file("/var/lib/iotune/journal/plain-real.jsonl").exists
