# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cache_limits decision on Solaris and HP-UX (settings/cache_limits_unix.py); reads, never writes.

- Solaris: the ZFS ARC cap. Persistent: the last ``set zfs:zfs_arc_max = N`` line of /etc/system
  (``*`` or ``#`` comments; N decimal, 0x hex or leading-0 octal, else an error check naming the line,
  which Solaris ignores); live: ``kstat -p zfs:0:arcstats:c_max``. The kernel reads /etc/system at boot
  only, so the change is the file's, and a cap set there but not yet live is drift that names the
  reboot it needs.
- HP-UX 11i v3: ``filecache_min`` and ``filecache_max`` through ``kctune``, which changes the running
  kernel and the configuration the next boot uses at once: one value, live and persistent. The changes
  are ordered so that min never goes above max on the way (a raised max first, a lowered min first).
  A value kctune refuses (above 70 % (min) or 90 % (max) of the memory machinfo reports, or min above
  max once both are set) is an error check at plan time, not a failure at apply time.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import ERROR, NOT_APPLICABLE, make_check, status_of
from ansible_collections.iotune.storage.plugins.module_utils.common.units import parse_int
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import (
    SYSTEM_NUMBER_FORMS, etc_system_entries, parse_kstat_p, parse_machinfo_memory, parse_system_number)
from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import (
    ARC_KSTAT, SYSTEM_DIR, command_output, read_kctune, read_system_files)
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS, SYSTEM_FRAGMENT
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits_unix import UNIX_CACHE, platform_keys

CONCERN = 'cache_limits'
SYSTEM_KEY = 'zfs:zfs_arc_max'
SYSTEM_SYMBOL = 'zfs_arc_max'
_ARC_LINE_RE = re.compile(r'^\s*set\s+zfs:zfs_arc_max\s*=')


def system_text_with(text, value):
    """/etc/system with its last ``set zfs:zfs_arc_max`` line set to ``value`` (every other byte kept), or
    the line added at the end under a comment saying who set it."""
    lines = (text or '').splitlines(True)
    line = 'set zfs:zfs_arc_max = %d\n' % value
    found = [index for index, raw in enumerate(lines) if _ARC_LINE_RE.match(raw)]
    if found:
        lines[found[-1]] = line
        return ''.join(lines)
    if lines and not lines[-1].endswith('\n'):
        lines[-1] += '\n'
    return ''.join(lines) + '* iotune.storage: the ZFS ARC cap, read at the next boot\n' + line


def _arc_line_problem(entry):
    """Why a line that is not a plain ``set zfs:zfs_arc_max = N`` may still set the ARC cap, or None."""
    if entry['kind'] == 'set' and entry['key'] == SYSTEM_KEY:
        return 'changes the cap bit by bit (%s) from the value before it, which harden_io does not compute' % entry['operator']
    if entry['kind'] == 'set' and entry['key'].split(':')[-1].lower() == SYSTEM_SYMBOL:
        return ('sets %s without the zfs module: the kernel looks for it outside zfs' % entry['key'] if ':' not in entry['key']
                else 'names the cap as %s, not %s' % (entry['key'], SYSTEM_KEY))
    if entry['kind'] == 'unparsed' and SYSTEM_SYMBOL in entry['text'].lower():
        return 'not a line system(4) describes, and it names %s' % SYSTEM_SYMBOL
    return None


def arc_cap_source(files):
    """Where the next boot takes the ARC cap from, over the files the kernel reads in its order
    (parse.unixfacts.read_system_files): {'path' and 'entry' of the last ``set zfs:zfs_arc_max = N`` (None:
    no file sets it), 'problems': why the cap cannot be known (a file not read, a line after that one
    which may set the cap and is not understood), 'notes': the other lines system(4) does not describe,
    and lines that may have set the cap before the one that wins}. Each names its file and line."""
    found = {'path': None, 'entry': None, 'problems': [], 'notes': []}
    for item in files:
        if not item['read']:
            found['problems'].append('%s could not be read' % item['path'])
            continue
        for entry in etc_system_entries(item['text'] or ''):
            where = '%s line %d: %s' % (item['path'], entry['line'], entry['text'])
            why = _arc_line_problem(entry)
            if entry.get('key') == SYSTEM_KEY and entry['operator'] == '=':
                # the last plain set wins: what came before it does not matter at boot
                found['notes'].extend(found['problems'])
                found.update(path=item['path'], entry=entry, problems=[])
            elif why:
                found['problems'].append('%s: %s' % (where, why))
            elif entry['kind'] == 'unparsed':
                found['notes'].append('%s: not a line system(4) describes (Solaris skips it at boot with a warning)' % where)
    return found


def unreadable_arc_line(entry, path):
    """Why the ``set zfs:zfs_arc_max`` line in effect (``entry`` of ``path``) is not a number Solaris reads,
    naming the file and the line; None when it is one, or there is none. Solaris ignores such a line at
    boot, where Python's int() would read ``0x4000_0000`` as 1 GiB (issue 38, item 10)."""
    if entry is None or parse_system_number(entry['value']) is not None:
        return None
    return '%s line %d: %s: %r is not a number as system(4) writes one (%s): Solaris ignores the line at boot' % (
        path, entry['line'], entry['text'], entry['value'], SYSTEM_NUMBER_FORMS)


def _arc_target(source, files, has_dir, system_file):
    """(path, text) of the file harden_io writes the cap into: the one that sets it now, else, where the
    host has /etc/system.d, a fragment of the collection's own (system(5): deliver fragments, do not edit
    /etc/system), else /etc/system."""
    path = source['path'] or (os.path.join(os.path.dirname(system_file), SYSTEM_DIR, SYSTEM_FRAGMENT) if has_dir else system_file)
    text = next((item['text'] for item in files if item['path'] == path), None)
    return path, text


def _plan_solaris(want, run_command, system_file):
    errors = []
    files, has_dir = read_system_files(system_file, errors)
    source = arc_cap_source(files)
    errors.extend(source['notes'])
    live = parse_int(parse_kstat_p(command_output(run_command, ['kstat', '-p', ARC_KSTAT], errors) or '').get(ARC_KSTAT))
    entry = source['entry']
    problems = source['problems'] + [why for why in [unreadable_arc_line(entry, source['path'])] if why]
    if problems:
        message = '%s: the cap the next boot takes is not known; correct or remove the line, harden_io does not rewrite ' \
                  'these files until then' % '; '.join(problems)
        return [make_check(CONCERN, 'zfs_arc_max', 'zfs_arc_max', want, live, None, ERROR, message)], [], errors
    persistent = parse_system_number(entry['value']) if entry else None
    live_ok = None if live is None else live == want
    persistent_ok = persistent == want
    status = status_of(live_ok, persistent_ok)
    target, text = _arc_target(source, files, has_dir, system_file)
    searched = '%s/* or %s' % (os.path.join(os.path.dirname(system_file), SYSTEM_DIR), system_file) if has_dir else system_file
    where = '%s line %d sets %s' % (source['path'], entry['line'], persistent) if entry else \
        'no %s line in %s' % (SYSTEM_KEY, searched)
    message = 'zfs_arc_max is %s live (kstat %s), expected %d; %s' % (live if live is not None else 'unknown', ARC_KSTAT, want, where)
    if persistent_ok and live_ok is False:
        message += ': it takes effect at the next boot (needs a reboot)'
    elif not persistent_ok:
        message += ': harden_io sets it in %s; it takes effect at the next boot (needs a reboot)' % target
    checks = [make_check(CONCERN, 'zfs_arc_max', 'zfs_arc_max', want, live, persistent, status, message)]
    changes = []
    if not persistent_ok and all(item['read'] for item in files):
        changes.append({'kind': 'file', 'target': target, 'before': text, 'after': system_text_with(text, want),
                        'mode': 0o644, 'setting': 'zfs_arc_max', 'applies': 'at the next boot'})
    return checks, changes, errors


def kctune_order(changes, tunables):
    """The changes in an order whose every step keeps filecache_min not above filecache_max."""
    raising_max = [c for c in changes if c['target'] == 'filecache_max' and c['after_bytes'] >= (tunables['filecache_max']['current'] or 0)]
    return sorted(changes, key=lambda c: (c['target'] == 'filecache_max') != bool(raising_max))


def kctune_refusals(wanted, tunables, memory):
    """{tunable: why kctune refuses the value ``wanted`` for it}: above its share of physical memory
    (``memory`` bytes, from machinfo; None: not checked), or filecache_min above filecache_max once both
    are set (the value wanted, else the live one). filecache_max(5), HP-UX 11i v3 (issue 38, item 7)."""
    refused = {}
    for name in sorted(wanted):
        share = UNIX_CACHE[name]['memory_pct']
        if memory and wanted[name] > share * memory // 100:
            refused[name] = 'iotune_cache.%s: %d bytes is above %d %% of physical memory (%d bytes of the %d MB machinfo ' \
                            'reports), the most kctune accepts: it refuses the value, so harden_io cannot set it' % (
                                name, wanted[name], share, share * memory // 100, memory // 1024 ** 2)
    after = dict((name, wanted[name] if name in wanted else (tunables.get(name) or {}).get('current'))
                 for name in ('filecache_min', 'filecache_max'))
    if None not in after.values() and after['filecache_min'] > after['filecache_max']:
        name = 'filecache_min' if 'filecache_min' in wanted else 'filecache_max'
        refused.setdefault(name, 'iotune_cache.%s: filecache_min would be above filecache_max (%d > %d bytes; %s): kctune '
                                 'refuses it, so harden_io cannot set it' % (
                                     name, after['filecache_min'], after['filecache_max'],
                                     'both from the policy' if len(wanted) == 2 else 'filecache_%s is the live value'
                                     % ('max' if name == 'filecache_min' else 'min')))
    return refused


def _plan_hpux(wanted, run_command, machinfo):
    errors = []
    # both, whichever the policy sets: each is checked against the other (kctune refuses min above max)
    tunables = read_kctune(run_command, platform_keys('hpux'), errors)
    memory = parse_machinfo_memory(command_output(run_command, [machinfo], [])) if machinfo else None
    refused = kctune_refusals(wanted, tunables, memory)
    checks, changes = [], []
    for name in sorted(wanted):
        want = wanted[name]
        known = tunables.get(name)
        live = known['current'] if known else None
        status = status_of(None if live is None else live == want, None if live is None else live == want)
        if live is None:
            message = '%s cannot be read (kctune -P): %s' % (name, '; '.join(errors) or 'not listed')
        else:
            message = '%s is %d (kctune expression %s), expected %d; kctune changes it at once and for the next boot' % (
                name, live, known['expr'], want)
        if name in refused:
            status, message = ERROR, '%s; %s' % (refused[name], message)
        checks.append(make_check(CONCERN, name, name, want, live, live, status if live is not None else ERROR, message))
        if live is not None and live != want and name not in refused:
            changes.append({'kind': 'kctune', 'target': name, 'before': known['expr'], 'after': str(want), 'after_bytes': want,
                            'before_bytes': live})
    return checks, kctune_order(changes, tunables) if changes else [], errors


def plan_unix_cache(cache, platform, run_command, system_file=None, machinfo='machinfo'):
    """Checks and changes of the platform's cache tunables in ``cache`` (the normalized iotune_cache), and one
    not_applicable check naming the keys that are not the platform's. Returns {checks, changes, warnings}.
    ``machinfo``: the HP-UX program that says the memory kctune's limits are shares of (None: not there,
    the limits are left to kctune)."""
    mine = platform_keys(platform)
    wanted = dict((key, cache[key]) for key in mine if cache.get(key) is not None)
    others = sorted(key for key in cache if key not in mine and cache[key] not in (None, {}))
    checks, changes, warnings = [], [], []
    if platform == 'solaris' and 'zfs_arc_max' in wanted:
        checks, changes, warnings = _plan_solaris(wanted['zfs_arc_max'], run_command,
                                                  system_file or PLATFORMS[platform]['system_file'])
    elif platform == 'hpux' and wanted:
        checks, changes, warnings = _plan_hpux(wanted, run_command, machinfo)
    if others:
        checks.append(make_check(CONCERN, PLATFORMS[platform]['uname'], 'platform', None, None, None, NOT_APPLICABLE,
                                 'not applicable on %s: iotune_cache.%s (%s has %s)' % (
                                     PLATFORMS[platform]['uname'], ', iotune_cache.'.join(others), PLATFORMS[platform]['uname'],
                                     ', '.join(mine) or 'none of them')))
    return {'checks': checks, 'changes': changes, 'warnings': warnings,
            'applies': dict((key, UNIX_CACHE[key]['applies']) for key in wanted)}
