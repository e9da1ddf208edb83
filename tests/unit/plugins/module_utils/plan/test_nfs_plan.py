# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan of an NFS mount: a remount changes only the VFS options; the NFS client's own options are a
clear "needs unmount and mount", or, with ``remount: cycle``, an unmount and mount when nothing holds
the mount open."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import parse_fstab
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import parse_mountinfo
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import plan_mounts, plan_mounts_from

SUPER = ('rw,vers=4.2,rsize=524288,wsize=524288,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,'
         'clientaddr=192.0.2.10,local_lock=none,addr=192.0.2.1')
MOUNTINFO = (
    '27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n'
    '131 27 0:52 / /mnt/nfs rw,relatime shared:180 - nfs4 filer:/export ' + SUPER + '\n'
    '132 27 0:53 / /mnt/nfs3 rw,relatime shared:181 - nfs filer:/old rw,vers=3,rsize=1048576,wsize=1048576,namlen=255,'
    'hard,nolock,proto=tcp,timeo=600,retrans=2,sec=sys,mountaddr=192.0.2.1,mountvers=3,mountport=20048,mountproto=udp,'
    'local_lock=all,addr=192.0.2.1\n'
)
FSTAB = ('/dev/vda1 / ext4 errors=remount-ro 0 1\n'
         'filer:/export /mnt/nfs nfs4 rw,_netdev,rsize=1048576 0 0\n'
         'filer:/old /mnt/nfs3 nfs vers=3,nolock,_netdev 0 0\n')
BASH = [{'pid': 4242, 'command': 'bash', 'what': ['cwd']}]


def _plan(request, holders=(), fstab=FSTAB, remount=True):
    asked = []

    def holders_of(path):
        asked.append(path)
        return list(holders)
    plan = plan_mounts_from([request], parse_mountinfo(MOUNTINFO), parse_fstab(fstab), remount=remount,
                            holders_of=holders_of)
    return plan, dict((check['setting'], check) for check in plan['checks']), asked


def _request(remount=None, present=(), absent=()):
    request = {'path': '/mnt/nfs', 'present': list(present), 'absent': list(absent)}
    if remount:
        request['remount'] = remount
    return request


def test_an_option_a_remount_cannot_change_needs_unmount_and_mount():
    plan, checks, asked = _plan(_request(present=['nconnect=4', 'actimeo=30', 'noatime']))
    nconnect = checks['present:nconnect=4']
    assert (nconnect['status'], nconnect['live'], nconnect['persistent']) == ('drift', False, False)
    assert nconnect['message'].endswith(
        'both fstab and the live mount need changing; a remount of NFS ignores nconnect (fs/nfs/fs_context.c parses '
        'it, nothing compares it): needs unmount and mount of /mnt/nfs')
    assert checks['present:actimeo=30']['message'].endswith(
        'a remount of NFS refuses actimeo (fs/nfs/super.c nfs_compare_remount_data): needs unmount and mount of /mnt/nfs')
    # the remount carries only what a remount of NFS changes; fstab takes everything (the next mount)
    kinds = [(change['kind'], change.get('options')) for change in plan['changes']]
    assert kinds == [('fstab', None), ('mount', 'remount,noatime')]
    assert plan['changes'][0]['after_line'] == 'filer:/export /mnt/nfs nfs4 rw,_netdev,rsize=1048576,nconnect=4,actimeo=30,noatime 0 0\n'
    assert asked == []  # in_place: nobody's /proc is read
    assert plan['mounts'][0]['unresolved'][0].startswith('nconnect=4: a remount of NFS ignores nconnect')


def test_a_size_the_server_capped_is_reported_as_such_not_as_a_change():
    plan, checks, dummy = _plan(_request(remount='cycle', present=['rsize=1048576']))
    check = checks['present:rsize=1048576']
    assert (check['status'], check['live'], check['persistent']) == ('drift', False, True)
    assert check['message'].endswith('fstab has it (rw,_netdev,rsize=1048576); the server negotiated rsize down to 524288 '
                                     '(fstab asks 1048576): the server caps it, no change can raise it')
    assert plan['changes'] == []


def test_a_size_not_in_fstab_yet_is_a_change():
    plan, checks, dummy = _plan(_request(present=['wsize=1048576']))
    assert checks['present:wsize=1048576']['message'].endswith('needs unmount and mount of /mnt/nfs')
    assert [change['kind'] for change in plan['changes']] == ['fstab']


def test_cycle_unmounts_and_mounts_with_the_fstab_options_when_nothing_holds_it():
    plan, checks, asked = _plan(_request(remount='cycle', present=['nconnect=4', 'noatime'], absent=['soft']))
    assert asked == ['/mnt/nfs']
    assert [change['kind'] for change in plan['changes']] == ['fstab', 'mount_cycle']
    cycle = plan['changes'][1]
    assert cycle == {
        'kind': 'mount_cycle', 'target': '/mnt/nfs', 'fstype': 'nfs4', 'source': 'filer:/export',
        # the fstab entry after the edit, less mount(8)'s own options: what the next boot mounts
        'options': ['rw', 'rsize=1048576', 'nconnect=4', 'noatime'],
        'before': ['rw', 'relatime'] + SUPER.split(',')[1:], 'after': ['rw', 'rsize=1048576', 'nconnect=4', 'noatime'],
        'present': ['nconnect=4', 'noatime'], 'absent': ['soft']}
    assert checks['present:nconnect=4']['message'].endswith(
        'needs unmount and mount of /mnt/nfs; remount: cycle unmounts and mounts it (nothing holds it open)')
    info = plan['mounts'][0]
    assert (info['cycle_options'], info['holders'], info['remount_options']) == (cycle['options'], [], None)


def test_cycle_is_refused_while_a_process_holds_the_mount():
    plan, checks, asked = _plan(_request(remount='cycle', present=['nconnect=4', 'noatime']), holders=BASH)
    assert checks['present:nconnect=4']['message'].endswith(
        'needs unmount and mount of /mnt/nfs; remount: cycle refused, pid 4242 (bash: cwd) holds it open')
    # nothing is unmounted: the fstab edit and the remount of the VFS options stay as without cycle
    assert [(change['kind'], change.get('options')) for change in plan['changes']] == [('fstab', None), ('mount', 'remount,noatime')]
    assert plan['mounts'][0]['holders'] == BASH and plan['mounts'][0]['cycle_options'] is None


def test_cycle_of_a_mount_without_fstab_entry_mounts_the_live_options_with_the_request():
    plan, dummy, dummy = _plan(_request(remount='cycle', present=['nconnect=4'], absent=['hard']), fstab='')
    cycle, = plan['changes']
    assert cycle['options'] == ['rw', 'relatime', 'vers=4.2', 'rsize=524288', 'wsize=524288', 'namlen=255', 'proto=tcp',
                                'timeo=600', 'retrans=2', 'sec=sys', 'clientaddr=192.0.2.10', 'local_lock=none',
                                'addr=192.0.2.1', 'nconnect=4']


def test_cycle_removes_an_nfs_option():
    plan, checks, dummy = _plan({'path': '/mnt/nfs3', 'present': [], 'absent': ['nolock'], 'remount': 'cycle'})
    assert checks['absent:nolock']['status'] == 'drift'
    fstab, cycle = plan['changes']
    assert (fstab['after'], cycle['options'], cycle['fstype']) == (['vers=3', '_netdev'], ['vers=3'], 'nfs')


@pytest.mark.parametrize('present, absent', [
    (['hard', 'vers=4', 'tcp', 'cto', 'lookupcache=all', 'relatime', 'rsize=524288'], ['soft', 'nocto', 'noac', 'nconnect']),
])
def test_what_the_kernel_leaves_out_is_its_default(present, absent):
    fstab = 'filer:/export /mnt/nfs nfs4 hard,vers=4,tcp,cto,lookupcache=all,rsize=524288 0 0\n'
    plan, checks, asked = _plan(_request(remount='cycle', present=present, absent=absent), fstab=fstab)
    assert dict((setting, check['status']) for setting, check in checks.items()) == dict(
        [('present:' + option, 'compliant') for option in present] + [('absent:' + option, 'compliant') for option in absent])
    assert (plan['changes'], asked) == ([], [])


def test_actimeo_is_the_four_attribute_cache_times():
    mountinfo = MOUNTINFO.replace('namlen=255,hard', 'namlen=255,acregmin=30,acregmax=30,acdirmax=30,hard', 1)
    plan = plan_mounts_from([_request(present=['actimeo=30'])], parse_mountinfo(mountinfo), parse_fstab(''))
    assert plan['checks'][0]['live'] is True


def test_no_remount_no_cycle():
    plan, dummy, dummy = _plan(_request(remount='cycle', present=['nconnect=4', 'noatime']), remount=False)
    assert [change['kind'] for change in plan['changes']] == ['fstab']


def test_check_mode_reads_holders_from_proc_and_changes_nothing(tmp_path):
    proc = tmp_path / 'proc'
    (proc / 'self').mkdir(parents=True)
    (proc / 'self' / 'mountinfo').write_text(MOUNTINFO)
    (proc / '4242' / 'fd').mkdir(parents=True)
    os.symlink('/mnt/nfs/work', str(proc / '4242' / 'cwd'))
    (proc / '4242' / 'maps').write_text('')
    (proc / '4242' / 'comm').write_text('bash\n')
    fstab = tmp_path / 'fstab'
    fstab.write_text(FSTAB)
    before = sorted((str(path), path.stat().st_mtime_ns) for path in tmp_path.rglob('*') if not path.is_symlink())
    plan = plan_mounts([_request(remount='cycle', present=['nconnect=4'])], fstab_path=str(fstab), proc_root=str(proc))
    assert plan['checks'][0]['message'].endswith('remount: cycle refused, pid 4242 (bash: cwd) holds it open')
    assert sorted((str(path), path.stat().st_mtime_ns) for path in tmp_path.rglob('*') if not path.is_symlink()) == before
    assert fstab.read_text() == FSTAB
