# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The policy engine: every concern planned, applied and re-read in one module run.

Each concern is a ``Concern`` (engine/concern.py: ``plan``, ``diff``, ``show``, ``apply``,
``extra``); what the host re-reads after a run follows from its journal records
(act/reloads.py). ``io_policy`` runs them all through ``run_concerns`` under one run id;
the deprecated per-concern modules run one each through ``exit_concern``."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.plan.block_queue import DEFAULT_RULES_FILE, plan_block_queue
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache import DEFAULT_SYSCTL_FILE, SYSTEMD_RUN_DIR, plan_cache
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import ERROR, NOT_APPLICABLE, make_check, summarize
from ansible_collections.iotune.storage.plugins.module_utils.common.filestate import digest_text
from ansible_collections.iotune.storage.plugins.module_utils.engine.fixes import attach_fixes, leave_alone
from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import (
    Concern, apply_changes, file_diffs, live_diff, space_problems, summary_message, unwritable)
from ansible_collections.iotune.storage.plugins.module_utils.plan.copy_tools import plan_copy_tools, wanted_file
from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import normalize_mount_point
from ansible_collections.iotune.storage.plugins.module_utils.parse.meminfo import read_memory_bytes
from ansible_collections.iotune.storage.plugins.module_utils.plan.mounts import plan_mounts
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import is_userspace_option
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandError
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import CONF_DIRS, SYSCTL_CONF
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import plan_tunefstab, read_live
from ansible_collections.iotune.storage.plugins.module_utils.parse.udev import DB_DIR, RULES_DIRS


# What only a run that changes the host needs (making changes, journals, reloads) and the planners of
# Solaris and HP-UX are imported where they are used: an audit of a Linux host, the commonest run, does
# not compile them on the host (docs/performance.md, "Fleet").
def _act():
    from ansible_collections.iotune.storage.plugins.module_utils.act import apply as act_apply
    return act_apply


def _journal():
    from ansible_collections.iotune.storage.plugins.module_utils.act import journal as act_journal
    return act_journal


def _reloads():
    from ansible_collections.iotune.storage.plugins.module_utils.act import reloads as act_reloads
    return act_reloads


class MountOptions(Concern):
    name = 'mount_options'
    # the change kinds of the live side, each made by apply_live
    live_kinds = ('mount', 'mount_cycle')

    def __init__(self, runner, requests, fstab='/etc/fstab', remount=True, proc_root='/proc'):
        self.runner, self.requests = runner, requests
        self.fstab, self.remount, self.proc_root = fstab, remount, proc_root
        self.mount_bin = runner.bin('mount', 'mount')

    def plan(self):
        return plan_mounts(self.requests, fstab_path=self.fstab, proc_root=self.proc_root, remount=self.remount)

    def diff(self, plan):
        fstab = plan['fstab']
        diffs = []
        if fstab['changed']:
            diffs.append({'before_header': fstab['path'], 'after_header': fstab['path'],
                          'before': fstab['before'], 'after': fstab['after']})

        def line(change, side):
            return '%s %s' % (change['target'], ','.join(change[side]))
        return diffs + live_diff(plan['changes'], 'mount', 'mount options', line) \
            + live_diff(plan['changes'], 'mount_cycle', 'mount options (unmount and mount)', line) \
            + live_diff(plan['changes'], 'unix_remount', 'mount options', line)

    def apply_live(self, journal, change, request):
        if change['kind'] == 'mount_cycle':
            _act().apply_mount_cycle(journal, change, self.runner.change, self.mount_bin, self.proc_root)
            return
        _act().apply_mount(journal, change, self.runner.change, self.mount_bin, self.proc_root,
                           [o for o in request['present'] if not is_userspace_option(o)],
                           [o for o in request['absent'] if not is_userspace_option(o)])

    def apply(self, journal, plan):
        """fstab first, then the live side of each mount point (a remount; for an NFS mount with
        ``remount: cycle``, one unmount and mount); a failed one puts its fstab line back (journalled
        too) before the error is raised."""
        fstab = plan['fstab']
        if fstab['changed']:
            _act().apply_file(journal, fstab['path'], fstab['after'])
        wanted = dict((normalize_mount_point(r['path']), r) for r in self.requests)
        text = fstab['after']
        for change in plan['changes']:
            if change['kind'] not in self.live_kinds:
                continue
            try:
                self.apply_live(journal, change, wanted[change['target']])
            except _act().ApplyError as exc:
                edits = [c for c in plan['changes'] if c['kind'] == 'fstab' and c['target'] == change['target']]
                if edits:
                    text = revert_line(text, edits[0])
                    _act().apply_file(journal, fstab['path'], text)
                    raise _act().ApplyError('%s; line %d of %s was put back' % (exc, edits[0]['line'], fstab['path']))
                raise

    def extra(self, plan):
        return {'mounts': plan['mounts']}


class UnixMountOptions(MountOptions):
    """mount_options on Solaris/illumos and HP-UX (plan.unix_mounts): /etc/vfstab or HP-UX's /etc/fstab,
    and ``mount -F <type> -o remount,<every option>``, read back from /etc/mnttab."""
    live_kinds = ('unix_remount',)

    def __init__(self, runner, requests, platform, fstab=None, mnttab=None, remount=True):
        MountOptions.__init__(self, runner, requests, fstab or PLATFORMS[platform]['fstab'], remount)
        self.platform, self.mnttab = platform, mnttab or PLATFORMS[platform]['mnttab']

    def plan(self):
        from ansible_collections.iotune.storage.plugins.module_utils.plan.unix_mounts import plan_unix_mounts
        return plan_unix_mounts(self.requests, self.platform, self.fstab, self.mnttab, self.remount)

    def apply_live(self, journal, change, request):
        _act().apply_unix_remount(journal, change, self.runner.change, self.mount_bin, self.mnttab)


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


def revert_line(text, change):
    """``text`` with the fstab line of ``change`` as it was before."""
    lines = text.split('\n')
    lines[change['line'] - 1] = change['before_line'].rstrip('\n')
    return '\n'.join(lines)


class Tunefstab(Concern):
    name = 'tunefstab'

    def __init__(self, runner, entries, path='/etc/vx/tunefstab', apply=False, vxtunefs=None, proc_root='/proc',
                 mount_entries=None):
        self.runner, self.entries, self.path, self.apply_live = runner, entries, path, apply
        self.vxtunefs, self.proc_root, self.mount_entries = vxtunefs, proc_root, mount_entries

    def plan(self):
        return plan_tunefstab(self.entries, path=self.path, vxtunefs=self.vxtunefs, run_command=self.runner,
                              proc_root=self.proc_root, apply=self.apply_live, mount_entries=self.mount_entries)

    def diff(self, plan):
        return live_diff(plan['changes'], 'vxtunefs', 'vxtunefs',
                         lambda change, side: '%s %s=%s' % (change['target'], change['setting'], change[side])) \
            + file_diffs(plan['changes'])

    def apply(self, journal, plan):
        def values(binary, mount_point):
            return read_live(binary, mount_point, self.runner)
        apply_changes(journal, plan['changes'],
                      vxtunefs=lambda journal, change: _act().apply_vxtunefs(journal, change, self.runner.change, values))

    def extra(self, plan):
        return {'devices': plan['devices'], 'vxtunefs': self.vxtunefs}


class BlockQueue(Concern):
    name = 'block_queue'

    def __init__(self, runner, requests, persist=True, rules_file=DEFAULT_RULES_FILE, sys_root='/sys',
                 proc_root='/proc', rules_dirs=RULES_DIRS, db_dir=DB_DIR, mount_entries=None):
        self.runner, self.requests, self.persist, self.rules_file = runner, requests, persist, rules_file
        self.sys_root, self.proc_root, self.rules_dirs, self.db_dir = sys_root, proc_root, rules_dirs, db_dir
        self.mount_entries = mount_entries

    def plan(self):
        return plan_block_queue(self.requests, sys_root=self.sys_root, proc_root=self.proc_root,
                                rules_dirs=self.rules_dirs, db_dir=self.db_dir, rules_file=self.rules_file,
                                persist=self.persist, mount_entries=self.mount_entries)

    def diff(self, plan):
        return live_diff(plan['changes'], 'sysfs', 'sysfs', lambda change, side: '%s = %s' % (change['path'], change[side])) \
            + file_diffs(plan['changes'])

    def apply(self, journal, plan):
        apply_changes(journal, plan['changes'], sysfs=_act().apply_sysfs)

    def extra(self, plan):
        return {'devices': plan['devices']}


class CacheLimits(Concern):
    name = 'cache_limits'

    def __init__(self, runner, sysctl=None, bulk_slice=None, sysctl_file=DEFAULT_SYSCTL_FILE, proc_root='/proc',
                 conf_dirs=CONF_DIRS, sysctl_conf=SYSCTL_CONF, systemd_run_dir=SYSTEMD_RUN_DIR, memory_bytes=None,
                 other_platforms=()):
        self.runner, self.sysctl, self.bulk_slice, self.sysctl_file = runner, sysctl, bulk_slice, sysctl_file
        # iotune_cache keys of Solaris or HP-UX (settings.unix_cache), which a Linux host has not
        self.other_platforms = tuple(other_platforms)
        self.proc_root, self.conf_dirs, self.sysctl_conf = proc_root, conf_dirs, sysctl_conf
        self.systemd_run_dir = systemd_run_dir
        self.systemctl = runner.bin('systemctl')
        self.memory_bytes = memory_bytes if memory_bytes is not None else read_memory_bytes(proc_root)

    def _systemctl(self, argv):
        if self.systemctl is None:
            return 127, '', 'systemctl not found'
        return self.runner(argv)

    def plan(self):
        plan = plan_cache(sysctl=self.sysctl, bulk_slice=self.bulk_slice, sysctl_file=self.sysctl_file,
                          proc_root=self.proc_root, conf_dirs=self.conf_dirs, sysctl_conf=self.sysctl_conf,
                          systemd_run_dir=self.systemd_run_dir, run_command=self._systemctl,
                          systemctl=self.systemctl or 'systemctl', memory_bytes=self.memory_bytes)
        if self.other_platforms:
            plan['checks'].append(make_check(self.name, 'Linux', 'platform', None, None, None, NOT_APPLICABLE,
                                             'not applicable on Linux: iotune_cache.%s (Solaris and HP-UX tunables)'
                                             % ', iotune_cache.'.join(self.other_platforms)))
        return plan

    def diff(self, plan):
        return file_diffs(plan['changes']) + live_diff(
            plan['changes'], 'sysctl', 'sysctl values', lambda change, side: '%s = %s' % (change['target'], change[side]))

    def apply(self, journal, plan):
        def daemon_reload(journal, change):
            journal.record('unit', change['target'], None, change['action'])
            try:
                self.runner.change([self.systemctl or 'systemctl', 'daemon-reload'], check_rc=True)
            except CommandError as exc:
                raise _act().ApplyError(str(exc))

        apply_changes(journal, plan['changes'], unit=daemon_reload,
                      sysctl=lambda journal, change: _act().apply_sysctl(journal, change, self.proc_root))

    def extra(self, plan):
        return {'sysctl': plan['sysctl'], 'bulk_slice': plan['bulk_slice']}


MACHINFO = ('/usr/contrib/bin/machinfo',)


class UnixCache(Concern):
    """cache_limits on Solaris (the ZFS ARC cap in /etc/system, at the next boot) and HP-UX (the file cache
    through kctune, at once): plan.unix_cache."""
    name = 'cache_limits'

    def __init__(self, runner, cache, platform, system_file=None):
        self.runner, self.cache, self.platform, self.system_file = runner, cache, platform, system_file
        self.kctune = runner.bin('kctune', 'kctune')
        # HP-UX keeps machinfo in /usr/contrib/bin, which a module's PATH may lack
        self.machinfo = runner.bin('machinfo') or next((path for path in MACHINFO if os.path.exists(path)), None)

    def plan(self):
        from ansible_collections.iotune.storage.plugins.module_utils.plan.unix_cache import plan_unix_cache
        return plan_unix_cache(self.cache, self.platform, self.runner, self.system_file, self.machinfo)

    def diff(self, plan):
        return file_diffs(plan['changes']) + live_diff(
            plan['changes'], 'kctune', 'kctune', lambda change, side: '%s = %s' % (change['target'], change[side]))

    def apply(self, journal, plan):
        apply_changes(journal, [change for change in plan['changes'] if change['kind'] == 'file'])
        _act().apply_kctunes(journal, [change for change in plan['changes'] if change['kind'] == 'kctune'], self.runner.change, self.kctune)

    def extra(self, plan):
        return {'applies': plan['applies']}


class CopyTools(Concern):
    """The tools (executable files) show in results and diffs as a digest and a size, never
    as their content; the configuration file shows as text. A file may come as its digest
    only (io_policy sends a tool's content only when it expects the host to need it): it
    is planned from the digest, and a run that would install it without its content fails
    before any change, naming it in ``content_needed`` (the action plugin then sends it).
    ``installing``: whether this run writes (default: outside check mode, and for io_policy
    in mode enforce)."""
    name = 'copy_tools'

    def __init__(self, runner, files, state='present', installing=None):
        self.runner, self.state = runner, state
        self.files = [wanted_file(item, 'copy_tools_files[%d]' % index) for index, item in enumerate(files)]
        self.tools = set(item['path'] for item in self.files if item['mode'] & 0o111)
        if installing is None:
            module = getattr(runner, 'module', None)
            installing = module is None or (not module.check_mode and module.params.get('mode', 'enforce') == 'enforce')
        self.installing = installing

    def plan(self):
        return plan_copy_tools(self.files, self.state, installing=self.installing)

    def _side(self, change, side):
        data, tool = change.get(side), change['target'] in self.tools
        if side == 'after' and change['kind'] == 'file' and (data is None or tool):
            return digest_text(change['after_sha256'], change.get('after_size'))
        if data is None:
            return None
        return digest_text(data) if tool else data.decode('utf-8', 'replace')

    def diff(self, plan):
        diffs = []
        for change in self.show(plan['changes']):
            if change['kind'] in ('file', 'remove'):
                tool = change['target'] in self.tools
                diffs.append({'before_header': change['target'] if change['before'] is not None else '%s (absent)' % change['target'],
                              'after_header': change['target'] if change['after'] is not None else '%s (removed)' % change['target'],
                              'before': (change['before'] or '') + ('\n' if tool and change['before'] else ''),
                              'after': (change['after'] or '') + ('\n' if tool and change['after'] else '')})
        return diffs

    def show(self, changes):
        return [dict(change, before=self._side(change, 'before'), after=self._side(change, 'after'))
                if change['kind'] in ('file', 'remove') else change for change in changes]

    def apply(self, journal, plan):
        apply_changes(journal, plan['changes'], dir=lambda journal, change: _act().apply_directory(journal, change['target']),
                      remove=lambda journal, change: _act().remove_file(journal, change['target']))

    def extra(self, plan):
        return {'content_needed': plan['content_needed'], 'installed': plan['installed']}


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
    problems = [problem for concern, plan in planned for problem in unwritable(plan['changes'])]
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
        except (_act().ApplyError, CommandError, _journal().JournalError, IOError, OSError) as exc:
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
