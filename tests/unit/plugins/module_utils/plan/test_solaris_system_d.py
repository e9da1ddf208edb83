# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ZFS ARC cap where Solaris 11.4 keeps it: /etc/system.d fragments, read before /etc/system, and every
line of these files parsed or named (issue 39, items 1 and 2), with the kstat SIMULATOR booting the same files.

The samples are written here in the shape of the real files: the default /etc/system of Solaris 11.4 (its
comment block points to /etc/system.d, system(5)), fragments named as system(5) asks (the IPS package name
with ``/`` turned into ``:``, or a site prefix), and the boot archive's own ``.self-assembly`` copy
(the onlinedevice.org note on Solaris 11.2's system.d, which system(5) describes as "a secondary
/etc/system file")."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.records import Trusted
from ansible_collections.iotune.storage.plugins.module_utils.act.rollback import roll_back
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.cache_limits import UnixCache
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import EngineError, run_concerns
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import etc_system_entries
from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import cache_facts, read_system_files
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits_unix import plan_unix_cache
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import SYSTEM_FRAGMENT
from ansible_collections.iotune.storage.tests.unit.simulators import SimulatedUnixHost

GIB = 1024 ** 3
# the shape of Solaris 11.4's default /etc/system: comments only, pointing to /etc/system.d
SYSTEM_11_4 = '''*ident	"%Z%%M%	%I%	%E% SMI" /* SVR4 1.5 */
*
* SYSTEM SPECIFICATION FILE
*
* It is not recommended to edit this file directly but instead to deliver
* fragments into files in /etc/system.d/.
*
* moddir:
*
*	Set the search path for modules.  This has a format similar to the
*	csh path variable.
*
'''
SITE_FRAGMENT = '* the database team: the ARC leaves room for the SGA\nset zfs:zfs_arc_max = 17179869184\n'


@pytest.fixture(name='host')
def host_fixture(tmp_path):
    host = SimulatedUnixHost(tmp_path, 'solaris')
    host.env['KSTAT_SIM_MEMORY'] = str(64 * GIB)     # a host whose memory does not cap the ARC
    host.system = os.path.join(host.etc, 'system')
    host.system_d = os.path.join(host.etc, 'system.d')
    os.makedirs(host.system_d)
    with open(host.system, 'w') as handle:
        handle.write(SYSTEM_11_4)
    host.journal = os.path.join(host.root, 'journal')
    return host


def write(path, text):
    with open(path, 'w') as handle:
        handle.write(text)


def boot(host):
    assert host(['kstat', '--sim-boot', host.system])[0] == 0


def plan(host, want):
    return plan_unix_cache({'zfs_arc_max': want}, 'solaris', host, host.system)


def test_a_cap_in_a_fragment_is_seen_and_named_not_set_twice(host):
    fragment = os.path.join(host.system_d, 'com.example:zfs')
    write(fragment, SITE_FRAGMENT)
    boot(host)
    found = plan(host, 16 * GIB)
    check, = found['checks']
    assert (check['status'], check['live'], check['persistent']) == ('compliant', 16 * GIB, 16 * GIB)
    assert '%s line 2 sets 17179869184' % fragment in check['message'] and found['changes'] == []
    facts = cache_facts('solaris', host, host.root, [])['zfs_arc_max']
    assert (facts['persistent'], facts['persistent_file']) == ('17179869184', fragment)


def test_a_new_cap_is_changed_where_it_is_set(host):
    fragment = os.path.join(host.system_d, 'com.example:zfs')
    write(fragment, SITE_FRAGMENT)
    boot(host)
    change, = plan(host, 8 * GIB)['changes']
    assert change['target'] == fragment and change['after'] == SITE_FRAGMENT.replace('17179869184', '8589934592')
    run_concerns([UnixCache(host, {'zfs_arc_max': 8 * GIB}, 'solaris', host.system)], host, run_id='r', journal_dir=host.journal)
    with open(host.system) as handle:
        assert handle.read() == SYSTEM_11_4      # no second setting in /etc/system
    boot(host)
    assert plan(host, 8 * GIB)['checks'][0]['status'] == 'compliant'


def test_without_a_setting_the_cap_goes_into_a_fragment_of_our_own_and_back_out(host):
    boot(host)
    ours = os.path.join(host.system_d, SYSTEM_FRAGMENT)
    found = plan(host, 4 * GIB)
    check, = found['checks']
    assert 'no zfs:zfs_arc_max line in %s/* or %s: harden_io sets it in %s' % (host.system_d, host.system, ours) in check['message']
    change, = found['changes']
    assert (change['target'], change['before']) == (ours, None)
    run_concerns([UnixCache(host, {'zfs_arc_max': 4 * GIB}, 'solaris', host.system)], host, run_id='ours', journal_dir=host.journal)
    with open(ours) as handle:
        assert handle.read() == '* iotune.storage: the ZFS ARC cap, read at the next boot\nset zfs:zfs_arc_max = 4294967296\n'
    boot(host)
    assert plan(host, 4 * GIB)['checks'][0]['live'] == 4 * GIB
    # rollback trusts the fragment as io_rollback does: the platform's own path, never the record's
    done = roll_back(host.journal, 'ours', Trusted([host.system, ours]), host)
    assert done['errors'] == [] and not os.path.exists(ours)


def test_without_system_d_the_cap_goes_into_etc_system(host):
    os.rmdir(host.system_d)
    change, = plan(host, 4 * GIB)['changes']
    assert change['target'] == host.system


def test_etc_system_is_read_last_and_wins_over_the_fragments(host):
    write(os.path.join(host.system_d, 'com.example:zfs'), SITE_FRAGMENT)
    write(host.system, SYSTEM_11_4 + 'set zfs:zfs_arc_max = 0x100000000\n')
    # the boot archive's own copy of the fragments is not a fragment
    write(os.path.join(host.system_d, '.self-assembly'), 'set zfs:zfs_arc_max = 1073741824\n')
    boot(host)
    check, = plan(host, 4 * GIB)['checks']
    assert (check['status'], check['live'], check['persistent']) == ('compliant', 4 * GIB, 4 * GIB)
    assert '%s line 13 sets 4294967296' % host.system in check['message']


def test_fragments_are_read_in_c_locale_order(host):
    write(os.path.join(host.system_d, 'b'), 'set zfs:zfs_arc_max = 2147483648\n')
    write(os.path.join(host.system_d, 'Z'), 'set zfs:zfs_arc_max = 1073741824\n')
    write(os.path.join(host.system_d, 'a'), 'set zfs:zfs_arc_max = 3221225472\n')
    files, has_dir = read_system_files(host.system, [])
    assert has_dir and [os.path.basename(item['path']) for item in files] == ['Z', 'a', 'b', 'system']
    boot(host)
    check, = plan(host, 2 * GIB)['checks']
    assert (check['status'], check['persistent'], check['live']) == ('compliant', 2 * GIB, 2 * GIB)


@pytest.mark.parametrize('line, why', [
    ('set zfs:zfs_arc_max 17179869184', 'not a line system(4) describes, and it names zfs_arc_max'),
    ('zfs:zfs_arc_max = 17179869184', 'not a line system(4) describes, and it names zfs_arc_max'),
    ('set zfs_arc_max = 17179869184', 'sets zfs_arc_max without the zfs module: the kernel looks for it outside zfs'),
    ('set zfs:zfs_arc_max | 0x400000000', 'changes the cap bit by bit (|) from the value before it'),
    ('set ZFS:ZFS_ARC_MAX = 17179869184', 'names the cap as ZFS:ZFS_ARC_MAX, not zfs:zfs_arc_max'),
])
def test_a_line_that_may_set_the_cap_and_is_not_understood_stops_the_change(host, line, why):
    fragment = os.path.join(host.system_d, 'com.example:zfs')
    write(fragment, '* written by hand\n%s\n' % line)
    found = plan(host, 4 * GIB)
    check, = found['checks']
    assert check['status'] == 'error' and found['changes'] == []
    assert check['message'].startswith('%s line 2: %s: %s' % (fragment, line, why)), check['message']
    assert check['message'].endswith('the cap the next boot takes is not known; correct or remove the line, harden_io '
                                     'does not rewrite these files until then')
    with pytest.raises(EngineError, match='^nothing changed: '):
        run_concerns([UnixCache(host, {'zfs_arc_max': 4 * GIB}, 'solaris', host.system)], host, run_id='x', journal_dir=host.journal)
    assert not os.path.exists(os.path.join(host.system_d, SYSTEM_FRAGMENT))


def test_such_a_line_before_the_setting_that_wins_is_only_noted(host):
    write(host.system, SYSTEM_11_4 + 'set zfs_arc_max = 1\nset zfs:zfs_arc_max = 4294967296\n')
    found = plan(host, 4 * GIB)
    assert [c['status'] for c in found['checks']] != ['error']
    assert '%s line 13: set zfs_arc_max = 1: sets zfs_arc_max without the zfs module' % host.system in found['warnings'][0]


def test_other_lines_not_understood_are_named_with_their_number(host):
    write(host.system, SYSTEM_11_4 + 'set maxusers 2048\nforceload: drv/vxio\n')
    found = plan(host, 4 * GIB)
    assert found['changes'], found
    assert found['warnings'] == ['%s line 13: set maxusers 2048: not a line system(4) describes (Solaris skips it at boot '
                                 'with a warning)' % host.system]


def test_a_fragment_that_is_a_link_is_not_followed(host, tmp_path):
    target = tmp_path / 'elsewhere'
    target.write_text(SITE_FRAGMENT)
    link = os.path.join(host.system_d, 'com.example:zfs')
    os.symlink(str(target), link)
    found = plan(host, 4 * GIB)
    check, = found['checks']
    assert check['status'] == 'error' and found['changes'] == []
    assert check['message'].startswith('%s could not be read' % link)
    assert any('%s is not a regular file (a symbolic link)' % link in warning for warning in found['warnings'])


@pytest.mark.parametrize('text, kinds', [
    ('* comment\n# comment\n\n', []),
    ('moddir: /kernel /usr/kernel\nforceload: drv/vxio\nexclude: sys/shmsys\nrootfs: ufs\nrootdev: /pci@1f,0/ide@d/disk@0,0:a\n',
     ['directive'] * 5),
    ('set maxusers = 40\nSET nfs:nfs_v3_max_transfer_size = 0x100000\nset pcplusmp:apic_panic_on_nmi & ~4\n', ['set'] * 3),
    ('set maxusers\nmaxusers = 40\n', ['unparsed', 'unparsed']),
])
def test_every_line_of_etc_system_has_a_kind(text, kinds):
    assert [entry['kind'] for entry in etc_system_entries(text)] == kinds
