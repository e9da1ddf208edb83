# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The VxFS tunables table is the one list of tunables: its entries are whole, and the policy's
validation and the tunefstab planner take names and accepted values from it. Every test reads the
tunables from the table, so a new entry is tested without editing this file."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import TUNABLE_NAMES, normalize_tunable
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_tunable
from ansible_collections.iotune.storage.plugins.module_utils.settings.tunefstab import (
    KINDS, VXFS_TUNABLE_MAX, VXFS_TUNABLES, accepted)

NAMES = tuple(VXFS_TUNABLES)


def _good_and_bad(name):
    """Values the tunable takes and values it does not, from its entry."""
    entry = VXFS_TUNABLES[name]
    if entry['kind'] == 'size':
        return [0, '64k', 1048576, VXFS_TUNABLE_MAX], ['8Q', -1, VXFS_TUNABLE_MAX + 1, True]
    if entry['kind'] == 'count':
        return [entry['minimum'], entry['minimum'] + 7], [entry['minimum'] - 1, 'x', VXFS_TUNABLE_MAX + 1, True]
    good = list(entry['choices'])
    return good, [max(good) + 1, -1, 'x', True]


@pytest.mark.parametrize('name', NAMES)
def test_every_entry_is_whole(name):
    entry = VXFS_TUNABLES[name]
    assert entry['kind'] in KINDS and entry['unit']
    assert entry['kind'] != 'count' or isinstance(entry['minimum'], int)
    assert entry['kind'] != 'choice' or (entry['choices'] and all(isinstance(value, int) for value in entry['choices']))
    assert accepted(name)


def test_the_planner_takes_the_tables_names_in_its_order():
    assert TUNABLE_NAMES == NAMES


@pytest.mark.parametrize('name', NAMES)
def test_the_policy_and_the_planner_take_the_same_values(name):
    good, bad = _good_and_bad(name)
    for value in good:
        errors = []
        number = validate_tunable(name, value, 'tunables.' + name, errors)
        assert errors == [] and number == normalize_tunable(name, value), (value, errors)
    for value in bad:
        errors = []
        assert validate_tunable(name, value, 'tunables.' + name, errors) is None and len(errors) == 1, value
        assert errors[0].startswith('tunables.%s: ' % name)
        with pytest.raises(ValueError):
            normalize_tunable(name, value)


@pytest.mark.parametrize('name', [name for name in NAMES if VXFS_TUNABLES[name].get('type') == 'size'])
def test_a_choice_of_sizes_takes_a_size(name):
    for choice in VXFS_TUNABLES[name]['choices']:
        assert normalize_tunable(name, '%dk' % (choice // 1024)) == choice


def test_an_unknown_tunable_names_every_accepted_one():
    errors = []
    assert validate_tunable('frobnicate', 1, 'tunables.frobnicate', errors) is None
    assert all(name in errors[0] for name in NAMES)
