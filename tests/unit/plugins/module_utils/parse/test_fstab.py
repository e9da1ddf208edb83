# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import (
    FstabIndex,
    FstabLine,
    edit_options_field,
    entries,
    find_entry,
    make_line,
    parse_fstab,
    read_fstab,
    render,
    resolve_spec,
    spec_link,
    split_lines,
    split_options,
)
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import unescape

ROUND_TRIP_TEXTS = [
    '',
    '\n',
    'a b c d 0 0',
    'a b c d 0 0\n',
    '# only a comment\n',
    'UUID=x / ext4 defaults 0 1\r\n/dev/sdb1\t/data\txfs\tnoatime\t0\t2\r\n',
    '\t  /dev/sdb1   /data   xfs  noatime  0 2   \n\n\n',
    'bad line\nstill bad with seven fields a b c d e f g\n\x0c form feed stays\n',
    '/dev/sdb1 /caf\xe9 ext4 defaults 0 0\n',
    '/dev/sdb1 /bytes\udcff ext4 defaults 0 0\n',
]


@pytest.mark.parametrize('text', ROUND_TRIP_TEXTS)
def test_round_trip_strings(text):
    assert render(parse_fstab(text)) == text
    assert ''.join(split_lines(text)) == text


@pytest.mark.parametrize('name', ['debian12-unconfigured.fstab', 'constructed.fstab'])
def test_round_trip_fixture_bytes(fixture_path, name):
    path = fixture_path('fstab', name)
    with open(path, 'rb') as handle:
        original = handle.read()
    present, records = read_fstab(path)
    assert present is True
    assert render(records).encode('utf-8', 'surrogateescape') == original


def test_real_debian_unconfigured_fstab(read_fixture):
    records = parse_fstab(read_fixture('fstab', 'debian12-unconfigured.fstab'))
    assert [record.kind for record in records] == ['comment']
    assert entries(records) == []


def test_constructed_fstab_kinds(read_fixture):
    records = parse_fstab(read_fixture('fstab', 'constructed.fstab'))
    kinds = [record.kind for record in records]
    assert len(records) == 20
    assert kinds.count('entry') == 9
    assert kinds.count('comment') == 10
    assert kinds.count('blank') == 1
    assert records[-1].raw == '/dev/sr0        /media/cdrom0   udf,iso9660 user,noauto     0       0'


@pytest.mark.parametrize('index, expected', [
    (0, {'spec': 'UUID=3f1c2a9e-5b7d-4e8a-9c1f-2d3e4f5a6b7c', 'file': '/', 'vfstype': 'ext4',
         'options': ['errors=remount-ro'], 'freq': 0, 'passno': 1, 'line': 10}),
    (1, {'spec': '/dev/mapper/vg0-data', 'file': '/srv/data', 'vfstype': 'ext4',
         'options': ['noatime', 'stripe=16'], 'freq': 0, 'passno': 2, 'line': 11}),
    (2, {'spec': 'LABEL=archive', 'file': '/srv/archive', 'vfstype': 'xfs',
         'options': ['logbufs=8', 'logbsize=256k', 'largeio'], 'freq': 0, 'passno': 2, 'line': 12}),
    (3, {'spec': 'PARTUUID=7d5e1f0a-01', 'file': '/boot/efi', 'vfstype': 'vfat',
         'options': ['umask=0077'], 'freq': 0, 'passno': 1, 'line': 13}),
    (4, {'spec': 'UUID=0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'file': 'none', 'vfstype': 'swap',
         'options': ['sw'], 'freq': 0, 'passno': 0, 'line': 15}),
    (5, {'spec': '/swapfile', 'file': 'swap', 'vfstype': 'swap',
         'options': ['defaults'], 'freq': 0, 'passno': 0, 'line': 16}),
    # no dump/pass fields, trailing spaces
    (6, {'spec': 'filer.example.com:/export/backup', 'file': '/mnt/nfs4/', 'vfstype': 'nfs4',
         'options': ['rw', 'hard', '_netdev'], 'freq': 0, 'passno': 0, 'line': 17}),
    (7, {'spec': 'tmpfs', 'file': '/mnt/backup target', 'vfstype': 'tmpfs',
         'options': ['size=1g', 'mode=1777'], 'freq': 0, 'passno': 0, 'line': 18}),
    (8, {'spec': '/dev/sr0', 'file': '/media/cdrom0', 'vfstype': 'udf,iso9660',
         'options': ['user', 'noauto'], 'freq': 0, 'passno': 0, 'line': 20}),
])
def test_constructed_fstab_entries(read_fixture, index, expected):
    assert entries(parse_fstab(read_fixture('fstab', 'constructed.fstab')))[index] == expected


@pytest.mark.parametrize('line, error', [
    ('/dev/sda1 /data\n', 'expected at least 3 fields'),
    ('/dev/sda1 /data ext4 defaults 1x 2\n', 'dump and pass fields must be integers'),
    ('/dev/sda1 /data ext4 defaults zero 2\n', 'dump and pass fields must be integers'),
    # found by test_parser_properties: '\xb2'.isdigit() is true but int() refuses it (to_dict raised ValueError)
    ('/dev/sda1 /data ext4 defaults \xb2 2\n', 'dump and pass fields must be integers'),
    ('/dev/sda1 /data ext4 defaults 0 \u0663\n', 'dump and pass fields must be integers'),
])
def test_invalid_lines(line, error):
    errors = []
    records = parse_fstab('# ok\n' + line, errors)
    assert records[1].kind == 'invalid'
    assert records[1].to_dict() is None
    assert entries(records) == []
    assert len(errors) == 1 and errors[0].startswith('fstab line 2: ' + error)


@pytest.mark.parametrize('line, expected', [
    # libmount reads six fields and ignores the rest of the line (issue 53, item 6)
    ('/dev/sda1 /data ext4 defaults 0 2 extra\n', ('/dev/sda1', '/data', ['defaults'], 0, 2)),
    # dump and pass as strtol reads them: a sign is allowed
    ('/dev/sda1 /data ext4 defaults +1 +2\n', ('/dev/sda1', '/data', ['defaults'], 1, 2)),
    ('/dev/sda1 /data ext4 defaults -1\n', ('/dev/sda1', '/data', ['defaults'], -1, 0)),
    # the options field is unescaped like every other field: \054 is a comma (item 3)
    ('/dev/sda1 /data ext4 defaults,x-a=1\\054noexec 0 0\n', ('/dev/sda1', '/data', ['defaults', 'x-a=1', 'noexec'], 0, 0)),
    # only spaces and tabs separate fields: a form feed, a vertical tab or a carriage return is part of one (item 7)
    ('/dev/sda1 /data\x0b ext4 defaults\r 0 0\n', ('/dev/sda1', '/data\x0b', ['defaults\r'], 0, 0)),
    # octal escapes are bytes: UTF-8 and other bytes as the file holds them (item 5)
    ('/dev/sda1 /mnt/caf\\303\\251 ext4 defaults 0 0\n', ('/dev/sda1', '/mnt/caf\xe9', ['defaults'], 0, 0)),
])
def test_lines_read_as_libmount_reads_them(line, expected):
    record = FstabLine(line, 1)
    entry = record.to_dict()
    assert (entry['spec'], entry['file'], entry['options'], entry['freq'], entry['passno']) == expected


@pytest.mark.parametrize('field, options, expected', [
    # an option added and removed again leaves the field as written: empty items, escapes, quotes (item 7)
    (',,defaults,,', ['defaults', 'noatime'], ',,defaults,,,noatime'),
    (',,defaults,,,noatime', ['defaults'], ',,defaults,,'),
    ('x-a=1\\054noexec,ctx="a,b"', ['x-a=1', 'noexec', 'ctx="a,b"', 'nodev'], 'x-a=1\\054noexec,ctx="a,b",nodev'),
    # an option replaced in place, as the planner puts it
    ('relatime,logbufs=8', ['noatime', 'logbufs=8'], 'noatime,logbufs=8'),
    # one of two options an escaped comma joins is removed: the other is written anew
    ('x-a=1\\054noexec,nodev', ['x-a=1', 'nodev'], 'x-a=1,nodev'),
    ('noatime', [], 'defaults'),
    ('my\\040opt', ['my opt', 'x y'], 'my\\040opt,x\\040y'),
])
def test_edit_options_field_changes_only_what_the_edit_needs(field, options, expected):
    assert edit_options_field(field, options) == expected
    assert split_options(expected) == (options or ['defaults'])


@pytest.mark.parametrize('raw, index, value, expected', [
    # the options field, separators kept exactly
    ('/dev/sdb1\t/data\txfs\tnoatime\t0\t2\n', 3, 'noatime,largeio', '/dev/sdb1\t/data\txfs\tnoatime,largeio\t0\t2\n'),
    ('UUID=x   /     ext4    errors=remount-ro 0       1\n', 3, 'noatime', 'UUID=x   /     ext4    noatime 0       1\n'),
    ('  /dev/a /b ext4 defaults 0 0  \r\n', 0, '/dev/c', '  /dev/c /b ext4 defaults 0 0  \r\n'),
    # appending dump and pass to a 4-field line copies the last separator, trailing spaces stay last
    ('srv:/x  /mnt/nfs  nfs4  rw,hard   \n', 4, '0', 'srv:/x  /mnt/nfs  nfs4  rw,hard  0   \n'),
    ('srv:/x\t/mnt/nfs\tnfs4\trw', 4, '0', 'srv:/x\t/mnt/nfs\tnfs4\trw\t0'),
    ('srv:/x /mnt/nfs nfs4\n', 3, 'defaults', 'srv:/x /mnt/nfs nfs4 defaults\n'),
])
def test_set_field_keeps_whitespace(raw, index, value, expected):
    record = FstabLine(raw, 5)
    record.set_field(index, value)
    assert record.raw == expected
    assert record.kind == 'entry'


def test_edit_one_line_keeps_every_other_byte(read_fixture):
    text = read_fixture('fstab', 'constructed.fstab')
    records = parse_fstab(text)
    target = [record for record in records if record.kind == 'entry' and record.to_dict()['file'] == '/srv/archive'][0]
    target.set_options(['noatime', 'logbufs=8', 'logbsize=256k'])
    rendered = render(records)
    expected = text.replace('LABEL=archive   /srv/archive    xfs     logbufs=8,logbsize=256k,largeio  0  2',
                            'LABEL=archive   /srv/archive    xfs     noatime,logbufs=8,logbsize=256k  0  2')
    assert rendered == expected and rendered != text
    assert target.to_dict()['options'] == ['noatime', 'logbufs=8', 'logbsize=256k']


@pytest.mark.parametrize('raw, index, value', [
    ('# comment\n', 0, 'x'),
    ('a b c d\n', 1, 'has space'),
    ('a b c d\n', 2, ''),
    ('a b c d\n', 6, '0'),
])
def test_set_field_rejects(raw, index, value):
    with pytest.raises(ValueError):
        FstabLine(raw, 1).set_field(index, value)


def test_make_line_escapes():
    record = make_line('LABEL=data', '/mnt/backup target', 'xfs', ['noatime'], 0, 2)
    assert record.raw == 'LABEL=data\t/mnt/backup\\040target\txfs\tnoatime\t0\t2\n'
    assert record.to_dict()['file'] == '/mnt/backup target'


@pytest.mark.parametrize('mount_point, expected_line', [
    ('/', 10),
    ('/srv/data', 11),
    ('/srv/data/', 11),
    ('/mnt/nfs4', 17),
    ('/mnt/backup target', 18),
    ('/var/lib/docker', None),
    ('none', None),
])
def test_find_entry(read_fixture, mount_point, expected_line):
    found = find_entry(entries(parse_fstab(read_fixture('fstab', 'constructed.fstab'))), mount_point)
    assert (found['line'] if found else None) == expected_line


def test_find_entry_first_wins_as_mount_uses_it():
    """mount /data and systemd's fstab generator use the first entry (libmount looks fstab up forwards)."""
    entry_list = entries(parse_fstab('/dev/a /data ext4 defaults 0 0\n/dev/b /data xfs noatime 0 0\n'))
    assert find_entry(entry_list, '/data')['spec'] == '/dev/a'


INDEX_TEXT = (
    '# /data is listed three times; swap and "none" lines are no mount points\n'  # 1
    '/dev/a /data ext4 defaults 0 0\n'  # 2
    '\n'  # 3
    '/dev/b /data/ xfs noatime 0 0\n'  # 4
    '/dev/sdc2 none swap sw 0 0\n'  # 5
    '/swapfile /swapfile swap sw 0 0\n'  # 6
    'broken /data\n'  # 7 (invalid: not an entry)
    '/srv/src /data//  none  bind 0 0\n'  # 8
    'proc none proc defaults 0 0\n'  # 9
    '/dev/sdc3 /mnt/my\\040disk ext4 defaults 0 0\n'  # 10
    'LABEL=swap2 /swap2 swap sw 0 0\n'  # 11
    '/dev/sdc4 / ext4 defaults 0 1\n'  # 12
)


@pytest.mark.parametrize('mount_point, lines', [
    ('/data', [2, 4, 8]),
    ('/data/', [2, 4, 8]),
    ('/mnt/my disk', [10]),
    ('/', [12]),
    ('none', []),
    ('/swapfile', []),
    ('/swap2', []),
    ('/dev/sdc2', []),
    ('/srv/src', []),
])
def test_fstab_index_mount_entries(mount_point, lines):
    records = parse_fstab(INDEX_TEXT)
    found = FstabIndex(records).mount_entries(mount_point)
    assert [record.lineno for position, record, entry in found] == lines
    assert all(records[position] is record and entry == record.to_dict() for position, record, entry in found)


@pytest.mark.parametrize('path, lines', [
    ('/dev/sdc2', [5]),
    ('none', [5]),
    ('/swapfile', [6]),
    ('LABEL=swap2', [11]),
    ('/swap2', [11]),
    ('/data', []),
])
def test_fstab_index_swap_lines(path, lines):
    assert FstabIndex(parse_fstab(INDEX_TEXT)).swap_lines(path) == lines


def test_fstab_index_first_entry_is_find_entrys():
    """The first indexed entry is the one find_entry (mount's choice) returns."""
    records = parse_fstab(INDEX_TEXT)
    index = FstabIndex(records)
    for mount_point in ('/data', '/mnt/my disk', '/'):
        assert index.mount_entries(mount_point)[0][2] == find_entry(entries(records), mount_point)


@pytest.mark.parametrize('spec, link', [
    ('UUID=3f1c2a9e-5b7d-4e8a-9c1f-2d3e4f5a6b7c', 'disk/by-uuid/3f1c2a9e-5b7d-4e8a-9c1f-2d3e4f5a6b7c'),
    ('LABEL=archive', 'disk/by-label/archive'),
    ('LABEL="my disk"', 'disk/by-label/my\\x20disk'),
    ('PARTUUID=7d5e1f0a-01', 'disk/by-partuuid/7d5e1f0a-01'),
    ('PARTLABEL=EFI/boot', 'disk/by-partlabel/EFI\\x2fboot'),
    ('/dev/mapper/vg0-data', 'mapper/vg0-data'),
    ('tmpfs', None),
    ('filer:/export', None),
    ('UUID=', None),
])
def test_spec_link(spec, link):
    assert spec_link(spec, '/D') == (os.path.join('/D', link) if link else None)


@pytest.mark.parametrize('spec, device', [
    ('UUID=3f1c2a9e-5b7d-4e8a-9c1f-2d3e4f5a6b7c', 'vda'),
    ('LABEL=archive', 'dm-1'),
    ('LABEL=my\\040disk', 'loop0p1'),
    ('/dev/mapper/vg0-data', 'dm-0'),
    ('/dev/sr0', 'sr0'),
    ('PARTUUID=7d5e1f0a-01', None),
    ('/dev/sdz9', None),
    ('tmpfs', None),
])
def test_resolve_spec(dev_root, spec, device):
    resolved = resolve_spec(unescape(spec), dev_root)
    assert resolved == (os.path.join(os.path.realpath(dev_root), device) if device else None)


def test_read_fstab_missing_and_unreadable(tmp_path):
    errors = []
    assert read_fstab(str(tmp_path / 'absent'), errors) == (False, [])
    assert errors == []
    assert read_fstab(str(tmp_path), errors) == (True, [])
    assert len(errors) == 1 and errors[0].startswith('cannot read %s' % tmp_path)
