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

if run -e iotune_audit_fail_on_drift=true >"$out/fail.log" 2>&1; then
  echo "FAIL: iotune_audit_fail_on_drift=true did not fail the play"; exit 1
fi
grep -q "mount_options:/:absent:rw" "$out/fail.log" || { tail -20 "$out/fail.log"; echo "FAIL: the failure does not name the check"; exit 1; }
[ -s "$out/reports/junit.xml" ] || { echo "FAIL: reports missing after a failing audit"; exit 1; }
echo "ok   fail_on_drift fails the play after writing the reports"

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

[ "$fstab_before" = "$(sha256sum /etc/fstab 2>/dev/null || true)" ] || { echo "FAIL: /etc/fstab changed"; exit 1; }
echo "ok   /etc/fstab unchanged"
