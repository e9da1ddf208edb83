# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount_options concern: fstab (or vfstab) and the live mounts; its planner is plan.mount_options (Linux)
or plan.mount_options_unix (Solaris, HP-UX), imported only by a run of this concern."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import Concern, act, live_diff
from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import normalize_mount_point
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import plan_mounts
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import is_userspace_option
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS


class MountOptions(Concern):
    name = 'mount_options'
    # the change kinds of the live side, each made by apply_live
    live_kinds = ('mount', 'mount_cycle')

    def __init__(self, runner, requests, fstab='/etc/fstab', remount=True, proc_root='/proc'):
        self.runner, self.requests = runner, requests
        self.fstab, self.remount, self.proc_root = fstab, remount, proc_root
        self.mount_bin = runner.bin('mount', 'mount')

    def plan(self):
        return plan_mounts(self.requests, fstab_path=self.fstab, proc_root=self.proc_root, remount=self.remount)

    def diff(self, plan):
        fstab = plan['fstab']
        diffs = []
        if fstab['changed']:
            diffs.append({'before_header': fstab['path'], 'after_header': fstab['path'],
                          'before': fstab['before'], 'after': fstab['after']})

        def line(change, side):
            return '%s %s' % (change['target'], ','.join(change[side]))
        return diffs + live_diff(plan['changes'], 'mount', 'mount options', line) \
            + live_diff(plan['changes'], 'mount_cycle', 'mount options (unmount and mount)', line) \
            + live_diff(plan['changes'], 'unix_remount', 'mount options', line)

    def apply_live(self, journal, change, request):
        if change['kind'] == 'mount_cycle':
            act().apply_mount_cycle(journal, change, self.runner.change, self.mount_bin, self.proc_root)
            return
        act().apply_mount(journal, change, self.runner.change, self.mount_bin, self.proc_root,
                          [o for o in request['present'] if not is_userspace_option(o)],
                          [o for o in request['absent'] if not is_userspace_option(o)])

    def apply(self, journal, plan):
        """fstab first, then the live side of each mount point (a remount; for an NFS mount with
        ``remount: cycle``, one unmount and mount); a failed one puts its fstab line back (journalled
        too) before the error is raised."""
        fstab = plan['fstab']
        if fstab['changed']:
            act().apply_file(journal, fstab['path'], fstab['after'])
        wanted = dict((normalize_mount_point(r['path']), r) for r in self.requests)
        text = fstab['after']
        for change in plan['changes']:
            if change['kind'] not in self.live_kinds:
                continue
            try:
                self.apply_live(journal, change, wanted[change['target']])
            except act().ApplyError as exc:
                edits = [c for c in plan['changes'] if c['kind'] == 'fstab' and c['target'] == change['target']]
                if edits:
                    text = revert_line(text, edits[0])
                    act().apply_file(journal, fstab['path'], text)
                    raise act().ApplyError('%s; line %d of %s was put back' % (exc, edits[0]['line'], fstab['path']))
                raise

    def extra(self, plan):
        return {'mounts': plan['mounts']}


class UnixMountOptions(MountOptions):
    """mount_options on Solaris/illumos and HP-UX (plan.mount_options_unix): /etc/vfstab or HP-UX's /etc/fstab,
    and ``mount -F <type> -o remount,<every option>``, read back from /etc/mnttab."""
    live_kinds = ('unix_remount',)

    def __init__(self, runner, requests, platform, fstab=None, mnttab=None, remount=True):
        MountOptions.__init__(self, runner, requests, fstab or PLATFORMS[platform]['fstab'], remount)
        self.platform, self.mnttab = platform, mnttab or PLATFORMS[platform]['mnttab']

    def plan(self):
        from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options_unix import plan_unix_mounts
        return plan_unix_mounts(self.requests, self.platform, self.fstab, self.mnttab, self.remount)

    def apply_live(self, journal, change, request):
        act().apply_unix_remount(journal, change, self.runner.change, self.mount_bin, self.mnttab)


def revert_line(text, change):
    """``text`` with the fstab line of ``change`` as it was before."""
    lines = text.split('\n')
    lines[change['line'] - 1] = change['before_line'].rstrip('\n')
    return '\n'.join(lines)
