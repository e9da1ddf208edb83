# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""--progress: bytes copied, rate and ETA on stderr."""

import time

from .errors import PROG
from .sizes import format_bytes

PROGRESS_INTERVAL = 0.5


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
