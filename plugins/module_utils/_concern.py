# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every concern module (mount_options, tunefstab, block_queue, cache_limits)
does the same way: journal options, the diff of a plan, applying it through the
journal, and the result."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils._apply import ApplyError, apply_file
from ansible_collections.iotune.storage.plugins.module_utils._checks import ERROR, STATUSES, summarize
from ansible_collections.iotune.storage.plugins.module_utils._journal import Journal, JournalError, journal_path, new_run_id

DEFAULT_JOURNAL_DIR = '/var/lib/iotune/journal'
# Options every concern module takes for the write-ahead journal.
JOURNAL_ARGS = dict(
    run_id=dict(type='str'),
    journal_dir=dict(type='path', default=DEFAULT_JOURNAL_DIR),
)


def summary_message(checks):
    """'5 checks: 3 compliant, 2 drift' (statuses with a zero count left out)."""
    counts = summarize(checks)
    parts = ['%d %s' % (counts[status], status) for status in STATUSES if counts[status]]
    return '%d checks%s' % (len(checks), (': ' + ', '.join(parts)) if parts else '')


def file_diffs(changes):
    """One diff per planned file change (whole text before and after)."""
    diffs = []
    for change in changes:
        if change['kind'] == 'file':
            path = change.get('path') or change['target']
            diffs.append({
                'before_header': path if change['before'] is not None else '%s (absent)' % path,
                'after_header': path,
                'before': change['before'] or '',
                'after': change['after'],
            })
    return diffs


def live_diff(changes, kind, header, line):
    """One diff of the live values a plan would change; ``line(change, side)``
    renders one change as a line, ``side`` being 'before' or 'after'."""
    live = [change for change in changes if change['kind'] == kind]
    if not live:
        return []
    return [{
        'before_header': '%s (live)' % header,
        'after_header': '%s (planned)' % header,
        'before': ''.join(line(change, 'before') + '\n' for change in live),
        'after': ''.join(line(change, 'after') + '\n' for change in live),
    }]


def apply_changes(journal, changes, **appliers):
    """Make a plan's ``changes`` in order: files with apply_file, every other
    kind with ``appliers[kind](journal, change)``."""
    for change in changes:
        if change['kind'] == 'file':
            apply_file(journal, change.get('path') or change['target'], change['after'], mode=change.get('mode'))
        else:
            appliers[change['kind']](journal, change)


def _mark_changed(before_checks, after_checks):
    """The checks after apply, each with ``changed``: its status moved."""
    status_before = dict((check['id'], check['status']) for check in before_checks)
    return [dict(check, changed=status_before.get(check['id'], check['status']) != check['status'])
            for check in after_checks]


def finish(module, plan, diffs, apply=None, replan=None, **extra):
    """Report a plan (check mode) or apply it.

    ``apply(journal)`` makes the plan's changes, journalling each one first;
    ``replan()`` reads the state again afterwards and returns a new plan.  An
    ``error`` check stops the run before anything is written."""
    for warning in plan['warnings']:
        module.warn(warning)
    result = dict(
        changed=bool(plan['changes']),
        checks=plan['checks'],
        summary=summarize(plan['checks']),
        changes=plan['changes'],
        msg=summary_message(plan['checks']),
        **extra
    )
    if module._diff:
        result['diff'] = diffs
    if module.check_mode or not plan['changes']:
        module.exit_json(**result)

    errors = [check for check in plan['checks'] if check['status'] == ERROR]
    if errors:
        result.update(changed=False, msg='nothing changed: %s' % '; '.join(check['message'] for check in errors))
        module.fail_json(**result)

    params = module.params
    run_id = params.get('run_id') or new_run_id()
    result['run_id'] = run_id
    result['journal'] = journal_path(params['journal_dir'], run_id)
    try:
        journal = Journal(params['journal_dir'], run_id, module._name.split('.')[-1])
    except JournalError as exc:
        result.update(changed=False, msg='run_id: %s' % exc)
        module.fail_json(**result)
    try:
        apply(journal)
    except (ApplyError, JournalError, IOError, OSError) as exc:
        result.update(changed=journal.written > 0, msg='%s (%d change(s) made before the failure are in %s; '
                      'io_rollback run_id=%s undoes them)' % (exc, journal.written, result['journal'], run_id))
        module.fail_json(**result)
    after = replan()
    for warning in after['warnings']:
        if warning not in plan['warnings']:
            module.warn(warning)
    if after['changes']:
        module.warn('after applying, still planned: %s' % ', '.join(
            '%s %s' % (change['kind'], change['target']) for change in after['changes']))
    result.update(
        changed=journal.written > 0,
        checks=_mark_changed(plan['checks'], after['checks']),
        checks_before=plan['checks'],
        summary=summarize(after['checks']),
        msg='%s; %d change(s) journalled in %s' % (summary_message(after['checks']), journal.written, result['journal']),
    )
    module.exit_json(**result)
