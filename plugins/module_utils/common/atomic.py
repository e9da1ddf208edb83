# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writing a file so that a crash leaves the old or the new content, never a mix: a temporary
file beside it, fsync, rename, fsync of the directory; extended attributes kept; the
temporary files a killed run left behind found again."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import errno
import os
import re
import signal
import stat
import tempfile


FAILPOINT_FILE = '/run/iotune/failpoint'
# The unit tests point the failpoint elsewhere, so that a test writing a file named fstab, or a
# journal's record 3, never fires (and eats) the failpoint an integration test beside it has set.
FAILPOINT_ENV = 'IOTUNE_FAILPOINT_FILE'


def fsync_dir(path):
    """fsync a directory, so that a rename or an unlink in it is durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_xattrs(path):
    """Extended attributes of ``path`` (POSIX ACLs are ``system.posix_acl_*``, SELinux labels
    ``security.selinux``) as {name: base64 value}; {} where the file system has none."""
    try:
        names = os.listxattr(path)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS):
            return {}
        raise
    found = {}
    for name in sorted(names):
        try:
            found[name] = base64.b64encode(os.getxattr(path, name)).decode('ascii')
        except OSError as exc:
            if exc.errno != errno.ENODATA:
                raise
    return found


def failpoint_file():
    """The failpoint file: FAILPOINT_FILE, or the one the environment names for the unit tests."""
    return os.environ.get(FAILPOINT_ENV) or FAILPOINT_FILE


def failpoint(name, arg, path=None):
    """Fault injection for tests: SIGKILL this process when ``path`` (default: failpoint_file())
    holds ``<name> <arg>`` (the file is removed first, so that it fires once)."""
    path = path or failpoint_file()
    try:
        with open(path) as handle:
            words = handle.read().split()
    except (IOError, OSError):
        return
    if words == [name, str(arg)]:
        os.unlink(path)
        os.kill(os.getpid(), signal.SIGKILL)


def as_bytes(data):
    return data.encode('utf-8', 'surrogateescape') if not isinstance(data, bytes) else data


TEMP_SUFFIX = '.iotune'


def _temp_name_re(path):
    # tempfile.mkstemp's names: prefix, 8 characters of [a-z0-9_], suffix
    return re.compile(r'^\.%s\.[a-z0-9_]{8}%s\Z' % (re.escape(os.path.basename(path)), re.escape(TEMP_SUFFIX)))


def stale_temps(path):
    """Temporary files that atomic_write left beside ``path`` when its process was killed
    (SIGKILL between the temporary file and the rename; issue 18, F4)."""
    directory = os.path.dirname(path)
    pattern = _temp_name_re(path)
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return sorted(os.path.join(directory, name) for name in names if pattern.match(name))


def _set_xattrs(fd, xattrs):
    for name, value in sorted(xattrs.items()):
        os.setxattr(fd, name, base64.b64decode(value))


def atomic_write(path, data, mode=None, uid=None, gid=None, keep_existing=True, xattrs=None, follow_links=True, durable=True):
    """Write ``data`` to ``path`` through a temporary file and a rename.

    With ``keep_existing`` an existing file keeps its mode, owner and extended
    attributes (POSIX ACLs, SELinux label); a new one (or any, without it) gets
    ``mode`` (default 0644), ``uid``/``gid`` (default the caller) and ``xattrs``
    ({name: base64 value}). A symlink at a managed file is followed: the file it points to is
    replaced and the link stays (issue 18, F5). A file the collection creates for itself
    (``follow_links=False``: snapshots, reports) replaces whatever is at ``path``, a planted
    link included, and never writes where a link points (issue 23, T3). ``durable`` fsyncs the file
    before the rename and the directory after it; without it (reports: output the next run writes
    again, where two fsyncs per file were most of an audit's disk time on a fleet) a crash may lose
    the new file's content, never half of it, and the reader refuses what is not a whole report."""
    data = as_bytes(data)
    if follow_links:
        path = os.path.realpath(path)
    try:
        st = os.stat(path) if follow_links else os.lstat(path)
        if keep_existing and stat.S_ISREG(st.st_mode):
            mode, uid, gid = stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid
            xattrs = read_xattrs(path)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise
    mode = 0o644 if mode is None else mode
    directory = os.path.dirname(path)
    fd, temp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), suffix=TEMP_SUFFIX, dir=directory)
    try:
        with os.fdopen(fd, 'wb') as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            if uid is not None or gid is not None:
                os.fchown(handle.fileno(), -1 if uid is None else uid, -1 if gid is None else gid)
            # after chmod and chown, which would change an ACL's mask or drop security.capability
            _set_xattrs(handle.fileno(), xattrs or {})
            if durable:
                os.fsync(handle.fileno())
        failpoint('kill-before-rename', os.path.basename(path))
        os.rename(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    if durable:
        fsync_dir(directory)
