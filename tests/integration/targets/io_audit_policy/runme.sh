#!/usr/bin/env bash
# Every bad policy must stop audit_io.yml before any host work, with a message
# that names the bad field. The only host is unreachable on purpose.
set -eu
cd "$(dirname "$0")"
failures=0
for case in cases/*.yml; do
  expect=$(sed -n 's/^# expect: //p' "$case")
  set +e
  out=$(ANSIBLE_HOST_KEY_CHECKING=false ansible-playbook -i inventory iotune.storage.audit_io -e "@$case" 2>&1)
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then
    echo "FAIL $case: the play succeeded"; failures=$((failures + 1))
  elif grep -q UNREACHABLE <<<"$out"; then
    echo "FAIL $case: the play tried host work before rejecting the policy"; failures=$((failures + 1))
  elif ! grep -qF -- "$expect" <<<"$out"; then
    echo "FAIL $case: the error does not name '$expect':"; echo "$out" | tail -5; failures=$((failures + 1))
  else
    echo "ok   $case: rejected, naming $expect"
  fi
done
[ "$failures" -eq 0 ]
