# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""util-linux's real lsblk dumps (tests/unit/fixtures/util-linux-lsblk, see its README) for the tests:
extracting a dump safely, its udev data as a udev database, lsblk's expected tables, and lsblk's way
of printing sizes."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re
import tarfile

DUMPS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures', 'util-linux-lsblk')
DUMPS = ('simple-nvme', 'simple-lvm', 'multi-devs-bcachefs')
TABLES = ('basic', 'discard', 'mnt', 'rw', 'state', 'topo', 'vendor', 'zone')


# ---------------------------------------------------------------- extraction

def _inside(dest, path):
    dest = os.path.realpath(dest)
    return path == dest or path.startswith(dest + os.sep)


def safe_members(archive, dest):
    """The members of ``archive`` that stay inside ``dest``: no absolute or ``..`` names, no link
    pointing out of the tree, no device nodes or FIFOs (the dumps' dev/ holds text files, but a node
    would need root to create and is refused by tarfile's 'data' filter)."""
    chosen = []
    for member in archive.getmembers():
        if member.isdev() or member.isfifo():
            continue
        path = os.path.realpath(os.path.join(dest, member.name))
        if os.path.isabs(member.name) or not _inside(dest, path):
            raise ValueError('%s: %s leaves the tree' % (archive.name, member.name))
        if member.issym() or member.islnk():
            base = os.path.dirname(path) if member.issym() else os.path.realpath(dest)
            target = os.path.realpath(os.path.join(base, member.linkname))
            if os.path.isabs(member.linkname) or not _inside(dest, target):
                raise ValueError('%s: link %s -> %s leaves the tree' % (archive.name, member.name, member.linkname))
        chosen.append(member)
    return chosen


def extract(dump, dest):
    """Extract ``<dump>.tar.xz`` into ``dest``; returns the dump's root (``dest/<dump>``)."""
    with tarfile.open(os.path.join(DUMPS_DIR, dump + '.tar.xz'), 'r:xz') as archive:
        members = safe_members(archive, dest)
        if hasattr(tarfile, 'data_filter'):
            archive.extractall(dest, members=members, filter='data')
        else:  # Python before 3.8.17/3.11.4: the members are checked above
            archive.extractall(dest, members=members)
    return os.path.join(dest, dump)


def udev_database(root, db_dir):
    """Write the dump's udev properties (``dev/<name>``: ``udevadm info --query=property`` lines, which
    lsblk --sysroot reads) as a udev database (``b<MAJ>:<MIN>`` files of ``E:`` lines); returns
    ``db_dir``, or None when the dump has no udev data."""
    dev = os.path.join(root, 'dev')
    if not os.path.isdir(dev):
        return None
    os.makedirs(db_dir)
    for name in sorted(os.listdir(dev)):
        properties = udev_properties(root, name)
        with open(os.path.join(db_dir, 'b%s:%s' % (properties['MAJOR'], properties['MINOR'])), 'w') as handle:
            handle.write(''.join('E:%s=%s\n' % item for item in sorted(properties.items())))
    return db_dir


def udev_properties(root, name):
    """The udev properties of device ``name`` in the dump ({} when it has none)."""
    path = os.path.join(root, 'dev', name)
    if not os.path.isfile(path):
        return {}
    with open(path) as handle:
        return dict(line.rstrip('\n').split('=', 1) for line in handle if '=' in line)


# ---------------------------------------------------------------- lsblk's tables

def _column_ranges(lines):
    """[start, end) of each column of a table: its header word widened to the nearest positions blank on
    every line (lsblk pads each column to its width and separates columns by one blank, so cells with
    blanks, ``KINGSTON SH103S3``, stay whole).  Text outside every range raises."""
    width = max(len(line) for line in lines)
    blank = set(pos for pos in range(width) if all(pos >= len(line) or line[pos] == ' ' for line in lines))
    spans = [match.span() for match in re.finditer(r'\S+', lines[0])]
    ranges = []
    for index, (start, end) in enumerate(spans):
        low = spans[index - 1][1] if index else 0
        high = spans[index + 1][0] if index + 1 < len(spans) else width
        while start > low and (start - 1) not in blank:
            start -= 1
        while end < high and end not in blank:
            end += 1
        ranges.append((start, end))
    for line in lines:
        for pos, char in enumerate(line):
            if char != ' ' and not any(start <= pos < end for start, end in ranges):
                raise ValueError('column %d of %r is in no column of %r' % (pos, line, lines[0]))
    return ranges


def read_table(dump, table):
    """lsblk's expected ``-<table>`` output of a dump as a list of rows ({column: text}, plus ``_depth``,
    the depth in lsblk's tree, and ``_parent``, the KNAME or NAME of the row above it in the tree)."""
    with open(os.path.join(DUMPS_DIR, 'expected', 'lsblk-%s-%s' % (dump, table))) as handle:
        lines = [line.rstrip('\n') for line in handle]
    ranges = _column_ranges(lines)
    header = lines[0].split()
    rows, stack = [], []
    for line in lines[1:]:
        row = dict((column, line[start:end].strip()) for column, (start, end) in zip(header, ranges))
        stripped = row['NAME'].lstrip('|`- ')
        depth = (len(row['NAME']) - len(stripped)) // 2
        row['NAME'], row['_depth'] = stripped, depth
        del stack[depth:]
        row['_parent'] = stack[-1] if stack else None
        stack.append(row.get('KNAME') or stripped)
        rows.append(row)
    return rows


def lsblk_rows(dump):
    """The rows of every table of a dump (not every dump has each), merged by position: [{column: text}]
    (the tables list the same devices in the same order; a NAME or value that differs between tables raises)."""
    merged = None
    for table in [t for t in TABLES if os.path.exists(os.path.join(DUMPS_DIR, 'expected', 'lsblk-%s-%s' % (dump, t)))]:
        rows = read_table(dump, table)
        if merged is None:
            merged = [dict(row) for row in rows]
            continue
        if [row['NAME'] for row in rows] != [row['NAME'] for row in merged]:
            raise ValueError('%s: the %s table lists other devices' % (dump, table))
        for target, row in zip(merged, rows):
            for column, value in [item for item in row.items() if not item[0].startswith('_')]:
                if column in target and target[column] != value:
                    raise ValueError('%s %s: %s is %r in %s, %r before' % (dump, row['NAME'], column, value, table, target[column]))
                target[column] = value
    return merged


# ---------------------------------------------------------------- lsblk's printing

def human_size(size):
    """lsblk's SIZE of ``size`` bytes: util-linux lib/strutils.c size_to_human_string with a one-letter
    suffix (binary units, one decimal rounded half up, a trailing .0 dropped; 1073741312 is 1024M)."""
    exp = 0
    for shift in range(10, 70, 10):
        if size < (1 << shift):
            break
        exp = shift
    letter = 'BKMGTPE'[exp // 10]
    whole = size >> exp if exp else size
    frac = size % (1 << exp) if exp else 0
    if frac:
        frac = (frac * 1000) // (1 << exp)
        frac = ((frac + 50) // 100) * 10
        if frac == 100:  # rounding overflowed
            whole, frac = whole + 1, 0
    if frac:
        text = '%d.%02d' % (whole, frac)
        return (text[:-1] if text.endswith('0') else text) + letter
    return '%d%s' % (whole, letter)


def udev_mangle(text):
    """What udev makes of a model name for ``ID_MODEL`` (lsblk --sysroot prints ``ID_MODEL``): blanks
    to one ``_`` (none at the ends), and characters outside ``0-9A-Za-z#+-.:=@_`` to ``_`` (systemd's
    udev_replace_whitespace and udev_replace_chars)."""
    joined = '_'.join(text.split())
    return re.sub(r'[^0-9A-Za-z#+\-.:=@_]', '_', joined)
