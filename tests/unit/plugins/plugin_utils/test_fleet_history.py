# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet's history: new and resolved since each host's previous report, history.json, and
report.html's first section."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import multiprocessing

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.engine.history import changes_since
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_history import read_runs, run_line
from ansible_collections.iotune.storage.plugins.plugin_utils import _fleet_report as fleet_report
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import write_reports


def check(check_id, status, severity='medium', **extra):
    return dict({'id': check_id, 'concern': check_id.split(':')[0], 'status': status, 'severity': severity,
                 'message': check_id}, **extra)


def host_report(host, run_id, checks, previous=None):
    """A host report as io_policy makes it, its history from the previous one's checks."""
    before = {'run_id': previous[0], 'time': '2026-11-20T06:00:00Z',
              'statuses': dict((c['id'], c['status']) for c in previous[1])} if previous else None
    return {'host': host, 'run_id': run_id, 'time': '2026-11-27T06:00:00Z', 'mode': 'audit', 'checks': checks,
            'summary': {}, 'history': changes_since(before, checks)}


WAIVER = {'name': 'w', 'reason': 'until the new array', 'owner': 'dba', 'expires': '2026-12-31', 'days_left': 34}
WEEK1 = {'web1': [check('mount_options:/data:present:noatime', 'drift', 'low'), check('block_queue:vdb:nr_requests', 'compliant')],
         'web2': [check('cache_limits:vm:dirty_ratio', 'not_persistent')]}
WEEK2 = {'web1': [check('mount_options:/data:present:noatime', 'compliant', 'low'),
                  check('block_queue:vdb:nr_requests', 'drift', 'high')],
         'web2': [check('cache_limits:vm:dirty_ratio', 'not_persistent', waiver=WAIVER)]}


def run(directory, run_id, week, previous=None, now='2026-11-27T06:00:00Z', keep=30):
    reports = [host_report(host, run_id, checks, (previous[0], previous[1][host]) if previous else None)
               for host, checks in sorted(week.items())]
    write_reports(str(directory), reports, now=now, keep=keep)
    return (directory / 'summary.json', directory / 'report.html', directory / 'history.json')


def test_two_runs_say_what_is_new_and_resolved_and_chart_the_findings(tmp_path):
    summary, html, history = run(tmp_path, 'w1', WEEK1, now='2026-11-20T06:00:00Z')
    first = json.loads(summary.read_text())['since_previous']
    assert (first['new'], first['resolved'], first['first_reports']) == (2, 0, ['web1', 'web2'])
    assert '<svg class="runs"' not in html.read_text(), 'one run: no chart yet'

    summary, html, history = run(tmp_path, 'w2', WEEK2, previous=('w1', WEEK1))
    since = json.loads(summary.read_text())['since_previous']
    assert since == {'new': 1, 'resolved': 1, 'first_reports': [], 'hosts': {
        'web1': {'new': ['block_queue:vdb:nr_requests'], 'resolved': ['mount_options:/data:present:noatime']}}}
    runs = json.loads(history.read_text())['runs']
    assert [(r['run_id'], r['findings'], r['waived'], r['new'], r['resolved'], r['hosts']) for r in runs] == [
        ('w1', 2, 0, 2, 0, 2), ('w2', 2, 1, 1, 1, 2)]
    assert json.loads(summary.read_text())['runs'] == runs
    page = html.read_text()
    # the section comes first, before the fleet's filters
    assert page.index('<section id="since">') < page.index('<div id="filters">')
    assert '<b>1 new</b> finding(s), <b>1 resolved</b>' in page
    assert '<code>block_queue:vdb:nr_requests</code>' in page.split('id="since-new"')[1].split('</table>')[0]
    assert '<code>mount_options:/data:present:noatime</code>' in page.split('id="since-resolved"')[1].split('</table>')[0]
    chart = page.split('<svg class="runs"')[1].split('</svg>')[0]
    assert chart.count('<circle') == 2 and 'audit w2 (2026-11-27T06:00:00Z): 2 finding(s), 1 waived, 1 new, 1 resolved' in chart


def test_history_keeps_the_last_runs_and_a_repeated_run_replaces_its_line(tmp_path):
    for index in range(5):
        run(tmp_path, 'r%d' % index, WEEK1, now='2026-11-2%dT06:00:00Z' % index, keep=3)
    run(tmp_path, 'r4', WEEK2, now='2026-11-25T07:00:00Z', keep=3)
    runs = json.loads((tmp_path / 'history.json').read_text())['runs']
    assert [(r['run_id'], r['time']) for r in runs] == [('r2', '2026-11-22T06:00:00Z'), ('r3', '2026-11-23T06:00:00Z'),
                                                        ('r4', '2026-11-25T07:00:00Z')]


@pytest.mark.parametrize('content', [
    b'garbage', b'[]', b'{"runs": {}}',
    b'{"runs": [{"run_id": "x", "time": "yesterday", "mode": "audit", "hosts": 1, "findings": 1, "waived": 0, "new": 0, "resolved": 0}]}',
    b'{"runs": [{"run_id": "x", "time": "2026-11-20T06:00:00Z", "mode": "audit", "hosts": -1, "findings": 1, "waived": 0,'
    b' "new": 0, "resolved": 0}]}',
    b'{"runs": [{"run_id": "x", "time": "2026-11-20T06:00:00Z", "mode": "audit", "hosts": true, "findings": 1, "waived": 0,'
    b' "new": 0, "resolved": 0}]}',
    # issue 38, item 13: nested too deep for Python's decoder, a count beyond any (OverflowError in the chart), NaN
    b'{"runs": ' + b'[' * 100000 + b']' * 100000 + b'}',
    b'{"runs": [' + b'{"a": ' * 5000 + b'1' + b'}' * 5000 + b']}',
    b'{"runs": [{"run_id": "x", "time": "2026-11-20T06:00:00Z", "mode": "audit", "hosts": 1, "findings": '
    + b'1' + b'0' * 400 + b', "waived": 0, "new": 0, "resolved": 0}]}',
    b'{"runs": [{"run_id": "x", "time": "2026-11-20T06:00:00Z", "mode": "audit", "hosts": 1, "findings": NaN,'
    b' "waived": 0, "new": 0, "resolved": 0}]}',
])
def test_a_history_file_not_of_its_form_is_not_taken(tmp_path, content):
    (tmp_path / 'history.json').write_bytes(content)
    assert read_runs(str(tmp_path / 'history.json')) == []
    run(tmp_path, 'w1', WEEK1)
    assert [r['run_id'] for r in json.loads((tmp_path / 'history.json').read_text())['runs']] == ['w1']


def test_a_valid_run_keeps_only_its_fields_and_a_link_is_not_followed(tmp_path):
    line = dict(run_line([host_report('web1', 'w1', WEEK1['web1'])], 'w1', '2026-11-20T06:00:00Z', 'audit'), extra='<x>')
    (tmp_path / 'elsewhere.json').write_text(json.dumps({'runs': [line]}))
    assert read_runs(str(tmp_path / 'elsewhere.json')) == [dict((k, v) for k, v in line.items() if k != 'extra')]
    os.symlink(str(tmp_path / 'elsewhere.json'), str(tmp_path / 'history.json'))
    assert read_runs(str(tmp_path / 'history.json')) == []


def test_hostile_host_names_and_check_ids_are_escaped_in_the_section(tmp_path):
    evil = '<script>alert(1)</script>'
    reports = [host_report(evil, 'w1', [check('mount_options:%s:present:noatime' % evil, 'drift')])]
    write_reports(str(tmp_path), reports, now='2026-11-27T06:00:00Z')
    section = (tmp_path / 'report.html').read_text().split('<section id="since">')[1].split('</section>')[0]
    assert '<script>' not in section and '&lt;script&gt;' in section


def test_the_section_lists_at_most_200_rows_of_each_kind(tmp_path):
    checks = [check('block_queue:vd%d:read_ahead_kb' % index, 'drift') for index in range(250)]
    write_reports(str(tmp_path), [host_report('web1', 'w1', checks)], now='2026-11-27T06:00:00Z')
    table = (tmp_path / 'report.html').read_text().split('id="since-new"')[1].split('</table>')[0]
    assert table.count('<tr>') == 1 + 200 + 1 and '... and 50 more: see summary.json' in table


def _one_run(directory, number, barrier):
    checks = [{'id': 'mount_options:/d%d:present:noatime' % n, 'concern': 'mount_options', 'target': '/d%d' % n,
               'setting': 'present:noatime', 'status': 'drift' if n % 3 else 'compliant', 'message': 'm'}
              for n in range(40)]
    reports = [{'host': 'h%d' % host, 'run_id': 'run-%d' % number, 'time': '2026-11-28T06:00:00Z', 'mode': 'audit',
                'checks': checks} for host in range(50)]
    barrier.wait()
    fleet_report.write_reports(directory, reports, now='2026-11-28T06:00:%02dZ' % number, keep=0)


def test_eight_fleet_reports_at_once_into_one_directory_keep_every_history_line(tmp_path):
    """Issue 38, item 15: real processes, started together; each one's line is in history.json."""
    context = multiprocessing.get_context('spawn')     # not fork: pytest's process may hold threads
    directory = str(tmp_path / 'reports')
    barrier = context.Barrier(8)
    processes = [context.Process(target=_one_run, args=(directory, number, barrier)) for number in range(8)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0] * 8
    runs = json.loads((tmp_path / 'reports' / 'history.json').read_text())['runs']
    assert sorted(run['run_id'] for run in runs) == ['run-%d' % number for number in range(8)]
    assert os.stat(os.path.join(directory, fleet_report.LOCK_FILE)).st_mode & 0o777 == 0o600


def test_the_lock_is_never_taken_through_a_link(tmp_path):
    directory = tmp_path / 'reports'
    directory.mkdir(mode=0o755)
    (directory / fleet_report.LOCK_FILE).symlink_to(tmp_path / 'elsewhere')
    with pytest.raises(ValueError, match='iotune_report_dir: cannot open the lock .*a link'):
        fleet_report.write_reports(str(directory), [], now='2026-11-28T06:00:00Z')
    assert not (tmp_path / 'elsewhere').exists()


# issue 38, item 13: each field of a real history line turned into each other JSON type, huge integers,
# floats and strings where numbers belong: the line is dropped, the run kept, the fleet report written
HOSTILE = [None, True, False, -1, 10 ** 400, 2 ** 53 + 1, 1e308, 2.0, 'x', '7', [], [1], {}, {'a': 1}]


def test_every_mutation_of_a_history_line_is_dropped_or_kept_and_the_report_is_written(tmp_path):
    run(tmp_path, 'w1', WEEK1, now='2026-11-20T06:00:00Z')
    run(tmp_path, 'w2', WEEK2, now='2026-11-21T06:00:00Z')
    good = json.loads((tmp_path / 'history.json').read_text())['runs']
    kept = dropped = 0
    for field in sorted(good[0]):
        for value in HOSTILE:
            if type(value) is type(good[0][field]) and value == good[0][field]:
                continue
            (tmp_path / 'history.json').write_text(json.dumps({'runs': [dict(good[0], **{field: value}), good[1]]}))
            run(tmp_path, 'w3', WEEK2, now='2026-11-22T06:00:00Z')
            runs = json.loads((tmp_path / 'history.json').read_text())['runs']
            assert [r['run_id'] for r in runs][-2:] == ['w2', 'w3'], (field, value)
            kept, dropped = kept + (len(runs) == 3), dropped + (len(runs) == 2)
            assert 'id="since"' in (tmp_path / 'report.html').read_text()
    # the run id and mode take any string (x and 7); a count, only an integer from 0 to 2**53
    assert kept == 4 and dropped > 80, (kept, dropped)
