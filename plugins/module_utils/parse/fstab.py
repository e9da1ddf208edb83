# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parse (and later edit) /etc/fstab without losing a byte; pure, no AnsibleModule.

parse_fstab() returns one FstabLine per line of the file (comments, blank and
invalid lines included), each keeping its raw text, so render() gives back the
original text exactly.  Editing one field (FstabLine.set_field) keeps the
whitespace around every other field.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import difflib
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import SEPARATORS, c_integer, escape, option_items, unescape
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import split_options as _split_unescaped
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text

# fields are separated by spaces and tabs only, as libmount separates them (a form feed, a vertical tab or a
# carriage return inside a line is part of a field)
_WS_SPLIT_RE = re.compile(r'([ \t]+)')

# Spec tags and the /dev/disk directory udev maintains for each.
SPEC_TAGS = {
    'UUID': 'by-uuid',
    'LABEL': 'by-label',
    'PARTUUID': 'by-partuuid',
    'PARTLABEL': 'by-partlabel',
    'ID': 'by-id',
}


class FstabLine(object):
    """One line of an fstab file.

    ``raw`` is the exact line text including its line terminator (if any).
    ``kind`` is one of ``entry``, ``comment``, ``blank`` or ``invalid``.
    """

    __slots__ = ('lineno', 'raw', 'kind', 'error', '_parts', '_eol')

    def __init__(self, raw, lineno=None):
        self.lineno = lineno
        self.raw = raw
        self._parse()

    def _parse(self):
        raw = self.raw
        # libmount drops a carriage return before the newline, also at the end of a file without one
        if raw.endswith('\r\n'):
            body, self._eol = raw[:-2], '\r\n'
        elif raw.endswith('\n') or raw.endswith('\r'):
            body, self._eol = raw[:-1], raw[-1]
        else:
            body, self._eol = raw, ''
        self._parts = _WS_SPLIT_RE.split(body)
        stripped = body.strip(SEPARATORS)
        self.error = None
        if not stripped:
            self.kind = 'blank'
        elif stripped.startswith('#'):
            self.kind = 'comment'
        else:
            self.kind = 'entry'
            self.error = _entry_error(self.fields)
            if self.error:
                self.kind = 'invalid'

    @property
    def fields(self):
        """The fields separated by spaces and tabs, as written (still escaped). libmount reads the first six and
        ignores the rest of the line (a seventh field, a ``#`` comment after the pass number)."""
        return [part for part in self._parts[0::2] if part][:6]

    def _field_index(self, index):
        """Position in _parts of field ``index``."""
        count = -1
        for pos in range(0, len(self._parts), 2):
            if self._parts[pos]:
                count += 1
                if count == index:
                    return pos
        return None

    def set_field(self, index, text):
        """Replace field ``index`` (0-based; 3 is options) with ``text`` (already
        escaped), keeping all whitespace.  A missing field (for example dump and
        pass on a 4-field line) is appended after a copy of the previous
        separator (a tab when there is none)."""
        if self.kind not in ('entry', 'invalid'):
            raise ValueError('line %s is not an fstab entry' % self.lineno)
        if not text or _WS_SPLIT_RE.search(text) or '\n' in text:
            raise ValueError('an fstab field must be non-empty and free of whitespace: %r' % text)
        fields = self.fields
        if index > 5:
            raise ValueError('an fstab line has 6 fields, there is no field %d' % index)
        if index < len(fields):
            self._parts[self._field_index(index)] = text
        elif index == len(fields):
            parts = self._parts
            inner = [parts[pos] for pos in range(1, len(parts) - 1, 2) if parts[pos - 1] and parts[pos + 1]]
            sep = inner[-1] if inner else '\t'
            if parts[-1]:
                self._parts = parts + [sep, text]
            else:
                # keep trailing whitespace at the end of the line
                self._parts = parts[:-2] + [sep, text, parts[-2], '']
        else:
            raise ValueError('cannot set field %d of a line with %d fields' % (index, len(fields)))
        self.raw = ''.join(self._parts) + self._eol
        self._parse()

    def set_options(self, options):
        """Make the options field read as the list ``options`` (edit_options_field: what stays is kept as
        written), ``defaults`` when no option is left. ValueError when the field cannot be edited safely
        (edit_options_field)."""
        fields = self.fields
        if len(fields) > 3:
            self.set_field(3, edit_options_field(fields[3], options))
        else:
            self.set_field(3, ','.join(escape(option) for option in options) if options else 'defaults')

    def with_options(self, options):
        """A copy of this line with its options field replaced by ``options``."""
        updated = FstabLine(self.raw, self.lineno)
        updated.set_options(options)
        return updated

    def to_dict(self):
        """Decoded view of an entry (None for comments, blank and invalid lines), as libmount reads it: every
        field unescaped (the options too, so ``x-a=1\\054noexec`` is two options), dump and pass as C ints."""
        if self.kind != 'entry':
            return None
        fields = self.fields + [None] * (6 - len(self.fields))
        return {
            'spec': unescape(fields[0]),
            'file': unescape(fields[1]),
            'vfstype': unescape(fields[2]),
            'options': split_options(fields[3]) if fields[3] is not None else [],
            'freq': c_integer(fields[4]) if fields[4] is not None else 0,
            'passno': c_integer(fields[5]) if fields[5] is not None else 0,
            'line': self.lineno,
        }


def _entry_error(fields):
    """Why libmount refuses an entry line (mnt_parse_table_line), or None: it needs a source, a target and a file
    system type; the dump and pass numbers, when there, are integers (a sign allowed) ending at a separator."""
    if len(fields) < 3:
        return 'expected at least 3 fields (spec, file, vfstype), got %d' % len(fields)
    if any(c_integer(field) is None for field in fields[4:6]):
        error = 'dump and pass fields must be integers'
        if any(field.startswith('#') for field in fields[4:6]):
            error += ' (a "#" comment can only follow the pass field)'
        return error
    return None


def split_options(text):
    """The options of an fstab options field as libmount reads them: unescaped (``\\054`` is a comma), then split
    on commas except inside double quotes (``context="system_u:object_r:tmp_t:s0:c1,c2"`` is one option); empty
    items are dropped."""
    return _split_unescaped(unescape(text))


def edit_options_field(field, options):
    """The options field ``field`` (as written) edited so that libmount reads it as ``options`` (the list in its
    order), changing as little as the edit needs: the items that stay are kept as written (their escapes, empty
    items and places), the options added are escaped where the list puts them. An option added and removed again
    leaves the field as it was."""
    if field.count('"') % 2:
        raise ValueError('its options field %s has an unbalanced double quote: libmount would read what is added '
                         'as part of the quoted value' % field)
    items = option_items(field)
    decoded = [split_options(item) for item in items]
    flat = [option for item_options in decoded for option in item_options]
    kept, inserts = set(), {}
    for tag, old_start, old_end, new_start, new_end in difflib.SequenceMatcher(None, flat, list(options), autojunk=False).get_opcodes():
        if tag == 'equal':
            kept.update(range(old_start, old_end))
        elif tag in ('replace', 'insert'):
            inserts.setdefault(old_start, []).extend(options[new_start:new_end])
    out, pos = [], 0
    for item, item_options in zip(items, decoded):
        positions = range(pos, pos + len(item_options))
        pos += len(item_options)
        if positions:  # what goes before the item goes before it as written
            out.extend(escape(option) for option in inserts.pop(positions[0], []))
        if all(p in kept for p in positions) and not any(p in inserts for p in positions):
            out.append(item)  # an empty item too: it reads as nothing
            continue
        for p in positions:
            out.extend(escape(option) for option in inserts.pop(p, []))
            if p in kept:
                out.append(escape(flat[p]))
    out.extend(escape(option) for option in inserts.pop(len(flat), []))
    text = ','.join(out)
    if split_options(text) != list(options):  # cannot happen; never write what would read otherwise
        text = ','.join(escape(option) for option in options)
    return text or 'defaults'


def split_lines(text):
    """Split text into lines keeping each terminator; ''.join() gives text back.

    Only ``\\n`` ends a line (unlike str.splitlines, which also splits on
    form feeds and other characters)."""
    if not text:
        return []
    pieces = text.split('\n')
    lines = [piece + '\n' for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def parse_fstab(text, errors=None):
    """Parse fstab text into a list of FstabLine records (every line)."""
    records = []
    for lineno, raw in enumerate(split_lines(text), 1):
        record = FstabLine(raw, lineno)
        if record.kind == 'invalid' and errors is not None:
            errors.append('fstab line %d: %s: %r' % (lineno, record.error, raw.rstrip('\r\n')))
        records.append(record)
    return records


def render(records):
    """Text of the records; the original text byte for byte when unchanged."""
    return ''.join(record.raw for record in records)


def make_line(spec, file, vfstype, options, freq=0, passno=0, sep='\t'):
    """A new FstabLine (fields escaped, tab separated, newline terminated)."""
    fields = [escape(spec), escape(file), vfstype, ','.join(options) if options else 'defaults', str(freq), str(passno)]
    return FstabLine(sep.join(fields) + '\n')


def entries(records):
    """The decoded entries (dicts) of the entry records, in file order."""
    return [record.to_dict() for record in records if record.kind == 'entry']


def normalize_mount_point(path):
    """Mount point as the kernel shows it: no trailing slash except for '/'."""
    if len(path) > 1:
        path = path.rstrip('/') or '/'
    return path


class FstabIndex(object):
    """The entry records of an fstab, decoded and indexed in one pass, so that
    looking up a mount point costs a dict lookup instead of a pass over every
    line (planning M mount points against N lines is O(N + M), not O(N x M)).

    ``mounts`` maps a normalized mount point to the ``(position, record,
    entry)`` of every entry that mounts a file system there, in file order:
    mount(8) uses the first one, and more than one is a duplicate.  Swap
    entries and entries whose second field is not an absolute path are left
    out.  ``position`` is the record's index in ``records`` (where an edited
    copy replaces it), ``entry`` its to_dict().

    ``swaps`` maps the spec and the normalized second field of every swap
    entry to the line numbers of those entries, in file order."""

    __slots__ = ('mounts', 'swaps')

    def __init__(self, records):
        self.mounts = {}
        self.swaps = {}
        for position, record in enumerate(records):
            if record.kind != 'entry':
                continue
            entry = record.to_dict()
            file = normalize_mount_point(entry['file'])
            if entry['vfstype'] == 'swap':
                for key in (entry['spec'],) if file == entry['spec'] else (entry['spec'], file):
                    self.swaps.setdefault(key, []).append(record.lineno)
            elif entry['file'].startswith('/'):
                self.mounts.setdefault(file, []).append((position, record, entry))

    def mount_entries(self, mount_point):
        """``[(position, record, entry)]`` of the entries for ``mount_point``
        (normalized here), in file order; [] when there is none."""
        return self.mounts.get(normalize_mount_point(mount_point), [])

    def swap_lines(self, path):
        """Line numbers of the swap entries whose spec or second field is ``path``."""
        return self.swaps.get(path, [])


def entries_by_mount_point(entry_list):
    """{normalized mount point: the first fstab entry for it (the one ``mount <point>`` and systemd's fstab
    generator use: libmount looks fstab up forwards)}, in one pass, so that looking up every mount of a host
    costs mounts + lines, not mounts x lines (issue 23, S3)."""
    found = {}
    for entry in entry_list:
        if entry['file'].startswith('/'):
            found.setdefault(normalize_mount_point(entry['file']), entry)
    return found


def find_entry(entry_list, mount_point):
    """The first fstab entry for ``mount_point`` (the one mount uses), or None."""
    return entries_by_mount_point(entry_list).get(normalize_mount_point(mount_point))


def _udev_encode(value):
    """udev's encoding of a tag value in /dev/disk/by-* link names."""
    out = []
    for char in value:
        if char.isalnum() and ord(char) < 128 or char in '#+-.:=@_' or ord(char) >= 128:
            out.append(char)
        else:
            out.append('\\x%02x' % ord(char))
    return ''.join(out)


def spec_link(spec, dev_root='/dev'):
    """The /dev path udev would provide for ``spec`` (``UUID=x`` ->
    ``<dev_root>/disk/by-uuid/x``; ``/dev/...`` -> itself under dev_root);
    None for specs that name no block device (tmpfs, nfs server:/path, ...)."""
    tag, sep, value = spec.partition('=')
    if sep and tag.upper() in SPEC_TAGS and value:
        value = value.strip('"\'')
        return os.path.join(dev_root, 'disk', SPEC_TAGS[tag.upper()], _udev_encode(value))
    if spec.startswith('/dev/'):
        return os.path.join(dev_root, spec[len('/dev/'):])
    return None


def resolve_spec(spec, dev_root='/dev'):
    """Real path of the device ``spec`` names when it exists, else None."""
    link = spec_link(spec, dev_root)
    if link is None or not os.path.exists(link):
        return None
    return os.path.realpath(link)


def read_fstab(path='/etc/fstab', errors=None):
    """Read and parse an fstab file.  Returns (present, records).

    A missing file is not an error (containers often have none); an unreadable
    one is reported in ``errors``.  Text is decoded as UTF-8 with
    surrogateescape so any byte survives a round trip."""
    text = read_text(path, errors, missing_ok=True, decode_errors='surrogateescape', newline='')
    if text is None:
        return os.path.exists(path), []
    return True, parse_fstab(text, errors)
