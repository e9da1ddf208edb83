# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_policy and io_rollback on hosts that say they are HP-UX or Solaris: the platform comes from what
``uname -s`` prints (tests/unix-sim/uname, a SIMULATOR), the mounts from /etc/mnttab kept by the mount
SIMULATOR; the concerns io_policy does not manage there are one not_applicable check each."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible.module_utils import basic

from ansible_collections.iotune.storage.plugins.modules import io_facts, io_policy, io_rollback, io_snapshot
from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main
from ansible_collections.iotune.storage.tests.unit.simulators import SimulatedUnixHost

SEED_000 = 'ioerror=mwdisable,largefiles,delaylog,mincache=direct,convosync=direct'
VXFS_LINE = '/dev/vx/dsk/datadg/vol01\t/data\tvxfs\trw,suid,delaylog,largefiles,ioerror=mwdisable,dev=4fc0f00\t1258671500\n'


def simulated(monkeypatch, tmp_path, platform):
    host = SimulatedUnixHost(tmp_path, platform)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', lambda self, argv, **kwargs: host(argv))
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, *a, **k: host.bin(name))
    return host


def write(path, text):
    with open(path, 'w') as handle:
        handle.write(text)


def read(path):
    with open(path) as handle:
        return handle.read()


@pytest.fixture(name='hpux')
def hpux_fixture(monkeypatch, tmp_path):
    host = simulated(monkeypatch, tmp_path, 'hpux')
    write(os.path.join(host.etc, 'fstab'), read_fixture('unix-doc', 'hpux-fstab-fstab4-examples.txt'))
    write(host.mnttab, read_fixture('unix-samples', 'hpux-mnttab-scx-pal.txt')
          + '/dev/vg01/lvol1 /restore vxfs %s,dev=40010001 0 0 1213709800\n' % SEED_000)
    return host


def policy_args(host, policy, **extra):
    return dict({'policy': policy, 'fstab': os.path.join(host.etc, 'fstab'), 'mnttab': host.mnttab,
                 'journal_dir': os.path.join(host.root, 'journal'), 'sys_root': os.path.join(host.root, 'sys'),
                 'proc_root': os.path.join(host.root, 'proc')}, **extra)


SEED_000_POLICY = {
    'iotune_mounts': [{'path': '/restore', 'present': [], 'absent': ['mincache', 'convosync']}],
    'iotune_block_devices': [{'match': {'name': 'c0t6d0'}, 'read_ahead_kb': 1024}],
    'iotune_cache': {'dirty_ratio': 10},
}


def test_seed_000_on_hpux_audit_enforce_again_and_rollback(monkeypatch, hpux):
    fstab = os.path.join(hpux.etc, 'fstab')
    before = (read(fstab), read(hpux.mnttab))
    kind, result = run_main(monkeypatch, io_policy, policy_args(hpux, SEED_000_POLICY))
    assert kind == 'exit' and not result['changed'], result['msg']
    statuses = dict((check['id'], check['status']) for check in result['checks'])
    assert statuses == {'mount_options:/restore:absent:mincache': 'drift', 'mount_options:/restore:absent:convosync': 'drift',
                        'block_queue:HP-UX:platform': 'not_applicable', 'cache_limits:HP-UX:platform': 'not_applicable'}
    messages = dict((check['id'], check['message']) for check in result['checks'])
    assert 'not applicable on HP-UX: block-queue settings are read from sysfs' in messages['block_queue:HP-UX:platform']
    assert messages['cache_limits:HP-UX:platform'] == 'not applicable on HP-UX: iotune_cache.dirty_ratio (HP-UX has filecache_min, filecache_max)'
    assert (read(fstab), read(hpux.mnttab)) == before and hpux.ran[0] == ['uname', '-s']

    kind, result = run_main(monkeypatch, io_policy, policy_args(hpux, SEED_000_POLICY, mode='enforce', run_id='seed-000'))
    assert kind == 'exit' and result['changed'] and result['summary']['compliant'] == 2, result['msg']
    assert '/dev/vg01/lvol1 /restore vxfs delaylog 0 2\n' in read(fstab)
    assert 'ioerror=mwdisable,largefiles,delaylog,dev=40010001' in read(hpux.mnttab)

    kind, result = run_main(monkeypatch, io_policy, policy_args(hpux, SEED_000_POLICY, mode='enforce', run_id='again'))
    assert kind == 'exit' and not result['changed']

    kind, result = run_main(monkeypatch, io_rollback, {'run_id': 'seed-000', 'journal_dir': os.path.join(hpux.root, 'journal'),
                                                       'managed_files': [fstab], 'mnttab': hpux.mnttab})
    assert kind == 'exit' and result['changed'], result['msg']
    assert read(fstab) == before[0]
    assert '/restore vxfs %s,dev=40010001' % SEED_000 in read(hpux.mnttab)


def test_a_file_cache_kctune_refuses_fails_the_harden_before_any_change(monkeypatch, hpux):
    # issue 38, item 7: filecache_max above 90 % of the simulated 8 GiB; the remount of /restore used to be
    # made, then kctune refused the value at apply time, on every run
    policy = dict(SEED_000_POLICY, iotune_cache={'filecache_max': 8 * 1024 ** 3 * 95 // 100})
    fstab = os.path.join(hpux.etc, 'fstab')
    before = (read(fstab), read(hpux.mnttab), hpux(['kctune', '-P', 'name,current,expr'])[1])
    kind, audit = run_main(monkeypatch, io_policy, policy_args(hpux, policy))
    assert kind == 'exit', audit['msg']
    check = [c for c in audit['checks'] if c['id'] == 'cache_limits:filecache_max:filecache_max'][0]
    assert check['status'] == 'error' and check['message'].startswith(
        'iotune_cache.filecache_max: 8160437862 bytes is above 90 % of physical memory'), check['message']
    for check_mode in (True, False):
        kind, result = run_main(monkeypatch, io_policy, policy_args(hpux, policy, mode='enforce', run_id='fc-%s' % check_mode,
                                                                    _ansible_check_mode=check_mode))
        assert kind == 'fail' and result['msg'].startswith('nothing changed: iotune_cache.filecache_max: '), result['msg']
    assert (read(fstab), read(hpux.mnttab), hpux(['kctune', '-P', 'name,current,expr'])[1]) == before
    assert not os.path.exists(os.path.join(hpux.root, 'journal', 'fc-False.jsonl'))


@pytest.mark.parametrize('sysname', ['AIX', 'FreeBSD'])
@pytest.mark.parametrize('module, args', [
    (io_policy, lambda host: policy_args(host, SEED_000_POLICY)),
    (io_policy, lambda host: policy_args(host, SEED_000_POLICY, mode='enforce', run_id='other')),
    (io_facts, lambda host: {}),
    (io_snapshot, lambda host: {'name': 'before', 'snapshot_dir': os.path.join(host.root, 'snapshots')}),
    (io_rollback, lambda host: {'journal_dir': os.path.join(host.root, 'journal')}),
])
def test_a_host_of_another_system_is_refused_naming_it(monkeypatch, hpux, sysname, module, args):
    # issue 38, item 10: uname -s AIX or FreeBSD was audited (and enforced) as Linux
    with open(os.path.join(hpux.root, 'unix-sim', 'uname.json'), 'w') as handle:
        json.dump({'sysname': sysname, 'nodename': 'other', 'release': '1', 'version': '2', 'machine': 'x'}, handle)
    fstab = os.path.join(hpux.etc, 'fstab')
    before = read(fstab)
    kind, result = run_main(monkeypatch, module, args(hpux))
    assert kind == 'fail' and result['msg'].startswith("uname -s says '%s': iotune.storage manages Linux, SunOS (Solaris "
                                                       "and illumos) and HP-UX hosts only" % sysname), result
    assert hpux.ran == [['uname', '-s']] and read(fstab) == before
    assert not os.path.exists(os.path.join(hpux.root, 'journal')) and not os.path.exists(os.path.join(hpux.root, 'snapshots'))


def test_solaris_vfstab_is_the_default_table_and_rollback_manages_it(monkeypatch, tmp_path):
    host = simulated(monkeypatch, tmp_path, 'solaris')
    vfstab = os.path.join(host.etc, 'vfstab')
    write(vfstab, read_fixture('unix-samples', 'solaris-vfstab-puppet-1.txt')
          + '/dev/vx/dsk/datadg/vol01\t/dev/vx/rdsk/datadg/vol01\t/data\tvxfs\t2\tyes\t-\n')
    write(host.mnttab, read_fixture('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt') + VXFS_LINE)
    original = read(vfstab)
    args = policy_args(host, {'iotune_mounts': [{'path': '/data', 'present': ['mincache=closesync'], 'absent': []}]},
                       mode='enforce', run_id='sol-1')
    # the table io_policy edits when none is named: /etc/vfstab on SunOS (here under the test's root)
    monkeypatch.setitem(io_policy.PLATFORMS['solaris'], 'fstab', vfstab)
    del args['fstab']
    kind, result = run_main(monkeypatch, io_policy, args)
    assert kind == 'exit' and result['changed'], result['msg']
    assert read(vfstab).endswith('/dev/vx/dsk/datadg/vol01\t/dev/vx/rdsk/datadg/vol01\t/data\tvxfs\t2\tyes\tmincache=closesync\n')
    # io_rollback manages the platform's table without being told (its default list names Linux's files)
    kind, result = run_main(monkeypatch, io_rollback, {'run_id': 'sol-1', 'journal_dir': os.path.join(host.root, 'journal'),
                                                       'mnttab': host.mnttab})
    assert kind == 'exit' and result['changed'], result['msg']
    assert read(vfstab) == original
    assert VXFS_LINE.split('\t')[3] in read(host.mnttab)


def test_solaris_ufs_forcedirectio_by_remount_and_back(monkeypatch, tmp_path):
    host = simulated(monkeypatch, tmp_path, 'solaris')
    vfstab = os.path.join(host.etc, 'vfstab')
    write(vfstab, read_fixture('unix-samples', 'solaris-vfstab-puppet-1.txt'))
    write(host.mnttab, read_fixture('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt'))
    before = (read(vfstab), read(host.mnttab))
    args = policy_args(host, {'iotune_mounts': [{'path': '/', 'present': ['forcedirectio'], 'absent': []}]},
                       mode='enforce', run_id='ufs-1', fstab=vfstab)
    kind, result = run_main(monkeypatch, io_policy, args)
    assert kind == 'exit' and result['changed'] and result['summary']['compliant'] == 1, result['msg']
    remount, = [argv for argv in host.ran if argv[1:2] == ['-F']]
    assert remount[1:4] == ['-F', 'ufs', '-o'] and remount[4].endswith(',forcedirectio') and remount[5:] == ['/dev/dsk/c9t0d0s0', '/']
    root_line, = [line for line in read(vfstab).splitlines() if line.startswith('/dev/dsk/c0d0s0 ')]
    assert root_line == '/dev/dsk/c0d0s0 /dev/rdsk/c0d0s0        /       ufs     1       no      forcedirectio'
    kind, result = run_main(monkeypatch, io_rollback, {'run_id': 'ufs-1', 'journal_dir': os.path.join(host.root, 'journal'),
                                                       'managed_files': [vfstab], 'mnttab': host.mnttab})
    assert kind == 'exit' and result['changed'], result['msg']
    assert read(vfstab) == before[0]
    assert 'forcedirectio' not in read(host.mnttab)
