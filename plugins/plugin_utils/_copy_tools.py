# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The files of the copy tools concern, built on the controller: the two tools, zipapps built from
the package tools/iotune_copy, named by their sha256 and sent only when the host needs them, and
their configuration, rendered from the effective policy."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import hashlib
import importlib.util
import os

from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import DEFAULT_SLICE
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import buffer_size_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# where make collection and make build put the zipapps (tools/zipapps.py)
FILES_DIR = os.path.join(ROOT, 'roles', 'copy_tools', 'files')
# the package they are built from, and the builder, for a tree where they were not built
TOOLS_DIR = os.path.join(ROOT, 'tools')
TOOLS = ('iotune-copy', 'iotune-bulk')
SUFFIX = '.pyz'
DEFAULT_BIN_DIR = '/usr/local/bin'
DEFAULT_CONFIG = '/etc/iotune/copy.conf'
_BUILT = {}


def _build(name, tools_dir):
    """The zipapp of ``name`` built in memory from tools_dir, as tools/zipapps.py builds it (the same bytes)."""
    if (name, tools_dir) not in _BUILT:
        builder_path = os.path.join(tools_dir, 'zipapps.py')
        if not os.path.isfile(builder_path):
            raise ValueError('%s is not built in this collection (no %s%s in %s, and no %s to build it from): '
                             'build the collection with make build' % (name, name, SUFFIX, FILES_DIR, builder_path))
        spec = importlib.util.spec_from_file_location('iotune_storage_zipapps', builder_path)
        builder = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(builder)
        _BUILT[(name, tools_dir)] = builder.build(name, os.path.join(tools_dir, builder.PACKAGE))
    return _BUILT[(name, tools_dir)]


def tool_bytes(name, files_dir=FILES_DIR, tools_dir=TOOLS_DIR):
    """The zipapp of tool ``name``: the file built with the collection (``<name>.pyz`` in files_dir),
    else built in memory from the package (a tree used as it is in git)."""
    path = os.path.join(files_dir, name + SUFFIX)
    if os.path.isfile(path):
        with open(path, 'rb') as handle:
            return handle.read()
    return _build(name, tools_dir)


def render_copy_conf(tools, slice_name=DEFAULT_SLICE):
    """copy.conf for the normalized iotune_copy_tools ``tools`` ({buffer_size: bytes, streams})."""
    lines = [
        '# Managed by iotune.storage (copy_tools): defaults of iotune-copy and iotune-bulk.',
        '# Default I/O size of iotune-copy (--buffer-size overrides it).',
        'buffer_size=%s' % buffer_size_text(tools['buffer_size']),
        '# Buffers iotune-copy --direct keeps in flight, each read and written by its own thread (--streams overrides it).',
    ]
    if tools.get('streams') is None:
        lines.append("# Not set: the tool's own default (iotune-copy --help), fewer where they would pass 1G.")
    else:
        lines.append('streams=%d' % tools['streams'])
    lines += ['# Slice iotune-bulk runs commands in.', 'slice=%s' % slice_name]
    return '\n'.join(lines) + '\n'


def copy_tool_files(tools, bin_dir=DEFAULT_BIN_DIR, config=DEFAULT_CONFIG, slice_name=DEFAULT_SLICE,
                    files_dir=FILES_DIR, tools_dir=TOOLS_DIR, send=None):
    """[{path, mode, sha256, size, content_b64 when sent} of each tool, then {path, content, mode} of
    copy.conf]. ``send(path, sha256)`` says whether a tool's content goes along (default: always);
    the host plans from the digest alone otherwise."""
    files = []
    for name in TOOLS:
        data = tool_bytes(name, files_dir, tools_dir)
        item = {'path': os.path.join(bin_dir, name), 'mode': '0755', 'sha256': hashlib.sha256(data).hexdigest(),
                'size': len(data)}
        if send is None or send(item['path'], item['sha256']):
            item['content_b64'] = base64.b64encode(data).decode('ascii')
        files.append(item)
    files.append({'path': config, 'content': render_copy_conf(tools, slice_name), 'mode': '0644'})
    return files
