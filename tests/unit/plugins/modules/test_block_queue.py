# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.apply import sysfs_value
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import read_records
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS
from ansible_collections.iotune.storage.plugins.modules import block_queue, io_rollback
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main
from ansible_collections.iotune.storage.tests.unit.conftest import journal_files

DIRS = ('etc/udev/rules.d', 'run/udev/rules.d', 'usr/local/lib/udev/rules.d', 'usr/lib/udev/rules.d', 'lib/udev/rules.d')


@pytest.fixture(name='args')
def args_fixture(sysfs_full, build_tree, tmp_path, fixture_path):
    root = build_tree(tmp_path / 'root', 'udev/constructed-tree.json')
    return {
        'sys_root': sysfs_full,
        'proc_root': fixture_path('proc', 'constructed-dm-md'),
        'udev_rules_dirs': [os.path.join(root, d) for d in DIRS],
        'udev_db_dir': os.path.join(root, 'run/udev/data'),
        'rules_file': os.path.join(root, 'etc/udev/rules.d/60-iotune.rules'),
        '_ansible_check_mode': True,
    }


@pytest.fixture(name='run')
def run_fixture(monkeypatch):
    return lambda args: run_main(monkeypatch, block_queue, args)


def test_batch_audit_in_check_mode(run, args):
    args['devices'] = [
        {'match': {'name': 'vda'}, 'scheduler': 'mq-deadline', 'nr_requests': 256},
        {'match': {'mountpoint': '/srv/data'}, 'read_ahead_kb': 4096},
        {'match': {'name': 'sdq'}, 'read_ahead_kb': 4096},
    ]
    kind, result = run(args)
    assert kind == 'exit'
    assert result['changed'] is True          # the rules file would change
    assert [(c['target'], c['setting'], c['status']) for c in result['checks']] == [
        ('name=sdq', 'device', 'not_applicable'),
        ('vda', 'nr_requests', 'not_persistent'),
        ('vda', 'scheduler', 'compliant'),
        ('dm-0', 'read_ahead_kb', 'compliant'),
    ]
    assert [c['kind'] for c in result['changes']] == ['file']
    assert result['devices'][1]['notes'][0].startswith('dm-0 is a device-mapper/md device')
    assert 'diff' not in result


def test_single_match_with_diff(run, args):
    args.update(match={'name': 'loop2'}, nr_requests=64, _ansible_diff=True)
    kind, result = run(args)
    assert kind == 'exit'
    assert result['checks'][0]['status'] == 'drift'
    sysfs, rules = result['diff']
    assert sysfs['before'].endswith('loop2/queue/nr_requests = 128\n')
    assert sysfs['after'].endswith('loop2/queue/nr_requests = 64\n')
    assert rules['after'].endswith('KERNEL=="loop2", ATTR{queue/nr_requests}="64"\n')


def test_warnings_are_issued(run, args):
    args.update(match={'name': 'vda'}, read_ahead_kb=8192)
    kind, result = run(args)
    assert result['warnings'] and all('udev' in w or 'rule' in w for w in result['warnings'])


def test_check_mode_writes_nothing(run, args, build_tree, tmp_path):
    args['sys_root'] = build_tree(tmp_path / 'sys', 'sysfs/vm-loop-partitions.json')
    args['journal_dir'] = str(tmp_path / 'journal')
    args.update(match={'name': 'loop2'}, nr_requests=64)
    rules = _read(args['rules_file'])
    kind, result = run(args)
    assert (kind, result['changed']) == ('exit', True)
    assert [c['kind'] for c in result['changes']] == ['sysfs', 'file']
    assert _read(os.path.join(args['sys_root'], 'block/loop2/queue/nr_requests')) == b'128\n'
    assert _read(args['rules_file']) == rules
    assert journal_files(args['journal_dir']) == []


def _read(path):
    with open(path, 'rb') as handle:
        return handle.read()


def test_apply_then_rollback(run, args, build_tree, tmp_path, monkeypatch):
    sys_root = build_tree(tmp_path / 'sys', 'sysfs/vm-loop-partitions.json', 'sysfs/constructed-dm-md.json',
                          'sysfs/constructed-partial.json')
    queue = os.path.join(sys_root, 'block', 'loop2', 'queue')
    journal_dir = str(tmp_path / 'journal')
    args.update(sys_root=sys_root, journal_dir=journal_dir, run_id='bq-1', _ansible_check_mode=False,
                _ansible_module_name='iotune.storage.block_queue', match={'name': 'loop2'}, nr_requests=64, read_ahead_kb=4096)
    rules = _read(args['rules_file'])
    live = dict((name, sysfs_value(os.path.join(queue, name))) for name in ('nr_requests', 'read_ahead_kb'))
    assert live == {'nr_requests': 128, 'read_ahead_kb': 128}

    kind, result = run(args)
    assert kind == 'exit', result
    assert result['changed'] is True
    assert [(c['setting'], c['status'], c['changed']) for c in result['checks']] == [
        ('read_ahead_kb', 'compliant', True), ('nr_requests', 'compliant', True)]
    assert [c['status'] for c in result['checks_before']] == ['drift', 'drift']
    assert sysfs_value(os.path.join(queue, 'nr_requests')) == 64
    assert sysfs_value(os.path.join(queue, 'read_ahead_kb')) == 4096
    assert b'KERNEL=="loop2"' in _read(args['rules_file'])
    records, problems = read_records(result['journal'])
    assert [(r['kind'], r['module'], r.get('setting')) for r in records] == [
        ('sysfs', 'block_queue', 'nr_requests'), ('sysfs', 'block_queue', 'read_ahead_kb'),
        ('file', 'block_queue', None)]
    assert result['journal'] == os.path.join(journal_dir, 'bq-1.jsonl')

    kind, result = run(dict(args, run_id='bq-2'))
    assert (kind, result['changed']) == ('exit', False)
    assert not os.path.exists(os.path.join(journal_dir, 'bq-2.jsonl'))

    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': journal_dir, 'sys_root': sys_root,
                                                       'managed_files': [args['rules_file']]})
    assert (kind, result['run_id'], result['changed']) == ('exit', 'bq-1', True)
    assert _read(args['rules_file']) == rules
    assert dict((name, sysfs_value(os.path.join(queue, name))) for name in live) == live


def test_rq_affinity_is_applied_journalled_and_rolled_back(run, args, build_tree, tmp_path, monkeypatch):
    sys_root = build_tree(tmp_path / 'sys', 'sysfs/vm-loop-partitions.json')
    path = os.path.join(sys_root, 'block', 'loop2', 'queue', 'rq_affinity')
    journal_dir = str(tmp_path / 'journal')
    args.update(sys_root=sys_root, journal_dir=journal_dir, run_id='bq-rq', _ansible_check_mode=False,
                _ansible_module_name='iotune.storage.block_queue', match={'name': 'loop2'}, rq_affinity=2)
    kind, result = run(args)
    assert kind == 'exit', result
    assert [(c['setting'], c['status'], c['changed']) for c in result['checks']] == [('rq_affinity', 'compliant', True)]
    assert sysfs_value(path) == 2
    assert b'ATTR{queue/rq_affinity}="2"' in _read(args['rules_file'])
    records, problems = read_records(result['journal'])
    assert [(r['kind'], r['target'], r['before'], r['after']) for r in records if r['kind'] == 'sysfs'] == [('sysfs', path, 1, 2)]

    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': journal_dir, 'sys_root': sys_root,
                                                       'managed_files': [args['rules_file']]})
    assert (kind, result['run_id'], result['changed']) == ('exit', 'bq-rq', True)
    assert sysfs_value(path) == 1


def test_error_check_fails_before_anything(run, args, build_tree, tmp_path):
    args['sys_root'] = build_tree(tmp_path / 'sys', 'sysfs/vm-loop-partitions.json')
    args.update(_ansible_check_mode=False, journal_dir=str(tmp_path / 'journal'),
                devices=[{'match': {'name': 'loop2'}, 'nr_requests': 64},
                         {'match': {'name': 'loop1'}, 'max_sectors_kb': 1 << 30}])
    rules = _read(args['rules_file'])
    kind, result = run(args)
    assert kind == 'fail', result
    assert result['changed'] is False
    assert result['msg'].startswith('nothing changed: ')
    assert _read(os.path.join(args['sys_root'], 'block/loop2/queue/nr_requests')) == b'128\n'
    assert _read(args['rules_file']) == rules
    assert journal_files(str(tmp_path / 'journal')) == []


@pytest.mark.parametrize('extra, message', [
    ({'match': {'name': 'vda'}, 'read_ahead_kb': -1},
     'invalid block_queue policy: read_ahead_kb: -1 is not valid; expected an integer from 0 to 4294967295 (KiB; 0 turns read-ahead off)'),
    ({'devices': [{'match': {'name': 'vda'}}, {'match': {'name': 'vdb'}, 'nr_requests': 2}]},
     'invalid block_queue policy: devices[0]: nothing to check; give at least one of %s; '
     'devices[1].nr_requests: 2 is not valid; expected an integer from 4 ' % ', '.join(QUEUE_SETTINGS) +
     'to 2048 (the kernel raises smaller values to 4 and refuses larger ones)'),
    ({'match': {'name': 'vda'}, 'scheduler': 'cfqq'}, 'value of scheduler must be one of: none, mq-deadline'),
    ({'devices': [{'match': {'name': 'vda'}, 'scheduler': 'as'}]}, 'value of scheduler must be one of'),
    ({'match': {'name': 'vda', 'serial': 'x'}, 'nr_requests': 64}, 'parameters are mutually exclusive: name|mountpoint|wwn|serial'),
    ({'match': {}, 'nr_requests': 64}, 'one of the following is required: name, mountpoint, wwn, serial'),
    ({'match': {'name': 'vda'}, 'devices': []}, 'parameters are mutually exclusive: match|devices'),
    ({'devices': [], 'nr_requests': 64}, 'parameters are mutually exclusive: devices|nr_requests'),
    ({'nr_requests': 64}, 'one of the following is required: match, devices'),
])
def test_bad_input_fails_before_anything(run, args, extra, message):
    args.update(extra)
    kind, result = run(args)
    assert kind == 'fail'
    assert message in result['msg']


def test_empty_batch(run, args):
    args['devices'] = []
    kind, result = run(args)
    assert kind == 'exit' and result['checks'] == [] and result['changes'] == []
