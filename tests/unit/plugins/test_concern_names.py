# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One name per concern (issue 42): each concern of common/checks.CONCERNS is its module, its role, its
engine concern (engine/concerns/<name>.py), its planner (plan/<name>.py, with plan/<name>_unix.py where
Solaris and HP-UX differ) and its settings table where it has one (settings/<name>.py), and the unit tests
of those are named after it. The policy's public variables keep their names (iotune_cache, iotune_mounts...)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import CONCERNS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
UTILS = os.path.join(ROOT, 'plugins', 'module_utils')
# the concerns whose settings are a table of their own (mount_options: the catalogue and the mount words;
# copy_tools: the copy tool's options, in the policy schema)
TABLES = ('block_queue', 'cache_limits', 'tunefstab', 'mount_options')


@pytest.mark.parametrize('concern', CONCERNS)
def test_every_part_of_a_concern_has_its_name(concern):
    paths = (('plugins', 'modules', concern + '.py'), ('roles', concern),
             ('plugins', 'module_utils', 'engine', 'concerns', concern + '.py'), ('plugins', 'module_utils', 'plan', concern + '.py'))
    for path in paths:
        assert os.path.exists(os.path.join(ROOT, *path)), os.path.join(*path)
    assert os.path.exists(os.path.join(UTILS, 'settings', concern + '.py')) == (concern in TABLES)


@pytest.mark.parametrize('layer', ['plan', 'settings', 'engine/concerns'])
def test_no_file_of_a_concern_layer_has_another_concern_name(layer):
    """A planner, table or engine concern is named after a concern (or is a helper of one that says so in
    its name's first part: plan/queue_limits.py and plan/stacking.py are block_queue's)."""
    helpers = {'plan': ('queue_limits', 'stacking'), 'settings': ('mount_algebra', 'mount_words', 'nfs_options', 'platforms'),
               'engine/concerns': ()}
    for path in glob.glob(os.path.join(UTILS, layer, '*.py')):
        name = os.path.basename(path)[:-3]
        if name == '__init__' or name in helpers[layer]:
            continue
        assert any(name == concern or name == concern + '_unix' for concern in CONCERNS), '%s/%s.py' % (layer, name)


def test_the_unit_tests_of_a_concern_say_its_name():
    """No abbreviation: test files of the plan and settings layers start with test_<concern>, or name a helper."""
    for path in glob.glob(os.path.join(ROOT, 'tests', 'unit', 'plugins', 'module_utils', '*', 'test_*.py')):
        assert 'blockq' not in os.path.basename(path) and not os.path.basename(path).startswith(('test_vm_', 'test_cache_plan'))
