# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A host's report history (docs/reports.md, "History"): each report names the findings that are
new and those resolved since the previous report of its mode (engine/report.prune_reports keeps
the last N report files of each mode).

The previous report is read back from the host, so it is input (DESIGN.md): read with
engine/report.read_json_file (no link followed, a regular file of the running user, at most
64 MiB, nested at most 32 levels), and only the fields used here (run_id, time, each check's id
and status) are taken, each of the form it must have. A previous report that is not one is named
in the history (``previous_unreadable``) and this report counts as the host's first."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import DRIFT, ERROR, NOT_PERSISTENT
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import (
    ANY, MAX_INT, ListOf, ReadBackError, TIME_RE, read_json_file)

# what a finding is: a check in one of these statuses (waived or not: a waiver does not change it)
FINDING_STATUSES = (DRIFT, NOT_PERSISTENT, ERROR)


def is_finding(check):
    return check.get('status') in FINDING_STATUSES


# what history reads of a previous report; the other fields are not looked at (host_facts.tools: known_tools)
PREVIOUS_SPEC = {'checks': ListOf({'id': str, 'status': str}), 'run_id': ANY, 'time': ANY, 'host_facts': ANY}
TOOL_KEYS = ('fio', 'coreutils')
VERSION_MAX = 64


def _identity(value):
    return isinstance(value, list) and len(value) == 5 and \
        all(isinstance(item, int) and not isinstance(item, bool) and 0 <= item <= MAX_INT for item in value)


def known_tools(report):
    """The tools (parse/iofacts.gather_tools) a previous report's host_facts name, each only when every field has
    its form (an absolute path, a version string of at most 64 characters, an identity of five integers):
    a version is reused only for the same file, and anything else is asked again."""
    facts = report.get('host_facts') if isinstance(report, dict) else None
    tools = facts.get('tools') if isinstance(facts, dict) else None
    known = {}
    for key in TOOL_KEYS if isinstance(tools, dict) else ():
        entry = tools.get(key)
        if isinstance(entry, dict) and isinstance(entry.get('path'), str) and entry['path'].startswith('/') and \
                isinstance(entry.get('version'), str) and 0 < len(entry['version']) <= VERSION_MAX and _identity(entry.get('identity')):
            known[key] = {'path': entry['path'], 'version': entry['version'], 'identity': entry['identity']}
    return known


def read_previous(path):
    """The parts of the report at ``path`` that history uses: {'run_id', 'time', 'statuses':
    {check id: status}, 'tools': known_tools}; None when there is no such report; {'unreadable': why} when it is not one
    (engine/report.ReadBackError: not a regular file of ours, too big or deep, not JSON, a check
    without a string id and status)."""
    try:
        report = read_json_file(path, spec=PREVIOUS_SPEC)
    except ReadBackError as exc:
        return {'unreadable': str(exc)}
    if report is None:
        return None
    if not isinstance(report, dict) or not isinstance(report.get('checks'), list) or \
            not all('id' in check and 'status' in check for check in report['checks']):
        return {'unreadable': '%s: not a report (no checks, or a check without its id and status)' % path}
    statuses = dict((check['id'], check['status']) for check in report['checks'])
    run_id = report.get('run_id') if isinstance(report.get('run_id'), str) else None
    when = report.get('time') if isinstance(report.get('time'), str) and TIME_RE.match(report['time']) else None
    return {'run_id': run_id, 'time': when, 'statuses': statuses, 'tools': known_tools(report)}


def _entry(check):
    entry = {'id': check['id'], 'concern': check.get('concern'), 'status': check['status'],
             'severity': check.get('severity')}
    if check.get('waiver'):
        entry['waived'] = True
    return entry


def changes_since(previous, checks):
    """What ``checks`` (this run's) changed since ``previous`` (read_previous's, or None for a
    host's first report): ``new``, the findings that were not findings before (every finding on
    a first report), and ``resolved``, the previous findings that are not findings now, with the
    status they have now (``absent`` when the check is no longer made); ``previous_unreadable``,
    why, when the previous report is not one (then this one counts as the first)."""
    unreadable = previous.get('unreadable') if previous else None
    if unreadable:
        previous = None
    before = previous['statuses'] if previous else {}
    now = dict((check['id'], check) for check in checks)
    new = [_entry(check) for check in checks
           if is_finding(check) and before.get(check['id']) not in FINDING_STATUSES]
    resolved = []
    for check_id in sorted(before):
        if before[check_id] in FINDING_STATUSES and not (check_id in now and is_finding(now[check_id])):
            resolved.append({'id': check_id, 'concern': check_id.split(':', 1)[0], 'status_before': before[check_id],
                             'status': now[check_id]['status'] if check_id in now else 'absent'})
    changes = {'previous_run_id': previous['run_id'] if previous else None,
               'previous_time': previous['time'] if previous else None,
               'new': new, 'resolved': resolved}
    if unreadable:
        changes['previous_unreadable'] = unreadable
    return changes
