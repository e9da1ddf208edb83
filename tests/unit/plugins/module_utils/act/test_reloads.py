# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""act/reloads: the one rule of what the host re-reads after a run's changes (the engine) and after a
rollback's restores (io_rollback), how it is run, and what a failure is."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.reloads import (
    APPLY, RELOADS, ROLLBACK, UDEV_CONTROL, needed_reloads, run_reloads)
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandError

CONTROL = '/run/udev/control'
SYSCTL_FILE = '/etc/sysctl.d/60-iotune.conf'


def _file(target, module='block_queue'):
    return {'kind': 'file', 'target': target, 'module': module}


UNIT = {'kind': 'unit', 'target': 'iotune-bulk.slice', 'module': 'cache_limits'}
RULES = _file('/etc/udev/rules.d/60-iotune.rules')
SYSCTL = _file(SYSCTL_FILE, 'cache_limits')
UDEV = ['/own/udevadm', 'control', '--reload']
LOAD = ['/own/sysctl', '--load', SYSCTL_FILE]
DAEMON_RELOAD = ['/own/systemctl', 'daemon-reload']


def _needed(records, direction, proc_root='/proc', existing=(CONTROL, SYSCTL_FILE)):
    return [item['argv'] for item in needed_reloads(records, direction, lambda name: '/own/' + name, proc_root=proc_root,
                                                    udev_control=CONTROL, exists=lambda path: path in existing)]


@pytest.mark.parametrize('records, direction, proc_root, existing, expected', [
    # a udev rule file, written or put back: udevd re-reads its rules, where it runs
    ([RULES], APPLY, '/proc', (CONTROL,), [UDEV]),
    ([RULES], ROLLBACK, '/proc', (CONTROL,), [UDEV]),
    ([RULES], APPLY, '/proc', (), []),
    ([_file('/etc/udev/rules.d/60-iotune')], APPLY, '/proc', (CONTROL,), []),     # udevd reads *.rules only
    ([RULES, RULES], APPLY, '/proc', (CONTROL,), [UDEV]),                           # once
    # the managed sysctl file: loaded after a run, in the real /proc only; not after a rollback, which puts
    # the live values back from their own records
    ([SYSCTL], APPLY, '/proc', (SYSCTL_FILE,), [LOAD]),
    ([SYSCTL], APPLY, '/proc/', (SYSCTL_FILE,), [LOAD]),
    ([SYSCTL], APPLY, '/tmp/proc', (SYSCTL_FILE,), []),
    ([SYSCTL], APPLY, '/proc', (), []),
    ([SYSCTL], ROLLBACK, '/proc', (SYSCTL_FILE,), []),
    ([_file('/etc/iotune/copy.conf', 'copy_tools')], APPLY, '/proc', (CONTROL, '/etc/iotune/copy.conf'), []),
    # a unit: in a run the unit change is the daemon-reload itself; a rollback runs it once after the files
    ([UNIT], APPLY, '/proc', (), []),
    ([UNIT, UNIT], ROLLBACK, '/proc', (), [DAEMON_RELOAD]),
    ([RULES, UNIT, SYSCTL], ROLLBACK, '/proc', (CONTROL, SYSCTL_FILE), [DAEMON_RELOAD, UDEV]),
    ([SYSCTL, RULES], APPLY, '/proc', (CONTROL, SYSCTL_FILE), [UDEV, LOAD]),
    # what needs nothing
    ([{'kind': 'sysfs', 'target': '/sys/block/vda/queue/read_ahead_kb', 'module': 'block_queue'},
      {'kind': 'mount', 'target': '/data', 'module': 'mount_options'}, _file('/etc/fstab', 'mount_options')],
     APPLY, '/proc', (CONTROL,), []),
    ([], ROLLBACK, '/proc', (CONTROL,), []),
])
def test_the_rule(records, direction, proc_root, existing, expected):
    assert _needed(records, direction, proc_root, existing) == expected


def test_a_program_not_found_runs_by_its_bare_name():
    needed = needed_reloads([UNIT], ROLLBACK, lambda name: None)
    assert [item['argv'] for item in needed] == [['systemctl', 'daemon-reload']]


def test_udevd_is_looked_for_at_its_control_socket_by_default():
    seen = []

    def exists(path):
        seen.append(path)
        return False
    needed_reloads([RULES], APPLY, lambda name: None, exists=exists)
    assert seen == [UDEV_CONTROL] == ['/run/udev/control']


def test_every_reload_says_what_the_host_lacks_without_it():
    assert [rule.name for rule in RELOADS] == ['systemd', 'udev', 'sysctl']
    assert all(rule.missing and set(rule.directions) <= set((APPLY, ROLLBACK)) for rule in RELOADS)


class Runner(object):
    def __init__(self, answers):
        self.answers, self.changes = answers, []

    def change(self, argv):
        self.changes.append(argv)
        answer = self.answers[argv[0]]
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_run_reloads_names_each_failure_with_its_command_output_and_meaning():
    reloads = needed_reloads([RULES, UNIT, SYSCTL], ROLLBACK, lambda name: '/own/' + name, udev_control=CONTROL,
                             exists=lambda path: True)
    runner = Runner({'/own/systemctl': (0, '', ''), '/own/udevadm': (1, '', ' Failed to send reload request: '
                                                                            'No such file or directory\n')})
    done, errors = run_reloads(reloads, runner)
    assert runner.changes == [DAEMON_RELOAD, UDEV]
    assert done == ['/own/systemctl daemon-reload']
    assert errors == ['/own/udevadm control --reload failed (rc=1): Failed to send reload request: No such file or '
                      'directory; udevd still has the rules it read before: devices that appear later do not get the '
                      'rule file as it is now (run it again once the cause is fixed)']


@pytest.mark.parametrize('answer, said', [
    ((3, 'on stdout\n', ''), 'failed (rc=3): on stdout;'),
    ((1, '', ''), 'failed (rc=1): no output;'),
    (CommandError('not run in check mode: /own/sysctl'), 'failed (rc=None): not run in check mode: /own/sysctl;'),
    (OSError(2, 'No such file or directory'), 'failed (rc=None): [Errno 2] No such file or directory;'),
])
def test_run_reloads_never_raises(answer, said):
    reloads = needed_reloads([SYSCTL], APPLY, lambda name: '/own/' + name, exists=lambda path: True)
    done, errors = run_reloads(reloads, Runner({'/own/sysctl': answer}))
    assert done == [] and len(errors) == 1
    assert errors[0].startswith('/own/sysctl --load %s %s the values are set live, but the file did not load as the '
                                'next boot will load it' % (SYSCTL_FILE, said)), errors


def test_nothing_to_reload_runs_nothing():
    assert run_reloads([], None) == ([], [])
