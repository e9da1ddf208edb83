"""Enforce and roll back on the VM (runs after test_audit.py: "x" sorts last).

- harden_io.yml, then rollback_io.yml: the state digest (files under /etc and
  /usr/local, every /sys/block/*/queue value, every vm.* value, every mount's
  live options) is the one prepare.yml recorded; a second harden reports
  changed=0.
- The same after a harden run killed with SIGKILL in the middle of
  enforcement, at several journal records (the journal's failpoint file).
Every step ends with the VM back in the prepared state, so a failure here
does not leak into the other tests.

The four-run pattern of each concern module (check, apply, apply, check) is the integration
target `enforce`'s, on loop devices of the test machine's own kernel: run here under TCG it
took about 3.5 minutes and proved nothing the harden runs below do not."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
import labrun  # noqa: E402 pylint: disable=wrong-import-position
from labrun import differences, digest, playbook  # noqa: E402,F401 pylint: disable=wrong-import-position

JOURNAL = "/var/lib/iotune/journal"
FAILPOINT = "/run/iotune/failpoint"
# what make demo's step 2 shows of harden_io.yml --check --diff
DEMO_DIFF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts", "demo_diff")


@pytest.fixture(scope="module")
def prepared(host):
    """The digest prepare.yml recorded; the VM must be in that state now."""
    return labrun.prepared_state(host)


def recap(output):
    return labrun.recap(output, "iotune-vm")


def records(host, run_id):
    text = host.file("%s/%s.jsonl" % (JOURNAL, run_id)).content_string
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def harden_runs(host, prepared):
    """harden_io.yml --check, harden_io.yml twice with each run's report, then rollback_io.yml."""
    rc, output = playbook("harden_io", "--check", "--diff", "-e", "iotune_run_id=vm-harden-check")
    check = {"rc": rc, "output": output, "recap": recap(output), "digest": digest(host),
             "journal": host.file("%s/vm-harden-check.jsonl" % JOURNAL).exists}
    runs = []
    for run_id in ("vm-harden-1", "vm-harden-2"):
        rc, output = playbook("harden_io", "-e", "iotune_run_id=" + run_id)
        report = json.loads(host.file("/var/lib/iotune/reports/harden-%s.json" % run_id).content_string)
        unit = host.file("/etc/systemd/system/backup.slice")
        runs.append({"rc": rc, "output": output, "recap": recap(output), "report": report,
                     "slice_unit": unit.content_string if unit.exists else None,
                     "slice_live": host.check_output("systemctl show -p MemoryHigh --value backup.slice")})
    rc, output = playbook("rollback_io", "-e", "iotune_run_id=vm-harden-1")
    return {"check": check, "runs": runs, "rollback": {"rc": rc, "output": output, "digest": digest(host)}}


def test_harden_in_check_mode_predicts_and_changes_nothing(harden_runs, prepared):
    check = harden_runs["check"]
    assert check["rc"] == 0, check["output"][-3000:]
    assert check["recap"]["changed"] > 0
    assert "+++ after: /etc/udev/rules.d/60-iotune.rules" in check["output"]
    assert differences(prepared, check["digest"]) == [] and not check["journal"]
    # make demo's step 2 finds this diff in the engine's task (issue 25: it once printed nothing)
    shown = subprocess.run([sys.executable, DEMO_DIFF], input=check["output"], stdout=subprocess.PIPE,
                           universal_newlines=True, check=False).stdout.splitlines()
    assert "+++ after: /etc/udev/rules.d/60-iotune.rules" in shown, check["output"][-3000:]
    assert [line for line in shown if line.startswith("@@")], check["output"][-3000:]


def test_harden_changes_and_reports_the_changes(harden_runs):
    first = harden_runs["runs"][0]
    assert first["rc"] == 0, first["output"][-3000:]
    assert first["recap"]["changed"] > 0
    changed = [c for c in first["report"]["checks"] if c["changed"]]
    assert first["report"]["mode"] == "harden" and first["report"]["summary"]["changed"] == len(changed)
    ids = {c["id"] for c in changed}
    # one check per concern the policy drifts on (see test_audit.py)
    assert "mount_options:/data/ext4:present:noatime" in ids, ids
    assert "block_queue:vdb:read_ahead_kb" in ids and "block_queue:vdb:scheduler" in ids, ids
    assert "cache_limits:sysctl:vm.dirty_ratio" in ids, ids
    assert "tunefstab:/dev/vx/dsk/labdg/vol01:discovered_direct_iosz" in ids, ids
    # the policy names its bulk slice (iotune_cache.bulk_slice.name): that unit is written and loaded
    assert "cache_limits:backup.slice:MemoryHigh" in ids, ids
    assert first["slice_unit"].endswith("[Slice]\nMemoryHigh=25%\n"), first["slice_unit"]
    assert first["slice_live"] not in ("", "infinity"), first["slice_live"]
    assert all(c["status"] == "compliant" and c["status_before"] != "compliant" for c in changed), changed


def test_second_harden_changes_nothing(harden_runs):
    second = harden_runs["runs"][1]
    assert second["rc"] == 0, second["output"][-3000:]
    assert second["recap"]["changed"] == 0, second["output"][-3000:]
    assert not [c for c in second["report"]["checks"] if c["changed"]]


def test_rollback_restores_the_prepared_state(harden_runs, prepared):
    rollback = harden_runs["rollback"]
    assert rollback["rc"] == 0, rollback["output"][-3000:]
    assert differences(prepared, rollback["digest"]) == []


@pytest.mark.parametrize("kill_after", [1, 2, 6])
def test_rollback_after_a_killed_harden(host, prepared, kill_after):
    run_id = "vm-killed-%d" % kill_after
    host.run_expect([0], "mkdir -p %s && echo 'kill-after %d' > %s" % (os.path.dirname(FAILPOINT), kill_after,
                                                                       FAILPOINT))
    rc, output = playbook("harden_io", "-e", "iotune_run_id=" + run_id)
    assert rc != 0, output[-3000:]
    assert not host.file(FAILPOINT).exists, "the failpoint did not fire"
    written = records(host, run_id)
    assert [r["seq"] for r in written] == list(range(1, kill_after + 1))
    assert differences(prepared, digest(host)) != [] or kill_after == 1
    rc, output = playbook("rollback_io", "-e", "iotune_run_id=" + run_id)
    assert rc == 0, output[-3000:]
    assert differences(prepared, digest(host)) == []
