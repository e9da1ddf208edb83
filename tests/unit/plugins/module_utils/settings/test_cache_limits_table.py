# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The vm table is the one list of vm.* sysctls: its entries are whole, and everything that names
the sysctls takes them from it."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act import records
from ansible_collections.iotune.storage.plugins.module_utils.parse import sysctl
from ansible_collections.iotune.storage.plugins.module_utils.plan import cache_limits
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import CACHE_PAIRS, CACHE_SYSCTL_KEYS, schema_keys
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import normalize_policy, validate_policy
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits_unix import UNIX_CACHE_KEYS
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import (
    ORDERED, PAIRS, POLICY_SYSCTLS, VM_KEYS, VM_SYSCTLS, dotted)


@pytest.mark.parametrize('name', VM_KEYS)
def test_every_entry_is_whole(name):
    entry = VM_SYSCTLS[name]
    assert entry['type'] in ('int', 'size') and entry['description'] and isinstance(entry['in_policy'], bool)
    assert 0 <= entry['minimum'] < entry['maximum']
    assert entry['kernel_default'] is None or entry['minimum'] <= entry['kernel_default'] <= entry['maximum'] \
        or entry['kernel_default'] == 0 and entry['type'] == 'size'
    partner = entry.get('exclusive_with')
    assert partner is None or VM_SYSCTLS[partner]['exclusive_with'] == name
    assert entry.get('below') in (None,) + VM_KEYS


def test_pairs_and_orders_come_from_the_entries():
    assert PAIRS == (('dirty_bytes', 'dirty_ratio'), ('dirty_background_bytes', 'dirty_background_ratio'))
    assert CACHE_PAIRS == PAIRS
    assert ORDERED == (('dirty_background_bytes', 'dirty_bytes'), ('dirty_background_ratio', 'dirty_ratio'))


def test_the_derived_lists_are_the_tables():
    assert sysctl.VM_KEYS == VM_KEYS
    assert cache_limits.SYSCTL_KEYS == records.SYSCTL_KEYS == tuple(dotted(name) for name in VM_KEYS)
    assert CACHE_SYSCTL_KEYS == POLICY_SYSCTLS and schema_keys('iotune_cache') == POLICY_SYSCTLS + UNIX_CACHE_KEYS + ('bulk_slice',)
    assert cache_limits.KERNEL_DEFAULTS['vm.dirty_ratio'] == 20 and 'vm.min_free_kbytes' not in cache_limits.KERNEL_DEFAULTS
    assert cache_limits.PARTNERS['vm.dirty_bytes'] == 'vm.dirty_ratio' and cache_limits.PARTNERS['vm.dirty_ratio'] == 'vm.dirty_bytes'
    assert cache_limits.KERNEL_MINIMUM['vm.dirty_bytes'] == 8192


@pytest.mark.parametrize('name', VM_KEYS)
def test_the_module_takes_the_tables_bounds(name):
    entry = VM_SYSCTLS[name]
    for value, good in ((entry['minimum'], True), (entry['maximum'], True), (entry['minimum'] - 1, False),
                        (entry['maximum'] + 1, False)):
        values, errors = cache_limits.validate_sysctl({dotted(name): value})
        assert (values == {dotted(name): value} and errors == []) if good else errors, (value, errors)


@pytest.mark.parametrize('name', POLICY_SYSCTLS)
def test_the_policy_takes_the_tables_bounds_and_sizes(name):
    entry = VM_SYSCTLS[name]
    assert validate_policy({'iotune_cache': {name: entry['maximum'] + 1}})
    assert validate_policy({'iotune_cache': {name: entry['minimum']}}) == []
    value = '%dk' % max(entry['minimum'] // 1024, 8) if entry['type'] == 'size' else str(entry['minimum'])
    assert validate_policy({'iotune_cache': {name: value}}) == []
    expected = max(entry['minimum'] // 1024, 8) * 1024 if entry['type'] == 'size' else entry['minimum']
    assert normalize_policy({'iotune_cache': {name: value}})['iotune_cache'][name] == expected


def test_a_module_only_sysctl_is_not_a_policy_key():
    assert 'swappiness' not in POLICY_SYSCTLS
    assert validate_policy({'iotune_cache': {'swappiness': 10}}) == [
        'iotune_cache.swappiness: unknown key (accepted: %s)' % ', '.join(POLICY_SYSCTLS + UNIX_CACHE_KEYS + ('bulk_slice',))]
