# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a Solaris/illumos or HP-UX host says about itself, and its cache tunables: pure parsers.

- ``/etc/release`` (first line: ``Oracle Solaris 11.1 X86``, ``Solaris 10 5/09 s10s_u7wos_08 SPARC``,
  ``OpenIndiana Hipster 2020.04 (powered by illumos)``, ``OmniOS v11 r151026``);
- ``uname -X`` (``Key = value`` lines) and HP-UX ``machinfo`` (its ``OS info`` block and its memory,
  11.23 and 11.31 layouts);
- the VxFS version: Solaris ``pkginfo -l`` (``PKGINST``/``VERSION`` blocks), Solaris 11 ``pkg info``
  (``Name``/``Version``), HP-UX ``swlist`` (bundle, revision, title: ``Base-VXFS``, ``B3929EA``
  OnLineJFS);
- HP-UX ``kctune -P name,current,...`` (the layout HP promises: ``field value`` lines, a blank line
  between tunables; the default table "may change without notice");
- Solaris ``/etc/system`` (``set module:name = value``, ``*`` or ``#`` comments; integers only in the
  forms system(4) documents) and ``kstat -p`` lines
  (``module:instance:name:statistic<TAB>value``).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

_KEY_VALUE_RE = re.compile(r'^\s*([^=:]+?)\s*[=:]\s*(.*?)\s*$')
_SOLARIS_VERSION_RE = re.compile(r'\bSolaris (\d+(?:\.\d+)*)')
# system(4): set [module:]symbol {=, |, &} value; its commands are case-insensitive
_SYSTEM_SET_RE = re.compile(r'^\s*[Ss][Ee][Tt]\s+(?:([A-Za-z0-9_]+):)?([A-Za-z0-9_]+)\s*([=|&])\s*(\S.*?)\s*$')
_SYSTEM_DIRECTIVE_RE = re.compile(r'^\s*(?:moddir|rootdev|rootfs|root_fs|forceload|exclude|include)\s*:', re.IGNORECASE)
# system(4): an integer is decimal, hexadecimal with a leading 0x, or octal with a leading 0 (no sign,
# no digit separators: Python's int() takes 0x4000_0000, which Solaris ignores)
_SYSTEM_NUMBERS = ((re.compile(r'^0[xX][0-9a-fA-F]+$'), 16), (re.compile(r'^0[0-7]*$'), 8), (re.compile(r'^[1-9][0-9]*$'), 10))
SYSTEM_NUMBER_FORMS = 'decimal (1073741824), hexadecimal with 0x (0x40000000) or octal with a leading 0 (010000000000)'
_VXFS_PACKAGES = ('VRTSvxfs',)
_VXFS_BUNDLES = ('Base-VXFS', 'B3929EA', 'B3929FB', 'OnlineJFS', 'VRTSvxfs')


def parse_release(text):
    """/etc/release: {'name', 'version', 'line'} of its first non-empty line (version None where the
    line names none: OpenIndiana's and OmniOS' name their distribution release instead)."""
    line = next((raw.strip() for raw in text.splitlines() if raw.strip()), '')
    found = _SOLARIS_VERSION_RE.search(line)
    if found:
        return {'name': 'Solaris', 'version': found.group(1), 'line': line}
    name = line.split(' ', 1)[0] if line else None
    return {'name': name, 'version': None, 'line': line}


def parse_key_values(text):
    """``Key = value`` or ``Key: value`` lines (uname -X, machinfo's OS info): {key: value}, the first wins."""
    values = {}
    for raw in text.splitlines():
        found = _KEY_VALUE_RE.match(raw)
        if found and found.group(1) not in values:
            values[found.group(1)] = found.group(2)
    return values


def parse_uname_x(text):
    """uname -X: {'system', 'release', 'kernel_id', 'machine'}."""
    values = parse_key_values(text)
    return {'system': values.get('System'), 'release': values.get('Release'), 'kernel_id': values.get('KernelID'),
            'machine': values.get('Machine')}


def parse_machinfo_release(text):
    """HP-UX machinfo: the release, 'B.11.31' (11.31's ``Release: HP-UX B.11.31``, 11.23's
    ``release = B.11.23``), or None."""
    lines = text.splitlines()
    try:
        start = [line.strip() for line in lines].index('OS info:')
    except ValueError:
        return None
    for raw in lines[start + 1:]:
        found = _KEY_VALUE_RE.match(raw)
        if found and found.group(1).lower() == 'release':
            return found.group(2).split()[-1]
    return None


_MACHINFO_MEMORY_RE = re.compile(r'^\s*Memory\s*[:=]\s*(\d+)\s*MB\b', re.MULTILINE)


def parse_machinfo_memory(text):
    """HP-UX machinfo: the physical memory in bytes (11.31's ``Memory: 8180 MB (7.99 GB)``, 11.23's
    ``Memory = 4076 MB (3.980469 GB)``; MB of 1024 * 1024 bytes), or None."""
    found = _MACHINFO_MEMORY_RE.search(text or '')
    return int(found.group(1)) * 1024 * 1024 if found else None


def _name_version_blocks(text, name_key, version_key):
    """{name: version} of a listing of ``Key: value`` blocks, one per package."""
    packages, name = {}, None
    for raw in text.splitlines():
        found = _KEY_VALUE_RE.match(raw)
        if found and found.group(1) == name_key:
            name = found.group(2)
        elif found and found.group(1) == version_key and name:
            packages[name] = found.group(2)
    return packages


def parse_pkginfo_l(text):
    """Solaris pkginfo -l: {PKGINST: VERSION}."""
    return _name_version_blocks(text, 'PKGINST', 'VERSION')


def parse_pkg_info(text):
    """Solaris 11 / illumos pkg info: {Name: Version}."""
    return _name_version_blocks(text, 'Name', 'Version')


def parse_swlist(text):
    """HP-UX swlist (bundles or products): {tag: {'revision', 'title'}}; '#' lines left out."""
    items = {}
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith('#'):
            continue
        parts = raw.split(None, 2)
        if len(parts) >= 2:
            items[parts[0]] = {'revision': parts[1], 'title': parts[2].strip() if len(parts) > 2 else ''}
    return items


def vxfs_version(packages):
    """The VxFS version from pkginfo/pkg info ({name: version}) or swlist ({tag: {revision, title}}), or None."""
    for name in _VXFS_PACKAGES + _VXFS_BUNDLES:
        if name in packages:
            value = packages[name]
            version = value['revision'] if isinstance(value, dict) else value
            return version.split(',', 1)[0]
    return None


def parse_kctune_p(text):
    """HP-UX kctune -P name,current,...: {name: {field: value}} (blank lines between tunables)."""
    tunables, current = {}, {}
    for raw in text.splitlines() + ['']:
        if not raw.strip():
            if current.get('name'):
                tunables[current['name']] = current
            current = {}
            continue
        field, _space, value = raw.strip().partition(' ')
        if field == 'name' and current.get('name'):
            tunables[current['name']] = current
            current = {}
        current[field] = value.strip()
    return tunables


def etc_system_entries(text):
    """Solaris /etc/system (or one /etc/system.d fragment): every line that is neither blank nor a comment
    (``*`` or ``#``), in order, as {'line' (from 1), 'text', 'kind'}: ``set`` (with 'key' ('module:name' or
    'name'), 'operator' (``=``, ``|`` or ``&``) and 'value' as written), ``directive`` (moddir, rootdev,
    rootfs, forceload, exclude, include) or ``unparsed`` (a line system(4) does not describe)."""
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith(('*', '#')):
            continue
        entry = {'line': number, 'text': stripped, 'kind': 'unparsed'}
        found = _SYSTEM_SET_RE.match(raw)
        if found:
            key = '%s:%s' % (found.group(1), found.group(2)) if found.group(1) else found.group(2)
            entry.update(kind='set', key=key, operator=found.group(3), value=found.group(4))
        elif _SYSTEM_DIRECTIVE_RE.match(raw):
            entry['kind'] = 'directive'
        entries.append(entry)
    return entries


def etc_system_sets(text):
    """Solaris /etc/system: its ``set [module:]name = value`` lines in order, each {'line' (from 1), 'key'
    ('module:name' or 'name'), 'value' (as written), 'text'} (``|`` and ``&`` sets, which change a value
    bit by bit, and lines system(4) does not describe are left out: see etc_system_entries)."""
    return [entry for entry in etc_system_entries(text) if entry['kind'] == 'set' and entry['operator'] == '=']


def parse_etc_system(text):
    """Solaris /etc/system: {'module:name' or 'name': value} of its ``set`` lines (the last wins)."""
    return dict((entry['key'], entry['value']) for entry in etc_system_sets(text))


def parse_system_number(text):
    """An /etc/system integer in a form system(4) documents (SYSTEM_NUMBER_FORMS), else None."""
    text = (text or '').strip()
    for pattern, base in _SYSTEM_NUMBERS:
        if pattern.match(text):
            return int(text, base)
    return None


def parse_kstat_p(text):
    """kstat -p: {'module:instance:name:statistic': value} (the value a string as printed)."""
    values = {}
    for raw in text.splitlines():
        key, _tab, value = raw.partition('\t')
        if _tab and key.count(':') == 3:
            values[key] = value.strip()
    return values
