# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters the audit reports are built with."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils._bench_chart import fleet_view, host_charts
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import console_lines as fleet_console_lines
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import summarize
from ansible_collections.iotune.storage.plugins.plugin_utils import _run_summary


def check_summary(checks):
    """Count of checks per status, every status present; with ``changed``
    when the checks come from an enforcement run."""
    try:
        summary = summarize(checks)
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError('check_summary expects a list of checks with a status: %s' % exc)
    if any('changed' in check for check in checks):
        summary['changed'] = sum(1 for check in checks if check.get('changed'))
    return summary


def with_changes(checks, enforced, checks_before=()):
    """The checks of the audit after enforcement, each with ``changed`` (an
    enforcing module changed it: the ``checks`` of the registered ``enforced``
    results) and ``status_before`` (from ``checks_before``, the audit before)."""
    if not isinstance(enforced, (list, tuple)):
        raise AnsibleFilterError('with_changes expects a list of registered module results, got %s'
                                 % type(enforced).__name__)
    changed = set()
    for result in enforced:
        for check in (result or {}).get('checks') or []:
            if check.get('changed'):
                changed.add(check['id'])
    before = dict((check['id'], check['status']) for check in checks_before or [])
    return [dict(check, changed=check['id'] in changed, status_before=before.get(check['id'], check['status']))
            for check in checks]


def snapshot_pair(result, before, after):
    """``{before, after}`` snapshots of one host from its registered io_snapshot ``result``: the
    snapshot it took (the ``after`` phase) or the one it read named ``after`` (the ``diff`` phase),
    and the one it read named ``before``."""
    if not isinstance(result, dict) or result.get('failed') or result.get('skipped'):
        raise AnsibleFilterError('snapshot_pair expects a registered io_snapshot result that did not fail')
    read = result.get('snapshots') or {}
    if before not in read:
        raise AnsibleFilterError('snapshot_pair: the result holds no snapshot %r (read: %s)' % (before, ', '.join(read) or 'none'))
    taken = result.get('snapshot') if isinstance(result.get('snapshot'), dict) and result['snapshot'].get('name') == after else None
    if taken is None and after not in read:
        raise AnsibleFilterError('snapshot_pair: the result holds no snapshot %r' % after)
    return {'before': read[before], 'after': taken if taken is not None else read[after]}


def host_checks(report):
    """The checks of one host report, each with the report's host added."""
    return [dict(check, host=report['host']) for check in report.get('checks', [])]


def console_lines(checks):
    """The console's lines of a fleet's checks (plugin_utils/_fleet_report.console_lines)."""
    if not isinstance(checks, (list, tuple)):
        raise AnsibleFilterError('console_lines expects a list of checks, got %s' % type(checks).__name__)
    try:
        return fleet_console_lines(checks)
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError('console_lines expects checks with host, status and message: %s' % exc)


def bench_charts(benchmark):
    """Bar chart geometry of one host report's ``benchmark`` (None: no charts): one chart
    per job x direction with I/O x metric, one bar per measured phase."""
    if benchmark is not None and not isinstance(benchmark, dict):
        raise AnsibleFilterError('bench_charts expects the benchmark of a host report (a dict), got %s'
                                 % type(benchmark).__name__)
    try:
        return host_charts(benchmark)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError('bench_charts: malformed benchmark: %s' % exc)


def bench_fleet(reports):
    """Fleet view of the benchmarks of host reports: per host with a benchmark, per job,
    the change of the job's headline bandwidth between the first two phases."""
    if not isinstance(reports, (list, tuple)):
        raise AnsibleFilterError('bench_fleet expects a list of host reports, got %s' % type(reports).__name__)
    try:
        return fleet_view(reports)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError('bench_fleet: malformed benchmark: %s' % exc)


def report_dir_problem(path, check_mode=False):
    """'' when the fleet reports can be written in ``path`` (iotune_report_dir) on the controller,
    else why not, naming iotune_report_dir (plugin_utils/_run_summary.py); in check mode only the form."""
    return _run_summary.report_dir_problem(path, check_mode=bool(check_mode)) or ''


def fleet_summary(hostvars, hosts, result_var, mode, run_id=None, failed_hosts=None, report_dir=None, check_mode=False, fail_on=None,
                  written=None):
    """iotune_summary of an audit or harden run (what set_stats publishes) from the host reports in the registered
    results ``result_var`` of ``hosts``, read from ``hostvars`` as they are, not through a template."""
    try:
        reports = _run_summary.host_reports(_run_summary.registered(hostvars, hosts, result_var))
        return _run_summary.fleet_summary(reports, mode, run_id=run_id, failed_hosts=failed_hosts, report_dir=report_dir,
                                          check_mode=check_mode, fail_on=fail_on, written=written)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AnsibleFilterError('fleet_summary: %s' % exc)


def rollback_summary(hostvars, hosts, result_var='io_rollback_result', failed_hosts=None, check_mode=False):
    """iotune_summary of a rollback run (what set_stats publishes) from the io_rollback results ``result_var`` of ``hosts``."""
    try:
        return _run_summary.rollback_summary(_run_summary.registered(hostvars, hosts, result_var), failed_hosts=failed_hosts,
                                             check_mode=check_mode)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AnsibleFilterError('rollback_summary: %s' % exc)


def rollback_lines(hostvars, hosts, result_var='io_rollback_result'):
    """The console's lines of a rollback run from the io_rollback results ``result_var`` of ``hosts``."""
    try:
        return _run_summary.rollback_lines(_run_summary.registered(hostvars, hosts, result_var))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AnsibleFilterError('rollback_lines: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'bench_charts': bench_charts, 'bench_fleet': bench_fleet, 'check_summary': check_summary,
                'console_lines': console_lines, 'fleet_summary': fleet_summary, 'host_checks': host_checks,
                'report_dir_problem': report_dir_problem, 'rollback_lines': rollback_lines, 'rollback_summary': rollback_summary,
                'snapshot_pair': snapshot_pair,
                'with_changes': with_changes}
