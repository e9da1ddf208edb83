# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The two ends of a run on the controller (issue 41): iotune_report_dir checked before any host
work, and the summary the playbooks publish with set_stats as iotune_summary."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils import _fleet_report
from ansible_collections.iotune.storage.plugins.plugin_utils._run_summary import (
    fleet_summary, host_reports, registered, report_dir_problem, rollback_lines, rollback_summary)

EUID = os.geteuid()


@pytest.fixture
def base(tmp_path):
    """A private directory of the running user to make report directories in."""
    tmp_path.chmod(0o700)
    return tmp_path


def make(base, layout):
    """``layout``: (relative path, 'dir' | 'file' | 'link:<target>', mode) in order."""
    for name, kind, mode in layout:
        path = base / name
        if kind == 'dir':
            path.mkdir()
        elif kind == 'file':
            path.write_text(u'x')
        else:
            path.symlink_to(base / kind[5:])
            continue
        path.chmod(mode)


@pytest.mark.parametrize('path', ['reports', './reports', '', None, 42, ['/tmp/r']])
@pytest.mark.parametrize('check_mode', [False, True])
def test_a_path_that_is_not_absolute_is_refused_in_check_mode_too(path, check_mode):
    assert report_dir_problem(path, check_mode=check_mode) == (
        'iotune_report_dir: must be an absolute path on the controller, got %r' % (path,))


# (layout under base, the report directory under base, the problem's words after 'iotune_report_dir: ')
REFUSED = [
    ([('r', 'file', 0o644)], 'r', '{base}/r is not a directory'),
    ([('d', 'dir', 0o755), ('r', 'link:d', 0)], 'r', '{base}/r is a symbolic link; give the directory itself'),
    ([('r', 'dir', 0o775)], 'r', '{base}/r has mode 0775, writable by group; refused'),
    ([('r', 'dir', 0o757)], 'r', '{base}/r has mode 0757, writable by other; refused'),
    ([('r', 'dir', 0o755), ('r/hosts', 'dir', 0o777)], 'r', '{base}/r/hosts has mode 0777, writable by group and other'),
    ([('r', 'dir', 0o755), ('r/hosts', 'file', 0o644)], 'r', '{base}/r/hosts is not a directory'),
    ([('f', 'file', 0o644)], 'f/r', 'cannot create {base}/f/r: {base}/f is not a directory'),
    ([('f', 'file', 0o644)], 'f/a/b/r', 'cannot create {base}/f/a/b/r: {base}/f is not a directory'),
    ([('g', 'dir', 0o775)], 'g/r', '{base}/g, above {base}/g/r, has mode 0775 (writable by others, not sticky)'),
    ([('g', 'dir', 0o775)], 'g/a/r', '{base}/g, above {base}/g/a/r, has mode 0775 (writable by others, not sticky)'),
    ([('g', 'dir', 0o775), ('g/r', 'dir', 0o755)], 'g/r', '{base}/g, above {base}/g/r, has mode 0775'),
]


@pytest.mark.parametrize('layout, name, words', REFUSED)
def test_a_directory_the_writer_would_refuse_is_named_with_why(base, layout, name, words):
    make(base, layout)
    before = sorted(os.walk(str(base)))
    problem = report_dir_problem(str(base / name))
    assert problem.startswith('iotune_report_dir: ' + words.format(base=base)), problem
    assert sorted(os.walk(str(base))) == before, 'the check created something'


@pytest.mark.parametrize('layout, name', [(layout, name) for layout, name, dummy in REFUSED])
def test_check_mode_checks_the_form_alone(base, layout, name):
    make(base, layout)
    assert report_dir_problem(str(base / name), check_mode=True) is None


@pytest.mark.parametrize('layout, name', [
    ([], 'r'),
    ([], 'a/b/r'),
    ([('r', 'dir', 0o755)], 'r'),
    ([('r', 'dir', 0o700)], 'r/'),
    ([('r', 'dir', 0o755), ('r/hosts', 'dir', 0o755)], 'r'),
    ([('s', 'dir', 0o1777)], 's/r'),
])
def test_a_directory_the_writer_takes_passes_and_nothing_is_created(base, layout, name):
    make(base, layout)
    before = sorted(os.walk(str(base)))
    assert report_dir_problem(str(base / name)) is None
    assert sorted(os.walk(str(base))) == before


@pytest.mark.parametrize('layout, name', [([], 'r'), ([], 'a/b/r'), ([('r', 'dir', 0o755)], 'r'), ([('s', 'dir', 0o1777)], 's/r')])
def test_what_passes_the_check_the_writer_writes_in(base, layout, name):
    make(base, layout)
    directory = str(base / name)
    assert report_dir_problem(directory) is None
    written = _fleet_report.write_reports(directory, [{'host': 'web1', 'run_id': 'r1', 'mode': 'audit', 'checks': []}])
    assert sorted(os.path.basename(path) for path in written) == ['history.json', 'junit.xml', 'report.html', 'summary.json', 'web1.json']


@pytest.mark.parametrize('layout, name', [(layout, name) for layout, name, dummy in REFUSED if 'link' not in layout[-1][1]])
def test_what_the_check_refuses_the_writer_refuses_too(base, layout, name):
    make(base, layout)
    with pytest.raises((ValueError, OSError)):
        _fleet_report.write_reports(str(base / name), [{'host': 'web1', 'run_id': 'r1', 'mode': 'audit', 'checks': []}])


def test_a_directory_of_another_user_is_refused(base):
    make(base, [('r', 'dir', 0o755)])
    problem = report_dir_problem(str(base / 'r'), euid=EUID + 4711)
    assert problem.startswith('iotune_report_dir: %s/r belongs to ' % base) and 'uid %d' % (EUID + 4711) in problem, problem


def test_a_missing_directory_under_one_of_another_user_is_refused(base):
    make(base, [('o', 'dir', 0o755)])
    # as root, a directory given to uid 4711; as another user, one of that user seen by a third
    if EUID == 0:
        os.chown(str(base / 'o'), 4711, 4711)
    euid = 0 if EUID == 0 else EUID + 4711
    problem = report_dir_problem(str(base / 'o' / 'a' / 'r'), euid=euid)
    assert problem.startswith('iotune_report_dir: %s/o, above %s/o/a/r, belongs to ' % (base, base)), problem


@pytest.mark.parametrize('layout, name, where, doing', [
    ([('r', 'dir', 0o755)], 'r', 'r', 'cannot write the reports in {base}/r'),
    ([('r', 'dir', 0o755), ('r/hosts', 'dir', 0o755)], 'r', 'r/hosts', 'cannot write the reports in {base}/r/hosts'),
    ([('p', 'dir', 0o755)], 'p/a/r', 'p', 'cannot create {base}/p/a/r in {base}/p'),
])
def test_a_directory_the_user_cannot_write_in_is_refused(base, monkeypatch, layout, name, where, doing):
    # as root every permission is granted: os.access stands for a user without the w bit, or a read-only file system
    make(base, layout)
    denied = str(base / where)
    real_access = os.access
    monkeypatch.setattr(os, 'access', lambda path, mode: path != denied and real_access(path, mode))
    problem = report_dir_problem(str(base / name))
    assert problem.startswith('iotune_report_dir: ' + doing.format(base=base) + ': it is not writable by '), problem
    assert problem.endswith('(its permissions, or a read-only file system)'), problem


def check(host_check_id, status, severity='low', **extra):
    return dict({'id': host_check_id, 'status': status, 'severity': severity, 'message': 'm'}, **extra)


REPORTS = [
    {'host': 'web1', 'run_id': 'r1', 'mode': 'audit',
     'checks': [check('a', 'drift'), check('b', 'compliant'), check('c', 'drift', 'medium', waiver={'name': 'w'})]},
    {'host': 'web2', 'run_id': 'r1', 'mode': 'audit', 'checks': [check('a', 'compliant'), check('d', 'not_persistent', 'high')]},
    {'host': 'web3', 'run_id': 'r1', 'mode': 'audit', 'checks': [check('a', 'not_applicable')]},
]


def test_the_fleet_summary_counts_names_the_files_and_the_failed_hosts():
    summary = fleet_summary(REPORTS, 'audit', failed_hosts=['db9'], report_dir='/srv/reports')
    assert summary == {
        'mode': 'audit', 'run_id': 'r1', 'check_mode': False, 'hosts': 3,
        'statuses': {'compliant': 2, 'drift': 2, 'not_persistent': 1, 'not_applicable': 1, 'error': 0},
        'changed': 0, 'waived': 1, 'failed_hosts': ['db9'],
        'reports': {'dir': '/srv/reports', 'summary_json': '/srv/reports/summary.json', 'junit_xml': '/srv/reports/junit.xml',
                    'report_html': '/srv/reports/report.html'}}


@pytest.mark.parametrize('fail_on, failed', [
    (None, ['db9']),
    ({'statuses': ['drift', 'not_persistent', 'error'], 'severities': ['low', 'medium', 'high']}, ['db9', 'web1', 'web2']),
    # web1's medium drift is waived, its low one below the gate
    ({'statuses': ['drift', 'not_persistent', 'error'], 'severities': ['medium', 'high']}, ['db9', 'web2']),
    ({'statuses': ['not_applicable'], 'severities': ['low']}, ['db9', 'web3']),
])
def test_the_audit_gate_adds_the_hosts_it_fails(fail_on, failed):
    assert fleet_summary(REPORTS, 'audit', failed_hosts=['db9'], report_dir='/r', fail_on=fail_on)['failed_hosts'] == failed


def test_a_harden_summary_counts_the_changes_and_check_mode_names_no_file():
    reports = [{'host': 'web1', 'run_id': 'h1', 'mode': 'harden',
                'checks': [check('a', 'compliant', changed=True), check('b', 'compliant', changed=False)]}]
    summary = fleet_summary(reports, 'harden', run_id='h1', report_dir='/r', check_mode=True)
    assert (summary['mode'], summary['run_id'], summary['changed'], summary['reports'], summary['check_mode']) == ('harden', 'h1', 1, None, True)


def test_a_slice_names_its_part_not_the_fleet_files():
    written = {'changed': False, 'files': ['/r/hosts/web1.json', '/r/parts/r1/7.json'], 'part': '7', 'part_file': '/r/parts/r1/7.json'}
    assert fleet_summary(REPORTS, 'audit', report_dir='/r', written=written)['reports'] == {'dir': '/r', 'part': '/r/parts/r1/7.json'}
    # in check mode io_fleet_report is skipped and nothing is written
    assert fleet_summary(REPORTS, 'audit', report_dir='/r', check_mode=True, written={'skipped': True})['reports'] is None


class RawHostVars(object):
    """What HostVars offers the filters: membership and raw_get, never a template."""

    def __init__(self, data):
        self.data = data
        self.read = []

    def __contains__(self, host):
        return host in self.data

    def raw_get(self, host):
        self.read.append(host)
        return self.data[host]

    def __getitem__(self, host):
        raise AssertionError('a host read through a template: %s' % host)


def test_the_registered_results_are_read_raw_for_the_hosts_asked_only():
    hostvars = RawHostVars({'web1': {'res': {'report': REPORTS[0]}}, 'web2': {'res': {'report': REPORTS[1]}},
                            'web3': {'other': 1}, 'db9': {'res': {'report': {'host': 'db9'}}}})
    results = registered(hostvars, ['web2', 'web1', 'web3', 'nosuch'], 'res')
    assert sorted(results) == ['web1', 'web2'] and hostvars.read == ['web2', 'web1', 'web3']
    assert [r['host'] for r in host_reports(results)] == ['web1', 'web2']
    assert registered({'web1': {'res': 1}}, ['web1'], 'res') == {'web1': 1}


@pytest.mark.parametrize('hosts, name', [('web1', 'res'), (None, 'res'), (['web1'], ''), (['web1'], None)])
def test_registered_refuses_what_is_not_hosts_and_a_name(hosts, name):
    with pytest.raises(ValueError):
        registered({}, hosts, name)


def test_host_reports_leaves_out_results_without_a_report():
    results = {'web2': {'report': REPORTS[1]}, 'web1': {'failed': True, 'msg': 'x'}, 'web3': None, 'web4': {'report': {'checks': []}}}
    assert host_reports(results) == [REPORTS[1]]


def test_a_play_whose_hosts_all_failed_still_has_its_run_id():
    summary = fleet_summary([], 'harden', run_id='h1', failed_hosts=['web2', 'web1'], report_dir='/r')
    assert (summary['run_id'], summary['hosts'], summary['failed_hosts'], sum(summary['statuses'].values())) == ('h1', 0, ['web1', 'web2'], 0)


@pytest.mark.parametrize('reports, failed', [('web1', None), ([{'checks': []}], None), ([None], None), (REPORTS, 'web1'), (REPORTS, 3)])
def test_the_fleet_summary_refuses_what_is_not_reports(reports, failed):
    with pytest.raises(ValueError):
        fleet_summary(reports, 'audit', failed_hosts=failed)


def rollback_result(run_id, restored, statuses):
    return {'run_id': run_id, 'records': [{'target': 't%d' % n, 'restored': n < restored} for n in range(len(statuses))],
            'checks': [{'status': status} for status in statuses]}


def test_the_rollback_summary_counts_the_restores_and_names_the_run():
    results = {'web1': rollback_result('h1', 2, ['compliant'] * 3), 'web2': rollback_result('h1', 1, ['compliant', 'error'])}
    assert rollback_summary(results, failed_hosts=['web3']) == {
        'mode': 'rollback', 'run_id': 'h1', 'run_ids': ['h1'], 'check_mode': False, 'hosts': 2,
        'statuses': {'compliant': 4, 'drift': 0, 'not_persistent': 0, 'not_applicable': 0, 'error': 1},
        'changed': 3, 'waived': 0, 'failed_hosts': ['web3'], 'reports': None}


def test_hosts_that_rolled_back_different_runs_or_none_have_no_one_run_id():
    results = {'web1': rollback_result('h2', 0, []), 'web2': rollback_result('h1', 0, []), 'web3': rollback_result(None, 0, [])}
    summary = rollback_summary(results)
    assert (summary['run_id'], summary['run_ids'], summary['failed_hosts']) == (None, ['h1', 'h2'], [])
    assert rollback_summary({'web3': rollback_result(None, 0, [])})['run_id'] is None


@pytest.mark.parametrize('results', [[], {'web1': None}, 'web1'])
def test_the_rollback_summary_refuses_what_is_not_results(results):
    with pytest.raises(ValueError):
        rollback_summary(results)


def test_the_rollback_lines_name_each_host_and_what_it_restored():
    two = [{'target': '/etc/fstab', 'restored': True}, {'target': '/sys/block/vdb/queue/read_ahead_kb', 'restored': False}]
    results = {'web2': {'msg': '1 record restored', 'records': [{'target': '/etc/fstab', 'restored': True}]},
               'web1': {'msg': '2 records restored', 'records': two},
               'web3': {'failed': True}}
    assert rollback_lines(results) == ['web1: 2 records restored', 'web1: restored /etc/fstab',
                                       'web2: 1 record restored', 'web2: restored /etc/fstab', 'web3: failed']
    many = dict(('h%03d' % number, {'msg': 'm'}) for number in range(60))
    assert rollback_lines(many)[-1] == '... and 10 more lines: the io_rollback result of each host has them'
    with pytest.raises(ValueError, match='^rollback_lines expects'):
        rollback_lines(['web1'])
