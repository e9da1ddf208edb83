# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount_options plan on Solaris and HP-UX (plan.mount_options_unix): the real mnttab and vfstab samples and
the HP-UX fstab made from fstab(4), the whole-list remount, and the table edited one field at a time."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_mounts import parse_hpux_fstab, parse_vfstab, render_lines
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options_unix import live_mounts, plan_unix_mounts, unix_remount
from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture

SEED_000_LIVE = 'ioerror=mwdisable,largefiles,delaylog,mincache=direct,convosync=direct'


def hpux_host(tmp_path, fstab=None, mnttab_line=None):
    """An HP-UX file tree: the fstab of fstab(4)'s examples (its last line the seed-000 mount of
    /restore) and the real mnttab sample with /restore mounted as seed 000 had it."""
    etc = tmp_path / 'etc'
    etc.mkdir()
    (etc / 'fstab').write_text(fstab if fstab is not None else read_fixture('unix-doc', 'hpux-fstab-fstab4-examples.txt'))
    if mnttab_line is None:
        mnttab_line = '/dev/vg01/lvol1 /restore vxfs %s,dev=40010001 0 0 1213709800\n' % SEED_000_LIVE
    (etc / 'mnttab').write_text(read_fixture('unix-samples', 'hpux-mnttab-scx-pal.txt') + mnttab_line)
    return str(etc / 'fstab'), str(etc / 'mnttab')


def test_seed_000_is_drift_in_fstab_and_live_and_one_remount_drops_both_options(tmp_path):
    fstab, mnttab = hpux_host(tmp_path)
    plan = plan_unix_mounts([{'path': '/restore', 'present': [], 'absent': ['mincache', 'convosync']}], 'hpux', fstab, mnttab)
    assert [(c['setting'], c['status']) for c in plan['checks']] == [('absent:mincache', 'drift'), ('absent:convosync', 'drift')]
    edit, remount = plan['changes']
    assert (edit['kind'], edit['line'], edit['after']) == ('fstab', 6, ['delaylog'])
    assert edit['after_line'] == '/dev/vg01/lvol1 /restore vxfs delaylog 0 2\n'
    # every option the mount keeps, in order; dev= is mnttab's device id, never passed
    assert remount == {'kind': 'unix_remount', 'target': '/restore', 'fstype': 'vxfs',
                       'options': ['ioerror=mwdisable', 'largefiles', 'delaylog'],
                       'before': SEED_000_LIVE.split(','), 'after': ['ioerror=mwdisable', 'largefiles', 'delaylog']}
    assert plan['mounts'][0]['remount_options'] == 'remount,ioerror=mwdisable,largefiles,delaylog'
    # the rest of the file byte for byte
    before, after = plan['fstab']['before'].splitlines(True), plan['fstab']['after'].splitlines(True)
    assert [i for i, (old, new) in enumerate(zip(before, after)) if old != new] == [5] and len(before) == len(after)


def test_a_compliant_mount_plans_nothing(tmp_path):
    fstab, mnttab = hpux_host(tmp_path, fstab='/dev/vg01/lvol1 /restore vxfs delaylog 0 2\n',
                              mnttab_line='/dev/vg01/lvol1 /restore vxfs ioerror=mwdisable,delaylog,dev=4001 0 0 1\n')
    plan = plan_unix_mounts([{'path': '/restore', 'present': ['delaylog'], 'absent': ['mincache']}], 'hpux', fstab, mnttab)
    assert plan['changes'] == [] and not plan['fstab']['changed']
    assert [c['status'] for c in plan['checks']] == ['compliant', 'compliant']


@pytest.mark.parametrize('platform', ['solaris', 'hpux'])
def test_the_intent_log_mode_replaces_the_other_one(platform):
    assert unix_remount(['log', 'largefiles'], ['delaylog'], [], platform) == (['largefiles', 'delaylog'], [])
    assert unix_remount(['rw', 'delaylog'], ['tmplog'], [], platform) == (['rw', 'tmplog'], [])


@pytest.mark.parametrize('platform', ['solaris', 'hpux'])
def test_largefiles_is_fixed_at_mount_time(platform):
    after, unresolved = unix_remount(['largefiles', 'delaylog'], ['nolargefiles'], [], platform)
    assert (after, unresolved) == ([], ['nolargefiles'])


def test_a_mount_not_in_mnttab_is_checked_in_the_table_only(tmp_path):
    fstab, mnttab = hpux_host(tmp_path, mnttab_line='')
    plan = plan_unix_mounts([{'path': '/restore', 'present': [], 'absent': ['mincache']}], 'hpux', fstab, mnttab)
    assert [change['kind'] for change in plan['changes']] == ['fstab']
    assert 'is not mounted' in plan['checks'][0]['message']


def test_solaris_vfstab_options_field_is_the_seventh_and_dash_means_none(tmp_path):
    etc = tmp_path / 'etc'
    etc.mkdir()
    vfstab = read_fixture('unix-samples', 'solaris-vfstab-puppet-1.txt')
    (etc / 'vfstab').write_text(vfstab + '/dev/vx/dsk/datadg/vol01\t/dev/vx/rdsk/datadg/vol01\t/data\tvxfs\t2\tyes\t-\n')
    (etc / 'mnttab').write_text(read_fixture('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt')
                                + '/dev/vx/dsk/datadg/vol01\t/data\tvxfs\trw,suid,delaylog,largefiles,ioerror=mwdisable,dev=4fc0f00\t1258671500\n')
    plan = plan_unix_mounts([{'path': '/data', 'present': ['mincache=closesync'], 'absent': []}], 'solaris',
                            str(etc / 'vfstab'), str(etc / 'mnttab'))
    edit, remount = plan['changes']
    assert edit['after_line'] == '/dev/vx/dsk/datadg/vol01\t/dev/vx/rdsk/datadg/vol01\t/data\tvxfs\t2\tyes\tmincache=closesync\n'
    assert remount['options'] == ['rw', 'suid', 'delaylog', 'largefiles', 'ioerror=mwdisable', 'mincache=closesync']
    # and back: no option left is '-'
    line, = parse_vfstab(edit['after_line'])
    assert line.with_options([]).raw == '/dev/vx/dsk/datadg/vol01\t/dev/vx/rdsk/datadg/vol01\t/data\tvxfs\t2\tyes\t-\n'


def test_ufs_root_of_the_real_mnttab_is_read_without_its_device_id():
    mounts = dict((entry['mount_point'], entry) for entry in live_mounts(read_fixture('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt')))
    assert mounts['/']['options'] == ['rw', 'intr', 'largefiles', 'logging', 'xattr', 'onerror=panic', 'suid']
    assert mounts['/']['source'] == '/dev/dsk/c9t0d0s0'
    assert (mounts['/']['root'], mounts['/']['mount_id'], mounts['/proc']['mount_id']) == ('/', 0, 1)


@pytest.mark.parametrize('name', ['solaris-vfstab-puppet-1.txt', 'illumos-vfstab-default-vendor.txt'])
def test_every_real_vfstab_entry_keeps_its_bytes_when_its_options_are_set_again(name):
    lines = parse_vfstab(read_fixture('unix-samples', name))
    entries = [line for line in lines if line.kind == 'entry']
    assert entries
    assert render_lines([line.with_options(line.options) if line.kind == 'entry' else line for line in lines]) \
        == read_fixture('unix-samples', name)


def test_an_hpux_entry_keeps_its_comment_and_device_alone_lines_have_no_options():
    first, = parse_hpux_fstab('/dev/dsk/c0t6d0 /home hfs defaults 0 2 # /home disk\n')
    assert first.with_options(['nosuid']).raw == '/dev/dsk/c0t6d0 /home hfs nosuid 0 2 # /home disk\n'
    assert first.with_options([]).raw == '/dev/dsk/c0t6d0 /home hfs defaults 0 2 # /home disk\n'
    alone, = parse_hpux_fstab('/dev/dsk/c0t6d0\n')
    assert alone.to_dict()['file'] == ''
    with pytest.raises(ValueError, match='no options field'):
        alone.with_options(['rw'])


def test_a_blank_in_an_option_is_refused():
    line, = parse_hpux_fstab('/dev/vg01/lvol1 /restore vxfs delaylog 0 2\n')
    with pytest.raises(ValueError, match='free of blanks'):
        line.with_options(['a b'])


def test_an_invalid_table_line_is_a_warning(tmp_path):
    fstab, mnttab = hpux_host(tmp_path, fstab='/dev/vg01/lvol1 /restore vxfs delaylog 0\n')
    plan = plan_unix_mounts([{'path': '/restore', 'present': ['delaylog'], 'absent': []}], 'hpux', fstab, mnttab)
    assert plan['warnings'] == ['/etc/fstab line 1: 5 fields; an HP-UX fstab entry has the device alone or all 6']
