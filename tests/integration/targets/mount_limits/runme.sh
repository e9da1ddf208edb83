#!/usr/bin/env bash
# shellcheck disable=SC2154,SC2034  # work, mounts and loops are ../setup_loop_fs/loop_fs.sh's (set, and used by its cleanup)
# Mount options a live remount cannot set or mountinfo never shows, the atime flags a remount keeps,
# ext4's hidden errors= default and contradictory option pairs (issue 38 items 2-5), on this machine's
# kernel: an ext4 loop mount (superblock errors behaviour continue), a second one made with
# mkfs.ext4 -e remount-ro, and an xfs one, with an alternate fstab. cases.py runs io_policy,
# mount_options and io_rollback as Ansible runs them on a host and prints the table of
# docs/reliability.md ("Figures from a real run", issue 38).
set -eu
cd "$(dirname "$0")"

# shellcheck source=../setup_loop_fs/loop_fs.sh
source ../setup_loop_fs/loop_fs.sh
loop_fs_init mount_limits

mkdir -p "$work/img" "$work/mnt/ext4" "$work/mnt/ext4ro" "$work/mnt/xfs" "$work/journal"
truncate -s 32M "$work/img/ext4.img" "$work/img/ext4ro.img"
truncate -s 300M "$work/img/xfs.img"
for name in ext4 ext4ro xfs; do
  loop=$(losetup -f --show "$work/img/$name.img"); loops+=("$loop")
done
mkfs.ext4 -q -F "${loops[0]}"
mkfs.ext4 -q -F -e remount-ro "${loops[1]}"
mkfs.xfs -q -f "${loops[2]}"
names=(ext4 ext4ro xfs)
for index in 0 1 2; do
  mount "${loops[$index]}" "$work/mnt/${names[$index]}"; mounts+=("$work/mnt/${names[$index]}")
done

loop_fs_python
IFS=: read -ra roots <<<"${ANSIBLE_COLLECTIONS_PATH:?run through make integration}"

"$python" cases.py --work "$work" --loops "${loops[@]}" --collections "${roots[0]}" "$@"
