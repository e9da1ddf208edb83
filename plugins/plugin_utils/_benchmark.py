# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``iotune_benchmark`` settings: validation and defaults (pure, no Ansible).

They drive the io_benchmark role, benchmark_io.yml and the before/after measurement
of harden_io.yml. Every error names the field and the accepted values.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import IOENGINES, RESULT_METRICS, build_argv, normalize_jobs
from ansible_collections.iotune.storage.plugins.module_utils.common.units import to_bytes

DEFAULTS = {
    'enabled': False,
    'directory': None,
    'filename': None,
    'allow_destructive': False,
    'jobs': ['seq-read', 'seq-write'],
    'size': '256m',
    'runtime': 10,
    'ramp_time': 0,
    'direct': True,
    'ioengine': None,
    'repeat': 3,
    'allow_cached': False,
    'output_dir': None,
    'regression_threshold_pct': 10,
    'rollback_on_regression': False,
    'rollback_is_success': False,
    'allow_memory': False,
    'metrics': ['bw_bytes', 'iops', 'lat_mean_ns', 'clat_p99_ns'],
    'noise_factor': 2,
    'timeout': None,
}
BOOLEANS = ('enabled', 'allow_destructive', 'direct', 'allow_cached', 'rollback_on_regression', 'rollback_is_success', 'allow_memory')
WHERE = 'iotune_benchmark'


def _number(value):
    return not isinstance(value, bool) and isinstance(value, (int, float))


def _whole(value):
    return not isinstance(value, bool) and isinstance(value, int)


def _key_errors(value):
    """Unknown keys, booleans that are not, paths that are not absolute."""
    errors = []
    for key in value:
        if key not in DEFAULTS:
            errors.append('%s.%s: unknown key (accepted: %s)' % (WHERE, key, ', '.join(sorted(DEFAULTS))))
    for key in BOOLEANS:
        if key in value and not isinstance(value[key], bool):
            errors.append('%s.%s: must be true or false, got %r' % (WHERE, key, value[key]))
    for key in ('directory', 'filename', 'output_dir'):
        if value.get(key) is not None and not (isinstance(value[key], str) and value[key].startswith('/')):
            errors.append('%s.%s: must be an absolute path, got %r' % (WHERE, key, value[key]))
    return errors


def _target_errors(value, measuring):
    """One target (a directory, or a raw device allowed to be destroyed), required when measuring."""
    errors = []
    if value.get('directory') is not None and value.get('filename') is not None:
        errors.append('%s: set directory (a scratch file on a file system) or filename (a raw device), not both' % WHERE)
    if measuring and value.get('directory') is None and value.get('filename') is None:
        errors.append('%s.directory: required to measure (an existing directory on the file system to test), '
                      'or filename with allow_destructive: true for a raw device' % WHERE)
    if value.get('filename') is not None and value.get('allow_destructive') is not True:
        errors.append('%s.filename: measuring a raw device destroys its data; set allow_destructive: true' % WHERE)
    return errors


def _jobs_errors(value):
    """The first problem of the jobs: the checks the module makes on the host, made here before any host work."""
    if 'jobs' not in value:
        return []
    try:
        for index, job in enumerate(normalize_jobs(value['jobs'])):
            try:
                build_argv('fio', dict(job, filename='/scratch'))
            except ValueError as exc:
                raise ValueError('jobs[%d]: %s' % (index, exc))
    except ValueError as exc:
        return ['%s.%s' % (WHERE, exc)]
    return []


def _number_errors(value):
    """size (more than 0 bytes), the whole numbers (times, repeat, timeout) and the percentages and factors."""
    errors = []
    for key in ('size',):
        if key in value:
            try:
                if to_bytes(value[key]) <= 0:
                    raise ValueError('must be more than 0 bytes')
            except ValueError as exc:
                errors.append('%s.%s: %s' % (WHERE, key, exc))
    for key, minimum in (('runtime', 0), ('ramp_time', 0), ('repeat', 1), ('timeout', 1)):
        if value.get(key) is not None and not (_whole(value[key]) and value[key] >= minimum):
            errors.append('%s.%s: must be a whole number >= %d, got %r' % (WHERE, key, minimum, value[key]))
    for key in ('regression_threshold_pct', 'noise_factor'):
        if key in value and not (_number(value[key]) and value[key] >= 0):
            errors.append('%s.%s: must be a number >= 0, got %r' % (WHERE, key, value[key]))
    return errors


def _choice_errors(value):
    """The ioengine and the metrics, each one fio and the comparison know."""
    errors = []
    if value.get('ioengine') is not None and value['ioengine'] not in IOENGINES:
        errors.append('%s.ioengine: unknown engine %r (accepted: %s)' % (WHERE, value['ioengine'], ', '.join(IOENGINES)))
    if 'metrics' in value:
        metrics = value['metrics']
        if not isinstance(metrics, list) or not metrics:
            errors.append('%s.metrics: must be a non-empty list of %s' % (WHERE, ', '.join(RESULT_METRICS)))
        else:
            for metric in metrics:
                if metric not in RESULT_METRICS:
                    errors.append('%s.metrics: unknown metric %r (accepted: %s)' % (WHERE, metric, ', '.join(RESULT_METRICS)))
    return errors


def validate_benchmark(value, measuring=None):
    """Every problem of ``iotune_benchmark`` ([] when valid or absent).

    ``measuring`` says a measurement will run (benchmark_io.yml always measures; by default
    only ``enabled: true`` does), so a target is then required."""
    if value is None:
        if measuring:
            return ['%s: required to measure: a dict with at least directory (an existing directory on the '
                    'file system to test)' % WHERE]
        return []
    if not isinstance(value, dict):
        return ['%s: must be a dict, got %s' % (WHERE, type(value).__name__)]
    if measuring is None:
        measuring = value.get('enabled') is True
    return (_key_errors(value) + _target_errors(value, measuring) + _jobs_errors(value) + _number_errors(value)
            + _choice_errors(value))


# A job with runtime 0 makes one pass over its working set: its time is estimated for a slow
# disk (10 MiB/s), at least 30 s.
SLOW_DISK_BYTES_S = 10 * 1048576


def benchmark_settings(value):
    """``iotune_benchmark`` with every default filled in, ``expected_s`` (the fio time of all
    jobs and repeats) and ``timeout`` (seconds) computed when unset: twice the expected time
    plus a minute per job for laying out files, plus one."""
    settings = dict(DEFAULTS)
    settings.update(value or {})
    if settings['runtime']:
        per_run = settings['runtime'] + settings['ramp_time']
    else:
        per_run = max(30, to_bytes(settings['size']) // SLOW_DISK_BYTES_S) + settings['ramp_time']
    jobs = len(settings['jobs'])
    settings['expected_s'] = jobs * settings['repeat'] * per_run
    if settings['timeout'] is None:
        settings['timeout'] = 2 * settings['expected_s'] + 60 * jobs + 60
    return settings


PHASES = ('before', 'after', 'after_rollback')


def benchmark_report(results, comparisons, settings):
    """The ``benchmark`` part of a host report.

    ``results``: phase -> kept fio result; ``comparisons``: phase -> rows of fio_compare
    against ``before``. A run was rolled back when it was measured after a rollback;
    it recovered when that measurement shows no regression against ``before``."""
    comparisons = comparisons or {}
    known = [phase for phase in PHASES if phase in results]
    phases = known + sorted(phase for phase in results if phase not in PHASES)
    comparison = comparisons.get('after', [])
    rolled_back = 'after_rollback' in results
    recovery = comparisons.get('after_rollback', [])
    return {
        'threshold_pct': settings['regression_threshold_pct'],
        'noise_factor': settings['noise_factor'],
        'rollback_on_regression': settings['rollback_on_regression'],
        'phases': phases,
        'results': dict((phase, results[phase]) for phase in phases),
        'comparison': comparison,
        'regressions': [row for row in comparison if row['regression'] and (settings.get('allow_memory') or not row.get('cache_suspect'))],
        'undecided': [row for row in comparison if row['regression'] and row.get('cache_suspect') and not settings.get('allow_memory')],
        'recovery': recovery,
        'rolled_back': rolled_back,
        'recovered': (not any(row['regression'] for row in recovery)) if rolled_back else None,
    }


def benchmark_summary(benchmark):
    """What the fleet summary keeps of a host's ``benchmark``: the phases, the outcome and
    the regressions that triggered (or would have triggered) a rollback."""
    keep = ('job', 'direction', 'metric', 'before', 'after', 'change_pct', 'noise_pct', 'threshold_pct')
    return {
        'phases': benchmark['phases'],
        'rolled_back': benchmark['rolled_back'],
        'recovered': benchmark['recovered'],
        'regressions': [dict((key, row[key]) for key in keep) for row in benchmark['regressions']],
    }
