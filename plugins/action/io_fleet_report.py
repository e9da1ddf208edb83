# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_fleet_report: the fleet's reports, written on the controller in one task (a template
task per file and a copy per host cost a module run each: seconds per run); the text of the
fleet files comes from plugin_utils/_fleet_report."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import write_reports


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('dir', 'reports', 'keep'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        directory = self._task.args.get('dir')
        reports = self._task.args.get('reports')
        if not isinstance(directory, str) or not os.path.isabs(directory):
            raise AnsibleActionFail('dir: must be an absolute path on the controller, got %r' % (directory,))
        if not isinstance(reports, list) or not all(isinstance(r, dict) and r.get('host') for r in reports):
            raise AnsibleActionFail('reports: must be a list of host reports (each a dict with a host)')
        keep = self._task.args.get('keep', 30)
        if isinstance(keep, str) and keep.strip().isdigit():
            keep = int(keep)
        if not isinstance(keep, int) or isinstance(keep, bool) or keep < 0:
            raise AnsibleActionFail('keep: must be 0 (keep every run) or a number of runs to keep in history.json, got %r' % (keep,))
        try:
            written = write_reports(directory, reports, keep=keep)
        except ValueError as exc:
            raise AnsibleActionFail(str(exc))
        result.update(changed=False, files=written)
        return result
