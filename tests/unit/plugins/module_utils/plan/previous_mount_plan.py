# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount planner as it was before issue 23 S3, kept once as the reference that the unit test
(test_mount_options_plan.py: the same plans on generated hosts) and the bench (bench/mount_scale.py: the
time of both in one run) compare the indexed planner with. Not used by the collection."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import ERROR, NOT_APPLICABLE, make_check, status_of
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import FstabLine, normalize_mount_point, parse_fstab, render
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import _check, _message, CONCERN
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import parse_mountinfo, visible_mounts
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import (
    edit_fstab_options,
    in_effect,
    is_userspace_option,
    option_state,
    plan_remount,
)


def plan_mounts_from(mounts, mountinfo_entries, fstab_records, fstab_present=True, fstab_path='/etc/fstab',
                     remount=True, live_error=None, fstab_error=None):
    """plan_mounts_from before issue 23 S3 (as of commit 910321c), unchanged: straightforward scans of
    every fstab entry for each mount point, and list.index() for each edit."""
    live_by_path = visible_mounts(mountinfo_entries or [])
    entry_records = [record for record in fstab_records if record.kind == 'entry']
    records_after = list(fstab_records)
    checks = []
    changes = []
    details = []
    for request in mounts:
        path = normalize_mount_point(request['path'])
        present = list(request.get('present') or [])
        absent = list(request.get('absent') or [])
        live_entry = live_by_path.get(path)
        # swap entries are not mounts: their second field is no mount point
        matches = [record for record in entry_records if record.to_dict()['vfstype'] != 'swap'
                   and record.to_dict()['file'].startswith('/') and normalize_mount_point(record.to_dict()['file']) == path]
        record = matches[-1] if matches else None
        fstab_entry = record.to_dict() if record is not None else None
        info = {
            'path': path,
            'mounted': live_entry is not None,
            'in_fstab': fstab_entry is not None,
            'fstab_present': fstab_present,
            'fstab_path': fstab_path,
            'fstab_line': fstab_entry['line'] if fstab_entry else None,
            'fstype': live_entry['fstype'] if live_entry else (fstab_entry['vfstype'] if fstab_entry else None),
            'live_options': list(live_entry['options']) if live_entry else None,
            'fstab_options': list(fstab_entry['options']) if fstab_entry else None,
            'fstab_options_after': None,
            'remount_options': None,
            'live_options_after': None,
            'unresolved': [],
        }
        details.append(info)
        wanted = [(option, True) for option in present] + [(option, False) for option in absent]

        problem = None
        if live_error:
            problem = live_error
        elif fstab_error:
            problem = fstab_error
        elif len(matches) > 1:
            problem = '%s is listed %d times in %s (lines %s): fix fstab first' % (
                path, len(matches), fstab_path, ', '.join(str(m.lineno) for m in matches))
        if problem:
            for option, want in wanted:
                checks.append(_check(path, option, want, ERROR, None, None, '%s: %s' % (option, problem)))
            info['unresolved'].append(problem)
            continue

        if live_entry is None and fstab_entry is None:
            where = fstab_path if fstab_present else '%s (no such file)' % fstab_path
            swaps = [str(other.lineno) for other in entry_records if other.to_dict()['vfstype'] == 'swap'
                     and path in (other.to_dict()['spec'], normalize_mount_point(other.to_dict()['file']))]
            if swaps:
                message = '%s is swap (%s line %s), not a mounted file system; its options were not checked' % (
                    path, fstab_path, ', '.join(swaps))
            else:
                message = '%s is neither mounted nor listed in %s; its options were not checked' % (path, where)
            checks.append(make_check(CONCERN, path, 'mount_point', 'mounted', None, None, NOT_APPLICABLE, message))
            continue

        live_state = option_state(info['live_options'], 'live') if live_entry else None
        fstab_state = option_state(info['fstab_options'], 'fstab') if fstab_entry else None

        # persistent side: the new fstab option list
        fstab_unresolved = []
        if fstab_entry is not None:
            new_options, fstab_unresolved = edit_fstab_options(info['fstab_options'], present, absent)
            info['fstab_options_after'] = new_options or ['defaults']
            if new_options != info['fstab_options']:
                updated = FstabLine(record.raw, record.lineno)
                updated.set_options(new_options)
                records_after[fstab_records.index(record)] = updated
                changes.append({
                    'kind': 'fstab', 'target': path, 'path': fstab_path, 'line': record.lineno,
                    'before': info['fstab_options'], 'after': info['fstab_options_after'],
                    'before_line': record.raw, 'after_line': updated.raw,
                })
        # live side: the remount
        live_unresolved = []
        if live_entry is not None:
            kernel_present = [o for o in present if not is_userspace_option(o)]
            kernel_absent = [o for o in absent if not is_userspace_option(o)]
            words, after, live_unresolved = plan_remount(info['live_options'], kernel_present, kernel_absent)
            if words:
                info['remount_options'] = ','.join(['remount'] + words)
                info['live_options_after'] = after
                if remount:
                    changes.append({
                        'kind': 'mount', 'target': path, 'options': info['remount_options'],
                        'before': info['live_options'], 'after': after,
                    })

        for option, want in wanted:
            live = in_effect(option, live_state) if live_state else None
            persistent = in_effect(option, fstab_state) if fstab_state else None
            live_ok = None if live is None else live == want
            if fstab_entry is None:
                persistent_ok = False  # not in fstab: the mount does not come back at boot
            else:
                persistent_ok = persistent == want
            status = status_of(live_ok, persistent_ok)
            note = ''
            remount_fixes = True
            if option in fstab_unresolved and persistent_ok is False:
                note = ('the other options in fstab keep %s %s; change them by hand'
                        % (option, 'off' if want else 'in effect'))
            elif option in live_unresolved and live_ok is False:
                note = ('a remount cannot %s %s; unmount and mount %s'
                        % ('set' if want else 'remove', option, path))
                remount_fixes = False
            if note:
                info['unresolved'].append('%s: %s' % (option, note))
            checks.append(_check(path, option, want, status, live, persistent,
                                 _message(path, option, want, live, persistent, info, note, remount_fixes)))

    fstab_before = render(fstab_records) if fstab_present else None
    fstab_after = render(records_after) if fstab_present else None
    return {
        'checks': checks,
        'changes': changes,
        'mounts': details,
        'fstab': {'path': fstab_path, 'before': fstab_before, 'after': fstab_after,
                  'changed': fstab_before != fstab_after},
    }


def plan_mounts(mounts, fstab_path='/etc/fstab', proc_root='/proc', remount=True):
    """plan_mounts (which reads both files) as it was before issue 23 S3, over plan_mounts_from."""
    warnings = []
    read_errors = []
    text = read_text(os.path.join(proc_root, 'self', 'mountinfo'), read_errors)
    live_error = read_errors[-1] if text is None else None
    entries = parse_mountinfo(text, warnings) if text is not None else []
    fstab_text = read_text(fstab_path, read_errors, missing_ok=True, decode_errors='surrogateescape', newline='')
    fstab_present = fstab_text is not None or os.path.exists(fstab_path)
    fstab_error = read_errors[-1] if fstab_text is None and fstab_present else None
    records = parse_fstab(fstab_text, warnings) if fstab_text is not None else []
    plan = plan_mounts_from(mounts, entries, records, fstab_present and fstab_error is None, fstab_path, remount, live_error,
                            fstab_error)
    plan['warnings'] = warnings + read_errors
    return plan
