"""The VM scenario: real virtio disks with untuned ext4 and xfs mounts."""
import pytest


@pytest.fixture(scope="module")
def iotune(host):
    return host.ansible("iotune.storage.io_facts", check=False)["ansible_facts"]["iotune"]


@pytest.mark.parametrize("path,device,fstype,fstab,atime", [
    # The kernel never prints strictatime: it shows as the absence of relatime/noatime.
    ("/data/ext4", "vdb", "ext4", ["strictatime", "commit=1"], set()),
    # prepare.yml remounted the xfs noatime, live only.
    ("/data/xfs", "vdc", "xfs", ["strictatime", "logbufs=2"], {"noatime"}),
])
def test_data_mounts(iotune, path, device, fstype, fstab, atime):
    m = iotune["mounts"][path]
    assert (m["device"], m["fstype"], m["options_fstab"]) == (device, fstype, fstab)
    assert {"relatime", "noatime", "strictatime"} & set(m["options_live"]) == atime


def test_root_is_on_vda(iotune):
    assert iotune["mounts"]["/"]["device"] == "vda"


def test_label_spec_resolves_to_the_disk(iotune):
    entry = [e for e in iotune["fstab"] if e["file"] == "/data/ext4"][0]
    assert entry["spec"] == "LABEL=iotune-ext4"
    assert entry["resolved"] == "/dev/vdb"


def test_live_only_read_ahead_is_seen(host, iotune):
    assert iotune["block_devices"]["vdb"]["read_ahead_kb"] == 8
    assert host.check_output("blockdev --getra /dev/vdb") == "16"


def test_data_disks_are_whole_disks_with_serials(iotune):
    for dev in ("vdb", "vdc"):
        d = iotune["block_devices"][dev]
        assert d["parents"] == [] and d["size_bytes"] == 1024 ** 3
        assert d["serial"] and d["serial"].startswith("iotune-data")


def test_mount_on_dm_over_a_partition_resolves_to_the_disk(host, iotune):
    dm = host.check_output("basename $(readlink -f /dev/mapper/iotune-linear)")
    m = iotune["mounts"]["/data/dm"]
    assert m["device"] == dm and dm.startswith("dm-")
    assert m["backing_disks"] == ["vdd"]
    assert m["options_fstab"] is None
    assert iotune["block_devices"][dm]["parents"] == ["vdd1"]
    assert iotune["block_devices"][dm]["dm_name"] == "iotune-linear"
    assert "vdd1" in iotune["block_devices"]["vdd"]["partitions"]
