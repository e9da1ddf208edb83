# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The import graph of module_utils: which layer may import which (docs/architecture.md), and
how many module_utils files a module's payload carries (AnsiballZ ships every module_utils file
a module imports, directly or not, so a small module must not pull the policy or the engine)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ast
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PLUGINS = os.path.join(ROOT, 'plugins')
PREFIX = 'ansible_collections.iotune.storage.plugins.module_utils.'

# Each layer may import itself and the layers listed for it, nothing above.
ALLOWED = {
    'common': ('common',),
    'settings': ('common', 'settings'),
    'parse': ('common', 'settings', 'parse'),
    'policy': ('common', 'settings', 'parse', 'policy'),
    'plan': ('common', 'settings', 'parse', 'policy', 'plan'),
    'act': ('common', 'settings', 'parse', 'act'),
    # a search's plan (measure.search) checks its candidates against the queue settings table
    'measure': ('common', 'settings', 'parse', 'measure'),
    'engine': ('common', 'settings', 'parse', 'policy', 'plan', 'act', 'engine'),
}

# io_facts: 13 for Linux since parse.identity (the WWN, serial and model of a disk, issue 26), and 4 more
# since it reads Solaris and HP-UX hosts too (parse.unix_mounts, parse.unix_platform, parse.unixfacts,
# settings.platforms; issue 28)
# fio: 8 since its host-side helpers (the scratch file, the device check, one fio run) are measure.fio_run, shared
# with tune_io (issue 40)
# io_facts: 17 of its own, and the byte-code cache (common.bytecode, common.trust) that saves compiling them;
# io_report and fio, small, compile little and ship no cache
PAYLOAD_LIMITS = {'io_report': 4, 'fio': 14, 'io_facts': 19}
# every other module: what it ships today, so that a payload that grows is a decision (issue 42). The five
# deprecated per-concern modules run one concern each through engine/concerns/<concern>.py and ship its
# planner only; the engine (engine.run), the journal and act.apply they share with io_policy.
PAYLOAD_LIMITS.update({'io_fleet_report': 0, 'io_upgrade_report': 0, 'io_rollback': 36, 'io_snapshot': 34,
                       'copy_tools': 31, 'tunefstab': 37, 'mount_options': 38, 'cache_limits': 40, 'block_queue': 40,
                       'io_policy': 58, 'tune_io': 60})
# the planners of each concern (plan/), which only a module that runs the concern ships
CONCERN_PLANNERS = {
    'mount_options': ('plan.mount_options', 'plan.mount_options_unix'),
    'block_queue': ('plan.block_queue', 'plan.queue_limits', 'plan.stacking'),
    'cache_limits': ('plan.cache_limits', 'plan.cache_limits_unix'),
    'tunefstab': ('plan.tunefstab',),
    'copy_tools': ('plan.copy_tools',),
}


def _module_utils_imports(path):
    """Dotted module_utils modules (``common.files``) that the file at ``path`` imports."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PREFIX):
            base = node.module[len(PREFIX):]
            for alias in node.names:
                # ``from ...module_utils.parse import sysfs`` imports a module; ``from ...parse.sysfs import x`` a name
                candidate = base + '.' + alias.name
                found.add(candidate if os.path.exists(_file_of(candidate)) else base)
        elif isinstance(node, ast.ImportFrom) and node.module == PREFIX[:-1]:
            found.update(alias.name for alias in node.names)
    return found


def _file_of(dotted):
    return os.path.join(PLUGINS, 'module_utils', *dotted.split('.')) + '.py'


def _module_utils_files():
    for directory, dummy, names in os.walk(os.path.join(PLUGINS, 'module_utils')):
        for name in names:
            if name.endswith('.py') and name != '__init__.py':
                relative = os.path.relpath(os.path.join(directory, name), os.path.join(PLUGINS, 'module_utils'))
                yield relative[:-3].replace(os.sep, '.')


def payload(module_name):
    """The module_utils files (without the empty package __init__ files) a module ships."""
    seen = set()
    todo = list(_module_utils_imports(os.path.join(PLUGINS, 'modules', module_name + '.py')))
    while todo:
        dotted = todo.pop()
        if dotted in seen:
            continue
        seen.add(dotted)
        todo.extend(_module_utils_imports(_file_of(dotted)))
    return sorted(seen)


@pytest.mark.parametrize('dotted', sorted(_module_utils_files()))
def test_module_utils_import_only_their_own_or_lower_layers(dotted):
    layer = dotted.split('.')[0]
    assert layer in ALLOWED, '%s: a module_utils file outside the packages of docs/architecture.md' % dotted
    wrong = sorted(name for name in _module_utils_imports(_file_of(dotted)) if name.split('.')[0] not in ALLOWED[layer])
    assert not wrong, '%s (%s) imports %s, above its layer' % (dotted, layer, ', '.join(wrong))


def test_every_module_has_its_payload_pinned():
    modules = sorted(name[:-3] for name in os.listdir(os.path.join(PLUGINS, 'modules')) if name.endswith('.py'))
    assert sorted(PAYLOAD_LIMITS) == modules


@pytest.mark.parametrize('concern', sorted(CONCERN_PLANNERS))
def test_a_per_concern_module_ships_its_own_planner_only(concern):
    files = payload(concern)
    own = set(CONCERN_PLANNERS[concern])
    others = sorted(name for name in files if name.startswith('plan.') and name not in own)
    assert others == [], '%s ships the planners of other concerns: %s' % (concern, ', '.join(others))
    assert [name for name in files if name.startswith('engine.concerns.')] == ['engine.concerns.' + concern]
    assert own & set(files), 'the closure found none of its own planners'


@pytest.mark.parametrize('module_name', sorted(PAYLOAD_LIMITS))
def test_small_modules_ship_few_module_utils(module_name):
    files = payload(module_name)
    assert len(files) <= PAYLOAD_LIMITS[module_name], '%s ships %d module_utils files: %s' % (module_name, len(files), ', '.join(files))


def test_the_architecture_doc_gives_every_module_its_payload():
    """docs/architecture.md, "What a module carries": each row names modules and, in the same order, their counts."""
    with open(os.path.join(ROOT, 'docs', 'architecture.md')) as handle:
        text = handle.read()
    section = text.split('## What a module carries', 1)[1].split('\n## ', 1)[0]
    documented = {}
    for row in re.findall(r'^\| (`[^|]+) \| ([0-9][0-9, ]*):', section, re.M):
        names, counts = re.findall(r'`([a-z_]+)`', row[0]), [int(count) for count in row[1].split(',')]
        assert len(names) == len(counts), row
        documented.update(zip(names, counts))
    assert documented == dict((name, len(payload(name))) for name in PAYLOAD_LIMITS)


def test_payload_follows_imports_through_packages():
    """The closure is not vacuous: io_policy, the engine, carries the planners and the journal."""
    files = payload('io_policy')
    assert 'engine.run' in files and 'act.journal' in files and 'plan.mount_options' in files and 'common.atomic' in files
    assert set(name for planners in CONCERN_PLANNERS.values() for name in planners) <= set(files)
