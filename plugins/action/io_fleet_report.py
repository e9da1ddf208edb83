# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_fleet_report: the fleet's reports, written on the controller in one task (a template
task per file and a copy per host cost a module run each: seconds per run); the text of the
fleet files comes from plugin_utils/_fleet_report."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import tempfile
import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import render


def write_atomic(path, text, mode=0o644):
    directory = os.path.dirname(path)
    fd, temp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), dir=directory)
    try:
        with os.fdopen(fd, 'w') as handle:
            handle.write(text)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def host_json(report):
    """A host report as the controller keeps it (to_nice_json and a newline)."""
    return json.dumps(report, indent=4, sort_keys=True, separators=(',', ': '), ensure_ascii=False) + '\n'


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('dir', 'reports'))
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
        written = []
        os.makedirs(os.path.join(directory, 'hosts'), exist_ok=True)
        for report in reports:
            path = os.path.join(directory, 'hosts', '%s.json' % report['host'])
            write_atomic(path, host_json(report))
            written.append(path)
        run_id = (reports[0].get('run_id') if reports else '') or ''
        for name, text in sorted(render(reports, run_id, time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())).items()):
            path = os.path.join(directory, name)
            write_atomic(path, text)
            written.append(path)
        result.update(changed=False, files=written)
        return result
