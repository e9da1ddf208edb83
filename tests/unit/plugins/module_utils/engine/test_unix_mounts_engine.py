# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed 000 on a simulated HP-UX host, through the engine and the rollback: the mount options of
/restore in HP-UX fstab and live, remounted by tests/unix-sim/mount (the mount(1M) SIMULATOR, which
keeps a simulated /etc/mnttab), journalled, and put back exactly; forged unix_remount records refused."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal
from ansible_collections.iotune.storage.plugins.module_utils.act.records import Trusted
from ansible_collections.iotune.storage.plugins.module_utils.act.rollback import RollbackError, roll_back
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.mount_options import UnixMountOptions
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import EngineError, run_concerns
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_mounts import parse_mnttab
from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture
from ansible_collections.iotune.storage.tests.unit.simulators import SimulatedUnixHost

SEED_000 = 'ioerror=mwdisable,largefiles,delaylog,mincache=direct,convosync=direct'
REQUEST = [{'path': '/restore', 'present': [], 'absent': ['mincache', 'convosync']}]


def live(host, path='/restore'):
    with open(host.mnttab) as handle:
        return [entry['options'] for entry in parse_mnttab(handle.read()) if entry['mount_point'] == path][-1]


@pytest.fixture(name='host')
def host_fixture(tmp_path):
    """HP-UX: the fstab of fstab(4)'s examples (its last line seed 000's /restore) and the real mnttab
    sample with /restore mounted as seed 000 had it."""
    host = SimulatedUnixHost(tmp_path, 'hpux')
    host.fstab, host.journal_dir = os.path.join(host.etc, 'fstab'), str(tmp_path / 'journal')
    with open(host.fstab, 'w') as handle:
        handle.write(read_fixture('unix-doc', 'hpux-fstab-fstab4-examples.txt'))
    with open(host.mnttab, 'w') as handle:
        handle.write(read_fixture('unix-samples', 'hpux-mnttab-scx-pal.txt')
                     + '/dev/vg01/lvol1 /restore vxfs %s,dev=40010001 0 0 1213709800\n' % SEED_000)
    return host


def enforce(host, requests=None):
    return run_concerns([UnixMountOptions(host, requests or REQUEST, 'hpux', fstab=host.fstab, mnttab=host.mnttab)], host,
                        run_id='seed-000', journal_dir=host.journal_dir)


def test_seed_000_enforced_then_idempotent_then_rolled_back_exactly(host):
    fstab_before = open(host.fstab).read()
    result = enforce(host)
    assert result['changed'] and result['summary']['compliant'] == 2
    assert live(host) == ['ioerror=mwdisable', 'largefiles', 'delaylog', 'dev=40010001']
    assert '/dev/vg01/lvol1 /restore vxfs delaylog 0 2\n' in open(host.fstab).read()
    remount, = [argv for argv in host.ran if argv[1:2] == ['-F']]
    assert remount[1:] == ['-F', 'vxfs', '-o', 'remount,ioerror=mwdisable,largefiles,delaylog', '/dev/vg01/lvol1', '/restore']

    again = enforce(host)
    assert not again['changed'] and again['summary']['compliant'] == 2

    trusted = Trusted([host.fstab], mount_bin=host.bin('mount'), mnttab=host.mnttab)
    done = roll_back(host.journal_dir, 'seed-000', trusted, host)
    assert done['changed'] and done['errors'] == []
    assert open(host.fstab).read() == fstab_before
    assert live(host) == SEED_000.split(',') + ['dev=40010001']


def test_a_remount_the_mount_refuses_changes_nothing_and_puts_the_fstab_line_back(host):
    fstab_before, mnttab_before = open(host.fstab).read(), open(host.mnttab).read()
    with pytest.raises(EngineError, match='line 6 of .*fstab was put back'):
        enforce(host, [{'path': '/restore', 'present': ['mincache=sometimes'], 'absent': []}])
    assert (open(host.fstab).read(), open(host.mnttab).read()) == (fstab_before, mnttab_before)


def forged(host, target='/restore', before=('delaylog',), fstype='vxfs'):
    """A unix_remount record written into the journal as a forger would."""
    Journal(host.journal_dir, 'forged', 'mount_options').record('unix_remount', target, list(before), ['delaylog'], fstype=fstype)


@pytest.mark.parametrize('fields, field', [
    ({'fstype': 'nfs'}, 'fstype'),
    ({'fstype': '/bin/sh'}, 'fstype'),
    ({'before': ['delaylog,mincache=direct']}, 'before'),
    ({'target': 'restore'}, 'target'),
])
def test_a_forged_remount_record_restores_nothing_and_runs_nothing(host, fields, field):
    forged(host, **fields)
    mnttab_before = open(host.mnttab).read()
    with pytest.raises(RollbackError, match='field %s' % field):
        roll_back(host.journal_dir, 'forged', Trusted([host.fstab], mount_bin=host.bin('mount'), mnttab=host.mnttab), host)
    assert host.ran == [] and open(host.mnttab).read() == mnttab_before


def test_a_record_of_a_mount_that_is_now_another_type_is_not_restored(host):
    forged(host, fstype='ufs')
    with pytest.raises(RollbackError, match='/restore is now a vxfs mount, not ufs'):
        roll_back(host.journal_dir, 'forged', Trusted([host.fstab], mount_bin=host.bin('mount'), mnttab=host.mnttab), host)
    assert host.ran == []
