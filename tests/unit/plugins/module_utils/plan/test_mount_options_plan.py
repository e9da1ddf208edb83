# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import random

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES
from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import parse_fstab
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import plan_mounts, plan_mounts_from
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import edit_fstab_options, in_effect, option_state, plan_remount
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import escape, parse_mountinfo, visible_mounts
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.plan import previous_mount_plan

CHECK_KEYS = ['concern', 'expected', 'id', 'live', 'message', 'persistent', 'setting', 'status', 'target']

# (options, source, option, expected in_effect)
SEMANTICS = [
    # atime: live shows relatime or noatime; neither means strictatime
    (['rw', 'relatime'], 'live', 'noatime', False),
    (['rw', 'relatime'], 'live', 'relatime', True),
    (['rw', 'relatime'], 'live', 'strictatime', False),
    (['rw', 'relatime'], 'live', 'nodiratime', False),
    (['rw', 'relatime'], 'live', 'atime', True),
    (['rw'], 'live', 'strictatime', True),
    (['rw'], 'live', 'relatime', False),
    (['rw', 'noatime'], 'live', 'nodiratime', True),
    (['rw', 'noatime'], 'live', 'diratime', False),
    (['rw', 'noatime'], 'live', 'norelatime', True),
    (['rw', 'relatime', 'nodiratime'], 'live', 'nodiratime', True),
    # fstab: no atime option means relatime (kernel default)
    ([], 'fstab', 'relatime', True),
    (['defaults'], 'fstab', 'relatime', True),
    (['defaults'], 'fstab', 'noatime', False),
    (['noatime'], 'fstab', 'noatime', True),
    (['noatime'], 'fstab', 'nodiratime', True),
    (['noatime', 'atime'], 'fstab', 'noatime', False),
    (['strictatime'], 'fstab', 'strictatime', True),
    (['strictatime'], 'fstab', 'relatime', False),
    (['norelatime'], 'fstab', 'relatime', True),
    (['noatime', 'strictatime'], 'fstab', 'noatime', False),
    # defaults = rw,suid,dev,exec,auto,nouser,async
    (['defaults'], 'fstab', 'rw', True),
    (['defaults'], 'fstab', 'suid', True),
    (['defaults'], 'fstab', 'dev', True),
    (['defaults'], 'fstab', 'exec', True),
    (['defaults'], 'fstab', 'auto', True),
    (['defaults'], 'fstab', 'nouser', True),
    (['defaults'], 'fstab', 'async', True),
    (['defaults'], 'fstab', 'sync', False),
    (['defaults', 'ro'], 'fstab', 'rw', False),
    (['ro', 'defaults'], 'fstab', 'rw', True),
    (['user'], 'fstab', 'noexec', True),
    (['user', 'exec'], 'fstab', 'noexec', False),
    ([], 'fstab', 'async', True),
    # rw/ro and sync live
    (['ro', 'relatime'], 'live', 'rw', False),
    (['ro', 'relatime'], 'live', 'ro', True),
    (['rw', 'relatime', 'sync'], 'live', 'sync', True),
    (['rw', 'relatime', 'sync'], 'live', 'async', False),
    (['rw', 'relatime'], 'live', 'sync', False),
    (['rw', 'nosuid', 'nodev'], 'live', 'suid', False),
    (['rw', 'nosuid', 'nodev'], 'live', 'exec', True),
    # key=value options
    (['rw', 'logbsize=32k'], 'live', 'logbsize=32768', True),
    (['rw', 'logbsize=32k'], 'live', 'logbsize=64k', False),
    (['rw', 'commit=5'], 'live', 'commit=60', False),
    (['commit=5', 'commit=60'], 'fstab', 'commit=60', True),
    (['size=1048576k'], 'live', 'size=1g', True),
    (['data=ordered'], 'live', 'data=writeback', False),
    (['rw'], 'live', 'commit=60', False),
    # VxFS options are ordinary options; a bare key matches any value
    (['rw', 'delaylog', 'mincache=direct', 'convosync=direct'], 'live', 'mincache=direct', True),
    (['rw', 'delaylog', 'mincache=direct', 'convosync=direct'], 'live', 'mincache', True),
    (['rw', 'delaylog', 'mincache=direct', 'convosync=direct'], 'live', 'mincache=closesync', False),
    (['rw', 'delaylog', 'mincache=direct', 'convosync=direct'], 'live', 'delaylog', True),
    (['rw', 'delaylog', 'mincache=direct', 'convosync=direct'], 'live', 'tmplog', False),
    (['rw', 'delaylog'], 'live', 'convosync', False),
    # mount(8)-only options: no live side
    (['rw', 'relatime'], 'live', 'nofail', None),
    (['rw', 'relatime'], 'live', 'noauto', None),
    (['rw', 'relatime'], 'live', 'x-systemd.automount', None),
    (['rw', 'relatime'], 'live', '_netdev', None),
    (['noauto', 'nofail'], 'fstab', 'nofail', True),
    (['noauto', 'nofail'], 'fstab', 'noauto', True),
    (['defaults'], 'fstab', 'nofail', False),
    # generic flags and their negation, last one wins
    (['rw', 'discard'], 'live', 'discard', True),
    (['rw', 'discard'], 'live', 'nodiscard', False),
    (['nodiscard'], 'fstab', 'nodiscard', True),
    (['discard', 'nodiscard'], 'fstab', 'discard', False),
    (['rw'], 'live', 'largeio', False),
]


@pytest.mark.parametrize('options, source, option, expected', SEMANTICS)
def test_in_effect(options, source, option, expected):
    assert in_effect(option, option_state(options, source)) is expected


# (id, fstab options, present, absent, new options, unresolved)
FSTAB_EDITS = [
    ('append to defaults', ['defaults'], ['noatime'], [], ['defaults', 'noatime'], []),
    ('replace in place', ['relatime', 'commit=5', 'errors=remount-ro'], ['noatime', 'commit=60'], [],
     ['noatime', 'commit=60', 'errors=remount-ro'], []),
    ('already there semantically', ['logbsize=32k'], ['logbsize=32768'], [], ['logbsize=32k'], []),
    ('relatime by default', ['defaults'], ['relatime'], [], ['defaults'], []),
    ('remove sync', ['rw', 'sync', 'noatime'], [], ['sync'], ['rw', 'noatime'], []),
    ('absent and not there', ['defaults'], [], ['sync'], ['defaults'], []),
    ('async implied by defaults', ['defaults'], [], ['async'], ['defaults', 'sync'], []),
    ('vxfs direct-io options', ['delaylog', 'mincache=direct', 'convosync=direct'], [],
     ['mincache=direct', 'convosync=direct'], ['delaylog'], []),
    ('bare key removes every value', ['rw', 'mincache=direct', 'mincache=dsync'], [], ['mincache'], ['rw'], []),
    ('value and forbidden value', ['commit=5'], ['commit=60'], ['commit=5'], ['commit=60'], []),
    ('flag negation replaced', ['nodiscard', 'noatime'], ['discard'], [], ['discard', 'noatime'], []),
    ('empty list', [], ['noatime'], [], ['noatime'], []),
    ('every option removed', ['sync'], [], ['sync'], [], []),
    ('ro from defaults', ['defaults'], ['ro'], [], ['defaults', 'ro'], []),
    ('user-space option', ['defaults'], ['nofail'], [], ['defaults', 'nofail'], []),
    ('diratime cannot beat noatime', ['noatime'], ['diratime'], [], ['noatime', 'diratime'], ['diratime']),
    ('nodiratime implied by noatime', ['noatime'], [], ['nodiratime'], ['noatime', 'diratime'], ['nodiratime']),
]


@pytest.mark.parametrize('options, present, absent, new, unresolved', [case[1:] for case in FSTAB_EDITS],
                         ids=[case[0] for case in FSTAB_EDITS])
def test_edit_fstab_options(options, present, absent, new, unresolved):
    assert edit_fstab_options(options, present, absent) == (new, unresolved)


# (id, live options, present, absent, remount words, live after, unresolved)
REMOUNTS = [
    ('noatime', ['rw', 'relatime'], ['noatime'], [], ['noatime'], ['rw', 'noatime'], []),
    ('nothing to do', ['rw', 'noatime'], ['noatime'], ['sync'], [], ['rw', 'noatime'], []),
    ('sync off', ['rw', 'relatime', 'sync'], [], ['sync'], ['async'], ['rw', 'relatime'], []),
    ('noatime off', ['rw', 'noatime'], [], ['noatime'], ['atime', 'relatime'], ['rw', 'relatime'], []),
    ('relatime from noatime', ['rw', 'noatime'], ['relatime'], [], ['atime', 'relatime'], ['rw', 'relatime'], []),
    ('atime from noatime', ['rw', 'noatime'], ['atime'], [], ['atime', 'relatime'], ['rw', 'relatime'], []),
    ('strictatime from noatime', ['rw', 'noatime'], ['strictatime'], [], ['strictatime'], ['rw'], []),
    ('strictatime off', ['rw'], [], ['strictatime'], ['relatime'], ['rw', 'relatime'], []),
    # the kernel keeps the atime flags of a remount that names none: diratime alone keeps nodiratime
    ('nodiratime off', ['rw', 'nodiratime', 'relatime'], [], ['nodiratime'], ['diratime', 'relatime'], ['rw', 'relatime'], []),
    ('ro to rw', ['ro', 'relatime'], ['rw'], [], ['rw'], ['rw', 'relatime'], []),
    ('suid and exec back', ['rw', 'nosuid', 'nodev', 'noexec', 'relatime'], ['suid'], ['noexec'], ['suid', 'exec'],
     ['rw', 'nodev', 'relatime'], []),
    ('value replaced', ['rw', 'commit=5'], ['commit=60'], ['commit=5'], ['commit=60'], ['rw', 'commit=60'], []),
    ('key=value cannot be dropped', ['rw', 'delaylog', 'mincache=direct'], [], ['mincache=direct'], [],
     ['rw', 'delaylog', 'mincache=direct'], ['mincache=direct']),
    ('strictatime from relatime', ['rw', 'relatime'], ['strictatime'], [], ['strictatime'], ['rw'], []),
    # issue 38 item 3: naming one atime flag sets them all (fs/namespace.c path_mount), so a remount
    # that changes the atime mode or nodiratime names both; one that changes neither names none
    ('nodiratime off under noatime words', ['rw', 'noatime', 'nodiratime'], [], ['nodiratime', 'noatime'],
     ['diratime', 'atime', 'relatime'], ['rw', 'relatime'], []),
    ('nodiratime keeps strictatime', ['rw'], ['nodiratime'], [], ['strictatime', 'nodiratime'], ['rw', 'nodiratime'], []),
    ('nodiratime off keeps strictatime', ['rw', 'nodiratime'], [], ['nodiratime'], ['diratime', 'strictatime'], ['rw'], []),
    ('noatime keeps nodiratime', ['rw', 'nodiratime', 'relatime'], ['noatime'], [], ['noatime', 'nodiratime'],
     ['rw', 'nodiratime', 'noatime'], []),
    ('relatime keeps nodiratime', ['rw', 'nodiratime'], ['relatime'], [], ['relatime', 'nodiratime'],
     ['rw', 'nodiratime', 'relatime'], []),
    ('no atime word, no atime flag', ['rw', 'nodiratime', 'noatime'], ['lazytime'], [], ['lazytime'],
     ['rw', 'nodiratime', 'noatime', 'lazytime'], []),
    ('nodiratime and another option', ['rw', 'relatime'], ['sync', 'nodiratime'], [], ['sync', 'relatime', 'nodiratime'],
     ['rw', 'relatime', 'sync', 'nodiratime'], []),
]


@pytest.mark.parametrize('live, present, absent, words, after, unresolved', [case[1:] for case in REMOUNTS],
                         ids=[case[0] for case in REMOUNTS])
def test_plan_remount(live, present, absent, words, after, unresolved):
    assert plan_remount(live, present, absent) == (words, after, unresolved)


@pytest.fixture(name='vxfs_plan')
def vxfs_plan_fixture(fixture_path):
    def plan(mounts, **kwargs):
        return plan_mounts(mounts, fstab_path=fixture_path('policy', 'constructed-vxfs.fstab'),
                           proc_root=fixture_path('policy', 'proc-vxfs'), **kwargs)
    return plan


def _by_setting(plan):
    return dict(((check['target'], check['setting']), check) for check in plan['checks'])


def test_check_record_shape(vxfs_plan):
    plan = vxfs_plan([{'path': '/data', 'present': ['noatime']}])
    assert plan['checks'] == [{
        'id': 'mount_options:/data:present:noatime',
        'concern': 'mount_options',
        'target': '/data',
        'setting': 'present:noatime',
        'expected': 'present',
        'live': False,
        'persistent': True,
        'status': 'drift',
        'message': 'noatime is not in effect on /data (live: rw,relatime); fstab has it (defaults,noatime): '
                   'a remount would apply it',
    }]
    assert plan['changes'] == [{'kind': 'mount', 'target': '/data', 'options': 'remount,noatime',
                                'before': ['rw', 'relatime'], 'after': ['rw', 'noatime']}]
    assert plan['fstab']['changed'] is False
    assert plan['warnings'] == []


# (id, request, target, setting, status, live, persistent, message)
STATUS_CASES = [
    ('compliant live and fstab', {'path': '/db', 'present': ['noatime']}, '/db', 'present:noatime', 'compliant', True, True,
     'noatime is in effect on /db (live: rw,noatime,sync,commit=60); fstab has it (noatime,commit=60)'),
    ('compliant via noatime', {'path': '/db', 'present': ['nodiratime']}, '/db', 'present:nodiratime', 'compliant',
     True, True, None),
    ('compliant absent', {'path': '/data', 'absent': ['sync']}, '/data', 'absent:sync', 'compliant', False, False,
     'sync is not in effect on /data (live: rw,relatime); fstab does not have it (defaults,noatime)'),
    ('drift, fstab has it', {'path': '/data', 'present': ['noatime']}, '/data', 'present:noatime', 'drift', False, True,
     None),
    ('drift, live has forbidden option fstab does not', {'path': '/db', 'absent': ['sync']}, '/db', 'absent:sync',
     'drift', True, False,
     'sync is in effect on /db (live: rw,noatime,sync,commit=60); fstab does not have it (noatime,commit=60): '
     'a remount would remove it'),
    ('drift both sides, vxfs direct io', {'path': '/backup', 'absent': ['mincache=direct']}, '/backup',
     'absent:mincache=direct', 'drift', True, True,
     'mincache=direct is in effect on /backup (live: rw,relatime,delaylog,largefiles,ioerror=mwdisable,mincache=direct,'
     'convosync=direct); fstab has it (delaylog,mincache=direct,convosync=direct): both fstab and the live mount '
     'need changing; a remount cannot remove mincache=direct; unmount and mount /backup'),
    ('not persistent, fstab lacks it', {'path': '/db', 'present': ['sync']}, '/db', 'present:sync', 'not_persistent',
     True, False,
     'sync is in effect on /db (live: rw,noatime,sync,commit=60); fstab does not have it (noatime,commit=60): '
     'it is lost at the next mount'),
    ('not persistent, forbidden option comes back', {'path': '/data', 'absent': ['noatime']}, '/data', 'absent:noatime',
     'not_persistent', False, True,
     'noatime is not in effect on /data (live: rw,relatime); fstab has it (defaults,noatime): '
     'it comes back at the next mount'),
    ('not persistent, not in fstab', {'path': '/scratch', 'present': ['relatime']}, '/scratch', 'present:relatime',
     'not_persistent', True, None, None),
    ('drift, not in fstab', {'path': '/scratch', 'present': ['noatime']}, '/scratch', 'present:noatime', 'drift',
     False, None, None),
    ('sizes compared as sizes', {'path': '/srv/xfs', 'present': ['logbsize=256k']}, '/srv/xfs', 'present:logbsize=256k',
     'compliant', True, True, None),
    ('strictatime live and in fstab', {'path': '/strict', 'present': ['strictatime']}, '/strict', 'present:strictatime',
     'compliant', True, True, None),
    ('not mounted, fstab has it', {'path': '/archive', 'present': ['noauto']}, '/archive', 'present:noauto',
     'compliant', None, True, '/archive is not mounted; fstab has noauto (defaults,noauto)'),
    ('not mounted, fstab lacks it', {'path': '/archive', 'present': ['noatime']}, '/archive', 'present:noatime',
     'drift', None, False,
     '/archive is not mounted; fstab does not have noatime (defaults,noauto): the fstab entry needs changing'),
    ('mount(8) option mounted', {'path': '/data', 'present': ['nofail']}, '/data', 'present:nofail', 'drift', None,
     False, 'nofail is a mount(8) option the kernel does not show; fstab does not have it (defaults,noatime): '
     'the fstab entry needs changing'),
    ('neither mounted nor in fstab', {'path': '/nowhere/', 'present': ['noatime']}, '/nowhere', 'mount_point',
     'not_applicable', None, None, None),
    ('duplicate fstab entries', {'path': '/dup', 'present': ['noatime']}, '/dup', 'present:noatime', 'error', None, None,
     'noatime: /dup is listed 2 times in %(fstab)s (lines 9, 10): fix fstab first'),
    ('contradicting request', {'path': '/db', 'present': ['diratime']}, '/db', 'present:diratime', 'drift', False, False,
     'diratime is not in effect on /db (live: rw,noatime,sync,commit=60); fstab does not have it (noatime,commit=60): '
     'both fstab and the live mount need changing; the other options in fstab keep diratime off; change them by hand'),
]


@pytest.mark.parametrize('request_, target, setting, status, live, persistent, message', [case[1:] for case in STATUS_CASES],
                         ids=[case[0] for case in STATUS_CASES])
def test_statuses(vxfs_plan, fixture_path, request_, target, setting, status, live, persistent, message):
    plan = vxfs_plan([request_])
    checks = _by_setting(plan)
    check = checks[(target, setting)]
    assert sorted(check) == CHECK_KEYS
    assert (check['status'], check['live'], check['persistent']) == (status, live, persistent)
    if message is not None:
        assert check['message'] == message % {'fstab': fixture_path('policy', 'constructed-vxfs.fstab')}


def test_every_status_is_covered():
    assert set(case[4] for case in STATUS_CASES) == set(STATUSES)


def test_not_in_fstab_message(vxfs_plan, fixture_path):
    fstab = fixture_path('policy', 'constructed-vxfs.fstab')
    checks = _by_setting(vxfs_plan([{'path': '/scratch', 'present': ['relatime', 'noatime']}]))
    assert checks[('/scratch', 'present:relatime')]['message'] == (
        'relatime is in effect on /scratch (live: rw,relatime); /scratch is not in %s: '
        'the mount does not come back at boot' % fstab)
    assert checks[('/scratch', 'present:noatime')]['message'] == (
        'noatime is not in effect on /scratch (live: rw,relatime); /scratch is not in %s: '
        'a remount would apply it, and the mount does not come back at boot' % fstab)


def test_neither_mounted_nor_in_fstab_message(vxfs_plan, fixture_path):
    plan = vxfs_plan([{'path': '/nowhere', 'present': ['noatime'], 'absent': ['sync']}])
    assert plan['checks'] == [{
        'id': 'mount_options:/nowhere:mount_point', 'concern': 'mount_options', 'target': '/nowhere',
        'setting': 'mount_point', 'expected': 'mounted', 'live': None, 'persistent': None, 'status': 'not_applicable',
        'message': '/nowhere is neither mounted nor listed in %s; its options were not checked'
                   % fixture_path('policy', 'constructed-vxfs.fstab'),
    }]
    assert plan['changes'] == []


def test_backup_restore_plan_on_vxfs(vxfs_plan, read_fixture):
    """seed 000: forbid the direct-I/O options on the backup target; fstab keeps every other byte."""
    plan = vxfs_plan([{'path': '/backup', 'absent': ['mincache=direct', 'convosync=direct', 'sync']}])
    assert [check['status'] for check in plan['checks']] == ['drift', 'drift', 'compliant']
    fstab_changes = [change for change in plan['changes'] if change['kind'] == 'fstab']
    assert fstab_changes == [{
        'kind': 'fstab', 'target': '/backup', 'path': fstab_changes[0]['path'], 'line': 5,
        'before': ['delaylog', 'mincache=direct', 'convosync=direct'], 'after': ['delaylog'],
        'before_line': '/dev/vx/dsk/bkdg/backup  /backup  vxfs  delaylog,mincache=direct,convosync=direct  0  2\n',
        'after_line': '/dev/vx/dsk/bkdg/backup  /backup  vxfs  delaylog  0  2\n',
    }]
    # a remount cannot drop key=value options: no mount change, the request is reported unresolved
    assert [change['kind'] for change in plan['changes']] == ['fstab']
    assert plan['mounts'][0]['unresolved'] == [
        'mincache=direct: a remount cannot remove mincache=direct; unmount and mount /backup',
        'convosync=direct: a remount cannot remove convosync=direct; unmount and mount /backup',
    ]
    before = read_fixture('policy', 'constructed-vxfs.fstab')
    assert plan['fstab']['before'] == before
    assert plan['fstab']['after'] == before.replace('delaylog,mincache=direct,convosync=direct  0  2',
                                                    'delaylog  0  2')


def test_plan_several_mounts_keeps_every_unmanaged_byte(vxfs_plan, read_fixture):
    plan = vxfs_plan([
        {'path': '/data', 'present': ['noatime', 'commit=60']},
        {'path': '/db', 'absent': ['sync'], 'present': ['commit=30']},
        {'path': '/archive/', 'present': ['nofail']},
    ])
    before = read_fixture('policy', 'constructed-vxfs.fstab')
    after = plan['fstab']['after']
    assert plan['fstab']['changed'] is True
    changed = [(old, new) for old, new in zip(before.split('\n'), after.split('\n')) if old != new]
    assert changed == [
        ('/dev/vdb\t/data\text4\tdefaults,noatime\t0\t2', '/dev/vdb\t/data\text4\tdefaults,noatime,commit=60\t0\t2'),
        ('/dev/vdc\t/db\text4\tnoatime,commit=60\t0\t2   ', '/dev/vdc\t/db\text4\tnoatime,commit=30\t0\t2   '),
        ('/dev/vde\t/archive\txfs\tdefaults,noauto\t0\t0', '/dev/vde\t/archive\txfs\tdefaults,noauto,nofail\t0\t0'),
    ]
    mount_changes = [(c['target'], c['options']) for c in plan['changes'] if c['kind'] == 'mount']
    assert mount_changes == [('/data', 'remount,noatime,commit=60'), ('/db', 'remount,commit=30,async')]
    details = dict((info['path'], info) for info in plan['mounts'])
    assert details['/db']['live_options_after'] == ['rw', 'noatime', 'commit=30']
    assert details['/archive']['mounted'] is False
    assert details['/archive']['remount_options'] is None


def test_remount_false_plans_only_the_file(vxfs_plan):
    plan = vxfs_plan([{'path': '/data', 'present': ['commit=60']}], remount=False)
    assert [change['kind'] for change in plan['changes']] == ['fstab']
    # the live side is still checked
    assert plan['checks'][0]['status'] == 'drift'
    assert plan['mounts'][0]['remount_options'] == 'remount,commit=60'


def test_real_capture_without_fstab_entries(fixture_path):
    """vm-loop: real mountinfo of the capture machine, whose fstab has no entries."""
    plan = plan_mounts(
        [{'path': '/tmp/iotune-cap/data mnt', 'present': ['noatime', 'commit=30'], 'absent': ['sync']},
         {'path': '/tmp/iotune-cap/xfs', 'present': ['logbsize=262144', 'largeio']}],
        fstab_path=fixture_path('fstab', 'debian12-unconfigured.fstab'),
        proc_root=fixture_path('proc', 'vm-loop'))
    assert [(c['target'], c['setting'], c['status']) for c in plan['checks']] == [
        ('/tmp/iotune-cap/data mnt', 'present:noatime', 'not_persistent'),
        ('/tmp/iotune-cap/data mnt', 'present:commit=30', 'not_persistent'),
        ('/tmp/iotune-cap/data mnt', 'absent:sync', 'not_persistent'),
        ('/tmp/iotune-cap/xfs', 'present:logbsize=262144', 'not_persistent'),
        ('/tmp/iotune-cap/xfs', 'present:largeio', 'not_persistent'),
    ]
    assert plan['changes'] == []
    assert plan['fstab']['changed'] is False


def test_constructed_samples(fixture_path):
    """Escaped mount points, trailing slash in fstab, NFS and sizes written differently."""
    plan = plan_mounts(
        [{'path': '/mnt/backup target', 'present': ['size=1g']},
         {'path': '/mnt/nfs4', 'present': ['hard', 'nofail'], 'absent': ['soft']},
         {'path': '/srv/archive', 'present': ['logbsize=32k']}],
        fstab_path=fixture_path('fstab', 'constructed.fstab'),
        proc_root=fixture_path('proc', 'constructed-dm-md'))
    assert [(c['target'], c['setting'], c['status'], c['live'], c['persistent']) for c in plan['checks']] == [
        ('/mnt/backup target', 'present:size=1g', 'compliant', True, True),
        ('/mnt/nfs4', 'present:hard', 'compliant', True, True),
        ('/mnt/nfs4', 'present:nofail', 'drift', None, False),
        ('/mnt/nfs4', 'absent:soft', 'compliant', False, False),
        ('/srv/archive', 'present:logbsize=32k', 'not_persistent', True, False),
    ]
    lines = [change['after_line'] for change in plan['changes'] if change['kind'] == 'fstab']
    assert lines == ['filer.example.com:/export/backup  /mnt/nfs4/  nfs4  rw,hard,_netdev,nofail   \n',
                     'LABEL=archive   /srv/archive    xfs     logbufs=8,logbsize=32k,largeio  0  2\n']


def test_unreadable_mountinfo_gives_errors(tmp_path, fixture_path):
    plan = plan_mounts([{'path': '/data', 'present': ['noatime']}],
                       fstab_path=fixture_path('policy', 'constructed-vxfs.fstab'), proc_root=str(tmp_path))
    assert [check['status'] for check in plan['checks']] == ['error']
    assert plan['checks'][0]['message'].startswith('noatime: cannot read %s' % os.path.join(str(tmp_path), 'self', 'mountinfo'))
    assert plan['changes'] == []


def test_unreadable_fstab_gives_errors(tmp_path, fixture_path):
    fstab = tmp_path / 'fstab'
    fstab.mkdir()  # a directory cannot be read as a file
    plan = plan_mounts([{'path': '/data', 'present': ['noatime']}], fstab_path=str(fstab),
                       proc_root=fixture_path('policy', 'proc-vxfs'))
    assert [check['status'] for check in plan['checks']] == ['error']
    assert 'cannot read %s' % fstab in plan['checks'][0]['message']


def test_missing_fstab(tmp_path, fixture_path):
    missing = str(tmp_path / 'fstab')
    plan = plan_mounts([{'path': '/data', 'present': ['relatime']}], fstab_path=missing,
                       proc_root=fixture_path('policy', 'proc-vxfs'))
    assert plan['checks'][0]['status'] == 'not_persistent'
    assert plan['checks'][0]['message'] == (
        'relatime is in effect on /data (live: rw,relatime); there is no %s: the mount does not come back at boot' % missing)
    assert plan['fstab'] == {'path': missing, 'before': None, 'after': None, 'changed': False}
    assert plan['warnings'] == []


def test_plan_from_parsed_state():
    entries = parse_mountinfo('81 27 254:16 / /data rw,relatime shared:41 - ext4 /dev/vdb rw\n')
    records = parse_fstab('/dev/vdb /data ext4 defaults 0 2\n')
    plan = plan_mounts_from([{'path': '/data', 'present': ['noatime'], 'absent': []}], entries, records)
    assert plan['checks'][0]['status'] == 'drift'
    assert plan['fstab']['after'] == '/dev/vdb /data ext4 defaults,noatime 0 2\n'
    assert [change['kind'] for change in plan['changes']] == ['fstab', 'mount']


def test_a_line_that_cannot_be_edited_safely_is_left_and_said():
    """An options field with an unbalanced double quote: libmount would read an added option as part of the
    quoted value, so the line is not edited and the check says why (issue 53; docs/enforce.md)."""
    entries = parse_mountinfo('81 27 254:16 / /data rw,relatime shared:41 - ext4 /dev/vdb rw\n')
    records = parse_fstab('/dev/vdb /data ext4 x-a="b,c 0 2\n')
    plan = plan_mounts_from([{'path': '/data', 'present': ['noatime'], 'absent': []}], entries, records)
    check = plan['checks'][0]
    assert check['status'] == 'drift'
    assert '/etc/fstab line 1 is not edited: its options field x-a="b,c has an unbalanced double quote' in check['message']
    assert 'change it by hand' in check['message']
    assert plan['fstab']['changed'] is False and [change['kind'] for change in plan['changes']] == ['mount']


# ---------------------------------------------------------------------------
# The mount_options module entry point (kept here: the module is a thin shell around the planner).

def _run_module(monkeypatch, args, check_mode=True, diff=False):
    from ansible_collections.iotune.storage.plugins.modules import mount_options
    from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

    return run_main(monkeypatch, mount_options, dict(args, _ansible_check_mode=check_mode, _ansible_diff=diff))


def _module_args(fixture_path, **extra):
    return dict({'fstab': fixture_path('policy', 'constructed-vxfs.fstab'),
                 'proc_root': fixture_path('policy', 'proc-vxfs')}, **extra)


def test_module_single_path(monkeypatch, fixture_path):
    kind, result = _run_module(monkeypatch, _module_args(fixture_path, path='/data/', present=['noatime'],
                                                         absent=['sync']), diff=True)
    assert kind == 'exit'
    assert result['changed'] is True          # check mode: a remount is planned
    assert [(c['setting'], c['status']) for c in result['checks']] == [
        ('present:noatime', 'drift'), ('absent:sync', 'compliant')]
    assert result['msg'] == '2 checks: 1 compliant, 1 drift'
    assert result['summary']['drift'] == 1
    assert result['diff'] == [{'before_header': 'mount options (live)', 'after_header': 'mount options (planned)',
                               'before': '/data rw,relatime\n', 'after': '/data rw,noatime\n'}]


def test_module_batch_and_fstab_diff(monkeypatch, fixture_path, read_fixture):
    kind, result = _run_module(monkeypatch, _module_args(fixture_path, mounts=[
        {'path': '/backup', 'absent': ['mincache=direct', 'convosync=direct']},
        {'path': '/db', 'present': ['noatime']},
    ]), diff=True)
    assert kind == 'exit'
    assert [c['status'] for c in result['checks']] == ['drift', 'drift', 'compliant']
    fstab_diff = result['diff'][0]
    assert fstab_diff['before'] == read_fixture('policy', 'constructed-vxfs.fstab')
    assert 'delaylog  0  2' in fstab_diff['after']
    assert [m['path'] for m in result['mounts']] == ['/backup', '/db']


def test_module_compliant_is_not_changed(monkeypatch, fixture_path):
    # apply and rollback: tests/unit/plugins/modules/test_io_rollback.py
    kind, result = _run_module(monkeypatch, _module_args(fixture_path, path='/db', present=['noatime']))
    assert (kind, result['changed'], result['changes']) == ('exit', False, [])
    assert result['checks'][0]['status'] == 'compliant'


@pytest.mark.parametrize('args, message', [
    ({'path': '/data', 'present': ['noatime'], 'absent': ['noatime']},
     "invalid mount options request: path: option 'noatime' is in both present and absent"),
    ({'mounts': [{'path': '/data'}, {'path': '/data/', 'present': ['no atime']}]},
     "invalid mount options request: mounts[1].present[0]: 'no atime' is not a mount option"),
    ({'mounts': [{'path': 'data'}]}, "invalid mount options request: mounts[0].path: must be an absolute path"),
    ({'path': '/data', 'mounts': [{'path': '/data'}]}, 'parameters are mutually exclusive: path|mounts'),
    ({'present': ['noatime']}, 'one of the following is required: path, mounts'),
])
def test_module_bad_input(monkeypatch, fixture_path, args, message):
    kind, result = _run_module(monkeypatch, _module_args(fixture_path, **args))
    assert kind == 'fail'
    assert result['msg'].startswith(message), result['msg']


def test_root_not_in_fstab(fixture_path):
    plan = plan_mounts([{'path': '/', 'present': ['noatime']}],
                       fstab_path=fixture_path('fstab', 'debian12-unconfigured.fstab'),
                       proc_root=fixture_path('proc', 'vm-loop'))
    check = plan['checks'][0]
    assert (check['status'], check['live'], check['persistent']) == ('drift', False, None)
    assert check['message'] == (
        'noatime is not in effect on / (live: rw,relatime,discard,resv_strict,resuid=65534,resgid=65534); / is not in '
        "%s: a remount would apply it, and at boot the root file system gets only the kernel's rootflags="
        % fixture_path('fstab', 'debian12-unconfigured.fstab'))


# ---------------------------------------------------------------------------
# Issue 23 S3: the planner indexes fstab and mountinfo once; its plans must equal the
# straightforward planner's (below, as it was) on generated hosts with duplicated entries,
# comments, swap, bind mounts, invalid lines and over-mounts.

GEN_POINTS = ['/', '/data', '/srv/a', '/srv/b', '/mnt/my disk', '/var/lib/x', '/swapfile', '/home', '/opt',
              '/export/e1', '/export/e2', '/net/home', '/boot', '/tmp', '/srv/bind', '/var/log', '/media/usb',
              '/srv/c', '/srv/d', '/backup', '/scratch', '/mnt/tab\there', '/db', '/db/wal']
GEN_LIVE = ['rw,relatime', 'rw,noatime', 'ro,relatime', 'rw,nosuid,nodev,noexec,relatime', 'rw,relatime,sync',
            'rw,relatime,nodiratime', 'rw', 'rw,noatime,lazytime']
GEN_SUPER = ['rw', 'rw,errors=remount-ro', 'rw,commit=5', 'ro,logbsize=32k']
GEN_FSTAB = ['defaults', 'noatime', 'rw,nosuid,nodev', 'defaults,sync', 'commit=5,errors=remount-ro', 'user',
             'ro,noauto', 'nofail,x-systemd.automount', 'strictatime', 'noatime,atime']
GEN_OPTIONS = ['noatime', 'relatime', 'nodev', 'exec', 'sync', 'nofail', 'commit=60', 'ro', 'nosuid', 'strictatime',
               'nodiratime', 'x-systemd.automount', 'mincache', 'lazytime']


def _generated_host(seed):
    """(mounts, mountinfo text, fstab text) of a random but reproducible host."""
    rng = random.Random(seed)

    def spelled(point):  # as fstab may spell a mount point
        return escape(point) + rng.choice(['', '', '', '/', '//']) if point != '/' else '/'

    lines = ['# generated host %d\n' % seed]
    for number in range(rng.randint(20, 90)):
        point = rng.choice(GEN_POINTS)
        kind = rng.choice(['entry'] * 6 + ['bind', 'comment', 'blank', 'invalid', 'swap-spec', 'swap-file', 'proc', 'nfs'])
        eol = '\r\n' if rng.random() < 0.1 else '\n'
        if kind == 'entry':
            line = '/dev/vd%s%d\t%s  %s %s %d %d' % (
                rng.choice('bcd'), number, spelled(point), rng.choice(['ext4', 'xfs', 'vxfs']), rng.choice(GEN_FSTAB),
                rng.randint(0, 1), rng.randint(0, 2))
        elif kind == 'bind':
            line = '/srv/src%d %s none bind,%s 0 0' % (number, spelled(point), rng.choice(GEN_FSTAB))
        elif kind == 'comment':
            line = '# %s was here %d' % (point, number)
        elif kind == 'blank':
            line = rng.choice(['', '   '])
        elif kind == 'invalid':
            line = 'broken %s' % escape(point)
        elif kind == 'swap-spec':
            line = '%s none swap sw,pri=%d 0 0' % (escape(point), number)
        elif kind == 'swap-file':
            line = 'UUID=%04x %s swap sw 0 0' % (number, spelled(point))
        elif kind == 'proc':
            line = 'proc none proc defaults 0 0'
        else:
            line = 'filer:/export/%d %s nfs rw,_netdev 0 0' % (number, spelled(point))
        lines.append(line + eol)
    if rng.random() < 0.5:
        lines[-1] = lines[-1].rstrip('\r\n')  # no newline at the end of the file

    mountinfo = ['1 0 8:1 / / %s - ext4 /dev/vda1 rw' % rng.choice(GEN_LIVE)]
    mount_id = 20
    for point in GEN_POINTS[1:]:
        for layer in range(rng.choice([0, 0, 1, 1, 1, 2, 3])):  # 2 and 3: over-mounted, the last is visible
            mount_id += 1
            mountinfo.append('%d 1 8:%d %s %s %s shared:%d - %s /dev/vd%d %s' % (
                mount_id, mount_id, rng.choice(['/', '/sub']), escape(point), rng.choice(GEN_LIVE), mount_id,
                rng.choice(['ext4', 'xfs', 'tmpfs']), mount_id, rng.choice(GEN_SUPER)))
    rng.shuffle(mountinfo)  # over-mounts keep their order only by chance: the last line wins either way

    mounts = []
    for point in rng.sample(GEN_POINTS + ['/dev/vdz9', 'none'], rng.randint(5, 20)):
        chosen = rng.sample(GEN_OPTIONS, rng.randint(1, 4))
        split = rng.randint(0, len(chosen))
        mounts.append({'path': point + rng.choice(['', '', '/']), 'present': chosen[:split], 'absent': chosen[split:]})
    return mounts, '\n'.join(mountinfo) + '\n', ''.join(lines)


@pytest.mark.parametrize('seed', range(60))
@pytest.mark.parametrize('remount', [True, False])
def test_plan_equals_straightforward_planner(seed, remount):
    mounts, mountinfo, fstab = _generated_host(seed)
    new = plan_mounts_from(mounts, parse_mountinfo(mountinfo), parse_fstab(fstab), fstab_path='/etc/fstab.gen', remount=remount)
    old = previous_mount_plan.plan_mounts_from(mounts, parse_mountinfo(mountinfo), parse_fstab(fstab),
                                               fstab_path='/etc/fstab.gen', remount=remount)
    assert new == old
    assert new['fstab']['before'] == fstab


@pytest.mark.parametrize('errors', [{'live_error': 'mountinfo: unreadable'}, {'fstab_error': 'fstab: unreadable'}])
def test_plan_equals_straightforward_planner_on_read_errors(errors):
    mounts, mountinfo, fstab = _generated_host(7)
    new = plan_mounts_from(mounts, parse_mountinfo(mountinfo), parse_fstab(fstab), **errors)
    assert new == previous_mount_plan.plan_mounts_from(mounts, parse_mountinfo(mountinfo), parse_fstab(fstab), **errors)
    assert all(check['status'] == 'error' for check in new['checks'] if check['setting'] != 'mount_point')


def test_generated_hosts_cover_the_cases():
    """The generated hosts reach every branch the comparison is about."""
    seen = set()
    for seed in range(60):
        mounts, mountinfo, fstab = _generated_host(seed)
        plan = plan_mounts_from(mounts, parse_mountinfo(mountinfo), parse_fstab(fstab))
        messages = ' '.join(check['message'] for check in plan['checks'])
        seen.update(name for name, found in [
            ('duplicate', ' times in /etc/fstab (lines ' in messages),
            ('swap', ' is swap (/etc/fstab line ' in messages),
            ('neither', 'is neither mounted nor listed' in messages),
            ('fstab edit', any(change['kind'] == 'fstab' for change in plan['changes'])),
            ('remount', any(change['kind'] == 'mount' for change in plan['changes'])),
            ('in fstab, not mounted', any(info['in_fstab'] and not info['mounted'] for info in plan['mounts'])),
            ('mounted, not in fstab', any(info['mounted'] and not info['in_fstab'] for info in plan['mounts'])),
            ('bind', any(info['fstab_options'] and 'bind' in info['fstab_options'] for info in plan['mounts'])),
            ('over-mount', len(parse_mountinfo(mountinfo)) > len(visible_mounts(parse_mountinfo(mountinfo)))),
            ('invalid line', any(record.kind == 'invalid' for record in parse_fstab(fstab))),
        ] if found)
    assert seen == set(['duplicate', 'swap', 'neither', 'fstab edit', 'remount', 'in fstab, not mounted',
                        'mounted, not in fstab', 'bind', 'over-mount', 'invalid line'])
