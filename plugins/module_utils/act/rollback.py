# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Undoing a run from its write-ahead journal, as io_rollback does it.

``roll_back`` chooses the run (the one named, or the latest open one by run sequence), checks
every record against its kind's schema (act.records) before anything is restored, refuses while
a later run changed the same targets, puts the records back newest first with the restorer of
each kind (act.apply.RESTORERS), runs the reloads the restores need (act.reloads, the rule the
engine follows too) and marks the run rolled back. No AnsibleModule: it returns the module's
result, or raises RollbackError carrying it."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.act.apply import (
    ApplyError, Restore, holds_after, replaced_since, restore_record, sysfs_target, sysfs_value)
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import (
    acquire_lock,
    check_dir,
    journal_path,
    JournalError,
    latest_open_run,
    list_runs,
    read_mark,
    read_records,
    torn_record,
    write_mark,
)
from ansible_collections.iotune.storage.plugins.module_utils.common.filestate import file_content, file_state, shown_content
from ansible_collections.iotune.storage.plugins.module_utils.act.records import RecordError, validate_record, validate_records
from ansible_collections.iotune.storage.plugins.module_utils.act.reloads import ROLLBACK, needed_reloads, run_reloads
from ansible_collections.iotune.storage.plugins.module_utils.common.args import validate_run_id
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import COMPLIANT, DRIFT, ERROR, make_check

DEFAULT_MANAGED_FILES = ['/etc/fstab', '/etc/vx/tunefstab', '/etc/udev/rules.d/60-iotune.rules', '/etc/sysctl.d/60-iotune.conf',
                         '/etc/systemd/system/iotune-bulk.slice', '/usr/local/bin/iotune-copy', '/usr/local/bin/iotune-bulk',
                         '/etc/iotune/copy.conf']

CONCERN = 'io_rollback'
# the kinds whose restore shows in diff mode (not mount options)
DIFF_KINDS = ('file', 'sysfs', 'sysctl', 'vxtunefs')


class RollbackError(Exception):
    """The rollback failed, or may not start; ``result`` is what the module returns with the message."""

    def __init__(self, message, result):
        Exception.__init__(self, message)
        self.result = result


def record_diff(record):
    """One diff per restored record: the file, or the value, now and as it will be."""
    if record['kind'] == 'file':
        return {'before_header': record['target'], 'after_header': '%s (restored)' % record['target'],
                'before': shown_content(file_state(record['target'])), 'after': shown_content(record['before'])}
    target = record['target']
    if record['kind'] == 'sysfs':
        try:
            path, note = sysfs_target(record)
            now = sysfs_value(path)
            target = '%s (%s)' % (path, note) if note else path
        except ApplyError as exc:
            now = 'not restored: %s' % exc
    else:
        now = record['after']
    return {'before_header': '%s %s' % (record['kind'], target),
            'after_header': '%s %s (restored)' % (record['kind'], target),
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


# ---------------------------------------------------------------- which run, and may it be rolled back

def choose_run(journal_dir, run_id, result, warn):
    """The run to roll back: ``run_id``, or the latest open run (by run sequence, never the clock).
    None, with ``result['msg']``, when there is nothing to roll back: no open run, or no journal of
    ``run_id`` on this host (warned: across a fleet a run changes some hosts and not others, but a
    mistyped run id must show)."""
    if run_id is None:
        try:
            latest = latest_open_run(journal_dir)
        except JournalError as exc:
            # a run that cannot be read may be the latest one: do not pick an older run instead
            raise RollbackError('cannot tell which run is the latest: %s; name the run with run_id' % exc, result)
        if latest is None:
            result['msg'] = 'no run to roll back in %s' % journal_dir
            return None
        result['run_id'] = latest['run_id']
        return latest['run_id']
    problem = validate_run_id(run_id)
    if problem:
        raise RollbackError('run_id: %s' % problem, result)
    path = journal_path(journal_dir, run_id)
    if os.path.exists(path):
        return run_id
    try:
        known = ', '.join(run['run_id'] for run in list_runs(journal_dir)) or 'none'
    except JournalError as exc:
        known = 'cannot list them: %s' % exc
    warn('run_id: no journal %s (runs in %s: %s)' % (path, journal_dir, known))
    result['msg'] = 'run %s changed nothing on this host (no journal): nothing to roll back' % run_id
    return None


def read_run(journal_dir, run_id, trusted, result, warn):
    """The records of ``run_id``, every one checked against the schema of its kind: one bad record
    and nothing is restored. A torn last line is warned about (its change never started)."""
    path = journal_path(journal_dir, run_id)
    try:
        numbered, problems = read_records(path, numbered=True)
        records = validate_records(numbered, path, run_id, trusted)
    except RecordError as exc:
        raise RollbackError('run %s: nothing restored: %s' % (run_id, exc), result)
    except (JournalError, ValueError) as exc:
        raise RollbackError('cannot read the journal of run %s: %s' % (run_id, exc), result)
    for problem in problems:
        warn(problem)
    return records


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


def refuse_under_later_runs(journal_dir, run_id, records, trusted, result, warn):
    """RollbackError, restoring nothing, while later runs changed the same targets (roll back newest first)."""
    try:
        later = later_runs_on_the_same_targets(journal_dir, run_id, records, trusted, warn)
    except (JournalError, ValueError) as exc:
        raise RollbackError('cannot read the other runs in %s: %s' % (journal_dir, exc), result)
    if later:
        raise RollbackError('run %s: nothing restored: later runs changed the same targets and are not rolled back: %s; '
                            'roll them back first, newest first' % (run_id, '; '.join(later)), result)


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


# ---------------------------------------------------------------- the replay

def _restore_one(record, last_of_file, how, run_id, result, diff):
    """Restore one record, adding its check (and an error); (restored, its diff or None)."""
    try:
        shown = record_diff(record) if diff and record['kind'] in DIFF_KINDS else None
        if record['kind'] == 'file':
            problem = replaced_since(record, last_of_file[record['target']])
            if problem:
                raise ApplyError(problem)
        restored = restore_record(record, how)
    except (ApplyError, JournalError, KeyError, IOError, OSError) as exc:
        result['errors'].append('record %s (%s %s): %s' % (record.get('seq'), record.get('kind'), record.get('target'), exc))
        result['checks'].append(record_check(record, ERROR, 'cannot restore: %s' % exc))
        return False, None
    if not restored:
        result['checks'].append(record_check(record, COMPLIANT, 'already as before run %s' % run_id))
    elif how.check:
        result['checks'].append(record_check(record, DRIFT, 'differs from before run %s: would be restored' % run_id))
    else:
        result['checks'].append(record_check(record, COMPLIANT, 'restored as before run %s' % run_id))
    return restored, shown if restored else None


def replay(records, how, run_id, result, diff=False):
    """Put ``records`` back newest first (``how``: act.apply.Restore); each gets an entry in
    ``result['records']`` and a check, a record that cannot be restored an error too, and the
    others go on. A file the run wrote several times comes back once, as its first record has it.
    Returns the records restored and the diffs of what was restored."""
    first_of_file, last_of_file = {}, {}
    for record in records:
        if record['kind'] == 'file':
            first_of_file.setdefault(record['target'], record['seq'])
            last_of_file[record['target']] = record
    restored, diffs = [], []
    for record in reversed(records):
        entry = dict((key, record.get(key)) for key in ('seq', 'module', 'kind', 'target'))
        result['records'].append(entry)
        if record['kind'] == 'file' and first_of_file[record['target']] != record['seq']:
            entry['restored'] = False
            result['checks'].append(record_check(record, COMPLIANT, 'restored from the run\'s first record of it (seq %s)'
                                                 % first_of_file[record['target']]))
            continue
        entry['restored'], shown = _restore_one(record, last_of_file, how, run_id, result, diff)
        if entry['restored']:
            restored.append(record)
        if shown is not None:
            diffs.append(shown)
    return restored, diffs


def reload_after(records, restored, trusted, runner, result):
    """Run the reloads the restores need (act.reloads, the engine's rule): the unit records count
    as undone when anything was restored. Their names go to ``result['reloaded']``; returns the errors."""
    undone = list(restored) + [record for record in records if record['kind'] == 'unit'] if restored else []
    own = {'systemctl': trusted.systemctl}

    def find_program(name):
        return own.get(name) or runner.bin(name)
    reloads = needed_reloads(undone, ROLLBACK, find_program, proc_root=trusted.proc_root)
    result['reloaded'], errors = run_reloads(reloads, runner)
    return errors


def finish(journal_dir, run_id, records, result, reload_errors, check):
    """The message; RollbackError when a record could not be restored or a reload failed (the run
    stays open), else the run marked rolled back (not in check mode)."""
    restored = [entry for entry in result['records'] if entry['restored']]
    result['changed'] = bool(restored)
    result['msg'] = 'run %s: %d of %d records restored' % (run_id, len(restored), len(records))
    if result['errors']:
        result['msg'] += '; %d could not be restored: %s' % (len(result['errors']), '; '.join(result['errors']))
    if reload_errors:
        result['errors'].extend(reload_errors)
        result['msg'] += '; %s' % '; '.join(reload_errors)
    if result['errors']:
        raise RollbackError(result['msg'], result)
    if not check:
        try:
            write_mark(journal_dir, run_id, {'records': len(records), 'restored': len(restored)})
        except JournalError as exc:
            result['errors'].append(str(exc))
            result['msg'] += '; %s (restored, but a second rollback would replay it)' % exc
            raise RollbackError(result['msg'], result)
    return result


# ---------------------------------------------------------------- the whole rollback

def roll_back(journal_dir, run_id, trusted, runner, read_vxtunefs=None, check=False, diff=False, warn=None):
    """Put back every record of run ``run_id`` (None: the latest open run) and mark it rolled back.

    ``trusted`` (act.records.Trusted) holds the rollback's own programs and roots and the managed
    files; ``runner`` runs commands (``runner(argv)`` reads, ``runner.change(argv)`` changes,
    ``runner.bin(name)`` finds a program); ``read_vxtunefs(binary, mount_point)`` -> (values,
    error). Returns the result (``msg``, ``changed``, ``run_id``, ``records``, ``checks``,
    ``already_rolled_back``, ``errors``, ``reloaded``, with ``diff`` a list of diffs); raises
    RollbackError with the result so far when the rollback may not start or did not finish."""
    warn = warn or (lambda message: None)
    result = dict(changed=False, run_id=run_id, records=[], checks=[], already_rolled_back=False, errors=[], reloaded=[])
    try:
        # nothing is read from a directory others can write: its records would say what to restore
        check_dir(journal_dir)
        # no enforcing run changes the host while its records are put back
        lock = acquire_lock(journal_dir) if not check and os.path.isdir(journal_dir) else None
    except JournalError as exc:
        raise RollbackError(str(exc), result)
    try:
        return _roll_back_locked(journal_dir, run_id, trusted, Restore(trusted, runner, read_vxtunefs, check), runner,
                                 diff, warn, result)
    finally:
        if lock is not None:
            os.close(lock)


def _roll_back_locked(journal_dir, run_id, trusted, how, runner, diff, warn, result):
    run_id = choose_run(journal_dir, run_id, result, warn)
    if run_id is None:
        return result
    records = read_run(journal_dir, run_id, trusted, result, warn)
    mark = read_mark(journal_dir, run_id)
    result['already_rolled_back'] = mark is not None
    if mark is not None:
        # Not replayed again: a run's later records may legitimately differ from the
        # state now (a scheduler switch resets nr_requests; a file written twice).
        result['msg'] = 'run %s was rolled back at %s; nothing to do' % (run_id, mark.get('time'))
        return result
    refuse_under_later_runs(journal_dir, run_id, records, trusted, result, warn)
    torn = torn_record(journal_path(journal_dir, run_id))
    problem = torn_problem(journal_path(journal_dir, run_id), torn, trusted.proc_root) if torn is not None else None
    if problem:
        result['errors'].append(problem)
    restored, diffs = replay(records, how, run_id, result, diff)
    reload_errors = [] if how.check else reload_after(records, restored, trusted, runner, result)
    if diff:
        result['diff'] = diffs
    return finish(journal_dir, run_id, records, result, reload_errors, how.check)
