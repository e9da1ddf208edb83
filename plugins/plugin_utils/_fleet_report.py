# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet reports of a run, from its host reports: summary.json, junit.xml, report.html.

report.html holds a fleet of thousands of hosts: the checks are in the page once, as JSON
with every repeated text stored once, and its script builds the views on demand. It opens
with the fleet view, one row per setting (a check id) with its count per status ("drift on
37 of 1,000 hosts"), each count opening the hosts behind it; filters by status and concern;
a host list whose rows open that host's checks. Benchmarks, when a host has one, follow as
SVG charts drawn here. Self-contained: no network, no external script or style.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import errno
import fcntl
import gzip
import json
import os
import tempfile
import time
from xml.sax.saxutils import escape as _xml_escape

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES, summarize
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import visible_data, xml_text
from ansible_collections.iotune.storage.plugins.module_utils.policy.severity import LEVELS
from ansible_collections.iotune.storage.plugins.plugin_utils._fio_compare import change_lines, summary_line
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import open_nofollow, path_safe_name, private_directory
from ansible_collections.iotune.storage.plugins.plugin_utils._bench_chart import fleet_view, host_charts, judging, measured_phases
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_history import (
    HISTORY_FILE, fleet_changes, history_json, next_runs, read_runs, run_line)
from ansible_collections.iotune.storage.plugins.plugin_utils._benchmark import benchmark_summary

FILES = ('summary.json', 'junit.xml', 'report.html', 'history.json')


def esc(value):
    """Text for HTML or XML content and double-quoted attributes; a character XML 1.0 forbids (a
    control character in a mount point or a host name, a NUL in a waiver's reason) shown as its
    escape (``\\x1b``), never dropped: junit.xml stays well-formed (issue 38, item 11)."""
    return _xml_escape(xml_text(u'%s' % (value,)), {'"': '&quot;', "'": '&#39;'})


def to_json(value):
    return json.dumps(value, sort_keys=True, separators=(', ', ': '), ensure_ascii=False)


def check_summary(checks):
    """Count per status, every status present, ``changed`` after an enforcing run, and ``waived``
    when a waiver marked a check."""
    summary = summarize(checks)
    if any('changed' in check for check in checks):
        summary['changed'] = sum(1 for check in checks if check.get('changed'))
    if any('waiver' in check for check in checks):
        summary['waived'] = sum(1 for check in checks if check.get('waiver'))
    return summary


def waiver_text(waiver):
    """'waived until 2026-12-31 (33 days left) by dba: the reason' for a check's waiver."""
    return 'waived until %s (%d days left) by %s: %s' % (
        waiver['expires'], waiver['days_left'], waiver['owner'], waiver['reason'])


def fix_text(fix):
    """'harden_io would: A; B. Needs: a remount (...)' for a check's fix (engine/fixes.py)."""
    if not fix.get('changes'):
        return 'harden_io: %s' % fix.get('text')
    return 'harden_io would: %s. Needs: %s' % ('; '.join(fix['changes']), fix.get('text'))


FAILING = ('drift', 'not_persistent')


def failing(check):
    """Whether a check fails the audit: drift or not_persistent, and no waiver."""
    return check['status'] in FAILING and not check.get('waiver')


def host_checks(report):
    return [dict(check, host=report['host']) for check in report.get('checks', [])]


def console_lines(checks):
    """The console's lines of a fleet's checks (each with its ``host``, as host_checks gives them):
    ``host: status: message`` for every check that is not compliant, not applicable ones too (their
    message names what the host lacks: a mount point that does not exist, a concern of another platform),
    a waived one as ``waived <status> (waiver <name>)``, never as a bare drift. KeyError, TypeError or
    AttributeError for a check without host, status or message."""
    lines = []
    for check in checks:
        status = check['status']
        if status == 'compliant':
            continue
        shown = status.replace('_', ' ')
        waiver = check.get('waiver')
        if waiver:
            name = waiver.get('name') if isinstance(waiver, dict) else None
            shown = 'waived %s%s' % (shown, ' (waiver %s)' % name if name else '')
        lines.append('%s: %s: %s' % (check['host'], shown, check['message']))
    return lines


# at most this many lines of checks on the console; the rest are in report.html
CONSOLE_LIMIT = 50


def _limited(lines, limit, report_dir):
    if len(lines) > limit:
        return lines[:limit] + ['... and %d more: see %s/report.html' % (len(lines) - limit, report_dir)]
    return lines


def measurement_lines(reports):
    """The console's lines of what the hosts measured (their report's ``benchmark``), one per host and phase
    (_fio_compare.summary_line, judged with the host's noise_factor and regression threshold; the phase named
    when there are several): what the I/O reached, each job's medians, spread and verdict; ``host: not
    measured`` for a host without one."""
    lines = []
    for report in reports:
        benchmark = report.get('benchmark')
        if not isinstance(benchmark, dict):
            lines.append(u'%s: not measured' % (report['host'],))
            continue
        phases = measured_phases(benchmark)
        noise_factor, threshold = judging(benchmark)
        lines.extend(summary_line(report['host'], benchmark['results'][phase], noise_factor, threshold,
                                  phase if len(phases) > 1 else None) for phase in phases)
        if not phases:
            lines.append(u'%s: not measured' % (report['host'],))
    return lines


def console(reports, report_dir, limit=CONSOLE_LIMIT):
    """What the console says at the end of an audit or a harden, from the host reports in one pass (a template
    over every host's checks costs seconds per ten hosts: docs/performance.md, "Fleet"): ``hosts``, ``summary``
    (check_summary of every check, ``waived`` always there) and ``lines`` (console_lines, at most ``limit`` and
    then one that says how many more and where). After a measurement (the reports' mode ``benchmark``, or any
    with a ``benchmark``) also ``measured`` (how many hosts have a benchmark) and ``measurements``
    (measurement_lines, at most ``limit`` likewise)."""
    checks = [check for report in reports for check in host_checks(report)]
    summary = dict(check_summary(checks))
    summary.setdefault('waived', 0)
    found = {'hosts': len(reports), 'summary': summary, 'lines': _limited(console_lines(checks), limit, report_dir)}
    with_bench = benched(reports)
    if with_bench or mode_of(reports) == 'benchmark':
        found['measured'] = len(with_bench)
        found['measurements'] = _limited(measurement_lines(reports), limit, report_dir)
    return found


def benched(reports):
    return [report for report in reports if report.get('benchmark') is not None]


def render(reports, run_id, now, runs=None):
    """{file name: text} of the fleet files; ``now`` is the UTC time as 2026-11-25T05:00:00Z;
    ``runs`` the lines of history.json, this run's last."""
    return {'summary.json': summary_json(reports, run_id, now, runs), 'junit.xml': junit_xml(reports, run_id),
            'report.html': report_html(reports, run_id, runs)}


def mode_of(reports):
    return (reports[0].get('mode') or 'audit') if reports else 'audit'


def changes_summary(reports):
    """What summary.json says of the changes since each host's previous report: the counts, and
    per host with any, the check ids."""
    changes = fleet_changes(reports)
    hosts = {}
    for kind in ('new', 'resolved'):
        for entry in changes[kind]:
            hosts.setdefault(entry['host'], {'new': [], 'resolved': []})[kind].append(entry['id'])
    return {'new': len(changes['new']), 'resolved': len(changes['resolved']), 'first_reports': changes['first_reports'],
            'hosts': hosts}


def summary_json(reports, run_id, now, runs=None):
    checks = [check for report in reports for check in host_checks(report)]
    data = {
        'kind': 'iotune.storage ' + mode_of(reports),
        'run_id': run_id,
        'time': now,
        'hosts': len(reports),
        'summary': check_summary(checks),
        'by_host': dict((report['host'], report.get('summary')) for report in reports),
        'checks': checks,
        'waivers': dict((report['host'], report['waivers']) for report in reports if report.get('waivers')),
        'failing_by_severity': dict((level, sum(1 for check in checks if check.get('severity') == level and
                                                (failing(check) or (check['status'] == 'error' and not check.get('waiver')))))
                                    for level in LEVELS),
        'benchmarks': dict((report['host'], benchmark_summary(report['benchmark']))
                           for report in reports if report.get('benchmark') is not None),
        'since_previous': changes_summary(reports),
        'runs': runs or [],
    }
    return json.dumps(data, indent=4, sort_keys=True, separators=(',', ': '), ensure_ascii=False) + '\n'


def junit_xml(reports, run_id):
    """One test case per check (drift and not_persistent fail, error errs, not_applicable and a
    waived check are skipped) and, after a measured run, one per compared metric (a regression fails).
    Valid against the Jenkins junit-10.xsd (the tests check it)."""
    def comparison(report):
        return ((report.get('benchmark') or {}).get('comparison')) or []

    def count(report, *statuses):
        return sum(1 for check in report.get('checks', []) if check['status'] in statuses)

    def fails(report):
        return sum(1 for check in report.get('checks', []) if failing(check))

    def skipped(report):
        return sum(1 for check in report.get('checks', []) if check['status'] == 'not_applicable' or
                   (check['status'] in FAILING and check.get('waiver')))

    rows = [row for report in reports for row in comparison(report)]
    tests = sum(len(report.get('checks', [])) for report in reports) + len(rows)
    failures = sum(fails(report) for report in reports) + sum(1 for row in rows if row['regression'])
    errors = sum(count(report, 'error') for report in reports)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<testsuites name="iotune.storage audit %s" tests="%d" failures="%d" errors="%d">'
           % (esc(run_id), tests, failures, errors)]
    for index, report in enumerate(reports):
        compared = comparison(report)
        host = esc(report['host'])
        out.append('  <testsuite name="%s" hostname="%s" package="iotune.storage" id="%d" tests="%d" failures="%d" '
                   'errors="%d" skipped="%d" time="0" timestamp="%s">'
                   % (host, host, index, len(report.get('checks', [])) + len(compared),
                      fails(report) + sum(1 for row in compared if row['regression']),
                      count(report, 'error'), skipped(report), esc((report.get('time') or '').replace('Z', ''))))
        for check in report.get('checks', []):
            out.append('    <testcase classname="iotune.%s.%s" name="%s" time="0">' % (esc(check['concern']), host, esc(check['id'])))
            detail = esc('expected: %s; live: %s; persistent: %s%s' % (
                json.dumps(check.get('expected')), json.dumps(check.get('live')), json.dumps(check.get('persistent')),
                '\n' + fix_text(check['fix']) if check.get('fix') else ''))
            message = esc(('[%s] ' % check['severity'] if check.get('severity') else '') + (check.get('message') or ''))
            if check['status'] in FAILING and check.get('waiver'):
                out.append('      <skipped type="waived" message="%s"/>' % esc('%s, %s' % (check['status'], waiver_text(check['waiver']))))
            elif check['status'] in FAILING:
                out.append('      <failure type="%s" message="%s">%s</failure>' % (check['status'], message, detail))
            elif check['status'] == 'error':
                out.append('      <error type="error" message="%s">%s</error>' % (message, detail))
            elif check['status'] == 'not_applicable':
                out.append('      <skipped type="not_applicable" message="%s"/>' % message)
            out.append('    </testcase>')
        for row in compared:
            out.append('    <testcase classname="iotune.benchmark.%s" name="%s" time="0">'
                       % (host, esc('%s:%s:%s' % (row['job'], row['direction'], row['metric']))))
            if row['regression']:
                bench = report['benchmark']
                out.append('      <failure type="regression" message="%s">%s</failure>' % (
                    esc(change_lines([row])[0]), esc('rolled back: %s; recovered: %s' % (bench.get('rolled_back'), bench.get('recovered')))))
            out.append('    </testcase>')
        out.append('  </testsuite>')
    out.append('</testsuites>')
    return '\n'.join(out) + '\n'


# ---------------------------------------------------------------------------- report.html

def page_data(reports):
    """The checks of every host as compact JSON: every text once in ``strings``, each check a
    row of indexes [host, id, concern, target, setting, status, expected, live, persistent,
    message, changed, status_before, waiver, severity, fix] (-1: none; the waiver and the fix as their
    text; the severity as its index in ``severities``)."""
    strings, index = [], {}

    def ref(value):
        if value is None:
            return -1
        # shown as junit.xml shows it: a control character as its escape, not invisible in the page
        text = xml_text(value if isinstance(value, str) else to_json(value))
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    hosts, rows = [], []
    for number, report in enumerate(reports):
        hosts.append(xml_text(report['host']))
        for check in report.get('checks', []):
            rows.append([number, ref(check['id']), ref(check['concern']), ref(check.get('target')),
                         ref(check.get('setting')), STATUSES.index(check['status']), ref(check.get('expected')),
                         ref(check.get('live')), ref(check.get('persistent')), ref(check.get('message')),
                         1 if check.get('changed') else 0,
                         STATUSES.index(check['status_before']) if check.get('status_before') in STATUSES else -1,
                         ref(waiver_text(check['waiver'])) if check.get('waiver') else -1,
                         LEVELS.index(check['severity']) if check.get('severity') in LEVELS else -1,
                         ref(fix_text(check['fix'])) if check.get('fix') else -1])
    return {'statuses': list(STATUSES), 'severities': list(LEVELS), 'hosts': hosts, 'strings': strings, 'checks': rows}


# page data above this size goes into the page gzipped (base64): 10,000 hosts x 20 checks stay under 20 MB
PLAIN_LIMIT = 1 << 20


def _data_element(data):
    text = _script_json(data)
    if len(text) <= PLAIN_LIMIT:
        return u'<script type="application/json" id="iotune-data">%s</script>' % text
    packed = base64.b64encode(gzip.compress(text.encode('utf-8'), 6, mtime=0)).decode('ascii')
    return u'<script type="application/octet-stream" id="iotune-data-gz">%s</script>' % packed


def _script_json(data):
    # no < > & in the element at all: </script> or <!-- in a host name or message cannot end it
    text = json.dumps(data, separators=(',', ':'), ensure_ascii=False)
    return text.replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026')


STYLE = u'''
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 1400px; }
h1 { font-size: 1.4em; margin: 0 0 .3em; } h2 { font-size: 1.2em; margin: 1.2em 0 .4em; }
.meta { color: #555; margin-bottom: 1em; }
table { border-collapse: collapse; width: 100%; margin-bottom: 1em; table-layout: fixed; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: #f0f0f0; }
td.num, th.num { text-align: right; width: 7em; }
.waived { color: #555; font-style: italic; white-space: normal; }
.severity { font-size: 85%; border: 1px solid #999; border-radius: 3px; padding: 0 4px; }
.sev-high { border-color: #b91c1c; color: #b91c1c; }
.status { font-weight: 600; border-radius: 3px; padding: 1px 6px; white-space: nowrap; }
.s-compliant { background: #d7f5dd; color: #14532d; } .s-drift { background: #fde2e1; color: #7f1d1d; }
.s-not_persistent { background: #fff1c2; color: #713f12; } .s-not_applicable { background: #e5e7eb; color: #374151; }
.s-error { background: #7f1d1d; color: #fff; }
.changed { font-weight: 600; color: #1e3a8a; }
#filters { display: flex; flex-wrap: wrap; gap: 1em; align-items: center; margin: .5em 0 1em; }
#filters label { white-space: nowrap; }
a.count, a.host { cursor: pointer; color: #1d4ed8; text-decoration: underline; }
.hostlist { color: #333; font-size: 13px; padding: 4px 0; }
.hostlist a { margin-right: .6em; }
tr.open > td { background: #f8fafc; }
td.message { font-size: 13px; } .fix { margin-top: 3px; padding-left: 6px; border-left: 3px solid #1d4ed8; color: #1e3a8a; }
.pager { margin: .3em 0 1em; }
code { font-size: 12px; }
#since table { margin-bottom: .6em; } figure.runs { margin: .3em 0 .8em; } figure.runs figcaption { font-size: 12px; color: #555; }
svg.runs .axis { stroke: #444; } svg.runs .trend { stroke: #b91c1c; stroke-width: 2; }
svg.runs circle.run { fill: #b91c1c; } svg.runs circle.run-harden { fill: #1d4ed8; }
svg.runs text { font: 11px system-ui, sans-serif; fill: #666; }
'''

BENCH_STYLE = u'''#benchmarks h2 { font-size: 1.25em; margin: 1.2em 0 .3em; } #benchmarks h3 { font-size: 1.1em; margin: 0 0 .3em; }
#benchmarks h4 { font-size: 1em; margin: .8em 0 .3em; }
.bench-host { border-top: 2px solid #ccc; padding-top: .6em; margin-top: 1.2em; }
.bench-summary { margin: .2em 0 .4em; } .bench-summary.rolled-back { color: #7f1d1d; }
.legend { color: #444; margin: .3em 0 .5em; font-size: 13px; }
.sw { display: inline-block; width: 12px; height: 12px; vertical-align: -1px; margin: 0 4px 0 12px; border-radius: 2px; }
.charts { display: flex; flex-wrap: wrap; gap: 10px; }
figure.chart { margin: 0; border: 1px solid #d4d4d8; border-radius: 4px; padding: 4px 6px 2px; background: #fff; }
figure.chart.regression { border-color: #dc2626; box-shadow: 0 0 0 1px #dc2626; }
figure.chart.improvement { border-color: #16a34a; box-shadow: 0 0 0 1px #16a34a; }
.bench-job.cache-suspect figure.chart { border-style: dashed; background: #fffbeb; }
figcaption { font-size: 12px; font-weight: 600; } figcaption small { font-weight: 400; color: #666; }
svg { display: block; } svg.fleet { max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #222; }
svg .axis { stroke: #444; stroke-width: 1; } svg .grid { stroke: #ddd; stroke-width: 1; }
svg text.phase { fill: #555; } svg text.missing { fill: #999; font-style: italic; }
svg text.heading { font-weight: 600; } svg text.tick { fill: #666; }
.bar { fill: #6b7280; }
.phase-run { fill: #64748b; background: #64748b; } .phase-before { fill: #94a3b8; background: #94a3b8; }
.phase-after { fill: #2563eb; background: #2563eb; } .phase-after_rollback { fill: #d97706; background: #d97706; }
rect.bar.regression { stroke: #b91c1c; stroke-width: 2; } rect.bar.improvement { stroke: #15803d; stroke-width: 2; }
svg text.change.regression { fill: #b91c1c; font-weight: 600; } svg text.change.improvement { fill: #15803d; font-weight: 600; }
.tone-regression { fill: #dc2626; background: #dc2626; } .tone-improvement { fill: #16a34a; background: #16a34a; }
.tone-neutral { fill: #9ca3af; background: #9ca3af; }
.flag { font-size: 11px; font-weight: 600; padding: 1px 6px; border-radius: 3px; margin-left: .5em; white-space: nowrap; }
.flag.memory { background: #fde2e1; color: #7f1d1d; border: 1px dashed #b91c1c; }
table.medians { font-size: 13px; margin: .2em 0 .5em; } table.medians td, table.medians th { padding: 2px 6px; }
tr.verdict-memory > td { background: #fde2e1; } .verdict.memory { font-weight: 600; color: #7f1d1d; }
.verdict.noisy { color: #92400e; font-weight: 600; } .verdict.steady { color: #14532d; }
.bench-reached { margin: .2em 0; } .bench-reached.memory { color: #7f1d1d; font-weight: 600; }
.flag.regression { background: #fde2e1; color: #7f1d1d; } .flag.improvement { background: #d7f5dd; color: #14532d; }
'''

# The views, built from the data on demand. Text goes into the page through esc() or textContent only.
SCRIPT = u'''
(function () {
  var started = performance.now();
  // the data: JSON, or for a big fleet gzip in base64 that the browser inflates (DecompressionStream)
  function load(done) {
    var plain = document.getElementById('iotune-data');
    if (plain) { done(JSON.parse(plain.textContent)); return; }
    var packed = atob(document.getElementById('iotune-data-gz').textContent), bytes = new Uint8Array(packed.length);
    for (var i = 0; i < packed.length; i += 1) { bytes[i] = packed.charCodeAt(i); }
    new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then(function (text) {
      done(JSON.parse(text));
    });
  }
  load(function (D) {
  var S = D.strings, ST = D.statuses, C = D.checks, H = D.hosts;
  var PAGE = 100;
  function str(i) { return i < 0 ? '-' : S[i]; }
  function esc(t) { return String(t).replace(/[&<>"']/g, function (c) {
    return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]; }); }
  function badge(s) { return '<span class="status s-' + ST[s] + '">' + ST[s] + '</span>'; }
  function fmt(n) { return n.toLocaleString('en-US'); }
  var SV = D.severities.concat(['none']);
  function sevName(k) { return k < 0 ? 'none' : D.severities[k]; }
  var wantStatus = {}, wantConcern = {}, wantSeverity = {};
  ST.forEach(function (s) { wantStatus[s] = true; });
  SV.forEach(function (s) { wantSeverity[s] = true; });
  // a link can open the page filtered, and on a host: report.html#severity=high,medium&status=drift&host=db01
  var openHost = null;
  location.hash.replace(/^#/, '').split('&').forEach(function (part) {
    var kv = part.split('='), want = {'severity': wantSeverity, 'status': wantStatus}[kv[0]];
    if (kv[0] === 'host' && kv[1]) { openHost = decodeURIComponent(kv[1]); }
    if (!want || !kv[1]) { return; }
    var chosen = decodeURIComponent(kv[1]).split(',');
    Object.keys(want).forEach(function (name) { want[name] = chosen.indexOf(name) >= 0; });
  });
  var concerns = {}, settings = {}, order = [], byHost = H.map(function () { return []; });
  C.forEach(function (c, i) {
    concerns[S[c[2]]] = true;
    byHost[c[0]].push(i);
    var key = c[1];
    if (!(key in settings)) {
      settings[key] = {concern: S[c[2]], sev: -1, hosts: ST.map(function () { return []; })}; order.push(key);
    }
    settings[key].hosts[c[5]].push(c[0]);
    settings[key].sev = Math.max(settings[key].sev, c[13]);
  });
  Object.keys(concerns).forEach(function (c) { wantConcern[c] = true; });
  function wanted(i) { return wantConcern[S[C[i][2]]] && wantSeverity[sevName(C[i][13])]; }
  // the settings with drift, not_persistent or error hosts first, the most severe of them first, then the most hosts
  order.sort(function (a, b) {
    var x = settings[a], y = settings[b];
    var bad = function (s) { return s.hosts[1].length + s.hosts[2].length + s.hosts[4].length; };
    var rank = function (s) { return bad(s) ? s.sev : -2; };
    return rank(y) - rank(x) || bad(y) - bad(x) || (S[a] < S[b] ? -1 : 1);
  });

  function filters() {
    var html = '<b>status</b>';
    ST.forEach(function (s) { html += ' <label><input type="checkbox" data-status="' + s + '"' +
      (wantStatus[s] ? ' checked' : '') + '> ' + badge(ST.indexOf(s)) + '</label>'; });
    html += ' &nbsp; <b>severity</b>';
    SV.forEach(function (s) { html += ' <label><input type="checkbox" data-severity="' + s + '"' +
      (wantSeverity[s] ? ' checked' : '') + '> ' + s + '</label>'; });
    html += ' &nbsp; <b>concern</b>';
    Object.keys(concerns).sort().forEach(function (c) { html += ' <label><input type="checkbox" data-concern="' +
      esc(c) + '"' + (wantConcern[c] ? ' checked' : '') + '> ' + esc(c) + '</label>'; });
    var box = document.getElementById('filters');
    box.innerHTML = html;
    box.onchange = function (e) {
      var t = e.target;
      if (t.dataset.status) { wantStatus[t.dataset.status] = t.checked; }
      if (t.dataset.concern) { wantConcern[t.dataset.concern] = t.checked; }
      if (t.dataset.severity) { wantSeverity[t.dataset.severity] = t.checked; }
      fleet(); hosts(0);
    };
  }

  function fleet() {
    var rows = [];
    order.forEach(function (key) {
      var s = settings[key];
      if (!wantConcern[s.concern] || !wantSeverity[sevName(s.sev)]) { return; }
      var total = 0, cells = [];
      s.hosts.forEach(function (list) { total += list.length; });
      ST.forEach(function (name, k) {
        var n = s.hosts[k].length;
        cells.push(n && wantStatus[name] ? '<a class="count" data-key="' + key + '" data-status="' + k + '" title="' +
          esc(name) + ' on ' + fmt(n) + ' of ' + fmt(total) + ' hosts">' + fmt(n) + '</a>' : (n ? fmt(n) : ''));
      });
      var shown = ST.map(function (name, k) { return wantStatus[name] ? s.hosts[k].length : 0; });
      if (!shown.some(function (n) { return n; })) { return; }
      var worst = [4, 1, 2].filter(function (k) { return s.hosts[k].length && wantStatus[ST[k]]; })[0];
      var line = worst === undefined ? 'compliant or not applicable on all ' + fmt(total) + ' hosts'
        : ST[worst] + ' on ' + fmt(s.hosts[worst].length) + ' of ' + fmt(total) + ' hosts';
      var sev = s.sev < 0 ? '' : ' <span class="severity sev-' + D.severities[s.sev] + '">' + D.severities[s.sev] + '</span>';
      rows.push('<tr data-key="' + key + '" data-severity="' + sevName(s.sev) + '"><td><code>' + esc(S[key]) + '</code>' + sev +
        '<br>' + esc(line) + '</td><td class="num">' +
        cells.join('</td><td class="num">') + '</td></tr>');
    });
    document.getElementById('fleet-body').innerHTML = rows.join('') ||
      '<tr><td colspan="' + (ST.length + 1) + '">no check matches the filters</td></tr>';
  }

  document.getElementById('fleet').addEventListener('click', function (e) {
    var a = e.target.closest('a.count');
    if (a) {
      var tr = a.closest('tr'), next = tr.nextElementSibling;
      if (next && next.classList.contains('hostlist-row')) { next.remove(); if (next.dataset.for === a.dataset.status) { return; } }
      var list = settings[a.dataset.key].hosts[+a.dataset.status];
      var row = document.createElement('tr');
      row.className = 'hostlist-row'; row.dataset.for = a.dataset.status;
      row.innerHTML = '<td colspan="' + (ST.length + 1) + '" class="hostlist">' + badge(+a.dataset.status) + ' ' +
        fmt(list.length) + ' host(s): ' + list.map(function (h) { return '<a class="host" data-host="' + h + '">' +
        esc(H[h]) + '</a>'; }).join(' ') + '</td>';
      tr.after(row);
      return;
    }
    var h = e.target.closest('a.host');
    if (h) { showHost(+h.dataset.host); }
  });

  function hostCounts(h) {
    var n = ST.map(function () { return 0; });
    byHost[h].forEach(function (i) { if (wanted(i)) { n[C[i][5]] += 1; } });
    return n;
  }
  var hostOrder = H.map(function (dummy, i) { return i; });
  hostOrder.sort(function (a, b) {
    var x = hostCounts(a), y = hostCounts(b);
    return (y[4] + y[1] + y[2]) - (x[4] + x[1] + x[2]) || (H[a] < H[b] ? -1 : 1);
  });
  var hostPage = 0;
  function hosts(page) {
    var shown = hostOrder.filter(function (h) {
      var n = hostCounts(h);
      return ST.some(function (name, k) { return wantStatus[name] && n[k]; });
    });
    hostPage = Math.max(0, Math.min(page, Math.ceil(shown.length / PAGE) - 1));
    var rows = shown.slice(hostPage * PAGE, hostPage * PAGE + PAGE).map(function (h) {
      var n = hostCounts(h);
      return '<tr data-host="' + h + '"><td><a class="host" data-host="' + h + '">' + esc(H[h]) + '</a></td><td class="num">' +
        n.map(fmt).join('</td><td class="num">') + '</td></tr>';
    });
    document.getElementById('hosts-body').innerHTML = rows.join('');
    document.getElementById('hosts-pager').innerHTML = shown.length > PAGE ? 'hosts ' + fmt(hostPage * PAGE + 1) + '-' +
      fmt(Math.min(shown.length, hostPage * PAGE + PAGE)) + ' of ' + fmt(shown.length) +
      ' <button data-page="' + (hostPage - 1) + '">previous</button> <button data-page="' + (hostPage + 1) + '">next</button>'
      : fmt(shown.length) + (shown.length === H.length ? ' host(s)'
        : ' of ' + fmt(H.length) + ' host(s) shown: the others have no check the filters show');
  }
  document.getElementById('hosts-pager').addEventListener('click', function (e) {
    if (e.target.dataset.page !== undefined) { hosts(+e.target.dataset.page); }
  });
  document.getElementById('hosts').addEventListener('click', function (e) {
    var a = e.target.closest('a.host');
    if (a) { showHost(+a.dataset.host); }
  });

  function showHost(h) {
    var rows = byHost[h].filter(function (i) {
      return wantStatus[ST[C[i][5]]] && wanted(i);
    }).sort(function (a, b) { return C[b][13] - C[a][13] || a - b; }).map(function (i) {
      var c = C[i];
      var changed = c[10] ? ' <span class="changed">changed (was ' + esc(c[11] < 0 ? '-' : ST[c[11]]) + ')</span>' : '';
      if (c[12] >= 0) { changed += ' <span class="waived">' + esc(S[c[12]]) + '</span>'; }
      if (c[13] >= 0) { changed = ' <span class="severity sev-' + D.severities[c[13]] + '">' + D.severities[c[13]] + '</span>' + changed; }
      return '<tr><td>' + esc(S[c[2]]) + '</td><td>' + esc(str(c[3])) + '</td><td>' + esc(str(c[4])) + '</td><td>' +
        badge(c[5]) + changed + '</td><td>' + esc(str(c[6])) + '</td><td>' + esc(str(c[7])) + '</td><td>' +
        esc(str(c[8])) + '</td><td class="message">' + esc(str(c[9])) +
        (c[14] >= 0 ? '<div class="fix">' + esc(S[c[14]]) + '</div>' : '') + '</td></tr>';
    });
    document.getElementById('host-title').textContent = H[h] + ': ' + rows.length + ' check(s) shown';
    document.getElementById('host-body').innerHTML = rows.join('');
    document.getElementById('host-view').hidden = false;
    document.getElementById('host-view').scrollIntoView();
  }

  filters(); fleet(); hosts(0);
  if (openHost !== null && H.indexOf(openHost) >= 0) { showHost(H.indexOf(openHost)); }
  document.body.setAttribute('data-rendered', String(C.length));
  document.body.setAttribute('data-render-ms', String(Math.round(performance.now() - started)));
  // from the start of the navigation: loading, parsing, inflating and building the views
  document.body.setAttribute('data-loaded-ms', String(Math.round(performance.now())));
  });
})();
'''


SINCE_ROWS = 200


def _runs_svg(runs):
    """The fleet's findings over the kept runs, a small line chart (one point per run, its title
    the run's figures); None with fewer than two runs."""
    if len(runs) < 2:
        return None
    width, height, left, top, bottom = 640, 150, 44, 12, 24
    most = max(max(run['findings'] for run in runs), 1)
    step = float(width - left - 10) / (len(runs) - 1)

    def point(index, run):
        return (left + index * step, top + (height - top - bottom) * (1 - float(run['findings']) / most))

    points = [point(index, run) for index, run in enumerate(runs)]
    out = [u'<svg class="runs" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" '
           u'aria-label="findings per run">' % (width, height, width, height),
           u'<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>' % (left, height - bottom, width - 10, height - bottom),
           u'<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>' % (left, top, left, height - bottom),
           u'<text class="tick" x="%d" y="%d" text-anchor="end">%s</text>' % (left - 4, top + 4, '{:,}'.format(most)),
           u'<text class="tick" x="%d" y="%d" text-anchor="end">0</text>' % (left - 4, height - bottom + 4),
           u'<polyline class="trend" fill="none" points="%s"/>' % u' '.join(u'%.1f,%.1f' % xy for xy in points)]
    for (x, y), run in zip(points, runs):
        out.append(u'<circle class="run run-%s" cx="%.1f" cy="%.1f" r="3"><title>%s</title></circle>' % (
            esc(run['mode']), x, y, esc(u'%s %s (%s): %s finding(s), %d waived, %d new, %d resolved, %d host(s)' % (
                run['mode'], run['run_id'], run['time'], '{:,}'.format(run['findings']), run['waived'], run['new'],
                run['resolved'], run['hosts']))))
    for index in sorted(set([0, len(runs) - 1])):
        anchor = u'start' if index == 0 else u'end'
        out.append(u'<text class="tick" x="%.1f" y="%d" text-anchor="%s">%s</text>' % (
            points[index][0], height - 6, anchor, esc(runs[index]['time'][:10])))
    out.append(u'</svg>')
    return u''.join(out)


def _since_rows(entries, columns):
    rows = [u'<tr>%s</tr>' % u''.join(u'<td>%s</td>' % cell(entry) for cell in columns) for entry in entries[:SINCE_ROWS]]
    if len(entries) > SINCE_ROWS:
        rows.append(u'<tr><td colspan="%d">... and %s more: see summary.json (since_previous)</td></tr>'
                    % (len(columns), '{:,}'.format(len(entries) - SINCE_ROWS)))
    return u''.join(rows)


def _status_cell(entry):
    waived = u' <span class="waived">waived</span>' if entry.get('waived') else u''
    return u'<span class="status s-%s">%s</span>%s' % (esc(entry['status']), esc(entry['status']), waived)


def since_section(reports, runs):
    """report.html's first section: the findings new and resolved since each host's previous
    report (the most severe first), and the fleet's findings over the kept runs."""
    changes = fleet_changes(reports)
    new = sorted(changes['new'], key=lambda e: (-LEVELS.index(e['severity']) if e.get('severity') in LEVELS else 1,
                                                e['host'], e['id']))
    resolved = sorted(changes['resolved'], key=lambda e: (e['host'], e['id']))
    first = changes['first_reports']
    out = [u'<section id="since"><h2>Since the last run</h2>',
           u'<p class="since-summary"><b>%s new</b> finding(s), <b>%s resolved</b>, since each host\'s previous report%s.</p>'
           % ('{:,}'.format(len(new)), '{:,}'.format(len(resolved)),
              u' (%s host(s) without one: every finding of theirs is new)' % '{:,}'.format(len(first)) if first else u'')]
    chart = _runs_svg(runs or [])
    if chart:
        out.append(u'<figure class="runs"><figcaption>findings (drift, not persistent, error) per run, the last %d runs'
                   u'</figcaption>%s</figure>' % (len(runs), chart))
    if new:
        out.append(u'<table id="since-new"><colgroup><col style="width:16em"><col><col style="width:10em"><col style="width:7em">'
                   u'</colgroup><thead><tr><th>new finding: host</th><th>check</th><th>status</th><th>severity</th>'
                   u'</tr></thead><tbody>%s</tbody></table>' % _since_rows(new, [
                       lambda e: esc(e['host']), lambda e: u'<code>%s</code>' % esc(e['id']), _status_cell,
                       lambda e: esc(e.get('severity') or '-')]))
    if resolved:
        out.append(u'<table id="since-resolved"><colgroup><col style="width:16em"><col><col style="width:10em">'
                   u'<col style="width:10em"></colgroup><thead><tr><th>resolved: host</th><th>check</th><th>was</th><th>now</th>'
                   u'</tr></thead><tbody>%s</tbody></table>' % _since_rows(resolved, [
                       lambda e: esc(e['host']), lambda e: u'<code>%s</code>' % esc(e['id']),
                       lambda e: esc(e['status_before']), lambda e: esc(e['status'])]))
    out.append(u'</section>')
    return u'\n'.join(out)


def report_html(reports, run_id, runs=None):
    """report.html of the host reports. A run that checked nothing and measured (benchmark_io.yml) has no views of
    checks, which would count the hosts with a check (none) under the hosts of the run: the measurements only."""
    checks = sum(len(report.get('checks', [])) for report in reports)
    with_bench = benched(reports)
    mode = mode_of(reports)
    head = [u'<!DOCTYPE html>', u'<html lang="en">', u'<head>', u'<meta charset="utf-8">',
            u'<title>iotune.storage %s %s</title>' % (esc(mode), esc(run_id)),
            u'<style>%s%s</style>' % (STYLE, BENCH_STYLE if with_bench else u''), u'</head>', u'<body>',
            u'<h1>iotune.storage %s</h1>' % esc(mode),
            u'<div class="meta">run <code>%s</code> &middot; %s host(s) &middot; %s check(s)%s</div>'
            % (esc(run_id), '{:,}'.format(len(reports)), '{:,}'.format(checks),
               (u' &middot; <a href="#benchmarks">%d benchmark(s)</a>' % len(with_bench)) if with_bench else u'')]
    if with_bench and not checks:
        return u'\n'.join(head + [
            u'<p class="meta" id="no-checks">A measurement: no setting was checked; %s of %s host(s) measured, below.</p>'
            % ('{:,}'.format(len(with_bench)), '{:,}'.format(len(reports))),
            bench_section(reports, with_bench), u'</body>', u'</html>']) + u'\n'
    out = head + [
        since_section(reports, runs),
        u'<div id="filters"></div>',
        u'<h2>Fleet: each setting, the hosts per status</h2>',
        u'<table id="fleet"><colgroup><col>%s</colgroup>' % (u'<col style="width:8em">' * len(STATUSES)),
        u'<thead><tr><th>setting</th>%s</tr></thead><tbody id="fleet-body"></tbody></table>'
        % u''.join(u'<th class="num"><span class="status s-%s">%s</span></th>' % (s, s) for s in STATUSES),
        u'<div id="host-view" hidden><h2 id="host-title"></h2>',
        u'<table id="host-checks"><colgroup><col style="width:8em"><col style="width:12em"><col style="width:10em">'
        u'<col style="width:10em"><col style="width:7em"><col style="width:7em"><col style="width:7em"><col></colgroup>',
        u'<thead><tr><th>concern</th><th>target</th><th>setting</th><th>status</th><th>expected</th><th>live</th>'
        u'<th>persistent</th><th>message</th></tr></thead><tbody id="host-body"></tbody></table></div>',
        u'<h2>Hosts</h2><div class="pager" id="hosts-pager"></div>',
        u'<table id="hosts"><colgroup><col>%s</colgroup>' % (u'<col style="width:8em">' * len(STATUSES)),
        u'<thead><tr><th>host</th>%s</tr></thead><tbody id="hosts-body"></tbody></table>'
        % u''.join(u'<th class="num"><span class="status s-%s">%s</span></th>' % (s, s) for s in STATUSES)]
    if with_bench:
        out.append(bench_section(reports, with_bench))
    out += [_data_element(page_data(reports)),
            u'<script>%s</script>' % SCRIPT, u'</body>', u'</html>']
    return u'\n'.join(out) + u'\n'


# ---------------------------------------------------------------------------- benchmarks

def _phase(name):
    return esc(name.replace('_', ' '))


def _pct(value):
    return '-' if value is None else esc('%g' % value)


def _groups(groups):
    return u'; '.join(u'<b>%s %s</b> (%s)' % (esc(g['job']), esc(g['direction']), esc(', '.join(g['metrics'])))
                      for g in groups)


def _verdict(chart):
    if len(chart['phases']) < 2:
        return u'Single run (%s): nothing to compare.' % esc(', '.join(p.replace('_', ' ') for p in chart['phases']))
    if chart['rolled_back']:
        if chart['recovered'] is None:
            after = u'Not measured after the rollback.'
        elif chart['recovered']:
            after = u'<b>Recovered</b>: after the rollback the numbers are back within the threshold of before.'
        else:
            after = u'<b>Not recovered</b>: after the rollback the numbers are still worse than before.'
        return u'<b>Rolled back</b>: a regression beyond %s %% in %s. %s' % (
            _pct(chart['threshold_pct']), _groups(chart['trigger_groups']) or u'metrics not reported', after)
    if chart['trigger_groups']:
        return u'<b>Kept despite a regression</b> beyond %s %% (rollback on regression %s): %s.' % (
            _pct(chart['threshold_pct']), 'on' if chart['rollback_on_regression'] else 'off', _groups(chart['trigger_groups']))
    improved = u'; improved: %s' % _groups(chart['improvement_groups']) if chart['improvement_groups'] else u''
    return u'<b>Kept</b>: no regression beyond %s %%%s.' % (_pct(chart['threshold_pct']), improved)


def _chart(chart):
    classes = (u' regression' if chart['regression'] else u'') + (u' improvement' if chart['improvement'] else u'')
    out = [u'<figure class="chart%s">' % classes,
           u'<figcaption>%s <small>(%s is better)</small></figcaption>' % (esc(chart['title']), esc(chart['better'])),
           u'<svg class="bench-chart" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" '
           u'role="img" aria-label="%s">' % (esc(chart['width']), esc(chart['height']), esc(chart['width']),
                                             esc(chart['height']), esc(chart['label'])),
           u'<title>%s</title>' % esc(chart['label'])]
    for rect in chart['bars']:
        tone = (u' regression' if rect['regression'] else u'') + (u' improvement' if rect['improvement'] else u'')
        out.append(u'<rect class="bar phase-%s%s" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>'
                   % (esc(rect['phase']), tone, esc(rect['x']), esc(rect['y']), esc(rect['width']), esc(rect['height']),
                      esc(rect['tooltip'])))
        out.append(u'<text class="value%s" x="%s" y="%s" text-anchor="middle">%s</text>'
                   % (u' missing' if rect['missing'] else u'', esc(rect['center']), esc(rect['label_y']), esc(rect['label'])))
        if rect['change_label']:
            out.append(u'<text class="change%s" x="%s" y="%s" text-anchor="middle">%s</text>'
                       % (tone, esc(rect['center']), esc(rect['change_y']), esc(rect['change_label'])))
        out.append(u'<text class="phase" x="%s" y="%s" text-anchor="middle">%s</text>'
                   % (esc(rect['center']), esc(chart['phase_label_y']), _phase(rect['phase'])))
    out.append(u'<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>'
               % (esc(chart['axis_x1']), esc(chart['axis_y']), esc(chart['axis_x2']), esc(chart['axis_y'])))
    out.append(u'</svg></figure>')
    return u'\n'.join(out)


def _fleet_svg(fleet):
    def attrs(**values):
        return u' '.join(u'%s="%s"' % (name.replace('_', '-'), esc(value)) for name, value in values.items())

    size = (esc(fleet['width']), esc(fleet['height']))
    out = [u'<svg class="fleet" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" '
           u'aria-label="bandwidth change per host and job">' % (size + size),
           u'<title>bandwidth change per host and job, first to second phase (axis &plusmn;%s %%)</title>'
           % esc(fleet['scale_pct'])]
    for tick in fleet['ticks']:
        out.append(u'<line class="grid" %s/><text class="tick" %s>%s</text>' % (
            attrs(x1=tick['x'], y1=fleet['axis_y1'], x2=tick['x'], y2=fleet['axis_y2']),
            attrs(x=tick['x'], y=fleet['tick_y'], text_anchor='middle'), esc(tick['label'])))
    for job in fleet['jobs']:
        out.append(u'<text class="heading" %s>%s</text>' % (attrs(x=fleet['label_x'], y=job['y']), esc(job['job'])))
    for row in fleet['rows']:
        out.append(u'<g class="fleet-row"><title>%s</title>' % esc(row['tooltip']))
        out.append(u'<text %s>%s</text>' % (attrs(x=fleet['left_x'] - 8, y=row['text_y'], text_anchor='end'),
                                            esc(row['host_label'])))
        out.append(u'<rect class="fleet-bar tone-%s" %s/>' % (
            esc(row['tone']), attrs(x=row['x'], y=row['y'], width=row['width'], height=row['height'])))
        out.append(u'<text class="note" %s>%s%s</text></g>' % (
            attrs(x=fleet['note_x'], y=row['text_y']), esc(row['note']), ' (clipped)' if row['clipped'] else ''))
    axis = attrs(x1=fleet['zero_x'], y1=fleet['axis_y1'], x2=fleet['zero_x'], y2=fleet['axis_y2'])
    out.append(u'<line class="axis" %s/>' % axis)
    out.append(u'</svg>')
    return u'\n'.join(out)


def _medians_table(group):
    """Each phase's medians of a job direction beside the spread and the verdict (job_verdict: memory, steady, noisy)."""
    rows = []
    for median in group['medians']:
        verdict = median['verdict']
        rows.append(u'<tr class="verdict-%s"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>'
                    u'<td><span class="verdict %s">%s</span></td></tr>' % (
                        esc(verdict['verdict']), _phase(median['phase']), esc(median['bw_label']),
                        esc(median['spread'] or u'-'), esc(median['iops_label']), esc(median['latency']),
                        esc(verdict['verdict']), esc(verdict['text'])))
    return (u'<table class="medians"><colgroup><col style="width:8em"><col style="width:8em"><col style="width:16em">'
            u'<col style="width:7em"><col style="width:22em"><col></colgroup><thead><tr><th>phase</th>'
            u'<th>bandwidth (median)</th><th>spread over the repeats</th><th>IOPS</th><th>latency (median)</th>'
            u'<th>verdict</th></tr></thead><tbody>%s</tbody></table>' % u''.join(rows))


def bench_section(reports, with_bench):
    charts = [host_charts(report['benchmark']) for report in with_bench]
    out = [u'<section id="benchmarks" data-charts="%d">' % sum(chart['count'] for chart in charts),
           u'<h2>Benchmarks</h2>',
           u'<div class="meta">fio, %d host(s). Each phase\'s bar is the median of its repeats; a change counts when it is '
           u'beyond the regression threshold and the run-to-run noise. Beside each median: the spread of the bandwidth over '
           u'the repeats (&plusmn; its coefficient of variation, its min and max) and the verdict: steady (the smallest '
           u'change a comparison sees), noisy, or MEMORY, not the disk.</div>' % len(with_bench),
           u'<h3>Fleet: bandwidth change from the first to the second phase</h3>',
           u'<div class="legend">headline metric of each job: bandwidth of its busier direction; &larr; worse &middot; '
           u'better &rarr; <span class="sw tone-regression"></span>regression<span class="sw tone-improvement"></span>'
           u'improvement<span class="sw tone-neutral"></span>no significant change</div>',
           _fleet_svg(fleet_view(reports))]
    for number, (report, chart) in enumerate(zip(with_bench, charts), 1):
        out.append(u'<div class="bench-host" id="bench-%d">' % number)
        out.append(u'<h3>%s</h3>' % esc(report['host']))
        out.append(u'<p class="bench-summary%s">%s</p>' % (u' rolled-back' if chart['rolled_back'] else u'', _verdict(chart)))
        out += [u'<p class="bench-reached%s">%s measured: %s</p>' % (
            u' memory' if found['medium'] == 'memory' else u'', _phase(found['phase']), esc(found['text']))
            for found in chart['reached']]
        legend = u''.join(u'<span class="sw phase-%s"></span>%s' % (esc(p), _phase(p)) for p in chart['phases'])
        if len(chart['phases']) > 1:
            legend += u'; change vs %s; outlined red: regression, green: improvement' % _phase(chart['phases'][0])
        out.append(u'<div class="legend">phases:%s</div>' % legend)
        for group in chart['groups']:
            flags = u''
            if group['cache_suspect']:
                flags += u'<span class="flag memory">&#9888; MEMORY, not the disk</span>'
            if group['regression']:
                flags += u'<span class="flag regression">regression</span>'
            elif group['improvement']:
                flags += u'<span class="flag improvement">improvement</span>'
            out.append(u'<div class="bench-job%s">' % (u' cache-suspect' if group['cache_suspect'] else u''))
            out.append(u'<h4>%s &middot; %s%s</h4>' % (esc(group['job']), esc(group['direction']), flags))
            out.append(_medians_table(group))
            out.append(u'<div class="charts">')
            out += [_chart(c) for c in group['charts']]
            out.append(u'</div></div>')
        out.append(u'</div>')
    out.append(u'</section>')
    return u'\n'.join(out)


def _write_atomic(path, text, mode=0o644):
    directory = os.path.dirname(path)
    fd, temp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), dir=directory)
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as handle:
            handle.write(text)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def host_json(report):
    """A host report as the controller keeps it (to_nice_json and a newline)."""
    return json.dumps(report, indent=4, sort_keys=True, separators=(',', ': '), ensure_ascii=False) + '\n'


# taken by every run writing into a report directory, around its read-modify-write of history.json and its
# writes of the fleet files: two playbooks at once into one directory lost history lines (issue 38, item 15)
LOCK_FILE = '.iotune-report.lock'
LOCK_TIMEOUT = 300


def lock_report_dir(directory, timeout=LOCK_TIMEOUT):
    """Take the report directory's lock (flock on its LOCK_FILE, opened without following a link
    and only when a regular file of ours) and return its descriptor; closing it releases the lock.
    ValueError naming the file when it cannot be opened or another run holds it ``timeout`` s."""
    path = os.path.join(directory, LOCK_FILE)
    try:
        fd = open_nofollow(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise ValueError('iotune_report_dir: cannot open the lock %s: %s (a link, or a file of another user, is refused)'
                         % (path, exc.strerror or exc))
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except (IOError, OSError) as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() >= deadline:
                os.close(fd)
                raise ValueError('iotune_report_dir: another report run has held %s for %d s (%s)'
                                 % (path, timeout, exc.strerror or exc))
            time.sleep(0.05)


def by_host(reports):
    """``reports`` in the order every fleet file lists them: by host name (as Python orders the names, upper case
    before lower case), whatever order the play or the slices gave, so that one run and the merged parts of a
    sliced one (_fleet_parts) write the same files."""
    return sorted(reports, key=lambda report: u'%s' % (report['host'],))


def write_reports(directory, reports, now=None, keep=30, history=True):
    """Write hosts/<host>.json for each report and the fleet files (summary.json, junit.xml,
    report.html and, with ``history``, history.json with this run added and the last ``keep`` runs)
    into ``directory`` on the controller, each through a temporary file and a rename; returns the
    paths written. The directory (and its hosts/) must belong to the
    controller's user and not be writable by group or other (UnsafeDirectory, a ValueError, names
    it); a host name becomes a file name that stays in hosts/ (``web/../x`` is ``web%2F..%2Fx``;
    issue 23, T4), and a link planted at a report's name is replaced, never written through.
    Two runs into one directory take turns (lock_report_dir), so neither loses the other's history line.
    The fleet files list the hosts by name (by_host)."""
    # a host's result that holds a byte of its files that is not UTF-8 (MODULE_STRICT_UTF8_RESPONSE off, an
    # older module) is written with the byte shown as \xe9, where it would stop the writing (issue 38, item 12)
    reports = by_host(visible_data(reports))
    private_directory(directory, 'iotune_report_dir', 0o755)
    private_directory(os.path.join(directory, 'hosts'), 'iotune_report_dir', 0o755)
    lock = lock_report_dir(directory)
    try:
        written = write_hosts(directory, reports)
        run_id = (reports[0].get('run_id') if reports else '') or ''
        return written + write_files(directory, fleet_files(directory, reports, run_id, now, keep, history))
    finally:
        os.close(lock)


def write_hosts(directory, reports):
    """hosts/<host>.json of each report (the caller holds the lock); the paths written."""
    written = []
    for report in reports:
        path = os.path.join(directory, 'hosts', '%s.json' % path_safe_name(report['host']))
        _write_atomic(path, host_json(report))
        written.append(path)
    return written


def fleet_files(directory, reports, run_id, now=None, keep=30, history=True):
    """{file name: text} of the fleet files of ``reports`` (in the order given), history.json with
    this run added to the one in ``directory`` (the caller holds the lock); ``now`` defaults to the
    controller's UTC time."""
    now = now or time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    runs = next_runs(read_runs(os.path.join(directory, HISTORY_FILE)), run_line(reports, run_id, now, mode_of(reports)),
                     keep) if history else None
    files = render(reports, run_id, now, runs)
    if history:
        files[HISTORY_FILE] = history_json(runs)
    return files


def write_files(directory, files):
    """Each of ``files`` (name: text) into ``directory``, atomically, in the order of their names; the paths."""
    written = []
    for name, text in sorted(files.items()):
        path = os.path.join(directory, name)
        _write_atomic(path, text)
        written.append(path)
    return written
