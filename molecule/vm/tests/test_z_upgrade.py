"""upgrade_check.yml on the VM (runs last: "z"), issue 19.

- A simulated upgrade between the before and after phases: real Debian packages built on the VM
  (sim-packages.sh) - the VxFS SIMULATOR package upgraded 7.4 -> 8.0, whose default
  discovered_direct_iosz changes, and a vendor package whose file in /usr/lib/sysctl.d raises
  vm.dirty_writeback_centisecs - is reported as changed_default for exactly those two settings,
  each naming the old and new value and the package, and nothing else; the diff phase says the
  same without touching the VM.
- Reboot persistence: harden_io.yml, a reboot, and the audit finds every check compliant (or not
  applicable): udev rules, sysctl files, fstab options and the slice really apply at boot. A value
  set live only before the reboot is a lost_setting after it.
The packages are purged at the end of the first part; the second leaves the VM hardened (it is
the last test before the VM is destroyed)."""
import json
import os

import pytest

from test_x_enforce import differences, digest, playbook, recap

HERE = os.path.dirname(os.path.abspath(__file__))
SIM_PACKAGES = os.path.join(os.path.dirname(HERE), "sim-packages.sh")
VX_KEY = "tunefstab:/data/vx:discovered_direct_iosz"
WB_KEY = "vm.dirty_writeback_centisecs"


def simulator():
    for root in os.environ["ANSIBLE_COLLECTIONS_PATH"].split(":"):
        path = os.path.join(root, "ansible_collections", "iotune", "storage", "tests", "vxfs-sim", "vxtunefs")
        if os.path.exists(path):
            return path
    raise AssertionError("tests/vxfs-sim/vxtunefs not found under ANSIBLE_COLLECTIONS_PATH")


def sim_packages(host, *args):
    result = host.ansible("ansible.builtin.script", "%s %s" % (SIM_PACKAGES, " ".join(args)), check=False)
    assert result.get("rc") == 0, result


def upgrade_check(tmp_path, phase, *extra):
    """Run upgrade_check.yml; what it showed (its debug and failure lines) goes to the log, for docs/upgrades.md."""
    reports = str(tmp_path / ("reports-" + phase))
    rc, output = playbook("upgrade_check", "-e", "iotune_upgrade_phase=" + phase, "-e", "iotune_report_dir=" + reports,
                          *extra)
    shown = [block for block in output.split("\nTASK [")
             if block.startswith(("Show the", "Fail hosts")) and "skipping" not in block]
    print("\n--- upgrade_check.yml -e iotune_upgrade_phase=%s %s (rc=%d)\nTASK [%s" % (
        phase, " ".join(extra), rc, "\nTASK [".join(block[:4000] for block in shown)))
    return rc, output, reports


def host_report(reports):
    with open(os.path.join(reports, "hosts", "iotune-vm.json")) as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def upgrade(host, tmp_path_factory):
    """before, the simulated upgrade, after and diff; the packages purged at the end."""
    tmp_path = tmp_path_factory.mktemp("upgrade")
    host.ansible("ansible.builtin.copy", "src=%s dest=/root/vxtunefs-sim mode=0755" % simulator(), check=False)
    sim_packages(host, "install", "/root/vxtunefs-sim")
    try:
        runs = {"before": upgrade_check(tmp_path, "before")}
        sim_packages(host, "upgrade")
        runs["after"] = upgrade_check(tmp_path, "after")
        state = digest(host)
        runs["diff"] = upgrade_check(tmp_path, "diff")
        runs["diff_changed"] = differences(state, digest(host))
    finally:
        sim_packages(host, "purge")
    return runs


def test_before_reports_the_risks_and_takes_the_snapshot(host, upgrade):
    rc, output, reports = upgrade["before"]
    assert rc == 0 and recap(output)["failed"] == 0, output[-3000:]
    assert "upgrade risk(s) on iotune-vm" in output
    assert host_report(reports)["summary"]["drift"] > 0
    snapshot = host.file("/var/lib/iotune/snapshots/pre-upgrade.json")
    assert snapshot.exists and snapshot.mode == 0o600
    assert host.file("/var/lib/iotune/snapshots").mode == 0o700
    taken = json.loads(snapshot.content_string)
    assert taken["packages"]["vrtsvxfs"] == "7.4.0-sim1" and taken["packages"]["iotune-sim-writeback"] == "1.0"
    assert taken["settings"][VX_KEY]["live"] == 262144
    assert taken["policy_checks"], "the audit's checks are kept with the snapshot"


@pytest.mark.parametrize("phase", ["after", "diff"])
def test_the_upgrade_is_two_changed_defaults_and_nothing_else(upgrade, phase):
    rc, output, reports = upgrade[phase]
    assert rc != 0 and recap(output)["failed"] == 1, output[-3000:]
    assert ("2 difference(s) of the classes different_host, changed_default, lost_setting: changed_default %s; changed_default %s"
            % (VX_KEY, WB_KEY)) in output, output[-3000:]
    found = sorted((check["setting"], check["expected"], check["live"], (check["difference"]["package"] or "").split(" ")[0],
                    check["message"])
                   for check in host_report(reports)["checks"])
    assert [row[:4] for row in found] == [
        ("changed_default:" + VX_KEY, 262144, 1048576, "vrtsvxfs"),
        ("changed_default:" + WB_KEY, 500, 1000, "iotune-sim-writeback"),
    ], found
    vx_message, wb_message = found[0][4], found[1][4]
    assert "262144" in vx_message and "1048576" in vx_message and "7.4.0-sim1 -> 8.0.0-sim1" in vx_message, vx_message
    assert "500" in wb_message and "1000" in wb_message and "1.0 -> 1.1" in wb_message, wb_message
    with open(os.path.join(reports, "junit.xml")) as handle:
        junit = handle.read()
    assert junit.count("<testcase ") == 2 and junit.count("<failure ") == 2


def test_the_diff_phase_changes_nothing(upgrade):
    assert upgrade["diff_changed"] == []


@pytest.fixture(scope="module")
def rebooted(host, upgrade, tmp_path_factory):
    """harden_io.yml, a value live only, before, a reboot, audit_io.yml and after."""
    tmp_path = tmp_path_factory.mktemp("reboot")
    rc, output = playbook("harden_io", "-e", "iotune_run_id=vm-reboot")
    assert rc == 0, output[-3000:]
    host.run_test("sysctl -q -w vm.dirty_expire_centisecs=1500")
    live_only = json.dumps({"iotune_cache": {"dirty_expire_centisecs": 1500}})
    before = upgrade_check(tmp_path, "before", "-e", live_only, "-e", "iotune_snapshot_name=pre-reboot")
    assert before[0] == 0, before[1][-3000:]
    result = host.ansible("ansible.builtin.reboot", "reboot_timeout=900", check=False)
    assert result.get("rebooted"), result
    reports = str(tmp_path / "audit")
    rc, output = playbook("audit_io", "-e", "iotune_report_dir=" + reports, "-e", "iotune_run_id=vm-after-reboot")
    after = upgrade_check(tmp_path, "after", "-e", "iotune_snapshot_name=pre-reboot", "-e",
                          "iotune_snapshot_after_name=post-reboot")
    return {"audit": (rc, output, host_report(reports)), "after": after}


def test_hardened_settings_apply_at_boot(rebooted):
    rc, output, report = rebooted["audit"]
    assert rc == 0, output[-3000:]
    wrong = [(check["id"], check["status"], check["message"]) for check in report["checks"]
             if check["status"] not in ("compliant", "not_applicable")]
    assert wrong == [], wrong
    assert report["summary"]["compliant"] >= 10, report["summary"]


def test_a_value_live_only_before_the_reboot_is_a_lost_setting(rebooted):
    rc, output, reports = rebooted["after"]
    assert rc != 0, output[-3000:]
    lost = [check for check in host_report(reports)["checks"] if check["setting"].startswith("lost_setting:")]
    assert [(check["setting"], check["expected"], check["live"]) for check in lost] == [
        ("lost_setting:vm.dirty_expire_centisecs", 1500, 3000)], lost
