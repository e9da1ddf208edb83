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
    """Count of checks per status, every status present."""
    try:
        return summarize(checks)
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError('check_summary expects a list of checks with a status: %s' % exc)


def host_checks(report):
    """The checks of one host report, each with the report's host added."""
    return [dict(check, host=report['host']) for check in report.get('checks', [])]


class FilterModule(object):
    def filters(self):
        return {'check_summary': check_summary, 'host_checks': host_checks}
