# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Severity: the defaults from the field cases, the policy's overrides and their validation."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.policy.severity import (
    apply_severity, default_severity, validate_overrides)


def check(concern, target, setting):
    return {'id': '%s:%s:%s' % (concern, target, setting), 'concern': concern, 'target': target, 'setting': setting,
            'status': 'drift'}


@pytest.mark.parametrize('concern,setting,level', [
    ('mount_options', 'absent:mincache=direct', 'high'),       # seed 000
    ('mount_options', 'absent:convosync=direct', 'high'),
    ('mount_options', 'absent:sync', 'high'),
    ('mount_options', 'present:noatime', 'medium'),
    ('tunefstab', 'discovered_direct_iosz', 'high'),           # seed 001
    ('tunefstab', 'write_pref_io', 'high'),                    # seed 002
    ('tunefstab', 'max_direct_iosz', 'medium'),
    ('block_queue', 'read_ahead_kb', 'medium'),
    ('block_queue', 'scheduler', 'low'),
    ('cache_limits', 'vm.dirty_ratio', 'medium'),
    ('cache_limits', 'vm.vfs_cache_pressure', 'low'),
    ('cache_limits', 'zfs_arc_max', 'medium'),
    ('copy_tools', 'content', 'low'),
    ('some_new_concern', 'x', 'medium'),
])
def test_defaults(concern, setting, level):
    assert default_severity(concern, setting) == level


def test_the_first_override_that_matches_wins_else_the_default():
    overrides = validate_overrides([{'checks': ['block_queue:*:scheduler'], 'severity': 'high'},
                                    {'checks': 'block_queue:*', 'severity': 'low'}])[0]
    marked = apply_severity([check('block_queue', 'sdb', 'scheduler'), check('block_queue', 'sdb', 'read_ahead_kb'),
                             check('tunefstab', '/dev/vx/dsk/dg/v', 'read_pref_io')], overrides)
    assert [c['severity'] for c in marked] == ['high', 'low', 'high']


@pytest.mark.parametrize('value,message', [
    ({'checks': ['x'], 'severity': 'high'}, 'iotune_severity: must be a list of {checks, severity}'),
    ([{'checks': ['x'], 'severity': 'critical'}], "iotune_severity[0].severity: must be one of low, medium, high, got 'critical'"),
    ([{'checks': [], 'severity': 'low'}], 'iotune_severity[0].checks: must be a non-empty list of check ids or patterns'),
    ([{'check': ['x'], 'severity': 'low'}], 'iotune_severity[0].check: unknown key (accepted: checks, severity)'),
    (['x'], "iotune_severity[0]: must be a dict with checks and severity, got 'x'"),
])
def test_a_bad_override_is_named_with_its_field(value, message):
    overrides, errors = validate_overrides(value)
    assert overrides == [] and errors and errors[0].startswith(message), errors
