# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fio module end to end with the real fio on scratch files under tmp_path.

Small working sets and runtime 0 (one pass over the file) keep each run well under a second.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re
import signal
import subprocess
import sys
import time
import os
import shutil

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import RESULT_METRICS
from ansible_collections.iotune.storage.plugins.modules import fio as fio_module
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

pytestmark = pytest.mark.skipif(shutil.which('fio') is None, reason='fio is not installed (make setup installs it)')

FAST = {'size': '4m', 'runtime': 0, 'repeat': 2}


def run(monkeypatch, **args):
    return run_main(monkeypatch, fio_module, dict(FAST, **args))


def leftovers(directory):
    return sorted(name for name in os.listdir(str(directory)) if name.startswith('.iotune-fio-'))


def fake_proc(tmp_path, mem_kib):
    proc = tmp_path / 'proc'
    proc.mkdir()
    (proc / 'meminfo').write_text('MemTotal:       %d kB\nMemFree:        1024 kB\n' % mem_kib)
    return str(proc)


def test_measures_presets_and_removes_the_scratch_file(monkeypatch, tmp_path):
    kind, result = run(monkeypatch, directory=str(tmp_path), jobs=['seq-read', 'rand-write-4k', 'mixed-70-30'])
    assert kind == 'exit', result
    assert [r['name'] for r in result['results']] == ['seq-read', 'rand-write-4k', 'mixed-70-30']
    seq, randw, mixed = result['results']
    assert seq['write'] is None and seq['read']['bw_bytes'] > 0 and seq['cov']['write'] is None
    assert randw['read'] is None and randw['write']['iops'] > 0
    assert mixed['read']['iops'] > mixed['write']['iops'] > 0, 'a 70/30 mix reads more than it writes'
    for entry in result['results']:
        for direction in ('read', 'write'):
            if entry[direction] is None:
                continue
            assert entry[direction]['io_bytes'] > 0
            assert 0 < entry[direction]['clat_p50_ns'] <= entry[direction]['clat_p99_ns'] <= entry[direction]['clat_p999_ns']
            assert set(entry['cov'][direction]) == set(RESULT_METRICS)
    assert result['fio_version'].startswith('fio-3')
    assert result['changed'] is False and result['repeat'] == 2 and result['wall_s'] > 0
    assert result['target'].startswith(str(tmp_path) + '/.iotune-fio-')
    assert leftovers(tmp_path) == [] and not os.path.exists(result['target'])
    assert all(argv[0].endswith('fio') and '--output-format=json' in argv for argv in result['argv'])


def test_raw_options_job_and_raw_json_kept(monkeypatch, tmp_path):
    out = tmp_path / 'raw'
    data = tmp_path / 'data'
    data.mkdir()
    kind, result = run(monkeypatch, directory=str(data), output_dir=str(out), repeat=1,
                       jobs=[{'rw': 'randrw', 'rwmixread': 80, 'bs': '8k', 'iodepth': 4, 'name': 'oltp',
                              'options': {'numjobs': 2, 'group_reporting': 1}}])
    assert kind == 'exit', result
    argv = result['argv'][0]
    for option in ('--rw=randrw', '--rwmixread=80', '--bs=8k', '--iodepth=4', '--numjobs=2', '--group_reporting=1'):
        assert option in argv
    assert result['results'][0]['preset'] is None and result['results'][0]['rw'] == 'randrw'
    assert result['raw_files'] == [str(out / 'oltp-1.json')]
    with open(result['raw_files'][0]) as handle:
        assert json.load(handle)['jobs'][0]['jobname'] == 'oltp'


def test_cache_guard_fires_on_buffered_256m_read_with_more_ram(monkeypatch, tmp_path):
    # The real RAM of this machine (GiBs) is over half of 256 MiB: a buffered read measures memory.
    kind, result = run(monkeypatch, directory=str(tmp_path), jobs=[{'preset': 'seq-read', 'direct': False}],
                       size='256m', repeat=1)
    assert kind == 'exit', result
    assert result['memory_bytes'] > 2 * 256 * 1048576
    assert result['results'][0]['cache_suspect'] is True and result['cache_suspect'] is True
    assert len(result['warnings']) == 1 and 'measures the page cache' in result['warnings'][0]
    assert 'direct: true' in result['warnings'][0]


def test_cache_guard_quiet_with_direct_io(monkeypatch, tmp_path):
    kind, result = run(monkeypatch, directory=str(tmp_path), jobs=['seq-read'], size='256m', repeat=1)
    assert kind == 'exit', result
    assert result['results'][0]['cache_suspect'] is False and result['warnings'] == []


def test_cache_guard_allow_cached_keeps_the_flag_without_warning(monkeypatch, tmp_path):
    kind, result = run(monkeypatch, directory=str(tmp_path), jobs=['seq-write'], direct=False, allow_cached=True)
    assert kind == 'exit', result
    assert result['results'][0]['cache_suspect'] is True and result['warnings'] == []
    assert '--end_fsync=1' in result['argv'][0], 'a buffered write includes its flush'


def test_cache_guard_compares_with_the_host_ram(monkeypatch, tmp_path):
    data = tmp_path / 'data'
    data.mkdir()
    # 1 MiB of RAM: a 4 MiB working set is over twice the RAM, so the result is not memory
    kind, result = run(monkeypatch, directory=str(data), jobs=['seq-read'], direct=False, repeat=1,
                       proc_root=fake_proc(tmp_path, 1024))
    assert kind == 'exit', result
    assert result['memory_bytes'] == 1048576 and result['results'][0]['cache_suspect'] is False


def test_check_mode_runs_nothing(monkeypatch, tmp_path):
    kind, result = run(monkeypatch, directory=str(tmp_path), jobs=['seq-write'], _ansible_check_mode=True)
    assert kind == 'exit', result
    assert result['results'] == [] and len(result['argv']) == 1 and 'nothing measured' in result['msg']
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize('args, message', [
    ({'jobs': ['fast-read']}, r"jobs\[0\]: unknown preset 'fast-read'; accepted presets: copy-like, mixed-70-30"),
    ({'jobs': [{'preset': 'seq-read', 'blocksize': '1m'}]}, r'jobs\[0\]: unknown key\(s\) blocksize; accepted: preset, rw'),
    ({'jobs': [{'bs': '1m'}]}, r'jobs\[0\]: needs a preset'),
    ({'jobs': ['seq-read', 'seq-read']}, 'duplicate job name'),
    ({'jobs': [{'rw': 'trim'}]}, "unknown rw 'trim'; accepted: read, write"),
    ({'jobs': [{'preset': 'seq-read', 'ioengine': 'exec'}]}, "unknown ioengine 'exec'; accepted: sync, psync"),
    ({'jobs': [{'preset': 'seq-read', 'options': {'exec_prerun': 'touch /tmp/x'}}]}, r'jobs\[0\]\.options: fio option "exec_prerun" is not allowed'),
    ({'jobs': [{'preset': 'seq-read', 'options': {'filename': '/dev/sda'}}]}, 'set by the module'),
    ({'size': 'lots'}, "size/min_free: invalid size 'lots'"),
    ({'repeat': 0}, 'repeat must be at least 1'),
    ({'runtime': -1}, 'runtime must be 0 or more'),
    ({'fio_path': '/nonexistent/fio'}, 'fio not found at /nonexistent/fio: install the fio package'),
])
def test_bad_input_fails_and_leaves_nothing(monkeypatch, tmp_path, args, message):
    kind, result = run(monkeypatch, directory=str(tmp_path), **args)
    assert kind == 'fail'
    assert re.search(message, result['msg']), result['msg']
    assert os.listdir(str(tmp_path)) == []


def test_fio_rejecting_an_option_is_reported_and_cleaned_up(monkeypatch, tmp_path):
    # an allowed option with a value of the right form that fio itself refuses
    kind, result = run(monkeypatch, directory=str(tmp_path), jobs=[{'preset': 'seq-read', 'options': {'random_distribution': 'bogus'}}])
    assert kind == 'fail'
    assert 'fio failed' in result['msg'] and 'random_distribution=bogus' in result['msg']
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize('setup, message', [
    (lambda tmp: str(tmp / 'missing'), 'does not exist or is not a directory'),
    (lambda tmp: (tmp / 'file').write_text('x') and str(tmp / 'file'), 'does not exist or is not a directory'),
])
def test_unusable_directory(monkeypatch, tmp_path, setup, message):
    kind, result = run(monkeypatch, directory=setup(tmp_path))
    assert kind == 'fail' and message in result['msg']


def test_free_space_is_checked_first(monkeypatch, tmp_path):
    kind, result = run(monkeypatch, directory=str(tmp_path), size='64p')
    assert kind == 'fail' and 'not enough free space' in result['msg'] and 'needed' in result['msg']
    assert os.listdir(str(tmp_path)) == []


def test_raw_device_needs_allow_destructive(monkeypatch):
    kind, result = run(monkeypatch, filename='/dev/sda')
    assert kind == 'fail' and 'allow_destructive: true' in result['msg']


def test_raw_target_must_be_a_block_device(monkeypatch, tmp_path):
    target = tmp_path / 'image'
    target.write_bytes(b'\0' * 4096)
    kind, result = run(monkeypatch, filename=str(target), allow_destructive=True)
    assert kind == 'fail' and 'is not a block device' in result['msg']
    assert target.read_bytes() == b'\0' * 4096


def test_directory_and_filename_exclude_each_other(monkeypatch, tmp_path):
    kind, result = run(monkeypatch, directory=str(tmp_path), filename='/dev/sda', allow_destructive=True)
    assert kind == 'fail' and 'mutually exclusive' in result['msg']


@pytest.mark.parametrize('signum', [signal.SIGTERM, signal.SIGHUP])
def test_a_stopped_run_removes_its_scratch_file(tmp_path, signum):
    # the real module in its own process, stopped while fio runs
    args = tmp_path / 'args.json'
    data = tmp_path / 'data'
    data.mkdir()
    args.write_text(json.dumps({'ANSIBLE_MODULE_ARGS': {'directory': str(data), 'jobs': ['seq-read'], 'size': '8m',
                                                        'runtime': 30, 'repeat': 1}}))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, fio_module.__file__, str(args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while not leftovers(data) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftovers(data), 'the module did not start measuring'
    time.sleep(1)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    result = json.loads(out)
    assert result['failed'] and 'stopped by signal %d' % signum in result['msg'], (result, err)
    assert leftovers(data) == []
    # fio was stopped too, not left running on the removed file
    assert subprocess.run(['pgrep', '-f', str(data)], stdout=subprocess.PIPE, check=False).stdout == b''
