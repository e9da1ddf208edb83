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

_OCTAL_RE = re.compile(r'\\([0-7]{3})')
# The kernel separates fields with one space and escapes only space, tab, newline and backslash in
# names: any other character (a form feed, \x1c, \x85, a no-break space...) belongs to the name, so
# lines end at newline alone (not str.splitlines) and fields split at spaces and tabs (not str.split).
_FIELD_SEP_RE = re.compile(r'[ \t]+')
_BLANKS = ' \t\r'


def unescape(text):
    """Decode the kernel's octal escapes (``\\040`` -> space)."""
    if '\\' not in text:
        return text
    return _OCTAL_RE.sub(lambda m: chr(int(m.group(1), 8)), text)


def escape(text):
    """Inverse of unescape() for the characters the kernel and fstab escape."""
    out = []
    for char in text:
        if char in ' \t\n\\':
            out.append('\\%03o' % ord(char))
        else:
            out.append(char)
    return ''.join(out)


def merge_options(*option_lists):
    """Concatenate option lists in order, dropping repeated options."""
    seen = set()
    merged = []
    for options in option_lists:
        for option in options:
            if option not in seen:
                seen.add(option)
                merged.append(option)
    return merged


def live_options(mount_options, super_options):
    """The options in force on a mount, as findmnt shows them.

    The per-mount access mode wins: a read-only bind of a read-write file
    system is read-only, so the super block's own ``rw``/``ro`` is dropped
    (libmount does the same when it joins VFS and file-system options).
    """
    return merge_options(mount_options, [o for o in super_options if o not in ('rw', 'ro')])


def split_options(text):
    """Split a comma-separated option string; empty items are dropped."""
    return [item for item in text.split(',') if item]


def parse_mountinfo_line(line):
    """Parse one mountinfo line into a dict; raises ValueError when malformed."""
    fields = [field for field in _FIELD_SEP_RE.split(line.strip(_BLANKS)) if field]
    try:
        sep = fields.index('-', 6)
    except ValueError:
        raise ValueError('no "-" separator after the optional fields')
    if len(fields) < sep + 3:
        raise ValueError('too few fields')
    major, dummy, minor = fields[2].partition(':')
    if not (major.isdigit() and minor.isdigit() and fields[0].isdigit() and fields[1].isdigit()):
        raise ValueError('bad mount id or major:minor')
    mount_options = split_options(fields[5])
    super_options = split_options(fields[sep + 3]) if len(fields) > sep + 3 else []
    return {
        'mount_id': int(fields[0]),
        'parent_id': int(fields[1]),
        'major': int(major),
        'minor': int(minor),
        'root': unescape(fields[3]),
        'mount_point': unescape(fields[4]),
        'mount_options': mount_options,
        'optional_fields': fields[6:sep],
        'fstype': fields[sep + 1],
        'source': unescape(fields[sep + 2]),
        'super_options': super_options,
        'options': live_options(mount_options, super_options),
    }


def parse_mountinfo(text, errors=None):
    """Parse mountinfo text into a list of entry dicts, in file order.

    Each entry: mount_id, parent_id, major, minor, root, mount_point,
    mount_options (list), optional_fields (list), fstype, source,
    super_options (list), options (mount options then super options, without
    duplicates) and line (1-based).  Blank lines and ``#`` lines (used only in
    hand-written fixtures) are skipped; malformed lines are reported in
    ``errors`` (a list, appended to) and skipped.
    """
    entries = []
    for lineno, line in enumerate(text.split('\n'), 1):
        stripped = line.strip(_BLANKS)
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
    text = read_text(path, errors)
    return [] if text is None else parse_mountinfo(text, errors)
