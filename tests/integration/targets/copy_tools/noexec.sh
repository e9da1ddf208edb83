# shellcheck shell=bash disable=SC2154  # work and mounts are runme.sh's (mounts: unmounted by loop_fs.sh's cleanup)
# Sourced by runme.sh after the policy steps (issue 38, item 9): the tools installed by harden_io.yml
# on a tmpfs that is then remounted noexec. The kernel refuses to run them (rc 126); audit_io.yml
# reports each tool as an error naming its directory and the mount (it said compliant), and
# harden_io.yml fails before any change (it said ok), in check mode and in a real run.
nx=$work/noexec
mkdir -p "$nx"
mount -t tmpfs -o size=16m,mode=0755 tmpfs "$nx"; mounts+=("$nx")
printf '%s\n' 'iotune_copy_tools: {streams: 2}' "copy_tools_bin_dir: $nx/bin" "copy_tools_config: $work/noexec-etc/copy.conf" \
  "iotune_journal_dir: $work/noexec-journal" "iotune_report_dir: $work/noexec-reports" \
  "io_audit_host_report_dir: $work/noexec-host" "iotune_run_id: copy-noexec-$$" >"$work/noexec.yml"
nx_play() {
  local name=$1; shift
  ansible-playbook -i "$work/inventory" "iotune.storage.$name" -e "@$work/noexec.yml" "$@" >"$work/noexec-$name.log" 2>&1
}
nx_tree() { (cd "$nx" && find . -printf '%p %m %s %T@\n' | sort); }

nx_play harden_io || { tail -30 "$work/noexec-harden_io.log"; echo "FAIL: harden_io.yml on the exec tmpfs"; exit 1; }
"$nx/bin/iotune-copy" --help >/dev/null || { echo "FAIL: the tool does not run on the exec tmpfs"; exit 1; }
mount -o remount,noexec "$nx"
set +e
"$nx/bin/iotune-copy" --help >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 126 ] || { echo "FAIL: the tool ran on a noexec mount (rc $rc)"; exit 1; }
before=$(nx_tree)
nx_play audit_io || { tail -30 "$work/noexec-audit_io.log"; echo "FAIL: audit_io.yml"; exit 1; }
python3 - "$work/noexec-host/audit-latest.json" "$nx" <<'PY' || { echo "FAIL: the audit of the tools on a noexec mount"; exit 1; }
import json, sys
report, mount = json.load(open(sys.argv[1])), sys.argv[2]
checks = dict((c["target"].rsplit("/", 1)[1], c) for c in report["checks"] if c["concern"] == "copy_tools")
for name in ("iotune-copy", "iotune-bulk"):
    check = checks[name]
    assert check["status"] == "error", (name, check["status"], check["message"])
    assert "its directory %s/bin is on a file system mounted noexec (at %s)" % (mount, mount) in check["message"], check["message"]
assert checks["copy.conf"]["status"] == "compliant", checks["copy.conf"]
print("     audit: %s" % checks["iotune-copy"]["message"])
PY
for mode in --check ""; do
  if nx_play harden_io $mode; then echo "FAIL: harden_io.yml $mode claimed success with the tools on a noexec mount"; exit 1; fi
  grep -q "nothing changed: .*mounted noexec (at $nx)" "$work/noexec-harden_io.log" ||
    { tail -20 "$work/noexec-harden_io.log"; echo "FAIL: harden_io.yml $mode does not name the noexec mount"; exit 1; }
done
[ "$(nx_tree)" = "$before" ] || { echo "FAIL: harden_io.yml changed the noexec directory"; exit 1; }
echo "ok   noexec: the installed tools fail with rc 126; audit_io.yml reports them as errors naming $nx/bin and the mount;" \
  "harden_io.yml fails in check mode and for real, changing nothing"
