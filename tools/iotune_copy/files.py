# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copying one non-directory entry, as cp does: an existing destination (a regular file, the file behind a
symbolic link, a device, a FIFO) written in place, its inode, owner, mode, ACL and hard links kept; a new one
written under a temporary name, synced and renamed, so that it never exists half-written."""

import errno
import os
import stat

from .endpoint import Endpoint
from .engine import copy_data
from .existing import COPY, SAME_FILE, identical, same_file_ok
from .errors import CopyError, describe, quote
from .system import ACL_ACCESS, ACL_DEFAULT, create_temp, fadvise_dontneed, fsync_directory, read_acls, set_acl


def preserve_owner(chown, name, st):
    """chown to the source's owner; True when done. Like cp, a refusal matters only for root."""
    try:
        chown(st.st_uid, st.st_gid)
        return True
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EINVAL) or os.geteuid() == 0:
            raise CopyError('failed to preserve ownership for %s: %s' % (quote(name), describe(exc)))
    try:
        chown(-1, st.st_gid)
    except OSError:
        pass
    return False


SPECIAL_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX


def preserved_mode(st, owner_kept, made_bits=0):
    """The mode -p gives: the source's; when its owner could not be given, without its set-user-ID, set-group-ID
    and sticky bits, but with those the kernel gave a new directory when it was made (made_bits), as cp -p (which
    then sets the permission bits only)."""
    mode = stat.S_IMODE(st.st_mode)
    if not owner_kept:
        mode = mode & ~SPECIAL_BITS | made_bits & SPECIAL_BITS
    return mode


def source_acls(target, name, st, options):
    """The POSIX ACLs of a source that -p copies ({attribute: value}, from system.read_acls): the access ACL, and a
    directory's default ACL; None without -p, or for a symbolic link (no ACL of its own)."""
    if not options.preserve or st is None or stat.S_ISLNK(st.st_mode):
        return None
    try:
        return read_acls(target, _acl_names(st))
    except OSError as exc:
        raise CopyError('preserving permissions for %s: %s' % (quote(name), describe(exc)))


def _acl_names(st):
    return (ACL_ACCESS, ACL_DEFAULT) if stat.S_ISDIR(st.st_mode) else (ACL_ACCESS,)


def preserve_attributes(target, name, st, acls, made_bits=0):
    """-p, as cp -p: the source's owner (where permitted), its mode and POSIX ACLs, its times, on target (an open
    descriptor, or a path not followed if a symbolic link); made_bits: the mode of a directory as it was made."""
    follow = {} if isinstance(target, int) else {'follow_symlinks': False}
    owner_kept = preserve_owner(lambda uid, gid: os.chown(target, uid, gid, **follow), name, st)
    if not stat.S_ISLNK(st.st_mode):
        _preserve_mode(target, name, st, preserved_mode(st, owner_kept, made_bits), acls or {})
    try:
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns), **follow)
    except OSError as exc:
        raise CopyError('preserving times for %s: %s' % (quote(name), describe(exc)))


def _preserve_mode(target, name, st, mode, acls):
    """The source's mode and ACLs. The order matters: an ACL the source does not have is removed first (that leaves
    the mode as it is), then the mode is set, then the source's ACL (which sets the mask, shown as the group bits
    of the mode): a mode set last would make the group bits of the source's mode the destination's mask."""
    try:
        for attribute in _acl_names(st):
            if attribute not in acls:
                set_acl(target, attribute, None)
        os.chmod(target, mode)
        for attribute in _acl_names(st):
            if attribute in acls:
                set_acl(target, attribute, acls[attribute])
    except OSError as exc:
        raise CopyError('preserving permissions for %s: %s' % (quote(name), describe(exc)))


def _open_source(src, options):
    """(Endpoint, stat, size) of a non-directory source; '-' is standard input, always read sequentially."""
    if src == '-':
        return Endpoint(0, '-', options, positional=False), None, None
    try:
        fd = os.open(src, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise CopyError('cannot open %s for reading: %s' % (quote(src), describe(exc)))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise CopyError('-r not specified; omitting directory %s' % quote(src))
        if stat.S_ISREG(st.st_mode) and st.st_size == 0:
            # /proc and similar files say 0 and have data: read them to the end like cp
            return Endpoint(fd, src, options, positional=False), st, None
        if stat.S_ISREG(st.st_mode):
            size = st.st_size
        elif stat.S_ISBLK(st.st_mode):
            size = os.lseek(fd, 0, os.SEEK_END)
        else:
            return Endpoint(fd, src, options, positional=False), st, None
    except BaseException:
        os.close(fd)
        raise
    return Endpoint(fd, src, options, path=src), st, size


def _same_device(st1, st2):
    """Two nodes of one block device (a refusal of the tool's own: cp compares only the nodes' inodes)."""
    return (st1 is not None and st2 is not None and stat.S_ISBLK(st1.st_mode) and stat.S_ISBLK(st2.st_mode)
            and st1.st_rdev == st2.st_rdev)


# _look_at_destination: a destination that is a loop of symbolic links, which -f removes (cp -f does)
LOOP = 'loop'


def _look_at_destination(src, src_st, dst, options):
    """The existing destination of a non-directory source, looked at as cp looks at it: its stat (through a
    symbolic link, which is written through, unless --remove-destination replaces the name), None when there is
    none, LOOP for a loop of links that -f removes; CopyError for what cp refuses: the source itself under another
    name, a directory, and a name cp cannot stat."""
    try:
        dst_st = os.lstat(dst) if options.remove_destination else os.stat(dst)
    except FileNotFoundError:
        if dst.endswith(os.sep):
            raise CopyError('cannot create regular file %s: %s' % (quote(dst), os.strerror(errno.ENOTDIR)))
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP and options.force:
            return LOOP
        raise CopyError('cannot stat %s: %s' % (quote(dst), describe(exc)))
    if src == '-':
        verdict = SAME_FILE if identical(os.fstat(0), dst_st) else COPY
    else:
        verdict = same_file_ok(src, src_st, dst, dst_st, options)
    if verdict == SAME_FILE or _same_device(src_st, dst_st):
        raise CopyError('%s and %s are the same file' % (quote(src), quote(dst)))
    if stat.S_ISDIR(dst_st.st_mode):
        raise CopyError('cannot overwrite directory %s with non-directory' % quote(dst))
    return dst_st


def copy_file(src, dst, options):
    """Copy one non-directory source (a path or '-') to exactly dst (a path or '-'); CopyError on failure.

    An existing destination is written in place, as cp writes it (_copy_in_place), unless --remove-destination
    removes it first; a new one is created whole or not at all (_copy_new). A dangling symbolic link is not
    written through, as cp refuses it ("not writing through dangling symlink").
    """
    source, src_st, size = _open_source(src, options)
    try:
        if options.direct:
            source.try_direct()
        if dst == '-':
            sink = Endpoint(1, '-', options, positional=False)
            copy_data(source, sink, size, options)
            return
        dst_st = _look_at_destination(src, src_st, dst, options)
        if dst_st is not None and options.remove_destination:
            _remove(dst)
            dst_st = None
        if dst_st is None and os.path.islink(dst):
            raise CopyError('not writing through dangling symlink %s' % quote(dst))
        acls = source_acls(source.fd, src, src_st, options)
        if dst_st is None or not _copy_in_place(source, (src_st, acls), size, dst, options):
            _copy_new(source, (src_st, acls), size, dst, options)
    finally:
        if source.fd != 0:
            os.close(source.fd)
    if options.verify:
        if src_st is None or not stat.S_ISREG(src_st.st_mode):
            raise CopyError('cannot verify %s: not a regular file' % quote(src))
        from .verify import verify_copy  # only --verify needs it (and hashlib)
        verify_copy(src, dst, options)


def _open_existing(dst, options):
    """A descriptor of the existing dst opened for writing, as named (the kernel following a link, also /proc's,
    such as /dev/stdout); None after removing dst where cp -f (--force) removes it: when it cannot be opened."""
    try:
        return os.open(dst, os.O_WRONLY | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        if not options.force:
            raise CopyError('cannot create regular file %s: %s' % (quote(dst), describe(exc)))  # cp's words
    _remove(dst)
    return None


def _remove(dst):
    try:
        os.unlink(dst)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise CopyError('cannot remove %s: %s' % (quote(dst), describe(exc)))


def _copy_in_place(source, attributes, size, dst, options):
    """Write into an existing file, as cp does: a regular file (also behind a symbolic link: the link stays a link)
    is truncated, then written; it keeps its inode, hard links, owner, mode and ACL (with -p the source's); a
    failure leaves it partly written, as cp's would. A device or FIFO is written, not truncated. False when
    dst was removed instead (_open_existing): the caller creates it anew.
    """
    fd = _open_existing(dst, options)
    if fd is None:
        return False
    src_st, acls = attributes
    try:
        try:
            dst_st = os.fstat(fd)
            regular = stat.S_ISREG(dst_st.st_mode)
            if regular:
                os.ftruncate(fd, 0)
        except OSError as exc:
            raise CopyError('cannot open %s for writing: %s' % (quote(dst), describe(exc)))
        sink = Endpoint(fd, dst, options, positional=regular or stat.S_ISBLK(dst_st.st_mode), sparse=regular, path=dst)
        if options.direct:
            sink.try_direct()
        final_size = copy_data(source, sink, size, options)
        if regular:
            _set_size(fd, final_size, dst)
            if options.preserve and src_st is not None:
                preserve_attributes(fd, dst, src_st, acls)
        if sink.positional:
            _sync(fd, dst, options)
    finally:
        os.close(fd)
    return True


def _sync(fd, name, options):
    try:
        os.fsync(fd)
    except OSError as exc:
        raise CopyError('error writing %s: %s' % (quote(name), describe(exc)))
    if options.nocache:
        fadvise_dontneed(fd, 0, 0)


def _set_size(fd, size, name):
    """Give the written file its size (a hole at the end of a sparse source is not written); no ftruncate
    when it has that size already: ext4 makes even a truncate to the same size a journalled truncate."""
    try:
        if os.fstat(fd).st_size != size:
            os.ftruncate(fd, size)
    except OSError as exc:
        raise CopyError('error writing %s: %s' % (quote(name), describe(exc)))


def _copy_new(source, attributes, size, dst, options):
    """Create dst: write a temporary file beside it, sync it and rename it to dst. Its mode is the source's less the
    umask (or the directory's default ACL), as cp creates a file; with -p the source's, set when written."""
    src_st, acls = attributes
    if src_st is None:
        mode = 0o666
    else:
        mode = 0o600 if options.preserve else stat.S_IMODE(src_st.st_mode) & 0o777
    try:
        fd, temp = create_temp(dst, mode)
    except OSError as exc:
        raise CopyError('cannot create regular file %s: %s' % (quote(dst), describe(exc)))
    done = False
    try:
        sink = Endpoint(fd, dst, options, sparse=True, path=temp)
        if options.direct:
            sink.try_direct()
        final_size = copy_data(source, sink, size, options)
        _set_size(fd, final_size, dst)
        if options.preserve and src_st is not None:
            preserve_attributes(fd, dst, src_st, acls)
        _sync(fd, dst, options)
        os.close(fd)
        fd = -1
        try:
            os.rename(temp, dst)
        except OSError as exc:
            raise CopyError('cannot create regular file %s: %s' % (quote(dst), describe(exc)))
        done = True
    finally:
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
        if not done:
            try:
                os.unlink(temp)
            except OSError:
                pass
    fsync_directory(os.path.dirname(dst))
