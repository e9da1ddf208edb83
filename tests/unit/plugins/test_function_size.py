# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""No function in plugins/ or in the copy tool's package is longer than 60 lines (issue 25): a longer
one is split into steps whose names say what they do."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LIMIT = 60


def _python_files(*tops):
    for top in tops:
        for directory, dummy, names in os.walk(os.path.join(ROOT, top)):
            for name in sorted(names):
                if name.endswith('.py'):
                    yield os.path.join(directory, name)


def long_functions(paths, limit=LIMIT):
    found = []
    for path in paths:
        with open(path) as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    found.append('%s:%d %s (%d lines)' % (os.path.relpath(path, ROOT), node.lineno, node.name, length))
    return found


def test_no_function_is_longer_than_60_lines():
    assert long_functions(_python_files('plugins', 'tools')) == []


def test_the_size_check_sees_a_long_function(tmp_path):
    source = tmp_path / 'long.py'
    source.write_text('def long():\n' + '    x = 1\n' * 61 + '\n\ndef short():\n    return 1\n')
    assert long_functions([str(source)]) == ['%s:1 long (62 lines)' % os.path.relpath(str(source), ROOT)]
