# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HP-UX swlist simulator tests/unix-sim/swlist, run as a subprocess on a temporary swlist.json:
the default listing of the real samples (one byte for byte), -l bundle and -l product, the VxFS
version the collection's parse_swlist and vxfs_version read, the errors."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re

import pytest

from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture
from ansible_collections.iotune.storage.tests.unit.simulators import simulator
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import parse_swlist, vxfs_version

HPUX_11_31 = [
    {'name': 'Base-VXFS', 'revision': 'B.11.31', 'title': 'Base VxFS File System 4.1 Bundle for HP-UX'},
    {'name': 'HPUX11i-OE', 'revision': 'B.11.31.1403', 'title': 'HP-UX Foundation Operating Environment '},
    {'name': 'OnlineJFS01', 'revision': 'B.11.31.05', 'title': 'Online features of the VxFS File System'},
    {'name': 'PHKL_44265', 'revision': '1.0', 'title': 'VxFS 5.0.1 cumulative patch', 'level': 'product'},
]


def software_of(text):
    """The swlist.json of a default swlist listing: its items, in order, with their level."""
    software, level = [], 'bundle'
    for line in text.split('\n'):
        if line.startswith('# Product(s) not contained in a Bundle:'):
            level = 'product'
        found = re.match(r'^  (\S+) +(\S+) (.*)$', line)
        if found:
            item = {'name': found.group(1), 'revision': found.group(2), 'title': found.group(3).lstrip(' ')}
            if level == 'product':
                item['level'] = 'product'
            software.append(item)
    return software


@pytest.fixture(name='host')
def host_fixture(tmp_path):
    """host(software, nodename) -> swlist(*args) -> (rc, stdout, stderr); None leaves the file out."""
    def make(software, nodename='hpux1'):
        if software is not None:
            (tmp_path / 'swlist.json').write_text(json.dumps(software))
        if nodename is not None:
            (tmp_path / 'uname.json').write_text(json.dumps({'sysname': 'HP-UX', 'nodename': nodename, 'release': 'B.11.31',
                                                             'version': 'U', 'machine': 'ia64'}))
        return simulator('swlist', {'UNIX_SIM_DIR': str(tmp_path)})
    return make


def test_default_listing_is_the_real_sample_byte_for_byte(host):
    text = read_fixture('unix-samples', 'hpux-swlist-fusioninv-2.txt')
    assert host(software_of(text), 'basahpux')() == (0, text, '')


def test_the_other_sample_reads_the_same(host):
    # its tag column is wider (37): the simulator pads to the 29 of the other sample
    text = read_fixture('unix-samples', 'hpux-swlist-fusioninv-1.txt')
    rc, out, _err = host(software_of(text), 'ignsrv')()
    assert rc == 0 and parse_swlist(out) == parse_swlist(text)
    assert [line for line in out.split('\n') if line.startswith('#')] == [line for line in text.split('\n') if line.startswith('#')]
    # Base-VXFS 4.1.002 (the collection reads Base-VXFS before the OnLineJFS bundle B3929EA 4.1.004)
    assert vxfs_version(parse_swlist(out)) == '4.1.002'


def test_bundle_level_and_the_vxfs_version(host):
    swlist = host(HPUX_11_31)
    rc, out, err = swlist('-l', 'bundle')
    assert (rc, err) == (0, '')
    assert out.startswith('# Initializing...\n# Contacting target "hpux1"...\n#\n# Target:  hpux1:/\n#\n\n  Base-VXFS ')
    assert '# Bundle(s):' not in out and 'PHKL_44265' not in out
    assert vxfs_version(parse_swlist(out)) == 'B.11.31'
    assert parse_swlist(swlist('-l', 'bundle', 'Base-VXFS')[1]) == {
        'Base-VXFS': {'revision': 'B.11.31', 'title': 'Base VxFS File System 4.1 Bundle for HP-UX'}}
    assert swlist('-lbundle', 'OnlineJFS01')[1].endswith(
        '  OnlineJFS01                   B.11.31.05     Online features of the VxFS File System\n')


def test_product_level(host):
    swlist = host(HPUX_11_31)
    assert parse_swlist(swlist('-l', 'product')[1]) == {'PHKL_44265': {'revision': '1.0', 'title': 'VxFS 5.0.1 cumulative patch'}}
    assert swlist('-l', 'product', 'Base-VXFS')[0] == 1


def test_default_listing_has_both_sections(host):
    out = host(HPUX_11_31)()[1]
    assert '#\n# Bundle(s):\n#\n\n  Base-VXFS ' in out
    assert 'VxFS File System\n#\n# Product(s) not contained in a Bundle:\n#\n\n  PHKL_44265 ' in out
    assert sorted(parse_swlist(out)) == ['Base-VXFS', 'HPUX11i-OE', 'OnlineJFS01', 'PHKL_44265']


def test_unknown_software(host):
    rc, out, err = host(HPUX_11_31)('-l', 'bundle', 'Base-VXFS', 'B3929EA')
    assert rc == 1 and sorted(parse_swlist(out)) == ['Base-VXFS']
    assert err == 'ERROR:   Software "B3929EA" was not found on host "hpux1:/".\n'


def test_target_without_uname_json_is_this_machine(host):
    rc, out, _err = host(HPUX_11_31, None)('-l', 'bundle')
    assert rc == 0 and re.match(r'^# Initializing\.\.\.\n# Contacting target "[^"]+"\.\.\.\n', out)


def test_missing_database_names_the_file(host, tmp_path):
    rc, out, err = host(None)()
    assert (rc, out) == (1, '') and str(tmp_path / 'swlist.json') in err


@pytest.mark.parametrize('software, message', [
    ([{'name': 'Base-VXFS'}], 'every item needs a name and a revision'),
    ([dict(HPUX_11_31[0], level='fileset')], "level 'fileset'"),
    ({'Base-VXFS': 'B.11.31'}, 'must hold a list'),
])
def test_bad_database(host, software, message):
    rc, out, err = host(software)()
    assert (rc, out) == (1, '') and message in err


@pytest.mark.parametrize('args', [('-l', 'fileset'), ('-v',), ('-l',), ('Base-VXFS',)])
def test_usage(host, args):
    rc, out, err = host(HPUX_11_31)(*args)
    assert (rc, out) == (1, '') and 'usage: swlist' in err
