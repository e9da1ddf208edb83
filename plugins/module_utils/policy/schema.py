# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The iotune policy schema: the one definition of the policy's keys, types, units and accepted values; pure.

A policy is a dict of the shared role variables (prefix included)::

    iotune_profile: throughput            # or null, database_directio, backup_restore
    iotune_mounts: [{path, present: [opt], absent: [opt]}]
    iotune_tunefstab: [{device, tunables: {name: value}}]
    iotune_block_devices: [{match: {name|mountpoint|wwn|serial: x}, <queue setting>: value, ...}]
    iotune_cache: {<vm sysctl without vm.>: value, ..., zfs_arc_max, filecache_min, filecache_max, bulk_slice: {memory_high, name}}
    iotune_copy_tools: {state: present|absent, buffer_size, streams}   # iotune-copy, iotune-bulk, copy.conf

SCHEMA has the form of an Ansible argument spec (type, elements, options, choices, default,
required, description), plus the keys of the reference table of docs/policy.md: ``unit``,
``minimum``, ``maximum`` and ``accepted``. The block-device settings come from the queue table
(settings/block_queue.py), the cache sysctls from the vm table (settings/cache_limits.py) and the Solaris and
HP-UX cache tunables from theirs (settings/cache_limits_unix.py). `make
schema` (scripts/gen_schema) writes the roles' meta/argument_specs.yml entries and that table
from it; the validators (policy/validate.py) use it.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import PAIRS, POLICY_SYSCTLS, VM_SYSCTLS, dotted
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits_unix import UNIX_CACHE, UNIX_CACHE_KEYS


def queue_setting_entry(name):
    """The schema entry of one block-queue setting (iotune_block_devices[].<name>)."""
    setting = QUEUE_SETTINGS[name]
    entry = {'description': ' '.join(setting['description']), 'type': setting['type'], 'accepted': setting.get('accepted', '')}
    for key in ('unit', 'minimum', 'maximum'):
        if key in setting:
            entry[key] = setting[key]
    if 'choices' in setting:
        entry['choices'] = list(setting['choices'])
    return entry


def _sysctl_accepted(sysctl):
    clauses = [sysctl.get('accepted')]
    if sysctl.get('below'):
        clauses.append('below `%s`' % sysctl['below'])
    if sysctl.get('exclusive_with'):
        clauses.append('not with `%s`' % sysctl['exclusive_with'])
    if sysctl['kernel_default'] is not None:
        clauses.append('kernel default %d' % sysctl['kernel_default'])
    return '; '.join(clause for clause in clauses if clause)


def sysctl_entry(name):
    """The schema entry of one vm sysctl of the policy (iotune_cache.<name>)."""
    sysctl = VM_SYSCTLS[name]
    description = '%s (C(%s)).' % (sysctl['description'].rstrip('.'), dotted(name))
    if sysctl.get('exclusive_with'):
        description += ' Exclusive with O(iotune_cache.%s).' % sysctl['exclusive_with']
    entry = {'description': description, 'type': 'raw' if sysctl['type'] == 'size' else 'int',
             'minimum': sysctl['minimum'], 'maximum': sysctl['maximum'], 'accepted': _sysctl_accepted(sysctl)}
    if sysctl.get('unit'):
        entry['unit'] = sysctl['unit']
    return entry


def unix_cache_entry(name):
    """The schema entry of one Solaris or HP-UX cache tunable of the policy (iotune_cache.<name>)."""
    tunable = UNIX_CACHE[name]
    return {'description': '%s Applies %s.' % (tunable['description'], tunable['applies']), 'type': 'raw',
            'minimum': tunable['minimum'], 'maximum': tunable['maximum'], 'unit': 'bytes', 'accepted': tunable['accepted']}


def _with(first, rest):
    """A dict of ``first``'s items, then ``rest``'s (keeps the order of both)."""
    result = dict(first)
    result.update(rest)
    return result


SCHEMA = {
    'iotune_profile': {
        'description': 'Named starting point merged under the user\'s values (docs/policy.md, Profiles).',
        'type': 'str',
        'choices': ['throughput', 'database_directio', 'backup_restore'],
        'accepted': 'a profile name, or null',
    },
    'iotune_mounts': {
        'description': 'Mount options to ensure and to forbid per mount point; all other options are left alone.',
        'type': 'list', 'elements': 'dict', 'default': [],
        'options': {
            'path': {
                'description': 'Mount point.',
                'type': 'str', 'required': True,
                'accepted': 'an absolute mount point; each path once',
            },
            'present': {
                'description': 'Options that must be in effect, e.g. V(noatime), V(commit=60), V(delaylog).',
                'type': 'list', 'elements': 'str', 'default': [],
                'accepted': 'mount options, plain (`noatime`) or key=value (`commit=60`); no option in both lists, '
                            'none that contradicts another',
            },
            'absent': {
                'description': 'Options that must not be in effect, e.g. V(mincache=direct), V(sync).',
                'type': 'list', 'elements': 'str', 'default': [],
                'accepted': 'mount options, as for `present`; not a default no single word ends (`relatime`, NFS `hard`: see Mount words)',
            },
            'remount': {
                'description': [
                    'How the live mount takes the options a remount cannot change. V(in_place) remounts with what a '
                    'remount can change and reports the rest as needing an unmount and mount (on NFS, every option '
                    'of the NFS client itself, such as C(rsize), C(nconnect), C(actimeo), C(hard); docs/stacks.md).',
                    'V(cycle), for NFS mounts, unmounts and mounts the mount point with its new options, only when no '
                    'process has its working directory, root, an open file or a mapped file under it and no mount is '
                    'under it (read from /proc); otherwise it is refused, naming the processes, and nothing is unmounted. '
                    'Journalled, and rolled back by the same cycle with the options before.',
                ],
                'type': 'str', 'choices': ['in_place', 'cycle'], 'default': 'in_place',
                'accepted': '`cycle` acts on NFS mounts (`nfs`, `nfs4`) only; elsewhere it is `in_place`',
            },
        },
    },
    'iotune_tunefstab': {
        'description': 'VxFS tunables per device (C(/etc/vx/tunefstab) and live C(vxtunefs)).',
        'type': 'list', 'elements': 'dict', 'default': [],
        'options': {
            'device': {
                'description': 'Block device as named in tunefstab, e.g. C(/dev/vx/dsk/datadg/vol01), or V(system-default).',
                'type': 'str', 'required': True,
                'accepted': "an absolute device path without whitespace, `#`, `,` or `=`, or `system-default`; each device once",
            },
            'tunables': {
                'description': 'Tunable name to value; sizes accept C(256k), C(10m), C(10485760).',
                'type': 'dict', 'required': True,
                'accepted': 'VxFS tunables (`ansible-doc iotune.storage.tunefstab`); byte-valued ones take sizes; not a value '
                            'the `system-default` entry sets otherwise (its line takes precedence)',
            },
        },
    },
    'iotune_block_devices': {
        'description': 'Block-device queue settings, each entry for the device its O(iotune_block_devices[].match) selects.',
        'type': 'list', 'elements': 'dict', 'default': [],
        'options': _with({
            'match': {
                'description': 'How to find the device; exactly one key.',
                'type': 'dict', 'required': True,
                'accepted': 'exactly one of the keys below; each device once',
                'options': {
                    'name': {
                        'description': [
                            'Kernel name, e.g. C(sdb), C(nvme0n1), C(dm-3).',
                            'Or a name that stays across reboots: a device-mapper name (C(vg-lv), C(mpatha)).',
                            'Or an md array as C(md/<name>): C(/dev/md/<name>), or the name in its superblock with or without C(<homehost>:).',
                        ],
                        'type': 'str',
                        'accepted': 'a kernel device name, a device-mapper name or md/<array name>, without `/dev/`',
                    },
                    'mountpoint': {
                        'description': 'A mount point; resolved through partitions, dm and md to the queue that applies.',
                        'type': 'str',
                        'accepted': 'an absolute mount point',
                    },
                    'wwn': {
                        'description': [
                            'World wide name (NAA or EUI-64), as C(io_facts) reports it (V(0x50026b724b09a1ff)) or as sysfs '
                            'C(wwid) or a C(/dev/disk/by-id/wwn-) link shows it.',
                            'Compared with every WWN of the disk (sysfs C(wwid), C(device/vpd_pg83), udev C(ID_WWN)), so a match '
                            'still holds when a kernel upgrade changes the form of C(wwid) (C(t10.ATA ...) to C(naa....)).',
                        ],
                        'type': 'str',
                        'accepted': 'text (`naa.`, `eui.`, `0x`, `wwn-` prefixes ignored)',
                    },
                    'serial': {
                        'description': 'Serial number.',
                        'type': 'str',
                        'accepted': 'text',
                    },
                },
            },
        }, ((name, queue_setting_entry(name)) for name in QUEUE_SETTINGS)),
    },
    'iotune_cache': {
        'description': 'Writeback and page-cache limits (C(vm.*) sysctls on Linux, the ZFS ARC cap on Solaris, the file '
                       'cache on HP-UX) and the memory cap for bulk jobs.',
        'type': 'dict', 'default': {},
        'options': _with(_with(((name, sysctl_entry(name)) for name in POLICY_SYSCTLS),
                               ((name, unix_cache_entry(name)) for name in UNIX_CACHE_KEYS)), {
            'bulk_slice': {
                'description': 'Memory cap for bulk jobs (a systemd slice), so backups and copies do not evict the working set.',
                'type': 'dict',
                'options': {
                    'memory_high': {
                        'description': 'C(MemoryHigh=) of the slice, a size (C(4G)) or a percentage of RAM (C(25%)), or V(infinity).',
                        'type': 'raw', 'required': True,
                        'accepted': 'a size (`4g`, written as bytes), a percentage of RAM above 0 and at most 100 with at '
                                    'most two decimals (`25%`, `12.5%`, `12.25%`; per mille `125\u2030`, `12.5\u2030`) or '
                                    '`infinity`; systemd ignores other forms such as `12.345%`',
                    },
                    'name': {
                        'description': 'Slice unit name; C(iotune-bulk) runs commands in it (the C(copy_tools) role writes it to copy.conf).',
                        'type': 'str', 'default': 'iotune-bulk.slice',
                        'accepted': 'a systemd unit name ending in `.slice` (letters, digits, `:_.-`; no `/`); not one of '
                                    'systemd\'s own slices (`-.slice`, `system.slice`, `user.slice`, `machine.slice`, '
                                    '`capsule.slice`, `user-*.slice`); a child such as `system-backup.slice` is accepted',
                    },
                },
            },
        }),
    },
    'iotune_copy_tools': {
        'description': [
            'The large-block copy tools (C(iotune-copy), C(iotune-bulk) and C(/etc/iotune/copy.conf)); unset, they are not '
            'audited or installed. The C(copy_tools) role\'s variables C(copy_tools_bin_dir) and C(copy_tools_config) say where.',
        ],
        'type': 'dict',
        'options': {
            'state': {
                'description': 'V(present) (installed and current) or V(absent) (not installed).',
                'type': 'str', 'choices': ['present', 'absent'], 'default': 'present',
                'accepted': '',
            },
            'buffer_size': {
                'description': 'Default C(--buffer-size) of C(iotune-copy), a size from 1 byte to 1 GiB (V(256k), V(8M), V(8388608)).',
                'type': 'raw', 'default': '8M', 'unit': 'bytes',
                'accepted': '1 byte to `1g`; written to `copy.conf` as the tool reads it (`8MiB` becomes `8M`)',
            },
            'streams': {
                'description': [
                    'Default C(--streams) of C(iotune-copy --direct), the buffers it keeps in flight, 1 to 64; '
                    'O(iotune_copy_tools.buffer_size) times O(iotune_copy_tools.streams) at most 1 GiB.',
                    'Not set, the tool\'s own default applies (3, fewer where 3 buffers would pass 1 GiB).',
                ],
                'type': 'int', 'unit': 'buffers',
                'accepted': '1 to 64, with `streams` x `buffer_size` at most `1g`',
            },
        },
    },
}


def _node(path):
    node = {'options': SCHEMA}
    for name in path:
        node = node['options'][name]
    return node


def schema_keys(*path):
    """The keys of the schema entry at ``path`` (``schema_keys('iotune_cache', 'bulk_slice')``)."""
    return tuple(_node(path)['options'])


def schema_choices(*path):
    return tuple(_node(path)['choices'])


POLICY_KEYS = schema_keys()
PROFILE_NAMES = schema_choices('iotune_profile')
SCHEDULERS = schema_choices('iotune_block_devices', 'scheduler')
MOUNT_KEYS = schema_keys('iotune_mounts')
REMOUNT_MODES = schema_choices('iotune_mounts', 'remount')
TUNEFSTAB_KEYS = schema_keys('iotune_tunefstab')
BLOCK_DEVICE_KEYS = schema_keys('iotune_block_devices')
MATCH_KEYS = schema_keys('iotune_block_devices', 'match')
CACHE_KEYS = schema_keys('iotune_cache')
BULK_SLICE_KEYS = schema_keys('iotune_cache', 'bulk_slice')
# iotune_cache keys that are vm.* sysctls (everything but bulk_slice and the Solaris/HP-UX tunables).
CACHE_SYSCTL_KEYS = POLICY_SYSCTLS
COPY_TOOLS_KEYS = schema_keys('iotune_copy_tools')
COPY_TOOLS_STATES = schema_choices('iotune_copy_tools', 'state')
DEFAULT_SLICE = SCHEMA['iotune_cache']['options']['bulk_slice']['options']['name']['default']

# bytes/ratio pairs: writing one zeroes the other, so a policy names one of each.
CACHE_PAIRS = tuple(pair for pair in PAIRS if set(pair) <= set(CACHE_SYSCTL_KEYS))
