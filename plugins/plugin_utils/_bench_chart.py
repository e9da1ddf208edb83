# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Chart geometry for the fio benchmarks of the HTML report (pure, no Ansible imports).

* :func:`host_charts` turns one host report's ``benchmark`` into bar charts: one chart per
  job x direction with I/O x metric (:data:`CHART_METRICS`), one bar per measured phase.
* :func:`fleet_view` turns the host reports of a run into one diverging bar per host and
  job: the change of the job's headline metric between the first two phases, worse to the
  left of a zero axis, better to the right.

Coordinates are SVG user units (pixels), rounded to 0.1, so the template only places them.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.units import (
    format_bytes_rate,
    format_iops,
    format_ns,
    one_decimal,
    real_number,
)
from ansible_collections.iotune.storage.plugins.plugin_utils._fio_compare import (
    DEFAULT_NOISE_FACTOR,
    DEFAULT_THRESHOLD_PCT,
    job_verdict,
    latency_text,
    spread_text,
    target_text,
)

DIRECTIONS = ('read', 'write')

# Charted metrics, in display order: key -> (title, unit kind, which way is better).
CHART_METRICS = ('bw_bytes', 'iops', 'lat_mean_ns', 'clat_p99_ns')
METRIC_INFO = {
    'bw_bytes': ('bandwidth', 'bytes', 'higher'),
    'iops': ('IOPS', 'iops', 'higher'),
    'lat_mean_ns': ('mean total latency', 'ns', 'lower'),
    'clat_p99_ns': ('p99 completion latency', 'ns', 'lower'),
}

# Bar chart layout (one chart per job x direction x metric).
SLOT = 92           # horizontal room per bar (fits a value label such as "1023.9 MiB/s")
BAR = 52            # bar width
PAD = 8             # left and right padding
TOP = 34            # room above the tallest bar for its value and change labels
PLOT = 110          # height of a full bar
BOTTOM = 22         # room below the axis for the phase names

# Fleet view layout (one svg, one row per host and job).
FLEET_LABEL = 210   # host name column
FLEET_HALF = 280    # width of each side of the zero axis
FLEET_NOTE = 320    # change label and flags column
FLEET_ROW = 22
FLEET_HEAD = 22     # job heading rows
FLEET_TOP = 26      # axis tick labels
FLEET_MIN_SCALE = 10.0
FLEET_MAX_SCALE = 100.0
_NICE = (10.0, 20.0, 25.0, 50.0, 100.0)
HOST_CHARS = 26

# Titles of the other metrics a comparison row may name.
OTHER_TITLES = {
    'clat_mean_ns': 'mean completion latency',
    'clat_p50_ns': 'p50 completion latency',
    'clat_p95_ns': 'p95 completion latency',
    'clat_p999_ns': 'p99.9 completion latency',
    'io_bytes': 'bytes moved',
    'runtime_ms': 'runtime',
}

ELLIPSIS = u'\u2026'
MINUS = u'\u2212'


def _r(value):
    """Round a coordinate to 0.1 (and drop a float's noise)."""
    return round(float(value), 1)


_FORMATTERS = {'bytes': format_bytes_rate, 'iops': format_iops, 'ns': format_ns}
_UNIT_NAMES = {'bytes': 'bytes/s', 'iops': 'IO/s', 'ns': 'ns'}


def format_value(metric, value):
    """Human label of a value of one of :data:`CHART_METRICS` (``n/a`` for None)."""
    return _FORMATTERS[METRIC_INFO[metric][1]](value)


def format_pct(value):
    """A signed percentage: ``-90.0 %``, ``+12.5 %``, ``0.0 %``; ``n/a`` for None."""
    value = real_number(value)
    if value is None:
        return 'n/a'
    if round(value, 1) == 0:
        return '0.0 %'
    return '%+.1f %%' % value


def change_pct(first, value):
    """Relative change of ``value`` vs ``first`` in %; None when not computable."""
    first = real_number(first)
    value = real_number(value)
    if first is None or value is None or first == 0:
        return None
    return (value - first) / abs(first) * 100.0


def _raw_rows(rows):
    """(job, direction, metric) -> row, for comparison/recovery rows."""
    found = {}
    for row in rows or []:
        if isinstance(row, dict):
            found[(row.get('job'), row.get('direction'), row.get('metric'))] = row
    return found


def _phase_jobs(result):
    """job name -> job of one phase's fio result (jobs without a name are skipped)."""
    jobs = {}
    order = []
    for job in (result or {}).get('results') or []:
        if isinstance(job, dict) and job.get('name') is not None and job['name'] not in jobs:
            jobs[job['name']] = job
            order.append(job['name'])
    return order, jobs


def measured_phases(benchmark):
    """The phases of ``benchmark`` that have a result, in ``phases`` order (then any other)."""
    results = benchmark.get('results') or {}
    phases = [phase for phase in benchmark.get('phases') or [] if phase in results]
    phases.extend(sorted(phase for phase in results if phase not in phases))
    return phases


def _row_phases(benchmark):
    """Which phase the ``comparison`` and ``recovery`` rows describe (each vs the first)."""
    phases = list(benchmark.get('phases') or [])
    if 'after' in phases:
        comparison = 'after'
    else:
        comparison = phases[1] if len(phases) > 1 else None
    if 'after_rollback' in phases:
        recovery = 'after_rollback'
    else:
        recovery = phases[2] if len(phases) > 2 else None
    return comparison, recovery


def _row_text(row):
    """Tooltip words for a comparison row: regression / improvement / within noise."""
    if row is None:
        return ''
    parts = []
    if row.get('regression'):
        parts.append('regression')
    elif row.get('improvement'):
        parts.append('improvement')
    elif row.get('significant'):
        parts.append('significant change')
    else:
        parts.append('not significant')
    details = []
    if real_number(row.get('worse_pct')) is not None and row.get('worse_pct') > 0:
        details.append('worse by %.1f %%' % row['worse_pct'])
    if real_number(row.get('noise_pct')) is not None:
        details.append('noise %.1f %%' % row['noise_pct'])
    if real_number(row.get('threshold_pct')) is not None:
        details.append('threshold %.1f %%' % row['threshold_pct'])
    if details:
        parts.append('(%s)' % ', '.join(details))
    if row.get('cache_suspect'):
        parts.append('- cache suspect')
    return ' '.join(parts)


def _bar_geometry(index, value, top):
    """(x, y, height, fraction of the tallest) of the bar at ``index``; a missing or 0 value has no height."""
    drawn = top and value is not None and value > 0
    height = PLOT * value / top if drawn else 0.0
    x = PAD + index * SLOT + (SLOT - BAR) / 2.0
    return x, TOP + PLOT - height, height, round(value / top, 4) if drawn else 0.0


def _bar_tooltip(key, phase, value, label, compared):
    """The tooltip of one bar; ``compared``: (change %, first phase, comparison row) of a bar after the first."""
    job, direction, metric = key
    title, kind, dummy = METRIC_INFO[metric]
    tooltip = u'%s %s %s, %s: %s' % (job, direction, title, phase, label)
    if value is not None:
        tooltip += u' (%s %s)' % (one_decimal(value), _UNIT_NAMES[kind])
    if compared:
        change, first, row = compared
        tooltip += u'; %s vs %s' % (format_pct(change), first)
        text = _row_text(row)
        if text:
            tooltip += u'; ' + text
    return tooltip


def _bar(key, index, phases, values, top, rows_by_phase):
    """Geometry and labels of the bar of phase ``index`` in the chart of ``key`` (job, direction, metric);
    every bar after the first is compared with the first."""
    phase, value = phases[index], values[index]
    change = change_pct(values[0], value) if index else None
    row = rows_by_phase.get(phase, {}).get(key) if index else None
    x, y, height, fraction = _bar_geometry(index, value, top)
    label = format_value(key[2], value)
    return {
        'phase': phase,
        'value': value,
        'label': label,
        'missing': value is None,
        'fraction': fraction,
        'x': _r(x),
        'y': _r(y),
        'width': BAR,
        'height': _r(height),
        'center': _r(x + BAR / 2.0),
        'label_y': _r(y - (17 if index else 5)),
        'change_y': _r(y - 4),
        'change_pct': None if change is None else round(change, 1),
        # no change label under a missing value: its own label already says n/a
        'change_label': format_pct(change) if index and value is not None else '',
        'regression': bool(row and row.get('regression')),
        'improvement': bool(row and row.get('improvement')),
        'significant': bool(row and row.get('significant')),
        'tooltip': _bar_tooltip(key, phase, value, label, (change, phases[0], row) if index else None),
    }


def _chart(job, direction, metric, phases, values, rows_by_phase, cache_suspect):
    """Geometry of one bar chart."""
    title, dummy, better = METRIC_INFO[metric]
    present = [value for value in values if value is not None and value > 0]
    top = max(present) if present else None
    bars = [_bar((job, direction, metric), index, phases, values, top, rows_by_phase)
            for index in range(min(len(phases), len(values)))]
    comparison = bars[1] if len(bars) > 1 else None
    width = 2 * PAD + max(len(phases), 1) * SLOT
    return {
        'id': '%s-%s-%s' % (job, direction, metric),
        'job': job,
        'direction': direction,
        'metric': metric,
        'title': title,
        'better': better,
        'cache_suspect': cache_suspect,
        'regression': bool(comparison and comparison['regression']),
        'improvement': bool(comparison and comparison['improvement']),
        'regressed_in': [item['phase'] for item in bars if item['regression']],
        'improved_in': [item['phase'] for item in bars if item['improvement']],
        'max_value': top,
        'bars': bars,
        'width': width,
        'height': TOP + PLOT + BOTTOM,
        'axis_y': TOP + PLOT,
        'axis_x1': PAD / 2.0,
        'axis_x2': width - PAD / 2.0,
        'phase_label_y': TOP + PLOT + 15,
        'label': u'%s %s %s (%s is better): %s' % (
            job, direction, title, better,
            ', '.join(u'%s %s' % (item['phase'], item['label']) for item in bars)),
    }


def metric_title(metric):
    """Human name of a fio metric key: ``bandwidth``, ``p99 completion latency``..."""
    if metric in METRIC_INFO:
        return METRIC_INFO[metric][0]
    return OTHER_TITLES.get(metric, u'%s' % (metric,))


def _trigger_groups(triggers):
    """The triggers grouped by job and direction, in order: ``[{job, direction, metrics}]``."""
    groups = []
    for trigger in triggers:
        if not groups or (groups[-1]['job'], groups[-1]['direction']) != (trigger['job'], trigger['direction']):
            groups.append({'job': trigger['job'], 'direction': trigger['direction'], 'metrics': []})
        groups[-1]['metrics'].append(u'%s %s' % (trigger['title'], format_pct(trigger['change_pct'])))
    return groups


def _trigger(row):
    """A regression row as a short sentence part: ``seq-write write bandwidth -90.0 %``."""
    metric = row.get('metric')
    title = metric_title(metric)
    return {
        'job': row.get('job'),
        'direction': row.get('direction'),
        'metric': metric,
        'change_pct': real_number(row.get('change_pct')),
        'worse_pct': real_number(row.get('worse_pct')),
        'title': title,
        'text': u'%s %s %s %s' % (row.get('job'), row.get('direction'), title, format_pct(row.get('change_pct'))),
    }


def _rows_by_phase(benchmark):
    """{phase: {(job, direction, metric): row}} of the ``comparison`` and ``recovery`` rows."""
    comparison_phase, recovery_phase = _row_phases(benchmark)
    rows_by_phase = {}
    if comparison_phase:
        rows_by_phase[comparison_phase] = _raw_rows(benchmark.get('comparison'))
    if recovery_phase:
        rows_by_phase[recovery_phase] = _raw_rows(benchmark.get('recovery'))
    return rows_by_phase


def _jobs_by_phase(phases, results):
    """(job names in first-seen order, {phase: {name: job}})."""
    order = []
    per_phase = {}
    for phase in phases:
        names, jobs = _phase_jobs(results.get(phase))
        per_phase[phase] = jobs
        order.extend(name for name in names if name not in order)
    return order, per_phase


def judging(benchmark):
    """(noise_factor, threshold_pct) of a host's ``benchmark``: the ones its comparisons used, else the defaults."""
    noise_factor = real_number(benchmark.get('noise_factor'))
    threshold = real_number(benchmark.get('threshold_pct'))
    return (DEFAULT_NOISE_FACTOR if noise_factor is None or noise_factor < 0 else noise_factor,
            DEFAULT_THRESHOLD_PCT if threshold is None or threshold < 0 else threshold)


def _medians(jobs, phases, direction, judge):
    """Each phase's medians of one job direction beside their spread and verdict (job_verdict), the phases with I/O."""
    medians = []
    for phase, job in zip(phases, jobs):
        values = job.get(direction)
        if not isinstance(values, dict):
            continue
        medians.append({'phase': phase, 'bw_bytes': real_number(values.get('bw_bytes')),
                        'bw_label': format_bytes_rate(values.get('bw_bytes')), 'iops_label': format_iops(values.get('iops')),
                        'spread': spread_text(job, direction), 'latency': latency_text(values),
                        'verdict': job_verdict(job, judge[0], judge[1], direction)})
    return medians


def _job_groups(name, jobs, phases, rows_by_phase, judge=(DEFAULT_NOISE_FACTOR, DEFAULT_THRESHOLD_PCT)):
    """The chart groups of one job (its ``jobs`` per phase, {} where missing), one per direction with I/O; a
    job that measured memory in any phase is ``cache_suspect`` and ``memory`` holds the first such verdict."""
    groups = []
    for direction in DIRECTIONS:
        sections = [job.get(direction) if isinstance(job.get(direction), dict) else None for job in jobs]
        if all(section is None for section in sections):
            continue
        medians = _medians(jobs, phases, direction, judge)
        memory = [median['verdict'] for median in medians if median['verdict']['verdict'] == 'memory']
        suspect = bool(memory) or any(bool(job.get('cache_suspect')) for job in jobs)
        group = {'job': name, 'direction': direction, 'cache_suspect': suspect, 'charts': [], 'medians': medians,
                 'memory': memory[0] if memory else None}
        for metric in CHART_METRICS:
            values = [real_number(section.get(metric)) if section is not None else None for section in sections]
            group['charts'].append(_chart(name, direction, metric, phases, values, rows_by_phase, suspect))
        group['regression'] = any(chart['regression'] for chart in group['charts'])
        group['improvement'] = any(chart['improvement'] for chart in group['charts'])
        groups.append(group)
    return groups


def host_charts(benchmark):
    """Bar charts of one host's ``benchmark`` (None or empty: no charts).

    Returns ``{phases, threshold_pct, rollback_on_regression, rolled_back, recovered, triggers,
    trigger_groups, improvement_groups, groups, charts, count}``:
    ``groups`` is one entry per job x direction with I/O (``job``, ``direction``,
    ``cache_suspect``, ``charts``), ``charts`` the same charts flat, ``triggers`` the
    ``regressions`` rows as text, ``trigger_groups`` and ``improvement_groups`` the regressed
    and improved metrics of ``comparison`` by job and direction.
    """
    if not benchmark:
        return {'phases': [], 'threshold_pct': None, 'rolled_back': False, 'recovered': None,
                'rollback_on_regression': False, 'triggers': [], 'trigger_groups': [], 'improvement_groups': [],
                'groups': [], 'charts': [], 'count': 0, 'reached': []}
    if not isinstance(benchmark, dict):
        raise TypeError('a benchmark must be a dict, got %s' % type(benchmark).__name__)
    phases = measured_phases(benchmark)
    rows_by_phase = _rows_by_phase(benchmark)
    results = benchmark.get('results') or {}
    order, per_phase = _jobs_by_phase(phases, results)
    judge = judging(benchmark)
    groups = []
    for name in order:
        groups.extend(_job_groups(name, [per_phase[phase].get(name) or {} for phase in phases], phases, rows_by_phase, judge))
    charts = [chart for group in groups for chart in group['charts']]

    recovered = benchmark.get('recovered')
    triggers = [_trigger(row) for row in benchmark.get('regressions') or [] if isinstance(row, dict)]
    improvements = [_trigger(row) for row in benchmark.get('comparison') or []
                    if isinstance(row, dict) and row.get('improvement')]
    return {
        'phases': phases,
        'threshold_pct': real_number(benchmark.get('threshold_pct')),
        'rollback_on_regression': bool(benchmark.get('rollback_on_regression')),
        'rolled_back': bool(benchmark.get('rolled_back')),
        'recovered': None if recovered is None else bool(recovered),
        'triggers': triggers,
        'trigger_groups': _trigger_groups(triggers),
        'improvement_groups': _trigger_groups(improvements),
        'groups': groups,
        'charts': charts,
        'count': len(charts),
        'reached': _reached(phases, results),
    }


def _reached(phases, results):
    """What each phase's measurement reached, as target_text says it: [{phase, medium, text}], the phases that say."""
    found = []
    for phase in phases:
        reached = (results.get(phase) or {}).get('reached') if isinstance(results.get(phase), dict) else None
        text = target_text(reached)
        if text:
            found.append({'phase': phase, 'medium': reached['medium'], 'text': text})
    return found


def headline_direction(job):
    """The direction of ``job`` with the most bytes/s (read on a tie); None without I/O."""
    best = None
    best_bw = None
    for direction in DIRECTIONS:
        section = job.get(direction)
        if not isinstance(section, dict):
            continue
        bw = real_number(section.get('bw_bytes'))
        bw = -1.0 if bw is None else bw
        if best is None or bw > best_bw:
            best, best_bw = direction, bw
    return best


def _nice_scale(largest):
    """The half-width of the fleet axis in %: a round number >= ``largest``, in [10, 100]."""
    for nice in _NICE:
        if largest <= nice:
            return nice
    return FLEET_MAX_SCALE


def _short(text, size=HOST_CHARS):
    text = u'%s' % (text,)
    return text if len(text) <= size else text[:size - 1] + ELLIPSIS


def fleet_view(reports):
    """The fleet view of the benchmarks of a run's host reports.

    Returns ``{hosts, jobs, rows, count, width, height, zero_x, ticks, scale_pct}``:
    ``hosts`` per host with a benchmark (``host``, ``rolled_back``, ``recovered``,
    ``phases``, ``jobs``), each job with the change of its headline metric (``bw_bytes``
    of the direction with more bytes/s in the first phase) from the first phase to the
    second, and ``rows`` the same grouped by job with the bar geometry (``jobs``: headings).
    """
    hosts = []
    for report in reports or []:
        if not isinstance(report, dict) or not isinstance(report.get('benchmark'), dict):
            continue
        benchmark = report['benchmark']
        phases = measured_phases(benchmark)
        results = benchmark.get('results') or {}
        first = phases[0] if phases else None
        second = phases[1] if len(phases) > 1 else None
        comparison = _raw_rows(benchmark.get('comparison'))
        regressed = set((row.get('job'), row.get('direction'), row.get('metric'))
                        for row in benchmark.get('regressions') or [] if isinstance(row, dict))
        names, before = _phase_jobs(results.get(first)) if first else ([], {})
        after = _phase_jobs(results.get(second))[1] if second else {}
        recovered = benchmark.get('recovered')
        judge = judging(benchmark)
        entry = {
            'host': report.get('host'),
            'rolled_back': bool(benchmark.get('rolled_back')),
            'recovered': None if recovered is None else bool(recovered),
            'phases': [phase for phase in (first, second) if phase],
            'jobs': [],
        }
        for name in names:
            job = before[name]
            direction = headline_direction(job)
            if direction is None:
                continue
            value_before = real_number(job[direction].get('bw_bytes'))
            other = (after.get(name) or {}).get(direction)
            value_after = real_number(other.get('bw_bytes')) if isinstance(other, dict) else None
            change = change_pct(value_before, value_after)
            row = comparison.get((name, direction, 'bw_bytes'))
            verdicts = [job_verdict(found, judge[0], judge[1], direction)
                        for found in (job, after.get(name)) if isinstance(found, dict) and isinstance(found.get(direction), dict)]
            entry['jobs'].append({
                'job': name,
                'direction': direction,
                'metric': 'bw_bytes',
                'before': value_before,
                'after': value_after,
                'change_pct': None if change is None else round(change, 1),
                'change_label': format_pct(change) if second else 'single run',
                'regression': bool(row and row.get('regression')),
                'improvement': bool(row and row.get('improvement')),
                'job_regression': any(key[0] == name for key in regressed),
                'cache_suspect': bool(job.get('cache_suspect')) or any(v['verdict'] == 'memory' for v in verdicts),
                'verdict': _worst(verdicts),
            })
        hosts.append(entry)
    return _fleet_geometry(hosts)


# the verdicts of a job's phases, the one the fleet view shows first
_VERDICT_ORDER = ('memory', 'noisy', 'unknown', 'steady')


def _worst(verdicts):
    """The verdict of the phases a fleet row compares that tells most: memory, noisy, unknown, then steady."""
    for name in _VERDICT_ORDER:
        for verdict in verdicts:
            if verdict['verdict'] == name:
                return verdict
    return None


def _fleet_job_order(hosts):
    """The job names of the hosts, in first-seen order."""
    job_order = []
    for host in hosts:
        for job in host['jobs']:
            if job['job'] not in job_order:
                job_order.append(job['job'])
    return job_order


def _fleet_flags(host, job):
    """What a row notes besides the change: rolled back (and recovered or not), cache suspect."""
    flags = []
    if host['rolled_back']:
        flags.append('rolled back')
        if host['recovered'] is True:
            flags.append('recovered')
        elif host['recovered'] is False:
            flags.append('not recovered')
    if job['cache_suspect']:
        flags.append('MEMORY, not the disk')
    elif job.get('verdict') and job['verdict']['verdict'] == 'noisy':
        flags.append('noisy: changes under %s %% unseen' % _pct_label(job['verdict']['detectable_pct']))
    return flags


def _pct_label(value):
    return '%g' % round(value, 1)


def _fleet_tooltip(host, job, flags):
    """The tooltip of one host's row of a job: its bandwidth before and after, and what it was judged."""
    tooltip = u'%s, %s %s bandwidth: %s -> %s (%s %s)' % (
        host['host'], job['job'], job['direction'], format_bytes_rate(job['before']),
        format_bytes_rate(job['after']), job['change_label'],
        ' vs '.join(host['phases'][:2][::-1]) if len(host['phases']) > 1 else '')
    tooltip = tooltip.replace(' ()', '')
    if job['regression']:
        tooltip += '; regression'
    elif job['improvement']:
        tooltip += '; improvement'
    if job['job_regression'] and not job['regression']:
        tooltip += '; another metric of this job regressed'
    if flags:
        tooltip += '; ' + ', '.join(flags)
    if job.get('verdict'):
        tooltip += '; ' + job['verdict']['text']
    return tooltip


def _fleet_row(host, job, scale, zero_x, y):
    """The bar of one host's job at height ``y``, on an axis of +-``scale`` % around ``zero_x``."""
    change = job['change_pct']
    # bw_bytes: higher is better, so a drop (negative change) is drawn to the left
    clipped = change is not None and abs(change) > scale
    length = 0.0 if change is None else min(abs(change), scale) / scale * FLEET_HALF
    x = zero_x - length if change is not None and change < 0 else zero_x
    if job['regression']:
        tone = 'regression'
    elif job['improvement']:
        tone = 'improvement'
    else:
        tone = 'neutral'
    flags = _fleet_flags(host, job)
    return dict(
        job,
        host=host['host'],
        host_label=_short(host['host']),
        rolled_back=host['rolled_back'],
        recovered=host['recovered'],
        tone=tone,
        clipped=clipped,
        note=job['change_label'] + (u' \u00b7 ' + u' \u00b7 '.join(flags) if flags else ''),
        tooltip=_fleet_tooltip(host, job, flags),
        x=_r(x),
        y=_r(y + 3),
        width=_r(length),
        height=FLEET_ROW - 6,
        text_y=_r(y + FLEET_ROW - 7),
    )


def _fleet_ticks(scale, zero_x):
    """The axis ticks: -scale, -scale/2, 0, +scale/2, +scale (in %)."""
    ticks = []
    for step in (-1.0, -0.5, 0.0, 0.5, 1.0):
        pct = step * scale
        ticks.append({'x': _r(zero_x + step * FLEET_HALF),
                      'label': '0 %' if step == 0 else (u'%+g %%' % pct).replace('-', MINUS)})
    return ticks


def _fleet_geometry(hosts):
    """Place the fleet rows: grouped by job (first-seen order), hosts in report order."""
    changes = [abs(job['change_pct']) for host in hosts for job in host['jobs'] if job['change_pct'] is not None]
    scale = _nice_scale(max(changes) if changes else 0.0)
    zero_x = FLEET_LABEL + FLEET_HALF
    y = FLEET_TOP
    headings = []
    rows = []
    for name in _fleet_job_order(hosts):
        headings.append({'job': name, 'y': _r(y + FLEET_HEAD - 7)})
        y += FLEET_HEAD
        for host in hosts:
            for job in host['jobs']:
                if job['job'] == name:
                    rows.append(_fleet_row(host, job, scale, zero_x, y))
                    y += FLEET_ROW
    return {
        'hosts': hosts,
        'jobs': headings,
        'rows': rows,
        'count': len(rows),
        'scale_pct': scale,
        'zero_x': zero_x,
        'ticks': _fleet_ticks(scale, zero_x),
        'tick_y': FLEET_TOP - 10,
        'label_x': 4,
        'note_x': zero_x + FLEET_HALF + 10,
        'left_x': FLEET_LABEL,
        'right_x': zero_x + FLEET_HALF,
        'width': FLEET_LABEL + 2 * FLEET_HALF + FLEET_NOTE,
        'height': _r(y + 6),
        'axis_y1': FLEET_TOP - 4,
        'axis_y2': _r(y + 2),
    }
