# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The files of the copy tools concern, built on the controller: the two tools from the
collection's files and their configuration, rendered from the effective policy."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import DEFAULT_SLICE, buffer_size_text

FILES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                         'roles', 'copy_tools', 'files')
# The tools run with the host's Python 3 (the collection's copies carry no interpreter line),
# isolated (-I: no PYTHON* variables, no user site) and without site (-S): they use the
# standard library only, so root's copies cannot pick up other code, and start faster.
SHEBANG = '#!/usr/bin/python3 -IS\n'
TOOLS = (('iotune-copy', 'iotune_copy.py'), ('iotune-bulk', 'iotune_bulk.py'))
DEFAULT_BIN_DIR = '/usr/local/bin'
DEFAULT_CONFIG = '/etc/iotune/copy.conf'


def render_copy_conf(tools, slice_name=DEFAULT_SLICE):
    """copy.conf for the normalized iotune_copy_tools ``tools`` ({buffer_size: bytes, streams})."""
    lines = [
        '# Managed by iotune.storage (copy_tools): defaults of iotune-copy and iotune-bulk.',
        '# Default I/O size of iotune-copy (--buffer-size overrides it).',
        'buffer_size=%s' % buffer_size_text(tools['buffer_size']),
        '# Buffers iotune-copy --direct keeps in flight, each read and written by its own thread (--streams overrides it).',
    ]
    if tools.get('streams') is None:
        lines.append('# Not set: 8, fewer where 8 buffers would pass 1G.')
    else:
        lines.append('streams=%d' % tools['streams'])
    lines += ['# Slice iotune-bulk runs commands in.', 'slice=%s' % slice_name]
    return '\n'.join(lines) + '\n'


def copy_tool_files(tools, bin_dir=DEFAULT_BIN_DIR, config=DEFAULT_CONFIG, slice_name=DEFAULT_SLICE,
                    files_dir=FILES_DIR):
    """[{path, content, mode}] of the tools and their configuration."""
    files = []
    for name, source in TOOLS:
        with open(os.path.join(files_dir, source)) as handle:
            files.append({'path': os.path.join(bin_dir, name), 'content': SHEBANG + handle.read(), 'mode': '0755'})
    files.append({'path': config, 'content': render_copy_conf(tools, slice_name), 'mode': '0644'})
    return files
