# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host's copy of a run report: where it goes, what its file holds, and which older ones stay."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re
import stat

from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import atomic_write
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import check_existing, open_nofollow, private_directory


def report_paths(directory, names):
    """The path of each report file; ValueError naming the field when a name is not a plain file name."""
    if not directory or not os.path.isabs(directory):
        raise ValueError('dir: must be an absolute path, got %r' % (directory,))
    if not names:
        raise ValueError('names: at least one file name is needed')
    paths = []
    for index, name in enumerate(names):
        if not name or '/' in name or name.startswith('.') or any(ord(char) < 32 or ord(char) == 127 for char in name):
            raise ValueError('names[%d]: %r is not a plain file name (no "/", no control characters such as a newline, '
                             'not empty, not starting with ".")' % (index, name))
        path = os.path.join(directory, name)
        if path not in paths:
            paths.append(path)
    return paths


# what no report may hold as such: lone surrogates (a byte that was not UTF-8, read with surrogateescape,
# is U+DC80-U+DCFF) cannot be encoded as UTF-8, so a module result holding one is refused by the controller
_NOT_UTF8 = re.compile(u'[\ud800-\udfff]')
# and what XML 1.0 forbids besides (junit.xml, report.html): C0 controls but tab, newline and carriage return; U+FFFE/F
_NOT_XML = re.compile(u'[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _shown(match):
    code = ord(match.group(0))
    if 0xdc80 <= code <= 0xdcff:
        return '\\x%02x' % (code - 0xdc00)     # the byte itself, as Python shows it
    return '\\x%02x' % code if code < 0x100 else '\\u%04x' % code


def visible_text(text, forbidden=_NOT_UTF8):
    """``text`` with each character ``forbidden`` matches shown as its escape: a byte that was
    not UTF-8 as ``\\xe9`` (the byte), a control character as ``\\x1b``, another as ``\\ufffe``.
    Nothing is dropped; a backslash already in the text is left as it is."""
    return forbidden.sub(_shown, text) if forbidden.search(text) else text


def xml_text(text):
    """``text`` as XML 1.0 may hold it (see visible_text)."""
    return visible_text(text, _NOT_XML)


def visible_data(value):
    """``value`` (a module result, a report) with every string in it, keys too, valid UTF-8
    (visible_text): the controller refuses a result holding a byte of a host's file that is not
    UTF-8 (issue 38, item 12), and the file itself keeps its bytes."""
    if isinstance(value, str):
        return visible_text(value)
    if isinstance(value, dict):
        return dict((visible_data(key), visible_data(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [visible_data(item) for item in value]
    return value


# a report's ``time`` (and a history line's): UTC, to the second
TIME_RE = re.compile(r'^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$')
READ_LIMIT = 64 << 20


def read_json_file(path, limit=READ_LIMIT):
    """The JSON value of the file at ``path``, or None when it is missing, a link, not a regular
    file of the running user, over ``limit`` bytes or not JSON: a file read back is input
    (DESIGN.md), and its caller takes from it only the fields it checks."""
    try:
        with os.fdopen(open_nofollow(path, os.O_RDONLY), 'rb') as handle:
            data = handle.read(limit + 1)
    except (IOError, OSError):
        return None
    if len(data) > limit:
        return None
    try:
        return json.loads(data.decode('utf-8'))
    except ValueError:
        return None


def render_report(report):
    """The bytes of a report file: JSON as the controller's copy is written (to_nice_json), and a newline."""
    return (json.dumps(visible_data(report), indent=4, sort_keys=True, separators=(',', ': ')) + '\n').encode('utf-8')


def _holds(path, data):
    try:
        with os.fdopen(open_nofollow(path, os.O_RDONLY), 'rb') as handle:
            return handle.read() == data
    except (IOError, OSError):
        return False


def write_report(directory, names, report, mode=0o640, dir_mode=0o750, check=False):
    """Write ``report`` to each of ``names`` in ``directory`` (created with ``dir_mode``),
    atomically, skipping files that already hold it. Returns (paths, written).
    The directory must belong to the running user and not be writable by group or other, and a
    link planted at a report's name is replaced, never written through (issue 23, T3).
    ValueError names a bad field; IOError/OSError come from the file system."""
    paths = report_paths(directory, names)
    check_existing(directory, 'dir')
    data = render_report(report)
    written = [path for path in paths if not _holds(path, data)]
    if check or not written:
        return paths, written
    private_directory(directory, 'dir', dir_mode)
    for path in written:
        atomic_write(path, data, mode=mode, follow_links=False)
    return paths, written


def is_report_name(name, mode):
    """Whether ``name`` is a report file of ``mode`` that pruning may remove (not ``<mode>-latest.json``)."""
    return bool(re.match(r'^%s-[^/]+\.json\Z' % re.escape(mode), name)) and name != '%s-latest.json' % mode


def kept_reports(directory, mode):
    """The report files of ``mode`` in ``directory`` (``<mode>-*.json``, not ``<mode>-latest.json``),
    oldest first by modification time: what pruning chooses from. Only regular files and links
    (a link is removed, never followed) are named; a directory of that name is left alone."""
    found = []
    for name in os.listdir(directory):
        if not is_report_name(name, mode):
            continue
        try:
            st = os.lstat(os.path.join(directory, name))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            found.append((st.st_mtime_ns if hasattr(st, 'st_mtime_ns') else int(st.st_mtime * 1e9), name))
    return [name for dummy, name in sorted(found)]


def prune_reports(directory, mode, keep, protect=(), check=False):
    """Remove all but the newest ``keep`` report files of ``mode`` from ``directory`` (0: keep
    every one), never a name in ``protect`` (this run's, counted even when check mode has not
    written it); returns the paths removed (in check mode, those that would be)."""
    if not keep or not os.path.isdir(directory):
        return []
    names = kept_reports(directory, mode)
    unwritten = [name for name in protect if is_report_name(name, mode) and name not in names]
    surplus = len(names) + len(set(unwritten)) - keep
    removed = []
    for name in names:
        if surplus <= 0:
            break
        if name in protect:
            continue
        path = os.path.join(directory, name)
        if not check:
            try:
                os.unlink(path)
            except OSError:
                if not os.path.lexists(path):
                    continue    # another run removed it first
                raise
        removed.append(path)
        surplus -= 1
    return removed
