# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Named policy profiles, merged under the user's values (like tuned profiles).

A profile cannot know a host's paths or devices, so apart from ``cache`` its
values are defaults for the entries the user lists:

- ``cache``: iotune_cache values (host-wide);
- ``block_device_defaults``: settings for every iotune_block_devices entry;
- ``mount_defaults``: ``present``/``absent`` options for every iotune_mounts entry;
- ``tunefstab_defaults``: tunables for every iotune_tunefstab entry.

The user wins key by key.  Mount option lists are merged; an option the user
names in either list removes the profile's options it contradicts (same
option, same key, or the same slot such as noatime/relatime).  ``present``
lists hold only options every Linux file system accepts; VxFS-only options
appear in ``absent`` lists, where they are harmless on other file systems.

"seed NNN" refers to the field cases of the design (shared/seeds, summarized in
DOMAIN.md); _policy.PROFILE_NAMES lists the names accepted here.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy

from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import CACHE_PAIRS
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import normalize_policy, validate_policy
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import absent_matches, implies, option_slot, options_equal

PROFILES = {
    # Large sequential reads and writes: copies, ETL, media, backups to disk.
    'throughput': {
        'cache': {
            # tuned throughput-performance uses vm.dirty_ratio 40: writers may build up more
            # dirty data before they are throttled, so big writes leave in big batches.
            'dirty_ratio': 40,
            # tuned throughput-performance keeps background writeback at 10% (the kernel
            # default), so flushing starts early while writers keep going.
            'dirty_background_ratio': 10,
        },
        'block_device_defaults': {
            # tuned throughput-performance sets read-ahead >= 4096 KiB; seed 004 (OpenVMS):
            # "perform larger and fewer I/Os" and VCC_READAHEAD for sequential files.
            'read_ahead_kb': 4096,
        },
        'mount_defaults': {
            'present': [],
            # seed 002: cp on a direct-I/O mount took 8m41s for 1 GiB vs 24 s with buffered
            # 8 MiB I/O, because most tools issue 4-32 KiB I/Os; seed 000: mincache=direct,
            # convosync=direct made a restore 10x slower (1:07 -> 11:46).
            'absent': ['mincache=direct', 'convosync=direct'],
        },
        'tunefstab_defaults': {
            # seed 003: read_pref_io=65536 vs 1 MiB on two file systems of one box; VxFS
            # read-ahead is read_pref_io x read_nstream, so 1 MiB reads ahead in big units.
            'read_pref_io': '1m',
            # seed 003: write_pref_io=65536 split 8 MiB writes into 64 KiB strategy calls
            # (4 ms each) and copies took up to 4x longer than with 1 MiB.
            'write_pref_io': '1m',
            # seed 001: after VxFS 3.4 -> 4.1, cp's 8 MiB chunks went unbuffered (direct) and
            # 90 GB copies took 3 h instead of 1 h; the fix was discovered_direct_iosz=10485760.
            'discovered_direct_iosz': 10485760,
        },
    },
    # Databases that do their own caching and open files with O_DIRECT (or Quick I/O/ODM).
    'database_directio': {
        'cache': {
            # The database caches itself; the page cache only buffers its writes.  An absolute
            # cap keeps writeback bursts small on big-memory hosts, where 20% of RAM
            # (the kernel's vm.dirty_ratio) is tens of GiB flushed at once.
            'dirty_bytes': '256m',
            # Background flushing starts at 64 MiB so the cap above is rarely reached.
            'dirty_background_bytes': '64m',
            # Write dirty pages after 15 s instead of the kernel's 30 s (3000): smaller,
            # steadier bursts that do not stall the database's own log writes.
            'dirty_expire_centisecs': 1500,
        },
        'block_device_defaults': {
            # Modest read-ahead (the kernel default, 128 KiB): database I/O is mostly random,
            # larger read-ahead reads pages nobody asked for (seed 004: VCC_READAHEAD is a
            # per-workload choice).
            'read_ahead_kb': 128,
        },
        'mount_defaults': {
            # Every read would otherwise update inode access times (relatime still does once a
            # day per file); the database never uses atime.  noatime implies nodiratime.
            'present': ['noatime'],
            # Direct-I/O mount options are left alone: seed 000 notes mincache=direct is used on
            # purpose for database file systems.
            'absent': [],
        },
        'tunefstab_defaults': {
            # The database caches itself: Quick I/O reads must not be cached a second time in
            # the page cache (qio_cache_enable 0 is the VxFS default; make it explicit).
            'qio_cache_enable': 0,
        },
    },
    # Backup and restore windows: bulk copies of whole file systems.
    'backup_restore': {
        'cache': {
            # seed 004 (OpenVMS): BACKUP bypasses the cache and COPY pollutes it; on Linux the
            # equivalent is to run bulk jobs in a slice whose memory (page cache included) is
            # capped, so a restore does not evict everyone else's cache (DOMAIN.md mapping table).
            'bulk_slice': {'memory_high': '25%'},
        },
        'block_device_defaults': {
            # Backup reads whole files sequentially: large read-ahead (tuned
            # throughput-performance uses 4096 KiB; seed 004: "larger and fewer I/Os").
            'read_ahead_kb': 4096,
        },
        'mount_defaults': {
            'present': [],
            # seed 000: with mincache=direct,convosync=direct a pax restore took 11:46 instead of
            # 1:07 (write calls/s fell from ~1020 to ~98); sync has the same effect on every write.
            'absent': ['mincache=direct', 'convosync=direct', 'sync'],
        },
        'tunefstab_defaults': {
            # seed 001: restores and copies use 8 MiB chunks; keep them buffered
            # (discovered_direct_iosz=10485760 was the fix after the VxFS upgrade).
            'discovered_direct_iosz': 10485760,
            # seed 003: 1 MiB preferred I/O instead of 64 KiB, up to 4x faster copies.
            'read_pref_io': '1m',
            'write_pref_io': '1m',
        },
    },
}


class PolicyError(ValueError):
    """An invalid policy; ``errors`` holds every message."""

    def __init__(self, errors):
        self.errors = list(errors)
        super(PolicyError, self).__init__('; '.join(self.errors))


def _merge_present(profile_present, user_present, user_absent):
    """Profile options the user does not override, then the user's."""
    kept = []
    for option in profile_present:
        slot = option_slot(option)
        if any(absent_matches(other, option) or implies(option, other) for other in user_absent):
            continue
        if any(options_equal(option, other) or (slot is not None and option_slot(other) == slot)
               for other in user_present):
            continue
        kept.append(option)
    return kept + [option for option in user_present if not any(options_equal(option, k) for k in kept)]


def _merge_absent(profile_absent, user_present, user_absent):
    kept = [option for option in profile_absent
            if not any(implies(other, option) for other in user_present)]
    return kept + [option for option in user_absent if not any(options_equal(option, k) for k in kept)]


def merge_mount_entry(defaults, entry):
    """One iotune_mounts entry with the profile's mount_defaults merged under it."""
    present = entry.get('present') or []
    absent = entry.get('absent') or []
    if not isinstance(present, (list, tuple)) or not isinstance(absent, (list, tuple)):
        return dict(entry)  # invalid: validation reports it
    merged = dict(entry)
    merged['present'] = _merge_present(defaults.get('present', []), list(present), list(absent))
    merged['absent'] = _merge_absent(defaults.get('absent', []), list(present), list(absent))
    return merged


def merge_cache(profile_cache, user_cache):
    """iotune_cache with the profile's values under the user's.

    A user value of one half of a bytes/ratio pair drops the profile's other half."""
    merged = copy.deepcopy(profile_cache)
    for bytes_key, ratio_key in CACHE_PAIRS:
        if user_cache.get(bytes_key) is not None:
            merged.pop(ratio_key, None)
        if user_cache.get(ratio_key) is not None:
            merged.pop(bytes_key, None)
    for key, value in user_cache.items():
        if key == 'bulk_slice' and isinstance(value, dict) and isinstance(merged.get('bulk_slice'), dict):
            merged['bulk_slice'] = dict(merged['bulk_slice'], **value)
        else:
            merged[key] = value
    return merged


def apply_profile(policy, name):
    """``policy`` (not normalized) with profile ``name`` merged under it."""
    profile = PROFILES[name]
    merged = dict(policy)
    cache = policy.get('iotune_cache') or {}
    if isinstance(cache, dict):
        merged['iotune_cache'] = merge_cache(profile['cache'], cache)
    mounts = policy.get('iotune_mounts') or []
    if isinstance(mounts, (list, tuple)):
        merged['iotune_mounts'] = [merge_mount_entry(profile['mount_defaults'], entry) if isinstance(entry, dict) else entry
                                   for entry in mounts]
    tunefstab = policy.get('iotune_tunefstab') or []
    if isinstance(tunefstab, (list, tuple)):
        result = []
        for entry in tunefstab:
            if isinstance(entry, dict) and isinstance(entry.get('tunables') or {}, dict):
                entry = dict(entry, tunables=dict(profile['tunefstab_defaults'], **(entry.get('tunables') or {})))
            result.append(entry)
        merged['iotune_tunefstab'] = result
    devices = policy.get('iotune_block_devices') or []
    if isinstance(devices, (list, tuple)):
        merged['iotune_block_devices'] = [dict(profile['block_device_defaults'], **entry) if isinstance(entry, dict) else entry
                                          for entry in devices]
    return merged


def effective_policy(policy):
    """The policy the roles enforce: profile merged under the user's values,
    validated and normalized.  Raises PolicyError (a ValueError) listing every
    problem; problems of the user's own values are reported with their field
    paths before any merging."""
    policy = policy or {}
    errors = validate_policy(policy)
    if errors:
        raise PolicyError(errors)
    name = policy.get('iotune_profile')
    merged = apply_profile(policy, name) if name else policy
    errors = validate_policy(merged)
    if errors:
        raise PolicyError(['with profile %s: %s' % (name, error) for error in errors])
    return normalize_policy(merged)
