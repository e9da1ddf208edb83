# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What holds a mount open, read from /proc (proc(5)); no fuser or lsof.

A process holds a mount when its working directory (``cwd``), root (``root``), program (``exe``),
an open file (``fd/*``) or a mapped file (``maps``) is at or under the mount point; a mount under
the mount point holds it too (umount(8) refuses a busy mount, EBUSY). ``proc_root`` is a parameter
so that tests read fixture trees. A process that vanishes while it is read is skipped; one that
cannot be read (not root) is reported as a holder, since nothing says it does not hold the mount.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import os

_DELETED = ' (deleted)'


def _under(path, mount_point):
    if path.endswith(_DELETED):
        path = path[:-len(_DELETED)]
    root = mount_point.rstrip('/') or '/'
    return path == root or path.startswith(root.rstrip('/') + '/')


def _read(path):
    with open(path, 'rb') as handle:
        return handle.read().decode('utf-8', 'replace')


def _comm(proc_dir):
    try:
        return _read(os.path.join(proc_dir, 'comm')).strip() or '?'
    except (IOError, OSError):
        return '?'


def _links(proc_dir):
    """(what, link target) of a process's cwd, root, exe and open files."""
    for name in ('cwd', 'root', 'exe'):
        try:
            yield name, os.readlink(os.path.join(proc_dir, name))
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.EINVAL):
                raise
    fd_dir = os.path.join(proc_dir, 'fd')
    for name in sorted(os.listdir(fd_dir), key=lambda text: int(text) if text.isdigit() else 0):
        try:
            yield 'fd %s' % name, os.readlink(os.path.join(fd_dir, name))
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                raise


def _mapped(proc_dir):
    """The paths of a process's mapped files (the sixth field of maps)."""
    for line in _read(os.path.join(proc_dir, 'maps')).splitlines():
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[5].startswith('/'):
            yield fields[5]


def _process_holds(proc_dir, mount_point):
    """What of one process is under ``mount_point`` ([] when nothing)."""
    found = []
    for what, target in _links(proc_dir):
        if _under(target, mount_point) and what not in found:
            found.append(what)
    if any(_under(path, mount_point) for path in _mapped(proc_dir)):
        found.append('mapped file')
    return found


def mount_holders(mount_point, proc_root='/proc', mounts=()):
    """Who holds ``mount_point`` open: ``[{'pid': int or None, 'command': text, 'what': [...]}]``, in pid
    order, then the mounts under it (``mounts``: mount points of mountinfo) as ``{'pid': None,
    'command': 'mount', 'what': [<mount point>]}``. [] when nothing does."""
    holders = []
    try:
        names = os.listdir(proc_root)
    except OSError as exc:
        return [{'pid': None, 'command': '?', 'what': ['%s cannot be read: %s' % (proc_root, exc.strerror or exc)]}]
    for name in sorted((name for name in names if name.isdigit()), key=int):
        proc_dir = os.path.join(proc_root, name)
        try:
            what = _process_holds(proc_dir, mount_point)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ESRCH):
                continue  # the process ended while it was read
            what = ['cannot be inspected (%s)' % (exc.strerror or exc)]
        if what:
            holders.append({'pid': int(name), 'command': _comm(proc_dir), 'what': what})
    for other in mounts:
        if other != mount_point and _under(other, mount_point):
            holders.append({'pid': None, 'command': 'mount', 'what': [other]})
    return holders


def describe_holders(holders):
    """``pid 4242 (bash: cwd), the mount /mnt/nfs/sub`` for a message."""
    parts = []
    for holder in holders:
        if holder['pid'] is None and holder['command'] == 'mount':
            parts.append('the mount %s under it' % ', '.join(holder['what']))
        elif holder['pid'] is None:
            parts.append(', '.join(holder['what']))
        else:
            parts.append('pid %d (%s: %s)' % (holder['pid'], holder['command'], ', '.join(holder['what'])))
    return ', '.join(parts)
