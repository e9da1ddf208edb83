# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_facts against lsblk on util-linux's real sysfs dumps (tests/unit/fixtures/util-linux-lsblk, issue 26).

Each dump is extracted into a tmp dir and gathered with sys_root, proc_root, dev_root and (for the one
with udev data) a udev database made of it; every row of lsblk's expected tables is compared, column
by column, with what io_facts says of that device.  Where lsblk prints a value differently, the test
converts io_facts' value the way lsblk prints it (sizes, flags, the scheduler of a queue without a
choice, the udev-mangled model lsblk --sysroot reads); it never drops a row or a column it supports.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import tarfile

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.iofacts import gather_io_facts
from ansible_collections.iotune.storage.tests.unit.lsblk_dumps import (
    DUMPS, extract, human_size, lsblk_rows, safe_members, udev_database, udev_mangle, udev_properties)

# the columns compared; lsblk's other columns (DISC-*, WSAME, HOTPLUG, RAND, STATE, ALIGNMENT, ZONED) are
# not io_facts facts, nor are a partition's own MAJ:MIN, SIZE and RO
QUEUE_COLUMNS = ('RA', 'RQ-SIZE', 'MIN-IO', 'OPT-IO', 'PHY-SEC', 'LOG-SEC', 'ROTA', 'SCHED')

# how many values each dump compares: a change here means a row or a column stopped (or started) being compared
COMPARED = {'simple-nvme': 200, 'simple-lvm': 348, 'multi-devs-bcachefs': 302}


@pytest.fixture(name='gathered', scope='module')
def gathered_fixture(tmp_path_factory):
    """{dump: (root, io_facts)} of the three dumps."""
    base = str(tmp_path_factory.mktemp('lsblk'))
    result = {}
    for dump in DUMPS:
        root = extract(dump, base)
        db_dir = udev_database(root, os.path.join(base, dump + '-udev'))
        facts = gather_io_facts(gather=['block_devices', 'mounts'], sys_root=os.path.join(root, 'sys'),
                                proc_root=os.path.join(root, 'proc'), dev_root=os.path.join(root, 'dev'),
                                fstab_path=os.path.join(base, 'no-fstab'), udev_db_dir=db_dir)
        result[dump] = (root, facts)
    return result


def _flag(value):
    return '1' if value else '0'


def _scheduler(info):
    # lsblk prints the bracketed name of queue/scheduler; a queue with no choice (bio-based dm) reads a bare
    # 'none', which io_facts reports as the active 'none' and lsblk leaves blank
    return '' if info['schedulers'] == [info['scheduler']] else info['scheduler'] or ''


def _queue_columns(info):
    return {'RA': str(info['read_ahead_kb']), 'RQ-SIZE': str(info['nr_requests']), 'MIN-IO': str(info['minimum_io_size']),
            'OPT-IO': str(info['optimal_io_size']), 'PHY-SEC': str(info['physical_block_size']),
            'LOG-SEC': str(info['logical_block_size']), 'ROTA': _flag(info['rotational']), 'SCHED': _scheduler(info)}


def _mount_columns(facts, kname):
    points = sorted(point for point, mount in facts['mounts'].items() if kname in mount['members'])
    return {'MOUNTPOINT': points[0] if points else '', 'MOUNTPOINTS': '\n'.join(points),
            # io_facts knows the type of mounted file systems (lsblk reads udev's ID_FS_TYPE)
            'FSTYPE': facts['mounts'][points[0]]['fstype'] if points else ''}


def _device_columns(root, facts, row):
    """What io_facts says of lsblk's row, as lsblk prints it."""
    devices, kname = facts['block_devices'], row['KNAME']
    children = sorted(set(r['KNAME'] for r in row['_rows'] if r['_parent'] == kname))
    if kname not in devices:
        disks = [name for name, info in devices.items() if kname in info['partitions']]
        assert len(disks) == 1, '%s: partition of %s' % (kname, disks)
        columns = _queue_columns(devices[disks[0]])
        columns.update({'NAME': kname, 'TYPE': 'part', 'PKNAME': disks[0], 'RM': _flag(devices[disks[0]]['removable']),
                        '(children)': []})
    else:
        info = devices[kname]
        columns = _queue_columns(info)
        columns.update({
            'NAME': info['dm_name'] or kname, 'MAJ:MIN': info['dev'], 'RM': _flag(info['removable']), 'RO': _flag(info['ro']),
            'SIZE': human_size(info['size_bytes']), 'TYPE': info['type'],
            'PKNAME': row['_parent'] if row['_parent'] in info['parents'] else ','.join(info['parents']),
            '(children)': sorted(info['partitions'] + info['holders'])})
        if not info['parents']:
            # lsblk --sysroot prints udev's ID_MODEL, the udev-mangled form of the decoded ID_MODEL_ENC io_facts gives
            mangled = 'ID_MODEL_ENC' in udev_properties(root, kname)
            columns.update({'MODEL': (udev_mangle(info['model']) if mangled else info['model']) or '',
                            'VENDOR': info['vendor'] or '', 'REV': info['revision'] or ''})
    columns.update(_mount_columns(facts, kname))
    row['(children)'] = children
    return columns


@pytest.mark.parametrize('dump', DUMPS)
def test_io_facts_equals_lsblk(gathered, dump):
    root, facts = gathered[dump]
    rows = lsblk_rows(dump)
    differences, compared = [], 0
    for row in rows:
        row['_rows'] = rows
        mine = _device_columns(root, facts, row)
        for column in sorted(set(mine) & set(row)):
            compared += 1
            if mine[column] != row[column]:
                differences.append((row['KNAME'], column, row[column], mine[column]))
    assert differences == []
    assert compared == COMPARED[dump]


@pytest.mark.parametrize('dump', DUMPS)
def test_every_device_is_in_lsblk(gathered, dump):
    """No device io_facts lists is missing from lsblk's tree, nor the reverse."""
    dummy, facts = gathered[dump]
    knames = set(row['KNAME'] for row in lsblk_rows(dump))
    listed = set(facts['block_devices'])
    for info in facts['block_devices'].values():
        listed.update(info['partitions'])
    assert listed == knames


def _lsblk_identity(root, kname):
    """lsblk's WWN and SERIAL of a whole device from the dump's udev data (misc-utils/lsblk-properties.c
    get_properties_by_file: ID_WWN_WITH_EXTENSION, ID_WWN; SCSI_IDENT_SERIAL, ID_SCSI_SERIAL, ID_SERIAL_SHORT,
    ID_SERIAL); the expected files have no such columns."""
    props = udev_properties(root, kname)
    wwn = props.get('ID_WWN_WITH_EXTENSION') or props.get('ID_WWN')
    serial = [props[key] for key in ('SCSI_IDENT_SERIAL', 'ID_SCSI_SERIAL', 'ID_SERIAL_SHORT', 'ID_SERIAL') if props.get(key)]
    return wwn, serial[0] if serial else None


def test_wwn_and_serial_equal_lsblk_with_udev(gathered):
    root, facts = gathered['multi-devs-bcachefs']
    whole = [name for name, info in facts['block_devices'].items() if not info['parents']]
    assert sorted(whole) == ['nvme0n1', 'sda', 'sdb', 'sdc', 'sr0']
    found = dict((name, (facts['block_devices'][name]['wwn'], facts['block_devices'][name]['serial'])) for name in whole)
    assert found == dict((name, _lsblk_identity(root, name)) for name in whole)


# the same disks under kernel 4.16 (simple-nvme, no udev data) and 6.17 (multi-devs-bcachefs, udev data):
# (type, wwid as sysfs has it, wwn, serial, model)
IDENTITIES = {
    'simple-nvme': {
        'sda': ('disk', 't10.ATA     KINGSTON SH103S3240G                    50026B724B09A1FF',
                '0x50026b724b09a1ff', '50026B724B09A1FF', 'KINGSTON SH103S3'),
        'sdb': ('disk', 't10.ATA     WDC WD800JD-00MSA1                           WD-WMAM9XE78956',
                None, 'WD-WMAM9XE78956', 'WDC WD800JD-00MS'),
        'nvme0n1': ('disk', 'nvme.1987-35303032364237323832303336303144-4b494e4753544f4e20534b433130303032343047-00000001',
                    None, '50026B728203601D', 'KINGSTON SKC1000240G'),
    },
    'simple-lvm': {
        'dm-0': ('lvm', None, None, None, None),
        'loop0': ('loop', None, None, None, None),
    },
    'multi-devs-bcachefs': {
        'sda': ('disk', 'naa.50026b724b09a1ff', '0x50026b724b09a1ff', '50026B724B09A1FF', 'KINGSTON SH103S3240G'),
        'sdb': ('disk', 't10.ATA     WDC WD800JD-00MSA1                           WD-WMAM9XE78956',
                None, 'WD-WMAM9XE78956', 'WDC WD800JD-00MSA1'),
        'sdc': ('disk', 'naa.33333330000036b0', '0x33333330000036b0', '14000', 'scsi_debug'),
        'sr0': ('rom', None, None, 'K4LC2EC0449', 'HL-DT-ST DVD+/-RW GH82N'),
        'nvme0n1': ('disk', 'eui.00000000000000000026b7283b12b315', 'eui.00000000000000000026b7283b12b315',
                    '50026B7283B12B31', 'KINGSTON SFYR2S1T0'),
    },
}


@pytest.mark.parametrize('dump', DUMPS)
def test_identities(gathered, dump):
    """The SATA SSD has the same WWN under both kernels (4.16: from vpd_pg83, its sysfs wwid a T10 string;
    6.17: the sysfs wwid), its serial from vpd_pg80 without udev; a disk without a WWN has none."""
    dummy, facts = gathered[dump]
    devices = facts['block_devices']
    found = dict((name, tuple(devices[name][key] for key in ('type', 'wwid', 'wwn', 'serial', 'model'))) for name in IDENTITIES[dump])
    assert found == IDENTITIES[dump]


def test_multi_device_file_system_names_every_member(gathered):
    dummy, facts = gathered['multi-devs-bcachefs']
    mount = facts['mounts']['/mnt/test']
    assert (mount['source'], mount['device'], mount['partition'], mount['members'], mount['backing_disks']) == (
        '/dev/sdc1:/dev/sdc2', 'sdc', 'sdc1', ['sdc1', 'sdc2'], ['sdc'])
    assert facts['mounts']['/home/data']['members'] == ['nvme0n1p1']
    assert facts['mounts']['/proc']['members'] == []


def test_without_udev_the_model_is_the_sysfs_one(gathered, tmp_path):
    root, dummy = gathered['multi-devs-bcachefs']
    facts = gather_io_facts(gather=['block_devices'], sys_root=os.path.join(root, 'sys'), udev_db_dir=None)
    devices = facts['block_devices']
    assert [devices[name]['model'] for name in ('sda', 'sr0')] == ['KINGSTON SH103S3', 'DVD+-RW GH82N']
    assert [devices[name]['serial'] for name in ('sda', 'sr0')] == ['50026B724B09A1FF', None]
    assert devices['sda']['wwn'] == '0x50026b724b09a1ff'


def _archive(path, members):
    with tarfile.open(path, 'w') as archive:
        for name, kind, target in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = target or ''
            archive.addfile(info)
    return tarfile.open(path)


@pytest.mark.parametrize('name, kind, target, refused', [
    ('dump/sys/block/sda', tarfile.SYMTYPE, '../devices/sda', False),
    ('dump/dev/sda', tarfile.BLKTYPE, None, None),          # a device node is skipped
    ('dump/sys/escape', tarfile.SYMTYPE, '../../../etc', True),
    ('dump/sys/abs', tarfile.SYMTYPE, '/etc', True),
    ('../outside', tarfile.REGTYPE, None, True),
    ('/abs', tarfile.REGTYPE, None, True),
])
def test_extraction_refuses_what_leaves_the_tree(tmp_path, name, kind, target, refused):
    archive = _archive(str(tmp_path / 'a.tar'), [(name, kind, target)])
    dest = str(tmp_path / 'out')
    if refused:
        with pytest.raises(ValueError):
            safe_members(archive, dest)
    else:
        assert [m.name for m in safe_members(archive, dest)] == ([name] if refused is False else [])
