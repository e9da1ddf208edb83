"""Each supported Debian release as a managed host (bullseye, bookworm, trixie): the audit finds the
drift lab/fleet prepared (../../shared/fleet_drift.py), the first harden changes it, the second
changes nothing, and the copy tools it installed copy on that release's Python. Then
(test_b_rollback.py) rollback_io.yml and a check-mode harden.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
from fleet_drift import check_audit, check_first_harden, check_second_harden, host_json  # noqa: E402 pylint: disable=wrong-import-position

# lab/fleet --releases bullseye,bookworm,trixie: host i runs RELEASES[(i - 1) % 3], with this Python
RELEASES = (("bullseye", "11", "3.9"), ("bookworm", "12", "3.11"), ("trixie", "13", "3.13"))
RUN_ID = "fleet-harden"


@pytest.fixture
def index(host):
    return int(host.backend.get_hostname().rsplit("-", 1)[1])


def os_release(host):
    return dict(line.split("=", 1) for line in host.file("/etc/os-release").content_string.splitlines() if "=" in line)


def test_each_host_runs_its_release(host, index):
    codename, version, python = RELEASES[(index - 1) % len(RELEASES)]
    release = os_release(host)
    assert (release["VERSION_CODENAME"], release["VERSION_ID"].strip('"')) == (codename, version)
    assert host.check_output("python3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])'") == python


def test_the_audit_found_this_hosts_drift(host, index):
    check_audit(host_json(host, "/var/lib/iotune/reports/audit-fleet-audit.json"), index)


def test_the_first_harden_changed_what_drifted_here(host, index):
    check_first_harden(host, index, RUN_ID)


def test_the_second_harden_changed_nothing(host):
    check_second_harden(host)


def test_the_copy_tools_copy_on_this_release(host):
    assert "buffer_size=16M" in host.file("/etc/iotune/copy.conf").content_string.replace(" ", "")
    host.check_output("rm -rf /root/copy && mkdir -p /root/copy/tree/sub && "
                      "head -c 20000000 /dev/urandom > /root/copy/tree/big && echo small > /root/copy/tree/sub/small")
    # iotune-bulk runs the copy in the bulk slice, or as it is where systemd does not run (a container)
    copied = host.run("iotune-bulk iotune-copy --verify -r /root/copy/tree /root/copy/out")
    assert copied.rc == 0, copied.stderr
    assert "systemd" in copied.stderr, copied.stderr
    digests = host.check_output("cd /root/copy && sha256sum tree/big out/big tree/sub/small out/sub/small").split()
    assert digests[0] == digests[2] and digests[4] == digests[6], digests
    single = host.run("iotune-copy --buffer-size 8M --direct /root/copy/tree/big /root/copy/direct")
    assert single.rc == 0, single.stderr
    assert host.check_output("cmp /root/copy/tree/big /root/copy/direct && echo same") == "same"
    host.check_output("rm -rf /root/copy")
