# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import POLICY_KEYS, schema_keys
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import (
    buffer_size_text,
    cache_sysctl,
    normalize_policy,
    parse_memory_high,
    validate_copy_tools,
    validate_mount_entry,
    validate_policy,
)
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import absent_matches, implies, option_slot, options_equal
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS
from ansible_collections.iotune.storage.plugins.module_utils.settings.tunefstab import VXFS_TUNABLES

# The example of the schema, as documented.
FULL = {
    'iotune_profile': 'throughput',
    'iotune_mounts': [
        {'path': '/data', 'present': ['noatime', 'commit=60'], 'absent': ['mincache=direct', 'sync']},
    ],
    'iotune_tunefstab': [
        {'device': '/dev/vx/dsk/datadg/vol01', 'tunables': {'read_pref_io': '1m', 'discovered_direct_iosz': 10485760}},
    ],
    'iotune_block_devices': [
        {'match': {'name': 'vdb'}, 'read_ahead_kb': 4096, 'max_sectors_kb': 1024, 'nr_requests': 256,
         'scheduler': 'mq-deadline'},
    ],
    'iotune_cache': {
        'dirty_bytes': '256m',
        'dirty_background_bytes': '64m',
        'dirty_expire_centisecs': 1500,
        'dirty_writeback_centisecs': 500,
        'vfs_cache_pressure': 100,
        'bulk_slice': {'memory_high': '25%'},
    },
    'iotune_copy_tools': {'state': 'present', 'buffer_size': '16m'},
}

GOOD = [
    ('empty', {}),
    ('none', None),
    ('null keys', dict((key, None) for key in POLICY_KEYS)),
    ('full example', FULL),
    ('every profile name', {'iotune_profile': 'database_directio'}),
    ('copy tools with defaults', {'iotune_copy_tools': {}}),
    ('copy tools absent', {'iotune_copy_tools': {'state': 'absent'}}),
    ('copy tools buffer forms', {'iotune_copy_tools': {'buffer_size': '8MiB'}}),
    ('copy tools largest buffer', {'iotune_copy_tools': {'buffer_size': '1g'}}),
    ('copy tools buffer in bytes', {'iotune_copy_tools': {'buffer_size': 1000}}),
    ('copy tools streams', {'iotune_copy_tools': {'streams': 64, 'buffer_size': '16m'}}),
    ('copy tools streams as text', {'iotune_copy_tools': {'streams': '1', 'buffer_size': '1g'}}),
    ('mount without option lists', {'iotune_mounts': [{'path': '/backup'}]}),
    ('vxfs mount options', {'iotune_mounts': [{
        'path': '/backup', 'present': ['delaylog', 'mincache=closesync'],
        'absent': ['mincache=direct', 'convosync=direct', 'tmplog']}]}),
    ('present value and absent other value', {'iotune_mounts': [{'path': '/d', 'present': ['commit=60'], 'absent': ['commit=5']}]}),
    ('user-space options', {'iotune_mounts': [{'path': '/n', 'present': ['nofail', '_netdev', 'x-systemd.automount']}]}),
    ('root and trailing slash', {'iotune_mounts': [{'path': '/'}, {'path': '/data/'}]}),
    ('hp-ux system-default line', {'iotune_tunefstab': [{'device': 'system-default', 'tunables': {'max_diskq': '2m'}}]}),
    ('every tunable', {'iotune_tunefstab': [{'device': '/dev/vx/dsk/dg/v', 'tunables': {
        'read_pref_io': '256k', 'read_nstream': 4, 'write_pref_io': 1048576, 'write_nstream': '4',
        'discovered_direct_iosz': '10m', 'max_direct_iosz': '1M', 'default_indir_size': '8k', 'max_diskq': '1m',
        'write_throttle': 0, 'initial_extent_size': 8, 'max_seqio_extent_size': 2048, 'buf_breakup_size': '256k',
        'max_buf_data_size': '64K', 'qio_cache_enable': 1, 'read_ahead': 2, 'fcl_keeptime': 0,
        'fcl_maxalloc': '100m', 'fcl_winterval': 3600}}]}),
    ('max_buf_data_size 8k as bytes', {'iotune_tunefstab': [{'device': '/dev/x', 'tunables': {'max_buf_data_size': 8192}}]}),
    ('block match forms', {'iotune_block_devices': [
        {'match': {'name': 'nvme0n1'}, 'scheduler': 'none'},
        {'match': {'mountpoint': '/data'}, 'read_ahead_kb': 0},
        {'match': {'wwn': '0x5000c500a1b2c3d4'}, 'nr_requests': '64'},
        {'match': {'serial': 'S3Z9NB0K123456'}, 'scheduler': 'bfq'},
        {'match': {'name': 'vdc', 'serial': None}},
    ]}),
    ('ratios', {'iotune_cache': {'dirty_ratio': 40, 'dirty_background_ratio': 10}}),
    ('ratio bounds', {'iotune_cache': {'dirty_ratio': 100, 'dirty_background_ratio': 0}}),
    ('bytes and ratio of different pairs', {'iotune_cache': {'dirty_bytes': '1g', 'dirty_background_ratio': 5}}),
    ('memory_high forms', {'iotune_cache': {'bulk_slice': {'memory_high': '4g'}}}),
    ('memory_high infinity', {'iotune_cache': {'bulk_slice': {'memory_high': 'infinity'}}}),
    ('memory_high fraction', {'iotune_cache': {'bulk_slice': {'memory_high': '12.5%'}}}),
    ('memory_high bytes', {'iotune_cache': {'bulk_slice': {'memory_high': 268435456}}}),
    # declared by the argument spec and read by copy_tools: the policy takes it too
    ('bulk_slice name', {'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': 'backup.slice'}}}),
    ('bulk_slice name with escapes', {'iotune_cache': {'bulk_slice': {'memory_high': '4g', 'name': 'bulk-jobs\\x2dnight.slice'}}}),
]


@pytest.mark.parametrize('policy', [case[1] for case in GOOD], ids=[case[0] for case in GOOD])
def test_good_policies(policy):
    assert validate_policy(policy) == []


def _mounts(**entry):
    return {'iotune_mounts': [dict({'path': '/data'}, **entry)]}


def _tunables(**tunables):
    return {'iotune_tunefstab': [{'device': '/dev/vx/dsk/datadg/vol01', 'tunables': tunables}]}


def _block(**entry):
    return {'iotune_block_devices': [dict({'match': {'name': 'vdb'}}, **entry)]}


# (id, policy, text that must appear in one message: the field path, and often the whole message)
BAD = [
    # top level
    ('policy not a dict', ['iotune_mounts'], 'policy: must be a dict of iotune_profile, iotune_mounts'),
    ('unknown top key', {'iotune_mount': []},
     'iotune_mount: unknown policy key (accepted: iotune_profile, iotune_mounts, iotune_tunefstab, '
     'iotune_block_devices, iotune_cache, iotune_copy_tools)'),
    ('unknown profile', {'iotune_profile': 'fast'},
     "iotune_profile: unknown profile 'fast' (accepted: throughput, database_directio, backup_restore, or null)"),
    # iotune_mounts
    ('mounts not a list', {'iotune_mounts': {'path': '/data'}}, 'iotune_mounts: must be a list, got dict'),
    ('mount entry not a dict', {'iotune_mounts': ['/data']},
     'iotune_mounts[0]: must be a dict with keys path, present, absent, remount, got str'),
    ('unknown mount key', _mounts(presnt=['noatime']),
     'iotune_mounts[0].presnt: unknown key (accepted: path, present, absent, remount)'),
    ('remount mode unknown', _mounts(remount='umount'),
     "iotune_mounts[0].remount: must be one of in_place, cycle, got 'umount'"),
    ('remount mode not text', _mounts(remount=True), 'iotune_mounts[0].remount: must be one of in_place, cycle, got true'),
    ('nfs options contradict', _mounts(present=['hard', 'soft']),
     "iotune_mounts[0].present: options 'hard' and 'soft' contradict each other"),
    ('nfs rsize as a size', _mounts(present=['rsize=1m']),
     "iotune_mounts[0].present[0]: 'rsize=1m' is not a mount option iotune accepts: rsize takes an integer"),
    ('path missing', {'iotune_mounts': [{'present': ['noatime']}]}, 'iotune_mounts[0].path: required'),
    ('path relative', {'iotune_mounts': [{'path': 'data'}]},
     "iotune_mounts[0].path: must be an absolute path, got 'data'"),
    ('path not text', {'iotune_mounts': [{'path': 5}]}, 'iotune_mounts[0].path: must be an absolute path, got 5'),
    ('present not a list', _mounts(present='noatime'),
     'iotune_mounts[0].present: must be a list of mount options, got str'),
    ('option with a space', _mounts(present=['no atime']),
     "iotune_mounts[0].present[0]: 'no atime' is not a mount option (one option per item, no spaces or commas"),
    ('option with a comma', _mounts(absent=['sync,dirsync']),
     "iotune_mounts[0].absent[0]: 'sync,dirsync' is not a mount option"),
    ('option not text', _mounts(present=['noatime', 60]), 'iotune_mounts[0].present[1]: 60 is not a mount option'),
    ('option empty', _mounts(present=['']), "iotune_mounts[0].present[0]: '' is not a mount option"),
    ('option starting with =', _mounts(present=['=5']), "iotune_mounts[0].present[0]: '=5' is not a mount option"),
    ('defaults as an option', _mounts(present=['defaults']),
     "iotune_mounts[0].present[0]: 'defaults' is not an option to ensure or forbid "
     "(name the options it stands for: rw, suid, dev, exec, auto, nouser, async)"),
    ('same option in present and absent', _mounts(present=['noatime'], absent=['noatime']),
     "iotune_mounts[0]: option 'noatime' is in both present and absent"),
    ('same size value in present and absent', _mounts(present=['logbsize=32k'], absent=['logbsize=32768']),
     "iotune_mounts[0]: option 'logbsize=32k' is in both present and absent"),
    ('absent bare key forbids present value', _mounts(present=['mincache=direct'], absent=['mincache']),
     "iotune_mounts[0]: option 'mincache=direct' in present puts 'mincache', which is in absent, in effect"),
    ('noatime implies nodiratime', _mounts(present=['noatime'], absent=['nodiratime']),
     "iotune_mounts[0]: option 'noatime' in present puts 'nodiratime', which is in absent, in effect"),
    ('contradicting atime options', _mounts(present=['noatime', 'relatime']),
     "iotune_mounts[0].present: options 'noatime' and 'relatime' contradict each other (keep one)"),
    ('two values of one key', _mounts(present=['commit=5', 'commit=60']),
     "iotune_mounts[0].present: options 'commit=5' and 'commit=60' contradict each other"),
    ('ro and rw', _mounts(present=['ro', 'rw']), "iotune_mounts[0].present: options 'ro' and 'rw' contradict"),
    ('flag and its negation', _mounts(present=['discard', 'nodiscard']),
     "iotune_mounts[0].present: options 'discard' and 'nodiscard' contradict"),
    ('option twice', _mounts(absent=['sync', 'sync']), "iotune_mounts[0].absent: option 'sync' is listed twice"),
    ('relatime cannot be absent', _mounts(absent=['relatime']),
     "iotune_mounts[0].absent: 'relatime' is the kernel default and cannot just be removed"),
    ('duplicate paths', {'iotune_mounts': [{'path': '/data'}, {'path': '/srv'}, {'path': '/data/'}]},
     "iotune_mounts[2].path: '/data/' is listed twice (also iotune_mounts[0])"),
    # iotune_tunefstab
    ('tunefstab not a list', {'iotune_tunefstab': 'x'}, 'iotune_tunefstab: must be a list, got str'),
    ('tunefstab unknown key', {'iotune_tunefstab': [{'device': '/dev/x', 'tunable': {}}]},
     'iotune_tunefstab[0].tunable: unknown key (accepted: device, tunables)'),
    ('device missing', {'iotune_tunefstab': [{'tunables': {'read_ahead': 1}}]}, 'iotune_tunefstab[0].device: required'),
    ('device relative', {'iotune_tunefstab': [{'device': 'vol01'}]},
     "iotune_tunefstab[0].device: must be an absolute device path without whitespace, '#', ',' or '=', or system-default, "
     "got 'vol01'"),
    ('device with space', {'iotune_tunefstab': [{'device': '/dev/vx/dsk/a b'}]},
     "iotune_tunefstab[0].device: must be an absolute device path"),
    # issue 18, D7: a '#' made the planned line a comment (KeyError); ',' and '=' belong to the tunable list
    ('device commented out', {'iotune_tunefstab': [{'device': '#/dev/vx/dsk/datadg/vol01'}]},
     "iotune_tunefstab[0].device: must be an absolute device path without whitespace, '#', ',' or '='"),
    ('device with #', {'iotune_tunefstab': [{'device': '/dev/vx/dsk/datadg/vol#1'}]},
     "iotune_tunefstab[0].device: must be an absolute device path without whitespace, '#', ',' or '=', or system-default, "
     "got '/dev/vx/dsk/datadg/vol#1'"),
    ('device with comma', {'iotune_tunefstab': [{'device': '/dev/vx/dsk/a,b'}]}, "iotune_tunefstab[0].device: must be"),
    ('device with =', {'iotune_tunefstab': [{'device': '/dev/vx/dsk/a=b'}]}, "iotune_tunefstab[0].device: must be"),
    ('duplicate devices', {'iotune_tunefstab': [{'device': '/dev/a'}, {'device': '/dev/a'}]},
     "iotune_tunefstab[1].device: '/dev/a' is listed twice (also iotune_tunefstab[0])"),
    ('tunables not a dict', {'iotune_tunefstab': [{'device': '/dev/a', 'tunables': ['read_ahead=1']}]},
     'iotune_tunefstab[0].tunables: must be a dict, got list'),
    ('8Q is not a size', _tunables(read_pref_io='8Q'),
     "iotune_tunefstab[0].tunables.read_pref_io: '8Q' is not a size (accepted: 10485760, 256k, 10m, 1g)"),
    ('negative size', _tunables(discovered_direct_iosz=-1),
     'iotune_tunefstab[0].tunables.discovered_direct_iosz: -1 is not a size'),
    ('fractional size', _tunables(write_pref_io='1.5m'),
     "iotune_tunefstab[0].tunables.write_pref_io: '1.5m' is not a size"),
    ('unknown tunable', _tunables(frobnicate=1),
     'iotune_tunefstab[0].tunables.frobnicate: unknown tunable (accepted: %s)' % ', '.join(sorted(VXFS_TUNABLES))),
    ('nstream zero', _tunables(read_nstream=0), 'iotune_tunefstab[0].tunables.read_nstream: must be an integer between 1 and 9223372036854775807, got 0'),
    ('count as size text', _tunables(write_throttle='4k'),
     "iotune_tunefstab[0].tunables.write_throttle: must be an integer between 0 and 9223372036854775807, got '4k'"),
    ('max_buf_data_size 16k', _tunables(max_buf_data_size='16k'),
     "iotune_tunefstab[0].tunables.max_buf_data_size: must be 8k or 64k (8192 or 65536 bytes), got '16k'"),
    ('qio_cache_enable 2', _tunables(qio_cache_enable=2),
     'iotune_tunefstab[0].tunables.qio_cache_enable: must be one of 0, 1, got 2'),
    ('read_ahead 3', _tunables(read_ahead=3), 'iotune_tunefstab[0].tunables.read_ahead: must be one of 0, 1, 2, got 3'),
    ('boolean tunable', _tunables(qio_cache_enable=True),
     'iotune_tunefstab[0].tunables.qio_cache_enable: must be one of 0, 1, got true'),
    # iotune_block_devices
    ('block devices not a list', {'iotune_block_devices': {'vdb': {}}}, 'iotune_block_devices: must be a list, got dict'),
    ('negative read-ahead', _block(read_ahead_kb=-1),
     'iotune_block_devices[0].read_ahead_kb: must be an integer between 0 and 4294967295, got -1'),
    ('read-ahead as size', _block(read_ahead_kb='4m'),
     "iotune_block_devices[0].read_ahead_kb: must be an integer between 0 and 4294967295, got '4m'"),
    ('boolean read-ahead', _block(read_ahead_kb=True), 'iotune_block_devices[0].read_ahead_kb: must be an integer between 0 and 4294967295, got true'),
    ('max_sectors_kb zero', _block(max_sectors_kb=0), 'iotune_block_devices[0].max_sectors_kb: must be an integer between 4 and 4294967295, got 0'),
    # issue 18, D3: values the kernel refuses with EINVAL, refused before anything is journalled
    ('read-ahead of 2^32 KiB', _block(read_ahead_kb=1 << 32),
     'iotune_block_devices[0].read_ahead_kb: must be an integer between 0 and 4294967295, got 4294967296'),
    ('nr_requests 1e8', _block(nr_requests=100000000),
     'iotune_block_devices[0].nr_requests: must be an integer between 4 and 2048, got 100000000'),
    ('dirty_bytes past unsigned long', {'iotune_cache': {'dirty_bytes': '9' * 30}},
     'iotune_cache.dirty_bytes: must be a size of at most 18446744073709551615 bytes (the kernel refuses more), got '),
    ('dirty_expire past int', {'iotune_cache': {'dirty_expire_centisecs': 1 << 31}},
     'iotune_cache.dirty_expire_centisecs: must be an integer between 0 and 2147483647, got 2147483648'),
    ('nr_requests text', _block(nr_requests='many'),
     "iotune_block_devices[0].nr_requests: must be an integer between 4 and 2048, got 'many'"),
    ('unknown scheduler', {'iotune_block_devices': [{'match': {'name': 'vdb'}}, {'match': {'name': 'vdc'}, 'scheduler': 'fast'}]},
     "iotune_block_devices[1].scheduler: unknown scheduler 'fast' (accepted: none, mq-deadline, kyber, bfq, deadline, cfq, noop)"),
    ('unknown block key', _block(readahead=128),
     'iotune_block_devices[0].readahead: unknown key (accepted: match, %s)' % ', '.join(QUEUE_SETTINGS)),
    ('match missing', {'iotune_block_devices': [{'read_ahead_kb': 128}]},
     'iotune_block_devices[0].match: required (exactly one of name, mountpoint, wwn, serial)'),
    ('match empty', {'iotune_block_devices': [{'match': {}}]},
     'iotune_block_devices[0].match: must have exactly one of name, mountpoint, wwn, serial (got none)'),
    ('match two keys', {'iotune_block_devices': [{'match': {'name': 'sdb', 'serial': 'X1'}}]},
     'iotune_block_devices[0].match: must have exactly one of name, mountpoint, wwn, serial (got name, serial)'),
    ('match unknown key', {'iotune_block_devices': [{'match': {'label': 'data'}}]},
     'iotune_block_devices[0].match.label: unknown key (accepted: name, mountpoint, wwn, serial)'),
    ('match not a dict', {'iotune_block_devices': [{'match': 'vdb'}]},
     'iotune_block_devices[0].match: must be a dict with exactly one of name, mountpoint, wwn, serial, got str'),
    ('match name is a path', {'iotune_block_devices': [{'match': {'name': '/dev/sdb'}}]},
     "iotune_block_devices[0].match.name: must be a kernel device name such as sdb or nvme0n1, a device-mapper name or "
     "md/<array name> (without /dev/), got '/dev/sdb'"),
    ('match mountpoint relative', {'iotune_block_devices': [{'match': {'mountpoint': 'data'}}]},
     "iotune_block_devices[0].match.mountpoint: must be an absolute path, got 'data'"),
    ('match value empty', {'iotune_block_devices': [{'match': {'wwn': ' '}}]},
     "iotune_block_devices[0].match.wwn: must be a non-empty text, got ' '"),
    ('duplicate match', {'iotune_block_devices': [{'match': {'mountpoint': '/data'}}, {'match': {'mountpoint': '/data/'}}]},
     "iotune_block_devices[1].match: mountpoint '/data' is listed twice (also iotune_block_devices[0])"),
    # iotune_cache
    ('cache not a dict', {'iotune_cache': ['dirty_ratio']}, 'iotune_cache: must be a dict, got list'),
    ('unknown cache key', {'iotune_cache': {'dirty_ration': 40}},
     'iotune_cache.dirty_ration: unknown key (accepted: %s)' % ', '.join(schema_keys('iotune_cache'))),
    ('ARC cap below 64 MiB', {'iotune_cache': {'zfs_arc_max': '32m'}},
     'iotune_cache.zfs_arc_max: must be a size of at least 67108864 bytes, got \'32m\''),
    ('file cache min above max', {'iotune_cache': {'filecache_min': '4g', 'filecache_max': '2g'}},
     'iotune_cache.filecache_min: must not be above filecache_max (4294967296 > 2147483648 bytes; kctune refuses it)'),
    ('ratio above 100', {'iotune_cache': {'dirty_ratio': 140}},
     'iotune_cache.dirty_ratio: must be an integer between 0 and 100, got 140'),
    ('negative ratio', {'iotune_cache': {'dirty_background_ratio': -1}},
     'iotune_cache.dirty_background_ratio: must be an integer between 0 and 100, got -1'),
    ('percent text ratio', {'iotune_cache': {'dirty_ratio': '40%'}},
     "iotune_cache.dirty_ratio: must be an integer between 0 and 100, got '40%'"),
    ('dirty bytes and ratio', {'iotune_cache': {'dirty_bytes': '256m', 'dirty_ratio': 40}},
     'iotune_cache: set either dirty_bytes or dirty_ratio, not both'),
    ('background bytes and ratio', {'iotune_cache': {'dirty_background_bytes': '64m', 'dirty_background_ratio': 5}},
     'iotune_cache: set either dirty_background_bytes or dirty_background_ratio, not both'),
    ('dirty_bytes not a size', {'iotune_cache': {'dirty_bytes': '8Q'}},
     "iotune_cache.dirty_bytes: '8Q' is not a size (accepted: 10485760, 256k, 10m, 1g)"),
    ('dirty_bytes below two pages', {'iotune_cache': {'dirty_bytes': 4096}},
     'iotune_cache.dirty_bytes: must be a size of at least 8192 bytes, got 4096'),
    ('dirty_background_bytes zero', {'iotune_cache': {'dirty_background_bytes': 0}},
     'iotune_cache.dirty_background_bytes: must be a size of at least 1 bytes, got 0'),
    ('background above dirty', {'iotune_cache': {'dirty_bytes': '64m', 'dirty_background_bytes': '256m'}},
     'iotune_cache.dirty_background_bytes: must be lower than dirty_bytes'),
    ('background ratio above dirty ratio', {'iotune_cache': {'dirty_ratio': 10, 'dirty_background_ratio': 10}},
     'iotune_cache.dirty_background_ratio: must be lower than dirty_ratio (10 >= 10)'),
    ('negative centisecs', {'iotune_cache': {'dirty_expire_centisecs': -5}},
     'iotune_cache.dirty_expire_centisecs: must be an integer between 0 and 2147483647, got -5'),
    ('vfs_cache_pressure text', {'iotune_cache': {'vfs_cache_pressure': 'high'}},
     "iotune_cache.vfs_cache_pressure: must be an integer between 0 and 2147483647, got 'high'"),
    ('bulk_slice not a dict', {'iotune_cache': {'bulk_slice': '25%'}},
     'iotune_cache.bulk_slice: must be a dict with keys memory_high, name, got str'),
    ('bulk_slice unknown key', {'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'memory_max': '50%'}}},
     'iotune_cache.bulk_slice.memory_max: unknown key (accepted: memory_high, name)'),
    ('bulk_slice name not a slice', {'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': 'backup.service'}}},
     "iotune_cache.bulk_slice.name: 'backup.service' is not a slice name (accepted: a systemd unit name ending in .slice"),
    ('bulk_slice name a path', {'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': '../../etc/x.slice'}}},
     "iotune_cache.bulk_slice.name: '../../etc/x.slice' is not a slice name"),
    ('bulk_slice name not text', {'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': 7}}},
     'iotune_cache.bulk_slice.name: 7 is not a slice name'),
    ('memory_high missing', {'iotune_cache': {'bulk_slice': {}}}, 'iotune_cache.bulk_slice.memory_high: required'),
    ('memory_high above 100%', {'iotune_cache': {'bulk_slice': {'memory_high': '200%'}}},
     "iotune_cache.bulk_slice.memory_high: '200%' is not a memory limit (accepted: a size such as 256m, 4g or 10485760 "
     "(written as bytes), a percentage of RAM above 0 and at most 100 with at most two decimals such as 25%, 12.5% or "
     "12.25% (or 125\u2030, 12.5\u2030 per mille), or infinity; systemd ignores other forms such as 12.345%)"),
    # issue 23, P2: systemd ignores a percentage with three decimals; it was accepted and reported compliant
    ('memory_high three decimals', {'iotune_cache': {'bulk_slice': {'memory_high': '12.345%'}}},
     "iotune_cache.bulk_slice.memory_high: '12.345%' is not a memory limit (accepted: a size such as 256m"),
    ('memory_high per mille two decimals', {'iotune_cache': {'bulk_slice': {'memory_high': '12.55\u2030'}}},
     "iotune_cache.bulk_slice.memory_high: '12.55\u2030' is not a memory limit (accepted: "),
    ('memory_high octal-looking', {'iotune_cache': {'bulk_slice': {'memory_high': '010%'}}},
     "iotune_cache.bulk_slice.memory_high: '010%' is not a memory limit (accepted: "),
    ('memory_high text', {'iotune_cache': {'bulk_slice': {'memory_high': 'lots'}}},
     "iotune_cache.bulk_slice.memory_high: 'lots' is not a memory limit"),
    ('memory_high zero', {'iotune_cache': {'bulk_slice': {'memory_high': 0}}},
     'iotune_cache.bulk_slice.memory_high: 0 is not a memory limit'),
    # copy tools
    ('copy tools not a dict', {'iotune_copy_tools': 'present'},
     'iotune_copy_tools: must be a dict with keys state, buffer_size, streams, got str'),
    ('copy tools unknown key', {'iotune_copy_tools': {'buffer': '8M'}},
     'iotune_copy_tools.buffer: unknown key (accepted: state, buffer_size, streams)'),
    ('copy tools unknown state', {'iotune_copy_tools': {'state': 'installed'}},
     "iotune_copy_tools.state: unknown state 'installed' (accepted: present, absent)"),
    ('copy tools buffer not a size', {'iotune_copy_tools': {'buffer_size': '8 megs'}},
     "iotune_copy_tools.buffer_size: '8 megs' is not a size (accepted: 10485760, 256k, 10m, 1g)"),
    ('copy tools buffer zero', {'iotune_copy_tools': {'buffer_size': 0}},
     'iotune_copy_tools.buffer_size: must be a size of at least 1 bytes, got 0'),
    ('copy tools buffer too large', {'iotune_copy_tools': {'buffer_size': '2g'}},
     "iotune_copy_tools.buffer_size: '2g' is larger than iotune-copy accepts (at most 1g = 1073741824 bytes)"),
    ('copy tools no streams', {'iotune_copy_tools': {'streams': 0}},
     'iotune_copy_tools.streams: must be an integer between 1 and 64, got 0'),
    ('copy tools too many streams', {'iotune_copy_tools': {'streams': 65}},
     'iotune_copy_tools.streams: must be an integer between 1 and 64, got 65'),
    ('copy tools streams not a number', {'iotune_copy_tools': {'streams': 'many'}},
     "iotune_copy_tools.streams: must be an integer between 1 and 64, got 'many'"),
    ('copy tools streams a boolean', {'iotune_copy_tools': {'streams': True}},
     'iotune_copy_tools.streams: must be an integer between 1 and 64, got true'),
    ('copy tools streams pass 1g of buffers', {'iotune_copy_tools': {'streams': 9, 'buffer_size': '128m'}},
     'iotune_copy_tools.streams: 9 buffers of 128M pass the 1g iotune-copy allows for them (accepted: streams x buffer_size <= 1g)'),
    ('copy tools streams with the default buffer', {'iotune_copy_tools': {'streams': 129}},
     'iotune_copy_tools.streams: must be an integer between 1 and 64, got 129'),
]


@pytest.mark.parametrize('policy, expected', [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_policies(policy, expected):
    errors = validate_policy(policy)
    assert errors, 'no error for %r' % (policy,)
    assert any(expected in error for error in errors), errors
    # every message starts with the path of the field it is about
    for error in errors:
        assert error.split(':', 1)[0].split('.')[0].split('[')[0] in POLICY_KEYS + ('policy', 'iotune_mount'), error


# issue 23, P1: a bulk slice named after one of systemd's own slices made enforce write a unit file over the
# vendor's, and its MemoryHigh= capped every unit below it (system.slice: every system service).
SPECIAL_SLICE_REASON = 'is a systemd special unit (systemd.special(7))'
LOGIND_SLICE_REASON = 'is a slice systemd-logind creates and owns'


@pytest.mark.parametrize('name, reason', [
    ('system.slice', SPECIAL_SLICE_REASON),
    ('user.slice', SPECIAL_SLICE_REASON),
    ('machine.slice', SPECIAL_SLICE_REASON),
    ('-.slice', SPECIAL_SLICE_REASON),
    ('capsule.slice', SPECIAL_SLICE_REASON),
    ('user-1000.slice', LOGIND_SLICE_REASON),
    ('user-0.slice', LOGIND_SLICE_REASON),
    ('user-backup.slice', LOGIND_SLICE_REASON),
    ('user-1000-backup.slice', LOGIND_SLICE_REASON),
    # still refused as before, for their syntax
    ('-system.slice', 'is not a slice name'),
    ('system.service', 'is not a slice name'),
])
def test_bulk_slice_refuses_systemd_slices(name, reason):
    errors = validate_policy({'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': name}}})
    assert len(errors) == 1, errors
    assert errors[0].startswith("iotune_cache.bulk_slice.name: '%s' %s" % (name, reason)), errors[0]
    # what is accepted, always named
    if 'not a slice name' in reason:
        assert 'accepted: a systemd unit name ending in .slice' in errors[0]
    else:
        assert errors[0].endswith("(accepted: a slice of your own such as iotune-bulk.slice, backup.slice or system-backup.slice "
                                  "(a child of system.slice caps only the units put in it), not one of systemd's own slices "
                                  "(-.slice, system.slice, user.slice, machine.slice, capsule.slice, user-*.slice))")


@pytest.mark.parametrize('name', [
    'iotune-bulk.slice',
    'backup.slice',
    # children of a special slice cap only the units put in them
    'system-backup.slice',
    'machine-bulk.slice',
    # a root-level slice whose escaped name reads user-1000 is not logind's user-1000.slice
    'user\\x2d1000.slice',
    'users.slice',
    'System.slice',
])
def test_bulk_slice_accepts_own_slices(name):
    assert validate_policy({'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': name}}}) == []


# issue 23, P4: a device value that the policy's own system-default entry sets otherwise could never be in effect
@pytest.mark.parametrize('entries, expected', [
    ([{'device': 'system-default', 'tunables': {'read_ahead': 2}}, {'device': '/dev/vg01/lvol1', 'tunables': {'read_ahead': 0}}],
     ["iotune_tunefstab[1].tunables.read_ahead: 0 for /dev/vg01/lvol1 contradicts 2 for system-default (iotune_tunefstab[0]): "
      "a system-default line takes precedence over a device's lines (tunefstab(4)), so /dev/vg01/lvol1 would get 2; give "
      "both the same value or drop one"]),
    # compared as sizes
    ([{'device': '/dev/vg01/lvol1', 'tunables': {'max_diskq': '1m'}}, {'device': 'system-default', 'tunables': {'max_diskq': '2m'}}],
     ["iotune_tunefstab[0].tunables.max_diskq: 1048576 for /dev/vg01/lvol1 contradicts 2097152 for system-default "
      "(iotune_tunefstab[1])"]),
    ([{'device': 'system-default', 'tunables': {'max_diskq': '1m'}}, {'device': '/dev/vg01/lvol1', 'tunables': {'max_diskq': 1048576}}],
     []),
    ([{'device': 'system-default', 'tunables': {'read_ahead': 2}}, {'device': '/dev/vg01/lvol1', 'tunables': {'read_nstream': 4}}],
     []),
])
def test_tunefstab_device_contradicting_system_default(entries, expected):
    errors = validate_policy({'iotune_tunefstab': entries})
    assert len(errors) == len(expected), errors
    for error, start in zip(errors, expected):
        assert error.startswith(start), error


def test_all_problems_reported_at_once():
    errors = validate_policy({
        'iotune_mounts': [{'path': '/data', 'presnt': ['noatime'], 'present': ['noatime'], 'absent': ['noatime']}],
        'iotune_tunefstab': [{'device': '/dev/x', 'tunables': {'read_pref_io': '8Q', 'frobnicate': 1}}],
        'iotune_block_devices': [{'match': {'name': 'vdb'}, 'read_ahead_kb': -1, 'scheduler': 'fast'}],
        'iotune_cache': {'dirty_bytes': '256m', 'dirty_ratio': 40},
    })
    paths = [error.split(':', 1)[0] for error in errors]
    assert paths == [
        'iotune_mounts[0].presnt',
        'iotune_mounts[0]',
        'iotune_tunefstab[0].tunables.read_pref_io',
        'iotune_tunefstab[0].tunables.frobnicate',
        'iotune_block_devices[0].read_ahead_kb',
        'iotune_block_devices[0].scheduler',
        'iotune_cache',
    ]


def test_validate_mount_entry_with_module_paths():
    errors = []
    validate_mount_entry({'path': '/data', 'present': ['no atime']}, 'mounts[3]', errors)
    assert errors == ["mounts[3].present[0]: 'no atime' is not a mount option (one option per item, no spaces or "
                      "commas, e.g. noatime, commit=60, mincache=direct)"]


def test_normalize_policy_fills_defaults():
    assert normalize_policy({}) == {
        'iotune_profile': None,
        'iotune_mounts': [],
        'iotune_tunefstab': [],
        'iotune_block_devices': [],
        'iotune_cache': {},
        'iotune_copy_tools': None,
    }
    assert normalize_policy(None) == normalize_policy(dict((key, None) for key in POLICY_KEYS))


def test_normalize_policy_full_example():
    assert normalize_policy(FULL) == {
        'iotune_profile': 'throughput',
        'iotune_mounts': [
            {'path': '/data', 'present': ['noatime', 'commit=60'], 'absent': ['mincache=direct', 'sync']},
        ],
        'iotune_tunefstab': [
            {'device': '/dev/vx/dsk/datadg/vol01', 'tunables': {'read_pref_io': 1048576, 'discovered_direct_iosz': 10485760}},
        ],
        'iotune_block_devices': [
            {'match': {'name': 'vdb'}, 'read_ahead_kb': 4096, 'max_sectors_kb': 1024, 'nr_requests': 256,
             'scheduler': 'mq-deadline'},
        ],
        'iotune_cache': {
            'dirty_bytes': 268435456,
            'dirty_background_bytes': 67108864,
            'dirty_expire_centisecs': 1500,
            'dirty_writeback_centisecs': 500,
            'vfs_cache_pressure': 100,
            'bulk_slice': {'memory_high': '25%'},
        },
        'iotune_copy_tools': {'state': 'present', 'buffer_size': 16777216, 'streams': None},
    }


@pytest.mark.parametrize('remount, kept', [(None, {}), ('in_place', {}), ('cycle', {'remount': 'cycle'})])
def test_normalize_mount_remount_mode(remount, kept):
    # the default is left out, so that entries without it plan and report as before
    policy = _mounts(present=['nconnect=4'], remount=remount)
    assert validate_policy(policy) == []
    assert normalize_policy(policy)['iotune_mounts'] == [dict({'path': '/data', 'present': ['nconnect=4'], 'absent': []}, **kept)]


def test_normalize_policy_conversions():
    policy = {
        'iotune_mounts': [{'path': '/data/', 'present': None}],
        'iotune_tunefstab': [{'device': '/dev/a', 'tunables': {'read_nstream': '4', 'max_buf_data_size': '64K',
                                                               'qio_cache_enable': '1'}}, {'device': '/dev/b'}],
        'iotune_block_devices': [{'match': {'mountpoint': '/srv/'}, 'nr_requests': '64'},
                                 {'match': {'name': 'vdb', 'wwn': None}}],
        'iotune_cache': {'dirty_ratio': '40', 'bulk_slice': {'memory_high': '25.0%', 'name': 'backup.slice'}},
        'iotune_copy_tools': {'buffer_size': '4MiB', 'state': None},
    }
    assert validate_policy(policy) == []
    assert normalize_policy(policy) == {
        'iotune_profile': None,
        'iotune_mounts': [{'path': '/data', 'present': [], 'absent': []}],
        'iotune_tunefstab': [{'device': '/dev/a', 'tunables': {'read_nstream': 4, 'max_buf_data_size': 65536,
                                                               'qio_cache_enable': 1}},
                             {'device': '/dev/b', 'tunables': {}}],
        'iotune_block_devices': [{'match': {'mountpoint': '/srv'}, 'nr_requests': 64}, {'match': {'name': 'vdb'}}],
        'iotune_cache': {'dirty_ratio': 40, 'bulk_slice': {'memory_high': '25%', 'name': 'backup.slice'}},
        'iotune_copy_tools': {'state': 'present', 'buffer_size': 4194304, 'streams': None},
    }


@pytest.mark.parametrize('value, expected', [
    ('25%', '25%'),
    ('12.5%', '12.5%'),
    ('100%', '100%'),
    ('0%', None),
    ('101%', None),
    ('infinity', 'infinity'),
    ('Infinity', 'infinity'),
    ('4g', 4294967296),
    ('512M', 536870912),
    (268435456, 268435456),
    (0, None),
    ('-1', None),
    (True, None),
    ('lots', None),
    # issue 23, P2: only the percentages systemd reads (parse_permyriad: at most two decimals before %,
    # one before per mille, none before per ten thousand); 12.345% was accepted and systemd ignored it
    ('12.345%', None),
    ('12.34%', '12.34%'),
    ('12.30%', '12.3%'),
    ('25.0%', '25%'),
    ('0.01%', '0.01%'),
    ('100.00%', '100%'),
    ('100.01%', None),
    ('0.00%', None),
    ('125\u2030', '12.5%'),
    ('12.5\u2030', '1.25%'),
    ('12.55\u2030', None),
    ('1000\u2030', '100%'),
    ('1001\u2030', None),
    ('1250\u2031', '12.5%'),
    ('1.5\u2031', None),
    # forms systemd reads otherwise than they look (010% is octal there) or not at all
    ('010%', None),
    ('+5%', None),
    ('5 %', None),
    ('.5%', None),
    ('12.%', None),
    ('12.5%%', None),
    ('1e1%', None),
    # a size systemd takes: 1 byte up to 2^64 - 2 (2^64 - 1 means no limit and is refused)
    (18446744073709551614, 18446744073709551614),
    (18446744073709551615, None),
    ('16384p', None),
])
def test_parse_memory_high(value, expected):
    assert parse_memory_high(value) == expected


def test_cache_sysctl():
    cache = normalize_policy({'iotune_cache': FULL['iotune_cache']})['iotune_cache']
    assert cache_sysctl(cache) == {
        'vm.dirty_bytes': 268435456,
        'vm.dirty_background_bytes': 67108864,
        'vm.dirty_expire_centisecs': 1500,
        'vm.dirty_writeback_centisecs': 500,
        'vm.vfs_cache_pressure': 100,
    }
    assert cache_sysctl(None) == {}


@pytest.mark.parametrize('option, slot', [
    ('commit=60', 'commit='),
    ('mincache=direct', 'mincache='),
    ('noatime', 'atime'),
    ('strictatime', 'atime'),
    ('ro', 'ro'),
    ('rw', 'ro'),
    ('async', 'sync'),
    ('users', 'user'),
    ('discard', 'flag:discard'),
    ('nodiscard', 'flag:discard'),
    ('delaylog', 'flag:delaylog'),
    ('defaults', None),
])
def test_option_slot(option, slot):
    assert option_slot(option) == slot


@pytest.mark.parametrize('left, right, equal', [
    ('logbsize=32k', 'logbsize=32768', True),
    ('size=1g', 'size=1048576k', True),
    ('commit=60', 'commit=5', False),
    ('data=ordered', 'data=ordered', True),
    ('data=ordered', 'data=writeback', False),
    ('noatime', 'noatime', True),
    ('mincache', 'mincache=direct', False),
])
def test_options_equal(left, right, equal):
    assert options_equal(left, right) is equal


@pytest.mark.parametrize('absent, option, expected', [
    ('mincache=direct', 'mincache=direct', True),
    ('mincache', 'mincache=direct', True),
    ('mincache=direct', 'mincache=closesync', False),
    ('sync', 'sync', True),
    ('sync', 'async', False),
])
def test_absent_matches(absent, option, expected):
    assert absent_matches(absent, option) is expected


def test_implies():
    assert implies('noatime', 'nodiratime')
    assert not implies('nodiratime', 'noatime')
    assert implies('convosync=direct', 'convosync')


@pytest.mark.parametrize('tools, expected', [
    ({}, {'state': 'present', 'buffer_size': 8388608, 'streams': None}),
    ({'state': None, 'buffer_size': None, 'streams': None}, {'state': 'present', 'buffer_size': 8388608, 'streams': None}),
    ({'state': 'absent'}, {'state': 'absent', 'buffer_size': 8388608, 'streams': None}),
    ({'buffer_size': '256k'}, {'state': 'present', 'buffer_size': 262144, 'streams': None}),
    ({'buffer_size': '8MiB', 'streams': '16'}, {'state': 'present', 'buffer_size': 8388608, 'streams': 16}),
    # without streams the tool's default applies, lowered where 8 buffers would pass 1g
    ({'buffer_size': '1g'}, {'state': 'present', 'buffer_size': 1073741824, 'streams': None}),
])
def test_normalize_copy_tools(tools, expected):
    assert validate_policy({'iotune_copy_tools': tools}) == []
    assert normalize_policy({'iotune_copy_tools': tools})['iotune_copy_tools'] == expected


def test_copy_tools_messages_name_role_variables():
    errors = []
    validate_copy_tools({'state': 'on', 'buffer_size': '2g', 'streams': 0, 'extra': 1}, 'copy_tools', errors, sep='_')
    assert errors == [
        'copy_tools_extra: unknown key (accepted: state, buffer_size, streams)',
        "copy_tools_state: unknown state 'on' (accepted: present, absent)",
        "copy_tools_buffer_size: '2g' is larger than iotune-copy accepts (at most 1g = 1073741824 bytes)",
        'copy_tools_streams: must be an integer between 1 and 64, got 0',
    ]


@pytest.mark.parametrize('size, text', [
    (8388608, '8M'), (262144, '256k'), (1073741824, '1G'), (1048576 * 3 // 2, '1536k'), (1000, '1000'),
    (4096, '4k'), (1, '1'), (2 * 1073741824, '2G'),
])
def test_buffer_size_text(size, text):
    assert buffer_size_text(size) == text


def test_buffer_size_text_is_read_back_by_iotune_copy():
    """What copy.conf gets must be what the tool parses, for every accepted policy form."""
    from ansible_collections.iotune.storage.tests.unit.tools.copy_tool import load_tool
    tool = load_tool()
    for form in ('8M', '8MiB', '8mb', '256k', '256KiB', 1000, '1g', '1536k', 4097):
        size = normalize_policy({'iotune_copy_tools': {'buffer_size': form}})['iotune_copy_tools']['buffer_size']
        assert tool.parse_size(buffer_size_text(size)) == size, form
