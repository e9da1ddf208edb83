# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The two ends of a run on the controller (issue 41): before any host work, whether the fleet
reports can be written in iotune_report_dir (by the rules io_fleet_report's writer applies,
module_utils/common/trust.py), so that a run does not do its hosts' work to fail at the end; and
after it, the run's summary that the playbooks publish with set_stats as ``iotune_summary``
(ansible-runner, AWX and Automation Controller keep it with the job)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES, summarize
from ansible_collections.iotune.storage.plugins.module_utils.policy.severity import LEVELS
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import ancestors_problem, directory_problem

OPTION = 'iotune_report_dir'
# The fleet files the writer puts in the report directory (plugin_utils/_fleet_report.py), as iotune_summary names them
REPORT_FILES = (('summary_json', 'summary.json'), ('junit_xml', 'junit.xml'), ('report_html', 'report.html'))


def _user(euid):
    try:
        import pwd
        return '%s (uid %d)' % (pwd.getpwuid(euid).pw_name, euid)
    except (ImportError, KeyError):
        return 'uid %d' % euid


def _not_writable(path, euid, doing):
    return ('%s: %s %s: it is not writable by %s that runs the playbook (its permissions, or a read-only file system)'
            % (OPTION, doing, path, _user(euid)))


def report_dir_problem(path, check_mode=False, euid=None):
    """None when the fleet reports can be written in ``path`` on the controller, else why not, as a
    sentence naming iotune_report_dir. ``path`` must be absolute. An existing one (and its hosts/)
    must be a directory, not a link, of the controller's user, not writable by group or other and
    writable by that user; a missing one must be creatable: the nearest existing directory above it
    writable by that user; the directories above must belong to root or that user and not be
    writable by others unless sticky. In check mode no report is written: only the form is checked.
    Nothing is created."""
    if not isinstance(path, str) or not os.path.isabs(path):
        return '%s: must be an absolute path on the controller, got %r' % (OPTION, path)
    if check_mode:
        return None
    euid = os.geteuid() if euid is None else euid
    path = os.path.normpath(path)
    if not os.path.lexists(path):
        return _missing_problem(path, euid)
    for directory in (path, os.path.join(path, 'hosts')):
        if directory != path and not os.path.lexists(directory):
            break
        problem = directory_problem(directory, OPTION, euid)
        if problem:
            return problem
        if not os.access(directory, os.W_OK | os.X_OK):
            return _not_writable(directory, euid, 'cannot write the reports in')
    return None


def _missing_problem(path, euid):
    """Why ``path``, which does not exist, cannot be created as the writer creates it (None if it can)."""
    base = os.path.dirname(path)
    while not os.path.lexists(base):
        base = os.path.dirname(base)
    if not os.path.isdir(base):
        return '%s: cannot create %s: %s is not a directory' % (OPTION, path, base)
    if not os.access(base, os.W_OK | os.X_OK):
        return _not_writable(base, euid, 'cannot create %s in' % path)
    return ancestors_problem(base, OPTION, path, euid)


# what iotune_audit_fail_on takes: the check statuses and the severity levels the reports use
FAIL_ON_STATUSES = STATUSES
FAIL_ON_LEVELS = LEVELS


def fail_on_problem(fail_on):
    """None when ``fail_on`` (iotune_audit_fail_on; None or {} when not given) is a gate the io_audit role can apply,
    else why not, as a sentence naming the variable and what it accepts."""
    if fail_on is None:
        return None
    statuses = fail_on.get('statuses', []) if isinstance(fail_on, dict) else None
    if (isinstance(fail_on, dict) and not set(fail_on) - set(('statuses', 'severity'))
            and isinstance(statuses, (list, tuple)) and all(status in FAIL_ON_STATUSES for status in statuses)
            and fail_on.get('severity', 'low') in FAIL_ON_LEVELS):
        return None
    return ('iotune_audit_fail_on: must be a dict with statuses (a list of %s; default drift, not_persistent, error) and '
            'severity (the lowest that fails: low, medium or high; default low), got %s' % (', '.join(FAIL_ON_STATUSES), fail_on))


def _failed(failed_hosts):
    if failed_hosts is None:
        return set()
    if isinstance(failed_hosts, str) or not isinstance(failed_hosts, (list, tuple, set)):
        raise ValueError('failed_hosts: must be a list of host names, got %r' % (failed_hosts,))
    return set(failed_hosts)


def registered(hostvars, hosts, name):
    """{host: value} of the variable ``name`` of each of ``hosts`` that has it, as registered: read with
    HostVars.raw_get (a plain dict of host variables in the tests), not through a template, since templating
    every host's result costs seconds per ten hosts (docs/performance.md, "Fleet"; io_fleet_report reads so too)."""
    if isinstance(hosts, str) or not isinstance(hosts, (list, tuple)):
        raise ValueError('hosts: must be a list of host names (ansible_play_hosts), got %r' % (hosts,))
    if not isinstance(name, str) or not name:
        raise ValueError('the name of the registered variable must be a string, got %r' % (name,))
    read = getattr(hostvars, 'raw_get', None) or hostvars.get
    values = {}
    for host in hosts:
        host_vars = read(host) if host in hostvars else None
        if host_vars is not None and name in host_vars:
            values[host] = host_vars[name]
    return values


def host_reports(results):
    """The host reports (``report``) of registered io_policy results by host, in host order."""
    reports = [result.get('report') for dummy, result in sorted(results.items()) if isinstance(result, dict)]
    return [report for report in reports if isinstance(report, dict) and report.get('host')]


def report_paths(report_dir, written=None):
    """What iotune_summary names of the reports: the directory and its three fleet files; the directory and
    the slice's part when io_fleet_report (its registered result ``written``) wrote a part (job slicing)."""
    if isinstance(written, dict) and written.get('part_file'):
        return {'dir': report_dir, 'part': written['part_file']}
    paths = {'dir': report_dir}
    paths.update((key, os.path.join(report_dir, name)) for key, name in REPORT_FILES)
    return paths


def gate_fails(check, fail_on):
    """True when the audit's gate (iotune_audit_fail_on: ``statuses`` and ``severities``) fails the check's host,
    as the role's "Fail hosts that drift" task decides: a check with a waiver never does."""
    return (check.get('status') in fail_on.get('statuses', ()) and check.get('severity') in fail_on.get('severities', ())
            and 'waiver' not in check)


def fleet_summary(reports, mode, run_id=None, failed_hosts=None, report_dir=None, check_mode=False, fail_on=None, written=None):
    """iotune_summary of an audit or a harden run from the host reports of the play: the check
    counts per status, the changed and waived ones, the hosts that failed (``failed_hosts``: the
    play's failed and unreachable ones; with ``fail_on``, those the audit's gate fails next), the
    report paths (None in check mode, when none is written; the part of a slice, from io_fleet_report's
    result ``written``), the run id and the mode."""
    if not isinstance(reports, (list, tuple)) or not all(isinstance(r, dict) and r.get('host') for r in reports):
        raise ValueError('fleet_summary expects a list of host reports (each a dict with a host)')
    failed = _failed(failed_hosts)
    checks = [check for report in reports for check in report.get('checks') or []]
    if fail_on:
        failed.update(r['host'] for r in reports if any(gate_fails(c, fail_on) for c in r.get('checks') or []))
    return {
        'mode': mode,
        'run_id': run_id or (reports[0].get('run_id') if reports else None),
        'check_mode': bool(check_mode),
        'hosts': len(reports),
        'statuses': summarize(checks),
        'changed': sum(1 for check in checks if check.get('changed')),
        'waived': sum(1 for check in checks if 'waiver' in check),
        'failed_hosts': sorted(failed),
        'reports': None if check_mode or not report_dir else report_paths(report_dir, written),
    }


def rollback_summary(results, failed_hosts=None, check_mode=False):
    """iotune_summary of a rollback run from its io_rollback results by host: the counts of its
    checks per status (compliant: as before the run; drift: would be restored, in check mode;
    error), the records restored (``changed``), the hosts that failed, the run rolled back
    (``run_id``, None when the hosts rolled back different runs or none) and every run (``run_ids``).
    A rollback writes no fleet report (``reports`` None)."""
    if not isinstance(results, dict) or not all(isinstance(r, dict) for r in results.values()):
        raise ValueError('rollback_summary expects the io_rollback results by host (a dict of dicts)')
    checks = [check for result in results.values() for check in result.get('checks') or []]
    run_ids = sorted(set(r['run_id'] for r in results.values() if r.get('run_id')))
    return {
        'mode': 'rollback',
        'run_id': run_ids[0] if len(run_ids) == 1 else None,
        'run_ids': run_ids,
        'check_mode': bool(check_mode),
        'hosts': len(results),
        'statuses': summarize(checks),
        'changed': sum(1 for r in results.values() for record in r.get('records') or [] if record.get('restored')),
        'waived': 0,
        'failed_hosts': sorted(_failed(failed_hosts)),
        'reports': None,
    }


def rollback_lines(results, limit=50):
    """What the console says at the end of a rollback, from its io_rollback results by host, in one task for the
    fleet (a task per host costs every host a worker process): ``host: <the module's message>`` and a line per
    record it restored, at most ``limit`` lines and then one that says how many more."""
    if not isinstance(results, dict) or not all(isinstance(r, dict) for r in results.values()):
        raise ValueError('rollback_lines expects the io_rollback results by host (a dict of dicts)')
    lines = []
    for host, result in sorted(results.items()):
        lines.append('%s: %s' % (host, result.get('msg') or ('failed' if result.get('failed') else 'no message')))
        lines.extend('%s: restored %s' % (host, record.get('target')) for record in result.get('records') or []
                     if isinstance(record, dict) and record.get('restored'))
    if len(lines) > limit:
        lines = lines[:limit] + ['... and %d more lines: the io_rollback result of each host has them' % (len(lines) - limit)]
    return lines
