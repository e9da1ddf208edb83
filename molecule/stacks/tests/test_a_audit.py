"""The stacks as io_facts and audit_io.yml see them, against what the kernel and lsblk say (issue 26).

prepare-stacks.sh left every stack with its defaults; the policy in molecule.yml asks for other values,
so every check drifts, and each says on which device of the stack its setting belongs and why."""
import json

import pytest

LUN_WWN = "0x60014052600000000004000800000000"
LUN_WWID = "360014052600000000004000800000000"


@pytest.fixture(scope="module")
def devices(host):
    result = host.ansible("iotune.storage.io_facts", check=False)
    assert not result.get("failed"), result
    return result["ansible_facts"]["iotune"]["block_devices"]


def by_dm_name(devices, dm_name):
    found = [name for name, info in devices.items() if info.get("dm_name") == dm_name]
    assert len(found) == 1, (dm_name, sorted(devices))
    return found[0]


def test_every_type_is_lsblks(host, devices):
    # lsblk (util-linux 2.38) on the same kernel: disk, mpath, lvm, raid1
    listed = dict(line.split() for line in host.check_output("lsblk -rno KNAME,TYPE").splitlines())
    assert {name: devices[name]["type"] for name in listed} == listed
    assert sorted(set(listed.values())) == ["disk", "lvm", "mpath", "raid1"]


def test_nvme_model_serial_and_wwid(host, devices):
    for name, serial in (("nvme0n1", "iotune-nvme1"), ("nvme1n1", "iotune-nvme2")):
        info = devices[name]
        assert (info["type"], info["model"], info["serial"]) == ("disk", "QEMU NVMe Ctrl", serial), info
        assert info["wwid"] == host.file("/sys/block/%s/wwid" % name).content_string.strip()
        # qemu's namespaces have no EUI-64/NGUID Linux uses (NVME_QUIRK_BOGUS_NID): no WWN, and io_facts says none
        assert info["wwid"].startswith("nvme.1b36-") and info["wwn"] is None


def test_the_multipath_map_its_wwid_and_its_paths(host, devices):
    mpath = by_dm_name(devices, "mpatha")
    info = devices[mpath]
    assert (info["type"], info["dm_uuid"], info["wwid"], info["wwn"]) == ("mpath", "mpath-" + LUN_WWID, LUN_WWID, LUN_WWN)
    # the paths multipathd assembled, as multipath -ll lists them
    listed = sorted(line.split()[2] for line in host.check_output("multipath -ll mpatha").splitlines()
                    if "active ready" in line)
    assert info["parents"] == listed and len(listed) == 2, (info["parents"], listed)
    for path in listed:
        assert (devices[path]["wwn"], devices[path]["holders"]) == (LUN_WWN, [mpath])
        assert devices[path]["serial"] == "26000000-0000-4000-8000-00000000abcd"


def test_lv_and_md(devices):
    lv = devices[by_dm_name(devices, "labvg-data")]
    assert (lv["type"], lv["parents"]) == ("lvm", ["vdd"])
    md = [info for info in devices.values() if info["type"] == "raid1"]
    assert len(md) == 1 and md[0]["parents"] == ["vdb", "vdc"]


@pytest.fixture(scope="module")
def report(host):
    return json.loads(host.file("/var/lib/iotune/reports/audit-latest.json").content_string)


def checks(report, concern, target=None, setting=None):
    return [c for c in report["checks"] if c["concern"] == concern and target in (None, c["target"])
            and setting in (None, c["setting"])]


def test_the_luns_settings_go_where_the_kernel_uses_them(report, devices):
    mpath = by_dm_name(devices, "mpatha")
    paths = devices[mpath]["parents"]
    found = sorted((c["target"], c["setting"], c["status"]) for c in checks(report, "block_queue")
                   if c["target"] in [mpath] + paths)
    assert found == sorted([(mpath, s, "drift") for s in ("read_ahead_kb", "max_sectors_kb", "scheduler", "nr_requests")]
                           + [(path, "max_sectors_kb", "drift") for path in paths]), found
    scheduler = checks(report, "block_queue", mpath, "scheduler")[0]["message"]
    assert "a request-based multipath map schedules its requests itself; its paths' schedulers are bypassed" in scheduler
    path_limit = checks(report, "block_queue", paths[0], "max_sectors_kb")[0]["message"]
    assert "a path of multipath map %s, whose limit cannot pass its paths'" % mpath in path_limit, path_limit
    assert "asked by wwn=naa.60014052600000000004000800000000" in path_limit


def test_lv_md_and_nvme_checks(report, devices):
    lv = by_dm_name(devices, "labvg-data")
    message = checks(report, "block_queue", lv, "read_ahead_kb")[0]["message"]
    assert "I/O through %s (LVM LV) uses its own read-ahead, not its members'" % lv in message
    assert "asked by mountpoint=/data/lvm" in message
    md = [name for name, info in devices.items() if info["type"] == "raid1"][0]
    check, = checks(report, "block_queue", md, "read_ahead_kb")
    assert check["status"] == "drift" and "md/labmd is the md array %s" % md in check["message"], check
    assert sorted((c["target"], c["setting"]) for c in checks(report, "block_queue") if c["target"].startswith("nvme")) == [
        ("nvme0n1", "read_ahead_kb"), ("nvme0n1", "scheduler"), ("nvme1n1", "read_ahead_kb")]


@pytest.mark.parametrize("option, why", [
    ("rsize=262144", "a remount of NFS refuses rsize"),
    ("wsize=262144", "a remount of NFS refuses wsize"),
    ("nconnect=2", "a remount of NFS ignores nconnect"),
])
def test_the_nfs_check_names_what_a_remount_would_not_change(report, option, why):
    check, = [c for c in checks(report, "mount_options", "/mnt/nfs") if option in c["setting"]]
    assert check["status"] == "drift"
    assert why in check["message"] and "needs unmount and mount of /mnt/nfs" in check["message"], check["message"]
    assert "remount: cycle unmounts and mounts it (nothing holds it open)" in check["message"]


def test_hard_is_live_but_not_in_fstab(report):
    check, = [c for c in checks(report, "mount_options", "/mnt/nfs") if c["setting"].endswith("hard")]
    assert check["status"] == "not_persistent", check
