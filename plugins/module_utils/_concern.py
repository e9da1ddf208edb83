# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every concern module (mount_options, tunefstab, block_queue, cache_limits)
does the same way: journal options, the diff of a plan, and the result."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils._checks import STATUSES, summarize

DEFAULT_JOURNAL_DIR = '/var/lib/iotune/journal'
# Options every concern module takes for the write-ahead journal.
JOURNAL_ARGS = dict(
    run_id=dict(type='str'),
    journal_dir=dict(type='path', default=DEFAULT_JOURNAL_DIR),
)
NOT_IMPLEMENTED = 'apply is not implemented yet; run with check_mode'


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


def finish(module, plan, diffs, **extra):
    """Report a plan: warnings, checks, summary, changes and the diff; outside
    check mode, fail until the apply side exists."""
    for warning in plan['warnings']:
        module.warn(warning)
    result = dict(
        changed=False,
        checks=plan['checks'],
        summary=summarize(plan['checks']),
        changes=plan['changes'],
        msg=summary_message(plan['checks']),
        **extra
    )
    if module._diff:
        result['diff'] = diffs
    if not module.check_mode:
        result['msg'] = NOT_IMPLEMENTED
        module.fail_json(**result)
    module.exit_json(**result)
