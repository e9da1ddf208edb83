#!/usr/bin/env bash
# shellcheck disable=SC2154,SC2034  # work, mounts and loops are ../setup_loop_fs/loop_fs.sh's (set, and used by its cleanup)
# Faults injected into real runs on this machine's kernel (issue 18): a nearly full journal file
# system, POSIX ACLs, two runs at once, SIGKILL between a temporary file and its rename and after a
# journal record, a symlinked sysctl file, a journal cut after its change, a scheduler switch that
# resets nr_requests; and the hostile cases of issue 23 (a journal directory another user owns or
# can write, a record naming its own program, a corrupt file record, a clock step). faults.py runs
# the modules as Ansible runs them on a host (a Python process with an arguments file) against
# two ext4 loop mounts, an alternate fstab and a 16 MiB tmpfs for
# the journal, checks every outcome and prints the table docs/reliability.md shows.
set -eu
cd "$(dirname "$0")"

# shellcheck source=../setup_loop_fs/loop_fs.sh
source ../setup_loop_fs/loop_fs.sh
loop_fs_cleanup_hook() { rm -f /run/iotune/failpoint; }
loop_fs_init reliability

mkdir -p "$work/img" "$work/mnt/a" "$work/mnt/b" "$work/jfs"
for name in a b; do
  truncate -s 32M "$work/img/$name.img"
  loop=$(losetup -f --show "$work/img/$name.img"); loops+=("$loop")
  mkfs.ext4 -q -F "$loop"
  mount -t ext4 "$loop" "$work/mnt/$name"; mounts+=("$work/mnt/$name")
done
mount -t tmpfs -o size=16m,mode=0755 tmpfs "$work/jfs"; mounts+=("$work/jfs")

# a Python that has ansible (the modules import ansible.module_utils), and the collection on its path
python=
for candidate in python3 "$(dirname "$(command -v ansible-playbook)")/python"; do
  "$candidate" -c 'import ansible' 2>/dev/null && { python=$candidate; break; }
done
[ -n "$python" ] || { echo "FAIL: no Python with ansible found" >&2; exit 1; }
IFS=: read -ra roots <<<"${ANSIBLE_COLLECTIONS_PATH:?run through make integration}"

"$python" faults.py --work "$work" --loops "${loops[0]}" "${loops[1]}" --collections "${roots[0]}" "$@"
