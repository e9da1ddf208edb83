# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The measured search on a host (the tune_io module): every candidate applied through the journal,
measured on a new file, undone from the journal, in a new shuffled order each round; then the
decision rule (measure.decide). The managed state the search can change is digested before and after: a search
leaves it as it found it, or says so.

The driver (``run_rounds``) takes its trial as a function, so the order, the undo after every
measurement (a failed one too) and the budget are unit tested without a disk."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib
import json
import re

from ansible_collections.iotune.storage.plugins.module_utils.act.journal import JournalError, list_runs
from ansible_collections.iotune.storage.plugins.module_utils.act.records import Trusted
from ansible_collections.iotune.storage.plugins.module_utils.act.rollback import RollbackError, roll_back
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import ERROR
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.block_queue import BlockQueue
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.mount_options import MountOptions
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.tunefstab import Tunefstab
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import EngineError, run_concerns
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import TUNABLE_NAMES, normalize_tunable, read_live
from ansible_collections.iotune.storage.plugins.module_utils.engine.snapshot import take_snapshot


class SearchError(Exception):
    """A search that cannot start or could not undo a candidate; ``result`` holds what is known."""

    def __init__(self, message, result=None):
        Exception.__init__(self, message)
        self.result = result or {}


# the run id of one trial of a search: <search run id>-t<number>
TRIAL_RUN_RE = re.compile(r'-t[0-9]{3,}$')


def open_trials(journal_dir):
    """The run ids of the trials of searches still applied (journalled, not rolled back): a search killed between a
    candidate's change and its undo. Its candidate would be taken for the current value."""
    try:
        runs = list_runs(journal_dir)
    except (OSError, JournalError) as exc:
        raise SearchError('journal_dir %s: %s' % (journal_dir, exc))
    return [run['run_id'] for run in runs if TRIAL_RUN_RE.search(run['run_id']) and not run['rolled_back'] and run['records']]


def refuse_open_trials(journal_dir):
    """SearchError naming the rollback command when a trial of an earlier search is still applied."""
    found = open_trials(journal_dir)
    if found:
        raise SearchError('run %s, a candidate of a search that did not finish (killed before it was undone), is still '
                          'applied: its value would be taken for the current one; ansible-playbook iotune.storage.rollback_io '
                          '-e iotune_run_id=%s puts it back, then search again' % (', '.join(found), found[-1]))


def state_scope(devices, mountpoint, fstab='/etc/fstab', tunefstab='/etc/vx/tunefstab'):
    """What a search of a target can change, and so what its digest covers: the queue settings of the
    target's ``devices`` (kernel names), the options and VxFS tunables of its ``mountpoint`` (or None),
    and the ``fstab`` and ``tunefstab`` files the trials write. A device attached, a container's mount
    made or a sysctl set elsewhere on the host while a search runs is not the search's change."""
    return {'devices': sorted(devices), 'mountpoint': mountpoint, 'fstab': fstab, 'tunefstab': tunefstab}


def managed_state(scope, sys_root='/sys', proc_root='/proc'):
    """{key: value} of the managed state in ``scope`` (state_scope), from engine.snapshot: each setting live
    and persistent (``block_queue:<device>:<setting>``, ``mount_options:<mount point>``,
    ``tunefstab:<mount point>:<tunable>``) and each source file (``source:<path>``, its sha256); reads only."""
    snapshot = take_snapshot('tune-io', sys_root=sys_root, proc_root=proc_root, fstab_path=scope['fstab'],
                             tunefstab_path=scope['tunefstab'])
    state = dict((key, value) for key, value in snapshot['settings'].items() if _in_scope(key, scope))
    for path in (scope['fstab'], scope['tunefstab']):
        source = snapshot['sources'].get(path)
        state['source:%s' % path] = source and source.get('sha256')
    return state


def _in_scope(key, scope):
    kind, dummy, rest = key.partition(':')
    if kind == 'block_queue':
        return rest.split(':', 1)[0] in scope['devices']
    if kind == 'mount_options':
        return rest == scope['mountpoint']
    if kind == 'tunefstab':
        return rest.rsplit(':', 1)[0] == scope['mountpoint']
    return False


def state_digest(state):
    """sha256 of a managed_state."""
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode('utf-8')).hexdigest()


def state_differences(before, after):
    """The keys of two managed_states whose values differ (one side missing counts), sorted."""
    return sorted(key for key in set(before) | set(after) if key not in before or key not in after or before[key] != after[key])


MOUNT_SETTING = 'mount_options'


class Trials(object):
    """Applies a candidate, each under its own run id of the journal, and undoes it: a block-queue
    setting of the target's device live (persist false: no udev rule is written), a mount option of
    the target (fstab and a live remount), or a VxFS tunable (tunefstab and vxtunefs -o), each put back
    by the undo."""

    def __init__(self, runner, match, journal_dir, run_id, sys_root='/sys', proc_root='/proc', warn=None, fstab='/etc/fstab',
                 vxfs=None):
        self.runner, self.match, self.journal_dir, self.run_id = runner, match, journal_dir, run_id
        self.sys_root, self.proc_root, self.warn, self.fstab = sys_root, proc_root, warn, fstab
        # {device, tunefstab, vxtunefs}: the target's VxFS device, the tunefstab file and the vxtunefs to run
        self.vxfs = vxfs or {}
        self.applied = []

    def concern(self, values):
        if set(values) & set(TUNABLE_NAMES):
            tunables = dict((name, normalize_tunable(name, value)) for name, value in values.items())
            return Tunefstab(self.runner, [{'device': self.vxfs.get('device'), 'tunables': tunables}], path=self.vxfs.get('tunefstab'),
                             apply=True, vxtunefs=self.vxfs.get('vxtunefs'), proc_root=self.proc_root)
        if MOUNT_SETTING in values:
            return MountOptions(self.runner, [{'path': self.match['mountpoint'], 'present': [values[MOUNT_SETTING]], 'absent': []}],
                                fstab=self.fstab, proc_root=self.proc_root)
        return BlockQueue(self.runner, [dict(values, match=self.match)], persist=False, sys_root=self.sys_root,
                          proc_root=self.proc_root)

    def plan(self, values):
        """The plan of ``values`` (one mount option, or block-queue settings) on the target; reads only."""
        return self.concern(values).plan()

    def apply(self, values, number):
        """Make ``values`` live under run id ``<run_id>-t<number>``; that id when a change was journalled, else None."""
        trial_id = '%s-t%03d' % (self.run_id, number)
        try:
            result = run_concerns([self.concern(values)], self.runner, run_id=trial_id, journal_dir=self.journal_dir,
                                  warn=self.warn)
        except EngineError as exc:
            if exc.result.get('changed'):
                self.undo(trial_id)
            raise SearchError('applying %s: %s' % (', '.join('%s=%s' % item for item in sorted(values.items())), exc))
        if 'journal' not in result:
            return None
        self.applied.append(trial_id)
        return trial_id

    def undo(self, trial_id):
        """Put back what run ``trial_id`` changed; SearchError naming the run when that fails."""
        try:
            files = (self.fstab,) + ((self.vxfs['tunefstab'],) if self.vxfs.get('tunefstab') else ())
            trusted = Trusted(files, self.sys_root, self.proc_root, mount_bin=self.runner.bin('mount', 'mount'),
                              vxtunefs=self.vxfs.get('vxtunefs'))
            errors = roll_back(self.journal_dir, trial_id, trusted, self.runner,
                               lambda binary, mount_point: read_live(binary, mount_point, self.runner))['errors']
        except RollbackError as exc:
            errors = [str(exc)]
        if errors:
            raise SearchError('undoing run %s: %s; ansible-playbook iotune.storage.rollback_io -e iotune_run_id=%s puts it back'
                              % (trial_id, '; '.join(errors), trial_id))


def plan_errors(plan, field, live_kind=None, queue_value=None):
    """The error checks of a candidate's plan, as sentences naming ``field``; with ``live_kind``, also a plan
    that would change something but nothing of that kind (a mount option no live remount can set, a VxFS
    tunable of a file system that is not mounted: a measurement would not see it); with ``queue_value`` (a
    block-queue candidate), also a value the kernel would keep as another (read_ahead_kb 4097 is kept as 4096):
    measured under its own name it would be the kept value measured again, or the current value (an A/A
    in disguise)."""
    errors = ['%s: %s' % (field, check['message']) for check in plan['checks'] if check['status'] == ERROR]
    if not errors and queue_value is not None:
        errors.extend('%s: %s is kept by the kernel as %s; give %s (a search measures the value the kernel keeps)'
                      % (field, queue_value, check['expected'], check['expected'])
                      for check in plan['checks'] if check['expected'] != queue_value)
    if not errors and live_kind and plan['changes'] and not [c for c in plan['changes'] if c['kind'] == live_kind]:
        errors.append('%s: %s' % (field, '; '.join(check['message'] for check in plan['checks'] if check['status'] != 'compliant')
                                  or 'no live change') + ' (a search measures only what changes live)')
    return errors


def run_rounds(orders, trial, clock, deadline):
    """Measure each round's names in its order: ``trial(name, number)`` -> (value, suspect). Stops
    before a round that would end after ``deadline`` (clock() seconds). Returns (rounds: one
    {name: value} per complete round, suspect: the names any trial flagged, stopped: None or why)."""
    rounds, suspect, number = [], set(), 0
    started = clock()
    for index, order in enumerate(orders):
        if index and clock() + (clock() - started) / index > deadline:
            return rounds, suspect, 'stopped after %d of %d rounds: the next would pass max_seconds' % (index, len(orders))
        measured = {}
        for name in order:
            number += 1
            value, flagged = trial(name, number)
            measured[name] = value
            if flagged:
                suspect.add(name)
        rounds.append(measured)
    return rounds, suspect, None
