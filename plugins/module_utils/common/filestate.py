# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The state of a file as a journal records it (content, digest, mode, owner, extended
attributes), read by planners to compare and by apply to journal before a change."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import errno
import hashlib
import os
import stat

from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import read_xattrs


class JournalError(Exception):
    """A journal, or a file state it records, that cannot be read or used."""


def file_state(path):
    """The state of ``path`` as a journal records it: full content (base64),
    mode, owner and extended attributes (``xattrs``, when it has any), or
    ``{'state': 'absent'}``. A symlink is followed: the file it points to is
    what the run reads and writes, and the link stays a link (issue 18, F5)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return {'state': 'absent'}
        raise
    if not stat.S_ISREG(st.st_mode):
        raise JournalError('%s is not a regular file' % path)
    with open(path, 'rb') as handle:
        content = handle.read()
    state = {'state': 'present', 'content_b64': base64.b64encode(content).decode('ascii'),
             'sha256': hashlib.sha256(content).hexdigest(),
             'mode': '%04o' % stat.S_IMODE(st.st_mode), 'uid': st.st_uid, 'gid': st.st_gid}
    xattrs = read_xattrs(path)
    if xattrs:
        state['xattrs'] = xattrs
    return state


def digest_text(data, size=None):
    """'sha256 <hex>, N bytes' of a file's bytes, or of a digest (and size) given for them: how a diff shows
    a program, whose bytes mean nothing to a reader."""
    if isinstance(data, bytes):
        data, size = hashlib.sha256(data).hexdigest(), len(data)
    return 'sha256 %s' % data + ('' if size is None else ', %d bytes' % size)


def shown_content(state):
    """The text a diff shows of a file_state() record: '' when absent; the digest line of an executable or of
    content with NUL bytes (a program's bytes mean nothing to a reader); else the text, any byte that is not
    UTF-8 shown as U+FFFD (a comment in Latin-1 stays readable)."""
    if not state or state.get('state') != 'present':
        return ''
    content = file_content(state)
    if int(state.get('mode') or '0', 8) & 0o111 or b'\0' in content:
        return digest_text(content) + '\n'
    return content.decode('utf-8', 'replace')


def file_content(state):
    """The bytes of a file_state() record (None for an absent file). The content must be
    strict base64 and match the record's ``sha256``: a corrupt record never restores an empty
    or a cut file (issue 23, R4)."""
    if state.get('state') != 'present':
        return None
    try:
        content = base64.b64decode(state['content_b64'], validate=True)
    except (TypeError, ValueError) as exc:
        raise JournalError('before.content_b64 is not base64: %s' % exc)
    if hashlib.sha256(content).hexdigest() != state.get('sha256'):
        raise JournalError('before.content_b64 does not match before.sha256 (%s): the record is corrupt'
                           % state.get('sha256'))
    return content
