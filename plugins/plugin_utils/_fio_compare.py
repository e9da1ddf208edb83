# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compare two ``iotune.storage.fio`` measurements and show them (pure, no Ansible imports).

:func:`compare` pairs the jobs of a measurement before a change with those of one after
it and returns one row per (job, direction, metric): the relative change, whether it is
worse, the run-to-run noise (from the coefficients of variation of the ``repeat`` runs)
and whether the change is significant, a regression or an improvement.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.units import format_bytes_rate, format_iops, format_ns
from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import (
    COMPARE_NOISE_FACTOR, COMPARE_THRESHOLD_PCT, comparison_noise_pct, detectable_pct)

DIRECTIONS = ('read', 'write')

# Metrics that can be compared, in output order, and which way is better.
BETTER = (
    ('bw_bytes', 'higher'),
    ('iops', 'higher'),
    ('lat_mean_ns', 'lower'),
    ('clat_p50_ns', 'lower'),
    ('clat_p95_ns', 'lower'),
    ('clat_p99_ns', 'lower'),
    ('clat_p999_ns', 'lower'),
)
COMPARABLE_METRICS = tuple(name for name, dummy in BETTER)
DEFAULT_METRICS = ('bw_bytes', 'iops', 'lat_mean_ns', 'clat_p99_ns')
DEFAULT_THRESHOLD_PCT = COMPARE_THRESHOLD_PCT
DEFAULT_NOISE_FACTOR = COMPARE_NOISE_FACTOR

_BETTER = dict(BETTER)


def _is_number(value):
    return not isinstance(value, bool) and isinstance(value, (int, float))


def _non_negative(name, value):
    """Return ``value`` when it is a number >= 0 (not NaN, not a bool), else raise ValueError."""
    if not _is_number(value) or not value >= 0:
        raise ValueError('{0} must be a number >= 0, got {1!r}'.format(name, value))
    return value


def _metrics(metrics):
    if metrics is None:
        return list(DEFAULT_METRICS)
    accepted = ', '.join(COMPARABLE_METRICS)
    if not isinstance(metrics, (list, tuple)):
        raise ValueError('metrics must be a list of metric names, got {0!r}; accepted: {1}'.format(metrics, accepted))
    if not metrics:
        raise ValueError('metrics must not be empty; accepted: {0}'.format(accepted))
    checked = []
    for metric in metrics:
        if not isinstance(metric, str) or metric not in _BETTER:
            raise ValueError('unknown metric {0!r} in metrics; accepted: {1}'.format(metric, accepted))
        if metric in checked:
            raise ValueError('metric {0!r} is listed twice in metrics'.format(metric))
        checked.append(metric)
    return checked


def _results(side, value):
    """The results list of one side: the fio module's return value or its ``results``."""
    if isinstance(value, dict):
        if 'results' not in value:
            raise ValueError('{0} must be the result of iotune.storage.fio (a dict with "results") or its results list; '
                             'got a dict without "results" (keys: {1})'.format(side, ', '.join(sorted(str(k) for k in value))))
        results = value['results']
        where = '{0}.results'.format(side)
    else:
        results = value
        where = side
    if not isinstance(results, (list, tuple)):
        raise ValueError('{0} must be the result of iotune.storage.fio (a dict with "results") or its results list, '
                         'got {1}'.format(where, type(results).__name__))
    jobs = []
    seen = set()
    for index, result in enumerate(results):
        label = '{0}[{1}]'.format(where, index)
        if not isinstance(result, dict):
            raise ValueError('{0}: expected a fio job result (a dict), got {1}'.format(label, type(result).__name__))
        name = result.get('name')
        if not isinstance(name, str) or not name:
            raise ValueError('{0}: missing job "name"'.format(label))
        if name in seen:
            raise ValueError('{0}: job name {1!r} appears twice in {2}; job names must be unique'.format(label, name, side))
        seen.add(name)
        jobs.append((label, result))
    return jobs


def _section(label, container, direction):
    """``container[direction]`` as a dict of metrics, or None when absent or null."""
    section = container.get(direction)
    if section is None:
        return None
    if not isinstance(section, dict):
        raise ValueError('{0}.{1}: expected a dict of metrics or null, got {2!r}'.format(label, direction, section))
    return section


def _cov(label, result, direction):
    """The coefficients of variation of one direction, or None when absent or null."""
    cov = result.get('cov')
    if cov is None:
        return None
    if not isinstance(cov, dict):
        raise ValueError('{0}.cov: expected a dict with "read" and "write", got {1!r}'.format(label, cov))
    return _section(label + '.cov', cov, direction)


def _value(label, section, metric):
    """A metric value from a section: None when absent or null, else a number >= 0."""
    if section is None:
        return None
    value = section.get(metric)
    if value is None:
        return None
    if not _is_number(value) or not value >= 0:
        raise ValueError('{0}.{1}: must be a number >= 0 or null, got {2!r}'.format(label, metric, value))
    return value


def _clean(number):
    """Round to 2 decimals, without a negative zero."""
    return round(number, 2) + 0.0


def _row(job, direction, metric, before, after, cv_before, cv_after, threshold_pct, noise_factor, cache_suspect):
    better = _BETTER[metric]
    if before is None or after is None or before == 0:
        change_pct = None
        worse_pct = None
    else:
        change_pct = _clean(100.0 * (after - before) / before)
        worse_pct = change_pct if better == 'lower' else -change_pct
        worse_pct += 0.0
    noise_pct = comparison_noise_pct(cv_before, cv_after, noise_factor)
    significant = change_pct is not None and abs(change_pct) > threshold_pct and abs(change_pct) > noise_pct
    return {
        'job': job,
        'direction': direction,
        'metric': metric,
        'better': better,
        'before': before,
        'after': after,
        'change_pct': change_pct,
        'worse_pct': worse_pct,
        'noise_pct': noise_pct,
        'threshold_pct': threshold_pct,
        'significant': significant,
        'regression': significant and worse_pct > 0,
        'improvement': significant and worse_pct < 0,
        'cache_suspect': cache_suspect,
    }


def compare(before, after, threshold_pct=DEFAULT_THRESHOLD_PCT, metrics=None, noise_factor=DEFAULT_NOISE_FACTOR):
    """Compare two fio measurements; a list of rows, one per job, direction and metric.

    ``before`` and ``after`` are each the return value of the ``iotune.storage.fio`` module
    (a dict with ``results``) or its ``results`` list. Jobs are paired by ``name``; a job on
    one side only, or a direction that is null (no I/O) on either side, gives no row. Rows
    come in the job order of ``before``, read before write, then in ``metrics`` order
    (default :data:`DEFAULT_METRICS`; accepted :data:`COMPARABLE_METRICS`).

    Per row: ``change_pct`` = 100 * (after - before) / before (None when before is 0 or
    null, or after is null); ``worse_pct`` = the change signed so that positive is worse
    (``better`` says whether higher or lower values are better); ``noise_pct`` =
    noise_factor * 100 * sqrt(cv_before^2 + cv_after^2) from the ``cov`` of each side (a
    null cv counts as 0). All three are rounded to 2 decimals, and ``significant`` is
    computed from the rounded values: abs(change_pct) > threshold_pct and > noise_pct.
    ``regression``/``improvement`` are significant changes for the worse/better;
    ``cache_suspect`` is true when either side's job was flagged cache suspect.

    Raises ValueError naming the bad argument or field.
    """
    threshold_pct = _non_negative('threshold_pct', threshold_pct)
    noise_factor = _non_negative('noise_factor', noise_factor)
    metrics = _metrics(metrics)
    before_jobs = _results('before', before)
    after_jobs = dict((result['name'], (label, result)) for label, result in _results('after', after))

    rows = []
    for before_label, before_result in before_jobs:
        name = before_result['name']
        if name not in after_jobs:
            continue
        after_label, after_result = after_jobs[name]
        cache_suspect = bool(before_result.get('cache_suspect')) or bool(after_result.get('cache_suspect'))
        for direction in DIRECTIONS:
            before_section = _section(before_label, before_result, direction)
            after_section = _section(after_label, after_result, direction)
            if before_section is None or after_section is None:
                continue
            before_cov = _cov(before_label, before_result, direction)
            after_cov = _cov(after_label, after_result, direction)
            for metric in metrics:
                rows.append(_row(
                    name, direction, metric,
                    _value('{0}.{1}'.format(before_label, direction), before_section, metric),
                    _value('{0}.{1}'.format(after_label, direction), after_section, metric),
                    _value('{0}.cov.{1}'.format(before_label, direction), before_cov, metric),
                    _value('{0}.cov.{1}'.format(after_label, direction), after_cov, metric),
                    threshold_pct, noise_factor, cache_suspect,
                ))
    return rows


def format_metric(metric, value):
    """A metric for people: bytes/s as MiB/s, IOPS as is, nanoseconds as µs or ms."""
    if metric == 'bw_bytes':
        return format_bytes_rate(value)
    if metric == 'iops':
        return format_iops(value)
    return format_ns(value)


# A comparison that cannot see a change smaller than this (%) says so: the measurement is noisy.
NOISY_PCT = 25.0
# What a job flagged cache suspect measured, and how to measure the disk, when the module gave no reason.
CACHE_REASON = 'buffered I/O on a working set under twice the RAM: the page cache answered'
CACHE_FIX = 'direct: true, or a size over twice the RAM'


def _pct_text(value):
    """A percentage for people: one decimal at most (``10``, ``14.1``)."""
    return '{0:g}'.format(round(value, 1))


def _bw_cv(entry, direction):
    """The coefficient of variation of a direction's bandwidth, or None when not reported."""
    cov = entry.get('cov')
    section = cov.get(direction) if isinstance(cov, dict) else None
    value = section.get('bw_bytes') if isinstance(section, dict) else None
    return value if _is_number(value) and value >= 0 else None


def memory_reason(entry):
    """(reason, fix) when a job measured memory (its ``reached.medium`` is memory, or it is cache
    suspect), else None; ``fix`` is None when the module names none."""
    reached = entry.get('reached')
    reached = reached if isinstance(reached, dict) else {}
    by_reach = reached.get('medium') == 'memory'
    if not by_reach and not entry.get('cache_suspect'):
        return None
    reasons = reached.get('reasons') if by_reach else None
    reason = reasons[0] if isinstance(reasons, (list, tuple)) and reasons else CACHE_REASON
    return reason, (reached.get('fix') if by_reach else CACHE_FIX)


def _directions(entry):
    return [direction for direction in DIRECTIONS if isinstance(entry.get(direction), dict)]


def job_verdict(entry, noise_factor=DEFAULT_NOISE_FACTOR, threshold_pct=DEFAULT_THRESHOLD_PCT, direction=None):
    """What one job of a fio result is worth, in the words the console, report.html and the run's summary share.

    ``verdict`` is ``memory`` when the job measured memory (memory_reason), else judged on the spread of its
    bandwidth over the repeats (its cv; of ``direction``, or the largest of its directions with I/O) as
    compare() judges a change against a measurement just as noisy: ``noise_pct`` = noise_factor * 100 *
    sqrt(cv^2 + cv^2), and ``detectable_pct`` = max(threshold_pct, noise_pct), the smallest change a
    comparison can call significant: ``steady`` up to NOISY_PCT, ``noisy`` above; ``unknown`` without a cv.
    Returns {verdict, detectable_pct, noise_pct, cv_pct, reason, fix, text}."""
    directions = [direction] if direction else _directions(entry)
    cvs = [cv for cv in (_bw_cv(entry, name) for name in directions) if cv is not None]
    cv = max(cvs) if cvs else None
    noise = None if cv is None else comparison_noise_pct(cv, cv, noise_factor)
    detectable = None if cv is None else detectable_pct(cv, noise_factor, threshold_pct)
    found = {'detectable_pct': detectable, 'noise_pct': noise, 'cv_pct': None if cv is None else _clean(100.0 * cv),
             'reason': None, 'fix': None}
    memory = memory_reason(entry)
    if memory:
        found.update(verdict='memory', reason=memory[0], fix=memory[1],
                     text='MEMORY, not the disk: {0}{1}'.format(memory[0], '; fix: {0}'.format(memory[1]) if memory[1] else ''))
    elif detectable is None:
        found.update(verdict='unknown', text='noise unknown: the spread over the repeats was not reported')
    elif detectable > NOISY_PCT:
        found.update(verdict='noisy', text='noisy: changes under {0} % cannot be seen; more repeats, a longer runtime '
                                           'or a quieter host'.format(_pct_text(detectable)))
    else:
        found.update(verdict='steady', text='steady: a comparison sees changes over {0} %'.format(_pct_text(detectable)))
    return found


def spread_text(entry, direction):
    """The spread of a direction's bandwidth over the repeats: ``± 5.0 % (min 9.5 MiB/s, max 10.5 MiB/s)``;
    the min and max when the result has ``bw_range``; '' when neither is reported."""
    cv = _bw_cv(entry, direction)
    text = '' if cv is None else u'\u00b1 {0:.1f} %'.format(100.0 * cv)
    bw_range = entry.get('bw_range')
    pair = bw_range.get(direction) if isinstance(bw_range, dict) else None
    if isinstance(pair, (list, tuple)) and len(pair) == 2 and all(_is_number(value) for value in pair):
        text += '{0}(min {1}, max {2})'.format(' ' if text else '', format_bytes_rate(pair[0]), format_bytes_rate(pair[1]))
    return text


def latency_text(values):
    """The latency of a direction, one kind throughout: ``completion latency mean X, p50 Y, p99 Z``; without
    ``clat_mean_ns`` (an older result) the mean is the total latency (submission and completion) and says so."""
    if values.get('clat_mean_ns') is not None:
        return 'completion latency mean {0}, p50 {1}, p99 {2}'.format(
            format_ns(values['clat_mean_ns']), format_ns(values.get('clat_p50_ns')), format_ns(values.get('clat_p99_ns')))
    return 'completion latency p50 {0}, p99 {1}, total latency mean {2}'.format(
        format_ns(values.get('clat_p50_ns')), format_ns(values.get('clat_p99_ns')), format_ns(values.get('lat_mean_ns')))


def measurement_lines(results, label, noise_factor=DEFAULT_NOISE_FACTOR, threshold_pct=DEFAULT_THRESHOLD_PCT):
    """One line per job and direction of a fio module result, for the play output: the medians, the spread of
    the bandwidth, the completion latency and the verdict (job_verdict). KeyError for a direction without
    ``bw_bytes`` or ``iops``, TypeError for one that is not a dict."""
    lines = []
    for entry in results:
        for direction in DIRECTIONS:
            values = entry.get(direction)
            if values is None:
                continue
            spread = spread_text(entry, direction)
            lines.append('{0} {1} {2}: {3}{4}, {5}, {6}; {7}'.format(
                label, entry['name'], direction, format_bytes_rate(values['bw_bytes']), ' ' + spread if spread else '',
                format_iops(values['iops']), latency_text(values),
                job_verdict(entry, noise_factor, threshold_pct, direction)['text']))
    return lines


def target_text(reached):
    """What the whole measurement reached (the fio result's ``reached``), short: the device chain
    (``loop0 over sda``), ``MEMORY, not the disk: <reason>; fix: <fix>``, ``cannot tell what it reached:
    <reason>``; None when not reported."""
    if not isinstance(reached, dict) or not reached.get('medium'):
        return None
    reasons = reached.get('reasons') or []
    fix = '; fix: {0}'.format(reached['fix']) if reached.get('fix') else ''
    if reached['medium'] == 'memory':
        return 'MEMORY, not the disk: {0}{1}'.format(reasons[0] if reasons else 'it lives in memory', fix)
    if reached['medium'] == 'device':
        chain = [u'{0}'.format(name) for name in reached.get('chain') or []]
        return ' over '.join(chain) or reached.get('device') or 'a device'
    return 'cannot tell what it reached: {0}{1}'.format(reasons[0] if reasons else 'not reported', fix)


def summary_line(host, result, noise_factor=DEFAULT_NOISE_FACTOR, threshold_pct=DEFAULT_THRESHOLD_PCT, phase=None):
    """One line for the end of a run of what a host measured (``result``: the fio module's result, or what the
    io_benchmark role keeps of it): ``host (what it reached): job direction bw ± cv %, completion p99 X,
    <verdict> | ...``, each job direction with I/O, the verdict in job_verdict's words (``MEMORY`` alone when
    the target's own reason says why)."""
    result = result if isinstance(result, dict) else {}
    target = result.get('reached') if isinstance(result.get('reached'), dict) else {}
    what = target_text(target)
    head = u'{0}{1}{2}'.format(host, ' ' + phase if phase else '', ' ({0})'.format(what) if what else '')
    target_reasons = target.get('reasons') or [] if target.get('medium') == 'memory' else []
    parts = []
    for entry in result.get('results') or []:
        if not isinstance(entry, dict):
            continue
        for direction in _directions(entry):
            values = entry[direction]
            verdict = job_verdict(entry, noise_factor, threshold_pct, direction)
            said = 'MEMORY' if verdict['verdict'] == 'memory' and verdict['reason'] in target_reasons else verdict['text']
            cv = _bw_cv(entry, direction)
            parts.append(u'{0} {1} {2}{3}, completion p99 {4}, {5}'.format(
                entry.get('name'), direction, format_bytes_rate(values.get('bw_bytes')),
                u' \u00b1 {0:.1f} %'.format(100.0 * cv) if cv is not None else '', format_ns(values.get('clat_p99_ns')), said))
    return u'{0}: {1}'.format(head, ' | '.join(parts) if parts else 'no job measured')


def change_lines(rows):
    """The significant rows of a comparison (fio_compare), one line each; one line when none is."""
    lines = []
    for row in rows:
        if not row['significant']:
            continue
        # a figure of a job that measured memory is never shown as a disk's
        lines.append('{0}: {1} {2} {3} {4} -> {5} ({6:+.1f} %, threshold {7:g} %, noise {8:.1f} %){9}'.format(
            'REGRESSION' if row['regression'] else 'improvement', row['job'], row['direction'], row['metric'],
            format_metric(row['metric'], row['before']), format_metric(row['metric'], row['after']),
            row['change_pct'], row['threshold_pct'], row['noise_pct'],
            ', MEMORY, not the disk' if row.get('cache_suspect') else ''))
    if not lines:
        threshold = rows[0]['threshold_pct'] if rows else None
        lines.append('no significant change' + (' (threshold {0:g} % and the noise)'.format(threshold) if rows else ''))
    return lines
