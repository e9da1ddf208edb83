# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What mount options mean: which options set the same thing (slots), which one an
option implies, what is in effect for an option list, and the words a remount needs.

Policy validation, the mount_options planner and the remount of apply and rollback
all use this one algebra; pure, no I/O.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.units import to_bytes
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_words import words_on

LINUX_WORDS = words_on('linux')
# Options whose meaning is a boolean of one "slot": word -> (slot, the value it gives the slot).
BOOL_OPTIONS = dict((word, (entry['slot'], entry['sets'])) for word, entry in LINUX_WORDS.items()
                    if isinstance(entry.get('sets'), bool))
# The atime mode's words, and those that clear one of them (norelatime).
ATIME_OPTIONS = tuple(word for word, entry in LINUX_WORDS.items()
                      if entry.get('slot') == 'atime' or LINUX_WORDS.get(entry.get('clears'), {}).get('slot') == 'atime')
# Slots that hold one of several words (the NFS recovery): slot -> its words.
CHOICE_SLOTS = {}
for _word, _entry in LINUX_WORDS.items():
    if _entry.get('sets') == _word and _entry['slot'] != 'atime':
        CHOICE_SLOTS[_entry['slot']] = CHOICE_SLOTS.get(_entry['slot'], ()) + (_word,)
CHOICE_WORDS = dict((word, slot) for slot, words in CHOICE_SLOTS.items() for word in words)
# What "defaults" stands for in fstab (mount(8)).
DEFAULTS_EXPANSION = tuple(word for word, entry in LINUX_WORDS.items() if entry.get('in_defaults'))
# Options only mount(8)/systemd read; the kernel never shows them in mountinfo.
USERSPACE_OPTIONS = tuple(word for word, entry in LINUX_WORDS.items() if entry.get('userspace'))
USERSPACE_PREFIXES = ('x-', 'comment=')
# The word that turns an option off, used to remove it live (remount) or when
# it is in effect only by default (``defaults`` -> async: add ``sync``).
OPPOSITES = dict((word, entry['opposite']) for word, entry in LINUX_WORDS.items() if entry.get('opposite'))
# Words that only restore a default; mountinfo never shows them.
KERNEL_UNSHOWN = tuple(word for word, entry in LINUX_WORDS.items()
                       if entry.get('printed') is False and not entry.get('userspace'))
_FLAG_DEFAULTS = dict((entry['slot'], False) for word, entry in LINUX_WORDS.items()
                      if isinstance(entry.get('sets'), bool) and not entry.get('userspace'))
_USERSPACE_SLOTS = tuple(sorted(set(entry['slot'] for word, entry in LINUX_WORDS.items()
                                    if isinstance(entry.get('sets'), bool) and entry.get('userspace'))))
# word -> the words that put it in effect whatever else the list says (nodiratime <- noatime)
IMPLIED_BY = {}
for _word, _entry in LINUX_WORDS.items():
    for _implied in _entry.get('implies', ()):
        IMPLIED_BY[_implied] = IMPLIED_BY.get(_implied, ()) + (_word,)


def split_option(option):
    """``'commit=60'`` -> ``('commit', '60')``; ``'noatime'`` -> ``('noatime', None)``."""
    key, sep, value = option.partition('=')
    return (key, value) if sep else (option, None)


def is_userspace_option(option):
    """True for options only mount(8) or systemd read (never shown in mountinfo)."""
    return option in USERSPACE_OPTIONS or option.startswith(USERSPACE_PREFIXES)


def flag_base(word):
    """Generic file-system flag and its polarity: ``nodiscard`` -> ('discard', False)."""
    if word.startswith('no') and len(word) > 2:
        return word[2:], False
    return word, True


def option_slot(option):
    """What an option sets: options with the same slot replace each other.

    ``commit=5`` and ``commit=60`` share ``commit=``; ``noatime`` and
    ``relatime`` share ``atime``; ``ro``/``rw`` share ``ro``; generic flags
    share their name without ``no`` (``discard``/``nodiscard``).  None for
    ``defaults``, which sets several slots."""
    key, value = split_option(option)
    if value is not None:
        return key + '='
    if 'slot' in LINUX_WORDS.get(option, {}):
        return LINUX_WORDS[option]['slot']
    return 'flag:' + flag_base(option)[0]


def replacements(option):
    """The words that end ``option`` when it is a default no single word ends (``relatime``: noatime or
    strictatime; ``hard``: soft or softerr); empty for any other option, which can just be removed."""
    entry = LINUX_WORDS.get(option, {})
    if not entry.get('default') or entry.get('opposite') or entry.get('sets') != option:
        return ()
    return tuple(word for word, other in LINUX_WORDS.items()
                 if other.get('slot') == entry['slot'] and other.get('sets') == word and word != option)


def values_equal(left, right):
    """Values of a key=value option compare as text, or as sizes when both are sizes
    (``logbsize=32k`` equals ``logbsize=32768``)."""
    if left == right:
        return True
    try:
        return to_bytes(left) == to_bytes(right)
    except ValueError:
        return False


def options_equal(left, right):
    """Two option words mean the same (sizes compared as sizes)."""
    lkey, lvalue = split_option(left)
    rkey, rvalue = split_option(right)
    if lkey != rkey or (lvalue is None) != (rvalue is None):
        return False
    return lvalue is None or values_equal(lvalue, rvalue)


def absent_matches(absent, option):
    """True when ``option`` (one word of an option list) is what ``absent`` forbids.

    A bare key forbids every value of it: absent ``mincache`` matches
    ``mincache=direct``."""
    if options_equal(absent, option):
        return True
    key, value = split_option(absent)
    return value is None and split_option(option)[0] == key and split_option(option)[1] is not None


def implies(present, absent):
    """True when having ``present`` puts ``absent`` in effect (same option,
    a bare key of it, or a word the table says it implies: ``noatime`` -> ``nodiratime``)."""
    if absent_matches(absent, present):
        return True
    return present in IMPLIED_BY.get(absent, ())


def option_state(options, source):
    """What an option list means.  ``source`` is ``live`` (mountinfo: the kernel
    prints every set flag) or ``fstab`` (mount(8) defaults apply)."""
    flags = dict(_FLAG_DEFAULTS)
    # mount(8)'s own flags are unknown live (None): the kernel never sees them
    flags.update((slot, False if source == 'fstab' else None) for slot in _USERSPACE_SLOTS)
    noatime = strict = False
    kv = {}
    words = {}
    for option in options:
        key, value = split_option(option)
        if value is not None:
            kv[key] = value
        elif option == 'defaults':
            for word in DEFAULTS_EXPANSION:
                slot, setting = BOOL_OPTIONS[word]
                if flags.get(slot) is not None:
                    flags[slot] = setting
        elif option in BOOL_OPTIONS:
            slot, setting = BOOL_OPTIONS[option]
            if flags.get(slot, False) is None:
                continue
            flags[slot] = setting
            for word in LINUX_WORDS[option].get('also_sets', ()):
                flags[BOOL_OPTIONS[word][0]] = BOOL_OPTIONS[word][1]
        elif option in ATIME_OPTIONS:
            if option == 'noatime':
                noatime = True
            elif option == 'atime':
                noatime = False
            elif option == 'strictatime':
                strict = True
            elif option == 'nostrictatime':
                strict = False
            elif option in ('relatime', 'norelatime'):
                words['relatime'] = option == 'relatime'
        elif option in CHOICE_WORDS:
            words.update((word, word == option) for word in CHOICE_SLOTS[CHOICE_WORDS[option]])
        else:
            base, polarity = flag_base(option)
            words[base] = polarity
    if source == 'live':
        atime = 'noatime' if 'noatime' in options else 'relatime' if 'relatime' in options else 'strictatime'
    else:
        # the kernel defaults to relatime unless noatime or strictatime is given
        atime = 'strictatime' if strict else 'noatime' if noatime else 'relatime'
    return {'source': source, 'flags': flags, 'atime': atime, 'kv': kv, 'words': words}


def in_effect(option, state):
    """True/False whether ``option`` is in effect in ``state``; None when the
    source cannot show it (mount(8)-only options live)."""
    if state['source'] == 'live' and is_userspace_option(option):
        return None
    key, value = split_option(option)
    if value is not None:
        return key in state['kv'] and values_equal(state['kv'][key], value)
    if option in BOOL_OPTIONS and (IMPLIED_BY.get(option) or IMPLIED_BY.get(OPPOSITES.get(option))):
        # a flag an atime mode implies (nodiratime under noatime), or its opposite
        flag = option if option in IMPLIED_BY else OPPOSITES[option]
        on = state['flags'][BOOL_OPTIONS[flag][0]] or state['atime'] in IMPLIED_BY[flag]
        return on if option == flag else not on
    if option in BOOL_OPTIONS:
        slot, setting = BOOL_OPTIONS[option]
        current = state['flags'].get(slot)
        return None if current is None else current == setting
    if option == 'norelatime' and state['source'] == 'fstab':
        # the kernel mounts relatime all the same (it never shows norelatime): the word itself
        return state['words'].get('relatime') is False
    if option in ATIME_OPTIONS:
        atime = state['atime']
        return {
            'noatime': atime == 'noatime',
            'atime': atime != 'noatime',
            'relatime': atime == 'relatime',
            'norelatime': atime != 'relatime',
            'strictatime': atime == 'strictatime',
            'nostrictatime': atime != 'strictatime',
        }[option]
    if option in state['kv']:
        return True  # a bare key of a key=value option (absent: mincache)
    base, polarity = flag_base(option)
    return base in state['words'] and state['words'][base] == polarity


def _put(options, option):
    """Set ``option`` in the list: replace the first option of the same slot
    (and drop the other ones), else append."""
    slot = option_slot(option)
    same = [index for index, other in enumerate(options) if slot is not None and option_slot(other) == slot]
    if not same:
        options.append(option)
        return
    options[same[0]] = option
    for index in reversed(same[1:]):
        del options[index]


def _put_present(options, present, source='fstab'):
    """Put each option of ``present`` that is not in effect into the list ``options``; the words put."""
    words = []
    for option in present:
        if in_effect(option, option_state(options, source)) is False:
            _put(options, option)
            words.append(option)
    return words


def edit_fstab_options(options, present, absent):
    """The fstab option list with ``present`` in effect and ``absent`` not,
    every other option kept in order.  Returns (new list, unresolved options).
    ``present`` is put again after ``absent`` is taken out: taking out ``user``
    or ``noatime`` ends the noexec or nodiratime they implied, which one run
    must put back (a second run would, else)."""
    new = list(options)
    _put_present(new, present)
    for option in absent:
        if in_effect(option, option_state(new, 'fstab')):
            new = [other for other in new if not absent_matches(option, other)]
            if in_effect(option, option_state(new, 'fstab')) and option in OPPOSITES:
                _put(new, OPPOSITES[option])
    _put_present(new, present)
    state = option_state(new, 'fstab')
    unresolved = [option for option in present if not in_effect(option, state)]
    unresolved += [option for option in absent if in_effect(option, state)]
    return new, unresolved


ATIME_MODES = ('noatime', 'relatime', 'strictatime')
# the words that reach the kernel as an atime flag (MS_NOATIME, MS_NODIRATIME, MS_RELATIME,
# MS_STRICTATIME); atime, diratime, norelatime and nostrictatime only clear one in mount(8)
ATIME_FLAG_WORDS = ('noatime', 'nodiratime', 'relatime', 'strictatime')


def atime_after(state, words):
    """(atime mode, nodiratime flag) of a live ``state`` once ``words`` are in effect."""
    mode, nodiratime = state['atime'], state['flags']['nodiratime']
    for word in words:
        if word in ATIME_MODES:
            mode = word
        elif (word, mode) in (('atime', 'noatime'), ('nostrictatime', 'strictatime')):
            mode = 'relatime'  # the kernel's default mode
        elif word in ('diratime', 'nodiratime'):
            nodiratime = word == 'nodiratime'
    return mode, nodiratime


def name_atime_flags(state, words):
    """``words`` with the atime mode and nodiratime named together whenever a remount changes either.

    The kernel keeps a mount's atime flags (noatime, nodiratime, relatime) on a remount that sets
    none of MS_NOATIME, MS_NODIRATIME, MS_RELATIME, MS_STRICTATIME, and takes all of them from the
    remount's flags when it sets one (fs/namespace.c path_mount, "The default atime for remount is
    preservation"): ``remount,diratime`` alone keeps nodiratime, ``remount,nodiratime`` alone ends
    noatime and strictatime.  Seen on Linux 6.18 with loop mounts."""
    mode, nodiratime = atime_after(state, words)
    spots = [index for index, word in enumerate(words) if option_slot(word) in ('atime', 'nodiratime')]
    others = [word for index, word in enumerate(words) if index not in spots]
    if (mode, nodiratime) == (state['atime'], state['flags']['nodiratime']):
        return others
    # "atime" clears the noatime of libmount's own flags (harmless when it has none)
    named = ['atime'] if state['atime'] == 'noatime' and mode == 'relatime' else []
    named.append(mode)
    if nodiratime:
        named.append('nodiratime')
    elif state['flags']['nodiratime']:
        named.insert(0, 'diratime')
    return others[:spots[0]] + named + others[spots[0]:]


def contradicts(present, absent):
    """True when no mount can have every option of ``present`` in effect and none of ``absent``, though it
    can have each option alone: the fstab edit of a list that has none of them leaves one unresolved (``strictatime`` and ``relatime``
    put ``atime`` in effect, ``noatime`` puts ``nodiratime``, no ``diratime`` without ``atime``, so
    not with ``noatime`` either)."""
    def unresolved(present, absent):
        return bool(edit_fstab_options([], present, absent)[1])
    alone = any(unresolved([option], []) for option in present) or any(unresolved([], [option]) for option in absent)
    return unresolved(present, absent) and not alone


def _remounted(live, words):
    """The live option list after a remount with ``words``, as the kernel prints it: words that only
    restore a default are not shown."""
    after = list(live)
    for word in words:
        _put(after, word)
    return [word for word in after if word not in KERNEL_UNSHOWN]


def plan_remount(live, present, absent):
    """Options to pass with ``remount`` so that the live mount matches.

    Returns (remount words, simulated live options after, unresolved options).
    A key=value option cannot be dropped by a remount unless ``present`` gives
    the key another value; such options are unresolved (unmount and mount).
    The words were checked with mount(8) of util-linux 2.38 on Linux 6.18: async
    ends sync, rw ends ro, suid/dev/exec end their no* forms; the atime flags
    change only together (name_atime_flags)."""
    state = option_state(live, 'live')
    words = [option for option in present if in_effect(option, state) is False]
    for option in absent:
        # judged on the mount as the words so far leave it: strictatime ends nostrictatime, and
        # leaving noatime brings back the diratime noatime implied off
        now = option_state(_remounted(live, name_atime_flags(state, words)), 'live')
        if in_effect(option, now) and option in OPPOSITES:
            words.append(OPPOSITES[option])
    # an opposite put for absent can end what present had by implication (noatime's nodiratime)
    words += _put_present(_remounted(live, name_atime_flags(state, words)), present, 'live')
    words = name_atime_flags(state, words)
    after = _remounted(live, words)
    state = option_state(after, 'live')
    unresolved = [option for option in present if in_effect(option, state) is False]
    unresolved += [option for option in absent if in_effect(option, state)]
    return words, after, unresolved
