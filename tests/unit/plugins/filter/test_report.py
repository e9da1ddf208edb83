# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.report import (
    check_summary, console_lines, fleet_summary, host_checks, report_dir_problem, rollback_summary)


def test_check_summary_counts_every_status():
    checks = [{'status': 'drift'}, {'status': 'drift'}, {'status': 'not_persistent'}]
    assert check_summary(checks) == {'compliant': 0, 'drift': 2, 'not_persistent': 1, 'not_applicable': 0, 'error': 0}


def test_check_summary_rejects_unknown_status():
    with pytest.raises(AnsibleFilterError, match='list of checks'):
        check_summary([{'status': 'fine'}])


def test_host_checks_tags_each_check():
    report = {'host': 'db1', 'checks': [{'id': 'a', 'status': 'drift'}, {'id': 'b', 'status': 'compliant'}]}
    assert [(c['host'], c['id']) for c in host_checks(report)] == [('db1', 'a'), ('db1', 'b')]
    assert host_checks({'host': 'x'}) == []


def test_console_lines_name_what_is_not_applicable_and_what_is_waived():
    # issue 39, items 7 and 8: a missing mount point was only counted, a waived drift printed as drift
    checks = [
        {'host': 'db1', 'status': 'compliant', 'message': 'read_ahead_kb is 4096'},
        {'host': 'db1', 'status': 'not_applicable',
         'message': '/u09 is neither mounted nor listed in /etc/fstab; its options were not checked'},
        {'host': 'db1', 'status': 'drift', 'message': 'noatime is missing live',
         'waiver': {'name': 'dba-atime', 'reason': 'until the 2027 window', 'owner': 'dba', 'expires': '2027-01-31', 'days_left': 64}},
        {'host': 'db2', 'status': 'not_persistent', 'message': 'vm.dirty_bytes is not in /etc/sysctl.d'},
    ]
    assert console_lines(checks) == [
        'db1: not applicable: /u09 is neither mounted nor listed in /etc/fstab; its options were not checked',
        'db1: waived drift (waiver dba-atime): noatime is missing live',
        'db2: not persistent: vm.dirty_bytes is not in /etc/sysctl.d',
    ]


@pytest.mark.parametrize('checks', ['drift', [{'status': 'drift'}], [None]])
def test_console_lines_refuses_what_is_not_checks(checks):
    with pytest.raises(AnsibleFilterError, match='^console_lines expects'):
        console_lines(checks)


def test_report_dir_problem_is_empty_for_a_directory_the_writer_takes(tmp_path):
    tmp_path.chmod(0o700)
    assert report_dir_problem(str(tmp_path / 'reports')) == ''
    assert report_dir_problem('reports', True).startswith('iotune_report_dir: must be an absolute path')


class HostVars(dict):
    def raw_get(self, host):
        return self[host]


def test_the_summaries_read_the_registered_results_of_the_hosts_asked():
    checks = [{'id': 'a', 'status': 'drift', 'severity': 'low'}, {'id': 'b', 'status': 'compliant', 'severity': 'low'}]
    hostvars = HostVars(web1={'io_audit_result': {'report': {'host': 'web1', 'run_id': 'r1', 'checks': checks}}},
                        web2={'io_audit_result': {'report': {'host': 'web2', 'run_id': 'r1', 'checks': checks}}},
                        web3={'io_rollback_result': {'run_id': 'h1', 'records': [{'restored': True}], 'checks': [{'status': 'compliant'}]}})
    summary = fleet_summary(hostvars, ['web1', 'web2'], 'io_audit_result', 'audit', report_dir='/r',
                            fail_on={'statuses': ['drift'], 'severities': ['low']})
    assert (summary['hosts'], summary['statuses']['drift'], summary['failed_hosts'], summary['run_id']) == (2, 2, ['web1', 'web2'], 'r1')
    summary = rollback_summary(hostvars, ['web1', 'web3'], failed_hosts=['web2'])
    assert (summary['hosts'], summary['changed'], summary['run_id'], summary['failed_hosts']) == (1, 1, 'h1', ['web2'])


def test_the_summaries_name_bad_input_as_filter_errors():
    hostvars = HostVars(web1={'res': {'report': {'host': 'web1', 'checks': [{'status': 'fine'}]}}})
    with pytest.raises(AnsibleFilterError, match='^fleet_summary: '):
        fleet_summary(hostvars, ['web1'], 'res', 'audit')
    with pytest.raises(AnsibleFilterError, match='^rollback_summary: '):
        rollback_summary(hostvars, 'web1')
    assert fleet_summary(hostvars, [], 'res', 'audit', run_id='r1')['run_id'] == 'r1'
    assert rollback_summary(hostvars, [])['hosts'] == 0
