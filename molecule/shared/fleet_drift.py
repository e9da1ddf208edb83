"""What lab/fleet prepared on host i, as the audit and the first harden must see it (the fleet and
platforms scenarios): i % 3 == 1 the tmpfs mounted nosuid without noatime; i % 3 == 2 noatime live
but not in fstab; i % 3 == 0 no tunefstab (others write_pref_io=65536); even i an old copy.conf; no
host has the copy tools."""
import json

NOATIME = "mount_options:/mnt/scratch:present:noatime"
NOSUID = "mount_options:/mnt/scratch:absent:nosuid"
TUNEFSTAB = "tunefstab:/dev/vx/dsk/labdg/vol01:write_pref_io"


def host_json(host, path):
    return json.loads(host.file(path).content_string)


def check_audit(report, index):
    """The audit report of host ``index`` names its drift."""
    status = dict((check["id"], check["status"]) for check in report["checks"])
    assert status[NOATIME] == ("not_persistent" if index % 3 == 2 else "drift"), status
    assert status[NOSUID] == "drift", status
    assert status[TUNEFSTAB] == ("not_applicable" if index % 3 == 0 else "drift"), status
    copy_tools = [s for check_id, s in status.items() if check_id.startswith("copy_tools:")]
    assert copy_tools and set(copy_tools) == {"drift"}, status


def check_first_harden(host, index, run_id):
    """The journal of the first harden changed what drifted on host ``index``."""
    text = host.file("/var/lib/iotune/journal/%s.jsonl" % run_id).content_string
    targets = set(json.loads(line)["target"] for line in text.splitlines() if line.strip())
    assert {"/mnt/scratch", "/usr/local/bin/iotune-copy", "/etc/iotune/copy.conf"} <= targets, targets
    assert ("/etc/vx/tunefstab" in targets) is (index % 3 != 0), targets


def check_second_harden(host, name="harden-latest.json"):
    """The latest harden (molecule's idempotence step; its report file ``name``) changed nothing and
    left every check compliant."""
    report = host_json(host, "/var/lib/iotune/reports/" + name)
    assert report["summary"]["changed"] == 0 and not [c for c in report["checks"] if c["changed"]]
    assert set(check["status"] for check in report["checks"]) <= {"compliant", "not_applicable"}, report["checks"]
