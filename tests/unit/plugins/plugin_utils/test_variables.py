# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The iotune_ variables the collection reads, and a misspelled one named with a suggestion (issue 39, item 6)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest

from ansible_collections.iotune.storage.plugins.action.io_policy import ARG_VARS, INSTALLED_FACT, SEVERITY_VAR, WAIVERS_VAR
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import POLICY_KEYS
from ansible_collections.iotune.storage.plugins.plugin_utils._variables import KNOWN_VARIABLES, selects_nothing, slicing_errors, unknown_variables

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..'))
NAME_RE = re.compile(r'\biotune_[a-z0-9_]+')


def names_used_in(*directories):
    found = set()
    for directory in directories:
        for top, dummy, files in os.walk(os.path.join(ROOT, directory)):
            for name in files:
                if name.endswith(('.yml', '.yaml', '.j2')):
                    with open(os.path.join(top, name), encoding='utf-8') as handle:
                        found.update(NAME_RE.findall(handle.read()))
    return found


def test_every_iotune_variable_of_the_roles_and_playbooks_is_known():
    used = names_used_in('roles', 'playbooks')
    assert used and not used - KNOWN_VARIABLES, sorted(used - KNOWN_VARIABLES)


def test_every_variable_the_action_reads_is_known():
    read = set(POLICY_KEYS) | {WAIVERS_VAR, SEVERITY_VAR, INSTALLED_FACT} | {var for dummy, var in ARG_VARS if var.startswith('iotune_')}
    assert not read - KNOWN_VARIABLES, sorted(read - KNOWN_VARIABLES)


@pytest.mark.parametrize('name, hint', [
    ('iotune_mount', 'did you mean iotune_mounts?'),
    ('iotune_block_device', 'did you mean iotune_block_devices?'),
    ('iotune_waiver', 'did you mean iotune_waivers?'),
    ('iotune_cahce', 'did you mean iotune_cache?'),
    ('iotune_xyz', 'the policy is %s' % ', '.join(POLICY_KEYS)),
])
def test_a_variable_that_is_not_ours_is_named_with_the_nearest_one(name, hint):
    assert unknown_variables(['inventory_hostname', 'iotune_mounts', name]) == [
        '%s: not a variable of iotune.storage (%s); nothing reads it, so what it sets is not audited' % (name, hint)]


def test_the_collections_own_variables_and_others_pass():
    assert unknown_variables(sorted(KNOWN_VARIABLES) + ['ansible_host', 'io_audit_run_id', 42]) == []


def test_a_policy_that_selects_nothing():
    assert selects_nothing(dict((name, None) for name in POLICY_KEYS))
    assert selects_nothing({'iotune_mounts': [], 'iotune_cache': {}})
    assert not selects_nothing({'iotune_mounts': [{'path': '/'}]})


@pytest.mark.parametrize('variables, errors', [
    ({}, []),
    ({'iotune_report_part': ''}, []),
    ({'iotune_report_part': '4712', 'iotune_run_id': 'chg-4711'}, []),
    ({'iotune_report_part': 4712, 'iotune_run_id': 4700}, []),
    ({'iotune_report_part': '4712'}, ['iotune_report_part: a slice needs iotune_run_id, the run id every slice of the job shares '
                                      '(docs/fleet.md, Job slicing), or each slice writes its part under a run id of its own and '
                                      'merge_reports.yml finds one']),
    ({'iotune_report_part': '../4712', 'iotune_run_id': 'chg-4711'},
     ["iotune_report_part: must be 1 to 64 letters, digits and . _ - starting with a letter or a digit, such as an AWX job id, "
      "got '../4712'"]),
])
def test_a_slice_needs_a_part_name_and_the_shared_run_id(variables, errors):
    """issue 41: checked by io_policy on the controller, before any host work."""
    assert slicing_errors(variables.get) == errors
