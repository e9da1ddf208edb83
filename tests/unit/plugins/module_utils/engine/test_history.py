# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""engine/history: what is new and resolved since the previous report; engine/report: which report files stay."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.engine.history import changes_since, read_previous
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import kept_reports, prune_reports


def check(check_id, status, **extra):
    return dict({'id': check_id, 'concern': check_id.split(':')[0], 'status': status, 'severity': 'medium'}, **extra)


def write(path, report):
    path.write_text(json.dumps(report))
    return str(path)


PREVIOUS = {'run_id': 'r1', 'time': '2026-11-20T06:00:00Z', 'checks': [
    check('mount_options:/data:present:noatime', 'drift'),
    check('mount_options:/data:absent:sync', 'compliant'),
    check('block_queue:vdb:read_ahead_kb', 'not_persistent'),
    check('cache_limits:vm:dirty_ratio', 'error'),
    check('tunefstab:/dev/vx/dsk/dg/v:write_pref_io', 'drift'),
]}


def test_new_and_resolved_since_the_previous_report(tmp_path):
    previous = read_previous(write(tmp_path / 'audit-latest.json', PREVIOUS))
    now = [
        check('mount_options:/data:present:noatime', 'drift'),                       # still a finding: neither
        check('mount_options:/data:absent:sync', 'drift', waiver={'name': 'w'}),     # new, waived
        check('block_queue:vdb:read_ahead_kb', 'compliant'),                          # resolved
        check('cache_limits:vm:dirty_ratio', 'drift'),                                # error to drift: still a finding
        check('copy_tools:cp:bulk', 'not_persistent'),                                # a new check, a finding: new
    ]                                                                                 # tunefstab's check is gone
    history = changes_since(previous, now)
    assert history['previous_run_id'] == 'r1' and history['previous_time'] == '2026-11-20T06:00:00Z'
    assert history['new'] == [
        {'id': 'mount_options:/data:absent:sync', 'concern': 'mount_options', 'status': 'drift', 'severity': 'medium',
         'waived': True},
        {'id': 'copy_tools:cp:bulk', 'concern': 'copy_tools', 'status': 'not_persistent', 'severity': 'medium'}]
    assert history['resolved'] == [
        {'id': 'block_queue:vdb:read_ahead_kb', 'concern': 'block_queue', 'status_before': 'not_persistent',
         'status': 'compliant'},
        {'id': 'tunefstab:/dev/vx/dsk/dg/v:write_pref_io', 'concern': 'tunefstab', 'status_before': 'drift',
         'status': 'absent'}]


def test_a_first_report_names_every_finding_new():
    history = changes_since(None, [check('a:b:c', 'drift'), check('a:b:d', 'compliant'), check('a:b:e', 'not_applicable')])
    assert history == {'previous_run_id': None, 'previous_time': None, 'resolved': [],
                       'new': [{'id': 'a:b:c', 'concern': 'a', 'status': 'drift', 'severity': 'medium'}]}


def test_the_same_state_twice_has_nothing_new_or_resolved(tmp_path):
    previous = read_previous(write(tmp_path / 'audit-latest.json', PREVIOUS))
    history = changes_since(previous, PREVIOUS['checks'])
    assert (history['new'], history['resolved']) == ([], [])


@pytest.mark.parametrize('content', [
    b'not json', b'[]', b'{"checks": "x"}', b'{"checks": [{"id": 1, "status": "drift"}]}',
    b'{"checks": [{"id": "a:b:c"}]}', b'{"checks": ["a:b:c"]}', b'\xff\xfe',
    # issue 38, item 13: nested too deep for Python's decoder, or a count beyond any
    b'{"checks": [' + b'[' * 100000 + b']' * 100000 + b']}', b'{"checks": [{"id": "a", "status": 1' + b'0' * 400 + b'}]}',
])
def test_a_file_that_is_not_a_report_is_no_previous_report_and_is_named(tmp_path, content):
    path = tmp_path / 'audit-latest.json'
    path.write_bytes(content)
    previous = read_previous(str(path))
    assert list(previous) == ['unreadable'] and previous['unreadable'].startswith(str(path) + ': ')
    history = changes_since(previous, [{'id': 'a:b:c', 'status': 'drift'}])
    assert history['previous_unreadable'] == previous['unreadable']
    assert (history['previous_run_id'], [entry['id'] for entry in history['new']]) == (None, ['a:b:c'])


def test_only_the_fields_of_their_form_are_taken(tmp_path):
    found = read_previous(write(tmp_path / 'r.json', {'run_id': ['x'], 'time': 'yesterday', 'checks': [
        {'id': 'a:b:c', 'status': 'drift', 'message': {'anything': 1}}]}))
    assert found == {'run_id': None, 'time': None, 'statuses': {'a:b:c': 'drift'}, 'tools': {}}


GOOD_TOOL = {'path': '/usr/bin/fio', 'version': '3.33', 'identity': [2049, 131, 1009000, 1700000000000000000, 1700000000000000000]}


@pytest.mark.parametrize('tools, known', [
    ({'fio': GOOD_TOOL}, {'fio': GOOD_TOOL}),
    ({'fio': GOOD_TOOL, 'rm': GOOD_TOOL}, {'fio': GOOD_TOOL}),                      # only the tools asked of
    ({'fio': dict(GOOD_TOOL, path='fio')}, {}),                                       # not absolute
    ({'fio': dict(GOOD_TOOL, version=None)}, {}),                                     # asked again
    ({'fio': dict(GOOD_TOOL, version='x' * 65)}, {}),
    ({'fio': dict(GOOD_TOOL, identity=[1, 2, 3, 4])}, {}),
    ({'fio': dict(GOOD_TOOL, identity=[1, 2, 3, 4, True])}, {}),
    ({'fio': dict(GOOD_TOOL, identity=[1, 2, 3, 4, -1])}, {}),
    ({'fio': dict(GOOD_TOOL, identity=[1, 2, 3, 4, 1 << 64])}, {}),
    ({'fio': dict(GOOD_TOOL, identity=None)}, {}),
    ({'fio': 'fio-3.33'}, {}),
    ('tools', {}),
])
def test_tool_versions_are_taken_only_in_their_form(tmp_path, tools, known):
    report = {'run_id': 'r1', 'checks': [], 'host_facts': {'tools': tools}}
    assert read_previous(write(tmp_path / 'r.json', report))['tools'] == known


def test_a_link_at_the_latest_report_is_not_followed(tmp_path):
    target = write(tmp_path / 'elsewhere.json', PREVIOUS)
    os.symlink(target, str(tmp_path / 'audit-latest.json'))
    assert 'cannot be read' in read_previous(str(tmp_path / 'audit-latest.json'))['unreadable']
    assert read_previous(str(tmp_path / 'missing.json')) is None


def _reports(directory, names):
    for age, name in enumerate(names):
        path = directory / name
        path.write_text('{}')
        os.utime(str(path), (1000000 + age, 1000000 + age))


def test_pruning_keeps_the_newest_of_the_mode_and_the_latest(tmp_path):
    _reports(tmp_path, ['audit-r%d.json' % index for index in range(5)] + ['audit-latest.json', 'harden-r0.json',
                                                                           'notes.txt', 'audit-r9.txt'])
    (tmp_path / 'audit-dir.json').mkdir()
    assert kept_reports(str(tmp_path), 'audit') == ['audit-r%d.json' % index for index in range(5)]
    removed = prune_reports(str(tmp_path), 'audit', 2, check=True)
    assert removed == [str(tmp_path / ('audit-r%d.json' % index)) for index in range(3)]
    assert len(kept_reports(str(tmp_path), 'audit')) == 5          # check mode removes nothing
    assert prune_reports(str(tmp_path), 'audit', 2) == removed
    assert sorted(os.listdir(str(tmp_path))) == ['audit-dir.json', 'audit-latest.json', 'audit-r3.json', 'audit-r4.json',
                                                 'audit-r9.txt', 'harden-r0.json', 'notes.txt']


def test_pruning_never_removes_this_runs_file_and_keep_0_removes_nothing(tmp_path):
    _reports(tmp_path, ['audit-this.json', 'audit-r1.json', 'audit-r2.json'])   # this run's file is the oldest
    assert prune_reports(str(tmp_path), 'audit', 0) == []
    removed = prune_reports(str(tmp_path), 'audit', 1, protect=['audit-this.json', 'audit-latest.json'])
    assert removed == [str(tmp_path / 'audit-r1.json'), str(tmp_path / 'audit-r2.json')]
    assert os.listdir(str(tmp_path)) == ['audit-this.json']


def test_pruning_removes_a_planted_link_not_its_target(tmp_path):
    target = tmp_path / 'precious'
    target.write_text('keep me')
    os.symlink(str(target), str(tmp_path / 'audit-old.json'))
    os.utime(str(tmp_path / 'audit-old.json'), (1, 1), follow_symlinks=False)
    _reports(tmp_path, ['audit-new.json'])
    assert prune_reports(str(tmp_path), 'audit', 1) == [str(tmp_path / 'audit-old.json')]
    assert target.read_text() == 'keep me'


def test_pruning_a_missing_directory_removes_nothing(tmp_path):
    assert prune_reports(str(tmp_path / 'none'), 'audit', 3) == []
