# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""act/rollback without a module: roll_back returns the result or raises RollbackError carrying it;
the restorer table beside apply_*; the reloads after the restores (act/reloads, the engine's rule).
The module's own behaviour is tests/unit/plugins/modules/test_io_rollback.py, the hostile records
tests/unit/battery/test_hostile.py."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act import reloads as _reloads
from ansible_collections.iotune.storage.plugins.module_utils.act.apply import (
    RESTORERS, Restore, apply_file, apply_sysctl, apply_sysfs, restore_record)
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import KINDS, Journal, journal_path, read_mark
from ansible_collections.iotune.storage.plugins.module_utils.act.records import Trusted
from ansible_collections.iotune.storage.plugins.module_utils.act.rollback import (
    RollbackError, choose_run, roll_back, torn_change_made)


class Runner(object):
    """``runner(argv)`` reads, ``runner.change(argv)`` changes (answered from ``answers`` by program)."""

    def __init__(self, answers=None):
        self.answers, self.changes = answers or {}, []

    def __call__(self, argv):
        raise AssertionError('nothing is read by a command here: %s' % argv)

    def change(self, argv):
        self.changes.append(list(argv))
        return self.answers.get(argv[0], (0, '', ''))

    def bin(self, name, default=None):
        return '/path/bin/' + name


@pytest.fixture(name='host')
def host_fixture(tmp_path):
    class Host(object):
        journal_dir = str(tmp_path / 'journal')
        fstab = tmp_path / 'fstab'
        rules = tmp_path / 'rules.d' / '60-iotune.rules'
        unit = tmp_path / 'iotune-bulk.slice'
        attr = tmp_path / 'sys' / 'block' / 'vda' / 'queue' / 'read_ahead_kb'
        proc_root = str(tmp_path / 'proc')
        swappiness = tmp_path / 'proc' / 'sys' / 'vm' / 'swappiness'
        control = tmp_path / 'udev-control'
        trusted = Trusted([str(fstab), str(rules), str(unit)], str(tmp_path / 'sys'), str(tmp_path / 'proc'),
                          '/own/mount', None, '/own/systemctl')

        def journal(self, run_id='run-1', module='block_queue'):
            return Journal(self.journal_dir, run_id, module, failpoint_file=str(tmp_path / 'failpoint'))

        def run(self, run_id='run-1'):
            """Four changes: fstab, a new rule file, a sysfs value, a sysctl."""
            journal = self.journal(run_id)
            apply_file(journal, str(self.fstab), b'/dev/vdb /data ext4 defaults,noatime 0 2\n')
            apply_file(journal, str(self.rules), 'KERNEL=="vda", ATTR{queue/read_ahead_kb}="4096"\n')
            apply_sysfs(journal, {'target': 'vda', 'setting': 'read_ahead_kb', 'path': str(self.attr), 'after': 4096})
            apply_sysctl(journal, {'target': 'vm.swappiness', 'after': 10}, self.proc_root)

        def state(self):
            return (self.fstab.read_bytes(), self.rules.exists(), self.attr.read_text().strip(), self.swappiness.read_text().strip())

    host = Host()
    host.fstab.write_bytes(b'/dev/vdb /data ext4 defaults 0 2\n')
    host.rules.parent.mkdir()
    host.attr.parent.mkdir(parents=True)
    host.attr.write_text('128\n')
    host.swappiness.parent.mkdir(parents=True)
    host.swappiness.write_text('60\n')
    return host


@pytest.fixture(name='udevd')
def udevd_fixture(host, monkeypatch):
    """udevd runs: its control socket exists."""
    host.control.write_text('')
    monkeypatch.setattr(_reloads, 'UDEV_CONTROL', str(host.control))


def _roll_back(host, runner, run_id='run-1', **kwargs):
    warnings = []
    result = roll_back(host.journal_dir, run_id, host.trusted, runner, warn=warnings.append, **kwargs)
    return result, warnings


def test_restorers_cover_every_record_kind():
    assert sorted(RESTORERS) == sorted(KINDS)


def test_roll_back_restores_every_record_and_marks_the_run(host):
    before = host.state()
    host.run()
    runner = Runner()
    result, warnings = _roll_back(host, runner, diff=True)
    assert host.state() == before and warnings == []
    assert result['msg'] == 'run run-1: 4 of 4 records restored'
    assert (result['changed'], result['errors'], result['reloaded'], runner.changes) == (True, [], [], [])
    assert [(entry['seq'], entry['restored']) for entry in result['records']] == [(4, True), (3, True), (2, True), (1, True)]
    assert [check['status'] for check in result['checks']] == ['compliant'] * 4
    assert len(result['diff']) == 4
    assert read_mark(host.journal_dir, 'run-1')['restored'] == 4
    again, dummy = _roll_back(host, runner)
    assert (again['changed'], again['already_rolled_back'], again['records']) == (False, True, [])


def test_check_mode_changes_nothing_and_reloads_nothing(host, udevd):
    host.run()
    applied = host.state()
    runner = Runner()
    result, dummy = _roll_back(host, runner, check=True)
    assert host.state() == applied and runner.changes == [] and result['reloaded'] == []
    assert [check['status'] for check in result['checks']] == ['drift'] * 4
    assert read_mark(host.journal_dir, 'run-1') is None


def test_a_restored_rule_file_reloads_udev(host, udevd):
    host.run()
    runner = Runner()
    result, dummy = _roll_back(host, runner)
    assert runner.changes == [['/path/bin/udevadm', 'control', '--reload']]
    assert result['reloaded'] == ['/path/bin/udevadm control --reload']


def test_a_failed_reload_is_an_error_naming_the_command_and_the_run_stays_open(host, udevd):
    before = host.state()
    host.run()
    runner = Runner({'/path/bin/udevadm': (1, '', 'Failed to send reload request: Connection refused\n')})
    with pytest.raises(RollbackError) as excinfo:
        _roll_back(host, runner)
    result = excinfo.value.result
    error = ('/path/bin/udevadm control --reload failed (rc=1): Failed to send reload request: Connection refused; udevd '
             'still has the rules it read before: devices that appear later do not get the rule file as it is now (run it '
             'again once the cause is fixed)')
    assert str(excinfo.value) == result['msg'] == 'run run-1: 4 of 4 records restored; %s' % error
    assert (result['errors'], result['reloaded'], result['changed']) == ([error], [], True)
    # the restores stay made; the run is not marked
    assert host.state() == before
    assert read_mark(host.journal_dir, 'run-1') is None


def test_a_rule_file_already_back_needs_no_reload(host, udevd):
    host.run()
    host.rules.unlink()
    runner = Runner()
    result, dummy = _roll_back(host, runner)
    assert runner.changes == [] and result['reloaded'] == []


def test_unit_records_reload_systemd_once_with_the_rollbacks_own_systemctl(host):
    host.unit.write_text('[Slice]\n')
    journal = host.journal(module='cache_limits')
    apply_file(journal, str(host.unit), '[Slice]\nMemoryHigh=25%\n')
    journal.record('unit', 'iotune-bulk.slice', None, 'daemon-reload')
    journal.record('unit', 'iotune-bulk.slice', None, 'daemon-reload')
    runner = Runner()
    result, dummy = _roll_back(host, runner)
    assert runner.changes == [['/own/systemctl', 'daemon-reload']]
    assert result['reloaded'] == ['/own/systemctl daemon-reload']
    assert [entry['restored'] for entry in result['records']] == [False, False, True]


def test_no_daemon_reload_when_nothing_was_restored(host):
    host.unit.write_text('[Slice]\n')
    journal = host.journal(module='cache_limits')
    apply_file(journal, str(host.unit), '[Slice]\nMemoryHigh=25%\n')
    journal.record('unit', 'iotune-bulk.slice', None, 'daemon-reload')
    host.unit.write_text('[Slice]\n')
    runner = Runner()
    result, dummy = _roll_back(host, runner)
    assert (result['changed'], runner.changes) == (False, [])


def test_a_bad_record_restores_nothing(host):
    host.run()
    applied = host.state()
    path = journal_path(host.journal_dir, 'run-1')
    with open(path) as handle:
        text = handle.read()
    with open(path, 'w') as handle:
        handle.write(text.replace('"kind": "sysfs"', '"kind": "shell"'))
    with pytest.raises(RollbackError) as excinfo:
        _roll_back(host, Runner())
    assert str(excinfo.value).startswith('run run-1: nothing restored: %s line 3: field kind: must be one of ' % path)
    assert excinfo.value.result['records'] == [] and host.state() == applied


def test_a_later_run_on_the_same_file_refuses_the_older_one(host):
    apply_file(host.journal('run-1'), str(host.fstab), b'one\n')
    apply_file(host.journal('run-2'), str(host.fstab), b'two\n')
    with pytest.raises(RollbackError) as excinfo:
        _roll_back(host, Runner())
    assert str(excinfo.value) == ('run run-1: nothing restored: later runs changed the same targets and are not rolled '
                                  'back: run-2 (%s); roll them back first, newest first' % host.fstab)
    assert host.fstab.read_bytes() == b'two\n'


def test_a_journal_directory_others_can_write_is_not_read(host):
    os.makedirs(host.journal_dir)
    os.chmod(host.journal_dir, 0o777)
    with pytest.raises(RollbackError) as excinfo:
        _roll_back(host, Runner())
    assert 'journal_dir' in str(excinfo.value) or host.journal_dir in str(excinfo.value)
    assert excinfo.value.result['records'] == []


def test_choose_run(host):
    result, warnings = {}, []
    assert choose_run(host.journal_dir, None, result, warnings.append) is None
    assert result['msg'] == 'no run to roll back in %s' % host.journal_dir
    apply_file(host.journal('run-1'), str(host.fstab), b'one\n')
    apply_file(host.journal('run-2'), str(host.fstab), b'two\n')
    assert choose_run(host.journal_dir, None, result, warnings.append) == 'run-2' == result['run_id']
    assert choose_run(host.journal_dir, 'run-1', result, warnings.append) == 'run-1'
    assert choose_run(host.journal_dir, 'run-9', result, warnings.append) is None
    missing = journal_path(host.journal_dir, 'run-9')
    assert warnings == ['run_id: no journal %s (runs in %s: run-1, run-2)' % (missing, host.journal_dir)]
    with pytest.raises(RollbackError) as excinfo:
        choose_run(host.journal_dir, '../x', result, warnings.append)
    assert str(excinfo.value).startswith('run_id: run_id must be')


def test_restore_record_uses_the_rollbacks_own_roots(host):
    host.run()
    record = {'kind': 'sysctl', 'target': 'vm.swappiness', 'before': {'vm.swappiness': 60}, 'after': {'vm.swappiness': 10}}
    assert restore_record(record, Restore(host.trusted, Runner(), check=True)) is True
    assert host.swappiness.read_text() == '10'
    assert restore_record(record, Restore(host.trusted, Runner())) is True
    assert host.swappiness.read_text() == '60'
    assert restore_record({'kind': 'unit', 'target': 'x.slice'}, Restore(host.trusted, Runner())) is False


@pytest.mark.parametrize('torn, made', [({}, False), ({'target': 'vm.swappiness', 'kind': 'sysctl'}, None)])
def test_torn_change_made(torn, made):
    assert torn_change_made(torn) is made
