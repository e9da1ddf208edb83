#!/usr/bin/env bash
# shellcheck disable=SC2154,SC2034  # work, mounts and loops are ../setup_loop_fs/loop_fs.sh's (set, and used by its cleanup)
# audit_io.yml, harden_io.yml and rollback_io.yml, unchanged, through ansible-runner: the engine AWX and
# Automation Controller run playbooks with on their execution nodes (run_jobs.py). Three local "hosts",
# each with a scratch ext4 mount on a loop device and its own fstab, udev rules file, sysctl file and
# journal (never the machine's /etc/fstab): the reports are written as with ansible-playbook, the job's
# events carry each host's checks, set_stats' iotune_summary is in the artifacts, harden changes and
# rollback restores; then ansible-builder on the collection and on execution-environment.yml.
set -eu
cd "$(dirname "$0")"

# shellcheck source=../setup_loop_fs/loop_fs.sh
source ../setup_loop_fs/loop_fs.sh
loop_fs_init ansible_runner

hosts_json=$work/hosts.json
echo '{}' >"$hosts_json"
for host in web1 web2 web3; do
  mkdir -p "$work/$host/mnt"
  truncate -s 16M "$work/$host/ext4.img"
  loop=$(losetup -f --show "$work/$host/ext4.img"); loops+=("$loop")
  mkfs.ext4 -q -F "$loop"
  mount -t ext4 "$loop" "$work/$host/mnt"; mounts+=("$work/$host/mnt")
  printf '# scratch fstab of the ansible_runner integration test\n%s\t%s\text4\tdefaults\t0 2\n' "$loop" "$work/$host/mnt" >"$work/$host/fstab"
  python3 - "$hosts_json" "$host" "$loop" "$work/$host" <<'PY'
import json, sys
path, host, loop, directory = sys.argv[1:]
hosts = json.load(open(path))
hosts[host] = {"loop": loop, "mount": directory + "/mnt", "dir": directory}
json.dump(hosts, open(path, "w"))
PY
done
python3 run_jobs.py "$work" "$hosts_json"

root="${ANSIBLE_COLLECTIONS_PATH%%:*}/ansible_collections/iotune/storage"
out=$work/ee-work
mkdir -p "$out/ee"
# execution-environment.yml: ansible-builder writes its build context, and the collection installs from
# that context as the image build installs it (building the image itself needs a registry for the base
# image, which the test machines do not have).
cp "$root/execution-environment.yml" "$out/ee/"
ansible-galaxy collection build --output-path "$out/dist" "$root" >/dev/null
cp "$out"/dist/iotune-storage-*.tar.gz "$out/ee/iotune-storage.tar.gz"
ansible-builder create -f "$out/ee/execution-environment.yml" --context "$out/ee/context" >"$out/builder.log" 2>&1 \
  || { cat "$out/builder.log"; echo "FAIL: ansible-builder create"; exit 1; }
grep -q 'ansible-galaxy collection install' "$out/ee/context/Dockerfile" || { echo "FAIL: no collection install in the Dockerfile"; exit 1; }
(cd "$out/ee/context/_build" && ANSIBLE_COLLECTIONS_PATH="$out/installed" \
  ansible-galaxy collection install -r requirements.yml -p "$out/installed" >"$out/install.log" 2>&1) || { cat "$out/install.log"; exit 1; }
want=$(sed -n 's/^version: //p' "$root/galaxy.yml")
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["collection_info"]["version"])' \
  "$out/installed/ansible_collections/iotune/storage/MANIFEST.json")
[ "$got" = "$want" ] || { echo "FAIL: the EE context installs iotune.storage $got, galaxy.yml says $want"; exit 1; }
echo "ok   execution environment: build context written, iotune.storage $got installs from it"

# ansible-builder introspect on the collection installed from that context: what an execution environment would add for it
# (Python requirements and system packages: the collection's requirements.txt and bindep.txt, or the files its
# meta/execution-environment.yml names). It must ask for nothing beyond what execution-environment.yml lists:
# the collection needs only ansible-core on the controller side. A control collection with a requirement of
# each kind shows that introspect reads collections laid out so.
introspect() {  # NAME PATH: run introspect on PATH, keep and print its output
  ansible-builder introspect "$2" >"$out/introspect-$1.txt" 2>&1 || { cat "$out/introspect-$1.txt"; echo "FAIL: ansible-builder introspect $2"; exit 1; }
  echo "---- ansible-builder introspect $2"; cat "$out/introspect-$1.txt"; echo "----"
}
control=$out/control/ansible_collections/control/probe
mkdir -p "$control"
printf 'namespace: control\nname: probe\nversion: 1.0.0\nreadme: README.md\nauthors: [test]\n' >"$control/galaxy.yml"
echo 'jmespath' >"$control/requirements.txt"
echo 'gcc [platform:rpm]' >"$control/bindep.txt"
introspect control "$out/control"
introspect installed "$out/installed"
python3 - "$out/introspect-control.txt" "$out/introspect-installed.txt" "$root/execution-environment.yml" <<'PY'
import sys, yaml
control, installed = (yaml.safe_load(open(path)) for path in sys.argv[1:3])
assert [line.split()[0] for line in control["python"]] == ["jmespath"], control
assert [line.split()[0] for line in control["system"]] == ["gcc"], control
deps = yaml.safe_load(open(sys.argv[3]))["dependencies"]
listed_python = [line.split()[0] for line in deps.get("python") or []]
listed_system = [line.split()[0] for line in deps.get("system") or []]
extra_python = [line for line in installed["python"] if line.split()[0] not in listed_python]
extra_system = [line for line in installed["system"] if line.split()[0] not in listed_system]
assert not extra_python and not extra_system, ("beyond execution-environment.yml", extra_python, extra_system)
print("ok   ansible-builder introspect: the installed iotune.storage asks for %d Python requirement(s) and %d system "
      "package(s) beyond execution-environment.yml (the control collection's jmespath and gcc are seen)"
      % (len(extra_python), len(extra_system)))
PY
