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
   symmetrically. Otherwise the interval says how large an effect the run could have missed (its end
   farthest from zero, ``detectable``): when that is at most ``resolution`` (25 %) the answer is
   ``no-difference`` (an effect of that size would have been seen), else ``undecided``: the noise hides
   effects that large, and ``rounds_needed`` says how many rounds the same noise would need (the
   interval narrows as the square root of the rounds). Either way the current value is kept;
3. rounds whose current-value measurements fall into two levels far apart (``split_modes``) are
   reported as two modes; a ``better`` stands only when the median effect within each mode is at
   least ``min_effect`` too, else ``inconsistent``;
4. a candidate measured from memory (the page cache, a loop device without direct I/O: measure.reach)
   never decides: ``cache-suspect``.

Pure functions, no I/O; unit tested on synthetic samples (tests/unit/.../measure/test_decide.py)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import coefficient_of_variation, median

BETTER = 'better'
WORSE = 'worse'
NO_DIFFERENCE = 'no-difference'
UNDECIDED = 'undecided'
INCONSISTENT = 'inconsistent'
CACHE_SUSPECT = 'cache-suspect'
TOO_FEW_ROUNDS = 'too-few-rounds'
OUTCOMES = (BETTER, WORSE, NO_DIFFERENCE, UNDECIDED, INCONSISTENT, CACHE_SUSPECT, TOO_FEW_ROUNDS)

DEFAULT_CONFIDENCE = 0.95
DEFAULT_MIN_EFFECT = 0.05
# "no difference" claims only what the run could have seen: an effect of this size (25 %) or more
DEFAULT_RESOLUTION = 0.25
MAX_ROUNDS_NEEDED = 1000
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


def detectable(interval):
    """The largest effect (a fraction: 0.3 is 30 %, either way) the interval (of log effects) still allows:
    an effect that large or larger the run would have seen."""
    low, high = interval
    return round(math.exp(max(high, -low)) - 1.0, 4)


def rounds_needed(rounds, interval, resolution):
    """The rounds with which the same noise would narrow the interval to ``resolution`` (it narrows as the square root
    of the rounds), at least ``rounds`` + 1, at most MAX_ROUNDS_NEEDED."""
    reach = max(interval[1], -interval[0])
    wanted = math.log(1.0 + resolution)
    if reach <= 0 or wanted <= 0:
        return rounds + 1
    return int(min(MAX_ROUNDS_NEEDED, max(rounds + 1, math.ceil(rounds * (reach / wanted) ** 2))))


def _outcome(effects, alpha, min_effect, resolution=DEFAULT_RESOLUTION):
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
    if detectable(interval) <= resolution:
        return NO_DIFFERENCE, interval
    return UNDECIDED, interval


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
          suspect=False, resolution=DEFAULT_RESOLUTION):
    """The verdict on one candidate against the baseline: a dict with ``outcome`` (OUTCOMES),
    ``rounds`` (pairs used), ``won`` and ``lost`` (rounds in which it was better, worse), ``effect``
    (median ratio candidate/baseline, >1 means better), ``interval`` (the ratio's interval),
    ``detectable`` (the largest effect the interval allows, a fraction), ``rounds_needed`` (undecided:
    the rounds the same noise would need), and with modes ``mode_effects`` (ratio per mode)."""
    effects_by_round = {}
    for index, measured in enumerate(rounds):
        effect = paired_effects([measured], candidate, baseline, higher_is_better)
        if effect:
            effects_by_round[index] = effect[0]
    effects = [effects_by_round[i] for i in sorted(effects_by_round)]
    verdict = {'candidate': candidate, 'rounds': len(effects), 'effect': _ratio(median(effects)) if effects else None,
               'interval': None, 'won': sum(1 for effect in effects if effect > 0), 'lost': sum(1 for effect in effects if effect < 0),
               'detectable': None, 'rounds_needed': None}
    if suspect:
        verdict['outcome'] = CACHE_SUSPECT
        return verdict
    outcome, interval = _outcome(effects, alpha, min_effect, resolution)
    if interval is not None:
        verdict['interval'] = [_ratio(interval[0]), _ratio(interval[1])]
        verdict['detectable'] = detectable(interval)
        if outcome == UNDECIDED:
            verdict['rounds_needed'] = rounds_needed(len(effects), interval, resolution)
    if modes is not None:
        within, holds = _within_modes(effects_by_round, modes, min_effect)
        verdict['mode_effects'] = [None if value is None else _ratio(value) for value in within]
        if outcome == BETTER and not holds:
            outcome = INCONSISTENT
    verdict['outcome'] = outcome
    return verdict


def spread(values):
    """The spread of one name's measurements over the rounds: {low, high, ratio (high / low), cv}, or None."""
    values = [value for value in values if value is not None and value > 0]
    if not values:
        return None
    return {'low': min(values), 'high': max(values), 'ratio': round(max(values) / min(values), 3),
            'cv': round(coefficient_of_variation(values), 4)}


def decide(rounds, baseline, candidates, confidence=DEFAULT_CONFIDENCE, min_effect=DEFAULT_MIN_EFFECT,
           higher_is_better=True, suspect=(), mode_gap=DEFAULT_MODE_GAP, resolution=DEFAULT_RESOLUTION):
    """The search's answer from ``rounds`` (one dict per round: name -> measured value, the
    baseline's and each candidate's): ``recommended`` (the better candidate with the largest
    effect, or None: keep the current value), ``verdicts`` (one per candidate), ``modes`` (the
    rounds of each mode, or None), ``spread`` (of the baseline's measurements) and the rule's
    parameters. ``suspect``: names measured from memory, which never decide."""
    if not 0.5 <= confidence < 1:
        raise ValueError('confidence must be at least 0.5 and below 1, got %r' % (confidence,))
    if not 0 <= min_effect < 10:
        raise ValueError('min_effect must be between 0 and 10 (a fraction: 0.05 is 5 %%), got %r' % (min_effect,))
    if not 0 < resolution < 10:
        raise ValueError('resolution must be above 0 and below 10 (a fraction: 0.25 is 25 %%), got %r' % (resolution,))
    alpha = (1.0 - confidence) / max(len(candidates), 1)
    levels = [measured.get(baseline) for measured in rounds]
    modes = split_modes(levels, mode_gap) if all(level and level > 0 for level in levels) else None
    verdicts = [judge(rounds, baseline, name, alpha, min_effect, higher_is_better, modes,
                      name in suspect or baseline in suspect, resolution)
                for name in candidates]
    better = [verdict for verdict in verdicts if verdict['outcome'] == BETTER]
    recommended = max(better, key=lambda verdict: verdict['effect'])['candidate'] if better else None
    return {'recommended': recommended, 'verdicts': verdicts, 'modes': [list(mode) for mode in modes] if modes else None,
            'baseline_suspect': baseline in suspect, 'spread': spread(levels),
            'rule': {'confidence': confidence, 'per_candidate_confidence': round(1.0 - alpha, 6), 'min_effect': min_effect,
                     'resolution': resolution, 'higher_is_better': higher_is_better, 'mode_gap': mode_gap, 'rounds': len(rounds)}}
