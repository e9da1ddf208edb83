# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the bench parts share: statistics, the file system of a path, stopping a process group.

The parts run as ``python3 bench/<part>.py``, so this directory is on sys.path. Python 3 standard
library only, Linux.
"""

import math
import os
import re
import signal
import time


class Interrupted(Exception):
    """SIGINT or SIGTERM: the part cleans up and exits 130."""


def on_signal(signum, dummy_frame):
    raise Interrupted(signal.Signals(signum).name)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2.0


def cov(values):
    """Coefficient of variation: sample standard deviation (n - 1) / mean, as the fio module computes it."""
    mean = sum(values) / float(len(values))
    if len(values) < 2 or mean == 0:
        return 0.0
    return math.sqrt(sum((value - mean) ** 2 for value in values) / (len(values) - 1)) / abs(mean)


def unescape(field):
    return re.sub(r'\\([0-7]{3})', lambda match: chr(int(match.group(1), 8)), field)


def mountinfo():
    """(mount point, fstype, source, super options) of every mount."""
    with open('/proc/self/mountinfo') as handle:
        for line in handle:
            fields, dummy, tail = line.rstrip('\n').partition(' - ')
            fstype, source, options = (tail.split(' ') + ['', '', ''])[:3]
            yield unescape(fields.split(' ')[4]), fstype, source, options


def mount_of(path):
    """(mount point, fstype, source) of the file system holding path; None when mountinfo has none."""
    path = os.path.realpath(path)
    best, longest = None, -1
    for point, fstype, source, dummy in mountinfo():
        if (path == point or path.startswith(point.rstrip('/') + '/')) and len(point) >= longest:
            best, longest = (point, fstype, source), len(point)
    return best


def mem_available(error):
    """MemAvailable of /proc/meminfo in bytes; ``error`` (the bench's exception class) when the kernel has none."""
    with open('/proc/meminfo') as handle:
        for line in handle:
            if line.startswith('MemAvailable:'):
                return int(line.split()[1]) * 1024
    raise error('no MemAvailable in /proc/meminfo')


def loadavg():
    """The 1-minute load average: other work on the machine shows in the noise."""
    with open('/proc/loadavg') as handle:
        return handle.read().split()[0]


def signal_group(proc):
    """SIGINT to the process group of proc (its own session), SIGKILL after 10 s; return when the group is gone."""
    for sig in (signal.SIGINT, signal.SIGKILL):
        deadline = time.monotonic() + 10
        try:
            os.killpg(proc.pid, sig)
            while time.monotonic() < deadline:
                proc.poll()
                os.killpg(proc.pid, 0)  # ProcessLookupError once no process of the group is left
                time.sleep(0.05)
        except ProcessLookupError:
            proc.wait()
            return


def stop_group(proc):
    """signal_group with SIGINT and SIGTERM ignored meanwhile, so that no process of the group (fio, a copy)
    still writes a file that is about to be removed."""
    previous = dict((sig, signal.signal(sig, signal.SIG_IGN)) for sig in (signal.SIGINT, signal.SIGTERM))
    try:
        signal_group(proc)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
