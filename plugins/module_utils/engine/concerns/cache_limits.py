# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cache_limits concern: vm sysctls and the bulk slice on Linux (plan.cache_limits), the ZFS ARC cap and the
HP-UX file cache on Solaris and HP-UX (plan.cache_limits_unix)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import NOT_APPLICABLE, make_check
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandError
from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import Concern, act, apply_changes, file_diffs, live_diff
from ansible_collections.iotune.storage.plugins.module_utils.parse.meminfo import read_memory_bytes
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import CONF_DIRS, SYSCTL_CONF
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits import DEFAULT_SYSCTL_FILE, SYSTEMD_RUN_DIR, plan_cache


class CacheLimits(Concern):
    name = 'cache_limits'

    def __init__(self, runner, sysctl=None, bulk_slice=None, sysctl_file=DEFAULT_SYSCTL_FILE, proc_root='/proc',
                 conf_dirs=CONF_DIRS, sysctl_conf=SYSCTL_CONF, systemd_run_dir=SYSTEMD_RUN_DIR, memory_bytes=None,
                 other_platforms=()):
        self.runner, self.sysctl, self.bulk_slice, self.sysctl_file = runner, sysctl, bulk_slice, sysctl_file
        # iotune_cache keys of Solaris or HP-UX (settings.cache_limits_unix), which a Linux host has not
        self.other_platforms = tuple(other_platforms)
        self.proc_root, self.conf_dirs, self.sysctl_conf = proc_root, conf_dirs, sysctl_conf
        self.systemd_run_dir = systemd_run_dir
        self.systemctl = runner.bin('systemctl')
        self.memory_bytes = memory_bytes if memory_bytes is not None else read_memory_bytes(proc_root)

    def _systemctl(self, argv):
        if self.systemctl is None:
            return 127, '', 'systemctl not found'
        return self.runner(argv)

    def plan(self):
        plan = plan_cache(sysctl=self.sysctl, bulk_slice=self.bulk_slice, sysctl_file=self.sysctl_file,
                          proc_root=self.proc_root, conf_dirs=self.conf_dirs, sysctl_conf=self.sysctl_conf,
                          systemd_run_dir=self.systemd_run_dir, run_command=self._systemctl,
                          systemctl=self.systemctl or 'systemctl', memory_bytes=self.memory_bytes)
        if self.other_platforms:
            plan['checks'].append(make_check(self.name, 'Linux', 'platform', None, None, None, NOT_APPLICABLE,
                                             'not applicable on Linux: iotune_cache.%s (Solaris and HP-UX tunables)'
                                             % ', iotune_cache.'.join(self.other_platforms)))
        return plan

    def diff(self, plan):
        return file_diffs(plan['changes']) + live_diff(
            plan['changes'], 'sysctl', 'sysctl values', lambda change, side: '%s = %s' % (change['target'], change[side]))

    def apply(self, journal, plan):
        def daemon_reload(journal, change):
            journal.record('unit', change['target'], None, change['action'])
            try:
                self.runner.change([self.systemctl or 'systemctl', 'daemon-reload'], check_rc=True)
            except CommandError as exc:
                raise act().ApplyError(str(exc))

        apply_changes(journal, plan['changes'], unit=daemon_reload,
                      sysctl=lambda journal, change: act().apply_sysctl(journal, change, self.proc_root))

    def extra(self, plan):
        return {'sysctl': plan['sysctl'], 'bulk_slice': plan['bulk_slice']}


MACHINFO = ('/usr/contrib/bin/machinfo',)


class UnixCache(Concern):
    """cache_limits on Solaris (the ZFS ARC cap in /etc/system, at the next boot) and HP-UX (the file cache
    through kctune, at once): plan.cache_limits_unix."""
    name = 'cache_limits'

    def __init__(self, runner, cache, platform, system_file=None):
        self.runner, self.cache, self.platform, self.system_file = runner, cache, platform, system_file
        self.kctune = runner.bin('kctune', 'kctune')
        # HP-UX keeps machinfo in /usr/contrib/bin, which a module's PATH may lack
        self.machinfo = runner.bin('machinfo') or next((path for path in MACHINFO if os.path.exists(path)), None)

    def plan(self):
        from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits_unix import plan_unix_cache
        return plan_unix_cache(self.cache, self.platform, self.runner, self.system_file, self.machinfo)

    def diff(self, plan):
        return file_diffs(plan['changes']) + live_diff(
            plan['changes'], 'kctune', 'kctune', lambda change, side: '%s = %s' % (change['target'], change[side]))

    def apply(self, journal, plan):
        apply_changes(journal, [change for change in plan['changes'] if change['kind'] == 'file'])
        act().apply_kctunes(journal, [change for change in plan['changes'] if change['kind'] == 'kctune'], self.runner.change, self.kctune)

    def extra(self, plan):
        return {'applies': plan['applies']}
