# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The decision rule of a measured search (tune_io, docs/tuning.md): is a candidate value better
than the current one beyond the noise?

Each round measures every candidate and the current value once, in a shuffled order. A
candidate's evidence is its *paired effect* per round, log(candidate / current) (negated when
lower is better, for latency), so a slow spell that lasts a round moves both sides of a pair
alike. The rule:

1. the median paired effect has a distribution-free confidence interval from the order
   statistics (the sign test's interval; it assumes no shape of the noise, only that a round's
   difference is as likely above as below its median). The confidence is shared among the
   candidates (Bonferroni), so more candidates need more rounds (``min_rounds``);
2. a candidate is ``better`` only when the whole interval is above zero *and* its median effect
   is at least ``min_effect`` (5 %: a gain smaller than that is not worth a change); ``worse``
   symmetrically; anything else is ``no-difference``: keep the current value;
3. rounds whose current-value measurements fall into two levels far apart (``split_modes``) are
   reported as two modes; a ``better`` stands only when the median effect within each mode is at
   least ``min_effect`` too, else ``inconsistent``;
4. a candidate measured from the page cache (the cache guard) never decides: ``cache-suspect``.

Pure functions, no I/O; unit tested on synthetic samples (tests/unit/.../measure/test_decide.py)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import median

BETTER = 'better'
WORSE = 'worse'
NO_DIFFERENCE = 'no-difference'
INCONSISTENT = 'inconsistent'
CACHE_SUSPECT = 'cache-suspect'
TOO_FEW_ROUNDS = 'too-few-rounds'
OUTCOMES = (BETTER, WORSE, NO_DIFFERENCE, INCONSISTENT, CACHE_SUSPECT, TOO_FEW_ROUNDS)

DEFAULT_CONFIDENCE = 0.95
DEFAULT_MIN_EFFECT = 0.05
# two levels of the current value at least this far apart (35 %), each much wider apart than
# within itself, are two modes (the lab VM's disk runs at ~1.4 or ~2.2 GB/s for several runs)
DEFAULT_MODE_GAP = 0.35
MODE_SPREAD_RATIO = 2.0
MIN_MODE_ROUNDS = 2


def _binomial_cdf(k, n):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    return sum(math.factorial(n) // (math.factorial(i) * math.factorial(n - i)) for i in range(0, min(k, n) + 1)) / 2.0 ** n


def order_statistic_rank(n, alpha):
    """The largest rank j (1-based) such that [x_(j), x_(n-j+1)] covers the median with
    probability at least 1 - alpha, or None when n values are too few for that confidence."""
    best = None
    for j in range(1, n // 2 + 1):
        if 2 * _binomial_cdf(j - 1, n) <= alpha:
            best = j
        else:
            break
    return best


def min_rounds(confidence=DEFAULT_CONFIDENCE, candidates=1):
    """The fewest rounds with which a candidate's interval can exclude zero at ``confidence``
    shared among ``candidates`` (6 for one candidate at 95 %, 7 for two or three)."""
    alpha = (1.0 - confidence) / max(candidates, 1)
    n = 1
    while order_statistic_rank(n, alpha) is None:
        n += 1
    return n


def median_interval(values, alpha):
    """(low, high) of the distribution-free interval of the median, or None when too few."""
    ordered = sorted(values)
    rank = order_statistic_rank(len(ordered), alpha)
    if rank is None:
        return None
    return ordered[rank - 1], ordered[len(ordered) - rank]


def split_modes(levels, mode_gap=DEFAULT_MODE_GAP):
    """Indexes of ``levels`` (positive numbers, one per round) in two modes, or None when they
    form one: the widest gap between sorted log levels must be at least log(1 + mode_gap) and
    MODE_SPREAD_RATIO times the spread within either side, each side MIN_MODE_ROUNDS or more."""
    if len(levels) < 2 * MIN_MODE_ROUNDS:
        return None
    logs = sorted((math.log(level), index) for index, level in enumerate(levels))
    gaps = [(logs[i + 1][0] - logs[i][0], i) for i in range(MIN_MODE_ROUNDS - 1, len(logs) - MIN_MODE_ROUNDS)]
    if not gaps:
        return None
    gap, cut = max(gaps)
    low, high = logs[:cut + 1], logs[cut + 1:]
    spread = max(low[-1][0] - low[0][0], high[-1][0] - high[0][0])
    if gap < math.log(1.0 + mode_gap) or gap < MODE_SPREAD_RATIO * spread:
        return None
    return sorted(index for dummy, index in low), sorted(index for dummy, index in high)


def paired_effects(rounds, candidate, baseline, higher_is_better=True):
    """log(candidate / baseline) of each round that measured both (negated when lower is better)."""
    effects = []
    for measured in rounds:
        a, b = measured.get(candidate), measured.get(baseline)
        if a is None or b is None or a <= 0 or b <= 0:
            continue
        effect = math.log(a / b)
        effects.append(effect if higher_is_better else -effect)
    return effects


def _ratio(effect):
    return round(math.exp(effect), 4)


def _outcome(effects, alpha, min_effect):
    interval = median_interval(effects, alpha)
    if interval is None:
        return TOO_FEW_ROUNDS, None
    low, high = interval
    middle = median(effects)
    threshold = math.log(1.0 + min_effect)
    if low > 0 and middle >= threshold:
        return BETTER, interval
    if high < 0 and middle <= -threshold:
        return WORSE, interval
    return NO_DIFFERENCE, interval


def _within_modes(effects_by_round, modes, min_effect):
    """The median effect within each mode (None when a mode has no pair)."""
    found = []
    for indexes in modes:
        inside = [effects_by_round[i] for i in indexes if effects_by_round.get(i) is not None]
        found.append(median(inside) if inside else None)
    threshold = math.log(1.0 + min_effect)
    holds = all(value is not None and value >= threshold for value in found)
    return found, holds


def judge(rounds, baseline, candidate, alpha, min_effect=DEFAULT_MIN_EFFECT, higher_is_better=True, modes=None,
          suspect=False):
    """The verdict on one candidate against the baseline: a dict with ``outcome`` (OUTCOMES),
    ``rounds`` (pairs used), ``effect`` (median ratio candidate/baseline, >1 means better),
    ``interval`` (the ratio's interval), and with modes ``mode_effects`` (ratio per mode)."""
    effects_by_round = {}
    for index, measured in enumerate(rounds):
        effect = paired_effects([measured], candidate, baseline, higher_is_better)
        if effect:
            effects_by_round[index] = effect[0]
    effects = [effects_by_round[i] for i in sorted(effects_by_round)]
    verdict = {'candidate': candidate, 'rounds': len(effects), 'effect': _ratio(median(effects)) if effects else None,
               'interval': None}
    if suspect:
        verdict['outcome'] = CACHE_SUSPECT
        return verdict
    outcome, interval = _outcome(effects, alpha, min_effect)
    if interval is not None:
        verdict['interval'] = [_ratio(interval[0]), _ratio(interval[1])]
    if modes is not None:
        within, holds = _within_modes(effects_by_round, modes, min_effect)
        verdict['mode_effects'] = [None if value is None else _ratio(value) for value in within]
        if outcome == BETTER and not holds:
            outcome = INCONSISTENT
    verdict['outcome'] = outcome
    return verdict


def decide(rounds, baseline, candidates, confidence=DEFAULT_CONFIDENCE, min_effect=DEFAULT_MIN_EFFECT,
           higher_is_better=True, suspect=(), mode_gap=DEFAULT_MODE_GAP):
    """The search's answer from ``rounds`` (one dict per round: name -> measured value, the
    baseline's and each candidate's): ``recommended`` (the better candidate with the largest
    effect, or None: keep the current value), ``verdicts`` (one per candidate), ``modes`` (the
    rounds of each mode, or None) and the rule's parameters. ``suspect``: names measured from the
    page cache, which never decide."""
    if not 0.5 <= confidence < 1:
        raise ValueError('confidence must be at least 0.5 and below 1, got %r' % (confidence,))
    if not 0 <= min_effect < 10:
        raise ValueError('min_effect must be between 0 and 10 (a fraction: 0.05 is 5 %%), got %r' % (min_effect,))
    alpha = (1.0 - confidence) / max(len(candidates), 1)
    levels = [measured.get(baseline) for measured in rounds]
    modes = split_modes(levels, mode_gap) if all(level and level > 0 for level in levels) else None
    verdicts = [judge(rounds, baseline, name, alpha, min_effect, higher_is_better, modes,
                      name in suspect or baseline in suspect)
                for name in candidates]
    better = [verdict for verdict in verdicts if verdict['outcome'] == BETTER]
    recommended = max(better, key=lambda verdict: verdict['effect'])['candidate'] if better else None
    return {'recommended': recommended, 'verdicts': verdicts, 'modes': [list(mode) for mode in modes] if modes else None,
            'baseline_suspect': baseline in suspect,
            'rule': {'confidence': confidence, 'per_candidate_confidence': round(1.0 - alpha, 6), 'min_effect': min_effect,
                     'higher_is_better': higher_is_better, 'mode_gap': mode_gap, 'rounds': len(rounds)}}
