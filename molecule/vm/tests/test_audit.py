"""audit_io.yml on the VM: every check of the policy in molecule.yml has the
status the state made by prepare.yml calls for, and nothing was changed."""
import json

import pytest


@pytest.fixture(scope="module")
def report(host):
    return json.loads(host.file("/var/lib/iotune/reports/audit-latest.json").content_string)


def find(report, concern, target, setting):
    found = [c for c in report["checks"]
             if c["concern"] == concern and c["target"] == target and setting in c["setting"]]
    assert len(found) == 1, (concern, target, setting, [c["id"] for c in report["checks"]])
    return found[0]


@pytest.mark.parametrize("concern,target,setting,status", [
    # fstab and live both strictatime: noatime missing on both sides
    ("mount_options", "/data/ext4", "noatime", "drift"),
    ("mount_options", "/data/ext4", "sync", "compliant"),
    ("mount_options", "/data/ext4", "commit=1", "drift"),
    # remounted noatime live, fstab still strictatime
    ("mount_options", "/data/xfs", "noatime", "not_persistent"),
    ("block_queue", "vdb", "read_ahead_kb", "drift"),
    ("block_queue", "vdb", "scheduler", "drift"),
    # blockdev --setra 8192 live, no udev rule
    ("block_queue", "vdc", "read_ahead_kb", "not_persistent"),
    # set by /etc/udev/rules.d/70-lab.rules and triggered
    ("block_queue", "vdd", "read_ahead_kb", "compliant"),
    ("cache_limits", "sysctl", "vm.dirty_ratio", "drift"),
    # sysctl -w only
    ("cache_limits", "sysctl", "vm.dirty_background_ratio", "not_persistent"),
    # /etc/sysctl.d/50-lab.conf, applied
    ("cache_limits", "sysctl", "vm.vfs_cache_pressure", "compliant"),
    ("tunefstab", "/dev/vx/dsk/labdg/vol01", "read_pref_io", "compliant"),
    ("tunefstab", "/dev/vx/dsk/labdg/vol01", "discovered_direct_iosz", "drift"),
])
def test_check_status(report, concern, target, setting, status):
    check = find(report, concern, target, setting)
    assert check["status"] == status, check


def test_unknown_targets_are_not_applicable(report):
    statuses = {c["target"]: c["status"] for c in report["checks"]}
    assert statuses["/srv/absent"] == "not_applicable"
    assert [c for c in report["checks"] if c["concern"] == "block_queue"
            and "no-such-serial" in c["target"]][0]["status"] == "not_applicable"


def test_bulk_slice_is_missing(report):
    slices = [c for c in report["checks"] if c["concern"] == "cache_limits" and "slice" in c["target"]]
    assert slices and all(c["status"] == "drift" for c in slices)


def test_summary_counts_the_checks(report):
    assert sum(report["summary"].values()) == len(report["checks"])
    assert report["summary"]["drift"] >= 6
