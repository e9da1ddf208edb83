# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HTML report of a measured search (tune_io, docs/tuning.md): one self-contained page, with one
SVG chart per setting: the value tried (the current one first) against the measured figure, every
round a dot, the median a bar, and for each candidate the decision's interval of its effect drawn
around the current value's median, labelled with its outcome. Pure (no Ansible imports); every text
from the search is escaped."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
from html import escape

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import median

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 78, 16, 30, 58
COLOURS = {'better': '#1a7f37', 'worse': '#cf222e', 'no-difference': '#57606a', 'undecided': '#9a6700', 'inconsistent': '#9a6700',
           'cache-suspect': '#9a6700', 'too-few-rounds': '#9a6700', 'current': '#0969da'}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def format_figure(value, metric):
    """A measured figure as a person reads it: MiB/s for bandwidth, µs for latency (ns measured)."""
    if not _number(value):
        return '-'
    if metric == 'lat':
        return '%.1f µs' % (value / 1000.0)
    return '%.1f MiB/s' % (value / 1048576.0)


def _values(rounds, name):
    return [measured[name] for measured in rounds if _number(measured.get(name))]


def setting_columns(search, setting):
    """The columns of one setting's chart: the current value, then its candidates, each with
    ``label``, ``name``, ``values`` (one per round), ``median`` and ``verdict`` (None for the current)."""
    verdicts = dict((verdict['candidate'], verdict) for verdict in (search.get('decision') or {}).get('verdicts', []))
    rounds = search.get('rounds') or []
    columns = [{'label': '%s (current)' % (search.get('current') or {}).get(setting), 'name': 'current', 'verdict': None}]
    for candidate in search.get('candidates') or []:
        if candidate.get('setting') in (setting, None):
            columns.append({'label': str(candidate['value']) if candidate.get('setting') else candidate['name'],
                            'name': candidate['name'], 'verdict': verdicts.get(candidate['name'])})
    for column in columns:
        column['values'] = _values(rounds, column['name'])
        column['median'] = median(column['values']) if column['values'] else None
    return columns


def _y(value, top_value):
    return round(TOP + (HEIGHT - TOP - BOTTOM) * (1 - value / top_value), 1)


def _column_svg(index, column, slot, top_value, baseline, metric):
    """The marks of one column: its rounds as dots, its median as a bar, its interval and outcome."""
    centre = LEFT + slot * index + slot / 2.0
    colour = COLOURS['current'] if column['verdict'] is None else COLOURS.get(column['verdict']['outcome'], '#57606a')
    parts = []
    count = len(column['values'])
    for number, value in enumerate(column['values']):
        x = round(centre - 14 + 28.0 * number / max(count - 1, 1), 1)
        parts.append('<circle cx="%s" cy="%s" r="3" fill="%s" fill-opacity="0.55"><title>round %d: %s</title></circle>'
                     % (x, _y(value, top_value), colour, number + 1, escape(format_figure(value, metric))))
    if column['median'] is not None:
        y = _y(column['median'], top_value)
        parts.append('<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="3"><title>median %s</title></line>'
                     % (round(centre - 22, 1), round(centre + 22, 1), y, y, colour, escape(format_figure(column['median'], metric))))
    verdict = column['verdict']
    if verdict and verdict.get('interval') and baseline:
        # the interval of the effect (a ratio to the current value), drawn around the current median
        low, high = (baseline * ratio for ratio in verdict['interval'])
        if metric == 'lat':
            low, high = baseline / verdict['interval'][1], baseline / verdict['interval'][0]
        parts.append('<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="1.5"/>'
                     % (centre + 26, centre + 26, _y(min(low, top_value), top_value), _y(min(high, top_value), top_value), colour))
    outcome = 'current value' if verdict is None else '%s, %sx' % (verdict['outcome'], verdict.get('effect'))
    if verdict and verdict.get('detectable') is not None and verdict['outcome'] in ('no-difference', 'undecided'):
        outcome += ', seen %.0f %%' % (100 * verdict['detectable'])
    parts.append('<text x="%s" y="%d" text-anchor="middle" font-size="12">%s</text>' % (centre, HEIGHT - BOTTOM + 16, escape(column['label'])))
    parts.append('<text x="%s" y="%d" text-anchor="middle" font-size="11" fill="%s">%s</text>'
                 % (centre, HEIGHT - BOTTOM + 32, colour, escape(outcome)))
    return parts


def setting_chart(search, setting):
    """The SVG chart of one setting (a string)."""
    metric = search.get('metric', 'bw')
    columns = setting_columns(search, setting)
    figures = [value for column in columns for value in column['values']]
    baseline = columns[0]['median']
    intervals = [baseline * verdict['interval'][1] for verdict in (column['verdict'] for column in columns)
                 if verdict and verdict.get('interval') and baseline and metric != 'lat']
    top_value = max(figures + intervals + [1]) * 1.1
    slot = (WIDTH - LEFT - RIGHT) / float(max(len(columns), 1))
    setting = setting or 'A/A: the current value against itself'
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img">'
             % (WIDTH, HEIGHT, WIDTH, HEIGHT),
             '<title>%s</title>' % escape(setting),
             '<text x="%d" y="18" font-size="14" font-weight="bold">%s</text>' % (LEFT, escape(setting)),
             '<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#8c959f"/>' % (LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, HEIGHT - BOTTOM)]
    for tick in range(0, 5):
        value = top_value * tick / 4.0
        parts.append('<text x="%d" y="%s" text-anchor="end" font-size="10" fill="#57606a">%s</text>'
                     % (LEFT - 6, _y(value, top_value) + 3, escape(format_figure(value, metric))))
    for index, column in enumerate(columns):
        parts.extend(_column_svg(index, column, slot, top_value, baseline, metric))
    parts.append('</svg>')
    return '\n'.join(parts)


def searched_settings(search):
    """The settings the search tried, in order (None for an A/A search: the current value against itself)."""
    found = []
    for candidate in search.get('candidates') or []:
        setting = candidate.get('setting')
        if setting not in found:
            found.append(setting)
    return found


def render_tune_report(report):
    """The HTML page of a tune_io report (roles/tune_io/tasks/report.yml writes it beside the JSON)."""
    search = report.get('search') or {}
    title = 'tune_io on %s: %s' % (report.get('host'), search.get('run_id'))
    lines = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">', '<title>%s</title>' % escape(title),
             '<style>body{font-family:sans-serif;margin:2em;max-width:60em}pre{background:#f6f8fa;padding:1em}'
             'table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2em .5em;text-align:right}</style>',
             '</head><body>', '<h1>%s</h1>' % escape(title),
             '<p><strong>%s</strong></p>' % escape(str(search.get('msg'))),
             '<p>device %s (%s); %s</p>' % (escape(str((search.get('device') or {}).get('name'))), escape(str(search.get('hardware'))),
                                            escape(_rule_text(search))),
             '<p>%s</p>' % escape(_reached_text(search.get('reached')))]
    if report.get('held') is not None:
        lines.append('<p>deployed as run %s; the confirmation search says the gain %s%s</p>' % (
            escape(str(report.get('deployed_run_id'))), 'held' if report['held'] else 'did not hold',
            ' (rolled back)' if report.get('rolled_back') else ''))
    for setting in searched_settings(search):
        lines.append('<figure>%s</figure>' % setting_chart(search, setting))
    if search.get('policy_fragment'):
        lines.append('<h2>Policy fragment for harden_io.yml</h2><pre>%s</pre>'
                     % escape(json.dumps(search['policy_fragment'], indent=2, sort_keys=True)))
    lines.append(_rounds_table(search))
    lines.append('</body></html>')
    return '\n'.join(lines) + '\n'


def _reached_text(reached):
    """What the search's I/O reached (the tune_io module's ``reached``), for people."""
    if not reached:
        return 'what the I/O reached was not recorded'
    if reached.get('medium') == 'device':
        return 'measured: %s' % ' over '.join(reached.get('chain') or ['a device'])
    text = '%s: %s' % ('MEMORY, not the disk' if reached.get('medium') == 'memory' else 'cannot tell what the I/O reached',
                       '; '.join(reached.get('reasons') or []))
    return text + ('; to measure the disk: %s' % reached['fix'] if reached.get('fix') else '')


def _rule_text(search):
    rule = (search.get('decision') or {}).get('rule') or {}
    modes = (search.get('decision') or {}).get('modes')
    return ('rule: %s confidence (%s per candidate), minimum effect %s, no difference only where %s would have been seen, '
            '%s round(s)%s' % (rule.get('confidence'), rule.get('per_candidate_confidence'), rule.get('min_effect'),
                               rule.get('resolution', 0.25), rule.get('rounds'), '; the rounds fall into two modes' if modes else ''))


def _rounds_table(search):
    names = ['current'] + [candidate['name'] for candidate in search.get('candidates') or []]
    metric = search.get('metric', 'bw')
    rows = ['<h2>Rounds</h2><table><tr><th>round</th>%s</tr>' % ''.join('<th>%s</th>' % escape(name) for name in names)]
    for number, measured in enumerate(search.get('rounds') or []):
        cells = ''.join('<td>%s</td>' % escape(format_figure(measured.get(name), metric)) for name in names)
        rows.append('<tr><td>%d</td>%s</tr>' % (number + 1, cells))
    rows.append('</table>')
    return '\n'.join(rows)
