# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_facts of Solaris and HP-UX hosts, on file trees made of the real samples
(tests/unit/fixtures/unix-samples), with kstat and kctune answered by the simulators in
tests/unix-sim and the other commands by the samples of their output."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import shutil

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import parse_uname_x
from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import (
    UnsupportedPlatform, detect_platform, gather_unix_facts)
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import platform_of
from ansible_collections.iotune.storage.tests.unit.conftest import fixture_path, read_fixture
from ansible_collections.iotune.storage.tests.unit.simulators import simulator

GIB = 1024 ** 3


def place(root, path, source):
    target = os.path.join(root, path.lstrip('/'))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy(source, target)


@pytest.fixture(name='runner')
def runner_fixture(tmp_path):
    """run_command(argv): kstat and kctune by their simulators, uname -r and swlist from ``answers``."""
    answers = {}
    env = {'KSTAT_SIM_STATE': str(tmp_path / 'kstat.json'), 'KCTUNE_SIM_STATE': str(tmp_path / 'kctune.json'),
           'KSTAT_SIM_MEMORY': str(8 * GIB), 'KCTUNE_SIM_MEMORY': str(8 * GIB)}
    simulators = dict((name, simulator(name, env)) for name in ('kstat', 'kctune'))

    def run_command(argv):
        if argv[0] in simulators:
            return simulators[argv[0]](*argv[1:])
        if tuple(argv) in answers:
            return 0, answers[tuple(argv)], ''
        return 127, '', '%s: not found' % argv[0]
    run_command.answers = answers
    run_command.simulators = simulators
    return run_command


@pytest.mark.parametrize('answer, platform', [('SunOS\n', 'solaris'), ('HP-UX', 'hpux'), ('Linux\n', 'linux'),
                                              ('AIX', None), ('', None)])
def test_platform_of_uname(answer, platform):
    assert platform_of(answer) == platform


def test_solaris_host(tmp_path, runner):
    root = str(tmp_path / 'root')
    place(root, '/etc/mnttab', fixture_path('unix-samples', 'solaris-mnttab-ufs-logging-scx-pal.txt'))
    place(root, '/etc/vfstab', fixture_path('unix-samples', 'solaris-vfstab-puppet-1.txt'))
    place(root, '/etc/release', fixture_path('unix-samples', 'solaris11-etc-release-ohai.txt'))
    with open(os.path.join(root, 'etc', 'system'), 'w') as handle:
        handle.write('* cap the ARC at 4 GiB\nset zfs:zfs_arc_max = 0x100000000\n')
    runner.answers[('uname', '-r')] = '5.11\n'
    facts = gather_unix_facts('solaris', runner, root=root)
    assert facts['platform'] == {'name': 'solaris', 'system': 'SunOS', 'kernel_release': '5.11', 'release': '11.1',
                                 'release_line': 'Oracle Solaris 11.1 X86', 'vxfs_version': None}
    root_mount = facts['mounts']['/']
    assert root_mount == {'source': '/dev/dsk/c9t0d0s0', 'fstype': 'ufs',
                          'options_live': ['rw', 'intr', 'largefiles', 'logging', 'xattr', 'onerror=panic', 'suid'],
                          'options_fstab': [], 'fstab_spec': '/dev/dsk/c0d0s0'}
    assert facts['mounts']['/tmp']['options_fstab'] is None
    # /etc/system holds the cap for the next boot; the running ARC still has the default
    assert facts['cache'] == {'zfs_arc_max': {'live': 7 * GIB, 'persistent': '0x100000000',
                                              'persistent_file': os.path.join(root, 'etc/system'),
                                              'applies': 'at the next boot'}}
    assert facts['not_applicable'] == {'block_queue': 'block-queue settings are read from sysfs and kept by udev rules, '
                                                      'which only Linux has'}
    assert facts['vxfs']['tunefstab_present'] is False
    assert facts['errors'] == []


def test_hpux_host_seed_000(tmp_path, runner):
    root = str(tmp_path / 'root')
    place(root, '/etc/mnttab', fixture_path('unix-samples', 'hpux-mnttab-scx-pal.txt'))
    place(root, '/etc/fstab', fixture_path('unix-doc', 'hpux-fstab-fstab4-examples.txt'))
    with open(fixture_path('unix-samples', 'hpux-swlist-fusioninv-1.txt')) as handle:
        runner.answers[('swlist', '-l', 'bundle')] = handle.read()
    runner.answers[('uname', '-r')] = 'B.11.31\n'
    assert runner.simulators['kctune']('filecache_max=1GB')[0] == 0
    facts = gather_unix_facts('hpux', runner, root=root)
    assert facts['platform'] == {'name': 'hpux', 'system': 'HP-UX', 'kernel_release': 'B.11.31', 'release': 'B.11.31',
                                 'release_line': None, 'vxfs_version': '4.1.002'}
    assert facts['mounts']['/'] == {'source': '/dev/vg00/lvol3', 'fstype': 'vxfs', 'options_live': ['ioerror=nodisable', 'log'],
                                    'options_fstab': None, 'fstab_spec': None}
    restore = [entry for entry in facts['fstab'] if entry['mount_point'] == '/restore'][0]
    assert restore['options'] == ['delaylog', 'mincache=direct', 'convosync=direct']
    assert facts['cache'] == {
        'filecache_max': {'live': GIB, 'expression': '1GB', 'applies': 'at once'},
        'filecache_min': {'live': 8 * GIB * 5 // 100 // 4096 * 4096, 'expression': 'Default', 'applies': 'at once'}}
    assert facts['errors'] == []


def test_missing_files_and_commands_are_errors_not_exceptions(tmp_path):
    def nothing_runs(argv):
        return 127, '', '%s: not found' % argv[0]
    facts = gather_unix_facts('hpux', nothing_runs, root=str(tmp_path))
    assert facts['mounts'] == {} and facts['fstab'] == [] and facts['cache'] == {}
    assert [error.split(':')[0] for error in facts['errors']] == [
        'cannot read %s/etc/mnttab' % tmp_path, 'uname -r exited 127', 'swlist -l bundle exited 127',
        'kctune -P name,current,expr exited 127']


def _uname_host(tmp_path, identity):
    """run_command(argv) of a host whose uname is the simulator with ``identity``."""
    (tmp_path / 'uname.json').write_text(json.dumps(identity))
    uname = simulator('uname', {'UNIX_SIM_DIR': str(tmp_path)})

    def run_command(argv):
        assert argv[0] == 'uname', argv
        return uname(*argv[1:])
    return run_command


@pytest.mark.parametrize('sample', ['solaris11-uname-X-ohai.txt', 'omnios-uname-X-ohai.txt',
                                    'openindiana-hipster-uname-X-ohai.txt', 'smartos-uname-X-ohai.txt'])
def test_the_real_solaris_hosts_are_solaris(tmp_path, sample):
    values = parse_uname_x(read_fixture('unix-samples', sample))
    identity = {'sysname': values['system'], 'nodename': 'h', 'release': values['release'], 'version': values['kernel_id'],
                'machine': values['machine']}
    assert detect_platform(_uname_host(tmp_path, identity)) == 'solaris'


@pytest.mark.parametrize('identity', [
    {'sysname': 'AIX', 'nodename': 'aix1', 'release': '3', 'version': '7', 'machine': '00F84C0C4C00'},
    {'sysname': 'FreeBSD', 'nodename': 'bsd1', 'release': '14.1-RELEASE', 'version': 'GENERIC', 'machine': 'amd64'},
])
def test_another_system_is_named_and_refused(tmp_path, identity):
    # issue 38, item 10: it used to be audited as Linux
    with pytest.raises(UnsupportedPlatform) as raised:
        detect_platform(_uname_host(tmp_path, identity))
    assert str(raised.value) == (
        "uname -s says '%s': iotune.storage manages Linux, SunOS (Solaris and illumos) and HP-UX hosts only (uname -s "
        "HP-UX, Linux, SunOS); nothing was read or changed on this host" % identity['sysname'])


@pytest.mark.parametrize('answer', [(1, '', 'uname: not found'), (0, '', ''), (0, '\n', '')])
def test_a_host_that_does_not_answer_is_taken_for_linux(answer):
    assert detect_platform(lambda argv: answer) is None
