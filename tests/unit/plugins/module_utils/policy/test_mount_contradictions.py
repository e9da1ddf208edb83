# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 38 item 5: option pairs across present and absent that no mount can satisfy are refused by
the policy validation (the io_policy action plugin's and the mount_options module's), naming both
fields; every pair it accepts converges in one run."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import itertools

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_mount_entry, validate_policy
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import (
    contradicts, edit_fstab_options, plan_remount)
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_options import shown_live


def _shown(options):
    """The options the planner remounts (norelatime is never shown live: fstab only)."""
    return [option for option in options if shown_live(option, 'ext4')]


def _errors(present, absent):
    return validate_policy({'iotune_mounts': [{'path': '/data', 'present': present, 'absent': absent}]})


@pytest.mark.parametrize('present, absent, message', [
    (['strictatime'], ['atime'], "iotune_mounts[0].present[0] 'strictatime' and iotune_mounts[0].absent[0] 'atime' "
                                 "contradict each other: no mount can have 'strictatime' without 'atime' (keep one)"),
    (['relatime'], ['atime'], "iotune_mounts[0].present[0] 'relatime' and iotune_mounts[0].absent[0] 'atime' "
                              "contradict each other"),
    (['nosuid', 'diratime'], ['sync', 'atime'], "iotune_mounts[0].present[1] 'diratime' and iotune_mounts[0].absent[1] "
                                                "'atime' contradict each other: no mount can have 'diratime' without 'atime'"),
    (['strictatime'], ['norelatime'], None),
    (['atime'], ['strictatime'], None),
    (['strictatime'], ['nostrictatime'], None),
    (['noatime'], ['diratime'], None),
    (['nodiratime'], ['diratime'], None),
    (['user'], ['exec'], None),
    (['user'], ['noexec'], None),
    (['sync'], ['async'], None),
    (['noexec'], ['atime'], None),
    (['commit=5'], ['commit=60'], None),
    # within present: noatime implies nodiratime
    (['noatime', 'diratime'], [], "iotune_mounts[0].present[0] 'noatime' and iotune_mounts[0].present[1] 'diratime' "
                                  "contradict each other: no mount can have both (keep one)"),
    (['noatime', 'nodiratime'], [], None),
    (['noatime', 'norelatime'], [], None),
    (['user', 'exec'], [], None),
    # already refused with their own sentences
    (['noatime'], ['nodiratime'], "option 'noatime' in present puts 'nodiratime', which is in absent, in effect"),
    (['noatime'], ['noatime'], "option 'noatime' is in both present and absent"),
])
def test_contradictions_across_lists(present, absent, message):
    errors = _errors(present, absent)
    if message is None:
        assert errors == []
    else:
        assert len(errors) == 1 and message in errors[0], errors


def test_the_module_refuses_them_too():
    errors = []
    validate_mount_entry({'path': '/data', 'present': ['strictatime'], 'absent': ['atime']}, 'mounts[0]', errors)
    assert errors == ["mounts[0].present[0] 'strictatime' and mounts[0].absent[0] 'atime' contradict each other: "
                      "no mount can have 'strictatime' without 'atime' (keep one)"]


VOCABULARY = ('atime', 'noatime', 'relatime', 'strictatime', 'nostrictatime', 'diratime', 'nodiratime', 'norelatime',
              'lazytime', 'nolazytime', 'sync', 'async', 'ro', 'rw', 'exec', 'noexec', 'user', 'nouser')
LIVES = (['rw', 'relatime'], ['rw', 'noatime'], ['rw'], ['rw', 'nodiratime', 'relatime'], ['ro', 'noatime', 'nodiratime'],
         ['rw', 'relatime', 'sync', 'lazytime'])
FSTABS = ([], ['defaults'], ['noatime'], ['strictatime', 'nodiratime'], ['user', 'sync'])


@pytest.mark.parametrize('present, absent', [pair for pair in itertools.product(VOCABULARY, VOCABULARY)
                                             if pair[0] != pair[1]])
def test_every_pair_the_validation_accepts_converges_in_one_run(present, absent):
    """The symptom of item 5: a harden that flips between runs. Every accepted pair, from every live
    option list and fstab entry here, needs nothing more on a second run; a refused pair is one the
    planner cannot satisfy even from an empty fstab entry."""
    if _errors([present], [absent]):
        assert contradicts([present], [absent]) or present == 'noatime' and absent == 'nodiratime' \
            or absent == 'relatime'
        return
    for live in LIVES:
        words, after, unresolved = plan_remount(live, _shown([present]), _shown([absent]))
        assert plan_remount(after, _shown([present]), _shown([absent]))[0] == [], (live, words, after)
    for fstab in FSTABS:
        new, unresolved = edit_fstab_options(fstab, [present], [absent])
        assert edit_fstab_options(new, [present], [absent])[0] == new
        assert unresolved == [] or fstab, (fstab, new, unresolved)


@pytest.mark.parametrize('first, second', list(itertools.combinations(VOCABULARY, 2)))
def test_every_present_pair_the_validation_accepts_converges_in_one_run(first, second):
    if _errors([first, second], []):
        return
    for live in LIVES:
        words, after, unresolved = plan_remount(live, _shown([first, second]), [])
        assert plan_remount(after, _shown([first, second]), [])[0] == [], (live, words, after)
    for fstab in FSTABS:
        new, unresolved = edit_fstab_options(fstab, [first, second], [])
        assert edit_fstab_options(new, [first, second], [])[0] == new
        assert unresolved == [] or fstab, (fstab, new, unresolved)
