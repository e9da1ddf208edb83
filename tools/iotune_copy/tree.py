# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copying whatever a source is: directories recursively (-r, walked with a stack, not by recursion: any
depth), symbolic links as links, special files recreated, files through files.copy_file."""

import collections
import errno
import os
import stat

from .errors import CopyError, describe, quote
from .existing import NOTHING_TO_DO, SAME_FILE, identical, same_file_ok
from .files import copy_file, preserve_attributes, source_acls
from .system import temp_name


def _replace_with(make, src, dst, st, options, kind):
    """Create a symlink or special file under a temporary name with make(temp), then rename it over dst (which is
    not written through: a link is replaced, as cp -r replaces it)."""
    try:
        dst_st = os.lstat(dst)
    except FileNotFoundError:
        dst_st = None
    except OSError as exc:
        raise CopyError('cannot stat %s: %s' % (quote(dst), describe(exc)))
    verdict = None if dst_st is None else same_file_ok(src, st, dst, dst_st, options)
    if verdict == SAME_FILE:
        raise CopyError('%s and %s are the same file' % (quote(src), quote(dst)))
    if verdict == NOTHING_TO_DO:
        return
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
            preserve_attributes(temp, dst, st, source_acls(src, src, st, options))
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
    """Recreate a FIFO, socket or device node (what cp -r does), with the source's mode, its set-user-ID,
    set-group-ID and sticky bits too, less the umask, as cp's mknod gives it; with -p first without the group's
    and others' permissions (preserve_attributes gives the source's mode when the owner is set)."""
    mode = stat.S_IMODE(st.st_mode) & ~(0o077 if options.preserve else 0)
    if stat.S_ISFIFO(st.st_mode):
        def make(temp):
            os.mkfifo(temp, mode)
    else:
        def make(temp):
            os.mknod(temp, stat.S_IFMT(st.st_mode) | mode, st.st_rdev)
    _replace_with(make, src, dst, st, options, 'special file')


class _Walk:
    """One -r copy of a directory: its top names (cp's "into itself" message names them), the directories being
    copied (a stack, innermost last) and the (device, inode) of every directory it created, which it must never
    copy: meeting one means that the destination is inside the source (a bind mount makes that possible where
    no name shows it), and the copy would go on forever."""

    def __init__(self, src, dst):
        self.src, self.dst = src, dst
        self.stack, self.created = [], set()

    def check(self, src, st):
        """CopyError when the source directory src must not be copied: one this copy created, or a directory
        of the walk's own path (a loop of bind mounts)."""
        identity = (st.st_dev, st.st_ino)
        if identity in self.created:
            raise CopyError('cannot copy a directory, %s, into itself, %s' % (quote(self.src), quote(self.dst)))
        for directory in self.stack:
            if (directory.st.st_dev, directory.st.st_ino) == identity:
                raise CopyError('cannot copy %s: it is %s, a directory that contains it' % (quote(src), quote(directory.src)))


class _Directory:
    """A directory being copied: source, destination, the source's stat, how a new destination was made
    (_make_directory; None for one that existed), and the names still to copy."""

    def __init__(self, src, dst, st, made_with, names):
        self.src, self.dst, self.st, self.made_with, self.names = src, dst, st, made_with, iter(names)


def copy_tree(src, dst, st, options):
    """Copy a directory recursively; errors inside are reported and the rest is still copied.

    A destination that is a symbolic link is never written through, whatever it points to (as cp -r
    refuses it): nothing is written outside the destination tree. A directory given as the
    destination operand may be a link: _targets has resolved it. A destination inside the source is
    refused before anything is written, compared by device and inode (also through a bind mount); a
    destination that is the source itself under another name ('dir/sub' into 'dir', 'dir' into '.') is
    "the same file", as cp says.
    """
    try:
        dst_st = os.lstat(dst)
    except OSError:
        dst_st = None  # _enter says why, if it matters
    if identical(st, dst_st):
        raise CopyError('%s and %s are the same file' % (quote(src), quote(dst)))
    if not os.path.islink(dst):  # a link is refused as a destination (_enter)
        _refuse_into_itself(src, dst, st)
    walk = _Walk(src, dst)
    walk.stack.append(_enter(src, dst, st, options, walk))
    while walk.stack:
        directory = walk.stack[-1]
        name = next(directory.names, None)
        if name is None:
            walk.stack.pop()
            _finish(directory, options)
            continue
        child = _copy_child(os.path.join(directory.src, name), os.path.join(directory.dst, name), options, walk)
        if child is not None:
            walk.stack.append(child)


def _refuse_into_itself(src, dst, st):
    """CopyError when dst is src or inside it: dst or one of the directories above it has src's device and inode."""
    path = os.path.realpath(dst)
    while True:
        try:
            found = os.stat(path)
        except OSError:
            found = None
        if found is not None and (found.st_dev, found.st_ino) == (st.st_dev, st.st_ino):
            raise CopyError('cannot copy a directory, %s, into itself, %s' % (quote(src), quote(dst)))
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def _copy_child(src, dst, options, walk):
    """Copy one entry of a directory being copied; the _Directory to walk next when it is a directory. Errors are
    reported, except one that stops the whole walk (_Walk.check)."""
    try:
        st = os.lstat(src)
    except OSError as exc:
        options.report('cannot stat %s: %s' % (quote(src), describe(exc)))
        return None
    if stat.S_ISDIR(st.st_mode):
        walk.check(src, st)
    try:
        if stat.S_ISDIR(st.st_mode):
            return _enter(src, dst, st, options, walk)
        copy_non_directory(src, dst, st, options)
    except CopyError as exc:
        options.report(str(exc))
    return None


def _enter(src, dst, st, options, walk):
    """Make or check the destination directory dst of source directory src; the _Directory of its copy."""
    try:
        dst_st = os.lstat(dst)
    except FileNotFoundError:
        dst_st = None
    except OSError as exc:
        raise CopyError('cannot stat %s: %s' % (quote(dst), describe(exc)))
    if dst_st is not None and stat.S_ISLNK(dst_st.st_mode):
        try:
            same = identical(st, os.stat(dst))
        except OSError:
            same = False
        if same:
            raise CopyError('%s and %s are the same file' % (quote(src), quote(dst)))
        raise CopyError('cannot overwrite non-directory %s with directory %s' % (quote(dst), quote(src)))
    made_with = None
    if dst_st is None:
        try:
            made, made_with = _make_directory(dst, st, options)
        except OSError as exc:
            raise CopyError('cannot create directory %s: %s' % (quote(dst), describe(exc)))
        walk.created.add((made.st_dev, made.st_ino))
    elif not stat.S_ISDIR(dst_st.st_mode):
        raise CopyError('cannot overwrite non-directory %s with directory %s' % (quote(dst), quote(src)))
    try:
        names = sorted(os.listdir(src))
    except OSError as exc:
        options.report('cannot access %s: %s' % (quote(src), describe(exc)))
        names = []
    return _Directory(src, dst, st, made_with, names)


# How _make_directory made a directory: the mode the kernel gave it, whether the owner's rwx had to be added
# for the copy to fill it, and the permissions left out until it is filled.
_Made = collections.namedtuple('_Made', 'mode widened left_out')


def _make_directory(dst, st, options):
    """mkdir dst as cp does: with the source's mode and its special bits (the sticky bit of a shared directory),
    less the group's and others' write permission until it is filled (with -p less all of theirs: _finish gives
    it the source's mode and owner); the kernel masks it with the umask or the parent's default ACL. The owner is
    given rwx while the copy fills it. (stat of the new directory, _Made)."""
    bits = stat.S_IMODE(st.st_mode)
    left_out = bits & (0o077 if options.preserve else stat.S_IWGRP | stat.S_IWOTH)
    os.mkdir(dst, bits & ~left_out)
    made = os.lstat(dst)
    mode = stat.S_IMODE(made.st_mode)
    widened = mode & stat.S_IRWXU != stat.S_IRWXU
    if widened:
        os.chmod(dst, mode | stat.S_IRWXU)
    return made, _Made(mode, widened, left_out)


def _filled_directory_mode(dst, made_with, options):
    """The mode cp gives a new directory once it is filled (without -p): the mode it was made with, plus the
    permissions left out that the umask allows; None when it has it already."""
    mode = made_with.mode if made_with.widened else None
    left_out = made_with.left_out & ~options.umask
    if left_out and mode is None:
        current = stat.S_IMODE(os.lstat(dst).st_mode)
        if left_out & ~current:
            mode = current
    return None if mode is None else mode | left_out


def _finish(directory, options):
    """Once its entries are copied: with -p a directory's mode, ACLs, owner and times; else the mode of a new one
    (_make_directory, _filled_directory_mode). Errors are reported."""
    try:
        if options.preserve:
            made_bits = 0 if directory.made_with is None else directory.made_with.mode
            preserve_attributes(directory.dst, directory.dst, directory.st,
                                source_acls(directory.src, directory.src, directory.st, options), made_bits)
        elif directory.made_with is not None:
            mode = _filled_directory_mode(directory.dst, directory.made_with, options)
            if mode is not None:
                os.chmod(directory.dst, mode)
    except CopyError as exc:
        options.report(str(exc))
    except OSError as exc:
        options.report('preserving permissions for %s: %s' % (quote(directory.dst), describe(exc)))


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
    else:
        copy_non_directory(src, dst, st, options)


def copy_non_directory(src, dst, st, options):
    """Copy a source that is not a directory: with -r a symbolic link as a link and a special file recreated."""
    if options.recursive and stat.S_ISLNK(st.st_mode) and dst != '-':
        copy_symlink(src, dst, st, options)
    elif options.recursive and not stat.S_ISREG(st.st_mode) and dst != '-':
        copy_special(src, dst, st, options)
    else:
        copy_file(src, dst, options)
