#!/usr/bin/env bash
# shellcheck disable=SC2154,SC2034  # work, mounts and loops are ../setup_loop_fs/loop_fs.sh's (set, and used by its cleanup)
# Enforcement end to end on this machine's kernel: mount_options, block_queue,
# cache_limits and tunefstab each run check, apply, apply, check on real loop
# devices (ext4, and xfs under a path with a space) and the VxFS simulator;
# check mode must change nothing, io_rollback must bring back the state before
# the apply. Files are alternate ones in a temp dir (never /etc/fstab, /etc/udev,
# /etc/sysctl.d). cache_limits writes the REAL /proc/sys/vm values: the trap
# writes the saved ones back, whatever happens.
set -eu
cd "$(dirname "$0")"

# the policy's vm keys, from the settings table (plugins/module_utils/settings/cache_limits.py): those of a
# bytes/ratio pair as "bytes:ratio", the others alone
vm_table() {
  local roots
  IFS=: read -ra roots <<<"${ANSIBLE_COLLECTIONS_PATH:?run through make integration}"
  PYTHONPATH="${roots[0]}" python3 -c '
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import PAIRS, POLICY_SYSCTLS
paired = [name for pair in PAIRS for name in pair]
print(" ".join([name for name in POLICY_SYSCTLS if name not in paired] + ["%s:%s" % pair for pair in PAIRS]))'
}
vm_entries=$(vm_table)
[ -n "$vm_entries" ] || { echo "FAIL: no vm keys from the settings table" >&2; exit 1; }
vm_keys=$(echo "$vm_entries" | tr ': ' '  ')
declare -A vm_saved
for key in $vm_keys; do vm_saved[$key]=$(cat "/proc/sys/vm/$key"); done

# shellcheck source=../setup_loop_fs/loop_fs.sh
source ../setup_loop_fs/loop_fs.sh

restore_vm() {
  local entry bytes ratio
  for entry in $vm_entries; do
    bytes=${entry%%:*} ratio=${entry#*:}
    if [ "$bytes" = "$entry" ]; then
      echo "${vm_saved[$entry]}" >"/proc/sys/vm/$entry" || true
    # of a bytes/ratio pair, write the one that was in force: the kernel zeroes the other
    elif [ "${vm_saved[$bytes]}" != 0 ]; then
      echo "${vm_saved[$bytes]}" >"/proc/sys/vm/$bytes" || true
    else
      echo "${vm_saved[$ratio]}" >"/proc/sys/vm/$ratio" || true
    fi
  done
  local key
  for key in $vm_keys; do
    [ "$(cat "/proc/sys/vm/$key")" = "${vm_saved[$key]}" ] ||
      echo "WARNING: vm.$key is $(cat "/proc/sys/vm/$key"), was ${vm_saved[$key]} before the test" >&2
  done
}

loop_fs_cleanup_hook() { restore_vm; }
loop_fs_init enforce

# the simulator is not part of the target's copy: find it in the collection under test
loop_fs_vxfs_sim

# two loop devices: ext4, and xfs mounted under a path with a space
mkdir -p "$work/img" "$work/mnt/ext4" "$work/mnt/xfs data" "$work/udev/rules.d" "$work/sysctl.d" \
  "$work/vx" "$work/vxfs" "$work/proc/self"
truncate -s 64M "$work/img/ext4.img"
truncate -s 320M "$work/img/xfs.img"
loop_ext4=$(losetup -f --show "$work/img/ext4.img"); loops+=("$loop_ext4")
loop_xfs=$(losetup -f --show "$work/img/xfs.img"); loops+=("$loop_xfs")
mkfs.ext4 -q -F "$loop_ext4"
mkfs.xfs -q -f "$loop_xfs"
mounts=("$work/mnt/ext4" "$work/mnt/xfs data")
mount -t ext4 "$loop_ext4" "$work/mnt/ext4"
mount -t xfs "$loop_xfs" "$work/mnt/xfs data"
printf '%s\n' "${loop_ext4#/dev/}" "${loop_xfs#/dev/}" >"$work/loops"
printf '%s\n' "${mounts[@]}" >"$work/mountpoints"

# alternate files; the others (udev rules file, sysctl.conf) start absent
cat >"$work/fstab" <<EOF
# alternate fstab of the enforce integration test
$loop_ext4	$work/mnt/ext4	ext4	defaults	0 2
$loop_xfs  $work/mnt/xfs\\040data  xfs  defaults,inode64  0  0
tmpfs /srv/unrelated tmpfs size=64m,mode=1777 0 0   # not managed
EOF
printf '# managed by the enforce integration test\nvm.swappiness = %s\n' "$(cat /proc/sys/vm/swappiness)" \
  >"$work/sysctl.d/60-iotune.conf"
printf '# VxFS tunables (simulated)\n/dev/vx/dsk/otherdg/vol09 read_pref_io=131072\n' >"$work/vx/tunefstab"

# the simulated VxFS mount, and a procfs stand-in whose mountinfo shows it as vxfs
vx_device=/dev/vx/dsk/testdg/vol01
export VXFS_SIM_STATE=$work/vxfs/state.json VXTUNEFSTAB=$work/vx/tunefstab
"$sim" --sim-mount "$vx_device" "$work/mnt/vx"
echo "900 1 199:1000 / $work/mnt/vx rw,relatime shared:90 - vxfs $vx_device rw,delaylog,largefiles" \
  >"$work/proc/self/mountinfo"

# values that differ from the current ones, so that every module has something to change
expire=$(( vm_saved[dirty_expire_centisecs] == 1500 ? 1600 : 1500 ))
background=$(( vm_saved[dirty_background_bytes] == 67108864 ? 33554432 : 67108864 ))
dirtytime=$(( vm_saved[dirtytime_expire_seconds] == 43200 ? 43100 : 43200 ))

python3 - "$work/vars.json" <<PY
import json, sys
json.dump({
    "enforce_work": "$work",
    "enforce_run_id": "enforce-$$",
    "enforce_loop_ext4": "$loop_ext4",
    "enforce_loop_xfs": "$loop_xfs",
    "enforce_max_hw_sectors_kb": int(open("/sys/block/${loop_ext4#/dev/}/queue/max_hw_sectors_kb").read()),
    "enforce_vxtunefs": "$sim",
    "enforce_vx_device": "$vx_device",
    "enforce_expire_centisecs": $expire,
    "enforce_background_bytes": $background,
    "enforce_dirtytime_expire_seconds": $dirtytime,
}, open(sys.argv[1], "w"))
PY
echo "localhost ansible_connection=local ansible_python_interpreter=$(command -v python3)" >"$work/inventory"

ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_NOCOLOR=true \
  ansible-playbook -i "$work/inventory" enforce.yml -e "@$work/vars.json" "$@"
