# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""copy_tools: plan, the four-run pattern, state absent, and io_rollback putting every file
and the directory it created back as they were."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re
import stat

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.plan.copy_tools import plan_copy_tools
from ansible_collections.iotune.storage.plugins.modules import copy_tools, io_rollback
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

TOOL = '#!/usr/bin/python3\nprint("copy")\n'
CONF = 'buffer_size=8M\nslice=iotune-bulk.slice\n'


def tree(tmp_path):
    """bin/ exists (with an old iotune-bulk), etc/iotune/ does not."""
    (tmp_path / 'bin').mkdir()
    (tmp_path / 'etc').mkdir()
    old = tmp_path / 'bin' / 'iotune-bulk'
    old.write_text('old version\n')
    old.chmod(0o700)
    return {
        'files': [
            {'path': str(tmp_path / 'bin' / 'iotune-copy'), 'content': TOOL, 'mode': '0755'},
            {'path': str(tmp_path / 'bin' / 'iotune-bulk'), 'content': TOOL, 'mode': '0755'},
            {'path': str(tmp_path / 'etc' / 'iotune' / 'copy.conf'), 'content': CONF},
        ],
        'journal_dir': str(tmp_path / 'journal'),
    }


def snapshot(root):
    """Mode and content of everything under root but the journal and the host lock beside it."""
    found = {}
    for directory, dirs, files in os.walk(str(root)):
        dirs[:] = [name for name in dirs if name != 'journal']
        files = [name for name in files if not (directory == str(root) and name == 'lock')]
        for name in dirs + files:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            content = open(path, 'rb').read() if stat.S_ISREG(info.st_mode) else None
            found[os.path.relpath(path, str(root))] = (stat.S_IMODE(info.st_mode), content)
    return found


def test_plan_orders_directories_first_and_names_each_difference(tmp_path):
    args = tree(tmp_path)
    files = [dict(item, mode=0o755) for item in args['files']]
    plan = plan_copy_tools(files)
    assert [c['kind'] for c in plan['changes']] == ['dir', 'file', 'file', 'file']
    assert plan['changes'][0]['target'] == str(tmp_path / 'etc' / 'iotune')
    messages = [c['message'] for c in plan['checks']]
    assert messages[0].endswith('iotune-copy is not installed')
    assert 'iotune-bulk differs from the version this collection installs' in messages[1]
    assert [c['status'] for c in plan['checks']] == ['drift', 'drift', 'drift']
    assert plan['checks'][0]['id'] == 'copy_tools:%s:installed' % args['files'][0]['path']
    with pytest.raises(ValueError, match='state must be one of present, absent'):
        plan_copy_tools(files, 'removed')


def test_plan_creates_every_missing_parent_top_down(tmp_path):
    base = str(tmp_path)
    files = [
        {'path': base + '/opt/iotune/bin/iotune-copy', 'content': TOOL, 'mode': 0o755},
        {'path': base + '/opt/iotune/bin/iotune-bulk', 'content': TOOL, 'mode': 0o755},
        {'path': base + '/opt/iotune/etc/copy.conf', 'content': CONF, 'mode': 0o644},
    ]
    plan = plan_copy_tools(files)
    assert [c['target'] for c in plan['changes'] if c['kind'] == 'dir'] == [
        base + '/opt', base + '/opt/iotune', base + '/opt/iotune/bin', base + '/opt/iotune/etc']


def test_missing_parents_are_created_and_rolled_back(monkeypatch, tmp_path):
    files = [{'path': str(tmp_path / 'a' / 'b' / 'iotune-copy'), 'content': TOOL, 'mode': '0755'}]
    args = {'files': files, 'journal_dir': str(tmp_path / 'journal')}
    kind, result = run_main(monkeypatch, copy_tools, dict(args, run_id='deep'))
    assert kind == 'exit' and result['changed'], result
    assert (tmp_path / 'a' / 'b' / 'iotune-copy').read_text() == TOOL
    kind, result = run_main(monkeypatch, io_rollback, {'run_id': 'deep', 'journal_dir': args['journal_dir'],
                                                       'managed_files': [item['path'] for item in args['files']]})
    assert kind == 'exit' and [r['kind'] for r in result['records']] == ['file', 'dir', 'dir'], result
    assert not (tmp_path / 'a').exists()


def test_four_runs_then_rollback_restores_everything(monkeypatch, tmp_path):
    args = tree(tmp_path)
    start = snapshot(tmp_path)
    results = []
    for check in (True, False, False, True):
        kind, result = run_main(monkeypatch, copy_tools, dict(args, run_id='r1', _ansible_check_mode=check))
        assert kind == 'exit', result
        results.append(result)
        if len(results) == 1:
            assert snapshot(tmp_path) == start, 'check mode changed something'
    assert [r['changed'] for r in results] == [True, True, False, False]
    assert [c['status'] for c in results[3]['checks']] == ['compliant'] * 3
    installed = snapshot(tmp_path)
    assert installed['bin/iotune-copy'] == (0o755, TOOL.encode())
    assert installed['bin/iotune-bulk'] == (0o700, TOOL.encode()), 'an existing file keeps its mode'
    assert installed['etc/iotune/copy.conf'] == (0o644, CONF.encode())
    assert installed['etc/iotune'][0] == 0o755

    kind, result = run_main(monkeypatch, io_rollback, {'run_id': 'r1', 'journal_dir': args['journal_dir'],
                                                       'managed_files': [item['path'] for item in args['files']]})
    assert kind == 'exit' and result['changed'], result
    assert [r['kind'] for r in result['records']] == ['file', 'file', 'file', 'dir']
    assert snapshot(tmp_path) == start


def test_state_absent_removes_and_rollback_reinstalls(monkeypatch, tmp_path):
    args = tree(tmp_path)
    kind, result = run_main(monkeypatch, copy_tools, dict(args, run_id='install'))
    assert kind == 'exit' and result['changed']
    installed = snapshot(tmp_path)
    kind, result = run_main(monkeypatch, copy_tools, dict(args, run_id='remove', state='absent', _ansible_check_mode=True))
    assert kind == 'exit' and result['changed'] and snapshot(tmp_path) == installed
    assert [c['message'].split(' is ')[1] for c in result['checks']] == ['installed; state absent removes it'] * 3
    kind, result = run_main(monkeypatch, copy_tools, dict(args, run_id='remove', state='absent'))
    assert kind == 'exit' and result['changed']
    assert [c['status'] for c in result['checks']] == ['compliant'] * 3
    assert not os.path.exists(args['files'][0]['path']) and not os.path.exists(args['files'][2]['path'])
    kind, result = run_main(monkeypatch, io_rollback, {'run_id': 'remove', 'journal_dir': args['journal_dir'],
                                                       'managed_files': [item['path'] for item in args['files']]})
    assert kind == 'exit' and result['changed']
    assert snapshot(tmp_path) == installed


def test_rollback_keeps_a_created_directory_that_is_no_longer_empty(monkeypatch, tmp_path):
    args = tree(tmp_path)
    run_main(monkeypatch, copy_tools, dict(args, run_id='r2'))
    (tmp_path / 'etc' / 'iotune' / 'local.conf').write_text('mine\n')
    kind, result = run_main(monkeypatch, io_rollback, {'run_id': 'r2', 'journal_dir': args['journal_dir'],
                                                       'managed_files': [item['path'] for item in args['files']]})
    assert kind == 'fail' and 'now holds local.conf: left in place' in result['msg']
    assert (tmp_path / 'etc' / 'iotune' / 'local.conf').read_text() == 'mine\n'
    assert not os.path.exists(args['files'][0]['path']), 'the other records were still restored'


@pytest.mark.parametrize('item, message', [
    ({'path': 'bin/tool', 'content': 'x'}, r"files\[0\].path: must be absolute"),
    ({'path': '/bin/tool', 'content': 'x', 'mode': 'rwx'}, r"files\[0\]: mode must be octal such as 0755 or 0644, got 'rwx'"),
    ({'path': '/bin/tool', 'content': 'x', 'mode': '99999'}, 'mode must be octal'),
])
def test_bad_input_changes_nothing(monkeypatch, tmp_path, item, message):
    kind, result = run_main(monkeypatch, copy_tools, {'files': [item], 'journal_dir': str(tmp_path / 'j')})
    assert kind == 'fail' and re.search(message, result['msg']), result['msg']
    assert not os.path.exists(str(tmp_path / 'j'))
