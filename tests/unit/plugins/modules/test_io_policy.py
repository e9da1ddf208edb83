# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_policy: several concerns in one run - audit, the four-run pattern under one run id,
the report file, an error check that blocks every change, and io_rollback undoing it all."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import shutil

import pytest

from ansible.module_utils import basic

from ansible_collections.iotune.storage.plugins.module_utils.act.journal import read_records
from ansible_collections.iotune.storage.plugins.modules import io_policy, io_rollback
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main
from ansible_collections.iotune.storage.tests.unit.conftest import journal_files

TOOL = '#!/usr/bin/python3 -IS\n' + '# a tool\n' * 1000


def _read(path):
    with open(str(path), 'rb') as handle:
        return handle.read()


@pytest.fixture(name='host')
def host_fixture(monkeypatch, tmp_path, fixture_path):
    """fstab and mountinfo of the VxFS fixture, a bin directory, no command ever run."""
    fstab = tmp_path / 'fstab'
    shutil.copyfile(fixture_path('policy', 'constructed-vxfs.fstab'), str(fstab))
    (tmp_path / 'bin').mkdir()

    def no_command(self, argv, **kwargs):
        if argv[1:] == ['--version']:     # the report's tool versions: read-only
            return 1, '', 'not here'
        raise AssertionError('ran %s' % argv)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', no_command)
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, *a, **k: None)
    args = {
        'policy': {
            'iotune_mounts': [{'path': '/strict', 'present': ['noatime'], 'absent': []},
                              {'path': '/db', 'present': ['noatime'], 'absent': []}],
            'iotune_copy_tools': {'state': 'present'},
        },
        'copy_tools_files': [{'path': str(tmp_path / 'bin' / 'iotune-copy'), 'content': TOOL, 'mode': '0755'}],
        'fstab': str(fstab), 'remount': False, 'proc_root': fixture_path('policy', 'proc-vxfs'),
        'sys_root': str(tmp_path / 'sys'), 'journal_dir': str(tmp_path / 'journal'),
        'tunefstab_path': str(tmp_path / 'tunefstab'),
    }
    return args


def run(monkeypatch, args, **extra):
    return run_main(monkeypatch, io_policy, dict(args, **extra))


def test_audit_reports_every_concern_and_changes_nothing_but_the_report(monkeypatch, host, tmp_path):
    before = _read(tmp_path / 'fstab')
    report_dir = tmp_path / 'reports'
    kind, result = run(monkeypatch, host, report={'dir': str(report_dir), 'names': ['audit-r1.json'],
                                                  'host': 'h1', 'mode': 'audit'}, run_id='r1')
    assert kind == 'exit', result
    assert result['changed'] is False
    assert [(c['concern'], c['target'], c['status']) for c in result['checks']] == [
        ('mount_options', '/strict', 'drift'), ('mount_options', '/db', 'compliant'),
        ('copy_tools', str(tmp_path / 'bin' / 'iotune-copy'), 'drift')]
    assert set(result['concerns']) == {'mount_options', 'copy_tools'}
    assert result['summary']['drift'] == 2
    assert _read(tmp_path / 'fstab') == before
    assert not (tmp_path / 'bin' / 'iotune-copy').exists()
    assert journal_files(tmp_path / 'journal') == []
    written = json.loads((report_dir / 'audit-r1.json').read_text())
    assert written == result['report']
    assert (written['host'], written['run_id'], written['mode']) == ('h1', 'r1', 'audit')
    assert written['host_facts']['mounts'] == 7


def test_enforce_four_runs_one_journal_and_rollback(monkeypatch, host, tmp_path):
    before = _read(tmp_path / 'fstab')
    kind, check = run(monkeypatch, host, mode='enforce', _ansible_check_mode=True, _ansible_diff=True)
    assert kind == 'exit' and check['changed'] is True, check
    assert _read(tmp_path / 'fstab') == before and journal_files(tmp_path / 'journal') == []
    # the tool's content is never echoed: a digest and a size
    assert all(TOOL not in json.dumps(part) for part in (check['diff'], check['concerns']))
    assert [c['changed'] for c in check['checks']] == [False] * 3

    kind, applied = run(monkeypatch, host, mode='enforce', run_id='run-1')
    assert kind == 'exit' and applied['changed'] is True, applied
    assert [(c['status_before'], c['status'], c['changed']) for c in applied['checks']] == [
        ('drift', 'drift', False), ('compliant', 'compliant', False), ('drift', 'compliant', True)]
    # /strict: the fstab line changed, live stays as it is without a remount
    assert b'/strict\text4\tnoatime\t' in _read(tmp_path / 'fstab'), _read(tmp_path / 'fstab')
    records = read_records(applied['journal'])[0]
    assert [(r['module'], r['kind'], r['seq']) for r in records] == [
        ('mount_options', 'file', 1), ('copy_tools', 'file', 2)]
    assert applied['run_id'] == 'run-1'

    kind, again = run(monkeypatch, host, mode='enforce', run_id='run-2')
    assert (kind, again['changed']) == ('exit', False), again
    kind, recheck = run(monkeypatch, host, mode='enforce', _ansible_check_mode=True)
    assert (kind, recheck['changed']) == ('exit', False), recheck
    assert not os.path.exists(str(tmp_path / 'journal' / 'run-2.jsonl'))

    kind, rolled = run_main(monkeypatch, io_rollback, {
        'journal_dir': host['journal_dir'], 'run_id': 'run-1',
        'managed_files': [host['fstab']] + [item['path'] for item in host['copy_tools_files']]})
    assert (kind, rolled['changed']) == ('exit', True), rolled
    assert _read(tmp_path / 'fstab') == before
    assert not (tmp_path / 'bin' / 'iotune-copy').exists()


def test_an_error_check_blocks_every_change(monkeypatch, host, tmp_path):
    before = _read(tmp_path / 'fstab')
    # /dup is in fstab twice: an error check in the mount concern, which also has changes to make
    host['policy']['iotune_mounts'].append({'path': '/dup', 'present': ['noatime'], 'absent': []})
    kind, result = run(monkeypatch, host, mode='enforce', run_id='run-1')
    assert kind == 'fail', result
    assert result['msg'].startswith('nothing changed: '), result['msg']
    assert _read(tmp_path / 'fstab') == before
    assert not (tmp_path / 'bin' / 'iotune-copy').exists()
    assert journal_files(tmp_path / 'journal') == []


def test_concerns_limits_the_run(monkeypatch, host, tmp_path):
    kind, result = run(monkeypatch, host, concerns=['copy_tools'])
    assert kind == 'exit', result
    assert [c['concern'] for c in result['checks']] == ['copy_tools']


def test_an_error_check_fails_an_enforcing_run_with_nothing_to_change(monkeypatch, host, tmp_path):
    # issue 18, D1: /dup is twice in fstab, an error check; the concern plans no change for it,
    # and the enforcing run used to return ok with nothing enforced
    host['policy'] = {'iotune_mounts': [{'path': '/dup', 'present': ['noatime'], 'absent': []}]}
    before = _read(tmp_path / 'fstab')
    kind, audit = run(monkeypatch, host)
    assert kind == 'exit' and [c['status'] for c in audit['checks']] == ['error'], audit
    for check_mode in (True, False):
        kind, result = run(monkeypatch, host, mode='enforce', run_id='run-d1', _ansible_check_mode=check_mode)
        assert kind == 'fail', result
        assert result['msg'].startswith('nothing changed: ') and '/dup' in result['msg'], result['msg']
        assert result['changed'] is False
    assert _read(tmp_path / 'fstab') == before and journal_files(tmp_path / 'journal') == []
