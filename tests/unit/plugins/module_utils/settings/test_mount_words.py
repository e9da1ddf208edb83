# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount-word table is the one place a word's meaning is written: its entries are whole, and the
algebra, the NFS recovery words, the policy's checks and the Solaris/HP-UX remount take it from there.
Every test here reads its words from the table, so a new entry is tested without editing this file."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options_unix import unix_remount
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_mount_entry
from ansible_collections.iotune.storage.plugins.module_utils.settings import mount_algebra as algebra
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_options import option_problem, shown_live
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_words import (
    MOUNT_WORDS, PLATFORM_NAMES, REMOUNT_EFFECTS, fixed_at_mount, slot_groups, words_on)
from ansible_collections.iotune.storage.plugins.module_utils.settings.nfs_options import RECOVERY

FIELDS = ('slot', 'sets', 'clears', 'opposite', 'default', 'printed', 'implies', 'also_sets', 'userspace', 'in_defaults',
          'remount')
LINUX = sorted(words_on('linux'))
UNIX = sorted(set(words_on('solaris')) | set(words_on('hpux')))
PAIRED = sorted(word for word in LINUX if MOUNT_WORDS[word].get('opposite'))


def _mount_errors(present, absent):
    errors = []
    validate_mount_entry({'path': '/data', 'present': present, 'absent': absent}, 'mount', errors)
    return errors


@pytest.mark.parametrize('word', sorted(MOUNT_WORDS))
def test_every_entry_is_whole(word):
    entry = MOUNT_WORDS[word]
    assert set(entry) <= set(FIELDS), set(entry) - set(FIELDS)
    assert entry['remount'] and set(entry['remount']) <= set(PLATFORM_NAMES)
    assert set(entry['remount'].values()) <= set(REMOUNT_EFFECTS)
    assert option_problem(word) is None, 'a word the policy would refuse'
    if 'slot' in entry and entry['slot'] is not None:
        assert entry['sets'] in (True, False, word, None)
        assert (entry['sets'] is None) == ('clears' in entry)
        assert entry.get('clears') in (None,) + tuple(MOUNT_WORDS)
    for name in entry.get('implies', ()) + entry.get('also_sets', ()) + (entry.get('opposite') or '',):
        assert not name or name in MOUNT_WORDS, name


@pytest.mark.parametrize('word', [word for word in PAIRED if shown_live(word, 'ext4')])
def test_an_opposite_ends_the_word_live_and_in_fstab(word):
    if not MOUNT_WORDS[word].get('userspace'):
        dummy, live, unresolved = algebra.plan_remount(['rw', 'relatime'], [word], [])
        words, after, unresolved = algebra.plan_remount(live, [], [word])
        assert unresolved == [] and MOUNT_WORDS[word]['opposite'] in words, (live, words, after)
    new, unresolved = algebra.edit_fstab_options(['defaults', word], [], [word])
    assert unresolved == [] and word not in new


@pytest.mark.parametrize('word', LINUX)
def test_the_algebra_takes_slot_and_meaning_from_the_table(word):
    entry = MOUNT_WORDS[word]
    if 'slot' in entry:
        assert algebra.option_slot(word) == entry['slot']
    if entry.get('userspace'):
        assert algebra.is_userspace_option(word) and word not in algebra.KERNEL_UNSHOWN
        return
    assert (word in algebra.KERNEL_UNSHOWN) == (entry.get('printed') is False)
    if entry.get('slot') is None:
        return
    alone = algebra.option_state([word], 'fstab')
    assert algebra.in_effect(word, alone), 'a word is in effect in a list of itself'
    nothing = algebra.option_state([], 'fstab')
    if entry.get('default') is not None and entry['slot'] not in algebra.CHOICE_SLOTS:
        assert algebra.in_effect(word, nothing) == entry['default']
    for implied in entry.get('implies', ()) + entry.get('also_sets', ()):
        assert algebra.in_effect(implied, alone), implied
    for implied in entry.get('implies', ()):
        assert algebra.implies(word, implied)


@pytest.mark.parametrize('word', [word for word in LINUX if not MOUNT_WORDS[word].get('userspace')
                                  and MOUNT_WORDS[word].get('slot') and shown_live(word, 'ext4')])
def test_a_remount_to_each_word_converges_from_the_defaults(word):
    words, after, unresolved = algebra.plan_remount(['rw', 'relatime'], [word], [])
    assert unresolved == [], (words, after)


def test_defaults_stands_for_the_table_words_in_their_order():
    assert algebra.DEFAULTS_EXPANSION == tuple(word for word in MOUNT_WORDS if MOUNT_WORDS[word].get('in_defaults'))
    state = algebra.option_state(['defaults'], 'fstab')
    assert all(algebra.in_effect(word, state) for word in algebra.DEFAULTS_EXPANSION)


def test_the_nfs_recovery_words_are_the_slot_of_the_table():
    assert RECOVERY == tuple(word for word in LINUX if MOUNT_WORDS[word].get('slot') == 'nfs-recovery') and RECOVERY
    for word in RECOVERY:
        state = algebra.option_state(list(RECOVERY[:1]) + [word], 'fstab')
        assert [algebra.in_effect(other, state) for other in RECOVERY] == [other == word for other in RECOVERY]


@pytest.mark.parametrize('word', [word for word in LINUX if algebra.replacements(word)])
def test_a_default_no_word_ends_is_refused_in_absent_naming_its_replacements(word):
    errors = _mount_errors([], [word])
    assert len(errors) == 1 and "'%s' is the kernel default" % word in errors[0]
    assert all(other in errors[0] for other in algebra.replacements(word))
    for other in algebra.replacements(word):
        assert _mount_errors([other], []) == []


@pytest.mark.parametrize('platform', ['solaris', 'hpux'])
def test_the_unix_remount_keeps_one_word_per_slot(platform):
    groups = slot_groups(platform)
    assert groups and all(len(group) > 1 for group in groups)
    for group in groups:
        for chosen in group:
            if chosen in fixed_at_mount(platform):
                continue
            others = [word for word in group if word != chosen]
            after, unresolved = unix_remount(others[:1] + ['rw' if 'rw' not in group else 'nosuid'], [chosen], [], platform)
            assert chosen in after and not set(others) & set(after) and unresolved == [], (group, chosen, after)


@pytest.mark.parametrize('platform', ['solaris', 'hpux'])
def test_words_fixed_at_mount_stay_and_are_named(platform):
    for word in fixed_at_mount(platform):
        group = [members for members in slot_groups(platform) if word in members][0]
        other = [member for member in group if member != word][0]
        after, unresolved = unix_remount([other, 'rw'], [word], [], platform)
        assert after == [] and unresolved == [word]


def test_unix_words_come_from_the_table():
    assert UNIX and all(set(MOUNT_WORDS[word]['remount']) & {'solaris', 'hpux'} for word in UNIX)


@pytest.mark.parametrize('word', UNIX)
def test_the_policy_takes_every_solaris_and_hpux_word(word):
    assert _mount_errors([word], []) == []
