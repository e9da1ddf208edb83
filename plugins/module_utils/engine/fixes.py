# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fix of each finding (docs/reports.md, "The fix for each finding"): what harden_io would
change for a check that drifts or is not persistent, read from the plan the audit made (the plan
a harden makes in check mode too), and what the change needs before it is in effect."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import DRIFT, NOT_PERSISTENT

# what a change needs before it is in effect, the least first: a fix needs the most of its changes'
NEEDS = ('nothing', 'daemon-reload', 'remount', 'reboot', 'maintenance window')
KIND_NEEDS = {'mount': 'remount', 'unix_remount': 'remount', 'mount_cycle': 'maintenance window', 'unit': 'daemon-reload'}
NEEDS_TEXT = {
    'nothing': 'takes effect at once',
    'daemon-reload': 'takes effect after systemctl daemon-reload (harden_io runs it)',
    'remount': 'a remount (harden_io makes it; the file system stays mounted)',
    'reboot': 'a reboot: the value takes effect at the next boot',
    'maintenance window': 'a maintenance window: the file system is unmounted and mounted again',
}
_MOUNT_KINDS = ('fstab', 'mount', 'mount_cycle', 'unix_remount')
# the concerns whose files are the setting itself (a tool installed is in effect at once)
FILE_CONCERNS = ('copy_tools',)
# the changes that set a live value (the others change files)
LIVE_KINDS = ('mount', 'mount_cycle', 'unix_remount', 'sysfs', 'sysctl', 'vxtunefs', 'kctune', 'unit')


def _options(value):
    return value if isinstance(value, str) else ','.join(value)


def _text(value):
    return value if isinstance(value, str) else None


def _lines_about(change, check, removed=False):
    """The lines the change adds to its file (and with ``removed`` those it takes out) that name
    the check's setting or target."""
    before, after = _text(change.get('before')) or '', _text(change.get('after'))
    if after is None:
        return []
    old, new = before.splitlines(), after.splitlines()
    words = [word for word in (check.get('setting'), check.get('target')) if word]
    changed = [line for line in new if line not in set(old)]
    if removed:
        changed += [line for line in old if line not in set(new)]
    return [line for line in changed if any(word in line for word in words)]


def _option_list(value):
    if value is None:
        return []
    return value.split(',') if isinstance(value, str) else list(value)


def _option_changes(change, setting):
    """Whether a mount change (its option lists before and after) changes the option of a check's
    setting (``present:noatime``, ``absent:nosuid``, ``present:rsize=1048576``): a remount made for
    another option of the same mount point is not this check's fix."""
    option = setting.split(':', 1)[-1]
    key = option.split('=', 1)[0]
    changed = set(_option_list(change.get('before'))) ^ set(_option_list(change.get('after')))
    return any(token == option or token.split('=', 1)[0] == key for token in changed)


def _relevant(change, check):
    kind, target = change['kind'], check['target']
    if kind in ('sysfs', 'vxtunefs'):
        return change.get('setting') == check['setting'] and target in (change['target'], change.get('device'))
    if kind in ('sysctl', 'kctune'):
        return change['target'] in (check['setting'], target)
    if kind in _MOUNT_KINDS:
        return change['target'] == target and _option_changes(change, check['setting'])
    if kind in ('unit', 'remove'):
        return change['target'] == target
    if kind == 'dir':
        return target.startswith(change['target'].rstrip('/') + '/')
    if kind == 'file':
        return target in (change['target'], change.get('path')) or bool(_lines_about(change, check, removed=True))
    return False


def _describe(change, check):
    """The change as a sentence an administrator can check by hand."""
    kind = change['kind']
    if kind == 'fstab':
        return '%s line %d becomes: %s' % (change['path'], change['line'], change['after_line'].rstrip('\n'))
    if kind == 'mount':
        return 'mount -o %s %s' % (change['options'], change['target'])
    if kind == 'unix_remount':
        return 'mount -F %s -o remount,%s %s' % (change['fstype'], _options(change['options']), change['target'])
    if kind == 'mount_cycle':
        return 'umount %s, then mount it with %s' % (change['target'], _options(change['options']))
    if kind == 'sysfs':
        return '%s: %s -> %s' % (change['path'], change['before'], change['after'])
    if kind == 'sysctl':
        return 'sysctl %s: %s -> %s' % (change['target'], change['before'], change['after'])
    if kind == 'kctune':
        return 'kctune %s=%s (now %s)' % (change['target'], change['after'], change['before'])
    if kind == 'vxtunefs':
        return ' '.join(change['argv']) if change.get('argv') else 'vxtunefs %s=%s on %s' % (
            change['setting'], change['after'], change['target'])
    if kind == 'unit':
        return 'systemctl daemon-reload'
    if kind == 'dir':
        return 'mkdir %s' % change['target']
    if kind == 'remove':
        return 'remove %s' % change['target']
    path = change.get('path') or change['target']
    if change.get('after_sha256'):
        # a tool or its configuration: the file as a whole (a line of it may name its own path)
        return 'install %s (sha256 %s, %d bytes)' % (path, change['after_sha256'][:12], change.get('after_size') or 0)
    lines = _lines_about(change, check)
    if lines:
        return '%s gets: %s' % (path, ' | '.join(line.strip() for line in lines))
    return '%s %s' % ('write' if change.get('before') is None else 'rewrite', path)


def _needs(change):
    if change['kind'] == 'file' and change.get('applies') == 'at the next boot':
        return 'reboot'
    return KIND_NEEDS.get(change['kind'], 'nothing')


def fix_for(check, changes):
    """The fix of one check from its concern's planned ``changes``: {'changes': [sentences],
    'needs': one of NEEDS, 'text': the sentence of what it needs}; with no planned change,
    {'changes': [], 'needs': None, 'text': why there is no fix to show}."""
    mine = [change for change in changes if _relevant(change, check)]
    if not mine:
        return {'changes': [], 'needs': None,
                'text': 'harden_io plans no change for it here: its message says what stands in the way'}
    needs = max((_needs(change) for change in mine), key=NEEDS.index)
    text = NEEDS_TEXT[needs]
    if check['status'] == DRIFT and check.get('concern') not in FILE_CONCERNS and not any(
            change['kind'] in LIVE_KINDS for change in mine):
        # only the persistent side changes (remount: false, a tunable harden_io does not set live)
        needs, text = 'reboot', 'the next boot or mount: harden_io changes only the persistent side of it here'
    return {'changes': [_describe(change, check) for change in mine], 'needs': needs, 'text': text}


def attach_fixes(plan):
    """Give every drift and not_persistent check of a concern's ``plan`` its ``fix``."""
    for check in plan['checks']:
        if check['status'] in (DRIFT, NOT_PERSISTENT):
            check['fix'] = fix_for(check, plan['changes'])


def leave_alone(plan, waived):
    """(changes, conflicts): the plan's changes without those that only fix checks whose ids are in
    ``waived`` (harden_io leaves a waived setting as it is, docs/waivers.md), and a sentence per
    change that fixes a waived check and another one too (one fstab line, one rules file), which a
    run cannot make without changing the waived setting. A directory to create is never a conflict."""
    findings = [check for check in plan['checks'] if check['status'] in (DRIFT, NOT_PERSISTENT)]
    kept, conflicts = [], []
    for change in plan['changes']:
        served = [check['id'] for check in findings if _relevant(change, check)]
        mine = [check_id for check_id in served if check_id in waived]
        others = [check_id for check_id in served if check_id not in waived]
        if not mine or (others and change['kind'] == 'dir'):
            kept.append(change)
        elif others:
            conflicts.append('%s of %s changes waived %s and also %s' % (
                change['kind'], change.get('path') or change['target'], ', '.join(mine), ', '.join(others)))
    return kept, conflicts
