"""What the VM scenarios' tests share: the state digest, and the collection's playbooks run
against the scenario's inventory as a user runs them."""
import json
import os
import re
import subprocess


def digest(host):
    """The state digest (state_digest.py, installed by digest_before.yml) of the host now."""
    return json.loads(host.check_output("python3 /root/state_digest.py"))


def differences(before, after):
    return sorted(key for key in set(before) | set(after) if before.get(key) != after.get(key))


def playbook(name, *extra, reports="harden-reports"):
    """Run a playbook of the collection against the scenario's hosts; (rc, output)."""
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    inventory = os.path.dirname(os.environ["MOLECULE_INVENTORY_FILE"])
    report_dir = os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], reports)
    argv = ["ansible-playbook", "-i", inventory, "iotune.storage." + name, "-e", "iotune_report_dir=" + report_dir]
    done = subprocess.run(argv + list(extra), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=900, check=False)
    return done.returncode, done.stdout


def recap(output, host_name):
    """The PLAY RECAP counts of ``host_name``: {ok, changed, unreachable, failed}."""
    found = re.search(re.escape(host_name) + r"\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", output)
    assert found, output[-3000:]
    return dict(zip(("ok", "changed", "unreachable", "failed"), map(int, found.groups())))


def recorded_digest(host):
    """The digest digest_before.yml recorded at the end of prepare."""
    return json.loads(host.file("/root/state-before.json").content_string)


def prepared_state(host):
    """The recorded digest, after checking that the host is in that state now."""
    recorded = recorded_digest(host)
    assert differences(recorded, digest(host)) == []
    return recorded
