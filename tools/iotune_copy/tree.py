# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copying whatever a source is: directories recursively (-r), symbolic links as links, special files
recreated, files through files.copy_file."""

import errno
import os
import stat

from .errors import CopyError, describe, quote
from .files import copy_file, preserve_owner, preserved_mode, same_file
from .system import temp_name


def _replace_with(make, src, dst, st, options, kind):
    """Create a symlink or special file under a temporary name with make(temp), then rename it over dst."""
    try:
        dst_st = os.lstat(dst)
    except FileNotFoundError:
        dst_st = None
    except OSError as exc:
        raise CopyError('cannot stat %s: %s' % (quote(dst), describe(exc)))
    if same_file(st, dst_st):
        raise CopyError('%s and %s are the same file' % (quote(src), quote(dst)))
    if dst_st is not None and stat.S_ISDIR(dst_st.st_mode):
        raise CopyError('cannot overwrite directory %s with non-directory' % quote(dst))
    temp = None
    for dummy in range(100):
        temp = temp_name(dst, os.urandom(4).hex())
        try:
            make(temp)
            break
        except FileExistsError:
            temp = None
        except OSError as exc:
            raise CopyError('cannot create %s %s: %s' % (kind, quote(dst), describe(exc)))
    if temp is None:
        raise CopyError('cannot create %s %s: %s' % (kind, quote(dst), os.strerror(errno.EEXIST)))
    done = False
    try:
        if options.preserve:
            owner_kept = preserve_owner(lambda uid, gid: os.chown(temp, uid, gid, follow_symlinks=False), dst, st)
            if not stat.S_ISLNK(st.st_mode):
                try:
                    os.chmod(temp, preserved_mode(st, owner_kept))
                except OSError as exc:
                    raise CopyError('preserving permissions for %s: %s' % (quote(dst), describe(exc)))
            try:
                os.utime(temp, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
            except OSError as exc:
                raise CopyError('preserving times for %s: %s' % (quote(dst), describe(exc)))
        try:
            os.rename(temp, dst)
        except OSError as exc:
            raise CopyError('cannot create %s %s: %s' % (kind, quote(dst), describe(exc)))
        done = True
    finally:
        if not done:
            try:
                os.unlink(temp)
            except OSError:
                pass


def copy_symlink(src, dst, st, options):
    """Copy a symbolic link as a link (what cp -r does)."""
    try:
        target = os.readlink(src)
    except OSError as exc:
        raise CopyError('cannot read symbolic link %s: %s' % (quote(src), describe(exc)))
    _replace_with(lambda temp: os.symlink(target, temp), src, dst, st, options, 'symbolic link')


def copy_special(src, dst, st, options):
    """Recreate a FIFO, socket or device node (what cp -r does)."""
    if stat.S_ISFIFO(st.st_mode):
        def make(temp):
            os.mkfifo(temp, stat.S_IMODE(st.st_mode) & 0o777)
    else:
        def make(temp):
            os.mknod(temp, stat.S_IFMT(st.st_mode) | (stat.S_IMODE(st.st_mode) & 0o777), st.st_rdev)
    _replace_with(make, src, dst, st, options, 'special file')


def copy_tree(src, dst, st, options):
    """Copy a directory recursively; errors inside are reported and the rest is still copied.

    A destination that is a symbolic link is never written through, whatever it points to (as cp -r
    refuses it): nothing is written outside the destination tree. A directory given as the
    destination operand may be a link: _targets has resolved it.
    """
    try:
        dst_st = os.lstat(dst)
    except FileNotFoundError:
        dst_st = None
    except OSError as exc:
        raise CopyError('cannot stat %s: %s' % (quote(dst), describe(exc)))
    if dst_st is not None and stat.S_ISLNK(dst_st.st_mode):
        try:
            same = same_file(st, os.stat(dst))
        except OSError:
            same = False
        if same:
            raise CopyError('%s and %s are the same file' % (quote(src), quote(dst)))
        raise CopyError('cannot overwrite non-directory %s with directory %s' % (quote(dst), quote(src)))
    real_src = os.path.realpath(src)
    real_dst = os.path.realpath(dst)
    if real_dst == real_src or real_dst.startswith(real_src.rstrip(os.sep) + os.sep):
        raise CopyError('cannot copy a directory, %s, into itself, %s' % (quote(src), quote(dst)))
    created = dst_st is None
    if created:
        try:
            os.mkdir(dst, 0o700)
        except OSError as exc:
            raise CopyError('cannot create directory %s: %s' % (quote(dst), describe(exc)))
    elif not stat.S_ISDIR(dst_st.st_mode):
        raise CopyError('cannot overwrite non-directory %s with directory %s' % (quote(dst), quote(src)))
    try:
        names = sorted(os.listdir(src))
    except OSError as exc:
        options.report('cannot access %s: %s' % (quote(src), describe(exc)))
        names = []
    for name in names:
        try:
            copy_entry(os.path.join(src, name), os.path.join(dst, name), options)
        except CopyError as exc:
            options.report(str(exc))
    try:
        if options.preserve:
            owner_kept = preserve_owner(lambda uid, gid: os.chown(dst, uid, gid), dst, st)
            os.chmod(dst, preserved_mode(st, owner_kept))
            os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
        elif created:
            os.chmod(dst, stat.S_IMODE(st.st_mode) & 0o777 & ~options.umask)
    except OSError as exc:
        raise CopyError('preserving permissions for %s: %s' % (quote(dst), describe(exc)))


def copy_entry(src, dst, options):
    """Copy src to exactly dst, whatever src is; CopyError on failure."""
    if src == '-':
        copy_file(src, dst, options)
        return
    try:
        st = os.lstat(src) if options.recursive else os.stat(src)
    except OSError as exc:
        raise CopyError('cannot stat %s: %s' % (quote(src), describe(exc)))
    if stat.S_ISDIR(st.st_mode):
        if not options.recursive:
            raise CopyError('-r not specified; omitting directory %s' % quote(src))
        if dst == '-':
            raise CopyError('cannot copy directory %s to standard output' % quote(src))
        copy_tree(src, dst, st, options)
    elif options.recursive and stat.S_ISLNK(st.st_mode) and dst != '-':
        copy_symlink(src, dst, st, options)
    elif options.recursive and not stat.S_ISREG(st.st_mode) and dst != '-':
        copy_special(src, dst, st, options)
    else:
        copy_file(src, dst, options)
