# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The playbooks' default run id (issue 38, item 15): two runs started in the same second must not
share a run id, hence a journal and a rollback; the id still passes the run-id rule journals and
rollback validate (common/args.validate_run_id). audit_io.yml, harden_io.yml and benchmark_io.yml take it
from the run's start (roles/io_audit/tasks/start.yml: io_fleet_report with start, issue 41), upgrade_check.yml
from a set_fact."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest
import yaml

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core before 2.19 templates any string it is given
    def trust_as_template(text):
        return text

from ansible_collections.iotune.storage.plugins.action.io_fleet_report import new_run_id
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import journal_path
from ansible_collections.iotune.storage.plugins.module_utils.common.args import validate_run_id
from ansible_collections.iotune.storage.tests.unit.meta import collection_docs as cd

# where a play chooses its run id once with a set_fact: (file, variable)
CHOOSERS = [('playbooks/upgrade_check.yml', 'upgrade_check_run_id')]
# the plays that take it from the run's start, once, before any host work
STARTERS = ['playbooks/harden_io.yml', 'playbooks/benchmark_io.yml', 'roles/io_audit/tasks/main.yml']
START = os.path.join(cd.ROOT, 'roles', 'io_audit', 'tasks', 'start.yml')


def tasks_of(path):
    with open(path) as handle:
        data = yaml.safe_load(handle)
    for item in data:
        yield from item.get('tasks', [item])


def default_expression(path, variable):
    """The template of the set_fact task that chooses the run id, once for the play."""
    found = [task for task in tasks_of(path) if variable in (task.get('ansible.builtin.set_fact') or {})]
    assert len(found) == 1 and found[0].get('run_once') is True, found
    return found[0]['ansible.builtin.set_fact'][variable]


@pytest.mark.parametrize('path, variable', CHOOSERS)
def test_runs_started_together_get_their_own_run_id(path, variable):
    expression = trust_as_template(default_expression(os.path.join(cd.ROOT, path), variable))
    templar = Templar(loader=DataLoader(), variables={})
    ids = [templar.template(expression) for dummy in range(20)]
    assert len(set(ids)) == 20, ids
    check_ids(ids)
    given = Templar(loader=DataLoader(), variables={'iotune_run_id': 'change-4711'})
    assert given.template(expression) == 'change-4711'


def check_ids(ids):
    assert len(set(ids)) == 20, ids
    for run_id in ids:
        assert validate_run_id(run_id) is None, run_id
    assert len(set(journal_path('/var/lib/iotune/journal', run_id) for run_id in ids)) == 20
    # still the time first, to the microsecond: ids sort by when the run started
    assert ids[0][:8].isdigit() or ids[0].startswith('upgrade-')


def test_the_runs_start_chooses_a_run_id_of_its_own_for_each_run():
    check_ids([new_run_id() for dummy in range(20)])
    ids = [new_run_id() for dummy in range(3)]
    assert sorted(ids) == ids


@pytest.mark.parametrize('path', STARTERS)
def test_the_plays_take_the_run_id_from_the_runs_start_once_before_any_host_work(path):
    first = next(iter(tasks_of(os.path.join(cd.ROOT, path))))
    imported = first.get('ansible.builtin.import_tasks') or (first.get('ansible.builtin.import_role') or {}).get('tasks_from')
    assert imported == 'start.yml', first
    start = list(tasks_of(START))
    assert len(start) == 1 and start[0]['run_once'] is True and start[0]['register'] == 'io_audit_start', start
    assert start[0]['iotune.storage.io_fleet_report']['start'] is True
    assert start[0]['iotune.storage.io_fleet_report']['run_id'] == "{{ iotune_run_id | default(none, true) }}"
