# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Solaris pkginfo simulator tests/unix-sim/pkginfo, run as a subprocess on a temporary
pkginfo.json: the -l layout of the real Solaris 10 sample byte for byte, the VxFS version the
collection's parse_pkginfo_l and vxfs_version read from it, the short and -x listings, the errors."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re

import pytest

from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture
from ansible_collections.iotune.storage.tests.unit.simulators import simulator
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import parse_pkginfo_l, vxfs_version

SAMPLE = 'solaris10-pkginfo-l-fusioninv.txt'
COUNTS = {'shared pathnames': 'shared', 'directories': 'directories', 'executables': 'executables',
          'setuid/setgid executables': 'setuid', 'blocks used (approx)': 'blocks'}
VRTSVXFS = {'NAME': 'VERITAS File System', 'CATEGORY': 'system', 'ARCH': 'sparc', 'VERSION': '4.1,REV=4.1B18_sol_GA_s10b74L2a',
            'VENDOR': 'VERITAS Software', 'DESC': 'Commercial File System', 'INSTDATE': 'Mar 02 2007 10:25',
            'STATUS': 'completely installed'}


def packages_of(text):
    """The pkginfo.json that describes the packages of a pkginfo -l listing."""
    packages = {}
    for block in text.strip('\n').split('\n\n'):
        info, files = {}, {}
        for line in block.split('\n'):
            field = re.match(r'^ *([A-Z]+):  (.*)$', line)
            if field and field.group(1) == 'FILES':
                count, kind = field.group(2).split(None, 1)
                files[kind.split()[0]] = int(count)
            elif field:
                info[field.group(1)] = field.group(2)
            else:
                count, kind = line.split(None, 1)
                files[COUNTS[kind]] = int(count)
        info['FILES'] = files
        packages[info.pop('PKGINST')] = info
    return packages


@pytest.fixture(name='host')
def host_fixture(tmp_path):
    """host(packages) -> pkginfo(*args) -> (rc, stdout, stderr), with packages written to pkginfo.json."""
    def make(packages):
        if packages is not None:
            (tmp_path / 'pkginfo.json').write_text(json.dumps(packages))
        return simulator('pkginfo', {'UNIX_SIM_DIR': str(tmp_path)})
    return make


def test_long_form_is_the_layout_of_the_real_sample(host):
    text = read_fixture('unix-samples', SAMPLE)
    pkginfo = host(packages_of(text))
    # in the sample's own order, which is not sorted: pkginfo sorts, so ask for one package at a time
    blocks = [pkginfo('-l', name)[1] for name in ('SUNWgtar', 'SUNWauda', 'SUNWbip')]
    # pkginfo.c ends every package with a blank line; the sample file stops before the last one
    assert ''.join(blocks) == text + '\n'
    rc, out, err = pkginfo('-l')
    assert (rc, err) == (0, '') and out == ''.join(sorted(blocks))


def test_the_collection_reads_the_vxfs_version(host):
    packages = dict(packages_of(read_fixture('unix-samples', SAMPLE)), VRTSvxfs=VRTSVXFS)
    pkginfo = host(packages)
    rc, out, _err = pkginfo('-l')
    assert rc == 0 and parse_pkginfo_l(out) == {'SUNWauda': '11.10.0,REV=2005.01.21.16.34', 'SUNWbip': '11.10.0,REV=2005.01.21.16.34',
                                                'SUNWgtar': '11.10.0,REV=2005.01.08.01.09',
                                                'VRTSvxfs': '4.1,REV=4.1B18_sol_GA_s10b74L2a'}
    assert vxfs_version(parse_pkginfo_l(out)) == '4.1'
    assert pkginfo('-l', 'VRTSvxfs')[1] == (
        '   PKGINST:  VRTSvxfs\n      NAME:  VERITAS File System\n  CATEGORY:  system\n      ARCH:  sparc\n'
        '   VERSION:  4.1,REV=4.1B18_sol_GA_s10b74L2a\n    VENDOR:  VERITAS Software\n      DESC:  Commercial File System\n'
        '  INSTDATE:  Mar 02 2007 10:25\n    STATUS:  completely installed\n\n')


def test_short_listing_pads_to_the_longest_instance(host):
    pkginfo = host({'VRTSvxfs': VRTSVXFS, 'SUNWcs': dict(VRTSVXFS, NAME='Core Solaris', CATEGORY='system,core'),
                    'SUNWzfsu': dict(VRTSVXFS, NAME='ZFS (Usr)', CATEGORY='application')})
    assert pkginfo() == (0, 'system      SUNWcs   Core Solaris\n'
                            'application SUNWzfsu ZFS (Usr)\n'
                            'system      VRTSvxfs VERITAS File System\n', '')
    assert pkginfo('SUNWcs')[1] == 'system      SUNWcs Core Solaris\n'
    assert pkginfo('all') == pkginfo()


def test_extracted_listing(host):
    assert host({'VRTSvxfs': VRTSVXFS})('-x')[1] == 'VRTSvxfs  VERITAS File System\n          (sparc) 4.1,REV=4.1B18_sol_GA_s10b74L2a\n'


def test_unknown_package_is_an_error_after_the_known_ones(host):
    rc, out, err = host({'VRTSvxfs': VRTSVXFS})('-l', 'VRTSvxfs', 'VRTSvxvm')
    assert rc == 1 and parse_pkginfo_l(out) == {'VRTSvxfs': '4.1,REV=4.1B18_sol_GA_s10b74L2a'}
    assert err == 'ERROR: information for "VRTSvxvm" was not found\n'


def test_quiet_answers_by_the_exit_status_only(host):
    pkginfo = host({'VRTSvxfs': VRTSVXFS})
    assert pkginfo('-q', 'VRTSvxfs') == (0, '', '')
    assert pkginfo('-q', 'VRTSvxvm') == (1, '', '')


def test_partially_and_completely_installed(host):
    pkginfo = host({'VRTSvxfs': VRTSVXFS, 'VRTSvxvm': dict(VRTSVXFS, NAME='VERITAS Volume Manager', STATUS='partially installed')})
    assert parse_pkginfo_l(pkginfo('-l', '-i')[1]) == {'VRTSvxfs': '4.1,REV=4.1B18_sol_GA_s10b74L2a'}
    assert '    STATUS:  partially installed\n' in pkginfo('-l', '-p')[1]
    assert pkginfo('-p', 'VRTSvxfs') == (1, '', 'ERROR: No partial information for "VRTSvxfs" was found\n')


def test_no_package_at_all_is_exit_1(host):
    assert host({})() == (1, '', '')


def test_missing_database_names_the_file(host, tmp_path):
    rc, out, err = host(None)('-l')
    assert (rc, out) == (1, '') and str(tmp_path / 'pkginfo.json') in err


@pytest.mark.parametrize('packages, message', [
    ({'VRTSvxfs': dict(VRTSVXFS, VERSION='')}, 'pkginfo file is corrupt or missing (VRTSvxfs: no VERSION)'),
    ({'VRTSvxfs': dict(VRTSVXFS, STATUS='installed')}, "STATUS 'installed'"),
    (['VRTSvxfs'], 'must hold an object'),
])
def test_bad_database(host, packages, message):
    rc, out, err = host(packages)('-l')
    assert (rc, out) == (1, '') and message in err


@pytest.mark.parametrize('args', [('-l', '-x'), ('-lx',), ('-i', '-p'), ('-d', '/dev/cdrom')])
def test_usage(host, args):
    rc, out, err = host({'VRTSvxfs': VRTSVXFS})(*args)
    assert (rc, out) == (1, '') and err.startswith('usage:\npkginfo ')
