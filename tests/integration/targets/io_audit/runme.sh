#!/usr/bin/env bash
# audit_io.yml on this machine: reports are written, the play fails only when
# iotune_audit_fail_on_drift asks for it, and the host's files are unchanged.
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "localhost ansible_connection=local ansible_python_interpreter=$(command -v python3)" >"$out/inventory"
fstab_before=$(sha256sum /etc/fstab 2>/dev/null || true)

run() {
  ANSIBLE_LOCALHOST_WARNING=false ansible-playbook -i "$out/inventory" iotune.storage.audit_io \
    -e @policy.yml -e iotune_report_dir="$out/reports" -e io_audit_host_report_dir="$out/host" "$@"
}

run >"$out/pass.log" 2>&1 || { tail -20 "$out/pass.log"; echo "FAIL: audit without fail_on_drift failed"; exit 1; }
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
report = json.load(open(out + "/host/audit-latest.json"))
status = {(c["target"], c["setting"]): c["status"] for c in report["checks"]}
assert status[("/", "absent:rw")] == "drift", status
assert status[("/no/such/mount", "mount_point")] == "not_applicable", status
assert [s for (t, _), s in status.items() if "nosuchdisk0" in t] == ["not_applicable"], status
assert json.load(open(out + "/reports/hosts/localhost.json")) == report
summary = json.load(open(out + "/reports/summary.json"))
assert summary["summary"]["drift"] == 1 and summary["hosts"] == 1, summary
assert "<failure " in open(out + "/reports/junit.xml").read()
print("ok   audit report:", report["summary"])
PY

# issue 39, items 7 and 8: the console names the missing mount point, where the reports are, a waived drift as waived
grep -qF 'localhost: not applicable: /no/such/mount is neither mounted nor listed in' "$out/pass.log" ||
  { grep -A30 'Show what is not compliant' "$out/pass.log"; echo "FAIL: the console does not name /no/such/mount"; exit 1; }
grep -qF "; reports in $out/reports (report.html, summary.json, junit.xml)" "$out/pass.log" ||
  { grep -A30 'Show what is not compliant' "$out/pass.log"; echo "FAIL: the console does not say where the reports are"; exit 1; }
echo "ok   the console names the missing mount point and the reports' directory"
run -e '{"iotune_waivers": [{"name": "rw-root", "checks": ["mount_options:/:absent:rw"], "reason": "the lab root", "owner": "ci", "expires": "2099-12-31"}]}' \
  >"$out/waived.log" 2>&1 || { tail -20 "$out/waived.log"; echo "FAIL: the audit with a waiver failed"; exit 1; }
if ! grep -qF 'localhost: waived drift (waiver rw-root): ' "$out/waived.log" || ! grep -qF '1 drift, 0 not persistent' "$out/waived.log" ||
   ! grep -qF '(1 waived)' "$out/waived.log"; then
  grep -A30 'Show what is not compliant' "$out/waived.log"; echo "FAIL: the waived drift is not shown as waived"; exit 1
fi
echo "ok   a waived drift is shown as waived"
# a policy that selects nothing says so (issue 39, item 6)
ANSIBLE_LOCALHOST_WARNING=false ansible-playbook -i "$out/inventory" iotune.storage.audit_io -e iotune_report_dir="$out/empty" \
  -e io_audit_host_report_dir="$out/host-empty" >"$out/empty.log" 2>&1 || { tail -20 "$out/empty.log"; echo "FAIL: the empty audit failed"; exit 1; }
grep -qF 'the policy selects nothing on this host: iotune_' "$out/empty.log" ||
  { tail -30 "$out/empty.log"; echo "FAIL: an empty policy is not named"; exit 1; }
echo "ok   a policy that selects nothing says so"

# issue 41: a report directory the fleet reports cannot be written in stops the run at its start, naming
# iotune_report_dir and why, before io_policy works on any host (no host report, no io_policy task in the log);
# in check mode, which writes no report, only the form of the path is checked
mkdir -m 0775 "$out/shared" && touch "$out/a-file"
bad_dir() {  # REPORT_DIR EXPECTED_MESSAGE [ARGS]: the audit fails at its start with the message
  local dir=$1 want=$2; shift 2
  if run -e iotune_report_dir="$dir" -e io_audit_host_report_dir="$out/host-bad" "$@" >"$out/bad-dir.log" 2>&1; then
    echo "FAIL: the audit into $dir passed"; exit 1
  fi
  grep -qF "\"msg\": \"iotune_report_dir: $want; the run stopped before any host work\"" "$out/bad-dir.log" ||
    { tail -20 "$out/bad-dir.log"; echo "FAIL: the failure does not say: iotune_report_dir: $want"; exit 1; }
  if grep -q 'Audit every concern of the policy' "$out/bad-dir.log" || [ -e "$out/host-bad" ]; then
    tail -20 "$out/bad-dir.log"; echo "FAIL: the audit into $dir worked on the host"; exit 1
  fi
}
bad_dir "$out/shared" "$out/shared has mode 0775, writable by group; refused, since others could replace what the collection writes and reads back there (chmod go-w $out/shared)"
bad_dir "$out/a-file" "$out/a-file is not a directory"
bad_dir "$out/a-file/reports" "cannot create $out/a-file/reports: $out/a-file is not a directory"
bad_dir reports "must be an absolute path on the controller, got 'reports'" --check
run -e iotune_report_dir="$out/shared" -e io_audit_host_report_dir="$out/host-check" --check >"$out/check-dir.log" 2>&1 ||
  { tail -20 "$out/check-dir.log"; echo "FAIL: check mode refused a report directory it does not write in"; exit 1; }
echo "ok   a report directory that cannot be written stops the audit before any host work, naming iotune_report_dir"

if run -e iotune_audit_fail_on_drift=true >"$out/fail.log" 2>&1; then
  echo "FAIL: iotune_audit_fail_on_drift=true did not fail the play"; exit 1
fi
grep -q "mount_options:/:absent:rw" "$out/fail.log" || { tail -20 "$out/fail.log"; echo "FAIL: the failure does not name the check"; exit 1; }
[ -s "$out/reports/junit.xml" ] || { echo "FAIL: reports missing after a failing audit"; exit 1; }
echo "ok   fail_on_drift fails the play after writing the reports"

# issue 41: the failing task runs once (skipped) when no host has the gate on, and on each host when one has it;
# the gate of one host fails that host only. Two local hosts, each with its own host report directory.
{ echo "localhost ansible_connection=local ansible_python_interpreter=$(command -v python3) io_audit_host_report_dir=$out/host-a"
  echo "gated ansible_connection=local ansible_python_interpreter=$(command -v python3) io_audit_host_report_dir=$out/host-b iotune_audit_fail_on_drift=true"
} >"$out/two"
two() {  # LOG [ARGS]: audit_io.yml on the two hosts
  local log=$1; shift
  ANSIBLE_LOCALHOST_WARNING=false ansible-playbook -i "$out/two" iotune.storage.audit_io -e @policy.yml \
    -e iotune_report_dir="$out/two-reports" "$@" >"$log" 2>&1
}
if two "$out/two-gated.log"; then tail -20 "$out/two-gated.log"; echo "FAIL: the gated host did not fail the play"; exit 1; fi
if ! grep -q '^gated .*failed=1' "$out/two-gated.log" || ! grep -q '^localhost .*failed=0' "$out/two-gated.log" ||
   ! grep -A3 'TASK \[iotune.storage.io_audit : Fail hosts that drift' "$out/two-gated.log" | grep -q 'skipping: \[localhost\]'; then
  tail -30 "$out/two-gated.log"; echo "FAIL: the gate of one host must fail it, and be skipped on the other"; exit 1
fi
sed -i 's/ iotune_audit_fail_on_drift=true//' "$out/two"
two "$out/two-open.log" || { tail -20 "$out/two-open.log"; echo "FAIL: the audit of two hosts without a gate failed"; exit 1; }
skipped=$(grep -A3 'TASK \[iotune.storage.io_audit : Fail hosts that drift' "$out/two-open.log" | grep -c '^skipping: ' || true)
[ "$skipped" = 1 ] || { tail -30 "$out/two-open.log"; echo "FAIL: without a gate the failing task must run once, skipped ($skipped)"; exit 1; }
echo "ok   the gate fails only the host that has it; without one the failing task runs once"

# issue 38, item 12: a Latin-1 byte in a policy mount's fstab line gives a report (the byte shown as \xe9),
# and the fstab keeps its bytes
printf '# caf\xe9\nLABEL=caf\xe9 / auto defaults 0 1\n' >"$out/latin1.fstab"
latin1_before=$(sha256sum "$out/latin1.fstab")
run -e mount_options_fstab="$out/latin1.fstab" -e iotune_report_dir="$out/latin1" \
  -e '{"iotune_mounts": [{"path": "/", "present": ["noatime"]}]}' >"$out/latin1.log" 2>&1 ||
  { tail -20 "$out/latin1.log"; echo "FAIL: audit of a Latin-1 fstab line failed"; exit 1; }
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
raw = open(out + "/latin1/hosts/localhost.json", "rb").read()
raw.decode("utf-8")
assert b"\\ud" not in raw and b"caf\\\\xe9" in raw, raw[:2000]
check = [c for c in json.loads(raw)["checks"] if c["target"] == "/"][0]
assert "LABEL=caf\\xe9 / auto defaults,noatime 0 1" in " ".join(check["fix"]["changes"]), check
for name in ("summary.json", "junit.xml", "report.html"):
    open(out + "/latin1/" + name, "rb").read().decode("utf-8")
print("ok   a Latin-1 fstab line: reported, its fix", check["fix"]["changes"][0])
PY
xmllint --noout "$out/latin1/junit.xml" || { echo "FAIL: junit.xml of the Latin-1 run is not well-formed"; exit 1; }
[ "$latin1_before" = "$(sha256sum "$out/latin1.fstab")" ] || { echo "FAIL: the Latin-1 fstab changed"; exit 1; }

# issue 41: three slices of a sliced job merged write what one run writes
bash slices.sh

# the modules' byte code is cached on the host (common.bytecode): a private directory of root, private
# entries, and a run of a module that already ran compiles nothing new (no entry is added or rewritten)
cache=/var/cache/iotune/bytecode
[ "$(stat -c %a:%u "$cache")" = 700:0 ] || { ls -ld "$cache"; echo "FAIL: the byte-code cache is not a private directory of root"; exit 1; }
if find "$cache" -mindepth 1 ! \( -type f -perm 600 -user root -name '*.code' \) | grep .; then
  echo "FAIL: the byte-code cache holds something else than private entries of root"; exit 1
fi
entries=$(cd "$cache" && find . -type f -printf '%f %T@\n' | sort)
run >"$out/cached.log" 2>&1 || { tail -20 "$out/cached.log"; echo "FAIL: the audit with its byte code cached failed"; exit 1; }
[ "$entries" = "$(cd "$cache" && find . -type f -printf '%f %T@\n' | sort)" ] ||
  { echo "FAIL: an audit of a host whose cache holds io_policy's modules compiled them again"; exit 1; }
echo "ok   the byte-code cache: $(echo "$entries" | wc -l) private entries, none added by a second audit"

[ "$fstab_before" = "$(sha256sum /etc/fstab 2>/dev/null || true)" ] || { echo "FAIL: /etc/fstab changed"; exit 1; }
echo "ok   /etc/fstab unchanged"
