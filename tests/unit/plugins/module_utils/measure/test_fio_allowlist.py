# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The allowlist of raw fio options (check_fio_options) and its documentation (issue 18, S1)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest
import yaml

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import (
    ALLOWED_OPTIONS,
    MANAGED_OPTIONS,
    accepted_options,
    build_argv,
    check_fio_options,
    normalize_jobs,
)
from ansible_collections.iotune.storage.plugins.modules import fio as fio_module
from ansible_collections.iotune.storage.plugins.plugin_utils._benchmark import validate_benchmark

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', '..')


@pytest.mark.parametrize('options, pairs', [
    ({'numjobs': 4, 'group_reporting': True}, [('group_reporting', '1'), ('numjobs', '4')]),
    (['--norandommap', 'randrepeat=0'], [('norandommap', '1'), ('randrepeat', '0')]),
    ({'bssplit': '4k/10:64k/50:1m/40', 'blockalign': '4k', 'bs_is_seq_rand': 1}, None),
    ({'random_distribution': 'zoned:60/10:30/20:8/20:2/50', 'percentage_random': '50,50'}, None),
    ({'random_distribution': 'zipf:1.2', 'random_generator': 'lfsr', 'randseed': 1234}, None),
    ({'rate': '1m,512k', 'rate_iops': 500, 'rate_process': 'poisson', 'thinktime': '10ms'}, None),
    ({'latency_target': '10ms', 'latency_window': '5s', 'latency_percentile': 99.9, 'max_latency': '50ms'}, None),
    ({'sync': 'dsync', 'fsync': 32, 'fdatasync': 8, 'fsync_on_close': True, 'fallocate': 'none'}, None),
    ({'io_size': '10g', 'number_ios': 1000, 'loops': 2, 'startdelay': '1-10'}, None),
    ({'mem': 'malloc'}, [('mem', 'malloc')]),
    # the VM's read-ahead test: fio's POSIX_FADV_SEQUENTIAL would double the read-ahead it measures
    ({'fadvise_hint': 0}, [('fadvise_hint', '0')]),
    ({'fadvise_hint': 'random', 'invalidate': True}, None),
    ({'mem': 'mmap', 'iomem_align': '4k'}, None),
    ({'iomem': 'mmapshared', 'mem_align': 4096}, None),
    ({'buffer_compress_percentage': 50, 'buffer_compress_chunk': '4k', 'refill_buffers': True, 'dedupe_percentage': 10}, None),
    ({'hipri': True, 'fixedbufs': True, 'registerfiles': True, 'sqthread_poll': False, 'nowait': 1}, None),
    ({'iodepth_batch_submit': 8, 'iodepth_batch_complete_min': 1, 'iodepth_low': 4, 'io_submit_mode': 'offload'}, None),
])
def test_accepted(options, pairs):
    checked = check_fio_options(options, 'jobs[0].options')
    assert [key for key, dummy in checked] == sorted(key for key, dummy in checked)
    if pairs is not None:
        assert checked == pairs
    assert all(key in ALLOWED_OPTIONS for key, dummy in checked)


@pytest.mark.parametrize('options, message', [
    # named files, paths and memory mappings of a file
    ({'mem': 'mmap:/etc/passwd'}, '"mem": value \'mmap:/etc/passwd\' is not accepted (the file-backed "type:path" form '
                                  'creates and truncates that file); accepted: malloc, mmap, mmapshared'),
    ({'iomem': 'mmapshared:/etc/shadow'}, '"iomem": value \'mmapshared:/etc/shadow\' is not accepted (the file-backed'),
    ({'mem': 'mmaphuge:/hugetlbfs/x'}, '"mem": value \'mmaphuge:/hugetlbfs/x\' is not accepted'),
    ({'mem': 'shmhuge'}, '"mem": value \'shmhuge\' is not accepted; accepted: malloc, mmap, mmapshared'),
    (['--mem=mmap:/etc/passwd'], '"mem": value \'mmap:/etc/passwd\' is not accepted'),
    ({'directory': '/etc'}, '"directory" is not allowed'),
    ({'opendir': '/'}, '"opendir" is not allowed'),
    ({'filename_format': 'x'}, '"filename_format" is not allowed'),
    ({'nrfiles': 10}, '"nrfiles" is not allowed'),
    ({'filesize': '1t'}, '"filesize" is not allowed'),
    ({'file_append': 1}, '"file_append" is not allowed'),
    ({'fill_device': 1}, '"fill_device" is not allowed'),
    ({'offset': '1t'}, '"offset" is not allowed'),
    ({'offset_increment': '1t'}, '"offset_increment" is not allowed'),
    ({'read_iolog': '/x'}, '"read_iolog" is not allowed'),
    ({'replay_redirect': '/dev/sda'}, '"replay_redirect" is not allowed'),
    ({'buffer_pattern': "'x'"}, '"buffer_pattern" is not allowed'),
    ({'verify_pattern': '0xff'}, '"verify_pattern" is not allowed'),
    # commands and triggers
    ({'exec_prerun': 'rm -rf /'}, '"exec_prerun" is not allowed'),
    ({'exec_postrun': 'reboot'}, '"exec_postrun" is not allowed'),
    ({'trigger': 'x'}, '"trigger" is not allowed'),
    ({'trigger_cmd': 'reboot'}, '"trigger_cmd" is not allowed'),
    ({'trigger_file': '/tmp/t'}, '"trigger_file" is not allowed'),
    # output and logs
    ({'write_bw_log': 'x'}, '"write_bw_log" is not allowed'),
    ({'write_lat_log': 'x'}, '"write_lat_log" is not allowed'),
    ({'write_iops_log': 'x'}, '"write_iops_log" is not allowed'),
    ({'write_hist_log': 'x'}, '"write_hist_log" is not allowed'),
    ({'write_iolog': 'x'}, '"write_iolog" is not allowed'),
    ({'log_avg_msec': 1000}, '"log_avg_msec" is not allowed'),
    ({'per_job_logs': 1}, '"per_job_logs" is not allowed'),
    ({'verify_state_save': 1}, '"verify_state_save" is not allowed'),
    ({'status_interval': 1}, '"status_interval" is not allowed'),
    ({'unified_rw_reporting': 1}, '"unified_rw_reporting" is not allowed'),
    # system state
    ({'ioscheduler': 'none'}, '"ioscheduler" is not allowed'),
    ({'cgroup': 'x'}, '"cgroup" is not allowed'),
    ({'cgroup_weight': 100}, '"cgroup_weight" is not allowed'),
    ({'prio': 0}, '"prio" is not allowed'),
    ({'prioclass': 1}, '"prioclass" is not allowed'),
    ({'nice': -20}, '"nice" is not allowed'),
    ({'lockmem': '8g'}, '"lockmem" is not allowed'),
    ({'unlink': 1}, '"unlink" is not allowed'),
    ({'allow_mounted_write': 1}, '"allow_mounted_write" is not allowed'),
    ({'zonemode': 'zbd'}, '"zonemode" is not allowed'),
    ({'client': 'x'}, '"client" is not allowed'),
    # set by the module (and aliases that would sneak past it)
    ({'bs': '8k'}, '"bs" is set by the module; use the dedicated option instead'),
    ({'rwmixwrite': 30}, '"rwmixwrite" is set by the module'),
    ({'output': '/etc/passwd'}, '"output" is set by the module'),
    ({'timeout': 10}, '"timeout" is not allowed'),
    ({'io_limit': '1g'}, '"io_limit" is not allowed'),
    # value forms
    ({'numjobs': '2\n[evil]'}, '"numjobs": value must not contain newlines or NUL'),
    ({'numjobs': '2 --output=/x'}, '"numjobs": value \'2 --output=/x\' is not of the plain form'),
    ({'rate': '${HOME}'}, '"rate": value .* is not of the plain form'),
    ({'thinktime': ''}, '"thinktime": value must be a non-empty string'),
    ({'thinktime': None}, '"thinktime": value must be a non-empty string'),
    ({'norandommap': 'yes'}, '"norandommap": value \'yes\' is not accepted; accepted: 0, 1'),
    ({'group_reporting': 2}, '"group_reporting": value \'2\' is not accepted; accepted: 0, 1'),
    ({'sync': 'fsync'}, '"sync": value \'fsync\' is not accepted; accepted: none, 0, sync, 1, dsync'),
    # names and shapes
    ({'Numjobs': 1}, "'Numjobs': names are lower-case letters"),
    ({1: 1}, '1: names are lower-case letters'),
    (['--output-format=normal'], "'output-format': names are lower-case letters"),
    ('numjobs=2', 'fio options must be a dict or a list'),
    ([3], 'fio option 3 is not a string'),
])
def test_refused(options, message):
    with pytest.raises(ValueError) as err:
        check_fio_options(options, 'jobs[2].options')
    text = str(err.value)
    assert text.startswith('jobs[2].options: '), text
    assert re.search(re.escape(message).replace(re.escape('.*'), '.*'), text), text


def test_refusal_lists_the_accepted_options_and_the_doc():
    with pytest.raises(ValueError) as err:
        check_fio_options({'exec_prerun': 'x'}, 'jobs[0].options')
    accepted = str(err.value).split('accepted: ', 1)[1]
    assert accepted.startswith(', '.join(accepted_options()) + ' (see ')
    assert 'docs/benchmark.md' in accepted


def test_allowlist_holds_nothing_dangerous():
    """No option of the allowlist names a path, runs a command, logs or is set by the module."""
    forbidden = re.compile(r'^(exec|trigger|write_|log|cgroup|filename|directory|opendir|ioscheduler|prio|nice|lockmem|unlink|offset'
                           r'|file|fill|verify|replay|read_iolog|status|output|client|server|zone|allow_)')
    assert not [name for name in ALLOWED_OPTIONS if forbidden.match(name)]
    assert not set(ALLOWED_OPTIONS) & set(MANAGED_OPTIONS)
    for name in ('mem', 'iomem'):
        assert not [value for value in ALLOWED_OPTIONS[name] if ':' in value]


def test_one_check_for_module_build_argv_and_policy():
    """normalize_jobs (the module), build_argv and the iotune_benchmark validation refuse alike."""
    bad = {'preset': 'seq-read', 'options': {'mem': 'mmap:/etc/passwd'}}
    with pytest.raises(ValueError, match=r'^jobs\[1\]\.options: fio option "mem"'):
        normalize_jobs(['seq-read', bad])
    with pytest.raises(ValueError, match=r'^job seq-read options: fio option "mem"'):
        build_argv('fio', {'preset': 'seq-read', 'filename': '/f', 'extra': bad['options']})
    errors = validate_benchmark({'jobs': ['seq-read', bad]})
    assert errors == [errors[0]] and errors[0].startswith('iotune_benchmark.jobs[1].options: fio option "mem"'), errors


def test_module_documentation_lists_the_allowlist():
    doc = yaml.safe_load(fio_module.DOCUMENTATION)
    allowlist = [line for line in doc['options']['jobs']['description'] if line.startswith('C(options) is an allowlist')]
    assert len(allowlist) == 1
    names = set(re.findall(r'C\(([a-z0-9_]+)\)', allowlist[0])) - {'options'}
    assert names == set(ALLOWED_OPTIONS)


def test_benchmark_doc_lists_the_allowlist():
    with open(os.path.join(ROOT, 'docs', 'benchmark.md')) as handle:
        text = handle.read()
    table = text.split('| group | accepted options |', 1)[1].split('\n\n', 1)[0]
    assert set(re.findall(r'`([a-z0-9_]+)`', table)) == set(ALLOWED_OPTIONS)
