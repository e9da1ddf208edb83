# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount tables of Solaris/illumos and HP-UX: pure parsers, no AnsibleModule.

- Solaris ``/etc/vfstab``: seven fields, device to mount, device to fsck, mount point, FS type,
  fsck pass, mount at boot (``yes``/``no``), options; ``-`` for an empty field.
- HP-UX ``/etc/fstab`` (fstab(4)): device special file, directory, type, options, backup
  frequency, pass number, then an optional ``#`` comment; "if any field after the name of the
  device special file is present, all fields must be present".
- ``/etc/mnttab`` (the live table): Solaris ``special mount_point fstype options time`` (TAB
  separated on a live system), HP-UX ``special dir type options freq pass time``.
- ``mount -v`` (``special on mount_point type fstype opt/opt/... on date``) and ``mount`` with no
  arguments (``mount_point on special opt/opt/... on date``) of Solaris/illumos.

Every line is kept with its raw text (``render_lines`` gives the file back byte for byte), so a
later edit can change one field and keep the rest.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

_FIELDS_RE = re.compile(r'[^ \t\r\n\f\v]+')
_NUMBER_RE = re.compile(r'[0-9]+\Z')
_BLANK_RE = re.compile(r'[ \t\r\n\f\v#]')
_MOUNT_V_RE = re.compile(r'^(?P<special>\S+) on (?P<mount_point>\S+) type (?P<fstype>\S+) (?P<options>\S+)(?: on (?P<date>.*))?$')
# Solaris' mount without -v prints a read-only mount's options as 'read only/...', with a space (illumos mount.c flags())
_MOUNT_RE = re.compile(r'^(?P<mount_point>\S+) on (?P<special>\S+) (?P<options>read only(?:/\S*)?|\S+)(?: on (?P<date>.*))?$')

VFSTAB_FIELDS = ('device', 'fsck_device', 'mount_point', 'fstype', 'fsck_pass', 'mount_at_boot', 'options')
HPUX_FSTAB_FIELDS = ('device', 'mount_point', 'fstype', 'options', 'backup_frequency', 'pass')


class TableLine(object):
    """One line of a mount table file: ``kind`` entry, comment, blank or invalid; ``raw`` its exact text
    (line terminator included); for an entry, ``fields`` by name and ``options`` as a list; for an
    invalid line, ``problem``; ``layout`` the field names of its table (VFSTAB_FIELDS or HPUX_FSTAB_FIELDS).

    An entry offers what the mount planner reads of a Linux fstab line (plan.mount_options): ``lineno``,
    ``to_dict()`` and ``with_options()``."""

    def __init__(self, number, raw, kind, fields=None, options=None, problem=None, layout=None):
        self.number = number
        self.raw = raw
        self.kind = kind
        self.fields = fields or {}
        self.options = options or []
        self.problem = problem
        self.layout = layout

    def __repr__(self):
        return 'TableLine(%d, %s, %r)' % (self.number, self.kind, self.fields or self.raw)

    @property
    def lineno(self):
        return self.number

    def to_dict(self):
        """The entry as parse.fstab's FstabLine.to_dict() gives it: spec, file (the mount point; '' for an
        HP-UX entry of the device alone), vfstype, options, line."""
        if self.kind != 'entry':
            return None
        return {'spec': self.fields['device'], 'file': self.fields.get('mount_point', ''),
                'vfstype': self.fields.get('fstype'), 'options': list(self.options), 'line': self.number}

    def with_options(self, options):
        """A copy of this entry with its options field replaced by ``options`` (none: ``-`` in vfstab,
        ``defaults`` in HP-UX fstab), every other byte of the line kept."""
        if self.kind != 'entry' or 'options' not in self.fields:
            raise ValueError('line %d has no options field' % self.number)
        text = ','.join(options) if options else ('-' if self.layout == VFSTAB_FIELDS else 'defaults')
        if not text or _BLANK_RE.search(text):
            raise ValueError('a mount table field must be non-empty and free of blanks: %r' % text)
        # an HP-UX line's fields end at its '#' comment
        comment = self.raw.find('#') if self.layout == HPUX_FSTAB_FIELDS else -1
        spans = [match.span() for match in _FIELDS_RE.finditer(self.raw, 0, len(self.raw) if comment < 0 else comment)]
        start, end = spans[self.layout.index('options')]
        return _LINE_PARSERS[self.layout](self.number, self.raw[:start] + text + self.raw[end:])


def render_lines(lines):
    return ''.join(line.raw for line in lines)


def split_options(text, separator=','):
    """The options of a comma list (``-`` or empty: none)."""
    return [] if text in ('', '-') else [option for option in text.split(separator) if option]


def _lines(text):
    return enumerate(text.splitlines(True), 1)


def _skip(number, raw):
    """A comment or blank line, else None."""
    stripped = raw.strip()
    if not stripped:
        return TableLine(number, raw, 'blank')
    if stripped.startswith('#'):
        return TableLine(number, raw, 'comment')
    return None


def _parse_table(text, classify):
    """One TableLine per line: comments and blank lines as such, the others as ``classify(number, raw)`` says."""
    return [_skip(number, raw) or classify(number, raw) for number, raw in _lines(text)]


def _vfstab_line(number, raw):
    values = _FIELDS_RE.findall(raw)
    if len(values) != len(VFSTAB_FIELDS):
        return TableLine(number, raw, 'invalid', problem='%d fields; vfstab has 7' % len(values))
    if values[5] not in ('yes', 'no'):
        return TableLine(number, raw, 'invalid', problem="mount at boot is '%s', not yes or no" % values[5])
    if values[4] != '-' and not _NUMBER_RE.match(values[4]):
        return TableLine(number, raw, 'invalid', problem="fsck pass is '%s', not a number or -" % values[4])
    fields = dict(zip(VFSTAB_FIELDS, values))
    return TableLine(number, raw, 'entry', fields, split_options(fields['options']), layout=VFSTAB_FIELDS)


def _hpux_fstab_line(number, raw):
    body, hash_sign, comment = raw.partition('#')
    values = _FIELDS_RE.findall(body)
    if len(values) not in (1, len(HPUX_FSTAB_FIELDS)):
        return TableLine(number, raw, 'invalid',
                         problem='%d fields; an HP-UX fstab entry has the device alone or all 6' % len(values))
    if len(values) == 6 and not (_NUMBER_RE.match(values[4]) and _NUMBER_RE.match(values[5])):
        return TableLine(number, raw, 'invalid', problem='backup frequency and pass must be numbers')
    fields = dict(zip(HPUX_FSTAB_FIELDS, values))
    fields['comment'] = comment.strip() if hash_sign else None
    return TableLine(number, raw, 'entry', fields, split_options(fields.get('options', '')), layout=HPUX_FSTAB_FIELDS)


_LINE_PARSERS = {VFSTAB_FIELDS: _vfstab_line, HPUX_FSTAB_FIELDS: _hpux_fstab_line}


def parse_vfstab(text):
    """Solaris/illumos /etc/vfstab: one TableLine per line."""
    return _parse_table(text, _vfstab_line)


def parse_hpux_fstab(text):
    """HP-UX /etc/fstab (fstab(4)): one TableLine per line; the trailing comment is ``fields['comment']``."""
    return _parse_table(text, _hpux_fstab_line)


def live_options(options):
    """A mnttab option list without its ``dev=`` (mnttab(4): the device id, not a mount option)."""
    return [option for option in options if not option.startswith('dev=')]


def parse_mnttab(text):
    """/etc/mnttab of Solaris (5 fields) or HP-UX (7): a list of mounts, each a dict with special,
    mount_point, fstype, options (list) and time (seconds since the epoch, or None); the lines that are
    neither are left out."""
    mounts = []
    for raw in text.splitlines():
        values = raw.split('\t') if raw.count('\t') >= 4 else raw.split()
        values = [value.strip() for value in values]
        if len(values) not in (5, 7) or not _NUMBER_RE.match(values[-1]):
            continue
        mounts.append({'special': values[0], 'mount_point': values[1], 'fstype': values[2],
                       'options': split_options(values[3]), 'time': int(values[-1])})
    return mounts


def split_listed_options(text):
    """The slash-separated options of ``mount``/``mount -v`` output. A ZFS ``mountpoint=`` value is a
    path: it takes the pieces up to the next one that has a ``=`` (``dev=`` ends every list)."""
    options = []
    pieces = text.split('/')
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        if piece.startswith('mountpoint='):
            while index + 1 < len(pieces) and '=' not in pieces[index + 1]:
                index += 1
                piece += '/' + pieces[index]
        if piece:
            options.append(piece)
        index += 1
    return options


def parse_mount_listing(text, errors=None):
    """Solaris/illumos ``mount -v`` or ``mount`` output: a list of mounts as parse_mnttab gives them,
    with the listing's date text in place of the time (``read only``, as mount prints a read-only mount
    without -v, is one option). A line of neither layout is named in ``errors`` with its number."""
    mounts = []
    for number, raw in enumerate(text.splitlines(), 1):
        found = _MOUNT_V_RE.match(raw) or _MOUNT_RE.match(raw)
        if not found:
            if raw.strip() and errors is not None:
                errors.append('mount output line %d: neither the layout of mount nor of mount -v: %s' % (number, raw.strip()))
            continue
        values = found.groupdict()
        mounts.append({'special': values['special'], 'mount_point': values['mount_point'],
                       'fstype': values.get('fstype'), 'options': split_listed_options(values['options']),
                       'date': values['date']})
    return mounts
