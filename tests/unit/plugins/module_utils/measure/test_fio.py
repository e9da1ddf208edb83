# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import math
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import (
    aggregate,
    build_argv,
    cache_suspect,
    cache_warning,
    coefficient_of_variation,
    job_result,
    median,
    METRICS,
    normalize_jobs,
    parse_fio_json,
    preset_sets,
    PRESETS,
    RESULT_METRICS,
)
from ansible_collections.iotune.storage.plugins.plugin_utils._fio_compare import change_lines, format_metric, measurement_lines
FIXTURE_DIR = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures', 'fio')


def _fixture(name):
    with open(os.path.join(FIXTURE_DIR, name)) as handle:
        return handle.read()


FIXTURES = [
    'fio-3.33-seq-read.json',
    'fio-3.33-seq-write.json',
    'fio-3.33-randrw-70-30.json',
    'fio-3.33-randread-direct.json',
    'fio-3.33-libaio-read.json',
    'fio-3.33-sync-iodepth-note.json',
    'fio-3.16-superbench-randrw-latpct.json',
    'fio-3.1-gvisor-write.json',
    'fio-2.1.11-randread.json',
]


@pytest.mark.parametrize('name', FIXTURES)
def test_every_fixture_parses_sanely(name):
    text = _fixture(name)
    raw = json.loads(text[text.index('{'):])
    result = parse_fio_json(text)
    assert result['fio_version'] == raw['fio version']
    assert [job['name'] for job in result['jobs']] == [job['jobname'] for job in raw['jobs']]
    for job, raw_job in zip(result['jobs'], raw['jobs']):
        assert job['error'] == 0
        active = [d for d in ('read', 'write') if job[d] is not None]
        assert active, 'every fixture job did some I/O'
        for direction in ('read', 'write'):
            if raw_job[direction]['io_bytes'] == 0:
                assert job[direction] is None
                continue
            section = job[direction]
            assert sorted(section) == sorted(METRICS)
            scale = 1 if 'io_kbytes' in raw_job[direction] else 1024  # fio 2.x: KiB
            assert section['io_bytes'] == raw_job[direction]['io_bytes'] * scale
            assert section['bw_bytes'] > 0 and section['iops'] > 0 and section['runtime_ms'] > 0
            # bandwidth x runtime is about the bytes moved (ramp/rounding aside)
            moved = section['bw_bytes'] * section['runtime_ms'] / 1000.0
            assert 0.9 < moved / section['io_bytes'] < 1.1
            ps = [section[k] for k in ('clat_p50_ns', 'clat_p95_ns', 'clat_p99_ns', 'clat_p999_ns')]
            if None not in ps:
                assert ps == sorted(ps) and ps[0] > 0


@pytest.mark.parametrize('name, direction, expected', [
    # numbers copied by hand from the JSON files
    ('fio-3.33-seq-read.json', 'read', {
        'io_bytes': 3840933888, 'bw_bytes': 1917590558, 'iops': 1828.756865, 'runtime_ms': 2003,
        'lat_mean_ns': 534493.311766, 'clat_p999_ns': 11599872}),
    ('fio-3.33-randrw-70-30.json', 'write', {
        'io_bytes': 70164480, 'bw_bytes': 35064707, 'iops': 8560.71964, 'runtime_ms': 2001,
        'lat_mean_ns': 2793.765558, 'clat_p999_ns': 24960}),
    ('fio-3.33-randread-direct.json', 'read', {
        'io_bytes': 157011968, 'bw_bytes': 78466750, 'runtime_ms': 2001, 'clat_p999_ns': 162816}),
    ('fio-3.16-superbench-randrw-latpct.json', 'read', {
        'io_bytes': 10463010816, 'bw_bytes': 348743777, 'iops': 85138.890741, 'runtime_ms': 30002,
        'lat_mean_ns': 1446562.147113,
        # lat_percentiles=1: fio reported no clat percentiles
        'clat_p50_ns': None, 'clat_p99_ns': None}),
    # fio 3.1 without bw_bytes: bw is KiB/s
    ('fio-3.1-gvisor-write.json', 'write', {
        'bw_bytes': 1753471 * 1024, 'iops': 438367.892977, 'runtime_ms': 598, 'lat_mean_ns': None,
        'clat_p99_ns': None}),
    # fio 2.x: bw KiB/s, lat/clat microseconds
    ('fio-2.1.11-randread.json', 'read', {
        'io_bytes': 44920 * 1024, 'bw_bytes': 21 * 1024, 'iops': 5, 'runtime_ms': 2127550,
        'lat_mean_ns': 255560.0, 'clat_p50_ns': 243000, 'clat_p95_ns': 370000,
        'clat_p99_ns': 506000, 'clat_p999_ns': 812000}),
])
def test_values_checked_by_hand(name, direction, expected):
    section = parse_fio_json(_fixture(name))['jobs'][0][direction]
    for key, value in expected.items():
        if value is None:
            assert section[key] is None, key
        else:
            assert section[key] == pytest.approx(value), key


@pytest.mark.parametrize('name, none_direction', [
    ('fio-3.33-seq-read.json', 'write'),
    ('fio-3.33-seq-write.json', 'read'),
    ('fio-3.1-gvisor-write.json', 'read'),  # io_bytes 0 although bw is non-zero
    ('fio-2.1.11-randread.json', 'write'),
])
def test_direction_without_io_is_none(name, none_direction):
    assert parse_fio_json(_fixture(name))['jobs'][0][none_direction] is None


def test_text_before_json_is_skipped():
    text = _fixture('fio-3.33-sync-iodepth-note.json')
    assert text.startswith('note:')
    assert parse_fio_json(text)['jobs'][0]['read']['bw_bytes'] == 524288000
    warned = 'fio: some {odd} warning\nfio: another\n' + _fixture('fio-3.33-seq-read.json')
    assert parse_fio_json(warned)['jobs'][0]['name'] == 'seqread'


def test_bytes_input_is_accepted():
    assert parse_fio_json(_fixture('fio-3.33-seq-read.json').encode())['fio_version'] == 'fio-3.33'


def _doc(read=None, write=None, **job):
    base = {'jobname': 'j', 'error': 0}
    base.update(job)
    if read is not None:
        base['read'] = read
    if write is not None:
        base['write'] = write
    return json.dumps({'fio version': 'fio-3.33', 'jobs': [base]})


_IDLE = {'io_bytes': 0, 'bw_bytes': 0, 'iops': 0, 'runtime': 0}


@pytest.mark.parametrize('text, message', [
    ('', 'no fio JSON document'),
    ('fio: engine libaio not loadable\n', 'no fio JSON document'),
    ('{"not": "fio"}', 'no fio JSON document'),
    ('{"jobs": {}}', '"jobs" is not a list'),
    ('{"jobs": [{"read": {}}]}', 'missing "jobname"'),
    (_doc(write=_IDLE), 'missing "read"'),
    (_doc(read=_IDLE, write=_IDLE, mixed={}).replace('"read"', '"x"'), 'unified_rw_reporting'),
    (_doc(read={'bw': 1}, write=_IDLE), 'read: missing "io_bytes"'),
    (_doc(read={'io_bytes': 10, 'iops': 1, 'runtime': 1}, write=_IDLE), 'missing "bw_bytes"'),
    (_doc(read={'io_bytes': 10, 'bw_bytes': 1, 'runtime': 1}, write=_IDLE), 'missing "iops"'),
    (_doc(read={'io_bytes': 10, 'bw_bytes': 1, 'iops': 1}, write=_IDLE), 'missing "runtime"'),
    (_doc(read={'io_bytes': 10, 'bw_bytes': 'x', 'iops': 1, 'runtime': 1}, write=_IDLE), 'not a number'),
])
def test_malformed_input_names_the_problem(text, message):
    with pytest.raises(ValueError, match=message):
        parse_fio_json(text)


def test_non_text_input_is_rejected():
    with pytest.raises(ValueError, match='must be text'):
        parse_fio_json(None)


# --------------------------------------------------------------------------- aggregation

@pytest.mark.parametrize('values, expected', [
    ([5], 5), ([3, 1, 2], 2), ([4, 1, 3, 2], 2.5), ([10, 10], 10),
])
def test_median(values, expected):
    assert median(values) == expected


def test_median_of_nothing_fails():
    with pytest.raises(ValueError):
        median([])


@pytest.mark.parametrize('values, expected', [
    ([7], 0.0),
    ([0, 0, 0], 0.0),
    ([5, 5, 5], 0.0),
    # mean 5, sample variance ((-1)^2 + 1^2) / (2 - 1) = 2, stdev sqrt(2)
    ([4, 6], math.sqrt(2) / 5),
    # mean 100, deviations -10, 0, 10: sample variance 200 / 2 = 100 -> stdev 10
    ([90, 100, 110], 0.1),
])
def test_coefficient_of_variation_uses_sample_stdev(values, expected):
    assert coefficient_of_variation(values) == pytest.approx(expected)


def _run(bw, lat=None, write=None, name='j'):
    read = {metric: None for metric in METRICS}
    read.update({'bw_bytes': bw, 'iops': bw / 4096.0, 'io_bytes': bw * 2, 'runtime_ms': 2000, 'lat_mean_ns': lat})
    return {'fio_version': 'fio-3.33', 'jobs': [{'name': name, 'error': 0, 'read': read, 'write': write}]}


def test_aggregate_median_and_cv():
    result = aggregate([_run(100), _run(300), _run(200)])
    assert result['runs'] == 3
    job = result['jobs'][0]
    assert job['name'] == 'j' and job['errors'] == [0, 0, 0]
    assert job['write'] is None
    assert job['read']['bw_bytes']['median'] == 200
    assert job['read']['bw_bytes']['cv'] == pytest.approx(0.5)  # stdev 100 / mean 200
    assert job['read']['bw_bytes']['samples'] == 3
    assert job['read']['runtime_ms'] == {'median': 2000, 'cv': 0.0, 'samples': 3, 'range': [2000, 2000]}
    assert job['read']['lat_mean_ns'] == {'median': None, 'cv': None, 'samples': 0, 'range': None}


def test_aggregate_single_run_has_zero_cv():
    job = aggregate([_run(123, lat=10)])['jobs'][0]
    assert job['read']['bw_bytes'] == {'median': 123, 'cv': 0.0, 'samples': 1, 'range': [123, 123]}
    assert job['read']['lat_mean_ns']['median'] == 10


def test_aggregate_real_runs():
    runs = [parse_fio_json(_fixture('fio-3.33-randrw-70-30.json'))] * 2
    job = aggregate(runs)['jobs'][0]
    assert job['read']['bw_bytes']['median'] == 81877013
    assert job['write']['clat_p999_ns'] == {'median': 24960, 'cv': 0.0, 'samples': 2, 'range': [24960, 24960]}


@pytest.mark.parametrize('runs, message', [
    ([], 'at least one run'),
    ([_run(1), _run(1, name='other')], 'same jobs'),
])
def test_aggregate_errors(runs, message):
    with pytest.raises(ValueError, match=message):
        aggregate(runs)


# --------------------------------------------------------------------------- argv

def _opts(argv):
    assert all(arg.startswith('--') for arg in argv[1:])
    return dict(arg[2:].split('=', 1) for arg in argv[1:])


@pytest.mark.parametrize('preset, rw, bs', [
    ('seq-read', 'read', '1M'),
    ('seq-write', 'write', '1M'),
    ('rand-read-4k', 'randread', '4k'),
    ('rand-write-4k', 'randwrite', '4k'),
    ('mixed-70-30', 'randrw', '4k'),
    ('copy-like', 'rw', '8M'),
])
def test_build_argv_presets(preset, rw, bs):
    argv = build_argv('/usr/bin/fio', {'preset': preset, 'filename': '/mnt/t/fio.dat'})
    assert argv[0] == '/usr/bin/fio'
    assert argv[-1] == '--output-format=json'
    opts = _opts(argv)
    assert opts['rw'] == rw and opts['bs'] == bs
    assert opts['name'] == preset and opts['filename'] == '/mnt/t/fio.dat'
    assert opts['direct'] == '1'
    assert 'end_fsync' not in opts
    assert len(set(a.split('=')[0] for a in argv[1:])) == len(argv) - 1, 'no duplicate options'


def test_build_argv_full_job():
    argv = build_argv('fio', {
        'preset': 'mixed-70-30', 'filename': '/dev/sdb', 'name': 'db-like', 'size': '1G',
        'runtime': 30, 'ramp_time': '5', 'direct': False, 'ioengine': 'libaio', 'iodepth': 16,
        'bs': '8k', 'extra': {'numjobs': 4, 'norandommap': True},
    })
    assert argv == [
        'fio', '--name=db-like', '--filename=/dev/sdb', '--rw=randrw', '--rwmixread=70', '--bs=8k',
        '--iodepth=16', '--ioengine=libaio', '--direct=0', '--end_fsync=1', '--size=1073741824',
        '--runtime=30', '--time_based=1', '--ramp_time=5', '--norandommap=1', '--numjobs=4',
        '--output-format=json',
    ]


def test_build_argv_copy_like_is_synchronous_large_io():
    opts = _opts(build_argv('fio', {'preset': 'copy-like', 'filename': '/data/f'}))
    assert opts['ioengine'] == 'psync' and opts['iodepth'] == '1' and opts['rwmixread'] == '50'


def test_build_argv_extra_as_list():
    argv = build_argv('fio', {'preset': 'seq-read', 'filename': '/f',
                              'extra': ['--numjobs=2', 'invalidate=1', '--group_reporting']})
    assert argv[-4:] == ['--numjobs=2', '--invalidate=1', '--group_reporting=1', '--output-format=json']


def test_unknown_preset_names_the_accepted_ones():
    with pytest.raises(ValueError) as err:
        build_argv('fio', {'preset': 'fast', 'filename': '/f'})
    for preset in PRESETS:
        assert preset in str(err.value)


@pytest.mark.parametrize('job, message', [
    ({'preset': 'seq-read'}, 'filename is required'),
    ({'preset': 'seq-read', 'filename': '/a:/b'}, 'must not contain ":"'),
    ({'preset': 'seq-read', 'filename': '/f', 'name': 'a b'}, 'job name'),
    ({'preset': 'seq-read', 'filename': '/f', 'direct': 'yes'}, 'direct must be true or false'),
    ({'preset': 'seq-read', 'filename': '/f', 'runtime': -1}, 'runtime must be'),
    ({'preset': 'seq-read', 'filename': '/f', 'ramp_time': '5s'}, 'ramp_time must be'),
    ({'preset': 'seq-read', 'filename': '/f', 'size': 'lots'}, 'size|k, m, g'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'output': '/etc/passwd'}}, 'set by the module'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': ['--output-format=normal']}, 'lower-case'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': ['--filename=/dev/sda']}, 'set by the module'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'rw': 'write'}}, 'set by the module'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'exec_prerun': 'rm -rf /'}}, 'not allowed'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'exec_postrun': 'reboot'}}, 'not allowed'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'write_lat_log': 'x'}}, 'not allowed'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'ioscheduler': 'none'}}, 'not allowed'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'status_interval': 1}}, 'not allowed'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'Numjobs': 1}}, 'lower-case'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'numjobs': '2\n[evil]'}}, 'newlines'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'numjobs': ''}}, 'non-empty'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': ['--end_fsync=1', '--end_fsync=0']}, 'already set'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': 'numjobs=2'}, 'dict or a list'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': [3]}, 'not a string'),
])
def test_build_argv_validation(job, message):
    with pytest.raises(ValueError, match=message):
        build_argv('fio', job)


def test_build_argv_needs_fio_bin():
    with pytest.raises(ValueError, match='fio_bin'):
        build_argv('', {'preset': 'seq-read', 'filename': '/f'})


def test_buffered_write_preset_flushes_at_end():
    opts = _opts(build_argv('fio', {'preset': 'seq-write', 'filename': '/f', 'direct': False}))
    assert opts['direct'] == '0' and opts['end_fsync'] == '1'


# --------------------------------------------------------------------------- cache check

GIB = 1024 ** 3


@pytest.mark.parametrize('direct, working_set, mem, expected', [
    (True, 1 * GIB, 64 * GIB, False),
    (True, 1 * GIB, None, False),
    (False, 1 * GIB, 64 * GIB, True),
    (False, 127 * GIB, 64 * GIB, True),
    (False, 128 * GIB, 64 * GIB, False),
    (False, 300 * GIB, 64 * GIB, False),
    (False, 1 * GIB, None, True),
])
def test_cache_suspect(direct, working_set, mem, expected):
    assert cache_suspect(direct, working_set, mem) is expected


@pytest.mark.parametrize('working_set, mem', [(-1, GIB), (GIB, '8G'), (None, GIB)])
def test_cache_suspect_rejects_bad_sizes(working_set, mem):
    with pytest.raises(ValueError):
        cache_suspect(False, working_set, mem)


# --------------------------------------------------------------------------- module helpers

def test_raw_rw_job():
    opts = _opts(build_argv('fio', {'rw': 'randrw', 'rwmixread': 80, 'filename': '/f', 'direct': False}))
    assert opts['rw'] == 'randrw' and opts['bs'] == '4k' and opts['rwmixread'] == '80'
    assert opts['name'] == 'randrw' and opts['end_fsync'] == '1', 'a buffered job that writes includes its flush'
    opts = _opts(build_argv('fio', {'rw': 'read', 'filename': '/f', 'direct': False}))
    assert 'end_fsync' not in opts


@pytest.mark.parametrize('job, message', [
    ({'rw': 'trim', 'filename': '/f'}, "unknown rw 'trim'"),
    ({'rw': 'read', 'preset': 'seq-read', 'filename': '/f'}, 'either a preset or rw'),
    ({'rw': 'read', 'rwmixread': 50, 'filename': '/f'}, 'rwmixread applies only'),
    ({'preset': 'seq-read', 'ioengine': 'exec', 'filename': '/f'}, "unknown ioengine 'exec'"),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'allow_mounted_write': 1}}, 'not allowed'),
    ({'preset': 'seq-read', 'filename': '/f', 'extra': {'cgroup': 'x'}}, 'not allowed'),
])
def test_raw_job_validation(job, message):
    with pytest.raises(ValueError, match=message):
        build_argv('fio', job)


def test_normalize_jobs():
    jobs = normalize_jobs(['seq-read', {'rw': 'write', 'bs': '8k', 'options': {'numjobs': 2}}, {'preset': 'copy-like', 'name': 'cp8m'}])
    assert jobs == [
        {'preset': 'seq-read', 'name': 'seq-read'},
        {'rw': 'write', 'bs': '8k', 'extra': {'numjobs': 2}, 'name': 'write'},
        {'preset': 'copy-like', 'name': 'cp8m'},
    ]
    assert preset_sets(jobs[2], 'ioengine') and not preset_sets(jobs[0], 'ioengine') and not preset_sets(jobs[1], 'ioengine')


def test_job_result_takes_medians_and_cov():
    runs = [parse_fio_json(_fixture('fio-3.33-randrw-70-30.json'))] * 3
    job = {'preset': 'mixed-70-30', 'name': runs[0]['jobs'][0]['name'], 'direct': True}
    result = job_result(aggregate(runs)['jobs'][0], job, False)
    assert result['rw'] == 'randrw' and result['cache_suspect'] is False
    assert result['read']['bw_bytes'] == runs[0]['jobs'][0]['read']['bw_bytes']
    assert result['cov']['read']['bw_bytes'] == 0.0 and set(result['cov']['write']) == set(RESULT_METRICS)


@pytest.mark.parametrize('metric, value, text', [
    ('bw_bytes', 104857600, '100 MiB/s'),
    ('bw_bytes', 1536, '1.5 KiB/s'),
    ('iops', 1234.4, '1.2k IOPS'),
    ('clat_p99_ns', 850000, '850 µs'),
    ('lat_mean_ns', 12300000, '12.3 ms'),
    ('clat_p99_ns', None, 'n/a'),
])
def test_format_metric(metric, value, text):
    assert format_metric(metric, value) == text


def test_cache_warning_says_what_to_do():
    text = cache_warning('r', 268435456, 8 * 1073741824)
    assert '256 MiB working set with 8 GiB of RAM' in text and 'at least 16 GiB' in text and 'direct: true' in text
    assert 'unknown amount of RAM' in cache_warning('r', 1, None)


def test_measurement_and_change_lines():
    result = {'name': 'w', 'cache_suspect': True, 'read': None, 'cov': {'write': {'bw_bytes': 0.05}},
              'write': {'bw_bytes': 10485760, 'iops': 10, 'lat_mean_ns': 2000000, 'clat_p99_ns': 5000000}}
    assert measurement_lines([result], 'before') == [
        'before w write: 10 MiB/s ± 5.0 %, 10 IOPS, completion latency p50 n/a, p99 5 ms, total latency mean 2 ms; MEMORY, '
        'not the disk: buffered I/O on a working set under twice the RAM: the page cache answered; fix: direct: true, or a size '
        'over twice the RAM']
    rows = [{'job': 'w', 'direction': 'write', 'metric': 'bw_bytes', 'before': 10485760, 'after': 1048576,
             'change_pct': -90.0, 'threshold_pct': 10, 'noise_pct': 4.2, 'significant': True, 'regression': True},
            {'job': 'w', 'direction': 'write', 'metric': 'iops', 'before': 10, 'after': 9,
             'change_pct': -10.0, 'threshold_pct': 10, 'noise_pct': 4.2, 'significant': False, 'regression': False}]
    assert change_lines(rows) == ['REGRESSION: w write bw_bytes 10 MiB/s -> 1 MiB/s (-90.0 %, threshold 10 %, noise 4.2 %)']
    assert change_lines(rows[1:]) == ['no significant change (threshold 10 % and the noise)']
    # a change measured from memory is never shown as a disk's
    assert change_lines([dict(rows[0], cache_suspect=True)]) == [
        'REGRESSION: w write bw_bytes 10 MiB/s -> 1 MiB/s (-90.0 %, threshold 10 %, noise 4.2 %), MEMORY, not the disk']


def test_detectable_pct_is_the_threshold_or_the_noise_of_two_measurements():
    from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import detectable_pct
    assert detectable_pct(0.0) == 10.0 and detectable_pct(None) == 10.0
    assert detectable_pct(0.44) == 124.45  # the loop device's 44 % noise of issue 54: a comparison sees only changes over 124 %
    assert detectable_pct(0.05, noise_factor=1, threshold_pct=0) == 7.07
