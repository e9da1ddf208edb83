#!/usr/bin/env bash
# Everything the enforce target may change, one line per item: sha256 of the
# alternate files (or "absent"), the simulated VxFS state, the queue attributes
# of the test loop devices, /proc/sys/vm/*, the live options of the test mounts.
# Equal output = equal state.  Usage: digest.sh WORK_DIR VXTUNEFS_SIMULATOR
set -eu
work=$1 sim=$2
file_line() {
  if [ -e "$2" ]; then echo "file $1 $(sha256sum <"$2" | cut -d' ' -f1)"; else echo "file $1 absent"; fi
}
file_line fstab "$work/fstab"
file_line udev-rules "$work/udev/rules.d/60-iotune.rules"
file_line sysctl-file "$work/sysctl.d/60-iotune.conf"
file_line tunefstab "$work/vx/tunefstab"
# The simulator's state file, byte for byte; and its meaning: the file without its
# tunables, and the tunables as vxtunefs -p prints them. (A tunable set back to its
# default stays in the file as an explicit value, so after a rollback only the
# meaning can be compared.)
file_line vxfs-sim-state-raw "$VXFS_SIM_STATE"
mounts=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); s.pop("tunables"); print(json.dumps(s, sort_keys=True))' \
  "$VXFS_SIM_STATE")
echo "vxfs-sim mounts $(sha256sum <<<"$mounts" | cut -d' ' -f1)"
echo "vxfs-sim tunables $("$sim" -p "$work/mnt/vx" | sha256sum | cut -d' ' -f1)"
while read -r dev; do
  for attr in /sys/block/"$dev"/queue/*; do
    [ -f "$attr" ] || continue
    echo "sysfs $dev/${attr##*/} $(tr '\n' ' ' <"$attr" 2>/dev/null || true)"
  done
done <"$work/loops"
for key in /proc/sys/vm/*; do
  echo "vm ${key##*/} $(tr '\n\t' '  ' <"$key" 2>/dev/null || true)"
done
while IFS= read -r mount_point; do
  echo "mount $mount_point $(findmnt -n -o OPTIONS --mountpoint "$mount_point" || echo unmounted)"
done <"$work/mountpoints"
