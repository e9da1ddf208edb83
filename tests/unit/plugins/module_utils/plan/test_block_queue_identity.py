# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A block queue request matched by WWN or serial finds the same disk under kernel 4.16 and 6.17 (issue 26).

util-linux's real dumps hold the same two SATA disks under both kernels: the KINGSTON SSD's sysfs wwid is
``t10.ATA     KINGSTON SH103S3240G ...`` under 4.16 (simple-nvme, no udev data) and
``naa.50026b724b09a1ff`` under 6.17 (multi-devs-bcachefs, with udev data); the WDC disk has no WWN.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse import udev as _udev
from ansible_collections.iotune.storage.plugins.module_utils.plan import block_queue as bq
from ansible_collections.iotune.storage.tests.unit.lsblk_dumps import extract, udev_database

KERNELS = {'4.16': 'simple-nvme', '6.17': 'multi-devs-bcachefs'}
KINGSTON_T10 = 't10.ATA     KINGSTON SH103S3240G                    50026B724B09A1FF'


@pytest.fixture(name='hosts', scope='module')
def hosts_fixture(tmp_path_factory):
    """{kernel: (sys_root, proc_root, udev db_dir)}."""
    base = str(tmp_path_factory.mktemp('kernels'))
    result = {}
    for kernel, dump in KERNELS.items():
        root = extract(dump, base)
        db_dir = udev_database(root, os.path.join(base, dump + '-udev')) or os.path.join(base, 'no-udev')
        result[kernel] = (os.path.join(root, 'sys'), os.path.join(root, 'proc'), db_dir)
    return result


@pytest.mark.parametrize('kernel', sorted(KERNELS))
@pytest.mark.parametrize('match, names', [
    ({'wwn': 'naa.50026b724b09a1ff'}, ['sda']),
    ({'wwn': '0x50026B724B09A1FF'}, ['sda']),
    ({'wwn': 'wwn-0x50026b724b09a1ff'}, ['sda']),
    ({'wwn': KINGSTON_T10}, ['sda']),                 # a policy written against kernel 4.16's wwid
    ({'wwn': 'naa.33333330000036b0'}, {'4.16': [], '6.17': ['sdc']}),   # the scsi_debug disk is only in 6.17's dump
    ({'serial': '50026B724B09A1FF'}, ['sda']),         # vpd_pg80 (4.16) and udev's ID_SERIAL_SHORT (6.17)
    ({'serial': 'WD-WMAM9XE78956'}, ['sdb']),          # vpd_pg80 pads it with leading spaces
    ({'serial': ' WD-WMAM9XE78956 '}, ['sdb']),
    ({'serial': '14000'}, {'4.16': [], '6.17': ['sdc']}),
    ({'wwn': 't10.ATA     WDC WD800JD-00MSA1                           WD-WMAM9XE78956'}, ['sdb']),
])
def test_match_survives_the_kernel_upgrade(hosts, kernel, match, names):
    sys_root, proc_root, db_dir = hosts[kernel]
    found, dummy, problem = bq.resolve_match(match, sys_root, proc_root, db_dir)
    expected = names[kernel] if isinstance(names, dict) else names
    assert found == expected
    assert (problem is None) == bool(expected)


def test_a_disk_without_wwn_matches_no_wwn(hosts):
    """The WDC disk's t10 text holds its serial; a WWN made of it matches nothing."""
    for sys_root, proc_root, db_dir in hosts.values():
        found, dummy, problem = bq.resolve_match({'wwn': '0xWD-WMAM9XE78956'}, sys_root, proc_root, db_dir)
        assert found == [] and problem.startswith('no block device has WWN')


def test_the_udev_rule_matches_under_both_kernels(hosts):
    """The managed rule's ATTRS{wwid} lists every form a kernel gives the SSD's wwid: written under either
    kernel, it matches the wwid of the other."""
    identities = {}
    for kernel, (sys_root, dummy, db_dir) in hosts.items():
        identities[kernel], warning = bq.rule_identity(sys_root, 'sda', _udev.read_db(db_dir, '8:0'))
        assert warning is None
    assert identities['4.16'] == 'ENV{DEVTYPE}=="disk", ATTRS{wwid}=="%s|naa.50026b724b09a1ff"' % KINGSTON_T10
    assert identities['6.17'] == 'ENV{DEVTYPE}=="disk", ATTRS{wwid}=="naa.50026b724b09a1ff|%s"' % KINGSTON_T10
    for kernel, identity in identities.items():
        pattern = identity.split('ATTRS{wwid}=="')[1][:-1]
        for wwid in (KINGSTON_T10, 'naa.50026b724b09a1ff'):
            assert _udev.glob_match(pattern, wwid), (kernel, wwid)


def test_the_udev_rule_of_a_disk_without_wwn_keeps_its_wwid(hosts):
    sys_root, dummy, db_dir = hosts['6.17']
    identity, dummy = bq.rule_identity(sys_root, 'sdb', _udev.read_db(db_dir, '8:16'))
    assert identity == ('ENV{DEVTYPE}=="disk", ATTRS{wwid}=="t10.ATA     WDC WD800JD-00MSA1                           '
                        'WD-WMAM9XE78956"')
