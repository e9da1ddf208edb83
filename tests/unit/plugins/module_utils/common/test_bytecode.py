# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The byte-code cache of a payload's imports: a package imported from a real zip (as AnsiballZ ships
it) with the cache, then again from the cache without compiling anything; a changed source, a bad or
planted entry and an unsafe directory never change what runs."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import builtins
import importlib.util
import marshal
import os
import sys
import zipfile

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common import bytecode

PACKAGE = 'iotune_bytecode_probe'

SOURCES = {
    PACKAGE + '/__init__.py': '',
    PACKAGE + '/sub/__init__.py': 'KIND = "package"\n',
    PACKAGE + '/sub/mod.py': 'from iotune_bytecode_probe.sub import KIND\n\n\ndef answer():\n    return 42, KIND\n',
}


def _zip(path, sources):
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as archive:
        for name, text in sorted(sources.items()):
            archive.writestr(name, text)
    return str(path)


@pytest.fixture(name='payload')
def payload_fixture(tmp_path):
    """A function that puts a zip of sources first on sys.path and installs the cache (in tmp_path/cache);
    everything is taken off again after the test."""
    added = []

    def install(sources=None, name='payload.zip'):
        _forget()
        archive = _zip(tmp_path / name, sources or SOURCES)
        sys.path.insert(0, archive)
        added.append(archive)
        directory = bytecode.install(directory=str(tmp_path / 'cache' / 'bytecode'), payload=True, package=PACKAGE + '.')
        # the top-level package is Python's own (the collection's are imported before the cache is installed)
        __import__(PACKAGE)
        return archive, directory
    yield install
    _forget()
    for archive in added:
        sys.path.remove(archive)
        sys.path_importer_cache.pop(archive, None)


def _forget():
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, bytecode.CachingFinder)]
    for name in list(sys.modules):
        if name == PACKAGE or name.startswith(PACKAGE + '.'):
            del sys.modules[name]
    for entry in list(sys.path_importer_cache):
        if '.zip' in str(entry):
            del sys.path_importer_cache[entry]


def _import():
    __import__(PACKAGE + '.sub.mod')
    return sys.modules[PACKAGE + '.sub.mod']


def _entries(directory):
    return sorted(name for name in os.listdir(directory) if name.endswith(bytecode.SUFFIX))


@pytest.fixture(name='compiles')
def compiles_fixture(monkeypatch):
    """The file names builtins.compile is called with from now on (zipimport's and the cache's)."""
    seen = []
    real = builtins.compile

    def counting(source, filename, *args, **kwargs):
        seen.append(filename)
        return real(source, filename, *args, **kwargs)
    monkeypatch.setattr(builtins, 'compile', counting)
    return seen


PACKAGED = sorted(name for name in SOURCES if name != PACKAGE + '/__init__.py')


def test_a_payload_is_imported_once_compiled_then_from_the_cache(payload, compiles):
    archive, directory = payload()
    del compiles[:]
    mod = _import()
    assert mod.answer() == (42, 'package')
    # each module compiled once (zipimport's own finder compiles each module twice: once to name its file)
    assert sorted(os.path.relpath(name, archive) for name in compiles) == PACKAGED
    assert mod.__file__ == os.path.join(archive, PACKAGE, 'sub', 'mod.py')
    assert sys.modules[PACKAGE + '.sub'].__path__ == [os.path.join(archive, PACKAGE, 'sub')]
    assert len(_entries(directory)) == 2
    assert oct(os.stat(directory).st_mode & 0o777) == oct(0o700)
    assert all(os.stat(os.path.join(directory, name)).st_mode & 0o777 == 0o600 for name in _entries(directory))

    archive, directory = payload(name='again.zip')
    del compiles[:]
    assert _import().answer() == (42, 'package')
    assert compiles == []


def test_a_changed_source_is_compiled_not_taken_from_the_cache(payload, compiles):
    payload()
    _import()
    changed = dict(SOURCES)
    changed[PACKAGE + '/sub/mod.py'] = SOURCES[PACKAGE + '/sub/mod.py'].replace('42', '43')
    archive, directory = payload(changed, name='changed.zip')
    del compiles[:]
    assert _import().answer() == (43, 'package')
    assert [os.path.relpath(name, archive) for name in compiles] == [PACKAGE + '/sub/mod.py']
    assert len(_entries(directory)) == 3


def _entry_of(directory, module, source):
    digest = bytecode.source_digest(module, source.encode('utf-8'), importlib.util.MAGIC_NUMBER)
    return bytecode.entry_path(directory, digest), digest


@pytest.mark.parametrize('damage', ['garbage', 'truncated', 'other code', 'link', 'group writable', 'too large'])
def test_a_bad_entry_is_compiled_again(payload, compiles, tmp_path, damage):
    archive, directory = payload()
    _import()
    path, digest = _entry_of(directory, PACKAGE + '.sub.mod', SOURCES[PACKAGE + '/sub/mod.py'])
    data = open(path, 'rb').read()
    os.unlink(path)
    if damage == 'garbage':
        open(path, 'wb').write(digest + b'\xff\x00not marshal')
    elif damage == 'truncated':
        open(path, 'wb').write(data[:len(data) // 2])
    elif damage == 'other code':
        # the code of another source under this source's name: refused, its first bytes are not this source's digest
        planted = compile('def answer():\n    return "planted"\n', 'x', 'exec')
        open(path, 'wb').write(b'\0' * bytecode.DIGEST_BYTES + marshal.dumps(planted))
    elif damage == 'link':
        target = tmp_path / 'planted'
        target.write_bytes(data)
        os.symlink(str(target), path)
    elif damage == 'group writable':
        open(path, 'wb').write(data)
        os.chmod(path, 0o660)
    else:
        open(path, 'wb').write(data + b'\0' * bytecode.MAX_BYTES)
    archive, directory = payload(name='again.zip')
    del compiles[:]
    assert _import().answer() == (42, 'package')
    assert [os.path.relpath(name, archive) for name in compiles] == [PACKAGE + '/sub/mod.py']
    # and a good entry took its place (a link is replaced, not followed)
    namespace = {}
    exec(marshal.loads(bytecode.read_entry(path, digest)), namespace)
    assert namespace['answer']() == (42, 'package')
    assert not os.path.islink(path)


@pytest.mark.parametrize('mode', [0o770, 0o707])
def test_an_unsafe_directory_means_no_cache(tmp_path, mode):
    directory = tmp_path / 'bytecode'
    directory.mkdir()
    os.chmod(str(directory), mode)
    try:
        assert bytecode.install(directory=str(directory), payload=True, package=PACKAGE + '.') is None
        assert not any(isinstance(finder, bytecode.CachingFinder) for finder in sys.meta_path)
    finally:
        _forget()


def test_a_linked_directory_means_no_cache(tmp_path):
    (tmp_path / 'real').mkdir(mode=0o700)
    os.symlink(str(tmp_path / 'real'), str(tmp_path / 'bytecode'))
    try:
        assert bytecode.install(directory=str(tmp_path / 'bytecode'), payload=True, package=PACKAGE + '.') is None
    finally:
        _forget()


def test_not_from_a_payload_no_cache(tmp_path):
    # the unit tests import the collection from a directory: Python's own __pycache__ serves
    assert bytecode.from_payload() is False
    assert bytecode.install(directory=str(tmp_path / 'bytecode'), package=PACKAGE + '.') is None
    assert not (tmp_path / 'bytecode').exists()


def test_the_user_cache_is_in_home():
    assert bytecode.cache_dir(0) == '/var/cache/iotune/bytecode'
    assert bytecode.cache_dir(1000) == os.path.expanduser('~/.cache/iotune/bytecode')


def test_prune_keeps_the_newest_and_removes_temporary_files(tmp_path):
    for number in range(6):
        path = tmp_path / ('%02d%s' % (number, bytecode.SUFFIX))
        path.write_bytes(b'x')
        os.utime(str(path), (1000 + number, 1000 + number))
    (tmp_path / ('05%s.123.tmp' % bytecode.SUFFIX)).write_bytes(b'x')
    (tmp_path / 'unrelated').write_bytes(b'x')
    bytecode.prune(str(tmp_path), keep=4)
    assert sorted(os.listdir(str(tmp_path))) == ['02.code', '03.code', '04.code', '05.code', 'unrelated']


def test_modules_outside_the_package_are_left_to_python(payload):
    payload()
    finder = [finder for finder in sys.meta_path if isinstance(finder, bytecode.CachingFinder)][0]
    assert finder.find_spec('json') is None
    # a top-level name is Python's own, in sys.path's order
    assert finder.find_spec(PACKAGE + '.missing', None) is None
    assert finder.find_spec(PACKAGE + '.missing', [os.path.dirname(__file__)]) is None
