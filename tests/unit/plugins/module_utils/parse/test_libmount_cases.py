# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fstab and mountinfo parsers read mount tables as libmount (util-linux) reads them (issue 53).

Three kinds of cases, all from libmount_cases.py:

- the ported expected outputs: every fs block libmount's test program prints for util-linux's own files
  (tests/unit/fixtures/libmount/tabfiles-parse-*) is what the collection reads from the same line of the same
  file: source, target, fstype, options (libmount's optstr), for mountinfo also the VFS and FS options, the
  root, the mount and parent ids, the device number and the optional fields, for fstab the dump and pass
  numbers (the test program prints them only when they are not zero). A line libmount drops is no entry.
- the findmnt differential: every line of every input file and every crafted line, alone in a file, read by
  the collection (read_fstab / read_mountinfo) and by the installed findmnt (`findmnt --tab-file`, libmount):
  the same entries with the same fields, or no entry on either side.
- the edit round trip on every fstab entry line: adding an option to the options field changes no other byte
  and findmnt reads the edited line as the same entry plus that option; removing it gives the original text
  back byte for byte.

A crafted case that names a key of DIFFERENCES (a line the collection deliberately reads differently) must read
differently from findmnt, and as the case says.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import read_fstab
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import read_mountinfo
from ansible_collections.iotune.storage.tests.unit.conftest import fixture_path
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.parse.libmount_cases import (
    CRAFTED,
    DIFFERENCES,
    EDIT_REFUSALS,
    EXPECTED,
    INPUTS,
)

FSTAB_COLUMNS = 'SOURCE,TARGET,FSTYPE,OPTIONS,FREQ,PASSNO'
MOUNTINFO_COLUMNS = 'ID,PARENT,MAJ:MIN,FSROOT,TARGET,SOURCE,FSTYPE,OPTIONS,VFS-OPTIONS,FS-OPTIONS,OPT-FIELDS'
# findmnt has no option that names the format of a --tab-file: with --fstab it reads the file as mount(8) reads
# /etc/fstab (mnt_table_parse_fstab, always the fstab format), otherwise libmount guesses the format from the first
# line that is not blank or a comment ("%u %u" at its start: mountinfo). So a mountinfo case is written after this
# guard line, which fixes the format of the file as the kernel's mountinfo has it, for a case line libmount
# would otherwise take for an fstab line ("x 20 0:86 ..."). Both sides read the guard; it is left out of both.
MOUNTINFO_GUARD = '1 0 0:0 / /iotune-guard rw - none iotune-guard rw\n'
GUARD_TARGET = '/iotune-guard'
ADDED = 'x-iotune-test'
# what with_options says when it refuses an edit (EDIT_REFUSALS)
EDIT_REFUSAL_WORDS = {'unbalanced quote': 'has an unbalanced double quote'}
_PARSE_ERROR = re.compile(r': parse error at line [0-9]+ -- ignored$')


def _load(name):
    """The bytes of a fixture file (util-linux's bytes: the .gz ones are stored compressed, see README.md)."""
    with open(fixture_path('libmount', name), 'rb') as handle:
        data = handle.read()
    return gzip.decompress(data) if name.endswith('.gz') else data


def _decode(data):
    """Bytes as the collection reads files it may rewrite (read_text(..., 'surrogateescape')): a byte that is not
    UTF-8 becomes a surrogate, so both sides compare the same bytes."""
    return data.decode('utf-8', 'surrogateescape')


def _encode(text):
    return text.encode('utf-8', 'surrogateescape')


def _lines(text):
    """The lines of text, each with its terminator: only '\\n' ends a line (for libmount, getline(3))."""
    pieces = text.split('\n')
    lines = [piece + '\n' for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def split_optstr(optstr):
    """A libmount option string as a list of options: split at the commas outside double quotes (libmount's
    mnt_optstr_parse_next: 'context="a:b:c1,c2"' is one option). Empty items are left out, as libmount skips
    them when it reads options ('a,,b' is a and b; mnt_optstr_parse_next trims leading commas). None (no
    options: the field is absent, or findmnt prints null for an empty cell) is no options."""
    if not optstr:
        return []
    items, start, quoted = [], 0, False
    for pos, char in enumerate(optstr):
        if char == '"':
            quoted = not quoted
        elif char == ',' and not quoted:
            items.append(optstr[start:pos])
            start = pos + 1
    items.append(optstr[start:])
    return [item for item in items if item]


def _libmount_view(raw):
    """The part of an fstab line libmount reads: getline(3) up to '\\n', less one '\\r' just before it."""
    body = raw[:-1] if raw.endswith('\n') else raw
    return body[:-1] if body.endswith('\r') else body


def _candidate_entry(raw):
    """Not blank and not a comment, as libmount's parser sees the line (blanks are space and tab)."""
    body = _libmount_view(raw).lstrip(' \t')
    return bool(body) and not body.startswith('#')


# --- findmnt ---------------------------------------------------------------------------------------------------

def _findmnt_binary():
    path = shutil.which('findmnt')
    if path is None:
        pytest.skip('findmnt (util-linux) is not installed')
    return path


def _findmnt_fstab_row(row):
    return {
        # libsmartcols prints null for an empty cell; an fstab source is never empty (libmount refuses the line)
        'source': row['source'] or '',
        'target': row['target'] or '',
        'fstype': row['fstype'] or '',
        # null: the line has no options field
        'options': split_optstr(row['options']),
        # printed for every fstab entry, as JSON numbers (0 included)
        'freq': row['freq'],
        'passno': row['passno'],
    }


def _findmnt_mountinfo_row(row):
    return {
        # findmnt prints ID and PARENT only when not zero (null otherwise)
        'id': row['id'] or 0,
        'parent': row['parent'] or 0,
        # MAJ:MIN is "%u:%u" in JSON output, null when the device number is 0:0
        'devno': row['maj:min'] or '0:0',
        'root': row['fsroot'],
        'target': row['target'],
        # the empty source of a mountinfo line (two spaces after the fstype): libmount sets "", and libsmartcols
        # prints an empty cell as null; it is not printed as "none"
        'source': row['source'] or '',
        'fstype': row['fstype'],
        # OPTIONS is libmount's merged string (merge_optstr in libmount/src/fs.c: rw or ro first, then the VFS
        # options, then the FS options, each without rw/ro; ro when either side says ro)
        'options': split_optstr(row['options']),
        'vfs_options': split_optstr(row['vfs-options']),
        'fs_options': split_optstr(row['fs-options']),
        # OPT-FIELDS is the text between the VFS options and " - ", blanks between the tags kept; a list of tags
        'optional_fields': [field for field in re.split('[ \t]+', row['opt-fields'] or '') if field],
    }


def findmnt(path, fmt):
    """The entries the installed findmnt (libmount) reads from ``path``, normalized for comparison; [] when it
    reads none (it then prints nothing and says 'parse error at line N -- ignored' for each refused line).
    findmnt's JSON output writes a string's bytes as they are (only '"', '\\' and control characters escaped),
    so the output is decoded as the collection decodes the file: UTF-8, other bytes as surrogates."""
    argv = [_findmnt_binary(), '--tab-file', path, '--json', '--list', '--nofsroot',
            '--output', FSTAB_COLUMNS if fmt == 'fstab' else MOUNTINFO_COLUMNS]
    if fmt == 'fstab':
        argv.insert(1, '--fstab')
    # --nofsroot: SOURCE is the source alone, not "source[/root]" for a mount of a subdirectory (FSROOT has the root)
    env = dict(os.environ, LANG='C', LC_ALL='C')
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60, check=False)
    out = _decode(proc.stdout)
    # a refused line is reported on stderr and skipped; anything else there is a failure of the run itself
    errors = [line for line in _decode(proc.stderr).splitlines() if line and not _PARSE_ERROR.search(line)]
    assert not errors, 'findmnt %r failed: %r' % (argv, errors)
    if not out.strip():
        return []
    rows = json.loads(out)['filesystems']
    if fmt == 'fstab':
        return [_findmnt_fstab_row(row) for row in rows]
    found = [_findmnt_mountinfo_row(row) for row in rows]
    assert [row['target'] for row in found].count(GUARD_TARGET) == 1, 'findmnt did not read the guard line: %r' % found
    return [row for row in found if row['target'] != GUARD_TARGET]


# --- the collection --------------------------------------------------------------------------------------------

def _ours_fstab_entry(record):
    entry = record.to_dict()
    return {
        'source': entry['spec'],
        'target': entry['file'],
        'fstype': entry['vfstype'],
        'options': list(entry['options']),
        'freq': entry['freq'],
        'passno': entry['passno'],
    }


def _ours_fstab(path):
    errors = []
    present, records = read_fstab(path, errors)
    assert present, errors
    return [_ours_fstab_entry(record) for record in records if record.kind == 'entry']


def _ours_mountinfo_entry(entry):
    return {
        'id': entry['mount_id'],
        'parent': entry['parent_id'],
        'devno': '%d:%d' % (entry['major'], entry['minor']),
        'root': entry['root'],
        'target': entry['mount_point'],
        'source': entry['source'],
        'fstype': entry['fstype'],
        'options': list(entry['options']),
        'vfs_options': list(entry['mount_options']),
        'fs_options': list(entry['super_options']),
        'optional_fields': list(entry['optional_fields']),
    }


def _ours_mountinfo(proc_root):
    return [_ours_mountinfo_entry(entry) for entry in read_mountinfo(proc_root, [])
            if entry['mount_point'] != GUARD_TARGET]


def _write_table(tmp_path, fmt, text):
    """Write ``text`` where both sides read it: an fstab file, or <proc>/self/mountinfo after the guard line.
    Returns (path for findmnt, what the collection's reader takes)."""
    if fmt == 'fstab':
        path = str(tmp_path / 'fstab')
        with open(path, 'wb') as handle:
            handle.write(_encode(text))
        return path, path
    proc_root = tmp_path / 'proc'
    (proc_root / 'self').mkdir(parents=True)
    path = str(proc_root / 'self' / 'mountinfo')
    with open(path, 'wb') as handle:
        handle.write(_encode(MOUNTINFO_GUARD + text))
    return path, str(proc_root)


def read_both(tmp_path, fmt, text):
    """(libmount's entries, the collection's entries) of the same file."""
    path, ours_arg = _write_table(tmp_path, fmt, text)
    theirs = findmnt(path, fmt)
    ours = _ours_fstab(ours_arg) if fmt == 'fstab' else _ours_mountinfo(ours_arg)
    return theirs, ours


def _differences(theirs, ours):
    lines = ['libmount reads %d entr%s, the collection %d' % (len(theirs), 'y' if len(theirs) == 1 else 'ies', len(ours))]
    for index in range(max(len(theirs), len(ours))):
        a = theirs[index] if index < len(theirs) else None
        b = ours[index] if index < len(ours) else None
        if a is None or b is None:
            lines.append('entry %d: libmount %r, collection %r' % (index, a, b))
            continue
        for key in a:
            if a[key] != b.get(key):
                lines.append('entry %d %s: libmount %r, collection %r' % (index, key, a[key], b.get(key)))
    return '\n'.join(lines)


# --- the fixtures are util-linux's bytes -----------------------------------------------------------------------

def _git_blob_id(data):
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


@pytest.mark.parametrize('name, blob', [(name, blob) for name, dummy, blob in INPUTS] + [(e[0], e[2]) for e in EXPECTED],
                         ids=[name for name, dummy, dummy2 in INPUTS] + [e[0] for e in EXPECTED])
def test_fixture_is_util_linux_file(name, blob):
    assert _git_blob_id(_load(name)) == blob


# --- libmount's expected outputs (tabfiles-parse-*) ------------------------------------------------------------

_PREFIXES = [
    # mnt_fs_print_debug() (libmount/src/fs.c): the line prefix of each value it prints
    ('source', 'source: '), ('target', 'target: '), ('fstype', 'fstype: '), ('optstr', 'optstr: '),
    ('VFS-optstr', 'VFS-optstr: '), ('FS-opstr', 'FS-opstr: '), ('user-optstr', 'user-optstr: '),
    ('optional-fields', 'optional-fields: '), ('root', 'root:   '), ('freq', 'freq:   '), ('pass', 'pass:   '),
    ('id', 'id:     '), ('parent', 'parent: '), ('devno', 'devno:  '),
]


def parse_expected(text):
    """The fs blocks of a tabfiles-parse-* file, each a dict of the values printed (a comment's further lines,
    and the initial and trailing comments outside the blocks, are not read)."""
    blocks = []
    for line in text.split('\n'):
        if line == '------ fs:':
            blocks.append({})
            continue
        if not blocks:
            continue
        for key, prefix in _PREFIXES:
            if line.startswith(prefix) and key not in blocks[-1]:
                blocks[-1][key] = line[len(prefix):]
                break
    return blocks


def kept_lines(input_text, dropped):
    """Line numbers (1-based) of the entries libmount keeps, in file order: the lines that are not blank or a
    comment, less those it reports as parse errors."""
    return [number for number, raw in enumerate(_lines(input_text), 1) if _candidate_entry(raw) and number not in dropped]


def _expected_entry(block, fmt):
    if fmt == 'fstab':
        # freq and pass are printed only when they are not zero
        return {
            'source': block.get('source'), 'target': block.get('target'), 'fstype': block.get('fstype'),
            'options': split_optstr(block.get('optstr')),
            'freq': int(block.get('freq', '0')), 'passno': int(block.get('pass', '0')),
        }
    optional = block.get('optional-fields')
    return {
        'id': int(block.get('id', '0')), 'parent': int(block.get('parent', '0')), 'devno': block.get('devno', '0:0'),
        'root': block.get('root'), 'target': block.get('target'), 'source': block.get('source'),
        'fstype': block.get('fstype'),
        'options': split_optstr(block.get('optstr')),
        'vfs_options': split_optstr(block.get('VFS-optstr')),
        'fs_options': split_optstr(block.get('FS-opstr')),
        # printed as 'shared:212' in single quotes
        'optional_fields': optional[1:-1].split() if optional else [],
    }


_FORMATS = {name: fmt for name, fmt, dummy in INPUTS}


def _expected_table():
    table = []
    for name, input_name, dummy, dropped in EXPECTED:
        blocks = parse_expected(_decode(_load(name)))
        for index, block in enumerate(blocks):
            target = block.get('target') or ''
            target = target if len(target) <= 40 else target[:37] + '...'
            table.append((name, input_name, dropped, index, '%s#%d %s' % (name, index + 1, target)))
    return table


EXPECTED_BLOCKS = _expected_table()


def _ours_by_line(tmp_path, input_name):
    """{line number: the collection's entry} of an input file as it is (no guard line), read by the collection's
    own reader: read_fstab(path), or read_mountinfo(proc_root) with the file as <proc_root>/self/mountinfo."""
    data = _load(input_name)
    if _FORMATS[input_name] == 'fstab':
        path = str(tmp_path / 'fstab')
        with open(path, 'wb') as handle:
            handle.write(data)
        dummy, records = read_fstab(path, [])
        return {record.lineno: _ours_fstab_entry(record) for record in records if record.kind == 'entry'}
    proc_root = tmp_path / 'proc'
    (proc_root / 'self').mkdir(parents=True)
    with open(str(proc_root / 'self' / 'mountinfo'), 'wb') as handle:
        handle.write(data)
    return {entry['line']: _ours_mountinfo_entry(entry) for entry in read_mountinfo(str(proc_root), [])}


@pytest.mark.parametrize('name, input_name, dropped, index', [row[:4] for row in EXPECTED_BLOCKS],
                         ids=[row[4] for row in EXPECTED_BLOCKS])
def test_libmount_expected_entry(tmp_path, name, input_name, dropped, index):
    fmt = _FORMATS[input_name]
    block = parse_expected(_decode(_load(name)))[index]
    line = kept_lines(_decode(_load(input_name)), dropped)[index]
    ours = _ours_by_line(tmp_path, input_name)
    assert line in ours, '%s line %d: libmount reads %r, the collection no entry' % (input_name, line, block)
    want = _expected_entry(block, fmt)
    assert ours[line] == want, '%s line %d:\n%s' % (input_name, line, _differences([want], [ours[line]]))


@pytest.mark.parametrize('name, input_name, dropped', [e[:2] + (e[3],) for e in EXPECTED], ids=[e[0] for e in EXPECTED])
def test_libmount_expected_entries_are_all(tmp_path, name, input_name, dropped):
    """The collection reads an entry from exactly the lines libmount keeps: none from a blank line, a comment or a
    line libmount drops (fstab.broken's lines 1 and 8)."""
    kept = kept_lines(_decode(_load(input_name)), dropped)
    assert sorted(_ours_by_line(tmp_path, input_name)) == kept


def test_expected_table_is_sound():
    """The line each fs block stands for: as many kept lines as blocks, and as many dropped lines as the
    expected file's leading empty lines (one per 'parse error' message)."""
    for name, input_name, dummy, dropped in EXPECTED:
        expected = _decode(_load(name))
        assert len(kept_lines(_decode(_load(input_name)), dropped)) == len(parse_expected(expected)), name
        leading = len(expected) - len(expected.lstrip('\n'))
        assert leading == len(dropped), name
        if dropped:
            lines = _lines(_decode(_load(input_name)))
            assert all(_candidate_entry(lines[number - 1]) for number in dropped), name


# --- the findmnt differential ----------------------------------------------------------------------------------

def _input_lines():
    table = []
    for name, fmt, dummy in INPUTS:
        for number, raw in enumerate(_lines(_decode(_load(name))), 1):
            table.append(('%s:%d' % (name, number), fmt, raw, None))
    return table


DIFFERENTIAL = _input_lines() + [(c.name, c.fmt, c.text + c.eol, c) for c in CRAFTED]


@pytest.mark.parametrize('fmt, text, crafted', [row[1:] for row in DIFFERENTIAL], ids=[row[0] for row in DIFFERENTIAL])
def test_findmnt_differential(tmp_path, fmt, text, crafted):
    theirs, ours = read_both(tmp_path, fmt, text)
    if crafted is None or crafted.differs is None:
        assert ours == theirs, _differences(theirs, ours)
        return
    assert ours != theirs, '%s: the collection now reads this line as libmount does; take it out of DIFFERENCES' % crafted.name
    assert ours == crafted.ours, 'DIFFERENCES[%r] says the collection reads %r' % (crafted.differs, crafted.ours)


def test_case_table_is_sound():
    names = [c.name for c in CRAFTED]
    assert len(names) == len(set(names)), 'two crafted cases have one name'
    used = set(c.differs for c in CRAFTED if c.differs)
    assert used == set(DIFFERENCES), 'every difference has its case, and every case names a listed difference'
    refused = set(c.refuses_edit for c in CRAFTED if c.refuses_edit)
    assert refused == set(EDIT_REFUSALS) == set(EDIT_REFUSAL_WORDS), 'every edit refusal has its case and its words'
    for c in CRAFTED:
        assert c.fmt in ('fstab', 'mountinfo'), c.name
        assert c.eol in ('\n', '\r\n', ''), c.name
        assert (c.differs is None) == (c.ours is None), c.name
        assert c.differs is None or len(DIFFERENCES[c.differs]) == 3, c.name
    for key, value in DIFFERENCES.items():
        assert len(value) == 3 and all(value), key


# --- the edit round trip ---------------------------------------------------------------------------------------

def _fstab_lines():
    table = []
    for name, fmt, dummy in INPUTS:
        if fmt == 'fstab':
            for number, raw in enumerate(_lines(_decode(_load(name))), 1):
                if _candidate_entry(raw):
                    table.append(('%s:%d' % (name, number), raw, None))
    for c in CRAFTED:
        if c.fmt == 'fstab':
            lines = _lines(c.text + c.eol)
            for number, raw in enumerate(lines, 1):
                if _candidate_entry(raw):
                    table.append((c.name if len(lines) == 1 else '%s:%d' % (c.name, number), raw, c))
    return table


ROUND_TRIPS = _fstab_lines()


def _options_span(raw):
    """(start, end) of the options field in raw as libmount delimits fields (runs of space and tab), or, for a
    line of three fields, the empty span just after the third; None for fewer fields."""
    spans = [match.span() for match in re.finditer('[^ \t]+', _libmount_view(raw))]
    if len(spans) >= 4:
        return spans[3]
    if len(spans) == 3:
        return spans[2][1], spans[2][1]
    return None


@pytest.mark.parametrize('raw, crafted', [row[1:] for row in ROUND_TRIPS], ids=[row[0] for row in ROUND_TRIPS])
def test_edit_round_trip(tmp_path, raw, crafted):
    path = str(tmp_path / 'fstab')
    with open(path, 'wb') as handle:
        handle.write(_encode(raw))
    theirs = findmnt(path, 'fstab')
    dummy, records = read_fstab(path, [])
    entries = [record for record in records if record.kind == 'entry']
    if crafted is not None and crafted.differs is not None and crafted.ours == []:
        # the collection deliberately refuses the line (DIFFERENCES): nothing to edit
        assert not entries, 'DIFFERENCES[%r]: the collection refuses %r, yet reads an entry' % (crafted.differs, raw)
        return
    if not theirs:
        # libmount reads no entry here: nothing to edit, and the collection must not see one either
        assert not entries, 'libmount reads no entry from %r, the collection %r' % (raw, [_ours_fstab_entry(r) for r in entries])
        return
    assert len(entries) == 1, 'libmount reads %r, the collection %d entries' % (theirs, len(entries))
    record = entries[0]
    options = record.to_dict()['options']
    if crafted is not None and crafted.refuses_edit is not None:
        # a line the collection will not edit (EDIT_REFUSALS): with_options refuses, saying why
        with pytest.raises(ValueError, match=EDIT_REFUSAL_WORDS[crafted.refuses_edit]):
            record.with_options(options + [ADDED])
        return

    edited = record.with_options(options + [ADDED])
    span = _options_span(raw)
    assert span is not None
    prefix, suffix = raw[:span[0]], raw[span[1]:]
    assert edited.raw.startswith(prefix) and edited.raw.endswith(suffix) and len(edited.raw) > len(prefix) + len(suffix), \
        'bytes outside the options field changed: %r -> %r' % (raw, edited.raw)
    middle = edited.raw[len(prefix):len(edited.raw) - len(suffix)]
    # the new options field alone, or (for a line without one) a separator and the new field
    assert re.match('[^ \t]+\\Z' if span[0] != span[1] else '[ \t]+[^ \t]+\\Z', middle), (raw, edited.raw)

    with open(path, 'wb') as handle:
        handle.write(_encode(edited.raw))
    want = dict(theirs[0], options=theirs[0]['options'] + [ADDED])
    assert findmnt(path, 'fstab') == [want], 'libmount reads the edited line %r differently' % edited.raw

    restored = edited.with_options(options)
    if span[0] == span[1]:
        # a line without an options field keeps the one the edit gave it, as `defaults` (what mount reads for none)
        assert restored.raw == edited.raw.replace(ADDED, 'defaults'), (raw, restored.raw)
        return
    assert restored.raw == raw, 'adding and removing %s changed the line: %r -> %r' % (ADDED, raw, restored.raw)
