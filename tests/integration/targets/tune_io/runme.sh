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
truncate -s 64M "$work/img/blank.img"
blank=$(losetup -f --show --direct-io=on "$work/img/blank.img"); loops+=("$blank")
mkfs.xfs -q -f "$loop"
mounts=("$work/mnt/xfs")
mount -t xfs "$loop" "$work/mnt/xfs"
queue=/sys/block/$(basename "$loop")/queue
printf '%s %s xfs defaults 0 0\n' "$loop" "$work/mnt/xfs" >"$work/fstab"
echo 512 >"$queue/read_ahead_kb"

echo "localhost ansible_connection=local ansible_python_interpreter=$(command -v python3)" >"$work/inventory"
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_NOCOLOR=true

ansible-playbook -i "$work/inventory" copy_tools.yml -e tune_work="$work" >"$work/copy-tools.log" 2>&1 ||
  { tail -30 "$work/copy-tools.log"; echo "FAIL: copy tools"; exit 1; }
ansible-playbook -i "$work/inventory" tune_io.yml -e tune_work="$work" -e tune_mnt="$work/mnt/xfs" -e tune_loop="$loop" \
  -e tune_blank="$blank" "$@"
[ "$(cat "$queue/read_ahead_kb")" = 512 ] || { echo "FAIL: read_ahead_kb is $(cat "$queue/read_ahead_kb") after the searches"; exit 1; }

# A VxFS tunable through the simulator (tests/vxfs-sim, not VxFS: the plan, the journal and the undo
# are tested, no measured claim is made): a procfs stand-in whose mountinfo shows a simulated VxFS
# volume, each candidate set in the tunefstab and by vxtunefs -o, then put back.
loop_fs_vxfs_sim
mkdir -p "$work/vx" "$work/vxfs" "$work/proc/self" "$work/mnt/vx"
printf '# VxFS tunables (simulated)\n/dev/vx/dsk/testdg/vol01 write_pref_io=131072\n' >"$work/vx/tunefstab"
cp "$work/vx/tunefstab" "$work/vx/tunefstab.before"
export VXFS_SIM_STATE=$work/vxfs/state.json VXTUNEFSTAB=$work/vx/tunefstab
"$sim" --sim-mount /dev/vx/dsk/testdg/vol01 "$work/mnt/vx"
{ cat /proc/self/mountinfo
  echo "900 1 199:1000 / $work/mnt/vx rw,relatime shared:90 - vxfs /dev/vx/dsk/testdg/vol01 rw,delaylog,largefiles"; } >"$work/proc/self/mountinfo"
vx_before=$("$sim" -p "$work/mnt/vx")
ANSIBLE_LOAD_CALLBACK_PLUGINS=1 ANSIBLE_STDOUT_CALLBACK=ansible.builtin.json ansible localhost -i "$work/inventory" \
  -m iotune.storage.tune_io -a "{\"target\": \"$work/mnt/vx\", \"directory\": \"$work/mnt/xfs\", \"proc_root\": \"$work/proc\",
  \"settings\": {\"read_pref_io\": [\"64k\", \"1m\"], \"write_pref_io\": [\"128k\", \"4m\"]}, \"workload\": \"seq-read-direct\",
  \"tunefstab\": \"$work/vx/tunefstab\", \"vxtunefs\": \"$sim\", \"size\": \"16m\", \"runtime\": 1, \"rounds\": 7,
  \"journal_dir\": \"$work/journal\"}" >"$work/vxfs.json" 2>"$work/vxfs.err" || { cat "$work/vxfs.err"; echo "FAIL: the VxFS search"; exit 1; }
python3 - "$work/vxfs.json" <<'PY'
import json, sys
result = list(json.load(open(sys.argv[1]))["plays"][0]["tasks"][0]["hosts"].values())[0]
assert not result.get("failed"), result.get("msg")
# 64k and 128k are the current values (the default, and the tunefstab's live value): left out
assert [c["name"] for c in result["candidates"]] == ["read_pref_io=1m", "write_pref_io=4m"], result["candidates"]
assert result["current"] == {"read_pref_io": 65536, "write_pref_io": 131072}, result["current"]
assert len(result["trials"]) == 14 and result["state_digest"]["before"] == result["state_digest"]["after"]
print("tune_io VxFS (simulator): %s; 14 trials applied and undone" % result["msg"])
PY
[ "$("$sim" -p "$work/mnt/vx")" = "$vx_before" ] || { echo "FAIL: the simulated VxFS tunables were not put back"; exit 1; }
cmp -s "$work/vx/tunefstab" "$work/vx/tunefstab.before" || { echo "FAIL: the tunefstab was not put back"; exit 1; }

# The role through tune_io.yml: check mode plans and changes nothing; then, from read-ahead off (0),
# a search of 4096 on 4 KiB buffered reads (each read its own request without read-ahead: many times
# slower, far beyond the noise), deployed through io_policy (live and a udev rule) and confirmed by a
# new search of the old value against it; then rollback_io.yml of the deployment puts 0 back.
echo 0 >"$queue/read_ahead_kb"
mkdir -p "$work/rules.d"
cat >"$work/tune.yml" <<YAML
iotune_tune:
  target: $work/mnt/xfs
  settings: {read_ahead_kb: [4096]}
  workload: {rw: read, bs: 4k, direct: false, ioengine: psync}
  size: 64m
  runtime: 1
  rounds: 7
  allow_memory: true  # as tune_io.yml says: this machine's disk is a virtual one whose host caches
iotune_journal_dir: $work/journal
iotune_report_dir: $work/reports
block_queue_rules_file: $work/rules.d/60-iotune.rules
tune_io_poll_delay: 1
YAML
play=(ansible-playbook -i "$work/inventory" iotune.storage.tune_io -e "@$work/tune.yml")
"${play[@]}" --check >"$work/role-check.log" 2>&1 || { tail -30 "$work/role-check.log"; echo "FAIL: tune_io.yml --check"; exit 1; }
grep -q 'check mode: would measure 7 round(s) of 2' "$work/role-check.log" || { tail -30 "$work/role-check.log"; echo "FAIL: no plan in check mode"; exit 1; }
if [ "$(cat "$queue/read_ahead_kb")" != 0 ] || [ -e "$work/reports" ]; then echo "FAIL: check mode changed something"; exit 1; fi
"${play[@]}" -e tune_io_deploy=true >"$work/role.log" 2>&1 || { tail -40 "$work/role.log"; echo "FAIL: tune_io.yml"; exit 1; }
grep -q 'use read_ahead_kb=4096 instead of the current 0: read_ahead_kb=4096 better: ' "$work/role.log" || { tail -40 "$work/role.log"; echo "FAIL: no winner"; exit 1; }
grep -q 'deployed, and the gain held; report in' "$work/role.log" || { tail -40 "$work/role.log"; echo "FAIL: the gain did not hold"; exit 1; }
[ "$(cat "$queue/read_ahead_kb")" = 4096 ] || { echo "FAIL: read_ahead_kb $(cat "$queue/read_ahead_kb") after the deployment"; exit 1; }
grep -q 'ATTR{queue/read_ahead_kb}="4096"' "$work/rules.d/60-iotune.rules" || { cat "$work/rules.d/60-iotune.rules"; echo "FAIL: no udev rule"; exit 1; }
python3 - "$work" "$(basename "$loop")" <<'PY'
import glob, json, sys
work, name = sys.argv[1:]
[path] = glob.glob(work + "/reports/tune/localhost-*.json")
report = json.load(open(path))
assert report["held"] is True and report["rolled_back"] is False, report
assert report["search"]["recommended"] == {"read_ahead_kb": 4096}, report["search"]
assert report["search"]["state_digest"]["before"] == report["search"]["state_digest"]["after"]
assert report["confirm"]["verdicts"][0]["candidate"] == "read_ahead_kb=0" and report["confirm"]["verdicts"][0]["outcome"] == "worse"
[page] = glob.glob(work + "/reports/tune/localhost-*.html")
html = open(page).read()
assert html.count("<svg") == 1 and "read_ahead_kb" in html and report["search"]["msg"] in html, html[:2000]
[fragment] = glob.glob(work + "/reports/tune/localhost-*-policy.yml")
text = open(fragment).read()
assert "iotune_block_devices:" in text and "read_ahead_kb: 4096" in text and "name: " + name in text, text
print("tune_io.yml: %s, deployed, held (old/new %.3f)" % (report["search"]["msg"], report["confirm"]["verdicts"][0]["effect"]))
PY
deployed=$(python3 -c 'import glob, json, sys; print(json.load(open(glob.glob(sys.argv[1] + "/reports/tune/localhost-*.json")[0]))["deployed_run_id"])' "$work")
ansible-playbook -i "$work/inventory" iotune.storage.rollback_io -e iotune_journal_dir="$work/journal" -e iotune_run_id="$deployed" \
  -e block_queue_rules_file="$work/rules.d/60-iotune.rules" >"$work/undeploy.log" 2>&1 || { tail -30 "$work/undeploy.log"; echo "FAIL: rollback of the deployment"; exit 1; }
[ "$(cat "$queue/read_ahead_kb")" = 0 ] || { echo "FAIL: read_ahead_kb $(cat "$queue/read_ahead_kb") after the rollback"; exit 1; }
echo 512 >"$queue/read_ahead_kb"

# A search killed half-way: SIGKILL while a candidate is applied (its run's journal has no
# rolled-back mark), then rollback_io.yml (the latest open run) puts it back.
digest() {
  ansible localhost -i "$work/inventory" -m iotune.storage.tune_io --check -o -a \
    "{\"target\": \"$work/mnt/xfs\", \"settings\": {\"read_ahead_kb\": [64]}, \"size\": \"16m\", \"journal_dir\": \"$work/journal\"}" |
    sed 's/^[^{]*//' | python3 -c 'import json, sys; print(json.load(sys.stdin)["state_digest"]["before"])'
}
# the whole host's snapshot too, so that a digest that differs names what differed
snapshot() {
  ansible localhost -i "$work/inventory" -m iotune.storage.io_snapshot -a "name=$1 snapshot_dir=$work/snapshots" >/dev/null
}
snapshot before-kill
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
# a new search while the killed one's candidate is still applied refuses, naming the rollback (its candidate would
# be taken for the current value)
open_now=
for journal in "$work"/journal/killed-t*.jsonl; do
  [ -e "${journal%.jsonl}.rolled-back.json" ] || open_now=$(basename "${journal%.jsonl}")
done
if [ -n "$open_now" ]; then
  refused=$(ansible localhost -i "$work/inventory" -m iotune.storage.tune_io --check -o -a \
    "{\"target\": \"$work/mnt/xfs\", \"settings\": {\"read_ahead_kb\": [64]}, \"journal_dir\": \"$work/journal\"}" 2>&1 || true)
  grep -q "run $open_now, a candidate of a search that did not finish .*iotune.storage.rollback_io -e iotune_run_id=$open_now puts it back" <<<"$refused" ||
    { echo "$refused"; echo "FAIL: a search began while $open_now was still applied"; exit 1; }
  echo "tune_io: a new search refused while $open_now was still applied"
fi
ansible-playbook -i "$work/inventory" iotune.storage.rollback_io -e iotune_journal_dir="$work/journal" >"$work/rollback.log" 2>&1 ||
  { tail -30 "$work/rollback.log"; echo "FAIL: rollback_io.yml after the kill"; exit 1; }
[ "$(cat "$queue/read_ahead_kb")" = 512 ] || { tail -30 "$work/rollback.log"; echo "FAIL: read_ahead_kb not put back"; exit 1; }
after=$(digest)
if [ "$before" != "$after" ]; then
  snapshot after-kill
  python3 - "$work/snapshots" <<'PY'
import json, os, sys
before, after = (json.load(open(os.path.join(sys.argv[1], name + '.json'))) for name in ('before-kill', 'after-kill'))
for part in ('settings', 'sources', 'sysctl'):
    for key in sorted(set(before[part]) | set(after[part])):
        if before[part].get(key) != after[part].get(key):
            print('differs: %s %s: %s -> %s' % (part, key, json.dumps(before[part].get(key))[:300], json.dumps(after[part].get(key))[:300]))
PY
  echo "FAIL: state digest $before before the killed search, $after after its rollback"; exit 1
fi
if find "$work/mnt/xfs" -mindepth 1 -maxdepth 1 -name '.iotune-fio-*' | grep -q .; then
  echo "note: the killed search left its scratch file (SIGKILL), as the fio module documents"
fi
echo "tune_io: killed at $(basename "$open_trial"), rolled back, digest unchanged ($after)"
