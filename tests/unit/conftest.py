# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared fixtures: paths of the samples and builders for trees with symbolic links.

Sysfs, /dev and sysctl.d samples need symbolic links (often to directories) and
file names with ':', which ansible-test sanity does not allow in the
repository.  They are stored as JSON manifests and built into tmp_path:

    {"files": {rel: text}, "copy": {rel: fixture-relative source},
     "append": {rel: text}, "links": {rel: target}, "dirs": [rel]}
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')


def fixture_path(*parts):
    """Absolute path of a file under tests/unit/fixtures."""
    return os.path.join(FIXTURES, *parts)


def read_fixture(*parts):
    with open(fixture_path(*parts), 'r', encoding='utf-8', errors='surrogateescape', newline='') as handle:
        return handle.read()


def _ensure_parent(path):
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        os.makedirs(parent)


def build_tree(dest, *manifests):
    """Build the manifests (paths relative to fixtures/) into ``dest``, in order."""
    for manifest_name in manifests:
        manifest_dir = os.path.dirname(fixture_path(manifest_name))
        with open(fixture_path(manifest_name), 'r') as handle:
            manifest = json.load(handle)
        for rel in manifest.get('dirs', []):
            path = os.path.join(dest, rel)
            if not os.path.isdir(path):
                os.makedirs(path)
        for rel, source in sorted(manifest.get('copy', {}).items()):
            path = os.path.join(dest, rel)
            _ensure_parent(path)
            with open(os.path.join(manifest_dir, source), 'rb') as src, open(path, 'wb') as dst:
                dst.write(src.read())
        for rel, text in sorted(manifest.get('files', {}).items()):
            path = os.path.join(dest, rel)
            _ensure_parent(path)
            with open(path, 'w') as handle:
                handle.write(text)
        for rel, text in sorted(manifest.get('append', {}).items()):
            with open(os.path.join(dest, rel), 'a') as handle:
                handle.write(text)
        for rel, target in sorted(manifest.get('links', {}).items()):
            path = os.path.join(dest, rel)
            _ensure_parent(path)
            os.symlink(target, path)
    return str(dest)


@pytest.fixture(scope='session', autouse=True)
def private_failpoint(tmp_path_factory):
    """Point the modules' failpoint at a file of this session (common.atomic.FAILPOINT_ENV): the
    real one, /run/iotune/failpoint, belongs to the integration test that may run beside the unit
    tests, and a unit test writing a file named fstab would fire it (and eat it)."""
    path = str(tmp_path_factory.mktemp('failpoint') / 'failpoint')
    previous = os.environ.get('IOTUNE_FAILPOINT_FILE')
    os.environ['IOTUNE_FAILPOINT_FILE'] = path
    yield path
    if previous is None:
        del os.environ['IOTUNE_FAILPOINT_FILE']
    else:
        os.environ['IOTUNE_FAILPOINT_FILE'] = previous


@pytest.fixture(scope='session')
def sysfs_real(tmp_path_factory):
    """The real sysfs capture (vda, zram0, loop0 with partitions, loop1, loop2); read-only."""
    return build_tree(tmp_path_factory.mktemp('real') / 'sys', 'sysfs/vm-loop-partitions.json')


@pytest.fixture(scope='session')
def sysfs_full(tmp_path_factory):
    """Real capture plus the constructed dm/md stack and the partial devices; read-only."""
    return build_tree(tmp_path_factory.mktemp('full') / 'sys', 'sysfs/vm-loop-partitions.json',
                      'sysfs/constructed-dm-md.json', 'sysfs/constructed-partial.json')


@pytest.fixture(scope='session')
def dev_root(tmp_path_factory):
    """/dev with the udev by-* links; read-only."""
    return build_tree(tmp_path_factory.mktemp('dev') / 'dev', 'dev/constructed-dev.json')


@pytest.fixture(scope='session')
def sysctl_root(tmp_path_factory):
    """A root with etc/, run/, usr/, lib/ sysctl configuration; read-only."""
    return build_tree(tmp_path_factory.mktemp('sysctl') / 'root', 'sysctl/constructed-tree.json')


@pytest.fixture(name='fixture_path')
def fixture_path_fixture():
    """fixture_path(*parts) -> absolute path under tests/unit/fixtures."""
    return fixture_path


@pytest.fixture(name='read_fixture')
def read_fixture_fixture():
    """read_fixture(*parts) -> text of a fixture file (newlines kept as they are)."""
    return read_fixture


@pytest.fixture(name='build_tree')
def build_tree_fixture():
    """build_tree(dest, *manifests) -> dest, with the manifests built into it."""
    return build_tree


def journal_files(journal_dir):
    """The files of a journal directory but its host lock (an enforcing run takes the lock in the
    journal directory before it knows whether it changes anything): [] when it does not exist."""
    journal_dir = str(journal_dir)
    if not os.path.exists(journal_dir):
        return []
    return sorted(name for name in os.listdir(journal_dir) if name != 'lock')


def write_file(path, data, mode=0o644):
    """Write ``data`` (bytes or text) to ``path`` with ``mode``, creating its directory."""
    path = str(path)
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'wb') as handle:
        handle.write(data if isinstance(data, bytes) else data.encode('utf-8'))
    os.chmod(path, mode)
