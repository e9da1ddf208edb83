# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The search driver: rounds in their shuffled orders, the budget checked before each round, the
cache guard's flags kept; and a trial undoes its candidate when the measurement fails."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.engine import tune
from ansible_collections.iotune.storage.plugins.module_utils.engine.tune import (
    managed_state, run_rounds, state_differences, state_digest, state_scope)
from ansible_collections.iotune.storage.plugins.modules.tune_io import make_trial


class Clock(object):
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def test_rounds_follow_their_orders():
    seen = []

    def trial(name, number):
        seen.append((number, name))
        return 100 + number, name == 'b'
    rounds, suspect, stopped = run_rounds([['a', 'b'], ['b', 'a']], trial, Clock(0), 10)
    assert seen == [(1, 'a'), (2, 'b'), (3, 'b'), (4, 'a')]
    assert rounds == [{'a': 101, 'b': 102}, {'b': 103, 'a': 104}]
    assert suspect == {'b'} and stopped is None


def test_the_budget_stops_before_a_round_that_would_pass_it():
    clock = Clock(0)

    def trial(name, number):
        clock.now += 10
        return 1, False
    # each round takes 20 s; the deadline 50 s lets two rounds run (the third would end at 60)
    rounds, dummy, stopped = run_rounds([['a', 'b']] * 5, trial, clock, 50)
    assert len(rounds) == 2
    assert stopped == 'stopped after 2 of 5 rounds: the next would pass max_seconds'


class Trials(object):
    def __init__(self):
        self.log = []

    def apply(self, values, number):
        self.log.append(('apply', values, number))
        return 'run-t%03d' % number

    def undo(self, trial_id):
        self.log.append(('undo', trial_id))


def test_a_trial_undoes_its_candidate_also_when_the_measurement_fails():
    trials = Trials()
    by_name = {'current': {'setting': None, 'value': None}, 'read_ahead_kb=64': {'setting': 'read_ahead_kb', 'value': 64}}

    def failing(candidate):
        raise OSError('fio died')
    trial = make_trial(trials, failing, by_name, False)
    with pytest.raises(OSError):
        trial('read_ahead_kb=64', 3)
    assert trials.log == [('apply', {'read_ahead_kb': 64}, 3), ('undo', 'run-t003')]
    # the current value changes nothing and undoes nothing
    trials.log = []
    assert make_trial(trials, lambda candidate: 42, by_name, True)('current', 4) == (42, True)
    assert trials.log == []


def _snapshot(read_ahead=512, other_read_ahead=128, options=('noatime', 'rw'), fstab=b'a\n', extra_mounts=()):
    settings = {
        'vm.dirty_ratio': {'live': 20},
        'block_queue:loop3:read_ahead_kb': {'live': read_ahead, 'persistent': []},
        'block_queue:loop30:read_ahead_kb': {'live': other_read_ahead, 'persistent': []},
        'mount_options:/mnt/xfs': {'live': list(options), 'persistent': []},
        'mount_options:/mnt/xfs2': {'live': ['rw'], 'persistent': []},
        'tunefstab:/mnt/xfs:read_pref_io': {'live': 65536, 'persistent': []},
        'tunefstab:/mnt/xfs2:read_pref_io': {'live': 65536, 'persistent': []},
    }
    for mount_point in extra_mounts:
        settings['mount_options:%s' % mount_point] = {'live': ['rw'], 'persistent': []}
    return {'settings': settings, 'sources': {'/etc/fstab': {'sha256': hashlib.sha256(fstab).hexdigest()}},
            'sysctl': {'vm.dirty_ratio': '20'}}


def _state(monkeypatch, scope, **snapshot):
    taken = []

    def take_snapshot(name, **args):
        taken.append(args)
        return _snapshot(**snapshot)
    monkeypatch.setattr(tune, 'take_snapshot', take_snapshot)
    state = managed_state(scope, '/sys', '/proc')
    assert taken[0]['fstab_path'] == scope['fstab'] and taken[0]['tunefstab_path'] == scope['tunefstab']
    return state


def test_the_state_is_what_a_search_of_the_target_can_change(monkeypatch):
    scope = state_scope(['loop3'], '/mnt/xfs')
    state = _state(monkeypatch, scope)
    assert sorted(state) == ['block_queue:loop3:read_ahead_kb', 'mount_options:/mnt/xfs', 'source:/etc/fstab',
                             'source:/etc/vx/tunefstab', 'tunefstab:/mnt/xfs:read_pref_io']
    # a tunefstab that does not exist has no digest
    assert state['source:/etc/vx/tunefstab'] is None
    # a raw device: no mount point
    assert sorted(_state(monkeypatch, state_scope(['loop3'], None))) == [
        'block_queue:loop3:read_ahead_kb', 'source:/etc/fstab', 'source:/etc/vx/tunefstab']


def test_what_changes_elsewhere_leaves_the_digest(monkeypatch):
    scope = state_scope(['loop3'], '/mnt/xfs')
    before = _state(monkeypatch, scope)
    # another device's queue, another mount (a container's), a sysctl: not the search's
    after = _state(monkeypatch, scope, other_read_ahead=4096, extra_mounts=['/var/lib/docker/overlay2/x/merged'])
    assert state_digest(before) == state_digest(after) and state_differences(before, after) == []


@pytest.mark.parametrize('change, key', [
    ({'read_ahead': 64}, 'block_queue:loop3:read_ahead_kb'),
    ({'options': ('rw',)}, 'mount_options:/mnt/xfs'),
    ({'fstab': b'b\n'}, 'source:/etc/fstab'),
])
def test_a_change_in_scope_is_named(monkeypatch, change, key):
    scope = state_scope(['loop3'], '/mnt/xfs')
    before, after = _state(monkeypatch, scope), _state(monkeypatch, scope, **change)
    assert state_digest(before) != state_digest(after)
    assert state_differences(before, after) == [key]


def test_a_key_on_one_side_only_differs():
    assert state_differences({'a': 1}, {'a': 1}) == []
    assert state_differences({'a': 1}, {'a': 1, 'b': None}) == ['b']
    assert state_differences({'a': 1}, {'a': 1, 'b': 2}) == ['b']
    assert state_differences({'a': 1, 'c': 3}, {}) == ['a', 'c']


def test_a_trial_left_applied_by_a_killed_search_stops_the_next_one(tmp_path):
    # issue 55, item 18: a search after a SIGKILLed one took the still-applied candidate (4096) for the current value
    from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal, write_mark
    journal_dir = str(tmp_path / 'journal')
    assert tune.open_trials(journal_dir) == []
    Journal(journal_dir, 'tune-a-t001', 'block_queue').record('sysfs', '/sys/block/loop0/queue/read_ahead_kb', 128, 4096)
    write_mark(journal_dir, 'tune-a-t001', {'restored': 1})
    Journal(journal_dir, 'harden-1', 'block_queue').record('sysfs', '/sys/block/loop0/queue/nr_requests', 64, 128)
    assert tune.open_trials(journal_dir) == [], 'a rolled-back trial and an open harden run are not open trials'
    Journal(journal_dir, 'tune-b-t007', 'block_queue').record('sysfs', '/sys/block/loop0/queue/read_ahead_kb', 128, 4096)
    assert tune.open_trials(journal_dir) == ['tune-b-t007']
    with pytest.raises(tune.SearchError) as caught:
        tune.refuse_open_trials(journal_dir)
    assert str(caught.value) == (
        'run tune-b-t007, a candidate of a search that did not finish (killed before it was undone), is still applied: its '
        'value would be taken for the current one; ansible-playbook iotune.storage.rollback_io -e iotune_run_id=tune-b-t007 '
        'puts it back, then search again')


def test_a_candidate_the_kernel_keeps_as_another_value_is_refused():
    # issue 55, item 16: read_ahead_kb 8193 against a live 8192 was an A/A in disguise; [4097, 4096] measured one value twice
    def plan(expected, status='drift'):
        return {'checks': [{'setting': 'read_ahead_kb', 'expected': expected, 'status': status, 'message': 'm'}], 'changes': []}
    assert tune.plan_errors(plan(4096), 'settings.read_ahead_kb', queue_value=4096) == []
    assert tune.plan_errors(plan(8192, 'compliant'), 'settings.read_ahead_kb', queue_value=8193) == [
        'settings.read_ahead_kb: 8193 is kept by the kernel as 8192; give 8192 (a search measures the value the kernel keeps)']
    # a refusal of the planner is the error, not the rounding
    assert tune.plan_errors(plan(3, 'error'), 'settings.read_ahead_kb', queue_value=3) == ['settings.read_ahead_kb: m']
