# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cache limits of Solaris and HP-UX that the policy's iotune_cache sets; pure data.

The counterparts of Linux's page-cache limits (settings/cache_limits.py) where the field cases happened. Each
entry: the ``platform`` (settings.platforms key) that has it, when a change ``applies`` (Solaris reads
/etc/system at boot; HP-UX's kctune changes the running kernel and its saved configuration at once),
``minimum``/``maximum`` bytes, HP-UX's ``memory_pct`` (filecache_max(5): the largest value kctune
accepts, as a share of physical memory, which the host's plan checks), and the sentences for the
documentation. Values are bytes; the policy
takes sizes such as ``4g``.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.units import ULONG_MAX

# filecache_max(5), HP-UX 11i v3: "each at least 1 MB"
HPUX_FILECACHE_MIN = 1000000
# the ZFS ARC cap cannot go below 64 MiB (illumos arc.c: zfs_arc_max is ignored below 64 << 20)
ZFS_ARC_MIN = 64 << 20

UNIX_CACHE = {
    'zfs_arc_max': {
        'platform': 'solaris', 'minimum': ZFS_ARC_MIN, 'maximum': ULONG_MAX, 'applies': 'at the next boot',
        'description': 'Solaris and illumos: the ZFS ARC cap (C(zfs:zfs_arc_max) in C(/etc/system); live: C(kstat)).',
        'accepted': 'a size of at least 64m; Solaris hosts only',
    },
    'filecache_min': {
        'platform': 'hpux', 'minimum': HPUX_FILECACHE_MIN, 'maximum': ULONG_MAX, 'applies': 'at once',
        'memory_pct': 70,
        'description': 'HP-UX 11i v3: the least file cache (C(kctune filecache_min)).',
        'accepted': 'a size of at least 1 MB and at most 70 % of physical memory, not above `filecache_max`; HP-UX hosts only',
    },
    'filecache_max': {
        'platform': 'hpux', 'minimum': HPUX_FILECACHE_MIN, 'maximum': ULONG_MAX, 'applies': 'at once',
        'memory_pct': 90,
        'description': 'HP-UX 11i v3: the file cache cap (C(kctune filecache_max)).',
        'accepted': 'a size of at least 1 MB and at most 90 % of physical memory; HP-UX hosts only',
    },
}

UNIX_CACHE_KEYS = tuple(UNIX_CACHE)


def platform_keys(platform):
    """The UNIX_CACHE keys of ``platform``, in table order."""
    return tuple(name for name in UNIX_CACHE_KEYS if UNIX_CACHE[name]['platform'] == platform)
