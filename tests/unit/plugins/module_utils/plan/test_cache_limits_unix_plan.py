# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cache_limits plan on Solaris (the ZFS ARC cap: /etc/system at the next boot, kstat live) and HP-UX
(filecache_min/max through kctune, at once), with the kstat and kctune SIMULATORS answering; and the
engine's run of it, journalled and rolled back."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.records import Trusted
from ansible_collections.iotune.storage.plugins.module_utils.act.rollback import roll_back
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.cache_limits import UnixCache
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import EngineError, run_concerns
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits_unix import kctune_refusals, plan_unix_cache, system_text_with
from ansible_collections.iotune.storage.tests.unit.simulators import SimulatedUnixHost

GIB = 1024 ** 3
SYSTEM = '* /etc/system of a Solaris 10 host\nset maxusers = 2048\nset zfs:zfs_arc_max = 0x200000000\n'


@pytest.fixture(name='solaris')
def solaris_fixture(tmp_path):
    host = SimulatedUnixHost(tmp_path, 'solaris')
    host.system = os.path.join(host.etc, 'system')
    with open(host.system, 'w') as handle:
        handle.write(SYSTEM)
    assert host(['kstat', '--sim-boot', host.system])[0] == 0
    return host


@pytest.fixture(name='hpux')
def hpux_fixture(tmp_path):
    return SimulatedUnixHost(tmp_path, 'hpux')


def test_the_arc_cap_is_set_in_etc_system_and_needs_a_reboot(solaris):
    plan = plan_unix_cache({'zfs_arc_max': 4 * GIB}, 'solaris', solaris, solaris.system)
    check, = plan['checks']
    assert (check['status'], check['live'], check['persistent']) == ('drift', 8 * GIB, 8 * GIB)
    change, = plan['changes']
    assert change['after'] == SYSTEM.replace('0x200000000', '4294967296')
    result = run_concerns([UnixCache(solaris, {'zfs_arc_max': 4 * GIB}, 'solaris', solaris.system)], solaris,
                          run_id='arc', journal_dir=os.path.join(solaris.root, 'journal'))
    check, = result['checks']
    assert check['status'] == 'drift' and check['message'].endswith('it takes effect at the next boot (needs a reboot)')
    # the simulated boot reads /etc/system: then it is live
    assert solaris(['kstat', '--sim-boot', solaris.system])[0] == 0
    assert plan_unix_cache({'zfs_arc_max': 4 * GIB}, 'solaris', solaris, solaris.system)['checks'][0]['status'] == 'compliant'
    roll_back(os.path.join(solaris.root, 'journal'), 'arc', Trusted([solaris.system]), solaris)
    with open(solaris.system) as handle:
        assert handle.read() == SYSTEM


@pytest.mark.parametrize('value', ['0x4000_0000', '1_073_741_824', '1073741824UL', '08', '1 GiB', '0x'])
def test_an_arc_line_solaris_ignores_is_an_error_naming_the_line(solaris, value):
    # issue 38, item 10: Python's int() read 0x4000_0000 as 1 GiB (compliant), while Solaris ignores the line
    with open(solaris.system, 'w') as handle:
        handle.write(SYSTEM + '* below: the cap the administrator meant\nset zfs:zfs_arc_max = %s\n' % value)
    assert solaris(['kstat', '--sim-boot', solaris.system])[0] == 0
    plan = plan_unix_cache({'zfs_arc_max': GIB}, 'solaris', solaris, solaris.system)
    check, = plan['checks']
    assert check['status'] == 'error' and plan['changes'] == [], plan
    assert check['message'].startswith("%s line 5: set zfs:zfs_arc_max = %s: %r is not a number as system(4) writes one "
                                       "(decimal (1073741824), hexadecimal with 0x (0x40000000) or octal with a leading 0 "
                                       "(010000000000)): Solaris ignores the line at boot" % (solaris.system, value, value))
    # the simulated boot ignores it too: the cap in effect is the line before (8 GiB)
    assert check['live'] == 8 * GIB
    with pytest.raises(EngineError, match='^nothing changed: %s line 5: ' % re.escape(solaris.system)):
        run_concerns([UnixCache(solaris, {'zfs_arc_max': GIB}, 'solaris', solaris.system)], solaris, run_id='bad-line',
                     journal_dir=os.path.join(solaris.root, 'journal'))


@pytest.mark.parametrize('value', ['1073741824', '0x40000000', '0X40000000', '010000000000'])
def test_the_three_forms_of_system_4_are_read(solaris, value):
    with open(solaris.system, 'w') as handle:
        handle.write('# a comment system(4) also allows\nset zfs:zfs_arc_max = %s\n' % value)
    assert solaris(['kstat', '--sim-boot', solaris.system])[0] == 0
    check, = plan_unix_cache({'zfs_arc_max': GIB}, 'solaris', solaris, solaris.system)['checks']
    assert (check['status'], check['live'], check['persistent']) == ('compliant', GIB, GIB)


def test_without_a_line_one_is_added_with_a_comment():
    assert system_text_with('set maxusers = 2048', 1 << 30) == \
        'set maxusers = 2048\n* iotune.storage: the ZFS ARC cap, read at the next boot\nset zfs:zfs_arc_max = 1073741824\n'
    assert system_text_with(None, 1 << 30).endswith('set zfs:zfs_arc_max = 1073741824\n')


def test_hpux_file_cache_through_kctune_at_once_and_back(hpux):
    wanted = {'filecache_min': 2 * GIB, 'filecache_max': 6 * GIB}
    plan = plan_unix_cache(wanted, 'hpux', hpux)
    # defaults of an 8 GiB host: min about 5 %, max about 50 %; max is raised first so that min never passes it
    assert [(c['target'], c['before']) for c in plan['changes']] == [('filecache_max', 'Default'), ('filecache_min', 'Default')]
    journal_dir = os.path.join(hpux.root, 'journal')
    result = run_concerns([UnixCache(hpux, wanted, 'hpux')], hpux, run_id='fc', journal_dir=journal_dir)
    assert [c['status'] for c in result['checks']] == ['compliant', 'compliant']
    again = run_concerns([UnixCache(hpux, wanted, 'hpux')], hpux, run_id='fc2', journal_dir=journal_dir)
    assert not again['changed']
    done = roll_back(journal_dir, 'fc', Trusted([], kctune=hpux.bin('kctune')), hpux)
    assert done['errors'] == []
    after = plan_unix_cache(wanted, 'hpux', hpux)
    assert [c['before'] for c in after['changes']] == ['Default', 'Default']


def test_the_keys_of_another_platform_are_one_not_applicable_check(hpux):
    plan = plan_unix_cache({'zfs_arc_max': GIB, 'dirty_ratio': 10}, 'hpux', hpux)
    check, = plan['checks']
    assert check['status'] == 'not_applicable' and 'iotune_cache.dirty_ratio, iotune_cache.zfs_arc_max' in check['message']
    assert plan['changes'] == []


@pytest.mark.parametrize('wanted, live, refused, reason', [
    # filecache_max(5): filecache_min at most 70 %, filecache_max at most 90 % of the 8 GiB of memory
    ({'filecache_min': 6 * GIB, 'filecache_max': 7 * GIB}, {}, 'filecache_min',
     'iotune_cache.filecache_min: 6442450944 bytes is above 70 % of physical memory (6012954214 bytes of the 8192 MB '
     'machinfo reports), the most kctune accepts'),
    ({'filecache_max': 7600 * 1024 ** 2}, {}, 'filecache_max',
     'iotune_cache.filecache_max: 7969177600 bytes is above 90 % of physical memory'),
    # min above the live max (Default: 50 %, 4 GiB), and max below a live min set before
    ({'filecache_min': 5 * GIB}, {}, 'filecache_min',
     'iotune_cache.filecache_min: filecache_min would be above filecache_max (5368709120 > 4294967296 bytes; '
     'filecache_max is the live value)'),
    ({'filecache_max': 2 * GIB}, {'filecache_min': '3GB'}, 'filecache_max',
     'iotune_cache.filecache_max: filecache_min would be above filecache_max (3221225472 > 2147483648 bytes; '
     'filecache_min is the live value)'),
])
def test_a_value_kctune_refuses_is_an_error_at_plan_time(hpux, wanted, live, refused, reason):
    # issue 38, item 7: these used to fail at apply time (kctune's error), on every run
    for name, expression in live.items():
        assert hpux(['kctune', '%s=%s' % (name, expression)])[0] == 0
    before = hpux(['kctune', '-P', 'name,current,expr'])[1]
    plan = plan_unix_cache(wanted, 'hpux', hpux)
    check = [c for c in plan['checks'] if c['target'] == refused][0]
    assert check['status'] == 'error' and check['message'].startswith(reason), check['message']
    assert refused not in [c['target'] for c in plan['changes']]
    with pytest.raises(EngineError, match='^nothing changed: ' + re.escape(reason)):
        run_concerns([UnixCache(hpux, wanted, 'hpux')], hpux, run_id='refused', journal_dir=os.path.join(hpux.root, 'journal'))
    assert hpux(['kctune', '-P', 'name,current,expr'])[1] == before
    assert not os.path.exists(os.path.join(hpux.root, 'journal', 'refused.jsonl'))
    # and the kctune simulator refuses the value as HP-UX does
    rc, _out, err = hpux(['kctune'] + ['%s=%d' % item for item in sorted(wanted.items())])
    assert rc == 1 and err.startswith('ERROR:'), err


def test_the_limits_are_the_memory_machinfo_reports(hpux):
    # within them: the same values on a host with twice the memory are planned, not refused
    hpux.env['KCTUNE_SIM_MEMORY'] = str(16 * GIB)
    wanted = {'filecache_min': 6 * GIB, 'filecache_max': 7 * GIB}
    plan = plan_unix_cache(wanted, 'hpux', hpux)
    assert [c['status'] for c in plan['checks']] == ['drift', 'drift']
    assert sorted(c['target'] for c in plan['changes']) == ['filecache_max', 'filecache_min']
    # a host whose machinfo does not answer: the share of memory is not checked, min above max still is
    assert kctune_refusals(wanted, {}, None) == {}
    assert list(kctune_refusals({'filecache_min': 2 * GIB}, {'filecache_max': {'current': GIB}}, None)) == ['filecache_min']


def test_a_linux_host_says_the_solaris_and_hpux_keys_are_not_its_own(tmp_path):
    from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.cache_limits import CacheLimits

    class Runner(object):
        def __call__(self, argv, **kwargs):
            raise AssertionError('ran %s' % argv)

        def bin(self, name, default=None):
            return default
    (tmp_path / 'sys' / 'vm').mkdir(parents=True)
    plan = CacheLimits(Runner(), sysctl={}, proc_root=str(tmp_path), sysctl_file=str(tmp_path / 'iotune.conf'), memory_bytes=GIB,
                       conf_dirs=[], sysctl_conf=str(tmp_path / 'sysctl.conf'), other_platforms=['zfs_arc_max', 'filecache_max']).plan()
    check, = plan['checks']
    assert (check['status'], check['message']) == (
        'not_applicable', 'not applicable on Linux: iotune_cache.zfs_arc_max, iotune_cache.filecache_max (Solaris and HP-UX tunables)')
    assert plan['changes'] == []
