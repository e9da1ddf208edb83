# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.sysfs import (
    backing_disks,
    block_dir,
    parse_scheduler,
    read_block_devices,
    resolve_devno,
)
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import INT_SETTINGS, QUEUE_SETTINGS


@pytest.mark.parametrize('text, active, available', [
    ('none [mq-deadline] kyber bfq \n', 'mq-deadline', ['none', 'mq-deadline', 'kyber', 'bfq']),
    ('[none] mq-deadline kyber bfq', 'none', ['none', 'mq-deadline', 'kyber', 'bfq']),
    ('noop deadline [cfq]', 'cfq', ['noop', 'deadline', 'cfq']),
    ('none', 'none', ['none']),
    ('none mq-deadline', None, ['none', 'mq-deadline']),
    ('', None, []),
    (None, None, []),
])
def test_parse_scheduler(text, active, available):
    assert parse_scheduler(text) == (active, available)


# Values captured from the real sysfs of the test VM (sysfs/vm-loop-partitions.json).
@pytest.mark.parametrize('device, expected', [
    ('vda', {
        'read_ahead_kb': 8192, 'max_sectors_kb': 4096, 'max_hw_sectors_kb': 2147483647, 'nr_requests': 256, 'rq_affinity': 1,
        'logical_block_size': 512, 'physical_block_size': 4096, 'minimum_io_size': 4096, 'optimal_io_size': 0,
        'scheduler': 'mq-deadline', 'schedulers': ['none', 'mq-deadline', 'kyber', 'bfq'], 'rotational': True,
        'size_bytes': 274877906944, 'dev': '254:0', 'ro': False, 'removable': False, 'parents': [], 'holders': [],
        'partitions': [], 'wwn': None, 'serial': 'overlayblk', 'model': None, 'vendor': '0x1af4', 'dm_name': None,
        'type': 'disk', 'dm_uuid': None, 'wwid': None, 'revision': None,
    }),
    ('loop0', {
        'read_ahead_kb': 2560, 'max_sectors_kb': 1280, 'max_hw_sectors_kb': 1280, 'nr_requests': 128, 'rq_affinity': 1,
        'logical_block_size': 512, 'physical_block_size': 512, 'minimum_io_size': 512, 'optimal_io_size': 0,
        'scheduler': 'none', 'schedulers': ['none', 'mq-deadline', 'kyber', 'bfq'], 'rotational': True,
        'size_bytes': 67108864, 'dev': '7:0', 'ro': False, 'removable': False, 'parents': [], 'holders': [],
        'partitions': ['loop0p1', 'loop0p2'], 'wwn': None, 'serial': None, 'model': None, 'vendor': None,
        'dm_name': None, 'type': 'loop', 'dm_uuid': None, 'wwid': None, 'revision': None,
    }),
    # zram has no scheduler and no nr_requests or rq_affinity attribute at all
    ('zram0', {
        'read_ahead_kb': 128, 'max_sectors_kb': 124, 'max_hw_sectors_kb': 124, 'nr_requests': None, 'rq_affinity': None,
        'logical_block_size': 4096, 'physical_block_size': 4096, 'minimum_io_size': 4096, 'optimal_io_size': 4096,
        'scheduler': None, 'schedulers': [], 'rotational': False,
        'size_bytes': 0, 'dev': '253:0', 'ro': False, 'removable': False, 'parents': [], 'holders': [],
        'partitions': [], 'wwn': None, 'serial': None, 'model': None, 'vendor': None, 'dm_name': None,
        'type': 'disk', 'dm_uuid': None, 'wwid': None, 'revision': None,
    }),
])
def test_real_block_devices(sysfs_real, device, expected):
    errors = []
    devices = read_block_devices(sysfs_real, errors)
    assert sorted(devices) == ['loop0', 'loop1', 'loop2', 'vda', 'zram0']
    assert devices[device] == dict(expected, **_captured_settings(sysfs_real, device, expected))
    assert errors == []


def _captured_settings(sys_root, device, expected):
    """The integer queue settings of the table that ``expected`` does not name, as the captured sysfs has
    them (None where the device lacks the attribute): a setting added to the table is read like the others."""
    found = {}
    for name in INT_SETTINGS:
        if name not in expected:
            path = os.path.join(sys_root, 'block', device, QUEUE_SETTINGS[name]['sysfs'])
            found[name] = None
            if os.path.exists(path):
                with open(path) as handle:
                    found[name] = int(handle.read())
    return found


@pytest.mark.parametrize('device, field, expected', [
    ('loop1', 'size_bytes', 335544320),
    ('loop1', 'holders', ['md0']),
    ('loop2', 'rotational', False),
    ('dm-0', 'parents', ['loop0p2']),
    ('dm-0', 'dm_name', 'vg0-data'),
    ('dm-0', 'scheduler', 'none'),
    ('dm-0', 'optimal_io_size', 65536),
    ('dm-1', 'parents', ['md0']),
    ('md0', 'parents', ['loop1', 'loop2']),
    ('md0', 'holders', ['dm-1']),
    ('md0', 'scheduler', None),
    ('md0', 'nr_requests', None),
    ('sda', 'partitions', ['sda1', 'sda2', 'sda10']),
    ('sda', 'wwid', 'naa.5000c500a1b2c3d4'),
    ('sda', 'wwn', '0x5000c500a1b2c3d4'),       # as lsblk prints it
    ('sda', 'type', 'disk'),
    ('dm-0', 'type', 'lvm'),                      # dm/uuid LVM-...
    ('dm-0', 'dm_uuid', 'LVM-Qm3cXbN0dE1fG2hI3jK4lM5nO6pQ7rS8tU9vW0xY1zA2bC3dE4fG5hI6jK7l'),
    ('md0', 'type', 'raid1'),                     # md/level
    ('sda', 'vendor', 'ATA'),
    ('sda', 'model', 'ST4000NM0035-1V4'),
    ('sda', 'scheduler', 'mq-deadline'),
    ('sda', 'size_bytes', 4000787030016),
    ('nvme0n1', 'wwn', 'eui.0025388b71b2c3d4'),
    ('nvme0n1', 'model', 'Samsung SSD 980 PRO 1TB'),
    ('nvme0n1', 'serial', 'S5GXNF0R123456A'),
    ('nvme0n1', 'nr_requests', 1023),
    ('xvdf', 'read_ahead_kb', None),
    ('xvdf', 'nr_requests', None),
    ('xvdf', 'size_bytes', None),
    ('xvdf', 'dev', '202:80'),
    ('xvdf', 'holders', []),
    ('vdz', 'read_ahead_kb', None),
    ('vdz', 'scheduler', None),
])
def test_constructed_block_devices(sysfs_full, device, field, expected):
    devices = read_block_devices(sysfs_full)
    assert devices[device][field] == expected


def test_partial_sysfs_errors(sysfs_full):
    errors = []
    read_block_devices(sysfs_full, errors)
    block = os.path.join(sysfs_full, 'block')
    assert errors == [
        '%s/vdz: no queue directory (partial sysfs?)' % block,
        'cannot read %s/xvdf/queue/read_ahead_kb: Is a directory' % block,
        "%s/xvdf/queue/nr_requests: not an integer: ''" % block,
        "%s/xvdf/size: not an integer: 'garbage'" % block,
    ]


def test_no_sysfs(tmp_path):
    errors = []
    assert read_block_devices(str(tmp_path), errors) == {}
    assert len(errors) == 1 and errors[0].startswith('cannot list %s/block' % tmp_path)


@pytest.mark.parametrize('major, minor, expected', [
    (254, 0, ('vda', None)),
    (259, 0, ('loop0', 'loop0p1')),
    (259, 1, ('loop0', 'loop0p2')),
    (7, 1, ('loop1', None)),
    (252, 0, ('dm-0', None)),
    (252, 1, ('dm-1', None)),
    (9, 0, ('md0', None)),
    (8, 2, ('sda', 'sda2')),
    (0, 40, (None, None)),
    (8, 99, (None, None)),
])
def test_resolve_devno(sysfs_full, major, minor, expected):
    assert resolve_devno(sysfs_full, major, minor) == expected


@pytest.mark.parametrize('name, expected', [
    ('vda', ['vda']),
    ('loop0p1', ['loop0']),
    ('loop0', ['loop0']),
    ('dm-0', ['loop0']),
    ('md0', ['loop1', 'loop2']),
    ('dm-1', ['loop1', 'loop2']),
    # sda partitions have no /sys/class/block link here: found by scanning /sys/block
    ('sda10', ['sda']),
    ('nosuch', ['nosuch']),
])
def test_backing_disks(sysfs_full, name, expected):
    assert backing_disks(sysfs_full, name) == expected


def test_block_dir_is_real_path(sysfs_full):
    assert block_dir(sysfs_full, 'loop0p1') == os.path.join(os.path.realpath(sysfs_full), 'devices/virtual/block/loop0/loop0p1')
    assert block_dir(sysfs_full, 'nosuch') is None


def test_backing_disks_survives_a_cycle(tmp_path, build_tree):
    root = build_tree(tmp_path / 'sys', 'sysfs/constructed-dm-md.json')
    # corrupt: make md0 a slave of dm-1 and dm-1 a slave of md0
    os.symlink('../../dm-1', os.path.join(root, 'devices/virtual/block/md0/slaves/dm-1'))
    assert backing_disks(root, 'dm-1') == ['loop1', 'loop2']
