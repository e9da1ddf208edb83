"""The container scenario: partial sysfs, bind mounts, tmpfs with an escaped space."""
import pytest


@pytest.fixture(scope="module")
def iotune(host):
    return host.ansible("iotune.storage.io_facts", check=False)["ansible_facts"]["iotune"]


def test_tmpfs_with_space_in_mount_point(iotune):
    m = iotune["mounts"]["/mnt/scratch space"]
    assert m["fstype"] == "tmpfs"
    assert m["device"] is None
    assert {"noexec", "nosuid"} <= set(m["options_live"])
    assert m["options_fstab"] == ["rw", "noexec", "nosuid", "size=16m"]


def test_docker_bind_mounts_are_flagged(iotune):
    hosts = iotune["mounts"]["/etc/hosts"]
    assert hosts["bind"] is True
    assert hosts["root"] != "/"
    assert hosts["options_fstab"] is None


def test_swap_line_is_parsed(iotune):
    swap = [e for e in iotune["fstab"] if e["vfstype"] == "swap"]
    assert len(swap) == 1 and swap[0]["spec"] == "/swapfile"


def test_sysctls_are_readable_but_not_persistent(iotune):
    ratio = iotune["vm"]["dirty_ratio"]
    assert isinstance(ratio["value"], int)
    assert ratio["effective_file"] is None


def test_audit_left_no_trace(host):
    assert not host.file("/var/lib/iotune").exists
