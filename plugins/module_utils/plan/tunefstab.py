# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""VxFS tunables: the audit decision and the plan of changes; pure, no AnsibleModule.

plan_tunefstab() compares a policy (``[{device, tunables}]``) with the
persistent state (the tunefstab file, which the VxFS mount command applies)
and the live state (``vxtunefs -p <mount point>`` of the file system mounted
from the device), and returns the checks and the changes that would make
them compliant: the new tunefstab text (every other line and comment kept
byte for byte) and, with ``apply``, the ``vxtunefs -o`` calls.  Commands run
through an injected ``run_command(argv) -> (rc, stdout, stderr)``; nothing
is written.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.parse import tunefstab as _tunefstab
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import (
    DRIFT, ERROR, NOT_APPLICABLE, NOT_PERSISTENT, make_check, status_of)
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.parse.iofacts import VXTUNEFS_DIRS, find_executable
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import read_mountinfo, visible_mounts
from ansible_collections.iotune.storage.plugins.module_utils.common.units import is_size, parse_int, to_bytes
from ansible_collections.iotune.storage.plugins.module_utils.settings.tunefstab import (
    TUNABLE_NAMES, VXFS_TUNABLE_MAX, VXFS_TUNABLES, accepted as accepted_values)

CONCERN = 'tunefstab'


# ---------------------------------------------------------------- input

def normalize_tunable(name, value):
    """The int value of tunable ``name``; raises ValueError naming the accepted values."""
    if name not in VXFS_TUNABLES:
        raise ValueError('unknown tunable; accepted: %s' % ', '.join(TUNABLE_NAMES))
    entry = VXFS_TUNABLES[name]
    if entry['kind'] == 'size':
        try:
            number = to_bytes(value.strip() if isinstance(value, str) else value)
        except ValueError:
            raise ValueError('%r is not valid; expected %s' % (value, accepted_values(name)))
        if number > VXFS_TUNABLE_MAX:
            raise ValueError('%r is more than vxtunefs takes (%d); expected %s' % (value, VXFS_TUNABLE_MAX, accepted_values(name)))
        return number
    number = parse_int(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    if number is None and entry.get('type') == 'size' and isinstance(value, str) and is_size(value.strip()):
        number = to_bytes(value.strip())      # max_buf_data_size=64k
    if number is None or number < entry.get('minimum', 0) or number > VXFS_TUNABLE_MAX or \
            (entry['kind'] == 'choice' and number not in entry['choices']):
        raise ValueError('%r is not valid; expected %s' % (value, accepted_values(name)))
    return number


DEVICE_ACCEPTED = ("an absolute block device path without whitespace, '#', ',' or '=' (such as "
                   "/dev/vx/dsk/datadg/vol01), or %s" % _tunefstab.SYSTEM_DEFAULT)


def device_problem(device):
    """None when ``device`` can be a tunefstab line's first word, else why not.

    A ``#`` would make the line a comment (the plan then found no line it had just
    written: a KeyError), whitespace splits the word, ``,`` and ``=`` belong to the
    tunable list and to ``vxtunefs -o``."""
    if device == _tunefstab.SYSTEM_DEFAULT:
        return None
    if not isinstance(device, str) or not device.startswith('/'):
        return 'not an absolute path'
    bad = sorted(set(char for char in device if char.isspace() or char in '#,='))
    if bad:
        return 'contains %s' % ', '.join(repr(char) for char in bad)
    return None


def validate_entries(entries, labels):
    """validate_entry for each: (normalized entries, errors), each device once (two entries for
    one device would leave the later to win in the file and the earlier to be reported), and no
    device value that the entry for system-default contradicts (contradictions())."""
    normalized, errors, seen = [], [], {}
    for entry, label in zip(entries, labels):
        done, entry_errors = validate_entry(entry, label)
        normalized.append(done)
        errors.extend(entry_errors)
        device = done['device']
        if not entry_errors and device in seen:
            errors.append('%sdevice: %s is listed twice (also %s)' % ('%s.' % label if label else '', device, seen[device] or 'device'))
        seen.setdefault(device, label)
    for index, other, name in contradictions([entry['device'] for entry in normalized],
                                             [entry['tunables'] for entry in normalized]):
        errors.append(contradiction_message(normalized[index]['device'], name, normalized[index]['tunables'][name],
                                            normalized[other]['tunables'][name], labels[index], labels[other]))
    return normalized, errors


def contradictions(devices, tunables):
    """(index, system-default index, tunable) for each device value that the policy's own system-default
    entry sets otherwise: a system-default line takes precedence over a device's lines (tunefstab(4) on
    HP-UX), so the device would never get its value (issue 23, P4). ``tunables`` hold ints."""
    defaults = [index for index, device in enumerate(devices) if device == _tunefstab.SYSTEM_DEFAULT]
    found = []
    for index, device in enumerate(devices):
        if device == _tunefstab.SYSTEM_DEFAULT:
            continue
        for name in sorted(tunables[index]):
            for other in defaults:
                if name in tunables[other] and tunables[other][name] != tunables[index][name]:
                    found.append((index, other, name))
    return found


def contradiction_message(device, name, value, default_value, label='', default_label=''):
    """Why a device value the policy's system-default entry contradicts is refused; ``label``/``default_label``
    name the two entries (``entries[1]``, ``iotune_tunefstab[0]``; '' for the module's device/tunables)."""
    return ('%stunables.%s: %s for %s contradicts %s for %s (%s): a system-default line takes precedence over a '
            "device's lines (tunefstab(4)), so %s would get %s; give both the same value or drop one"
            % ('%s.' % label if label else '', name, value, device, default_value, _tunefstab.SYSTEM_DEFAULT,
               default_label or 'the same policy', device, default_value))


def validate_entry(entry, where=''):
    """(normalized entry, errors): the device and its tunables as ints; errors name the field."""
    prefix = '%s.' % where if where else ''
    errors = []
    device = entry.get('device')
    problem = device_problem(device)
    if problem:
        errors.append('%sdevice: %r is not valid (%s); expected %s' % (prefix, device, problem, DEVICE_ACCEPTED))
    tunables = entry.get('tunables')
    normalized = {}
    if not isinstance(tunables, dict) or not tunables:
        errors.append('%stunables: expected a non-empty dict of tunable name to value; accepted names: %s'
                      % (prefix, ', '.join(TUNABLE_NAMES)))
    else:
        for name in sorted(tunables):
            try:
                normalized[name] = normalize_tunable(name, tunables[name])
            except ValueError as exc:
                errors.append('%stunables.%s: %s' % (prefix, name, exc))
    return {'device': device, 'tunables': normalized}, errors


# ---------------------------------------------------------------- the file

def effective_for(entries, device):
    """Effective tunables of ``device`` with the file line that set each: {name: (value, line)}.

    Lines for the device apply in order; a ``system-default`` line applies to
    every device and, as tunefstab(4) on HP-UX says, takes precedence over the
    device's own lines."""
    own = {}
    default = {}
    for entry in entries:
        target = own if entry['device'] == device else default if entry['device'] == _tunefstab.SYSTEM_DEFAULT else None
        if target is None:
            continue
        for name, value in entry['tunables'].items():
            target[name] = (value, entry['line'])
    result = dict(own)
    if device != _tunefstab.SYSTEM_DEFAULT:
        result.update(default)
    return result


_LINE_RE = re.compile(r'^(\s*)(\S+)(?:(\s+)(.*?))?(\s*)$')
_ITEM_RE = re.compile(r'^(\s*)([^=\s]+)(\s*=\s*)(.*?)(\s*)$')


def _split_ending(line):
    body = line.rstrip('\r\n')
    return body, line[len(body):]


def _device_lines(lines, device):
    found = []
    for index, line in enumerate(lines):
        body, dummy = _split_ending(line)
        stripped = body.strip()
        if not stripped or stripped.startswith('#'):
            continue
        word = stripped.split()[0]
        if word == device or (device == _tunefstab.SYSTEM_DEFAULT and word in _tunefstab.SYSTEM_DEFAULT_NAMES):
            found.append(index)
    return found


def merge_tunefstab_text(text, device, tunables):
    """New tunefstab text with ``tunables`` ({name: int}) set for ``device``.

    Each tunable is changed wherever the device's lines set it (VxFS takes the
    last, and a line naming it twice must not keep an old value after a new one);
    the others are appended to the device's last line; a device without a line
    gets a new line at the end.  Every other line,
    comment and byte is kept, and so is the trailing comment of an edited line
    (``/dev/vx/dsk/dg/v1 read_ahead=2  # seed 001``).  ``text`` None (no file)
    gives a new file."""
    lines = _tunefstab.split_lines(text)
    newline = '\r\n' if lines and lines[0].endswith('\r\n') else '\n'
    indexes = _device_lines(lines, device)
    ordered = [name for name in TUNABLE_NAMES if name in tunables] + sorted(set(tunables) - set(TUNABLE_NAMES))
    found = set()
    for index in indexes:
        body, ending = _split_ending(lines[index])
        body, comment = _tunefstab.split_comment(body)
        match = _LINE_RE.match(body)
        items = match.group(4).split(',') if match.group(4) else []
        changed = False
        for position, item in enumerate(items):
            parts = _ITEM_RE.match(item)
            if parts and parts.group(2) in tunables:
                name = parts.group(2)
                items[position] = parts.group(1) + name + parts.group(3) + str(tunables[name]) + parts.group(5)
                found.add(name)
                changed = True
        if changed:
            lines[index] = _join_line(match, items) + comment + ending
    pending = [name for name in ordered if name not in found]
    if pending and indexes:
        index = indexes[-1]
        body, ending = _split_ending(lines[index])
        body, comment = _tunefstab.split_comment(body)
        match = _LINE_RE.match(body)
        items = match.group(4).split(',') if match.group(4) else []
        items = [item for item in items if item.strip()] + ['%s=%s' % (name, tunables[name]) for name in pending]
        lines[index] = _join_line(match, items, ' ') + comment + ending
    elif pending:
        if lines and not lines[-1].endswith('\n'):
            lines[-1] += newline
        lines.append('%s %s%s' % (device, ','.join('%s=%s' % (name, tunables[name]) for name in pending), newline))
    return ''.join(lines)


def _join_line(match, items, separator=None):
    lead, device, sep, dummy, trail = match.groups()
    return '%s%s%s%s%s' % (lead, device, sep or separator or ' ', ','.join(items), trail)


# ---------------------------------------------------------------- live

def find_mount(mount_entries, device):
    """(mount point, fstype) of the visible mount whose source is ``device``, or (None, None).

    A mount of the file system's root wins over bind mounts of a subdirectory."""
    candidates = [entry for entry in visible_mounts(mount_entries).values() if entry['source'] == device]
    if not candidates:
        return None, None
    candidates.sort(key=lambda entry: (entry['root'] != '/', entry['fstype'] != 'vxfs', entry['mount_id']))
    return candidates[0]['mount_point'], candidates[0]['fstype']


def read_live(vxtunefs, mount_point, run_command):
    """(values, error): ``vxtunefs -p <mount point>`` parsed, or (None, sentence)."""
    argv = [vxtunefs, '-p', mount_point]
    try:
        rc, out, err = run_command(argv)
    except (IOError, OSError) as exc:
        return None, 'cannot run %s: %s' % (' '.join(argv), exc)
    if rc != 0:
        return None, '%s failed (rc=%s): %s' % (' '.join(argv), rc, (err or out).strip() or 'no output')
    values = _tunefstab.parse_vxtunefs_output(out)
    if not values:
        return None, '%s printed no tunables' % ' '.join(argv)
    return values, None


# ---------------------------------------------------------------- checks

def _file_clause(path, present, setting, by_default=False):
    if setting is None:
        return '%s does not set it' % path if present else 'there is no %s' % path
    value, line = setting
    if by_default:
        return '%s line %d, a %s line, sets %s' % (path, line, _tunefstab.SYSTEM_DEFAULT, value)
    return '%s line %d sets %s' % (path, line, value)


def _message(name, device, live_state, expected, live_ok, persistent_ok, file_clause):
    live, where, why = live_state
    if live_ok is None:
        return '%s on %s: %s; %s' % (name, device, why, file_clause)
    if live_ok:
        if persistent_ok is True:
            return '%s on %s is %s live (%s) and %s' % (name, device, live, where, file_clause)
        if persistent_ok is None:
            return '%s on %s is %s live (%s); %s' % (name, device, live, where, file_clause)
        return '%s on %s is %s live (%s) but %s: lost at the next mount' % (name, device, live, where, file_clause)
    return '%s on %s is %s live (%s), expected %s; %s' % (name, device, live, where, expected, file_clause)


def _default_wins(name, device, live_state, expected, path, file_default, policy_default):
    """The message of a device value that a system-default value other than the policy's decides."""
    live, where, why = live_state
    if live is not None:
        first = '%s on %s is %s live (%s)%s' % (name, device, live, where, '' if live == expected else ', expected %s' % expected)
    else:
        first = '%s on %s: %s' % (name, device, why)
    if policy_default is not None:
        return ('%s; the policy sets %s to %s for %s, and a system-default line takes precedence over a device\'s lines '
                '(tunefstab(4)): %s would get %s, never %s; give both the same value or drop one'
                % (first, name, policy_default, _tunefstab.SYSTEM_DEFAULT, device, policy_default, expected))
    value, line = file_default
    return ('%s; %s line %d is a %s line that sets %s to %s for every VxFS file system and takes precedence over '
            'the lines of %s (tunefstab(4)): enforcing cannot make %s persist for %s without changing that line for '
            'every device; name %s with %s in the policy, or take %s off line %d'
            % (first, path, line, _tunefstab.SYSTEM_DEFAULT, name, value, device, expected, device,
               _tunefstab.SYSTEM_DEFAULT, name, name, line))


def is_executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _unreadable_live(vxtunefs, device, mount_point, can_run):
    """Why the live values of ``device`` (mounted as vxfs on ``mount_point``) cannot be read
    because of the vxtunefs binary, or None when it can run."""
    if vxtunefs is None:
        return ('no vxtunefs on this host (searched PATH, %s) but %s is mounted on %s as vxfs: its live values '
                'cannot be read; name the binary with the vxtunefs option' % (', '.join(VXTUNEFS_DIRS), device, mount_point))
    if not can_run(vxtunefs):
        return ('vxtunefs %s (the vxtunefs option) is not an executable file: the live values of %s on %s cannot be read'
                % (vxtunefs, device, mount_point))
    return None


def _read_tunefstab_file(path, errors):
    """The tunefstab file as the plan sees it: ``{path, text, present, unreadable, entries, defaults}``;
    ``text`` None when absent or unreadable, ``defaults`` what its system-default lines set
    (``{name: (value, line)}``)."""
    text = read_text(path, errors, missing_ok=True, decode_errors='surrogateescape', newline='')
    present = text is not None
    unreadable = not present and os.path.lexists(path)
    entries = _tunefstab.parse_tunefstab(text, errors) if present else []
    return {'path': path, 'text': text, 'present': present, 'unreadable': unreadable, 'entries': entries,
            'defaults': effective_for(entries, _tunefstab.SYSTEM_DEFAULT)}


def _policy_defaults(entries):
    """What the policy's own system-default entry asks for ({name: value}): a system-default line takes
    precedence over a device's lines."""
    defaults = {}
    for entry in entries:
        if entry['device'] == _tunefstab.SYSTEM_DEFAULT:
            defaults.update(entry['tunables'])
    return defaults


def _live_side(device, mount_entries, vxtunefs, run_command, can_run, live_cache):
    """What can be known of the live values of ``device``: ``{mount_point, fstype, values, error, why, where}``
    (``why``: why there are no values; ``where``: the command that printed them).  Each mount point is
    read once (``live_cache``)."""
    mount_point, fstype = find_mount(mount_entries, device)
    values, error, where = None, None, None
    if mount_point is None:
        why = '%s is not mounted: live value not checked' % device
    elif fstype != 'vxfs':
        why = '%s is mounted on %s as %s, not vxfs: live value not checked' % (device, mount_point, fstype)
    else:
        if mount_point not in live_cache:
            problem = _unreadable_live(vxtunefs, device, mount_point, can_run)
            live_cache[mount_point] = (None, problem) if problem else read_live(vxtunefs, mount_point, run_command)
        values, error = live_cache[mount_point]
        why = error
        where = 'vxtunefs -p %s' % mount_point
    return {'mount_point': mount_point, 'fstype': fstype, 'values': values, 'error': error, 'why': why, 'where': where}


def _tunable_state(device, name, expected, setting, side, tfile, vxtunefs, policy_defaults):
    """What is known of one tunable of a device whose live side could be read: ``live``, ``live_ok`` and
    ``persistent_ok`` (None: unknown), ``reason`` (why the live value is unknown), ``by_default`` (a
    system-default line gives it its value once the plan is applied) and ``deciding`` (that value)."""
    live = side['values'].get(name) if side['values'] is not None else None
    if tfile['present']:
        persistent_ok = (setting[0] if setting else None) == expected
    elif tfile['unreadable']:
        persistent_ok = None
    else:
        persistent_ok = None if vxtunefs is None else False
    return {
        'live': live,
        'live_ok': None if live is None else live == expected,
        'persistent_ok': persistent_ok,
        'reason': side['why'] if side['values'] is None else '%s does not print it: live value not checked' % side['where'],
        'by_default': device != _tunefstab.SYSTEM_DEFAULT and (name in policy_defaults or name in tfile['defaults']),
        'deciding': policy_defaults[name] if name in policy_defaults else tfile['defaults'].get(name, (None,))[0],
    }


def _verdict(device, name, expected, setting, state, side, tfile, policy_defaults):
    """(status, message) of one tunable of a device whose live side could be read."""
    path = tfile['path']
    live_state = (state['live'], side['where'], state['reason'])
    if state['by_default'] and state['deciding'] != expected:
        # the system-default value decides for this device, and it is not the policy's: editing the
        # device's line would change nothing (issue 23, P4)
        return ERROR, _default_wins(name, device, live_state, expected, path, tfile['defaults'].get(name),
                                    policy_defaults.get(name))
    status = status_of(state['live_ok'], state['persistent_ok'])
    if tfile['unreadable'] and state['live_ok'] is None:
        return ERROR, '%s on %s: %s; %s cannot be read' % (name, device, state['reason'], path)
    if status == NOT_APPLICABLE:
        return status, 'no vxtunefs on this host and no %s: VxFS is not in use here' % path
    clause = '%s cannot be read' % path if tfile['unreadable'] else _file_clause(
        path, tfile['present'], setting, device != _tunefstab.SYSTEM_DEFAULT and setting == tfile['defaults'].get(name))
    if state['by_default'] and name in policy_defaults and state['persistent_ok'] is False:
        clause += ('; the policy\'s %s entry writes %s=%s on a %s line, which decides for every device'
                   % ((_tunefstab.SYSTEM_DEFAULT, name, expected, _tunefstab.SYSTEM_DEFAULT)))
    return status, _message(name, device, live_state, expected, state['live_ok'], state['persistent_ok'], clause)


def _unknown_setting(name, device, tfile, setting):
    """Why the value the next mount gives ``name`` on ``device`` is not known (the line in effect, or the
    system-default line that decides, holds a value in no form vxtunefs documents), or None."""
    for found in (tfile['defaults'].get(name) if device != _tunefstab.SYSTEM_DEFAULT else None, setting):
        if found and not isinstance(found[0], int):
            return ('%s on %s: %s line %d: %s=%s is not a value vxtunefs documents (%s): the value of the next mount '
                    'is not known; correct the line, harden_io does not rewrite it' % (
                        name, device, tfile['path'], found[1], name, found[0], _tunefstab.VALUE_FORMS))
    return None


def _plan_device(entry, side, tfile, vxtunefs, policy_defaults, apply):
    """(checks, vxtunefs changes, {name: value} to persist on the device's line) of one policy entry."""
    device = entry['device']
    effective = effective_for(tfile['entries'], device)
    checks, changes, to_persist = [], [], {}
    for name in [n for n in TUNABLE_NAMES if n in entry['tunables']]:
        expected = entry['tunables'][name]
        setting = effective.get(name)
        persistent = setting[0] if setting else None
        if side['error']:
            checks.append(make_check(CONCERN, device, name, expected, None, persistent, ERROR,
                                     '%s on %s: %s' % (name, device, side['error'])))
            continue
        unknown = _unknown_setting(name, device, tfile, setting)
        if unknown:
            checks.append(make_check(CONCERN, device, name, expected, None, None, ERROR, unknown))
            continue
        state = _tunable_state(device, name, expected, setting, side, tfile, vxtunefs, policy_defaults)
        status, message = _verdict(device, name, expected, setting, state, side, tfile, policy_defaults)
        checks.append(make_check(CONCERN, device, name, expected, state['live'], persistent, status, message))
        if status not in (DRIFT, NOT_PERSISTENT):
            continue
        if state['persistent_ok'] is False and not state['by_default']:
            # (by_default: the policy's system-default entry sets this value, and its line is what changes)
            to_persist[name] = expected
        if apply and state['live_ok'] is False:
            changes.append({'kind': 'vxtunefs', 'target': side['mount_point'], 'device': device, 'setting': name,
                            'before': state['live'], 'after': expected,
                            'argv': [vxtunefs, '-o', '%s=%d' % (name, expected), side['mount_point']]})
    return checks, changes, to_persist


def plan_tunefstab(entries, path=_tunefstab.DEFAULT_PATH, vxtunefs=None, run_command=None,
                   proc_root='/proc', apply=False, mount_entries=None, can_run=is_executable):
    """Audit the (validated) entries and plan the changes; reads only.

    ``vxtunefs``: path of the binary (the one the user named, even when it cannot
    run), or None when none was named and the host has none.  A live value that
    exists (the device is mounted as vxfs) but cannot be read is an ``error``
    check, never judged by the file alone.  ``can_run(path)``: whether the binary
    can be run (tests that fake ``run_command`` replace it).
    Returns {checks, changes, devices, warnings}:

    * ``checks``: one per device and tunable (make_check records).
    * ``changes``: with ``apply``, ``{kind: vxtunefs, target: mount point,
      device, setting, before, after, argv}`` per live value to set; then at
      most one ``{kind: file, target: path, before, after}`` with the whole
      old (None: absent) and new tunefstab text.
    * ``devices``: ``{device, mount_point, fstype, live_error}`` per device.
    * ``warnings``: sentences (e.g. lines of the file that cannot be read).

    A ``system-default`` line takes precedence over a device's lines: where it
    sets a device's tunable to another value than the policy, the check is
    ``error`` (editing the device's line would change nothing) and nothing is
    planned for it, unless the policy's own ``system-default`` entry sets the
    same value: that entry's line change is then what makes it persist.
    """
    errors = []
    tfile = _read_tunefstab_file(path, errors)
    if mount_entries is None:
        mount_entries = read_mountinfo(proc_root, errors)
    policy_defaults = _policy_defaults(entries)
    checks = []
    changes = []
    devices = []
    new_text = tfile['text']
    live_cache = {}
    for entry in entries:
        device = entry['device']
        side = _live_side(device, mount_entries, vxtunefs, run_command, can_run, live_cache)
        devices.append({'device': device, 'mount_point': side['mount_point'], 'fstype': side['fstype'],
                        'live_error': side['error']})
        device_checks, device_changes, to_persist = _plan_device(entry, side, tfile, vxtunefs, policy_defaults, apply)
        checks.extend(device_checks)
        changes.extend(device_changes)
        if to_persist:
            new_text = merge_tunefstab_text(new_text, device, to_persist)
    if new_text != tfile['text']:
        changes.append({'kind': 'file', 'target': path, 'before': tfile['text'], 'after': new_text})
    return {'checks': checks, 'changes': changes, 'devices': devices, 'warnings': list(errors)}


def find_vxtunefs(explicit=None, find_bin=None):
    """(path or None, sentence or None): the binary to run for live values.

    A named binary is returned even when it cannot run, with the sentence saying
    so: plan_tunefstab() then makes the checks of mounted file systems ``error``
    (the user said which vxtunefs; their live values were not read) instead of
    judging them by the file alone."""
    if explicit:
        if is_executable(explicit):
            return explicit, None
        return explicit, 'vxtunefs %s (the vxtunefs option) is not an executable file' % explicit
    return (find_bin or find_executable)('vxtunefs', VXTUNEFS_DIRS), None
