# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The queue table is the one list of block-queue settings: its entries are whole, and everything
that names the settings takes them from it."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act import apply, records
from ansible_collections.iotune.storage.plugins.module_utils.parse import sysfs, udev
from ansible_collections.iotune.storage.plugins.module_utils.plan import block_queue as plan
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import SCHEDULERS, schema_keys
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import normalize_policy, validate_policy
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import (
    INT_SETTINGS, QUEUE_SETTINGS, RESET_BY_SCHEDULER, RESETS, SETTINGS, UDEV_ATTRIBUTES, WRITE_ORDER, accepted_text)
from ansible_collections.iotune.storage.plugins.modules import block_queue as module


@pytest.mark.parametrize('name', SETTINGS)
def test_every_entry_is_whole(name):
    setting = QUEUE_SETTINGS[name]
    assert setting['sysfs'].startswith('queue/') and setting['udev'][0] == setting['sysfs']
    assert setting['run_words'] and setting['description'] and setting['accepted']
    assert setting['type'] in ('int', 'str')
    if setting['type'] == 'int':
        assert 0 <= setting['minimum'] < setting['maximum'] and setting['range_note']
    else:
        assert setting['choices']
    assert setting.get('device_maximum') in (None,) + tuple(sysfs.QUEUE_FACTS)
    assert setting.get('kernel_rule') in (None, 'whole_pages', 'logical_blocks', 'tag_set')


def test_write_order_ranks_each_setting_once():
    assert sorted(WRITE_ORDER) == sorted(SETTINGS)
    assert len(set(QUEUE_SETTINGS[name]['write_order'] for name in SETTINGS)) == len(SETTINGS)
    # a scheduler switch sets nr_requests anew: the scheduler goes first
    assert WRITE_ORDER[0] == 'scheduler' and RESET_BY_SCHEDULER == ('nr_requests',)


def test_the_derived_lists_are_the_tables():
    assert plan.SETTINGS == udev.QUEUE_SETTINGS == records.QUEUE_SETTINGS == SETTINGS
    assert plan.WRITE_ORDER == WRITE_ORDER
    assert udev.QUEUE_ATTRS == UDEV_ATTRIBUTES and UDEV_ATTRIBUTES['bdi/read_ahead_kb'] == 'read_ahead_kb'
    assert set(udev._COMMAND_HINTS) == set(SETTINGS)
    assert apply.RESETS == records.RESETS == RESETS == {'scheduler': RESET_BY_SCHEDULER, 'max_sectors_kb': ('read_ahead_kb',)}
    assert list(sysfs.QUEUE_INT_ATTRS)[:len(INT_SETTINGS)] == list(INT_SETTINGS)
    assert schema_keys('iotune_block_devices') == ('match',) + SETTINGS
    assert SCHEDULERS == QUEUE_SETTINGS['scheduler']['choices']
    assert set(module.SETTING_SPECS) == set(SETTINGS)
    assert module.SETTING_SPECS['scheduler'] == {'type': 'str', 'choices': list(SCHEDULERS)}


@pytest.mark.parametrize('name', INT_SETTINGS)
def test_the_policy_and_the_module_take_the_tables_bounds(name):
    low, high = QUEUE_SETTINGS[name]['minimum'], QUEUE_SETTINGS[name]['maximum']
    for value, good in ((low, True), (high, True), (low - 1, False), (high + 1, False)):
        errors = validate_policy({'iotune_block_devices': [{'match': {'name': 'sda'}, name: value}]})
        assert (errors == []) is good, (value, errors)
        errors = plan.validate_request({'match': {'name': 'sda'}, name: value})
        assert errors == ([] if good else ['%s: %r is not valid; expected %s' % (name, value, accepted_text(name))])
    assert normalize_policy({'iotune_block_devices': [{'match': {'name': 'sda'}, name: str(high)}]})[
        'iotune_block_devices'][0][name] == high
