# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Build iotune-copy and iotune-bulk from the package iotune_copy beside this file, each into one
single-file zipapp (the format of ``python -m zipapp``: an interpreter line, then a zip archive
with ``__main__.py``), with the standard library only.

    python3 tools/zipapps.py DIR      # writes DIR/iotune-copy.pyz and DIR/iotune-bulk.pyz

``make collection`` and ``make build`` run it into ``roles/copy_tools/files/`` of the collection
they build; the io_policy action plugin sends those files (by digest, see
plugins/plugin_utils/_copy_tools.py) and, in a tree where they were not built, builds the same
bytes in memory with ``build()``. The archive is reproducible: the same sources give the same
bytes, so its sha256 names the tool: entries in a fixed order, with fixed times and modes."""

import io
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = 'iotune_copy'
# isolated (-I: no PYTHON* variables, no user site) and without site (-S): root's tools use the
# standard library and the code in their own archive, nothing else, and start faster
INTERPRETER = '/usr/bin/python3 -IS'
# name: (module whose main() is the command, the package's modules it needs; None: all but bulk.py)
TOOLS = {
    'iotune-copy': ('cli', None),
    'iotune-bulk': ('bulk', ('__init__.py', 'errors.py', 'config.py', 'bulk.py')),
}
SUFFIX = '.pyz'
MAIN = '''# -*- coding: utf-8 -*-
# {name}, built from tools/{package} by tools/zipapps.py
import sys

from {package}.{module} import main

sys.exit(main())
'''
# 1980-01-01, the earliest time a zip entry can have
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def modules(name, source=None):
    """The file names of the package's modules that tool ``name`` is built from, sorted."""
    source = source or os.path.join(HERE, PACKAGE)
    wanted = TOOLS[name][1]
    found = sorted(entry for entry in os.listdir(source) if entry.endswith('.py'))
    if wanted is None:
        return [entry for entry in found if entry != 'bulk.py']
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise ValueError('%s: %s not in %s' % (name, ', '.join(missing), source))
    return sorted(wanted)


def _entry(archive, arcname, data):
    info = zipfile.ZipInfo(arcname, date_time=FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix: the mode below is what unzip restores
    info.external_attr = 0o644 << 16
    archive.writestr(info, data, compresslevel=9)


def build(name, source=None):
    """The bytes of tool ``name`` (a key of TOOLS) as a zipapp: the interpreter line, then the zip."""
    source = source or os.path.join(HERE, PACKAGE)
    module = TOOLS[name][0]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as archive:
        _entry(archive, '__main__.py', MAIN.format(name=name, package=PACKAGE, module=module).encode('utf-8'))
        for entry in modules(name, source):
            with open(os.path.join(source, entry), 'rb') as handle:
                _entry(archive, '%s/%s' % (PACKAGE, entry), handle.read())
    return ('#!%s\n' % INTERPRETER).encode('utf-8') + buffer.getvalue()


def write(directory, source=None):
    """Build every tool into ``directory`` (``<name>.pyz``, mode 0644: the module sets the installed
    file's mode); the paths written."""
    paths = []
    for name in sorted(TOOLS):
        path = os.path.join(directory, name + SUFFIX)
        data = build(name, source)
        temp = path + '.tmp'
        with open(temp, 'wb') as handle:
            handle.write(data)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
        paths.append(path)
    return paths


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0].startswith('-'):
        sys.stderr.write('usage: zipapps.py DIRECTORY\n')
        return 2
    for path in write(argv[0]):
        print(path)
    return 0


if __name__ == '__main__':
    sys.exit(main())
