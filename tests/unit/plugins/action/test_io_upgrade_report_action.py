# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_upgrade_report on the controller (the after/diff phases of upgrade_check.yml) and the
snapshot_pair filter that hands it each host's two snapshots."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import xml.etree.ElementTree as ET

import pytest

from ansible.errors import AnsibleActionFail, AnsibleFilterError
from ansible.playbook.task import Task
from ansible.plugins.loader import connection_loader
from ansible.playbook.play_context import PlayContext

from ansible_collections.iotune.storage.plugins.action.io_upgrade_report import ActionModule, host_pairs
from ansible_collections.iotune.storage.plugins.filter.report import snapshot_pair


def snapshot(name, live, vendor_value, package_version):
    """A host where a vendor sysctl file (package vendor-defaults) sets vm.dirty_writeback_centisecs."""
    path = '/usr/lib/sysctl.d/50-vendor.conf'
    return {
        'format': 2, 'sysctl': {}, 'name': name, 'taken': '2026-11-25T10:00:00Z',
        'host': {'hostname': 'db1', 'kernel_release': '6.1.0-18-amd64', 'machine_id': '0f1e2d3c4b5a69788796a5b4c3d2e1f0'},
        'package_manager': 'dpkg', 'packages': {'vendor-defaults': package_version},
        'facts': {'block_devices': {}, 'mounts': {}},
        'sources': {path: {'kind': 'sysctl', 'text': 'vm.dirty_writeback_centisecs = %d\n' % vendor_value,
                           'sha256': str(vendor_value), 'vendor': True, 'package': 'vendor-defaults',
                           'conffile': None}},
        'vxtunefs': {},
        'settings': {'vm.dirty_writeback_centisecs': {
            'concern': 'cache_limits', 'target': 'sysctl', 'setting': 'vm.dirty_writeback_centisecs', 'live': live,
            'persistent': [{'source': path, 'line': 1, 'value': vendor_value, 'vendor': True}]}},
        'policy_checks': [], 'errors': [],
    }


BEFORE = snapshot('pre-upgrade', 500, 500, '1.0')
AFTER = snapshot('post-upgrade', 1000, 1000, '1.1')


def run_action(args):
    task = Task()
    task.args = args
    connection = connection_loader.get('local', PlayContext())
    action = ActionModule(task, connection, PlayContext(), loader=None, templar=None, shared_loader_obj=None)
    return action.run(task_vars={})


def test_the_differences_are_explained_and_written_as_the_audit_reports(tmp_path):
    result = run_action({'dir': str(tmp_path), 'hosts': {'db1': {'before': BEFORE, 'after': AFTER}, 'db2': {
        'before': BEFORE, 'after': BEFORE}}, 'run_id': 'upgrade-1'})
    db1, db2 = result['hosts']['db1'], result['hosts']['db2']
    assert [(d['class'], d['key'], d['before'], d['after']) for d in db1['differences']] == [
        ('changed_default', 'vm.dirty_writeback_centisecs', 500, 1000)]
    assert 'vendor-defaults 1.0 -> 1.1' in db1['differences'][0]['message']
    assert db1['failing'] == db1['differences'] and db1['counts']['changed_default'] == 1
    assert (db2['differences'], db2['failing']) == ([], [])
    assert sorted(os.listdir(str(tmp_path))) == ['.iotune-report.lock', 'hosts', 'junit.xml', 'report.html', 'summary.json']
    report = json.loads((tmp_path / 'hosts' / 'db1.json').read_text())
    assert report['mode'] == 'upgrade' and report['run_id'] == 'upgrade-1'
    cases = ET.parse(str(tmp_path / 'junit.xml')).getroot().iter('testcase')
    assert sorted((case.get('name'), case.find('failure') is not None) for case in cases) == [
        ('upgrade:snapshot:no_difference', False),
        ('upgrade:sysctl:changed_default:vm.dirty_writeback_centisecs', True)]


def test_fail_on_decides_what_fails_and_nothing_is_written_without_write(tmp_path):
    result = run_action({'dir': str(tmp_path), 'hosts': {'db1': {'before': BEFORE, 'after': AFTER}},
                         'fail_on': ['lost_setting'], 'write': False})
    assert result['hosts']['db1']['failing'] == [] and result['files'] == []
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize('args, message', [
    ({'dir': 'reports', 'hosts': {}}, 'dir: must be an absolute path on the controller'),
    ({'dir': '/tmp', 'hosts': {}, 'fail_on': ['changed_defaults']},
     "iotune_upgrade_fail_on: unknown difference class(es) 'changed_defaults' (accepted: different_host, host_unverified, "
     "snapshot_format, kernel_pending, kernel_changed, changed_default, lost_setting"),
    ({'dir': '/tmp', 'hosts': {}, 'io_sysctls': 'vm.dirty_*'},
     'io_sysctls (iotune_upgrade_io_sysctls): must be a list of sysctl keys or patterns such as vm.dirty_*'),
    ({'dir': '/tmp', 'hosts': {}, 'fail_on': 'lost_setting'}, 'iotune_upgrade_fail_on: must be a list of difference classes'),
    ({'dir': '/tmp', 'hosts': {'db1': {'before': BEFORE}}}, 'hosts.db1.after: no snapshot (a dict) was given'),
    ({'dir': '/tmp', 'hosts': ['db1']}, 'hosts: must be a dict of host name to {before, after} snapshots'),
])
def test_bad_arguments_fail_naming_the_field(args, message):
    with pytest.raises(AnsibleActionFail) as excinfo:
        run_action(args)
    assert message in str(excinfo.value)


def test_host_pairs_are_sorted_by_host():
    assert [host for host, before, after in host_pairs({'b': {'before': {}, 'after': {}}, 'a': {'before': {}, 'after': {}}})] \
        == ['a', 'b']


def test_snapshot_pair_of_the_after_and_the_diff_phase():
    after_phase = {'changed': True, 'snapshot': AFTER, 'snapshots': {'pre-upgrade': BEFORE}}
    assert snapshot_pair(after_phase, 'pre-upgrade', 'post-upgrade') == {'before': BEFORE, 'after': AFTER}
    diff_phase = {'changed': False, 'snapshots': {'pre-upgrade': BEFORE, 'post-upgrade': AFTER}}
    assert snapshot_pair(diff_phase, 'pre-upgrade', 'post-upgrade') == {'before': BEFORE, 'after': AFTER}


@pytest.mark.parametrize('result, message', [
    ({'failed': True, 'msg': 'x'}, 'expects a registered io_snapshot result that did not fail'),
    ({'skipped': True}, 'expects a registered io_snapshot result that did not fail'),
    ({'snapshots': {}}, "holds no snapshot 'pre-upgrade' (read: none)"),
    ({'snapshots': {'pre-upgrade': BEFORE}}, "holds no snapshot 'post-upgrade'"),
])
def test_snapshot_pair_refuses_what_it_cannot_pair(result, message):
    with pytest.raises(AnsibleFilterError) as excinfo:
        snapshot_pair(result, 'pre-upgrade', 'post-upgrade')
    assert message in str(excinfo.value)


@pytest.mark.parametrize('after_host, fail_on, failing_classes', [
    ({'hostname': 'db2', 'machine_id': '11112222333344445555666677778888'}, None, ['different_host']),
    ({'hostname': 'db2', 'machine_id': '11112222333344445555666677778888'}, ['changed_default', 'lost_setting'], []),
    # the older format: cannot tell, reported and passing
    ({'hostname': 'db1'}, None, []),
], ids=['other-host-fails-by-default', 'other-host-left-out-of-fail-on', 'older-format-passes'])
def test_the_host_of_the_snapshots(tmp_path, after_host, fail_on, failing_classes):
    """Issue 23 U2: a before snapshot of another host fails the host by default."""
    after = dict(BEFORE, name='post-upgrade', host=dict(after_host, kernel_release='6.1.0-18-amd64'))
    args = {'dir': str(tmp_path), 'hosts': {'db1': {'before': BEFORE, 'after': after}}, 'write': False}
    if fail_on is not None:
        args['fail_on'] = fail_on
    result = run_action(args)['hosts']['db1']
    assert [d['class'] for d in result['differences']] == ['host_unverified' if 'machine_id' not in after_host else 'different_host']
    assert [d['class'] for d in result['failing']] == failing_classes
