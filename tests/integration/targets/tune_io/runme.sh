#!/usr/bin/env bash
# shellcheck disable=SC2154,SC2034  # work, mounts and loops are ../setup_loop_fs/loop_fs.sh's (set, and used by its cleanup)
# The tune_io module on this machine's kernel: a measured search of read_ahead_kb on an xfs loop
# mount (direct-I/O loop, so the backing file's cache does not answer), check mode, bad input, an
# A/A search, and a search killed half-way (SIGKILL) that rollback_io.yml undoes: the host's state
# digest is the same after each as before.
set -eu
cd "$(dirname "$0")"

# shellcheck source=../setup_loop_fs/loop_fs.sh
source ../setup_loop_fs/loop_fs.sh
loop_fs_init tune_io

mkdir -p "$work/img" "$work/mnt/xfs"
truncate -s 400M "$work/img/xfs.img"
loop=$(losetup -f --show --direct-io=on "$work/img/xfs.img"); loops+=("$loop")
mkfs.xfs -q -f "$loop"
mounts=("$work/mnt/xfs")
mount -t xfs "$loop" "$work/mnt/xfs"
queue=/sys/block/$(basename "$loop")/queue
echo 512 >"$queue/read_ahead_kb"

echo "localhost ansible_connection=local ansible_python_interpreter=$(command -v python3)" >"$work/inventory"
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_NOCOLOR=true

ansible-playbook -i "$work/inventory" tune_io.yml -e tune_work="$work" -e tune_mnt="$work/mnt/xfs" -e tune_loop="$loop" "$@"
[ "$(cat "$queue/read_ahead_kb")" = 512 ] || { echo "FAIL: read_ahead_kb is $(cat "$queue/read_ahead_kb") after the searches"; exit 1; }

# A search killed half-way: SIGKILL while a candidate is applied (its run's journal has no
# rolled-back mark), then rollback_io.yml (the latest open run) puts it back.
digest() {
  ansible localhost -i "$work/inventory" -m iotune.storage.tune_io --check -o -a \
    "{\"target\": \"$work/mnt/xfs\", \"settings\": {\"read_ahead_kb\": [64]}, \"journal_dir\": \"$work/journal\"}" |
    sed 's/^[^{]*//' | python3 -c 'import json, sys; print(json.load(sys.stdin)["state_digest"]["before"])'
}
before=$(digest)
ansible localhost -i "$work/inventory" -m iotune.storage.tune_io -a \
  "{\"target\": \"$work/mnt/xfs\", \"settings\": {\"read_ahead_kb\": [64, 4096]}, \"size\": \"64m\", \"runtime\": 2,
    \"rounds\": 40, \"run_id\": \"killed\", \"journal_dir\": \"$work/journal\"}" >"$work/killed.log" 2>&1 &
search=$!
open_trial=
for _ in $(seq 1 600); do
  for journal in "$work"/journal/killed-t*.jsonl; do
    [ -e "$journal" ] && [ ! -e "${journal%.jsonl}.rolled-back.json" ] && open_trial=$journal && break 2
  done
  sleep 0.05
done
[ -n "$open_trial" ] || { kill "$search"; cat "$work/killed.log"; echo "FAIL: no candidate was applied"; exit 1; }
pkill -KILL -f 'AnsiballZ_tune_io' || true
wait "$search" || true
[ "$(cat "$queue/read_ahead_kb")" != 512 ] || echo "note: the kill came after the candidate was undone"
ansible-playbook -i "$work/inventory" iotune.storage.rollback_io -e iotune_journal_dir="$work/journal" >"$work/rollback.log" 2>&1 ||
  { tail -30 "$work/rollback.log"; echo "FAIL: rollback_io.yml after the kill"; exit 1; }
[ "$(cat "$queue/read_ahead_kb")" = 512 ] || { tail -30 "$work/rollback.log"; echo "FAIL: read_ahead_kb not put back"; exit 1; }
after=$(digest)
[ "$before" = "$after" ] || { echo "FAIL: state digest $before before the killed search, $after after its rollback"; exit 1; }
if find "$work/mnt/xfs" -mindepth 1 -maxdepth 1 -name '.iotune-fio-*' | grep -q .; then
  echo "note: the killed search left its scratch file (SIGKILL), as the fio module documents"
fi
echo "tune_io: killed at $(basename "$open_trial"), rolled back, digest unchanged ($after)"
