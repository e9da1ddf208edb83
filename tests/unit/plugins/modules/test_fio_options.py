# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fio module's raw ``options`` allowlist, end to end through the module harness (issue 18, S1).

fio's ``mem=mmap:/path`` and ``iomem=mmapshared:/path`` create and truncate that file. The module
must refuse them (and every option not on the allowlist) before any fio process runs: a stand-in
fio that records each call shows that nothing ran, and the named file keeps its content.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re
import shutil

import pytest

from ansible_collections.iotune.storage.plugins.modules import fio as fio_module
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

CONTENT = b'precious data, not a fio buffer\n'


@pytest.fixture
def setup(tmp_path):
    """A data directory, a victim file outside it and a stand-in fio that logs its calls."""
    data = tmp_path / 'data'
    data.mkdir()
    victim = tmp_path / 'victim'
    victim.write_bytes(CONTENT)
    log = tmp_path / 'fio-calls'
    fake = tmp_path / 'fio'
    fake.write_text('#!/bin/sh\necho "$@" >> {0}\necho "Available IO engines:"\necho "\tpsync"\n'.format(log))
    fake.chmod(0o755)
    return {'data': data, 'victim': victim, 'log': log, 'fio': str(fake)}


def run(monkeypatch, setup, options, **args):
    params = dict({'directory': str(setup['data']), 'fio_path': setup['fio'], 'size': '4m', 'runtime': 0, 'repeat': 1,
                   'jobs': [{'preset': 'seq-read', 'name': 'probe', 'options': options}]}, **args)
    return run_main(monkeypatch, fio_module, params)


def assert_refused_untouched(kind, result, setup):
    assert kind == 'fail', result
    assert not setup['log'].exists(), 'no fio process may run: ' + setup['log'].read_text()
    assert setup['victim'].read_bytes() == CONTENT and os.stat(str(setup['victim'])).st_size == len(CONTENT)
    assert os.listdir(str(setup['data'])) == [], 'no scratch file is created'


@pytest.mark.parametrize('key, form', [
    ('mem', 'mmap:{0}'),
    ('iomem', 'mmapshared:{0}'),
    ('mem', 'mmaphuge:{0}'),
    ('iomem', 'mmap:{0}'),
])
@pytest.mark.parametrize('check_mode', [False, True])
def test_file_backed_memory_is_refused_and_the_file_untouched(monkeypatch, setup, key, form, check_mode):
    value = form.format(setup['victim'])
    kind, result = run(monkeypatch, setup, {key: value}, _ansible_check_mode=check_mode)
    assert_refused_untouched(kind, result, setup)
    msg = result['msg']
    assert msg.startswith('jobs[0].options: fio option "{0}": value {1!r} is not accepted'.format(key, value)), msg
    assert 'creates and truncates that file' in msg and 'accepted: malloc, mmap, mmapshared' in msg


def test_file_backed_memory_is_refused_as_a_list_item_too(monkeypatch, setup):
    kind, result = run(monkeypatch, setup, ['--numjobs=1', '--mem=mmap:{0}'.format(setup['victim'])])
    assert_refused_untouched(kind, result, setup)
    assert 'fio option "mem"' in result['msg']


@pytest.mark.parametrize('options, message', [
    ({'exec_prerun': 'touch /tmp/x'}, 'fio option "exec_prerun" is not allowed'),
    ({'exec_postrun': 'reboot'}, 'fio option "exec_postrun" is not allowed'),
    ({'filename': '/etc/passwd'}, 'fio option "filename" is set by the module'),
    ({'directory': '/etc'}, 'fio option "directory" is not allowed'),
    ({'opendir': '/etc'}, 'fio option "opendir" is not allowed'),
    ({'filename_format': '/etc/$jobname'}, 'fio option "filename_format" is not allowed'),
    ({'write_bw_log': '/etc/bw'}, 'fio option "write_bw_log" is not allowed'),
    ({'write_iolog': '/etc/iolog'}, 'fio option "write_iolog" is not allowed'),
    ({'read_iolog': '/etc/iolog'}, 'fio option "read_iolog" is not allowed'),
    ({'trigger_cmd': 'reboot'}, 'fio option "trigger_cmd" is not allowed'),
    ({'trigger_file': '/tmp/t'}, 'fio option "trigger_file" is not allowed'),
    ({'ioscheduler': 'none'}, 'fio option "ioscheduler" is not allowed'),
    ({'cgroup': 'x'}, 'fio option "cgroup" is not allowed'),
    ({'lockmem': '1g'}, 'fio option "lockmem" is not allowed'),
    ({'unlink': 1}, 'fio option "unlink" is not allowed'),
    ({'offset': '1t'}, 'fio option "offset" is not allowed'),
    ({'verify_state_save': 1}, 'fio option "verify_state_save" is not allowed'),
    ({'buffer_pattern': "'x'"}, 'fio option "buffer_pattern" is not allowed'),
    ({'output': '/etc/passwd'}, 'fio option "output" is set by the module'),
    ({'mem': 'shm'}, "fio option \"mem\": value 'shm' is not accepted; accepted: malloc, mmap, mmapshared"),
    ({'numjobs': '2 --output=/etc/x'}, 'fio option "numjobs": value .* is not of the plain form'),
    ({'group_reporting': 'true'}, "fio option \"group_reporting\": value 'true' is not accepted; accepted: 0, 1"),
])
def test_refused_options_name_the_job_and_run_nothing(monkeypatch, setup, options, message):
    kind, result = run(monkeypatch, setup, options)
    assert_refused_untouched(kind, result, setup)
    assert result['msg'].startswith('jobs[0].options: ') and re.search(message, result['msg']), result['msg']


def test_a_refusal_lists_the_accepted_options(monkeypatch, setup):
    kind, result = run(monkeypatch, setup, {'exec_prerun': 'x'})
    assert kind == 'fail'
    for name in ('numjobs', 'bssplit', 'random_distribution', 'mem', 'rate_iops'):
        assert name in result['msg'].split('accepted: ', 1)[1]
    assert 'docs/benchmark.md' in result['msg']


def test_accepted_options_reach_the_fio_command_line(monkeypatch, setup):
    options = {'mem': 'mmapshared', 'iomem_align': '4k', 'numjobs': 2, 'group_reporting': True, 'norandommap': True,
               'bssplit': '4k/50:64k/50', 'random_distribution': 'zipf:1.2', 'rate': '1m,512k', 'thinktime': '10ms'}
    kind, result = run(monkeypatch, setup, options, _ansible_check_mode=True)
    assert kind == 'exit', result
    argv = result['argv'][0]
    for expected in ('--mem=mmapshared', '--iomem_align=4k', '--numjobs=2', '--group_reporting=1', '--norandommap=1',
                     '--bssplit=4k/50:64k/50', '--random_distribution=zipf:1.2', '--rate=1m,512k', '--thinktime=10ms'):
        assert expected in argv
    assert setup['log'].read_text().split() == ['--enghelp'], 'check mode only asks fio for its engines'


@pytest.mark.skipif(shutil.which('fio') is None, reason='fio is not installed (make setup installs it)')
def test_real_fio_runs_with_anonymous_mmap(monkeypatch, tmp_path):
    data = tmp_path / 'data'
    data.mkdir()
    kind, result = run_main(monkeypatch, fio_module, {
        'directory': str(data), 'size': '4m', 'runtime': 0, 'repeat': 1,
        'jobs': [{'preset': 'seq-read', 'options': {'mem': 'mmapshared', 'invalidate': True}}]})
    assert kind == 'exit', result
    assert result['results'][0]['read']['bw_bytes'] > 0 and '--mem=mmapshared' in result['argv'][0]
    assert os.listdir(str(data)) == []
