# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parse /proc/self/mountinfo (proc(5)); pure, no AnsibleModule.

Line format::

    36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
    (1)(2) (3)   (4)   (5)      (6)      (7)   (8) (9)   (10)         (11)

(7) is zero or more optional fields ended by the single "-" (8).  The kernel
escapes space, tab, newline and backslash in (4), (5) and (10) as octal
``\\040``, ``\\011``, ``\\012``, ``\\134``.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text

# libmount's unmangle: a backslash and three octal digits are one byte (the kernel escapes space, tab,
# newline and backslash so in mountinfo, and fstab writers the same and sometimes more, such as a comma)
_OCTAL_RE = re.compile(br'\\([0-7]{3})')
# Fields are separated by spaces and tabs only, as libmount separates them: any other character (a form
# feed, a carriage return inside a line, \x85, a no-break space...) belongs to the field, so lines end at
# newline alone (not str.splitlines) and fields split at spaces and tabs (not str.split).
SEPARATORS = ' \t'
_FIELD_SEP_RE = re.compile(r'[ \t]+')
# strtol: leading white space, a sign, decimal digits
_STRTOL_RE = re.compile(r'[ \t\n\v\f\r]*([+-]?[0-9]+)')
# sscanf("%u:%u")
_DEVNO_RE = re.compile(r'[ \t\n\v\f\r]*([+-]?[0-9]+):[ \t\n\v\f\r]*([+-]?[0-9]+)')


def unescape(text):
    """Decode octal escapes (``\\040`` -> space) as libmount does: each is one byte, so ``caf\\303\\251`` is
    ``café``, the byte kept to its low eight bits (``\\401`` is ``\\001``), and one that is NUL (``\\000``,
    ``\\400``) ends the name, as a C string ends; text and result keep undecodable bytes as surrogates
    (surrogateescape), as the files are read."""
    if '\\' not in text:
        return text
    raw = text.encode('utf-8', 'surrogateescape')
    out, pos = [], 0
    for match in _OCTAL_RE.finditer(raw):
        value = int(match.group(1), 8) & 0xff
        out.append(raw[pos:match.start()])
        if not value:
            return b''.join(out).decode('utf-8', 'surrogateescape')
        out.append(bytes((value,)))
        pos = match.end()
    out.append(raw[pos:])
    return b''.join(out).decode('utf-8', 'surrogateescape')


def escape(text):
    """Inverse of unescape() for the characters the kernel and fstab escape."""
    out = []
    for char in text:
        if char in ' \t\n\\':
            out.append('\\%03o' % ord(char))
        else:
            out.append(char)
    return ''.join(out)


def word_at(line, pos):
    """(the field that starts at pos, where it ends): up to the next space or tab (libmount's unmangle)."""
    end = pos
    while end < len(line) and line[end] not in SEPARATORS:
        end += 1
    return line[pos:end], end


def skip_separators(line, pos):
    while pos < len(line) and line[pos] in SEPARATORS:
        pos += 1
    return pos


def c_integer(text):
    """The int libmount reads from a field with strtol (a sign allowed, nothing after the digits), kept to a
    C int as libmount stores it; None when it is not one."""
    match = _STRTOL_RE.match(text)
    if not match or match.end() != len(text):
        return None
    value = int(match.group(1))
    if not -2 ** 63 <= value < 2 ** 63:
        return None  # ERANGE
    return (value + 2 ** 31) % 2 ** 32 - 2 ** 31


def merge_options(vfs, fs):
    """The options of a mount as libmount merges its two fields (merge_optstr, what findmnt shows): the VFS
    options, then the file system's, without their ``rw`` and ``ro``, after ``ro`` when either says ``ro``
    (a writable mount of a file system that is read-only, as ``errors=remount-ro`` leaves ext4, is read-only),
    else ``rw``. vfs and fs are the fields as written (None when absent)."""
    if vfs is None or fs is None:
        return split_options(vfs if fs is None else fs)
    if vfs == fs:
        return split_options(vfs)
    items = split_options(vfs) + split_options(fs)
    rw = _remove_once(items, 'rw') + _remove_once(items, 'rw')
    ro = 0
    if rw != 2:
        ro = _remove_once(items, 'ro')
        if ro + rw < 2:
            ro += _remove_once(items, 'ro')
    return ['ro' if ro else 'rw'] + items


def _remove_once(items, word):
    """1 after removing the first ``word`` from items, 0 when there is none."""
    if word in items:
        items.remove(word)
        return 1
    return 0


def option_items(text):
    """The comma-separated items of an option string, empty ones kept, a comma inside double quotes belonging to
    its item, as libmount reads them (``context="system_u:object_r:tmp_t:s0:c1,c2"`` is one item)."""
    items, start, quoted = [], 0, False
    for pos, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif char == ',' and not quoted:
            items.append(text[start:pos])
            start = pos + 1
    items.append(text[start:])
    return items


def split_options(text):
    """The options of an option string (option_items), empty items dropped."""
    return [item for item in option_items(text) if item]


def _number_field(line, pos, what):
    text, end = word_at(line, pos)
    value = c_integer(text)
    if value is None:
        raise ValueError('bad %s %r' % (what, text))
    return value, skip_separators(line, end)


def _required_word(line, pos, what):
    word, end = word_at(line, pos)
    if not word:
        raise ValueError('no %s' % what)
    return word, end


def parse_mountinfo_line(line):
    """Parse one mountinfo line into a dict, field by field as libmount reads it (mnt_parse_mountinfo_line): an
    empty source (two spaces after the file system type) is '', the file system's options are required; raises
    ValueError when malformed."""
    mount_id, pos = _number_field(line, skip_separators(line, 0), 'mount id')
    parent_id, pos = _number_field(line, pos, 'parent id')
    devno = _DEVNO_RE.match(line, pos)
    if not devno:
        raise ValueError('bad major:minor')
    pos = skip_separators(line, word_at(line, devno.end())[1])
    root, pos = _required_word(line, pos, 'root')
    mount_point, pos = _required_word(line, skip_separators(line, pos), 'mount point')
    vfs, pos = _required_word(line, skip_separators(line, pos), 'mount options')
    dash = line.find(' - ', pos)
    if dash < 0:
        raise ValueError('no " - " separator after the optional fields')
    optional = line[pos + 1:dash] if dash > pos + 1 else ''
    fstype, pos = _required_word(line, skip_separators(line, dash + 3), 'file system type')
    if pos >= len(line):
        raise ValueError('no source')
    if line.startswith('  ', pos):
        source = ''
    else:
        source, pos = _required_word(line, skip_separators(line, pos), 'source')
    fs, pos = _required_word(line, skip_separators(line, pos), 'file system options')
    vfs, fs = unescape(vfs), unescape(fs)
    major, minor = (c_integer(number) for number in devno.groups())
    return {
        'mount_id': mount_id,
        'parent_id': parent_id,
        'major': major % 2 ** 32,
        'minor': minor % 2 ** 32,
        'root': unescape(root),
        'mount_point': unescape(mount_point),
        'mount_options': split_options(vfs),
        'optional_fields': [field for field in _FIELD_SEP_RE.split(optional) if field],
        'fstype': unescape(fstype),
        'source': unescape(source),
        'super_options': split_options(fs),
        'options': merge_options(vfs, fs),
    }


def parse_mountinfo(text, errors=None):
    """Parse mountinfo text into a list of entry dicts, in file order.

    Each entry: mount_id, parent_id, major, minor, root, mount_point,
    mount_options (list), optional_fields (list), fstype, source,
    super_options (list), options (merged as libmount merges them: merge_options)
    and line (1-based).  Lines end at a newline only (a carriage return before it is
    dropped, one inside a name is part of it, as for libmount); blank lines and ``#``
    lines (used only in hand-written fixtures) are skipped; malformed lines are
    reported in ``errors`` (a list, appended to) and skipped.
    """
    entries = []
    for lineno, line in enumerate(text.split('\n'), 1):
        if line.endswith('\r'):
            line = line[:-1]
        stripped = line.lstrip(SEPARATORS)
        if not stripped or stripped.startswith('#'):
            continue
        try:
            entry = parse_mountinfo_line(stripped)
        except ValueError as exc:
            if errors is not None:
                errors.append('mountinfo line %d: %s: %r' % (lineno, exc, line))
            continue
        entry['line'] = lineno
        entries.append(entry)
    return entries


def visible_mounts(entries):
    """Map mount point -> entry; for a mount point mounted more than once the
    last entry (the one on top, which is visible) wins."""
    result = {}
    for entry in entries:
        result[entry['mount_point']] = entry
    return result


def read_mountinfo(proc_root='/proc', errors=None):
    """Read and parse ``<proc_root>/self/mountinfo``; [] (and an error) when unreadable."""
    path = os.path.join(proc_root, 'self', 'mountinfo')
    # every byte as it is (a name need not be UTF-8; a carriage return is part of a name), as libmount reads it
    text = read_text(path, errors, decode_errors='surrogateescape', newline='')
    return [] if text is None else parse_mountinfo(text, errors)


def mount_entry_of(path, proc_root='/proc'):
    """The mount table entry of the file system ``path`` (an existing path) is on: the longest mount point above it
    with its device number (a bind mount, /proc/sys in a container, has the device number of what it binds), or None.
    OSError when ``path`` cannot be looked at."""
    info = os.stat(path)
    real = os.path.realpath(path)
    found = None
    for entry in read_mountinfo(proc_root):
        if (entry['major'], entry['minor']) != (os.major(info.st_dev), os.minor(info.st_dev)):
            continue
        point = entry['mount_point']
        if real == point or real.startswith(point.rstrip('/') + '/'):
            if found is None or len(point) >= len(found['mount_point']):
                found = entry
    return found
