# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host variables the collection reads, and those named like them that it does not: a misspelled
policy variable (``iotune_mount:``) would otherwise audit nothing and report no drift (issue 39, item 6)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import difflib
import re

from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import POLICY_KEYS

PREFIX = 'iotune_'
# every other iotune_ variable a role, playbook or action plugin of the collection reads, and the fact
# io_policy keeps (tests/unit/plugins/plugin_utils/test_variables.py fails while one is missing)
OTHER_VARIABLES = (
    'iotune_audit_fail_on', 'iotune_audit_fail_on_drift', 'iotune_benchmark', 'iotune_copy_tools_installed',
    'iotune_hosts', 'iotune_journal_dir', 'iotune_report_dir', 'iotune_report_keep', 'iotune_report_part',
    'iotune_report_parts', 'iotune_run_id',
    'iotune_severity', 'iotune_snapshot_after_name', 'iotune_snapshot_name', 'iotune_textfile_dir', 'iotune_tune',
    'iotune_upgrade_fail_on', 'iotune_upgrade_io_sysctls', 'iotune_upgrade_phase', 'iotune_upgrade_strict',
    'iotune_waivers',
    # not a variable the collection reads: the key of the run's summary the playbooks publish with set_stats
    'iotune_summary',
)
KNOWN_VARIABLES = frozenset(tuple(POLICY_KEYS) + OTHER_VARIABLES)


def unknown_variables(names):
    """Why each of ``names`` that starts with iotune_ is not a variable of the collection, sorted, with the
    nearest one it has (a misspelling), else the policy's variables."""
    problems = []
    for name in sorted(set(name for name in names if isinstance(name, str) and name.startswith(PREFIX))):
        if name in KNOWN_VARIABLES:
            continue
        near = difflib.get_close_matches(name, sorted(KNOWN_VARIABLES), n=1, cutoff=0.75)
        hint = 'did you mean %s?' % near[0] if near else 'the policy is %s' % ', '.join(POLICY_KEYS)
        problems.append('%s: not a variable of iotune.storage (%s); nothing reads it, so what it sets is not audited'
                        % (name, hint))
    return problems


def selects_nothing(policy):
    """Whether a (validated) policy names nothing to audit: every one of its variables unset or empty."""
    return not any(policy.get(name) not in (None, {}, [], '') for name in POLICY_KEYS)


# a slice's name (docs/fleet.md, "Job slicing"): it becomes the file parts/<run id>/<name>.json
PART_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z')
PART_ACCEPTED = '1 to 64 letters, digits and . _ - starting with a letter or a digit, such as an AWX job id'


def part_name_problem(name, field='part'):
    """None when ``name`` (a string, or an integer such as AWX's job id) names a slice's part, else why not,
    naming ``field``."""
    text = u'%d' % name if isinstance(name, int) and not isinstance(name, bool) else name
    if isinstance(text, str) and PART_RE.match(text):
        return None
    return '%s: must be %s, got %r' % (field, PART_ACCEPTED, name)


def slicing_errors(lookup):
    """Errors in the job slicing variables, found before any host work: iotune_report_part must be a
    part's name, and a slice needs iotune_run_id, the run id every slice shares, or merge_reports.yml
    would find each slice under a run id of its own. ``lookup(name)``: a variable's value, None when unset."""
    part = lookup('iotune_report_part')
    if part in (None, ''):
        return []
    problem = part_name_problem(part, 'iotune_report_part')
    if problem:
        return [problem]
    if lookup('iotune_run_id') in (None, ''):
        return ['iotune_report_part: a slice needs iotune_run_id, the run id every slice of the job shares (docs/fleet.md, '
                'Job slicing), or each slice writes its part under a run id of its own and merge_reports.yml finds one']
    return []
