# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount_options decision: checks and intended changes; pure, no AnsibleModule.

For every (mount point, option) of the request the planner says whether the
option is in effect live (``/proc/self/mountinfo``) and persistently (the
fstab entry), comparing semantically:

- ``defaults`` in fstab stands for rw,suid,dev,exec,auto,nouser,async;
- ``relatime`` is the kernel default: an fstab without atime options means
  relatime; live, the kernel always prints relatime or noatime, so neither
  means strictatime;
- ``noatime`` implies ``nodiratime``; ``async``, ``rw``, ``suid``, ``dev`` and
  ``exec`` are what the absence of their opposites means;
- key=value options compare by key and value, values as sizes where both are
  sizes (``logbsize=32k`` == ``logbsize=32768``); a bare key in ``absent``
  (``mincache``) forbids every value of it.  VxFS options (``mincache=direct``,
  ``delaylog``...) are ordinary options;
- options only mount(8) reads (``nofail``, ``_netdev``, ``noauto``, ``x-*``...)
  have no live side.

The same plan carries the changes an apply run makes (the new fstab option
list and text, the remount options), so check mode and apply cannot differ.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import ERROR, NOT_APPLICABLE, make_check, status_of
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import FstabIndex, normalize_mount_point, parse_fstab, render
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import parse_mountinfo, visible_mounts
from ansible_collections.iotune.storage.plugins.module_utils.parse.holders import describe_holders, mount_holders
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import (
    edit_fstab_options, in_effect, is_userspace_option, option_state, plan_remount, split_option)
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_options import (
    CHANGES, REFUSED, hidden_defaults, live_remount, shown_live)
from ansible_collections.iotune.storage.plugins.module_utils.settings.nfs_options import (
    CHANGES, MOUNT_ONLY, is_nfs, negotiated_lower, nfs_in_effect, remount_effect, remount_source)

CONCERN = 'mount_options'


def _show(options):
    return ','.join(options) if options else '(none)'


def _message(path, option, want, live, persistent, info, unresolved, remount_fixes=True):
    """A sentence about one (path, option) check; ``remount_fixes`` is False when
    a remount cannot correct the live side (``unresolved`` says what to do)."""
    remount = 'a remount would %s it' % ('apply' if want else 'remove') if remount_fixes else ''
    # Solaris' table is vfstab; Linux's and HP-UX's are fstab
    table = 'vfstab' if info['fstab_path'].endswith('vfstab') else 'fstab'

    if not info['mounted']:
        first = '%s is not mounted' % path
        name = option
    elif live is None and is_userspace_option(option):
        first = '%s is a mount(8) option the kernel does not show' % option
        name = 'it'
    elif live is None:
        first = '%s is never shown in /proc/self/mountinfo: unverifiable live on %s' % (option, path)
        name = 'it'
    else:
        first = '%s is %s on %s (live: %s)' % (option, 'in effect' if live else 'not in effect', path,
                                               _show(info['live_options']))
        name = 'it'
    if info['in_fstab']:
        second = '%s %s %s (%s)' % (table, 'has' if persistent else 'does not have', name, _show(info['fstab_options']))
    elif info['fstab_present']:
        second = '%s is not in %s' % (path, info['fstab_path'])
    else:
        second = 'there is no %s' % info['fstab_path']
    live_ok = None if live is None else live == want
    persistent_ok = persistent == want if info['in_fstab'] else False
    if live_ok is not False and persistent_ok:
        consequence = ''
    elif not info['in_fstab']:
        if path == '/':
            consequence = "at boot the root file system gets only the kernel's rootflags="
        else:
            consequence = 'the mount does not come back at boot' if info['mounted'] else ''
        if live_ok is False and remount:
            consequence = '%s, and %s' % (remount, consequence)
    elif live_ok is False and persistent_ok:
        consequence = remount
    elif live_ok is False:
        consequence = 'both %s and the live mount need changing' % table
    elif live_ok is None:
        consequence = 'the %s entry needs changing' % table
    else:
        consequence = 'it is lost at the next mount' if want else 'it comes back at the next mount'
    sentence = '%s; %s' % (first, second)
    if consequence:
        sentence += ': ' + consequence
    for more in (unresolved, _rollback_limit(info, option, want)):
        sentence += '; ' + more if more else ''
    return sentence


def _check(path, option, want, status, live, persistent, message):
    expected = 'present' if want else 'absent'
    return make_check(CONCERN, path, '%s:%s' % (expected, option), expected, live, persistent, status, message)


def _mount_info(path, live_entry, fstab_entry, fstab_present, fstab_path, linux=True):
    """What the plan says about one mount point (its ``mounts`` entry), before any decision; a Linux NFS mount
    also has ``source``, ``cycle_options`` (what a ``remount: cycle`` mounts it with) and ``holders``."""
    info = _common_info(path, live_entry, fstab_entry, fstab_present, fstab_path)
    if linux and live_entry is not None and is_nfs(live_entry['fstype']):
        info.update(source=live_entry['source'], cycle_options=None, holders=None)
    return info


def _common_info(path, live_entry, fstab_entry, fstab_present, fstab_path):
    return {
        'path': path,
        'mounted': live_entry is not None,
        'in_fstab': fstab_entry is not None,
        'fstab_present': fstab_present,
        'fstab_path': fstab_path,
        'fstab_line': fstab_entry['line'] if fstab_entry else None,
        'fstype': live_entry['fstype'] if live_entry else (fstab_entry['vfstype'] if fstab_entry else None),
        'live_options': list(live_entry['options']) if live_entry else None,
        'fstab_options': list(fstab_entry['options']) if fstab_entry else None,
        'fstab_options_after': None,
        'remount_options': None,
        'live_options_after': None,
        'unresolved': [],
    }


def _duplicate_entries(path, matches, fstab_path):
    """Why the options of a mount point listed more than once in fstab cannot be planned, or None."""
    if len(matches) > 1:
        return '%s is listed %d times in %s (lines %s): fix fstab first' % (
            path, len(matches), fstab_path, ', '.join(str(m.lineno) for m in matches))
    return None


def _not_mounted_check(path, swap_lines, fstab_present, fstab_path):
    """The one check of a path that is neither mounted nor a file system entry of fstab."""
    where = fstab_path if fstab_present else '%s (no such file)' % fstab_path
    swaps = [str(lineno) for lineno in swap_lines]
    if swaps:
        message = '%s is swap (%s line %s), not a mounted file system; its options were not checked' % (
            path, fstab_path, ', '.join(swaps))
    else:
        message = '%s is neither mounted nor listed in %s; its options were not checked' % (path, where)
    return make_check(CONCERN, path, 'mount_point', 'mounted', None, None, NOT_APPLICABLE, message)


def _plan_fstab_edit(info, record, present, absent):
    """(updated record or None, change or None, options fstab cannot resolve): the persistent side,
    the entry's new option list (into ``info``)."""
    new_options, unresolved = edit_fstab_options(info['fstab_options'], present, absent)
    info['fstab_options_after'] = new_options or ['defaults']
    if new_options == info['fstab_options']:
        return None, None, unresolved
    try:
        updated = record.with_options(new_options)
    except ValueError as exc:
        # a line the collection will not rewrite (docs/enforce.md, "Lines read as libmount reads them")
        info['fstab_options_after'] = info['fstab_options']
        note = '%s line %d is not edited: %s; change it by hand' % (info['fstab_path'], record.lineno, exc)
        return None, None, dict((option, note) for option in list(present) + list(absent))
    change = {
        'kind': 'fstab', 'target': info['path'], 'path': info['fstab_path'], 'line': record.lineno,
        'before': info['fstab_options'], 'after': info['fstab_options_after'],
        'before_line': record.raw, 'after_line': updated.raw,
    }
    return updated, change, unresolved


def _needs_mount_note(option, want, effect, info):
    """Why a remount is not planned for an option the kernel does not change on a remount."""
    what = 'fails' if effect == REFUSED else 'succeeds and changes nothing'
    return ('needs unmount and mount of %s: a remount of %s cannot %s %s (it %s)'
            % (info['path'], info['fstype'], 'set' if want else 'remove', option, what))


def _hidden_default_words(info, state, present, absent):
    """``key=default`` for each key=value option of ``absent`` in effect live whose default the file system
    hides (ext4's errors=continue): a remount cannot drop a value, but it can set the default one."""
    words = []
    for option in absent:
        key, value = split_option(option)
        candidates = hidden_defaults(key, info['fstype']) if value is not None else ()
        if candidates and in_effect(option, state) and not any(split_option(o)[0] == key for o in present + words):
            words.append('%s=%s' % (key, candidates[0]))
    return words


def _plan_live_remount(info, present, absent):
    """(change or None, {option: why a remount cannot resolve it}): the live side, the remount of the
    kernel's options (into ``info``); mount(8)-only options and those mountinfo never shows have no
    live side, and those a remount cannot change (settings.mount_options.live_remount) are left out
    of it: the fstab edit carries them to the next mount."""
    fstype = info['fstype']
    notes = {}
    kernel = {True: [], False: []}
    state = option_state(info['live_options'], 'live')
    for option, want in [(o, True) for o in present] + [(o, False) for o in absent]:
        if is_userspace_option(option) or not shown_live(option, fstype):
            continue
        effect = live_remount(option, fstype)
        if effect == CHANGES:
            kernel[want].append(option)
        elif in_effect(option, state) is not want:
            notes[option] = _needs_mount_note(option, want, effect, info)
    words, after, unresolved = plan_remount(info['live_options'], kernel[True] + _hidden_default_words(
        info, state, kernel[True], kernel[False]), kernel[False])
    for option in unresolved:
        notes[option] = 'a remount cannot %s %s; unmount and mount %s' % (
            'set' if option in present else 'remove', option, info['path'])
    if not words:
        return None, notes
    info['remount_options'] = ','.join(['remount'] + words)
    info['live_options_after'] = after
    change = {
        'kind': 'mount', 'target': info['path'], 'options': info['remount_options'],
        'before': info['live_options'], 'after': after,
    }
    return change, notes


REMOUNT_MODES = ('in_place', 'cycle')


def _kernel_options(options):
    """The options that reach the kernel: not mount(8)'s own, not those only mount.nfs reads."""
    return [o for o in options if not is_userspace_option(o) and remount_effect(o) != MOUNT_ONLY]


def _nfs_note(info, option, want):
    """Why the live side of an NFS option is not planned as a remount (None: it is in effect, or it cannot be told)."""
    live = nfs_in_effect(option, info['live_options'])
    if live is None or live == want:
        return None
    lower = negotiated_lower(option, info['live_options']) if want else None
    if lower and info['in_fstab'] and in_effect(option, option_state(info['fstab_options'], 'fstab')):
        return ('the server negotiated %s down to %s (fstab asks %s): the server caps it, no change can raise it'
                % (split_option(option)[0], lower, split_option(option)[1]))
    return ('a remount of NFS %s %s (%s): needs unmount and mount of %s'
            % (remount_effect(option), split_option(option)[0], remount_source(option), info['path']))


def _cycle_options(info, present, absent):
    """The options a ``remount: cycle`` mounts with: the fstab entry's after the edit (what the next boot
    mounts), or, without an entry, the live options with the request applied."""
    if info['in_fstab']:
        options = [o for o in info['fstab_options_after'] if not is_userspace_option(o)]
    else:
        options = edit_fstab_options(info['live_options'], present, absent)[0]
    return options or ['defaults']


def _plan_nfs_live(info, request, present, absent, holders_of):
    """(changes, {option: note}) of the live side of an NFS mount: the VFS options by remount, the NFS
    client's own by unmounting and mounting (``remount: cycle``, when nothing holds the mount open) or
    not at all (the check says so). Into ``info``: ``cycle_options``, ``holders``."""
    present, absent = _kernel_options(present), _kernel_options(absent)
    change, unresolved = _plan_live_remount(info, [o for o in present if remount_effect(o) == CHANGES],
                                            [o for o in absent if remount_effect(o) == CHANGES])
    notes = dict((option, 'a remount cannot %s %s; unmount and mount %s' % (
        'set' if option in present else 'remove', option, info['path'])) for option in unresolved)
    wanted = [(o, True) for o in present if remount_effect(o) != CHANGES] + \
        [(o, False) for o in absent if remount_effect(o) != CHANGES]
    cycle = []
    for option, want in wanted:
        note = _nfs_note(info, option, want)
        if note:
            notes[option] = note
            if note.startswith('a remount'):
                cycle.append(option)
    live_changes = [change] if change else []
    if not cycle or request.get('remount', 'in_place') != 'cycle':
        return live_changes, notes
    holders = holders_of(info['path'])
    info['holders'] = holders
    if holders:
        for option in cycle:
            notes[option] += '; remount: cycle refused, %s holds it open' % describe_holders(holders)
        return live_changes, notes
    for option in cycle:
        notes[option] += '; remount: cycle unmounts and mounts it (nothing holds it open)'
    info['cycle_options'] = _cycle_options(info, present, absent)
    info['remount_options'] = info['live_options_after'] = None
    # the cycle mounts with every option, the VFS ones too: no remount beside it
    return [{'kind': 'mount_cycle', 'target': info['path'], 'fstype': info['fstype'], 'source': info['source'],
             'options': info['cycle_options'], 'before': info['live_options'], 'after': info['cycle_options'],
             'present': present, 'absent': absent}], notes


def _option_check(info, option, want, states, fstab_unresolved, live_unresolved):
    """The check of one (mount point, option); ``states``: the live and fstab option states (None: no such side).
    What neither a remount nor the fstab edit can resolve is added to ``info['unresolved']``."""
    path = info['path']
    live_state, fstab_state = states
    if live_state and 'source' in info:
        live = nfs_in_effect(option, info['live_options'])
    elif not shown_live(option, info['fstype']):
        live = None  # unverifiable live: compared in fstab only
    else:
        live = in_effect(option, live_state) if live_state else None
    persistent = in_effect(option, fstab_state) if fstab_state else None
    live_ok = None if live is None else live == want
    if not info['in_fstab']:
        persistent_ok = False  # not in fstab: the mount does not come back at boot
    else:
        persistent_ok = persistent == want
    status = status_of(live_ok, persistent_ok)
    note = ''
    remount_fixes = True
    if option in fstab_unresolved and persistent_ok is False:
        note = fstab_unresolved[option] if isinstance(fstab_unresolved, dict) else (
            'the other options in fstab keep %s %s; change them by hand' % (option, 'off' if want else 'in effect'))
    elif option in live_unresolved and live_ok is False:
        note = live_unresolved[option] if isinstance(live_unresolved, dict) else (
            'a remount cannot %s %s; unmount and mount %s' % ('set' if want else 'remove', option, path))
        remount_fixes = False
    if note:
        info['unresolved'].append('%s: %s' % (option, note))
    return _check(path, option, want, status, live, persistent,
                  _message(path, option, want, live, persistent, info, note, remount_fixes))


def _rollback_limit(info, option, want):
    """What a rollback of the planned remount could not put back, said before the change (None: it can): a
    key=value option the mount shows no value of now, whose default value the catalogue does not know."""
    key, value = split_option(option)
    if not want or value is None or 'source' in info or option not in (info['remount_options'] or '').split(','):
        return None
    if any(split_option(word)[0] == key for word in info['live_options']) or hidden_defaults(key, info['fstype']):
        return None
    return ('a rollback could not take %s= away again: %s shows no %s= now, and a remount cannot drop it '
            '(unmount and mount)' % (key, info['path'], key))


def _plan_request(request, live_by_path, fstab_index, records_after, sources):
    """(info, checks, changes) of one requested mount point; an fstab edit replaces its record in
    ``records_after``.  ``sources``: (fstab_present, fstab_path, remount, why a source cannot be read,
    holders_of(path) -> what holds a mount open)."""
    fstab_present, fstab_path, remount, source_error, holders_of, remount_planner = sources
    path = normalize_mount_point(request['path'])
    present = list(request.get('present') or [])
    absent = list(request.get('absent') or [])
    wanted = [(option, True) for option in present] + [(option, False) for option in absent]
    live_entry = live_by_path.get(path)
    # swap entries are not mounts: their second field is no mount point (FstabIndex leaves them out);
    # the last entry is the one mount(8) uses
    indexed = fstab_index.mount_entries(path)
    position, record, fstab_entry = indexed[-1] if indexed else (None, None, None)
    info = _mount_info(path, live_entry, fstab_entry, fstab_present, fstab_path, linux=remount_planner is None)

    problem = source_error or _duplicate_entries(path, [match[1] for match in indexed], fstab_path)
    if problem:
        info['unresolved'].append(problem)
        return info, [_check(path, option, want, ERROR, None, None, '%s: %s' % (option, problem))
                      for option, want in wanted], []
    if live_entry is None and fstab_entry is None:
        return info, [_not_mounted_check(path, fstab_index.swap_lines(path), fstab_present, fstab_path)], []

    states = (option_state(info['live_options'], 'live') if live_entry else None,
              option_state(info['fstab_options'], 'fstab') if fstab_entry else None)
    changes = []
    fstab_unresolved, live_unresolved = [], []
    if fstab_entry is not None:
        updated, change, fstab_unresolved = _plan_fstab_edit(info, record, present, absent)
        if updated is not None:
            records_after[position] = updated
            changes.append(change)
    if live_entry is not None and 'source' in info:
        live_changes, live_unresolved = _plan_nfs_live(info, request, present, absent, holders_of)
        changes.extend(live_changes if remount else [])
    elif live_entry is not None:
        change, live_unresolved = (remount_planner or _plan_live_remount)(info, present, absent)
        if change is not None and remount:
            changes.append(change)
    checks = [_option_check(info, option, want, states, fstab_unresolved, live_unresolved) for option, want in wanted]
    return info, checks, changes


def plan_mounts_from(mounts, mountinfo_entries, fstab_records, fstab_present=True, fstab_path='/etc/fstab',
                     remount=True, live_error=None, fstab_error=None, holders_of=None, remount_planner=None):
    """Plan from parsed state (see plan_mounts for reading it).

    ``mounts``: [{path, present, absent}] (validated); ``mountinfo_entries``:
    parse_mountinfo() output; ``fstab_records``: parse_fstab() output;
    ``live_error``/``fstab_error``: why a source could not be read (its
    checks become ``error``); ``holders_of(path)``: what holds a mount open
    (parse.holders.mount_holders), asked only of an NFS mount that a
    ``remount: cycle`` would unmount (None: nothing); ``remount_planner(info,
    present, absent)`` -> (change or None, unresolved options): the live side
    of another platform's mounts (plan.mount_options_unix; None: Linux's remount,
    and NFS as Linux's client does it).  ``fstab_records`` may be Linux
    fstab lines or another table's (parse.unix_mounts.TableLine): the planner
    reads ``kind``, ``lineno``, ``to_dict()`` and ``with_options()``.

    Both sources are indexed once (the visible mount and the fstab entries of
    each mount point), and an fstab edit replaces its record in place: the
    cost grows with mounts + lines, not mounts x lines.  The file is rendered
    once, after every edit."""
    live_by_path = visible_mounts(mountinfo_entries or [])
    fstab_index = FstabIndex(fstab_records)
    records_after = list(fstab_records)
    sources = (fstab_present, fstab_path, remount, live_error or fstab_error, holders_of or (lambda path: []), remount_planner)
    checks = []
    changes = []
    details = []
    for request in mounts:
        info, request_checks, request_changes = _plan_request(request, live_by_path, fstab_index, records_after, sources)
        details.append(info)
        checks.extend(request_checks)
        changes.extend(request_changes)

    fstab_before = render(fstab_records) if fstab_present else None
    fstab_after = render(records_after) if fstab_present else None
    return {
        'checks': checks,
        'changes': changes,
        'mounts': details,
        'fstab': {'path': fstab_path, 'before': fstab_before, 'after': fstab_after,
                  'changed': fstab_before != fstab_after},
    }


def plan_mounts(mounts, fstab_path='/etc/fstab', proc_root='/proc', remount=True):
    """Read mountinfo and fstab and plan ``mounts`` ([{path, present, absent}]).

    Returns {checks, changes, mounts, fstab: {path, before, after, changed}, warnings}:
    ``changes`` lists what an apply run does, in order: ``{kind: fstab, target,
    path, line, before, after, before_line, after_line}``, ``{kind: mount,
    target, options: 'remount,...', before, after}`` and, for an NFS mount with
    ``remount: cycle``, ``{kind: mount_cycle, target, fstype, source, options,
    before, after, present, absent}``.  Nothing is written."""
    warnings = []
    read_errors = []
    mountinfo_path = os.path.join(proc_root, 'self', 'mountinfo')
    text = read_text(mountinfo_path, read_errors)
    live_error = read_errors[-1] if text is None else None
    entries = parse_mountinfo(text, warnings) if text is not None else []

    fstab_text = read_text(fstab_path, read_errors, missing_ok=True, decode_errors='surrogateescape', newline='')
    fstab_present = fstab_text is not None or os.path.exists(fstab_path)
    fstab_error = read_errors[-1] if fstab_text is None and fstab_present else None
    records = parse_fstab(fstab_text, warnings) if fstab_text is not None else []
    points = [entry['mount_point'] for entry in entries]
    plan = plan_mounts_from(mounts, entries, records, fstab_present and fstab_error is None, fstab_path,
                            remount, live_error, fstab_error, lambda path: mount_holders(path, proc_root, points))
    plan['warnings'] = warnings + read_errors
    return plan
