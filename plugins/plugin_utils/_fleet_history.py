# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet's history (docs/reports.md, "History"): what is new and resolved since each host's
previous report, and history.json in the controller's report directory, one line per run (its
findings, waived findings, new and resolved), the last N runs, which report.html draws.

history.json is read back, so it is input (DESIGN.md): read without following a link, from a
regular file of the controller's user, at most 16 MiB, nested at most 32 levels
(engine/report.read_json_file); a run whose fields are not of their form (a count that is not an
integer from 0 to 2**53) is dropped, and a file that is not JSON starts the history again."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

from ansible_collections.iotune.storage.plugins.module_utils.engine.history import is_finding
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import ReadBackError, TIME_RE, read_json_file

HISTORY_FILE = 'history.json'
_MAX_BYTES = 16 << 20
COUNTS = ('hosts', 'findings', 'waived', 'new', 'resolved')
# a count above this is not one (10**400 stopped the chart: OverflowError); floats are exact below it
MAX_COUNT = 1 << 53


def fleet_changes(reports):
    """The new and resolved findings of every host since its previous report, each with its host,
    and the hosts whose report had no previous one (their findings are all new)."""
    new, resolved, first = [], [], []
    for report in reports:
        history = report.get('history') or {}
        if 'history' in report and not history.get('previous_run_id'):
            first.append(report['host'])
        new += [dict(entry, host=report['host']) for entry in history.get('new') or []]
        resolved += [dict(entry, host=report['host']) for entry in history.get('resolved') or []]
    return {'new': new, 'resolved': resolved, 'first_reports': first}


def run_line(reports, run_id, now, mode):
    """This run's line of history.json."""
    checks = [check for report in reports for check in report.get('checks', [])]
    changes = fleet_changes(reports)
    return {'run_id': run_id, 'time': now, 'mode': mode, 'hosts': len(reports),
            'findings': sum(1 for check in checks if is_finding(check)),
            'waived': sum(1 for check in checks if is_finding(check) and check.get('waiver')),
            'new': len(changes['new']), 'resolved': len(changes['resolved'])}


def _valid_run(run):
    return (isinstance(run, dict) and isinstance(run.get('run_id'), str) and isinstance(run.get('mode'), str)
            and isinstance(run.get('time'), str) and bool(TIME_RE.match(run['time']))
            and all(isinstance(run.get(key), int) and not isinstance(run.get(key), bool) and 0 <= run[key] <= MAX_COUNT for key in COUNTS))


def read_runs(path):
    """The runs of history.json at ``path`` that are of their form (see the module's docstring)."""
    try:
        found = read_json_file(path, _MAX_BYTES)
    except ReadBackError:
        found = None
    runs = found.get('runs') if isinstance(found, dict) else None
    return [dict((key, run[key]) for key in ('run_id', 'time', 'mode') + COUNTS)
            for run in runs if _valid_run(run)] if isinstance(runs, list) else []


def next_runs(previous, line, keep):
    """The runs after this one: ``previous`` and ``line``, which replaces a line of the same run
    id and mode (a run repeated under its id), the last ``keep`` of them (0: all)."""
    runs = [run for run in previous if (run['run_id'], run['mode']) != (line['run_id'], line['mode'])] + [line]
    return runs[-keep:] if keep else runs


def history_json(runs):
    return json.dumps({'kind': 'iotune.storage history', 'runs': runs}, indent=4, sort_keys=True,
                      separators=(',', ': '), ensure_ascii=False) + '\n'
