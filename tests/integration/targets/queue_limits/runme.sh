#!/usr/bin/env bash
# shellcheck disable=SC2154,SC2034  # work, mounts and loops are ../setup_loop_fs/loop_fs.sh's (set, and used by its cleanup)
# Block-queue values the kernel rounds or refuses (issue 38 item 1), through io_policy on this machine's
# kernel: two loop devices, one of 4096-byte logical sectors. read_ahead_kb 4097 and max_sectors_kb 6 on
# the 4K device converge in one enforcing run (the kernel keeps 4096 and 4) and the second run changes
# nothing; nr_requests 2048 with scheduler none fails in check mode and in an enforcing run before any
# change, naming the field. Prints what the kernel read back. No file system, no mount: a few seconds.
set -eu
cd "$(dirname "$0")"

# shellcheck source=../setup_loop_fs/loop_fs.sh
source ../setup_loop_fs/loop_fs.sh
# A loop device keeps its read_ahead_kb and the max_sectors_kb it was given across a detach: put the
# kernel's defaults back (0 gives max_sectors_kb its default), or the next user of the device number
# would get 4 KiB requests and a 4 TiB read-ahead.
loop_fs_cleanup_hook() {
  local loop queue
  for loop in "${loops[@]}"; do
    queue=/sys/block/${loop#/dev/}/queue
    echo none >"$queue/scheduler" || true
    echo 0 >"$queue/max_sectors_kb" || true
    echo 128 >"$queue/read_ahead_kb" || true
  done
}
loop_fs_init queue_limits

mkdir -p "$work/img" "$work/udev/rules.d" "$work/journal"
chmod 0700 "$work/journal"
truncate -s 16M "$work/img/4k.img" "$work/img/512.img"
loop_4k=$(losetup --sector-size 4096 -f --show "$work/img/4k.img"); loops+=("$loop_4k")
loop_512=$(losetup -f --show "$work/img/512.img"); loops+=("$loop_512")
for loop in "$loop_4k" "$loop_512"; do
  # a known start: no scheduler, the kernel's defaults
  echo none >"/sys/block/${loop#/dev/}/queue/scheduler"
  echo 128 >"/sys/block/${loop#/dev/}/queue/read_ahead_kb"
done

echo "localhost ansible_connection=local ansible_python_interpreter=$(command -v python3)" >"$work/inventory"
ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_NOCOLOR=true \
  ansible-playbook -i "$work/inventory" queue_limits.yml -e "queue_work=$work" \
  -e "queue_loop_4k=${loop_4k#/dev/}" -e "queue_loop_512=${loop_512#/dev/}" "$@"
