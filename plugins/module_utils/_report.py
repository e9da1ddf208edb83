# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host's copy of a run report: where it goes and what its file holds."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os


def report_paths(directory, names):
    """The path of each report file; ValueError naming the field when a name is not a plain file name."""
    if not directory or not os.path.isabs(directory):
        raise ValueError('dir: must be an absolute path, got %r' % (directory,))
    if not names:
        raise ValueError('names: at least one file name is needed')
    paths = []
    for index, name in enumerate(names):
        if not name or '/' in name or name.startswith('.') or '\0' in name:
            raise ValueError('names[%d]: %r is not a plain file name (no "/", not empty, not starting with ".")'
                             % (index, name))
        path = os.path.join(directory, name)
        if path not in paths:
            paths.append(path)
    return paths


def render_report(report):
    """The bytes of a report file: JSON as the controller's copy is written (to_nice_json), and a newline."""
    return (json.dumps(report, indent=4, sort_keys=True, separators=(',', ': ')) + '\n').encode('utf-8')
