# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every vm sysctl of the table is audited, written live and in the sysctl file, journalled and rolled back by
the cache_limits module the same way, on a proc tree with the real values of the test VM (proc/vm-loop). The
keys come from VM_SYSCTLS: one added to the table is tested here as it is (with its value in the fixture)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import shutil

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.journal import read_records
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS, VM_SYSCTLS, dotted
from ansible_collections.iotune.storage.plugins.modules import cache_limits, io_rollback
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

# the half of a bytes/ratio pair is written with its partner zeroed by the kernel: the pairs have tests of their own
SINGLE = [name for name in VM_KEYS if not VM_SYSCTLS[name].get('exclusive_with')]


def _read(path):
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return handle.read()


def _other_value(name, live):
    """A value the table accepts that differs from the live one."""
    entry = VM_SYSCTLS[name]
    return entry['minimum'] + 1 if live != entry['minimum'] + 1 else entry['minimum'] + 2


@pytest.fixture(name='host')
def host_fixture(tmp_path, fixture_path):
    proc_root = str(tmp_path / 'proc')
    shutil.copytree(fixture_path('proc', 'vm-loop'), proc_root)
    os.makedirs(str(tmp_path / 'etc' / 'sysctl.d'))
    return {'proc_root': proc_root, 'sysctl_file': str(tmp_path / 'etc' / 'sysctl.d' / '80-iotune.conf'),
            'sysctl_conf_dirs': [str(tmp_path / 'etc' / 'sysctl.d')], 'sysctl_conf': str(tmp_path / 'etc' / 'sysctl.conf'),
            'journal_dir': str(tmp_path / 'journal')}


def test_the_table_has_single_keys():
    assert SINGLE


@pytest.mark.parametrize('name', VM_KEYS)
def test_every_key_has_its_real_value_in_the_fixture(name, fixture_path):
    value = int(_read(fixture_path('proc', 'vm-loop', 'sys', 'vm', name)))
    assert VM_SYSCTLS[name]['minimum'] <= value <= VM_SYSCTLS[name]['maximum'] or value == 0


@pytest.mark.parametrize('name', SINGLE)
def test_each_key_is_audited_written_journalled_and_rolled_back(name, host, monkeypatch):
    path = os.path.join(host['proc_root'], 'sys', 'vm', name)
    live = int(_read(path))
    wanted = _other_value(name, live)
    args = dict(proc_root=host['proc_root'], sysctl_file=host['sysctl_file'], sysctl_conf_dirs=host['sysctl_conf_dirs'],
                sysctl_conf=host['sysctl_conf'], sysctl={dotted(name): wanted}, _ansible_check_mode=True)

    kind, result = run_main(monkeypatch, cache_limits, dict(args))
    assert kind == 'exit', result
    assert [(c['setting'], c['status'], c['live']) for c in result['checks']] == [(dotted(name), 'drift', live)]
    assert int(_read(path)) == live and _read(host['sysctl_file']) is None, 'check mode changed something'

    args.update(_ansible_check_mode=False, journal_dir=host['journal_dir'], run_id='vm-table',
                _ansible_module_name='iotune.storage.cache_limits')
    kind, result = run_main(monkeypatch, cache_limits, dict(args))
    assert kind == 'exit', result
    assert [(c['setting'], c['status'], c['changed']) for c in result['checks']] == [(dotted(name), 'compliant', True)]
    assert int(_read(path)) == wanted and '%s = %d' % (dotted(name), wanted) in _read(host['sysctl_file'])
    records, problems = read_records(result['journal'])
    assert problems == [] and [(r['target'], r['before'], r['after']) for r in records if r['kind'] == 'sysctl'] == [
        (dotted(name), {dotted(name): live}, {dotted(name): wanted})]

    kind, again = run_main(monkeypatch, cache_limits, dict(args, run_id='vm-table-2'))
    assert (kind, again['changed']) == ('exit', False), again

    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': host['journal_dir'], 'proc_root': host['proc_root'],
                                                       'run_id': 'vm-table', 'managed_files': [host['sysctl_file']]})
    assert (kind, result['changed']) == ('exit', True), result
    assert int(_read(path)) == live and _read(host['sysctl_file']) is None
