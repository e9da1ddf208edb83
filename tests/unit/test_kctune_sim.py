# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HP-UX kctune simulator tests/unix-sim/kctune, run as a subprocess with a temporary state file:
filecache_max(5)'s defaults, value forms and limits, and the -P layout the collection parses."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.tests.unit.simulators import simulator
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import parse_kctune_p

GIB = 1024 ** 3


@pytest.fixture(name='kctune')
def kctune_fixture(tmp_path):
    """kctune(*args) -> (rc, stdout, stderr) on a simulated host with 8 GiB of memory."""
    return simulator('kctune', {'KCTUNE_SIM_STATE': str(tmp_path / 'kctune.json'), 'KCTUNE_SIM_MEMORY': str(8 * GIB)})


def values(kctune, *names):
    rc, out, err = kctune('-P', 'name,current,expr', *names)
    assert (rc, err) == (0, '')
    return parse_kctune_p(out)


def test_defaults_are_five_and_fifty_percent(kctune):
    assert values(kctune) == {
        'filecache_max': {'name': 'filecache_max', 'current': str(4 * GIB), 'expr': 'Default'},
        'filecache_min': {'name': 'filecache_min', 'current': str(8 * GIB * 5 // 100 // 4096 * 4096), 'expr': 'Default'}}


@pytest.mark.parametrize('expression, expected', [
    ('10%', 8 * GIB // 10 // 4096 * 4096),
    ('1GB', GIB),
    ('512MB', 512 * 1024 ** 2),
    ('2000M', 2000000000 // 4096 * 4096),
    ('1500000K', 1500000000 // 4096 * 4096),
])
def test_value_forms_round_down_to_a_page(kctune, expression, expected):
    assert kctune('filecache_max=' + expression)[0] == 0
    expected_record = {'name': 'filecache_max', 'current': str(expected), 'expr': expression}
    assert values(kctune, 'filecache_max')['filecache_max'] == expected_record


def test_default_forgets_the_setting(kctune):
    assert kctune('filecache_max=1GB')[0] == 0
    assert kctune('filecache_max=Default')[0] == 0
    assert values(kctune, 'filecache_max')['filecache_max']['expr'] == 'Default'


@pytest.mark.parametrize('assignment, message', [
    ('filecache_max=95%', 'greater than the equivalent of 90% of physical memory'),
    ('filecache_min=71%', 'greater than the equivalent of 70% of physical memory'),
    ('filecache_max=999999', 'less than the equivalent of 1 megabyte'),
    ('filecache_max=lots', "The value 'lots' for tunable 'filecache_max' is not valid"),
    ('nosuch=1GB', "There is no tunable named 'nosuch'"),
    ('filecache_min=2GB', 'filecache_min must be equal to or less than filecache_max'),
])
def test_refused_values_change_nothing(kctune, assignment, message):
    assert kctune('filecache_max=1GB')[0] == 0
    rc, out, err = kctune(assignment)
    assert (rc, out) == (1, '') and message in err
    assert values(kctune, 'filecache_max')['filecache_max']['expr'] == '1GB'


def test_two_tunables_at_once_as_the_manual_shows(kctune):
    assert kctune('filecache_min=15%', 'filecache_max=65%')[0] == 0
    assert {name: item['expr'] for name, item in values(kctune).items()} == {'filecache_min': '15%', 'filecache_max': '65%'}


def test_table_has_the_documented_header(kctune):
    rc, out, _err = kctune('filecache_max')
    assert rc == 0 and out.split()[:4] == ['Tunable', 'Current', 'Expression', 'Changes']
    assert out.splitlines()[1].split() == ['filecache_max', str(4 * GIB), 'Default', 'Immed']
