# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_fleet_report: the fleet's reports, written on the controller in one task (a template
task per file and a copy per host cost a module run each: seconds per run); the text of the
fleet files comes from plugin_utils/_fleet_report. Under job slicing (docs/fleet.md) a slice writes
its part (``part``) and one task merges the parts of the run (``merge``): plugin_utils/_fleet_parts."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime
import os
import random

from collections.abc import Mapping

from ansible.errors import AnsibleActionFail
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from ansible_collections.iotune.storage.plugins.module_utils.common.args import validate_run_id
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_parts import merge_parts, write_part
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import console, write_reports
from ansible_collections.iotune.storage.plugins.plugin_utils._run_summary import fail_on_problem, fleet_summary, registered, report_dir_problem


def _count(args, name, default, least, accepted):
    """The integer option ``name`` (a string of digits too), at least ``least``; AnsibleActionFail naming it."""
    value = args.get(name)
    if value is None:
        return default
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise AnsibleActionFail('%s: must be %s, got %r' % (name, accepted, value))
    return value


def _text(value):
    """A run id or a part's name as text: AWX's job ids come as integers."""
    return u'%d' % value if isinstance(value, int) and not isinstance(value, bool) else value


def registered_reports(task_vars, hosts, name):
    """(reports, gated hosts) of ``hosts``: the ``report`` of each one's registered result ``name``, in the order
    given, hosts without one left out; and the hosts whose result has ``fail_on_drift`` true (io_policy returns it as
    the io_audit role gives it): that role's failing task runs on each host only when there is one, and once
    otherwise, since a task skipped on every host costs the controller a worker per host. Read from the host's
    variables as they are (HostVars.raw_get), not through a template: templating every host's checks costs seconds
    per ten hosts (docs/performance.md, "Fleet")."""
    if not isinstance(name, str) or not name:
        raise AnsibleActionFail('results: must be the name of the variable io_policy registered, got %r' % (name,))
    if not isinstance(hosts, list) or not all(isinstance(host, str) for host in hosts):
        raise AnsibleActionFail('hosts: must be a list of host names (ansible_play_hosts), got %r' % (hosts,))
    hostvars = task_vars.get('hostvars')
    reports, gated = [], []
    for host, result in (registered(hostvars, hosts, name) if hostvars is not None else {}).items():
        if isinstance(result, Mapping) and result.get('fail_on_drift') is True:
            gated.append(host)
        report = result.get('report') if isinstance(result, dict) else None
        unrendered = isinstance(result, str) or (isinstance(result, dict) and 'report' in result and not isinstance(report, dict))
        if unrendered:
            # a result a template made (harden_io.yml's set_fact after measuring): on ansible-core 2.19 and later it
            # is kept as its template until read through the host's variables, which render it (one host's report)
            rendered = hostvars[host].get(name)
            report = rendered.get('report') if isinstance(rendered, Mapping) else None
        if isinstance(report, Mapping) and report.get('host'):
            reports.append(dict(report))
    return reports, gated


def checked_args(args):
    """(dir, keep) after the checks every mode shares, and the checks of which options go together."""
    directory = args.get('dir')
    if not isinstance(directory, str) or not os.path.isabs(directory):
        raise AnsibleActionFail('dir: must be an absolute path on the controller, got %r' % (directory,))
    keep = _count(args, 'keep', 30, 0, '0 (keep every run) or a number of runs to keep in history.json')
    if args.get('merge') is not None:
        given = [name for name in ('reports', 'part', 'run_id') if args.get(name) is not None]
        if given:
            raise AnsibleActionFail('%s: not with merge (the reports of a merge are those of its parts)' % given[0])
        return directory, keep
    reports = args.get('reports')
    if not isinstance(reports, list) or not all(isinstance(r, dict) and r.get('host') for r in reports):
        raise AnsibleActionFail('reports: must be a list of host reports (each a dict with a host), or give results and hosts')
    if args.get('parts') is not None:
        raise AnsibleActionFail('parts: only with merge (how many parts the merge must find)')
    if args.get('run_id') is not None and args.get('part') is None:
        raise AnsibleActionFail('run_id: only with part (the run the part belongs to)')
    return directory, keep


def run_mode(args, directory, keep):
    """The files written, and what the mode adds to the result."""
    if args.get('merge') is not None:
        run_id = _text(args['merge'])
        merged = merge_parts(directory, run_id, _count(args, 'parts', None, 1, 'a number of parts, at least 1'), keep=keep)
        return merged.pop('files'), dict(merged, run_id=run_id)
    if args.get('part') is not None:
        name = _text(args['part'])
        written = write_part(directory, args['reports'], name, run_id=_text(args.get('run_id')))
        return written, {'part': name, 'part_file': written[-1], 'run_id': os.path.basename(os.path.dirname(written[-1]))}
    return write_reports(directory, args['reports'], keep=keep), {}


def with_reports(args, task_vars):
    """The task's arguments with ``reports`` (and ``gated_hosts``) read from ``results`` and ``hosts`` when those
    are given."""
    args = dict(args)
    given = [name for name in ('results', 'hosts') if args.get(name) is not None]
    if given and args.get('reports') is not None:
        raise AnsibleActionFail('%s: not with reports (the reports are read from each host\'s registered result)' % given[0])
    if given:
        args['reports'], args['gated_hosts'] = registered_reports(task_vars, args.get('hosts'), args.get('results'))
    return args


SUMMARY_KEYS = ('mode', 'run_id', 'failed_hosts', 'fail_on')
# the options a run's start takes; every other one belongs to writing reports
START_KEYS = ('dir', 'start', 'run_id', 'fail_on', 'benchmark_hosts')
BENCHMARK_VAR = 'iotune_benchmark'


def new_run_id():
    """A run id unique enough for one fleet: the UTC time and eight random hex digits."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%S.%fZ')
    return '%s-%08x' % (stamp, random.SystemRandom().getrandbits(32))


def _start(value):
    try:
        return boolean(value if value is not None else False, strict=True)
    except TypeError:
        raise AnsibleActionFail('start: must be true or false, got %r' % (value,))


def start_run(args, check_mode):
    """The start of a run, once and before any host work (issue 41): the report directory must be writable and the
    audit's gate well formed, or the run stops here naming the variable; the run id is the given one or a new one.
    One task, not a set_fact and an assert: every run-once task costs the play about 0.1 s."""
    given = sorted(set(name for name, value in args.items() if value is not None) - set(START_KEYS))
    if given:
        raise AnsibleActionFail('%s: not with start (it checks and chooses the run id; it writes no report)' % given[0])
    problem = report_dir_problem(args.get('dir'), check_mode=check_mode) or fail_on_problem(args.get('fail_on'))
    if problem:
        raise AnsibleActionFail(problem + '; the run stopped before any host work')
    run_id = _text(args.get('run_id'))
    if run_id in (None, ''):
        return new_run_id()
    if not isinstance(run_id, str):
        raise AnsibleActionFail('run_id: must be a string or an integer, got %r' % (run_id,))
    # the rule the journals and the host reports apply to it: refused here, before any host work, not on each host
    problem = validate_run_id(run_id)
    if problem:
        raise AnsibleActionFail('iotune_run_id: %s; the run stopped before any host work' % problem)
    return run_id


def may_measure(benchmark):
    """False only when ``benchmark``, a value of iotune_benchmark, surely leaves measuring off as harden_io.yml
    decides it (``(iotune_benchmark | default({}, true)).enabled | default(false) | bool``): unset or empty, or a
    dict whose ``enabled`` is absent, null or false. A template, or a value of any other form, may measure."""
    if benchmark is None or isinstance(benchmark, (str, Mapping)) and not benchmark:
        return False
    if not isinstance(benchmark, Mapping):
        return True
    enabled = benchmark.get('enabled')
    if enabled is None:
        return False
    if isinstance(enabled, bool):
        return enabled
    if isinstance(enabled, str) and ('{{' in enabled or '{%' in enabled) or not isinstance(enabled, (str, int, float)):
        return True
    return boolean(enabled, strict=False)


def fleet_may_measure(hosts, own, hostvars):
    """Whether any host of ``hosts`` may measure: its value of iotune_benchmark as the inventory and the extra vars
    give it (``hostvars.raw_get``, never templated; a host not found may), or ``own``, the first host's value as the
    task sees it, which carries the play's variables: those override the inventory for every host alike. When this
    is False, harden_io.yml skips its measured phases once instead of on every host (a worker per host)."""
    if not isinstance(hosts, list) or not all(isinstance(host, str) for host in hosts):
        raise AnsibleActionFail('benchmark_hosts: must be a list of host names (ansible_play_hosts), got %r' % (hosts,))
    if may_measure(own):
        return True
    for host in hosts:
        if hostvars is None or host not in hostvars:
            return True
        found = hostvars.raw_get(host)
        if may_measure(found.get(BENCHMARK_VAR) if isinstance(found, Mapping) else found):
            return True
    return False


def stats(summary):
    """The run's summary as the run's custom stat iotune_summary, as ansible.builtin.set_stats with aggregate and
    per_host false publishes it: ansible-runner, AWX and Automation Controller keep it with the job. Returned by this
    task, it saves the play a set_stats task."""
    return {'data': {'iotune_summary': summary}, 'per_host': False, 'aggregate': False}


def run_summary(args, directory, written, check_mode):
    """iotune_summary (plugin_utils/_run_summary.fleet_summary) of the reports, with the task's ``summary``
    (mode, run_id, failed_hosts, fail_on): the set_stats of the playbooks take it from here."""
    summary = args['summary']
    if not isinstance(summary, dict) or not summary.get('mode') or set(summary) - set(SUMMARY_KEYS):
        raise AnsibleActionFail('summary: must be a dict with mode and any of run_id, failed_hosts, fail_on, got %r' % (summary,))
    return fleet_summary(args['reports'], summary['mode'], run_id=summary.get('run_id'), failed_hosts=summary.get('failed_hosts'),
                         report_dir=directory, check_mode=check_mode, fail_on=summary.get('fail_on'), written=written)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('dir', 'reports', 'results', 'hosts', 'summary', 'keep', 'part', 'run_id', 'merge', 'parts',
                             'start', 'fail_on', 'benchmark_hosts'))
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        check_mode = bool(self._task.check_mode)
        if _start(self._task.args.get('start')):
            result.update(changed=False, run_id=start_run(self._task.args, check_mode))
            hosts = self._task.args.get('benchmark_hosts')
            if hosts is not None:
                task_vars = task_vars or {}
                try:
                    own = self._templar.template(task_vars[BENCHMARK_VAR]) if BENCHMARK_VAR in task_vars else None
                except Exception:   # pylint: disable=broad-except; a value it cannot template may measure
                    own = {'enabled': '{{ unknown }}'}
                result['measuring'] = fleet_may_measure(hosts, own, task_vars.get('hostvars'))
            return result
        for name in ('fail_on', 'benchmark_hosts'):
            if self._task.args.get(name) is not None:
                raise AnsibleActionFail('%s: only with start (it is checked before any host work)' % name)
        args = with_reports(self._task.args, task_vars or {})
        if args.get('part') is not None and args.get('merge') is not None:
            raise AnsibleActionFail('part, merge: one or the other (a slice writes its part; one task merges the parts)')
        directory, keep = checked_args(args)
        try:
            # in check mode nothing is written: the console says what the reports would say
            written, extra = run_mode(args, directory, keep) if not check_mode else ([], {})
            if args.get('merge') is None:
                extra['console'] = console(args['reports'], directory)
            if args.get('summary') is not None:
                extra['iotune_summary'] = run_summary(args, directory, extra, check_mode)
                extra['ansible_stats'] = stats(extra['iotune_summary'])
        except ValueError as exc:
            raise AnsibleActionFail(str(exc))
        except (KeyError, TypeError, AttributeError) as exc:
            raise AnsibleActionFail('reports: a host report without its checks\' status, message or host: %s' % exc)
        if 'gated_hosts' in args:
            extra['gated_hosts'] = args['gated_hosts']
        result.update(extra)
        result.update(changed=False, files=written)
        return result
