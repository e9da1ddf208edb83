# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The arguments every changing module shares (issue 18: D4/D5 relative and missing paths, D6 an empty
run id, D9 paths not normalised), checked before anything is read or written."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils._concern import check_args, normalize_path
from ansible_collections.iotune.storage.plugins.modules import io_policy, mount_options
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main


@pytest.mark.parametrize('path, normal', [
    ('/etc/../etc/fstab', '/etc/fstab'), ('/a/./b//c/', '/a/b/c'), ('//etc/fstab', '/etc/fstab'), ('/', '/'),
])
def test_paths_are_normalised(path, normal):
    assert normalize_path(path) == normal
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


def test_a_file_to_write_needs_its_directory_when_enforcing(tmp_path):
    missing = str(tmp_path / 'no' / 'such' / '60-iotune.rules')
    assert check_args({'rules_file': missing}, paths=('rules_file',), written=('rules_file',)) == [
        'rules_file: the directory of %s does not exist' % missing]
    # check mode writes nothing: a plan may still be shown
    assert check_args({'rules_file': missing}, paths=('rules_file',), written=('rules_file',), enforcing=False) == []
    assert check_args({'fstab': str(tmp_path)}, paths=('fstab',), written=('fstab',), enforcing=False) == [
        'fstab: %s is a directory, not a file' % tmp_path]


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
    ({'sysctl_file': '/nonexistent-dir/60-iotune.conf'}, 'sysctl_file: the directory of /nonexistent-dir/60-iotune.conf'),
    ({'run_id': ''}, 'run_id: run_id must be'),
    ({'journal_dir': 'var/journal'}, "journal_dir: must be an absolute path, got 'var/journal'"),
])
def test_io_policy_refuses_before_reading_or_writing(monkeypatch, tmp_path, extra, message):
    (tmp_path / 'fstab').write_text('/dev/vdb /data ext4 defaults 0 2\n')
    kind, result = run_main(monkeypatch, io_policy, _policy_args(tmp_path, **extra))
    assert kind == 'fail' and message in result['msg'], result
    assert result['msg'].startswith('invalid arguments, nothing read or changed: ')
    assert (tmp_path / 'fstab').read_text() == '/dev/vdb /data ext4 defaults 0 2\n'
    assert not (tmp_path / 'journal').exists()


def test_io_policy_checks_only_the_files_its_policy_writes(monkeypatch, tmp_path):
    # no block devices in the policy: a rules_file in a missing directory is not its business
    args = _policy_args(tmp_path, rules_file='/nonexistent-dir/60-iotune.rules', concerns=['mount_options'],
                        _ansible_check_mode=True)
    (tmp_path / 'fstab').write_text('/dev/vdb /data ext4 defaults 0 2\n')
    kind, result = run_main(monkeypatch, io_policy, args)
    assert kind == 'exit', result


def test_mount_options_refuses_a_directory_as_fstab(monkeypatch, tmp_path):
    kind, result = run_main(monkeypatch, mount_options, {'path': '/data', 'present': ['noatime'],
                                                         'fstab': str(tmp_path), 'journal_dir': str(tmp_path / 'j')})
    assert kind == 'fail' and 'fstab: %s is a directory, not a file' % tmp_path in result['msg'], result
    assert not (tmp_path / 'j').exists()
