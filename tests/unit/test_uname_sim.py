# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Solaris / HP-UX uname simulator tests/unix-sim/uname, run as a subprocess on a temporary
uname.json: the field order, -a of each system, Solaris' -X block (the real samples, read with the
collection's parse_uname_x), and its errors."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

from ansible_collections.iotune.storage.tests.unit.conftest import read_fixture
from ansible_collections.iotune.storage.tests.unit.simulators import simulator
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import parse_key_values, parse_uname_x

SOLARIS_11_4 = {'sysname': 'SunOS', 'nodename': 'sol114', 'release': '5.11', 'version': '11.4.0.15.0', 'machine': 'i86pc'}
HPUX_11_31 = {'sysname': 'HP-UX', 'nodename': 'hpux1', 'release': 'B.11.31', 'version': 'U', 'machine': 'ia64'}
UNAME_X_SAMPLES = ('solaris11-uname-X-ohai.txt', 'omnios-uname-X-ohai.txt', 'openindiana-hipster-uname-X-ohai.txt',
                   'smartos-uname-X-ohai.txt')


@pytest.fixture(name='host')
def host_fixture(tmp_path):
    """host(identity) -> uname(*args) -> (rc, stdout, stderr), with identity written to uname.json (None: no file)."""
    def make(identity):
        if identity is not None:
            (tmp_path / 'uname.json').write_text(json.dumps(identity))
        return simulator('uname', {'UNIX_SIM_DIR': str(tmp_path)})
    return make


@pytest.mark.parametrize('identity', [SOLARIS_11_4, HPUX_11_31], ids=['solaris', 'hpux'])
def test_no_option_is_the_system_name(host, identity):
    assert host(identity)() == (0, identity['sysname'] + '\n', '')


@pytest.mark.parametrize('args', [('-sr',), ('-rs',), ('-r', '-s'), ('-s', '-r'), ('-r', '-s', '--')])
def test_fields_come_in_the_order_snrvm_whatever_the_order_given(host, args):
    assert host(SOLARIS_11_4)(*args) == (0, 'SunOS 5.11\n', '')


def test_each_field(host):
    uname = host(SOLARIS_11_4)
    assert [uname(option)[1] for option in ('-n', '-r', '-v', '-m', '-p', '-i')] == [
        'sol114\n', '5.11\n', '11.4.0.15.0\n', 'i86pc\n', 'i386\n', 'i86pc\n']
    assert uname('-mnsrv')[1] == 'SunOS sol114 5.11 11.4.0.15.0 i86pc\n'


def test_solaris_a_adds_processor_and_platform(host):
    assert host(SOLARIS_11_4)('-a')[1] == 'SunOS sol114 5.11 11.4.0.15.0 i86pc i386 i86pc\n'
    sparc = dict(SOLARIS_11_4, release='5.10', version='Generic_142900-07', machine='sun4v', platform='SUNW,Sun-Blade-T6300')
    assert host(sparc)('-a')[1] == 'SunOS sol114 5.10 Generic_142900-07 sun4v sparc SUNW,Sun-Blade-T6300\n'


def test_hpux_a_adds_machine_id_and_license(host):
    uname = host(dict(HPUX_11_31, id='2004954417'))
    assert uname('-a') == (0, 'HP-UX hpux1 B.11.31 U ia64 2004954417 unlimited-user license\n', '')
    assert uname('-l')[1] == 'unlimited-user license\n'
    assert uname('-i')[1] == '2004954417\n'
    made_up = host(HPUX_11_31)('-i')[1]
    assert made_up.strip().isdigit() and len(made_up.strip()) == 10


@pytest.mark.parametrize('sample', UNAME_X_SAMPLES)
def test_solaris_X_is_the_layout_of_the_real_samples(host, sample):
    text = read_fixture('unix-samples', sample)
    values = parse_key_values(text)
    identity = {'sysname': values['System'], 'nodename': values['Node'], 'release': values['Release'],
                'version': values['KernelID'], 'machine': values['Machine'], 'ncpu': int(values['NumCPU'])}
    rc, out, err = host(identity)('-X')
    # illumos uname.c ends the output with one more newline than the samples kept
    assert (rc, out, err) == (0, text + '\n', '')
    assert parse_uname_x(out) == parse_uname_x(text) == {
        'system': 'SunOS', 'release': '5.11', 'kernel_id': values['KernelID'], 'machine': 'i86pc'}


def test_solaris_X_after_other_fields_follows_them_directly(host):
    out = host(SOLARIS_11_4)('-sX')[1]
    assert out.startswith('SunOSSystem = SunOS\nNode = sol114\n') and out.endswith('NumCPU = 1\n\n')


@pytest.mark.parametrize('identity, args, usage', [
    (HPUX_11_31, ('-X',), 'usage: uname [-amnrsvil]'),
    (HPUX_11_31, ('-p',), 'usage: uname [-amnrsvil]'),
    (SOLARIS_11_4, ('-l',), 'usage:\tuname [-snrvmapiX]'),
    (SOLARIS_11_4, ('host',), 'usage:\tuname [-snrvmapiX]'),
    (SOLARIS_11_4, ('-S', 'newname'), 'usage:\tuname [-snrvmapiX]'),
])
def test_usage(host, identity, args, usage):
    rc, out, err = host(identity)(*args)
    assert (rc, out) == (1, '') and err.startswith(usage)


def test_missing_identity_names_the_file(host, tmp_path):
    rc, out, err = host(None)('-a')
    assert (rc, out) == (1, '') and str(tmp_path / 'uname.json') in err and 'ERROR' in err


@pytest.mark.parametrize('identity, args, out', [
    ({'sysname': 'AIX', 'nodename': 'aix1', 'release': '3', 'version': '7', 'machine': '00F84C0C4C00'}, ('-a',),
     'AIX aix1 3 7 00F84C0C4C00\n'),
    ({'sysname': 'FreeBSD', 'nodename': 'bsd1', 'release': '14.1-RELEASE', 'version': 'GENERIC', 'machine': 'amd64'}, (),
     'FreeBSD\n'),
])
def test_a_system_the_collection_does_not_manage(host, identity, args, out):
    # for the collection's refusal of them (issue 38, item 10): the POSIX fields
    assert host(identity)(*args) == (0, out, '')
    assert host(identity)('-X')[0] == 1


@pytest.mark.parametrize('identity, message', [
    (dict(SOLARIS_11_4, sysname='Linux'), "sysname is 'Linux'"),
    ({'sysname': 'SunOS', 'nodename': 'x'}, 'lacks release, version, machine'),
])
def test_bad_identity(host, identity, message):
    rc, out, err = host(identity)()
    assert (rc, out) == (1, '') and message in err
