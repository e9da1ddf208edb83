# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The package tools/iotune_copy and the zipapps built from it: reproducible, run as installed
(``python3 -IS``), iotune-bulk without iotune-copy's engine, the standard library only, small
functions; and the controller sending the same bytes whether the collection was built or not."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ast
import hashlib
import os
import subprocess
import sys
import zipfile

import pytest

from ansible_collections.iotune.storage.plugins.plugin_utils import _copy_tools
from ansible_collections.iotune.storage.tests.unit.tools.copy_tool import SOURCE, TOOLS_DIR, _builder, zipapp

MAX_FUNCTION_LINES = 60


def test_the_build_is_reproducible_and_has_the_tools_interpreter_line():
    builder = _builder()
    for name in ('iotune-copy', 'iotune-bulk'):
        first, second = builder.build(name), builder.build(name)
        assert first == second
        assert first.startswith(b'#!/usr/bin/python3 -IS\n')


def test_iotune_bulk_carries_only_what_it_needs():
    with zipfile.ZipFile(zipapp('iotune-bulk')) as archive:
        assert sorted(archive.namelist()) == ['__main__.py', 'iotune_copy/__init__.py', 'iotune_copy/bulk.py',
                                              'iotune_copy/config.py', 'iotune_copy/errors.py']
    with zipfile.ZipFile(zipapp('iotune-copy')) as archive:
        assert 'iotune_copy/bulk.py' not in archive.namelist() and 'iotune_copy/streams.py' in archive.namelist()


@pytest.mark.parametrize('name, text', [('iotune-copy', 'usage: iotune-copy [options] SOURCE DEST'),
                                        ('iotune-bulk', 'usage: iotune-bulk COMMAND')])
def test_each_zipapp_runs_isolated_as_installed(name, text):
    done = subprocess.run([sys.executable, '-I', '-S', zipapp(name), '--help'], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=30, check=False)
    assert done.returncode == 0 and text in done.stdout


def _functions(path):
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.end_lineno - node.lineno + 1


def test_no_function_of_the_package_is_over_60_lines():
    long = ['%s:%s (%d lines)' % (name, function, lines)
            for name in sorted(os.listdir(SOURCE)) if name.endswith('.py')
            for function, lines in _functions(os.path.join(SOURCE, name)) if lines > MAX_FUNCTION_LINES]
    assert long == []


def test_the_package_imports_the_standard_library_and_itself_only():
    stdlib = set(sys.stdlib_module_names)
    foreign = []
    for name in sorted(os.listdir(SOURCE)) + ['../zipapps.py']:
        if not name.endswith('.py'):
            continue
        with open(os.path.join(SOURCE, name)) as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                foreign += ['%s: %s' % (name, alias.name) for alias in node.names if alias.name.split('.')[0] not in stdlib]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module.split('.')[0] not in stdlib:
                foreign.append('%s: %s' % (name, node.module))
    assert foreign == []


def test_the_controller_sends_the_built_file_and_else_builds_the_same_bytes(tmp_path):
    built = tmp_path / 'files'
    built.mkdir()
    (built / 'iotune-copy.pyz').write_bytes(b'#!/usr/bin/python3 -IS\nbuilt\n')
    assert _copy_tools.tool_bytes('iotune-copy', str(built), TOOLS_DIR) == b'#!/usr/bin/python3 -IS\nbuilt\n'
    with open(zipapp('iotune-bulk'), 'rb') as handle:
        assert _copy_tools.tool_bytes('iotune-bulk', str(built), TOOLS_DIR) == handle.read()
    with pytest.raises(ValueError, match='iotune-bulk is not built in this collection'):
        _copy_tools.tool_bytes('iotune-bulk', str(built), str(tmp_path / 'no-tools'))


def test_the_files_name_each_tool_by_its_digest():
    files = _copy_tools.copy_tool_files({'buffer_size': 8 << 20}, send=lambda path, digest: False)
    with open(zipapp('iotune-copy'), 'rb') as handle:
        data = handle.read()
    assert files[0] == {'path': '/usr/local/bin/iotune-copy', 'mode': '0755', 'sha256': hashlib.sha256(data).hexdigest(),
                        'size': len(data)}
    assert files[2]['path'] == '/etc/iotune/copy.conf' and 'buffer_size=8M\n' in files[2]['content']


def test_the_zipapps_modules_are_compiled_once_from_the_archive():
    """zipimport compiles a module twice (once to tell its file name): the package loads its own modules."""
    code = ('import sys; sys.path.insert(0, sys.argv[1]); import iotune_copy.cli as cli, linecache; '
            'print(type(cli.__spec__.loader).__name__, cli.__file__ == sys.argv[1] + "/iotune_copy/cli.py", '
            'bool(linecache.getline(cli.__file__, 1, cli.__dict__)))')
    done = subprocess.run([sys.executable, '-I', '-S', '-c', code, zipapp('iotune-copy')], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=30, check=False)
    assert (done.returncode, done.stdout) == (0, '_ArchiveModules True True\n')
