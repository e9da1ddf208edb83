# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""run_concerns_unlocked and the reload rule it shares with io_rollback (act/reloads): which
records need a reload, and a failed reload as an error that names the command and its output,
after the state is read again."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act import reloads as _reloads
from ansible_collections.iotune.storage.plugins.module_utils.act.apply import apply_file
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal, read_records
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import make_check
from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import Concern
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import EngineError, run_concerns_unlocked


class Runner(object):
    def __init__(self, answers=None):
        self.answers, self.changes = answers or {}, []

    def change(self, argv):
        self.changes.append(list(argv))
        return self.answers.get(argv[0], (0, '', ''))

    def bin(self, name, default=None):
        return '/own/' + name


class FileConcern(Concern):
    """Writes one file; planned compliant once it holds ``text``."""

    def __init__(self, name, path, text, proc_root='/proc'):
        self.name, self.path, self.text, self.proc_root = name, path, text, proc_root

    def plan(self):
        try:
            with open(self.path) as handle:
                done = handle.read() == self.text
        except IOError:
            done = False
        check = make_check(self.name, self.path, 'content', 'x', None, None, 'compliant' if done else 'drift', 'file')
        changes = [] if done else [{'kind': 'file', 'target': self.path, 'before': None, 'after': self.text}]
        return {'checks': [check], 'changes': changes, 'warnings': []}


@pytest.fixture(name='udevd')
def udevd_fixture(tmp_path, monkeypatch):
    control = tmp_path / 'udev-control'
    control.write_text('')
    monkeypatch.setattr(_reloads, 'UDEV_CONTROL', str(control))


def _run(tmp_path, concerns, runner):
    return run_concerns_unlocked(concerns, runner, run_id='run-1', journal_dir=str(tmp_path / 'journal'))


def test_a_new_rule_file_reloads_udev(tmp_path, udevd):
    runner = Runner()
    result = _run(tmp_path, [FileConcern('block_queue', str(tmp_path / '60-iotune.rules'), 'KERNEL=="vda"\n')], runner)
    assert runner.changes == [['/own/udevadm', 'control', '--reload']]
    assert (result['changed'], result['reloaded']) == (True, ['/own/udevadm control --reload'])


def test_without_udevd_nothing_is_reloaded(tmp_path):
    result = _run(tmp_path, [FileConcern('block_queue', str(tmp_path / '60-iotune.rules'), 'KERNEL=="vda"\n')], None)
    assert (result['changed'], result['reloaded']) == (True, [])


def test_a_sysctl_file_of_another_proc_root_is_not_loaded(tmp_path, udevd):
    # sysctl(8) writes the real /proc: a fixture tree is never loaded into the host
    concern = FileConcern('cache_limits', str(tmp_path / '60-iotune.conf'), 'vm.swappiness = 10\n', str(tmp_path / 'proc'))
    result = _run(tmp_path, [concern], None)
    assert result['reloaded'] == []


def test_the_sysctl_file_is_loaded_after_a_run_on_the_real_proc(tmp_path, udevd):
    runner = Runner()
    path = str(tmp_path / '60-iotune.conf')
    result = _run(tmp_path, [FileConcern('block_queue', str(tmp_path / 'x.rules'), 'A\n'),
                             FileConcern('cache_limits', path, 'vm.swappiness = 10\n')], runner)
    assert runner.changes == [['/own/udevadm', 'control', '--reload'], ['/own/sysctl', '--load', path]]
    assert result['reloaded'] == ['/own/udevadm control --reload', '/own/sysctl --load %s' % path]


def test_a_failed_reload_fails_the_run_after_reading_the_state_again(tmp_path, udevd):
    runner = Runner({'/own/udevadm': (1, '', 'Failed to send reload request: Connection refused\n')})
    path = str(tmp_path / '60-iotune.rules')
    with pytest.raises(EngineError) as excinfo:
        _run(tmp_path, [FileConcern('block_queue', path, 'KERNEL=="vda"\n')], runner)
    journal = str(tmp_path / 'journal' / 'run-1.jsonl')
    assert str(excinfo.value) == (
        '/own/udevadm control --reload failed (rc=1): Failed to send reload request: Connection refused; udevd still has '
        'the rules it read before: devices that appear later do not get the rule file as it is now (run it again once the '
        'cause is fixed) (after the changes: 1 journalled in %s; io_rollback run_id=run-1 undoes them)' % journal)
    result = excinfo.value.result
    assert (result['changed'], result['changes_made'], result['reloaded']) == (True, 1, [])
    # the checks after the change: the file is written, and the run says the reload failed
    assert [(check['status'], check['status_before']) for check in result['checks']] == [('compliant', 'drift')]
    assert [record['kind'] for record in read_records(journal)[0]] == ['file']


def test_records_of_a_run_id_used_before_reload_only_what_this_run_wrote(tmp_path, udevd):
    rules = str(tmp_path / '60-iotune.rules')
    apply_file(Journal(str(tmp_path / 'journal'), 'run-1', 'block_queue'), rules, 'old\n')
    runner = Runner()
    result = _run(tmp_path, [FileConcern('cache_limits', str(tmp_path / 'other.conf'), 'x\n', str(tmp_path / 'p'))], runner)
    assert (result['reloaded'], runner.changes) == ([], [])
