# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The platforms a managed host can be, told apart by what ``uname -s`` prints; pure data.

Each entry: ``uname`` (the system name), the files of its mount tables (``mnttab`` the live one,
``fstab`` the persistent one and its ``fstab_format``), the VxFS ``tunefstab``, the ``cache`` concern's
tunables there, ``not_applicable``: the concerns that do not exist there, with the reason a report
gives, and ``policy_not_applicable``: the policy's concerns io_policy does not manage there.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

LINUX_ONLY = ('block-queue settings are read from sysfs and kept by udev rules, which only Linux has')
COPY_TOOLS_LINUX = 'the copy tools are installed for Linux hosts (their bulk slice is a systemd unit)'
# the platforms other than Linux
UNIX = ('solaris', 'hpux')
# the Solaris fragment harden_io writes the ZFS ARC cap into where the host has /etc/system.d and no file
# sets the cap yet (system(5): "deliver fragments into files in /etc/system.d", named after the package)
SYSTEM_FRAGMENT = 'iotune.storage:cache_limits'

PLATFORMS = {
    'linux': {
        'uname': 'Linux',
        'fstab': '/etc/fstab',
        'fstab_format': 'fstab',
        'tunefstab': '/etc/vx/tunefstab',
        'cache': 'vm sysctls (vm.dirty_*, vm.vfs_cache_pressure, ...) and the bulk slice',
        'not_applicable': {},
    },
    'solaris': {
        'uname': 'SunOS',
        'mnttab': '/etc/mnttab',
        'fstab': '/etc/vfstab',
        'fstab_format': 'vfstab',
        'tunefstab': '/etc/vx/tunefstab',
        # the ZFS ARC cap: /etc/system.d/* then /etc/system for the next boot, kstat for the live value
        'cache': 'zfs_arc_max in /etc/system.d/* or /etc/system (at the next boot), zfs:0:arcstats:c_max live',
        'system_file': '/etc/system',
        'system_fragment': '/etc/system.d/' + SYSTEM_FRAGMENT,
        'not_applicable': {'block_queue': LINUX_ONLY},
        'policy_not_applicable': {'block_queue': LINUX_ONLY, 'copy_tools': COPY_TOOLS_LINUX},
    },
    'hpux': {
        'uname': 'HP-UX',
        'mnttab': '/etc/mnttab',
        'fstab': '/etc/fstab',
        'fstab_format': 'hpux',
        'tunefstab': '/etc/vx/tunefstab',
        # the buffer cache of HP-UX 11i v3 (dbc_min_pct/dbc_max_pct on older releases)
        'cache': 'filecache_min and filecache_max through kctune',
        'kernel_tunables': ('filecache_min', 'filecache_max', 'dbc_min_pct', 'dbc_max_pct'),
        'not_applicable': {'block_queue': LINUX_ONLY},
        'policy_not_applicable': {'block_queue': LINUX_ONLY, 'copy_tools': COPY_TOOLS_LINUX},
    },
}


def unsupported_message(system_name):
    """The refusal of a host whose ``uname -s`` names a system the collection does not manage."""
    return 'uname -s says %r: iotune.storage manages Linux, SunOS (Solaris and illumos) and HP-UX hosts only (uname -s ' \
           '%s); nothing was read or changed on this host' % (
               (system_name or '').strip(), ', '.join(sorted(entry['uname'] for entry in PLATFORMS.values())))


def platform_of(system_name):
    """The PLATFORMS key of a ``uname -s`` answer, or None for a system the collection does not know."""
    name = (system_name or '').strip()
    for key, entry in PLATFORMS.items():
        if entry['uname'] == name:
            return key
    return None
