# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""make demo, step 2 "what hardening would change" (issue 25): scripts/demo_diff, run on the recorded
output of a real harden_io.yml --check --diff against the lab VM, prints at least one diff hunk."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import importlib.machinery
import importlib.util
import os
import subprocess
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
SCRIPT = os.path.join(ROOT, 'scripts', 'demo_diff')
LOADER = importlib.machinery.SourceFileLoader('demo_diff', SCRIPT)
demo_diff = importlib.util.module_from_spec(importlib.util.spec_from_loader('demo_diff', LOADER))
LOADER.exec_module(demo_diff)

# tests/unit/fixtures/demo/README.md says how it was recorded
with open(os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'demo', 'harden-check.log')) as _handle:
    RECORDED = _handle.read()


def step2(output):
    """What the demo prints in step 2 for this output of harden_io.yml: (exit status, stdout, stderr)."""
    done = subprocess.run([sys.executable, SCRIPT], input=output, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, check=False)
    return done.returncode, done.stdout.splitlines(), done.stderr


def diff_hunks(lines):
    """The unified-diff hunks in the lines: each '@@' line, and each '---'/'+++' header pair
    followed by a '+' or '-' line."""
    hunks = [line for line in lines if line.startswith('@@')]
    for index, line in enumerate(lines[:-2]):
        if line.startswith('--- ') and lines[index + 1].startswith('+++ ') and \
                any(after[:1] in '+-' and after[:3] not in ('---', '+++') for after in lines[index + 2:index + 4] if after):
            hunks.append(line)
    return hunks


def test_step_2_prints_the_diff_of_the_engine_task():
    rc, lines, err = step2(RECORDED)
    assert rc == 0, err
    assert lines[0].startswith('TASK [Enforce the policy] ')
    assert diff_hunks(lines), '\n'.join(lines)
    # only that task: the next task's header and the recap are left out
    assert not [line for line in lines[1:] if line.startswith(demo_diff.HEADERS)]


def test_the_recorded_output_has_hunks_only_in_that_task():
    """The fixture is the one the test needs: its diff is all in the engine's task."""
    lines = RECORDED.splitlines()
    assert len(diff_hunks(lines)) == len(diff_hunks(step2(RECORDED)[1])) > 0


def test_another_task_name_finds_nothing_and_fails():
    """What the demo did before bdbfe05 (it looked for the per-role tasks the engine replaced)."""
    assert list(demo_diff.task_output(RECORDED.splitlines(True), 'iotune.storage.block_queue : Ensure')) == []
    rc, lines, err = step2(RECORDED.replace('TASK [Enforce the policy]', 'TASK [Enforce the policy now]'))
    assert (rc, lines) == (1, []) and 'no "TASK [Enforce the policy]"' in err


def test_it_reads_all_of_the_output():
    """Stopping after the task would close the pipe on ansible-playbook (SIGPIPE: the demo stops)."""
    lines = iter(RECORDED.splitlines(True))
    assert list(demo_diff.task_output(lines)) and next(lines, None) is None


def test_the_task_is_the_one_harden_io_runs_the_engine_in():
    """harden_io.yml imports its one enforcing task from tasks/harden_enforce.yml, where it runs (issue 41)."""
    with open(os.path.join(ROOT, 'playbooks', 'harden_io.yml')) as handle:
        tasks = yaml.safe_load(handle)[0]['tasks']
    assert [task['ansible.builtin.import_tasks'] for task in tasks if 'ansible.builtin.import_tasks' in task] == [
        'tasks/harden_enforce.yml']
    with open(os.path.join(ROOT, 'playbooks', 'tasks', 'harden_enforce.yml')) as handle:
        enforcing = yaml.safe_load(handle)
    assert [task['name'] for task in enforcing if 'iotune.storage.io_policy' in task] == [demo_diff.TASK]


def test_the_demo_shows_step_2_through_it():
    with open(os.path.join(ROOT, 'scripts', 'demo')) as handle:
        demo = handle.read()
    step = demo.split('echo "demo: 2.')[1].split('echo "demo: 3.')[0]
    assert 'iotune.storage.harden_io --check --diff' in step
    assert step.rstrip().endswith('| python3 scripts/demo_diff'), step
