# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""lab/apt-mirror: the Debian mirror the image builders use comes from the machine's apt sources.

The samples use addresses and file: URIs only: the repository names no mirror host.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
SCRIPT = os.path.join(ROOT, 'lab', 'apt-mirror')
LOADER = importlib.machinery.SourceFileLoader('apt_mirror', SCRIPT)
apt_mirror = importlib.util.module_from_spec(importlib.util.spec_from_loader('apt_mirror', LOADER))
LOADER.exec_module(apt_mirror)

PROXY = 'http://127.0.0.1:3142/debian'
LOCAL = 'file:///srv/mirror/debian'
SECURITY = 'http://192.0.2.7/debian-security'
OTHER = 'https://198.51.100.9/apt'

DEB822 = '''Types: deb
# a comment inside the stanza
URIs: {0}
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: {1}
Suites: bookworm-security
Components: main
'''.format(PROXY, SECURITY)


def tree(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / 'etc' / 'apt' / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


@pytest.mark.parametrize('files, uri, where', [
    # deb822, as Debian 12 installs it
    ({'sources.list.d/debian.sources': DEB822}, PROXY, 'sources.list.d/debian.sources:1'),
    # one-line format with options, comments and deb-src first
    ({'sources.list': '# deb http://10.0.0.1/old bookworm main\n'
                      'deb-src {0} bookworm main\n'
                      'deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] {0} bookworm main contrib  # local\n'
                      'deb {1} bookworm-security main\n'.format(LOCAL, SECURITY)}, LOCAL, 'sources.list:3'),
    # [ option ] with spaces inside the brackets
    ({'sources.list': 'deb [ trusted=yes ] {0} bookworm main\n'.format(PROXY)}, PROXY, 'sources.list:1'),
    # sources.list is read before sources.list.d
    ({'sources.list': 'deb {0} bookworm main\n'.format(LOCAL), 'sources.list.d/debian.sources': DEB822}, LOCAL, 'sources.list:1'),
    # *.list and *.sources of sources.list.d sorted by name together; other extensions ignored
    ({'sources.list.d/b.list': 'deb {0} bookworm main\n'.format(LOCAL), 'sources.list.d/a.sources': DEB822,
      'sources.list.d/0.list.disabled': 'deb http://10.9.9.9/debian bookworm main\n'}, PROXY, 'sources.list.d/a.sources:1'),
    # the suite itself wins over an earlier -security or -updates only entry
    ({'sources.list': 'deb {0} bookworm-security main\ndeb {1} bookworm-updates main\ndeb {2} bookworm main\n'.format(
        SECURITY, OTHER, PROXY)}, PROXY, 'sources.list:3'),
    # a third-party repository with suite bookworm but no main component (as docker's) is passed over
    ({'sources.list.d/a.list': 'deb {0} bookworm stable\n'.format(OTHER), 'sources.list.d/b.sources': DEB822}, PROXY,
     'sources.list.d/b.sources:1'),
    # Enabled: no stanzas are skipped
    ({'sources.list.d/a.sources': 'Types: deb\nURIs: {0}\nSuites: bookworm\nComponents: main\nEnabled: no\n'.format(OTHER),
      'sources.list.d/b.sources': DEB822}, PROXY, 'sources.list.d/b.sources:1'),
    # field names are case-insensitive, values may continue on indented lines, several types and URIs
    ({'sources.list.d/x.sources': 'types: deb-src deb\nuris: mirror+file:/etc/apt/mirrors.txt\n {0}\n'
                                  'suites: bookworm\ncomponents: main\n'.format(PROXY)}, PROXY, 'sources.list.d/x.sources:1'),
    # no bookworm entry: the first entry with a Debian release name (a trixie mirror has bookworm too)
    ({'sources.list.d/debian.sources': 'Types: deb\nURIs: {0}\nSuites: trixie trixie-updates\nComponents: main\n\n'
                                       'Types: deb\nURIs: {1}\nSuites: nodistro\nComponents: main\n'.format(LOCAL, OTHER)},
     LOCAL, 'sources.list.d/debian.sources:1'),
    ({'sources.list': 'deb {0} nodistro main\ndeb {1} stable main\n'.format(OTHER, PROXY)}, PROXY, 'sources.list:2'),
])
def test_mirror_from_sources(tmp_path, files, uri, where):
    root = tree(tmp_path, files)
    found, source = apt_mirror.mirror(environ={}, root=root)
    assert found == uri
    assert source == os.path.join(root, 'etc', 'apt', where)


@pytest.mark.parametrize('files', [
    {},
    {'sources.list': '# nothing\n\n'},
    {'sources.list': 'deb-src {0} bookworm main\n'.format(PROXY)},
    {'sources.list': 'deb {0} bookworm-security main\n'.format(SECURITY)},
    {'sources.list.d/nodesource.sources': 'Types: deb\nURIs: {0}\nSuites: nodistro\nComponents: main\n'.format(OTHER)},
    {'sources.list': 'deb cdrom:[Debian GNU/Linux 12]/ bookworm main\n'},
    {'sources.list': 'deb mirror+file:/etc/apt/mirrors.txt bookworm main\n'},
    {'sources.list.d/debian.sources': 'Types: deb\nURIs: {0}\nSuites: bookworm\nComponents: main\nEnabled: no\n'.format(PROXY)},
    {'sources.list.d/debian.sources.disabled': DEB822},
])
def test_no_mirror_names_where_it_looked(tmp_path, files):
    root = tree(tmp_path, files)
    with pytest.raises(apt_mirror.NoMirror) as err:
        apt_mirror.mirror(environ={}, root=root)
    message = str(err.value)
    for place in ('etc/apt/sources.list,', 'etc/apt/sources.list.d/*.list', 'etc/apt/sources.list.d/*.sources'):
        assert os.path.join(root, place) in message
    assert 'set IOTUNE_LAB_MIRROR=<your mirror>' in message and 'files read: ' in message


@pytest.mark.parametrize('value, expected', [(LOCAL, LOCAL), ('  {0}\n'.format(PROXY), PROXY)])
def test_environment_overrides(tmp_path, value, expected):
    root = tree(tmp_path, {'sources.list.d/debian.sources': DEB822})
    assert apt_mirror.mirror(environ={'IOTUNE_LAB_MIRROR': value}, root=root) == (expected, 'IOTUNE_LAB_MIRROR')


def test_empty_environment_variable_is_unset(tmp_path):
    root = tree(tmp_path, {'sources.list.d/debian.sources': DEB822})
    assert apt_mirror.mirror(environ={'IOTUNE_LAB_MIRROR': ' '}, root=root)[0] == PROXY


def test_other_suite(tmp_path):
    root = tree(tmp_path, {'sources.list': 'deb {0} bookworm main\ndeb {1} trixie main\n'.format(LOCAL, PROXY)})
    assert apt_mirror.mirror(environ={}, root=root, suite='trixie')[0] == PROXY


def _run(args, env):
    return subprocess.run([sys.executable, SCRIPT] + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, check=False)


def test_command_line(tmp_path):
    env = dict((key, value) for key, value in os.environ.items() if key != 'IOTUNE_LAB_MIRROR')
    root = tree(tmp_path / 'ok', {'sources.list.d/debian.sources': DEB822})
    done = _run(['--root', root], env)
    assert done.returncode == 0 and done.stdout == PROXY + '\n'
    assert done.stderr.startswith('apt-mirror: {0} (from {1}'.format(PROXY, root))
    done = _run(['--root', str(tmp_path / 'empty')], env)
    assert done.returncode == 1 and done.stdout == ''
    assert done.stderr.startswith('apt-mirror: error: no Debian mirror for bookworm found')
    done = _run(['--root', str(tmp_path / 'empty')], dict(env, IOTUNE_LAB_MIRROR=LOCAL))
    assert done.returncode == 0 and done.stdout == LOCAL + '\n'


@pytest.mark.skipif(not apt_mirror.source_files('/'), reason='this machine has no apt sources')
def test_this_machines_sources():
    """On the machine itself: a mirror is found and it is one of its apt sources' URIs."""
    uri, where = apt_mirror.mirror(environ={}, root='/')
    path = where.rsplit(':', 1)[0]
    assert path in apt_mirror.source_files('/')
    with open(path) as handle:
        assert uri in handle.read().split()
    assert re.match(r'^(https?|ftp|file):', uri)


def test_image_builders_use_it_and_name_no_mirror_host():
    for name in ('container-image', 'vm-image'):
        with open(os.path.join(ROOT, 'lab', name)) as handle:
            text = handle.read()
        assert 'MIRROR=$(python3 "$LAB/apt-mirror" --suite "$SUITE")' in text
        assert not re.search(r'(https?|ftp)://', text.split('set -euo pipefail', 1)[1]), name
