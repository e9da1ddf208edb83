#!/usr/bin/env bash
# shellcheck disable=SC2154,SC2034  # work, mounts and loops are ../setup_loop_fs/loop_fs.sh's (set, and used by its cleanup)
# The copy_tools role on this machine, into a temporary directory: check, apply, apply, check
# (changed, changed, ok, ok), check mode alters nothing, rollback_io.yml uninstalls exactly.
# Then the installed iotune-copy between loop-device ext4 and xfs file systems: buffered,
# --direct with an unaligned tail, sparse files, a pipeline, --verify; every copy compared
# byte for byte with cmp. Last, the iotune_copy_tools policy through the playbooks: audit_io.yml
# reports drift and changes nothing, harden_io.yml installs (twice: changed, then not),
# audit_io.yml finds it compliant, rollback_io.yml uninstalls.
set -eu
cd "$(dirname "$0")"

# shellcheck source=../setup_loop_fs/loop_fs.sh
source ../setup_loop_fs/loop_fs.sh
loop_fs_init copy

mkdir -p "$work/bin" "$work/etc" "$work/img" "$work/ext4" "$work/xfs"
echo "localhost ansible_connection=local ansible_python_interpreter=$(command -v python3)" >"$work/inventory"
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_NOCOLOR=true
tree() { (cd "$work" && find bin etc -printf '%p %m %s\n' | sort && find bin etc -type f -exec sha256sum {} + | sort); }

play() {
  ansible-playbook -i "$work/inventory" install.yml -e work="$work" -e iotune_run_id=copy-tools-$$ "$@" >"$work/play.log" 2>&1 ||
    { tail -30 "$work/play.log"; echo "FAIL: install.yml $*"; exit 1; }
  sed -n 's/.*localhost *: ok=[0-9]* *changed=\([0-9]*\).*/\1/p' "$work/play.log"
}
start=$(tree)
changed=()
for mode in --check "" "" --check; do
  changed+=("$(play $mode)")
  if [ "$mode" = --check ] && [ ${#changed[@]} -eq 1 ]; then
    [ "$(tree)" = "$start" ] || { echo "FAIL: check mode changed the tree"; exit 1; }
  fi
done
[ "${changed[*]}" = "1 1 0 0" ] || { echo "FAIL: four runs changed ${changed[*]}, expected 1 1 0 0"; exit 1; }
{ [ -x "$work/bin/iotune-copy" ] && [ -x "$work/bin/iotune-bulk" ]; } || { echo "FAIL: tools not executable"; exit 1; }
{ grep -qx 'buffer_size=4M' "$work/etc/iotune/copy.conf" && grep -qx 'streams=3' "$work/etc/iotune/copy.conf"; } ||
  { cat "$work/etc/iotune/copy.conf"; echo "FAIL: copy.conf"; exit 1; }
echo "ok   copy_tools role: four runs changed ${changed[*]}, check mode changed nothing"
copy=$work/bin/iotune-copy

# the tools in use, on real file systems
truncate -s 1200M "$work/img/ext4.img"
truncate -s 1200M "$work/img/xfs.img"
loop_ext4=$(losetup -f --show "$work/img/ext4.img"); loops+=("$loop_ext4")
loop_xfs=$(losetup -f --show "$work/img/xfs.img"); loops+=("$loop_xfs")
mkfs.ext4 -q -F "$loop_ext4"
mkfs.xfs -q -f "$loop_xfs"
mounts=("$work/ext4" "$work/xfs")
mount "$loop_ext4" "$work/ext4"
mount "$loop_xfs" "$work/xfs"

# 300 MiB and an unaligned tail of 1000 bytes
head -c $((300 * 1048576 + 1000)) /dev/urandom >"$work/ext4/data.bin"
"$copy" --config "$work/etc/iotune/copy.conf" "$work/ext4/data.bin" "$work/xfs/buffered.bin"
cmp "$work/ext4/data.bin" "$work/xfs/buffered.bin"
"$copy" --direct --verify "$work/ext4/data.bin" "$work/xfs/direct.bin" 2>"$work/direct.err"
cmp "$work/ext4/data.bin" "$work/xfs/direct.bin"
! grep -q "O_DIRECT not supported" "$work/direct.err" || { echo "FAIL: ext4/xfs refused O_DIRECT"; exit 1; }
"$copy" --direct --nocache "$work/xfs/direct.bin" "$work/ext4/back.bin"
cmp "$work/ext4/data.bin" "$work/ext4/back.bin"
"$copy" --direct --streams 3 --buffer-size 1M "$work/xfs/direct.bin" "$work/ext4/streams.bin"
cmp "$work/ext4/data.bin" "$work/ext4/streams.bin"
rm -f "$work/ext4/streams.bin"
"$copy" --config "$work/etc/iotune/copy.conf" --direct "$work/xfs/direct.bin" "$work/ext4/streams.bin"   # streams=3 of copy.conf
cmp "$work/ext4/data.bin" "$work/ext4/streams.bin"
rm -f "$work/ext4/streams.bin"
echo "ok   iotune-copy: buffered, --direct (one stream by default, 3 from the command line and from copy.conf; unaligned tail) and --nocache between ext4 and xfs, byte for byte"

# sparse: 512 MiB with two 1 MiB data extents
truncate -s 512M "$work/xfs/sparse.img"
head -c 1048576 /dev/urandom | dd of="$work/xfs/sparse.img" bs=1M seek=7 conv=notrunc status=none
head -c 1048576 /dev/urandom | dd of="$work/xfs/sparse.img" bs=1M seek=300 conv=notrunc status=none
"$copy" "$work/xfs/sparse.img" "$work/ext4/sparse.img"
cmp "$work/xfs/sparse.img" "$work/ext4/sparse.img"
used=$(du -k "$work/ext4/sparse.img" | cut -f1)
[ "$used" -lt 8192 ] || { echo "FAIL: sparse copy allocated ${used} KiB"; exit 1; }
echo "ok   iotune-copy: a 512 MiB sparse file copied with ${used} KiB allocated"

# the seed's pipeline: large_read | gzip | large_write
"$copy" "$work/ext4/data.bin" - | gzip -1 | "$copy" - "$work/xfs/data.gz"
gzip -dc "$work/xfs/data.gz" | cmp - "$work/ext4/data.bin"
echo "ok   iotune-copy: pipeline through gzip"

# a missing source: cp's message and exit code 1, nothing under the destination name
set +e
"$copy" "$work/ext4/missing" "$work/xfs/missing" 2>"$work/missing.err"; rc=$?
set -e
{ [ "$rc" -eq 1 ] && grep -q "cannot stat" "$work/missing.err" && [ ! -e "$work/xfs/missing" ]; } ||
  { cat "$work/missing.err"; echo "FAIL: missing source (rc=$rc)"; exit 1; }
if find "$work/xfs" "$work/ext4" -mindepth 1 -maxdepth 1 -name '*iotune-copy-*' | grep -q .; then echo "FAIL: a temporary file was left"; exit 1; fi
echo "ok   iotune-copy: missing source fails like cp, no temporary file left"

# cp's promises on real ext4 and xfs, side by side with GNU cp (issue 38, items 16-18): an existing private
# file written in place (inode, owner, mode, ACL, hard link kept), -p with an ACL whose mask limits a named
# user, a directory copied into itself through a bind mount refused
head -c 70000 /dev/urandom >"$work/ext4/promise.src"
chmod 644 "$work/ext4/promise.src"
touch "$work/ext4/acl.src" && chmod 640 "$work/ext4/acl.src" && setfacl -m u:1000:rw,g::rw,m::r "$work/ext4/acl.src"
promises() {  # TOOL DIR: run TOOL's copies in DIR (on xfs), print what they left
  local tool=$1 dir=$2 inode
  mkdir -p "$dir"
  printf 'the old private content' >"$dir/private" && chmod 600 "$dir/private" && chown 4321:4321 "$dir/private"
  setfacl -m u:1000:rw "$dir/private" && ln "$dir/private" "$dir/second-link"
  inode=$(stat -c %i "$dir/private")
  "$tool" "$work/ext4/promise.src" "$dir/private"
  "$tool" -p "$work/ext4/acl.src" "$dir/acl"
  echo "inode kept: $([ "$(stat -c %i "$dir/private")" = "$inode" ] && echo yes || echo no)"
  stat -c '%a %u:%g links=%h' "$dir/private"
  cmp -s "$dir/second-link" "$work/ext4/promise.src" && echo "second link has the new content"
  getfacl -cn "$dir/private" "$dir/acl"
}
cp_side=$(promises cp "$work/xfs/promises-cp" 2>&1)
tool_side=$(promises "$copy" "$work/xfs/promises-tool" 2>&1)
[ "$tool_side" = "$cp_side" ] || { diff <(echo "$cp_side") <(echo "$tool_side"); echo "FAIL: iotune-copy differs from cp"; exit 1; }
grep -q '^660 4321:4321 links=2$' <<<"$tool_side" || { echo "$tool_side"; echo "FAIL: the private file changed (660: the group bits show the ACL mask)"; exit 1; }
mkdir -p "$work/ext4/self/x" "$work/ext4/bind"
mount --bind "$work/ext4/self" "$work/ext4/bind"; mounts=("$work/ext4/bind" "${mounts[@]}")
set +e
(cd "$work/ext4" && timeout 60 "$copy" -r self bind/copy) 2>"$work/self.err"; rc=$?
(cd "$work/ext4" && timeout 60 cp -r self bind/copy-cp) 2>"$work/self-cp.err"; cp_rc=$?
set -e
umount "$work/ext4/bind"
{ [ "$rc" -eq 1 ] && [ "$cp_rc" -eq 1 ] && grep -q "cannot copy a directory, 'self', into itself, 'bind/copy'" "$work/self.err" &&
  [ ! -e "$work/ext4/self/copy" ]; } || { cat "$work/self.err" "$work/self-cp.err"; echo "FAIL: directory into itself (rc=$rc, cp $cp_rc)"; exit 1; }
echo "ok   iotune-copy: like GNU cp on ext4 and xfs: an existing private file written in place, -p with ACLs; a bind mount into itself refused before writing"

# rollback uninstalls exactly what the role installed (and the directory it created); it is told
# where the tools are, as an inventory tells every playbook: it restores no file it was not told of
ansible-playbook -i "$work/inventory" iotune.storage.rollback_io -e iotune_run_id=copy-tools-$$ \
  -e iotune_journal_dir="$work/journal" -e copy_tools_bin_dir="$work/bin" \
  -e copy_tools_config="$work/etc/iotune/copy.conf" >"$work/rollback.log" 2>&1 || { tail -30 "$work/rollback.log"; echo "FAIL: rollback"; exit 1; }
[ "$(tree)" = "$start" ] || { diff <(echo "$start") <(tree); echo "FAIL: rollback did not restore the tree"; exit 1; }
echo "ok   rollback_io.yml: the tools, copy.conf and etc/iotune are gone again"

# the policy through the playbooks, into its own directory
pol=$work/policy
mkdir -p "$pol"
cat >"$pol/vars.yml" <<EOF
iotune_copy_tools: {buffer_size: 16MiB, streams: 2}
copy_tools_bin_dir: $pol/bin
copy_tools_config: $pol/etc/iotune/copy.conf
iotune_journal_dir: $pol/journal
iotune_report_dir: $pol/reports
io_audit_host_report_dir: $pol/host
iotune_run_id: copy-policy-$$
EOF
ptree() { (cd "$pol" && find bin etc -printf '%p %m %s\n' 2>/dev/null | sort); }
playbook() {
  local name=$1; shift
  ansible-playbook -i "$work/inventory" "iotune.storage.$name" -e "@$pol/vars.yml" "$@" >"$pol/$name.log" 2>&1
}
report_checks() {  # report file, expected status, expected changed (true, false or -): the three copy_tools checks
  python3 - "$@" <<'PY'
import json, sys
path, status, changed = sys.argv[1:]
report = json.load(open(path))
checks = [c for c in report["checks"] if c["concern"] == "copy_tools"]
names = sorted(c["target"].rsplit("/", 1)[1] for c in checks)
assert names == ["copy.conf", "iotune-bulk", "iotune-copy"], names
assert all(c["status"] == status for c in checks), [(c["id"], c["status"]) for c in checks]
if changed != "-":
    assert all(c.get("changed") is (changed == "true") for c in checks), [(c["id"], c.get("changed")) for c in checks]
assert report["summary"][status] >= 3, report["summary"]
PY
}
before=$(ptree)
playbook audit_io || { tail -30 "$pol/audit_io.log"; echo "FAIL: audit_io.yml"; exit 1; }
report_checks "$pol/host/audit-latest.json" drift - || { echo "FAIL: audit report"; exit 1; }
[ "$(ptree)" = "$before" ] || { echo "FAIL: audit_io.yml changed files"; exit 1; }
if playbook audit_io -e iotune_audit_fail_on_drift=true; then echo "FAIL: fail_on_drift passed"; exit 1; fi
grep -q "copy_tools:$pol/bin/iotune-copy:installed" "$pol/audit_io.log" || { tail -20 "$pol/audit_io.log"; echo "FAIL: the failure does not name the check"; exit 1; }
echo "ok   audit_io.yml: the three copy_tools checks drift, nothing installed, fail_on_drift names them"

playbook harden_io || { tail -30 "$pol/harden_io.log"; echo "FAIL: harden_io.yml"; exit 1; }
report_checks "$pol/host/harden-latest.json" compliant true || { echo "FAIL: harden report"; exit 1; }
# the console names the run id, what it changed and the command that undoes it (issue 55, item 5)
grep -Eq 'run [^ :]+: 3 check\(s\) changed; ansible-playbook iotune.storage.rollback_io -e iotune_run_id=[^ ]+ undoes it' \
  "$pol/harden_io.log" || { tail -30 "$pol/harden_io.log"; echo "FAIL: no run id on the console"; exit 1; }
{ grep -qx 'buffer_size=16M' "$pol/etc/iotune/copy.conf" && grep -qx 'streams=2' "$pol/etc/iotune/copy.conf"; } || { cat "$pol/etc/iotune/copy.conf"; echo "FAIL: copy.conf"; exit 1; }
[ "$(head -1 "$pol/bin/iotune-copy")" = '#!/usr/bin/python3 -IS' ] || { head -1 "$pol/bin/iotune-copy"; echo "FAIL: interpreter line"; exit 1; }
# isolated: a PYTHONPATH that would shadow the standard library is ignored
mkdir -p "$pol/shadow" && echo 'raise SystemExit("shadowed")' >"$pol/shadow/queue.py"   # a module iotune-copy imports
rm -f "$work/xfs/buffered.bin" "$work/xfs/direct.bin" "$work/xfs/data.gz"   # room on the 1200 MiB file system
PYTHONPATH=$pol/shadow "$pol/bin/iotune-copy" --config "$pol/etc/iotune/copy.conf" --verify "$work/ext4/data.bin" "$work/xfs/policy.bin"
cmp "$work/ext4/data.bin" "$work/xfs/policy.bin"
playbook harden_io || { tail -30 "$pol/harden_io.log"; echo "FAIL: second harden_io.yml"; exit 1; }
report_checks "$pol/host/harden-latest.json" compliant false || { echo "FAIL: second harden report"; exit 1; }
grep -q 'localhost *: ok=[0-9]* *changed=0 ' "$pol/harden_io.log" || { grep 'localhost *:' "$pol/harden_io.log"; echo "FAIL: the second harden changed something"; exit 1; }
grep -Eq 'run [^ :]+: 0 check\(s\) changed' "$pol/harden_io.log" || { tail -30 "$pol/harden_io.log"; echo "FAIL: the second run's line"; exit 1; }
playbook audit_io -e iotune_audit_fail_on_drift=true || { tail -30 "$pol/audit_io.log"; echo "FAIL: audit after harden"; exit 1; }
report_checks "$pol/host/audit-latest.json" compliant - || { echo "FAIL: audit report after harden"; exit 1; }
echo "ok   harden_io.yml: installed (buffer_size=16M, streams=2, python3 -IS, PYTHONPATH ignored), changed then not; audit_io.yml compliant"

playbook rollback_io || { tail -30 "$pol/rollback_io.log"; echo "FAIL: rollback_io.yml"; exit 1; }
[ "$(ptree)" = "$before" ] || { diff <(echo "$before") <(ptree); echo "FAIL: rollback left files"; exit 1; }
echo "ok   rollback_io.yml: what harden_io.yml installed is gone"

# shellcheck source=noexec.sh
source noexec.sh
