# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What Solaris/illumos and HP-UX hosts say about themselves, read from every real sample of its
kind (tests/unit/fixtures/unix-samples/SOURCES.md); kctune -P, /etc/system and kstat -p, of which no
real sample was found, from their documented formats."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import (
    parse_etc_system,
    parse_kctune_p,
    parse_kstat_p,
    parse_machinfo_memory,
    parse_machinfo_release,
    parse_pkg_info,
    parse_pkginfo_l,
    parse_release,
    parse_swlist,
    parse_system_number,
    parse_uname_x,
    vxfs_version,
)
from ansible_collections.iotune.storage.tests.unit.conftest import fixture_path, read_fixture


def sample(name):
    return read_fixture('unix-samples', name)


def names(part):
    return sorted(name for name in os.listdir(fixture_path('unix-samples')) if part in name)


RELEASES = {
    'omnios-etc-release-ohai.txt': ('OmniOS', None),
    'openindiana-151-etc-release-glpi.txt': ('OpenIndiana', None),
    'openindiana-hipster-etc-release-ohai.txt': ('OpenIndiana', None),
    'opensolaris-etc-release-fusioninv.txt': ('OpenSolaris', None),
    'solaris-etc-release-fusioninv-1.txt': ('Solaris', '10'),
    'solaris-etc-release-fusioninv-2.txt': ('Solaris', '9'),
    'solaris-etc-release-fusioninv-3.txt': ('Solaris', '9'),
    'solaris-etc-release-fusioninv-4.txt': ('Solaris', '8'),
    'solaris-etc-release-fusioninv-5.txt': ('Solaris', '9'),
    'solaris-etc-release-fusioninv-6.txt': ('Solaris', '10'),
    'solaris-etc-release-fusioninv-7.txt': ('Solaris', '10'),
    'solaris-etc-release-fusioninv-8.txt': ('Solaris', '10'),
    'solaris10-etc-release-facter.txt': ('Solaris', '10'),
    'solaris11-etc-release-ohai.txt': ('Solaris', '11.1'),
}


def test_every_release_sample_is_listed():
    assert names('etc-release') == sorted(RELEASES)


@pytest.mark.parametrize('name', sorted(RELEASES))
def test_release(name):
    release = parse_release(sample(name))
    assert (release['name'], release['version']) == RELEASES[name]
    assert release['line'] == sample(name).strip().splitlines()[0].strip()


@pytest.mark.parametrize('name, kernel_id', [
    ('omnios-uname-X-ohai.txt', 'omnios-r151026-673c59f55d'),
    ('openindiana-hipster-uname-X-ohai.txt', 'illumos-c3e16711de'),
    ('smartos-uname-X-ohai.txt', 'joyent_20120130T201844Z'),
    ('solaris11-uname-X-ohai.txt', '11.1'),
])
def test_uname_x(name, kernel_id):
    assert name in names('uname-X')
    assert parse_uname_x(sample(name)) == {'system': 'SunOS', 'release': '5.11', 'kernel_id': kernel_id,
                                           'machine': 'i86pc'}


def test_every_uname_x_sample_is_read():
    assert len(names('uname-X')) == 4


@pytest.mark.parametrize('name', names('machinfo'))
def test_machinfo_release(name):
    expected = 'B.11.23' if '11.23' in name else 'B.11.31'
    assert parse_machinfo_release(sample(name)) == expected


MACHINFO_MB = {'hpux_11.23.ia64': 4076, 'hpux_11.31-1': 8180, 'hpux_11.31-2': 98135, 'hpux_11.31-3': 24013,
               'hpux_11.31-superdome': 12749, 'hpux_11.31_3xia64': 8180}


@pytest.mark.parametrize('name', names('machinfo'))
def test_machinfo_memory(name):
    # 11.31's 'Memory: 8180 MB (7.99 GB)' and 11.23's 'Memory = 4076 MB (3.980469 GB)': MB of 1024 * 1024 bytes
    key = name[len('hpux-machinfo-fusioninv-'):-len('.txt')]
    assert parse_machinfo_memory(sample(name)) == MACHINFO_MB[key] * 1024 * 1024


def test_machinfo_without_memory():
    assert parse_machinfo_memory('CPU info:\n  2 Intel(R) Itanium 2 processors\n') is None
    assert parse_machinfo_memory(None) is None


def test_machinfo_without_os_info():
    assert parse_machinfo_release('CPU info:\n  2 Intel(R) Itanium 2 processors\n') is None


def test_pkginfo_of_solaris10_has_no_vxfs():
    packages = parse_pkginfo_l(sample('solaris10-pkginfo-l-fusioninv.txt'))
    assert packages['SUNWgtar'] == '11.10.0,REV=2005.01.08.01.09'
    assert len(packages) == sample('solaris10-pkginfo-l-fusioninv.txt').count('PKGINST:')
    assert vxfs_version(packages) is None


def test_pkginfo_names_vxfs():
    packages = parse_pkginfo_l('   PKGINST:  VRTSvxfs\n      NAME:  Veritas File System\n   VERSION:  7.4.2.0000,REV=1\n')
    assert vxfs_version(packages) == '7.4.2.0000'


@pytest.mark.parametrize('name', names('pkg-info'))
def test_pkg_info(name):
    packages = parse_pkg_info(sample(name))
    assert len(packages) == sample(name).count(' Name: ') and packages
    assert vxfs_version(packages) is None


def test_pkg_info_of_solaris11():
    assert parse_pkg_info(sample('solaris11-pkg-info-fusioninv.txt'))['archiver/gnu-tar'] == '1.26'


@pytest.mark.parametrize('name', names('swlist'))
def test_swlist_finds_vxfs(name):
    items = parse_swlist(sample(name))
    assert items['Base-VXFS'] == {'revision': '4.1.002', 'title': 'VERITAS File System Bundle 4.1 for HP-UX'}
    assert vxfs_version(items) == '4.1.002'
    assert not [tag for tag in items if tag.startswith('#')]


def test_kctune_p_as_hp_documents_it():
    # kctune(1M), HP-UX 11i v3: "-P name,current maxuprc nproc" prints field-value pairs per tunable
    text = 'name filecache_max\ncurrent 1073741824\nexpr 10%\n\nname filecache_min\ncurrent 536870912\nexpr 5%\n'
    assert parse_kctune_p(text) == {
        'filecache_max': {'name': 'filecache_max', 'current': '1073741824', 'expr': '10%'},
        'filecache_min': {'name': 'filecache_min', 'current': '536870912', 'expr': '5%'}}
    assert parse_kctune_p('name maxuprc\ncurrent 256\nname nproc\ncurrent 4200\n') == {
        'maxuprc': {'name': 'maxuprc', 'current': '256'}, 'nproc': {'name': 'nproc', 'current': '4200'}}


def test_etc_system_set_lines():
    # the forms of the Augeas lens test for Solaris /etc/system (SOURCES.md): '*' comments, spaces around '='
    text = ('* ZFS ARC cap\nset zfs:zfs_arc_max=12884901888\nset test_module:debug = 0x13\n'
            '*set zfs:zfs_arc_max=1\nset moddebug & ~0x880\nforceload: drv/foo\nset maxusers=512\n')
    assert parse_etc_system(text) == {'zfs:zfs_arc_max': '12884901888', 'test_module:debug': '0x13', 'maxusers': '512'}
    assert parse_etc_system('set zfs:zfs_arc_max=1\nset zfs:zfs_arc_max=2\n') == {'zfs:zfs_arc_max': '2'}


def test_kstat_p():
    text = 'zfs:0:arcstats:c_max\t4294967296\nzfs:0:arcstats:size\t1073741824\nnot a kstat line\n'
    assert parse_kstat_p(text) == {'zfs:0:arcstats:c_max': '4294967296', 'zfs:0:arcstats:size': '1073741824'}


@pytest.mark.parametrize('text, value', [
    ('1073741824', 1 << 30), ('0x40000000', 1 << 30), ('0X4000000a', 0x4000000a), ('010000000000', 1 << 30), ('0', 0),
    (' 42 ', 42),
    # not a form system(4) documents: Solaris ignores the line, so the value is None, not what int() makes of it
    ('0x4000_0000', None), ('1_000', None), ('+1', None), ('-1', None), ('08', None), ('0x', None), ('1e9', None),
    ('1073741824UL', None), ('', None), (None, None), ('\u0661\u0662', None),
])
def test_system_numbers_in_the_forms_of_system_4(text, value):
    assert parse_system_number(text) == value


def test_etc_system_hash_comments_and_odd_values_are_kept_as_written():
    assert parse_etc_system('# set zfs:zfs_arc_max = 1\nset zfs:zfs_arc_max = 0x4000_0000\n') == {'zfs:zfs_arc_max': '0x4000_0000'}
