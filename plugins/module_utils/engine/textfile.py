# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host report as a node_exporter textfile-collector file (iotune.prom, docs/monitoring.md):
Prometheus' text exposition format, gauges only, so that alerts between runs need no iotune run."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import calendar
import os
import time

from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import atomic_write
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import CONCERNS, STATUSES
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import private_directory
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import ANY, ReadBackError, TIME_RE, read_json_file, xml_text

TEXTFILE_NAME = 'iotune.prom'
# a report's mode and the report file of that mode's last run beside it (io_audit, harden_io)
MODES = ('audit', 'harden')
LATEST = dict((mode, '%s-latest.json' % mode) for mode in MODES)

METRICS = (
    ('iotune_checks', 'Checks of the last iotune run on this host, per concern and status.'),
    ('iotune_checks_waived', 'Checks of the last iotune run that a waiver covers, per concern.'),
    ('iotune_last_run_timestamp_seconds', 'When the last iotune run of each mode (audit, harden) ended, Unix time.'),
    ('iotune_last_run_info', 'The last iotune run on this host: its mode and run id (always 1).'),
)


def _label_value(text):
    # a label value is UTF-8: a byte that was not (and a control character, as the reports show it) is its escape
    return xml_text(str(text)).replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def _sample(name, labels, value):
    inner = ','.join('%s="%s"' % (key, _label_value(labels[key])) for key in sorted(labels))
    return '%s{%s} %s' % (name, inner, value)


def report_time(text):
    """Unix seconds of a report's ``time`` (2026-11-28T06:00:00Z); None when it is not that form."""
    if not isinstance(text, str) or not TIME_RE.match(text):
        return None
    try:
        return calendar.timegm(time.strptime(text, '%Y-%m-%dT%H:%M:%SZ'))
    except ValueError:
        return None


def render_textfile(report, last_times):
    """The text of iotune.prom for ``report`` (a host report: mode, run_id, time, checks) and
    ``last_times`` ({mode: Unix seconds} of the last run of each mode, this one's included)."""
    checks = report.get('checks') or []
    concerns = [name for name in CONCERNS if any(check['concern'] == name for check in checks)]
    samples = dict((name, []) for name, dummy in METRICS)
    for concern in concerns:
        mine = [check for check in checks if check['concern'] == concern]
        for status in STATUSES:
            samples['iotune_checks'].append(_sample('iotune_checks', {'concern': concern, 'status': status},
                                                    sum(1 for check in mine if check['status'] == status)))
        samples['iotune_checks_waived'].append(_sample('iotune_checks_waived', {'concern': concern},
                                                       sum(1 for check in mine if check.get('waiver'))))
    for mode in MODES:
        if last_times.get(mode) is not None:
            samples['iotune_last_run_timestamp_seconds'].append(
                _sample('iotune_last_run_timestamp_seconds', {'mode': mode}, int(last_times[mode])))
    info = {'mode': report['mode'], 'run_id': report.get('run_id') or ''}
    samples['iotune_last_run_info'].append(_sample('iotune_last_run_info', info, 1))
    lines = []
    for name, text in METRICS:
        if samples[name]:
            lines.extend(['# HELP %s %s' % (name, text), '# TYPE %s gauge' % name] + samples[name])
    return '\n'.join(lines) + '\n'


def read_last_time(path):
    """The ``time`` of the report file at ``path`` as Unix seconds, or None when it is missing,
    not a regular file of ours, not JSON or without a time of the report's form: a file read
    back is input (DESIGN.md), and only that one field of it is used."""
    try:
        report = read_json_file(path, spec={'time': ANY})
    except ReadBackError:
        return None     # the other mode's report is not one: no time for that mode, as when it never ran
    return report_time(report.get('time')) if isinstance(report, dict) else None


def write_textfile(directory, report, report_dir, check=False):
    """Write iotune.prom for ``report`` into ``directory`` (created 0755 when missing; it must
    belong to root or the running user and be writable by nobody else), atomically, mode 0644 for
    node_exporter; the other mode's last time from its latest report in ``report_dir``. Returns
    the path. UnsafeDirectory names textfile_dir; IOError/OSError come from the file system."""
    mode = report['mode'] if report['mode'] in MODES else 'audit'
    last_times = dict((other, read_last_time(os.path.join(report_dir, LATEST[other])))
                      for other in MODES if other != mode and report_dir)
    last_times[mode] = report_time(report.get('time'))
    path = os.path.join(directory, TEXTFILE_NAME)
    if not check:
        private_directory(directory, 'report.textfile_dir', 0o755)
        atomic_write(path, render_textfile(dict(report, mode=mode), last_times).encode('utf-8'), mode=0o644,
                     follow_links=False, durable=False)
    return path
