#!/usr/bin/env bash
# Runs on the VM, from tests/test_z_upgrade.py: real Debian packages (built here with dpkg-deb)
# that stand in for an OS and storage upgrade, for upgrade_check.yml to explain.
#   vrtsvxfs              SIMULATOR of the VxFS package: ships the VxFS simulator as
#                         /usr/sbin/vxtunefs (tests/vxfs-sim, never real VxFS); its postinst sets
#                         the simulated version (vxtunefs --sim-upgrade), which remounts the simulated
#                         file systems as an upgrade and reboot would. 7.4 -> 8.0 changes the default
#                         discovered_direct_iosz from 256 KiB to 1 MiB (the seed-001 story).
#   iotune-sim-writeback  SIMULATED vendor package shipping /usr/lib/sysctl.d/50-iotune-sim-writeback.conf:
#                         1.0 sets vm.dirty_writeback_centisecs to 500 (the kernel default), 1.1 to 1000;
#                         its postinst loads the file, as packages that ship sysctl defaults do.
# Usage: sim-packages.sh install SIMULATOR | upgrade | purge
set -euo pipefail
umask 022
work=/root/sim-packages
export VXFS_SIM_STATE=/var/lib/vxfs-sim/state.json

build() {  # build NAME VERSION DESCRIPTION POSTINST_BODY FILE_SPEC...  (FILE_SPEC: src=dest, or text:dest:content)
  local name=$1 version=$2 description=$3 postinst=$4 root
  shift 4
  root=$work/$name-$version
  rm -rf "$root"
  install -d "$root/DEBIAN"
  printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: iotune.storage tests <root@localhost>\nDescription: %s\n' \
    "$name" "$version" "$description" >"$root/DEBIAN/control"
  printf '#!/bin/sh\nset -e\n%s\n' "$postinst" >"$root/DEBIAN/postinst"
  chmod 0755 "$root/DEBIAN/postinst"
  local spec dest
  for spec in "$@"; do
    if [[ $spec == text:* ]]; then
      dest=$root/$(cut -d: -f2 <<<"$spec")
      install -d "$(dirname "$dest")"
      printf '%s\n' "$(cut -d: -f3- <<<"$spec")" >"$dest"
    else
      dest=$root/${spec#*=}
      install -d "$(dirname "$dest")"
      install -m 0755 "${spec%%=*}" "$dest"
    fi
  done
  dpkg-deb --build --root-owner-group "$root" "$work/$name-$version.deb" >/dev/null
}

writeback() {  # writeback VERSION VALUE
  build iotune-sim-writeback "$1" "SIMULATED vendor sysctl defaults (iotune.storage tests)" \
    "sysctl -q -p /usr/lib/sysctl.d/50-iotune-sim-writeback.conf" \
    "text:usr/lib/sysctl.d/50-iotune-sim-writeback.conf:vm.dirty_writeback_centisecs = $2"
}

vxfs() {  # vxfs VERSION SIMULATOR
  build vrtsvxfs "$1" "SIMULATOR of VxFS for the iotune.storage tests - not VxFS" \
    "vxtunefs --sim-upgrade $3
grep -q /data/vx /var/lib/vxfs-sim/state.json 2>/dev/null || { mkdir -p /data/vx; vxtunefs --sim-mount /dev/vx/dsk/labdg/vol01 /data/vx; }" \
    "$2=usr/sbin/vxtunefs"
}

mkdir -p "$work"
case ${1:-} in
  install)
    writeback 1.0 500
    vxfs 7.4.0-sim1 "$2" 7.4
    dpkg -i "$work/iotune-sim-writeback-1.0.deb" "$work/vrtsvxfs-7.4.0-sim1.deb" >/dev/null
    ;;
  upgrade)
    writeback 1.1 1000
    vxfs 8.0.0-sim1 /usr/sbin/vxtunefs 8.0
    dpkg -i "$work/iotune-sim-writeback-1.1.deb" "$work/vrtsvxfs-8.0.0-sim1.deb" >/dev/null
    ;;
  purge)
    dpkg --purge iotune-sim-writeback vrtsvxfs >/dev/null
    sysctl -q -w vm.dirty_writeback_centisecs=500
    rm -rf /var/lib/vxfs-sim /data/vx "$work"
    ;;
  *)
    echo "usage: $0 install SIMULATOR | upgrade | purge" >&2
    exit 2
    ;;
esac
