# shellcheck shell=bash
# Sourced by the runme.sh of targets that build file systems on loop devices (their aliases
# say needs/target/setup_loop_fs). `loop_fs_init NAME` makes $work (/tmp/iotune-NAME.XXXXXX)
# and traps the exit: whatever happens, the function loop_fs_cleanup_hook runs first where the
# target defines one, then every path in mounts is unmounted, every device in loops detached
# and $work removed; the exit status is kept. SIGINT, SIGTERM and SIGHUP exit 130.

loops=()
mounts=()

loop_fs_cleanup() {
  local rc=$? mount_point loop
  set +e
  if declare -F loop_fs_cleanup_hook >/dev/null; then loop_fs_cleanup_hook; fi
  for mount_point in "${mounts[@]}"; do
    mountpoint -q "$mount_point" && { umount "$mount_point" || umount -l "$mount_point"; }
  done
  for loop in "${loops[@]}"; do losetup -d "$loop"; done
  rm -rf --one-file-system "$work"
  exit "$rc"
}

loop_fs_init() {
  work=$(mktemp -d "/tmp/iotune-$1.XXXXXX")
  trap loop_fs_cleanup EXIT
  trap 'exit 130' INT TERM HUP
}

# `loop_fs_python`: sets python to a Python that has ansible (the modules import ansible.module_utils).
# shellcheck disable=SC2034  # python is read by the scripts that source this file
loop_fs_python() {
  local candidate
  python=
  for candidate in python3 "$(dirname "$(command -v ansible-playbook)")/python"; do
    "$candidate" -c 'import ansible' 2>/dev/null && { python=$candidate; return 0; }
  done
  echo "FAIL: no Python with ansible found" >&2
  return 1
}

# `loop_fs_vxfs_sim`: sets sim to the VxFS simulator (tests/vxfs-sim/vxtunefs), which is not part of a
# target's copy: it is found in the collection under test, on ANSIBLE_COLLECTIONS_PATH.
# shellcheck disable=SC2034  # sim is read by the scripts that source this file
loop_fs_vxfs_sim() {
  local root roots
  sim=
  IFS=: read -ra roots <<<"${ANSIBLE_COLLECTIONS_PATH:-}"
  for root in "${roots[@]}"; do
    [ -x "$root/ansible_collections/iotune/storage/tests/vxfs-sim/vxtunefs" ] &&
      { sim=$root/ansible_collections/iotune/storage/tests/vxfs-sim/vxtunefs; return 0; }
  done
  echo "FAIL: tests/vxfs-sim/vxtunefs not found under ANSIBLE_COLLECTIONS_PATH" >&2
  return 1
}
