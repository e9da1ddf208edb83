# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A snapshot read back is input (issue 38, item 13): each value of a real snapshot pair turned into
each other JSON type, the diff either works or raises its documented error (SnapshotError, naming
the side and the field), never another exception.

Each position of the snapshot's shape (a path with the names its maps hold and its list indexes
generalised, a setting and a policy check by its concern, a source by its kind) is mutated in its
first instance to every other type, in one snapshot of the format 2 pair, before and after in
turn (about 2,800 mutations, seconds); IOTUNE_ALL_MUTATIONS=1 mutates every value of both
snapshots of both pairs (about 45,000 mutations, some minutes)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re

import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils._snapshot_diff import SnapshotError, diff_snapshots

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'fixtures', 'snapshot')
EVERY = os.environ.get('IOTUNE_ALL_MUTATIONS') == '1'
PAIRS = [('debian12-to-13-format2', 'pre-upgrade', 'post-upgrade-pending')] + \
    ([('debian12-to-13', 'pre-upgrade', 'post-upgrade')] if EVERY else [])
# one value of each JSON type (a huge integer and a deep-ish structure among them)
VALUES = [None, True, 7, 10 ** 400, 2.5, 'x', [], ['x', 1], {}] + ([{'a': {'b': [1]}}] if EVERY else [])
# the maps whose keys are names (generalised), and what tells their entries apart
NAMED = ('sources', 'settings', 'packages', 'conffiles', 'configs', 'scheduler_modules', 'sysctl', 'device_ids',
         'block_devices', 'mounts', 'vxtunefs')


def load(directory, name):
    with open(os.path.join(FIXTURES, directory, name + '.json')) as handle:
        return json.load(handle)


def paths(value, path=(), where=()):
    """(path, its shape) of every value under ``value``."""
    if path:
        yield path, where
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, path + (key,), where + (kind(path, key, item),))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            tell = item.get('concern') if path[-1:] == ('policy_checks',) and isinstance(item, dict) else None
            yield from paths(item, path + (index,), where + ('#%s' % (tell or ''),))


def kind(path, key, item):
    if path[-2:-1] == ('configs',):
        return '*'      # a kernel's config options
    if not path or path[-1] not in NAMED:
        return key
    if path[-1] == 'settings':
        return '%s:*' % key.split(':')[0]
    if path[-1] == 'sources' and isinstance(item, dict):
        return '*%s' % item.get('kind')
    return '*'


def chosen(snapshot, side):
    """The paths to mutate in ``snapshot`` (side 0: before, 1: after)."""
    seen = {}
    for path, where in paths(snapshot):
        seen.setdefault(where, []).append(path)
    if EVERY:
        return [path for found in seen.values() for path in found]
    return [found[0] for number, found in enumerate(seen.values()) if number % 2 == side]


def same_type(first, second):
    return type(first) is type(second) and not (isinstance(first, int) and abs(first) > 1 << 53)


def mutate_all(before, after):
    """(mutations, documented errors, [other exceptions])"""
    count, documented, others = 0, 0, []
    for side, target in enumerate((before, after)):
        for path in chosen(target, side):
            parent = target
            for key in path[:-1]:
                parent = parent[key]
            kept = parent[path[-1]]
            for value in VALUES:
                if same_type(value, kept):
                    continue
                parent[path[-1]] = value
                count += 1
                try:
                    diff_snapshots(before, after)
                except SnapshotError as exc:
                    documented += 1
                    assert re.match(r'^(before|after)[.\[:]', str(exc)), exc
                except Exception as exc:  # pylint: disable=broad-except
                    others.append((path, value, '%s: %s' % (type(exc).__name__, exc)))
                finally:
                    parent[path[-1]] = kept
    return count, documented, others


@pytest.mark.parametrize('directory, first, second', PAIRS)
def test_every_type_mutation_of_a_real_snapshot_pair_diffs_or_is_refused(directory, first, second):
    before, after = load(directory, first), load(directory, second)
    assert diff_snapshots(before, after)
    count, documented, others = mutate_all(before, after)
    print('\n%s: %d mutations, %d refused naming the field, %d other exceptions' % (directory, count, documented, len(others)))
    assert others == []
    assert count > 1000 and 0 < documented < count
    # the pair is as it was
    assert (before, after) == (load(directory, first), load(directory, second))


def test_the_error_names_the_side_and_the_field():
    before, after = load(PAIRS[0][0], PAIRS[0][1]), load(PAIRS[0][0], PAIRS[0][2])
    before['facts']['block_devices']['vdb']['schedulers'] = ['none', 7]
    with pytest.raises(SnapshotError, match=r'^before\.facts\.block_devices\.vdb\.schedulers\[1\]: an integer, where a '
                                            r'string belongs$'):
        diff_snapshots(before, after)
    after['policy_checks'] = {}
    with pytest.raises(SnapshotError, match=r'^before\.'):
        diff_snapshots(before, after)
