# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""roles/io_audit/README.md's table of variables names every variable the role reads: those its
tasks, defaults and vars name, and the policy variables io_policy reads for it (issue 42: the
README missed six and described the role's old per-concern flow)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import os
import re

import yaml

from ansible_collections.iotune.storage.plugins.action.io_policy import POLICY_VARS, SEVERITY_VAR, WAIVERS_VAR
from ansible_collections.iotune.storage.tests.unit.meta import collection_docs as cd

ROLE = os.path.join(cd.ROOT, 'roles', 'io_audit')
NAME = re.compile(r'\b((?:iotune|io_audit)_[a-z_]+)')
# the run's summary is a custom stat the role publishes, not a variable it reads
PUBLISHED = {'iotune_summary'}


def role_files():
    return sorted(path for part in ('tasks', 'defaults', 'vars') for path in glob.glob(os.path.join(ROLE, part, '*.yml')))


def set_inside(path):
    """The names a task file sets for itself: registered results and task or import vars."""
    with open(path) as handle:
        tasks = yaml.safe_load(handle) or []
    names = set()
    for task in tasks if isinstance(tasks, list) else []:
        names.update([task['register']] if 'register' in task else [])
        names.update(task.get('vars') or {})
    return names


def test_the_readme_names_every_variable_the_role_reads():
    named, internal = set(), set(PUBLISHED)
    for path in role_files():
        with open(path) as handle:
            named.update(NAME.findall(handle.read()))
        if os.sep + 'tasks' + os.sep in path:
            internal.update(set_inside(path))
    read = (named - internal) | set(POLICY_VARS) | {WAIVERS_VAR, SEVERITY_VAR}
    with open(os.path.join(ROLE, 'README.md')) as handle:
        documented = set(re.findall(r'^\| `([a-z_]+)` \|', handle.read(), re.M))
    assert sorted(read - documented) == []
    assert 'io_audit_start' in internal and 'iotune_report_keep' in read     # the test sees both kinds
