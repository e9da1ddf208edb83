# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.fio import FilterModule, fio_compare, fio_regressions


def _job(name, write, cov=0.0):
    return {'name': name, 'preset': 'seq-write', 'cache_suspect': False,
            'cov': {'read': None, 'write': {'bw_bytes': cov, 'iops': cov}},
            'read': None, 'write': write}


BEFORE = {'changed': False, 'results': [
    _job('fast', {'bw_bytes': 1000, 'iops': 100.0}),
    _job('steady', {'bw_bytes': 1000, 'iops': 100.0}),
]}
AFTER = {'changed': False, 'results': [
    _job('fast', {'bw_bytes': 500, 'iops': 150.0}),
    _job('steady', {'bw_bytes': 1010, 'iops': 60.0}),
]}


def test_filters_are_registered():
    filters = FilterModule().filters()
    assert (filters['fio_compare'], filters['fio_regressions']) == (fio_compare, fio_regressions)
    assert sorted(filters) == ['bench_report', 'bench_summary', 'fio_change_lines', 'fio_compare', 'fio_lines', 'fio_regressions']


def test_fio_compare_rows():
    rows = fio_compare(BEFORE, AFTER['results'], threshold_pct=5, metrics=['bw_bytes', 'iops'])
    assert [(r['job'], r['metric'], r['change_pct'], r['worse_pct'], r['regression'], r['improvement']) for r in rows] == [
        ('fast', 'bw_bytes', -50.0, 50.0, True, False),
        ('fast', 'iops', 50.0, -50.0, False, True),
        ('steady', 'bw_bytes', 1.0, -1.0, False, False),
        ('steady', 'iops', -40.0, 40.0, True, False),
    ]
    assert all(r['threshold_pct'] == 5 for r in rows)


def test_fio_compare_defaults():
    rows = fio_compare(BEFORE, AFTER)
    assert [(r['job'], r['metric'], r['threshold_pct'], r['noise_pct']) for r in rows] == [
        ('fast', 'bw_bytes', 10.0, 0.0), ('fast', 'iops', 10.0, 0.0),
        ('fast', 'lat_mean_ns', 10.0, 0.0), ('fast', 'clat_p99_ns', 10.0, 0.0),
        ('steady', 'bw_bytes', 10.0, 0.0), ('steady', 'iops', 10.0, 0.0),
        ('steady', 'lat_mean_ns', 10.0, 0.0), ('steady', 'clat_p99_ns', 10.0, 0.0),
    ]


def test_fio_compare_noise_factor_passed_through():
    before = [_job('j', {'bw_bytes': 1000}, cov=0.1)]
    after = [_job('j', {'bw_bytes': 800}, cov=0.1)]
    assert [(r['noise_pct'], r['significant']) for r in fio_compare(before, after, metrics=['bw_bytes'])] == [(28.28, False)]
    assert [(r['noise_pct'], r['significant']) for r in fio_compare(before, after, metrics=['bw_bytes'], noise_factor=0.5)] == [
        (7.07, True)]


# (case id, kwargs, exact message)
FILTER_ERRORS = [
    ('threshold', {'threshold_pct': 'x'}, "fio_compare: threshold_pct must be a number >= 0, got 'x'"),
    ('noise-factor', {'noise_factor': -1}, 'fio_compare: noise_factor must be a number >= 0, got -1'),
    ('metric', {'metrics': ['foo']},
     "fio_compare: unknown metric 'foo' in metrics; accepted: "
     'bw_bytes, iops, lat_mean_ns, clat_p50_ns, clat_p95_ns, clat_p99_ns, clat_p999_ns'),
    ('before', {'before': 42},
     'fio_compare: before must be the result of iotune.storage.fio (a dict with "results") or its results list, got int'),
    ('after-name', {'after': [{'write': None}]}, 'fio_compare: after[0]: missing job "name"'),
]


@pytest.mark.parametrize('kwargs, message', [case[1:] for case in FILTER_ERRORS], ids=[case[0] for case in FILTER_ERRORS])
def test_fio_compare_wraps_errors(kwargs, message):
    arguments = {'before': BEFORE, 'after': AFTER}
    arguments.update(kwargs)
    with pytest.raises(AnsibleFilterError, match='^' + re.escape(message) + '$'):
        fio_compare(**arguments)


def test_fio_compare_wraps_type_error(monkeypatch):
    def broken(*args, **kwargs):
        raise TypeError('unsupported operand')
    monkeypatch.setattr('ansible_collections.iotune.storage.plugins.filter.fio.compare', broken)
    with pytest.raises(AnsibleFilterError, match='^fio_compare: unsupported operand$'):
        fio_compare(BEFORE, AFTER)


def test_fio_regressions_from_compare():
    rows = fio_compare(BEFORE, AFTER, threshold_pct=5, metrics=['bw_bytes', 'iops'])
    assert [(r['job'], r['metric']) for r in fio_regressions(rows)] == [('fast', 'bw_bytes'), ('steady', 'iops')]


@pytest.mark.parametrize('rows, expected', [
    ([], []),
    ([{'id': 1, 'regression': False}, {'id': 2, 'regression': True}, {'id': 3, 'regression': True}],
     [{'id': 2, 'regression': True}, {'id': 3, 'regression': True}]),
    ([{'id': 1, 'regression': False, 'improvement': True}], []),
    ([{'id': 1, 'regression': 'yes'}], []),
])
def test_fio_regressions_keeps_regression_true(rows, expected):
    assert fio_regressions(rows) == expected


@pytest.mark.parametrize('rows, message', [
    ({'regression': True}, 'fio_regressions expects the list of rows of fio_compare, got dict'),
    (None, 'fio_regressions expects the list of rows of fio_compare, got NoneType'),
    ([{'regression': True}, {'job': 'x'}], "fio_regressions expects the rows of fio_compare; item 1 has no \"regression\": {'job': 'x'}"),
    (['row'], "fio_regressions expects the rows of fio_compare; item 0 has no \"regression\": 'row'"),
])
def test_fio_regressions_rejects_other_input(rows, message):
    with pytest.raises(AnsibleFilterError, match='^' + re.escape(message) + '$'):
        fio_regressions(rows)


@pytest.mark.parametrize('name', sorted(FilterModule().filters()))
def test_every_filter_has_a_doc_file(name):

    assert os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(fio_compare.__code__.co_filename)), name + '.yml'))


@pytest.mark.parametrize('name, args', [
    ('fio_lines', ([{'name': 'x', 'read': {}}],)),
    ('fio_change_lines', ([{'job': 'x'}],)),
    ('bench_report', ({'before': {}}, {}, {})),
    ('bench_summary', ({'phases': ['run']},)),
])
def test_display_filters_explain_bad_input(name, args):
    with pytest.raises(AnsibleFilterError, match=name + ' expects'):
        FilterModule().filters()[name](*args)


def test_fio_lines_says_the_completion_latency_and_judges_the_noise():
    entry = {'name': 'seq-read', 'cache_suspect': False, 'write': None,
             'read': {'bw_bytes': 104857600, 'iops': 100.0, 'lat_mean_ns': 7800, 'clat_mean_ns': 7100,
                      'clat_p50_ns': 6000, 'clat_p99_ns': 1000},
             'cov': {'read': {'bw_bytes': 0.44}, 'write': None}}
    assert FilterModule().filters()['fio_lines']([entry], 'run') == [
        u'run seq-read read: 100 MiB/s \u00b1 44.0 %, 100 IOPS, completion latency mean 7.1 \u00b5s, p50 6 \u00b5s, '
        u'p99 1 \u00b5s; noisy: changes under 124.5 % cannot be seen; more repeats, a longer runtime or a quieter host']
