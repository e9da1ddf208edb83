# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The arguments every changing module shares (issue 18: D4/D5 relative and missing paths, D6 an empty
run id, D9 paths not normalised), checked before anything is read or written."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import unwritable
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
