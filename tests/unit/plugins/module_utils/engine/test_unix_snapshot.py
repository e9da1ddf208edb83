# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a snapshot reads on Solaris and HP-UX (engine.unix_snapshot), with the command SIMULATORS of
tests/unix-sim answering: the mnttab mounts joined with vfstab, the VxFS package from pkginfo or swlist,
and the host's own identity (uname -n, uname -r, hostid or uname -i)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

from ansible_collections.iotune.storage.plugins.module_utils.engine.unix_snapshot import unix_host_identity, unix_snapshot_facts
from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture
from ansible_collections.iotune.storage.tests.unit.simulators import SimulatedUnixHost

VXFS = '/dev/vx/dsk/datadg/vol01\t/data\tvxfs\trw,suid,delaylog,largefiles,ioerror=mwdisable,dev=4fc0f00\t1258671500\n'
LINUX_FACTS = {'mounts': {'/': {}}, 'fstab': [], 'block_devices': {'vda': {}}, 'vm': {'dirty_ratio': 20},
               'vxfs': {'vxtunefs_path': None, 'tunefstab': [], 'tunefstab_path': '/etc/vx/tunefstab'}, 'errors': []}


def solaris(tmp_path):
    host = SimulatedUnixHost(tmp_path, 'solaris')
    with open(os.path.join(host.etc, 'vfstab'), 'w') as handle:
        handle.write(read_fixture('unix-samples', 'solaris-vfstab-puppet-1.txt')
                     + '/dev/vx/dsk/datadg/vol01\t/dev/vx/rdsk/datadg/vol01\t/data\tvxfs\t2\tyes\tdelaylog\n')
    with open(host.mnttab, 'w') as handle:
        handle.write(read_fixture('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt') + VXFS)
    with open(os.path.join(host.root, 'unix-sim', 'pkginfo.json'), 'w') as handle:
        json.dump({'VRTSvxfs': {'NAME': 'VxFS (simulated)', 'CATEGORY': 'system', 'ARCH': 'sparc', 'VERSION': '7.4,REV=sim1'}}, handle)
    return host


def test_a_solaris_snapshot_has_the_mnttab_mounts_the_vfstab_and_the_vxfs_package(tmp_path):
    host = solaris(tmp_path)
    facts, manager, packages = unix_snapshot_facts('solaris', LINUX_FACTS, host, '/etc/vx/tunefstab', root=host.root)
    assert (manager, packages) == ('pkginfo', {'VRTSvxfs': '7.4'})
    data = facts['mounts']['/data']
    assert (data['source'], data['fstype'], data['root'], data['options_fstab']) == ('/dev/vx/dsk/datadg/vol01', 'vxfs', '/', ['delaylog'])
    assert 'dev=4fc0f00' not in data['options_live']
    assert facts['mounts']['/data']['mount_id'] > facts['mounts']['/']['mount_id']
    assert [entry for entry in facts['fstab'] if entry['file'] == '/data'][0]['vfstype'] == 'vxfs'
    # Linux's block devices and vm sysctls are not the host's
    assert (facts['block_devices'], facts['vm'], facts['platform']['system']) == ({}, {}, 'SunOS')
    # the ZFS ARC cap as io_facts reports it (no kstat state and no /etc/system here: unknown, not a failure)
    assert facts['cache']['zfs_arc_max']['applies'] == 'at the next boot'


def test_the_host_is_known_by_its_hostid_on_solaris_and_uname_i_on_hpux(tmp_path):
    errors = []
    assert unix_host_identity('solaris', solaris(tmp_path / 'sol'), errors)['hostname'] == 'sol'
    hpux = SimulatedUnixHost(tmp_path / 'hp', 'hpux')
    identity = unix_host_identity('hpux', hpux, errors)
    assert identity['kernel_release'] == 'B.11.31' and identity['machine_id'].isdigit() and errors == []
    assert hpux.ran[-1] == ['uname', '-i']


def test_a_host_whose_pkginfo_knows_no_vxfs_has_no_vxfs_package(tmp_path):
    host = solaris(tmp_path)
    os.remove(os.path.join(host.root, 'unix-sim', 'pkginfo.json'))
    facts, manager, packages = unix_snapshot_facts('solaris', LINUX_FACTS, host, '/etc/vx/tunefstab', root=host.root)
    assert packages == {} and manager == 'pkginfo'
