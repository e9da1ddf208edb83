# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_policy's controller side: the policy validated and merged before any host work, and the
bulk slice's name carried to the host's planner and to the copy tools' copy.conf."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.action.io_policy import module_args
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache import plan_slice

POLICY = {
    'iotune_cache': {'dirty_ratio': 20, 'bulk_slice': {'memory_high': '25%', 'name': 'backup.slice'}},
    'iotune_copy_tools': {'buffer_size': '8M'},
}


def conf_of(args):
    return [f['content'] for f in args['copy_tools_files'] if f['path'] == '/etc/iotune/copy.conf'][0]


def test_the_bulk_slice_name_validates_and_reaches_the_host_and_copy_conf():
    args, errors = module_args({'policy': POLICY})
    assert errors == []
    assert args['policy']['iotune_cache']['bulk_slice'] == {'memory_high': '25%', 'name': 'backup.slice'}
    assert 'slice=backup.slice\n' in conf_of(args)


def test_without_a_name_the_default_slice_is_used():
    args, errors = module_args({'policy': {'iotune_cache': {'bulk_slice': {'memory_high': '4g'}},
                                           'iotune_copy_tools': {}}})
    assert errors == [] and 'slice=iotune-bulk.slice\n' in conf_of(args)
    assert 'name' not in args['policy']['iotune_cache']['bulk_slice']


def test_the_copy_tools_role_variable_wins_over_the_policy():
    args, errors = module_args({'policy': POLICY, 'copy_tools_slice': 'other.slice'})
    assert errors == [] and 'slice=other.slice\n' in conf_of(args)


def test_a_bad_slice_name_stops_before_any_host_work():
    policy = {'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': '../evil.slice'}}}
    args, errors = module_args({'policy': policy})
    assert args is None
    assert errors == ["iotune_cache.bulk_slice.name: '../evil.slice' is not a slice name (accepted: a systemd unit name "
                      "ending in .slice (letters, digits, \":_.-\\\"; no \"/\"), e.g. backup.slice)"]


def test_the_named_slice_is_the_unit_the_planner_writes(tmp_path):
    run_dir = tmp_path / 'run'
    run_dir.mkdir()
    args, dummy = module_args({'policy': POLICY})
    bulk = dict(args['policy']['iotune_cache']['bulk_slice'], unit_dir=str(tmp_path))
    checks, changes, detail, warnings = plan_slice(bulk, str(run_dir), lambda argv: (0, 'LoadState=not-found\n', ''),
                                                   'systemctl', 8 << 30)
    assert checks[0]['id'] == 'cache_limits:backup.slice:MemoryHigh'
    assert changes[0]['path'] == os.path.join(str(tmp_path), 'backup.slice')
    assert changes[0]['after'].endswith('Description=iotune bulk I/O jobs (backup.slice)\n\n[Slice]\nMemoryHigh=25%\n')
