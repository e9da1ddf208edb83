# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount_options decision on Solaris/illumos and HP-UX; pure but for reading the two tables.

The live side is ``/etc/mnttab``, the persistent side ``/etc/vfstab`` (Solaris, seven fields) or
``/etc/fstab`` (HP-UX fstab(4), six); the checks, messages and the table edit are plan.mount_options' own.
What differs is the remount: mount_ufs(1M) says "All options not explicitly set with remount revert
to their default values", and VxFS's remount (mount_vxfs(1M), ``mount -F vxfs -o remount,...``)
likewise takes the whole new option set. So the plan gives ``remount`` with every option the mount
keeps (a ``mincache=direct`` is dropped by leaving it out, which a Linux remount cannot do), and
the options a remount cannot change (VxFS ``largefiles``/``nolargefiles``) stay as they are and are
named as needing an unmount and mount.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_mounts import live_options, parse_hpux_fstab, parse_mnttab, parse_vfstab
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import plan_mounts_from
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import edit_fstab_options, is_userspace_option
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_words import fixed_at_mount, slot_groups
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS


def _exclusive(options, chosen, platform):
    """``options`` without the other words of ``chosen``'s slot: a mount has one at a time, the last one given."""
    group = [members for members in slot_groups(platform) if chosen in members]
    return [option for option in options if not group or option not in group[0] or option == chosen]


def unix_remount(live, present, absent, platform):
    """(the whole option list a remount gives, options it cannot resolve) for a mount whose live options
    (without ``dev=``) are ``live``. The list is the live one with ``present`` in effect and ``absent``
    not, other options kept in order; [] when nothing changes. Options fixed at mount time on ``platform``
    (settings.mount_words) stay as they are and are unresolved."""
    after, unresolved = edit_fstab_options(live, present, absent)
    for option in present:
        after = _exclusive(after, option, platform)
    fixed = fixed_at_mount(platform)
    fixed_before = [option for option in live if option in fixed]
    if [option for option in after if option in fixed] != fixed_before:
        unresolved = unresolved + [option for option in present + absent if option in fixed]
        after = [option for option in after if option not in fixed] + fixed_before
    return (after if sorted(after) != sorted(live) else []), unresolved


def remount_planner(info, present, absent, platform):
    """plan.mount_options' live side of a Solaris/HP-UX mount: one ``unix_remount`` change with the whole list."""
    kernel_present = [option for option in present if not is_userspace_option(option)]
    kernel_absent = [option for option in absent if not is_userspace_option(option)]
    after, unresolved = unix_remount(info['live_options'], kernel_present, kernel_absent, platform)
    if not after:
        return None, unresolved
    info['remount_options'] = ','.join(['remount'] + after)
    info['live_options_after'] = after
    return {'kind': 'unix_remount', 'target': info['path'], 'fstype': info['fstype'], 'options': after,
            'before': info['live_options'], 'after': after}, unresolved


def live_mounts(mnttab_text):
    """The mnttab lines in the shape of parse.mountinfo's entries, as the planners read them: mount_point,
    fstype, source (the special file), options (without ``dev=``), root ``/`` (mnttab has no bind mounts
    of a subtree) and mount_id (the line's position: a later line is mounted on top)."""
    return [{'mount_point': entry['mount_point'], 'fstype': entry['fstype'], 'source': entry['special'],
             'options': live_options(entry['options']), 'root': '/', 'mount_id': position}
            for position, entry in enumerate(parse_mnttab(mnttab_text))]


def table_records(platform, text, warnings):
    """The lines of the platform's persistent table; each invalid line is a warning."""
    lines = (parse_vfstab if PLATFORMS[platform]['fstab_format'] == 'vfstab' else parse_hpux_fstab)(text)
    for line in lines:
        if line.kind == 'invalid':
            warnings.append('%s line %d: %s' % (PLATFORMS[platform]['fstab'], line.number, line.problem))
    return lines


def plan_unix_mounts(mounts, platform, fstab_path=None, mnttab_path=None, remount=True):
    """Read mnttab and the platform's fstab and plan ``mounts`` as plan.mount_options.plan_mounts does, with the
    ``unix_remount`` change kind: ``{kind: unix_remount, target, fstype, options (the whole list),
    before, after}``. Nothing is written."""
    entry = PLATFORMS[platform]
    fstab_path = fstab_path or entry['fstab']
    mnttab_path = mnttab_path or entry['mnttab']
    warnings, read_errors = [], []
    text = read_text(mnttab_path, read_errors)
    live_error = read_errors[-1] if text is None else None
    table_text = read_text(fstab_path, read_errors, missing_ok=True, decode_errors='surrogateescape', newline='')
    present = table_text is not None or os.path.exists(fstab_path)
    table_error = read_errors[-1] if table_text is None and present else None
    records = table_records(platform, table_text, warnings) if table_text is not None else []
    plan = plan_mounts_from(mounts, live_mounts(text or ''), records, present and table_error is None, fstab_path,
                            remount, live_error, table_error,
                            remount_planner=lambda info, present, absent: remount_planner(info, present, absent, platform))
    plan['warnings'] = warnings + read_errors
    return plan
