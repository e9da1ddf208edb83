# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""State snapshots (issue 19): everything the collection knows how to read about a
host's I/O settings, in one object (format in docs/snapshot.md); pure, no AnsibleModule.

take_snapshot() composes the io_facts gatherer, the texts of the persistent
sources (fstab, tunefstab, udev rules that set queue attributes, the sysctl
files in boot order, the bulk-job slice unit), the live ``vxtunefs -p`` values
of the VxFS file systems, the kernel release, the versions of the packages
that matter, the owner and conffile record of every source and the conffiles of
the directories the collection reads, all of /proc/sys/vm and the keys the sysctl
files set, the installed kernels and the one the next boot runs, and flattens the managed
values into ``settings``: per key the live value and the persistent
assignments that set it, in the order they apply at boot.

Paths are parameters with defaults; commands run through an injected
``run_command(argv) -> (rc, stdout, stderr)`` (argument lists) and binaries
are found with ``find_bin(name) -> path or None``.  Nothing here fails for
what cannot be read: it is listed in ``errors``.  write_snapshot() writes the
file (0600, directory 0700) through a temporary file and a rename.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime
import errno
import hashlib
import json
import os
import re
import socket

from ansible_collections.iotune.storage.plugins.module_utils.parse import sysctl as _sysctl
from ansible_collections.iotune.storage.plugins.module_utils.parse import tunefstab as _tunefstab
from ansible_collections.iotune.storage.plugins.module_utils.parse import udev as _udev
from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import atomic_write
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import check_existing, private_directory
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import ListOf, MapOf, ReadBackError, check_shape, read_json_file
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits import DEFAULT_UNIT_DIR
from ansible_collections.iotune.storage.plugins.module_utils.parse.iofacts import SUBSETS, VXTUNEFS_DIRS, find_executable, gather_io_facts
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import DEFAULT_SLICE
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import read_live
from ansible_collections.iotune.storage.plugins.module_utils.engine.unix_snapshot import unix_host_identity, unix_snapshot_facts
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import UNIX
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import INT_SETTINGS as INT_QUEUE_SETTINGS

# the format written; read_snapshot reads these (format 1: no sysctl, conffiles, kernels; docs/snapshot.md)
FORMAT = 2
READABLE_FORMATS = (1, 2)
DEFAULT_DIR = '/var/lib/iotune/snapshots'
MACHINE_ID_PATH = '/etc/machine-id'
# the udev links that name a block device by what it is (by-id) and where it is (by-path)
DEVICE_LINK_DIRS = (('by_id', 'disk/by-id'), ('by_path', 'disk/by-path'))
NAME_MAX = 100
NAME_ACCEPTED = '1 to %d characters, without "/" or NUL, not "." or "..", without ".." in it' % NAME_MAX

# directories whose files a package ships as defaults (docs/snapshot.md, "vendor")
VENDOR_DIRS = ('/usr/lib/sysctl.d', '/lib/sysctl.d', '/usr/lib/udev/rules.d', '/lib/udev/rules.d')

# the packages that matter to I/O settings, besides the running kernel's
DPKG_PACKAGES = ('util-linux', 'coreutils', 'fio', 'procps', 'udev', 'systemd-udev', 'vrtsvxfs')
RPM_PACKAGES = ('util-linux', 'coreutils', 'fio', 'procps-ng', 'procps', 'systemd-udev', 'udev', 'VRTSvxfs')
RPM_KERNEL_PACKAGES = ('kernel-core', 'kernel')
# query formats: dpkg-query and rpm expand the backslash escapes themselves
DPKG_FORMAT = r'${Package}\t${Version}\t${Status}\n'
# every package of the dpkg database with its conffiles (`` <path> <md5>[ obsolete][ remove-on-upgrade]`` lines)
DPKG_DB_FORMAT = r'${Package}\t${Version}\t${Status}\n${Conffiles}\n'
# the files of rpm packages, with their flags (``c``: a configuration file)
RPM_FILES_FORMAT = r'[%{=NAME}\t%{FILEFLAGS:fflags}\t%{FILENAMES}\n]'
# dpkg states whose files are on disk as the package installed them (config-files: only its conffiles are left)
DPKG_PRESENT_STATES = ('installed', 'unpacked', 'half-configured', 'triggers-awaited', 'triggers-pending', 'half-installed')
RPM_FORMAT = r'%{NAME}\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\t%{ARCH}\n'

_VXTUNEFS_HEADER_RE = re.compile(r'^Filesystem i/o parameters for (\S.*?)\s*$')


# ---------------------------------------------------------------- name and file

def validate_name(name):
    """``name`` when it is a valid snapshot name; ValueError naming the field and what is accepted."""
    if not isinstance(name, str):
        raise ValueError('name: %r is not a string; accepted: %s' % (name, NAME_ACCEPTED))
    if not name or len(name) > NAME_MAX:
        shown = repr(name) if len(name) <= 20 else '%r...' % name[:20]
        raise ValueError('name: %s has %d characters; accepted: %s' % (shown, len(name), NAME_ACCEPTED))
    for bad, what in (('/', 'a "/"'), ('\0', 'a NUL character'), ('..', '".."')):
        if bad in name:
            raise ValueError('name: %r contains %s; accepted: %s' % (name, what, NAME_ACCEPTED))
    if name == '.':
        raise ValueError('name: %r is not accepted; accepted: %s' % (name, NAME_ACCEPTED))
    return name


def snapshot_path(directory, name):
    """``<directory>/<name>.json``; ValueError naming the field."""
    validate_name(name)
    if not directory or not os.path.isabs(directory):
        raise ValueError('snapshot_dir: must be an absolute path, got %r' % (directory,))
    return os.path.join(directory, name + '.json')


def render_snapshot(snapshot):
    """The bytes of a snapshot file."""
    return (json.dumps(snapshot, indent=1, separators=(',', ': ')) + '\n').encode('utf-8')


def write_snapshot(directory, name, snapshot):
    """Write ``snapshot`` to ``<directory>/<name>.json`` (mode 0600) through a temporary
    file and a rename; a missing directory is created 0700, an existing one keeps its
    mode.  Returns the path.  ValueError names a bad field; OSError comes from the file system."""
    path = snapshot_path(directory, name)
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise ValueError('snapshot_dir: %s exists and is not a directory' % directory)
    # a private directory, and a link planted at the snapshot's name replaced, never followed (issue 23, T3)
    private_directory(directory, 'snapshot_dir', 0o700)
    atomic_write(path, render_snapshot(snapshot), mode=0o600, keep_existing=False, follow_links=False)
    return path


# a snapshot file read back: at most this big (a real one is 50 to 100 KiB; a 300 MiB one was returned whole)
SNAPSHOT_LIMIT = 32 << 20
_TEXT, _TEXTS, _INT = (str, None), ListOf(str), (int, None)
_SCALAR = (str, int, float, bool, None)
# a setting's value: a number, a word, a list of options
_VALUE = (str, int, float, bool, None, ListOf(str))
# the fields of a snapshot (docs/snapshot.md) the diff reads, each of its type: a snapshot of another
# shape is refused naming the field (check_shape), never half-compared (issue 38, item 13)
SNAPSHOT_SPEC = {
    'format': int, 'name': _TEXT, 'taken': _TEXT, 'package_manager': _TEXT,
    'host': {'hostname': _TEXT, 'kernel_release': _TEXT, 'machine_id': _TEXT},
    'packages': MapOf(_TEXT),
    'conffiles': MapOf({'obsolete': bool, 'package': _TEXT, 'removed': bool}),
    'kernels': {'configs': MapOf(MapOf(_TEXT)), 'installed': _TEXTS, 'next_boot': _TEXT, 'next_boot_source': _TEXT,
                'running': _TEXT, 'scheduler_modules': MapOf(_TEXTS)},
    'facts': {
        'block_devices': MapOf({'dev': _TEXT, 'dm_name': _TEXT, 'serial': _TEXT, 'wwn': _TEXT, 'model': _TEXT,
                                'vendor': _TEXT, 'scheduler': _TEXT, 'schedulers': _TEXTS, 'size_bytes': _INT,
                                'holders': _TEXTS, 'parents': _TEXTS, 'partitions': _TEXTS}),
        'mounts': MapOf({'dev': _TEXT, 'device': _TEXT, 'fstab_spec': _TEXT, 'fstype': _TEXT, 'source': _TEXT,
                         'root': _TEXT, 'partition': _TEXT, 'bind': bool, 'backing_disks': _TEXTS,
                         'mount_options': _TEXTS, 'super_options': _TEXTS, 'options_live': _TEXTS,
                         'options_fstab': (None, _TEXTS)}),
        'fstab': ListOf({'file': _TEXT, 'spec': _TEXT, 'resolved': _TEXT, 'vfstype': _TEXT, 'options': _TEXTS}),
        'vxfs': {'tunefstab_path': _TEXT},
    },
    'device_ids': MapOf({'by_id': _TEXTS, 'by_path': _TEXTS, 'serial': _TEXT, 'wwn': _TEXT}),
    'sources': MapOf({'text': _TEXT, 'kind': _TEXT, 'package': _TEXT, 'sha256': _TEXT, 'vendor': bool,
                      'conffile': (None, {'obsolete': bool, 'package': _TEXT, 'removed': bool})}),
    'sysctl': MapOf(_TEXT),
    'vxtunefs': MapOf({'device': _TEXT, 'values': (None, MapOf(_SCALAR)), 'error': _TEXT}),
    'settings': MapOf({'concern': _TEXT, 'setting': _TEXT, 'target': _TEXT, 'live': _VALUE,
                       'persistent': ListOf({'source': _TEXT, 'line': _INT, 'value': _VALUE, 'vendor': bool})}),
    'policy_checks': ListOf({'id': str, 'concern': _TEXT, 'target': _TEXT, 'setting': _TEXT, 'status': str,
                             'expected': _VALUE}),
    'errors': ListOf(_SCALAR),
}


def snapshot_problem(snapshot, where='snapshot'):
    """Why ``snapshot`` is not a snapshot the collection reads (not an object, a format it does not
    read, a field not of its type: SNAPSHOT_SPEC), naming the field; None when it is one."""
    if not isinstance(snapshot, dict) or snapshot.get('format') not in READABLE_FORMATS or isinstance(snapshot.get('format'), bool):
        return '%s is not a snapshot of format %s' % (where, ' or '.join(str(f) for f in READABLE_FORMATS))
    return check_shape(snapshot, SNAPSHOT_SPEC, where)


def read_snapshot(directory, name, field='read'):
    """The snapshot ``<directory>/<name>.json``; ValueError naming ``field`` when the name is bad,
    the file is missing or is not a snapshot."""
    try:
        path = snapshot_path(directory, name)
    except ValueError as exc:
        raise ValueError('%s: %s' % (field, exc))
    # a snapshot others could have written is not compared (issue 23, T1)
    check_existing(directory, 'snapshot_dir')
    try:
        snapshot = read_json_file(path, SNAPSHOT_LIMIT)
    except ReadBackError as exc:
        if exc.strerror is None:
            raise ValueError('%s: not a snapshot: %s' % (field, exc))
        snapshot, strerror = None, exc.strerror
    else:
        strerror = 'No such file or directory'
    if snapshot is None:
        known = sorted(entry[:-len('.json')] for entry in (os.listdir(directory) if os.path.isdir(directory) else [])
                       if entry.endswith('.json'))
        raise ValueError('%s: no snapshot %r (%s: %s); snapshots in %s: %s'
                         % (field, name, path, strerror, directory, ', '.join(known) or 'none'))
    problem = snapshot_problem(snapshot, path)
    if problem:
        raise ValueError('%s: %s' % (field, problem))
    return snapshot


# ---------------------------------------------------------------- sources

def is_vendor(path, vendor_dirs=VENDOR_DIRS):
    """True for a file in a directory whose files a package ships as defaults.

    The directory is compared by its last components, so that fixture roots
    (``<tmp>/usr/lib/sysctl.d``) count as well; ``/usr/local/lib/...`` is not vendor."""
    directory = os.path.normpath(os.path.dirname(path))
    for vendor in vendor_dirs:
        if directory.endswith(vendor):
            above = directory[:-len(vendor)]
            if not (above + '/').endswith('/usr/local/'):
                return True
    return False


def read_bytes(path, errors, missing_ok=True):
    """Bytes of ``path`` or None; a failure other than a missing file goes to ``errors``."""
    try:
        with open(path, 'rb') as handle:
            return handle.read()
    except (IOError, OSError) as exc:
        if not (missing_ok and getattr(exc, 'errno', None) == errno.ENOENT):
            errors.append('cannot read %s: %s' % (path, exc.strerror or exc))
        return None


def make_source(path, kind, data):
    """A ``sources`` entry (``package`` and ``conffile`` are filled in later)."""
    return {
        'kind': kind,
        'text': data.decode('utf-8', 'replace'),
        'sha256': hashlib.sha256(data).hexdigest(),
        'vendor': is_vendor(path),
        'package': None,
        'conffile': None,
    }


def udev_rule_files(dirs, errors):
    """The rule files udev reads (masked ones left out): [(path, text)] in processing order."""
    result = []
    for entry in _udev.list_rule_files(dirs):
        if entry['masked']:
            continue
        data = read_bytes(entry['path'], errors)
        if data is not None:
            result.append((entry['path'], data))
    return result


def sets_queue_attribute(rules):
    """True when one of the parsed rules assigns a ``queue/`` attribute (or ``bdi/read_ahead_kb``)."""
    for rule in rules:
        for key, attr, op, dummy in rule['tokens']:
            if key == 'ATTR' and op in _udev.ASSIGN_OPS and attr and (attr.startswith('queue/') or attr in _udev.QUEUE_ATTRS):
                return True
    return False


def runs_iocost(rules):
    """True when one of the parsed rules runs systemd's iocost builtin (its 90-iocost.rules, systemd 254 and
    later: ``RUN+="iocost apply $env{DEVNAME}"``), which gives the devices that hwdb lists io.cost QoS and
    model parameters: the block layer's I/O cost control, set by a rule that names no queue attribute."""
    for rule in rules:
        for key, dummy, op, value in rule['tokens']:
            if key == 'RUN' and op in _udev.ASSIGN_OPS and (value or '').split()[:1] == ['iocost']:
                return True
    return False


def slice_unit_files(unit_dir, slice_name):
    """The slice unit file, then its drop-ins in name order (the files systemd reads for it)."""
    unit_path = os.path.join(unit_dir, slice_name)
    paths = [unit_path]
    try:
        paths.extend(os.path.join(unit_path + '.d', name) for name in sorted(os.listdir(unit_path + '.d'))
                     if name.endswith('.conf'))
    except (IOError, OSError):
        pass
    return paths


def gather_sources(fstab_path, tunefstab_path, sysctl_files, udev_files, udev_rules, unit_files, errors):
    """{path: source} of every persistent source that exists, by kind, each kind in boot order.

    ``udev_files`` is [(path, bytes)] and ``udev_rules`` {path: parsed rules}: only the files
    that set a queue attribute or run the iocost builtin are sources."""
    sources = {}

    def add(path, kind, data=None):
        if data is None:
            data = read_bytes(path, errors)
        if data is not None and path not in sources:
            sources[path] = make_source(path, kind, data)

    add(fstab_path, 'fstab')
    add(tunefstab_path, 'tunefstab')
    for path, data in udev_files:
        if sets_queue_attribute(udev_rules[path]) or runs_iocost(udev_rules[path]):
            add(path, 'udev', data)
    for path in sysctl_files:
        add(path, 'sysctl')
    for path in unit_files:
        add(path, 'unit')
    return sources


# ---------------------------------------------------------------- sysctl (format 2)

# the sysctl directory read whole: every file of /proc/sys/vm
SYSCTL_TREES = ('vm',)


def sysctl_keys(sources):
    """The dotted keys (patterns as written) that the sysctl files of ``sources`` set, in boot order, once each."""
    keys = []
    for source in sources.values():
        if source['kind'] != 'sysctl':
            continue
        for assignment in _sysctl.parse_sysctl_conf(source['text']):
            if assignment['key'] not in keys:
                keys.append(assignment['key'])
    return keys


def sysctl_values(proc_root, sources, trees=SYSCTL_TREES):
    """{dotted key: live text}: every readable file of ``<proc_root>/sys/vm``, and every key a sysctl
    file of ``sources`` sets (a pattern such as ``net.ipv4.conf.*.rp_filter`` as the keys it matches),
    read from ``<proc_root>/sys/<key with dots as slashes>``.  The text has its whitespace runs
    collapsed to one space and is stripped; a key that cannot be read is left out.  Sorted by key."""
    values = {}
    for tree in trees:
        values.update(_sysctl.read_tree_texts(proc_root, tree))
    for key in sysctl_keys(sources):
        for concrete in _sysctl.expand_key(proc_root, key):
            if concrete not in values:
                value = _sysctl.read_key_text(proc_root, concrete)
                if value is not None:
                    values[concrete] = value
    return dict(sorted(values.items()))


# ---------------------------------------------------------------- packages

def package_manager(find_bin):
    """(``dpkg`` | ``rpm`` | None, {tool: path}): dpkg when the host has ``dpkg-query`` (which
    answers ``-W`` and ``-S``), else rpm."""
    query = find_bin('dpkg-query')
    if query:
        return 'dpkg', {'query': query, 'search': query}
    rpm = find_bin('rpm')
    if rpm:
        return 'rpm', {'query': rpm, 'search': rpm}
    return None, {}


def _run(run_command, argv, errors, ok_codes=(0, 1)):
    """(rc, out) of ``argv``; a failure to start, or an exit code outside ``ok_codes``, goes to errors."""
    try:
        rc, out, err = run_command(argv)
    except (IOError, OSError) as exc:
        errors.append('cannot run %s: %s' % (argv[0], exc))
        return None, ''
    if rc not in ok_codes:
        errors.append('%s failed (rc=%s): %s' % (' '.join(argv[:3]), rc, (err or out).strip() or 'no output'))
    return rc, out or ''


def parse_dpkg_query(text):
    """``${Package}\\t${Version}\\t${Status}`` lines -> {package: version} of the installed ones."""
    found = {}
    for line in text.splitlines():
        fields = line.split('\t')
        if len(fields) == 3 and fields[1] and fields[2].split()[-1:] in (['installed'],):
            found[fields[0]] = fields[1]
    return found


def parse_rpm_query(text, kernel_release, kernel_packages=RPM_KERNEL_PACKAGES):
    """``rpm -q --qf RPM_FORMAT`` lines -> {package: version}; of the kernel packages
    (several are installed side by side) only the running one."""
    found = {}
    for line in text.splitlines():
        fields = line.split('\t')
        if len(fields) != 3:
            continue            # "package x is not installed"
        name, version, arch = fields
        if name in kernel_packages:
            plain = version.split(':', 1)[-1]
            if kernel_release not in (plain, '%s.%s' % (plain, arch)):
                continue
        found[name] = version
    return found


def query_packages(manager, tools, run_command, kernel_release, errors, extra=()):
    """{package: version} of the packages that matter that are installed, and of ``extra`` (the
    owners of the sources and the conffile packages, so that a new default can be told with the version that brought it)."""
    extra = sorted(set(extra))
    if manager == 'dpkg':
        names = ['linux-image-%s' % kernel_release] + [name for name in DPKG_PACKAGES if name not in extra] + extra
        out = _run(run_command, [tools['query'], '-W', '-f', DPKG_FORMAT] + names, errors)[1]
        return parse_dpkg_query(out)
    if manager == 'rpm':
        names = list(RPM_KERNEL_PACKAGES) + [name for name in RPM_PACKAGES if name not in extra] + extra
        # rpm -q exits with the number of packages that are not installed
        out = _run(run_command, [tools['query'], '-q', '--qf', RPM_FORMAT] + names, errors, ok_codes=range(0, 256))[1]
        return parse_rpm_query(out, kernel_release)
    return {}


def parse_dpkg_database(text):
    """``dpkg-query -W -f DPKG_DB_FORMAT`` (every package) -> ({package: version} of the installed ones,
    {conffile path: {package, obsolete, removed}}).  ``removed``: the package was removed and only its
    conffiles are left (state ``config-files``); packages not installed at all are left out."""
    versions = {}
    conffiles = {}
    package = None
    state = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith(' '):
            fields = line.split()
            if package is None or state not in DPKG_PRESENT_STATES + ('config-files',) or not fields[0].startswith('/'):
                continue
            conffiles[fields[0]] = {'package': package, 'obsolete': 'obsolete' in fields[2:],
                                    'removed': state == 'config-files'}
            continue
        fields = line.split('\t')
        package, state = None, None
        if len(fields) != 3:
            continue
        package = fields[0].split(':')[0]
        state = (fields[2].split() or [''])[-1]
        if state == 'installed' and fields[1]:
            versions[package] = fields[1]
    return versions, conffiles


def parse_rpm_files(text):
    """``rpm -q --qf RPM_FILES_FORMAT`` -> {config file path: {package, obsolete (always false: rpm
    keeps no obsolete conffiles), removed (false)}}."""
    conffiles = {}
    for line in text.splitlines():
        fields = line.split('\t')
        if len(fields) == 3 and 'c' in fields[1] and fields[2].startswith('/') and fields[2] not in conffiles:
            conffiles[fields[2]] = {'package': fields[0], 'obsolete': False, 'removed': False}
    return conffiles


def in_scope(path, scope_files, scope_dirs):
    """True for one of ``scope_files`` or a path under one of ``scope_dirs``."""
    path = os.path.normpath(path)
    return path in [os.path.normpath(p) for p in scope_files] or \
        any(path.startswith(os.path.normpath(d).rstrip('/') + '/') for d in scope_dirs)


def conffile_scope(fstab_path, tunefstab_path, sysctl_conf_dirs, sysctl_conf, udev_rules_dirs, unit_dir):
    """(files, directories) whose conffiles a snapshot lists: the files and directories the collection
    reads (defaults: /etc/fstab, /etc/sysctl.conf, /etc/vx/tunefstab; /etc/sysctl.d and the other
    sysctl.d directories, the udev rules directories, /etc/systemd/system, and the directory of the
    tunefstab file when it is a ``vx`` directory: /etc/vx)."""
    files = [path for path in (fstab_path, sysctl_conf, tunefstab_path) if path]
    dirs = list(sysctl_conf_dirs) + list(udev_rules_dirs) + ([unit_dir] if unit_dir else [])
    if tunefstab_path and os.path.basename(os.path.dirname(tunefstab_path)) == 'vx':
        dirs.append(os.path.dirname(tunefstab_path))
    return files, dirs


def _owner_names(owners):
    return [name for package in owners.values() if package for name in package.split(', ')]


def gather_packages(manager, tools, run_command, kernel_release, paths, scope, errors):
    """(packages, owners, conffiles) of a host: {package: version} of the packages that matter, the
    owners and the conffile packages; {path: package or None} of ``paths``; {path: {package, obsolete,
    removed}} of every conffile known (rpm: of the packages that own ``paths`` or a directory of ``scope``).

    dpkg: one ``dpkg-query -S`` of all paths (and their other merged-/usr name) and one ``dpkg-query -W``
    of the whole database; rpm: ``rpm -qf`` per path, one ``rpm -q`` of the owners' files, one ``rpm -q``
    of the versions.  No package manager: nothing known, nothing run."""
    owners = file_owners(manager, tools, paths, run_command, errors)
    if manager == 'dpkg':
        out = _run(run_command, [tools['query'], '-W', '-f', DPKG_DB_FORMAT], errors, ok_codes=(0,))[1]
        versions, conffiles = parse_dpkg_database(out)
        wanted = ['linux-image-%s' % kernel_release] + list(DPKG_PACKAGES) + _owner_names(owners) + sorted(
            set(record['package'] for path, record in conffiles.items() if path in owners or in_scope(path, *scope)))
        return dict((name, versions[name]) for name in wanted if name in versions), owners, conffiles
    if manager == 'rpm':
        scope_files, scope_dirs = scope
        present = [path for path in list(scope_files) + list(scope_dirs) if path not in owners and os.path.exists(path)]
        scope_owners = file_owners(manager, tools, present, run_command, errors)
        names = sorted(set(_owner_names(owners) + _owner_names(scope_owners)))
        conffiles = {}
        if names:
            out = _run(run_command, [tools['query'], '-q', '--qf', RPM_FILES_FORMAT] + names, errors, ok_codes=range(0, 256))[1]
            conffiles = parse_rpm_files(out)
        extra = _owner_names(owners) + [record['package'] for path, record in conffiles.items()
                                        if path in owners or in_scope(path, *scope)]
        return query_packages(manager, tools, run_command, kernel_release, errors, extra=extra), owners, conffiles
    return {}, owners, {}


def parse_dpkg_search(text):
    """``dpkg -S`` output -> {path: package} (several owners joined by ``, ``, architecture qualifiers dropped)."""
    owners = {}
    for line in text.splitlines():
        if line.startswith(('diversion by ', 'local diversion ')):
            continue
        head, sep, path = line.partition(': /')
        if not sep:
            continue
        packages = [name.strip().split(':')[0] for name in head.split(',') if name.strip()]
        owners['/' + path] = ', '.join(packages)
    return owners


def _other_lib_path(path):
    """The same file through the other side of the merged-/usr link (dpkg knows only one of them)."""
    if path.startswith('/usr/lib/'):
        return path[len('/usr'):]
    if path.startswith('/lib/'):
        return '/usr' + path
    return None


def file_owners(manager, tools, paths, run_command, errors):
    """{path: package or None} of ``paths`` (``dpkg -S`` / ``rpm -qf``)."""
    owners = dict((path, None) for path in paths)
    if not paths or manager is None:
        return owners
    if manager == 'dpkg':
        # one call: every path, and its other merged-/usr name (Debian 12 records udev's files under /lib)
        others = dict((_other_lib_path(path), path) for path in paths if _other_lib_path(path) and _other_lib_path(path) not in owners)
        found = parse_dpkg_search(_run(run_command, [tools['search'], '-S'] + list(paths) + sorted(others), errors)[1])
        for path in paths:
            owners[path] = found.get(path)
        for other, path in others.items():
            if owners[path] is None and found.get(other):
                owners[path] = found[other]
        return owners
    for path in paths:
        rc, out = _run(run_command, [tools['search'], '-qf', '--qf', r'%{NAME}\n', path], errors)
        names = [line.strip() for line in out.splitlines() if line.strip()]
        if rc == 0 and names:
            owners[path] = ', '.join(names)
    return owners


# ---------------------------------------------------------------- kernels (format 2)

BOOT_DIR = '/boot'
MODULES_DIR = '/lib/modules'
# Debian keeps these links to the newest kernel (and GRUB boots the newest by default)
VMLINUZ_LINKS = ('/vmlinuz', '/boot/vmlinuz')
# the block and I/O options of /boot/config-<release> a snapshot keeps (CONFIG_MD: itself and CONFIG_MD_*)
KERNEL_CONFIG_PREFIXES = ('CONFIG_BLOCK', 'CONFIG_BLK_', 'CONFIG_MQ_IOSCHED_', 'CONFIG_IOSCHED_', 'CONFIG_BFQ_', 'CONFIG_DM_',
                          'CONFIG_MD_', 'CONFIG_NVME_', 'CONFIG_VIRTIO_BLK', 'CONFIG_SCSI', 'CONFIG_EXT4_FS', 'CONFIG_XFS_FS',
                          'CONFIG_NFS_FS')
KERNEL_CONFIG_NAMES = ('CONFIG_MD',)
MODULE_SUFFIXES = ('.ko', '.ko.xz', '.ko.zst', '.ko.gz')
_CONFIG_SET_RE = re.compile(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$')
_CONFIG_UNSET_RE = re.compile(r'^# (CONFIG_[A-Za-z0-9_]+) is not set\s*$')


def natural_key(release):
    """Sort key of a kernel release: its digit runs as numbers (6.12.57 after 6.1.0-50)."""
    return [int(part) if index % 2 else part for index, part in enumerate(re.split(r'(\d+)', release))]


def installed_kernels(boot_dir):
    """The releases that have ``<boot_dir>/vmlinuz-<release>``, oldest first (natural_key)."""
    try:
        names = os.listdir(boot_dir)
    except (IOError, OSError):
        return []
    return sorted((name[len('vmlinuz-'):] for name in names
                   if name.startswith('vmlinuz-') and len(name) > len('vmlinuz-') and os.path.isfile(os.path.join(boot_dir, name))),
                  key=natural_key)


def next_boot_kernel(installed, vmlinuz_links):
    """(release, how it was found) of the kernel the next boot runs: the first of ``vmlinuz_links`` that is a
    link to ``vmlinuz-<release>`` of an installed release (``/vmlinuz -> boot/vmlinuz-6.12.57+deb13-cloud-amd64``),
    else the newest installed (``newest installed``), else (None, None)."""
    for link in vmlinuz_links:
        try:
            target = os.readlink(link)
        except (IOError, OSError):
            continue
        name = os.path.basename(target)
        if name.startswith('vmlinuz-') and name[len('vmlinuz-'):] in installed:
            return name[len('vmlinuz-'):], '%s -> %s' % (link, target)
    if installed:
        return installed[-1], 'newest installed'
    return None, None


def wanted_config(name):
    return name in KERNEL_CONFIG_NAMES or name.startswith(KERNEL_CONFIG_PREFIXES)


def parse_kernel_config(text):
    """{CONFIG_NAME: value} of the block and I/O options of a kernel config: ``y``, ``m``, ``n`` (``# CONFIG_X is
    not set``), or the text of other values (quotes stripped)."""
    found = {}
    for line in text.splitlines():
        line = line.strip()
        match = _CONFIG_SET_RE.match(line)
        if match and wanted_config(match.group(1)):
            value = match.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            found[match.group(1)] = value
            continue
        match = _CONFIG_UNSET_RE.match(line)
        if match and wanted_config(match.group(1)):
            found[match.group(1)] = 'n'
    return dict(sorted(found.items()))


def block_modules(modules_dir, release):
    """Sorted module names in ``<modules_dir>/<release>/kernel/block`` (suffixes stripped: ``mq-deadline``,
    ``kyber-iosched``, ``bfq``), [] when the directory is missing; None when the release has no modules directory."""
    if not os.path.isdir(os.path.join(modules_dir, release)):
        return None
    try:
        names = os.listdir(os.path.join(modules_dir, release, 'kernel', 'block'))
    except (IOError, OSError):
        return []
    found = set()
    for name in names:
        for suffix in MODULE_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                found.add(name[:-len(suffix)])
                break
    return sorted(found)


def kernel_state(running, boot_dir=BOOT_DIR, vmlinuz_links=VMLINUZ_LINKS, modules_dir=MODULES_DIR, errors=None):
    """``kernels`` of docs/snapshot.md: the running release, the installed ones, the one the next boot runs and
    how it was found, and for the running and the next boot's release the block options of
    ``<boot_dir>/config-<release>`` and the modules of ``<modules_dir>/<release>/kernel/block`` (a release
    whose file or directory cannot be read is left out of ``configs`` or ``scheduler_modules``)."""
    installed = installed_kernels(boot_dir)
    next_boot, source = next_boot_kernel(installed, vmlinuz_links)
    configs = {}
    modules = {}
    for release in [running] + ([next_boot] if next_boot and next_boot != running else []):
        if not release:
            continue
        data = read_bytes(os.path.join(boot_dir, 'config-%s' % release), errors if errors is not None else [])
        if data is not None:
            configs[release] = parse_kernel_config(data.decode('utf-8', 'replace'))
        names = block_modules(modules_dir, release)
        if names is not None:
            modules[release] = names
    return {'running': running, 'installed': installed, 'next_boot': next_boot, 'next_boot_source': source,
            'configs': configs, 'scheduler_modules': modules}


# ---------------------------------------------------------------- host

def read_kernel_value(proc_root, name, fallback):
    """``<proc_root>/sys/kernel/<name>`` stripped, else ``fallback()``."""
    try:
        with open(os.path.join(proc_root, 'sys', 'kernel', name), 'r') as handle:
            value = handle.read().strip()
            if value:
                return value
    except (IOError, OSError):
        pass
    return fallback()


def read_machine_id(path, errors):
    """The first line of ``path`` (``/etc/machine-id``), or None when it is missing or empty
    (a failure other than a missing file goes to ``errors``)."""
    data = read_bytes(path, errors)
    if data is None:
        return None
    lines = data.decode('utf-8', 'replace').strip().splitlines()
    return lines[0].strip() if lines and lines[0].strip() else None


def host_identity(proc_root='/proc', machine_id_path=MACHINE_ID_PATH, errors=None):
    """``hostname``, ``kernel_release`` and ``machine_id`` (None when the host has none): the diff
    tells by the first and the last whether two snapshots are of one host."""
    return {
        'hostname': read_kernel_value(proc_root, 'hostname', socket.gethostname),
        'kernel_release': read_kernel_value(proc_root, 'osrelease', lambda: os.uname()[2]),
        'machine_id': read_machine_id(machine_id_path, errors if errors is not None else []),
    }


# ---------------------------------------------------------------- device identities

def device_links(dev_root, names):
    """{field: {device: [link name]}} of the ``<dev_root>/disk/by-id`` and ``by-path`` links (field
    ``by_id``, ``by_path``) that point to a device of ``names`` (partitions' links are left out)."""
    found = dict((field, {}) for field, dummy in DEVICE_LINK_DIRS)
    for field, relative in DEVICE_LINK_DIRS:
        directory = os.path.join(dev_root, relative)
        try:
            entries = sorted(os.listdir(directory))
        except (IOError, OSError):
            continue
        for entry in entries:
            path = os.path.join(directory, entry)
            try:
                target = os.readlink(path)
            except (IOError, OSError):
                continue
            name = os.path.basename(os.path.normpath(os.path.join(directory, target)))
            if name in names:
                found[field].setdefault(name, []).append(entry)
    return found


def device_ids(block_devices, dev_root='/dev'):
    """{device: {wwn, serial, by_id, by_path}} of every block device: the sysfs WWN text (``device/wwid``
    or ``wwid``, io_facts' ``wwid``) and the serial as io_facts read them (None where the
    host has none), and the names of its ``/dev/disk/by-id`` and ``by-path`` links (sorted, [] when
    none).  The diff pairs a renamed device across two snapshots by them."""
    links = device_links(dev_root, set(block_devices))
    result = {}
    for name in sorted(block_devices):
        info = block_devices[name] or {}
        result[name] = {
            # io_facts' wwid is the sysfs text; facts from before it had that text in wwn
            'wwn': (info.get('wwid') if 'wwid' in info else info.get('wwn')) or None,
            'serial': info.get('serial') or None,
            'by_id': links['by_id'].get(name, []),
            'by_path': links['by_path'].get(name, []),
        }
    return result


# ---------------------------------------------------------------- VxFS

def vxfs_mounts(mounts):
    """{device: mount point} of the VxFS mounts in io_facts' mounts: per device the mount of the
    file system's root (not a bind mount of a subdirectory), the first mounted."""
    chosen = {}
    for mount_point, info in sorted(mounts.items(), key=lambda item: (item[1]['root'] != '/', item[1]['mount_id'])):
        if info['fstype'] == 'vxfs' and info['source'] not in chosen:
            chosen[info['source']] = mount_point
    return chosen


def _read_device(vxtunefs, device, run_command):
    """(values, error, mount point) of ``vxtunefs -p <device>``: read_live, and the mount point of its header."""
    printed = []

    def capture(argv):
        rc, out, err = run_command(argv)
        printed.append(out or '')
        return rc, out, err
    values, error = read_live(vxtunefs, device, capture)
    for line in ''.join(printed).splitlines():
        match = _VXTUNEFS_HEADER_RE.match(line.strip())
        if match:
            return values, error, match.group(1)
    return values, error, device


def gather_vxtunefs(mounts, tunefstab_entries, vxtunefs, run_command):
    """{mount point: {device, values, error}}: ``vxtunefs -p`` of every VxFS mount in
    mountinfo, then of the devices of the tunefstab file that ``vxtunefs -p <device>``
    reports mounted (the file systems ``vxtunefs -p`` lists from the file)."""
    result = {}
    by_device = vxfs_mounts(mounts)
    for device, mount_point in sorted(by_device.items(), key=lambda item: item[1]):
        if vxtunefs is None:
            values, error = None, 'no vxtunefs on this host: live values not read'
        else:
            values, error = read_live(vxtunefs, mount_point, run_command)
        result[mount_point] = {'device': device, 'values': values, 'error': error}
    if vxtunefs is None:
        return result
    listed = []
    for entry in tunefstab_entries:
        if entry['device'] not in listed and entry['device'] != _tunefstab.SYSTEM_DEFAULT and entry['device'] not in by_device:
            listed.append(entry['device'])
    for device in listed:
        values, error, mount_point = _read_device(vxtunefs, device, run_command)
        if error is None and mount_point not in result:
            # (an error: the device is not mounted, there is nothing to read)
            result[mount_point] = {'device': device, 'values': values, 'error': None}
    return result


# ---------------------------------------------------------------- settings

def _setting(concern, target, setting, live, persistent):
    return {'concern': concern, 'target': target, 'setting': setting, 'live': live, 'persistent': persistent}


def _assignment(source, line, value):
    return {'source': source, 'line': line, 'value': value, 'vendor': is_vendor(source)}


def vm_settings(vm):
    """``vm.<name>`` from io_facts' vm section."""
    settings = {}
    for key in sorted(vm):
        info = vm[key]
        settings['vm.' + key] = _setting('cache_limits', 'sysctl', 'vm.' + key, info['value'],
                                         [_assignment(a['file'], a['line'], a['value']) for a in info['persistent']])
    return settings


def _queue_value(setting, text):
    text = text.strip()
    if setting in INT_QUEUE_SETTINGS:
        try:
            return int(text)
        except ValueError:
            return text
    return text


def queue_assignments_for(rules, device, candidates, full):
    """{setting: [assignment]}: the udev rules that set each queue setting of ``device``,
    in the order they run.  ``candidates`` are the indexes of the rules with a queue
    assignment, ``full`` the evaluation of all rules.  The evaluation after a candidate
    rule (the rules up to it) shows whether that rule's assignment took effect."""
    found = dict((setting, []) for setting in _udev.QUEUE_SETTINGS)
    wanted = set(setting for setting in _udev.QUEUE_SETTINGS if full[setting]['value'] is not None)
    for index in candidates:
        rule = rules[index]
        settings = set(_udev.queue_assignments(rule)) & wanted
        if not settings:
            continue
        after = _udev.evaluate(rules[:index + 1], device)
        for setting in sorted(settings):
            record = after[setting]
            if record['source'] == _udev.rule_location(rule) and record['value'] is not None and not record['unknown']:
                found[setting].append(_assignment(rule['file'], rule['line'], _queue_value(setting, record['value'])))
    return found


def block_queue_settings(block_devices, rules, sys_root, db_dir, errors):
    """``block_queue:<device>:<attribute>`` for each device's queue settings that exist
    or that a udev rule sets, with the rules that set them."""
    settings = {}
    candidates = [index for index, rule in enumerate(rules) if not rule['invalid'] and _udev.queue_assignments(rule)]
    for name in sorted(block_devices):
        info = block_devices[name] or {}
        device = _udev.device_properties(sys_root, name, db_dir)
        persistent = dict((setting, []) for setting in _udev.QUEUE_SETTINGS)
        if device is not None:
            full = _udev.evaluate(rules, device)
            persistent = queue_assignments_for(rules, device, candidates, full)
            for setting in _udev.QUEUE_SETTINGS:
                if full[setting]['unknown']:
                    errors.append('block_queue:%s:%s: what the udev rules set at boot is unknown: %s'
                                  % (name, setting, '; '.join(full[setting]['unknown'])))
        for setting in _udev.QUEUE_SETTINGS:
            live = info.get(setting)
            if live is None and not persistent[setting]:
                continue
            settings['block_queue:%s:%s' % (name, setting)] = _setting('block_queue', name, setting, live, persistent[setting])
    return settings


def _is_managed_mount(info):
    return info.get('device') is not None or info.get('options_fstab') is not None or \
        info.get('fstype') == 'vxfs' or info.get('source', '').startswith('/dev/')


def mount_settings(mounts, fstab, fstab_path):
    """``mount_options:<mount point>`` of the mounts on a block device or listed in fstab
    (live from mountinfo), and of the fstab entries that are not mounted (live null)."""
    by_file = {}
    for entry in fstab:
        if entry['vfstype'] == 'swap' or entry['file'] in ('none', 'swap') or not entry['file'].startswith('/'):
            continue
        by_file.setdefault(os.path.normpath(entry['file']), []).append(entry)
    settings = {}
    keys = set(mount_point for mount_point, info in mounts.items() if _is_managed_mount(info)) | set(by_file)
    for mount_point in sorted(keys):
        info = mounts.get(mount_point)
        live = sorted(info['options_live']) if info else None
        persistent = [_assignment(fstab_path, entry['line'], sorted(entry['options'])) for entry in by_file.get(mount_point, [])]
        settings['mount_options:%s' % mount_point] = _setting('mount_options', mount_point, 'options', live, persistent)
    return settings


def tunefstab_settings(vxtunefs, tunefstab_entries, tunefstab_path):
    """``tunefstab:<mount point>:<tunable>``: live from vxtunefs, persistent the tunefstab lines of the
    device in file order, then the ``system-default`` lines (which take precedence)."""
    settings = {}
    for mount_point in sorted(vxtunefs):
        record = vxtunefs[mount_point]
        device = record['device']
        lines = [e for e in tunefstab_entries if e['device'] == device] + \
            [e for e in tunefstab_entries if e['device'] == _tunefstab.SYSTEM_DEFAULT and device != _tunefstab.SYSTEM_DEFAULT]
        values = record['values'] or {}
        names = list(values) + sorted(set(name for entry in lines for name in entry['tunables']) - set(values))
        for name in names:
            persistent = [_assignment(tunefstab_path, entry['line'], entry['tunables'][name])
                          for entry in lines if name in entry['tunables']]
            settings['tunefstab:%s:%s' % (mount_point, name)] = _setting('tunefstab', device, name, values.get(name), persistent)
    return settings


# ---------------------------------------------------------------- policy checks

POLICY_CHECK_KEYS = ('id', 'concern', 'target', 'setting', 'expected', 'status')


def normalize_policy_checks(checks):
    """The policy audit's checks with the keys a snapshot keeps; ValueError naming the field."""
    result = []
    for index, check in enumerate(checks or []):
        if not isinstance(check, dict):
            raise ValueError('policy_checks[%d]: expected a check (a dict with %s), got %r'
                             % (index, ', '.join(POLICY_CHECK_KEYS), check))
        result.append(dict((key, check.get(key)) for key in POLICY_CHECK_KEYS))
    return result


# ---------------------------------------------------------------- the snapshot

def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def _find_vxfs_tool(binary):
    """The default find_bin: a binary on the PATH or in the VxFS directories."""
    return find_executable(binary, VXTUNEFS_DIRS)


def read_udev_rules(dirs, errors):
    """(files, rules): the udev rule files ``[(path, bytes)]`` and their rules ``{path: [rule]}``; each file is
    read once, for the sources and the evaluation."""
    files = udev_rule_files(dirs, errors)
    texts = dict((path, data.decode('utf-8', 'replace')) for path, data in files)
    return files, dict((path, _udev.parse_rules(text, path)) for path, text in texts.items())


def attach_packages(sources, find_bin, run_command, kernel_release, scope, errors):
    """(manager, packages, conffiles): the package manager, the packages, the conffiles of the directories read;
    every source gets its owner and conffile record.  No command runs without ``run_command``."""
    manager, tools = package_manager(find_bin) if run_command is not None else (None, {})
    packages, owners, all_conffiles = gather_packages(manager, tools, run_command, kernel_release, list(sources), scope,
                                                      errors)
    for path, source in sources.items():
        source['package'] = owners.get(path)
        source['conffile'] = all_conffiles.get(path)
    conffiles = dict((path, record) for path, record in sorted(all_conffiles.items()) if in_scope(path, *scope))
    return manager, packages, conffiles


def managed_settings(facts, udev_rules, live_vxfs, sys_root, udev_db_dir, fstab_path, tunefstab_path, errors):
    """The snapshot's ``settings``: vm sysctls, block queues, mount options and VxFS tunables."""
    settings = {}
    settings.update(vm_settings(facts['vm']))
    settings.update(block_queue_settings(facts['block_devices'], udev_rules, sys_root, udev_db_dir, errors))
    settings.update(mount_settings(facts['mounts'], facts['fstab'], fstab_path))
    settings.update(tunefstab_settings(live_vxfs, facts['vxfs']['tunefstab'], tunefstab_path))
    return settings


def take_snapshot(name, policy_checks=None, run_command=None, find_bin=None, now=None,
                  sys_root='/sys', proc_root='/proc', dev_root='/dev', fstab_path='/etc/fstab',
                  tunefstab_path=_tunefstab.DEFAULT_PATH, sysctl_conf_dirs=_sysctl.CONF_DIRS,
                  sysctl_conf=_sysctl.SYSCTL_CONF, udev_rules_dirs=_udev.RULES_DIRS, udev_db_dir=_udev.DB_DIR,
                  unit_dir=DEFAULT_UNIT_DIR, slice_name=DEFAULT_SLICE, vxtunefs=None, machine_id_path=MACHINE_ID_PATH,
                  boot_dir=BOOT_DIR, modules_dir=MODULES_DIR, vmlinuz_links=VMLINUZ_LINKS, platform='linux'):
    """The snapshot object of docs/snapshot.md; reads only.

    ValueError names a bad field (``name``, ``policy_checks``).  ``vxtunefs``:
    the binary to run, default the one io_facts finds.  ``run_command`` None:
    no command runs (no tools, packages, owners or live VxFS values).  ``machine_id_path``: the
    file of the host's machine id (``/etc/machine-id``).  ``boot_dir``, ``modules_dir`` and ``vmlinuz_links``:
    where the installed kernels, their modules and the links to the next boot's kernel are.  ``platform``: on
    ``solaris`` and ``hpux`` (settings.platforms) the mounts, mount table and VxFS package are the platform's
    (engine.unix_snapshot)."""
    validate_name(name)
    checks = normalize_policy_checks(policy_checks)
    if find_bin is None:
        find_bin = _find_vxfs_tool
    errors = []
    facts = gather_io_facts(SUBSETS, sys_root=sys_root, proc_root=proc_root, dev_root=dev_root,
                            fstab_path=fstab_path, tunefstab_path=tunefstab_path,
                            sysctl_conf_dirs=sysctl_conf_dirs, sysctl_conf=sysctl_conf,
                            run_command=run_command, find_bin=find_bin)
    host = host_identity(proc_root, machine_id_path, errors)

    udev_files, udev_rules = read_udev_rules(udev_rules_dirs, errors)
    sources = gather_sources(fstab_path, tunefstab_path, _sysctl.load_order(sysctl_conf_dirs, sysctl_conf), udev_files,
                             udev_rules, slice_unit_files(unit_dir, slice_name), errors)
    scope = conffile_scope(fstab_path, tunefstab_path, sysctl_conf_dirs, sysctl_conf, udev_rules_dirs, unit_dir)
    manager, packages, conffiles = attach_packages(sources, find_bin, run_command, host['kernel_release'], scope, errors)
    if platform in UNIX:
        facts, manager, packages = unix_snapshot_facts(platform, facts, run_command, tunefstab_path)
        host = unix_host_identity(platform, run_command, errors)

    binary = vxtunefs or facts['vxfs']['vxtunefs_path']
    live_vxfs = gather_vxtunefs(facts['mounts'], facts['vxfs']['tunefstab'], binary if run_command is not None else None,
                                run_command)
    rules = [rule for path, dummy in udev_files for rule in udev_rules[path]]
    settings = managed_settings(facts, rules, live_vxfs, sys_root, udev_db_dir, fstab_path, tunefstab_path, errors)

    taken = now or utc_now()
    return {
        'format': FORMAT,
        'name': name,
        'taken': taken.strftime('%Y-%m-%dT%H:%M:%SZ'),
        'host': host,
        'package_manager': manager,
        'packages': dict(sorted(packages.items())),
        'conffiles': conffiles,
        'kernels': kernel_state(host['kernel_release'], boot_dir, vmlinuz_links, modules_dir, errors),
        'facts': facts,
        'device_ids': device_ids(facts['block_devices'], dev_root),
        'sources': sources,
        'sysctl': sysctl_values(proc_root, sources),
        'vxtunefs': live_vxfs,
        'settings': settings,
        'policy_checks': checks,
        'errors': facts['errors'] + [error for error in errors if error not in facts['errors']],
    }
