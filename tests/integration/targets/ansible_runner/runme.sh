#!/usr/bin/env bash
# audit_io.yml, unchanged, through ansible-runner: the engine AWX and Automation Controller
# run playbooks with on their execution nodes. The reports are written as with
# ansible-playbook, and the job's events carry each host's checks.
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 run_audit.py "$out" policy.yml

# execution-environment.yml: ansible-builder writes its build context, and the collection
# installs from that context as the image build installs it (building the image itself needs a
# registry for the base image, which the test machines do not have).
root="${ANSIBLE_COLLECTIONS_PATH%%:*}/ansible_collections/iotune/storage"
mkdir -p "$out/ee"
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
