# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""VxFS /etc/vx/tunefstab and ``vxtunefs`` output; pure, no AnsibleModule.

tunefstab(4): one ``<block-device> name=value[,name=value...]`` per line,
``#`` comments, several lines for one device apply in order; HP-UX also has
``system-default`` lines.

A ``#`` that starts a word after the device (``/dev/vx/dsk/dg/v1 read_ahead=2  # seed 001``)
begins a trailing comment, as in fstab: it is not part of the last value, and an edit of the
line keeps it (split_comment).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.units import is_size, parse_int, to_bytes
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text

DEFAULT_PATH = '/etc/vx/tunefstab'
SYSTEM_DEFAULT = 'system-default'


def parse_tunable_value(text):
    """Int for integers and sizes (``256k`` -> 262144), otherwise the text."""
    text = text.strip()
    number = parse_int(text)
    if number is not None:
        return number
    if is_size(text):
        return to_bytes(text)
    return text


def parse_tunables(text):
    """Parse ``name=value,name=value`` into (dict, list of bad items)."""
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
        device = parts[0]
        tunables, bad = parse_tunables(parts[1].replace(' ', '').replace('\t', '') if len(parts) > 1 else '')
        if bad and errors is not None:
            errors.append('tunefstab line %d: not name=value: %s' % (lineno, ', '.join(bad)))
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
