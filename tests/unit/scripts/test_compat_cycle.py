# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/compat_cycle: how each host of the compatibility run is judged at each playbook step, and
lab/fleet's release assignment and SSH inventory for it."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import importlib.machinery
import importlib.util
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


compat_cycle = load('compat_cycle', 'scripts/compat_cycle')
fleet = load('lab_fleet', 'lab/fleet')

RECAP = """
PLAY RECAP *********************************************************************
iotune-compat-1            : ok=4    changed=%d    unreachable=0    failed=%d    skipped=3    rescued=0    ignored=0
iotune-compat-2            : ok=1    changed=%d    unreachable=0    failed=0    skipped=3    rescued=0    ignored=0
"""


def test_recap_reads_every_host():
    assert compat_cycle.recap(RECAP % (2, 0, 1)) == {
        'iotune-compat-1': {'ok': 4, 'changed': 2, 'unreachable': 0, 'failed': 0},
        'iotune-compat-2': {'ok': 1, 'changed': 1, 'unreachable': 0, 'failed': 0}}


@pytest.mark.parametrize('step, changed, failed, expected', [
    ('audit', (0, 0), 0, {}),
    ('harden', (1, 1), 0, {}),
    ('harden', (1, 0), 0, {'iotune-compat-2': 'harden changed nothing'}),
    ('harden-again', (0, 0), 0, {}),
    ('harden-again', (0, 3), 0, {'iotune-compat-2': 'second harden changed=3'}),
    ('rollback', (1, 1), 1, {'iotune-compat-1': 'rollback failed (failed=1, unreachable=0)'}),
])
def test_host_problems(step, changed, failed, expected):
    counts = compat_cycle.recap(RECAP % (changed[0], failed, changed[1]))
    assert compat_cycle.host_problems(step, counts) == expected


@pytest.mark.parametrize('rc, output, expected', [
    (0, RECAP % (0, 0, 0), []),
    # a host failed: its own problem says so, not the run's
    (2, RECAP % (0, 1, 0), []),
    (1, 'ERROR! the playbook could not be found', ['audit: exit code 1, no PLAY RECAP']),
    (4, RECAP % (0, 0, 0), ['audit: exit code 4']),
    (0, '[DEPRECATION WARNING]: x is deprecated.\n' + RECAP % (0, 0, 0),
     ['audit: deprecation: [DEPRECATION WARNING]: x is deprecated.']),
])
def test_run_problems(rc, output, expected):
    assert compat_cycle.run_problems('audit', rc, output, compat_cycle.recap(output)) == expected


def test_changed_items_name_host_and_item():
    before = {'h-1': {'/etc/fstab': 'a', 'live /mnt/scratch': 'rw'}, 'h-2': {'/etc/fstab': 'b'}}
    after = {'h-1': {'/etc/fstab': 'a', 'live /mnt/scratch': 'rw,noatime'}, 'h-2': {}}
    assert compat_cycle.changed_items(before, after) == {'h-1': ['live /mnt/scratch'], 'h-2': ['/etc/fstab']}
    assert compat_cycle.changed_items(before, before) == {}


def test_cells_one_per_release_in_order():
    hosts = ['c-1', 'c-2', 'c-3']
    releases = ['bullseye', 'bookworm', 'trixie']
    assert compat_cycle.cells(releases, hosts, {'c-1': [], 'c-2': [], 'c-3': []}) == ['passed'] * 3
    problems = {'c-1': [], 'c-2': ['harden changed nothing', 'x'], 'c-3': []}
    assert compat_cycle.cells(releases, hosts, problems) == ['passed', 'FAILED: harden changed nothing', 'passed']
    assert compat_cycle.cells(releases, hosts[:2], {}) == ['passed', 'passed', 'not run']


def test_fleet_hosts_cycle_through_the_releases():
    releases = ['bullseye', 'bookworm', 'trixie']
    assert [fleet.release_of(index, releases) for index in range(1, 7)] == releases * 2
    assert fleet.release_of(5, ['bookworm']) == 'bookworm'


def test_fleet_inventory_over_ssh_needs_only_ansible_core():
    variables = fleet.fleet_vars('/reports', '/build/key')
    assert variables['ansible_connection'] == 'ssh' and variables['ansible_user'] == 'root'
    assert variables['ansible_ssh_private_key_file'] == '/build/key'
    assert 'StrictHostKeyChecking=no' in variables['ansible_ssh_common_args']
    assert fleet.fleet_vars()['ansible_connection'] == 'community.docker.docker'


def test_fleet_refuses_an_unknown_release(tmp_path):
    with pytest.raises(ValueError, match='releases: jessie unknown; expected some of bookworm, bullseye, trixie'):
        fleet.up('iotune-test', 1, str(tmp_path / 'inventory.json'), releases=['jessie'])
