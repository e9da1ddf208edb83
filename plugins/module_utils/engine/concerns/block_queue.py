# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The block_queue concern: queue settings in sysfs and the udev rule (plan.block_queue)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import Concern, act, apply_changes, file_diffs, live_diff
from ansible_collections.iotune.storage.plugins.module_utils.parse.udev import DB_DIR, RULES_DIRS
from ansible_collections.iotune.storage.plugins.module_utils.plan.block_queue import DEFAULT_RULES_FILE, plan_block_queue


class BlockQueue(Concern):
    name = 'block_queue'

    def __init__(self, runner, requests, persist=True, rules_file=DEFAULT_RULES_FILE, sys_root='/sys',
                 proc_root='/proc', rules_dirs=RULES_DIRS, db_dir=DB_DIR, mount_entries=None):
        self.runner, self.requests, self.persist, self.rules_file = runner, requests, persist, rules_file
        self.sys_root, self.proc_root, self.rules_dirs, self.db_dir = sys_root, proc_root, rules_dirs, db_dir
        self.mount_entries = mount_entries

    def plan(self):
        return plan_block_queue(self.requests, sys_root=self.sys_root, proc_root=self.proc_root,
                                rules_dirs=self.rules_dirs, db_dir=self.db_dir, rules_file=self.rules_file,
                                persist=self.persist, mount_entries=self.mount_entries)

    def diff(self, plan):
        return live_diff(plan['changes'], 'sysfs', 'sysfs', lambda change, side: '%s = %s' % (change['path'], change[side])) \
            + file_diffs(plan['changes'])

    def apply(self, journal, plan):
        apply_changes(journal, plan['changes'], sysfs=act().apply_sysfs)

    def extra(self, plan):
        return {'devices': plan['devices']}
