# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Solaris and HP-UX mount tables, read from every real sample they apply to
(tests/unit/fixtures/unix-samples, with their sources) and from the samples made from HP's
documentation (tests/unit/fixtures/unix-doc)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_mounts import (
    parse_hpux_fstab,
    parse_mnttab,
    parse_mount_listing,
    parse_vfstab,
    render_lines,
    split_listed_options,
)
from ansible_collections.iotune.storage.tests.unit.conftest import fixture_path, read_fixture

SAMPLES = sorted(os.listdir(fixture_path('unix-samples')))
MOUNT_LISTINGS = [name for name in SAMPLES if '-mount-' in name]
MNTTABS = [name for name in SAMPLES if '-mnttab-' in name]
VFSTABS = [name for name in SAMPLES if '-vfstab-' in name]


def content_lines(text):
    return [line for line in text.splitlines() if line.strip()]


def test_every_kind_of_sample_is_there():
    assert (len(MOUNT_LISTINGS), len(MNTTABS), len(VFSTABS)) == (6, 2, 2)


@pytest.mark.parametrize('name', VFSTABS)
def test_vfstab_samples_read_whole_and_render_back(name):
    text = read_fixture('unix-samples', name)
    lines = parse_vfstab(text)
    assert render_lines(lines) == text
    assert [line.kind for line in lines if line.kind not in ('entry', 'comment', 'blank')] == []
    entries = [line for line in lines if line.kind == 'entry']
    assert len(entries) == len([line for line in content_lines(text) if not line.lstrip().startswith('#')])
    assert set(line.fields['mount_at_boot'] for line in entries) <= {'yes', 'no'}


def test_vfstab_fields_of_the_real_host():
    lines = parse_vfstab(read_fixture('unix-samples', 'solaris-vfstab-puppet-1.txt'))
    root = [line for line in lines if line.kind == 'entry' and line.fields['mount_point'] == '/'][0]
    assert root.fields == {'device': '/dev/dsk/c0d0s0', 'fsck_device': '/dev/rdsk/c0d0s0', 'mount_point': '/',
                           'fstype': 'ufs', 'fsck_pass': '1', 'mount_at_boot': 'no', 'options': '-'}
    assert root.options == []
    # the commented-out swap line stays a comment
    assert [line.kind for line in lines if '/tmp' in line.raw] == ['comment']


def test_vendor_vfstab_with_tabs_and_a_trailing_empty_line():
    lines = parse_vfstab(read_fixture('unix-samples', 'illumos-vfstab-default-vendor.txt'))
    swap = [line for line in lines if line.kind == 'entry' and line.fields['fstype'] == 'tmpfs'][0]
    assert (swap.fields['device'], swap.fields['mount_point'], swap.fields['mount_at_boot']) == ('swap', '/tmp', 'yes')
    assert lines[-1].kind == 'blank'


@pytest.mark.parametrize('raw, problem', [
    ('/dev/dsk/c0d0s0 /dev/rdsk/c0d0s0 / ufs 1 no\n', '6 fields; vfstab has 7'),
    ('/dev/dsk/c0d0s0 /dev/rdsk/c0d0s0 / ufs 1 maybe -\n', "mount at boot is 'maybe', not yes or no"),
    ('/dev/dsk/c0d0s0 /dev/rdsk/c0d0s0 / ufs x no -\n', "fsck pass is 'x', not a number or -"),
])
def test_vfstab_invalid_lines_say_why(raw, problem):
    line, = parse_vfstab(raw)
    assert (line.kind, line.problem, line.raw) == ('invalid', problem, raw)


def test_vfstab_vxfs_options():
    line, = parse_vfstab('/dev/vx/dsk/datadg/vol01 /dev/vx/rdsk/datadg/vol01 /data vxfs 2 yes '
                         'delaylog,mincache=direct,convosync=direct\n')
    assert line.options == ['delaylog', 'mincache=direct', 'convosync=direct']


def test_mnttab_of_hpux_has_seven_fields():
    mounts = parse_mnttab(read_fixture('unix-samples', 'hpux-mnttab-scx-pal.txt'))
    assert [(m['special'], m['mount_point'], m['fstype']) for m in mounts] == [
        ('/dev/vg00/lvol3', '/', 'vxfs'), ('DevFS', '/dev/deviceFileSystem', 'DevFS'), ('-hosts', '/net', 'autofs')]
    assert mounts[0]['options'] == ['ioerror=nodisable', 'log', 'dev=40000003']
    assert mounts[0]['time'] == 1213709666


def test_mnttab_of_solaris_every_line():
    text = read_fixture('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt')
    mounts = parse_mnttab(text)
    assert len(mounts) == len(content_lines(text)) == 17
    assert mounts[0]['options'] == ['rw', 'intr', 'largefiles', 'logging', 'xattr', 'onerror=panic', 'suid', 'dev=800010']
    assert [m['special'] for m in mounts if m['fstype'] == 'nfs'] == ['scxsun14:vold(pid345)']


def test_mnttab_with_tabs_keeps_spaces_in_a_field():
    mounts = parse_mnttab('/dev/dsk/c1t0d0s0\t/mnt/with space\tufs\trw,logging\t1258671407\n')
    assert mounts[0]['mount_point'] == '/mnt/with space'


@pytest.mark.parametrize('name', MOUNT_LISTINGS)
def test_every_mount_listing_line_is_read(name):
    text = read_fixture('unix-samples', name)
    mounts = parse_mount_listing(text)
    assert len(mounts) == len(content_lines(text))
    for mount in mounts:
        assert mount['mount_point'].startswith('/') and mount['options'], mount
        assert [option for option in mount['options'] if option.startswith('dev=')], mount


def test_mount_v_of_a_vxfs_zone_root():
    mounts = parse_mount_listing(read_fixture('unix-samples', 'solaris10-zone-mount-v-vxfs-fusioninv.txt'))
    root = mounts[0]
    assert (root['special'], root['mount_point'], root['fstype']) == ('/', '/', 'vxfs')
    assert root['options'] == ['read', 'write', 'setuid', 'devices', 'delaylog', 'largefiles', 'ioerror=mwdisable',
                               'dev=48884d0']


def test_plain_mount_names_mount_point_first():
    mounts = parse_mount_listing(read_fixture('unix-samples', 'solaris-mount-output-puppet-1.txt'))
    assert (mounts[0]['mount_point'], mounts[0]['special'], mounts[0]['fstype']) == ('/', '/dev/dsk/c0t0d0s0', None)
    # a line the original truncated after the date's day still reads
    assert mounts[4]['mount_point'] == '/export/home' and mounts[4]['date'] == 'Mon Mar 18'


@pytest.mark.parametrize('text, expected', [
    ('read/write/setuid/dev=2200000', ['read', 'write', 'setuid', 'dev=2200000']),
    ('exec/mountpoint=/zones/z1/root//zone=z1/dev=1', ['exec', 'mountpoint=/zones/z1/root/', 'zone=z1', 'dev=1']),
    ('mountpoint=/zones/z1/root/var/zone=z1/dev=1', ['mountpoint=/zones/z1/root/var', 'zone=z1', 'dev=1']),
])
def test_listed_options_keep_a_zfs_mountpoint_path(text, expected):
    assert split_listed_options(text) == expected


def test_zone_mount_mountpoint_values():
    mounts = parse_mount_listing(read_fixture('unix-samples', 'solaris11-zone-mount-output-ohai-1.txt'))
    mountpoints = [o for o in mounts[0]['options'] if o.startswith('mountpoint=')]
    assert mountpoints == ['mountpoint=/zones/servername.chef.internal.dns/root/']


def test_hpux_fstab_from_the_manual():
    text = read_fixture('unix-doc', 'hpux-fstab-fstab4-examples.txt')
    lines = parse_hpux_fstab(text)
    assert render_lines(lines) == text
    entries = [line for line in lines if line.kind == 'entry']
    assert [(e.fields['device'], e.fields['mount_point'], e.fields['fstype'], e.fields['comment']) for e in entries] == [
        ('/dev/dsk/c0t6d0', '/home', 'hfs', '/home disk'), ('/dev/vg01/lv10', '/', 'swap', 'swap device'),
        ('/dev/dsk/c0t5d0', '/', 'swap', 'swap at end of device'), ('/dev/vg01/lvol1', '/restore', 'vxfs', None)]
    assert entries[-1].options == ['delaylog', 'mincache=direct', 'convosync=direct']
    assert (entries[0].fields['backup_frequency'], entries[0].fields['pass']) == ('0', '2')


@pytest.mark.parametrize('raw, kind', [
    ('/dev/vg00/lvol5\n', 'entry'),
    ('/dev/vg00/lvol5 /home vxfs\n', 'invalid'),
    ('/dev/vg00/lvol5 /home vxfs delaylog 0 x\n', 'invalid'),
    ('   # a comment\n', 'comment'),
])
def test_hpux_fstab_all_fields_or_the_device_alone(raw, kind):
    line, = parse_hpux_fstab(raw)
    assert line.kind == kind
