# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Job slicing (docs/fleet.md, "Job slicing"): each slice of a sliced job writes the reports of its
hosts as one part, ``<dir>/parts/<run id>/<part>.json``, beside their hosts/<host>.json; one merge
reads the parts of the run back and writes the fleet files (summary.json, junit.xml, report.html,
history.json) as one run of all the hosts writes them: the same hosts in the same order (by name),
one history line, the time of the latest part.

A part is read back, so it is input (DESIGN.md): each file is read without following a link, only
when a regular file of the controller's user, at most PART_LIMIT bytes, nested at most 32 levels
(engine/report.read_json_file), from directories of that user that nobody else can write; the
fields the fleet files use must be of their type, a host may be in one part only."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import stat
import time

from ansible_collections.iotune.storage.plugins.module_utils.common.args import validate_run_id
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import UnsafeDirectory, directory_problem, private_directory
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import (
    ANY, READ_LIMIT, ListOf, ReadBackError, TIME_RE, check_shape, read_json_file, visible_data)
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import (
    _write_atomic, by_host, fleet_files, lock_report_dir, write_files, write_hosts)
from ansible_collections.iotune.storage.plugins.plugin_utils._variables import part_name_problem

PARTS_DIR = 'parts'
PART_KIND = 'iotune.storage part'
PART_FORMAT = 1
# a part larger than this is refused when it is written (split the job into more slices) and when read back
PART_LIMIT = READ_LIMIT

_TEXT = (str, None)
WAIVER_SPEC = {'expires': str, 'days_left': int, 'owner': ANY, 'reason': ANY}
CHECK_SPEC = {'id': str, 'concern': str, 'status': str, 'severity': _TEXT, 'status_before': _TEXT,
              'waiver': (None, WAIVER_SPEC), 'fix': (None, {'changes': (None, ListOf(str)), 'needs': _TEXT, 'text': _TEXT})}
HISTORY_SPEC = {'previous_run_id': _TEXT, 'new': (None, ListOf({'id': str, 'severity': _TEXT})),
                'resolved': (None, ListOf({'id': str}))}
REPORT_SPEC = {'host': str, 'run_id': str, 'mode': _TEXT, 'time': _TEXT, 'checks': ListOf(CHECK_SPEC),
               'summary': ANY, 'history': (None, HISTORY_SPEC), 'waivers': ANY, 'benchmark': (None, dict)}
PART_SPEC = {'kind': str, 'format': int, 'run_id': str, 'part': str, 'time': str, 'reports': ListOf(REPORT_SPEC)}
# what a part and each of its host reports must have (the other fields are optional)
PART_KEYS = ('kind', 'format', 'run_id', 'part', 'time', 'reports')
REPORT_KEYS = ('host', 'run_id')
CHECK_KEYS = ('id', 'concern', 'status')
WAIVER_KEYS = ('expires', 'days_left', 'owner', 'reason')


def now_utc():
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())


def parts_directory(directory, run_id):
    return os.path.join(directory, PARTS_DIR, run_id)


def part_run_id(reports, run_id):
    """The run id of a part: ``run_id`` when given, else the one its reports share; ValueError naming the
    field when it is not a run id, when a report is of another run, or when there is none to take."""
    given = run_id
    for report in reports:
        if run_id is None:
            run_id = report.get('run_id')
        if report.get('run_id') != run_id:
            raise ValueError('run_id: host %s is of run %r, not of %r: a part holds the reports of one run (set '
                             'iotune_run_id, the same for every slice)' % (report['host'], report.get('run_id'), run_id))
    if run_id is None:
        raise ValueError('run_id: a part without host reports needs the run id of the slices (iotune_run_id)')
    problem = validate_run_id(run_id)
    if problem:
        raise ValueError('run_id: %s' % problem if given is not None else 'run_id: the reports\' %s' % problem)
    return run_id


def part_text(name, run_id, reports, now):
    """The JSON text of a part (host reports in their own key order, as they came); ValueError when it
    is beyond PART_LIMIT or holds a number JSON has not (NaN)."""
    try:
        text = json.dumps({'kind': PART_KIND, 'format': PART_FORMAT, 'run_id': run_id, 'part': name, 'time': now,
                           'reports': reports}, separators=(',', ':'), ensure_ascii=False, allow_nan=False) + '\n'
    except ValueError as exc:
        raise ValueError('reports: a host report holds what JSON cannot (%s)' % exc)
    size = len(text.encode('utf-8'))
    if size > PART_LIMIT:
        raise ValueError('part: the reports of this slice take %d bytes, more than the %d a part may hold; split the job '
                         'into more slices' % (size, PART_LIMIT))
    return text


def write_part(directory, reports, name, run_id=None, now=None):
    """A slice's reports: hosts/<host>.json for each report (as write_reports writes them) and, instead
    of the fleet files, parts/<run id>/<name>.json with the reports and ``now`` (the controller's UTC
    time by default), each atomically, under the report directory's lock. ValueError names the field
    (``part``, ``run_id``, ``reports``) or the directory that is not private. Returns the paths written."""
    problem = part_name_problem(name)
    if problem:
        raise ValueError(problem)
    name = u'%s' % (name,)
    reports = by_host(visible_data(reports))
    hosts = [report['host'] for report in reports]
    twice = sorted(set(host for host in hosts if hosts.count(host) > 1)) if len(set(hosts)) < len(hosts) else []
    if twice:
        raise ValueError('reports: host %s is given more than once' % ', '.join(twice))
    run_id = part_run_id(reports, run_id)
    text = part_text(name, run_id, reports, now or now_utc())
    for path in (directory, os.path.join(directory, 'hosts'), os.path.join(directory, PARTS_DIR),
                 parts_directory(directory, run_id)):
        private_directory(path, 'iotune_report_dir', 0o755)
    lock = lock_report_dir(directory)
    try:
        path = os.path.join(parts_directory(directory, run_id), name + '.json')
        written = write_hosts(directory, reports)
        _write_atomic(path, text)
        return written + [path]
    finally:
        os.close(lock)


# ---------------------------------------------------------------------------- merge

def _missing(value, keys, where):
    absent = [key for key in keys if key not in value]
    return '%s: %s missing' % (where, ', '.join(absent)) if absent else None


def report_problem(report, where):
    """Why a host report of a part cannot be merged (beyond PART_SPEC's types), or None."""
    problem = _missing(report, REPORT_KEYS, where)
    if problem:
        return problem
    for index, check in enumerate(report.get('checks') or []):
        at = '%s.checks[%d]' % (where, index)
        problem = _missing(check, CHECK_KEYS, at)
        if problem:
            return problem
        if check['status'] not in STATUSES:
            return '%s.status: %r is not one of %s' % (at, check['status'], ', '.join(STATUSES))
        if check.get('waiver'):
            problem = _missing(check['waiver'], WAIVER_KEYS, at + '.waiver')
            if problem:
                return problem
    return None


def part_problem(part, path, name, run_id):
    """Why the part read from ``path`` (file ``<name>.json``) is not a part of ``run_id``, or None."""
    problem = check_shape(part, PART_SPEC, 'the file') if isinstance(part, dict) else 'the file: not a JSON object'
    problem = problem or _missing(part, PART_KEYS, 'the file')
    if problem:
        return '%s: %s' % (path, problem)
    if part['kind'] != PART_KIND or part['format'] != PART_FORMAT or isinstance(part['format'], bool):
        return '%s: not a part (kind %r, format %r; a part is of kind %r, format %d)' % (
            path, part['kind'], part['format'], PART_KIND, PART_FORMAT)
    if part['run_id'] != run_id or part['part'] != name:
        return '%s: says it is part %r of run %r, not part %r of run %r' % (path, part['part'], part['run_id'], name, run_id)
    if not TIME_RE.match(part['time']):
        return '%s: time %r is not a UTC time such as 2026-11-25T05:00:00Z' % (path, part['time'])
    for index, report in enumerate(part['reports']):
        problem = report_problem(report, 'reports[%d]' % index)
        if problem is None and report['run_id'] != run_id:
            problem = 'reports[%d].run_id: %r, not %r' % (index, report['run_id'], run_id)
        if problem:
            return '%s: %s' % (path, problem)
    return None


def read_part(path, name, run_id):
    """The part at ``path``; ValueError naming the file and what is wrong (merge: ...)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        raise ValueError('merge: %s: cannot be read: %s' % (path, exc.strerror or exc))
    # told before it is opened: opening a FIFO would wait for a writer
    if not stat.S_ISREG(mode):
        raise ValueError('merge: %s: not a regular file (%s)' % (
            path, 'a symbolic link' if stat.S_ISLNK(mode) else 'a directory' if stat.S_ISDIR(mode) else 'a special file'))
    try:
        part = read_json_file(path, PART_LIMIT)
    except ReadBackError as exc:
        raise ValueError('merge: %s' % exc)
    problem = part_problem(part, path, name, run_id)
    if problem:
        raise ValueError('merge: %s' % problem)
    return part


def _private(path, what):
    if not os.path.lexists(path):
        raise ValueError('merge: no %s at %s' % (what, path))
    problem = directory_problem(path, 'iotune_report_dir')
    if problem:
        raise UnsafeDirectory(problem)


def read_parts(directory, run_id):
    """[(name, part)] of every ``*.json`` in parts/<run id>/ (a name starting with ``.`` is a part being
    written), by name; ValueError when a directory is not private or a part is not one."""
    base = parts_directory(directory, run_id)
    _private(directory, 'report directory')
    _private(os.path.join(directory, PARTS_DIR), 'parts of any run (%s/)' % PARTS_DIR)
    _private(base, 'parts of run %s' % run_id)
    names = sorted(entry[:-len('.json')] for entry in os.listdir(base) if entry.endswith('.json') and not entry.startswith('.'))
    return [(name, read_part(os.path.join(base, name + '.json'), name, run_id)) for name in names]


def merged_reports(parts):
    """The host reports of ``parts`` ([(name, part)]), in one list; ValueError naming both parts of a
    host that is in two (or twice in one)."""
    seen, reports = {}, []
    for name, part in parts:
        for report in part['reports']:
            host = report['host']
            if host in seen:
                raise ValueError('merge: host %s is in part %s and in part %s: a host belongs to one slice (a part of an '
                                 'earlier attempt left in the run\'s directory? remove it)' % (host, seen[host], name))
            seen[host] = name
            reports.append(report)
    return reports


def count_problem(parts, expected, base):
    """Why the number of parts found is not ``expected`` (None: any number), or None."""
    if expected is None or len(parts) == expected:
        return None
    names = ', '.join(name for name, dummy in parts) or 'none'
    if len(parts) < expected:
        return ('parts: %d part(s) expected, %d found in %s (%s): a slice has not written its part (failed, or still '
                'running)' % (expected, len(parts), base, names))
    return ('parts: %d part(s) expected, %d found in %s (%s): a part of an earlier attempt? remove it'
            % (expected, len(parts), base, names))


def merge_parts(directory, run_id, expected=None, keep=30, now=None):
    """Write the fleet files of run ``run_id`` from its parts in ``directory`` (parts/<run id>/*.json) as
    write_reports writes them for all the hosts at once, history.json included; their time is the
    latest part's (``now`` overrides it). ``expected``: how many parts there must be. ValueError names
    the field (``merge``, ``parts``) and the part. Returns {files, parts, hosts, time}."""
    problem = validate_run_id(run_id)
    if problem:
        raise ValueError('merge: %s' % problem)
    base = parts_directory(directory, run_id)
    _private(directory, 'report directory')
    lock = lock_report_dir(directory)
    try:
        parts = read_parts(directory, run_id)
        if not parts:
            raise ValueError('merge: no part of run %s in %s' % (run_id, base))
        problem = count_problem(parts, expected, base)
        if problem:
            raise ValueError(problem)
        reports = by_host(visible_data(merged_reports(parts)))
        now = now or max(part['time'] for dummy, part in parts)
        files = render_parts(directory, parts, reports, run_id, now, keep)
        return {'files': write_files(directory, files), 'parts': [name for name, dummy in parts],
                'hosts': len(reports), 'time': now}
    finally:
        os.close(lock)


# what rendering a host report that passed PART_SPEC can still stop at: a field deeper in, such as a benchmark's
RENDER_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError, OverflowError)


def render_parts(directory, parts, reports, run_id, now, keep):
    """fleet_files of the merged ``reports``; when they cannot be rendered, ValueError naming the first
    part whose reports alone cannot be."""
    try:
        return fleet_files(directory, reports, run_id, now, keep)
    except RENDER_ERRORS as exc:
        error = exc
    for name, part in parts:
        try:
            fleet_files(directory, by_host(visible_data(part['reports'])), run_id, now, keep, history=False)
        except RENDER_ERRORS as exc:
            raise ValueError('merge: part %s (%s.json): a host report the fleet files cannot be written from: %s: %s'
                             % (name, os.path.join(parts_directory(directory, run_id), name), type(exc).__name__, exc))
    raise ValueError('merge: the fleet files of run %s cannot be written: %s: %s' % (run_id, type(error).__name__, error))
