# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The vm.* sysctls iotune manages: one entry per sysctl, keyed by its name under vm.; pure data.

Everything else that names these sysctls comes from VM_SYSCTLS: the policy schema (iotune_cache),
its validation, the cache_limits planner's keys, kernel defaults and bytes/ratio pairs, io_facts'
vm section, the snapshot, the journal's record check and the documentation (`make schema`).
Adding a sysctl is adding an entry here. Each entry:

* ``type``: ``int``, or ``size`` (bytes; the policy takes sizes such as ``256m``);
* ``minimum``/``maximum``: what the kernel accepts (it refuses other values, changing nothing); ``unit``;
* ``kernel_default``: the value after boot when no sysctl file sets it (Documentation/admin-guide/sysctl/vm.rst),
  None when the kernel computes it at boot;
* ``exclusive_with``: the other half of a bytes/ratio pair: writing one makes the kernel zero the other;
* ``below``: the sysctl this one must stay below (else the kernel uses half of that one instead);
* ``in_policy``: an ``iotune_cache`` key of the policy (the others only through the cache_limits module);
* ``description``: a sentence for the documentation; ``accepted``: what docs/policy.md says beyond the range.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.units import INT_MAX, ULONG_MAX

# The kernel refuses vm.dirty_bytes below two pages (dirty_bytes_min) and vm.dirty_background_bytes below 1.
DIRTY_BYTES_MIN = 8192

VM_SYSCTLS = {
    'dirty_bytes': {
        'type': 'size', 'unit': 'bytes', 'minimum': DIRTY_BYTES_MIN, 'maximum': ULONG_MAX, 'kernel_default': 0,
        'exclusive_with': 'dirty_ratio', 'in_policy': True,
        'description': 'Dirty page cache at which a writing process starts writeback itself, in bytes.',
        'accepted': 'a size, at least 8k (two pages)',
    },
    'dirty_ratio': {
        'type': 'int', 'unit': '%', 'minimum': 0, 'maximum': 100, 'kernel_default': 20,
        'exclusive_with': 'dirty_bytes', 'in_policy': True,
        'description': 'Dirty page cache at which a writing process starts writeback itself, in percent of available memory.',
    },
    'dirty_background_bytes': {
        'type': 'size', 'unit': 'bytes', 'minimum': 1, 'maximum': ULONG_MAX, 'kernel_default': 0,
        'exclusive_with': 'dirty_background_ratio', 'below': 'dirty_bytes', 'in_policy': True,
        'description': 'Dirty page cache at which the flusher threads start writeback in the background, in bytes.',
        'accepted': 'a size',
    },
    'dirty_background_ratio': {
        'type': 'int', 'unit': '%', 'minimum': 0, 'maximum': 100, 'kernel_default': 10,
        'exclusive_with': 'dirty_background_bytes', 'below': 'dirty_ratio', 'in_policy': True,
        'description': 'Dirty page cache at which the flusher threads start writeback in the background, in percent of '
                       'available memory.',
    },
    'dirty_expire_centisecs': {
        'type': 'int', 'unit': '1/100 s', 'minimum': 0, 'maximum': INT_MAX, 'kernel_default': 3000, 'in_policy': True,
        'description': 'Age at which dirty data is old enough for the flusher threads to write it out.',
    },
    'dirty_writeback_centisecs': {
        'type': 'int', 'unit': '1/100 s', 'minimum': 0, 'maximum': INT_MAX, 'kernel_default': 500, 'in_policy': True,
        'description': 'Interval at which the flusher threads wake up to write old dirty data out; 0 turns that off.',
    },
    'dirtytime_expire_seconds': {
        'type': 'int', 'unit': 's', 'minimum': 0, 'maximum': INT_MAX, 'kernel_default': 43200, 'in_policy': True,
        'description': 'Age at which the timestamps a lazytime mount keeps in memory are written out anyway.',
    },
    'vfs_cache_pressure': {
        'type': 'int', 'minimum': 0, 'maximum': INT_MAX, 'kernel_default': 100, 'in_policy': True,
        'description': 'How readily the kernel reclaims the memory that caches directory and inode objects; '
                       '100 balances it with the page cache.',
    },
    'watermark_scale_factor': {
        'type': 'int', 'unit': '1/10000 of memory', 'minimum': 1, 'maximum': 3000, 'kernel_default': 10, 'in_policy': True,
        'description': 'How far below the low watermark kswapd starts reclaiming memory and how far above it stops; '
                       'larger values start background reclaim earlier, so that reads into the page cache stall less.',
    },
    'swappiness': {
        'type': 'int', 'minimum': 0, 'maximum': 200, 'kernel_default': 60, 'in_policy': False,
        'description': 'How readily the kernel swaps out anonymous memory rather than dropping page cache.',
    },
    'min_free_kbytes': {
        'type': 'int', 'unit': 'KiB', 'minimum': 0, 'maximum': INT_MAX, 'kernel_default': None, 'in_policy': False,
        'description': 'Memory the kernel keeps free for allocations that cannot wait; computed from the memory at boot.',
    },
}

VM_KEYS = tuple(VM_SYSCTLS)
POLICY_SYSCTLS = tuple(name for name in VM_KEYS if VM_SYSCTLS[name]['in_policy'])
# each bytes/ratio pair once, in table order
PAIRS = tuple((name, VM_SYSCTLS[name]['exclusive_with']) for index, name in enumerate(VM_KEYS)
              if VM_SYSCTLS[name].get('exclusive_with') in VM_KEYS[index + 1:])
# (lower, higher): the background limits below the foreground ones
ORDERED = tuple((name, VM_SYSCTLS[name]['below']) for name in VM_KEYS if VM_SYSCTLS[name].get('below'))


def dotted(name):
    """The sysctl key of a table name: ``dirty_ratio`` -> ``vm.dirty_ratio``."""
    return 'vm.' + name
