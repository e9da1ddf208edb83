# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_report: the host's copy of a run report, in files of tmp_path."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re
import os
import stat

import pytest

from ansible_collections.iotune.storage.plugins.modules import io_report
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

REPORT = {'host': 'vm1', 'run_id': 'r1', 'mode': 'audit', 'summary': {'drift': 1}, 'checks': [{'id': 'x'}]}
NAMES = ['audit-r1.json', 'audit-latest.json']


def _mode(path):
    return stat.S_IMODE(os.stat(str(path)).st_mode)


@pytest.fixture(name='write')
def write_fixture(monkeypatch, tmp_path):
    def write(report=None, names=None, **args):
        return run_main(monkeypatch, io_report, dict({'report': REPORT if report is None else report,
                                                      'names': NAMES if names is None else names,
                                                      'dir': str(tmp_path / 'lib' / 'reports')}, **args))
    return write


def test_writes_both_files_and_creates_the_directory(write, tmp_path):
    directory = tmp_path / 'lib' / 'reports'
    kind, result = write()
    assert kind == 'exit', result
    assert result['changed'] is True
    assert result['paths'] == result['written'] == [str(directory / name) for name in NAMES]
    for name in NAMES:
        assert json.loads((directory / name).read_text()) == REPORT
        assert _mode(directory / name) == 0o640
    assert _mode(directory) == 0o750
    assert sorted(os.listdir(str(directory))) == sorted(NAMES), 'a temporary file was left behind'


def test_the_same_report_again_writes_nothing(write, tmp_path):
    write()
    latest = tmp_path / 'lib' / 'reports' / 'audit-latest.json'
    before = os.stat(str(latest)).st_ino
    kind, result = write()
    assert kind == 'exit' and result['changed'] is False and result['written'] == [], result
    assert os.stat(str(latest)).st_ino == before


def test_a_new_report_replaces_latest_and_keeps_its_mode(write, tmp_path):
    write()
    latest = tmp_path / 'lib' / 'reports' / 'audit-latest.json'
    os.chmod(str(latest), 0o600)
    kind, result = write(report=dict(REPORT, run_id='r2'), names=['audit-r2.json', 'audit-latest.json'])
    assert kind == 'exit' and result['changed'] is True, result
    assert json.loads(latest.read_text())['run_id'] == 'r2'
    assert _mode(latest) == 0o600
    assert json.loads((tmp_path / 'lib' / 'reports' / 'audit-r1.json').read_text())['run_id'] == 'r1'


def test_check_mode_writes_nothing(write, tmp_path):
    kind, result = write(_ansible_check_mode=True)
    assert kind == 'exit' and result['changed'] is True and len(result['written']) == 2, result
    assert not (tmp_path / 'lib').exists()


@pytest.mark.parametrize('args, message', [
    ({'names': ['ok.json', '../escape.json']}, r"^names\[1\]: '../escape.json' is not a plain file name"),
    ({'names': []}, '^names: at least one file name'),
    ({'mode': 'rw-r-----'}, "^mode: mode must be octal such as 0755 or 0644, got 'rw-r-----'"),
    ({'dir_mode': '9'}, "^dir_mode: mode must be octal"),
    ({'keep': -3}, "^keep: must be 0 \\(remove no report\\) or a number of reports to keep, got -3"),
])
def test_bad_input_fails_and_writes_nothing(write, tmp_path, args, message):
    kind, result = write(**args)
    assert kind == 'fail'
    assert re.match(message, result['msg']), result['msg']
    assert not (tmp_path / 'lib').exists()


def test_a_directory_that_cannot_be_made_fails_naming_it(write, tmp_path):
    (tmp_path / 'lib').write_text('a file where the directory should be\n')
    kind, result = write()
    assert kind == 'fail'
    assert result['msg'].startswith('cannot write the report %s' % (tmp_path / 'lib')), result['msg']


def test_keep_removes_the_oldest_reports_of_the_mode(write, tmp_path):
    directory = tmp_path / 'lib' / 'reports'
    for index in range(1, 4):
        kind, result = write(report=dict(REPORT, run_id='r%d' % index), names=['audit-r%d.json' % index, 'audit-latest.json'])
        assert kind == 'exit' and result['removed'] == [], result
        os.utime(str(directory / ('audit-r%d.json' % index)), (1000 + index, 1000 + index))
    (directory / 'harden-r0.json').write_text('{}')
    kind, result = write(report=dict(REPORT, run_id='r4'), names=['audit-r4.json', 'audit-latest.json'], keep=2)
    assert kind == 'exit' and result['changed'] is True, result
    assert result['removed'] == [str(directory / 'audit-r1.json'), str(directory / 'audit-r2.json')]
    assert sorted(os.listdir(str(directory))) == ['audit-latest.json', 'audit-r3.json', 'audit-r4.json', 'harden-r0.json']
