# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The trust boundary of the directories the collection writes in (docs/reliability.md, threat model).

A directory that holds journals, the lock, snapshots or reports must belong to the user the
collection runs as and must not be writable by group or other; every directory above it must
belong to root or to that user and must not be writable by group or other unless it has the
sticky bit (``/tmp``), where nobody else can rename or remove what is ours. That is the rule of
OpenSSH's StrictModes and of sudo's sudoers directory: anyone who can write one of those
directories can replace what the collection reads back or redirect what it writes.

Files the collection creates are opened with ``O_NOFOLLOW`` (a planted link fails the open) and
``O_EXCL`` where they are new; names that become paths cannot climb out of their directory."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import os
import re
import stat


class UnsafeDirectory(ValueError):
    """A directory the collection would write in or read back from is not private (a bad input:
    the callers' ValueError handling names the option)."""


def _who(uid):
    try:
        import pwd
        return '%s (uid %d)' % (pwd.getpwuid(uid).pw_name, uid)
    except (ImportError, KeyError):
        return 'uid %d' % uid


def directory_problem(path, option, euid=None):
    """None when ``path`` (an existing directory) is safe to write in for ``euid``, else why not,
    naming ``option``. The directory itself must not be a symbolic link."""
    euid = os.geteuid() if euid is None else euid
    try:
        st = os.lstat(path)
    except OSError as exc:
        return '%s: cannot read %s: %s' % (option, path, exc.strerror or exc)
    if stat.S_ISLNK(st.st_mode):
        return ('%s: %s is a symbolic link; give the directory itself (a link can be moved to a place '
                'the collection must not write in)' % (option, path))
    if not stat.S_ISDIR(st.st_mode):
        return '%s: %s is not a directory' % (option, path)
    if st.st_uid != euid:
        return ('%s: %s belongs to %s, not to %s that runs the collection; refused, since its owner can replace what '
                'the collection writes and reads back there (chown it, or choose a directory of your own)'
                % (option, path, _who(st.st_uid), _who(euid)))
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return ('%s: %s has mode %04o, writable by %s; refused, since others could replace what the collection '
                'writes and reads back there (chmod go-w %s)'
                % (option, path, stat.S_IMODE(st.st_mode),
                   'group and other' if st.st_mode & stat.S_IWGRP and st.st_mode & stat.S_IWOTH
                   else 'group' if st.st_mode & stat.S_IWGRP else 'other', path))
    return ancestors_problem(os.path.dirname(os.path.abspath(path)), option, path, euid)


def _renamable_by_others(st, euid):
    """('owner', uid) or ('mode', mode) when someone other than root and ``euid`` can rename entries
    of the directory ``st`` describes (its owner, or group/other write without the sticky bit); else None."""
    if st.st_uid not in (0, euid):
        return 'owner', st.st_uid
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
        return 'mode', stat.S_IMODE(st.st_mode)
    return None


def ancestors_problem(directory, option, path, euid):
    """Every directory from ``directory`` up to ``/`` must belong to root or ``euid`` and be
    writable by nobody else, unless sticky (then nobody else can rename what is ours)."""
    while True:
        try:
            st = os.stat(directory)
        except OSError as exc:
            return '%s: cannot read %s above %s: %s' % (option, directory, path, exc.strerror or exc)
        found = _renamable_by_others(st, euid)
        if found and found[0] == 'owner':
            return ('%s: %s, above %s, belongs to %s; refused, since its owner could move %s away and put another in '
                    'its place' % (option, directory, path, _who(found[1]), path))
        if found:
            return ('%s: %s, above %s, has mode %04o (writable by others, not sticky); refused, since others could '
                    'move %s away and put another in its place' % (option, directory, path, found[1], path))
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def check_existing(path, option, euid=None):
    """Raise UnsafeDirectory when ``path`` exists and is not safe (a missing one is created later)."""
    if os.path.lexists(path):
        problem = directory_problem(path, option, euid)
        if problem:
            raise UnsafeDirectory(problem)


def scratch_directory_problem(path, option, euid=None):
    """None when the collection may create a file in ``path`` that a program then opens by name
    (fio's scratch file), else why not: like a directory above a private one, ``path`` and every
    directory above it must belong to root or ``euid`` and be writable by nobody else unless
    sticky. Otherwise its owner or group could swap the file for a link while it is used."""
    euid = os.geteuid() if euid is None else euid
    try:
        found = _renamable_by_others(os.stat(path), euid)
    except OSError as exc:
        return '%s: cannot read %s: %s' % (option, path, exc.strerror or exc)
    if found and found[0] == 'owner':
        return ('%s: %s belongs to %s, who could replace the scratch file with a link while it is written; use a '
                'directory of root on that file system' % (option, path, _who(found[1])))
    if found:
        return ('%s: %s has mode %04o: others can write it and it is not sticky, so they could replace the scratch file '
                'with a link while it is written (chmod go-w, or a subdirectory of root)' % (option, path, found[1]))
    return ancestors_problem(os.path.dirname(os.path.abspath(path)), option, path, euid)


def private_directory(path, option, mode=0o700, euid=None):
    """Create ``path`` (``mode``, whatever the umask, with missing parents as 0755) when it is
    missing, then check it with directory_problem; raises UnsafeDirectory naming ``option``.
    An existing directory keeps its mode and owner when they are safe."""
    if not os.path.lexists(path):
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            os.makedirs(parent, 0o755)
        try:
            os.mkdir(path, mode)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
        else:
            os.chmod(path, mode)
    problem = directory_problem(path, option, euid)
    if problem:
        raise UnsafeDirectory(problem)
    return path


NOFOLLOW = getattr(os, 'O_NOFOLLOW', 0)
CLOEXEC = getattr(os, 'O_CLOEXEC', 0)


def open_nofollow(path, flags, mode=0o600):
    """os.open that never follows a link at ``path`` (ELOOP) and, for a file that already
    exists, refuses anything but a regular file of the running user."""
    fd = os.open(path, flags | NOFOLLOW | CLOEXEC, mode)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
        os.close(fd)
        raise OSError(errno.EPERM, '%s is not a regular file of uid %d' % (path, os.geteuid()))
    return fd


_SAFE_NAME = re.compile(r'[^A-Za-z0-9._@+=-]')


def path_safe_name(name):
    """A file name made from ``name`` (an inventory host name) that stays in its directory: no
    ``/``, no control characters, never ``.``/``..`` or hidden. Characters outside
    ``[A-Za-z0-9._@+=-]`` become ``%XX``, so two different names never give one file."""
    text = name if isinstance(name, str) else str(name)
    safe = _SAFE_NAME.sub(lambda match: ''.join('%%%02X' % byte for byte in match.group(0).encode('utf-8')), text)
    if not safe or safe.startswith('.'):
        # '' is '%' alone, which no escaped name gives ('\x00' is '%00')
        safe = '%2E' + safe[1:] if safe else '%'
    return safe
