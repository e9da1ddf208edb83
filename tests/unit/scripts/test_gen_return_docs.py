# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The doc fragments: their YAML, and the shared RETURN entries that scripts/gen_return_docs copies
into the modules (ansible-core merges fragments into DOCUMENTATION only): every copy is the
fragment's text, every module that extends such a fragment has one, and no module documents a
shared return value a second time outside it."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import importlib.machinery
import importlib.util
import os
import re

import pytest
import yaml

from ansible_collections.iotune.storage.tests.unit.meta import collection_docs as cd

SCRIPT = cd.path('scripts', 'gen_return_docs')
LOADER = importlib.machinery.SourceFileLoader('gen_return_docs', SCRIPT)
gen_return_docs = importlib.util.module_from_spec(importlib.util.spec_from_loader('gen_return_docs', LOADER))
LOADER.exec_module(gen_return_docs)

FRAGMENTS = sorted(glob.glob(cd.path('plugins', 'doc_fragments', '*.py')))


@pytest.mark.parametrize('path', FRAGMENTS, ids=os.path.basename)
def test_every_fragment_text_is_yaml_with_options_or_return_entries(path):
    for name, text in cd.class_string_constants(path).items():
        data = yaml.safe_load(text)
        assert isinstance(data, dict), (path, name)
        if name == 'RETURN':
            assert all(set(entry) >= {'description', 'returned', 'type'} for entry in data.values()), (path, name)
        else:
            assert 'options' in data, (path, name)


def test_the_modules_hold_the_fragments_return_text():
    problems, updates = gen_return_docs.problems_and_updates(cd.ROOT)
    assert not problems
    assert not updates, 'run scripts/gen_return_docs: %s' % sorted(os.path.relpath(path, cd.ROOT) for path in updates)


def test_the_journal_fragment_has_shared_return_values_and_the_concern_modules_use_them():
    returns = gen_return_docs.fragment_returns(cd.ROOT)
    assert sorted(yaml.safe_load(returns['iotune.storage.journal'])) == ['checks_before', 'journal', 'reloaded', 'run_id']
    users = [name for name in cd.module_names()
             if 'iotune.storage.journal' in (cd.module_docs(name)[0].get('extends_documentation_fragment') or [])]
    assert len(users) >= 6, users
    for name in users:
        ret = cd.module_docs(name)[1]
        assert set(['run_id', 'journal', 'reloaded', 'checks_before']) <= set(ret), name


@pytest.mark.parametrize('name', cd.module_names())
def test_no_return_value_is_documented_twice(name):
    text = cd.string_constants(cd.module_file(name)).get('RETURN') or ''
    keys = re.findall(r'^([A-Za-z_][A-Za-z0-9_]*):', text, re.M)
    assert len(keys) == len(set(keys)), sorted(key for key in set(keys) if keys.count(key) > 1)


def test_render_replaces_a_stale_copy_and_names_an_unknown_fragment():
    returns = {'iotune.storage.x': 'a:\n  description: new\n'}
    text = ('b: 1\n# BEGIN scripts/gen_return_docs: iotune.storage.x\na:\n  description: old\n# END scripts/gen_return_docs\n'
            '# BEGIN scripts/gen_return_docs: iotune.storage.y\nc: 1\n# END scripts/gen_return_docs\n')
    rendered, unknown = gen_return_docs.render(text, returns)
    assert rendered.startswith('b: 1\n# BEGIN scripts/gen_return_docs: iotune.storage.x\na:\n  description: new\n# END')
    assert unknown == ['iotune.storage.y']


def test_check_mode_names_a_module_without_its_block(tmp_path):
    (tmp_path / 'plugins' / 'doc_fragments').mkdir(parents=True)
    (tmp_path / 'plugins' / 'modules').mkdir(parents=True)
    (tmp_path / 'plugins' / 'doc_fragments' / 'journal.py').write_text(
        "class ModuleDocFragment(object):\n    DOCUMENTATION = r'''\noptions: {}\n'''\n    RETURN = r'''\na:\n  description: x\n'''\n")
    (tmp_path / 'plugins' / 'modules' / 'm.py').write_text(
        "DOCUMENTATION = r'''\nmodule: m\nextends_documentation_fragment:\n  - iotune.storage.journal\n'''\nRETURN = r'''\nb: 1\n'''\n")
    assert gen_return_docs.main(['--root', str(tmp_path), '--check']) == 1
    problems, updates = gen_return_docs.problems_and_updates(str(tmp_path))
    assert problems == ['plugins/modules/m.py: extends iotune.storage.journal but its RETURN has no '
                        '"# BEGIN scripts/gen_return_docs: iotune.storage.journal" ... "# END scripts/gen_return_docs" block']
    assert updates == {}
