"""Seed 001 on the simulated Solaris host (runs after test_seeds.py: "z"): upgrade_check.yml before a
VxFS upgrade, the upgrade (the vxtunefs SIMULATOR's simulated 7.4 -> 8.0, whose default
discovered_direct_iosz goes from 256 KiB to 1 MiB, and the package listing pkginfo shows), and after it:
the one changed default, named with the package and both values; then harden_io.yml pins the value in
tunefstab, where the next upgrade cannot move it, and the ARC cap it set in /etc/system is live after a
simulated boot."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
from labrun import playbook, recap  # noqa: E402 pylint: disable=wrong-import-position

testinfra_hosts = ["ansible://iotune-solaris"]
HOST = "iotune-solaris"
KEY = "tunefstab:/data:discovered_direct_iosz"
ONLY = ("-e", "iotune_hosts=" + HOST)


def upgrade_check(tmp_path, phase):
    """upgrade_check.yml as before seed 001's upgrade: the policy did not pin discovered_direct_iosz then."""
    reports = str(tmp_path / ("reports-" + phase))
    rc, output = playbook("upgrade_check", "-e", "iotune_upgrade_phase=" + phase, "-e", "iotune_report_dir=" + reports,
                          "-e", '{"iotune_tunefstab": []}', *ONLY)
    with open(os.path.join(reports, "hosts", HOST + ".json")) as handle:
        return rc, output, json.load(handle)


def vxtunefs(host, name):
    for line in host.check_output("/opt/VRTS/bin/vxtunefs -p /data").splitlines():
        if line.split("=")[0].strip() == name:
            return int(line.split("=")[1])
    return None


@pytest.fixture(scope="module")
def upgrade(host, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("seed-001")
    runs = {"before": upgrade_check(tmp_path, "before")}
    runs["snapshot"] = json.loads(host.check_output("cat /var/lib/iotune/snapshots/pre-upgrade.json"))
    host.run_expect([0], "/opt/VRTS/bin/vxtunefs --sim-upgrade 8.0 && sed -i 's/7.4,REV=sim1/8.0,REV=sim1/' /var/lib/unix-sim/pkginfo.json")
    runs["after"] = upgrade_check(tmp_path, "after")
    runs["harden"] = playbook("harden_io", "-e", "iotune_run_id=seed-001", "-e", "iotune_report_dir=%s" % (tmp_path / "harden"), *ONLY)
    runs["tunefstab"] = host.check_output("cat /etc/vx/tunefstab")
    runs["live"] = vxtunefs(host, "discovered_direct_iosz")
    # the harden also set the ARC cap in /etc/system: a simulated boot makes it live
    host.run_expect([0], "kstat --sim-boot /etc/system")
    reports = tmp_path / "after-boot"
    runs["boot"] = playbook("audit_io", "-e", "iotune_report_dir=%s" % reports, *ONLY)
    with open(os.path.join(str(reports), "hosts", HOST + ".json")) as handle:
        runs["boot_report"] = json.load(handle)
    return runs


def test_the_snapshot_before_has_the_solaris_package_and_the_live_value(upgrade):
    rc, output, dummy = upgrade["before"]
    assert rc == 0 and recap(output, HOST)["failed"] == 0, output[-3000:]
    taken = upgrade["snapshot"]
    assert (taken["package_manager"], taken["packages"]) == ("pkginfo", {"VRTSvxfs": "7.4"})
    assert taken["settings"][KEY]["live"] == 262144
    assert taken["facts"]["block_devices"] == {} and taken["facts"]["platform"]["system"] == "SunOS"
    assert taken["host"] == {"hostname": "sol10", "kernel_release": "5.10", "machine_id": "83f2a1c0"}


def test_after_the_upgrade_the_changed_default_is_named_with_its_package(upgrade):
    rc, output, report = upgrade["after"]
    assert rc != 0 and recap(output, HOST)["failed"] == 1, output[-3000:]
    found = [(check["setting"], check["expected"], check["live"], check["message"]) for check in report["checks"]]
    assert [row[:3] for row in found] == [("changed_default:" + KEY, 262144, 1048576)], found
    assert "VRTSvxfs 7.4 -> 8.0" in found[0][3], found[0][3]


def test_harden_pins_the_old_threshold_in_tunefstab_and_live(upgrade):
    rc, output = upgrade["harden"]
    assert rc == 0 and recap(output, HOST)["failed"] == 0, output[-3000:]
    assert "/dev/vx/dsk/datadg/vol01 discovered_direct_iosz=262144" in upgrade["tunefstab"], upgrade["tunefstab"]
    assert upgrade["live"] == 262144


def test_the_arc_cap_set_by_the_harden_is_live_after_the_boot(upgrade):
    rc, output = upgrade["boot"]
    assert rc == 0, output[-3000:]
    found = dict((check["id"], check) for check in upgrade["boot_report"]["checks"])
    arc = found["cache_limits:zfs_arc_max:zfs_arc_max"]
    assert (arc["status"], arc["live"], arc["persistent"]) == ("compliant", 2 ** 31, 2 ** 31), arc
