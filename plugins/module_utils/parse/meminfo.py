# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""/proc/meminfo: the host's memory, which fio's size check and the cache planner need."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os


def parse_meminfo(text):
    """/proc/meminfo as {name: bytes} (values given in kB are multiplied by 1024)."""
    values = {}
    for line in text.splitlines():
        name, sep, rest = line.partition(':')
        words = rest.split()
        if not sep or not words or not words[0].isdigit():
            continue
        number = int(words[0])
        if len(words) > 1 and words[1] == 'kB':
            number *= 1024
        values[name.strip()] = number
    return values


def read_memory_bytes(proc_root='/proc', errors=None):
    """MemTotal in bytes, or None."""
    path = os.path.join(proc_root, 'meminfo')
    try:
        with open(path, 'r') as handle:
            total = parse_meminfo(handle.read()).get('MemTotal')
    except (IOError, OSError) as exc:
        total = None
        if errors is not None:
            errors.append('cannot read %s: %s' % (path, exc))
    return total
