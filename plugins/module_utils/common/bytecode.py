# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A byte-code cache on the managed host for the collection's own Python.

AnsiballZ ships sources only, in a zip that Python's zipimport cannot cache byte code for: every
run of a module compiled the collection's modules again, about as much CPU as the round trip of
``ansible -m ping`` itself (docs/performance.md). ``install()``, called first by a module run from its
payload, puts a finder in front of ``sys.meta_path`` for the
``ansible_collections.iotune.storage`` package: the source still comes from the payload, and its
code object is taken from the cache when the cache holds one for exactly that source, else compiled
and stored.

The cache is a directory of the running user, private as the journal's (common.trust: not a link,
owned by that user, writable by nobody else, nor any directory above it unless sticky);
``/var/cache/iotune/bytecode`` for root, ``~/.cache/iotune/bytecode`` for others. An entry is named
by the sha256 of the interpreter's magic number, the module name and the source, and it starts with
that digest again: a file is used only when it is a regular file of the running user (opened without
following links), at most 4 MiB, with the digest of the source at hand. Anything else (a missing or
unsafe directory, a bad entry, Python 2) means the source is compiled as before; the cache never
decides what runs, the payload does. At most ``MAX_ENTRIES`` entries are kept, the oldest removed
first."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib
import os
import stat
import sys

from ansible_collections.iotune.storage.plugins.module_utils.common.trust import (
    UnsafeDirectory, open_nofollow, private_directory)

PACKAGE = 'ansible_collections.iotune.storage.'
ROOT_DIR = '/var/cache/iotune/bytecode'
USER_DIR = os.path.join('~', '.cache', 'iotune', 'bytecode')
SUFFIX = '.code'
MAX_BYTES = 4 * 1024 * 1024
MAX_ENTRIES = 1024
DIGEST_BYTES = 32


def cache_dir(euid=None):
    """Where the running user's cache is (not checked)."""
    euid = os.geteuid() if euid is None else euid
    return ROOT_DIR if euid == 0 else os.path.expanduser(USER_DIR)


def source_digest(fullname, source, magic):
    """sha256 of the magic number, the module's name and its source (bytes): an entry's identity."""
    return hashlib.sha256(magic + b'\0' + fullname.encode('utf-8') + b'\0' + source).digest()


def entry_path(directory, digest):
    return os.path.join(directory, digest.hex() + SUFFIX)


def read_entry(path, digest):
    """The marshalled code of ``path`` when it is a regular file of the running user, not a link, at
    most MAX_BYTES, starting with ``digest``; else None."""
    try:
        fd = open_nofollow(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_size > MAX_BYTES or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return None
        data = b''
        while len(data) < st.st_size:
            chunk = os.read(fd, st.st_size - len(data))
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    if len(data) != st.st_size or data[:DIGEST_BYTES] != digest:
        return None
    return data[DIGEST_BYTES:]


def write_entry(path, digest, payload):
    """Write an entry atomically (a new 0600 file renamed over ``path``); an OSError is the caller's to ignore."""
    temp = '%s.%d.tmp' % (path, os.getpid())
    fd = open_nofollow(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        data = digest + payload
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)
    try:
        os.rename(temp, path)
    except OSError:
        os.unlink(temp)
        raise


def prune(directory, keep=MAX_ENTRIES):
    """Remove the oldest entries (by modification time) beyond ``keep``, and temporary files left by a killed run."""
    entries = []
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if name.endswith('.tmp'):
            entries.append((0, path))
        elif name.endswith(SUFFIX) and stat.S_ISREG(st.st_mode):
            entries.append((st.st_mtime, path))
    entries.sort()
    stale = [path for mtime, path in entries if mtime == 0]
    kept = [path for mtime, path in entries if mtime != 0]
    for path in stale + kept[:max(len(kept) - keep, 0)]:
        try:
            os.unlink(path)
        except OSError:
            pass


class CachingLoader(object):
    """The loader of one module of the package in the payload: its source from the zip, its code from the cache."""

    def __init__(self, importer, filename, cache):
        self.importer, self.filename, self.cache = importer, filename, cache

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.get_code(module.__name__), module.__dict__)

    def is_package(self, fullname):
        return self.importer.is_package(fullname)

    def get_source(self, fullname):
        return self.importer.get_source(fullname)

    def get_filename(self, fullname):
        return self.filename

    def get_code(self, fullname):
        source = self.get_source(fullname)
        if source is None:
            return self.importer.get_code(fullname)
        return self.cache.code(fullname, source.encode('utf-8'), self.filename)


class CachingFinder(object):
    """Finds the package's modules in the payload's zip and gives them a CachingLoader.

    zipimport's own finder asks its loader for the file name, and zipimport works that out by compiling
    the module (Python 3.6 to 3.13): each module was compiled twice per run, once to be found and once
    to be run. This finder reads the zip's table of contents instead, through the same zipimporter."""

    def __init__(self, directory, magic, marshal, zipimport, spec_from_loader, package=PACKAGE):
        self.directory, self.magic, self.marshal = directory, magic, marshal
        self.zipimport, self.spec_from_loader, self.package = zipimport, spec_from_loader, package
        self.pruned = False

    def find_spec(self, fullname, path=None, target=None):
        # a top-level name, or a package with a part outside a zip: Python's own machinery, in its order
        if not fullname.startswith(self.package) or path is None:
            return None
        tail = fullname.rpartition('.')[2]
        for entry in path:
            importer = self.importer(entry)
            if importer is None:
                return None
            try:
                package = importer.is_package(fullname)
            except self.zipimport.ZipImportError:
                continue
            location = os.path.join(importer.archive, importer.prefix + tail)
            filename = os.path.join(location, '__init__.py') if package else location + '.py'
            spec = self.spec_from_loader(fullname, CachingLoader(importer, filename, self), origin=filename, is_package=package)
            spec.has_location = True
            if package:
                spec.submodule_search_locations = [location]
            return spec
        return None

    def importer(self, entry):
        """The zipimporter of a path entry inside a zip, else None."""
        importer = sys.path_importer_cache.get(entry)
        if isinstance(importer, self.zipimport.zipimporter):
            return importer
        if importer is not None or not isinstance(entry, str) or '.zip' not in entry:
            return None
        try:
            importer = self.zipimport.zipimporter(entry)
        except self.zipimport.ZipImportError:
            return None
        sys.path_importer_cache[entry] = importer
        return importer

    def code(self, fullname, source, filename):
        """The code object of ``source``: the cache's, else compiled and stored (once per process the
        directory is pruned after a store)."""
        digest = source_digest(fullname, source, self.magic)
        path = entry_path(self.directory, digest)
        payload = read_entry(path, digest)
        if payload is not None:
            try:
                return self.marshal.loads(payload)
            except (EOFError, ValueError, TypeError):
                pass
        code = compile(source, filename, 'exec', dont_inherit=True)
        try:
            write_entry(path, digest, self.marshal.dumps(code))
            if not self.pruned:
                self.pruned = True
                prune(self.directory)
        except OSError:
            pass
        return code


def from_payload():
    """True when the collection is imported from a zip (AnsiballZ's payload), where Python keeps no byte code;
    False for a directory (unit tests, ansible-test's import test), where Python's own __pycache__ serves."""
    import zipimport
    return isinstance(globals().get('__loader__'), zipimport.zipimporter)


def install(euid=None, directory=None, payload=None, package=PACKAGE):
    """Put the cache in front of the imports of ``package`` (a prefix of module names) when they come from a
    payload (``payload``: from_payload() when None); the directory used, or None when there is no cache
    (Python 2, not a payload, a directory that is unsafe or cannot be made: the sources are compiled as before)."""
    if sys.version_info[0] < 3 or any(isinstance(finder, CachingFinder) for finder in sys.meta_path):
        return None
    if not (from_payload() if payload is None else payload):
        return None
    import importlib.util
    import marshal
    import zipimport
    directory = directory or cache_dir(euid)
    try:
        private_directory(directory, 'bytecode cache', euid=euid)
    except (OSError, UnsafeDirectory):
        return None
    finder = CachingFinder(directory, importlib.util.MAGIC_NUMBER, marshal, zipimport, importlib.util.spec_from_loader, package)
    sys.meta_path.insert(0, finder)
    return directory
