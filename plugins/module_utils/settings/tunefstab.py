# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The VxFS tunables iotune manages (vxtunefs(1M), tunefstab(4)): one entry per tunable; pure data.

The policy's validation of ``iotune_tunefstab`` (policy/validate.py), the tunefstab planner's reading of
values (plan/tunefstab.py), the tunefstab module's documentation and docs/policy.md (``make schema``) take the names and accepted values from here.
Adding a tunable is adding an entry. Each entry:

* ``kind``: ``size`` (bytes; the policy takes sizes such as ``1m``), ``count`` (an integer of at
  least ``minimum``) or ``choice`` (one of ``choices``; with ``type: size`` the choices are sizes,
  written ``64k`` as well);
* ``minimum``, ``choices``: as above; every value is at most VXFS_TUNABLE_MAX (vxtunefs keeps a
  tunable in a signed 64-bit integer);
* ``unit``: what a number means (vxtunefs(1M)).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

VXFS_TUNABLE_MAX = 2 ** 63 - 1
KINDS = ('size', 'count', 'choice')


def _size():
    return {'kind': 'size', 'unit': 'bytes'}


def _count(minimum, unit):
    return {'kind': 'count', 'minimum': minimum, 'unit': unit}


# in the order vxtunefs prints them
VXFS_TUNABLES = {
    'read_pref_io': _size(),
    'read_nstream': _count(1, 'I/Os in parallel'),
    'write_pref_io': _size(),
    'write_nstream': _count(1, 'I/Os in parallel'),
    'buf_breakup_size': _size(),
    'discovered_direct_iosz': _size(),
    'max_direct_iosz': _size(),
    'default_indir_size': _size(),
    'qio_cache_enable': {'kind': 'choice', 'choices': (0, 1), 'unit': 'off or on'},
    'write_throttle': _count(0, 'pages'),
    'max_diskq': _size(),
    'initial_extent_size': _count(0, 'file system blocks'),
    'max_seqio_extent_size': _count(0, 'file system blocks'),
    'max_buf_data_size': {'kind': 'choice', 'type': 'size', 'choices': (8192, 65536), 'unit': 'bytes'},
    'read_ahead': {'kind': 'choice', 'choices': (0, 1, 2), 'unit': 'off, normal or enhanced'},
    'fcl_maxalloc': _size(),
    'fcl_keeptime': _count(0, 's'),
    'fcl_winterval': _count(0, 's'),
}
TUNABLE_NAMES = tuple(VXFS_TUNABLES)


def accepted(name):
    """What the tunable ``name`` takes, as the documentation and the error messages say it."""
    entry = VXFS_TUNABLES[name]
    if entry['kind'] == 'size':
        return 'a size in bytes (10485760, 256k, 10m)'
    if entry['kind'] == 'count':
        return 'an integer >= %d' % entry['minimum']
    if entry.get('type') == 'size':
        return ' or '.join('%dk' % (choice // 1024) for choice in entry['choices']) + \
            ' (%s bytes)' % ' or '.join(str(choice) for choice in entry['choices'])
    return 'one of %s' % ', '.join(str(choice) for choice in entry['choices'])


def choices(name):
    """The values the tunable ``name`` takes when it is a choice, else None."""
    return VXFS_TUNABLES[name].get('choices')
