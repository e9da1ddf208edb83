# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The VxFS simulator tests/vxfs-sim/vxtunefs, run as a subprocess with a temporary state file."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.tunefstab import parse_vxtunefs_output

SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'vxfs-sim', 'vxtunefs')
VOL01 = '/dev/vx/dsk/datadg/vol01'


@pytest.fixture(name='sim')
def sim_fixture(tmp_path):
    """sim(*args, env=None) -> (rc, stdout, stderr), with its own state file and no tunefstab."""
    state = tmp_path / 'state' / 'state.json'

    def sim(*args, **kwargs):
        env = dict(os.environ, VXFS_SIM_STATE=str(state), VXTUNEFSTAB=str(tmp_path / 'no-tunefstab'), LANG='C')
        env.update(kwargs.get('env') or {})
        proc = subprocess.run([sys.executable, SIM] + list(args), env=env, capture_output=True, text=True, check=False)
        return proc.returncode, proc.stdout, proc.stderr
    sim.state = state
    return sim


def test_print_format_is_the_seed_sample(sim, read_fixture):
    assert sim('--sim-mount', VOL01, '/filesystem')[0] == 0
    rc, out, err = sim('-p', '/filesystem')
    assert (rc, err) == (0, '')
    sample = read_fixture('vxtunefs', 'seed003-solaris9.txt').splitlines()
    printed = out.splitlines()
    assert [line.split(' = ')[0] for line in printed] == [line.split(' = ')[0] for line in sample]
    # same header, same "name = value" spacing; the values are the DOMAIN.md defaults, which are the
    # sample's values except buf_breakup_size (DOMAIN.md: 256K)
    differ = [(a, b) for a, b in zip(printed, sample) if a != b]
    assert differ == [('buf_breakup_size = 262144', 'buf_breakup_size = 1048576')]


def test_no_option_prints_the_same_as_p(sim):
    sim('--sim-mount', VOL01, '/data')
    assert sim('/data') == sim('-p', '/data')
    # a special works as well as its mount point
    assert sim(VOL01)[1] == sim('/data')[1]


def test_set_and_read_back(sim):
    sim('--sim-mount', VOL01, '/data')
    rc, out, err = sim('-o', 'read_pref_io=256k,read_nstream=4', '-o', 'discovered_direct_iosz=10m', '/data')
    assert (rc, out, err) == (0, '', '')
    values = parse_vxtunefs_output(sim('-p', '/data')[1])
    assert (values['read_pref_io'], values['read_nstream'], values['discovered_direct_iosz']) == (262144, 4, 10485760)
    # sizes in 512-byte sectors; -p with -o sets then prints
    rc, out, dummy = sim('-p', '-o', 'write_pref_io=2048s', '/data')
    assert rc == 0 and 'write_pref_io = 1048576' in out.splitlines()


@pytest.mark.parametrize('args, message', [
    (['-o', 'read_pref_iosz=65536', '/data'], 'UX:vxfs vxtunefs: ERROR: unknown tunable parameter read_pref_iosz\n'),
    (['-o', 'read_nstream=0', '/data'], 'UX:vxfs vxtunefs: ERROR: invalid value 0 for parameter read_nstream (accepted: >= 1)\n'),
    (['-o', 'read_ahead=3', '/data'], 'UX:vxfs vxtunefs: ERROR: invalid value 3 for parameter read_ahead (accepted: 0, 1, 2)\n'),
    (['-o', 'read_nstream=4k', '/data'], 'UX:vxfs vxtunefs: ERROR: invalid value 4k for parameter read_nstream\n'),
    (['-o', 'read_pref_io', '/data'], 'UX:vxfs vxtunefs: ERROR: -o: parameter must be name=value: read_pref_io\n'),
    # a bad item anywhere means nothing is set
    (['-o', 'read_pref_io=1m,bogus=1', '/data'], 'UX:vxfs vxtunefs: ERROR: unknown tunable parameter bogus\n'),
])
def test_bad_parameters_change_nothing(sim, args, message):
    sim('--sim-mount', VOL01, '/data')
    before = sim('-p', '/data')[1]
    rc, out, err = sim(*args)
    assert (rc, out, err) == (1, '', message)
    assert sim('-p', '/data')[1] == before


def test_unknown_mount_point(sim):
    sim('--sim-mount', VOL01, '/data')
    rc, out, err = sim('-p', '/nope', '/data')
    assert rc == 1
    assert err == ('UX:vxfs vxtunefs: ERROR: /nope is not a mounted VxFS file system '
                   '(simulator: not in the mounts of %s)\n' % sim.state)
    # the other file system is still printed
    assert out.startswith('Filesystem i/o parameters for /data\n')


@pytest.mark.parametrize('args', [[], ['-x', '/data'], ['-o', 'read_ahead=2'], ['-f']])
def test_usage_errors(sim, args):
    rc, out, err = sim(*args)
    assert rc == 2 and out == ''
    assert 'Usage: vxtunefs [-ps] [-f tunefstab] [-o parameter=value' in err


def test_s_f_applies_the_tunefstab_entries(sim, tmp_path):
    sim('--sim-mount', VOL01, '/data')
    sim('--sim-mount', '/dev/vx/dsk/datadg/u08', '/u08')
    tunefstab = tmp_path / 'tunefstab'
    tunefstab.write_text(
        '# comment\n'
        '/dev/vx/dsk/datadg/vol01 read_pref_io=262144,read_nstream=4\n'
        '/dev/vx/dsk/datadg/u08 discovered_direct_iosz=10485760\n'
        '/dev/vx/dsk/datadg/vol01 read_nstream=8\n'
        '/dev/vx/dsk/datadg/vol01 bogus=1\n')
    rc, out, err = sim('-s', '-f', str(tunefstab), '/data')
    assert (rc, out) == (0, '')
    assert 'line 5' in err and 'unknown tunable parameter bogus' in err     # the bad line is skipped
    values = parse_vxtunefs_output(sim('/data')[1])
    assert (values['read_pref_io'], values['read_nstream']) == (262144, 8)
    # only the file system named on the command line was set
    assert parse_vxtunefs_output(sim('/u08')[1])['discovered_direct_iosz'] == 262144
    # the command line overrides the file
    sim('-s', '-f', str(tunefstab), '-o', 'read_nstream=2', '/data')
    assert parse_vxtunefs_output(sim('/data')[1])['read_nstream'] == 2


def test_s_without_target_sets_every_listed_mounted_file_system(sim, tmp_path):
    sim('--sim-mount', VOL01, '/data')
    sim('--sim-mount', '/dev/vx/dsk/datadg/u08', '/u08')
    tunefstab = tmp_path / 'tunefstab'
    tunefstab.write_text('/dev/vx/dsk/datadg/u08 discovered_direct_iosz=10m\n/dev/vx/dsk/datadg/gone read_ahead=0\n'
                         'system-default read_ahead=2\n')
    # VXTUNEFSTAB replaces the default file
    assert sim('-s', env={'VXTUNEFSTAB': str(tunefstab)})[0] == 0
    values = parse_vxtunefs_output(sim('/u08')[1])
    assert (values['discovered_direct_iosz'], values['read_ahead']) == (10485760, 2)
    assert parse_vxtunefs_output(sim('/data')[1])['read_ahead'] == 1
    # -p without a target prints the listed, mounted file systems
    rc, out, dummy = sim('-p', '-f', str(tunefstab))
    assert rc == 0 and out.splitlines()[0] == 'Filesystem i/o parameters for /u08'


def test_s_with_missing_file(sim, tmp_path):
    sim('--sim-mount', VOL01, '/data')
    rc, out, err = sim('-s', '-f', str(tmp_path / 'missing'), '/data')
    assert rc == 1
    assert err == 'UX:vxfs vxtunefs: ERROR: cannot open tunefstab file %s: No such file or directory\n' % (tmp_path / 'missing')


def test_mount_applies_tunefstab_like_the_vxfs_mount_command(sim, tmp_path):
    tunefstab = tmp_path / 'tunefstab'
    tunefstab.write_text('%s write_pref_io=1m\n' % VOL01)
    assert sim('--sim-mount', '--size', '3300', VOL01, '/data/', env={'VXTUNEFSTAB': str(tunefstab)})[0] == 0
    values = parse_vxtunefs_output(sim('/data')[1])
    assert (values['write_pref_io'], values['fcl_maxalloc']) == (1048576, 100)
    # a new mount starts from the defaults again
    assert sim('--sim-mount', VOL01, '/data')[0] == 0
    assert parse_vxtunefs_output(sim('/data')[1])['write_pref_io'] == 65536
    assert sim('--sim-umount', '/data')[0] == 0
    assert sim('/data')[0] == 1


def test_state_file_is_json_written_atomically(sim):
    sim('--sim-mount', VOL01, '/data')
    sim('-o', 'read_ahead=2', '/data')
    with open(str(sim.state)) as handle:
        state = json.load(handle)
    assert state['mounts'] == {'/data': VOL01}
    assert state['tunables'] == {'/data': {'read_ahead': 2}}
    assert 'simulat' in state['simulator']
    assert sorted(os.listdir(os.path.dirname(str(sim.state)))) == ['state.json', 'state.json.lock']
    rc, out, dummy = sim('--sim-show')
    assert rc == 0 and json.loads(out) == state


def test_corrupt_state_is_an_error(sim):
    os.makedirs(os.path.dirname(str(sim.state)))
    sim.state.write_text('{not json')
    rc, dummy, err = sim('-p', '/data')
    assert rc == 1 and 'is not JSON' in err


def test_it_is_an_executable(sim, tmp_path):
    assert os.access(SIM, os.X_OK)
    env = dict(os.environ, VXFS_SIM_STATE=str(tmp_path / 's.json'))
    subprocess.run([SIM, '--sim-mount', VOL01, '/data'], env=env, check=True)
    out = subprocess.run([SIM, '-p', '/data'], env=env, check=True, capture_output=True, text=True).stdout
    assert out.startswith('Filesystem i/o parameters for /data\nread_pref_io = 65536\n')


def test_setting_a_default_back_leaves_the_state_of_a_fresh_mount(sim):
    sim('--sim-mount', VOL01, '/data')
    with open(str(sim.state)) as handle:
        fresh = json.load(handle)
    assert sim('-o', 'read_pref_io=131072,read_ahead=2', '/data')[0] == 0
    with open(str(sim.state)) as handle:
        assert json.load(handle)['tunables'] == {'/data': {'read_pref_io': 131072, 'read_ahead': 2}}
    # 65536 and 1 are the defaults: a rollback setting them back restores the state exactly
    assert sim('-o', 'read_pref_io=64k,read_ahead=1', '/data')[0] == 0
    with open(str(sim.state)) as handle:
        assert json.load(handle) == fresh


# ---------------------------------------------------------------- simulated versions (issue 19, seed 001)

def test_version_defaults_to_7_4(sim):
    assert sim('--sim-version') == (0, '7.4\n', '')
    sim('--sim-mount', VOL01, '/data')
    assert parse_vxtunefs_output(sim('-p', '/data')[1])['discovered_direct_iosz'] == 262144


def test_version_from_the_environment_changes_the_defaults(sim):
    sim('--sim-mount', VOL01, '/data')
    env = {'VXFS_SIM_VERSION': '8.0'}
    assert sim('--sim-version', env=env) == (0, '8.0\n', '')
    values = parse_vxtunefs_output(sim('-p', '/data', env=env)[1])
    # only discovered_direct_iosz differs between the simulated versions
    assert values == dict(parse_vxtunefs_output(sim('-p', '/data')[1]), discovered_direct_iosz=1048576)


def test_version_file_beside_the_state(sim):
    sim('--sim-mount', VOL01, '/data')
    (sim.state.parent / 'version').write_text('8.0\n')
    assert sim('--sim-version') == (0, '8.0\n', '')
    assert parse_vxtunefs_output(sim('-p', '/data')[1])['discovered_direct_iosz'] == 1048576
    # the environment overrides the file
    assert sim('--sim-version', env={'VXFS_SIM_VERSION': '7.4'})[1] == '7.4\n'


def test_mount_uses_the_defaults_of_the_current_version(sim):
    env = {'VXFS_SIM_VERSION': '8.0'}
    assert sim('--sim-mount', VOL01, '/data', env=env)[0] == 0
    assert parse_vxtunefs_output(sim('-p', '/data', env=env)[1])['discovered_direct_iosz'] == 1048576
    # values equal to the version's defaults are not stored: the mount is a fresh one
    assert sim('-o', 'discovered_direct_iosz=1m', '/data', env=env)[0] == 0
    with open(str(sim.state)) as handle:
        assert json.load(handle)['tunables'] == {'/data': {}}


def test_upgrade_is_an_upgrade_with_its_reboot(sim, tmp_path):
    """Seed 001: after the upgrade the default discovered_direct_iosz is another; what tunefstab
    sets comes back at the mount, what was set only live is gone."""
    tunefstab = tmp_path / 'tunefstab'
    tunefstab.write_text('%s read_pref_io=256k\n/dev/vx/dsk/datadg/u08 discovered_direct_iosz=10m\n' % VOL01)
    env = {'VXTUNEFSTAB': str(tunefstab)}
    sim('--sim-mount', VOL01, '/data', env=env)
    sim('--sim-mount', '/dev/vx/dsk/datadg/u08', '/u08', env=env)
    sim('-o', 'read_ahead=2', '/data')
    before = parse_vxtunefs_output(sim('-p', '/data')[1])
    assert (before['discovered_direct_iosz'], before['read_pref_io'], before['read_ahead']) == (262144, 262144, 2)
    assert sim('--sim-upgrade', '8.0', env=env) == (0, '', '')
    assert sim('--sim-version') == (0, '8.0\n', '')
    assert (sim.state.parent / 'version').read_text() == '8.0\n'
    after = parse_vxtunefs_output(sim('-p', '/data')[1])
    assert (after['discovered_direct_iosz'], after['read_pref_io'], after['read_ahead']) == (1048576, 262144, 1)
    # a value tunefstab sets stays
    assert parse_vxtunefs_output(sim('-p', '/u08')[1])['discovered_direct_iosz'] == 10485760
    # and back
    assert sim('--sim-upgrade', '7.4', env=env)[0] == 0
    assert parse_vxtunefs_output(sim('-p', '/data')[1])['discovered_direct_iosz'] == 262144


@pytest.mark.parametrize('args, env, message', [
    (['--sim-upgrade', '9.9'], {}, '--sim-upgrade: unknown simulated VxFS version 9.9 (accepted: 7.4, 8.0)'),
    (['-p', '/data'], {'VXFS_SIM_VERSION': '3.4'}, 'VXFS_SIM_VERSION: unknown simulated VxFS version 3.4 (accepted: 7.4, 8.0)'),
    (['--sim-upgrade', '8.0'], {'VXFS_SIM_VERSION': '7.4'},
     'VXFS_SIM_VERSION=7.4 is set and overrides the version file; unset it to upgrade'),
])
def test_bad_versions(sim, args, env, message):
    sim('--sim-mount', VOL01, '/data')
    with open(str(sim.state)) as handle:
        state = json.load(handle)
    rc, out, err = sim(*args, env=env)
    assert (rc, out, err) == (1, '', 'UX:vxfs vxtunefs: ERROR: %s\n' % message)
    assert not (sim.state.parent / 'version').exists()
    with open(str(sim.state)) as handle:
        assert json.load(handle) == state


def test_bad_version_file_is_named(sim):
    os.makedirs(str(sim.state.parent))
    (sim.state.parent / 'version').write_text('4.1\n')
    rc, dummy, err = sim('--sim-version')
    assert rc == 1
    assert err == 'UX:vxfs vxtunefs: ERROR: %s: unknown simulated VxFS version 4.1 (accepted: 7.4, 8.0)\n' % (
        sim.state.parent / 'version')
