# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading the host's files the way every gatherer needs (never raising), and file modes as users write them."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import os


def read_text(path, errors=None, missing_ok=False, decode_errors='replace', newline=None):
    """Text of ``path``, or None when it cannot be read.

    The failure is appended to ``errors`` (a list), except a missing file when
    ``missing_ok`` is set: absent files are normal for optional sources.
    ``decode_errors='surrogateescape'`` with ``newline=''`` keeps every byte,
    for files that are later rewritten."""
    try:
        with open(path, 'r', encoding='utf-8', errors=decode_errors, newline=newline) as handle:
            return handle.read()
    except (IOError, OSError) as exc:
        if errors is not None and not (missing_ok and getattr(exc, 'errno', None) == errno.ENOENT):
            errors.append('cannot read %s: %s' % (path, exc.strerror or exc))
        return None


def parse_mode(value, where):
    """A file mode given as an octal string (``'0640'``) or number; ValueError naming ``where`` otherwise."""
    try:
        mode = int(str(value), 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o7777:
        raise ValueError('%s: mode must be octal such as 0755 or 0644, got %r' % (where, value))
    return mode


def nearest_existing(path):
    """``path``, or the nearest directory above it that exists (what a mkdir -p of it starts in)."""
    while not os.path.lexists(path) and path != os.path.dirname(path):
        path = os.path.dirname(path)
    return path


def mount_point_of(path):
    """The mount point of the file system ``path`` (an existing directory) is on."""
    path = os.path.realpath(path)
    dev = os.stat(path).st_dev
    while path != os.path.dirname(path) and os.stat(os.path.dirname(path)).st_dev == dev:
        path = os.path.dirname(path)
    return path
