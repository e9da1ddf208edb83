# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The search driver: rounds in their shuffled orders, the budget checked before each round, the
cache guard's flags kept; and a trial undoes its candidate when the measurement fails."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.engine.tune import run_rounds
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
