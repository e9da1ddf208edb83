# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters the audit reports are built with."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.module_utils._checks import summarize


def check_summary(checks):
    """Count of checks per status, every status present; with ``changed``
    when the checks come from an enforcement run."""
    try:
        summary = summarize(checks)
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError('check_summary expects a list of checks with a status: %s' % exc)
    if any('changed' in check for check in checks):
        summary['changed'] = sum(1 for check in checks if check.get('changed'))
    return summary


def with_changes(checks, enforced, checks_before=()):
    """The checks of the audit after enforcement, each with ``changed`` (an
    enforcing module changed it: the ``checks`` of the registered ``enforced``
    results) and ``status_before`` (from ``checks_before``, the audit before)."""
    if not isinstance(enforced, (list, tuple)):
        raise AnsibleFilterError('with_changes expects a list of registered module results, got %s'
                                 % type(enforced).__name__)
    changed = set()
    for result in enforced:
        for check in (result or {}).get('checks') or []:
            if check.get('changed'):
                changed.add(check['id'])
    before = dict((check['id'], check['status']) for check in checks_before or [])
    return [dict(check, changed=check['id'] in changed, status_before=before.get(check['id'], check['status']))
            for check in checks]


def host_checks(report):
    """The checks of one host report, each with the report's host added."""
    return [dict(check, host=report['host']) for check in report.get('checks', [])]


class FilterModule(object):
    def filters(self):
        return {'check_summary': check_summary, 'host_checks': host_checks, 'with_changes': with_changes}
