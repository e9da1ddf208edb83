# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Installed as /usr/local/bin/iotune-copy by the copy_tools role, which adds the #!/usr/bin/python3 -IS line
# (isolated mode, no site: the standard library only, whatever PYTHON* variables or site-packages the host has).
"""iotune-copy: copy files with large I/Os, optionally with direct I/O or without filling the page cache.

Usage like cp::

    iotune-copy [options] SOURCE DEST
    iotune-copy [options] SOURCE... DIRECTORY
    iotune-copy db.dbf - | gzip | iotune-copy - db.gz

Every read and write is one buffer (``--buffer-size``, default ``buffer_size=`` in
/etc/iotune/copy.conf, else 8M). A plain copy (no ``--direct``, no ``--nocache``) between two
regular files hands each buffer-sized chunk to the kernel with copy_file_range(2), as GNU cp
does: no copy through user space, and a reflink or a server-side copy where the file system
offers one; where the kernel declines (another file system type, a device, a pipe), the tool
reads and writes. From a file or a block device, a second thread reads the next buffer while
the last one is written (two buffers; with direct I/O at both ends, ``--streams`` below), so the
source and the destination are busy at once.
Only the data extents of sparse files are copied
(SEEK_DATA/SEEK_HOLE); holes stay holes. A regular destination is written under a
temporary name in its directory (``.<name>.iotune-copy-<random>``), synced and renamed
over the destination, so an interrupted or failed copy never leaves a partial file
under the destination name. As with cp, a destination that is a symbolic link is written
through, in place: the file it points to is truncated and written (its inode, owner and mode
kept; not atomic), the link stays a link, and a dangling link is refused. With ``-r``, a
destination directory inside the tree that is a symbolic link is refused ("cannot overwrite
non-directory"), as by cp -r: nothing is written outside the destination tree through it.

``--direct`` opens both files with O_DIRECT. The alignment is the file's direct I/O
offset alignment from statx(STATX_DIOALIGN), else the logical block size of the device
in sysfs, else 4096. Buffers are page-aligned mmap areas, their size a multiple of the
alignment of both files. The unaligned tail of a file (size not a multiple of the
alignment) is written with O_DIRECT cleared on the same descriptor (fcntl F_SETFL), then
the file is synced; no padding, so it is right for block-device destinations too. A file
system that refuses O_DIRECT is copied buffered, with one message per file system. When both
ends are direct, ``--streams`` threads (default ``streams=`` in the config file, else 8) each
read a buffer and write it, chunks taken in file order, so that several I/Os are in flight at
once: with direct I/O nothing else (no read-ahead, no write-back) keeps the device busy between
one I/O and the next.

``--nocache`` drops the pages it read from the page cache after each read, and the pages
it wrote after each 64 MiB (fdatasync, then POSIX_FADV_DONTNEED) and at the end.

Exit status: 0 success, 1 an error (the other sources are still copied), 2 usage,
128+N when stopped by signal N (SIGINT, SIGTERM, SIGHUP; the temporary file is removed).

Python 3.9+ standard library only, Linux.
"""

import errno
import fcntl
import math
import mmap
import os
import queue
import re
import signal
import stat
import struct
import sys
import threading
import time

PROG = 'iotune-copy'
DEFAULT_CONFIG = '/etc/iotune/copy.conf'
DEFAULT_BUFFER_SIZE = '8M'
MAX_BUFFER_SIZE = 1024 ** 3
DEFAULT_ALIGNMENT = 4096
NOCACHE_FLUSH_BYTES = 64 * 1024 * 1024
READ_AHEAD_BUFFERS = 2
DEFAULT_STREAMS = 8
MAX_STREAMS = 64
MAX_STREAM_MEMORY = 1024 ** 3
PROGRESS_INTERVAL = 0.5
TEMP_MARK = '.iotune-copy-'
SIZE_FORMS = 'a number of bytes (e.g. 1048576) or a number followed by k, M or G (binary multiples, any case: 256k, 8M, 1g)'

_MULTIPLIERS = {'': 1, 'k': 1024, 'm': 1024 ** 2, 'g': 1024 ** 3}
_COMMENT = re.compile(r'(^|\s)#.*$')

# statx(2): mask bit, flag and offsets in struct statx (include/uapi/linux/stat.h)
_STATX_DIOALIGN = 0x2000
_AT_EMPTY_PATH = 0x1000
_STATX_SIZE = 256
_STATX_MASK_OFFSET = 0
_STATX_DIOALIGN_OFFSET = 152

_SIGNALS = ('SIGINT', 'SIGTERM', 'SIGHUP')


class CopyError(Exception):
    """One source could not be copied; the message is printed after 'iotune-copy: '."""


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP; a BaseException so that no error handler swallows it."""

    def __init__(self, signum):
        super(Interrupted, self).__init__(signum)
        self.signum = signum


class StdoutClosed(Exception):
    """The reader of standard output went away (EPIPE): stop quietly, like cat."""


# ---------------------------------------------------------------------------
# Pure helpers


def parse_size(text):
    """Bytes of a size such as '8M', '256k', '1g' or '1048576' (binary multiples); ValueError otherwise."""
    digits = str(text).strip()
    suffix = digits[-1:].lower() if digits[-1:].lower() in _MULTIPLIERS else ''
    digits = digits[:len(digits) - len(suffix)].rstrip()
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError('invalid size %s: expected %s' % (quote(str(text)), SIZE_FORMS))
    value = int(digits) * _MULTIPLIERS[suffix]
    if value <= 0:
        raise ValueError('invalid size %s: must be greater than 0' % quote(str(text)))
    return value


def parse_config(text, name='config'):
    """key=value pairs of a config file's text; ValueError on a line that is not one.

    The one reader of copy.conf: iotune-bulk loads it from this file. '#' starts a comment,
    at the start of a line or after a blank; a value may be quoted.
    """
    values = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = _COMMENT.sub('', line).strip()
        if not line:
            continue
        key, sep, value = line.partition('=')
        if not sep or not key.strip():
            raise ValueError('%s:%d: expected key=value, found %s' % (name, number, quote(line)))
        values[key.strip()] = value.strip().strip('"\'')
    return values


def read_config(path):
    """key=value pairs of the config file; {} when it does not exist."""
    try:
        with open(path, 'r', encoding='utf-8') as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}
    return parse_config(text, path)


def quote(name):
    """Quote a file name the way cp does in its messages."""
    if "'" not in name:
        return "'%s'" % name
    return "'%s'" % name.replace("'", "'\\''")


def describe(exc):
    """The strerror text of an OSError (cp prints that after the file name)."""
    return exc.strerror or str(exc)


def align_down(value, alignment):
    """Largest multiple of alignment <= value."""
    return value - value % alignment


def align_up(value, alignment):
    """Smallest multiple of alignment >= value."""
    return -(-value // alignment) * alignment


def is_aligned(value, alignment):
    return value % alignment == 0


def common_alignment(*alignments):
    """Alignment satisfying all the given ones (their least common multiple)."""
    result = 1
    for alignment in alignments:
        result = result * alignment // math.gcd(result, alignment)
    return result


def buffer_length(buffer_size, alignment, size=None):
    """Length of the I/O buffer: buffer_size rounded up to the alignment, no larger than the file needs."""
    length = align_up(buffer_size, alignment)
    if size is not None:
        length = min(length, align_up(max(size, 1), alignment))
    return length


def plan_extents(extents, size, alignment=1):
    """(start, end) ranges to copy: the data extents clipped to size, widened to the alignment, merged.

    The ranges are sorted and disjoint; the last one may end past size (up to the alignment).
    """
    plan = []
    for start, end in sorted(extents):
        start, end = max(0, start), min(end, size)
        if start >= end:
            continue
        start, end = align_down(start, alignment), align_up(end, alignment)
        if plan and start <= plan[-1][1]:
            plan[-1] = (plan[-1][0], max(plan[-1][1], end))
        else:
            plan.append((start, end))
    return plan


def format_bytes(count):
    """'1.5 MiB' style size."""
    value = float(count)
    for unit in ('B', 'KiB', 'MiB', 'GiB', 'TiB'):
        if value < 1024 or unit == 'TiB':
            return ('%d %s' % (value, unit)) if unit == 'B' else ('%.1f %s' % (value, unit))
        value /= 1024
    return '%d B' % count


def format_duration(seconds):
    seconds = int(round(seconds))
    return '%d:%02d:%02d' % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def progress_line(done, total, elapsed, final=False):
    """Text of one progress line (without the program name)."""
    rate = done / elapsed / 1048576.0 if elapsed > 0 else 0.0
    if final:
        return '%d bytes (%s) copied in %.2f s, %.1f MiB/s' % (done, format_bytes(done), elapsed, rate)
    if total:
        eta = ''
        if rate > 0:
            eta = ', ETA %s' % format_duration((total - done) / (rate * 1048576.0))
        return '%d of %d bytes (%d%%) copied, %.1f MiB/s%s' % (done, total, done * 100 // total, rate, eta)
    return '%d bytes (%s) copied, %.1f MiB/s' % (done, format_bytes(done), rate)


def temp_name(target, token):
    """Temporary name beside target: '.<name>.iotune-copy-<token>' (the name cut to fit NAME_MAX)."""
    directory, name = os.path.split(target)
    name = os.fsdecode(os.fsencode(name)[:200])
    return os.path.join(directory, '.%s%s%s' % (name, TEMP_MARK, token))


# ---------------------------------------------------------------------------
# System probes


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


def current_umask():
    try:
        with open('/proc/self/status', 'r', encoding='ascii', errors='replace') as handle:
            for line in handle:
                if line.startswith('Umask:'):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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


# ---------------------------------------------------------------------------
# Options, progress


class Progress:
    """Bytes copied over the whole run on stderr, at most every interval seconds, and a final line."""

    def __init__(self, stream, total=None, interval=PROGRESS_INTERVAL, clock=time.monotonic):
        self.stream = stream
        self.total = total
        self.interval = interval
        self.clock = clock
        self.done = 0
        self.start = self.last = clock()
        try:
            self.tty = stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False
        self.pending_newline = False

    def add(self, count):
        self.done += count
        now = self.clock()
        if now - self.last >= self.interval:
            self.last = now
            self._emit(progress_line(self.done, self.total, now - self.start))

    def _emit(self, text):
        if self.tty:
            self.stream.write('\r%s: %s\x1b[K' % (PROG, text))
            self.pending_newline = True
        else:
            self.stream.write('%s: %s\n' % (PROG, text))
        self.stream.flush()

    def break_line(self):
        """End a pending tty progress line before another message."""
        if self.pending_newline:
            self.stream.write('\n')
            self.pending_newline = False

    def finish(self):
        self.break_line()
        self.stream.write('%s: %s\n' % (PROG, progress_line(self.done, self.total, self.clock() - self.start, final=True)))
        self.stream.flush()


class Options:
    """What to do, and the state of one run (messages, progress, failure)."""

    def __init__(self, buffer_size=8 * 1024 * 1024, recursive=False, preserve=False, direct=False,
                 nocache=False, progress=False, verify=False, streams=DEFAULT_STREAMS, stderr=None):
        self.buffer_size = buffer_size
        self.streams = streams
        self.recursive = recursive
        self.preserve = preserve
        self.direct = direct
        self.nocache = nocache
        self.progress = progress
        self.verify = verify
        self._stderr = stderr
        self.meter = None
        self.failed = False
        self.warned_devices = set()
        self._umask = None

    @property
    def stderr(self):
        return self._stderr if self._stderr is not None else sys.stderr

    @property
    def umask(self):
        if self._umask is None:
            self._umask = current_umask()
        return self._umask

    def warn(self, message):
        if self.meter is not None:
            self.meter.break_line()
        self.stderr.write('%s: %s\n' % (PROG, message))
        self.stderr.flush()

    def report(self, message):
        """An error: print it and remember to exit 1."""
        self.warn(message)
        self.failed = True

    def advance(self, count):
        if self.meter is not None and count > 0:
            self.meter.add(count)

    def warn_buffered(self, path, dev):
        if dev in self.warned_devices:
            return
        self.warned_devices.add(dev)
        self.warn('%s: O_DIRECT not supported here, copying buffered' % mount_point(path))


# ---------------------------------------------------------------------------
# I/O on one side of a copy


class Endpoint:
    """An open descriptor and how to do I/O on it.

    positional: pread/pwrite at offsets (regular files, block devices); else sequential (pipes, ttys).
    sparse: a new regular destination, where holes may be left and the size is set by ftruncate.
    """

    def __init__(self, fd, name, options, positional=True, sparse=False, path=None):
        self.fd = fd
        self.name = name
        self.options = options
        self.positional = positional
        self.sparse = sparse
        self.path = path
        self.direct = False
        self.alignment = 1
        self.dirty = None
        self.dirty_bytes = 0
        # --streams threads share the descriptor: the first that meets EINVAL drops O_DIRECT
        self._direct_lock = threading.Lock()

    @property
    def uses_cache(self):
        return self.positional and not self.direct

    def try_direct(self):
        """O_DIRECT on this descriptor where the file system allows it (pipes are left alone)."""
        if not self.positional:
            return
        try:
            alignment = dio_alignment(self.fd)
            if not alignment:
                raise OSError(errno.EINVAL, 'no direct I/O on this file')
            enable_direct(self.fd)
        except OSError:
            self._warn_buffered()
            return
        self.direct = True
        self.alignment = alignment

    def _warn_buffered(self):
        try:
            dev = os.fstat(self.fd).st_dev
        except OSError:
            dev = None
        self.options.warn_buffered(self.path or self.name, dev)

    def drop_direct(self, quiet=False):
        """Clear O_DIRECT (once, whichever thread comes first), with the fallback message unless quiet."""
        with self._direct_lock:
            if not self.direct:
                return
            disable_direct(self.fd)
            self.direct = False
        if not quiet:
            self._warn_buffered()

    def read(self, view, offset):
        """Fill view from offset (ignored when sequential); fewer bytes only at the end of the data."""
        got = 0
        while got < len(view):
            direct = self.direct  # as the read is issued: another stream may drop O_DIRECT meanwhile
            try:
                if self.positional:
                    count = read_at(self.fd, view[got:], offset + got)
                else:
                    count = os.readv(self.fd, [view[got:]])
            except OSError as exc:
                if direct and exc.errno == errno.EINVAL:
                    self.drop_direct()
                    continue
                raise CopyError('error reading %s: %s' % (quote(self.name), describe(exc)))
            if count == 0:
                break
            got += count
            if self.direct and not is_aligned(count, self.alignment):
                break
        if got and self.options.nocache and self.uses_cache:
            fadvise_dontneed(self.fd, offset, got)
        return got

    def write(self, view, offset):
        """Write all of view at offset (ignored when sequential); an unaligned tail goes without O_DIRECT."""
        length = len(view)
        if self.direct and not is_aligned(length, self.alignment):
            head = align_down(length, self.alignment)
            if head:
                self._write_all(view[:head], offset)
            self.drop_direct(quiet=True)
            self._write_all(view[head:], offset + head)
        else:
            self._write_all(view, offset)
        if self.options.nocache and self.uses_cache:
            low, high = self.dirty or (offset, offset + length)
            self.dirty = (min(low, offset), max(high, offset + length))
            self.dirty_bytes += length
            if self.dirty_bytes >= NOCACHE_FLUSH_BYTES:
                self.flush_cache()

    def _write_all(self, view, offset):
        done = 0
        while done < len(view):
            direct = self.direct  # as the write is issued: another stream may drop O_DIRECT meanwhile
            try:
                if self.positional:
                    count = write_at(self.fd, view[done:], offset + done)
                else:
                    count = os.write(self.fd, view[done:])
            except OSError as exc:
                if direct and exc.errno == errno.EINVAL:
                    self.drop_direct()
                    continue
                if exc.errno == errno.EPIPE and not self.positional:
                    raise StdoutClosed()
                raise CopyError('error writing %s: %s' % (quote(self.name), describe(exc)))
            if count <= 0:
                raise CopyError('error writing %s: %s' % (quote(self.name), os.strerror(errno.EIO)))
            done += count

    def flush_cache(self):
        """With --nocache: write back what was written since the last flush and drop it from the cache."""
        if self.dirty is None:
            return
        try:
            os.fdatasync(self.fd)
        except OSError as exc:
            raise CopyError('error writing %s: %s' % (quote(self.name), describe(exc)))
        low, high = self.dirty
        fadvise_dontneed(self.fd, low, high - low)
        self.dirty = None
        self.dirty_bytes = 0


def copy_data(src, dst, size, options):
    """Copy the data from src to dst; return the size the destination must have.

    size is the source's size for a positional source, None for a sequential one.
    """
    alignment = common_alignment(src.alignment if src.direct else 1, dst.alignment if dst.direct else 1)
    length = buffer_length(options.buffer_size, alignment, size if src.positional else None)
    if _concurrent(src, dst):
        count = min(options.streams, max(1, -(-size // length)))
    else:
        count = READ_AHEAD_BUFFERS if src.positional else 1
    buffers = [mmap.mmap(-1, length) for dummy in range(count)]
    views = [memoryview(buf) for buf in buffers]
    try:
        if src.positional:
            return _copy_extents(src, dst, size, views, alignment, options)
        return _copy_stream(src, dst, views[0], options)
    finally:
        for view, buf in zip(views, buffers):
            view.release()
            try:
                buf.close()
            except BufferError:
                pass


class _Position:
    """How far the copy has got, for --progress: holes count as copied when passed."""

    def __init__(self, options):
        self.options = options
        self.at = 0

    def to(self, offset):
        if offset > self.at:
            self.options.advance(offset - self.at)
            self.at = offset


def _copy_extents(src, dst, size, views, alignment, options):
    extents = data_extents(src.fd, size) if dst.sparse else [(0, size)]
    if src.uses_cache:
        try:
            os.posix_fadvise(src.fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
        except OSError:
            pass
    plan = plan_extents(extents, size, alignment)
    position = _Position(options)
    if kernel_copy_allowed(src, dst, options):
        plan = _kernel_copy_extents(src, dst, size, plan, position, options.buffer_size)
    if _concurrent(src, dst):
        return _concurrent_copy(src, dst, size, plan_chunks(plan, size, len(views[0])), views, position, alignment)
    return _read_ahead_copy(src, dst, size, plan, views, position)


def _concurrent(src, dst):
    """Whether the copy goes in --streams threads: direct I/O at both ends, both positional."""
    return src.direct and dst.direct and src.positional and dst.positional


def plan_chunks(plan, size, length):
    """(offset, length) of every read of the plan, in order: length bytes at most, none starting at or past size."""
    chunks = []
    for start, end in plan:
        for offset in range(start, min(end, size), length):
            chunks.append((offset, min(length, end - offset)))
    return chunks


def _copy_chunk(src, dst, size, view, offset, want):
    """Read want bytes at offset into view and write what is data; the bytes copied."""
    count = src.read(view[:want], offset)
    valid = max(0, min(count, size - offset))
    if valid:
        dst.write(view[:valid], offset)
    return valid


def _concurrent_copy(src, dst, size, chunks, views, position, alignment):
    """Copy the chunks in one thread per buffer, each reading a chunk and writing it; return the size the destination must have.

    Up to len(views) reads and writes are in flight at once. A chunk that ends in an unaligned
    tail is copied last, in this thread, once the others have stopped: writing the tail clears
    O_DIRECT on the descriptor (Endpoint.write), which must not happen under another thread's I/O.
    A chunk copied short of size means that the source shrank: no further chunk is started and
    the copy ends there. The threads only do I/O; errors, progress and signals are handled here.
    """
    chunks = list(chunks)
    tail = chunks.pop() if chunks and size % alignment and sum(chunks[-1]) > size else None
    pending = iter(chunks)
    lock, stop, events = threading.Lock(), threading.Event(), queue.Queue()

    def stream(view):
        try:
            while not stop.is_set():
                with lock:
                    chunk = next(pending, None)
                if chunk is None:
                    break
                events.put(('done', chunk, _copy_chunk(src, dst, size, view, *chunk)))
        except BaseException as exc:  # handed to this thread, which raises it
            events.put(('error', exc))
        finally:
            events.put(('exit',))

    threads = [threading.Thread(target=stream, args=(view,), name='iotune-copy-stream', daemon=True)
               for view in views[:max(1, min(len(views), len(chunks)))]]
    end, error, copied, index = size, None, {}, 0
    try:
        for thread in threads:
            thread.start()
        running = len(threads)
        while running:
            item = events.get()
            if item[0] == 'exit':
                running -= 1
            elif item[0] == 'error':
                error = error or item[1]
                stop.set()
            else:
                (offset, want), count = item[1], item[2]
                if count < want and offset + count < size:
                    end = min(end, offset + count)
                    stop.set()
                copied[offset] = count
                while index < len(chunks) and chunks[index][0] in copied:
                    position.to(chunks[index][0])
                    position.to(chunks[index][0] + copied.pop(chunks[index][0]))
                    index += 1
    finally:
        stop.set()
        for thread in threads:
            if thread.ident is not None:
                thread.join()
    if error is not None:
        raise error
    if tail is not None and end == size:
        position.to(tail[0])
        count = _copy_chunk(src, dst, size, views[0], *tail)
        end = min(end, tail[0] + count)
    position.to(end)
    return end


def _kernel_copy_extents(src, dst, size, plan, position, chunk):
    """Copy the plan with copy_file_range, chunk bytes a call, while the kernel does it; return what is left of the plan."""
    for index, (start, end) in enumerate(plan):
        position.to(start)
        offset = start
        while offset < min(end, size):
            count = _kernel_copy(src, dst, min(chunk, min(end, size) - offset), offset)
            if not count:
                return [(offset, end)] + plan[index + 1:]
            offset += count
            position.to(offset)
    return []


def _read_chunks(src, size, plan, free, emit):
    """In the reader thread: read the plan into free buffers, emit ('data', view, offset, length), then ('end', size).

    A short read before size means that the source shrank: the copy ends there.
    """
    for start, end in plan:
        offset = start
        while offset < min(end, size):
            view = free.get()
            if view is None:
                return
            want = min(len(view), end - offset)
            count = src.read(view[:want], offset)
            valid = min(count, size - offset)
            if valid > 0:
                emit(('data', view, offset, valid))
                offset += valid
            else:
                free.put(view)
            if count < want:
                if offset < size:
                    emit(('end', offset))
                    return
                break
    emit(('end', size))


def _read_ahead_copy(src, dst, size, plan, views, position):
    """Read the next buffer in a thread while this one writes the last: both devices stay busy.

    The source is positional (a file or a block device), so a read always ends and the
    thread can be waited for, also when the copy stops on an error or a signal.
    """
    free, full = queue.Queue(), queue.Queue()
    for view in views:
        free.put(view)

    def reader():
        try:
            _read_chunks(src, size, plan, free, full.put)
        except BaseException as exc:  # handed to the writer, which raises it
            full.put(('error', exc))

    thread = threading.Thread(target=reader, name='iotune-copy-reader', daemon=True)
    thread.start()
    try:
        while True:
            item = full.get()
            if item[0] == 'error':
                raise item[1]
            if item[0] == 'end':
                position.to(item[1])
                return item[1]
            dummy, view, offset, length = item
            position.to(offset)
            dst.write(view[:length], offset)
            position.to(offset + length)
            free.put(view)
    finally:
        free.put(None)
        thread.join()


def kernel_copy_allowed(src, dst, options):
    """Whether the data may go through copy_file_range: a plain copy between two positional files.

    --direct and --nocache need the data in the tool's own buffer, so they never do.
    """
    return (src.uses_cache and dst.uses_cache and not options.direct and not options.nocache
            and hasattr(os, 'copy_file_range'))


def _kernel_copy(src, dst, count, offset):
    """Bytes copied by copy_file_range, or 0: the caller then goes on with read and write.

    Any error counts as 0 (EXDEV, EINVAL for devices and pipes, ENOSYS, EOPNOTSUPP, but also
    EIO or ENOSPC): read and write take over at the same offset and, if the error is real, report
    it naming the file it belongs to. 0 is also what files whose size is not their content
    (procfs, sysfs) return.
    """
    try:
        return copy_range(src.fd, dst.fd, count, offset)
    except OSError:
        return 0


def _copy_stream(src, dst, view, options):
    offset = 0
    while True:
        count = src.read(view, offset)
        if count:
            dst.write(view[:count], offset)
            options.advance(count)
            offset += count
        if count < len(view):
            return offset


def file_digest(path, options, limit=None):
    """SHA-256 (hex) of a file (of its first limit bytes), read with the buffer size, O_DIRECT and cache dropping as the copy."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise CopyError('cannot open %s for reading: %s' % (quote(path), describe(exc)))
    try:
        end = Endpoint(fd, path, options, path=path)
        st = os.fstat(fd)
        size = st.st_size if stat.S_ISREG(st.st_mode) else os.lseek(fd, 0, os.SEEK_END)
        if limit is not None:
            size = min(size, limit)
        if options.direct:
            end.try_direct()
        import hashlib  # only --verify needs it: every copy pays for an import at start-up
        digest = hashlib.sha256()
        buf = mmap.mmap(-1, buffer_length(options.buffer_size, end.alignment, size))
        view = memoryview(buf)
        try:
            offset = 0
            while offset < size:
                want = min(len(view), align_up(size - offset, end.alignment))
                count = end.read(view[:want], offset)
                digest.update(view[:min(count, size - offset)])
                offset += count
                if count < want:
                    break
        finally:
            view.release()
            try:
                buf.close()
            except BufferError:
                pass
        return digest.hexdigest()
    finally:
        os.close(fd)


def verify_copy(src, dst, options):
    """Compare the SHA-256 of source and destination; CopyError when they differ."""
    try:
        src_st = os.stat(src)
        dst_st = os.stat(dst)
    except OSError as exc:
        raise CopyError('cannot verify %s: %s' % (quote(dst), describe(exc)))
    expected = file_digest(src, options)
    # A device destination holds more than the copy: compare what was written.
    found = file_digest(dst, options, None if stat.S_ISREG(dst_st.st_mode) else src_st.st_size)
    if expected != found:
        raise CopyError('verification failed: %s differs from %s (sha256 %s, source %s); it is left in place'
                        % (quote(dst), quote(src), found, expected))


# ---------------------------------------------------------------------------
# Copying one entry


def _preserve_owner(chown, name, st):
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


def _preserved_mode(st, owner_kept):
    mode = stat.S_IMODE(st.st_mode)
    if not owner_kept:
        mode &= ~(stat.S_ISUID | stat.S_ISGID)
    return mode


def _preserve_fd(fd, name, st):
    owner_kept = _preserve_owner(lambda uid, gid: os.fchown(fd, uid, gid), name, st)
    try:
        os.fchmod(fd, _preserved_mode(st, owner_kept))
    except OSError as exc:
        raise CopyError('preserving permissions for %s: %s' % (quote(name), describe(exc)))
    try:
        os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns))
    except OSError as exc:
        raise CopyError('preserving times for %s: %s' % (quote(name), describe(exc)))


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


def _same_file(st1, st2):
    if st1 is None or st2 is None:
        return False
    if stat.S_ISBLK(st1.st_mode) and stat.S_ISBLK(st2.st_mode):
        return st1.st_rdev == st2.st_rdev
    return (st1.st_dev, st1.st_ino) == (st2.st_dev, st2.st_ino)


def _destination_stat(dst):
    """(stat of what dst names, following a symlink, or None; whether dst is a symlink).

    A symlink destination is written through, like cp; a dangling one is refused, as cp refuses it
    ("not writing through dangling symlink"), and a loop of links fails to stat (ELOOP), as in cp.
    """
    try:
        link = stat.S_ISLNK(os.lstat(dst).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return None, False  # creating the file says why it cannot be
    except OSError as exc:
        raise CopyError('cannot stat %s: %s' % (quote(dst), describe(exc)))
    try:
        return os.stat(dst), link
    except (FileNotFoundError, NotADirectoryError):
        if link:
            raise CopyError('not writing through dangling symlink %s' % quote(dst))
        return None, False
    except OSError as exc:
        raise CopyError('cannot stat %s: %s' % (quote(dst), describe(exc)))


def copy_file(src, dst, options):
    """Copy one non-directory source (a path or '-') to exactly dst (a path or '-'); CopyError on failure.

    A regular destination is replaced atomically; an existing block device, character device or
    FIFO destination is written in place, and so is the regular file a destination symlink points
    to (same inode, owner and mode; the link stays a link), as cp does.
    """
    source, src_st, size = _open_source(src, options)
    try:
        if options.direct:
            source.try_direct()
        if dst == '-':
            sink = Endpoint(1, '-', options, positional=False)
            copy_data(source, sink, size, options)
            return
        if dst.endswith(os.sep):
            raise CopyError('cannot create regular file %s: %s' % (quote(dst), os.strerror(errno.ENOTDIR)))
        dst_st, link = _destination_stat(dst)
        if src == '-' and dst_st is not None:
            src_st = os.fstat(0)
        if _same_file(src_st, dst_st):
            raise CopyError('%s and %s are the same file' % (quote(src), quote(dst)))
        if src == '-':
            src_st = None
        if dst_st is not None and stat.S_ISDIR(dst_st.st_mode):
            raise CopyError('cannot overwrite directory %s with non-directory' % quote(dst))
        if dst_st is not None and (link or not stat.S_ISREG(dst_st.st_mode)):
            _copy_in_place(source, src_st, size, dst, options)
        else:
            _copy_replacing(source, src_st, size, dst, options)
    finally:
        if source.fd != 0:
            os.close(source.fd)
    if options.verify:
        if src_st is None or not stat.S_ISREG(src_st.st_mode):
            raise CopyError('cannot verify %s: not a regular file' % quote(src))
        verify_copy(src, dst, options)


def _copy_in_place(source, src_st, size, dst, options):
    """Write into an existing file through its name, no temporary file: a device or FIFO (not truncated), or the
    regular file that a destination symlink points to (truncated, then written, as cp does: the link stays a
    link, the file keeps its inode, owner and mode, with -p the source's; a failure leaves it partly written,
    as cp's would).

    dst is opened as it is named, the kernel following the link (also /proc's, such as /dev/stdout);
    what to do depends on what was opened.
    """
    try:
        fd = os.open(dst, os.O_WRONLY | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise CopyError('cannot open %s for writing: %s' % (quote(dst), describe(exc)))
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
            try:
                os.ftruncate(fd, final_size)
            except OSError as exc:
                raise CopyError('error writing %s: %s' % (quote(dst), describe(exc)))
            if options.preserve and src_st is not None:
                _preserve_fd(fd, dst, src_st)
        if sink.positional:
            try:
                os.fsync(fd)
            except OSError as exc:
                raise CopyError('error writing %s: %s' % (quote(dst), describe(exc)))
            if options.nocache:
                fadvise_dontneed(fd, 0, 0)
    finally:
        os.close(fd)


def _copy_replacing(source, src_st, size, dst, options):
    """Write a temporary file beside dst (a new or regular file, not a symlink), sync it and rename it over dst."""
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
        try:
            os.ftruncate(fd, final_size)
        except OSError as exc:
            raise CopyError('error writing %s: %s' % (quote(dst), describe(exc)))
        if options.preserve and src_st is not None:
            _preserve_fd(fd, dst, src_st)
        try:
            os.fsync(fd)
        except OSError as exc:
            raise CopyError('error writing %s: %s' % (quote(dst), describe(exc)))
        if options.nocache:
            fadvise_dontneed(fd, 0, 0)
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


def _replace_with(make, src, dst, st, options, kind):
    """Create a symlink or special file under a temporary name with make(temp), then rename it over dst."""
    try:
        dst_st = os.lstat(dst)
    except FileNotFoundError:
        dst_st = None
    except OSError as exc:
        raise CopyError('cannot stat %s: %s' % (quote(dst), describe(exc)))
    if _same_file(st, dst_st):
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
            owner_kept = _preserve_owner(lambda uid, gid: os.chown(temp, uid, gid, follow_symlinks=False), dst, st)
            if not stat.S_ISLNK(st.st_mode):
                try:
                    os.chmod(temp, _preserved_mode(st, owner_kept))
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
            same = _same_file(st, os.stat(dst))
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
            owner_kept = _preserve_owner(lambda uid, gid: os.chown(dst, uid, gid), dst, st)
            os.chmod(dst, _preserved_mode(st, owner_kept))
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


# ---------------------------------------------------------------------------
# Command line


USAGE = """usage: {0} [options] SOURCE DEST
       {0} [options] SOURCE... DIRECTORY""".format(PROG)

HELP = USAGE + """

Copy files with large I/Os (one buffer per read and write), optionally with direct I/O or
without filling the page cache. A regular destination is replaced atomically; a symbolic link
to one is written through in place, as cp does. '-' is standard input (as SOURCE) or standard
output (as DEST).

options:
  -r, -R, --recursive   copy directories recursively (symbolic links as links)
  -p                    preserve mode, ownership (when permitted) and timestamps
  --buffer-size SIZE    size of each read and write: bytes or with k, M, G
                        (default: buffer_size= in the config file, else {0})
  --config PATH         config file (default: {1})
  --direct              O_DIRECT reads and writes (buffered where the file system refuses it)
  --streams N           with --direct: copy N buffers at once, each read and written by its
                        own thread (1-{2}; default: streams= in the config file, else {3};
                        fewer when N buffers would pass 1G)
  --nocache             drop the copied data from the page cache as the copy goes
  --progress            report bytes copied, rate and ETA on stderr
  --verify              compare the SHA-256 of source and destination after the copy
  -h, --help            show this help and exit
""".format(DEFAULT_BUFFER_SIZE, DEFAULT_CONFIG, MAX_STREAMS, DEFAULT_STREAMS)

# option -> Options field; the long options that take a value
_SHORT_OPTIONS = {'r': 'recursive', 'R': 'recursive', 'p': 'preserve', 'h': 'help'}
_LONG_OPTIONS = {'--recursive': 'recursive', '--buffer-size': 'buffer_size', '--config': 'config', '--direct': 'direct',
                 '--nocache': 'nocache', '--progress': 'progress', '--streams': 'streams', '--verify': 'verify',
                 '--help': 'help'}
_VALUE_OPTIONS = ('--buffer-size', '--config', '--streams')


class UsageError(Exception):
    """A bad command line; the message is printed after the usage."""


def _long_option(word):
    """(option, value or None) of '--name' or '--name=value'; a unique prefix names its option, as in GNU getopt."""
    name, equals, value = word.partition('=')
    matches = [name] if name in _LONG_OPTIONS else sorted(option for option in _LONG_OPTIONS if option.startswith(name))
    if not matches:
        raise UsageError('unrecognized option %s' % quote(word))
    if len(matches) > 1:
        raise UsageError('option %s is ambiguous; possibilities: %s' % (quote(name), ' '.join(matches)))
    return matches[0], (value if equals else None)


def parse_arguments(argv):
    """(settings, paths) of a command line, GNU style: options anywhere, '--' ends them, '-' is a path.

    settings maps the Options fields given to their values (True for a flag, the text for a value).
    """
    settings, paths = {}, []
    words = iter(argv)
    for word in words:
        if word == '--':
            paths.extend(words)
        elif word.startswith('--'):
            option, value = _long_option(word)
            if option in _VALUE_OPTIONS:
                if value is None:
                    value = next(words, None)
                if value is None:
                    raise UsageError('option %s requires an argument' % quote(option))
                settings[_LONG_OPTIONS[option]] = value
            elif value is not None:
                raise UsageError("option %s doesn't allow an argument" % quote(option))
            else:
                settings[_LONG_OPTIONS[option]] = True
        elif word.startswith('-') and word != '-':
            for letter in word[1:]:
                if letter not in _SHORT_OPTIONS:
                    raise UsageError('invalid option -- %s' % quote(letter))
                settings[_SHORT_OPTIONS[letter]] = True
        else:
            paths.append(word)
    return settings, paths


def _config(settings):
    """The key=value pairs of the config file (--config, else the default); UsageError when it cannot be read."""
    path = settings.get('config', DEFAULT_CONFIG)
    try:
        return path, read_config(path)
    except ValueError as exc:
        raise UsageError(str(exc))
    except OSError as exc:
        raise UsageError('cannot read %s: %s' % (path, describe(exc)))


def _buffer_size(settings, config):
    """The buffer size: --buffer-size, else buffer_size= in the config file, else the default; UsageError."""
    if 'buffer_size' in settings:
        try:
            return parse_size(settings['buffer_size'])
        except ValueError as exc:
            raise UsageError('argument --buffer-size: %s' % exc)
    path, values = config
    try:
        return parse_size(values.get('buffer_size', DEFAULT_BUFFER_SIZE))
    except ValueError as exc:
        raise UsageError('%s: buffer_size: %s' % (path, exc))


def _stream_count(text, where):
    """int of a stream count from 1 to MAX_STREAMS; UsageError naming where it came from."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_STREAMS:
        raise UsageError('%s: invalid value %s: expected a whole number from 1 to %d' % (where, quote(text), MAX_STREAMS))
    return int(text)


def _streams(settings, config, buffer_size):
    """The number of --direct streams; UsageError.

    --streams N (1 to MAX_STREAMS, N buffers within 1G), else streams= in the config file, else the
    default; a default from the file or the tool is lowered to what fits in 1G of buffers, so a
    large --buffer-size still works without --streams."""
    if 'streams' in settings:
        streams = _stream_count(settings['streams'], 'argument --streams')
        if streams * buffer_size > MAX_STREAM_MEMORY:
            raise UsageError('argument --streams: %d buffers of %d bytes pass 1G; use fewer streams or a smaller --buffer-size'
                             % (streams, buffer_size))
        return streams
    path, values = config
    default = _stream_count(values['streams'], '%s: streams' % path) if 'streams' in values else DEFAULT_STREAMS
    return max(1, min(default, MAX_STREAM_MEMORY // buffer_size))


def parse_command_line(argv, stderr=None):
    """(Options, sources, destination) of a command line; UsageError on a bad one, SystemExit(0) after --help."""
    settings, paths = parse_arguments(argv)
    if settings.get('help'):
        sys.stdout.write(HELP)
        raise SystemExit(0)
    if not paths:
        raise UsageError('missing file operand')
    if len(paths) < 2:
        raise UsageError('missing destination file operand after %s' % quote(paths[0]))
    sources, dest = paths[:-1], paths[-1]
    if '-' in sources and len(sources) > 1:
        raise UsageError("'-' (standard input) must be the only source")
    if dest == '-' and len(sources) > 1:
        raise UsageError("only one source can be copied to '-' (standard output)")
    if settings.get('verify') and ('-' in sources or dest == '-'):
        raise UsageError("--verify cannot be used with '-' (standard input or output)")
    # the file is read only when the command line leaves a setting to it
    config = (None, {}) if 'buffer_size' in settings and 'streams' in settings else _config(settings)
    buffer_size = _buffer_size(settings, config)
    if buffer_size > MAX_BUFFER_SIZE:
        raise UsageError('buffer size %d is larger than the maximum, 1G' % buffer_size)
    flags = dict((name, bool(settings.get(name))) for name in ('recursive', 'preserve', 'direct', 'nocache', 'progress', 'verify'))
    if 'streams' in settings and not settings.get('direct'):
        raise UsageError('argument --streams: only with --direct (buffered copies are kept busy by the kernel\'s read-ahead and write-back)')
    streams = _streams(settings, config, buffer_size)
    return Options(buffer_size=buffer_size, streams=streams, stderr=stderr, **flags), sources, dest


def _total_size(sources):
    """Bytes to copy when every source is a regular file (for the ETA), else None."""
    total = 0
    for src in sources:
        try:
            st = os.stat(src) if src != '-' else os.fstat(0)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or src == '-':
            return None
        total += st.st_size
    return total


def _targets(sources, dest, options):
    """(source, exact destination) pairs, cp style; None (after reporting) when dest must be a directory and is not."""
    if dest == '-':
        return [(sources[0], dest)]
    dest_is_dir = os.path.isdir(dest)
    if len(sources) > 1 and not dest_is_dir:
        options.report('target %s is not a directory' % quote(dest))
        return None
    pairs = []
    for src in sources:
        if not dest_is_dir:
            pairs.append((src, dest))
        elif src == '-':
            pairs.append((src, None))
        else:
            pairs.append((src, os.path.join(dest, os.path.basename(src.rstrip(os.sep)) or src)))
    return pairs


def _on_signal(signum, dummy_frame):
    raise Interrupted(signum)


def run(sources, dest, options):
    """Copy the sources; the exit status."""
    pairs = _targets(sources, dest, options)
    if pairs is None:
        return 1
    if options.progress:
        options.meter = Progress(options.stderr, _total_size(sources))
    try:
        for src, target in pairs:
            if target is None:
                options.report('cannot copy standard input into directory %s: name the destination file' % quote(dest))
                continue
            try:
                copy_entry(src, target, options)
            except CopyError as exc:
                options.report(str(exc))
    except StdoutClosed:
        return 128 + signal.SIGPIPE
    if options.meter is not None:
        options.meter.finish()
    return 1 if options.failed else 0


def main(argv=None, stderr=None):
    """Run the command line (sys.argv[1:] by default); the exit status."""
    try:
        options, sources, dest = parse_command_line(sys.argv[1:] if argv is None else argv, stderr)
    except UsageError as exc:
        (stderr or sys.stderr).write('%s\n%s: error: %s\nTry \'%s --help\' for more information.\n' % (USAGE, PROG, exc, PROG))
        return 2
    except SystemExit as exc:
        return exc.code
    previous = {}
    for name in _SIGNALS:
        signum = getattr(signal, name)
        try:
            previous[signum] = signal.signal(signum, _on_signal)
        except (ValueError, OSError):
            pass
    try:
        return run(sources, dest, options)
    except Interrupted as exc:
        return 128 + exc.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


if __name__ == '__main__':
    sys.exit(main())
