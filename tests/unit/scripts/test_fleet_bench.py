# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/fleet_bench.py's ratios and goals: each run over the pings just before and after it, so that a
machine whose speed drifts during a size does not skew the ratios of the runs far from one ping."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BENCH = os.path.join(ROOT, 'bench')


def fleet_bench():
    sys.path.insert(0, BENCH)
    try:
        spec = importlib.util.spec_from_file_location('fleet_bench', os.path.join(BENCH, 'fleet_bench.py'))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(BENCH)


def times(seconds, floors, ping=None):
    keys = ('audit', 'harden1', 'harden2', 'rollback')
    result = dict(zip(keys, seconds), floor=dict(zip(keys, floors)))
    result['ping'] = ping if ping is not None else sorted(floors)[len(floors) // 2]
    return result


def test_each_run_is_divided_by_the_pings_around_it_not_by_one_ping():
    bench = fleet_bench()
    # the machine slowed down from 2 s to 4 s pings during the size: every run took 1.5 of its floor
    ratios = bench.ratios(times([3.0, 4.5, 5.25, 6.0], [2.0, 3.0, 3.5, 4.0], ping=3.0))
    assert [round(ratios[key], 2) for key in ('audit', 'harden1', 'harden2', 'rollback')] == [1.5, 1.5, 1.5, 1.5]


def test_the_goals_judge_each_ratio_and_the_growth_from_10_to_100_hosts():
    bench = fleet_bench()
    rows = [(10, times([3.0, 3.8, 3.0, 3.0], [2.0, 2.0, 2.0, 2.0])), (100, times([30.0, 38.0, 33.2, 30.0], [20.0, 20.0, 20.0, 20.0]))]
    verdicts = dict((sentence, passed) for passed, sentence in bench.goals(rows))
    assert verdicts['audit/ping at 100 hosts: 1.50 (goal <= 1.5)'] is True
    assert verdicts['second harden/ping at 100 hosts: 1.66 (goal <= 1.5)'] is False
    assert verdicts['second harden/ping from 10 to 100 hosts: 1.50 -> 1.66, +10.7 % (goal <= +10 %)'] is False
    assert verdicts['first harden/ping from 10 to 100 hosts: 1.90 -> 1.90, +0.0 % (goal <= +10 %)'] is True
    assert len(verdicts) == 12


def test_the_table_shows_the_median_ping_and_each_runs_ratio_to_its_own_floor():
    bench = fleet_bench()
    text = bench.table([(10, times([3.0, 4.5, 5.25, 6.0], [2.0, 3.0, 3.5, 4.0], ping=3.0))], markdown=True)
    assert text.splitlines()[2] == '| 10 | 3.00 s | 3.00 s (1.50x) | 4.50 s (1.50x) | 5.25 s (1.50x) | 6.00 s (1.50x) |'
