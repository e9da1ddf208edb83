# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The arguments every changing module shares (the run id and the journal directory) and
their checks, made before anything is read or written."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re


RUN_ID_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._:+-]{0,127}\Z')


def validate_run_id(run_id):
    """None when ``run_id`` is usable as a file name, else the reason."""
    if not isinstance(run_id, str) or not RUN_ID_RE.match(run_id):
        return ('run_id must be 1-128 characters of letters, digits and . _ : + - (not starting with a '
                'punctuation mark), got %r' % (run_id,))
    return None


DEFAULT_JOURNAL_DIR = '/var/lib/iotune/journal'
# Options every concern module takes for the write-ahead journal.
JOURNAL_ARGS = dict(
    run_id=dict(type='str'),
    journal_dir=dict(type='path', default=DEFAULT_JOURNAL_DIR),
)


def normalize_absolute_path(path):
    """/a/../b and /a//b as /b and /a/b (os.path.normpath), and a leading // as /."""
    path = os.path.normpath(path)
    return '/' + path.lstrip('/') if path.startswith('//') else path


def check_args(params, paths=(), written=()):
    """Errors in the arguments every changing module shares, found before anything is read or
    written: the run_id, that journal_dir and each of ``paths`` are absolute (they are normalised
    in ``params``), that an existing journal_dir is a directory, and that no file of ``written`` is a
    directory."""
    errors = []
    if params.get('run_id') is not None:
        problem = validate_run_id(params['run_id'])
        if problem:
            errors.append('run_id: ' + problem)
    for name in ('journal_dir',) + tuple(paths):
        value = params.get(name)
        if value is None:
            continue
        if not os.path.isabs(value):
            errors.append('%s: must be an absolute path, got %r' % (name, value))
            continue
        params[name] = normalize_absolute_path(value)
    journal_dir = params.get('journal_dir')
    if journal_dir is not None and os.path.isabs(journal_dir) and os.path.lexists(journal_dir) and not os.path.isdir(journal_dir):
        errors.append('journal_dir: %s is not a directory' % journal_dir)
    for name in written:
        value = params.get(name)
        if value is not None and os.path.isabs(value) and os.path.isdir(value):
            errors.append('%s: %s is a directory, not a file' % (name, value))
    return errors


def element_message(msg, params, option, validate_element):
    """An AnsibleModule argument error about an element of the list option ``option``, naming the element.

    Before ansible-core 2.19 a bad sub-option is named by its list only ("argument 'nr_requests' is of
    type <class 'float'> found in 'devices'."); the list's own validator, ``validate_element(element,
    'devices[0]')`` (a list of messages, each naming its field), finds which element it is.  Other
    messages are returned as they are."""
    if not isinstance(msg, str) or " found in '%s'" % option not in msg:
        return msg
    for index, element in enumerate(params.get(option) or []):
        if isinstance(element, dict):
            problems = validate_element(element, '%s[%d]' % (option, index))
            if problems:
                return '; '.join(problems)
    return msg
