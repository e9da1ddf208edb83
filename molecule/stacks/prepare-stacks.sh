#!/usr/bin/env bash
# Runs on the stacks VM, from prepare.yml (ansible.builtin.script), in one round trip: the storage
# stacks of issue 26, each from Debian's packages, each left with untuned defaults and made to come
# back by itself at the next boot.
#
#   NVMe     nvme0n1 and nvme1n1: qemu's emulated controllers (lab/vm --nvme 2), raw
#   iSCSI    an LIO target (targetcli-fb) exporting /dev/vde as one LUN through two portals,
#            127.0.0.1:3260 and :3261; open-iscsi logs in to both at boot
#   mpath    multipath-tools assembles the two paths into one map (mpatha), ext4 at /data/mpath
#   LVM      LV labvg/data on the PV /dev/vdd, ext4 at /data/lvm
#   MD       RAID1 /dev/md/labmd of vdb and vdc, ext4 at /data/md
#   NFS      nfs-kernel-server exports /srv/nfs/export; mounted over loopback at /mnt/nfs with
#            rsize/wsize 64 KiB, in fstab and live
#
# The LUN's unit serial is fixed, so its WWN (naa.6001405 and the first 25 hex digits of the
# serial, LIO's NAA type 6 designator) is one the policy in molecule.yml can name.
set -euo pipefail
umask 022

IQN=iqn.2026-11.lab.iotune:stacks
LUN_SERIAL=26000000-0000-4000-8000-00000000abcd

log() { printf 'prepare-stacks: %s\n' "$*" >&2; }

# --- daemons, on now and at boot ------------------------------------------------------------
# A loopback lab (a SAN has no such order): the target starts before the initiator logs in to
# it and, at shutdown, stops after the initiator and blk-availability are done with it; otherwise
# blkdeactivate waits 90 s on a map whose paths the stopped target took away. Not before
# multipathd.service: that one starts before local-fs-pre.target and the target (a normal service)
# after basic.target, an ordering cycle that systemd broke at every boot by dropping one job of it,
# at random: the boots that dropped data-md.mount left /data/md unmounted (2 runs in about 10).
install -d -m 0755 /etc/systemd/system/rtslib-fb-targetctl.service.d
printf '[Unit]\nBefore=iscsid.service open-iscsi.service blk-availability.service remote-fs-pre.target\n' \
  > /etc/systemd/system/rtslib-fb-targetctl.service.d/lab-target-first.conf
install -d -m 0755 /etc/systemd/system/open-iscsi.service.d
printf '[Unit]\nWants=rtslib-fb-targetctl.service\n' > /etc/systemd/system/open-iscsi.service.d/lab-target-first.conf
systemctl daemon-reload
systemctl enable --quiet rtslib-fb-targetctl.service iscsid.socket open-iscsi.service \
  multipathd.service multipathd.socket rpcbind.socket nfs-server.service
modprobe -a dm_multipath iscsi_tcp target_core_iblock iscsi_target_mod raid1

# --- MD RAID1 ------------------------------------------------------------------------------
log "md: RAID1 of vdb and vdc"
mdadm --create /dev/md/labmd --run --quiet --level=1 --raid-devices=2 --metadata=1.2 \
  --assume-clean --homehost=iotune-lab /dev/vdb /dev/vdc
{ echo "MAILADDR root"; mdadm --detail --scan; } > /etc/mdadm/mdadm.conf
mkfs.ext4 -q -F -L iotune-md /dev/md/labmd

# --- LVM -------------------------------------------------------------------------------------
log "lvm: labvg/data on vdd"
pvcreate -q /dev/vdd
vgcreate -q labvg /dev/vdd
lvcreate -q -y -n data -L 512M labvg
mkfs.ext4 -q -F -L iotune-lvm /dev/labvg/data

# --- iSCSI target and initiator --------------------------------------------------------------
log "iscsi: LIO target $IQN on 127.0.0.1:3260 and :3261"
systemctl start rtslib-fb-targetctl.service
targetcli /backstores/block create name=lun0 dev=/dev/vde >/dev/null
for serial in /sys/kernel/config/target/core/iblock_*/lun0/wwn/vpd_unit_serial; do
  printf '%s' "$LUN_SERIAL" > "$serial"
done
targetcli /iscsi create "$IQN" >/dev/null
targetcli "/iscsi/$IQN/tpg1/portals" delete 0.0.0.0 3260 >/dev/null
targetcli "/iscsi/$IQN/tpg1/portals" create 127.0.0.1 3260 >/dev/null
targetcli "/iscsi/$IQN/tpg1/portals" create 127.0.0.1 3261 >/dev/null
targetcli "/iscsi/$IQN/tpg1/luns" create /backstores/block/lun0 >/dev/null
targetcli "/iscsi/$IQN/tpg1" set attribute authentication=0 demo_mode_write_protect=0 \
  generate_node_acls=1 cache_dynamic_acls=1 >/dev/null
targetcli saveconfig >/dev/null

systemctl start iscsid.socket
iscsiadm -m discovery -t sendtargets -p 127.0.0.1:3260 >/dev/null
iscsiadm -m node -T "$IQN" --op update -n node.startup -v automatic
iscsiadm -m node -T "$IQN" --login >/dev/null
udevadm settle

# --- dm-multipath ----------------------------------------------------------------------------
log "multipath: one map of the LUN's two paths"
cat > /etc/multipath.conf <<'CONF'
defaults {
    user_friendly_names yes
    find_multipaths strict
}
blacklist {
    devnode "^(vd|nvme)"
}
# fail I/O when no path is left instead of queueing it for ever (LIO-ORG's built-in entry queues)
overrides {
    no_path_retry fail
}
CONF
paths=()
for dev in /sys/block/sd*; do
  [[ $(cat "$dev/device/model" 2>/dev/null) == lun0* ]] && paths+=("/dev/${dev##*/}")
done
[[ ${#paths[@]} -eq 2 ]] || { log "expected 2 iSCSI paths, found: ${paths[*]:-none}"; exit 1; }
multipath -a "${paths[0]}" >/dev/null
systemctl start multipathd.service
multipath -r >/dev/null
udevadm trigger --action=change --subsystem-match=block
udevadm settle
[[ -b /dev/mapper/mpatha ]] || { multipath -ll >&2; log "no map mpatha"; exit 1; }
mkfs.ext4 -q -F -L iotune-mpath /dev/mapper/mpatha

# --- NFS over loopback -----------------------------------------------------------------------
log "nfs: /srv/nfs/export mounted at /mnt/nfs"
install -d -m 0755 /srv/nfs/export /mnt/nfs
printf '/srv/nfs/export\t127.0.0.1(rw,sync,no_subtree_check,no_root_squash)\n' > /etc/exports
systemctl start rpcbind.socket nfs-server.service
exportfs -ra

# --- fstab and mounts ------------------------------------------------------------------------
install -d -m 0755 /data/md /data/lvm /data/mpath
# Under TCG a device can take long to appear (md127 at 49 s of a slow boot); the lab waits 5 minutes for each.
wait=x-systemd.device-timeout=300
{
  printf 'LABEL=iotune-md\t/data/md\text4\tdefaults,%s\t0\t2\n' "$wait"
  printf '/dev/labvg/data\t/data/lvm\text4\tdefaults,%s\t0\t2\n' "$wait"
  printf '/dev/mapper/mpatha\t/data/mpath\text4\t_netdev,%s\t0\t0\n' "$wait"
  # the server is this host: mount after it starts, unmount before it stops
  printf '127.0.0.1:/srv/nfs/export\t/mnt/nfs\tnfs4\trsize=65536,wsize=65536,_netdev,x-systemd.requires=nfs-server.service\t0\t0\n'
} >> /etc/fstab
systemctl daemon-reload
mount /data/md
mount /data/lvm
mount /data/mpath
mount /mnt/nfs
udevadm settle
log "done: $(lsblk -rno NAME,TYPE | tr '\n' ' ')"
