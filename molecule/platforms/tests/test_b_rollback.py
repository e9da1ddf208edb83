"""After test_a_platforms.py, on every release: rollback_io.yml brings back the state prepare
recorded, and a check-mode harden of that state then shows its diff and changes nothing.

pytest runs the tests of a module host by host (testinfra's host is a module-scoped parameter);
each playbook runs once, for all hosts, in a module-scoped fixture, so this file comes after every
test that needs the hardened state.
"""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
import labrun  # noqa: E402 pylint: disable=wrong-import-position

RUN_ID = "fleet-harden"


@pytest.fixture(scope="module")
def rollback():
    """rollback_io.yml of the harden, once for all hosts."""
    return labrun.playbook("rollback_io", "-e", "iotune_run_id=" + RUN_ID)


def test_rollback_restored_the_prepared_state(host, rollback):
    rc, output = rollback
    assert rc == 0, output[-3000:]
    assert labrun.recap(output, host.backend.get_hostname())["changed"] > 0
    diff = json.loads(host.check_output("python3 /root/state_digest.py --diff /root/state-before.json"))
    assert diff["items"] > 100 and diff["changed"] == [], diff


@pytest.fixture(scope="module")
def check_mode(rollback):  # pylint: disable=redefined-outer-name,unused-argument
    """harden_io.yml --check --diff on the restored hosts, once for all hosts."""
    return labrun.playbook("harden_io", "--check", "--diff", "-e", "iotune_run_id=platforms-check")


def test_check_mode_shows_the_diff_and_changes_nothing(host, check_mode):
    rc, output = check_mode
    assert rc == 0, output[-3000:]
    assert labrun.recap(output, host.backend.get_hostname())["changed"] > 0
    assert "+++ after" in output and "noatime" in output, output[-3000:]
    diff = json.loads(host.check_output("python3 /root/state_digest.py --diff /root/state-before.json"))
    assert diff["changed"] == [], diff
