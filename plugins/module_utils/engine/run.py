# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The policy engine: every concern planned, applied and re-read in one module run.

Each concern is a ``Concern`` (engine/concern.py: ``plan``, ``diff``, ``show``, ``apply``,
``extra``); what the host re-reads after a run follows from its journal records
(act/reloads.py). ``io_policy`` runs them all through ``run_concerns`` under one run id;
the deprecated per-concern modules run one each through ``exit_concern``. The concerns themselves are in
engine/concerns/, one file each, so that a module that runs one concern ships that concern's planner only."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import ERROR, NOT_APPLICABLE, make_check, summarize
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandError
from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import (
    Concern, act, kernel_problems, space_problems, summary_message, unwritable)
from ansible_collections.iotune.storage.plugins.module_utils.engine.fixes import attach_fixes, leave_alone
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS


# What only a run that changes the host needs (journals, reloads) is imported where it is used: an audit
# of a Linux host, the commonest run, does not compile it on the host (docs/performance.md, "Fleet").
def _journal():
    from ansible_collections.iotune.storage.plugins.module_utils.act import journal as act_journal
    return act_journal


def _reloads():
    from ansible_collections.iotune.storage.plugins.module_utils.act import reloads as act_reloads
    return act_reloads


class NotApplicable(Concern):
    """A concern the host's platform does not have (or the collection does not manage there yet): one
    ``not_applicable`` check naming the reason, nothing planned or changed."""

    def __init__(self, name, platform, reason):
        self.name, self.platform, self.reason = name, platform, reason

    def plan(self):
        message = 'not applicable on %s: %s' % (PLATFORMS[self.platform]['uname'], self.reason)
        return {'checks': [make_check(self.name, PLATFORMS[self.platform]['uname'], 'platform', None, None, None,
                                      NOT_APPLICABLE, message)],
                'changes': [], 'warnings': []}


def mark_changed(before_checks, after_checks):
    """The checks after apply, each with ``changed`` (its status moved) and ``status_before``."""
    status_before = dict((check['id'], check['status']) for check in before_checks)
    return [dict(check, status_before=status_before.get(check['id'], check['status']),
                 changed=status_before.get(check['id'], check['status']) != check['status'])
            for check in after_checks]


class EngineError(Exception):
    """A run that failed; ``result`` is what the module returns with it."""

    def __init__(self, message, result):
        Exception.__init__(self, message)
        self.result = result


def _plan_all(concerns, warn, known=None):
    """Plan each concern; warn each warning (named by its concern when there are several)
    that is not already in the ``known`` plans."""
    plans = []
    for index, concern in enumerate(concerns):
        plan = concern.plan()
        seen = known[index]['warnings'] if known else []
        for warning in plan['warnings']:
            if warning not in seen:
                warn('%s: %s' % (concern.name, warning) if len(concerns) > 1 else warning)
        plans.append(plan)
    return plans


def _concern_results(concerns, plans, applied=None):
    """Per concern: its own result keys, the summary of ``plans`` and the changes of
    ``applied`` (the plans that were applied), else of ``plans``."""
    return dict((concern.name, dict(concern.extra(plan), summary=summarize(plan['checks']),
                                    changes=concern.show(done['changes'])))
                for concern, plan, done in zip(concerns, plans, applied or plans))


def run_concerns(concerns, runner, check_mode=False, diff=False, run_id=None, journal_dir=None, warn=None,
                 apply=True, mark_all=False, waived_of=None):
    """run_concerns_unlocked under the host lock when the run may change the host: its plan and
    its changes cannot interleave with another run's (act.journal.acquire_lock)."""
    args = (concerns, runner, check_mode, diff, run_id, journal_dir, warn, apply, mark_all, waived_of)
    if check_mode or not apply or journal_dir is None:
        return run_concerns_unlocked(*args)
    try:
        lock = _journal().acquire_lock(journal_dir)
    except _journal().JournalError as exc:
        # another run holds it, or journal_dir is not private, or a link is planted at the lock
        # (issue 23, T1/T2): a failure naming it, nothing changed, not a traceback
        raise EngineError(str(exc), dict(changed=False, checks=[], summary=summarize([]),
                                         concerns=dict((concern.name, {}) for concern in concerns)))
    try:
        return run_concerns_unlocked(*args)
    finally:
        os.close(lock)


def _blocked(checks, planned, journal_dir, check_mode, waived=frozenset()):
    """Why an enforcing run may change nothing: its error checks (in check mode too) but the
    ``waived`` ones, then, when it would change something, the files it cannot write and the space
    it lacks."""
    # An enforcing run cannot bring a check in error to the policy: it fails, in check mode too,
    # and changes nothing (an error check used to pass as ok when its concern had nothing to change).
    # A waived one is left as it is like any waived finding, and the others are enforced (issue 38, 8).
    errors = [check['message'] for check in checks if check['status'] == ERROR and check['id'] not in waived]
    if errors or not planned:
        return errors
    # a file that cannot be written (a read-only file system, an immutable file) is found in check
    # mode too, before a live value is changed (issue 38, item 6)
    # so is a kernel attribute that cannot be written, or a remount without the capability (issue 55, item 1)
    problems = [problem for concern, plan in planned for problem in unwritable(plan['changes']) + kernel_problems(plan['changes'])]
    if not problems and not check_mode and journal_dir is not None:
        problems = space_problems([change for concern, plan in planned for change in plan['changes']], journal_dir)
    return problems


def _written(applied):
    return sum(journal.written for concern, journal in applied)


def _apply_planned(planned, journal_dir, run_id, result, several):
    """Journal and make every planned change under ``run_id``: the journals, each with its concern.
    EngineError (``changed`` when records were written) when a change fails."""
    applied = []
    for concern, plan in planned:
        try:
            journal = _journal().Journal(journal_dir, run_id, concern.name)
        except _journal().JournalError as exc:
            result['changed'] = _written(applied) > 0
            raise EngineError('run_id: %s' % exc, result)
        applied.append((concern, journal))
        try:
            concern.apply(journal, plan)
        except (act().ApplyError, CommandError, _journal().JournalError, IOError, OSError) as exc:
            written = _written(applied)
            result['changed'] = written > 0
            prefix = '%s: ' % concern.name if several else ''
            # records, not changes: each is written before its change, which may have failed or been put back
            raise EngineError('%s%s (%d journal record(s) written before the failure are in %s; io_rollback run_id=%s '
                              'undoes whatever of them was made)' % (prefix, exc, written, result['journal'], run_id), result)
    return applied


def _reload(runner, applied, result):
    """Run the reloads the run's records need (act.reloads: the rule io_rollback follows too), each
    once; ``result['reloaded']`` the commands that worked. Returns the errors, as sentences."""
    def find_program(name):
        return runner.bin(name)
    reloads = []
    for concern, journal in applied:
        # sysctl(8) loads into the real /proc only: a concern pointed at another proc_root reloads nothing there
        needed = _reloads().needed_reloads(journal.records, _reloads().APPLY, find_program, proc_root=getattr(concern, 'proc_root', '/proc'))
        reloads.extend(item for item in needed if item not in reloads)
    result['reloaded'], errors = _reloads().run_reloads(reloads, runner)
    return errors


def _warn_still_planned(concerns, after_plans, warn):
    for concern, plan in zip(concerns, after_plans):
        if plan['changes']:
            prefix = '%s: ' % concern.name if len(concerns) > 1 else ''
            warn('%safter applying, still planned: %s' % (prefix, ', '.join(
                '%s %s' % (change['kind'], change['target']) for change in plan['changes'])))


def _without_waived(plans, waived):
    """Each plan's changes without those of the ``waived`` check ids (fixes.leave_alone), and the
    conflicts: changes that would change a waived setting with another."""
    conflicts = []
    for plan in plans:
        plan['changes'], clash = leave_alone(plan, waived)
        conflicts.extend(clash)
    return conflicts


def run_concerns_unlocked(concerns, runner, check_mode=False, diff=False, run_id=None, journal_dir=None, warn=None,
                          apply=True, mark_all=False, waived_of=None):
    """Plan every concern; unless ``check_mode`` (or not ``apply``: an audit), apply every
    plan under one run id, reload what the changes need, and plan again. With ``mark_all``
    an enforcing run marks every check with ``changed`` and ``status_before``, also when
    nothing was to change.

    Returns the result dict (``checks``, ``summary``, ``concerns``, ``changed``, ``diff``;
    after changes ``run_id``, ``journal``, ``reloaded``, ``checks_before``). Raises
    EngineError (with the result so far) when an error check blocks the changes, a
    change fails, or a reload fails (after the state is read again: the changes are made)."""
    warn = warn or (lambda message: None)
    plans = _plan_all(concerns, warn)
    # an enforcing run leaves the settings of waived checks as they are (``waived_of``: the ids of
    # those of a list of checks, from this run's own plan)
    waived = waived_of([check for plan in plans for check in plan['checks']]) if apply and waived_of else frozenset()
    conflicts = _without_waived(plans, waived) if waived else []
    checks = [check for plan in plans for check in plan['checks']]
    planned = [(concern, plan) for concern, plan in zip(concerns, plans) if plan['changes']]
    result = dict(changed=bool(planned), checks=checks, summary=summarize(checks),
                  concerns=_concern_results(concerns, plans))
    if diff:
        result['diff'] = [d for concern, plan in zip(concerns, plans) for d in concern.diff(plan)]
    if not apply:
        # an audit says, for each finding, what a harden would change (the plan is the same)
        for plan in plans:
            attach_fixes(plan)
        result['changed'] = False
        return result
    if mark_all:
        # what an enforcing run reports of every check, also when it changes nothing
        result['checks'] = mark_changed(checks, checks)
    problems = ['a change would also change a waived setting: %s (end the waiver, or waive the other check '
                'too)' % '; '.join(conflicts)] if conflicts else _blocked(checks, planned, journal_dir, check_mode, waived)
    if problems:
        result['changed'] = False
        raise EngineError('nothing changed: %s' % '; '.join(problems), result)
    if check_mode or not planned:
        return result

    run_id = run_id or _journal().new_run_id()
    result.update(run_id=run_id, journal=_journal().journal_path(journal_dir, run_id))
    applied = _apply_planned(planned, journal_dir, run_id, result, len(concerns) > 1)
    reload_errors = _reload(runner, applied, result)
    after_plans = _plan_all(concerns, warn, plans)
    if waived:
        _without_waived(after_plans, waived)
    _warn_still_planned(concerns, after_plans, warn)
    after = [check for plan in after_plans for check in plan['checks']]
    written = _written(applied)
    result.update(changed=written > 0, checks=mark_changed(checks, after), checks_before=checks, summary=summarize(after),
                  concerns=_concern_results(concerns, after_plans, plans), changes_made=written)
    if reload_errors:
        raise EngineError('%s (after the changes: %d journalled in %s; io_rollback run_id=%s undoes them)'
                          % ('; '.join(reload_errors), written, result['journal'], run_id), result)
    return result


def exit_concern(module, concern, runner):
    """Run one concern as its own module does and exit: the concern's result keys at
    the top level, as before the engine ran several concerns."""
    params = module.params
    try:
        result = run_concerns([concern], runner, check_mode=module.check_mode, diff=module._diff,
                              run_id=params.get('run_id'), journal_dir=params['journal_dir'], warn=module.warn)
    except EngineError as exc:
        module.fail_json(msg=str(exc), **_flat(exc.result, concern))
    flat = _flat(result, concern)
    flat['msg'] = summary_message(flat['checks'])
    if 'journal' in flat:
        flat['msg'] += '; %d change(s) journalled in %s' % (result['changes_made'], flat['journal'])
    module.exit_json(**flat)


def _flat(result, concern):
    flat = dict(result)
    flat.update(flat.pop('concerns')[concern.name])
    flat['summary'] = result['summary']
    flat.pop('changes_made', None)
    return flat
