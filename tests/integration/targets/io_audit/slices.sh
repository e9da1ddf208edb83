#!/usr/bin/env bash
# issue 41, job slicing: audit_io.yml on six inventory hosts (this machine, each with a host report
# directory of its own) in three --limit slices with iotune_report_part, then merge_reports.yml,
# writes the fleet files one unsliced run of the same six hosts writes. The two runs are made one
# after the other, so what may change between them is normalized before comparing: summary.json's "time",
# each history.json line's "time", each host report's "time" and junit.xml's timestamp attributes, and
# each host report's counts of mounts and block devices (host_facts), which the containers and loop
# devices of make test's other lane change between two runs (CI saw hosts/node2.json differ).
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
{
  echo "[fleet]"
  for n in 1 2 3 4 5 6; do echo "node$n ansible_connection=local ansible_python_interpreter=$(command -v python3)"; done
} >"$out/inventory"

# audit <report dir> <host report dir> [ansible-playbook arguments]
audit() {
  ANSIBLE_LOCALHOST_WARNING=false ansible-playbook -i "$out/inventory" iotune.storage.audit_io -e @policy.yml \
    -e iotune_run_id=slices-1 -e iotune_report_dir="$1" -e "io_audit_host_report_dir=$2/{{ inventory_hostname }}" "${@:3}"
}

audit "$out/one" "$out/one-host" >"$out/one.log" 2>&1 || { tail -20 "$out/one.log"; echo "FAIL: the unsliced audit failed"; exit 1; }
slice=0
for hosts in node1:node4 node2:node5 node3:node6; do
  slice=$((slice + 1))
  audit "$out/sliced" "$out/sliced-host" --limit "$hosts" -e iotune_report_part="job-$slice" >"$out/slice$slice.log" 2>&1 ||
    { tail -20 "$out/slice$slice.log"; echo "FAIL: slice $slice failed"; exit 1; }
done
[ ! -e "$out/sliced/summary.json" ] || { echo "FAIL: a slice wrote the fleet files"; exit 1; }
if ! grep -qF "part job-3 of run slices-1 written to $out/sliced/parts/slices-1/job-3.json" "$out/slice3.log" ||
   ! grep -qF "merge them with: ansible-playbook iotune.storage.merge_reports -e iotune_run_id=slices-1 -e iotune_report_dir=$out/sliced" \
     "$out/slice3.log"; then
  grep -A12 'Show what is not compliant' "$out/slice3.log"; echo "FAIL: the console does not say how to merge"; exit 1
fi
echo "ok   three slices wrote their parts, and the console says how to merge them"

merge() {
  ANSIBLE_LOCALHOST_WARNING=false ansible-playbook iotune.storage.merge_reports -e iotune_run_id=slices-1 -e iotune_report_dir="$out/sliced" "$@"
}
if merge -e iotune_report_parts=4 >"$out/merge4.log" 2>&1 || ! grep -qF 'parts: 4 part(s) expected, 3 found in' "$out/merge4.log"; then
  tail -20 "$out/merge4.log"; echo "FAIL: a merge that expects 4 parts of 3 did not fail naming the count"; exit 1
fi
merge -e iotune_report_parts=3 >"$out/merge.log" 2>&1 || { tail -20 "$out/merge.log"; echo "FAIL: the merge failed"; exit 1; }
grep -qF "run slices-1: 3 part(s) merged (job-1, job-2, job-3), 6 host(s)" "$out/merge.log" ||
  { tail -20 "$out/merge.log"; echo "FAIL: the merge does not say what it merged"; exit 1; }

python3 - "$out/one" "$out/sliced" <<'PY'
import json, os, re, sys
one, sliced = sys.argv[1:]


def normalized(directory, name):
    with open(os.path.join(directory, name), "rb") as handle:
        text = handle.read().decode("utf-8")
    if name == "junit.xml":
        return re.sub(r' timestamp="[^"]*"', ' timestamp="T"', text)
    if not name.endswith(".json"):
        return text
    data = json.loads(text)
    data["time"] = "T" if "time" in data else None
    if isinstance(data.get("host_facts"), dict):
        data["host_facts"].update(mounts="N", block_devices="N")
    for run in data.get("runs") or []:
        run["time"] = "T"
    return data


names = ["summary.json", "junit.xml", "report.html", "history.json"]
hosts = sorted(os.listdir(os.path.join(one, "hosts")))
assert hosts == sorted(os.listdir(os.path.join(sliced, "hosts"))) == ["node%d.json" % n for n in range(1, 7)], hosts
for name in names + ["hosts/" + host for host in hosts]:
    expected, merged = normalized(one, name), normalized(sliced, name)
    if isinstance(expected, dict) and isinstance(merged, dict):
        differing = sorted(key for key in set(expected) | set(merged) if expected.get(key) != merged.get(key))
        assert not differing, "%s: %s" % (name, ", ".join("%s %r != %r" % (k, expected.get(k), merged.get(k)) for k in differing))
    assert expected == merged, name
summary = json.load(open(os.path.join(sliced, "summary.json")))
assert summary["hosts"] == 6 and summary["run_id"] == "slices-1" and len(json.load(open(os.path.join(sliced, "history.json")))["runs"]) == 1
print("ok   merged slices: %s and hosts/*.json as the unsliced run's (timestamps, mount and device counts normalized)"
      % ", ".join(names))
PY
