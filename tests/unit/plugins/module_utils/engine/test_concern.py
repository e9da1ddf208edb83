# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""exit_concern(): how every concern module reports a plan (check mode) or applies it through the journal
(the engine's run_concerns with one concern)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.apply import ApplyError
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import make_check
from ansible_collections.iotune.storage.plugins.module_utils.engine import concern as _concern
from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import Concern, file_diffs, live_diff, space_needs, space_problems, summary_message
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import exit_concern
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import read_records, write_mark
from ansible_collections.iotune.storage.plugins.module_utils.common.args import validate_run_id
from ansible_collections.iotune.storage.tests.unit.conftest import journal_files


class Done(Exception):
    pass


class FakeModule(object):
    def __init__(self, journal_dir, check_mode=False, diff=False, run_id='run-1'):
        self.check_mode = check_mode
        self._diff = diff
        self._name = 'iotune.storage.block_queue'
        self.params = {'run_id': run_id, 'journal_dir': journal_dir}
        self.warnings = []

    def warn(self, warning):
        self.warnings.append(warning)

    def exit_json(self, **result):
        raise Done('exit', result)

    def fail_json(self, **result):
        raise Done('fail', result)


def _check(setting, status):
    return make_check('block_queue', 'vda', setting, 4096, 128, None, status, '%s is %s' % (setting, status))


def _plan(statuses=('drift', 'compliant'), changes=None, warnings=()):
    checks = [_check('s%d' % index, status) for index, status in enumerate(statuses)]
    if changes is None:
        changes = [{'kind': 'sysfs', 'target': 'vda', 'path': '/sys/block/vda/queue/s0', 'before': 128, 'after': 4096}]
    return {'checks': checks, 'changes': changes, 'warnings': list(warnings)}


class Recorder(object):
    """apply(journal): journals ``count`` changes, then raises ``error`` (if any)."""

    def __init__(self, count=1, error=None):
        self.count, self.error = count, error
        self.calls = 0

    def __call__(self, journal):
        self.calls += 1
        for index in range(self.count):
            journal.record('sysfs', '/sys/block/vda/queue/s%d' % index, 128, 4096)
        if self.error:
            raise self.error


class FakeConcern(Concern):
    """A concern whose first plan is ``plan`` and whose later plans come from ``replan()``."""
    name = 'block_queue'

    def __init__(self, plan, apply, replan, diffs, extra):
        self.plans, self.applier, self.replan, self.diffs, self.extras = [plan], apply, replan, diffs, extra

    def plan(self):
        return self.plans.pop() if self.plans else self.replan()

    def diff(self, plan):
        return self.diffs

    def apply(self, journal, plan):
        self.applier(journal)

    def extra(self, plan):
        return self.extras

    def reloads(self, plan):
        return []


def _finish(module, plan, apply=None, replan=None, diffs=None, **extra):
    concern = FakeConcern(plan, apply, replan, diffs if diffs is not None else ['the diff'], extra)
    with pytest.raises(Done) as excinfo:
        exit_concern(module, concern, runner=None)
    return excinfo.value.args


@pytest.fixture(name='journal_dir')
def journal_dir_fixture(tmp_path):
    return str(tmp_path / 'journal')


@pytest.mark.parametrize('changes, changed', [(None, True), ([], False)])
def test_check_mode_reports_and_writes_nothing(journal_dir, changes, changed):
    module = FakeModule(journal_dir, check_mode=True, diff=True)
    apply = Recorder()
    kind, result = _finish(module, _plan(changes=changes, warnings=['careful']), apply=apply, devices=['vda'])
    assert kind == 'exit'
    assert result['changed'] is changed
    assert result['diff'] == ['the diff'] and result['devices'] == ['vda']
    assert result['msg'] == '2 checks: 1 compliant, 1 drift'
    assert result['summary']['drift'] == 1
    assert 'run_id' not in result and 'journal' not in result and 'checks_before' not in result
    assert module.warnings == ['careful']
    assert apply.calls == 0
    assert journal_files(journal_dir) == []


def test_no_diff_without_diff_mode(journal_dir):
    kind, result = _finish(FakeModule(journal_dir, check_mode=True), _plan())
    assert 'diff' not in result


def test_nothing_planned_applies_nothing(journal_dir):
    apply = Recorder()
    kind, result = _finish(FakeModule(journal_dir), _plan(statuses=('compliant',), changes=[]), apply=apply)
    assert (kind, result['changed'], apply.calls) == ('exit', False, 0)
    assert journal_files(journal_dir) == []


def test_apply_journals_and_reports_the_checks_after(journal_dir):
    module = FakeModule(journal_dir)
    plan = _plan(statuses=('drift', 'not_persistent', 'compliant'))
    apply = Recorder(count=2)
    after = _plan(statuses=('compliant', 'compliant', 'compliant'), changes=[])
    kind, result = _finish(module, plan, apply=apply, replan=lambda: after)
    assert kind == 'exit'
    assert result['changed'] is True
    assert result['run_id'] == 'run-1'
    assert result['journal'] == os.path.join(journal_dir, 'run-1.jsonl')
    assert [(c['status'], c['changed']) for c in result['checks']] == [
        ('compliant', True), ('compliant', True), ('compliant', False)]
    assert result['checks_before'] == plan['checks']
    assert result['summary']['compliant'] == 3 and result['summary']['drift'] == 0
    assert result['changes'] == plan['changes']
    assert result['msg'] == '3 checks: 3 compliant; 2 change(s) journalled in %s' % result['journal']
    records, problems = read_records(result['journal'])
    assert [(r['seq'], r['module'], r['run_id']) for r in records] == [
        (1, 'block_queue', 'run-1'), (2, 'block_queue', 'run-1')]
    assert module.warnings == []


def test_apply_without_run_id_makes_one_up(journal_dir):
    kind, result = _finish(FakeModule(journal_dir, run_id=None), _plan(), apply=Recorder(),
                           replan=lambda: _plan(statuses=('compliant', 'compliant'), changes=[]))
    assert validate_run_id(result['run_id']) is None
    assert journal_files(journal_dir) == [result['run_id'] + '.jsonl']


def test_apply_that_had_nothing_left_to_do(journal_dir):
    # the state changed between planning and applying: each apply_* found its value in place
    kind, result = _finish(FakeModule(journal_dir), _plan(), apply=Recorder(count=0),
                           replan=lambda: _plan(statuses=('compliant', 'compliant'), changes=[]))
    assert (kind, result['changed']) == ('exit', False)
    assert result['msg'].endswith('0 change(s) journalled in %s' % result['journal'])


def test_warnings_after_apply(journal_dir):
    module = FakeModule(journal_dir)
    after = _plan(changes=[{'kind': 'sysfs', 'target': 'vda'}], warnings=['careful', 'new'])
    kind, result = _finish(module, _plan(warnings=['careful']), apply=Recorder(), replan=lambda: after)
    assert kind == 'exit'
    assert module.warnings == ['careful', 'new', 'after applying, still planned: sysfs vda']
    assert result['checks'][0]['changed'] is False


def test_an_error_check_stops_before_anything_is_written(journal_dir):
    apply = Recorder()
    plan = _plan(statuses=('drift', 'error', 'error'))
    kind, result = _finish(FakeModule(journal_dir), plan, apply=apply)
    assert kind == 'fail'
    assert result['changed'] is False
    assert result['msg'] == 'nothing changed: s1 is error; s2 is error'
    assert result['checks'] == plan['checks']
    assert apply.calls == 0
    assert journal_files(journal_dir) == []


def test_an_error_check_fails_an_enforcing_module_in_check_mode_too(journal_dir):
    # issue 18, D1: the run cannot bring that check to the policy, so it says so and changes nothing
    kind, result = _finish(FakeModule(journal_dir, check_mode=True), _plan(statuses=('drift', 'error')))
    assert (kind, result['changed']) == ('fail', False)
    assert result['msg'].startswith('nothing changed: ')


@pytest.mark.parametrize('error', [ApplyError('/sys/block/vda/queue/s1 reads 128 after writing 4096'),
                                   OSError(28, 'No space left on device')])
def test_a_failure_mid_apply(journal_dir, error):
    replans = []
    kind, result = _finish(FakeModule(journal_dir), _plan(), apply=Recorder(count=2, error=error),
                           replan=lambda: replans.append(1))
    assert kind == 'fail'
    assert result['changed'] is True
    path = os.path.join(journal_dir, 'run-1.jsonl')
    assert result['journal'] == path and result['run_id'] == 'run-1'
    assert result['msg'] == ('%s (2 journal record(s) written before the failure are in %s; io_rollback run_id=run-1 undoes whatever of them was made)'
                             % (error, path))
    assert len(read_records(path)[0]) == 2
    assert replans == []


def test_a_failure_before_the_first_change(journal_dir):
    kind, result = _finish(FakeModule(journal_dir), _plan(), apply=Recorder(count=0, error=ApplyError('/data is no longer mounted')))
    assert (kind, result['changed']) == ('fail', False)
    assert result['msg'].startswith('/data is no longer mounted (0 journal record(s) written before the failure')


def test_a_bad_run_id_fails_before_anything(journal_dir):
    apply = Recorder()
    kind, result = _finish(FakeModule(journal_dir, run_id='../x'), _plan(), apply=apply)
    assert (kind, result['changed'], apply.calls) == ('fail', False, 0)
    assert result['msg'].startswith("run_id: run_id must be 1-128 characters")
    assert "'../x'" in result['msg']


def test_a_rolled_back_run_id_takes_no_changes(journal_dir):
    os.makedirs(journal_dir)
    write_mark(journal_dir, 'run-1', {})
    kind, result = _finish(FakeModule(journal_dir), _plan(), apply=Recorder())
    assert (kind, result['changed']) == ('fail', False)
    assert 'run run-1 was rolled back; start a new run_id' in result['msg']
    assert not os.path.exists(os.path.join(journal_dir, 'run-1.jsonl'))


# ---------------------------------------------------------------- the diff helpers

class StatVfs(object):
    def __init__(self, free):
        self.f_bavail, self.f_frsize = free // 4096, 4096


def _fstab_change(tmp_path, before_bytes, after_bytes):
    return {'kind': 'file', 'target': str(tmp_path / 'etc' / 'fstab'), 'before': 'x' * before_bytes, 'after': 'y' * after_bytes}


def test_space_needs_count_the_journal_records_and_each_files_temporary_copy(tmp_path):
    (tmp_path / 'etc').mkdir()
    changes = [_fstab_change(tmp_path, 3000, 3100), {'kind': 'sysfs', 'target': 'vda', 'before': 1, 'after': 2}]
    needs = list(space_needs(changes, str(tmp_path / 'journal')).values())
    assert len(needs) == 1  # one file system
    where, needed = needs[0]
    assert where == str(tmp_path)
    journal = _concern.SPACE_RESERVE + 2 * _concern.RECORD_BYTES + 4000  # 3000 bytes in base64
    files = 3100 + _concern.SPACE_RESERVE
    assert needed == journal + files


def test_space_problems_name_the_file_system_and_the_figures(tmp_path):
    (tmp_path / 'etc').mkdir()
    changes = [_fstab_change(tmp_path, 100 * 1024, 100 * 1024)]
    assert space_problems(changes, str(tmp_path / 'journal'), statvfs=lambda path: StatVfs(64 << 20)) == []
    problem, = space_problems(changes, str(tmp_path / 'journal'), statvfs=lambda path: StatVfs(400 * 1024))
    assert problem.startswith('not enough free space on the file system of %s for the journal and the files of this run '
                              '(and their rollback): 400 KiB free, ' % tmp_path)


def test_a_full_file_system_stops_the_run_before_its_first_record(journal_dir, monkeypatch):
    # issue 18, F1: record 2 was torn after fstab had changed, then the rollback met ENOSPC
    monkeypatch.setattr(_concern.os, 'statvfs', lambda path: StatVfs(8192))
    apply = Recorder()
    kind, result = _finish(FakeModule(journal_dir), _plan(), apply=apply)
    assert kind == 'fail' and 'not enough free space' in result['msg'] and result['msg'].startswith('nothing changed: ')
    assert apply.calls == 0 and result['changed'] is False
    assert not os.path.exists(os.path.join(journal_dir, 'run-1.jsonl'))


def test_summary_message():
    assert summary_message([]) == '0 checks'
    assert summary_message([_check('a', 'error'), _check('b', 'drift'), _check('c', 'drift')]) == '3 checks: 2 drift, 1 error'


def test_file_diffs():
    changes = [{'kind': 'file', 'target': 'x', 'path': '/etc/a', 'before': None, 'after': 'new\n'},
               {'kind': 'sysfs', 'target': 'vda', 'before': 1, 'after': 2},
               {'kind': 'file', 'target': '/etc/b', 'before': 'old\n', 'after': 'new\n'}]
    assert file_diffs(changes) == [
        {'before_header': '/etc/a (absent)', 'after_header': '/etc/a', 'before': '', 'after': 'new\n'},
        {'before_header': '/etc/b', 'after_header': '/etc/b', 'before': 'old\n', 'after': 'new\n'}]


def test_live_diff():
    changes = [{'kind': 'sysfs', 'target': 'vda', 'before': 1, 'after': 2},
               {'kind': 'file', 'target': '/etc/b', 'before': 'old\n', 'after': 'new\n'},
               {'kind': 'sysfs', 'target': 'vdb', 'before': 3, 'after': 4}]

    def line(change, side):
        return '%s = %s' % (change['target'], change[side])
    assert live_diff(changes, 'sysfs', 'sysfs', line) == [{
        'before_header': 'sysfs (live)', 'after_header': 'sysfs (planned)',
        'before': 'vda = 1\nvdb = 3\n', 'after': 'vda = 2\nvdb = 4\n'}]
    assert live_diff(changes, 'mount', 'mount options', line) == []


def test_every_engine_concern_is_a_concern_with_a_plan_of_its_own():
    """engine/concerns/ has one file per concern, named as the concern, whose classes plan it; the engine
    (engine.run) keeps only NotApplicable, which takes the name it stands for."""
    import importlib
    from ansible_collections.iotune.storage.plugins.module_utils.engine import run
    from ansible_collections.iotune.storage.plugins.module_utils.common.checks import CONCERNS

    def concern_classes(module):
        return [value for value in vars(module).values() if isinstance(value, type) and issubclass(value, Concern)
                and value is not Concern and value.__module__ == module.__name__]
    for name in CONCERNS:
        module = importlib.import_module('ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.' + name)
        classes = concern_classes(module)
        assert classes and set(cls.name for cls in classes) == {name} and all(cls.plan is not Concern.plan for cls in classes)
    assert [cls.__name__ for cls in concern_classes(run)] == ['NotApplicable']


def test_a_concern_without_a_plan_says_so():
    with pytest.raises(NotImplementedError, match='FileOnly.plan'):
        type('FileOnly', (Concern,), {'name': 'x'})().plan()
