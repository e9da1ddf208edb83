# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cache_limits decision: checks and intended changes; pure, no AnsibleModule.

sysctls (``vm.*``): live from ``/proc/sys/vm``; persistent is the value the
next boot produces: the kernel default, then every assignment of the sysctl
load order (systemd-sysctl / ``sysctl --system``) applied in turn.  Each
bytes/ratio pair is simulated as the kernel handles it: writing one value
that changes it zeroes the other (so ``vm.dirty_ratio = 15`` in
``/etc/sysctl.conf`` undoes a ``vm.dirty_bytes`` of an earlier file), and
values the kernel refuses (``vm.dirty_bytes`` below two pages) change nothing.

bulk_slice: where systemd runs (``/run/systemd/system`` exists), the slice
unit file (and its drop-ins) must carry ``MemoryHigh=``; live is what
``systemctl show`` reports for a loaded slice.

Commands run through an injected ``run_command(argv) -> (rc, out, err)``.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import fnmatch
import os

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import ERROR, NOT_APPLICABLE, make_check, status_of
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import DEFAULT_SLICE
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import (
    MEMORY_HIGH_ACCEPTED,
    UNIT_MEMORY_HIGH_ACCEPTED,
    parse_memory_high,
    read_unit_memory_high,
    show_value,
    slice_name_problem,
    validate_cache_value,
)
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS, VM_SYSCTLS, dotted
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import (
    CONF_DIRS,
    SYSCTL_CONF,
    normalize_key,
    parse_sysctl_conf,
    read_live,
)

CONCERN = 'cache_limits'
DEFAULT_SYSCTL_FILE = '/etc/sysctl.d/60-iotune.conf'
DEFAULT_UNIT_DIR = '/etc/systemd/system'
SYSTEMD_RUN_DIR = '/run/systemd/system'

# Keys the module manages: every sysctl of the vm table (the policy's and its neighbours).
SYSCTL_KEYS = tuple(dotted(name) for name in VM_KEYS)
# A key no file sets has its kernel default after boot; one the kernel computes at boot has none here.
KERNEL_DEFAULTS = dict((dotted(name), VM_SYSCTLS[name]['kernel_default']) for name in VM_KEYS
                       if VM_SYSCTLS[name]['kernel_default'] is not None)
PARTNERS = dict((dotted(name), dotted(VM_SYSCTLS[name]['exclusive_with'])) for name in VM_KEYS
                if VM_SYSCTLS[name].get('exclusive_with'))
# Smallest value the kernel accepts (EINVAL below).
KERNEL_MINIMUM = dict((dotted(name), VM_SYSCTLS[name]['minimum']) for name in VM_KEYS)

MANAGED_HEADER = (
    '# Managed by iotune.storage (cache_limits): page-cache and writeback limits.\n'
    '# Local edits are overwritten; change the iotune_cache policy instead.\n'
)


def validate_sysctl(sysctl):
    """Check the ``sysctl`` option: returns ({dotted key: int}, errors).  Keys
    whose value is None are left out (not managed)."""
    result = {}
    errors = []
    for key, value in (sysctl or {}).items():
        if value is None:
            continue  # not managed, as a missing key
        where = 'sysctl.%s' % key
        key = normalize_key(str(key))
        if key not in SYSCTL_KEYS:
            errors.append('%s: unknown key (accepted: %s)' % (where, ', '.join(SYSCTL_KEYS)))
            continue
        if key in result:
            errors.append('%s: given twice' % where)
            continue
        number = validate_cache_value(key[len('vm.'):], value, where, errors)
        if number is not None:
            result[key] = number
    for key, partner in PARTNERS.items():
        if key in result and partner in result and key < partner:
            errors.append('sysctl: set either %s or %s, not both (writing one makes the kernel zero the other)'
                          % (key, partner))
    return result, errors


# ---------------------------------------------------------------------------
# sysctl load order and boot simulation

def _matches(pattern, key):
    if pattern == key:
        return True
    return any(char in pattern for char in '*?[') and fnmatch.fnmatchcase(key, pattern)


def load_order_with(managed, conf_dirs=CONF_DIRS, sysctl_conf=SYSCTL_CONF):
    """The sysctl load order (as _sysctl.load_order) as it is once ``managed``
    exists.  Returns (paths, managed_read): managed_read is False when the file
    would not be read (not ``*.conf``, not in a configuration directory, or
    masked by a file of the same name in an earlier directory)."""
    chosen = {}
    managed_dir, managed_name = os.path.split(managed)
    dirs = [os.path.normpath(directory) for directory in conf_dirs]
    for directory in dirs:
        try:
            names = set(os.listdir(directory))
        except (IOError, OSError):
            names = set()
        if directory == os.path.normpath(managed_dir) and managed_name.endswith('.conf'):
            names.add(managed_name)
        for name in sorted(names):
            if name.endswith('.conf') and name not in chosen:
                chosen[name] = os.path.join(directory, name)
    paths = [chosen[name] for name in sorted(chosen)]
    if sysctl_conf and (os.path.isfile(sysctl_conf) or os.path.normpath(sysctl_conf) == os.path.normpath(managed)):
        paths.append(sysctl_conf)
    last = {}
    for index, path in enumerate(paths):
        last[os.path.realpath(path)] = index
    paths = [path for index, path in enumerate(paths) if last[os.path.realpath(path)] == index]
    managed_real = os.path.realpath(managed)
    managed_read = any(os.path.realpath(path) == managed_real for path in paths)
    return paths, managed_read


def simulate_boot(sources, keys):
    """Values of ``keys`` after applying ``sources`` ([(path, text or None)] in
    load order) from the kernel defaults.

    Returns {key: {value, file, line, by, by_value}}: ``file``/``line`` of the
    assignment that decided the value (None: kernel default), ``by`` and
    ``by_value`` the key and value written there (the partner of a bytes/ratio
    pair when it zeroed this one); ``value`` is
    None for a key with no default that no file sets."""
    wanted = set(keys)
    for key in keys:
        if key in PARTNERS:
            wanted.add(PARTNERS[key])
    state = dict((key, {'value': KERNEL_DEFAULTS.get(key), 'file': None, 'line': None, 'by': None, 'by_value': None})
                 for key in wanted)
    for path, text in sources:
        if text is None:
            continue
        for assignment in parse_sysctl_conf(text):
            for key in wanted:
                if not _matches(assignment['key'], key):
                    continue
                value = assignment['value']
                if not isinstance(value, int) or value < KERNEL_MINIMUM.get(key, 0):
                    continue  # the kernel refuses it; nothing changes
                changed = value != state[key]['value']
                state[key] = {'value': value, 'file': path, 'line': assignment['line'], 'by': key, 'by_value': value}
                partner = PARTNERS.get(key)
                if partner and changed and state[partner]['value'] != 0:
                    state[partner] = {'value': 0, 'file': path, 'line': assignment['line'], 'by': key, 'by_value': value}
    return dict((key, state[key]) for key in keys)


def render_sysctl_file(text, values):
    """Managed sysctl file content with ``values`` ({dotted key: int}) set.

    Existing assignment lines of those keys are replaced in place (repeats
    dropped), lines of their bytes/ratio partners removed, other lines kept;
    missing keys are appended.  A new file gets a header."""
    lines = (text if text is not None else MANAGED_HEADER).splitlines(True)
    if lines and not lines[-1].endswith('\n'):
        lines[-1] += '\n'
    drop = set(PARTNERS[key] for key in values if key in PARTNERS and PARTNERS[key] not in values)
    written = set()
    out = []
    for line in lines:
        stripped = line.strip()
        key = None
        if stripped and stripped[0] not in '#;' and '=' in stripped:
            key = normalize_key(stripped.lstrip('-').partition('=')[0])
        if key in values:
            if key not in written:
                out.append('%s = %d\n' % (key, values[key]))
                written.add(key)
            continue
        if key in drop:
            continue
        out.append(line)
    for key in values:
        if key not in written:
            out.append('%s = %d\n' % (key, values[key]))
    return ''.join(out)


def _where(entry):
    """Where a boot value comes from, for messages."""
    if entry['by'] and entry['by'] != entry['key']:
        return '%s = %s in %s line %d zeroes it' % (entry['by'], entry['by_value'], entry['file'], entry['line'])
    return 'from %s line %d' % (entry['file'], entry['line'])


def _sysctl_message(key, expected, live, boot, partner_live, managed, managed_read, overridden_by):
    if live is None:
        first = 'cannot read %s live' % key
    elif live == expected:
        first = '%s is %d live' % (key, live)
    else:
        first = '%s is %d live, expected %d' % (key, live, expected)
        if live == 0 and key in PARTNERS and partner_live:
            first += ' (the kernel uses %s = %d instead)' % (PARTNERS[key], partner_live)
    if boot['value'] is None:
        second = 'no sysctl file sets it'
    elif boot['file'] is None:
        second = 'no sysctl file sets it, so the next boot gives the kernel default %d' % boot['value']
    else:
        second = 'the next boot gives %d (%s)' % (boot['value'], _where(boot))
    sentence = '%s; %s' % (first, second)
    if live == expected and boot['value'] != expected:
        sentence += ': it is lost at the next boot'
    elif live is not None and live != expected and boot['value'] == expected:
        sentence += ': a reload (sysctl --system) would apply it'
    elif live is not None and live != expected:
        sentence += ': both the live value and the sysctl files need changing'
    if overridden_by:
        sentence += '. Even set in %s, it would be overridden by %s line %d, later in the load order' % (
            managed, overridden_by['file'], overridden_by['line'])
    elif not managed_read:
        sentence += '. %s is not read at boot (not a *.conf file of a sysctl directory, or masked by a file of the same name)' % managed
    return sentence


def plan_sysctl(values, sysctl_file=DEFAULT_SYSCTL_FILE, proc_root='/proc', conf_dirs=CONF_DIRS,
                sysctl_conf=SYSCTL_CONF):
    """Checks and changes for ``values`` ({dotted key: int}, validated)."""
    checks, changes, details, warnings = [], [], {}, []
    if not values:
        return checks, changes, details, warnings
    order, managed_read = load_order_with(sysctl_file, conf_dirs, sysctl_conf)
    managed_real = os.path.realpath(sysctl_file)
    texts, managed_text = _read_sources(order, sysctl_file, warnings)
    keys = list(values)
    now = simulate_boot(texts, keys)
    new_text = render_sysctl_file(managed_text, values)
    planned = simulate_boot([(path, new_text if os.path.realpath(path) == managed_real else text) for path, text in texts], keys)
    if not managed_read:
        warnings.append('%s is not read at boot by systemd-sysctl (not a *.conf file of a sysctl directory, or masked '
                        'by a file of the same name): values written there do not persist' % sysctl_file)
    live_changes = []
    for key in keys:
        overridden_by = _overridden_by(planned[key], values[key], managed_real)
        if overridden_by:
            warnings.append('%s: %s line %d comes after %s in the sysctl load order and overrides %s'
                            % (key, overridden_by['file'], overridden_by['line'], sysctl_file, key))
        check, details[key], change = _plan_key(key, values[key], proc_root, dict(now[key], key=key), overridden_by,
                                                sysctl_file, managed_read)
        checks.append(check)
        live_changes.extend(change)
    if new_text != managed_text:
        changes.append({'kind': 'file', 'target': sysctl_file, 'path': sysctl_file,
                        'before': managed_text, 'after': new_text})
    changes.extend(live_changes)
    return checks, changes, details, warnings


def _read_sources(order, sysctl_file, warnings):
    """[(path, text)] of the load order, and the managed file's text (None: absent)."""
    managed_real = os.path.realpath(sysctl_file)
    texts = []
    managed_text = None
    for path in order:
        text = read_text(path, warnings, missing_ok=True)
        if os.path.realpath(path) == managed_real:
            managed_text = text
        texts.append((path, text))
    if managed_text is None and os.path.exists(sysctl_file):
        managed_text = read_text(sysctl_file, warnings)
    return texts, managed_text


def _overridden_by(planned, expected, managed_real):
    """The boot entry of a later file that would still decide the key once the managed file is written, or None."""
    if planned['value'] != expected and planned['file'] and os.path.realpath(planned['file']) != managed_real:
        return planned
    return None


def _plan_key(key, expected, proc_root, boot, overridden_by, sysctl_file, managed_read):
    """(check, detail, [live change]) of one key; ``boot`` is its simulate_boot entry with ``key``."""
    live = read_live(proc_root, key)
    partner_live = read_live(proc_root, PARTNERS[key]) if key in PARTNERS else None
    detail = {
        'expected': expected,
        'live': live,
        'persistent': boot['value'],
        'file': boot['file'],
        'line': boot['line'],
        'set_by': boot['by'],
        'overridden_by': overridden_by['file'] if overridden_by else None,
    }
    message = _sysctl_message(key, expected, live, boot, partner_live, sysctl_file, managed_read, overridden_by)
    status = ERROR if live is None else status_of(live == expected, boot['value'] == expected)
    check = make_check(CONCERN, 'sysctl', key, expected, live, boot['value'], status, message)
    if live is None or live == expected:
        return check, detail, []
    return check, detail, [{
        'kind': 'sysctl', 'target': key, 'path': os.path.join(proc_root, 'sys', *key.split('.')),
        'before': live, 'after': expected,
        'pair': PARTNERS.get(key), 'pair_before': partner_live,
    }]


# ---------------------------------------------------------------------------
# bulk slice

def parse_unit_memory_high(text):
    """Last ``MemoryHigh=`` of the ``[Slice]`` section (an empty value resets it);
    returns (value text or None, line) where value '' means reset."""
    section = None
    found = (None, None)
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in '#;':
            continue
        if stripped.startswith('[') and stripped.endswith(']'):
            section = stripped[1:-1]
            continue
        name, sep, value = stripped.partition('=')
        if sep and section == 'Slice' and name.strip() == 'MemoryHigh':
            found = (value.strip(), lineno)
    return found


def memory_high_equal(left, right, memory_bytes=None):
    """Compare two normalized MemoryHigh values (int bytes, 'N%', 'infinity').

    A percentage and a byte count compare through ``memory_bytes`` (MemTotal),
    allowing for systemd's rounding to whole pages; None when that is unknown."""
    if left is None or right is None:
        return False
    if left == right:
        return True
    if 'infinity' in (left, right):
        return False
    percent = [value for value in (left, right) if isinstance(value, str)]
    if len(percent) == 2:
        return float(left[:-1]) == float(right[:-1])
    if not percent:
        return left == right
    if not memory_bytes:
        return None
    absolute = right if isinstance(left, str) else left
    expected = memory_bytes * float(percent[0][:-1]) / 100
    return abs(absolute - expected) <= max(65536, expected * 0.002)


def render_unit(text, name, memory_high):
    """Slice unit text with ``MemoryHigh=`` set (in place when present)."""
    value = memory_high if isinstance(memory_high, str) else str(memory_high)
    if text is None:
        return (
            '# Managed by iotune.storage (cache_limits): memory cap for bulk jobs (backup, restore, copies)\n'
            '# so that they do not evict the page cache other work depends on.\n'
            '[Unit]\n'
            'Description=iotune bulk I/O jobs (%s)\n'
            '\n'
            '[Slice]\n'
            'MemoryHigh=%s\n' % (name, value)
        )
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith('\n'):
        lines[-1] += '\n'
    section = None
    slice_end = None
    replaced = False
    out = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith('[') and stripped.endswith(']'):
            if section == 'Slice' and slice_end is None:
                slice_end = len(out)
                while slice_end > 0 and not out[slice_end - 1].strip():
                    slice_end -= 1
            section = stripped[1:-1]
        elif section == 'Slice' and stripped.partition('=')[0].strip() == 'MemoryHigh':
            if not replaced:
                out.append('MemoryHigh=%s\n' % value)
                replaced = True
            continue
        out.append(line)
    if not replaced:
        if section == 'Slice' and slice_end is None:
            slice_end = len(out)
            while slice_end > 0 and not out[slice_end - 1].strip():
                slice_end -= 1
        if slice_end is None:
            out.append('\n[Slice]\n')
            slice_end = len(out)
        out.insert(slice_end, 'MemoryHigh=%s\n' % value)
    return ''.join(out)


def parse_systemctl_show(text):
    """``Key=value`` lines of ``systemctl show`` into a dict."""
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition('=')
        if sep:
            values[key.strip()] = value.strip()
    return values


def _unit_value(text):
    """(normalized value, problem) of a ``MemoryHigh=`` assignment (read_unit_memory_high): a value
    systemd ignores, or reads otherwise than it looks, is None with the reason, so that it never
    compares equal to the policy (issue 23, P2)."""
    if text == '':
        return 'infinity', None  # an empty assignment resets to the default
    return read_unit_memory_high(text)


def plan_slice(bulk_slice, systemd_run_dir=SYSTEMD_RUN_DIR, run_command=None, systemctl='systemctl',
               memory_bytes=None):
    """Checks and changes for ``bulk_slice`` {memory_high, name, unit_dir}."""
    name = bulk_slice.get('name') or DEFAULT_SLICE
    unit_path = os.path.join(bulk_slice.get('unit_dir') or DEFAULT_UNIT_DIR, name)
    expected = parse_memory_high(bulk_slice.get('memory_high'))
    detail = {'name': name, 'unit_path': unit_path, 'expected': expected, 'live': None, 'persistent': None,
              'load_state': None, 'need_daemon_reload': None}
    warnings = []
    problem = _slice_problem(bulk_slice.get('memory_high'), expected, name, systemd_run_dir)
    if problem:
        return [make_check(CONCERN, name, 'MemoryHigh', expected, None, None, problem[0], problem[1])], [], detail, warnings
    unit = _unit_memory_high(unit_path, warnings)
    detail['persistent'] = unit['persistent']
    detail['live'], live_note = _live_memory_high(name, run_command, systemctl, detail)
    live = detail['live']
    live_ok = None if live is None else memory_high_equal(live, expected, memory_bytes)
    persistent_ok = bool(memory_high_equal(unit['persistent'], expected, memory_bytes)) if unit['persistent'] is not None else False
    if live is not None and live_ok is None:
        live_note = 'MemTotal is unknown, cannot compare %s with %s' % (live, expected)
    message = _slice_message(detail, live_ok, live_note, unit)
    checks = [make_check(CONCERN, name, 'MemoryHigh', expected, live, unit['persistent'], status_of(live_ok, persistent_ok), message)]
    changes = []
    if not persistent_ok:
        changes.append({'kind': 'file', 'target': name, 'path': unit_path, 'before': unit['text'],
                        'after': render_unit(unit['text'], name, expected)})
        if unit['source'] and not unit['source'].startswith(unit_path + ' '):
            warnings.append('%s: drop-in %s overrides MemoryHigh= of the unit file' % (name, unit['source']))
    if not persistent_ok or live_ok is False or detail['need_daemon_reload']:
        changes.append({'kind': 'unit', 'target': name, 'action': 'daemon-reload'})
    return checks, changes, detail, warnings


def _slice_problem(raw, expected, name, systemd_run_dir):
    """(status, message) when the slice cannot be checked at all, else None."""
    if expected is None:
        return ERROR, 'bulk_slice.memory_high: %s is not a memory limit (accepted: %s)' % (show_value(raw), MEMORY_HIGH_ACCEPTED)
    problem = slice_name_problem(name)
    if problem:
        # never write over system.slice & co. (issue 23, P1), whoever called the planner
        return ERROR, 'bulk_slice.name: %s' % problem
    if not os.path.isdir(systemd_run_dir):
        return NOT_APPLICABLE, ('systemd is not running on this host (no %s): bulk jobs cannot be capped by %s'
                                % (systemd_run_dir, name))
    return None


def _unit_memory_high(unit_path, warnings):
    """The persistent MemoryHigh=: the unit file's, then its drop-ins' in name order. Returns {text (of the
    unit file), dropins, persistent, source, unread}; ``unread`` is (text, problem) of a last assignment
    systemd ignores or that is not read as it looks."""
    dropin_dir = unit_path + '.d'
    try:
        dropins = [os.path.join(dropin_dir, entry) for entry in sorted(os.listdir(dropin_dir)) if entry.endswith('.conf')]
    except (IOError, OSError):
        dropins = []
    found = {'text': read_text(unit_path, warnings, missing_ok=True), 'dropins': dropins,
             'persistent': None, 'source': None, 'unread': None}
    sources = [(unit_path, found['text'])] + [(path, read_text(path, warnings) or '') for path in dropins]
    for path, text in sources:
        value, line = parse_unit_memory_high(text) if text is not None else (None, None)
        if value is not None:
            persistent, problem = _unit_value(value)
            found.update(persistent=persistent, source='%s line %d' % (path, line), unread=(value, problem) if problem else None)
    return found


def _live_memory_high(name, run_command, systemctl, detail):
    """(live MemoryHigh or None, why it is unknown): what the service manager holds for a loaded slice.
    Records its load state in ``detail``."""
    if run_command is None:
        return None, 'systemctl was not run'
    argv = [systemctl, 'show', '-p', 'LoadState', '-p', 'MemoryHigh', '-p', 'NeedDaemonReload', '--', name]
    rc, out, err = run_command(argv)
    if rc != 0:
        return None, 'systemctl show failed (rc=%s): %s' % (rc, (err or out).strip())
    props = parse_systemctl_show(out)
    detail['load_state'] = props.get('LoadState')
    detail['need_daemon_reload'] = props.get('NeedDaemonReload') == 'yes'
    if props.get('LoadState') != 'loaded':
        return None, '%s is not loaded (LoadState=%s)' % (name, props.get('LoadState') or 'unknown')
    return read_unit_memory_high(props.get('MemoryHigh', ''))[0], ''


def _slice_message(detail, live_ok, live_note, unit):
    name, expected, live, unit_path = detail['name'], detail['expected'], detail['live'], detail['unit_path']
    if live is None:
        first = 'live MemoryHigh of %s unknown: %s' % (name, live_note)
    else:
        first = '%s has MemoryHigh=%s live%s' % (name, live, '' if live_ok else ', expected %s' % expected)
    if unit['unread']:
        second = ('the unit sets MemoryHigh=%s (%s), which does not count as set: %s (%s); it is rewritten as %s'
                  % (unit['unread'][0], unit['source'], unit['unread'][1], UNIT_MEMORY_HIGH_ACCEPTED, expected))
    elif unit['text'] is None and not unit['dropins']:
        second = 'there is no unit file %s' % unit_path
    elif unit['persistent'] is None:
        second = '%s does not set MemoryHigh=' % unit_path
    else:
        second = 'the unit sets MemoryHigh=%s (%s)' % (unit['persistent'], unit['source'])
    message = '%s; %s' % (first, second)
    if detail['need_daemon_reload']:
        message += '; the unit file changed since systemd loaded it (daemon-reload needed)'
    return message


def plan_cache(sysctl=None, bulk_slice=None, sysctl_file=DEFAULT_SYSCTL_FILE, proc_root='/proc',
               conf_dirs=CONF_DIRS, sysctl_conf=SYSCTL_CONF, systemd_run_dir=SYSTEMD_RUN_DIR,
               run_command=None, systemctl='systemctl', memory_bytes=None):
    """Plan ``sysctl`` ({key: value}, validated with validate_sysctl) and ``bulk_slice``.

    Returns {checks, changes, sysctl: {key: detail}, bulk_slice: detail or None,
    warnings}.  ``changes`` in apply order: ``{kind: file, target, path, before,
    after}`` for the managed sysctl file, ``{kind: sysctl, target, path, before,
    after, pair, pair_before}`` per live value, then the slice unit file and
    ``{kind: unit, target, action: daemon-reload}``.  Nothing is written."""
    values, errors = validate_sysctl(sysctl)
    if errors:
        raise ValueError('; '.join(errors))
    checks, changes, details, warnings = plan_sysctl(values, sysctl_file, proc_root, conf_dirs, sysctl_conf)
    slice_detail = None
    if bulk_slice:
        slice_checks, slice_changes, slice_detail, slice_warnings = plan_slice(
            bulk_slice, systemd_run_dir, run_command, systemctl, memory_bytes)
        checks += slice_checks
        changes += slice_changes
        warnings += slice_warnings
    return {'checks': checks, 'changes': changes, 'sysctl': details, 'bulk_slice': slice_detail, 'warnings': warnings}
