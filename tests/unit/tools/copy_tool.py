# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How the tests load iotune-copy and iotune-bulk: the package tools/iotune_copy, imported from its
directory, and the zipapps built from it (tools/zipapps.py) for the tests that run a tool in a
subprocess, as the hosts run it.

``load_tool()`` gives the copy tool's modules as one namespace, as the tests knew it when the tool
was one file: reading a name gives it from the module that has it; setting one (monkeypatch) sets it
in every module of the tool that has that name, the module that defines it and those that import
it, so that a test that makes ``write_at`` fail makes every caller's ``write_at`` fail."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import atexit
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
TOOLS_DIR = os.path.join(ROOT, 'tools')
SOURCE = os.path.join(TOOLS_DIR, 'iotune_copy')
# the modules of iotune-copy, in the order names are looked up (bulk.py is iotune-bulk's)
COPY_MODULES = ('cli', 'tree', 'files', 'existing', 'verify', 'engine', 'streams', 'endpoint', 'options', 'progress', 'system',
                'config', 'sizes', 'errors')
_BUILT = {}


def _package():
    if 'iotune_copy' not in sys.modules:
        spec = importlib.util.spec_from_file_location('iotune_copy', os.path.join(SOURCE, '__init__.py'),
                                                      submodule_search_locations=[SOURCE])
        package = importlib.util.module_from_spec(spec)
        sys.modules['iotune_copy'] = package
        spec.loader.exec_module(package)
    return sys.modules['iotune_copy']


def module(name):
    """The package's module ``name`` (e.g. 'bulk')."""
    _package()
    return importlib.import_module('iotune_copy.' + name)


class ToolNamespace(object):
    """The copy tool's modules as one namespace (see the module's docstring). It has no ``__dict__``
    of its own: monkeypatch then records the value read through the namespace, and puts it back the
    same way."""
    __slots__ = ('_modules',)

    def __init__(self, modules):
        object.__setattr__(self, '_modules', modules)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        for found in self._modules:
            if hasattr(found, name):
                return getattr(found, name)
        raise AttributeError('iotune-copy has no %s' % name)

    def __setattr__(self, name, value):
        holders = [found for found in self._modules if hasattr(found, name)]
        if not holders:
            raise AttributeError('iotune-copy has no %s' % name)
        for found in holders:
            setattr(found, name, value)


def load_tool():
    return ToolNamespace([module(name) for name in COPY_MODULES])


def load_bulk():
    return module('bulk')


def _builder():
    spec = importlib.util.spec_from_file_location('iotune_zipapps', os.path.join(TOOLS_DIR, 'zipapps.py'))
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    return builder


def zipapp(name):
    """Path of tool ``name`` ('iotune-copy' or 'iotune-bulk') built as the collection builds it, once
    per test process, in a temporary directory removed at exit."""
    if name not in _BUILT:
        directory = tempfile.mkdtemp(prefix='iotune-zipapps-')
        atexit.register(shutil.rmtree, directory, True)
        path = os.path.join(directory, name)
        with open(path, 'wb') as handle:
            handle.write(_builder().build(name))
        os.chmod(path, 0o755)
        _BUILT[name] = path
    return _BUILT[name]
