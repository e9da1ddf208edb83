"""Every host of the fleet: its own drift found by the audit, changed by the first harden,
nothing changed by the second, and the prepared state back after rollback_io.yml.

lab/fleet gave host i: i % 3 == 1 the tmpfs mounted nosuid without noatime; i % 3 == 2 noatime
live but not in fstab; i % 3 == 0 no tunefstab (others write_pref_io=65536); even i an old
copy.conf; no host has the copy tools.
"""
import json
import os

import pytest

EPHEMERAL = os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent")
NOATIME = "mount_options:/mnt/scratch:present:noatime"
NOSUID = "mount_options:/mnt/scratch:absent:nosuid"
TUNEFSTAB = "tunefstab:/dev/vx/dsk/labdg/vol01:write_pref_io"


@pytest.fixture(scope="module")
def name(host):
    return host.backend.get_hostname()


@pytest.fixture(scope="module")
def index(name):
    return int(name.rsplit("-", 1)[1])


def host_json(host, path):
    return json.loads(host.file(path).content_string)


def test_the_fleet_is_the_size_asked_for():
    reports = os.path.join(EPHEMERAL, "reports-audit")
    with open(os.path.join(reports, "summary.json")) as handle:
        summary = json.load(handle)
    assert summary["hosts"] == int(os.environ.get("IOTUNE_FLEET_SIZE") or 6)
    assert sorted(summary["by_host"]) == sorted(f[:-len(".json")] for f in os.listdir(os.path.join(reports, "hosts")))


def test_the_audit_found_this_hosts_drift(host, name, index):
    report = host_json(host, "/var/lib/iotune/reports/audit-fleet-audit.json")
    status = dict((check["id"], check["status"]) for check in report["checks"])
    assert status[NOATIME] == ("not_persistent" if index % 3 == 2 else "drift"), status
    assert status[NOSUID] == "drift", status
    assert status[TUNEFSTAB] == ("not_applicable" if index % 3 == 0 else "drift"), status
    copy_tools = [s for check_id, s in status.items() if check_id.startswith("copy_tools:")]
    assert copy_tools and set(copy_tools) == {"drift"}, status
    with open(os.path.join(EPHEMERAL, "reports-audit", "hosts", name + ".json")) as handle:
        assert json.load(handle) == report


def test_the_first_harden_changed_what_drifted_here(host, index):
    text = host.file("/var/lib/iotune/journal/fleet-harden.jsonl").content_string
    targets = set(json.loads(line)["target"] for line in text.splitlines() if line.strip())
    assert {"/mnt/scratch", "/usr/local/bin/iotune-copy", "/etc/iotune/copy.conf"} <= targets, targets
    assert ("/etc/vx/tunefstab" in targets) is (index % 3 != 0), targets


def test_the_second_harden_changed_nothing(host):
    report = host_json(host, "/var/lib/iotune/reports/harden-latest.json")
    assert report["summary"]["changed"] == 0 and not [c for c in report["checks"] if c["changed"]]
    assert set(check["status"] for check in report["checks"]) <= {"compliant", "not_applicable"}, report["checks"]


def test_rollback_restored_the_prepared_state(host):
    diff = json.loads(host.check_output("python3 /root/state_digest.py --diff /root/state-before.json"))
    assert diff["items"] > 100 and diff["changed"] == [], diff
    assert host.file("/var/lib/iotune/journal/fleet-harden.rolled-back.json").exists
