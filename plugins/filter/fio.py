# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters that compare iotune.storage.fio measurements."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils._benchmark import benchmark_report, benchmark_summary
from ansible_collections.iotune.storage.plugins.plugin_utils._fio_compare import change_lines, measurement_lines
from ansible_collections.iotune.storage.plugins.plugin_utils._fio_compare import DEFAULT_NOISE_FACTOR
from ansible_collections.iotune.storage.plugins.plugin_utils._fio_compare import DEFAULT_THRESHOLD_PCT
from ansible_collections.iotune.storage.plugins.plugin_utils._fio_compare import compare


def fio_compare(before, after, threshold_pct=DEFAULT_THRESHOLD_PCT, metrics=None, noise_factor=DEFAULT_NOISE_FACTOR):
    """One row per job, direction and metric of two fio measurements (see _fio_compare.compare)."""
    try:
        return compare(before, after, threshold_pct=threshold_pct, metrics=metrics, noise_factor=noise_factor)
    except (ValueError, TypeError) as exc:
        raise AnsibleFilterError('fio_compare: %s' % exc)


def fio_regressions(rows, allow_memory=False):
    """The rows of fio_compare that are regressions, less those measured from memory (a cache-suspect job: nothing to
    decide on) unless ``allow_memory``."""
    if not isinstance(rows, (list, tuple)):
        raise AnsibleFilterError('fio_regressions expects the list of rows of fio_compare, got %s' % type(rows).__name__)
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or 'regression' not in row:
            raise AnsibleFilterError('fio_regressions expects the rows of fio_compare; item %d has no "regression": %r'
                                     % (index, row))
    return [row for row in rows if row['regression'] is True and (allow_memory or not row.get('cache_suspect'))]


def fio_lines(results, label='fio'):
    """One line per job and direction of the results of iotune.storage.fio, for the play output."""
    try:
        return measurement_lines(results, label)
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError('fio_lines expects the results list of iotune.storage.fio: %s' % exc)


def fio_change_lines(rows):
    """The significant rows of fio_compare as sentences."""
    try:
        return change_lines(rows)
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError('fio_change_lines expects the rows of fio_compare: %s' % exc)


def bench_report(results, comparisons, settings):
    """The benchmark part of a host report from io_benchmark_results and io_benchmark_comparisons."""
    try:
        return benchmark_report(results, comparisons, settings)
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError('bench_report expects io_benchmark_results, io_benchmark_comparisons and the '
                                 'benchmark settings: %s' % exc)


def bench_summary(benchmark):
    """The outcome and the regressions of a host report's benchmark part, for summary.json."""
    try:
        return benchmark_summary(benchmark)
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError('bench_summary expects the benchmark part of a host report: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'fio_compare': fio_compare, 'fio_regressions': fio_regressions,
                'fio_lines': fio_lines, 'fio_change_lines': fio_change_lines, 'bench_report': bench_report,
                'bench_summary': bench_summary}
