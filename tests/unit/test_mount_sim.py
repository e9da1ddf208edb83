# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Solaris / HP-UX mount simulator tests/unix-sim/mount (and umount), run as a subprocess on a
temporary mount table made of the real mnttab samples: the listings (read with the collection's
parse_mount_listing, parse_vfstab, parse_hpux_fstab), the remount and its defaults (seed 000 on
HP-UX), new mounts, and errors that leave the table as it was, byte for byte."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import stat
import time
import zlib

import pytest

from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture
from ansible_collections.iotune.storage.tests.unit.simulators import simulator
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_mounts import (
    parse_hpux_fstab, parse_mnttab, parse_mount_listing, parse_vfstab)

SOLARIS = {'sysname': 'SunOS', 'nodename': 'sol10', 'release': '5.10', 'version': 'Generic_147440-01', 'machine': 'sun4u'}
HPUX = {'sysname': 'HP-UX', 'nodename': 'hpux1', 'release': 'B.11.31', 'version': 'U', 'machine': 'ia64'}
# a VxFS mount as Solaris 10 lists it (solaris10-zone-mount-v-vxfs-fusioninv.txt: Mon May 14 09:08:17 2012 UTC)
SOLARIS_VXFS = '/dev/vx/dsk/datadg/u01\t/u01\tvxfs\trw,suid,delaylog,largefiles,ioerror=mwdisable,dev=48884d0\t1336986497\n'
# seed 000: an HP-UX restore target mounted with the OnLineJFS options that made restores 10x slower
SEED_000 = '/dev/vg01/lvol1 /restore vxfs ioerror=mwdisable,largefiles,delaylog,mincache=direct,convosync=direct,dev=40010001 0 2 1700000000\n'


class Host(object):
    """A simulated host in tmp_path: uname.json, the mount table, and mount/umount running on them."""

    def __init__(self, directory, identity, table):
        self.directory = directory
        self.mnttab = directory / 'mnttab'
        if identity is not None:
            (directory / 'uname.json').write_text(json.dumps(identity))
        if table is not None:
            self.mnttab.write_bytes(table.encode('utf-8'))
        env = {'UNIX_SIM_DIR': str(directory), 'MOUNT_SIM_MNTTAB': str(self.mnttab), 'TZ': 'UTC'}
        self.mount = simulator('mount', env)
        self.umount = simulator('umount', env)

    def table(self):
        return self.mnttab.read_bytes().decode('utf-8')

    def entry(self, mount_point):
        return [mount for mount in parse_mnttab(self.table()) if mount['mount_point'] == mount_point][-1]

    def files(self):
        return sorted(os.listdir(str(self.directory)))


@pytest.fixture(name='solaris')
def solaris_fixture(tmp_path):
    """The Solaris mnttab sample (UFS, runs of spaces between fields) and a VxFS mount (TABs)."""
    return Host(tmp_path, SOLARIS, read_fixture('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt') + SOLARIS_VXFS)


@pytest.fixture(name='hpux')
def hpux_fixture(tmp_path):
    """The HP-UX 11i v3 mnttab sample and the seed-000 mount."""
    return Host(tmp_path, HPUX, read_fixture('unix-samples', 'hpux-mnttab-scx-pal.txt') + SEED_000)


def changed_lines(before, after):
    """The indexes of the lines that differ (the tables must have as many lines)."""
    old, new = before.split('\n'), after.split('\n')
    assert len(old) == len(new)
    return [index for index, (first, second) in enumerate(zip(old, new)) if first != second]


# listings

def test_solaris_listing(solaris):
    rc, out, err = solaris.mount()
    assert (rc, err) == (0, '')
    lines = out.splitlines()
    assert lines[0] == ('/ on /dev/dsk/c9t0d0s0 read/write/setuid/devices/intr/largefiles/logging/xattr/onerror=panic/dev=800010'
                        ' on Thu Nov 19 22:56:47 2009')
    assert lines[-1] == ('/u01 on /dev/vx/dsk/datadg/u01 read/write/setuid/devices/delaylog/largefiles/ioerror=mwdisable/dev=48884d0'
                         ' on Mon May 14 09:08:17 2012')
    # illumos mount.c: the lines with the option ignore are not listed; read only has a space without -v
    assert [line.split()[0] for line in lines] == ['/', '/proc', '/etc/mnttab', '/dev/fd', '/var/run', '/tmp', '/export/home'] + [
        '/cdrom/sol_10_606_sparc/s%d' % number for number in (6, 5, 4, 3, 2, 1)] + ['/u01']
    assert ' read only/nosetuid/nodevices/intr/largefiles/xattr/onerror=panic/dev=16c0007 on Wed Dec  2 22:11:11 2009' in lines[7]
    listed = dict((mount['mount_point'], mount) for mount in parse_mount_listing(out))
    tabled = dict((mount['mount_point'], mount) for mount in parse_mnttab(solaris.table()))
    for mount_point in ('/', '/proc', '/export/home', '/u01'):
        assert listed[mount_point]['special'] == tabled[mount_point]['special']
        assert [option for option in listed[mount_point]['options'] if option.startswith('dev=')] == [
            option for option in tabled[mount_point]['options'] if option.startswith('dev=')]
    assert listed['/u01']['date'] == 'Mon May 14 09:08:17 2012'


def test_solaris_listing_of_read_only_mounts_is_read_by_the_collection(solaris):
    # Solaris' mount (no -v) prints 'read only' for a read-only mount (illumos mount.c flags()); issue 39, item 5
    errors = []
    listed = dict((mount['mount_point'], mount) for mount in parse_mount_listing(solaris.mount()[1], errors))
    assert errors == [] and len(listed) == 14
    assert listed['/cdrom/sol_10_606_sparc/s6']['options'][:3] == ['read only', 'nosetuid', 'nodevices']
    assert listed['/cdrom/sol_10_606_sparc/s6']['date'] == 'Wed Dec  2 22:11:11 2009'


def test_a_listing_line_of_neither_layout_is_named(solaris):
    errors = []
    out = solaris.mount()[1]
    parse_mount_listing(out + 'mount: /dev/dsk/c0t0d0s3 is busy\n', errors)
    assert errors == ['mount output line %d: neither the layout of mount nor of mount -v: mount: /dev/dsk/c0t0d0s3 is busy'
                      % (len(out.splitlines()) + 1)]


def test_solaris_verbose_listing_is_the_layout_of_the_real_sample(tmp_path):
    sample = read_fixture('unix-samples', 'solaris10-zone-mount-v-vxfs-fusioninv.txt')
    host = Host(tmp_path, SOLARIS, '/\t/\tvxfs\trw,suid,delaylog,largefiles,ioerror=mwdisable,dev=48884d0\t1336986497\n')
    assert host.mount('-v') == (0, sample.splitlines(True)[0], '')


def test_solaris_verbose_listing_is_read_by_the_collection(solaris):
    rc, out, _err = solaris.mount('-v')
    listed = dict((mount['mount_point'], mount) for mount in parse_mount_listing(out))
    assert rc == 0 and len(listed) == 14
    assert listed['/cdrom/sol_10_606_sparc/s1']['options'][:3] == ['read-only', 'nosetuid', 'nodevices']
    assert (listed['/u01']['fstype'], listed['/u01']['special'], listed['/export/home']['fstype']) == (
        'vxfs', '/dev/vx/dsk/datadg/u01', 'ufs')


def test_solaris_remote_file_systems(tmp_path):
    host = Host(tmp_path, SOLARIS, 'nas:/export/backup\t/backup\tnfs\trw,xattr,dev=4ec0001\t1336986497\n')
    assert host.mount()[1] == '/backup on nas:/export/backup remote/read/write/setuid/devices/xattr/dev=4ec0001 on Mon May 14 09:08:17 2012\n'


def test_solaris_p_is_vfstab_without_dev(solaris):
    rc, out, _err = solaris.mount('-p')
    entries = dict((line.fields['mount_point'], line.fields) for line in parse_vfstab(out) if line.kind == 'entry')
    assert rc == 0 and entries['/'] == {'device': '/dev/dsk/c9t0d0s0', 'fsck_device': '-', 'mount_point': '/', 'fstype': 'ufs',
                                        'fsck_pass': '-', 'mount_at_boot': 'no',
                                        'options': 'rw,intr,largefiles,logging,xattr,onerror=panic,suid'}
    assert entries['/u01']['options'] == 'rw,suid,delaylog,largefiles,ioerror=mwdisable'
    # only dev= in the table: mount.c prints nothing after 'no ' (the line has 6 fields)
    assert '/proc - /proc proc - no \n' in out


def test_hpux_listings(hpux):
    rc, out, err = hpux.mount()
    assert (rc, err) == (0, '')
    assert out.splitlines()[0] == '/ on /dev/vg00/lvol3 ioerror=nodisable,log,dev=40000003 on Tue Jun 17 13:34:26 2008'
    listed = parse_mount_listing(out)
    assert [(mount['mount_point'], mount['special'], mount['options'][0].split(',')) for mount in listed] == [
        (mount['mount_point'], mount['special'], mount['options']) for mount in parse_mnttab(hpux.table())]
    assert hpux.mount('-v')[1].splitlines()[-1] == (
        '/dev/vg01/lvol1 on /restore type vxfs ioerror=mwdisable,largefiles,delaylog,mincache=direct,convosync=direct,dev=40010001'
        ' on Tue Nov 14 22:13:20 2023')
    fstab = [line.fields for line in parse_hpux_fstab(hpux.mount('-p')[1])]
    assert fstab[0] == {'device': '/dev/vg00/lvol3', 'mount_point': '/', 'fstype': 'vxfs', 'options': 'ioerror=nodisable,log',
                        'backup_frequency': '0', 'pass': '1', 'comment': None}
    assert fstab[-1]['options'] == 'ioerror=mwdisable,largefiles,delaylog,mincache=direct,convosync=direct'


# remounts

def test_seed_000_remount_drops_mincache_and_convosync(hpux):
    before = hpux.table()
    started = int(time.time())
    assert hpux.mount('-F', 'vxfs', '-o', 'remount,delaylog', '/dev/vg01/lvol1', '/restore') == (0, '', '')
    after = hpux.table()
    assert changed_lines(before, after) == [3]
    assert after.split('\n')[3].rsplit(' ', 1)[0] == '/dev/vg01/lvol1 /restore vxfs ioerror=mwdisable,largefiles,delaylog,dev=40010001 0 2'
    restore = hpux.entry('/restore')
    assert restore['options'] == ['ioerror=mwdisable', 'largefiles', 'delaylog', 'dev=40010001']
    assert started <= restore['time'] <= int(time.time())
    assert hpux.files() == ['mnttab', 'uname.json']


def test_hpux_remount_by_mount_point_alone_and_back(hpux):
    assert hpux.mount('-o', 'remount,mincache=direct,convosync=direct,nosuid', '/restore')[0] == 0
    assert hpux.entry('/restore')['options'] == [
        'nosuid', 'ioerror=mwdisable', 'largefiles', 'delaylog', 'mincache=direct', 'convosync=direct', 'dev=40010001']
    assert hpux.mount('-F', 'vxfs', '-o', 'remount,log,ro,ioerror=nodisable', '/dev/vg00/lvol3')[0] == 0
    assert hpux.entry('/')['options'] == ['ro', 'ioerror=nodisable', 'log', 'dev=40000003']


def test_solaris_ufs_remount_reverts_what_is_not_given(solaris):
    before = solaris.table()
    assert solaris.mount('-F', 'ufs', '-o', 'remount,noatime', '/export/home') == (0, '', '')
    assert changed_lines(before, solaris.table()) == [6]
    home = solaris.entry('/export/home')
    assert home['options'] == 'rw,intr,largefiles,logging,xattr,onerror=panic,noatime,suid,dev=800017'.split(',')
    # the line is written again the way a live mnttab separates fields: TABs
    assert solaris.table().split('\n')[6].split('\t')[:4] == ['/dev/dsk/c9t0d0s7', '/export/home', 'ufs', ','.join(home['options'])]
    assert solaris.mount('-F', 'ufs', '-o', 'remount,nologging,onerror=lock,forcedirectio', '/export/home')[0] == 0
    assert solaris.entry('/export/home')['options'] == (
        'rw,intr,largefiles,nologging,xattr,onerror=lock,forcedirectio,suid,dev=800017'.split(','))


def test_solaris_vxfs_remount(solaris):
    assert solaris.mount('-F', 'vxfs', '-o', 'remount,log,mincache=closesync', '/dev/vx/dsk/datadg/u01', '/u01') == (0, '', '')
    assert solaris.entry('/u01')['options'] == 'rw,suid,log,mincache=closesync,largefiles,ioerror=mwdisable,dev=48884d0'.split(',')
    assert solaris.mount('-F', 'vxfs', '-o', 'remount', '/u01')[0] == 0
    assert solaris.entry('/u01')['options'] == 'rw,suid,delaylog,largefiles,ioerror=mwdisable,dev=48884d0'.split(',')
    assert solaris.mount('-F', 'vxfs', '-o', 'remount,largefiles,largefiles,tmplog', '/u01')[0] == 0
    assert solaris.entry('/u01')['options'] == 'rw,suid,tmplog,largefiles,ioerror=mwdisable,dev=48884d0'.split(',')


def test_the_table_keeps_its_mode(solaris):
    os.chmod(str(solaris.mnttab), 0o444)
    assert solaris.mount('-F', 'vxfs', '-o', 'remount', '/u01')[0] == 0
    assert stat.S_IMODE(os.stat(str(solaris.mnttab)).st_mode) == 0o444


# errors: the table is left as it was

@pytest.mark.parametrize('args, status, message', [
    (('-F', 'vxfs', '-o', 'remount,delaylog', '/nowhere'), 32, 'UX:vxfs mount: ERROR: /nowhere is not mounted'),
    (('-F', 'vxfs', '-o', 'remount', '/export/home'), 32, 'mount: ERROR: /export/home is mounted as ufs, not vxfs'),
    (('-F', 'vxfs', '-o', 'remount,bogus', '/u01'), 32, "UX:vxfs mount: ERROR: vxfs: unknown option 'bogus'"),
    (('-o', 'remount,mincache=fast', '/u01'), 32, "vxfs: 'fast' is not a value of mincache="),
    (('-o', 'remount,convosync', '/u01'), 32, 'the option convosync needs a value'),
    (('-o', 'remount,rw=1', '/u01'), 32, "unknown option 'rw=1'"),
    (('-F', 'vxfs', '-o', 'remount,nolargefiles', '/u01'), 32, 'a remount cannot change largefiles to nolargefiles'),
    (('-F', 'vxfs', '-o', 'remount,log,nolog', '/u01'), 32, 'the options log and nolog contradict each other'),
    (('-F', 'ufs', '-o', 'remount,delaylog', '/export/home'), 32, "mount: ERROR: ufs: unknown option 'delaylog'"),
    (('-F', 'ufs', '-o', 'remount,onerror=reboot', '/'), 32, "'reboot' is not a value of onerror="),
    (('-F', 'vxfs', '-o', 'remount', '/dev/vx/dsk/datadg/u09', '/u01'), 32,
     '/dev/vx/dsk/datadg/u09 is not mounted on /u01 (/dev/vx/dsk/datadg/u01 is)'),
    (('-o', 'remount', '/proc'), 32, "the simulator mounts ufs and vxfs on SunOS, not 'proc'"),
    (('-F', 'vxfs', '/dev/vx/dsk/datadg/u01', '/u02'), 32, '/dev/vx/dsk/datadg/u01 is already mounted on /u01'),
    (('-F', 'vxfs', '/dev/vx/dsk/datadg/u02', '/u01'), 32, 'already mounted on /u01'),
    (('-F', 'zfs', 'pool/fs', '/z'), 32, "not 'zfs'"),
    (('-F', 'vxfs', '-o', 'mincache=now', '/dev/vx/dsk/datadg/u02', '/u02'), 32, "'now' is not a value of mincache="),
])
def test_solaris_errors_change_nothing(solaris, args, status, message):
    before = solaris.mnttab.read_bytes()
    rc, out, err = solaris.mount(*args)
    assert (rc, out) == (status, '') and message in err
    assert solaris.mnttab.read_bytes() == before and solaris.files() == ['mnttab', 'uname.json']


@pytest.mark.parametrize('args, message', [
    (('-F', 'vxfs', '-o', 'remount,delaylog', '/nowhere'), '/nowhere is not mounted'),
    (('-F', 'ufs', '-o', 'remount', '/restore'), '/restore is mounted as vxfs, not ufs'),
    (('-F', 'ufs', '/dev/dsk/c0t1d0', '/u'), "the simulator mounts vxfs on HP-UX, not 'ufs'"),
    (('-o', 'remount,convosync=fast', '/restore'), "'fast' is not a value of convosync="),
    (('-F', 'vxfs', '-o', 'remount,nolargefiles', '/restore'), 'a remount cannot change largefiles to nolargefiles'),
    (('-F', 'vxfs', '-o', 'remount,logging', '/restore'), "unknown option 'logging'"),
])
def test_hpux_errors_change_nothing(hpux, args, message):
    before = hpux.mnttab.read_bytes()
    rc, out, err = hpux.mount(*args)
    assert (rc, out) == (1, '') and message in err
    assert hpux.mnttab.read_bytes() == before and hpux.files() == ['mnttab', 'uname.json']


@pytest.mark.parametrize('args', [
    ('-x',), ('-v', '-p'), ('-v', '/u01'), ('-p', '/u01'), ('-F', 'vxfs'), ('-o', 'remount'), ('-o', 'delaylog', '/a', '/b'),
    ('-F', 'vxfs', '/u01'), ('-F', 'vxfs', '-o', 'remount', 'a', 'b', 'c'), ('-a',), ('-r', '/u01'),
])
def test_other_uses_are_usage_errors(solaris, args):
    before = solaris.mnttab.read_bytes()
    rc, out, err = solaris.mount(*args)
    assert (rc, out) == (2, '') and 'Usage:\nmount [-v | -p]\n' in err
    assert solaris.mnttab.read_bytes() == before


def test_platform_comes_from_uname_json(tmp_path):
    host = Host(tmp_path, None, SOLARIS_VXFS)
    rc, out, err = host.mount()
    assert (rc, out) == (1, '') and str(tmp_path / 'uname.json') in err
    assert host.mount('-o', 'delaylog', '/a', '/b')[0] == 2
    (tmp_path / 'uname.json').write_text(json.dumps(dict(SOLARIS, sysname='Linux')))
    rc, out, err = host.mount('-o', 'remount', '/u01')
    assert (rc, out) == (1, '') and "sysname is 'Linux'" in err


def test_missing_table(tmp_path):
    host = Host(tmp_path, SOLARIS, None)
    rc, out, err = host.mount()
    assert (rc, out) == (1, '') and 'cannot open the simulated mount table %s' % host.mnttab in err
    assert host.mount('-o', 'remount', '/u01')[0] == 32
    assert host.mount('-F', 'vxfs', '/dev/vx/dsk/datadg/u02', '/u02')[0] == 32
    assert host.files() == ['uname.json']


# new mounts and umount

def test_solaris_new_mount_and_umount(solaris):
    before = solaris.table()
    special = '/dev/vx/dsk/datadg/u02'
    assert solaris.mount('-F', 'vxfs', '-o', 'mincache=direct,largefiles', special, '/u02') == (0, '', '')
    after = solaris.table()
    assert after.startswith(before) and after[len(before):].count('\n') == 1
    dev = 'dev=%08x' % (zlib.crc32(special.encode('utf-8')) & 0xffffffff)
    assert after[len(before):].split('\t')[:4] == [special, '/u02', 'vxfs', 'rw,suid,delaylog,mincache=direct,largefiles,ioerror=mwdisable,' + dev]
    assert solaris.mount('-F', 'ufs', '/dev/dsk/c9t1d0s0', '/u03')[0] == 0
    assert solaris.entry('/u03')['options'][:-1] == 'rw,intr,largefiles,logging,xattr,onerror=panic,suid'.split(',')
    assert solaris.umount('/u03') == (0, '', '')
    assert solaris.umount(special) == (0, '', '')
    assert solaris.table() == before
    assert solaris.umount('/u02') == (1, '', 'umount: ERROR: /u02 is not mounted (not in %s)\n' % solaris.mnttab)
    assert solaris.umount('-f', '/u01')[0] == 2 and solaris.table() == before


def test_hpux_new_mount(tmp_path):
    # a table whose last line has no newline: the new line goes after it
    host = Host(tmp_path, HPUX, SEED_000.rstrip('\n'))
    assert host.mount('-F', 'vxfs', '/dev/vg01/lvol2', '/data')[0] == 0
    lines = host.table().split('\n')
    assert lines[0] == SEED_000.rstrip('\n') and lines[2] == ''
    dev = 'dev=%08x' % (zlib.crc32(b'/dev/vg01/lvol2') & 0xffffffff)
    assert lines[1].rsplit(' ', 1)[0] == '/dev/vg01/lvol2 /data vxfs ioerror=mwdisable,delaylog,%s 0 0' % dev
    assert [mount['mount_point'] for mount in parse_mnttab(host.table())] == ['/restore', '/data']
    assert host.umount('/data')[0] == 0 and host.table() == SEED_000
