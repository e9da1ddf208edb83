# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tunefstab module end to end: live values from the VxFS simulator (tests/vxfs-sim/vxtunefs),
run by the module itself through AnsibleModule.run_command."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import shutil
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.journal import read_records
from ansible_collections.iotune.storage.plugins.modules import io_rollback, tunefstab
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main
from ansible_collections.iotune.storage.tests.unit.conftest import journal_files

SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                   'vxfs-sim', 'vxtunefs')
VOL01 = '/dev/vx/dsk/datadg/vol01'
U08 = '/dev/vx/dsk/datadg/u08'


@pytest.fixture(name='simulator')
def simulator_fixture(tmp_path, monkeypatch):
    """A simulator state with vol01 on /data and u08 on /u08, as in fixtures/vxfs/proc/self/mountinfo."""
    monkeypatch.setenv('VXFS_SIM_STATE', str(tmp_path / 'vxfs-sim' / 'state.json'))
    monkeypatch.setenv('VXTUNEFSTAB', str(tmp_path / 'no-tunefstab'))

    def sim(*args):
        return subprocess.run([SIM] + list(args), check=True, capture_output=True, text=True).stdout
    sim('--sim-mount', VOL01, '/data')
    sim('--sim-mount', U08, '/u08')
    # vol01 tuned as its tunefstab lines say; u08 lost its discovered_direct_iosz (seed 001)
    sim('-o', 'read_pref_io=262144,read_nstream=8,write_pref_io=262144,write_nstream=4', '/data')
    return sim


@pytest.fixture(name='args')
def args_fixture(fixture_path):
    return {
        'path': fixture_path('tunefstab', 'constructed-solaris.tunefstab'),
        'proc_root': fixture_path('vxfs', 'proc'),
        'vxtunefs': SIM,
        '_ansible_check_mode': True,
    }


@pytest.fixture(name='run')
def run_fixture(monkeypatch):
    return lambda args: run_main(monkeypatch, tunefstab, args)


def test_live_values_from_the_simulator(run, simulator, args):
    args['entries'] = [
        {'device': VOL01, 'tunables': {'read_pref_io': '256k', 'read_nstream': 8, 'max_diskq': '1m'}},
        {'device': U08, 'tunables': {'discovered_direct_iosz': '10m'}},
        {'device': '/dev/vx/dsk/datadg/vol02', 'tunables': {'read_ahead': 2}},
    ]
    kind, result = run(args)
    assert kind == 'exit', result
    assert result['changed'] is True          # the tunefstab file would change
    assert [(c['target'], c['setting'], c['live'], c['persistent'], c['status']) for c in result['checks']] == [
        (VOL01, 'read_pref_io', 262144, 262144, 'compliant'),
        (VOL01, 'read_nstream', 8, 8, 'compliant'),
        (VOL01, 'max_diskq', 1048576, None, 'not_persistent'),
        (U08, 'discovered_direct_iosz', 262144, 10485760, 'drift'),
        ('/dev/vx/dsk/datadg/vol02', 'read_ahead', None, None, 'drift'),
    ]
    assert result['checks'][3]['message'].startswith(
        'discovered_direct_iosz on /dev/vx/dsk/datadg/u08 is 262144 live (vxtunefs -p /u08), expected 10485760')
    assert result['vxtunefs'] == SIM
    assert [c['kind'] for c in result['changes']] == ['file']


def test_apply_plans_vxtunefs_calls_and_changes_nothing(run, simulator, args):
    before = simulator('-p', '/u08')
    args.update(device=U08, tunables={'discovered_direct_iosz': 10485760}, apply=True, _ansible_diff=True)
    kind, result = run(args)
    assert kind == 'exit'
    change = result['changes'][0]
    assert change['argv'] == [SIM, '-o', 'discovered_direct_iosz=10485760', '/u08']
    assert result['diff'][0]['after'] == '/u08 discovered_direct_iosz=10485760\n'
    # running the planned command is what apply will do; check mode did not
    assert simulator('-p', '/u08') == before
    subprocess.run(change['argv'], check=True)
    kind, result = run(args)
    assert result['checks'][0]['status'] == 'compliant'
    assert result['changes'] == []


def test_simulator_error_is_an_error_check(run, simulator, args, tmp_path, monkeypatch):
    # /data is mounted as vxfs in mountinfo but not in this simulator state
    monkeypatch.setenv('VXFS_SIM_STATE', str(tmp_path / 'other-state.json'))
    args.update(device=VOL01, tunables={'read_pref_io': 262144})
    kind, result = run(args)
    check = result['checks'][0]
    assert check['status'] == 'error'
    assert 'failed (rc=1): UX:vxfs vxtunefs: ERROR: /data is not a mounted VxFS file system' in check['message']


@pytest.mark.parametrize('mode', [None, 0o644])
def test_named_vxtunefs_that_cannot_run_is_an_error(run, args, tmp_path, mode):
    """Issue 18, D8: a named vxtunefs that is missing (or not executable) only warned, and the check of a
    mounted file system said compliant from the file alone."""
    missing = tmp_path / 'vxtunefs'
    if mode is not None:
        missing.write_text('#!/bin/sh\n')
        missing.chmod(mode)
    args.update(entries=[{'device': VOL01, 'tunables': {'read_pref_io': 262144}},
                         {'device': '/dev/vx/dsk/datadg/vol02', 'tunables': {'read_ahead': 2}}], vxtunefs=str(missing))
    kind, result = run(args)
    assert kind == 'fail'           # the module enforces: an error check fails it, in check mode too (D1)
    check = result['checks'][0]
    assert (check['status'], check['live'], check['persistent']) == ('error', None, 262144)
    assert check['message'] == ('read_pref_io on %s: vxtunefs %s (the vxtunefs option) is not an executable file: the live '
                                'values of %s on /data cannot be read' % (VOL01, missing, VOL01))
    assert result['msg'] == 'nothing changed: ' + check['message']
    assert result['changed'] is False
    # vol02 is not mounted: it has no live value, the file alone decides
    assert result['checks'][1]['status'] == 'drift'
    assert result['warnings'][0] == 'vxtunefs %s (the vxtunefs option) is not an executable file' % missing
    assert result['summary']['error'] == 1 and result['summary']['compliant'] == 0


def test_named_vxtunefs_missing_fails_an_enforcing_run_and_changes_nothing(run, simulator, args, tmp_path):
    tunefstab_file = tmp_path / 'tunefstab'
    shutil.copyfile(args['path'], str(tunefstab_file))
    journal_dir = tmp_path / 'journal'
    original = (_read(tunefstab_file), simulator('-p', '/data'), simulator('-p', '/u08'))
    # max_diskq is not in the file for vol01 and read_ahead differs live on u08: both would be changed
    args.update(path=str(tunefstab_file), apply=True, journal_dir=str(journal_dir), run_id='vx-1', _ansible_check_mode=False,
                vxtunefs=str(tmp_path / 'missing'), entries=[
                    {'device': VOL01, 'tunables': {'max_diskq': '2m'}},
                    {'device': U08, 'tunables': {'read_ahead': 2}},
                    {'device': '/dev/vx/dsk/datadg/vol02', 'tunables': {'read_ahead': 2}}])
    kind, result = run(args)
    assert kind == 'fail', result
    assert result['changed'] is False
    assert [check['status'] for check in result['checks']] == ['error', 'error', 'drift']
    assert (_read(tunefstab_file), simulator('-p', '/data'), simulator('-p', '/u08')) == original
    assert journal_files(journal_dir) == []


def test_no_vxtunefs_on_the_host(run, args, monkeypatch):
    """None named and none found: a device mounted as vxfs has live values nobody read (error, not
    compliant); a device that is not mounted is judged by the file."""
    monkeypatch.setattr(tunefstab, 'find_vxtunefs', lambda explicit: (None, None))
    args.pop('vxtunefs')
    args['entries'] = [{'device': VOL01, 'tunables': {'read_pref_io': 262144}},
                       {'device': '/dev/vx/dsk/datadg/vol02', 'tunables': {'read_ahead': 2}}]
    kind, result = run(args)
    assert kind == 'fail'
    assert [check['status'] for check in result['checks']] == ['error', 'drift']
    assert result['checks'][0]['message'].startswith(
        'read_pref_io on %s: no vxtunefs on this host (searched PATH, /opt/VRTS/bin' % VOL01)
    assert result['vxtunefs'] is None


def _read(path):
    with open(str(path), 'rb') as handle:
        return handle.read()


def test_apply_then_rollback(run, simulator, args, tmp_path, monkeypatch):
    tunefstab_file = tmp_path / 'tunefstab'
    shutil.copyfile(args['path'], str(tunefstab_file))
    os.chmod(str(tunefstab_file), 0o600)
    journal_dir = str(tmp_path / 'journal')
    args.update(path=str(tunefstab_file), apply=True, journal_dir=journal_dir, run_id='vx-1', _ansible_check_mode=False,
                _ansible_module_name='iotune.storage.tunefstab',
                entries=[{'device': U08, 'tunables': {'discovered_direct_iosz': '10m', 'read_ahead': 2}},
                         {'device': VOL01, 'tunables': {'read_nstream': 4}}])
    original = (_read(tunefstab_file), simulator('-p', '/u08'), simulator('-p', '/data'))

    kind, result = run(args)
    assert kind == 'exit', result
    assert result['changed'] is True
    assert [(c['setting'], c['status'], c['changed']) for c in result['checks']] == [
        ('discovered_direct_iosz', 'compliant', True), ('read_ahead', 'compliant', True),
        ('read_nstream', 'compliant', True)]
    records, problems = read_records(result['journal'])
    assert [(r['kind'], r['module'], r['target'], r.get('setting'), r['before']) for r in records[:3]] == [
        ('vxtunefs', 'tunefstab', '/u08', 'discovered_direct_iosz', 262144),
        ('vxtunefs', 'tunefstab', '/u08', 'read_ahead', 1),
        ('vxtunefs', 'tunefstab', '/data', 'read_nstream', 8)]
    assert [(r['kind'], r['target']) for r in records[3:]] == [('file', str(tunefstab_file))]
    assert 'discovered_direct_iosz = 10485760' in simulator('-p', '/u08').splitlines()
    assert 'read_nstream = 4' in simulator('-p', '/data').splitlines()
    assert b'read_ahead=2' in _read(tunefstab_file)
    assert oct(os.stat(str(tunefstab_file)).st_mode & 0o777) == '0o600'

    kind, result = run(dict(args, run_id='vx-2'))
    assert (kind, result['changed']) == ('exit', False), result
    assert not os.path.exists(os.path.join(journal_dir, 'vx-2.jsonl'))

    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': journal_dir, 'run_id': 'vx-1', 'vxtunefs': SIM,
                                                       'managed_files': [str(tunefstab_file)]})
    assert (kind, result['changed']) == ('exit', True), result
    assert [r['restored'] for r in result['records']] == [True] * 4
    assert (_read(tunefstab_file), simulator('-p', '/u08'), simulator('-p', '/data')) == original


def test_apply_without_live_changes_only_the_file(run, simulator, args, tmp_path):
    tunefstab_file = tmp_path / 'tunefstab'
    shutil.copyfile(args['path'], str(tunefstab_file))
    before = simulator('-p', '/u08')
    args.update(path=str(tunefstab_file), journal_dir=str(tmp_path / 'journal'), _ansible_check_mode=False,
                device=U08, tunables={'read_ahead': 2})
    kind, result = run(args)
    assert (kind, result['changed']) == ('exit', True)
    assert [r['kind'] for r in read_records(result['journal'])[0]] == ['file']
    assert result['checks'][0]['status'] == 'drift'        # live is left alone without apply
    assert simulator('-p', '/u08') == before


def test_refused_value_fails_with_the_journal(run, simulator, args, tmp_path):
    tunefstab_file = tmp_path / 'tunefstab'
    shutil.copyfile(args['path'], str(tunefstab_file))
    original = _read(tunefstab_file)
    # a vxtunefs that refuses max_buf_data_size (busy): the run stops after that record, with two changes made
    args.update(path=str(tunefstab_file), apply=True, journal_dir=str(tmp_path / 'journal'), run_id='vx-1',
                _ansible_check_mode=False, entries=[
                    {'device': VOL01, 'tunables': {'read_nstream': 4}},
                    {'device': U08, 'tunables': {'max_buf_data_size': 65536}}])
    refuse = tmp_path / 'refuse'
    refuse.write_text('#!/bin/sh\ncase "$*" in *max_buf_data_size=*) echo "UX:vxfs vxtunefs: ERROR: busy" >&2; exit 1;; esac\n'
                      'exec "%s" "$@"\n' % SIM)
    os.chmod(str(refuse), 0o755)
    args['vxtunefs'] = str(refuse)
    kind, result = run(args)
    assert kind == 'fail', result
    assert result['changed'] is True
    assert result['msg'].startswith('%s -o max_buf_data_size=65536 /u08 failed (rc=1): UX:vxfs vxtunefs: ERROR: busy '
                                    '(2 journal record(s) written before the failure are in ' % refuse)
    assert result['msg'].endswith('io_rollback run_id=vx-1 undoes whatever of them was made)')
    assert _read(tunefstab_file) == original
    assert 'read_nstream = 4' in simulator('-p', '/data').splitlines()


@pytest.mark.parametrize('device', ['#/dev/vx/dsk/datadg/vol01', '/dev/vx/dsk/datadg/vol#1', '/dev/vx/dsk/a,b', '/dev/a=b',
                                    'dev/vx/dsk/datadg/vol01', ' /dev/vx/dsk/datadg/vol01'])
def test_bad_device_is_refused_before_anything_is_read_or_written(run, simulator, args, tmp_path, device):
    """Issue 18, D7: '#/dev/vx/...' made the planned tunefstab line a comment and the plan raised KeyError."""
    tunefstab_file = tmp_path / 'tunefstab'
    shutil.copyfile(args['path'], str(tunefstab_file))
    original = (_read(tunefstab_file), simulator('-p', '/data'))
    journal_dir = tmp_path / 'journal'
    args.update(path=str(tunefstab_file), apply=True, journal_dir=str(journal_dir), _ansible_check_mode=False,
                entries=[{'device': U08, 'tunables': {'read_ahead': 2}}, {'device': device, 'tunables': {'read_ahead': 2}}])
    kind, result = run(args)
    assert kind == 'fail', result
    assert result['msg'] == (
        "invalid tunefstab policy: entries[1].device: %r is not valid (%s); expected an absolute block device path without "
        "whitespace, '#', ',' or '=' (such as /dev/vx/dsk/datadg/vol01), or system-default"
        % (device, 'not an absolute path' if not device.startswith('/') else 'contains %r' % [c for c in device if c in '#,='][0]))
    assert (_read(tunefstab_file), simulator('-p', '/data')) == original
    assert journal_files(journal_dir) == []
    assert 'checks' not in result


@pytest.mark.parametrize('extra, message', [
    ({'device': VOL01, 'tunables': {'read_pref_iosz': 1}},
     'invalid tunefstab policy: tunables.read_pref_iosz: unknown tunable; accepted: read_pref_io, read_nstream'),
    ({'entries': [{'device': VOL01, 'tunables': {'discovered_direct_iosz': '8Q'}}]},
     "invalid tunefstab policy: entries[0].tunables.discovered_direct_iosz: '8Q' is not valid; expected a size in bytes"),
    ({'device': VOL01}, 'parameters are required together: device, tunables'),
    ({'device': VOL01, 'tunables': {'read_ahead': 1}, 'entries': []}, 'parameters are mutually exclusive: device|entries'),
    ({'entries': [{'device': VOL01}]}, 'missing required arguments: tunables found in entries'),
])
def test_bad_input_fails_before_anything(run, args, extra, message):
    args.update(extra)
    kind, result = run(args)
    assert kind == 'fail'
    assert message in result['msg']


def test_system_default_line_against_the_policy_fails_an_enforcing_run(run, simulator, args, fixture_path, tmp_path):
    """Issue 23, P4: a system-default line that contradicts the policy for a device is not enforceable by editing
    the device's line (it takes precedence); harden said drift, edited that line to no effect and warned."""
    tunefstab_file = tmp_path / 'tunefstab'
    shutil.copyfile(fixture_path('tunefstab', 'constructed-hpux.tunefstab'), str(tunefstab_file))
    original = _read(tunefstab_file)
    journal_dir = tmp_path / 'journal'
    args.update(path=str(tunefstab_file), apply=True, journal_dir=str(journal_dir), run_id='p4', _ansible_check_mode=False,
                entries=[{'device': '/dev/vg01/lvol1', 'tunables': {'read_pref_io': '128k', 'read_ahead': 1}}])
    kind, result = run(args)
    assert kind == 'fail', result
    assert [(check['setting'], check['status']) for check in result['checks']] == [('read_pref_io', 'drift'),
                                                                                   ('read_ahead', 'error')]
    message = result['checks'][1]['message']
    assert message.endswith('%s line 3 is a system-default line that sets read_ahead to 2 for every VxFS file system and '
                            'takes precedence over the lines of /dev/vg01/lvol1 (tunefstab(4)): enforcing cannot make 1 '
                            'persist for /dev/vg01/lvol1 without changing that line for every device; name system-default '
                            'with read_ahead in the policy, or take read_ahead off line 3' % tunefstab_file), message
    assert result['msg'] == 'nothing changed: ' + message
    assert result['changed'] is False
    # nothing written, not even the drifting read_pref_io of the device's own line
    assert _read(tunefstab_file) == original
    assert not journal_dir.exists() or [name for name in os.listdir(str(journal_dir)) if name.endswith('.jsonl')] == []


def test_system_default_named_by_the_policy_is_enforced(run, simulator, args, fixture_path, tmp_path):
    """Issue 23, P4: when the policy names system-default, its line is what changes (for every device)."""
    tunefstab_file = tmp_path / 'tunefstab'
    shutil.copyfile(fixture_path('tunefstab', 'constructed-hpux.tunefstab'), str(tunefstab_file))
    original = _read(tunefstab_file)
    args.update(path=str(tunefstab_file), apply=True, journal_dir=str(tmp_path / 'journal'), run_id='p4b',
                _ansible_check_mode=False, entries=[{'device': 'system-default', 'tunables': {'read_ahead': 1}},
                                                    {'device': '/dev/vg01/lvol1', 'tunables': {'read_ahead': 1}}])
    kind, result = run(args)
    assert kind == 'exit', result
    assert [check['status'] for check in result['checks_before']] == ['drift', 'drift']
    assert [check['status'] for check in result['checks']] == ['compliant', 'compliant']
    assert _read(tunefstab_file) == original.replace(b'system-default max_diskq=2097152,read_ahead=2\n',
                                                     b'system-default max_diskq=2097152,read_ahead=1\n')
