#!/usr/bin/env bash
# Runs on the VM, from prepare.yml (ansible.builtin.script): the whole set-up in one round trip,
# where one Ansible task per step cost 5-12 s each under TCG (3.7 minutes in all).
#
# Two data disks with deliberately untuned settings, the kind iotune exists to find: ext4 on vdb
# with strictatime and a 1 s journal commit, xfs on vdc with strictatime and only two log
# buffers, both in fstab; read-ahead on vdb cut to 8 KiB live only. When a third disk is there,
# an ext4 on dm-linear over its first partition at /data/dm (live only, not in fstab).
set -euo pipefail
umask 022

mkfs.ext4 -q -F -L iotune-ext4 /dev/vdb
mkfs.xfs -q -f -L iotune-xfs /dev/vdc
install -d -m 0755 /data/ext4 /data/xfs
# by label for ext4, by name for xfs
sed -i -E '\#[[:space:]]/data/(ext4|xfs)[[:space:]]#d' /etc/fstab
printf '%s\t%s\t%s\t%s\t0\t2\n' \
  LABEL=iotune-ext4 /data/ext4 ext4 strictatime,commit=1 \
  /dev/vdc /data/xfs xfs strictatime,logbufs=2 >> /etc/fstab
mount /data/ext4
mount /data/xfs

# live only, not persistent
blockdev --setra 16 /dev/vdb
# the policy's value, but no udev rule
blockdev --setra 8192 /dev/vdc
# fstab still says strictatime
mount -o remount,noatime --options-source=disable /data/xfs
sysctl -q -w vm.dirty_background_ratio=5

# applied live and at boot
printf '# lab: applied live and at boot\nvm.vfs_cache_pressure = 50\n' > /etc/sysctl.d/50-lab.conf
sysctl -q -p /etc/sysctl.d/50-lab.conf
printf 'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vdd", ATTR{queue/read_ahead_kb}="1024"\n' \
  > /etc/udev/rules.d/70-lab.rules
udevadm control --reload
udevadm trigger --action=change --sysname-match=vdd
udevadm settle

# no VxFS here, so only the file side of tunefstab is audited
install -d -m 0755 /etc/vx
printf '# lab tunefstab\n/dev/vx/dsk/labdg/vol01 read_pref_io=65536,write_pref_io=65536\n' > /etc/vx/tunefstab

if [[ -b /dev/vdd ]]; then
  modprobe dm_mod
  printf 'label: gpt\n,,L\n' | sfdisk -q /dev/vdd
  udevadm settle
  sectors=$(blockdev --getsz /dev/vdd1)
  dmsetup create iotune-linear --table "0 $sectors linear /dev/vdd1 0"
  mkfs.ext4 -q -F /dev/mapper/iotune-linear
  install -d -m 0755 /data/dm
  mount /dev/mapper/iotune-linear /data/dm
fi
