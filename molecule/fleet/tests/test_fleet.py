"""Every host of the fleet: its own drift (../../shared/fleet_drift.py) found by the audit, changed
by the first harden, nothing changed by the second, and the prepared state back after rollback_io.yml.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
from fleet_drift import NOATIME, NOSUID, TUNEFSTAB, check_audit, check_first_harden, check_second_harden, host_json  # noqa: E402 pylint: disable=wrong-import-position

EPHEMERAL = os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent")


@pytest.fixture(scope="module")
def name(host):
    return host.backend.get_hostname()


@pytest.fixture(scope="module")
def index(name):
    return int(name.rsplit("-", 1)[1])


def test_the_fleet_is_the_size_asked_for():
    reports = os.path.join(EPHEMERAL, "reports-audit")
    with open(os.path.join(reports, "summary.json")) as handle:
        summary = json.load(handle)
    assert summary["hosts"] == int(os.environ.get("IOTUNE_FLEET_SIZE") or 6)
    assert sorted(summary["by_host"]) == sorted(f[:-len(".json")] for f in os.listdir(os.path.join(reports, "hosts")))


def test_the_audit_found_this_hosts_drift(host, name, index):
    report = host_json(host, "/var/lib/iotune/reports/audit-fleet-audit.json")
    check_audit(report, index)
    # the controller's copy is of the last audit into that directory (side_effect.yml's, after the harden)
    with open(os.path.join(EPHEMERAL, "reports-audit", "hosts", name + ".json")) as handle:
        assert json.load(handle) == host_json(host, "/var/lib/iotune/reports/audit-fleet-after.json")


def test_the_first_harden_changed_what_drifted_here(host, index):
    check_first_harden(host, index, "fleet-harden")


def test_the_second_harden_changed_nothing(host):
    # converge's second run (molecule's idempotence) wrote the run's file last; side_effect.yml hardens again later
    check_second_harden(host, "harden-fleet-harden.json")


def test_rollback_restored_the_prepared_state(host):
    diff = json.loads(host.check_output("python3 /root/state_digest.py --diff /root/state-before.json"))
    assert diff["items"] > 100 and diff["changed"] == [], diff
    assert host.file("/var/lib/iotune/journal/fleet-harden.rolled-back.json").exists


def test_the_waived_audit_passed_and_marked_every_drift(host, name):
    report = host_json(host, "/var/lib/iotune/reports/audit-fleet-waived.json")
    drifting = [check for check in report["checks"] if check["status"] in ("drift", "not_persistent")]
    assert drifting and all(check["waiver"]["name"] == "scratch until the lab is rebuilt" for check in drifting), drifting
    assert all(check["waiver"]["days_left"] > 20000 for check in drifting)
    severity = dict((check["id"], check["severity"]) for check in report["checks"])
    assert severity["mount_options:/mnt/scratch:absent:nosuid"] == "medium" and set(severity.values()) <= {"low", "medium", "high"}
    outcomes = dict((waiver["name"], waiver["status"]) for waiver in report["waivers"])
    expected = {"scratch until the lab is rebuilt": "active", "nothing to waive": "stale"}
    if name == "iotune-fleet-1":
        # it matches the copy tools' checks, which the unexpired waiver waives
        expected["long gone"] = "expired"
    assert outcomes == expected
    # a waiver marks every check it matches, whatever the status (the tunefstab check is
    # not_applicable on hosts without a tunefstab)
    assert report["summary"]["waived"] == sum(1 for check in report["checks"] if "waiver" in check) >= len(drifting)


def test_the_fleet_reports_count_the_waived_checks():
    reports = os.path.join(EPHEMERAL, "reports-waived")
    with open(os.path.join(reports, "summary.json")) as handle:
        summary = json.load(handle)
    assert summary["summary"]["waived"] >= summary["summary"]["drift"] + summary["summary"]["not_persistent"] > 0
    assert summary["summary"]["waived"] == sum(1 for check in summary["checks"] if "waiver" in check)
    with open(os.path.join(reports, "junit.xml")) as handle:
        junit = handle.read()
    assert 'failures="0"' in junit.split("\n")[1] and 'type="waived"' in junit


def test_iotune_prom_holds_the_last_harden_and_the_last_audit_and_passes_promtool(host):
    text = host.file("/var/lib/node_exporter/textfile_collector/iotune.prom").content_string
    assert host.file("/var/lib/node_exporter/textfile_collector/iotune.prom").mode == 0o644
    assert 'iotune_last_run_info{mode="harden",run_id="fleet-harden"} 1\n' in text, text
    assert 'iotune_last_run_timestamp_seconds{mode="audit"} ' in text, text
    assert 'iotune_checks{concern="mount_options",status="drift"} 0\n' in text, text
    promtool = shutil.which("promtool")
    assert promtool, "promtool is not on PATH (make setup installs Debian's prometheus)"
    done = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_audit_after_the_harden_says_what_it_resolved(host, index):
    report = host_json(host, "/var/lib/iotune/reports/audit-fleet-after.json")
    history = report["history"]
    # the previous audit on the host is the waived one, of the same state as the first
    assert history["previous_run_id"] == "fleet-waived" and history["new"] == [], history
    resolved = dict((entry["id"], (entry["status_before"], entry["status"])) for entry in history["resolved"])
    assert resolved[NOATIME] == ("not_persistent" if index % 3 == 2 else "drift", "compliant"), resolved
    assert resolved[NOSUID] == ("drift", "compliant"), resolved
    assert (TUNEFSTAB in resolved) is (index % 3 != 0), resolved
    assert [check_id for check_id in resolved if check_id.startswith("copy_tools:")], resolved
    first = host_json(host, "/var/lib/iotune/reports/audit-fleet-audit.json")["history"]
    assert first["previous_run_id"] is None and len(first["new"]) == len(resolved), (first, resolved)


def test_the_fleet_history_holds_both_audits_and_the_page_draws_them():
    reports = os.path.join(EPHEMERAL, "reports-audit")
    with open(os.path.join(reports, "history.json")) as handle:
        runs = json.load(handle)["runs"]
    assert [run["run_id"] for run in runs] == ["fleet-audit", "fleet-after"], runs
    assert runs[0]["findings"] == runs[0]["new"] > 0 and runs[0]["resolved"] == 0, runs
    assert runs[1]["findings"] == runs[1]["new"] == 0 and runs[1]["resolved"] == runs[0]["findings"], runs
    with open(os.path.join(reports, "summary.json")) as handle:
        since = json.load(handle)["since_previous"]
    assert since["resolved"] == runs[1]["resolved"] and since["new"] == 0 and since["first_reports"] == []
    with open(os.path.join(reports, "report.html")) as handle:
        page = handle.read()
    chart = page.split('<svg class="runs"')[1].split("</svg>")[0]
    assert chart.count("<circle") == 2 and "audit fleet-after" in chart
    assert "<b>0 new</b> finding(s), <b>%d resolved</b>" % runs[1]["resolved"] in page


def test_the_audit_says_how_harden_would_fix_each_finding(host, index):
    report = host_json(host, "/var/lib/iotune/reports/audit-fleet-audit.json")
    checks = dict((check["id"], check) for check in report["checks"])
    noatime = checks[NOATIME]["fix"]
    assert noatime["changes"][0].startswith("/etc/fstab line "), noatime
    assert "noatime" in noatime["changes"][0].split(" becomes: ")[1], noatime
    if index % 3 == 2:
        # live already, only fstab lacks it
        assert (len(noatime["changes"]), noatime["needs"]) == (1, "nothing"), noatime
    else:
        assert noatime["changes"][1].startswith("mount -o remount,") and noatime["needs"] == "remount", noatime
    nosuid = checks[NOSUID]["fix"]
    assert nosuid["needs"] == "remount" and any(change.endswith(" /mnt/scratch") for change in nosuid["changes"]), nosuid
    tools = [check["fix"] for check_id, check in checks.items() if check_id.startswith("copy_tools:")]
    assert tools and all(fix["changes"] and fix["needs"] == "nothing" for fix in tools), tools
    assert all("fix" not in check for check in report["checks"] if check["status"] not in ("drift", "not_persistent"))


def test_the_waived_harden_changed_the_rest_and_left_the_scratch_mount_alone(host, index):
    report = host_json(host, "/var/lib/iotune/reports/harden-fleet-waived-harden.json")
    checks = dict((check["id"], check) for check in report["checks"])
    for check_id in (NOATIME, NOSUID):
        check = checks[check_id]
        assert check["status"] in ("drift", "not_persistent") and check["changed"] is False, check
        assert check["waiver"]["name"] == "scratch stays as the backup agent needs it", check
    tools = [check for check_id, check in checks.items() if check_id.startswith("copy_tools:")]
    assert tools and all(check["changed"] and check["status"] == "compliant" for check in tools), tools
    assert checks[TUNEFSTAB]["status"] in ("compliant", "not_applicable"), checks[TUNEFSTAB]
    text = host.file("/var/lib/iotune/journal/fleet-waived-harden.jsonl").content_string
    targets = set(json.loads(line)["target"] for line in text.splitlines() if line.strip())
    assert "/mnt/scratch" not in targets and "/etc/fstab" not in targets, targets
    assert "/usr/local/bin/iotune-copy" in targets, targets
    assert host.file("/var/lib/iotune/journal/fleet-waived-harden.rolled-back.json").exists
