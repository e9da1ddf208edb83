# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_fleet_report: the fleet's reports, written on the controller in one task (a template
task per file and a copy per host cost a module run each: seconds per run); the text of the
fleet files comes from plugin_utils/_fleet_report. Under job slicing (docs/fleet.md) a slice writes
its part (``part``) and one task merges the parts of the run (``merge``): plugin_utils/_fleet_parts."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_parts import merge_parts, write_part
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import write_reports


def _count(args, name, default, least, accepted):
    """The integer option ``name`` (a string of digits too), at least ``least``; AnsibleActionFail naming it."""
    value = args.get(name)
    if value is None:
        return default
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise AnsibleActionFail('%s: must be %s, got %r' % (name, accepted, value))
    return value


def _text(value):
    """A run id or a part's name as text: AWX's job ids come as integers."""
    return u'%d' % value if isinstance(value, int) and not isinstance(value, bool) else value


def checked_args(args):
    """(dir, keep) after the checks every mode shares, and the checks of which options go together."""
    directory = args.get('dir')
    if not isinstance(directory, str) or not os.path.isabs(directory):
        raise AnsibleActionFail('dir: must be an absolute path on the controller, got %r' % (directory,))
    keep = _count(args, 'keep', 30, 0, '0 (keep every run) or a number of runs to keep in history.json')
    if args.get('merge') is not None:
        given = [name for name in ('reports', 'part', 'run_id') if args.get(name) is not None]
        if given:
            raise AnsibleActionFail('%s: not with merge (the reports of a merge are those of its parts)' % given[0])
        return directory, keep
    reports = args.get('reports')
    if not isinstance(reports, list) or not all(isinstance(r, dict) and r.get('host') for r in reports):
        raise AnsibleActionFail('reports: must be a list of host reports (each a dict with a host)')
    if args.get('parts') is not None:
        raise AnsibleActionFail('parts: only with merge (how many parts the merge must find)')
    if args.get('run_id') is not None and args.get('part') is None:
        raise AnsibleActionFail('run_id: only with part (the run the part belongs to)')
    return directory, keep


def run_mode(args, directory, keep):
    """The files written, and what the mode adds to the result."""
    if args.get('merge') is not None:
        run_id = _text(args['merge'])
        merged = merge_parts(directory, run_id, _count(args, 'parts', None, 1, 'a number of parts, at least 1'), keep=keep)
        return merged.pop('files'), dict(merged, run_id=run_id)
    if args.get('part') is not None:
        name = _text(args['part'])
        written = write_part(directory, args['reports'], name, run_id=_text(args.get('run_id')))
        return written, {'part': name, 'part_file': written[-1], 'run_id': os.path.basename(os.path.dirname(written[-1]))}
    return write_reports(directory, args['reports'], keep=keep), {}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('dir', 'reports', 'keep', 'part', 'run_id', 'merge', 'parts'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        args = self._task.args
        if args.get('part') is not None and args.get('merge') is not None:
            raise AnsibleActionFail('part, merge: one or the other (a slice writes its part; one task merges the parts)')
        directory, keep = checked_args(args)
        try:
            written, extra = run_mode(args, directory, keep)
        except ValueError as exc:
            raise AnsibleActionFail(str(exc))
        result.update(extra)
        result.update(changed=False, files=written)
        return result
