# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The copy of the data between two endpoints: through copy_file_range where the kernel can, else
through the tool's own buffers (system.io_buffer), the next one read in a second thread while the last
is written, or, with direct I/O at both ends, one buffer read then written, or --streams threads
(streams.py)."""

import os
import queue
import threading

from .sizes import buffer_length, common_alignment, plan_chunks, plan_extents
from .system import KERNEL_COPY_MAX, copy_range, data_extents, io_buffer, preallocate, start_writeback

READ_AHEAD_BUFFERS = 2
# copy_file_range of a file larger than this goes in steps of this size, the writeback of each started
# when it is copied (start_writeback): the device writes while the next step is read, where cp leaves it
# all dirty in memory and the final fsync writes it after the last read (docs/performance.md)
WRITEBACK_STEP = 64 << 20


def copy_data(src, dst, size, options):
    """Copy the data from src to dst; return the size the destination must have.

    size is the source's size for a positional source, None for a sequential one.
    """
    alignment = common_alignment(src.alignment if src.direct else 1, dst.alignment if dst.direct else 1)
    length = buffer_length(options.buffer_size, alignment, size if src.positional else None)
    if _direct(src, dst):
        count = min(options.streams, max(1, -(-size // length)))
    else:
        count = READ_AHEAD_BUFFERS if src.positional else 1
    with _Buffers(length, count) as buffers:
        if src.positional:
            return _copy_extents(src, dst, size, buffers, alignment, options)
        return _copy_stream(src, dst, buffers.views()[0], options)


class _Buffers:
    """count buffers of length bytes (system.io_buffer), made when first asked for: a copy that the kernel
    does whole (copy_file_range) never maps them."""

    def __init__(self, length, count):
        self.length, self.count = length, count
        self.maps, self.made = [], []

    def views(self):
        while len(self.made) < self.count:
            buf, view = io_buffer(self.length)
            self.maps.append(buf)
            self.made.append(view)
        return self.made

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        for view, buf in zip(self.made, self.maps):
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


def _copy_extents(src, dst, size, buffers, alignment, options):
    extents = data_extents(src.fd, size) if dst.sparse else [(0, size)]
    if src.uses_cache:
        try:
            os.posix_fadvise(src.fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
        except OSError:
            pass
    plan = plan_extents(extents, size, alignment)
    if src.direct and dst.direct and dst.sparse and options.streams > 1:
        _preallocate(dst, plan, size)
    position = _Position(options)
    if kernel_copy_allowed(src, dst, options):
        # a buffer at a time with --progress, which then has something to show between calls; else the whole of
        # each extent at once, as cp asks, or, in a file larger than a writeback step, a step at a time
        chunk = options.buffer_size if options.progress else WRITEBACK_STEP if size > WRITEBACK_STEP else KERNEL_COPY_MAX
        plan = _kernel_copy_extents(src, dst, size, plan, position, chunk)
        if not plan:
            position.to(size)
            return size
    if _direct(src, dst):
        from .streams import concurrent_copy, serial_copy  # only --direct needs them
        copy = concurrent_copy if options.streams > 1 else serial_copy
        return copy(src, dst, size, plan_chunks(plan, size, buffers.length), buffers.views(), position, alignment)
    return _read_ahead_copy(src, dst, size, plan, buffers.views(), position)


def _preallocate(dst, plan, size):
    """With direct I/O into a new file in several streams: allocate the data extents of the plan before the
    writes (holes stay holes). The writes then land inside the file's size, which ext4 and XFS let several
    direct writes do at once and without a size update each, where every write that extends a file waits for
    the one before. One stream writes in file order and gains nothing from it (measured)."""
    for start, end in plan:
        if not preallocate(dst.fd, start, min(end, size) - start):
            return


def _direct(src, dst):
    """Whether the copy is direct I/O at both ends, both positional: --streams threads (streams.py), or
    for one stream each buffer read and then written, as dd does."""
    return src.direct and dst.direct and src.positional and dst.positional


def _kernel_copy_extents(src, dst, size, plan, position, chunk):
    """Copy the plan with copy_file_range, at most chunk bytes a call (the kernel may copy less: the next call goes
    on from there), while the kernel does it; return what is left of the plan. When the file is copied in
    several calls, the writeback of each call's bytes starts after it; where it cannot, the rest goes in
    whole extents."""
    for index, (start, end) in enumerate(plan):
        position.to(start)
        offset = start
        while offset < min(end, size):
            count = _kernel_copy(src, dst, min(chunk, min(end, size) - offset), offset)
            if not count:
                return [(offset, end)] + plan[index + 1:]
            if chunk == WRITEBACK_STEP and not start_writeback(dst.fd, offset, count):
                chunk = KERNEL_COPY_MAX
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
