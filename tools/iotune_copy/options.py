# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What one run does (buffer size, streams, flags) and its state: messages, progress, failure."""

import os
import sys

from .errors import PROG
from .system import mount_point

DEFAULT_BUFFER_SIZE = '8M'
MAX_BUFFER_SIZE = 1024 ** 3
# one buffer read, then written, as dd does, in a huge-page buffer (measured: docs/performance.md)
DEFAULT_STREAMS = 1
MAX_STREAMS = 64
MAX_STREAM_MEMORY = 1024 ** 3


class Options:
    """What to do, and the state of one run (messages, progress, failure)."""

    def __init__(self, buffer_size=8 * 1024 * 1024, recursive=False, preserve=False, direct=False,
                 nocache=False, progress=False, verify=False, streams=DEFAULT_STREAMS, stderr=None, force=False,
                 remove_destination=False):
        self.buffer_size = buffer_size
        self.streams = streams
        self.recursive = recursive
        self.preserve = preserve
        self.direct = direct
        self.nocache = nocache
        self.progress = progress
        self.verify = verify
        self.force = force
        self.remove_destination = remove_destination
        self._stderr = stderr
        self.meter = None
        self.failed = False
        self.warned_devices = set()
        # the process's umask, read once (cp's cached_umask): a new directory's permissions left out while it is
        # filled are given back as the umask allows
        self.umask = os.umask(0)
        os.umask(self.umask)

    @property
    def stderr(self):
        return self._stderr if self._stderr is not None else sys.stderr

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
