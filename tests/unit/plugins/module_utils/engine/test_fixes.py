# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""engine/fixes: the fix of each finding, from the plans the real planners make."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.engine.fixes import attach_fixes, fix_for, leave_alone
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits import plan_cache
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import plan_mounts
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.plan.test_cache_limits_plan import _order, _proc
# tree_fixture is the fixture ``tree``: the sysfs, udev and proc tree of test_block_queue_stacking
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.plan.test_block_queue_stacking import (  # noqa: F401 pylint: disable=unused-import
    plan as plan_queues, tree_fixture)


def _by_id(plan):
    attach_fixes(plan)
    return dict((check['id'], check) for check in plan['checks'])


def test_a_sysctl_not_in_any_file_gets_its_line_and_needs_nothing(tmp_path):
    root = tmp_path / 'root'
    root.mkdir()
    managed = str(root / 'etc/sysctl.d/60-iotune.conf')
    plan = plan_cache({'vm.dirty_expire_centisecs': 1500, 'vm.dirty_ratio': 10}, sysctl_file=managed,
                      proc_root=_proc(tmp_path, dirty_expire_centisecs=1500), **_order(str(root)))
    checks = _by_id(plan)
    persist = checks['cache_limits:sysctl:vm.dirty_expire_centisecs']
    assert persist['status'] == 'not_persistent'
    assert persist['fix'] == {'changes': ['%s gets: vm.dirty_expire_centisecs = 1500' % managed], 'needs': 'nothing',
                              'text': 'takes effect at once'}
    drift = checks['cache_limits:sysctl:vm.dirty_ratio']
    assert drift['status'] == 'drift'
    assert drift['fix']['changes'] == ['%s gets: vm.dirty_ratio = 10' % managed, 'sysctl vm.dirty_ratio: 20 -> 10']
    assert drift['fix']['needs'] == 'nothing'


def test_a_compliant_check_has_no_fix(tmp_path):
    root = tmp_path / 'root'
    root.mkdir()
    plan = plan_cache({'vm.dirty_ratio': 20}, sysctl_file=str(root / 'etc/sysctl.d/60-iotune.conf'),
                      proc_root=_proc(tmp_path), **_order(str(root)))
    assert [('fix' in check, check['status']) for check in _by_id(plan).values()] == [(False, 'compliant')]


def _mount_tree(tmp_path, fstab_line, live_options):
    fstab = tmp_path / 'fstab'
    fstab.write_text('# static file system information\n' + fstab_line + '\n')
    proc = tmp_path / 'proc' / 'self'
    proc.mkdir(parents=True)
    (proc / 'mountinfo').write_text('36 25 8:16 / /data rw,%s shared:1 - ext4 /dev/sdb rw\n' % live_options)
    return str(fstab), str(tmp_path / 'proc')


def test_a_mount_option_gets_its_fstab_line_and_a_remount(tmp_path):
    fstab, proc = _mount_tree(tmp_path, '/dev/sdb /data ext4 defaults 0 2', 'relatime')
    plan = plan_mounts([{'path': '/data', 'present': ['noatime'], 'absent': []}], fstab_path=fstab, proc_root=proc,
                       remount=True)
    fix = _by_id(plan)['mount_options:/data:present:noatime']['fix']
    assert fix['changes'][0] == '%s line 2 becomes: /dev/sdb /data ext4 defaults,noatime 0 2' % fstab
    assert fix['changes'][1].startswith('mount -o remount,') and fix['changes'][1].endswith(' /data')
    assert 'noatime' in fix['changes'][1]
    assert (fix['needs'], fix['text']) == ('remount', 'a remount (harden_io makes it; the file system stays mounted)')


def test_without_remount_a_drifting_option_waits_for_the_next_mount(tmp_path):
    fstab, proc = _mount_tree(tmp_path, '/dev/sdb /data ext4 defaults 0 2', 'relatime')
    plan = plan_mounts([{'path': '/data', 'present': ['noatime'], 'absent': []}], fstab_path=fstab, proc_root=proc,
                       remount=False)
    fix = _by_id(plan)['mount_options:/data:present:noatime']['fix']
    assert fix['changes'] == ['%s line 2 becomes: /dev/sdb /data ext4 defaults,noatime 0 2' % fstab]
    assert fix['needs'] == 'reboot' and fix['text'].startswith('the next boot or mount')


def test_a_queue_setting_gets_its_sysfs_write_and_its_udev_rule(tree):
    root = tree     # sda is a plain disk there
    plan = plan_queues(root, [{'match': {'name': 'sda'}, 'read_ahead_kb': 4096}])
    fix = _by_id(plan)['block_queue:sda:read_ahead_kb']['fix']
    assert fix['changes'][0] == '%s: 128 -> 4096' % os.path.join(root, 'sys/block/sda/queue/read_ahead_kb')
    assert fix['changes'][1].startswith(os.path.join(root, 'etc/udev/rules.d/60-iotune.rules') + ' gets: ')
    assert 'read_ahead_kb' in fix['changes'][1] and fix['needs'] == 'nothing'


def test_no_planned_change_says_so():
    check = {'id': 'mount_options:/data:absent:commit', 'target': '/data', 'setting': 'absent:commit', 'status': 'drift'}
    assert fix_for(check, [{'kind': 'mount', 'target': '/srv', 'options': 'remount,noatime'}]) == {
        'changes': [], 'needs': None, 'text': 'harden_io plans no change for it here: its message says what stands in the way'}


def test_the_worst_need_wins_and_a_boot_file_needs_a_reboot():
    check = {'id': 'cache_limits:zfs_arc_max:zfs_arc_max', 'target': 'zfs_arc_max', 'setting': 'zfs_arc_max',
             'status': 'not_persistent'}
    change = {'kind': 'file', 'target': '/etc/system', 'before': '* system\n', 'after': '* system\nset zfs:zfs_arc_max = 1073741824\n',
              'setting': 'zfs_arc_max', 'applies': 'at the next boot'}
    assert fix_for(check, [change]) == {'changes': ['/etc/system gets: set zfs:zfs_arc_max = 1073741824'], 'needs': 'reboot',
                                        'text': 'a reboot: the value takes effect at the next boot'}
    mount = {'id': 'mount_options:/nfs:present:rsize=1048576', 'target': '/nfs', 'setting': 'present:rsize=1048576',
             'status': 'drift'}
    changes = [{'kind': 'mount_cycle', 'target': '/nfs', 'options': ['rw', 'rsize=1048576'], 'before': ['rw', 'rsize=65536'],
                'after': ['rw', 'rsize=1048576']},
               {'kind': 'mount', 'target': '/nfs', 'options': 'remount,sync', 'before': ['rw'], 'after': ['rw', 'sync']}]
    fix = fix_for(mount, changes)
    assert fix['changes'] == ['umount /nfs, then mount it with rw,rsize=1048576']
    assert fix['needs'] == 'maintenance window'


def test_a_remount_for_another_option_of_the_mount_point_is_not_this_checks_fix(tmp_path):
    fstab, proc = _mount_tree(tmp_path, '/dev/sdb /data ext4 defaults 0 2', 'noatime,nosuid')
    plan = plan_mounts([{'path': '/data', 'present': ['noatime'], 'absent': ['nosuid']}], fstab_path=fstab, proc_root=proc,
                       remount=True)
    checks = _by_id(plan)
    noatime, nosuid = checks['mount_options:/data:present:noatime'], checks['mount_options:/data:absent:nosuid']
    assert (noatime['status'], nosuid['status']) == ('not_persistent', 'drift')
    assert noatime['fix'] == {'changes': ['%s line 2 becomes: /dev/sdb /data ext4 defaults,noatime 0 2' % fstab],
                              'needs': 'nothing', 'text': 'takes effect at once'}
    assert len(nosuid['fix']['changes']) == 1 and nosuid['fix']['changes'][0].startswith('mount -o remount,')
    assert 'suid' in nosuid['fix']['changes'][0] and nosuid['fix']['needs'] == 'remount'


def test_leave_alone_drops_the_live_change_of_a_waived_sysctl_and_keeps_the_others(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc/sysctl.d').mkdir(parents=True)
    managed = root / 'etc/sysctl.d/60-iotune.conf'
    # both values are in the managed file already: only their live values drift
    managed.write_text('vm.dirty_ratio = 10\nvm.dirty_background_ratio = 5\n')
    plan = plan_cache({'vm.dirty_ratio': 10, 'vm.dirty_background_ratio': 5}, sysctl_file=str(managed),
                      proc_root=_proc(tmp_path), **_order(str(root)))
    assert sorted(c['target'] for c in plan['changes']) == ['vm.dirty_background_ratio', 'vm.dirty_ratio']
    kept, conflicts = leave_alone(plan, {'cache_limits:sysctl:vm.dirty_ratio'})
    assert [c['target'] for c in kept] == ['vm.dirty_background_ratio'] and conflicts == []


def test_leave_alone_names_a_file_change_shared_with_a_waived_setting(tmp_path):
    root = tmp_path / 'root'
    root.mkdir()
    managed = str(root / 'etc/sysctl.d/60-iotune.conf')
    plan = plan_cache({'vm.dirty_expire_centisecs': 1500, 'vm.dirty_writeback_centisecs': 100}, sysctl_file=managed,
                      proc_root=_proc(tmp_path, dirty_expire_centisecs=1500, dirty_writeback_centisecs=100), **_order(str(root)))
    kept, conflicts = leave_alone(plan, {'cache_limits:sysctl:vm.dirty_expire_centisecs'})
    assert kept == []
    assert conflicts == ['file of %s changes waived cache_limits:sysctl:vm.dirty_expire_centisecs and also '
                         'cache_limits:sysctl:vm.dirty_writeback_centisecs' % managed]
    # waiving both leaves the file alone
    assert leave_alone(plan, {'cache_limits:sysctl:vm.dirty_expire_centisecs', 'cache_limits:sysctl:vm.dirty_writeback_centisecs'}) == ([], [])


def test_leave_alone_keeps_a_device_s_other_setting_live_but_not_its_shared_rule(tree):
    plan = plan_queues(tree, [{'match': {'name': 'sda'}, 'read_ahead_kb': 4096, 'nr_requests': 32}])
    kinds = [(c['kind'], c.get('setting')) for c in plan['changes']]
    assert ('sysfs', 'read_ahead_kb') in kinds and ('sysfs', 'nr_requests') in kinds and kinds[-1][0] == 'file'
    kept, conflicts = leave_alone(plan, {'block_queue:sda:read_ahead_kb'})
    assert [(c['kind'], c.get('setting')) for c in kept] == [('sysfs', 'nr_requests')]
    assert len(conflicts) == 1 and 'changes waived block_queue:sda:read_ahead_kb and also block_queue:sda:nr_requests' in conflicts[0]
