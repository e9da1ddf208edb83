# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Held-out fstab files: editing mount options keeps every unmanaged byte.

Each ``fixtures/fstab_heldout/<name>.cases.json`` names its fstab (``fstab``,
a sibling file, or ``fstab_text`` inline where ansible-test sanity forbids the
bytes in a repository file: CR, text that is not UTF-8) and lists cases::

    {"id", "mounts": [{path, present, absent}], "mountinfo": [lines]?,
     "expected": "<file>" | null (file unchanged) | "expected_text": inline,
     "lines": [fstab line numbers whose options change],
     "checks": [[target, setting, status], ...],
     "messages": [[check index, substring ({fstab} = the fstab path)]]?,
     "mount_changes": [[target, remount options]]?, "warnings": [prefix]?}

Inline text stands for bytes as read_text(..., 'surrogateescape') gives
them: ``\\udcXX`` is the byte 0xXX.  The expected files were written from
literal per-line replacements, not from the code under test.

How ``#`` is read (libmount, util-linux tab_parse.c, which mount(8) uses): a
line whose first non-blank is ``#`` is a comment; an entry is read field by
field and reading stops after the pass number, so ``... 0 2 # note`` is a valid
entry with a trailing comment; a ``#`` word in the dump or pass position is a
parse error (the line is ignored); inside a field ``#`` is an ordinary
character.  Seven or more plain fields remain an error here although libmount
ignores the extra ones.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import (
    FstabLine,
    parse_fstab,
    read_fstab,
    render,
    split_options,
)
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import plan_mounts, plan_mounts_from

HELDOUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'fixtures', 'fstab_heldout')
MANIFESTS = sorted(name for name in os.listdir(HELDOUT) if name.endswith('.cases.json'))


def _load(manifest_name):
    with open(os.path.join(HELDOUT, manifest_name), 'r', encoding='utf-8') as handle:
        return json.load(handle)


def _bytes(text):
    return text.encode('utf-8', 'surrogateescape')


def _file_bytes(name):
    with open(os.path.join(HELDOUT, name), 'rb') as handle:
        return handle.read()


def _fstab_bytes(manifest):
    if 'fstab_text' in manifest:
        return _bytes(manifest['fstab_text'])
    return _file_bytes(manifest['fstab'])


def _expected_bytes(manifest, case):
    if 'expected_text' in case:
        return _bytes(case['expected_text'])
    if case['expected'] is None:
        return _fstab_bytes(manifest)
    return _file_bytes(case['expected'])


CASES = [(name, case) for name in MANIFESTS for case in _load(name)['cases']]
CASE_IDS = ['%s/%s' % (name[:-len('.cases.json')], case['id']) for name, case in CASES]


# Independent of the code under test: lines end at LF only; fields are runs
# of anything but space and tab (libmount's separators), the CRLF's CR excluded.
def _lines(data):
    return re.findall(b'[^\n]*\n|[^\n]+$', data)


def _options_span(line):
    """(start, end) of the options field in ``line``; an empty span after the
    type field when the line has only three fields."""
    body = line[:-2] if line.endswith(b'\r\n') else line[:-1] if line.endswith(b'\n') else line
    fields = list(re.finditer(b'[^ \t]+', body))
    if len(fields) >= 4:
        return fields[3].start(), fields[3].end()
    return fields[2].end(), fields[2].end()


def _assert_only_options_changed(before, after, lines):
    old_lines = _lines(before)
    new_lines = _lines(after)
    assert len(old_lines) == len(new_lines)
    differing = [number for number, (old, new) in enumerate(zip(old_lines, new_lines), 1) if old != new]
    assert differing == lines
    for number in lines:
        old, new = old_lines[number - 1], new_lines[number - 1]
        start, end = _options_span(old)
        # every byte before and after the options field is the same ...
        tail = len(old) - end
        assert new[:start] == old[:start]
        assert new[len(new) - tail:] == old[end:]
        # ... and what is between is one field (a separator and a field when
        # the line had no options field)
        inserted = new[start:len(new) - tail]
        if start == end:
            assert re.match(b'^[ \t]+[^ \t\r\n]+$', inserted), inserted
        else:
            assert re.match(b'^[^ \t\r\n]+$', inserted), inserted


def _plan(tmp_path, data, case, name='fstab'):
    fstab = tmp_path / name
    fstab.write_bytes(data)
    proc = tmp_path / 'proc' / 'self'
    if not proc.is_dir():
        proc.mkdir(parents=True)
    (proc / 'mountinfo').write_text(''.join(line + '\n' for line in case.get('mountinfo', [])))
    return str(fstab), plan_mounts(case['mounts'], fstab_path=str(fstab), proc_root=str(tmp_path / 'proc'))


@pytest.mark.parametrize('manifest_name', MANIFESTS)
def test_heldout_round_trip(tmp_path, manifest_name):
    data = _fstab_bytes(_load(manifest_name))
    fstab = tmp_path / 'fstab'
    fstab.write_bytes(data)
    present, records = read_fstab(str(fstab))
    assert present is True
    assert _bytes(render(records)) == data
    plan = plan_mounts_from([], [], records)
    assert plan['fstab']['changed'] is False and _bytes(plan['fstab']['after']) == data


@pytest.mark.parametrize('manifest_name, case', CASES, ids=CASE_IDS)
def test_heldout_edit(tmp_path, manifest_name, case):
    manifest = _load(manifest_name)
    before = _fstab_bytes(manifest)
    expected = _expected_bytes(manifest, case)
    fstab, plan = _plan(tmp_path, before, case)

    assert _bytes(plan['fstab']['before']) == before
    assert _bytes(plan['fstab']['after']) == expected
    assert plan['fstab']['changed'] is (expected != before)
    assert (expected != before) is bool(case['lines'])
    _assert_only_options_changed(before, expected, case['lines'])

    fstab_changes = [change for change in plan['changes'] if change['kind'] == 'fstab']
    assert [change['line'] for change in fstab_changes] == case['lines']
    for change in fstab_changes:
        assert _bytes(change['before_line']) == _lines(before)[change['line'] - 1]
        assert _bytes(change['after_line']) == _lines(expected)[change['line'] - 1]
    mount_changes = [[change['target'], change['options']] for change in plan['changes'] if change['kind'] == 'mount']
    assert mount_changes == case.get('mount_changes', [])

    assert [[check['target'], check['setting'], check['status']] for check in plan['checks']] == case['checks']
    for index, text in case.get('messages', []):
        assert text.format(fstab=fstab) in plan['checks'][index]['message']
    warnings = plan['warnings']
    assert len(warnings) == len(case.get('warnings', []))
    for prefix in case.get('warnings', []):
        assert any(warning.startswith(prefix) for warning in warnings), (prefix, warnings)


@pytest.mark.parametrize('manifest_name, case', CASES, ids=CASE_IDS)
def test_heldout_edit_is_idempotent(tmp_path, manifest_name, case):
    """The planned file, read back and planned again with the same request, is left as it is."""
    expected = _expected_bytes(_load(manifest_name), case)
    dummy, plan = _plan(tmp_path, expected, case, name='fstab.after')
    assert plan['fstab']['changed'] is False
    assert _bytes(plan['fstab']['after']) == expected
    assert [change for change in plan['changes'] if change['kind'] == 'fstab'] == []
    for check in plan['checks']:
        if check['status'] not in ('error', 'not_applicable'):
            assert check['persistent'] is (check['expected'] == 'present'), check


def test_heldout_fixtures_all_used():
    """Every fstab and expected file of the directory belongs to a manifest."""
    used = set(MANIFESTS)
    for name in MANIFESTS:
        manifest = _load(name)
        if 'fstab' in manifest:
            used.add(manifest['fstab'])
        used.update(case['expected'] for case in manifest['cases'] if case.get('expected'))
    assert sorted(os.listdir(HELDOUT)) == sorted(used)
    assert len(MANIFESTS) >= 10


# ---------------------------------------------------------------------------
# The parser details the held-out files rely on.

@pytest.mark.parametrize('raw, kind, fields', [
    ('/dev/a /data ext4 defaults 0 2 # note\n', 'entry', ['/dev/a', '/data', 'ext4', 'defaults', '0', '2']),
    ('/dev/a /data ext4 defaults 0 2\t#note  more\n', 'entry', ['/dev/a', '/data', 'ext4', 'defaults', '0', '2']),
    ('/dev/a /data ext4 defaults # note\n', 'invalid', None),
    ('/dev/a /data ext4 defaults 0 # note\n', 'invalid', None),
    ('/dev/a /data ext4 defaults 0 2#note\n', 'invalid', None),
    # libmount reads six fields and ignores the rest of the line (findmnt --tab-file: passno 2)
    ('/dev/a /data ext4 defaults 0 2 extra # note\n', 'entry', ['/dev/a', '/data', 'ext4', 'defaults', '0', '2']),
    ('/dev/a /#data ext4 #opt 0 2\n', 'entry', ['/dev/a', '/#data', 'ext4', '#opt', '0', '2']),
])
def test_hash_as_libmount_reads_it(raw, kind, fields):
    record = FstabLine(raw, 1)
    assert record.kind == kind
    if fields is not None:
        assert record.fields == fields


def test_trailing_comment_survives_edits():
    record = FstabLine('/dev/a /data ext4 defaults 0 2 # note 1 2\n', 1)
    record.set_options(['noatime'])
    assert record.raw == '/dev/a /data ext4 noatime 0 2 # note 1 2\n'
    assert record.to_dict()['passno'] == 2
    with pytest.raises(ValueError):
        record.set_field(6, 'x')


@pytest.mark.parametrize('text, options', [
    ('context="system_u:object_r:tmp_t:s0,c1",nodev', ['context="system_u:object_r:tmp_t:s0,c1"', 'nodev']),
    ('a,"b,c",d', ['a', '"b,c"', 'd']),
    ('a,,b,', ['a', 'b']),
    ('x="unclosed,y', ['x="unclosed,y']),
    ('', []),
])
def test_split_options_keeps_quoted_commas(text, options):
    assert split_options(text) == options
    assert ','.join(split_options(text)) == ','.join(item for item in text.split(',') if item)


def test_quoted_option_removed_whole():
    """A bare key in absent removes the whole quoted option, not up to its comma."""
    records = parse_fstab('/dev/a /web ext4 context="u:r:t:s0:c0,c5",nodev 0 2\n')
    plan = plan_mounts_from([{'path': '/web', 'absent': ['context']}], [], records)
    assert plan['fstab']['after'] == '/dev/a /web ext4 nodev 0 2\n'
