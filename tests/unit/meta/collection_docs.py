# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read the collection's own metadata for the tests of tests/unit/meta: galaxy.yml,
meta/runtime.yml, the DOCUMENTATION and RETURN strings of the modules (without
importing them), the filter docs and the roles' argument specs."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import ast
import glob
import json
import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
COLLECTION = 'iotune.storage'


def path(*parts):
    return os.path.join(ROOT, *parts)


def load_yaml(*parts):
    with open(path(*parts), 'r', encoding='utf-8') as handle:
        return yaml.safe_load(handle)


def galaxy():
    """galaxy.yml; in an installed collection, which has none, the same fields from MANIFEST.json."""
    if not os.path.exists(path('galaxy.yml')) and os.path.exists(path('MANIFEST.json')):
        with open(path('MANIFEST.json'), 'r', encoding='utf-8') as handle:
            return json.load(handle)['collection_info']
    return load_yaml('galaxy.yml')


def runtime():
    return load_yaml('meta', 'runtime.yml')


def version_tuple(version):
    """(major, minor, patch) of a X.Y.Z version; ValueError otherwise (a prerelease is not used here)."""
    match = re.match(r'^(\d+)\.(\d+)\.(\d+)$', str(version))
    if not match:
        raise ValueError('%r is not a X.Y.Z version' % (version,))
    return tuple(int(part) for part in match.groups())


def string_constants(file_path):
    """{name: text} of the module-level string assignments of a Python file (DOCUMENTATION, RETURN, ...)."""
    with open(file_path, 'r', encoding='utf-8') as handle:
        tree = ast.parse(handle.read(), file_path)
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


def class_string_constants(file_path, class_name='ModuleDocFragment'):
    """{name: text} of the string attributes of a class (the doc fragments' DOCUMENTATION, PROC, ...)."""
    with open(file_path, 'r', encoding='utf-8') as handle:
        tree = ast.parse(handle.read(), file_path)
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant) and isinstance(item.value.value, str):
                    for target in item.targets:
                        if isinstance(target, ast.Name):
                            found[target.id] = item.value.value
    return found


def module_names():
    return sorted(os.path.basename(name)[:-3] for name in glob.glob(path('plugins', 'modules', '*.py'))
                  if not os.path.basename(name).startswith('_'))


def module_file(name):
    return path('plugins', 'modules', name + '.py')


def module_docs(name):
    """(DOCUMENTATION, RETURN) of a module as parsed YAML, before doc fragments are merged."""
    constants = string_constants(module_file(name))
    return yaml.safe_load(constants['DOCUMENTATION']), yaml.safe_load(constants.get('RETURN') or '') or {}


def filter_docs():
    """{name: DOCUMENTATION} of the filters documented in plugins/filter/*.yml."""
    docs = {}
    for name in sorted(glob.glob(path('plugins', 'filter', '*.yml'))):
        with open(name, 'r', encoding='utf-8') as handle:
            docs[os.path.basename(name)[:-4]] = yaml.safe_load(handle)['DOCUMENTATION']
    return docs


def role_specs():
    """{role: argument_specs} of every role with a meta/argument_specs.yml."""
    specs = {}
    for name in sorted(glob.glob(path('roles', '*', 'meta', 'argument_specs.yml'))):
        role = name.split(os.sep)[-3]
        with open(name, 'r', encoding='utf-8') as handle:
            specs[role] = (yaml.safe_load(handle) or {}).get('argument_specs') or {}
    return specs
