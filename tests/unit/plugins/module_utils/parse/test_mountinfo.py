# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import (
    escape,
    merge_options,
    parse_mountinfo,
    parse_mountinfo_line,
    read_mountinfo,
    unescape,
    visible_mounts,
)


@pytest.mark.parametrize('text, expected', [
    ('/tmp/iotune-cap/data\\040mnt', '/tmp/iotune-cap/data mnt'),
    ('/mnt/tab\\011and\\134back', '/mnt/tab\tand\\back'),
    ('/mnt/new\\012line', '/mnt/new\nline'),
    ('/plain', '/plain'),
    ('/not\\08escape', '/not\\08escape'),
])
def test_unescape(text, expected):
    assert unescape(text) == expected


@pytest.mark.parametrize('text', ['/a b', '/tab\there', '/back\\slash', '/new\nline', '/plain'])
def test_escape_round_trip(text):
    escaped = escape(text)
    assert ' ' not in escaped and '\t' not in escaped and '\n' not in escaped
    assert unescape(escaped) == text


@pytest.mark.parametrize('fields, expected', [
    (('rw,relatime', 'rw,discard'), ['rw', 'relatime', 'discard']),
    (('ro,noatime', 'rw,commit=30'), ['ro', 'noatime', 'commit=30']),
    # the file system read-only under a writable mount (errors=remount-ro): libmount says ro (issue 53, item 1)
    (('rw,relatime', 'ro,errors=continue'), ['ro', 'relatime', 'errors=continue']),
    (('ro,relatime', 'ro'), ['ro', 'relatime']),
    (('rw', 'rw'), ['rw']),
    (('nosuid', 'size=1k'), ['rw', 'nosuid', 'size=1k']),
    (('rw,relatime', None), ['rw', 'relatime']),
    (('', ''), []),
])
def test_merge_options_as_libmount(fields, expected):
    assert merge_options(*fields) == expected


@pytest.mark.parametrize('line, expected', [
    # a cgroup v1 hierarchy mounted read-only into a docker container (captured)
    ('1216 1210 0:30 / /sys/fs/cgroup/cpu ro,nosuid,nodev,noexec,relatime - cgroup cpu rw,cpu',
     ['ro', 'nosuid', 'nodev', 'noexec', 'relatime', 'cpu']),
    ('27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard', ['rw', 'relatime', 'discard']),
    ('30 27 7:0 / /mnt/ro ro,noatime - xfs /dev/loop0 rw,logbufs=4', ['ro', 'noatime', 'logbufs=4']),
])
def test_live_options_follow_the_per_mount_access_mode(line, expected):
    assert parse_mountinfo_line(line)['options'] == expected


def test_real_mountinfo_capture(read_fixture):
    # captured on the test VM with loop devices mounted (tests/unit/fixtures/proc/vm-loop)
    entries = parse_mountinfo(read_fixture('proc', 'vm-loop', 'self', 'mountinfo'))
    assert len(entries) == 27
    root = entries[5]
    assert root == {
        'mount_id': 27, 'parent_id': 1, 'major': 254, 'minor': 0, 'root': '/', 'mount_point': '/',
        'mount_options': ['rw', 'relatime'], 'optional_fields': [], 'fstype': 'ext4', 'source': '/dev/vda',
        'super_options': ['rw', 'discard', 'resv_strict', 'resuid=65534', 'resgid=65534'],
        'options': ['rw', 'relatime', 'discard', 'resv_strict', 'resuid=65534', 'resgid=65534'],
        'line': 6,
    }


@pytest.mark.parametrize('mount_point, field, expected', [
    ('/tmp/iotune-cap/data mnt', 'options', ['rw', 'noatime', 'commit=30']),
    ('/tmp/iotune-cap/data mnt', 'source', '/dev/loop0p1'),
    ('/tmp/iotune-cap/data mnt', 'minor', 0),
    ('/tmp/iotune-cap/bind', 'root', '/sub'),
    ('/tmp/iotune-cap/bind', 'major', 259),
    ('/tmp/iotune-cap/xfs', 'options', ['rw', 'relatime', 'largeio', 'inode64', 'logbufs=8', 'logbsize=256k', 'noquota']),
    ('/tmp/iotune-cap/tmp', 'fstype', 'tmpfs'),
    ('/tmp/iotune-cap/tmp', 'major', 0),
    ('/var/lib/docker', 'optional_fields', ['shared:1']),
    ('/var/lib/docker', 'root', '/var/lib/docker'),
    ('/mnt/sandboxing/model_tools_env/v1/python', 'options', ['ro', 'nosuid', 'nodev', 'relatime', 'size=4k', 'mode=755']),
    # mounted twice (ext4, then tmpfs on top): the last line is the visible one
    ('/tmp/iotune-cap/stack', 'fstype', 'tmpfs'),
    ('/tmp/iotune-cap/stack', 'mount_id', 49),
    ('/dev/pts', 'mount_id', 29),
])
def test_real_mountinfo_visible(read_fixture, mount_point, field, expected):
    mounts = visible_mounts(parse_mountinfo(read_fixture('proc', 'vm-loop', 'self', 'mountinfo')))
    assert mounts[mount_point][field] == expected


@pytest.mark.parametrize('mount_point, field, expected', [
    ('/srv/data', 'options', ['rw', 'noatime', 'stripe=16']),
    ('/srv/projects', 'root', '/exports/projects'),
    ('/mnt/nfs4', 'source', 'filer.example.com:/export/backup'),
    ('/mnt/nfs4', 'fstype', 'nfs4'),
    ('/mnt/nfs4', 'major', 0),
    ('/mnt/nfs3', 'mount_options', ['rw', 'nosuid', 'nodev', 'noexec', 'relatime']),
    ('/mnt/nfs3', 'options', ['rw', 'nosuid', 'nodev', 'noexec', 'relatime', 'vers=3', 'rsize=65536', 'wsize=65536',
                              'namlen=255', 'hard', 'proto=tcp', 'timeo=600', 'retrans=2', 'sec=sys',
                              'mountaddr=192.0.2.20', 'mountvers=3', 'mountport=635', 'mountproto=udp',
                              'local_lock=none', 'addr=192.0.2.20']),
    ('/mnt/backup target', 'fstype', 'tmpfs'),
    ('/mnt/tab\tand\\back', 'mount_id', 68),
    ('/mnt/with space/and more', 'optional_fields', ['shared:46', 'master:3']),
    ('/mnt/with space/and more', 'source', '/dev/loop0p1'),
    ('/home', 'root', '/@home'),
    ('/home', 'super_options', ['rw', 'ssd', 'space_cache=v2', 'subvolid=257', 'subvol=/@home']),
    ('/mnt/noopts', 'source', 'none'),
    ('/mnt/noopts', 'options', ['rw']),
])
def test_constructed_mountinfo(read_fixture, mount_point, field, expected):
    entries = parse_mountinfo(read_fixture('proc', 'constructed-dm-md', 'self', 'mountinfo'))
    mounts = visible_mounts(entries)
    assert len(entries) == 12
    assert mounts[mount_point][field] == expected


@pytest.mark.parametrize('line, message', [
    ('27 1 254:0 / / rw,relatime ext4 /dev/vda rw', 'no " - " separator'),
    ('27 1 254:0 / / rw,relatime - ext4', 'no source'),
    ('27 1 254:0 / / rw,relatime - ext4 /dev/vda', 'no file system options'),
    ('x 1 254:0 / / rw - ext4 /dev/vda rw', 'bad mount id'),
    ('27 1 254 / / rw - ext4 /dev/vda rw', 'bad major:minor'),
])
def test_malformed_lines(line, message):
    with pytest.raises(ValueError, match=message):
        parse_mountinfo_line(line)
    errors = []
    assert parse_mountinfo('22 27 0:21 / /proc rw,relatime - proc proc rw\n' + line + '\n', errors)[0]['mount_point'] == '/proc'
    assert len(errors) == 1 and errors[0].startswith('mountinfo line 2: ' + message)


# found by test_parser_properties: the kernel does not escape these, so they are part of the name
# (str.split() and str.splitlines() cut the line at them and the mount was reported malformed)
@pytest.mark.parametrize('name', ['/mnt/no\xa0break', '/mnt/form\x0cfeed', '/mnt/x\x1cy', '/mnt/nel\x85', '/mnt/ideographic\u3000space'])
def test_names_with_unescaped_whitespace(name):
    errors = []
    found = parse_mountinfo('70 27 0:51 / %s rw,relatime - tmpfs none rw\n71 27 0:52 / /b rw - tmpfs none rw\n' % name, errors)
    assert errors == []
    assert [(entry['mount_point'], entry['line']) for entry in found] == [(name, 1), ('/b', 2)]


def test_missing_super_options_are_refused_as_libmount_refuses_them():
    """findmnt --tab-file: 'parse error at line 1 -- ignored' (the kernel always writes them)."""
    with pytest.raises(ValueError, match='no file system options'):
        parse_mountinfo_line('70 27 0:51 / /mnt/x rw - tmpfs none')


def test_read_mountinfo(fixture_path, tmp_path):
    errors = []
    entries = read_mountinfo(fixture_path('proc', 'vm-loop'), errors)
    assert errors == [] and entries[-1]['mount_point'] == '/tmp/iotune-cap/stack'
    assert read_mountinfo(str(tmp_path), errors) == []
    assert len(errors) == 1 and 'self/mountinfo' in errors[0]


def test_the_mount_of_a_path_is_the_longest_mount_point_with_its_device(tmp_path):
    # a container binds /proc/sys over /proc: both have the device number of procfs; the path is on the longer one
    from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import mount_entry_of
    inside = tmp_path / 'sys' / 'vm'
    inside.mkdir(parents=True)
    info = os.stat(str(inside))
    devno = '%d:%d' % (os.major(info.st_dev), os.minor(info.st_dev))
    proc = tmp_path / 'proc' / 'self'
    proc.mkdir(parents=True)
    (proc / 'mountinfo').write_text(u'1 0 %s / / rw - ext4 /dev/sda1 rw\n'
                                    u'2 1 %s / %s rw - ext4 /dev/sda1 rw\n'
                                    u'3 1 %s /sys %s ro - ext4 /dev/sda1 rw\n'
                                    u'4 1 9:9 / %s/sys/vm rw - tmpfs tmpfs rw\n' % (devno, devno, tmp_path, devno, tmp_path / 'sys', tmp_path))
    assert mount_entry_of(str(inside), str(tmp_path / 'proc'))['mount_point'] == str(tmp_path / 'sys')
