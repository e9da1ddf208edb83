# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench_charts / bench_fleet, and the Benchmarks section of report.html (plugin_utils/_fleet_report)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import json
import os
import re
import shutil
import subprocess
from xml.etree import ElementTree

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter import report as report_filters
from ansible_collections.iotune.storage.plugins.filter.report import FilterModule, bench_charts, bench_fleet
from ansible_collections.iotune.storage.plugins.plugin_utils import _bench_chart as bc
from ansible_collections.iotune.storage.plugins.plugin_utils import _fleet_report as fleet_report

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
DATA = re.compile(r'<script type="application/json" id="iotune-data">(.*?)</script>', re.S)
FIXTURE = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'reports', 'bench-two-hosts.json')
STATUSES = ['compliant', 'drift', 'not_persistent', 'not_applicable', 'error']
MIB = 1024 * 1024


def section(bw=None, iops=None, lat=None, p99=None):
    return {'bw_bytes': bw, 'iops': iops, 'lat_mean_ns': lat, 'clat_p50_ns': None,
            'clat_p95_ns': None, 'clat_p99_ns': p99, 'clat_p999_ns': None}


def job(name, read=None, write=None, cache_suspect=False):
    return {'name': name, 'preset': name, 'cache_suspect': cache_suspect, 'cov': {'read': None, 'write': None},
            'read': read, 'write': write}


def row(job_name, direction, metric, before, after, regression=False, improvement=False):
    if before in (None, 0) or after is None:
        change = worse = None
    else:
        change = (after - before) / before * 100
        worse = -change
    return {'job': job_name, 'direction': direction, 'metric': metric,
            'better': 'higher' if metric in ('bw_bytes', 'iops') else 'lower',
            'before': before, 'after': after, 'change_pct': change, 'worse_pct': worse,
            'noise_pct': 2.0, 'threshold_pct': 10.0, 'significant': regression or improvement,
            'regression': regression, 'improvement': improvement, 'cache_suspect': False}


def bench(phases, jobs_by_phase, comparison=(), recovery=(), regressions=(), rolled_back=False, recovered=None):
    return {
        'threshold_pct': 10.0,
        'rollback_on_regression': True,
        'phases': list(phases),
        'results': dict((phase, {'fio_version': '3.33', 'wall_s': 1.0, 'results': jobs})
                        for phase, jobs in jobs_by_phase.items()),
        'comparison': list(comparison),
        'recovery': list(recovery),
        'regressions': list(regressions),
        'rolled_back': rolled_back,
        'recovered': recovered,
    }


def seq_write(bws, phases=('before', 'after', 'after_rollback'), **kwargs):
    """A benchmark of one write job with the given bandwidth per phase (None: no write section)."""
    return bench(phases, dict(
        (phase, [job('seq-write', write=None if bw is None else section(bw, bw / MIB, 1e6, 2e6))])
        for phase, bw in zip(phases, bws)), **kwargs)


def chart(charts, job_name, direction, metric):
    found = [c for c in charts['charts'] if (c['job'], c['direction'], c['metric']) == (job_name, direction, metric)]
    assert len(found) == 1, (job_name, direction, metric, [c['id'] for c in charts['charts']])
    return found[0]


# --------------------------------------------------------------------------- labels

@pytest.mark.parametrize('value, expected', [
    (None, 'n/a'),
    (-90.0, '-90.0 %'),
    (12.345, '+12.3 %'),
    (0.0, '0.0 %'),
    (-0.04, '0.0 %'),
    (900, '+900.0 %'),
])
def test_format_pct(value, expected):
    assert bc.format_pct(value) == expected


@pytest.mark.parametrize('first, value, expected', [
    (100, 10, -90.0),
    (100, 130, 30.0),
    (100, None, None),
    (None, 10, None),
    (0, 10, None),
])
def test_change_pct(first, value, expected):
    assert bc.change_pct(first, value) == expected


# --------------------------------------------------------------------------- bench_charts

def test_filters_are_registered_with_doc_files():
    filters = FilterModule().filters()
    assert {'bench_charts', 'bench_fleet'} <= set(filters)
    for name in ('bench_charts', 'bench_fleet'):
        path = os.path.join(os.path.dirname(os.path.abspath(report_filters.__file__)), name + '.yml')
        with open(path) as handle:
            doc = yaml.safe_load(handle)
        assert doc['DOCUMENTATION']['name'] == name
        assert doc['RETURN']['_value']['type'] == 'dict'


@pytest.mark.parametrize('benchmark', [None, {}])
def test_no_benchmark_no_charts(benchmark):
    charts = bench_charts(benchmark)
    assert charts['count'] == 0 and charts['charts'] == [] and charts['groups'] == []
    assert charts['phases'] == [] and charts['rolled_back'] is False and charts['recovered'] is None


@pytest.mark.parametrize('bad', ['before', ['before'], 3])
def test_bench_charts_rejects_other_types(bad):
    with pytest.raises(AnsibleFilterError, match='bench_charts expects'):
        bench_charts(bad)


@pytest.mark.parametrize('benchmark', [
    {'phases': ['before'], 'results': {'before': 'fio output'}},
    {'phases': ['before'], 'results': ['before']},
])
def test_bench_charts_malformed_benchmark_is_a_filter_error(benchmark):
    with pytest.raises(AnsibleFilterError, match='malformed'):
        bench_charts(benchmark)


def test_bench_charts_skips_what_is_not_a_job():
    charts = bench_charts({'phases': ['before'], 'results': {'before': {'results': ['seq-write', None, {'preset': 'x'}]}}})
    assert charts['phases'] == ['before'] and charts['count'] == 0


@pytest.mark.parametrize('bws, heights, fractions', [
    # the largest value is a full bar, the others in proportion
    ((100 * MIB, 50 * MIB, 25 * MIB), (bc.PLOT, bc.PLOT / 2, bc.PLOT / 4), (1.0, 0.5, 0.25)),
    ((10 * MIB, 100 * MIB, 99 * MIB), (bc.PLOT / 10, bc.PLOT, round(bc.PLOT * 0.99, 1)), (0.1, 1.0, 0.99)),
    ((0, 0, 0), (0, 0, 0), (0, 0, 0)),
    ((5 * MIB, 5 * MIB, 5 * MIB), (bc.PLOT,) * 3, (1.0,) * 3),
])
def test_common_scale_per_chart(bws, heights, fractions):
    bw = chart(bench_charts(seq_write(bws)), 'seq-write', 'write', 'bw_bytes')
    assert [item['height'] for item in bw['bars']] == [pytest.approx(h, abs=0.05) for h in heights]
    assert [item['fraction'] for item in bw['bars']] == [pytest.approx(f, abs=1e-3) for f in fractions]
    # bars stand on the axis, side by side, inside the chart
    for item in bw['bars']:
        assert item['y'] + item['height'] == pytest.approx(bw['axis_y'], abs=0.05)
        assert 0 <= item['x'] and item['x'] + item['width'] <= bw['width']
        assert item['y'] >= bc.TOP
    lefts = [item['x'] for item in bw['bars']]
    assert all(b['x'] + b['width'] < lefts[i + 1] for i, b in enumerate(bw['bars'][:-1]))
    assert bw['height'] == bc.TOP + bc.PLOT + bc.BOTTOM


def test_one_chart_per_job_direction_metric_in_order():
    benchmark = bench(['before', 'after'], {
        'before': [job('mixed', read=section(70 * MIB, 17920, 1.2e6, 4e6), write=section(30 * MIB, 7680, 1.5e6, 5e6)),
                   job('seq-read', read=section(200 * MIB, 200, 5e6, 8e6))],
        'after': [job('mixed', read=section(68 * MIB, 17408, 1.24e6, 4.2e6), write=section(29 * MIB, 7424, 1.55e6, 5.2e6)),
                  job('seq-read', read=section(210 * MIB, 210, 4.8e6, 7.9e6))],
    })
    charts = bench_charts(benchmark)
    assert charts['count'] == 12 == len(charts['charts'])
    assert [(g['job'], g['direction']) for g in charts['groups']] == [('mixed', 'read'), ('mixed', 'write'), ('seq-read', 'read')]
    assert [c['metric'] for c in charts['groups'][0]['charts']] == ['bw_bytes', 'iops', 'lat_mean_ns', 'clat_p99_ns']
    assert all(len(c['bars']) == 2 for c in charts['charts'])
    assert [b['phase'] for b in charts['charts'][0]['bars']] == ['before', 'after']


@pytest.mark.parametrize('metric, before, after, labels, change', [
    ('bw_bytes', 100 * MIB, 10 * MIB, ['100 MiB/s', '10 MiB/s'], '-90.0 %'),
    ('iops', 1234.0, 1000.0, ['1.2k IOPS', '1k IOPS'], '-19.0 %'),
    ('lat_mean_ns', 850000.0, 12300000.0, [u'850 \u00b5s', '12.3 ms'], '+1347.1 %'),
    ('clat_p99_ns', 2000000, 2000000, ['2 ms', '2 ms'], '0.0 %'),
])
def test_labels_and_change(metric, before, after, labels, change):
    values = {'before': section(1, 1, 1, 1), 'after': section(1, 1, 1, 1)}
    values['before'][metric] = before
    values['after'][metric] = after
    charts = bench_charts(bench(['before', 'after'], {
        'before': [job('j', read=values['before'])], 'after': [job('j', read=values['after'])]}))
    bars = chart(charts, 'j', 'read', metric)['bars']
    assert [b['label'] for b in bars] == labels
    assert [b['change_label'] for b in bars] == ['', change]
    assert bars[0]['change_pct'] is None


@pytest.mark.parametrize('phases, present, expected', [
    # a phase without a result has no bar
    (['before', 'after', 'after_rollback'], ['before', 'after'], ['before', 'after']),
    (['before', 'after'], ['after'], ['after']),
    # a result the phase list does not name comes last
    (['before'], ['before', 'after'], ['before', 'after']),
    (['run'], ['run'], ['run']),
    ([], [], []),
])
def test_bars_of_the_measured_phases(phases, present, expected):
    jobs = dict((phase, [job('seq-write', write=section(MIB, 1, 1, 1))]) for phase in present)
    charts = bench_charts(bench(phases, jobs))
    assert charts['phases'] == expected
    assert all([b['phase'] for b in c['bars']] == expected for c in charts['charts'])
    assert charts['count'] == (4 if expected else 0)


def test_single_run_has_no_change():
    charts = bench_charts(bench(['run'], {'run': [job('seq-write', write=section(MIB, 1, 1, 1))]}))
    assert charts['count'] == 4
    for c in charts['charts']:
        assert len(c['bars']) == 1 and c['bars'][0]['change_label'] == '' and c['bars'][0]['height'] == bc.PLOT
        assert c['regression'] is False and c['improvement'] is False


def test_job_missing_from_a_phase_is_a_missing_bar():
    charts = bench_charts(bench(['before', 'after'], {
        'before': [job('a', write=section(MIB, 1, 1, 1)), job('b', read=section(2 * MIB, 2, 2, 2))],
        'after': [job('a', write=section(MIB, 1, 1, 1))],
    }))
    bars = chart(charts, 'b', 'read', 'bw_bytes')['bars']
    assert [b['missing'] for b in bars] == [False, True]
    assert bars[1]['label'] == 'n/a' and bars[1]['height'] == 0 and bars[1]['change_label'] == ''
    assert bars[0]['height'] == bc.PLOT


@pytest.mark.parametrize('before, after, heights, labels', [
    (None, 2e6, [0, bc.PLOT], ['n/a', '2 ms']),
    (2e6, None, [bc.PLOT, 0], ['2 ms', 'n/a']),
    (None, None, [0, 0], ['n/a', 'n/a']),
    (1e6, 2e6, [bc.PLOT / 2, bc.PLOT], ['1 ms', '2 ms']),
])
def test_null_metrics(before, after, heights, labels):
    charts = bench_charts(bench(['before', 'after'], {
        'before': [job('r', read=section(MIB, 1, 1, before))],
        'after': [job('r', read=section(MIB, 1, 1, after))],
    }))
    p99 = chart(charts, 'r', 'read', 'clat_p99_ns')
    assert [b['height'] for b in p99['bars']] == heights
    assert [b['label'] for b in p99['bars']] == labels
    assert p99['bars'][1]['change_label'] == ('n/a' if after is not None and before is None else
                                              '' if after is None else '+100.0 %')
    # the other metrics of the job are unaffected
    assert [b['height'] for b in chart(charts, 'r', 'read', 'bw_bytes')['bars']] == [bc.PLOT, bc.PLOT]


@pytest.mark.parametrize('read_before, read_after, write_before, write_after, directions', [
    # a direction without I/O in every phase has no charts
    (section(MIB, 1, 1, 1), section(MIB, 1, 1, 1), None, None, [('read', [False, False])]),
    (None, None, section(MIB, 1, 1, 1), section(MIB, 1, 1, 1), [('write', [False, False])]),
    # I/O in one phase only: the chart is there, the other bar is missing
    (section(MIB, 1, 1, 1), None, None, section(MIB, 1, 1, 1), [('read', [False, True]), ('write', [True, False])]),
    (None, None, None, None, []),
])
def test_nulls_in_directions(read_before, read_after, write_before, write_after, directions):
    charts = bench_charts(bench(['before', 'after'], {
        'before': [job('j', read=read_before, write=write_before)],
        'after': [job('j', read=read_after, write=write_after)],
    }))
    assert [(g['direction'], [b['missing'] for b in g['charts'][0]['bars']]) for g in charts['groups']] == directions
    assert charts['count'] == 4 * len(directions)


def test_regression_and_recovery_flags_from_rows():
    comparison = [row('seq-write', 'write', 'bw_bytes', 100 * MIB, 10 * MIB, regression=True),
                  row('seq-write', 'write', 'lat_mean_ns', 1e6, 0.5e6, improvement=True),
                  row('seq-write', 'write', 'iops', 100, 99)]
    recovery = [row('seq-write', 'write', 'iops', 100, 50, regression=True)]
    benchmark = seq_write((100 * MIB, 10 * MIB, 99 * MIB), comparison=comparison, recovery=recovery,
                          regressions=comparison[:1], rolled_back=True, recovered=False)
    charts = bench_charts(benchmark)
    bw = chart(charts, 'seq-write', 'write', 'bw_bytes')
    assert (bw['regression'], bw['improvement']) == (True, False)
    assert [b['regression'] for b in bw['bars']] == [False, True, False]
    assert bw['regressed_in'] == ['after']
    assert 'regression' in bw['bars'][1]['tooltip'] and 'threshold 10.0 %' in bw['bars'][1]['tooltip']
    lat = chart(charts, 'seq-write', 'write', 'lat_mean_ns')
    assert (lat['regression'], lat['improvement']) == (False, True)
    # the recovery row describes the after_rollback bar
    iops = chart(charts, 'seq-write', 'write', 'iops')
    assert (iops['regression'], iops['regressed_in']) == (False, ['after_rollback'])
    assert [b['regression'] for b in iops['bars']] == [False, False, True]
    assert charts['groups'][0]['regression'] is True and charts['groups'][0]['improvement'] is True
    assert (charts['rolled_back'], charts['recovered']) == (True, False)
    assert [t['text'] for t in charts['triggers']] == ['seq-write write bandwidth -90.0 %']
    assert charts['trigger_groups'] == [{'job': 'seq-write', 'direction': 'write', 'metrics': ['bandwidth -90.0 %']}]
    assert charts['improvement_groups'] == [{'job': 'seq-write', 'direction': 'write', 'metrics': ['mean total latency -50.0 %']}]


@pytest.mark.parametrize('flags, expected', [
    ([False, False, False], False),
    ([False, True, False], True),
    ([True, True, True], True),
])
def test_cache_suspect_in_any_phase_flags_the_job(flags, expected):
    phases = ['before', 'after', 'after_rollback']
    charts = bench_charts(bench(phases, dict(
        (phase, [job('rr', read=section(MIB, 256, 1e5, 2e5), cache_suspect=flag)]) for phase, flag in zip(phases, flags))))
    assert charts['groups'][0]['cache_suspect'] is expected
    assert all(c['cache_suspect'] is expected for c in charts['charts'])


# --------------------------------------------------------------------------- bench_fleet

def report(host, benchmark=None):
    result = {'host': host, 'mode': 'harden', 'summary': dict((s, 0) for s in STATUSES), 'checks': []}
    if benchmark is not None:
        result['benchmark'] = benchmark
    return result


@pytest.mark.parametrize('reports', [[], [report('a')], [report('a'), report('b')]])
def test_fleet_without_benchmarks(reports):
    fleet = bench_fleet(reports)
    assert fleet['hosts'] == [] and fleet['rows'] == [] and fleet['count'] == 0


@pytest.mark.parametrize('bad', [None, 'db1', {'host': 'db1'}])
def test_bench_fleet_rejects_other_types(bad):
    with pytest.raises(AnsibleFilterError, match='bench_fleet expects'):
        bench_fleet(bad)


@pytest.mark.parametrize('read_bw, write_bw, expected', [
    (70 * MIB, 30 * MIB, 'read'),
    (30 * MIB, 70 * MIB, 'write'),
    (50 * MIB, 50 * MIB, 'read'),       # a tie: read
    (None, 10, 'write'),                # a direction without bandwidth loses
    ('no', None, 'read'),               # no number either side: the first direction with I/O
])
def test_headline_direction(read_bw, write_bw, expected):
    assert bc.headline_direction(job('j', read=section(read_bw), write=section(write_bw))) == expected


def test_headline_direction_without_io():
    assert bc.headline_direction(job('j')) is None


@pytest.mark.parametrize('before, after, change, tone, left', [
    (100 * MIB, 10 * MIB, -90.0, 'regression', True),
    (200 * MIB, 260 * MIB, 30.0, 'improvement', False),
    (100 * MIB, 99 * MIB, -1.0, 'neutral', True),
    (100 * MIB, None, None, 'neutral', False),
])
def test_fleet_bar_direction_and_tone(before, after, change, tone, left):
    comparison = [row('seq-write', 'write', 'bw_bytes', before, after,
                      regression=tone == 'regression', improvement=tone == 'improvement')]
    fleet = bench_fleet([report('db1', seq_write((before, after), phases=('before', 'after'), comparison=comparison))])
    (host,) = fleet['hosts']
    assert host['phases'] == ['before', 'after']
    (entry,) = host['jobs']
    assert (entry['job'], entry['direction'], entry['metric']) == ('seq-write', 'write', 'bw_bytes')
    assert entry['change_pct'] == change
    (item,) = fleet['rows']
    assert item['tone'] == tone
    if change is None:
        assert item['width'] == 0 and item['change_label'] == 'n/a'
    elif left:
        assert item['x'] + item['width'] == pytest.approx(fleet['zero_x']) and item['width'] > 0
    else:
        assert item['x'] == fleet['zero_x'] and item['width'] > 0
    assert fleet['zero_x'] - bc.FLEET_HALF <= item['x'] <= item['x'] + item['width'] <= fleet['zero_x'] + bc.FLEET_HALF


@pytest.mark.parametrize('changes, scale, clipped', [
    ([-90.0, 30.0], 100.0, [False, False]),
    ([-30.0, 5.0], 50.0, [False, False]),
    ([3.0], 10.0, [False]),
    ([-22.0], 25.0, [False]),
    ([250.0, -10.0], 100.0, [True, False]),
])
def test_fleet_scale(changes, scale, clipped):
    reports = [report('h%d' % i, seq_write((100.0, 100.0 * (1 + c / 100)), phases=('before', 'after')))
               for i, c in enumerate(changes)]
    fleet = bench_fleet(reports)
    assert fleet['scale_pct'] == scale
    assert [r['clipped'] for r in fleet['rows']] == clipped
    assert [t['x'] for t in fleet['ticks']] == [fleet['zero_x'] + k * bc.FLEET_HALF for k in (-1, -0.5, 0, 0.5, 1)]
    for r, c in zip(fleet['rows'], changes):
        assert r['width'] == pytest.approx(min(abs(c), scale) / scale * bc.FLEET_HALF, abs=0.1)


def test_fleet_rows_grouped_by_job_with_flags():
    db1 = seq_write((100 * MIB, 10 * MIB, 99 * MIB), rolled_back=True, recovered=True,
                    regressions=[row('seq-write', 'write', 'iops', 100, 10, regression=True)])
    db1['results']['before']['results'].append(job('rr', read=section(MIB, 256, 1e5, 2e5), cache_suspect=True))
    web1 = seq_write((200 * MIB, 260 * MIB), phases=('before', 'after'))
    single = bench(['run'], {'run': [job('seq-write', write=section(MIB, 1, 1, 1))]})
    fleet = bench_fleet([report('db1', db1), report('nobench'), report('web1', web1), report('x' * 40, single)])
    assert [h['host'] for h in fleet['hosts']] == ['db1', 'web1', 'x' * 40]
    assert [(h['rolled_back'], h['recovered']) for h in fleet['hosts']] == [(True, True), (False, None), (False, None)]
    assert [(r['job'], r['host']) for r in fleet['rows']] == [
        ('seq-write', 'db1'), ('seq-write', 'web1'), ('seq-write', 'x' * 40), ('rr', 'db1')]
    assert [j['job'] for j in fleet['jobs']] == ['seq-write', 'rr']
    first = fleet['rows'][0]
    assert first['note'] == u'-90.0 % \u00b7 rolled back \u00b7 recovered'
    # another metric of the job regressed: said in the tooltip, the bar keeps its own tone
    assert first['job_regression'] is True and first['tone'] == 'neutral'
    assert 'another metric of this job regressed' in first['tooltip']
    assert fleet['rows'][2]['change_label'] == 'single run' and fleet['rows'][2]['change_pct'] is None
    assert fleet['rows'][2]['host_label'] == 'x' * (bc.HOST_CHARS - 1) + u'\u2026'
    rr = fleet['rows'][3]
    assert rr['cache_suspect'] is True and rr['note'] == u'n/a \u00b7 rolled back \u00b7 recovered \u00b7 MEMORY, not the disk'
    assert rr['verdict']['verdict'] == 'memory' and rr['tooltip'].endswith(
        '; MEMORY, not the disk: buffered I/O on a working set under twice the RAM: the page cache answered; '
        'fix: direct: true, or a size over twice the RAM')
    # rows never overlap and stay inside the svg
    ys = [r['y'] for r in fleet['rows']]
    assert all(b - a >= bc.FLEET_ROW for a, b in zip(ys, ys[1:]))
    assert fleet['height'] > ys[-1] + fleet['rows'][-1]['height']


# --------------------------------------------------------------------------- the fleet files

RUN_ID = '20240501T120000Z'


def render(reports):
    return fleet_report.report_html(reports, RUN_ID)


@pytest.fixture(name='reports')
def reports_fixture():
    with open(FIXTURE) as handle:
        return json.load(handle)


def test_fixture_is_one_rolled_back_and_one_kept_host(reports):
    assert [r['host'] for r in reports] == ['db1.example.com', 'web1.example.com']
    db1, web1 = [r['benchmark'] for r in reports]
    assert db1['rolled_back'] and db1['recovered'] and db1['regressions']
    assert not web1['rolled_back'] and web1['recovered'] is None and not web1['regressions']
    assert any(r['improvement'] for r in web1['comparison'])


def test_report_renders_the_charts(reports):
    html = render(reports)
    charts = [bench_charts(r['benchmark']) for r in reports]
    # db1: seq-write write, rand-read-4k read, mixed-70-30 read and write; web1: seq-write, rand-read-4k
    assert [c['count'] for c in charts] == [16, 8]
    assert re.search(r'<section id="benchmarks" data-charts="24">', html)
    assert html.count('<svg') == 24 + 1                                 # the charts and the fleet view
    assert html.count('<rect class="bar') == 16 * 3 + 8 * 2           # one bar per phase
    assert html.count('<rect class="bar phase-after_rollback') == 16
    assert html.count('<rect class="fleet-bar') == 5
    assert html.count('<rect class="fleet-bar tone-regression') == 1
    assert html.count('<rect class="fleet-bar tone-improvement') == 1
    assert html.count('class="flag memory"') == 1                      # rand-read-4k on db1
    for text in ('100 MiB/s', '10 MiB/s', '99 MiB/s', '-90.0 %', '+30.0 %', '260 MiB/s', u'850 \u00b5s',
                 '10.2k IOPS', '90 ms', 'after rollback', '<b>Rolled back</b>', '<b>Recovered</b>', '<b>Kept</b>',
                 '<b>seq-write write</b> (bandwidth -90.0 %', '<title>'):
        assert text in html, text
    # the checks and the script that shows them are still there
    assert len(json.loads(DATA.search(html).group(1))['checks']) == 3 and 'data-rendered' in html
    assert html.index('id="fleet"') < html.index('id="benchmarks"') < html.index('<script>')


def test_report_escapes_names(reports):
    evil = u'<img src=x onerror="alert(1)">&amp;'
    reports = copy.deepcopy(reports)
    reports[0]['host'] = u'db1<script>alert(1)</script>'
    for phase in reports[0]['benchmark']['results'].values():
        phase['results'][0]['name'] = evil
    for key in ('comparison', 'regressions', 'recovery'):
        for item in reports[0]['benchmark'][key]:
            if item['job'] == 'seq-write':
                item['job'] = evil
    html = render(reports)
    assert '<img' not in html and '<script>alert' not in html
    assert 'db1&lt;script&gt;alert(1)&lt;/script&gt;' in html
    assert '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;' in html
    assert html.count('<svg') == 25


def test_report_without_benchmarks_is_unchanged(reports):
    plain = copy.deepcopy(reports)
    for item in plain:
        del item['benchmark']
    html = render(plain)
    for text in ('<svg', 'benchmark', 'Benchmarks', 'data-charts', '.bar', 'phase-'):
        assert text not in html, text
    # a null benchmark is no benchmark
    plain[0]['benchmark'] = None
    assert render(plain) == html
    assert len(json.loads(DATA.search(html).group(1))['checks']) == 3
    # the same page, minus the benchmarks section, its style and its link
    full = render(reports)
    stripped = re.sub(r'<section id="benchmarks".*?</section>\n', '', full, flags=re.S)
    stripped = re.sub(r'#benchmarks h2.*?\n(?=</style>)', '', stripped, flags=re.S)
    stripped = stripped.replace(' &middot; <a href="#benchmarks">2 benchmark(s)</a>', '')
    assert stripped == html


CHROMIUM = shutil.which('chromium')


@pytest.mark.skipif(CHROMIUM is None, reason='chromium is not on PATH')
def test_report_in_chromium(reports, tmp_path):
    page = tmp_path / 'report.html'
    page.write_text(render(reports), encoding='utf-8')
    shot = tmp_path / 'report.png'
    common = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--user-data-dir=%s' % (tmp_path / 'profile')]
    env = dict(os.environ, HOME=str(tmp_path))
    subprocess.run(common + ['--screenshot=%s' % shot, '--window-size=1400,2000', 'file://%s' % page],
                   check=True, timeout=180, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    data = shot.read_bytes()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    assert len(data) > 20 * 1024
    dom = subprocess.run(common + ['--dump-dom', 'file://%s' % page], check=True, timeout=180, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode('utf-8')
    assert 'data-charts="24"' in dom
    assert 'data-rendered="3"' in dom          # the checks script still runs


def test_junit_has_a_failure_per_regression(reports):
    root = ElementTree.fromstring(fleet_report.junit_xml(reports, RUN_ID))
    db1, web1 = root.findall('testsuite')
    compared = [case for case in db1.findall('testcase') if case.get('classname') == 'iotune.benchmark.db1.example.com']
    assert len(compared) == len(reports[0]['benchmark']['comparison']) == 28
    failures = [case.find('failure') for case in compared if case.find('failure') is not None]
    assert len(failures) == 7 and all(f.get('type') == 'regression' for f in failures)
    assert failures[0].get('message').startswith('REGRESSION: ') and failures[0].text == 'rolled back: True; recovered: True'
    assert int(db1.get('tests')) == len(reports[0]['checks']) + 28
    assert int(db1.get('failures')) == reports[0]['summary']['drift'] + reports[0]['summary']['not_persistent'] + 7
    assert not [case for case in web1.findall('testcase') if case.find('failure') is not None
                and case.get('classname').startswith('iotune.benchmark.')]
    assert int(root.get('tests')) == sum(int(suite.get('tests')) for suite in (db1, web1))
    assert int(root.get('failures')) == sum(int(suite.get('failures')) for suite in (db1, web1))


def test_summary_lists_the_outcome_per_host(reports):
    summary = json.loads(fleet_report.summary_json(reports, RUN_ID, '2024-05-01T12:00:00Z'))
    assert summary['benchmarks']['db1.example.com']['rolled_back'] is True
    assert len(summary['benchmarks']['db1.example.com']['regressions']) == 7
    assert summary['benchmarks']['web1.example.com'] == {
        'phases': reports[1]['benchmark']['phases'], 'rolled_back': False, 'recovered': None, 'regressions': []}
    audit_only = [dict((key, value) for key, value in reports[0].items() if key != 'benchmark')]
    assert json.loads(fleet_report.summary_json(audit_only, RUN_ID, '2024-05-01T12:00:00Z'))['benchmarks'] == {}


def test_fleet_rows_say_a_noisy_measurement_and_the_medians_table_its_verdict():
    noisy = job('seq-read', read=section(100 * MIB, 100, 1e6, 2e6))
    noisy['cov'] = {'read': {'bw_bytes': 0.2}, 'write': None}
    benchmark = bench(['run'], {'run': [noisy]})
    row_ = bench_fleet([report('db1', benchmark)])['rows'][0]
    assert row_['note'] == u'single run \u00b7 noisy: changes under 56.6 % unseen'
    assert row_['tooltip'].endswith('; noisy: changes under 56.6 % cannot be seen; more repeats, a longer runtime or a quieter host')
    medians = bench_charts(benchmark)['groups'][0]['medians']
    assert [(m['phase'], m['bw_label'], m['spread'], m['verdict']['verdict']) for m in medians] == [
        ('run', '100 MiB/s', u'\u00b1 20.0 %', 'noisy')]
