# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import re

import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils import _profiles
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import PROFILE_NAMES
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_policy
from ansible_collections.iotune.storage.plugins.plugin_utils._profiles import (
    PROFILES,
    PolicyError,
    apply_profile,
    effective_policy,
)

SECTIONS = ('cache', 'block_device_defaults', 'mount_defaults', 'tunefstab_defaults')

# One entry per concern, so every *_defaults section of a profile is exercised.
ONE_OF_EACH = {
    'iotune_mounts': [{'path': '/backup'}],
    'iotune_tunefstab': [{'device': '/dev/vx/dsk/bkdg/backup'}],
    'iotune_block_devices': [{'match': {'name': 'vdb'}}],
}


def test_profile_names_match_the_policy():
    assert sorted(PROFILES) == sorted(PROFILE_NAMES)


@pytest.mark.parametrize('name', sorted(PROFILES))
def test_profile_shape(name):
    profile = PROFILES[name]
    assert sorted(profile) == sorted(SECTIONS)
    assert sorted(profile['mount_defaults']) == ['absent', 'present']


@pytest.mark.parametrize('name', sorted(PROFILES))
def test_profile_values_are_valid(name):
    profile = PROFILES[name]
    policy = {
        'iotune_mounts': [dict(path='/x', **profile['mount_defaults'])],
        'iotune_tunefstab': [{'device': '/dev/x', 'tunables': profile['tunefstab_defaults']}],
        'iotune_block_devices': [dict(match={'name': 'x'}, **profile['block_device_defaults'])],
        'iotune_cache': profile['cache'],
    }
    assert validate_policy(policy) == []


@pytest.mark.parametrize('name', sorted(PROFILES))
def test_profile_present_options_are_generic(name):
    """present lists are applied to every listed mount, whatever its file system: no VxFS-only options."""
    for option in PROFILES[name]['mount_defaults']['present']:
        assert option in ('noatime', 'relatime', 'nodiratime', 'lazytime'), option


def test_every_profile_value_carries_a_comment():
    """Each value line in PROFILES is preceded by a comment (lines grouped under one comment share it)."""
    with open(_profiles.__file__.replace('.pyc', '.py')) as handle:
        source = handle.read()
    block = source[source.index('PROFILES = {'):source.index('\nclass PolicyError')]
    lines = [line.strip() for line in block.splitlines()]
    leaf = re.compile(r"^'\w+': (?![{\[]\]?,?$)(?!\[\],$)")
    for index, line in enumerate(lines):
        if not leaf.match(line) or line.endswith('{'):
            continue
        above = index - 1
        while above >= 0 and leaf.match(lines[above]) and not lines[above].endswith('{'):
            above -= 1
        assert lines[above].startswith('#'), 'no comment above %r' % line


def test_profile_comments_cite_the_field_cases():
    with open(_profiles.__file__.replace('.pyc', '.py')) as handle:
        source = handle.read()
    for seed in ('seed 000', 'seed 001', 'seed 002', 'seed 003', 'seed 004', 'tuned throughput-performance'):
        assert seed in source


@pytest.mark.parametrize('name', sorted(PROFILES))
def test_every_profile_gives_a_valid_effective_policy(name):
    result = effective_policy(dict(ONE_OF_EACH, iotune_profile=name))
    assert result['iotune_profile'] == name
    assert len(result['iotune_mounts']) == 1
    assert len(result['iotune_tunefstab']) == 1
    assert len(result['iotune_block_devices']) == 1


def test_throughput_profile():
    result = effective_policy(dict(ONE_OF_EACH, iotune_profile='throughput'))
    assert result == {
        'iotune_profile': 'throughput',
        'iotune_mounts': [{'path': '/backup', 'present': [], 'absent': ['mincache=direct', 'convosync=direct']}],
        'iotune_tunefstab': [{'device': '/dev/vx/dsk/bkdg/backup', 'tunables': {
            'read_pref_io': 1048576, 'write_pref_io': 1048576, 'discovered_direct_iosz': 10485760}}],
        'iotune_block_devices': [{'match': {'name': 'vdb'}, 'read_ahead_kb': 4096}],
        'iotune_cache': {'dirty_ratio': 40, 'dirty_background_ratio': 10},
        'iotune_copy_tools': None,
    }


def test_backup_restore_profile():
    result = effective_policy(dict(ONE_OF_EACH, iotune_profile='backup_restore'))
    assert result['iotune_mounts'] == [
        {'path': '/backup', 'present': [], 'absent': ['mincache=direct', 'convosync=direct', 'sync']}]
    assert result['iotune_cache'] == {'bulk_slice': {'memory_high': '25%'}}


def test_database_directio_profile():
    result = effective_policy(dict(ONE_OF_EACH, iotune_profile='database_directio'))
    assert result['iotune_mounts'] == [{'path': '/backup', 'present': ['noatime'], 'absent': []}]
    assert result['iotune_cache'] == {'dirty_bytes': 268435456, 'dirty_background_bytes': 67108864,
                                      'dirty_expire_centisecs': 1500}
    assert result['iotune_block_devices'] == [{'match': {'name': 'vdb'}, 'read_ahead_kb': 128}]
    assert result['iotune_tunefstab'][0]['tunables'] == {'qio_cache_enable': 0}


def test_profile_without_entries_only_sets_the_cache():
    result = effective_policy({'iotune_profile': 'throughput'})
    assert result['iotune_mounts'] == []
    assert result['iotune_tunefstab'] == []
    assert result['iotune_block_devices'] == []
    assert result['iotune_cache'] == {'dirty_ratio': 40, 'dirty_background_ratio': 10}
    assert result['iotune_copy_tools'] is None


def test_profiles_leave_the_copy_tools_to_the_user():
    for name in sorted(PROFILES):
        assert effective_policy({'iotune_profile': name})['iotune_copy_tools'] is None
        assert effective_policy({'iotune_profile': name, 'iotune_copy_tools': {'buffer_size': '16m', 'streams': 4}})['iotune_copy_tools'] == {
            'state': 'present', 'buffer_size': 16777216, 'streams': 4}


# (id, profile, user mount entry, expected present, expected absent)
MOUNT_MERGES = [
    ('profile lists only', 'backup_restore', {'path': '/b'}, [], ['mincache=direct', 'convosync=direct', 'sync']),
    ('user adds to both', 'backup_restore', {'path': '/b', 'present': ['noatime'], 'absent': ['tmplog']},
     ['noatime'], ['mincache=direct', 'convosync=direct', 'sync', 'tmplog']),
    ('user present removes it from profile absent', 'backup_restore', {'path': '/b', 'present': ['sync']},
     ['sync'], ['mincache=direct', 'convosync=direct']),
    ('user present vxfs option', 'throughput', {'path': '/b', 'present': ['mincache=direct']},
     ['mincache=direct'], ['convosync=direct']),
    ('user absent removes it from profile present', 'database_directio', {'path': '/d', 'absent': ['noatime']},
     [], ['noatime']),
    ('user present of the same slot wins', 'database_directio', {'path': '/d', 'present': ['relatime']},
     ['relatime'], []),
    ('user strictatime wins', 'database_directio', {'path': '/d', 'present': ['strictatime']},
     ['strictatime'], []),
    ('user absent of an implied option', 'database_directio', {'path': '/d', 'absent': ['nodiratime']},
     [], ['nodiratime']),
    ('same option in both is kept once', 'backup_restore', {'path': '/b', 'absent': ['sync', 'convosync=direct']},
     [], ['mincache=direct', 'convosync=direct', 'sync']),
    ('same option in present kept once', 'database_directio', {'path': '/d', 'present': ['noatime', 'commit=60']},
     ['noatime', 'commit=60'], []),
    ('bare key in user absent', 'database_directio', {'path': '/d', 'present': ['mincache=direct'], 'absent': ['sync']},
     ['noatime', 'mincache=direct'], ['sync']),
]


@pytest.mark.parametrize('profile, entry, present, absent', [case[1:] for case in MOUNT_MERGES],
                         ids=[case[0] for case in MOUNT_MERGES])
def test_mount_merges(profile, entry, present, absent):
    result = effective_policy({'iotune_profile': profile, 'iotune_mounts': [entry]})
    assert result['iotune_mounts'] == [{'path': entry['path'], 'present': present, 'absent': absent}]


# (id, profile, user cache, expected cache)
CACHE_MERGES = [
    ('user ratio over profile ratio', 'throughput', {'dirty_ratio': 30},
     {'dirty_ratio': 30, 'dirty_background_ratio': 10}),
    ('user bytes drops the profile ratio', 'throughput', {'dirty_bytes': '1g'},
     {'dirty_bytes': 1073741824, 'dirty_background_ratio': 10}),
    ('user background bytes drops the profile background ratio', 'throughput', {'dirty_background_bytes': '128m'},
     {'dirty_ratio': 40, 'dirty_background_bytes': 134217728}),
    ('user ratio drops the profile bytes', 'database_directio', {'dirty_ratio': 20, 'dirty_background_ratio': 5},
     {'dirty_ratio': 20, 'dirty_background_ratio': 5, 'dirty_expire_centisecs': 1500}),
    ('user adds a key', 'throughput', {'vfs_cache_pressure': 50},
     {'dirty_ratio': 40, 'dirty_background_ratio': 10, 'vfs_cache_pressure': 50}),
    ('user bulk_slice over profile', 'backup_restore', {'bulk_slice': {'memory_high': '10%'}},
     {'bulk_slice': {'memory_high': '10%'}}),
    ('user bulk_slice with a profile without one', 'throughput', {'bulk_slice': {'memory_high': '4g'}},
     {'dirty_ratio': 40, 'dirty_background_ratio': 10, 'bulk_slice': {'memory_high': 4294967296}}),
]


@pytest.mark.parametrize('profile, cache, expected', [case[1:] for case in CACHE_MERGES],
                         ids=[case[0] for case in CACHE_MERGES])
def test_cache_merges(profile, cache, expected):
    assert effective_policy({'iotune_profile': profile, 'iotune_cache': cache})['iotune_cache'] == expected


def test_tunefstab_and_block_device_merges():
    result = effective_policy({
        'iotune_profile': 'throughput',
        'iotune_tunefstab': [{'device': '/dev/vx/dsk/datadg/u08', 'tunables': {'discovered_direct_iosz': '256k',
                                                                               'read_nstream': 4}}],
        'iotune_block_devices': [{'match': {'name': 'vdb'}, 'read_ahead_kb': 8192, 'scheduler': 'none'},
                                 {'match': {'mountpoint': '/data'}}],
    })
    assert result['iotune_tunefstab'] == [{'device': '/dev/vx/dsk/datadg/u08', 'tunables': {
        'read_pref_io': 1048576, 'write_pref_io': 1048576, 'discovered_direct_iosz': 262144, 'read_nstream': 4}}]
    assert result['iotune_block_devices'] == [
        {'match': {'name': 'vdb'}, 'read_ahead_kb': 8192, 'scheduler': 'none'},
        {'match': {'mountpoint': '/data'}, 'read_ahead_kb': 4096},
    ]


def test_no_profile_is_the_normalized_user_policy():
    assert effective_policy({'iotune_mounts': [{'path': '/data/', 'present': ['noatime']}]}) == {
        'iotune_profile': None,
        'iotune_mounts': [{'path': '/data', 'present': ['noatime'], 'absent': []}],
        'iotune_tunefstab': [],
        'iotune_block_devices': [],
        'iotune_cache': {},
        'iotune_copy_tools': None,
    }
    assert effective_policy(None)['iotune_mounts'] == []


def test_profiles_are_not_modified():
    before = copy.deepcopy(PROFILES)
    for name in PROFILES:
        policy = dict(ONE_OF_EACH, iotune_profile=name,
                      iotune_cache={'bulk_slice': {'memory_high': '5%'}, 'dirty_ratio': 50})
        apply_profile(policy, name)
        effective_policy(policy)
    assert PROFILES == before


def test_unknown_profile():
    with pytest.raises(PolicyError) as excinfo:
        effective_policy({'iotune_profile': 'fast'})
    assert excinfo.value.errors == [
        "iotune_profile: unknown profile 'fast' (accepted: throughput, database_directio, backup_restore, or null)"]
    assert isinstance(excinfo.value, ValueError)


def test_invalid_user_policy_names_the_user_fields():
    with pytest.raises(ValueError) as excinfo:
        effective_policy({
            'iotune_profile': 'backup_restore',
            'iotune_mounts': [{'path': '/b', 'present': ['noatime'], 'absent': ['noatime']}],
            'iotune_block_devices': [{'match': {'name': 'vdb'}, 'read_ahead_kb': -1}],
        })
    assert str(excinfo.value) == (
        "iotune_mounts[0]: option 'noatime' is in both present and absent; "
        "iotune_block_devices[0].read_ahead_kb: must be an integer between 0 and 4294967295, got -1")


def test_invalid_merge_is_reported_with_the_profile(monkeypatch):
    broken = copy.deepcopy(PROFILES)
    broken['throughput']['block_device_defaults']['read_ahead_kb'] = -4
    monkeypatch.setattr(_profiles, 'PROFILES', broken)
    with pytest.raises(PolicyError) as excinfo:
        effective_policy({'iotune_profile': 'throughput', 'iotune_block_devices': [{'match': {'name': 'vdb'}}]})
    assert excinfo.value.errors == [
        'with profile throughput: iotune_block_devices[0].read_ahead_kb: must be an integer between 0 and 4294967295, got -4']


def test_user_value_that_conflicts_with_a_profile_value():
    """A user dirty_ratio below the profile's background ratio is reported, naming the profile."""
    with pytest.raises(PolicyError) as excinfo:
        effective_policy({'iotune_profile': 'throughput', 'iotune_cache': {'dirty_ratio': 5}})
    assert excinfo.value.errors == [
        'with profile throughput: iotune_cache.dirty_background_ratio: must be lower than dirty_ratio (10 >= 5); '
        'the kernel would use half of dirty_ratio instead']
