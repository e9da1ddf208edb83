# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tunefstab concern: VxFS tunables in tunefstab and live through vxtunefs (plan.tunefstab)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import Concern, act, apply_changes, file_diffs, live_diff
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import plan_tunefstab, read_live


class Tunefstab(Concern):
    name = 'tunefstab'

    def __init__(self, runner, entries, path='/etc/vx/tunefstab', apply=False, vxtunefs=None, proc_root='/proc',
                 mount_entries=None):
        self.runner, self.entries, self.path, self.apply_live = runner, entries, path, apply
        self.vxtunefs, self.proc_root, self.mount_entries = vxtunefs, proc_root, mount_entries

    def plan(self):
        return plan_tunefstab(self.entries, path=self.path, vxtunefs=self.vxtunefs, run_command=self.runner,
                              proc_root=self.proc_root, apply=self.apply_live, mount_entries=self.mount_entries)

    def diff(self, plan):
        return live_diff(plan['changes'], 'vxtunefs', 'vxtunefs',
                         lambda change, side: '%s %s=%s' % (change['target'], change['setting'], change[side])) \
            + file_diffs(plan['changes'])

    def apply(self, journal, plan):
        def values(binary, mount_point):
            return read_live(binary, mount_point, self.runner)
        apply_changes(journal, plan['changes'],
                      vxtunefs=lambda journal, change: act().apply_vxtunefs(journal, change, self.runner.change, values))

    def extra(self, plan):
        return {'devices': plan['devices'], 'vxtunefs': self.vxtunefs}
