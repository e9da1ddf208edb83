# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.tunefstab import (
    effective_tunables,
    parse_tunable_value,
    parse_tunefstab,
    parse_vxtunefs_output,
    read_tunefstab,
    split_comment,
)


@pytest.mark.parametrize('text, expected', [
    ('65536', 65536),
    ('256k', 262144),
    ('10m', 10485760),
    ('64K', 65536),
    ('1g', 1073741824),
    ('0', 0),
    ('-1', -1),
    ('direct', 'direct'),
    (' 8192 ', 8192),
])
def test_parse_tunable_value(text, expected):
    assert parse_tunable_value(text) == expected


def test_solaris_sample(read_fixture):
    errors = []
    entries = parse_tunefstab(read_fixture('tunefstab', 'constructed-solaris.tunefstab'), errors)
    assert errors == []
    assert entries == [
        {'device': '/dev/vx/dsk/datadg/vol01', 'line': 7, 'tunables': {
            'read_pref_io': 262144, 'read_nstream': 4, 'write_pref_io': 262144, 'write_nstream': 4}},
        {'device': '/dev/vx/dsk/datadg/u08', 'line': 8, 'tunables': {'discovered_direct_iosz': 10485760}},
        {'device': '/dev/vx/dsk/datadg/u08', 'line': 10, 'tunables': {'max_direct_iosz': 1048576, 'write_throttle': 0}},
        {'device': '/dev/vx/dsk/datadg/u09', 'line': 11, 'tunables': {'read_pref_io': 262144}},
        {'device': '/dev/vx/dsk/datadg/vol01', 'line': 12, 'tunables': {'read_nstream': 8}},
    ]
    # several lines per device apply in order
    assert effective_tunables(entries) == {
        '/dev/vx/dsk/datadg/vol01': {'read_pref_io': 262144, 'read_nstream': 8, 'write_pref_io': 262144, 'write_nstream': 4},
        '/dev/vx/dsk/datadg/u08': {'discovered_direct_iosz': 10485760, 'max_direct_iosz': 1048576, 'write_throttle': 0},
        '/dev/vx/dsk/datadg/u09': {'read_pref_io': 262144},
    }


def test_hpux_sample_with_system_default(read_fixture):
    errors = []
    entries = parse_tunefstab(read_fixture('tunefstab', 'constructed-hpux.tunefstab'), errors)
    assert entries == [
        {'device': 'system-default', 'line': 3, 'tunables': {'max_diskq': 2097152, 'read_ahead': 2}},
        {'device': '/dev/vg01/lvol1', 'line': 4, 'tunables': {
            'read_pref_io': 65536, 'read_nstream': 4, 'max_buf_data_size': 65536, 'qio_cache_enable': 1}},
        {'device': '/dev/vg01/lvol2', 'line': 5, 'tunables': {'read_ahead': 0}},
    ]
    assert errors == ['tunefstab line 5: not name=value: read_pref_io']


@pytest.mark.parametrize('text, expected, error', [
    ('/dev/vx/dsk/dg/v1\n', [], 'tunefstab line 1: no tunables for /dev/vx/dsk/dg/v1'),
    ('/dev/vx/dsk/dg/v1 read_pref_io=\n', [], 'tunefstab line 1: not name=value: read_pref_io='),
    ('/dev/vx/dsk/dg/v1 read_pref_io=65536, read_nstream=2\n',
     [{'device': '/dev/vx/dsk/dg/v1', 'line': 1, 'tunables': {'read_pref_io': 65536, 'read_nstream': 2}}], None),
    ('# only comments\n\n', [], None),
    # found by test_parser_properties: only newline ends a line (str.splitlines also split at \x0c, \x1c, \x85)
    ('# a\x0cform feed\x1cand\x85more\n/dev/vx/dsk/dg/v1 read_ahead=2\n',
     [{'device': '/dev/vx/dsk/dg/v1', 'line': 2, 'tunables': {'read_ahead': 2}}], None),
])
def test_odd_lines(text, expected, error):
    errors = []
    assert parse_tunefstab(text, errors) == expected
    assert errors == ([error] if error else [])


# issue 23, P3: a trailing comment (a '#' word after the device, as fstab has them) is not part of the last
# value: '10485760 # seed 001' was read as the text '10485760#seed001' and reported as drift.
@pytest.mark.parametrize('body, content, comment', [
    ('/dev/vx/dsk/datadg/u08 discovered_direct_iosz=10485760  # seed 001', '/dev/vx/dsk/datadg/u08 discovered_direct_iosz=10485760',
     '  # seed 001'),
    ('\t/dev/vx/dsk/datadg/vol01 read_nstream=8\t# stripe columns # twice', '\t/dev/vx/dsk/datadg/vol01 read_nstream=8',
     '\t# stripe columns # twice'),
    ('/dev/vx/dsk/datadg/u09 # nothing yet', '/dev/vx/dsk/datadg/u09', ' # nothing yet'),
    # a '#' inside a word is no comment
    ('/dev/vx/dsk/datadg/u09 read_pref_io=256k#x', '/dev/vx/dsk/datadg/u09 read_pref_io=256k#x', ''),
    ('/dev/vx/dsk/datadg/u09 read_pref_io=256k,#x', '/dev/vx/dsk/datadg/u09 read_pref_io=256k,#x', ''),
    ('# /dev/vx/dsk/datadg/u09 read_pref_io=256k # old', '# /dev/vx/dsk/datadg/u09 read_pref_io=256k # old', ''),
    ('', '', ''),
])
def test_split_comment(body, content, comment):
    assert split_comment(body) == (content, comment)


def test_trailing_comments_in_the_solaris_sample(read_fixture):
    text = read_fixture('tunefstab', 'constructed-solaris.tunefstab')
    commented = text.replace('discovered_direct_iosz=10485760\n', 'discovered_direct_iosz=10485760   # seed 001 fix\n') \
        .replace('read_pref_io=256k\n', 'read_pref_io=256k\t#stripe unit\n')
    assert commented.count('#') == text.count('#') + 2
    errors = []
    assert parse_tunefstab(commented, errors) == parse_tunefstab(text)
    assert errors == []


def test_vxtunefs_output_from_seed_003(read_fixture):
    values = parse_vxtunefs_output(read_fixture('vxtunefs', 'seed003-solaris9.txt'))
    assert len(values) == 25
    assert values['read_pref_io'] == 65536
    assert values['write_pref_io'] == 65536
    assert values['discovered_direct_iosz'] == 262144
    assert values['max_direct_iosz'] == 1048576
    assert values['fcl_maxalloc'] == 8130396160
    assert 'Filesystem i/o parameters for /filesystem' not in values


def test_read_tunefstab(fixture_path, tmp_path):
    errors = []
    present, entries = read_tunefstab(fixture_path('tunefstab', 'constructed-solaris.tunefstab'), errors)
    assert present is True and len(entries) == 5
    assert read_tunefstab(str(tmp_path / 'tunefstab'), errors) == (False, [])
    assert read_tunefstab(str(tmp_path), errors) == (True, [])
    assert len(errors) == 1 and errors[0].startswith('cannot read %s' % tmp_path)
