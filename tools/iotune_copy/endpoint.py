# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One side of a copy: an open descriptor and how to read and write it (positional or sequential, direct
or buffered, with --nocache's cache dropping)."""

import errno
import os
import threading

from .errors import CopyError, StdoutClosed, describe, quote
from .sizes import align_down, is_aligned
from .system import dio_alignment, disable_direct, enable_direct, fadvise_dontneed, read_at, write_at

NOCACHE_FLUSH_BYTES = 64 * 1024 * 1024
# the smallest read that ENOMEM halves a read to
SMALLEST_READ = 4096


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
        self.read_limit = None
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
            part = view[got:] if self.read_limit is None else view[got:got + self.read_limit]
            try:
                if self.positional:
                    count = read_at(self.fd, part, offset + got)
                else:
                    count = os.readv(self.fd, [part])
            except OSError as exc:
                if direct and exc.errno == errno.EINVAL:
                    self.drop_direct()
                    continue
                if exc.errno == errno.ENOMEM and len(part) > SMALLEST_READ:
                    # a pseudo-file refuses a read larger than the kernel will allocate for it (/proc/sys: 4 MiB,
                    # less than the default buffer): read it in smaller pieces, as cp's 128 KiB reads do
                    self.read_limit = max(SMALLEST_READ, len(part) // 2)
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
