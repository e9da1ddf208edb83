# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""VxFS /etc/vx/tunefstab and ``vxtunefs`` output; pure, no AnsibleModule.

tunefstab(4): one ``<block-device> name=value[,name=value...]`` per line,
``#`` comments, several lines for one device apply in order; a ``system-default``
line (HP-UX tunefstab(4)) applies to every file system and takes precedence over a
device's lines. The Veritas installer writes that line as ``system_default`` (its CPI
code greps and appends ``system_default <tunable>=<value>``): both spellings are that
line, never a device.

Values (vxtunefs(1M)): bytes, or a number with ``k``, ``m``, ``g``, ``t`` or ``s``
(512-byte sectors, which HP-UX vxtunefs accepts), in either case. Any other form
(``0x100000``, ``1.5m``) is kept as the text written and named in ``errors`` with its
line: the planner then knows that line's value is not known.

A ``#`` that starts a word after the device (``/dev/vx/dsk/dg/v1 read_ahead=2  # seed 001``)
begins a trailing comment, as in fstab: it is not part of the last value, and an edit of the
line keeps it (split_comment).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text

DEFAULT_PATH = '/etc/vx/tunefstab'
SYSTEM_DEFAULT = 'system-default'
# the installer's spelling of the same line (see the module docstring)
SYSTEM_DEFAULT_NAMES = (SYSTEM_DEFAULT, 'system_default')
VALUE_FORMS = 'bytes, or a number followed by k, m, g, t or s (512-byte sectors)'
_VALUE_RE = re.compile(r'^(-?[0-9]+)$|^([0-9]+)([kmgts])$', re.IGNORECASE)
_VALUE_FACTORS = {'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30, 't': 1 << 40, 's': 512}


def parse_tunable_value(text):
    """Int for the forms vxtunefs documents (VALUE_FORMS: ``256k`` -> 262144, ``2048s`` -> 1048576),
    otherwise the text."""
    text = text.strip()
    found = _VALUE_RE.match(text)
    if found:
        return int(found.group(1)) if found.group(1) else int(found.group(2)) * _VALUE_FACTORS[found.group(3).lower()]
    return text


def parse_tunables(text):
    """Parse ``name=value,name=value`` into (dict, list of bad items); a value not in VALUE_FORMS is kept
    as its text (the caller names it)."""
    tunables = {}
    bad = []
    for item in text.split(','):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition('=')
        if not sep or not name.strip() or not value.strip():
            bad.append(item)
            continue
        tunables[name.strip()] = parse_tunable_value(value)
    return tunables, bad


def split_lines(text):
    """Lines of ``text`` with their terminators; ''.join() gives the text back.

    Only newline ends a line, as for the VxFS tools (str.splitlines would also
    end one at a form feed, \\x1c or \\x85 and shift the line numbers)."""
    lines = (text or '').split('\n')
    return [line + '\n' for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


_COMMENT_RE = re.compile(r'\s#')
_DEVICE_RE = re.compile(r'^\s*\S+')


def split_comment(body):
    """(content, comment) of a line without its terminator: ``comment`` is a trailing comment with
    the whitespace before it (``'  # seed 001'``), or ''; ``content + comment == body``.

    Only a ``#`` after the device word that follows whitespace starts one; a ``#`` inside a word
    is kept in it (a whole-line comment has no device: it is not split here)."""
    device = _DEVICE_RE.match(body)
    if not device or body.lstrip().startswith('#'):
        return body, ''
    found = _COMMENT_RE.search(body, device.end())
    if not found:
        return body, ''
    content = body[:found.start() + 1].rstrip()
    return content, body[len(content):]


def parse_tunefstab(text, errors=None):
    """Parse tunefstab text into [{device, tunables: {name: value}, line}].

    The tunable list is normally one comma-separated word; whitespace after a
    comma is tolerated.  Lines with a device and no valid tunable, and items
    without ``=``, are reported in ``errors``."""
    result = []
    for lineno, line in enumerate(split_lines(text), 1):
        stripped = split_comment(line.rstrip('\r\n'))[0].strip()
        if not stripped or stripped.startswith('#'):
            continue
        parts = stripped.split(None, 1)
        device = SYSTEM_DEFAULT if parts[0] in SYSTEM_DEFAULT_NAMES else parts[0]
        tunables, bad = parse_tunables(parts[1].replace(' ', '').replace('\t', '') if len(parts) > 1 else '')
        if bad and errors is not None:
            errors.append('tunefstab line %d: not name=value: %s' % (lineno, ', '.join(bad)))
        odd = ['%s=%s' % (name, value) for name, value in sorted(tunables.items()) if not isinstance(value, int)]
        if odd and errors is not None:
            errors.append('tunefstab line %d: %s: not a value vxtunefs documents (%s)' % (lineno, ', '.join(odd), VALUE_FORMS))
        if not tunables:
            if errors is not None and not bad:
                errors.append('tunefstab line %d: no tunables for %s' % (lineno, device))
            continue
        result.append({'device': device, 'tunables': tunables, 'line': lineno})
    return result


def effective_tunables(entries):
    """Merge the entries per device in file order (later lines win)."""
    merged = {}
    for entry in entries:
        merged.setdefault(entry['device'], {}).update(entry['tunables'])
    return merged


def parse_vxtunefs_output(text):
    """Parse ``vxtunefs -p`` / ``vxtunefs <mount>`` output (``read_pref_io = 65536``
    lines, with a ``Filesystem i/o parameters for /mnt`` header) into a dict."""
    values = {}
    for line in text.splitlines():
        name, sep, value = line.partition('=')
        name = name.strip()
        if not sep or not name or ' ' in name:
            continue
        values[name] = parse_tunable_value(value)
    return values


def read_tunefstab(path=DEFAULT_PATH, errors=None):
    """Read and parse a tunefstab file.  Returns (present, entries); a missing
    file is normal (present False), an unreadable one is reported in errors."""
    text = read_text(path, errors, missing_ok=True)
    if text is None:
        return os.path.exists(path), []
    return True, parse_tunefstab(text, errors)
