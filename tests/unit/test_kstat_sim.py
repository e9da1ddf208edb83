# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Solaris kstat simulator tests/unix-sim/kstat: kstat -p's layout for the ZFS ARC cap, which
/etc/system sets for the next boot only."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.tests.unit.simulators import simulator
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import parse_etc_system, parse_kstat_p

GIB = 1024 ** 3


@pytest.fixture(name='kstat')
def kstat_fixture(tmp_path):
    return simulator('kstat', {'KSTAT_SIM_STATE': str(tmp_path / 'kstat.json'), 'KSTAT_SIM_MEMORY': str(8 * GIB)})


def c_max(kstat):
    rc, out, err = kstat('-p', 'zfs:0:arcstats:c_max')
    assert (rc, err) == (0, '')
    return int(parse_kstat_p(out)['zfs:0:arcstats:c_max'])


def test_default_cap_is_illumos_arc_c_max(kstat):
    assert c_max(kstat) == 7 * GIB


def test_etc_system_counts_at_the_next_boot_only(kstat, tmp_path):
    system = tmp_path / 'system'
    system.write_text('* cap the ARC\nset zfs:zfs_arc_max = 0x100000000\n')
    assert parse_etc_system(system.read_text()) == {'zfs:zfs_arc_max': '0x100000000'}
    assert c_max(kstat) == 7 * GIB
    assert kstat('--sim-boot', str(system))[0] == 0
    assert c_max(kstat) == 4 * GIB
    system.write_text('set zfs:zfs_arc_max=4294967296\n*set zfs:zfs_arc_max=1\nset zfs:zfs_arc_max=2147483648\n')
    assert c_max(kstat) == 4 * GIB
    assert kstat('--sim-boot', str(system))[0] == 0
    assert c_max(kstat) == 2 * GIB


def test_specs_with_empty_and_omitted_fields(kstat):
    rc, out, _err = kstat('-p', 'zfs:0:arcstats')
    assert rc == 0 and sorted(parse_kstat_p(out)) == ['zfs:0:arcstats:c', 'zfs:0:arcstats:c_max']
    assert kstat('-p', 'zfs::arcstats:c')[1] == 'zfs:0:arcstats:c\t%d\n' % (7 * GIB)
    assert kstat('-p', 'unix:0:system_pages:freemem')[:2] == (1, '')


def test_usage(kstat):
    rc, _out, err = kstat('-m', 'zfs')
    assert rc == 2 and 'usage: kstat -p' in err
