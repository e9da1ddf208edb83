# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Live and persistent sysctl values (vm.*); pure, no AnsibleModule.

Persistent sources follow the systemd-sysctl / procps ``sysctl --system``
order: ``*.conf`` files of CONF_DIRS, where a basename in an earlier directory
masks the same basename in later ones (a link to /dev/null masks without
setting anything), applied sorted by basename, then ``/etc/sysctl.conf``
last.  A file reached twice (Debian's ``/etc/sysctl.d/99-sysctl.conf`` is a
link to ``/etc/sysctl.conf``) is counted once, at its last position.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import fnmatch
import os
import stat

from ansible_collections.iotune.storage.plugins.module_utils.common.units import parse_int
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS

CONF_DIRS = (
    '/etc/sysctl.d',
    '/run/sysctl.d',
    '/usr/local/lib/sysctl.d',
    '/usr/lib/sysctl.d',
    '/lib/sysctl.d',
)
SYSCTL_CONF = '/etc/sysctl.conf'


def normalize_key(key):
    """Dotted form of a sysctl key.

    ``vm/dirty_ratio`` -> ``vm.dirty_ratio``.  As in sysctl.d(5), when the first
    separator is a slash, slashes separate and dots are literal, so
    ``net/ipv4/conf/eth0.100/forwarding`` -> ``net.ipv4.conf.eth0/100.forwarding``.
    """
    key = key.strip()
    slash = key.find('/')
    dot = key.find('.')
    if slash != -1 and (dot == -1 or slash < dot):
        return key.translate(str.maketrans('/.', './'))
    return key


def parse_value(text):
    """Int when the text is an integer, else the stripped text."""
    number = parse_int(text)
    return number if number is not None else text.strip()


def parse_sysctl_conf(text):
    """Assignments of one sysctl.d file, in order.

    Returns a list of dicts: key (dotted), value (int or text), line (1-based),
    ignore_errors (the line started with ``-``).  ``#`` and ``;`` start comment
    lines; lines without ``=`` are skipped."""
    assignments = []
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in '#;':
            continue
        ignore_errors = False
        if stripped.startswith('-'):
            ignore_errors = True
            stripped = stripped[1:]
        key, sep, value = stripped.partition('=')
        if not sep or not key.strip():
            continue
        assignments.append({
            'key': normalize_key(key),
            'value': parse_value(value),
            'line': lineno,
            'ignore_errors': ignore_errors,
        })
    return assignments


def load_order(conf_dirs=CONF_DIRS, sysctl_conf=SYSCTL_CONF):
    """Paths of the persistent sysctl files in the order they are applied."""
    chosen = {}
    for directory in conf_dirs:
        try:
            names = os.listdir(directory)
        except (IOError, OSError):
            continue
        for name in names:
            if name.endswith('.conf') and name not in chosen:
                chosen[name] = os.path.join(directory, name)
    paths = [chosen[name] for name in sorted(chosen)]
    if sysctl_conf and os.path.isfile(sysctl_conf):
        paths.append(sysctl_conf)
    # the same file reached twice counts once, at its last position
    last = {}
    for index, path in enumerate(paths):
        last[os.path.realpath(path)] = index
    return [path for index, path in enumerate(paths) if last[os.path.realpath(path)] == index]


def _matches(pattern, key):
    if pattern == key:
        return True
    return any(char in pattern for char in '*?[') and fnmatch.fnmatchcase(key, pattern)


def read_persistent(keys, conf_dirs=CONF_DIRS, sysctl_conf=SYSCTL_CONF, errors=None):
    """Persistent assignments of the dotted ``keys``.

    Returns {key: [{file, line, value}, ...]} in application order (the last
    one wins); keys never assigned map to []."""
    found = dict((key, []) for key in keys)
    for path in load_order(conf_dirs, sysctl_conf):
        text = read_text(path, errors)
        if text is None:
            continue
        for assignment in parse_sysctl_conf(text):
            for key in keys:
                if _matches(assignment['key'], key):
                    found[key].append({'file': path, 'line': assignment['line'], 'value': assignment['value']})
    return found


def read_live(proc_root, key):
    """Current int value of dotted ``key`` from ``<proc_root>/sys``; None when unreadable or not an int."""
    path = os.path.join(proc_root, 'sys', *key.split('.'))
    try:
        with open(path, 'r') as handle:
            return parse_int(handle.read())
    except (IOError, OSError):
        return None


def read_vm(proc_root='/proc', conf_dirs=CONF_DIRS, sysctl_conf=SYSCTL_CONF, keys=VM_KEYS, errors=None):
    """Live and persistent values of ``vm.<key>`` for each short name in ``keys``.

    Returns {short_name: {value, persistent: [{file, line, value}],
    effective_persistent, effective_file}}."""
    dotted = ['vm.' + key for key in keys]
    persistent = read_persistent(dotted, conf_dirs, sysctl_conf, errors)
    result = {}
    for key, full in zip(keys, dotted):
        value = read_live(proc_root, full)
        if value is None and errors is not None:
            errors.append('cannot read %s' % os.path.join(proc_root, 'sys', 'vm', key))
        assignments = persistent[full]
        last = assignments[-1] if assignments else None
        result[key] = {
            'value': value,
            'persistent': assignments,
            'effective_persistent': last['value'] if last else None,
            'effective_file': last['file'] if last else None,
        }
    return result


# ---------------------------------------------------------------- any key, as text (snapshot format 2)

_GLOB_CHARS = '*?['
# files whose read is an action, not a value: reading vm/stat_refresh (0600, readable by root) refreshes
# every CPU's vm counters; a snapshot changes nothing, so it does not read them
ACTION_FILES = ('vm/stat_refresh',)


def key_parts(key):
    """The path components under ``<proc_root>/sys`` of the dotted ``key`` (a literal dot, written
    ``/`` in the dotted form, is a dot in the file name): ``net.ipv4.conf.eth0/100.forwarding`` ->
    ``[net, ipv4, conf, eth0.100, forwarding]``.  None for a key that would leave the tree (an empty,
    ``.`` or ``..`` component)."""
    parts = [part.replace('/', '.') for part in normalize_key(key).split('.')]
    if any(part in ('', '.', '..') for part in parts):
        return None
    return parts


def dotted_key(parts):
    """The dotted key of path components (a dot in a file name becomes ``/``)."""
    return '.'.join(part.replace('.', '/') for part in parts)


def read_text_value(path):
    """The text of one sysctl file with whitespace runs collapsed to one space and stripped, or None
    when it is not a regular file or cannot be read (write-only files such as ``vm/drop_caches``
    for a user other than root, or ``vm/compact_memory``)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, 'rb') as handle:
            data = handle.read()
    except (IOError, OSError, ValueError):
        return None
    return ' '.join(data.decode('utf-8', 'replace').split())


def expand_key(proc_root, key):
    """The concrete dotted keys under ``<proc_root>/sys`` that ``key`` names: itself, or for a
    pattern (``net.ipv4.conf.*.rp_filter``, as systemd-sysctl expands it) every existing key it
    matches, sorted.  [] for a key that would leave the tree."""
    parts = key_parts(key)
    if parts is None:
        return []
    if not any(char in part for part in parts for char in _GLOB_CHARS):
        return [dotted_key(parts)]
    found = [[]]
    for part in parts:
        following = []
        for prefix in found:
            if not any(char in part for char in _GLOB_CHARS):
                following.append(prefix + [part])
                continue
            try:
                names = sorted(os.listdir(os.path.join(proc_root, 'sys', *prefix)))
            except (IOError, OSError):
                continue
            following.extend(prefix + [name] for name in names if fnmatch.fnmatchcase(name, part))
        found = following
    return [dotted_key(parts_found) for parts_found in found]


def read_key_text(proc_root, key):
    """The live value of the concrete dotted ``key`` as text (read_text_value), or None."""
    parts = key_parts(key)
    if parts is None:
        return None
    return read_text_value(os.path.join(proc_root, 'sys', *parts))


def read_tree_texts(proc_root, prefix):
    """{dotted key: text} of every readable file directly under ``<proc_root>/sys/<prefix>``
    (``vm``: all of ``/proc/sys/vm``); unreadable and write-only files are left out silently."""
    directory = os.path.join(proc_root, 'sys', *key_parts(prefix) or [])
    try:
        names = sorted(os.listdir(directory))
    except (IOError, OSError):
        return {}
    values = {}
    for name in names:
        if '%s/%s' % (prefix, name) in ACTION_FILES:
            continue
        value = read_text_value(os.path.join(directory, name))
        if value is not None:
            values['%s.%s' % (prefix, name.replace('.', '/'))] = value
    return values
