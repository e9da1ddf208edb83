"""io_facts must agree with the kernel: sysfs, blockdev, findmnt and sysctl.

Shared by the molecule scenarios (container and VM). Each check reads the
kernel's view in one command and compares every value io_facts reported.
"""
import json
import os
import sys
import time

import pytest


def _collections_root():
    """The collections directory of ANSIBLE_COLLECTIONS_PATH that holds the collection under test."""
    for root in os.environ.get("ANSIBLE_COLLECTIONS_PATH", "").split(":"):
        if os.path.isdir(os.path.join(root, "ansible_collections", "iotune", "storage", "plugins")):
            return root
    raise AssertionError("iotune.storage not found under ANSIBLE_COLLECTIONS_PATH")


# What io_facts reports comes from the settings tables: compare every attribute and key they list.
sys.path.insert(0, _collections_root())
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysfs import QUEUE_INT_ATTRS  # noqa: E402
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS  # noqa: E402

QUEUE_ATTRS = tuple(name for name, path in QUEUE_INT_ATTRS.items() if path == "queue/" + name)


@pytest.fixture(scope="module")
def iotune(host):
    start = time.monotonic()
    result = host.ansible("iotune.storage.io_facts", check=False)
    print("\nio_facts round trip: %.2f s" % (time.monotonic() - start))
    assert not result.get("failed"), result
    assert result.get("changed") is False
    return result["ansible_facts"]["iotune"]


def test_every_block_device_is_reported(host, iotune):
    names = set(host.check_output("ls /sys/block").split())
    assert names, "no block devices visible"
    assert set(iotune["block_devices"]) == names


def test_queue_attributes_match_sysfs(host, iotune):
    # grep -H prints path:value for every readable attribute in one round trip.
    globs = " ".join("/sys/block/*/queue/" + a for a in QUEUE_ATTRS + ("scheduler",))
    out = host.run("grep -H . " + globs).stdout
    seen = 0
    for line in out.splitlines():
        path, value = line.split(":", 1)
        dev, attr = path.split("/")[3], path.split("/")[-1]
        reported = iotune["block_devices"][dev]
        if attr == "scheduler":
            active = [w.strip("[]") for w in value.split() if w.startswith("[")]
            assert reported["scheduler"] == (active[0] if active else value.strip()), dev
            assert reported["schedulers"] == [w.strip("[]") for w in value.split()], dev
        else:
            assert reported[attr] == int(value), (dev, attr)
        seen += 1
    assert seen >= len(QUEUE_ATTRS)


def test_size_matches_sysfs(host, iotune):
    out = host.check_output("grep -H . /sys/block/*/size")
    for line in out.splitlines():
        path, sectors = line.split(":", 1)
        assert iotune["block_devices"][path.split("/")[3]]["size_bytes"] == int(sectors) * 512


def test_read_ahead_matches_blockdev(host, iotune):
    listed = " ".join("/dev/" + d for d in iotune["block_devices"])
    nodes = host.check_output("for d in %s; do [ -b $d ] && echo ${d#/dev/}; done; true" % listed).split()
    if not nodes:
        pytest.skip("no block device nodes in this environment")
    out = host.check_output(" ; ".join("echo %s $(blockdev --getra /dev/%s)" % (d, d) for d in nodes))
    for line in out.splitlines():
        dev, sectors = line.split()
        # blockdev counts 512-byte sectors; sysfs and io_facts count KiB.
        assert iotune["block_devices"][dev]["read_ahead_kb"] == int(sectors) // 2, dev


def test_live_options_match_findmnt(host, iotune):
    tree = json.loads(host.check_output("findmnt -J -l -o TARGET,OPTIONS"))
    targets = [fs["target"] for fs in tree["filesystems"]]
    checked = 0
    for fs in tree["filesystems"]:
        if targets.count(fs["target"]) > 1:
            continue  # over-mounted: only the visible one is comparable
        reported = iotune["mounts"][fs["target"]]
        assert set(reported["options_live"]) == set(fs["options"].split(",")), fs["target"]
        checked += 1
    assert checked > 0


def test_vm_sysctls_match(host, iotune):
    out = host.check_output("sysctl -n " + " ".join("vm." + k for k in VM_KEYS))
    values = out.split()
    assert len(values) == len(VM_KEYS), out
    for key, value in zip(VM_KEYS, values):
        assert iotune["vm"][key]["value"] == int(value), key


def test_memory_matches_meminfo(host, iotune):
    kib = int(host.check_output("awk '/^MemTotal:/ {print $2}' /proc/meminfo"))
    assert iotune["memory_bytes"] == kib * 1024


def test_tool_versions(host, iotune):
    fio = host.check_output("fio --version").strip()
    assert iotune["tools"]["fio"]["version"] == fio.replace("fio-", "")


def test_audit_changed_nothing(host):
    # prepare.yml saved a digest of files under /etc and /usr/local, queue
    # attributes, vm sysctls and live mount options before converge ran.
    result = json.loads(host.check_output("python3 /root/state_digest.py --diff /root/state-before.json"))
    assert result["items"] > 100
    assert result["changed"] == []
