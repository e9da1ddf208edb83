# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What udev rules would set on a block device's queue at boot; pure, no AnsibleModule.

The model follows udev(7) as systemd-udevd implements it:

* Rule files named ``*.rules`` are read from the search directories; a name
  in an earlier directory masks the same name in later ones, a file that is
  a symbolic link to ``/dev/null`` masks it for good, and the remaining files
  are processed sorted by name, regardless of their directory.
* A rule is one line (``\\`` at the end continues it; ``#`` lines are comments)
  of comma-separated ``KEY[{attr}]OP"value"`` items.  Match items use ``==``
  or ``!=`` with shell globs (``*``, ``?``, ``[]``) and ``|`` alternatives; all
  must match for the assignments to run.  ``ATTR{...}="..."`` writes a sysfs
  attribute at once, so the last assignment wins.
* ``GOTO`` jumps to a ``LABEL`` of the same file; ``RUN`` programs run after
  all rules.

The device is evaluated for the ``add`` event that coldplug sends at boot.
Anything that cannot be known here (``PROGRAM``, ``IMPORT{program}``, unknown
keys, a property only a program would set, a ``RUN`` that may write the
setting) makes the result for the settings the rule touches *unknown*, with
the file and line that made it so: the evaluation is conservative, never a
guess.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import fnmatch
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysfs import read_attr
from ansible_collections.iotune.storage.plugins.module_utils.settings import block_queue as _queue

# the udev search path of systemd-udevd, in priority order
RULES_DIRS = (
    '/etc/udev/rules.d',
    '/run/udev/rules.d',
    '/usr/local/lib/udev/rules.d',
    '/usr/lib/udev/rules.d',
    '/lib/udev/rules.d',
)
DB_DIR = '/run/udev/data'

# queue settings udev can write, and the ATTR{} names that write them
QUEUE_ATTRS = _queue.UDEV_ATTRIBUTES
QUEUE_SETTINGS = _queue.SETTINGS

# words in a RUN/PROGRAM command line that mean it may write a queue setting
_COMMAND_HINTS = dict((setting, _queue.QUEUE_SETTINGS[setting]['run_words']) for setting in QUEUE_SETTINGS)

MATCH_OPS = ('==', '!=')
ASSIGN_OPS = ('=', '+=', '-=', ':=')

# keys evaluated against the device itself
_DEVICE_KEYS = ('ACTION', 'DEVPATH', 'KERNEL', 'SUBSYSTEM', 'DRIVER', 'ENV', 'ATTR', 'TEST')
# keys evaluated against the device or one of its parents (all on the same one)
_PARENT_KEYS = ('KERNELS', 'SUBSYSTEMS', 'DRIVERS', 'ATTRS')
# match keys whose value cannot be known without running udev
_UNKNOWABLE_MATCH_KEYS = ('PROGRAM', 'RESULT', 'NAME', 'SYMLINK', 'TAG', 'TAGS', 'CONST', 'SYSCTL')
# assignment-only keys that do not affect queue settings or the evaluation
_HARMLESS_ASSIGN_KEYS = ('NAME', 'SYMLINK', 'OWNER', 'GROUP', 'MODE', 'SECLABEL', 'TAG', 'SYSCTL', 'OPTIONS', 'WAIT_FOR')
_KNOWN_KEYS = set(_DEVICE_KEYS + _PARENT_KEYS + _UNKNOWABLE_MATCH_KEYS + _HARMLESS_ASSIGN_KEYS
                  + ('IMPORT', 'RUN', 'GOTO', 'LABEL'))

_TOKEN_RE = re.compile(r'([A-Za-z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*([er]?)"')
_SUBST_RE = re.compile(r'\$(\$|[a-z]+)(?:\{([^}]*)\})?|%(%|[a-zA-Z])(?:\{([^}]*)\})?')
_PERCENT_NAMES = {
    'k': 'kernel', 'n': 'number', 'p': 'devpath', 'M': 'major', 'm': 'minor', 'E': 'env',
    's': 'attr', 'N': 'devnode', 'c': 'result', 'b': 'id', 'd': 'driver', 'P': 'parent',
    'r': 'root', 'S': 'sys', 'D': 'devnode',
}


# properties an IMPORT can set: IMPORT{builtin} by builtin name, else by import type
_BUILTIN_PROPERTIES = {
    'blkid': ('ID_FS_*', 'ID_PART_*'),
    'path_id': ('ID_PATH*',),
    'usb_id': ('ID_*',),
    'input_id': ('ID_INPUT*',),
    'net_id': ('ID_NET_*',),
    'net_setup_link': ('ID_NET_*',),
    'btrfs': ('ID_BTRFS_*',),
    'keyboard': ('KEYBOARD_*',),
    'kmod': (),
    'uaccess': (),
}


def import_properties(kind, value):
    """Glob patterns of the properties an ``IMPORT{kind}="value"`` may set."""
    if kind in ('db', 'cmdline', 'parent'):
        return (value,)
    if kind == 'builtin':
        words = value.split()
        return _BUILTIN_PROPERTIES.get(words[0] if words else '', ('*',))
    return ('*',)


class Unknown(Exception):
    """A value that cannot be known without running udev."""


# ---------------------------------------------------------------- rule files

def list_rule_files(dirs=RULES_DIRS):
    """The rule files udev reads, in processing order.

    Returns a list of dicts ``{name, path, masked}``, sorted by file name;
    ``masked`` is True for a name whose winning entry is a symbolic link to
    ``/dev/null`` (udev then reads nothing for that name).  The entries a
    winning file masks in later directories are not listed."""
    chosen = {}
    for directory in dirs:
        try:
            names = os.listdir(directory)
        except (IOError, OSError):
            continue
        for name in names:
            if not name.endswith('.rules') or name in chosen:
                continue
            path = os.path.join(directory, name)
            if not (os.path.isfile(path) or _is_null_link(path)):
                continue
            chosen[name] = {'name': name, 'path': path, 'masked': _is_null_link(path)}
    return [chosen[name] for name in sorted(chosen)]


def _is_null_link(path):
    if not os.path.islink(path):
        return False
    try:
        return os.readlink(path) == os.devnull or os.path.realpath(path) == os.devnull
    except OSError:
        return False


def read_rules(files, errors=None, override=None):
    """Parse the (unmasked) files listed by list_rule_files into one list of rules.

    ``override`` maps a path to the text to use instead of the file (the
    planner uses it to evaluate a rule file it is about to write)."""
    rules = []
    override = override or {}
    for entry in files:
        if entry.get('masked'):
            continue
        if entry['path'] in override:
            text = override[entry['path']]
        else:
            text = read_text(entry['path'], errors, missing_ok=True)
        if text is None:
            continue
        rules.extend(parse_rules(text, entry['path']))
    return rules


# ---------------------------------------------------------------- parsing

def logical_lines(text):
    """Join continued lines the way udev does: (first line number, text).

    Comment lines are dropped even inside a continuation; the trailing ``\\``
    is removed and the next line's leading blanks are skipped.  A NUL byte ends a
    line, as in systemd's read_line (a rule with a NUL inside a value is cut there,
    and udev ignores both halves)."""
    result = []
    pending = None
    start = 0
    for number, raw in enumerate(text.replace('\0', '\n').splitlines(), 1):
        line = raw.lstrip(' \t')
        if line.startswith('#'):
            continue
        if pending is not None:
            line = pending + line
        else:
            start = number
        if line.endswith('\\'):
            pending = line[:-1]
            continue
        pending = None
        if line.strip():
            result.append((start, line.rstrip()))
    if pending is not None and pending.strip():
        result.append((start, pending.rstrip()))
    return result


# a double-quoted value after its opening quote, up to its closing one: a backslash escapes a quote or a
# backslash, any other backslash is itself
_VALUE_RE = re.compile(r'(?:[^"\\]|\\["\\]|\\(?!["\\]))*"')
_ESCAPED_RE = re.compile(r'\\(["\\])')


def _read_value(line, pos):
    """Read a double-quoted value starting after its opening quote; (value, end)."""
    match = _VALUE_RE.match(line, pos)
    if not match:
        raise ValueError('unterminated quoted value')
    return _ESCAPED_RE.sub(r'\1', line[pos:match.end() - 1]), match.end()


def parse_rule_line(line):
    """Split one logical rule line into a list of (key, attr, op, value).

    Raises ValueError for text udev would reject (it ignores such a line)."""
    tokens = []
    pos = 0
    length = len(line)
    while pos < length:
        while pos < length and line[pos] in ' \t,':
            pos += 1
        if pos >= length:
            break
        match = _TOKEN_RE.match(line, pos)
        if not match:
            raise ValueError('cannot parse %r' % line[pos:pos + 40])
        key, attr, op, dummy_prefix = match.groups()
        value, pos = _read_value(line, match.end())
        tokens.append((key, attr, op, value))
    if not tokens:
        raise ValueError('no key')
    return tokens


# (file name, text) -> its rules: a run that changes the host plans twice (before and after its changes)
# and reads the same rule files both times; each file's text is parsed once per process
_PARSED = {}
_PARSED_MAX = 4096


def parse_rules(text, filename='<rules>'):
    """Parse rule file text into a list of rule dicts, in file order.

    Each rule: ``file``, ``line`` (first physical line), ``text``, ``tokens``
    (list of (key, attr, op, value)) and ``invalid`` (why udev would ignore
    the line, else None). The same text of the same file is parsed once; each
    call returns rules of its own."""
    key = (filename, text)
    rules = _PARSED.get(key)
    if rules is None:
        rules = _parse_rules(text, filename)
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = rules
    return [dict(rule, tokens=list(rule['tokens'])) for rule in rules]


def _parse_rules(text, filename):
    rules = []
    cut = _lines_cut_by_nul(text)
    for number, line in logical_lines(text):
        rule = {'file': filename, 'line': number, 'text': line, 'tokens': [], 'invalid': None}
        try:
            rule['tokens'] = parse_rule_line(line)
        except ValueError as exc:
            rule['invalid'] = str(exc)
            if number in cut:
                rule['invalid'] += '; a NUL byte cut the line, and udev ignores both parts'
                rule['cut_by_nul'] = True
        rules.append(rule)
    return rules


def _lines_cut_by_nul(text):
    """The line numbers (as udev counts them, a NUL ending a line) of the parts of lines holding a NUL."""
    cut, number = set(), 0
    for raw in text.splitlines():
        parts = raw.split('\0')
        if len(parts) > 1:
            cut.update(range(number + 1, number + len(parts) + 1))
        number += len(parts)
    return cut


def rule_location(rule):
    return '%s:%d' % (rule['file'], rule['line'])


def queue_assignments(rule):
    """{setting: value} the rule assigns through ATTR{queue/...} (last wins)."""
    found = {}
    for key, attr, op, value in rule['tokens']:
        if key == 'ATTR' and op in ASSIGN_OPS and attr in QUEUE_ATTRS:
            found[QUEUE_ATTRS[attr]] = value
    return found


def _mentioned_settings(text):
    return [setting for setting in QUEUE_SETTINGS
            if any(hint in text for hint in _COMMAND_HINTS[setting])]


# ---------------------------------------------------------------- udev database

def parse_db(text):
    """Parse a udev database file (``/run/udev/data/b8:0``): {env, links, tags}."""
    env = {}
    links = []
    tags = []
    for line in text.splitlines():
        kind, sep, rest = line.partition(':')
        if not sep:
            continue
        if kind == 'E':
            name, dummy, value = rest.partition('=')
            env[name] = value
        elif kind == 'S':
            links.append(rest)
        elif kind in ('G', 'Q'):
            tags.append(rest)
    return {'env': env, 'links': links, 'tags': sorted(set(tags))}


def read_db(db_dir, devno, errors=None):
    """The udev database record of block device ``MAJ:MIN``, or None."""
    if not devno:
        return None
    text = read_text(os.path.join(db_dir, 'b%s' % devno), errors, missing_ok=True)
    return None if text is None else parse_db(text)


# ---------------------------------------------------------------- the device

def parse_uevent(text):
    """KEY=value lines of a sysfs uevent file."""
    values = {}
    for line in (text or '').splitlines():
        name, sep, value = line.partition('=')
        if sep and name:
            values[name] = value
    return values


def _ancestors(sys_root, sys_dir):
    """The device directory, then its parents up to (not including) <sys_root>/devices."""
    chain = [sys_dir]
    device_link = os.path.join(sys_dir, 'device')
    if os.path.isdir(device_link):
        chain.append(os.path.realpath(device_link))
    top = os.path.realpath(os.path.join(sys_root, 'devices'))
    current = os.path.dirname(sys_dir)
    while current.startswith(top + os.sep):
        chain.append(current)
        current = os.path.dirname(current)
    seen = set()
    result = []
    for path in chain:
        if path not in seen:
            seen.add(path)
            result.append(path)
    return result


def device_properties(sys_root, name, db_dir=DB_DIR, errors=None):
    """What udev knows of /sys/block entry ``name`` when it processes its add event.

    Returns a dict: kernel, subsystem, devtype, devpath, sys_dir, uevent
    (kernel-supplied properties), db (the udev database record or None) and
    parents (directories for ATTRS/KERNELS/...).  None when there is no such
    block device."""
    path = os.path.join(sys_root, 'block', name)
    if not os.path.isdir(path):
        return None
    sys_dir = os.path.realpath(path)
    top = os.path.realpath(sys_root)
    uevent = parse_uevent(read_text(os.path.join(sys_dir, 'uevent'), missing_ok=True))
    uevent.setdefault('DEVNAME', name)
    uevent.setdefault('DEVTYPE', 'disk')
    devno = read_attr(os.path.join(sys_dir, 'dev'))
    if devno and 'MAJOR' not in uevent:
        uevent['MAJOR'], dummy, uevent['MINOR'] = devno.partition(':')
    devpath = sys_dir[len(top):] if sys_dir.startswith(top + os.sep) else '/devices/virtual/block/' + name
    uevent.setdefault('DEVPATH', devpath)
    uevent.setdefault('SUBSYSTEM', 'block')
    return {
        'kernel': name,
        'subsystem': 'block',
        'devtype': uevent['DEVTYPE'],
        'devpath': devpath,
        'devno': devno,
        'sys_dir': sys_dir,
        'sys_root': sys_root,
        'uevent': uevent,
        'db': read_db(db_dir, devno, errors),
        'parents': _ancestors(sys_root, sys_dir),
    }


# ---------------------------------------------------------------- evaluation

def glob_match(pattern, value):
    """udev pattern match: ``|`` separated shell globs; True when one matches."""
    return any(fnmatch.fnmatchcase(value, alternative) for alternative in pattern.split('|'))


def _compare(op, pattern, value):
    """Tri-state comparison: None when value is None (unknown)."""
    if value is None:
        return None
    matched = glob_match(pattern, value)
    return matched if op == '==' else not matched


def _and(results):
    """Tri-state AND."""
    if any(result is False for result in results):
        return False
    if any(result is None for result in results):
        return None
    return True


class _Evaluation(object):
    """State of one pass over the rules for one device."""

    def __init__(self, device):
        self.device = device
        self.env = dict(device['uevent'])     # properties known to be set at this point
        self.env_tainted = []                 # (glob patterns, location) of imports that may set properties
        self.env_maybe = {}                   # property -> location that may have set it
        self.settings = {}
        for setting in QUEUE_SETTINGS:
            self.settings[setting] = {'value': None, 'source': None, 'unknown': [], 'run': []}

    # -- property lookup

    def env_value(self, name):
        """Value of property ``name`` at this point; '' when unset; raises Unknown."""
        if name in self.env:
            return self.env[name]
        setters = [where for patterns, where in self.env_tainted
                   if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)]
        if name in self.env_maybe:
            setters.append(self.env_maybe[name])
        if setters:
            db = self.device['db']
            if db is None:
                raise Unknown('ENV{%s} may be set by %s and there is no udev database entry' % (name, setters[-1]))
            # the database holds the properties the last real event ended with
            return db['env'].get(name, '')
        return ''

    def attr_value(self, directory, attr):
        if _SUBST_RE.search(attr):
            raise Unknown('attribute name %r uses substitutions' % attr)
        return read_attr(os.path.join(directory, attr))

    # -- substitutions

    def substitute(self, value, attr_dir):
        """Expand $kernel, %k, $attr{x}, $env{X} ...; raises Unknown for the others."""
        def replace(match):
            name = match.group(1) or _PERCENT_NAMES.get(match.group(3), match.group(3))
            arg = match.group(2) if match.group(1) else match.group(4)
            if name in ('$', '%'):
                return name
            if name == 'kernel':
                return self.device['kernel']
            if name == 'number':
                digits = re.search(r'(\d+)$', self.device['kernel'])
                return digits.group(1) if digits else ''
            if name == 'devpath':
                return self.device['devpath']
            if name in ('major', 'minor'):
                return self.device['uevent'].get(name.upper(), '')
            if name == 'env' and arg is not None:
                return self.env_value(arg)
            if name == 'attr' and arg is not None:
                found = self.attr_value(attr_dir, arg)
                if found is None and attr_dir != self.device['sys_dir']:
                    found = self.attr_value(self.device['sys_dir'], arg)
                return found or ''
            raise Unknown('substitution %s cannot be evaluated' % match.group(0))
        return _SUBST_RE.sub(replace, value)

    # -- match keys

    def match_device_key(self, key, attr, op, value):
        device = self.device
        if key == 'ACTION':
            return _compare(op, value, 'add')
        if key == 'KERNEL':
            return _compare(op, value, device['kernel'])
        if key == 'SUBSYSTEM':
            return _compare(op, value, device['subsystem'])
        if key == 'DEVPATH':
            return _compare(op, value, device['devpath'])
        if key == 'DRIVER':
            return _compare(op, value, _link_name(device['sys_dir'], 'driver'))
        if key == 'ENV':
            return _compare(op, value, self.env_value(attr))
        if key == 'ATTR':
            found = self.attr_value(device['sys_dir'], attr)
            if found is None:
                return False      # udev: a missing attribute never matches
            return _compare(op, value, _attr_for_match(found, value))
        if key == 'TEST':
            if attr is not None or _SUBST_RE.search(value):
                return None
            if value.startswith('/'):
                if not value.startswith('/sys/'):
                    return None
                path = os.path.join(device['sys_root'], value[len('/sys/'):])
            else:
                path = os.path.join(device['sys_dir'], value)
            exists = os.path.exists(path)
            return exists if op == '==' else not exists
        return None

    def match_parent_keys(self, tokens):
        """All parent keys on one device or parent: (tri-state, matched directory)."""
        if not tokens:
            return True, self.device['sys_dir']
        results = []
        for directory in self.device['parents']:
            checks = []
            for key, attr, op, value in tokens:
                checks.append(self._match_parent_key(directory, key, attr, op, value))
            result = _and(checks)
            if result is True:
                return True, directory
            results.append(result)
        return (None if None in results else False), self.device['sys_dir']

    def _match_parent_key(self, directory, key, attr, op, value):
        is_self = directory == self.device['sys_dir']
        if key == 'KERNELS':
            return _compare(op, value, os.path.basename(directory))
        if key == 'SUBSYSTEMS':
            if is_self:
                return _compare(op, value, 'block')
            name = _link_name(directory, 'subsystem')
            if not name and os.path.isfile(os.path.join(directory, 'uevent')):
                return None   # a device whose subsystem link was not captured
            return _compare(op, value, name)
        if key == 'DRIVERS':
            return _compare(op, value, _link_name(directory, 'driver'))
        if key == 'ATTRS':
            try:
                found = self.attr_value(directory, attr)
            except Unknown:
                return None
            if found is None:
                return False
            return _compare(op, value, _attr_for_match(found, value))
        return None


def _link_name(directory, link):
    path = os.path.join(directory, link)
    if not os.path.islink(path):
        return ''
    return os.path.basename(os.path.realpath(path))


def _attr_for_match(found, pattern):
    """udev ignores trailing whitespace of an attribute unless the pattern has some."""
    if pattern != pattern.rstrip():
        return found
    return found.rstrip()


def _rule_match(state, rule):
    """Tri-state result of a rule's match keys, the directory parent keys matched,
    and the reasons an unknown result is unknown."""
    device_results = []
    parent_tokens = []
    reasons = []
    for key, attr, op, value in rule['tokens']:
        if key == 'IMPORT':
            if attr in ('program', 'file'):
                device_results.append(None)
                reasons.append('IMPORT{%s} cannot be evaluated' % attr)
            continue
        if op not in MATCH_OPS:
            if key not in _KNOWN_KEYS:
                device_results.append(None)
                reasons.append('unknown key %s' % key)
            continue
        if key in _PARENT_KEYS:
            parent_tokens.append((key, attr, op, value))
            continue
        if key not in _KNOWN_KEYS:
            device_results.append(None)
            reasons.append('unknown key %s' % key)
            continue
        if key in _UNKNOWABLE_MATCH_KEYS:
            device_results.append(None)
            reasons.append('%s cannot be evaluated' % key)
            continue
        try:
            result = state.match_device_key(key, attr, op, value)
        except Unknown as exc:
            result = exc
        if isinstance(result, Unknown):
            reasons.append(str(result))
            result = None
        elif result is None:
            reasons.append('%s%s%s"%s" cannot be evaluated' % (key, '{%s}' % attr if attr else '', op, value))
        device_results.append(result)
        if result is False:
            return False, state.device['sys_dir'], []
    parent_result, directory = state.match_parent_keys(parent_tokens)
    if parent_result is None:
        reasons.append('parent keys (%s) cannot be evaluated' % ', '.join(t[0] for t in parent_tokens))
    return _and(device_results + [parent_result]), directory, reasons


def evaluate(rules, device):
    """What the rules set on the queue of ``device`` (see device_properties).

    Returns {setting: {value, source, unknown}}: ``value`` is the text the
    last certain assignment writes (None when no rule sets it), ``source`` the
    ``file:line`` of that rule, ``unknown`` the list of reasons (each naming
    file:line) why the result cannot be known; when ``unknown`` is not empty,
    ``value`` must not be trusted."""
    state = _Evaluation(device)
    labels_by_file = {}
    for rule in rules:
        for key, dummy, op, value in rule['tokens']:
            if key == 'LABEL':
                labels_by_file.setdefault(rule['file'], set()).add(value)
    skip_to = None          # label of a GOTO that was certainly taken
    maybe_skipped = {}      # label -> location of a GOTO that may have been taken
    current_file = None
    stopped = False
    maybe_stopped = None    # location of an OPTIONS="last_rule" that may have been hit
    for rule in rules:
        if rule['file'] != current_file:
            current_file = rule['file']
            skip_to = None
            maybe_skipped = {}
        labels = [value for key, dummy, op, value in rule['tokens'] if key == 'LABEL']
        for label in labels:
            maybe_skipped.pop(label, None)
            if skip_to == label:
                skip_to = None
        if skip_to is not None or stopped:
            continue
        if rule['invalid']:
            # udev ignores the line; if it seems to touch the queue, say so (unless it is certain: a NUL cut it)
            for setting in [] if rule.get('cut_by_nul') else _mentioned_settings(rule['text']):
                state.settings[setting]['unknown'].append(
                    '%s cannot be parsed (%s)' % (rule_location(rule), rule['invalid']))
            continue
        if len(rule['tokens']) == len(labels):
            continue
        result, directory, reasons = _rule_match(state, rule)
        if result is False:
            continue
        if result is True and (maybe_skipped or maybe_stopped):
            result = None
            reasons = reasons + ['it may be skipped by %s' % ', '.join(
                sorted(maybe_skipped.values()) + ([maybe_stopped] if maybe_stopped else []))]
        _apply_rule(state, rule, result, directory, reasons)
        goto = [value for key, dummy, op, value in rule['tokens'] if key == 'GOTO']
        if goto and goto[-1] in labels_by_file.get(rule['file'], ()):
            # (udev ignores a GOTO whose LABEL is not in the same file)
            if result is True:
                skip_to = goto[-1]
            else:
                maybe_skipped[goto[-1]] = 'GOTO="%s" at %s' % (goto[-1], rule_location(rule))
        if _has_last_rule(rule):
            if result is True:
                stopped = True
            else:
                maybe_stopped = 'OPTIONS="last_rule" at %s' % rule_location(rule)
    return _settings_result(state)


def _has_last_rule(rule):
    return any(key == 'OPTIONS' and 'last_rule' in value for key, dummy, op, value in rule['tokens'])


def _apply_rule(state, rule, result, directory, reasons):
    """Record the assignments of a rule that matches (True) or may match (None)."""
    where = rule_location(rule)
    why = '; '.join(reasons) or 'it cannot be evaluated'
    for key, attr, op, value in rule['tokens']:
        if key == 'ENV' and op in ASSIGN_OPS:
            if result is True:
                try:
                    state.env[attr] = state.substitute(value, directory) if op != '-=' else ''
                    state.env_maybe.pop(attr, None)
                except Unknown:
                    state.env.pop(attr, None)
                    state.env_maybe[attr] = where
            else:
                state.env.pop(attr, None)
                state.env_maybe[attr] = where
        elif key == 'IMPORT':
            state.env_tainted.append((import_properties(attr, value), 'IMPORT{%s} at %s' % (attr, where)))
        elif key == 'ATTR' and op in ASSIGN_OPS and attr in QUEUE_ATTRS:
            record = state.settings[QUEUE_ATTRS[attr]]
            if result is not True:
                record['unknown'].append('%s may set it (%s)' % (where, why))
                continue
            try:
                record['value'] = state.substitute(value, directory)
                record['source'] = where
                record['unknown'] = []
            except Unknown as exc:
                record['value'] = None
                record['source'] = where
                record['unknown'] = ['%s sets it to %r (%s)' % (where, value, exc)]
        elif key in ('RUN', 'PROGRAM') or (key == 'IMPORT' and attr == 'program'):
            for setting in _mentioned_settings(value):
                state.settings[setting]['run'].append('%s runs %r' % (where, value))


def _settings_result(state):
    result = {}
    for setting, record in state.settings.items():
        unknown = list(record['unknown'])
        unknown.extend('%s, which may set it after the rules' % run for run in record['run'])
        result[setting] = {'value': record['value'], 'source': record['source'], 'unknown': unknown}
    return result
