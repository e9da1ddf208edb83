# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_fleet_report on the controller: the fleet files of one run, a slice's part, and the merge of
the parts (issue 41), each option checked and named."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re

import pytest

from ansible.errors import AnsibleActionFail
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar
from ansible.playbook.task import Task
from ansible.plugins.loader import connection_loader
from ansible.playbook.play_context import PlayContext

from ansible_collections.iotune.storage.plugins.action.io_fleet_report import ActionModule, may_measure
from ansible_collections.iotune.storage.tests.unit.plugins.plugin_utils.test_run_summary import RawHostVars

RUN_ID = 'chg-4711'


def report(host, status='drift'):
    return {'host': host, 'run_id': RUN_ID, 'time': '2026-11-25T05:00:00Z', 'mode': 'audit', 'summary': {status: 1},
            'checks': [{'id': 'mount_options:/:present:noatime', 'concern': 'mount_options', 'target': '/',
                        'setting': 'present:noatime', 'status': status, 'message': 'm'}]}


def run_action(args, task_vars=None, check_mode=False):
    task = Task()
    task.args = args
    task.check_mode = check_mode
    connection = connection_loader.get('local', PlayContext())
    templar = Templar(loader=DataLoader(), variables=task_vars or {})
    action = ActionModule(task, connection, PlayContext(), loader=None, templar=templar, shared_loader_obj=None)
    return action.run(task_vars=task_vars or {})


def test_without_part_the_fleet_files_are_written(tmp_path):
    result = run_action({'dir': str(tmp_path), 'reports': [report('b'), report('a')], 'keep': '5'})
    assert result['changed'] is False and 'part' not in result
    assert [os.path.basename(path) for path in result['files']] == [
        'a.json', 'b.json', 'history.json', 'junit.xml', 'report.html', 'summary.json']


def test_a_slice_writes_its_part_and_the_merge_the_fleet_files(tmp_path):
    first = run_action({'dir': str(tmp_path), 'reports': [report('a')], 'part': 4712, 'run_id': RUN_ID})
    assert (first['part'], first['run_id']) == ('4712', RUN_ID)
    assert first['part_file'] == str(tmp_path / 'parts' / RUN_ID / '4712.json') == first['files'][-1]
    assert not (tmp_path / 'summary.json').exists()
    run_action({'dir': str(tmp_path), 'reports': [report('b', 'compliant')], 'part': '4713'})
    merged = run_action({'dir': str(tmp_path), 'merge': RUN_ID, 'parts': '2'})
    times = [json.loads((tmp_path / 'parts' / RUN_ID / name).read_text())['time'] for name in ('4712.json', '4713.json')]
    assert (merged['parts'], merged['hosts'], merged['run_id'], merged['time']) == (['4712', '4713'], 2, RUN_ID, max(times))
    assert sorted(os.path.basename(path) for path in merged['files']) == [
        'history.json', 'junit.xml', 'report.html', 'summary.json']
    summary = json.loads((tmp_path / 'summary.json').read_text())
    assert (summary['run_id'], summary['hosts'], summary['time']) == (RUN_ID, 2, merged['time'])


@pytest.mark.parametrize('args, message', [
    ({'dir': 'reports', 'reports': []}, "dir: must be an absolute path on the controller, got 'reports'"),
    ({'reports': [{'nohost': 1}]}, 'reports: must be a list of host reports (each a dict with a host), or give results and hosts'),
    ({'keep': -1, 'reports': []}, 'keep: must be 0 (keep every run) or a number of runs to keep in history.json, got -1'),
    ({'part': 'a', 'merge': RUN_ID}, 'part, merge: one or the other (a slice writes its part; one task merges the parts)'),
    ({'merge': RUN_ID, 'reports': []}, 'reports: not with merge (the reports of a merge are those of its parts)'),
    ({'merge': RUN_ID, 'run_id': RUN_ID}, 'run_id: not with merge (the reports of a merge are those of its parts)'),
    ({'reports': [], 'parts': 3}, 'parts: only with merge (how many parts the merge must find)'),
    ({'reports': [], 'run_id': RUN_ID}, 'run_id: only with part (the run the part belongs to)'),
    ({'merge': RUN_ID, 'parts': 0}, 'parts: must be a number of parts, at least 1, got 0'),
    ({'merge': RUN_ID, 'parts': 'three'}, "parts: must be a number of parts, at least 1, got 'three'"),
    ({'merge': '../../etc'}, "merge: run_id must be 1-128 characters of letters, digits and . _ : + - (not starting with a "
                             "punctuation mark), got '../../etc'"),
    ({'reports': [], 'part': '../x', 'run_id': RUN_ID},
     "part: must be 1 to 64 letters, digits and . _ - starting with a letter or a digit, such as an AWX job id, got '../x'"),
])
def test_a_bad_option_is_named(tmp_path, args, message):
    with pytest.raises(AnsibleActionFail) as raised:
        run_action(dict({'dir': str(tmp_path)}, **args))
    assert str(raised.value) == message
    assert not os.path.exists(str(tmp_path / 'parts')) and not os.path.exists(str(tmp_path / 'summary.json'))


def test_a_merge_with_a_missing_part_names_how_many_were_found(tmp_path):
    run_action({'dir': str(tmp_path), 'reports': [report('a')], 'part': 'one'})
    with pytest.raises(AnsibleActionFail, match=r'^parts: 3 part\(s\) expected, 1 found in .*/parts/chg-4711 \(one\)'):
        run_action({'dir': str(tmp_path), 'merge': RUN_ID, 'parts': 3})


def test_the_reports_are_read_from_each_hosts_registered_result_and_the_console_computed_once(tmp_path):
    hostvars = RawHostVars({
        'b': {'audit': {'report': report('b')}},
        'a': {'audit': {'report': report('a', 'compliant')}},
        'down': {'audit': {'unreachable': True}},             # no report: left out, as a host that failed
        'other': {'something': 1},
    })
    result = run_action({'dir': str(tmp_path), 'results': 'audit', 'hosts': ['b', 'a', 'down', 'other']}, {'hostvars': hostvars})
    assert hostvars.read == ['b', 'a', 'down', 'other']
    assert sorted(os.path.basename(path) for path in result['files'])[:2] == ['a.json', 'b.json']
    assert json.loads((tmp_path / 'summary.json').read_text())['hosts'] == 2
    assert result['console'] == {'hosts': 2, 'lines': ['b: drift: m'], 'summary': {
        'compliant': 1, 'drift': 1, 'error': 0, 'not_applicable': 0, 'not_persistent': 0, 'waived': 0}}


def test_the_gated_hosts_are_those_whose_result_says_fail_on_drift(tmp_path):
    hostvars = RawHostVars({
        'db1': {'audit': {'report': report('db1'), 'fail_on_drift': True}},
        'web1': {'audit': {'report': report('web1'), 'fail_on_drift': False}},
        'web2': {'audit': {'report': report('web2')}},                           # the task did not say: not gated
        'odd': {'audit': {'report': report('odd'), 'fail_on_drift': 'yes'}},     # only io_policy's own bool counts
    })
    result = run_action({'dir': str(tmp_path), 'results': 'audit', 'hosts': ['web1', 'db1', 'web2', 'odd']}, {'hostvars': hostvars})
    assert result['gated_hosts'] == ['db1']
    none = run_action({'dir': str(tmp_path / 'n'), 'results': 'audit', 'hosts': ['web1', 'web2']}, {'hostvars': hostvars})
    assert none['gated_hosts'] == []
    assert 'gated_hosts' not in run_action({'dir': str(tmp_path / 'r'), 'reports': [report('a')]})


def test_check_mode_writes_nothing_and_says_the_console_and_the_summary(tmp_path):
    result = run_action({'dir': str(tmp_path / 'none'), 'reports': [report('a')], 'summary': {'mode': 'audit'}}, check_mode=True)
    assert result['files'] == [] and not (tmp_path / 'none').exists()
    assert result['console']['lines'] == ['a: drift: m']
    assert (result['iotune_summary']['check_mode'], result['iotune_summary']['reports']) == (True, None)


def test_the_summary_for_set_stats_is_computed_with_the_reports(tmp_path):
    gate = {'statuses': ['drift'], 'severities': ['low', 'medium', 'high']}
    failing = report('a')
    failing['checks'][0]['severity'] = 'medium'
    result = run_action({'dir': str(tmp_path), 'reports': [failing, report('b', 'compliant')],
                         'summary': {'mode': 'audit', 'run_id': RUN_ID, 'failed_hosts': ['c'], 'fail_on': gate}})
    summary = result['iotune_summary']
    assert (summary['mode'], summary['run_id'], summary['hosts'], summary['check_mode']) == ('audit', RUN_ID, 2, False)
    assert summary['reports']['summary_json'] == str(tmp_path / 'summary.json')
    assert summary['statuses']['drift'] == 1
    assert summary['failed_hosts'] == ['a', 'c']      # the play's failed host, and the one the audit's gate fails next


@pytest.mark.parametrize('summary', [{'run_id': RUN_ID}, 'audit', {'mode': 'audit', 'colour': 'red'}])
def test_a_bad_summary_is_named(tmp_path, summary):
    with pytest.raises(AnsibleActionFail, match='^summary: must be a dict with mode'):
        run_action({'dir': str(tmp_path), 'reports': [report('a')], 'summary': summary})


def test_the_console_names_at_most_fifty_checks_and_where_the_rest_are(tmp_path):
    many = [report('h%03d' % number) for number in range(60)]
    lines = run_action({'dir': str(tmp_path), 'reports': many}, check_mode=True)['console']['lines']
    assert len(lines) == 51 and lines[-1] == '... and 10 more: see %s/report.html' % tmp_path


@pytest.mark.parametrize('args, message', [
    ({'results': 'audit', 'hosts': ['a'], 'reports': []}, '^results: not with reports'),
    ({'results': '', 'hosts': ['a']}, '^results: must be the name'),
    ({'results': 'audit', 'hosts': 'a'}, '^hosts: must be a list of host names'),
    ({'hosts': ['a']}, '^results: must be the name'),
])
def test_results_and_hosts_are_checked(tmp_path, args, message):
    with pytest.raises(AnsibleActionFail, match=message):
        run_action(dict(args, dir=str(tmp_path)), {'hostvars': RawHostVars({'a': {}})})


class RenderingHostVars(RawHostVars):
    """HostVars whose raw value of a set_fact is its template (ansible-core 2.19 and later) and whose templated read renders it."""

    def __init__(self, data, rendered):
        RawHostVars.__init__(self, data)
        self.rendered = rendered

    def __getitem__(self, host):
        return self.rendered[host]


def test_a_result_a_template_made_is_read_rendered_and_the_others_raw(tmp_path):
    hostvars = RenderingHostVars({'a': {'audit': {'report': "{{ harden_io_result.report | combine({'benchmark': b}) }}"}},
                                  'b': {'audit': {'report': report('b')}}},
                                 {'a': {'audit': {'report': report('a')}}})
    result = run_action({'dir': str(tmp_path), 'results': 'audit', 'hosts': ['a', 'b']}, {'hostvars': hostvars})
    assert json.loads((tmp_path / 'summary.json').read_text())['hosts'] == 2
    assert result['console']['lines'] == ['a: drift: m', 'b: drift: m']


def test_the_summary_is_also_published_as_the_custom_stat_set_stats_would_set(tmp_path):
    result = run_action({'dir': str(tmp_path), 'reports': [report('a')], 'summary': {'mode': 'harden', 'run_id': RUN_ID}})
    assert result['ansible_stats'] == {'data': {'iotune_summary': result['iotune_summary']}, 'per_host': False, 'aggregate': False}
    assert 'ansible_stats' not in run_action({'dir': str(tmp_path), 'reports': [report('a')]})


def test_a_start_checks_the_directory_and_chooses_a_run_id_writing_nothing(tmp_path):
    directory = tmp_path / 'reports'
    first = run_action({'dir': str(directory), 'start': True})
    second = run_action({'dir': str(directory), 'start': 'yes', 'run_id': None})
    assert re.match(r'^\d{8}T\d{6}\.\d{6}Z-[0-9a-f]{8}$', first['run_id']) and first['run_id'] != second['run_id']
    assert first['changed'] is False and not directory.exists()
    assert run_action({'dir': str(directory), 'start': True, 'run_id': 'chg-4711'})['run_id'] == 'chg-4711'
    assert run_action({'dir': str(directory), 'start': True, 'run_id': 4711})['run_id'] == '4711'     # AWX's job ids


def test_a_start_stops_on_a_directory_others_can_write_naming_iotune_report_dir(tmp_path):
    directory = tmp_path / 'reports'
    directory.mkdir()
    directory.chmod(0o777)
    with pytest.raises(AnsibleActionFail, match=r'^iotune_report_dir: .*; the run stopped before any host work$'):
        run_action({'dir': str(directory), 'start': True})
    run_action({'dir': str(directory), 'start': True}, check_mode=True)     # check mode writes nothing: the form only


@pytest.mark.parametrize('fail_on', [
    {'statuses': ['drift', 'lost']}, {'severity': 'critical'}, {'statuses': 'drift'}, {'level': 'high'}, ['drift'],
])
def test_a_start_stops_on_a_gate_the_audit_cannot_apply_naming_iotune_audit_fail_on(tmp_path, fail_on):
    with pytest.raises(AnsibleActionFail, match=r'^iotune_audit_fail_on: must be a dict with statuses \(a list of compliant, '
                                                r'drift, not_persistent, not_applicable, error; .* got .*; the run stopped'):
        run_action({'dir': str(tmp_path), 'start': True, 'fail_on': fail_on})


@pytest.mark.parametrize('fail_on', [{}, {'statuses': ['error']}, {'severity': 'high'}, {'statuses': [], 'severity': 'low'}])
def test_a_start_accepts_every_gate_the_audit_can_apply(tmp_path, fail_on):
    assert run_action({'dir': str(tmp_path), 'start': True, 'fail_on': fail_on})['run_id']


@pytest.mark.parametrize('args, message', [
    ({'start': 'maybe'}, '^start: must be true or false'),
    ({'start': True, 'keep': 5}, '^keep: not with start'),
    ({'start': True, 'reports': []}, '^reports: not with start'),
    ({'start': True, 'run_id': ['a']}, '^run_id: must be a string or an integer'),
    ({'fail_on': {}, 'reports': []}, '^fail_on: only with start'),
    ({'start': True, 'dir': 'relative'}, '^iotune_report_dir: must be an absolute path'),
])
def test_a_bad_start_is_named(tmp_path, args, message):
    with pytest.raises(AnsibleActionFail, match=message):
        run_action(dict({'dir': str(tmp_path)}, **args))


@pytest.mark.parametrize('benchmark, measures', [
    (None, False), ('', False), ({}, False), ({'enabled': False}, False), ({'enabled': 'no'}, False),
    ({'enabled': None}, False), ({'directory': '/data'}, False),
    ({'enabled': True}, True), ({'enabled': 'yes'}, True), ({'enabled': '{{ measure }}'}, True),
    ('{{ bench }}', True), (['enabled'], True), ({'enabled': ['x']}, True),
])
def test_a_value_of_iotune_benchmark_leaves_measuring_off_only_when_it_surely_does(benchmark, measures):
    assert may_measure(benchmark) is measures


def test_the_start_says_whether_any_host_may_measure_from_the_inventory_and_the_plays_value(tmp_path):
    def start(inventory, own=None, hosts=None):
        task_vars = {'hostvars': RawHostVars(inventory)}
        hosts = ['a', 'b'] if hosts is None else hosts
        if own is not None:
            task_vars['iotune_benchmark'] = own
        return run_action({'dir': str(tmp_path), 'start': True, 'benchmark_hosts': hosts}, task_vars=task_vars)

    off = {'a': {'iotune_benchmark': {'enabled': False}}, 'b': {}}
    assert start(off)['measuring'] is False
    # a host of the inventory that measures, the play's value (the first host's, as the task sees it), a host the
    # inventory does not know: each may measure, so the measured phases run on every host, each by its own setting
    assert start(dict(off, b={'iotune_benchmark': {'enabled': True}}))['measuring'] is True
    assert start(off, own={'enabled': True})['measuring'] is True
    assert start(off, own={'enabled': False})['measuring'] is False
    assert start(off, hosts=['a', 'c'])['measuring'] is True
    assert 'measuring' not in run_action({'dir': str(tmp_path), 'start': True})
    with pytest.raises(AnsibleActionFail, match='^benchmark_hosts: must be a list of host names'):
        start(off, hosts='a')
    with pytest.raises(AnsibleActionFail, match='^benchmark_hosts: only with start'):
        run_action({'dir': str(tmp_path), 'reports': [report('a')], 'benchmark_hosts': ['a']})


@pytest.mark.parametrize('run_id', ['a/../b', 'bad\nid', '-starts-with-a-dash', 'x' * 129, u'caf\u00e9'])
def test_a_start_refuses_a_run_id_the_journals_would_refuse_before_any_host_work(tmp_path, run_id):
    with pytest.raises(AnsibleActionFail, match=r'^iotune_run_id: run_id must be 1-128 characters.*; the run stopped before any host work$'):
        run_action({'dir': str(tmp_path), 'start': True, 'run_id': run_id})
