# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every concern does the same way: journal options, the diff of a plan,
applying it through the journal, and the summary line."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import fcntl
import os
import stat
import struct
import sys

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES, summarize
from ansible_collections.iotune.storage.plugins.module_utils.common.files import mount_point_of, nearest_existing
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import mount_entry_of

ST_RDONLY = getattr(os, 'ST_RDONLY', 1)


# the kinds of change that write a file: a whole file, or one line of fstab
FILE_KINDS = ('file', 'fstab')
# chattr's flags, read with FS_IOC_GETFLAGS (linux/fs.h): a file or directory that has one cannot be
# replaced, renamed over or (the directory) have a file created or replaced in it, even by root
FS_IMMUTABLE_FL, FS_APPEND_FL = 0x10, 0x20
FS_IOC_GETFLAGS = (2 << 30) | (struct.calcsize('l') << 16) | (ord('f') << 8) | 1


def attribute_flags(path):
    """The chattr flags of ``path`` (Linux; 0 where they cannot be read: another system, a file
    system without them, a path that is not a regular file or directory)."""
    if not sys.platform.startswith('linux'):
        return 0
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, 'O_NOFOLLOW', 0))
    except OSError:
        return 0
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return 0
        return struct.unpack('i', fcntl.ioctl(fd, FS_IOC_GETFLAGS, b'\0' * struct.calcsize('l'))[:4])[0]
    except (OSError, IOError):
        return 0
    finally:
        os.close(fd)


def _flag_problem(path, what):
    flags = attribute_flags(path)
    if flags & FS_IMMUTABLE_FL:
        return '%s %s is immutable (chattr +i)' % (what, path)
    if flags & FS_APPEND_FL:
        return '%s %s is append-only (chattr +a)' % (what, path)
    return None


def directory_problem(directory, statvfs=None):
    """Why no file can be written (a temporary file made and renamed) in ``directory``, as a
    phrase; None when one can. The file system's read-only flag comes from statvfs: os.access
    says yes to root on a read-only mount."""
    if os.path.lexists(directory) and not os.path.isdir(directory):
        return '%s is not a directory' % directory
    if not os.path.isdir(directory):
        return 'directory %s does not exist' % directory
    if (statvfs or os.statvfs)(directory).f_flag & ST_RDONLY:
        return 'the file system of %s is mounted read-only (at %s)' % (directory, mount_point_of(directory))
    problem = _flag_problem(directory, 'directory')
    if problem:
        return problem
    if not os.access(directory, os.W_OK | os.X_OK):
        return 'directory %s is not writable by uid %d' % (directory, os.geteuid())
    return None


def unwritable(changes, statvfs=None):
    """Why the file changes of a plan cannot be made, as sentences naming the file and the reason;
    [] when they can. A file needs its directory (existing, or created by the plan), a file system
    mounted read-write, no immutable or append-only flag on the directory or the file, and write
    permission in the directory; a directory the plan creates needs the same of its nearest
    existing parent. Checked before the first change, in check mode too, so that no live value is
    changed ahead of a file that cannot be written (issue 38, item 6)."""
    created = set(change['target'] for change in changes if change['kind'] == 'dir')
    problems = []
    for change in changes:
        if change['kind'] == 'dir':
            parent = os.path.dirname(os.path.abspath(change['target']))
            if parent not in created and not os.path.isdir(change['target']):
                problem = directory_problem(nearest_existing(parent), statvfs)
                if problem:
                    problems.append('cannot create %s: %s' % (change['target'], problem))
            continue
        if change['kind'] not in FILE_KINDS or change.get('after') is None:
            continue
        path = change.get('path') or change['target']
        directory = os.path.dirname(os.path.realpath(path))
        if created & set((directory, os.path.dirname(os.path.abspath(path)))):
            continue
        problem = directory_problem(directory, statvfs) or (
            _flag_problem(os.path.realpath(path), 'file') if os.path.exists(path) else None)
        if problem and 'cannot write %s: %s' % (path, problem) not in problems:
            problems.append('cannot write %s: %s' % (path, problem))
    return problems


# the kinds of change that write a kernel attribute (a file of sysfs or of /proc/sys), and those that mount
KERNEL_FILE_KINDS = ('sysfs', 'sysctl')
MOUNT_KINDS = ('mount', 'mount_cycle')
# mount(2) needs CAP_SYS_ADMIN (linux/capability.h): a container without it cannot remount
CAP_SYS_ADMIN = 21


def effective_capabilities(status_path='/proc/self/status'):
    """The effective capability set of this process (an int of bits), or None when it cannot be read."""
    try:
        with open(status_path) as handle:
            for line in handle.read(65536).splitlines():
                if line.startswith('CapEff:'):
                    return int(line.split(':', 1)[1].strip(), 16)
    except (IOError, OSError, ValueError):
        return None
    return None


def _kernel_mount_point(path):
    """Where the file system of ``path`` is mounted, from the mount table (a container binds /proc/sys over /proc:
    the same device number), else from the device numbers of the directories above it."""
    try:
        entry = mount_entry_of(path)
    except (OSError, IOError, ValueError):
        entry = None
    return entry['mount_point'] if entry else mount_point_of(os.path.dirname(path))


def kernel_file_problem(path, statvfs=None):
    """Why the kernel attribute ``path`` (sysfs or /proc/sys) cannot be written, as a phrase; None when it can. A
    container mounts /sys and /proc/sys read-only; an attribute without a write bit has no store in the kernel
    (root's open for writing fails with EACCES)."""
    try:
        mode = os.stat(path).st_mode
        flags = (statvfs or os.statvfs)(path).f_flag
    except OSError as exc:
        # a missing attribute is the planner's to judge (not applicable to the device, or an error check)
        return None if exc.errno == errno.ENOENT else '%s: %s' % (path, exc.strerror)
    if flags & ST_RDONLY:
        return 'its file system is mounted read-only (at %s), as in a container' % _kernel_mount_point(path)
    if not mode & 0o222:
        return 'the kernel offers it read-only (mode %04o)' % stat.S_IMODE(mode)
    if not os.access(path, os.W_OK):
        return 'it is not writable by uid %d' % os.geteuid()
    return None


def kernel_problems(changes, statvfs=None, capabilities=None):
    """Why the kernel changes of a plan cannot be made, as sentences naming the change and the reason; [] when they
    can: an attribute of sysfs or /proc/sys on a read-only mount or without write permission, a remount without
    CAP_SYS_ADMIN (``capabilities``: the effective set, default this process's; None when unknown). Checked before
    the first change, in check mode too, so that check mode gives the real run's verdict (issue 55, item 1)."""
    problems = []
    if capabilities is None and any(change['kind'] in MOUNT_KINDS for change in changes):
        capabilities = effective_capabilities()
    for change in changes:
        if change['kind'] in KERNEL_FILE_KINDS and change.get('path'):
            problem = kernel_file_problem(change['path'], statvfs)
            if problem:
                problems.append('cannot write %s to %s: %s' % (change.get('after'), change['path'], problem))
        elif change['kind'] in MOUNT_KINDS:
            if capabilities is not None and not capabilities >> CAP_SYS_ADMIN & 1:
                problems.append('cannot remount %s: this process lacks CAP_SYS_ADMIN, which mount(2) needs (a container '
                                'without it cannot mount)' % change['target'])
    return problems


# Room a run keeps free beside what its journal records and its files need: the rolled-back mark,
# directory blocks, and a margin so that a rollback never meets a full file system (issue 18, F1).
RECORD_BYTES = 1024
SPACE_RESERVE = 256 * 1024


def _size(text):
    if text is None:
        return 0
    return len(text if isinstance(text, bytes) else text.encode('utf-8', 'surrogateescape'))


def _file_system(path):
    """(st_dev, path) of the nearest existing directory at or above ``path``."""
    path = os.path.abspath(path)
    while not os.path.isdir(path) and path != os.path.dirname(path):
        path = os.path.dirname(path)
    return os.stat(path).st_dev, path


def space_needs(changes, journal_dir):
    """{st_dev: (a path on it, bytes needed)} for a plan's changes: each journal record (a file's
    record holds its whole previous content, base64), and on each file's own file system the
    larger of its new and old content (the temporary file of the change, then of its rollback)."""
    needs = {}

    def need(path, size):
        dev, where = _file_system(path)
        known = needs.get(dev, (where, 0))
        needs[dev] = (known[0], known[1] + size)

    need(journal_dir, SPACE_RESERVE)
    for change in changes:
        before = after = 0
        if change['kind'] == 'file':
            before, after = _size(change.get('before')), _size(change.get('after'))
            need(os.path.dirname(change.get('path') or change['target']), max(before, after) + SPACE_RESERVE)
        need(journal_dir, RECORD_BYTES + (before + 2) // 3 * 4)
    return needs


def space_problems(changes, journal_dir, statvfs=None):
    """Why the run would not fit on its file systems, as sentences ([] when it does); checked
    before the first journal record, so that a full file system stops a run before any change
    rather than between a change and the record of the next one."""
    problems = []
    for dev, (where, needed) in sorted(space_needs(changes, journal_dir).items()):
        fs = (statvfs or os.statvfs)(where)
        free = fs.f_bavail * fs.f_frsize
        if free < needed:
            problems.append('not enough free space on the file system of %s for the journal and the files of this run '
                            '(and their rollback): %d KiB free, %d KiB needed' % (where, free // 1024, (needed + 1023) // 1024))
    return problems


def summary_message(checks):
    """'5 checks: 3 compliant, 2 drift' (statuses with a zero count left out)."""
    counts = summarize(checks)
    parts = ['%d %s' % (counts[status], status) for status in STATUSES if counts[status]]
    return '%d checks%s' % (len(checks), (': ' + ', '.join(parts)) if parts else '')


def file_diffs(changes):
    """One diff per planned file change (whole text before and after)."""
    diffs = []
    for change in changes:
        if change['kind'] == 'file':
            path = change.get('path') or change['target']
            diffs.append({
                'before_header': path if change['before'] is not None else '%s (absent)' % path,
                'after_header': path,
                'before': change['before'] or '',
                'after': change['after'],
            })
    return diffs


def live_diff(changes, kind, header, line):
    """One diff of the live values a plan would change; ``line(change, side)``
    renders one change as a line, ``side`` being 'before' or 'after'."""
    live = [change for change in changes if change['kind'] == kind]
    if not live:
        return []
    return [{
        'before_header': '%s (live)' % header,
        'after_header': '%s (planned)' % header,
        'before': ''.join(line(change, 'before') + '\n' for change in live),
        'after': ''.join(line(change, 'after') + '\n' for change in live),
    }]


def act():
    """act.apply, imported when a run changes the host: an audit does not compile it on the host
    (docs/performance.md, "Fleet")."""
    from ansible_collections.iotune.storage.plugins.module_utils.act import apply as act_apply
    return act_apply


def apply_changes(journal, changes, **appliers):
    """Make a plan's ``changes`` in order: files with apply_file, every other
    kind with ``appliers[kind](journal, change)``."""
    from ansible_collections.iotune.storage.plugins.module_utils.act.apply import apply_file   # changing runs only
    for change in changes:
        if change['kind'] == 'file':
            apply_file(journal, change.get('path') or change['target'], change['after'], mode=change.get('mode'))
        else:
            appliers[change['kind']](journal, change)


class Concern(object):
    """One thing the engine manages (mount options, VxFS tunables, block queues, cache limits, copy
    tools). The engine reads and plans every concern first, then journals and applies each plan, then
    runs the reloads its journal records need (act/reloads.py, the rule rollback follows too) and plans
    again to report the state after:

    - ``plan()`` reads the host and returns ``{'checks': [...], 'changes': [...], ...}``; it never writes;
    - ``diff(plan)`` the diff mode's before/after texts; ``show(changes)`` the changes as results show
      them (a tool's content as its digest);
    - ``apply(journal, plan)`` makes the changes, each journalled before it is made;
    - ``extra(plan)`` the concern's own result keys.

    A subclass sets ``name`` and ``plan``; the rest has defaults for a concern whose changes are files."""
    name = None

    def plan(self):
        raise NotImplementedError('%s.plan' % type(self).__name__)

    def diff(self, plan):
        return file_diffs(plan['changes'])

    def show(self, changes):
        return changes

    def apply(self, journal, plan):
        apply_changes(journal, plan['changes'])

    def extra(self, plan):
        return {}
