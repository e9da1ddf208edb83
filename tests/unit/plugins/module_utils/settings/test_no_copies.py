# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""No code lists the settings of a table again: adding a setting is adding a table entry (issue 25, item 1)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ast
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import SETTINGS
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS, dotted

ROOT = os.path.dirname(os.path.abspath(__file__))
for _ in range(5):
    ROOT = os.path.dirname(ROOT)
TABLES = ('plugins/module_utils/settings/block_queue.py', 'plugins/module_utils/settings/cache_limits.py')
NAMES = {
    'queue settings': set(SETTINGS),
    'vm sysctls': set(VM_KEYS) | set(dotted(name) for name in VM_KEYS),
}


def _string_collections(path):
    """(line, [string items]) of every tuple, list, set and dict (its keys) in the file at ``path``."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            yield node.lineno, [item.value for item in node.elts if isinstance(item, ast.Constant)]
        elif isinstance(node, ast.Dict):
            yield node.lineno, [key.value for key in node.keys if isinstance(key, ast.Constant)]


def _code_files():
    for directory in ('plugins/module_utils', 'plugins/modules', 'plugins/action', 'plugins/filter', 'scripts'):
        for parent, dummy, names in os.walk(os.path.join(ROOT, directory)):
            for name in sorted(names):
                relative = os.path.relpath(os.path.join(parent, name), ROOT)
                if (name.endswith('.py') or name == 'gen_schema') and relative not in TABLES:
                    yield relative


@pytest.mark.parametrize('path', sorted(_code_files()))
def test_no_code_lists_the_settings_again(path):
    """A tuple, list, set or dict that names two settings of one table is a copy of the table."""
    for line, items in _string_collections(os.path.join(ROOT, path)):
        for what, names in NAMES.items():
            found = sorted(set(items) & names)
            assert len(found) < 2, '%s line %d lists %s (%s): derive them from the table' % (path, line, what, ', '.join(found))


def test_the_check_finds_a_copy(tmp_path):
    path = tmp_path / 'copy.py'
    path.write_text("WRITE_ORDER = ('scheduler', 'nr_requests')\nKEYS = {'vm.dirty_ratio': 1, 'swappiness': 2}\n")
    assert list(_string_collections(str(path))) == [(1, ['scheduler', 'nr_requests']), (2, ['vm.dirty_ratio', 'swappiness'])]
