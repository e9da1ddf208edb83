# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Direct I/O at both ends (direct I/O leaves no read-ahead or write-back to keep a device busy): one
stream (the default) reads a chunk and writes it, then the next, as dd does; ``--streams N`` above 1
runs one thread per buffer, each reading a chunk and writing it, so that N reads and writes are in
flight, for a device that serves several requests at once better than one after the other.

The threads only do I/O; errors, progress and signals are handled by the thread that started them."""

import queue
import threading


def _copy_chunk(src, dst, size, view, offset, want):
    """Read want bytes at offset into view and write what is data; the bytes copied."""
    count = src.read(view[:want], offset)
    valid = max(0, min(count, size - offset))
    if valid:
        dst.write(view[:valid], offset)
    return valid


class _Streams(object):
    """The chunks of one copy, handed out in file order to the stream threads, and what they report."""

    def __init__(self, src, dst, size, chunks):
        self.src, self.dst, self.size, self.chunks = src, dst, size, chunks
        self.pending = iter(chunks)
        self.lock, self.stop, self.events = threading.Lock(), threading.Event(), queue.Queue()

    def next_chunk(self):
        with self.lock:
            return next(self.pending, None)

    def stream(self, view):
        """A thread's loop: take the next chunk, copy it, report ('done', chunk, count); ('error', exc) on
        any exception, ('exit',) at the end."""
        try:
            while not self.stop.is_set():
                chunk = self.next_chunk()
                if chunk is None:
                    break
                self.events.put(('done', chunk, _copy_chunk(self.src, self.dst, self.size, view, *chunk)))
        except BaseException as exc:  # handed to the starting thread, which raises it
            self.events.put(('error', exc))
        finally:
            self.events.put(('exit',))

    def collect(self, running, position):
        """Wait for the running threads' events: progress in file order; (end, error). A chunk copied
        short of size means that the source shrank: no further chunk is started and the copy ends there."""
        end, error, copied, index = self.size, None, {}, 0
        while running:
            item = self.events.get()
            if item[0] == 'exit':
                running -= 1
            elif item[0] == 'error':
                error = error or item[1]
                self.stop.set()
            else:
                (offset, want), count = item[1], item[2]
                if count < want and offset + count < self.size:
                    end = min(end, offset + count)
                    self.stop.set()
                copied[offset] = count
                while index < len(self.chunks) and self.chunks[index][0] in copied:
                    position.to(self.chunks[index][0])
                    position.to(self.chunks[index][0] + copied.pop(self.chunks[index][0]))
                    index += 1
        return end, error


def _run_streams(src, dst, size, chunks, views, position):
    """Copy the chunks in one thread per buffer (no more threads than chunks); the end of the copied data."""
    streams = _Streams(src, dst, size, chunks)
    threads = [threading.Thread(target=streams.stream, args=(view,), name='iotune-copy-stream', daemon=True)
               for view in views[:max(1, min(len(views), len(chunks)))]]
    try:
        for thread in threads:
            thread.start()
        end, error = streams.collect(sum(1 for thread in threads if thread.ident is not None), position)
    finally:
        streams.stop.set()
        for thread in threads:
            if thread.ident is not None:
                thread.join()
    if error is not None:
        raise error
    return end


def concurrent_copy(src, dst, size, chunks, views, position, alignment):
    """Copy the chunks in one thread per buffer, each reading a chunk and writing it; return the size the
    destination must have.

    Up to len(views) reads and writes are in flight at once. A chunk that ends in an unaligned tail is
    copied last, in this thread, once the others have stopped: writing the tail clears O_DIRECT on the
    descriptor (Endpoint.write), which must not happen under another thread's I/O.
    """
    chunks = list(chunks)
    tail = chunks.pop() if chunks and size % alignment and sum(chunks[-1]) > size else None
    end = _run_streams(src, dst, size, chunks, views, position)
    if tail is not None and end == size:
        position.to(tail[0])
        count = _copy_chunk(src, dst, size, views[0], *tail)
        end = min(end, tail[0] + count)
    position.to(end)
    return end


def serial_copy(src, dst, size, chunks, views, position, alignment):
    """One stream: read a chunk into the one buffer, write it, then the next, as dd does; return the size the
    destination must have. A short read before size means that the source shrank: the copy ends there. The
    unaligned tail comes last in file order, so clearing O_DIRECT for it (Endpoint.write) meets no other I/O."""
    end = size
    for offset, want in chunks:
        position.to(offset)
        count = _copy_chunk(src, dst, size, views[0], offset, want)
        position.to(offset + count)
        if count < want and offset + count < size:
            end = offset + count
            break
    position.to(end)
    return end
