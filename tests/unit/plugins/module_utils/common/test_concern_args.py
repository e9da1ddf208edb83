# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The arguments every changing module shares (issue 18: D4/D5 relative and missing paths, D6 an empty
run id, D9 paths not normalised), checked before anything is read or written."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import shutil
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.files import mount_point_of
from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import ST_RDONLY, unwritable
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args, normalize_absolute_path
from ansible_collections.iotune.storage.plugins.modules import io_policy, mount_options
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main
from ansible_collections.iotune.storage.tests.unit.conftest import journal_files


@pytest.mark.parametrize('path, normal', [
    ('/etc/../etc/fstab', '/etc/fstab'), ('/a/./b//c/', '/a/b/c'), ('//etc/fstab', '/etc/fstab'), ('/', '/'),
])
def test_paths_are_normalised(path, normal):
    assert normalize_absolute_path(path) == normal
    params = {'fstab': path, 'journal_dir': '/var/lib/iotune/../iotune/journal'}
    assert check_args(params, paths=('fstab',)) == []
    assert params == {'fstab': normal, 'journal_dir': '/var/lib/iotune/journal'}


@pytest.mark.parametrize('params, message', [
    ({'fstab': 'etc/fstab'}, "fstab: must be an absolute path, got 'etc/fstab'"),
    ({'fstab': ''}, "fstab: must be an absolute path, got ''"),
    ({'journal_dir': 'journal'}, "journal_dir: must be an absolute path, got 'journal'"),
    ({'run_id': ''}, "run_id: run_id must be 1-128 characters"),
    ({'run_id': '../x'}, "run_id: run_id must be 1-128 characters"),
])
def test_bad_arguments_name_the_field(params, message):
    errors = check_args(params, paths=('fstab',), written=('fstab',))
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_a_file_to_write_must_not_be_a_directory(tmp_path):
    assert check_args({'fstab': str(tmp_path)}, paths=('fstab',), written=('fstab',)) == [
        'fstab: %s is a directory, not a file' % tmp_path]


def test_a_file_change_needs_its_directory_or_a_change_that_creates_it(tmp_path):
    missing = str(tmp_path / 'no' / 'such' / '60-iotune.rules')
    changes = [{'kind': 'sysfs', 'target': 'vdb'}, {'kind': 'file', 'target': missing, 'after': 'x'}]
    assert unwritable(changes) == ['cannot write %s: directory %s does not exist' % (missing, tmp_path / 'no' / 'such')]
    created = [{'kind': 'dir', 'target': str(tmp_path / 'no' / 'such')}] + changes
    assert unwritable(created) == []
    # removing a file needs no directory; a unit names its path apart from its target
    assert unwritable([{'kind': 'file', 'target': missing, 'after': None}]) == []
    assert unwritable([{'kind': 'file', 'target': 'x.slice', 'path': missing, 'after': 'y'}]) != []


class _Statvfs(object):
    """os.statvfs's answer for a file system mounted with ``flags`` (ST_RDONLY, ST_NOEXEC)."""

    def __init__(self, flags):
        self.f_flag = flags

    def __call__(self, path):
        return self


def test_a_file_on_a_read_only_file_system_is_named_with_the_reason(tmp_path):
    # issue 38, item 6: the directory exists, but its file system is read-only (root's os.access says yes)
    path = str(tmp_path / '60-iotune.conf')
    changes = [{'kind': 'sysctl', 'target': 'vm.dirty_ratio'}, {'kind': 'file', 'target': path, 'after': 'x'},
               {'kind': 'fstab', 'target': '/data', 'path': path, 'after_line': 'y', 'after': ['noatime']}]
    assert unwritable(changes, statvfs=_Statvfs(ST_RDONLY)) == [
        'cannot write %s: the file system of %s is mounted read-only (at %s)' % (path, tmp_path, mount_point_of(str(tmp_path)))]
    assert unwritable(changes, statvfs=_Statvfs(0)) == []
    # a directory the plan creates is made in its nearest existing parent, which must be writable
    tools = [{'kind': 'dir', 'target': str(tmp_path / 'opt' / 'bin')},
             {'kind': 'file', 'target': str(tmp_path / 'opt' / 'bin' / 'tool'), 'after': 'x'}]
    assert unwritable(tools, statvfs=_Statvfs(ST_RDONLY)) == [
        'cannot create %s: the file system of %s is mounted read-only (at %s)' % (
            tmp_path / 'opt' / 'bin', tmp_path, mount_point_of(str(tmp_path)))]


def test_a_file_whose_directory_is_a_file_or_not_writable_is_named(tmp_path, monkeypatch):
    (tmp_path / 'etc').write_text('not a directory')
    path = str(tmp_path / 'etc' / 'fstab')
    assert unwritable([{'kind': 'fstab', 'target': '/data', 'path': path, 'after': ['noatime']}]) == [
        'cannot write %s: %s is not a directory' % (path, tmp_path / 'etc')]
    monkeypatch.setattr(os, 'access', lambda path, mode: False)
    path = str(tmp_path / 'rules')
    assert unwritable([{'kind': 'file', 'target': path, 'after': 'x'}]) == [
        'cannot write %s: directory %s is not writable by uid %d' % (path, tmp_path, os.geteuid())]


@pytest.mark.skipif(not shutil.which('chattr') or os.geteuid() != 0, reason='chattr as root')
@pytest.mark.parametrize('flag, what', [('+i', 'immutable (chattr +i)'), ('+a', 'append-only (chattr +a)')])
def test_an_immutable_file_or_directory_is_named(tmp_path, flag, what):
    directory = tmp_path / 'etc'
    directory.mkdir()
    (directory / 'sysctl.conf').write_text('x\n')
    change = {'kind': 'file', 'target': str(directory / 'sysctl.conf'), 'after': 'y'}
    try:
        if subprocess.call(['chattr', flag, str(directory / 'sysctl.conf')], stderr=subprocess.DEVNULL):
            pytest.skip('no chattr flags on this file system')
        assert unwritable([change]) == ['cannot write %s: file %s is %s' % (change['target'], change['target'], what)]
        subprocess.check_call(['chattr', flag.replace('+', '-'), change['target']])
        subprocess.check_call(['chattr', flag, str(directory)])
        assert unwritable([change]) == ['cannot write %s: directory %s is %s' % (change['target'], directory, what)]
    finally:
        subprocess.call(['chattr', '-i', '-a', str(directory), change['target']])


def _policy_args(tmp_path, **extra):
    args = {'policy': {'iotune_mounts': [{'path': '/data', 'present': ['noatime'], 'absent': []}],
                       'iotune_block_devices': [{'match': {'name': 'vdz'}, 'read_ahead_kb': 4096}],
                       'iotune_cache': {'dirty_ratio': 20}},
            'mode': 'enforce', 'journal_dir': str(tmp_path / 'journal'), 'sys_root': str(tmp_path / 'sys'),
            'fstab': str(tmp_path / 'fstab')}
    args.update(extra)
    return args


@pytest.mark.parametrize('extra, message', [
    ({'rules_file': 'rules.d/60-iotune.rules'}, "rules_file: must be an absolute path, got 'rules.d/60-iotune.rules'"),
    ({'run_id': ''}, 'run_id: run_id must be'),
    ({'journal_dir': 'var/journal'}, "journal_dir: must be an absolute path, got 'var/journal'"),
])
def test_io_policy_refuses_before_reading_or_writing(monkeypatch, tmp_path, extra, message):
    (tmp_path / 'fstab').write_text('/dev/vdb /data ext4 defaults 0 2\n')
    kind, result = run_main(monkeypatch, io_policy, _policy_args(tmp_path, **extra))
    assert kind == 'fail' and message in result['msg'], result
    assert result['msg'].startswith('invalid arguments, nothing read or changed: ')
    assert (tmp_path / 'fstab').read_text() == '/dev/vdb /data ext4 defaults 0 2\n'
    assert journal_files(tmp_path / 'journal') == []


def test_io_policy_changes_nothing_when_a_file_cannot_be_written(monkeypatch, tmp_path):
    # the sysctl file's directory is missing: not even the fstab (written first) is changed
    (tmp_path / 'fstab').write_text('/dev/vdb /data ext4 defaults 0 2\n')
    proc = tmp_path / 'proc'
    (proc / 'sys' / 'vm').mkdir(parents=True)
    (proc / 'sys' / 'vm' / 'dirty_ratio').write_text('20\n')
    (proc / 'self').mkdir()
    (proc / 'self' / 'mountinfo').write_text('22 1 8:16 / /data rw,relatime shared:1 - ext4 /dev/vdb rw\n')
    args = _policy_args(tmp_path, sysctl_file=str(tmp_path / 'no-such-dir' / '60-iotune.conf'),
                        proc_root=str(proc), remount=False, concerns=['mount_options', 'cache_limits'])
    kind, result = run_main(monkeypatch, io_policy, args)
    assert kind == 'fail', result
    assert result['msg'] == 'nothing changed: cannot write %s/no-such-dir/60-iotune.conf: directory %s/no-such-dir ' \
        'does not exist' % (tmp_path, tmp_path), result['msg']
    assert (tmp_path / 'fstab').read_text() == '/dev/vdb /data ext4 defaults 0 2\n'
    assert journal_files(tmp_path / 'journal') == []


def test_mount_options_refuses_a_directory_as_fstab(monkeypatch, tmp_path):
    kind, result = run_main(monkeypatch, mount_options, {'path': '/data', 'present': ['noatime'],
                                                         'fstab': str(tmp_path), 'journal_dir': str(tmp_path / 'j')})
    assert kind == 'fail' and 'fstab: %s is a directory, not a file' % tmp_path in result['msg'], result
    assert not (tmp_path / 'j').exists()


def test_a_kernel_attribute_that_cannot_be_written_is_found_before_any_change(tmp_path):
    # issue 55, item 1: in a plain container /sys and /proc/sys are read-only; harden --check said "changed" and the
    # real run failed half-way at the first sysctl
    from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import kernel_problems
    attribute = tmp_path / 'read_ahead_kb'
    attribute.write_text(u'128\n')
    sysfs = [{'kind': 'sysfs', 'target': 'loop3', 'path': str(attribute), 'before': 128, 'after': 4096}]
    assert kernel_problems(sysfs, capabilities=0) == []
    problem = kernel_problems(sysfs, statvfs=_Statvfs(ST_RDONLY))
    assert len(problem) == 1 and problem[0].startswith(
        'cannot write 4096 to %s: its file system is mounted read-only (at ' % attribute), problem
    # a real attribute the kernel offers read-only: root's open for writing would fail with EACCES
    names = [name for name in sorted(os.listdir('/sys/block')) if os.path.exists('/sys/block/%s/queue/hw_sector_size' % name)]
    if names:
        fixed = '/sys/block/%s/queue/hw_sector_size' % names[0]
        assert kernel_problems([{'kind': 'sysfs', 'target': names[0], 'path': fixed, 'after': 4096}]) == [
            'cannot write 4096 to %s: the kernel offers it read-only (mode 0444)' % fixed]
    sysctl = [{'kind': 'sysctl', 'target': 'vm.dirty_bytes', 'path': str(tmp_path / 'missing'), 'after': 1}]
    assert kernel_problems(sysctl) == [], 'a missing attribute is the planner\'s to judge'
    mount = [{'kind': 'mount', 'target': '/data', 'options': ['noatime']}, {'kind': 'file', 'target': '/etc/fstab'}]
    assert kernel_problems(mount, capabilities=0) == [
        'cannot remount /data: this process lacks CAP_SYS_ADMIN, which mount(2) needs (a container without it cannot mount)']
    assert kernel_problems(mount, capabilities=1 << 21) == []


def test_the_effective_capabilities_are_read_from_proc(tmp_path):
    from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import effective_capabilities
    status = tmp_path / 'status'
    status.write_text(u'Name:\tpython3\nCapInh:\t0000000000000000\nCapEff:\t00000000a80425fb\n')
    assert effective_capabilities(str(status)) == 0xa80425fb
    assert effective_capabilities(str(tmp_path / 'none')) is None
    assert isinstance(effective_capabilities(), int)
