# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import re

import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils._fio_compare import (
    COMPARABLE_METRICS,
    DEFAULT_METRICS,
    compare,
    job_verdict,
    measurement_lines,
    summary_line,
    target_text,
)

ACCEPTED = 'bw_bytes, iops, lat_mean_ns, clat_p50_ns, clat_p95_ns, clat_p99_ns, clat_p999_ns'


def _section(bw=104857600, iops=100.0, lat=9000000.0, p50=8000000, p95=12000000, p99=15000000, p999=20000000):
    return {'bw_bytes': bw, 'iops': iops, 'lat_mean_ns': lat, 'clat_p50_ns': p50,
            'clat_p95_ns': p95, 'clat_p99_ns': p99, 'clat_p999_ns': p999}


def _cov(value=0.02):
    return dict((metric, value) for metric in COMPARABLE_METRICS)


def _job(name='seq-write', read=None, write=None, cov_read=None, cov_write=None, cache_suspect=False):
    return {'name': name, 'preset': name, 'cache_suspect': cache_suspect,
            'cov': {'read': cov_read, 'write': cov_write}, 'read': read, 'write': write}


def _one(before, after, metric='bw_bytes', **kwargs):
    """The single row of comparing one write job on one metric."""
    rows = compare([before], [after], metrics=[metric], **kwargs)
    assert len(rows) == 1
    return rows[0]


# --------------------------------------------------------------------------- rows

def test_clear_regression_full_row():
    before = _job(write=_section(), cov_write=_cov(0.02))
    after = _job(write=_section(bw=10485760), cov_write=_cov(0.02))
    assert compare({'results': [before]}, {'results': [after]}, metrics=['bw_bytes']) == [{
        'job': 'seq-write', 'direction': 'write', 'metric': 'bw_bytes', 'better': 'higher',
        'before': 104857600, 'after': 10485760,
        'change_pct': -90.0, 'worse_pct': 90.0, 'noise_pct': 5.66, 'threshold_pct': 10.0,
        'significant': True, 'regression': True, 'improvement': False, 'cache_suspect': False,
    }]


# (case id, metric, before value, after value, cv before, cv after, threshold, noise_factor,
#  change_pct, worse_pct, noise_pct, significant, regression, improvement)
CASES = [
    # 20% less bandwidth, beyond the 10% threshold but inside 2 * 100 * sqrt(0.1^2 + 0.1^2) = 28.28% noise.
    ('beyond-threshold-inside-noise', 'bw_bytes', 1000, 800, 0.1, 0.1, 10.0, 2.0, -20.0, 20.0, 28.28, False, False, False),
    # 8% fewer IOPS, beyond the 0% noise (cv 0) but under the threshold.
    ('beyond-noise-under-threshold', 'iops', 100.0, 92.0, 0.0, 0.0, 10.0, 2.0, -8.0, 8.0, 0.0, False, False, False),
    # Latency halves: lower is better, an improvement.
    ('latency-improvement', 'clat_p99_ns', 15000000, 7500000, 0.01, 0.01, 10.0, 2.0, -50.0, -50.0, 2.83, True, False, True),
    # Latency doubles: a regression.
    ('latency-regression', 'lat_mean_ns', 9000000.0, 18000000.0, 0.03, 0.04, 10.0, 2.0, 100.0, 100.0, 10.0, True, True, False),
    # More bandwidth: an improvement (negative worse_pct).
    ('bandwidth-improvement', 'bw_bytes', 1000, 1500, 0.0, 0.0, 10.0, 2.0, 50.0, -50.0, 0.0, True, False, True),
    # A null cv counts as 0.
    ('null-cv', 'iops', 100.0, 50.0, None, 0.03, 10.0, 2.0, -50.0, 50.0, 6.0, True, True, False),
    # noise_factor 0 ignores the noise.
    ('noise-factor-zero', 'bw_bytes', 1000, 800, 0.1, 0.1, 10.0, 0, -20.0, 20.0, 0.0, True, True, False),
    # A change equal to the threshold is not above it.
    ('equal-to-threshold', 'bw_bytes', 1000, 900, 0.0, 0.0, 10.0, 2.0, -10.0, 10.0, 0.0, False, False, False),
    # A change equal to the noise is not above it.
    ('equal-to-noise', 'bw_bytes', 1000, 700, 0.15, 0.0, 10.0, 2.0, -30.0, 30.0, 30.0, False, False, False),
    # Threshold 0: any change above the noise counts.
    ('threshold-zero', 'iops', 1000, 1001, 0.0, 0.0, 0, 2.0, 0.1, -0.1, 0.0, True, False, True),
    # No change: worse_pct is 0.0, not -0.0.
    ('no-change', 'bw_bytes', 1000, 1000, 0.0, 0.0, 10.0, 2.0, 0.0, 0.0, 0.0, False, False, False),
    # A tiny decrease rounds to 0.0, not -0.0.
    ('tiny-decrease', 'bw_bytes', 100000, 99999, 0.0, 0.0, 10.0, 2.0, 0.0, 0.0, 0.0, False, False, False),
    # Rounding to 2 decimals: 1/3 percent.
    ('rounding', 'clat_p50_ns', 3000, 3010, 0.0, 0.0, 0.3, 2.0, 0.33, 0.33, 0.0, True, True, False),
    # Metric not reported (null) on one side: no change, never significant.
    ('after-null', 'clat_p999_ns', 20000000, None, 0.0, None, 10.0, 2.0, None, None, 0.0, False, False, False),
    ('before-null', 'clat_p95_ns', None, 12000000, None, 0.0, 10.0, 2.0, None, None, 0.0, False, False, False),
    ('before-zero', 'iops', 0, 100.0, 0.0, 0.0, 10.0, 2.0, None, None, 0.0, False, False, False),
    ('both-null', 'clat_p99_ns', None, None, None, None, 10.0, 2.0, None, None, 0.0, False, False, False),
]


@pytest.mark.parametrize(
    'metric, value_before, value_after, cv_before, cv_after, threshold, noise_factor, '
    'change, worse, noise, significant, regression, improvement',
    [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_row_values(metric, value_before, value_after, cv_before, cv_after, threshold, noise_factor,
                    change, worse, noise, significant, regression, improvement):
    before = _job(write={metric: value_before}, cov_write={metric: cv_before})
    after = _job(write={metric: value_after}, cov_write={metric: cv_after})
    row = _one(before, after, metric, threshold_pct=threshold, noise_factor=noise_factor)
    assert row['before'] == value_before
    assert row['after'] == value_after
    assert row['change_pct'] == change
    assert row['worse_pct'] == worse
    # No negative zero: -0.0 == 0.0 in Python but shows as -0.0 in reports.
    assert '-0.0' not in (str(row['change_pct']), str(row['worse_pct']))
    assert row['noise_pct'] == noise
    assert row['threshold_pct'] == threshold
    assert (row['significant'], row['regression'], row['improvement']) == (significant, regression, improvement)


@pytest.mark.parametrize('metric, better', [
    ('bw_bytes', 'higher'), ('iops', 'higher'), ('lat_mean_ns', 'lower'), ('clat_p50_ns', 'lower'),
    ('clat_p95_ns', 'lower'), ('clat_p99_ns', 'lower'), ('clat_p999_ns', 'lower'),
])
def test_better_direction_per_metric(metric, better):
    row = _one(_job(write=_section()), _job(write=_section()), metric)
    assert row['better'] == better


def test_missing_metric_keys_and_cov_count_as_null():
    before = {'name': 'j', 'read': {'iops': 10.0}, 'write': None}
    after = {'name': 'j', 'read': {'iops': 5.0}, 'write': None}
    rows = compare([before], [after], metrics=['iops', 'clat_p99_ns'])
    assert [(r['metric'], r['change_pct'], r['noise_pct'], r['regression'], r['cache_suspect']) for r in rows] == [
        ('iops', -50.0, 0.0, True, False),
        ('clat_p99_ns', None, 0.0, False, False),
    ]


# --------------------------------------------------------------------------- pairing and order

def _keys(rows):
    return [(row['job'], row['direction'], row['metric']) for row in rows]


def test_default_metrics_and_order():
    assert DEFAULT_METRICS == ('bw_bytes', 'iops', 'lat_mean_ns', 'clat_p99_ns')
    before = [_job('mixed', read=_section(), write=_section()), _job('seq-write', write=_section())]
    after = [_job('seq-write', write=_section()), _job('mixed', read=_section(), write=_section())]
    assert _keys(compare(before, after)) == [
        ('mixed', 'read', 'bw_bytes'), ('mixed', 'read', 'iops'), ('mixed', 'read', 'lat_mean_ns'), ('mixed', 'read', 'clat_p99_ns'),
        ('mixed', 'write', 'bw_bytes'), ('mixed', 'write', 'iops'), ('mixed', 'write', 'lat_mean_ns'), ('mixed', 'write', 'clat_p99_ns'),
        ('seq-write', 'write', 'bw_bytes'), ('seq-write', 'write', 'iops'), ('seq-write', 'write', 'lat_mean_ns'),
        ('seq-write', 'write', 'clat_p99_ns'),
    ]


def test_metrics_order_follows_argument():
    rows = compare([_job(write=_section())], [_job(write=_section())], metrics=['clat_p999_ns', 'bw_bytes'])
    assert _keys(rows) == [('seq-write', 'write', 'clat_p999_ns'), ('seq-write', 'write', 'bw_bytes')]


# (case id, before jobs, after jobs, expected (job, direction) pairs)
PAIRING = [
    ('job-only-before', [_job('a', write=_section()), _job('b', write=_section())], [_job('b', write=_section())],
     [('b', 'write')]),
    ('job-only-after', [_job('a', write=_section())], [_job('a', write=_section()), _job('c', write=_section())],
     [('a', 'write')]),
    ('no-common-job', [_job('a', write=_section())], [_job('b', write=_section())], []),
    ('direction-null-after', [_job('m', read=_section(), write=_section())], [_job('m', read=_section(), write=None)],
     [('m', 'read')]),
    ('direction-null-before', [_job('m', read=None, write=_section())], [_job('m', read=_section(), write=_section())],
     [('m', 'write')]),
    ('direction-missing-key', [{'name': 'm', 'write': _section()}], [{'name': 'm', 'read': _section(), 'write': _section()}],
     [('m', 'write')]),
    ('empty-sides', [], [], []),
]


@pytest.mark.parametrize('before, after, expected', [case[1:] for case in PAIRING], ids=[case[0] for case in PAIRING])
def test_pairing(before, after, expected):
    rows = compare(before, after, metrics=['iops'])
    assert [(row['job'], row['direction']) for row in rows] == expected


@pytest.mark.parametrize('wrap_before, wrap_after', [(True, True), (True, False), (False, True), (False, False)])
def test_module_result_dict_and_bare_list(wrap_before, wrap_after):
    before = [_job(write=_section(iops=100.0))]
    after = [_job(write=_section(iops=80.0))]
    if wrap_before:
        before = {'changed': False, 'results': before}
    if wrap_after:
        after = {'changed': False, 'results': after}
    rows = compare(before, after, metrics=['iops'])
    assert [(row['job'], row['change_pct'], row['regression']) for row in rows] == [('seq-write', -20.0, True)]


@pytest.mark.parametrize('suspect_before, suspect_after, expected', [
    (False, False, False), (True, False, True), (False, True, True), (True, True, True), (None, None, False),
])
def test_cache_suspect_either_side(suspect_before, suspect_after, expected):
    row = _one(_job(write=_section(), cache_suspect=suspect_before), _job(write=_section(), cache_suspect=suspect_after))
    assert row['cache_suspect'] is expected


def test_inputs_are_not_modified():
    before = [_job(write=_section(), cov_write=_cov())]
    after = [_job(write=_section(bw=1), cov_write=_cov())]
    saved = copy.deepcopy((before, after))
    compare(before, after)
    assert (before, after) == saved


# --------------------------------------------------------------------------- validation

GOOD = [_job(write=_section())]

# (case id, kwargs, exact message)
ERRORS = [
    ('threshold-string', {'threshold_pct': 'x'}, "threshold_pct must be a number >= 0, got 'x'"),
    ('threshold-negative', {'threshold_pct': -1}, 'threshold_pct must be a number >= 0, got -1'),
    ('threshold-bool', {'threshold_pct': True}, 'threshold_pct must be a number >= 0, got True'),
    ('threshold-none', {'threshold_pct': None}, 'threshold_pct must be a number >= 0, got None'),
    ('threshold-nan', {'threshold_pct': float('nan')}, 'threshold_pct must be a number >= 0, got nan'),
    ('noise-string', {'noise_factor': '2'}, "noise_factor must be a number >= 0, got '2'"),
    ('noise-negative', {'noise_factor': -0.5}, 'noise_factor must be a number >= 0, got -0.5'),
    ('noise-bool', {'noise_factor': False}, 'noise_factor must be a number >= 0, got False'),
    ('metric-unknown', {'metrics': ['bw_bytes', 'foo']}, "unknown metric 'foo' in metrics; accepted: " + ACCEPTED),
    ('metric-not-comparable', {'metrics': ['io_bytes']}, "unknown metric 'io_bytes' in metrics; accepted: " + ACCEPTED),
    ('metric-not-string', {'metrics': [1]}, 'unknown metric 1 in metrics; accepted: ' + ACCEPTED),
    ('metrics-string', {'metrics': 'iops'}, "metrics must be a list of metric names, got 'iops'; accepted: " + ACCEPTED),
    ('metrics-empty', {'metrics': []}, 'metrics must not be empty; accepted: ' + ACCEPTED),
    ('metrics-twice', {'metrics': ['iops', 'iops']}, "metric 'iops' is listed twice in metrics"),
    ('before-string', {'before': 'nope'},
     'before must be the result of iotune.storage.fio (a dict with "results") or its results list, got str'),
    ('after-none', {'after': None},
     'after must be the result of iotune.storage.fio (a dict with "results") or its results list, got NoneType'),
    ('before-dict-without-results', {'before': {'changed': False, 'msg': 'x'}},
     'before must be the result of iotune.storage.fio (a dict with "results") or its results list; '
     'got a dict without "results" (keys: changed, msg)'),
    ('after-results-not-list', {'after': {'results': 'x'}},
     'after.results must be the result of iotune.storage.fio (a dict with "results") or its results list, got str'),
    ('before-result-without-name', {'before': [_job('a'), {'preset': 'seq-read'}]}, 'before[1]: missing job "name"'),
    ('after-result-without-name', {'after': {'results': [{'name': ''}]}}, 'after.results[0]: missing job "name"'),
    ('after-result-not-dict', {'after': ['seq-write']}, 'after[0]: expected a fio job result (a dict), got str'),
    ('before-duplicate-name', {'before': [_job('a'), _job('a')]},
     "before[1]: job name 'a' appears twice in before; job names must be unique"),
    ('after-direction-not-dict', {'after': [_job(write=[1])]}, 'after[0].write: expected a dict of metrics or null, got [1]'),
    ('before-metric-string', {'before': [_job(write={'bw_bytes': '100M'})]},
     "before[0].write.bw_bytes: must be a number >= 0 or null, got '100M'"),
    ('after-metric-negative', {'after': {'results': [_job(write={'bw_bytes': -1})]}},
     'after.results[0].write.bw_bytes: must be a number >= 0 or null, got -1'),
    ('before-cov-not-dict', {'before': [dict(_job(write=_section()), cov=0.1)]},
     "before[0].cov: expected a dict with \"read\" and \"write\", got 0.1"),
    ('after-cv-string', {'after': [_job(write=_section(), cov_write={'bw_bytes': 'high'})]},
     "after[0].cov.write.bw_bytes: must be a number >= 0 or null, got 'high'"),
]


@pytest.mark.parametrize('kwargs, message', [case[1:] for case in ERRORS], ids=[case[0] for case in ERRORS])
def test_validation_errors(kwargs, message):
    arguments = {'before': GOOD, 'after': GOOD, 'metrics': ['bw_bytes']}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match='^' + re.escape(message) + '$'):
        compare(**arguments)


@pytest.mark.parametrize('threshold, noise_factor', [(0, 0), (0.0, 0.0), (25, 1), (float('inf'), 3.5)])
def test_valid_numbers_accepted(threshold, noise_factor):
    rows = compare(GOOD, GOOD, threshold_pct=threshold, noise_factor=noise_factor, metrics=('iops',))
    assert [(row['threshold_pct'], row['significant']) for row in rows] == [(threshold, False)]


# --------------------------------------------------------------------------- what one measurement is worth (issue 54)

MIB = 1048576
LOOP_REASON = "loop0 reads its backing file /var/tmp/disk.img through the host's page cache (direct I/O off)"
LOOP_FIX = 'measure a file system on a real disk, or a file larger than twice the RAM'


def _measured(cv=0.05, clat_mean=1900000, bw_range=(9.5 * MIB, 10.5 * MIB), reached=None, cache_suspect=False):
    """A write job as the fio module returns it, with the fields of issue 54 when given."""
    write = {'bw_bytes': 10 * MIB, 'iops': 10.0, 'lat_mean_ns': 2000000, 'clat_p50_ns': 1800000, 'clat_p99_ns': 5000000}
    if clat_mean is not None:
        write['clat_mean_ns'] = clat_mean
    entry = _job('w', write=write, cov_write=None if cv is None else {'bw_bytes': cv}, cache_suspect=cache_suspect)
    if bw_range is not None:
        entry['bw_range'] = {'read': None, 'write': list(bw_range)}
    if reached is not None:
        entry['reached'] = reached
    return entry


MEMORY = {'medium': 'memory', 'reasons': [LOOP_REASON, 'a second reason'], 'fix': LOOP_FIX}


@pytest.mark.parametrize('entry, kwargs, verdict, detectable, text', [
    # cv 5 %: 2 x 100 x sqrt(0.05^2 + 0.05^2) = 14.14 %, over the 10 % threshold
    (_measured(0.05), {}, 'steady', 14.14, 'steady: a comparison sees changes over 14.1 %'),
    # cv 1 %: the noise (2.83 %) is under the threshold: the threshold is what a comparison sees
    (_measured(0.01), {}, 'steady', 10, 'steady: a comparison sees changes over 10 %'),
    (_measured(0.01), {'threshold_pct': 30}, 'noisy', 30,
     'noisy: changes under 30 % cannot be seen; more repeats, a longer runtime or a quieter host'),
    # cv 44 % (the loop device's): 124.45 %
    (_measured(0.44), {}, 'noisy', 124.45,
     'noisy: changes under 124.5 % cannot be seen; more repeats, a longer runtime or a quieter host'),
    # 25 % is still steady; just over it is not
    (_measured(0.125 / 2 ** 0.5), {}, 'steady', 25.0, 'steady: a comparison sees changes over 25 %'),
    (_measured(0.0885), {}, 'noisy', 25.03,
     'noisy: changes under 25 % cannot be seen; more repeats, a longer runtime or a quieter host'),
    (_measured(0.05), {'noise_factor': 1}, 'steady', 10, 'steady: a comparison sees changes over 10 %'),
    (_measured(None), {}, 'unknown', None, 'noise unknown: the spread over the repeats was not reported'),
    (_measured(0.01, reached=MEMORY), {}, 'memory', 10, 'MEMORY, not the disk: %s; fix: %s' % (LOOP_REASON, LOOP_FIX)),
    (_measured(0.01, reached=dict(MEMORY, fix=None)), {}, 'memory', 10, 'MEMORY, not the disk: %s' % LOOP_REASON),
    # a module without reached: the cache guard's flag
    (_measured(0.01, cache_suspect=True), {}, 'memory', 10,
     'MEMORY, not the disk: buffered I/O on a working set under twice the RAM: the page cache answered; '
     'fix: direct: true, or a size over twice the RAM'),
    (_measured(0.01, reached={'medium': 'device', 'reasons': [], 'fix': None}), {}, 'steady', 10,
     'steady: a comparison sees changes over 10 %'),
])
def test_job_verdict(entry, kwargs, verdict, detectable, text):
    found = job_verdict(entry, **kwargs)
    assert (found['verdict'], found['detectable_pct'], found['text']) == (verdict, detectable, text)


def test_job_verdict_judges_the_noisier_direction_unless_told_which():
    entry = _job('rw', read=_section(), write=_section(), cov_read={'bw_bytes': 0.01}, cov_write={'bw_bytes': 0.2})
    assert job_verdict(entry)['verdict'] == 'noisy' and job_verdict(entry)['cv_pct'] == 20.0
    assert job_verdict(entry, direction='read')['verdict'] == 'steady'


@pytest.mark.parametrize('entry, lines', [
    (_measured(0.05), [
        u'before w write: 10 MiB/s \u00b1 5.0 % (min 9.5 MiB/s, max 10.5 MiB/s), 10 IOPS, completion latency mean '
        u'1.9 ms, p50 1.8 ms, p99 5 ms; steady: a comparison sees changes over 14.1 %']),
    # an older result: no clat_mean_ns, no bw_range; the mean said to be the total latency
    (_measured(0.05, clat_mean=None, bw_range=None), [
        u'before w write: 10 MiB/s \u00b1 5.0 %, 10 IOPS, completion latency p50 1.8 ms, p99 5 ms, total latency mean 2 ms; '
        u'steady: a comparison sees changes over 14.1 %']),
    (_measured(0.44, reached=MEMORY, cache_suspect=True), [
        u'before w write: 10 MiB/s \u00b1 44.0 %% (min 9.5 MiB/s, max 10.5 MiB/s), 10 IOPS, completion latency mean 1.9 ms, '
        u'p50 1.8 ms, p99 5 ms; MEMORY, not the disk: %s; fix: %s' % (LOOP_REASON, LOOP_FIX)]),
    (_measured(None, bw_range=None), [
        u'before w write: 10 MiB/s, 10 IOPS, completion latency mean 1.9 ms, p50 1.8 ms, p99 5 ms; '
        u'noise unknown: the spread over the repeats was not reported']),
])
def test_measurement_lines_say_one_latency_and_judge_the_noise(entry, lines):
    assert measurement_lines([entry], 'before') == lines


def test_measurement_lines_judge_with_the_comparisons_settings():
    assert measurement_lines([_measured(0.05)], 'run', noise_factor=1, threshold_pct=5)[0].endswith(
        '; steady: a comparison sees changes over 7.1 %')


@pytest.mark.parametrize('reached, text', [
    (None, None),
    ({}, None),
    ({'medium': 'device', 'reasons': [], 'fix': None, 'device': 'loop0', 'chain': ['loop0', 'sda']}, 'loop0 over sda'),
    ({'medium': 'device', 'reasons': [], 'fix': None, 'device': 'sdb', 'chain': []}, 'sdb'),
    (dict(MEMORY, device='loop0', chain=['loop0']), 'MEMORY, not the disk: %s; fix: %s' % (LOOP_REASON, LOOP_FIX)),
    ({'medium': 'unknown', 'reasons': ['/mnt, a nfs4 file system'], 'fix': LOOP_FIX},
     'cannot tell what it reached: /mnt, a nfs4 file system; fix: %s' % LOOP_FIX),
])
def test_target_text(reached, text):
    assert target_text(reached) == text


def test_summary_line_of_a_disk_and_of_memory():
    disk = {'results': [_measured(0.05), dict(_measured(0.2), name='r')],
            'reached': {'medium': 'device', 'reasons': [], 'fix': None, 'device': 'sdb', 'chain': ['sdb']}}
    assert summary_line('db1', disk) == (
        u'db1 (sdb): w write 10 MiB/s \u00b1 5.0 %, completion p99 5 ms, steady: a comparison sees changes over 14.1 % | '
        u'r write 10 MiB/s \u00b1 20.0 %, completion p99 5 ms, noisy: changes under 56.6 % cannot be seen; more repeats, '
        u'a longer runtime or a quieter host')
    # the target says why once; a job with another reason says its own
    memory = {'results': [_measured(0.44, reached=MEMORY), _measured(0.01, cache_suspect=True)],
              'reached': dict(MEMORY, device='loop0', chain=['loop0'])}
    assert summary_line('vm1', memory, phase='run') == (
        u'vm1 run (MEMORY, not the disk: %s; fix: %s): w write 10 MiB/s \u00b1 44.0 %%, completion p99 5 ms, MEMORY | '
        u'w write 10 MiB/s \u00b1 1.0 %%, completion p99 5 ms, MEMORY, not the disk: buffered I/O on a working set under '
        u'twice the RAM: the page cache answered; fix: direct: true, or a size over twice the RAM' % (LOOP_REASON, LOOP_FIX))
    assert summary_line('db2', {'results': []}) == 'db2: no job measured'
