# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every plain integer queue setting of the table (no kernel rounding rule, no device maximum) is audited,
planned, written with its udev rule, journalled and rolled back the same way, on the real sysfs capture of
the test VM (loop2). The settings come from QUEUE_SETTINGS: one added to the table is tested here as it is."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.apply import sysfs_value
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import read_records
from ansible_collections.iotune.storage.plugins.module_utils.plan import block_queue as bq
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import INT_SETTINGS, QUEUE_SETTINGS
from ansible_collections.iotune.storage.plugins.modules import block_queue, io_rollback
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

PLAIN = [name for name in INT_SETTINGS if not QUEUE_SETTINGS[name].get('kernel_rule')
         and not QUEUE_SETTINGS[name].get('device_maximum')]
DEVICE = 'loop2'


def _read(path):
    if not os.path.exists(path):
        return None
    with open(path, 'rb') as handle:
        return handle.read()


def _other_value(name, live):
    """A value the table accepts that differs from the live one."""
    setting = QUEUE_SETTINGS[name]
    return setting['maximum'] if live != setting['maximum'] else setting['minimum']


@pytest.fixture(name='host')
def host_fixture(build_tree, tmp_path):
    sys_root = build_tree(tmp_path / 'sys', 'sysfs/vm-loop-partitions.json')
    root = build_tree(tmp_path / 'root', 'udev/constructed-tree.json')
    return {'sys_root': sys_root, 'rules_file': os.path.join(root, 'etc/udev/rules.d/60-iotune.rules'),
            'udev_rules_dirs': [os.path.join(root, 'etc/udev/rules.d')], 'udev_db_dir': os.path.join(root, 'run/udev/data'),
            'journal_dir': str(tmp_path / 'journal')}


def test_the_table_has_plain_settings():
    assert PLAIN


@pytest.mark.parametrize('name', PLAIN)
def test_a_value_out_of_range_is_refused_naming_the_range(name):
    setting = QUEUE_SETTINGS[name]
    for value in (setting['minimum'] - 1, setting['maximum'] + 1, True, 'x'):
        errors = bq.validate_request({'match': {'name': 'vda'}, name: value})
        assert errors == ['%s: %r is not valid; expected an integer from %d to %d (%s)' % (
            name, value, setting['minimum'], setting['maximum'], setting['range_note'])], value


@pytest.mark.parametrize('name', PLAIN)
def test_each_setting_is_audited_written_journalled_and_rolled_back(name, host, monkeypatch):
    path = os.path.join(host['sys_root'], 'block', DEVICE, QUEUE_SETTINGS[name]['sysfs'])
    live, rules = sysfs_value(path), _read(host['rules_file'])
    wanted = _other_value(name, live)
    args = dict(sys_root=host['sys_root'], rules_file=host['rules_file'], udev_rules_dirs=host['udev_rules_dirs'],
                udev_db_dir=host['udev_db_dir'], match={'name': DEVICE}, _ansible_check_mode=True)
    args[name] = wanted

    kind, result = run_main(monkeypatch, block_queue, dict(args))
    assert kind == 'exit', result
    assert [(c['setting'], c['status'], c['live']) for c in result['checks']] == [(name, 'drift', live)]
    assert result['checks'][0]['message'] == '%s on %s is %d, expected %d; no udev rule sets it' % (name, DEVICE, live, wanted)
    assert sysfs_value(path) == live and _read(host['rules_file']) == rules, 'check mode changed something'

    args.update(_ansible_check_mode=False, journal_dir=host['journal_dir'], run_id='bq-table',
                _ansible_module_name='iotune.storage.block_queue')
    kind, result = run_main(monkeypatch, block_queue, dict(args))
    assert kind == 'exit', result
    assert [(c['setting'], c['status'], c['changed']) for c in result['checks']] == [(name, 'compliant', True)]
    assert sysfs_value(path) == wanted
    assert ('ATTR{%s}="%d"' % (QUEUE_SETTINGS[name]['udev'][0], wanted)).encode() in _read(host['rules_file'])
    records, problems = read_records(result['journal'])
    assert problems == [] and [(r['target'], r['before'], r['after']) for r in records if r['kind'] == 'sysfs'] == [
        (path, live, wanted)]

    kind, again = run_main(monkeypatch, block_queue, dict(args, run_id='bq-table-2'))
    assert (kind, again['changed']) == ('exit', False), again

    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': host['journal_dir'], 'sys_root': host['sys_root'],
                                                       'run_id': 'bq-table', 'managed_files': [host['rules_file']]})
    assert (kind, result['changed']) == ('exit', True), result
    assert sysfs_value(path) == live and _read(host['rules_file']) == rules
