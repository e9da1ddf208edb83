# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Solaris UFS ``dfratime``/``nodfratime`` (mount_ufs(1M): deferred access-time writes, dfratime the default), on
the real vfstab and mnttab samples of a Solaris 10 host: the policy takes them, the plan writes one of the pair
in vfstab and remounts with the whole option list."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options_unix import plan_unix_mounts, unix_remount
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_policy
from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture

LIVE = 'rw,intr,largefiles,logging,xattr,onerror=panic,suid,dev=800017'


def solaris_host(tmp_path, options, live_word):
    etc = tmp_path / 'etc'
    etc.mkdir()
    (etc / 'vfstab').write_text(read_fixture('unix-samples', 'solaris-vfstab-puppet-1.txt')
                                + '/dev/dsk/c1t0d0s6\t/dev/rdsk/c1t0d0s6\t/u01\tufs\t2\tyes\t%s\n' % options)
    (etc / 'mnttab').write_text(read_fixture('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt')
                                + '/dev/dsk/c1t0d0s6\t/u01\tufs\t%s,%s\t1258671409\n' % (LIVE, live_word))
    return str(etc / 'vfstab'), str(etc / 'mnttab')


def test_the_policy_takes_the_words():
    assert validate_policy({'iotune_mounts': [{'path': '/u01', 'present': ['nodfratime'], 'absent': []}]}) == []


def test_nodfratime_replaces_dfratime_in_vfstab_and_live(tmp_path):
    vfstab, mnttab = solaris_host(tmp_path, 'logging,dfratime', 'dfratime')
    plan = plan_unix_mounts([{'path': '/u01', 'present': ['nodfratime'], 'absent': []}], 'solaris', vfstab, mnttab)
    assert [(c['setting'], c['status']) for c in plan['checks']] == [('present:nodfratime', 'drift')]
    edit, remount = plan['changes']
    assert edit['after_line'] == '/dev/dsk/c1t0d0s6\t/dev/rdsk/c1t0d0s6\t/u01\tufs\t2\tyes\tlogging,nodfratime\n'
    assert remount['options'] == ['rw', 'intr', 'largefiles', 'logging', 'xattr', 'onerror=panic', 'suid', 'nodfratime']


def test_a_mount_with_nodfratime_is_compliant(tmp_path):
    vfstab, mnttab = solaris_host(tmp_path, 'nodfratime', 'nodfratime')
    plan = plan_unix_mounts([{'path': '/u01', 'present': ['nodfratime'], 'absent': ['dfratime']}], 'solaris', vfstab, mnttab)
    assert plan['changes'] == [] and [c['status'] for c in plan['checks']] == ['compliant', 'compliant']


def test_a_remount_keeps_one_of_the_pair_and_the_rest_of_the_options():
    assert unix_remount(['rw', 'dfratime', 'logging'], ['nodfratime'], [], 'solaris') == (['rw', 'nodfratime', 'logging'], [])
    # mount_ufs(1M): an option a remount leaves out reverts to its default, dfratime
    assert unix_remount(['rw', 'nodfratime'], [], ['nodfratime'], 'solaris') == (['rw'], [])
