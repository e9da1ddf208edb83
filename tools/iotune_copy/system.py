# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the tool asks of the kernel: data extents, direct I/O alignment (statx, sysfs), O_DIRECT on and
off, cache dropping, syncs, positional I/O and copy_file_range (separate functions so that tests can
make them fail), and temporary files."""

import errno
import fcntl
import mmap
import os
import stat
import struct

DEFAULT_ALIGNMENT = 4096
TEMP_MARK = '.iotune-copy-'
HUGE_PAGE = 2 << 20
# POSIX ACLs as the kernel keeps them: extended attributes (the access ACL of any inode, the default ACL of a directory)
ACL_ACCESS = 'system.posix_acl_access'
ACL_DEFAULT = 'system.posix_acl_default'
# no ACL, or no extended attributes on the file system
_NO_XATTR = (errno.ENODATA, errno.EOPNOTSUPP, errno.ENOTSUP)
# the most copy_file_range is asked for at once: what GNU cp asks (SSIZE_MAX rounded down to a GiB; the kernel
# copies at most about 2 GiB a call and returns how much)
KERNEL_COPY_MAX = (2 ** 63 - 1) >> 30 << 30


# statx(2): mask bit, flag and offsets in struct statx (include/uapi/linux/stat.h)
_STATX_DIOALIGN = 0x2000


_AT_EMPTY_PATH = 0x1000
_STATX_SIZE = 256
_STATX_MASK_OFFSET = 0
_STATX_DIOALIGN_OFFSET = 152


def io_buffer(length):
    """(mapping, view): a private anonymous mapping and a view of length bytes in it, page-aligned; from 2 MiB
    up aligned to 2 MiB and marked MADV_HUGEPAGE, so that where the kernel has transparent huge pages
    (enabled ``always`` or ``madvise``) the buffer is physically contiguous in 2 MiB pieces. A direct
    I/O request then needs a segment per 2 MiB instead of one per 4 KiB page, so a device that limits
    its segments per request (virtio-blk: seg_max) gets requests of max_sectors_kb instead of a few
    hundred KiB: about 6 times fewer requests on the test VM, each costing the same (docs/performance.md).
    Elsewhere the buffer is an ordinary one. The caller releases the view, then closes the mapping."""
    extra = HUGE_PAGE if length >= HUGE_PAGE else 0
    buf = mmap.mmap(-1, length + extra, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    start = -_address(buf) % HUGE_PAGE if extra else 0
    if extra and hasattr(mmap, 'MADV_HUGEPAGE'):
        try:
            buf.madvise(mmap.MADV_HUGEPAGE, start, length)
        except OSError:
            pass  # a kernel without transparent huge pages: an ordinary buffer
    return buf, memoryview(buf)[start:start + length]


def _address(buf):
    import ctypes  # only buffers of 2 MiB and more need it
    pointer = ctypes.c_char.from_buffer(buf)
    try:
        return ctypes.addressof(pointer)
    finally:
        del pointer


def temp_name(target, token):
    """Temporary name beside target: '.<name>.iotune-copy-<token>' (the name cut to fit NAME_MAX)."""
    directory, name = os.path.split(target)
    name = os.fsdecode(os.fsencode(name)[:200])
    return os.path.join(directory, '.%s%s%s' % (name, TEMP_MARK, token))


def data_extents(fd, size):
    """(start, end) data extents of an open file up to size, from SEEK_DATA/SEEK_HOLE.

    [(0, size)] where the file system does not support SEEK_DATA (or for any other lseek error).
    """
    if size <= 0:
        return []
    seek_data, seek_hole = getattr(os, 'SEEK_DATA', None), getattr(os, 'SEEK_HOLE', None)
    if seek_data is None or seek_hole is None:
        return [(0, size)]
    extents = []
    offset = 0
    try:
        while offset < size:
            try:
                start = os.lseek(fd, offset, seek_data)
            except OSError as exc:
                if exc.errno == errno.ENXIO:
                    break
                raise
            if start >= size:
                break
            end = min(os.lseek(fd, start, seek_hole), size)
            if end <= start:
                return [(0, size)]
            extents.append((start, end))
            offset = end
    except OSError:
        return [(0, size)]
    finally:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
        except OSError:
            pass
    return extents


_LIBC = []


def _statx_function():
    if not _LIBC:
        import ctypes   # here, not at the top: only --direct needs it, and it costs every start a few ms
        try:
            func = ctypes.CDLL(None, use_errno=True).statx
            func.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p)
            func.restype = ctypes.c_int
        except (OSError, AttributeError):
            func = None
        _LIBC.append(func)
    return _LIBC[0]


def statx_dio_alignment(fd):
    """(memory, offset) alignment of direct I/O on the open file from statx(STATX_DIOALIGN); None if not reported.

    An offset alignment of 0 means the file does not support direct I/O.
    """
    func = _statx_function()
    if func is None:
        return None
    import ctypes
    buf = ctypes.create_string_buffer(_STATX_SIZE)
    if func(fd, b'', _AT_EMPTY_PATH, _STATX_DIOALIGN, buf) != 0:
        return None
    mask = struct.unpack_from('=I', buf.raw, _STATX_MASK_OFFSET)[0]
    if not mask & _STATX_DIOALIGN:
        return None
    return struct.unpack_from('=II', buf.raw, _STATX_DIOALIGN_OFFSET)


_FALLOCATE = []


def preallocate(fd, offset, length):
    """Allocate the blocks of offset..offset+length of a new file with fallocate(2) (mode 0: the size grows
    to cover them); whether it did. Not posix_fallocate, which writes zeros where the file system has no
    fallocate. Errors (no fallocate, no space) leave it to the writes, which report them."""
    if not _FALLOCATE:
        import ctypes   # loaded already for statx where --direct runs
        try:
            func = ctypes.CDLL(None, use_errno=True).fallocate
            func.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long)
            func.restype = ctypes.c_int
        except (OSError, AttributeError):
            func = None
        _FALLOCATE.append(func)
    return _FALLOCATE[0] is not None and length > 0 and _FALLOCATE[0](fd, 0, offset, length) == 0


# <linux/fs.h>: start the writeback of the range's dirty pages, without waiting for it
SYNC_FILE_RANGE_WRITE = 2
_SYNC_FILE_RANGE = []


def start_writeback(fd, offset, length):
    """Start writing offset..offset+length of fd back to its device (sync_file_range(2) with
    SYNC_FILE_RANGE_WRITE: it queues the writes and returns); whether it did. No such call (not Linux,
    no ctypes) or an error: False, and the final fsync writes everything, as before."""
    if not _SYNC_FILE_RANGE:
        try:
            import ctypes   # here: only a copy larger than one writeback step needs it
            func = ctypes.CDLL(None, use_errno=True).sync_file_range
            func.argtypes = (ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_uint)
            func.restype = ctypes.c_int
        except (ImportError, OSError, AttributeError):
            func = None
        _SYNC_FILE_RANGE.append(func)
    return _SYNC_FILE_RANGE[0] is not None and _SYNC_FILE_RANGE[0](fd, offset, length, SYNC_FILE_RANGE_WRITE) == 0


def sysfs_logical_block_size(dev, sysfs='/sys'):
    """Logical block size of block device dev (a st_dev/st_rdev number) from sysfs; None if not found.

    /sys/dev/block/MAJ:MIN of a partition has no queue/: its parent disk's is used. A dm or md
    device has its own queue/.
    """
    node = os.path.join(sysfs, 'dev', 'block', '%d:%d' % (os.major(dev), os.minor(dev)))
    if not os.path.exists(node):
        return None
    real = os.path.realpath(node)
    for base in (real, os.path.dirname(real)):
        try:
            with open(os.path.join(base, 'queue', 'logical_block_size'), 'r', encoding='ascii') as handle:
                value = int(handle.read().strip())
        except (OSError, ValueError):
            continue
        if value > 0:
            return value
    return None


def dio_alignment(fd, sysfs='/sys'):
    """Offset and length alignment O_DIRECT needs on the open file; 0 when the file system has no direct I/O for it."""
    found = statx_dio_alignment(fd)
    if found is not None:
        return found[1]
    st = os.fstat(fd)
    dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
    return sysfs_logical_block_size(dev, sysfs) or DEFAULT_ALIGNMENT


def enable_direct(fd):
    """Set O_DIRECT on an open descriptor; OSError (EINVAL) where the file system refuses it."""
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_DIRECT)


def disable_direct(fd):
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_DIRECT)


def mount_point(path):
    """Mount point of the file system holding path (the top directory with the same st_dev)."""
    path = os.path.realpath(path)
    try:
        dev = os.stat(path).st_dev
    except OSError:
        return path
    while path != os.sep:
        parent = os.path.dirname(path)
        try:
            if os.stat(parent).st_dev != dev:
                break
        except OSError:
            break
        path = parent
    return path


def fadvise_dontneed(fd, offset, length):
    try:
        os.posix_fadvise(fd, offset, length, os.POSIX_FADV_DONTNEED)
    except OSError:
        pass


def fsync_directory(path):
    try:
        fd = os.open(path or '.', os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# Positional I/O, separate functions so that tests can make them fail.
def read_at(fd, view, offset):
    return os.preadv(fd, [view], offset)


def write_at(fd, view, offset):
    return os.pwrite(fd, view, offset)


def copy_range(src_fd, dst_fd, count, offset):
    """copy_file_range(2): count bytes at offset in src to the same offset in dst, in the kernel."""
    return os.copy_file_range(src_fd, dst_fd, count, offset, offset)


def read_acls(target, names):
    """{name: value} of the ACL attributes in names that target (an open descriptor, or a path not followed
    if a symbolic link) has; OSError for errors other than "none" and "not supported"."""
    found = {}
    for name in names:
        try:
            found[name] = os.getxattr(target, name, follow_symlinks=False) if isinstance(target, str) \
                else os.getxattr(target, name)
        except OSError as exc:
            if exc.errno not in _NO_XATTR:
                raise
    return found


def set_acl(target, name, value):
    """Give target (a descriptor or a path) the ACL attribute name (value), or remove it (value None; having none is fine)."""
    if value is not None:
        os.setxattr(target, name, value)
        return
    try:
        os.removexattr(target, name)
    except OSError as exc:
        if exc.errno not in _NO_XATTR:
            raise


def create_temp(target, mode):
    """Create and open (write-only) a new temporary file beside target; (fd, path)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for dummy in range(100):
        path = temp_name(target, os.urandom(4).hex())
        try:
            return os.open(path, flags, mode), path
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, os.strerror(errno.EEXIST), target)
