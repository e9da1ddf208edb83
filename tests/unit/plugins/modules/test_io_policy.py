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
from ansible_collections.iotune.storage.tests.unit.module_harness import on_linux, run_main
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
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', on_linux(no_command))
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


def waiver(checks, days_left=10, name='w1'):
    """A waiver as the action plugin gives it to the module."""
    return {'name': name, 'checks': checks, 'reason': 'vendor sign-off pending', 'owner': 'dba',
            'expires': '2026-12-08', 'days_left': days_left, 'expired': days_left < 0}


def test_an_audit_marks_the_waived_checks_in_the_result_and_the_report(monkeypatch, host, tmp_path):
    report_dir = tmp_path / 'reports'
    kind, result = run(monkeypatch, host, run_id='r1', waivers=[
        waiver(['mount_options:/strict:*']), waiver(['block_queue:*:*'], name='stale'),
        waiver(['copy_tools:*:*'], days_left=-2, name='old')],
        report={'dir': str(report_dir), 'names': ['audit-r1.json'], 'host': 'h1', 'mode': 'audit'})
    assert kind == 'exit', result
    strict, db, tool = result['checks']
    assert strict['status'] == 'drift' and strict['waiver']['name'] == 'w1' and strict['waiver']['days_left'] == 10
    assert 'waiver' not in db
    assert tool['status'] == 'drift' and 'waiver' not in tool and tool['waiver_expired']['name'] == 'old'
    assert [(w['name'], w['status']) for w in result['waivers']] == [('w1', 'active'), ('stale', 'stale'), ('old', 'expired')]
    assert result['msg'].endswith('; 1 waived'), result['msg']
    written = json.loads((report_dir / 'audit-r1.json').read_text())
    assert written['summary']['waived'] == 1 and written['summary']['drift'] == 2
    assert written['waivers'] == result['waivers'] and written['checks'][0]['waiver'] == strict['waiver']


def test_harden_leaves_a_waived_setting_alone_and_changes_the_others(monkeypatch, host, tmp_path):
    before = _read(tmp_path / 'fstab')
    kind, result = run(monkeypatch, host, mode='enforce', run_id='run-1', waivers=[waiver(['copy_tools:*:*'])])
    assert kind == 'exit' and result['changed'] is True, result
    # /strict's fstab line is fixed; the waived tool is not installed and stays drift, unchanged
    assert _read(tmp_path / 'fstab') != before and b'/strict\text4\tnoatime\t' in _read(tmp_path / 'fstab')
    assert not (tmp_path / 'bin' / 'iotune-copy').exists()
    tool = result['checks'][2]
    assert (tool['status'], tool['changed'], tool['waiver']['name']) == ('drift', False, 'w1')
    assert result['msg'].endswith('; 1 waived (1 left as they are); 1 change(s) journalled in %s' % result['journal']), result['msg']
    assert [r['target'] for r in read_records(result['journal'])[0]] == [str(tmp_path / 'fstab')]
    # check mode says the same, with a diff that leaves the tool out
    kind, check = run(monkeypatch, host, mode='enforce', waivers=[waiver(['mount_options:*'])], _ansible_check_mode=True,
                      _ansible_diff=True)
    assert kind == 'exit' and [d['after_header'] for d in check['diff']] == [str(tmp_path / 'bin' / 'iotune-copy')], check['diff']


def test_a_change_that_would_also_change_a_waived_setting_stops_the_run(monkeypatch, host, tmp_path):
    before = _read(tmp_path / 'fstab')
    host['policy']['iotune_mounts'][0]['present'] = ['noatime', 'nodev']
    kind, result = run(monkeypatch, host, mode='enforce', run_id='run-1', waivers=[waiver(['mount_options:/strict:present:nodev'])])
    assert kind == 'fail', result
    assert result['msg'].startswith('nothing changed: a change would also change a waived setting: fstab of %s changes waived '
                                    'mount_options:/strict:present:nodev and also mount_options:/strict:present:noatime'
                                    % (tmp_path / 'fstab')), result['msg']
    assert _read(tmp_path / 'fstab') == before and not (tmp_path / 'bin' / 'iotune-copy').exists()
    assert journal_files(tmp_path / 'journal') == []


def test_a_waived_error_check_does_not_block_the_others(monkeypatch, host, tmp_path):
    # issue 38, item 8: /dup is twice in fstab, an error check; its waiver used to leave the whole
    # harden blocked ("nothing changed"), although docs/waivers.md promises the others are enforced
    host['policy']['iotune_mounts'].append({'path': '/dup', 'present': ['noatime'], 'absent': []})
    before = _read(tmp_path / 'fstab')
    for check_mode in (True, False):
        kind, result = run(monkeypatch, host, mode='enforce', run_id='run-1', _ansible_check_mode=check_mode,
                           waivers=[waiver(['mount_options:/dup:*'])])
        assert kind == 'exit' and result['changed'] is True, result
    assert b'/strict\text4\tnoatime\t' in _read(tmp_path / 'fstab') and _read(tmp_path / 'fstab') != before
    assert (tmp_path / 'bin' / 'iotune-copy').exists()
    dup = [check for check in result['checks'] if check['target'] == '/dup']
    assert [(check['status'], check['waiver']['name']) for check in dup] == [('error', 'w1')], dup
    assert '1 waived (1 left as they are)' in result['msg'], result['msg']
    # an error check no waiver matches still blocks every change
    kind, result = run(monkeypatch, host, mode='enforce', run_id='run-2', waivers=[waiver(['mount_options:/db:*'])])
    assert kind == 'fail' and result['msg'].startswith('nothing changed: ') and '/dup' in result['msg'], result


@pytest.mark.parametrize('waived', [
    waiver(['mount_options:/db:*']),                     # compliant: nothing for harden to do there
    waiver(['copy_tools:*:*'], days_left=-1),            # expired: waives nothing
])
def test_harden_goes_on_when_no_waived_check_is_in_its_way(monkeypatch, host, tmp_path, waived):
    kind, result = run(monkeypatch, host, mode='enforce', run_id='run-1', waivers=[waived])
    assert kind == 'exit' and result['changed'] is True, result
    assert (tmp_path / 'bin' / 'iotune-copy').exists()


def test_the_report_is_also_written_for_node_exporter(monkeypatch, host, tmp_path):
    report = {'dir': str(tmp_path / 'reports'), 'names': ['audit-r1.json', 'audit-latest.json'], 'host': 'h1',
              'mode': 'audit', 'textfile_dir': str(tmp_path / 'textfile')}
    kind, result = run(monkeypatch, host, run_id='r1', report=report)
    assert kind == 'exit', result
    assert result['textfile_path'] == str(tmp_path / 'textfile' / 'iotune.prom')
    text = (tmp_path / 'textfile' / 'iotune.prom').read_text()
    assert 'iotune_checks{concern="mount_options",status="drift"} 1\n' in text
    assert 'iotune_last_run_info{mode="audit",run_id="r1"} 1\n' in text
    kind, result = run(monkeypatch, host, run_id='r2', report=report, _ansible_check_mode=True)
    assert kind == 'exit' and 'run_id="r1"' in (tmp_path / 'textfile' / 'iotune.prom').read_text(), 'check mode writes nothing'


@pytest.mark.parametrize('textfile_dir,message', [
    ('relative/dir', "report.textfile_dir: must be an absolute path, got 'relative/dir'"),
    ('/etc/fstab', 'report.textfile_dir: /etc/fstab is not a directory'),
])
def test_a_bad_textfile_dir_stops_before_anything_is_read(monkeypatch, host, tmp_path, textfile_dir, message):
    report = {'dir': str(tmp_path / 'reports'), 'names': ['audit-r1.json'], 'host': 'h1', 'mode': 'audit',
              'textfile_dir': textfile_dir}
    kind, result = run(monkeypatch, host, run_id='r1', report=report)
    assert kind == 'fail' and message in result['msg'], result
    assert not (tmp_path / 'reports').exists()


def test_every_check_carries_its_severity(monkeypatch, host):
    kind, result = run(monkeypatch, host, severity=[{'checks': ['copy_tools:*'], 'severity': 'high'}])
    assert kind == 'exit', result
    assert [(c['id'].split(':')[0], c['severity']) for c in result['checks']] == [
        ('mount_options', 'medium'), ('mount_options', 'medium'), ('copy_tools', 'high')]


def test_each_report_says_what_is_new_and_resolved_and_old_ones_go(monkeypatch, host, tmp_path):
    reports = tmp_path / 'reports'

    def audit(run_id, **extra):
        report = {'dir': str(reports), 'names': ['audit-%s.json' % run_id, 'audit-latest.json'], 'host': 'h1',
                  'mode': 'audit', 'keep': 2}
        kind, result = run(monkeypatch, host, run_id=run_id, report=report, **extra)
        assert kind == 'exit', result
        return result

    first = audit('r1')['report']['history']
    assert first['previous_run_id'] is None
    assert [entry['id'] for entry in first['new']] == [
        'mount_options:/strict:present:noatime', 'copy_tools:%s:installed' % (tmp_path / 'bin' / 'iotune-copy')]
    assert audit('r2')['report']['history'] == {'previous_run_id': 'r1', 'new': [], 'resolved': [],
                                                'previous_time': json.loads((reports / 'audit-r1.json').read_text())['time']}
    # /strict leaves the policy: its finding is resolved, the check absent
    host['policy']['iotune_mounts'] = [{'path': '/db', 'present': ['noatime'], 'absent': []}]
    result = audit('r3')
    assert result['report']['history']['resolved'] == [
        {'id': 'mount_options:/strict:present:noatime', 'concern': 'mount_options', 'status_before': 'drift',
         'status': 'absent'}]
    assert result['reports_removed'] == [str(reports / 'audit-r1.json')]
    assert sorted(os.listdir(str(reports))) == ['audit-latest.json', 'audit-r2.json', 'audit-r3.json']
    checked = audit('r4', _ansible_check_mode=True)
    assert checked['reports_removed'] == [str(reports / 'audit-r2.json')] and (reports / 'audit-r2.json').exists()


def test_a_negative_keep_stops_before_anything_is_read(monkeypatch, host, tmp_path):
    report = {'dir': str(tmp_path / 'reports'), 'names': ['audit-r1.json'], 'host': 'h1', 'mode': 'audit', 'keep': -1}
    kind, result = run(monkeypatch, host, run_id='r1', report=report)
    assert kind == 'fail' and 'report.keep: must be 0 (keep every report) or a number of reports to keep, got -1' in result['msg']
    assert not (tmp_path / 'reports').exists()


def test_an_audit_gives_each_finding_its_fix_and_a_harden_none(monkeypatch, host, tmp_path):
    kind, result = run(monkeypatch, host)
    assert kind == 'exit', result
    fixes = dict((check['target'], check.get('fix')) for check in result['checks'])
    tool = str(tmp_path / 'bin' / 'iotune-copy')
    assert fixes['/db'] is None      # compliant
    # the fixture's remount is off: the fstab line alone, the live side at the next mount
    assert fixes['/strict']['changes'][0].startswith('%s line ' % (tmp_path / 'fstab'))
    assert fixes['/strict']['needs'] == 'reboot'
    assert fixes[tool]['changes'][-1].startswith('install %s (sha256 ' % tool) and fixes[tool]['needs'] == 'nothing'
    kind, check = run(monkeypatch, host, mode='enforce', _ansible_check_mode=True)
    assert kind == 'exit' and not [c for c in check['checks'] if 'fix' in c], check['checks']


def test_the_tool_versions_come_from_the_last_report_of_this_mode_else_of_the_other(tmp_path):
    tool = {'path': '/usr/bin/fio', 'version': '3.33', 'identity': [1, 2, 3, 4, 5]}
    params = {'report': {'dir': str(tmp_path), 'mode': 'harden'}}
    assert io_policy.known_tools(params, None) == {}
    (tmp_path / 'audit-latest.json').write_text(json.dumps({'checks': [], 'host_facts': {'tools': {'fio': tool}}}))
    assert io_policy.known_tools(params, None) == {'fio': tool}          # the audit's, before the first harden
    own = dict(tool, version='3.36')
    assert io_policy.known_tools(params, {'tools': {'fio': own}}) == {'fio': own}
    assert io_policy.known_tools({'report': None}, None) == {}
