#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: io_rollback
short_description: Undo an enforcement run from its write-ahead journal
version_added: 0.1.0
description:
  - Replays the journal of a run (C(<journal_dir>/<run_id>.jsonl), written by C(mount_options), C(block_queue),
    C(cache_limits) and C(tunefstab)) in reverse order and puts back what each record says was there before
    the change. Files come back byte for byte with their mode and owner (or are removed when the run created them),
    sysfs and C(/proc/sys) values are written back (of a bytes/ratio sysctl pair, the one that was in force),
    mount options are restored by remount, VxFS tunables through C(vxtunefs -o).
  - Works after a run that was killed half-way, since every record is on disk before its change is made; a record
    whose change never happened finds its previous state already in place.
  - Marks the run rolled back (C(<run_id>.rolled-back.json)). Rolling back a marked run again changes nothing
    and does not replay it.
  - A run without a journal on the host (it changed nothing there) has nothing to roll back. The module
    then succeeds, with a warning that lists the runs the host has.
  - When something cannot be restored the module goes on with the other records, then fails naming each failure,
    and the run is not marked.
  - A run is not rolled back, and nothing is restored, while a later run that is not rolled back changed one of its
    targets and the target no longer holds what this run left there; the module fails naming the later runs (roll
    back newest first). When the last journal record was cut short after its change was made, the other records
    are restored, the module fails naming the target, and the run is not marked.
  - Journals are input, not truth (docs/reliability.md, threat model). O(journal_dir) must belong to the user the
    module runs as and must not be writable by group or other, or nothing is read from it. Every record is checked
    against the schema of its kind before anything is restored; a bad record fails naming the journal, the line and
    the field, and restores nothing. A record never names a program or a root; O(mount_bin), O(vxtunefs),
    C(systemctl), O(sys_root) and O(proc_root) are this module's own, and a file record must name one of
    O(managed_files). A file's previous content is restored only when it matches the digest recorded with it.
  - When a run wrote a file several times (a failed remount puts its fstab line back), the file is restored once,
    from the run's first record of it.
  - A file that holds neither what the run wrote nor what was there before it (an upgrade, a package or an
    administrator replaced it since) is not restored; the module names it and fails after restoring the rest, and
    the run is not marked.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.action_group
  - iotune.storage.roots.vxtunefs
attributes:
  check_mode:
    support: full
    details:
      - Reports what would be restored and changes nothing.
  diff_mode:
    support: full
    details:
      - Shows the files and values before and after the restore.
  idempotent:
    support: full
    details:
      - A rolled-back run is marked; rolling it back again reports C(changed=false).
options:
  run_id:
    description:
      - The run to undo. Default is the latest run (by its run sequence number, kept under the host lock, never by
        the clock) that has records and is not rolled back yet.
    type: str
  journal_dir:
    description: Directory of the run journals. It must belong to the user the module runs as and must not be
      writable by group or other; the directories above it must belong to root or that user.
    type: path
    default: /var/lib/iotune/journal
  managed_files:
    description:
      - The files a run may have written, as the policy names them; a file record for any other path is refused.
        The C(io_rollback) role passes the inventory's paths (C(mount_options_fstab), C(tunefstab_path),
        C(block_queue_rules_file), C(cache_limits_sysctl_file), the bulk slice's unit, the copy tools).
    type: list
    elements: path
    default: [/etc/fstab, /etc/vx/tunefstab, /etc/udev/rules.d/60-iotune.rules, /etc/sysctl.d/60-iotune.conf,
              /etc/systemd/system/iotune-bulk.slice, /usr/local/bin/iotune-copy, /usr/local/bin/iotune-bulk,
              /etc/iotune/copy.conf]
  sys_root:
    description: Root of sysfs; a queue record must name C(<sys_root>/block/<device>/queue/<setting>).
    type: path
    default: /sys
  proc_root:
    description: Root of procfs, for C(vm.*) values and the live mount options.
    type: path
    default: /proc
  mount_bin:
    description: The C(mount) program that remounts; default is C(mount) from the PATH.
    type: path
'''

EXAMPLES = r'''
- name: Undo the latest hardening run
  iotune.storage.io_rollback:

- name: Undo one run
  iotune.storage.io_rollback:
    run_id: 20261122T101500Z
'''

RETURN = r'''
run_id:
  description: The run rolled back (null when there was none to roll back).
  returned: always
  type: str
  sample: 20261122T101500Z
records:
  description: The journal records replayed, in the order they were replayed (the reverse of the run), each with
    C(seq), C(module), C(kind), C(target) and C(restored) (true when the previous state had to be put back).
  returned: always
  type: list
  elements: dict
checks:
  description:
    - One check per replayed record, in replay order (concern C(io_rollback), setting C(<kind>[:<setting>]#<seq>),
      C(expected) the state before the run). C(compliant) when the state is as before the run (restored or already
      so), C(drift) in check mode when it would be restored, C(error) when it cannot be restored.
  returned: always
  type: list
  elements: dict
already_rolled_back:
  description: True when the run was marked rolled back before this call.
  returned: always
  type: bool
errors:
  description: Records that could not be restored, as sentences.
  returned: always
  type: list
  elements: str
msg:
  description: What was done.
  returned: always
  type: str
  sample: "run 20261122T101500Z: 5 of 7 records restored"
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils.act.apply import (
    ApplyError, holds_after, replaced_since, restore_directory, restore_file, restore_mount, restore_sysctl, restore_sysfs,
    restore_vxtunefs, sysfs_value)
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import COMPLIANT, DRIFT, ERROR, make_check
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import (
    acquire_lock,
    check_dir,
    file_content,
    file_state,
    journal_path,
    JournalError,
    latest_open_run,
    list_runs,
    read_mark,
    read_records,
    torn_record,
    write_mark,
)
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args, validate_run_id
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import UDEV_CONTROL
from ansible_collections.iotune.storage.plugins.module_utils.act.records import (
    RecordError, Trusted, validate_record, validate_records)
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import find_vxtunefs, read_live

DEFAULT_MANAGED_FILES = ['/etc/fstab', '/etc/vx/tunefstab', '/etc/udev/rules.d/60-iotune.rules', '/etc/sysctl.d/60-iotune.conf',
                         '/etc/systemd/system/iotune-bulk.slice', '/usr/local/bin/iotune-copy', '/usr/local/bin/iotune-bulk',
                         '/etc/iotune/copy.conf']

CONCERN = 'io_rollback'


def _text(state):
    if not state or state.get('state') != 'present':
        return ''
    return file_content(state).decode('utf-8', 'replace')


def record_diff(record):
    """One diff per restored record: the file, or the value, now and as it will be."""
    if record['kind'] == 'file':
        return {'before_header': record['target'], 'after_header': '%s (restored)' % record['target'],
                'before': _text(file_state(record['target'])), 'after': _text(record['before'])}
    if record['kind'] == 'sysfs':
        now = sysfs_value(record['target'])
    else:
        now = record['after']
    return {'before_header': '%s %s' % (record['kind'], record['target']),
            'after_header': '%s %s (restored)' % (record['kind'], record['target']),
            'before': '%s\n' % (now,), 'after': '%s\n' % (record['before'],)}


def record_check(record, status, message):
    """One check per replayed record: the state the record says was there before the run."""
    kind, before = record.get('kind'), record.get('before')
    setting = kind if not record.get('setting') else '%s:%s' % (kind, record['setting'])
    if kind == 'file':
        before = 'absent' if before.get('state') != 'present' else 'mode %s owner %s:%s, %d bytes, sha256 %s' % (
            before['mode'], before['uid'], before['gid'], len(file_content(before)), before['sha256'])
    return make_check(CONCERN, record.get('target'), '%s#%s' % (setting, record.get('seq')), before, None, None, status,
                      '%s %s %s' % (kind, record.get('target'), message))


def later_runs_on_the_same_targets(journal_dir, run_id, records, trusted, warn):
    """Runs after ``run_id`` (by run sequence, not the clock), not rolled back, that changed one of
    its targets which no longer holds what ``run_id`` left there: rolling ``run_id`` back first
    would put back a state from before them, losing their changes. (A later run that put the
    target back, as a failed remount does with its fstab line, loses nothing.) A journal of
    another run that cannot be read, or a bad record in it, is warned about and blocks nothing."""
    runs = list_runs(journal_dir)
    order = [run['run_id'] for run in runs]
    if run_id not in order:
        return []
    last = dict(((record.get('kind'), record.get('target')), record) for record in records)
    found = []
    for run in runs[order.index(run_id) + 1:]:
        if run['rolled_back'] or run['run_id'] == run_id:
            continue
        try:
            theirs, dummy = read_records(run['path'], numbered=True)
        except (JournalError, ValueError) as exc:
            warn('journal of run %s not read (its targets are not compared): %s' % (run['run_id'], exc))
            continue
        targets = set()
        for line, record in theirs:
            try:
                validate_record(record, run['path'], line, run['run_id'], None, trusted)
            except RecordError as exc:
                warn('%s (the record is not compared)' % exc)
                continue
            targets.add((record['kind'], record['target']))
        shared = sorted(set(target for kind, target in targets
                            if (kind, target) in last and holds_after(last[(kind, target)], trusted.proc_root) is not True))
        if shared:
            found.append('%s (%s)' % (run['run_id'], ', '.join(shared)))
    return found


def torn_change_made(torn, proc_root='/proc'):
    """Whether the change of a record cut short was made: True, False, or None when what
    survived of it cannot tell (issue 18, F7). Its change was made when the target holds
    the record's ``after`` now; a record cut while it was written never had its change."""
    if 'target' not in torn:
        return False  # cut within its first bytes: the write itself was torn
    if 'after' not in torn:
        return None
    return holds_after(torn, proc_root)


def torn_problem(journal, torn, proc_root='/proc'):
    """An error when a torn last record's change was (or may have been) made, else None."""
    made = torn_change_made(torn, proc_root)
    if made is False:
        return None
    what = '%s %s' % (torn.get('kind', 'change'), torn.get('target'))
    return ('%s: its last record (seq %s, %s) was cut short after it was written, and its change %s: the state '
            'before it is lost, so the run is not marked rolled back; put %s back by hand, then remove the cut line '
            'from the journal and roll back again' % (journal, torn.get('seq', '?'), what,
                                                      'was made' if made else 'may have been made', torn.get('target')))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            run_id=dict(type='str'),
            journal_dir=dict(type='path', default='/var/lib/iotune/journal'),
            managed_files=dict(type='list', elements='path', default=DEFAULT_MANAGED_FILES),
            sys_root=dict(type='path', default='/sys'),
            proc_root=dict(type='path', default='/proc'),
            mount_bin=dict(type='path'),
            vxtunefs=dict(type='path'),
        ),
        supports_check_mode=True,
    )
    params = module.params
    errors = check_args(params, paths=('sys_root', 'proc_root', 'mount_bin', 'vxtunefs'))
    for index, path in enumerate(params['managed_files']):
        if not os.path.isabs(path):
            errors.append('managed_files[%d]: must be an absolute path, got %r' % (index, path))
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors)
    runner = CommandRunner(module)
    journal_dir = params['journal_dir']
    run_id = params['run_id']
    result = dict(changed=False, run_id=run_id, records=[], checks=[], already_rolled_back=False, errors=[])
    try:
        # nothing is read from a directory others can write: its records would say what to restore
        check_dir(journal_dir)
    except JournalError as exc:
        module.fail_json(msg=str(exc), **result)
    vxtunefs, dummy = find_vxtunefs(params['vxtunefs'])
    trusted = Trusted(params['managed_files'], params['sys_root'], params['proc_root'],
                      params['mount_bin'] or module.get_bin_path('mount') or '/bin/mount', vxtunefs,
                      module.get_bin_path('systemctl'))
    lock = None
    if not module.check_mode and os.path.isdir(journal_dir):
        # no enforcing run changes the host while its records are put back
        try:
            lock = acquire_lock(journal_dir)
        except JournalError as exc:
            module.fail_json(msg=str(exc), **result)
    try:
        roll_back(module, runner, journal_dir, run_id, result, trusted)
    finally:
        if lock is not None:
            os.close(lock)


def roll_back(module, runner, journal_dir, run_id, result, trusted):
    """Put back every record of the run (the latest open one when run_id is None) and exit."""
    if run_id is None:
        try:
            latest = latest_open_run(journal_dir)
        except JournalError as exc:
            # a run that cannot be read may be the latest one: do not pick an older run instead
            module.fail_json(msg='cannot tell which run is the latest: %s; name the run with run_id' % exc, **result)
        if latest is None:
            result['msg'] = 'no run to roll back in %s' % journal_dir
            module.exit_json(**result)
        run_id = result['run_id'] = latest['run_id']
    else:
        problem = validate_run_id(run_id)
        if problem:
            module.fail_json(msg='run_id: %s' % problem, **result)
        if not os.path.exists(journal_path(journal_dir, run_id)):
            try:
                known = ', '.join(run['run_id'] for run in list_runs(journal_dir)) or 'none'
            except JournalError as exc:
                known = 'cannot list them: %s' % exc
            # across a fleet, a run changes some hosts and not others: no journal is not an error,
            # but a mistyped run id must be visible
            module.warn('run_id: no journal %s (runs in %s: %s)' % (journal_path(journal_dir, run_id), journal_dir, known))
            result['msg'] = 'run %s changed nothing on this host (no journal): nothing to roll back' % run_id
            module.exit_json(**result)

    try:
        numbered, problems = read_records(journal_path(journal_dir, run_id), numbered=True)
        records = validate_records(numbered, journal_path(journal_dir, run_id), run_id, trusted)
    except RecordError as exc:
        module.fail_json(msg='run %s: nothing restored: %s' % (run_id, exc), **result)
    except (JournalError, ValueError) as exc:
        module.fail_json(msg='cannot read the journal of run %s: %s' % (run_id, exc), **result)
    for problem in problems:
        module.warn(problem)
    mark = read_mark(journal_dir, run_id)
    result['already_rolled_back'] = mark is not None
    if mark is not None:
        # Not replayed again: a run's later records may legitimately differ from the
        # state now (a scheduler switch resets nr_requests; a file written twice).
        result['msg'] = 'run %s was rolled back at %s; nothing to do' % (run_id, mark.get('time'))
        module.exit_json(**result)
    check = module.check_mode
    try:
        later = later_runs_on_the_same_targets(journal_dir, run_id, records, trusted, module.warn)
    except (JournalError, ValueError) as exc:
        module.fail_json(msg='cannot read the other runs in %s: %s' % (journal_dir, exc), **result)
    if later:
        module.fail_json(msg='run %s: nothing restored: later runs changed the same targets and are not rolled back: %s; '
                             'roll them back first, newest first' % (run_id, '; '.join(later)), **result)
    torn = torn_record(journal_path(journal_dir, run_id))
    if torn is not None:
        problem = torn_problem(journal_path(journal_dir, run_id), torn, trusted.proc_root)
        if problem:
            result['errors'].append(problem)

    # a file the run wrote several times comes back once, as its first record has it
    first_of_file, last_of_file = {}, {}
    for record in records:
        if record['kind'] == 'file':
            first_of_file.setdefault(record['target'], record['seq'])
            last_of_file[record['target']] = record

    def restore_file_record(record):
        problem = replaced_since(record, last_of_file[record['target']])
        if problem:
            raise ApplyError(problem)
        return restore_file(record['target'], record['before'], check)

    def vxtunefs_values(binary, mount_point):
        return read_live(binary, mount_point, runner)

    restorers = {
        'file': restore_file_record,
        'sysfs': lambda record: restore_sysfs(record, check),
        'sysctl': lambda record: restore_sysctl(record, check, trusted.proc_root),
        'mount': lambda record: restore_mount(record, runner if check else runner.change, check, trusted.mount_bin,
                                              trusted.proc_root),
        'vxtunefs': lambda record: restore_vxtunefs(record, runner if check else runner.change, vxtunefs_values, check,
                                                    trusted.vxtunefs),
        'unit': lambda record: False,  # daemon-reload once, after the unit files are back
        'dir': lambda record: restore_directory(record, check),
    }
    diffs = []
    for record in reversed(records):
        entry = dict((key, record.get(key)) for key in ('seq', 'module', 'kind', 'target'))
        if record['kind'] == 'file' and first_of_file[record['target']] != record['seq']:
            entry['restored'] = False
            result['checks'].append(record_check(record, COMPLIANT, 'restored from the run\'s first record of it (seq %s)'
                                                 % first_of_file[record['target']]))
            result['records'].append(entry)
            continue
        try:
            if module._diff and record['kind'] in ('file', 'sysfs', 'sysctl', 'vxtunefs'):
                diff = record_diff(record)
            entry['restored'] = restorers[record['kind']](record)
        except (ApplyError, JournalError, KeyError, IOError, OSError) as exc:
            entry['restored'] = False
            result['errors'].append('record %s (%s %s): %s' % (record.get('seq'), record.get('kind'),
                                                               record.get('target'), exc))
            result['checks'].append(record_check(record, ERROR, 'cannot restore: %s' % exc))
        else:
            if entry['restored'] and module._diff and record['kind'] in ('file', 'sysfs', 'sysctl', 'vxtunefs'):
                diffs.append(diff)
            if not entry['restored']:
                result['checks'].append(record_check(record, COMPLIANT, 'already as before run %s' % run_id))
            elif check:
                result['checks'].append(record_check(record, DRIFT, 'differs from before run %s: would be restored' % run_id))
            else:
                result['checks'].append(record_check(record, COMPLIANT, 'restored as before run %s' % run_id))
        result['records'].append(entry)

    restored = [entry for entry in result['records'] if entry['restored']]
    units = [record for record in records if record['kind'] == 'unit']
    if units and restored and not check:
        rc, out, err = runner.change([trusted.systemctl or 'systemctl', 'daemon-reload'])
        if rc != 0:
            result['errors'].append('systemctl daemon-reload failed (rc=%s): %s' % (rc, (err or out).strip()))
    # udevd must read a restored (or removed) rule file for devices that appear later; the values are back live
    rules = [entry for entry in restored if entry['kind'] == 'file' and entry['target'].endswith('.rules')]
    if rules and not check and os.path.exists(UDEV_CONTROL):
        rc, out, err = runner.change(['udevadm', 'control', '--reload'])
        if rc != 0:
            result['errors'].append('udevadm control --reload failed (rc=%s): %s' % (rc, (err or out).strip()))
        else:
            result['reloaded'] = ['udevadm control --reload']
    if module._diff:
        result['diff'] = diffs

    result['changed'] = bool(restored)
    result['msg'] = 'run %s: %d of %d records restored' % (run_id, len(restored), len(records))
    if result['errors']:
        result['msg'] += '; %d could not be restored: %s' % (len(result['errors']), '; '.join(result['errors']))
        module.fail_json(**result)
    if not module.check_mode:
        try:
            write_mark(journal_dir, run_id, {'records': len(records), 'restored': len(restored)})
        except JournalError as exc:
            result['errors'].append(str(exc))
            result['msg'] += '; %s (restored, but a second rollback would replay it)' % exc
            module.fail_json(**result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
