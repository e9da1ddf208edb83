# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plan for the copy_tools concern (pure, no AnsibleModule): are the large-block copy tools
and their configuration installed as this collection ships them, and what would make them so
(or, with state absent, remove them).

A file to install is named by the sha256 of its bytes; its content comes along only when the
controller expects that the host needs it (io_policy sends the tools once, not on every run):
a file whose content did not come and that the host does not have is drift in an audit, and
``content_needed`` for a run that would install it."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import binascii
import hashlib
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import COMPLIANT, DRIFT, ERROR, make_check
from ansible_collections.iotune.storage.plugins.module_utils.common.files import mount_point_of, nearest_existing
from ansible_collections.iotune.storage.plugins.module_utils.common.filestate import file_content, file_state

CONCERN = 'copy_tools'
STATES = ('present', 'absent')
SHA256_RE = re.compile(r'^[0-9a-f]{64}$')
ST_NOEXEC = getattr(os, 'ST_NOEXEC', 8)


def _sha(data):
    return hashlib.sha256(data).hexdigest()[:12]


def wanted_file(item, where='file'):
    """``item`` ({path, mode, and content (text), content_b64 (bytes, base64) or only sha256 (hex)
    and size}) with ``data`` (its bytes, None when only named by digest), ``sha256`` and ``size``.
    ValueError naming ``where`` when the content is not base64 or does not have the digest given."""
    data = None
    if item.get('content_b64') is not None:
        try:
            data = base64.b64decode(item['content_b64'], validate=True)
        except (TypeError, ValueError, binascii.Error) as exc:
            raise ValueError('%s.content_b64: not base64: %s' % (where, exc))
    elif item.get('content') is not None:
        data = item['content'].encode('utf-8')
    digest = item.get('sha256')
    if digest is not None and not SHA256_RE.match(str(digest)):
        raise ValueError('%s.sha256: expected 64 lowercase hexadecimal digits, got %r' % (where, digest))
    if data is None:
        if digest is None:
            raise ValueError('%s: needs content, content_b64 or sha256' % where)
        return dict(item, data=None, sha256=digest, size=item.get('size'))
    if digest is not None and digest != hashlib.sha256(data).hexdigest():
        raise ValueError('%s: the content does not have the sha256 given (%s): it was damaged on the way' % (where, digest))
    return dict(item, data=data, sha256=hashlib.sha256(data).hexdigest(), size=len(data))


def _missing_parents(path, planned, isdir):
    """The directories above path that do not exist and are not planned yet, top-down (mkdir -p)."""
    missing = []
    parent = os.path.dirname(path)
    while parent not in planned and parent != os.path.dirname(parent) and not isdir(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    return missing[::-1]


def _absent(path, have, changes):
    if have is None:
        return COMPLIANT, '%s is not installed' % path
    changes.append({'kind': 'remove', 'target': path, 'before': have, 'after': None})
    return DRIFT, '%s is installed; state absent removes it' % path


def _present(item, have, installing, changes):
    """(status, message) of one file that must be installed; its change appended when it differs."""
    path, want = item['path'], item['data']
    if have is not None and hashlib.sha256(have).hexdigest() == item['sha256']:
        return COMPLIANT, '%s is installed and current (sha256 %s)' % (path, _sha(have))
    if have is None:
        message = '%s is not installed' % path
    else:
        message = '%s differs from the version this collection installs (sha256 %s, expected %s)' % (
            path, _sha(have), item['sha256'][:12])
    changes.append({'kind': 'file', 'target': path, 'path': path, 'before': have, 'after': want, 'mode': item['mode'],
                    'after_sha256': item['sha256'], 'after_size': item['size']})
    if want is None and installing:
        return ERROR, '%s; its content was not sent (the controller expected the host to have sha256 %s): ' \
                      'io_policy sends it when it runs again' % (message, item['sha256'][:12])
    return DRIFT, message


def noexec_problem(path, statvfs=os.statvfs):
    """Why the tool ``path`` could not run where it is installed: its directory (or the nearest
    one above it, for a directory still to create) is on a file system mounted noexec, where exec
    fails with EACCES and a shell with rc 126 whatever the file's mode (issue 38, item 9); None
    when it can run."""
    directory = nearest_existing(os.path.dirname(path))
    try:
        if not statvfs(directory).f_flag & ST_NOEXEC:
            return None
    except OSError:
        return None
    return '%s cannot run there: its directory %s is on a file system mounted noexec (at %s); install the tools ' \
           'in a directory of a file system mounted exec (copy_tools_bin_dir), or remove noexec from that mount' % (
               path, os.path.dirname(path), mount_point_of(directory))


def plan_copy_tools(files, state='present', read_state=file_state, isdir=os.path.isdir, installing=False, statvfs=os.statvfs):
    """``files``: [{path, mode (int), content (text) | content_b64 | sha256 and size}]. Returns
    {checks, changes, warnings, content_needed, installed}.

    One check per file (setting ``installed``); ``live`` and ``persistent`` are the short
    sha256 of the installed file (None when absent). Changes are in the order they must be
    made: missing parent directories, top-down (``dir``), then ``file`` writes (``before`` and
    ``after`` as bytes, ``after`` None when only the digest came), or ``remove``.
    ``content_needed`` lists the files to write whose content did not come; with ``installing``
    (a run that would write them) their checks are errors, so that nothing is changed.
    ``installed`` maps each path to the sha256 of the file there (None when absent). A tool (a file
    with an execute bit) on a file system mounted noexec is an error: installed or not, it cannot run."""
    if state not in STATES:
        raise ValueError('state must be one of %s, got %r' % (', '.join(STATES), state))
    checks, changes, dirs, digests = [], [], [], {}
    for index, item in enumerate(files):
        item = wanted_file(item, 'files[%d]' % index) if 'data' not in item else item
        path = item['path']
        have = file_content(read_state(path))
        installed = None if have is None else _sha(have)
        digests[path] = None if have is None else hashlib.sha256(have).hexdigest()
        if state == 'absent':
            status, message = _absent(path, have, changes)
        else:
            known = len(changes)
            status, message = _present(item, have, installing, changes)
            if len(changes) > known:
                dirs.extend(_missing_parents(path, dirs, isdir))
            noexec = noexec_problem(path, statvfs) if item['mode'] & 0o111 else None
            if noexec:
                status, message = ERROR, '%s; %s' % (message, noexec)
        expected = 'absent' if state == 'absent' else item['sha256'][:12]
        checks.append(make_check(CONCERN, path, 'installed', expected, installed, installed, status, message))
    dir_changes = [{'kind': 'dir', 'target': path} for path in dirs]
    needed = [change['target'] for change in changes if change['kind'] == 'file' and change['after'] is None]
    return {'checks': checks, 'changes': dir_changes + changes, 'warnings': [], 'content_needed': needed,
            'installed': digests}
