# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils._benchmark import (
    DEFAULTS,
    benchmark_report,
    benchmark_summary,
    benchmark_settings,
    validate_benchmark,
)


@pytest.mark.parametrize('value', [
    None,
    {},
    {'enabled': False},
    {'enabled': True, 'directory': '/data'},
    {'filename': '/dev/vdz', 'allow_destructive': True},
    {'directory': '/data', 'jobs': ['seq-read', {'rw': 'randrw', 'rwmixread': 70, 'name': 'oltp'}], 'size': '1g',
     'runtime': 0, 'repeat': 5, 'regression_threshold_pct': 5.5, 'metrics': ['bw_bytes', 'clat_p999_ns'],
     'ioengine': 'io_uring', 'noise_factor': 0, 'timeout': 600, 'rollback_on_regression': True},
])
def test_valid_settings(value):
    assert validate_benchmark(value) == []


@pytest.mark.parametrize('value, measuring, message', [
    ('on', None, 'iotune_benchmark: must be a dict, got str'),
    ({'enable': True}, None, 'iotune_benchmark.enable: unknown key (accepted: allow_cached, allow_destructive'),
    ({'enabled': 'yes'}, None, "iotune_benchmark.enabled: must be true or false, got 'yes'"),
    ({'enabled': True}, None, 'iotune_benchmark.directory: required to measure'),
    ({}, True, 'iotune_benchmark.directory: required to measure'),
    ({'directory': 'data'}, None, "iotune_benchmark.directory: must be an absolute path, got 'data'"),
    ({'directory': '/d', 'filename': '/dev/x', 'allow_destructive': True}, None, 'iotune_benchmark: set directory'),
    ({'filename': '/dev/vdz'}, None, 'iotune_benchmark.filename: measuring a raw device destroys its data; set allow_destructive: true'),
    ({'jobs': ['fast']}, None, "iotune_benchmark.jobs[0]: unknown preset 'fast'; accepted presets: copy-like"),
    ({'jobs': []}, None, 'iotune_benchmark.jobs must be a non-empty list'),
    ({'size': 'huge'}, None, "iotune_benchmark.size: invalid size 'huge'"),
    ({'size': 0}, None, 'iotune_benchmark.size: must be more than 0 bytes'),
    ({'repeat': 0}, None, 'iotune_benchmark.repeat: must be a whole number >= 1, got 0'),
    ({'runtime': 2.5}, None, 'iotune_benchmark.runtime: must be a whole number >= 0, got 2.5'),
    ({'regression_threshold_pct': -1}, None, 'iotune_benchmark.regression_threshold_pct: must be a number >= 0, got -1'),
    ({'noise_factor': True}, None, 'iotune_benchmark.noise_factor: must be a number >= 0, got True'),
    ({'ioengine': 'exec'}, None, "iotune_benchmark.ioengine: unknown engine 'exec' (accepted: sync, psync"),
    ({'metrics': ['bandwidth']}, None, "iotune_benchmark.metrics: unknown metric 'bandwidth' (accepted: bw_bytes, iops"),
    ({'metrics': []}, None, 'iotune_benchmark.metrics: must be a non-empty list'),
    (None, True, 'iotune_benchmark: required to measure'),
    # what the module refuses on the host is refused on the controller first
    ({'jobs': ['seq-read', {'rw': 'trim'}]}, None, "iotune_benchmark.jobs[1]: unknown rw 'trim'"),
    ({'jobs': [{'preset': 'seq-read', 'ioengine': 'net'}]}, None, "iotune_benchmark.jobs[0]: unknown ioengine 'net'"),
    ({'jobs': [{'preset': 'seq-read', 'options': {'exec_prerun': 'x'}}]}, None, 'iotune_benchmark.jobs[0].options: fio option "exec_prerun" is not allowed'),
    ({'jobs': [{'preset': 'seq-read', 'options': {'mem': 'mmap:/etc/passwd'}}]}, None,
     'iotune_benchmark.jobs[0].options: fio option "mem": value \'mmap:/etc/passwd\' is not accepted'),
    ({'jobs': [{'rw': 'read', 'rwmixread': 50}]}, None, 'iotune_benchmark.jobs[0]: rwmixread applies only'),
    ({'jobs': [{'preset': 'seq-read', 'name': 'a b'}]}, None, "iotune_benchmark.jobs[0]: job name 'a b'"),
])
def test_invalid_settings_name_the_field(value, measuring, message):
    errors = validate_benchmark(value, measuring)
    assert any(error.startswith(message) for error in errors), errors


def test_every_problem_is_listed():
    assert len(validate_benchmark({'enabled': 'x', 'repeat': 0, 'jobs': ['nope']})) == 3


def test_settings_fill_defaults_and_compute_the_timeout():
    settings = benchmark_settings({'directory': '/data', 'jobs': ['seq-read', 'seq-write', 'copy-like'], 'runtime': 20})
    assert settings['repeat'] == DEFAULTS['repeat'] == 3 and settings['direct'] is True
    assert settings['expected_s'] == 3 * 3 * 20
    assert settings['timeout'] == 2 * 180 + 60 * 3 + 60
    assert benchmark_settings({'timeout': 42})['timeout'] == 42
    assert benchmark_settings(None)['jobs'] == ['seq-read', 'seq-write']


@pytest.mark.parametrize('size, expected_per_run', [('4g', 409), ('96m', 30)])
def test_a_single_pass_is_timed_for_a_slow_disk(size, expected_per_run):
    # runtime 0: one pass over the working set, estimated at 10 MiB/s, at least 30 s
    settings = benchmark_settings({'jobs': ['seq-read'], 'runtime': 0, 'repeat': 2, 'size': size})
    assert settings['expected_s'] == 2 * expected_per_run
    assert settings['timeout'] == 2 * 2 * expected_per_run + 60 + 60


def row(regression):
    return {'job': 'w', 'direction': 'write', 'metric': 'bw_bytes', 'regression': regression}


SETTINGS = dict(DEFAULTS, regression_threshold_pct=25, rollback_on_regression=True)


@pytest.mark.parametrize('results, comparisons, phases, rolled_back, recovered, regressions', [
    ({'run': {}}, {}, ['run'], False, None, 0),
    ({'before': {}, 'after': {}}, {'after': [row(False)]}, ['before', 'after'], False, None, 0),
    ({'after_rollback': {}, 'before': {}, 'after': {}}, {'after': [row(True), row(False)], 'after_rollback': [row(False)]},
     ['before', 'after', 'after_rollback'], True, True, 1),
    ({'before': {}, 'after': {}, 'after_rollback': {}}, {'after': [row(True)], 'after_rollback': [row(True)]},
     ['before', 'after', 'after_rollback'], True, False, 1),
])
def test_benchmark_report(results, comparisons, phases, rolled_back, recovered, regressions):
    report = benchmark_report(results, comparisons, SETTINGS)
    assert report['phases'] == phases and list(report['results']) == phases
    assert report['rolled_back'] is rolled_back and report['recovered'] is recovered
    assert len(report['regressions']) == regressions and all(r['regression'] for r in report['regressions'])
    assert report['threshold_pct'] == 25 and report['rollback_on_regression'] is True


def test_benchmark_summary_keeps_the_outcome_and_the_regressions():
    regressed = dict(row(True), before=100, after=10, change_pct=-90.0, noise_pct=4.0, threshold_pct=25, better='higher')
    report = benchmark_report({'before': {}, 'after': {}, 'after_rollback': {}},
                              {'after': [regressed, row(False)], 'after_rollback': [row(False)]}, SETTINGS)
    assert benchmark_summary(report) == {
        'phases': ['before', 'after', 'after_rollback'], 'rolled_back': True, 'recovered': True,
        'regressions': [{'job': 'w', 'direction': 'write', 'metric': 'bw_bytes', 'before': 100, 'after': 10,
                         'change_pct': -90.0, 'noise_pct': 4.0, 'threshold_pct': 25}]}


def test_a_regression_measured_from_memory_decides_nothing_unless_allowed():
    from ansible_collections.iotune.storage.plugins.filter.fio import fio_regressions
    memory, disk = dict(row(True), cache_suspect=True, job='cached'), dict(row(True), cache_suspect=False)
    assert fio_regressions([memory, disk]) == [disk]
    assert fio_regressions([memory, disk], True) == [memory, disk]
    report = benchmark_report({'before': {}, 'after': {}}, {'after': [memory, disk]}, SETTINGS)
    assert report['regressions'] == [disk] and report['undecided'] == [memory]
    report = benchmark_report({'before': {}, 'after': {}}, {'after': [memory, disk]}, dict(SETTINGS, allow_memory=True))
    assert report['regressions'] == [memory, disk] and report['undecided'] == []


def test_the_new_switches_are_booleans():
    assert validate_benchmark({'rollback_is_success': 'yes', 'allow_memory': 1}) == [
        'iotune_benchmark.rollback_is_success: must be true or false, got \'yes\'',
        'iotune_benchmark.allow_memory: must be true or false, got 1']
    assert benchmark_settings({})['rollback_is_success'] is False and benchmark_settings({})['allow_memory'] is False
