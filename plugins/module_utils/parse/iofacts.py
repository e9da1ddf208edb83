# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The io_facts gatherer: composes the readers into ``ansible_facts.iotune``.

Pure: paths are parameters and commands run through an injected callable
``run_command(argv) -> (rc, stdout, stderr)``, so tests use fixture trees and
fake commands.  Read-only; one pass; the only subprocesses are ``fio
--version`` and ``cp --version``, each run only when the binary is not the one a previous
run already asked (``known_tools``: the same path, device, inode, size, mtime and ctime).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.parse import fstab as _fstab
from ansible_collections.iotune.storage.plugins.module_utils.parse.meminfo import read_memory_bytes
from ansible_collections.iotune.storage.plugins.module_utils.parse import mountinfo as _mountinfo
from ansible_collections.iotune.storage.plugins.module_utils.parse import sysctl as _sysctl
from ansible_collections.iotune.storage.plugins.module_utils.parse import sysfs as _sysfs
from ansible_collections.iotune.storage.plugins.module_utils.parse import tunefstab as _tunefstab

SUBSETS = ('block_devices', 'mounts', 'fstab', 'vm', 'memory', 'vxfs', 'tools')

VXTUNEFS_DIRS = ('/opt/VRTS/bin', '/sbin', '/usr/sbin', '/usr/lib/fs/vxfs')

_FIO_RE = re.compile(r'^fio-(\S+)')
_COREUTILS_RE = re.compile(r'\(GNU coreutils\)\s+(\S+)')


def parse_fio_version(text):
    """``fio-3.33`` -> ``3.33``; None when not recognised."""
    match = _FIO_RE.match(text.strip())
    return match.group(1) if match else None


def parse_cp_version(text):
    """First line of ``cp --version`` (``cp (GNU coreutils) 9.1``) -> ``9.1``; None for other cp implementations."""
    first = text.strip().splitlines()[0] if text.strip() else ''
    match = _COREUTILS_RE.search(first)
    return match.group(1) if match else None


def find_executable(name, extra_dirs=(), path=None):
    """Absolute path of executable ``name`` in PATH (or ``path``), then ``extra_dirs``; None."""
    if path is None:
        path = os.environ.get('PATH', os.defpath)
    for directory in [d for d in path.split(os.pathsep) if d] + list(extra_dirs):
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def tool_identity(path):
    """[device, inode, size, mtime_ns, ctime_ns] of the file at path (followed: the binary run), or None."""
    try:
        st = os.stat(path)
    except (IOError, OSError):
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def gather_tools(run_command, find_bin=find_executable, errors=None, known=None):
    """{fio: {path, version, identity} | None, coreutils: {path, version, identity} | None}.

    ``known``: {fio|coreutils: {path, version, identity}} of a previous run (engine/history.known_tools):
    a binary with the same path and identity keeps its version without running ``--version`` (a package
    upgrade replaces the file: a new inode or ctime, so the version is asked again). Without ``known``
    (io_facts, snapshots) the result has no identity, which changes with every touch of the file."""
    tools = {'fio': None, 'coreutils': None}
    remember = known is not None
    known = known or {}
    for key, binary, parser in (('fio', 'fio', parse_fio_version), ('coreutils', 'cp', parse_cp_version)):
        path = find_bin(binary)
        if not path:
            continue
        identity = tool_identity(path) if remember else None
        before = known.get(key)
        if identity is not None and before and before['path'] == path and before['identity'] == identity:
            tools[key] = {'path': path, 'version': before['version'], 'identity': identity}
            continue
        try:
            rc, out, err = run_command([path, '--version'])
        except (IOError, OSError) as exc:
            rc, out, err = 1, '', str(exc)
        version = parser(out) if rc == 0 else None
        if rc != 0 and errors is not None:
            errors.append('%s --version failed (rc=%s): %s' % (path, rc, (err or out).strip()))
        if key == 'coreutils' and version is None:
            # a cp that is not GNU coreutils (busybox, BSD) is no coreutils
            continue
        # a version not told is asked again next time (no identity to match)
        tools[key] = dict({'path': path, 'version': version}, **({'identity': identity if version else None} if remember else {}))
    return tools


def gather_vxfs(tunefstab_path=_tunefstab.DEFAULT_PATH, find_bin=find_executable, errors=None):
    """VxFS tool presence and the parsed tunefstab."""
    vxtunefs = find_bin('vxtunefs')
    present, entries = _tunefstab.read_tunefstab(tunefstab_path, errors)
    return {
        'tools_present': vxtunefs is not None,
        'vxtunefs_path': vxtunefs,
        'tunefstab_path': tunefstab_path,
        'tunefstab_present': present,
        'tunefstab': entries,
    }


def fstab_facts(records, dev_root='/dev'):
    """Decoded fstab entries with ``resolved`` (real device path or None)."""
    result = []
    for entry in _fstab.entries(records):
        entry['resolved'] = _fstab.resolve_spec(entry['spec'], dev_root)
        # bytes that are not UTF-8 (kept for byte-exact editing) are not valid in JSON facts
        for key in ('spec', 'file', 'vfstype'):
            entry[key] = entry[key].encode('utf-8', 'surrogateescape').decode('utf-8', 'replace')
        entry['options'] = [option.encode('utf-8', 'surrogateescape').decode('utf-8', 'replace') for option in entry['options']]
        result.append(entry)
    return result


def _device_from_source(sys_root, dev_root, source):
    """Fallback for anonymous device numbers (btrfs): the /dev path in source."""
    if not source.startswith('/dev/'):
        return None, None
    path = os.path.realpath(os.path.join(dev_root, source[len('/dev/'):]))
    sys_dir = _sysfs.block_dir(sys_root, os.path.basename(path))
    if sys_dir is None:
        return None, None
    return _sysfs.split_partition(sys_dir)


def _member_names(sys_root, dev_root, entry):
    """Kernel names (a partition's own name) of the block devices a mount is made of, in order: the
    device of its device number, each ``/dev`` path of a multi-device source (bcachefs
    ``/dev/sdc1:/dev/sdc2``), then the other members sysfs lists with it (bcachefs, btrfs)."""
    names = []
    disk, partition = _sysfs.resolve_devno(sys_root, entry['major'], entry['minor'])
    if disk is not None:
        names.append(partition or disk)
    sources = []
    if entry['source'].startswith('/dev/') and (':' in entry['source'] or (not names and entry['major'] == 0)):
        # btrfs and others show an anonymous device number; bcachefs lists its devices joined by ':'
        sources = entry['source'].split(':')
    for source in sources:
        disk, partition = _device_from_source(sys_root, dev_root, source)
        if disk is not None and (partition or disk) not in names:
            names.append(partition or disk)
    for name in _sysfs.filesystem_members(sys_root, names[0]) if names else []:
        if name not in names:
            names.append(name)
    return names


def _split(sys_root, name):
    path = _sysfs.block_dir(sys_root, name)
    return _sysfs.split_partition(path) if path else (name, None)


def mount_facts(mount_entries, fstab_entries, sys_root='/sys', dev_root='/dev'):
    """Visible mounts keyed by mount point, joined with sysfs and fstab."""
    mounts = {}
    backing_cache = {}
    fstab_by_point = _fstab.entries_by_mount_point(fstab_entries)
    for mount_point, entry in _mountinfo.visible_mounts(mount_entries).items():
        members = _member_names(sys_root, dev_root, entry)
        disk, partition = _split(sys_root, members[0]) if members else (None, None)
        backing = []
        for name in members:
            if name not in backing_cache:
                backing_cache[name] = _sysfs.backing_disks(sys_root, name)
            backing.extend(leaf for leaf in backing_cache[name] if leaf not in backing)
        fstab_entry = fstab_by_point.get(_fstab.normalize_mount_point(mount_point))
        mounts[mount_point] = {
            'source': entry['source'],
            'device': disk,
            'partition': partition,
            'members': members,
            'backing_disks': sorted(backing),
            'fstype': entry['fstype'],
            'options_live': entry['options'],
            'mount_options': entry['mount_options'],
            'super_options': entry['super_options'],
            'options_fstab': fstab_entry['options'] if fstab_entry else None,
            'fstab_spec': fstab_entry['spec'] if fstab_entry else None,
            'mount_id': entry['mount_id'],
            'dev': '%d:%d' % (entry['major'], entry['minor']),
            'root': entry['root'],
            'bind': entry['root'] != '/',
        }
    return mounts


def gather_io_facts(gather=SUBSETS, sys_root='/sys', proc_root='/proc', dev_root='/dev',
                    fstab_path='/etc/fstab', tunefstab_path=_tunefstab.DEFAULT_PATH,
                    sysctl_conf_dirs=_sysctl.CONF_DIRS, sysctl_conf=_sysctl.SYSCTL_CONF,
                    run_command=None, find_bin=None, udev_db_dir=None, known_tools=None):
    """Gather the requested subsets of ``ansible_facts.iotune``.

    ``gather`` is a subset of SUBSETS.  ``run_command(argv)`` returns
    (rc, stdout, stderr); without it, tools is not gathered.  ``find_bin(name)``
    returns an executable path or None (default: PATH plus VXTUNEFS_DIRS).  ``udev_db_dir`` is the udev
    database the block devices' WWN, serial, model and revision are completed from (None: sysfs only).
    ``known_tools``: the tools a previous run found (gather_tools). Never raises for unreadable files: they are listed in ``errors``."""
    if find_bin is None:
        def find_bin(name):
            return find_executable(name, VXTUNEFS_DIRS)
    gather = set(gather)
    errors = []
    facts = {}
    fstab_records = []
    if gather & set(('fstab', 'mounts')):
        dummy, fstab_records = _fstab.read_fstab(fstab_path, errors)
    fstab_entries = fstab_facts(fstab_records, dev_root)
    if 'block_devices' in gather:
        facts['block_devices'] = _sysfs.read_block_devices(sys_root, errors, udev_db_dir)
    if 'mounts' in gather:
        facts['mounts'] = mount_facts(_mountinfo.read_mountinfo(proc_root, errors), fstab_entries, sys_root, dev_root)
    if 'fstab' in gather:
        facts['fstab'] = fstab_entries
    if 'vm' in gather:
        facts['vm'] = _sysctl.read_vm(proc_root, sysctl_conf_dirs, sysctl_conf, errors=errors)
    if 'memory' in gather:
        facts['memory_bytes'] = read_memory_bytes(proc_root, errors)
    if 'vxfs' in gather:
        facts['vxfs'] = gather_vxfs(tunefstab_path, find_bin, errors)
    if 'tools' in gather and run_command is not None:
        facts['tools'] = gather_tools(run_command, find_bin, errors, known_tools)
    facts['errors'] = errors
    return facts
