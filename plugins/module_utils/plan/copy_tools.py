# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plan for the copy_tools module (pure, no AnsibleModule): are the large-block copy tools
and their configuration installed as this collection ships them, and what would make them so
(or, with state absent, remove them)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib
import os

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import COMPLIANT, DRIFT, make_check
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import file_content, file_state

CONCERN = 'copy_tools'
STATES = ('present', 'absent')


def _sha(data):
    return hashlib.sha256(data).hexdigest()[:12]


def _text(data):
    return None if data is None else data.decode('utf-8', 'replace')


def _missing_parents(path, planned, isdir):
    """The directories above path that do not exist and are not planned yet, top-down (mkdir -p)."""
    missing = []
    parent = os.path.dirname(path)
    while parent not in planned and parent != os.path.dirname(parent) and not isdir(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    return missing[::-1]


def plan_copy_tools(files, state='present', read_state=file_state, isdir=os.path.isdir):
    """``files``: [{path, content (text), mode (int)}]. Returns {checks, changes, warnings}.

    One check per file (setting ``installed``); ``live`` and ``persistent`` are the short
    sha256 of the installed file (None when absent). Changes are in the order they must be
    made: missing parent directories, top-down (``dir``), then ``file`` writes, or ``remove``."""
    if state not in STATES:
        raise ValueError('state must be one of %s, got %r' % (', '.join(STATES), state))
    checks, changes, dirs = [], [], []
    for item in files:
        path, want = item['path'], item['content'].encode('utf-8')
        current = read_state(path)
        have = file_content(current)
        installed = None if have is None else _sha(have)
        if state == 'absent':
            if have is None:
                status, message = COMPLIANT, '%s is not installed' % path
            else:
                status, message = DRIFT, '%s is installed; state absent removes it' % path
                changes.append({'kind': 'remove', 'target': path, 'before': _text(have), 'after': None})
        elif have == want:
            status, message = COMPLIANT, '%s is installed and current (sha256 %s)' % (path, installed)
        else:
            status = DRIFT
            if have is None:
                message = '%s is not installed' % path
            else:
                message = '%s differs from the version this collection installs (sha256 %s, expected %s)' % (
                    path, installed, _sha(want))
            dirs.extend(_missing_parents(path, dirs, isdir))
            changes.append({'kind': 'file', 'target': path, 'path': path, 'before': _text(have),
                            'after': item['content'], 'mode': item['mode']})
        expected = 'absent' if state == 'absent' else _sha(want)
        checks.append(make_check(CONCERN, path, 'installed', expected, installed, installed, status, message))
    dir_changes = [{'kind': 'dir', 'target': path} for path in dirs]
    return {'checks': checks, 'changes': dir_changes + changes, 'warnings': []}
