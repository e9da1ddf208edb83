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
# issue 39, item 10: through the role's own argument spec, the message io_policy gives, short
out=$(ANSIBLE_HOST_KEY_CHECKING=false ansible-playbook -i inventory role_example.yml 2>&1) &&
  { echo "FAIL the role example with presnt succeeded"; failures=$((failures + 1)); }
if grep -q UNREACHABLE <<<"$out" || ! grep -qF "iotune_mounts[0].presnt: unknown key (accepted: path, present, absent, remount)" <<<"$out" ||
   grep -q "argument_spec_data\|Supported parameters include" <<<"$out" || [ "${#out}" -gt 6000 ]; then
  echo "FAIL the role example with presnt (${#out} characters):"; echo "$out" | tail -8; failures=$((failures + 1))
else
  echo "ok   the role example with presnt: io_policy's message (${#out} characters of output)"
fi

# issue 39, item 9: upgrade_check's checks name only the variable that is wrong, before any host work
upgrade() {
  ANSIBLE_HOST_KEY_CHECKING=false ansible-playbook -i inventory iotune.storage.upgrade_check "$@" 2>&1
}
out=$(upgrade -e iotune_upgrade_phase=during) && { echo "FAIL upgrade_check with phase 'during' succeeded"; failures=$((failures + 1)); }
if grep -q UNREACHABLE <<<"$out" || ! grep -qF "iotune_upgrade_phase must be one of before, after, diff (got 'during')" <<<"$out" ||
   grep -q "iotune_upgrade_fail_on must" <<<"$out"; then
  echo "FAIL upgrade_check with a bad phase:"; echo "$out" | tail -5; failures=$((failures + 1))
else
  echo "ok   upgrade_check: a bad phase is named alone"
fi
out=$(upgrade -e iotune_upgrade_phase=before -e iotune_upgrade_fail_on=lost_setting) &&
  { echo "FAIL upgrade_check with a string fail_on succeeded"; failures=$((failures + 1)); }
if grep -q UNREACHABLE <<<"$out" || ! grep -qF "iotune_upgrade_fail_on must be a list of difference classes" <<<"$out" ||
   grep -q "iotune_upgrade_phase must" <<<"$out"; then
  echo "FAIL upgrade_check with a bad fail_on:"; echo "$out" | tail -5; failures=$((failures + 1))
else
  echo "ok   upgrade_check: a bad fail_on is named alone"
fi
[ "$failures" -eq 0 ]
