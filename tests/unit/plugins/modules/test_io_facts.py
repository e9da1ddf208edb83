# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible.module_utils import basic

from ansible_collections.iotune.storage.plugins.modules import io_facts
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main


@pytest.fixture(name='module_calls')
def module_calls_fixture(monkeypatch, read_fixture):
    """Answer run_command from real captured outputs, and record the calls."""
    calls = {'run_command': []}

    outputs = {
        'uname': 'Linux\n',
        'fio': read_fixture('commands', 'fio-3.33--version.txt'),
        'cp': read_fixture('commands', 'cp-coreutils-9.1--version.txt'),
    }
    calls['outputs'] = outputs

    def run_command(self, args, **kwargs):
        calls['run_command'].append((list(args), kwargs, dict(self.run_command_environ_update)))
        name = args[0].rsplit('/', 1)[-1]
        return (0, outputs[name], '') if name in outputs else (127, '', name + ': not found')

    monkeypatch.setattr(basic.AnsibleModule, 'run_command', run_command)
    return calls


@pytest.fixture(name='run_module')
def run_module_fixture(monkeypatch, module_calls):
    return lambda args: run_main(monkeypatch, io_facts, args)


def fixture_args(sysfs_real, fixture_path, tmp_path, **extra):
    args = {
        'sys_root': sysfs_real,
        'proc_root': fixture_path('proc', 'vm-loop'),
        'dev_root': str(tmp_path / 'dev'),
        'fstab_path': fixture_path('fstab', 'constructed.fstab'),
        'tunefstab_path': fixture_path('tunefstab', 'constructed-solaris.tunefstab'),
    }
    args.update(extra)
    return args


@pytest.mark.parametrize('check_mode', [False, True])
def test_main_returns_facts(run_module, module_calls, sysfs_real, fixture_path, tmp_path, check_mode):
    args = fixture_args(sysfs_real, fixture_path, tmp_path, _ansible_check_mode=check_mode)
    kind, result = run_module(args)
    assert kind == 'exit'
    assert result['changed'] is False
    facts = result['ansible_facts']['iotune']
    assert sorted(facts) == ['block_devices', 'errors', 'fstab', 'memory_bytes', 'mounts', 'tools', 'vm', 'vxfs']
    assert facts['block_devices']['vda']['scheduler'] == 'mq-deadline'
    assert facts['block_devices']['loop0']['partitions'] == ['loop0p1', 'loop0p2']
    assert facts['mounts']['/tmp/iotune-cap/bind']['partition'] == 'loop0p1'
    assert facts['mounts']['/']['options_fstab'] == ['errors=remount-ro']
    assert facts['memory_bytes'] == 25276502016
    assert facts['vm']['dirty_ratio']['value'] == 20
    assert facts['vxfs']['tunefstab'][1] == {'device': '/dev/vx/dsk/datadg/u08', 'line': 8, 'tunables': {'discovered_direct_iosz': 10485760}}
    assert facts['tools']['fio']['version'] == '3.33'
    assert facts['tools']['coreutils']['version'] == '9.1'
    assert len(facts['fstab']) == 9
    assert facts['errors'] == []
    # uname -s (which platform), then both tools: argument lists, with the C locale, never through a shell
    assert [(argv[0].rsplit('/', 1)[-1], argv[1:], env['LC_ALL'], kwargs.get('use_unsafe_shell', False))
            for argv, kwargs, env in module_calls['run_command']] == [
        ('uname', ['-s'], 'C', False), ('fio', ['--version'], 'C', False), ('cp', ['--version'], 'C', False)]


def test_main_gather_subset(run_module, module_calls, sysfs_real, fixture_path, tmp_path):
    kind, result = run_module(fixture_args(sysfs_real, fixture_path, tmp_path, gather=['vxfs', 'memory']))
    assert kind == 'exit'
    assert sorted(result['ansible_facts']['iotune']) == ['errors', 'memory_bytes', 'vxfs']
    assert [argv for argv, _kwargs, _env in module_calls['run_command']] == [['uname', '-s']]


def test_main_on_a_host_that_says_it_is_solaris(run_module, module_calls, sysfs_real, fixture_path, tmp_path):
    module_calls['outputs'].update(uname='SunOS\n', kstat='zfs:0:arcstats:c_max\t4294967296\n')
    kind, result = run_module(fixture_args(sysfs_real, fixture_path, tmp_path))
    assert kind == 'exit'
    facts = result['ansible_facts']['iotune']
    assert facts['platform']['name'] == 'solaris' and facts['platform']['system'] == 'SunOS'
    assert facts['cache']['zfs_arc_max']['live'] == 4294967296
    assert facts['not_applicable'] == {'block_queue': 'block-queue settings are read from sysfs and kept by udev rules, '
                                                      'which only Linux has'}
    # the tunefstab option is kept; sysfs and procfs are not read on Solaris
    assert facts['vxfs']['tunefstab'][1]['device'] == '/dev/vx/dsk/datadg/u08'
    assert 'block_devices' not in facts
    assert [argv[0] for argv, _kwargs, _env in module_calls['run_command']] == ['uname', 'uname', 'pkginfo', 'kstat']


def test_main_rejects_unknown_subset(run_module, module_calls, sysfs_real, fixture_path, tmp_path):
    kind, result = run_module(fixture_args(sysfs_real, fixture_path, tmp_path, gather=['mounts', 'hardware']))
    assert kind == 'fail'
    assert 'hardware' in result['msg'] and 'gather' in result['msg']


def test_main_partial_sysfs_does_not_fail(run_module, module_calls, sysfs_full, fixture_path, tmp_path):
    kind, result = run_module(fixture_args(sysfs_full, fixture_path, tmp_path, gather=['block_devices']))
    assert kind == 'exit'
    facts = result['ansible_facts']['iotune']
    assert facts['block_devices']['xvdf']['read_ahead_kb'] is None
    assert len(facts['errors']) == 4
