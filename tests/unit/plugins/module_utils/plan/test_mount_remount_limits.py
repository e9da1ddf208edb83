# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 38 item 2: options a live remount cannot set, and options mountinfo never shows.

The mountinfo lines are what Linux 6.18 shows for fresh ext4 and xfs loop mounts."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import parse_fstab
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import parse_mountinfo
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import plan_mounts_from
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_options import (
    CHANGES, IGNORED, REFUSED, live_remount, shown_live)

MOUNTINFO = (
    '43 27 7:0 / /e rw,relatime - ext4 /dev/loop0 rw\n'
    '44 27 7:1 / /x rw,relatime - xfs /dev/loop1 rw,inode64,logbufs=8,logbsize=32k,noquota\n'
)
FSTAB = '/dev/loop0 /e ext4 defaults 0 2\n/dev/loop1 /x xfs defaults 0 0\n'


@pytest.mark.parametrize('option, fstype, effect, shown', [
    ('data=journal', 'ext4', REFUSED, True),
    ('data=writeback', 'ext3', REFUSED, True),
    ('nodelalloc', 'ext4', REFUSED, True),
    ('delalloc', 'ext4', CHANGES, True),
    ('dax', 'ext4', REFUSED, True),
    ('dax=always', 'ext4', REFUSED, True),
    ('journal_checksum', 'ext4', IGNORED, False),
    ('nojournal_checksum', 'ext4', IGNORED, True),
    ('commit=60', 'ext4', CHANGES, True),
    ('errors=panic', 'ext4', CHANGES, True),
    ('logbufs=8', 'xfs', IGNORED, True),
    ('logbsize=64k', 'xfs', IGNORED, True),
    ('noattr2', 'xfs', IGNORED, False),
    ('inode32', 'xfs', CHANGES, True),
    ('noatime', 'xfs', CHANGES, True),
    ('norelatime', 'ext4', CHANGES, False),
    ('iversion', 'xfs', CHANGES, False),
    ('logbufs=8', 'ext4', CHANGES, True),
    ('data=journal', 'tmpfs', CHANGES, True),
])
def test_catalogue_knows_what_a_remount_does(option, fstype, effect, shown):
    assert (live_remount(option, fstype), shown_live(option, fstype)) == (effect, shown)


def _plan(mounts, mountinfo=MOUNTINFO, fstab=FSTAB):
    return plan_mounts_from(mounts, parse_mountinfo(mountinfo), parse_fstab(fstab))


def _checks(plan):
    return dict((check['setting'], check) for check in plan['checks'])


def test_remount_leaves_out_what_it_cannot_set_and_fstab_gets_it():
    plan = _plan([{'path': '/e', 'present': ['data=journal', 'noatime', 'nodelalloc']}])
    assert [(c['kind'], c.get('options') or c['after']) for c in plan['changes']] == [
        ('fstab', ['defaults', 'data=journal', 'noatime', 'nodelalloc']), ('mount', 'remount,noatime')]
    checks = _checks(plan)
    assert checks['present:data=journal']['status'] == 'drift'
    assert checks['present:data=journal']['message'] == (
        'data=journal is not in effect on /e (live: rw,relatime); fstab does not have it (defaults): both fstab and '
        'the live mount need changing; needs unmount and mount of /e: a remount of ext4 cannot set data=journal '
        '(it fails)')
    assert 'a remount would apply it' not in checks['present:nodelalloc']['message']
    assert checks['present:noatime']['message'].endswith('both fstab and the live mount need changing')


def test_a_second_run_changes_nothing():
    first = _plan([{'path': '/e', 'present': ['data=journal', 'noatime']}])
    live = MOUNTINFO.replace('/e rw,relatime', '/e rw,noatime')
    second = _plan([{'path': '/e', 'present': ['data=journal', 'noatime']}], live, first['fstab']['after'])
    assert second['changes'] == []
    checks = _checks(second)
    assert (checks['present:noatime']['status'], checks['present:data=journal']['status']) == ('compliant', 'drift')
    assert 'needs unmount and mount of /e' in checks['present:data=journal']['message']


def test_xfs_ignores_logbufs_on_a_remount():
    plan = _plan([{'path': '/x', 'present': ['logbufs=4', 'nodiratime']}])
    assert [c['options'] for c in plan['changes'] if c['kind'] == 'mount'] == ['remount,relatime,nodiratime']
    message = _checks(plan)['present:logbufs=4']['message']
    assert message.endswith('needs unmount and mount of /x: a remount of xfs cannot set logbufs=4 '
                            '(it succeeds and changes nothing)')


def test_logbufs_8_is_shown_and_compliant_live():
    check = _checks(_plan([{'path': '/x', 'present': ['logbufs=8']}]))['present:logbufs=8']
    assert (check['live'], check['persistent'], check['status']) == (True, False, 'not_persistent')


@pytest.mark.parametrize('path, option', [
    ('/e', 'norelatime'), ('/e', 'iversion'), ('/e', 'journal_checksum'), ('/x', 'noattr2'), ('/x', 'iversion')])
def test_options_mountinfo_never_shows_are_compared_in_fstab(path, option):
    plan = _plan([{'path': path, 'present': [option]}])
    assert [c['kind'] for c in plan['changes']] == ['fstab']
    check = _checks(plan)['present:' + option]
    assert (check['live'], check['persistent'], check['status']) == (None, False, 'drift')
    assert check['message'].startswith('%s is never shown in /proc/self/mountinfo: unverifiable live on %s; ' % (
        option, path))
    fstab = plan['fstab']['after']
    again = _checks(_plan([{'path': path, 'present': [option]}], fstab=fstab))['present:' + option]
    assert (again['live'], again['persistent'], again['status']) == (None, True, 'compliant')


def test_norelatime_keeps_noatime_in_fstab():
    plan = _plan([{'path': '/e', 'present': ['norelatime']}], fstab=FSTAB.replace('ext4 defaults', 'ext4 noatime'))
    assert plan['changes'][0]['after'] == ['noatime', 'norelatime']


@pytest.mark.parametrize('fstype, option, says', [
    # issue 38 item 4: the rollback can name ext4's hidden defaults; of btrfs's commit= it knows none
    ('ext4', 'errors=panic', False),
    ('ext4', 'commit=60', False),
    ('btrfs', 'commit=120', True),
])
def test_the_plan_says_before_the_change_what_a_rollback_cannot_take_back(fstype, option, says):
    mountinfo = '45 27 0:50 / /b rw,relatime - %s /dev/loop2 rw\n' % fstype
    plan = _plan([{'path': '/b', 'present': [option]}], mountinfo, '/dev/loop2 /b %s defaults 0 0\n' % fstype)
    assert [c['options'] for c in plan['changes'] if c['kind'] == 'mount'] == ['remount,' + option]
    message = _checks(plan)['present:' + option]['message']
    key = option.split('=')[0]
    assert message.endswith('; a rollback could not take %s= away again: /b shows no %s= now, and a remount cannot '
                            'drop it (unmount and mount)' % (key, key)) is says


@pytest.mark.parametrize('absent', ['errors=panic'])
def test_absent_errors_panic_remounts_the_default(absent):
    mountinfo = MOUNTINFO.replace('ext4 /dev/loop0 rw', 'ext4 /dev/loop0 rw,errors=panic')
    plan = _plan([{'path': '/e', 'absent': [absent]}], mountinfo, FSTAB)
    assert [c['options'] for c in plan['changes'] if c['kind'] == 'mount'] == ['remount,errors=continue']
    assert 'a remount would remove it' in _checks(plan)['absent:' + absent]['message']
