# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_upgrade_report: the differences between each host's two snapshots, explained and written as
the audit's report formats (hosts/<host>.json, summary.json, junit.xml, report.html), on the
controller in one task. The diff itself is plugin_utils/_snapshot_diff."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime
import os
import random
import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import write_reports
from ansible_collections.iotune.storage.plugins.plugin_utils._snapshot_diff import (
    DEFAULT_FAIL_ON, DEFAULT_IO_SYSCTLS, IO_SYSCTLS_FIELD, diff_snapshots, failing, policy_status, summarize_differences,
    upgrade_host_report, validate_fail_on)


def host_pairs(hosts):
    """[(host, before, after)] from ``hosts`` ({host: {before, after}}); AnsibleActionFail naming
    the host when a snapshot is missing."""
    if not isinstance(hosts, dict):
        raise AnsibleActionFail('hosts: must be a dict of host name to {before, after} snapshots')
    pairs = []
    for host in sorted(hosts):
        entry = hosts[host] or {}
        for side in ('before', 'after'):
            if not isinstance(entry.get(side), dict):
                raise AnsibleActionFail('hosts.%s.%s: no snapshot (a dict) was given' % (host, side))
        pairs.append((host, entry['before'], entry['after']))
    return pairs


def default_run_id():
    """'upgrade-' and the UTC time to the microsecond and a random suffix, as the playbooks' default
    run id: two runs started in the same second never share one (issue 38, item 15)."""
    return 'upgrade-%s-%08x' % (datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%S.%fZ'),
                                random.SystemRandom().getrandbits(32))


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('dir', 'hosts', 'fail_on', 'run_id', 'write', 'io_sysctls'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        args = self._task.args
        directory = args.get('dir')
        if not isinstance(directory, str) or not os.path.isabs(directory):
            raise AnsibleActionFail('dir: must be an absolute path on the controller, got %r' % (directory,))
        try:
            fail_on = validate_fail_on(args.get('fail_on', list(DEFAULT_FAIL_ON)))
        except ValueError as exc:
            raise AnsibleActionFail(str(exc))
        now = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
        run_id = args.get('run_id') or default_run_id()
        explained, reports = {}, []
        io_sysctls = args.get('io_sysctls', list(DEFAULT_IO_SYSCTLS))
        if not isinstance(io_sysctls, list) or not all(isinstance(item, str) and item for item in io_sysctls):
            raise AnsibleActionFail('io_sysctls (%s): must be a list of sysctl keys or patterns such as vm.dirty_*, got %r'
                                    % (IO_SYSCTLS_FIELD, io_sysctls))
        for host, before, after in host_pairs(args.get('hosts')):
            try:
                differences = diff_snapshots(before, after, io_sysctls)
            except ValueError as exc:
                raise AnsibleActionFail('hosts.%s.%s' % (host, exc))
            explained[host] = {'differences': differences, 'failing': failing(differences, fail_on),
                               'counts': summarize_differences(differences), 'policy': policy_status(before, after),
                               'before': before.get('name'), 'after': after.get('name')}
            reports.append(upgrade_host_report(host, differences, fail_on, run_id, now))
        try:
            files = write_reports(directory, reports, now, history=False) if args.get('write', True) else []
        except ValueError as exc:
            raise AnsibleActionFail(str(exc))
        result.update(changed=False, hosts=explained, files=files)
        return result
