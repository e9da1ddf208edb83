# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_facts of a Solaris/illumos or HP-UX host: its mounts from /etc/mnttab joined with vfstab or
fstab, its VxFS tunefstab, its cache tunables (the ZFS ARC cap, HP-UX's file cache), its OS and VxFS
versions, and the concerns that do not apply there. No AnsibleModule: ``run_command(argv)`` returns
(rc, stdout, stderr); files are read under ``root``. Never raises for a missing file or a failing
command: they are listed in ``errors``.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import stat

from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.common.units import parse_int
from ansible_collections.iotune.storage.plugins.module_utils.parse import tunefstab as _tunefstab
from ansible_collections.iotune.storage.plugins.module_utils.parse import unix_mounts as _mounts
from ansible_collections.iotune.storage.plugins.module_utils.parse import unix_platform as _platform
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS, platform_of, unsupported_message

ARC_KSTAT = 'zfs:0:arcstats:c_max'
# fstab(4) of HP-UX: "If type is specified as either ignore, dump, swap, or swapfs, the entry is ignored by
# the mount and fsck commands" (its directory field, '/', names no mount)
NOT_MOUNTED_TYPES = ('ignore', 'dump', 'swap', 'swapfs')


def _under(root, path):
    return os.path.join(root, path.lstrip('/'))


def command_output(run_command, argv, errors):
    """stdout of a command that succeeded, else None (the failure in ``errors``)."""
    try:
        rc, out, err = run_command(argv)
    except (IOError, OSError) as exc:
        errors.append('cannot run %s: %s' % (argv[0], exc))
        return None
    if rc != 0:
        errors.append('%s exited %d: %s' % (' '.join(argv), rc, (err or out or '').strip()[:200]))
        return None
    return out


# Solaris 11.2+ and illumos (since 2019) read /etc/system.d/* before /etc/system (system(5))
SYSTEM_DIR = 'system.d'
MAX_SYSTEM_FRAGMENTS = 256
MAX_SYSTEM_BYTES = 1 << 20


def _system_fragment_text(path, errors):
    """The text of one /etc/system.d fragment, or None (why in ``errors``): a regular file, not a link,
    at most MAX_SYSTEM_BYTES."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        errors.append('cannot read %s: %s' % (path, exc.strerror or exc))
        return None
    if not stat.S_ISREG(info.st_mode):
        errors.append('%s is not a regular file (%s): not read; the boot archive would read what it points to, '
                      'so the ARC cap is not known' % (path, 'a symbolic link' if stat.S_ISLNK(info.st_mode) else 'not a file'))
        return None
    if info.st_size > MAX_SYSTEM_BYTES:
        errors.append('%s is %d bytes, above the %d this collection reads: not read' % (path, info.st_size, MAX_SYSTEM_BYTES))
        return None
    return read_text(path, errors)


def system_fragment_paths(system_file, errors):
    """The fragments of the ``system.d`` directory beside ``system_file`` in the order the boot archive reads
    them (names not starting with ``.``, C-locale order: ``.self-assembly`` is the archive's own copy), at
    most MAX_SYSTEM_FRAGMENTS (more: named in ``errors``); None when there is no such directory."""
    directory = os.path.join(os.path.dirname(system_file), SYSTEM_DIR)
    if not os.path.isdir(directory) or os.path.islink(directory):
        return None
    try:
        names = sorted(name for name in os.listdir(directory) if not name.startswith('.'))
    except OSError as exc:
        errors.append('cannot list %s: %s' % (directory, exc.strerror or exc))
        return []
    if len(names) > MAX_SYSTEM_FRAGMENTS:
        errors.append('%s holds %d fragments, above the %d this collection reads: the first %d are read' % (
            directory, len(names), MAX_SYSTEM_FRAGMENTS, MAX_SYSTEM_FRAGMENTS))
    return [os.path.join(directory, name) for name in names[:MAX_SYSTEM_FRAGMENTS]]


def read_system_files(system_file, errors):
    """What a Solaris kernel reads at boot, in its order, as ([{'path', 'text', 'read'}], whether the fragment
    directory exists): the fragments (system_fragment_paths), then ``system_file``, read last, whose
    settings win (text None when it does not exist). A file that cannot be read is named in
    ``errors`` and stands in the list with 'read' False, so that a caller never takes a value as known
    while a file was not read."""
    files = []
    paths = system_fragment_paths(system_file, errors)
    for path in paths or ():
        text = _system_fragment_text(path, errors)
        files.append({'path': path, 'text': text, 'read': text is not None})
    failed = len(errors)
    text = read_text(system_file, errors, missing_ok=True)
    files.append({'path': system_file, 'text': text, 'read': len(errors) == failed})
    return files, paths is not None


def persistent_entries(platform, text):
    """The entries of the platform's fstab (vfstab or HP-UX fstab) that mount something, as dicts: spec,
    mount_point, fstype, options, line."""
    parse = _mounts.parse_vfstab if PLATFORMS[platform]['fstab_format'] == 'vfstab' else _mounts.parse_hpux_fstab
    result = []
    for line in parse(text or ''):
        if line.kind == 'entry' and line.fields.get('mount_point') and line.fields['fstype'] not in NOT_MOUNTED_TYPES:
            result.append({'spec': line.fields['device'], 'mount_point': line.fields['mount_point'],
                           'fstype': line.fields['fstype'], 'options': line.options, 'line': line.number})
    return result


def mount_facts(live, persistent):
    """Mounts keyed by mount point (the last mnttab line of a mount point is the visible one), joined
    with the persistent entry of that mount point (the last one, as mount(1M) reads the file)."""
    by_point = dict((entry['mount_point'], entry) for entry in persistent)
    mounts = {}
    for entry in live:
        saved = by_point.get(entry['mount_point'])
        mounts[entry['mount_point']] = {
            'source': entry['special'],
            'fstype': entry['fstype'],
            'options_live': _mounts.live_options(entry['options']),
            'options_fstab': saved['options'] if saved else None,
            'fstab_spec': saved['spec'] if saved else None,
        }
    return mounts


def cache_facts(platform, run_command, root, errors):
    """The cache concern's tunables: Solaris' ARC cap (live from kstat, persistent from /etc/system),
    HP-UX's file cache (kctune -P)."""
    entry = PLATFORMS[platform]
    if platform == 'solaris':
        # the last file of the boot's order (/etc/system.d/* then /etc/system) that sets the cap
        setters = [(item['path'], _platform.parse_etc_system(item['text'] or '').get('zfs:zfs_arc_max'))
                   for item in read_system_files(_under(root, entry['system_file']), errors)[0]]
        system_file, persistent = ([(path, value) for path, value in setters if value is not None] or [(None, None)])[-1]
        out = command_output(run_command, ['kstat', '-p', ARC_KSTAT], errors)
        live = _platform.parse_kstat_p(out or '').get(ARC_KSTAT)
        return {'zfs_arc_max': {'live': int(live) if live and live.isdigit() else None,
                                'persistent': persistent, 'persistent_file': system_file,
                                'applies': 'at the next boot'}}
    out = command_output(run_command, ['kctune', '-P', 'name,current,expr'], errors)
    tunables = _platform.parse_kctune_p(out or '')
    return dict((name, {'live': int(values['current']) if values.get('current', '').isdigit() else values.get('current'),
                        'expression': values.get('expr'), 'applies': 'at once'})
                for name, values in tunables.items() if name in entry['kernel_tunables'])


def read_kctune(run_command, names, errors, kctune='kctune'):
    """{tunable: {'current': bytes or None, 'expr': text}} of ``names`` from one ``kctune -P name,current,expr``;
    a tunable kctune does not list is left out (and a failure is in ``errors``)."""
    out = command_output(run_command, [kctune, '-P', 'name,current,expr'] + list(names), errors)
    return dict((name, {'current': parse_int(values.get('current')), 'expr': values.get('expr')})
                for name, values in _platform.parse_kctune_p(out or '').items())


def platform_facts(platform, run_command, root, errors):
    """The OS release and the VxFS version."""
    facts = {'name': platform, 'system': PLATFORMS[platform]['uname']}
    uname_r = command_output(run_command, ['uname', '-r'], errors)
    facts['kernel_release'] = uname_r.strip() if uname_r else None
    if platform == 'solaris':
        release = _platform.parse_release(read_text(_under(root, '/etc/release'), errors, missing_ok=True) or '')
        facts.update(release=release['version'], release_line=release['line'] or None)
        listing = command_output(run_command, ['pkginfo', '-l', 'VRTSvxfs'], [])
        packages = _platform.parse_pkginfo_l(listing or '')
    else:
        facts.update(release=facts['kernel_release'], release_line=None)
        packages = _platform.parse_swlist(command_output(run_command, ['swlist', '-l', 'bundle'], errors) or '')
    facts['vxfs_version'] = _platform.vxfs_version(packages)
    return facts


class UnsupportedPlatform(Exception):
    """``uname -s`` names a system the collection does not manage (AIX, FreeBSD, ...)."""


def detect_platform(run_command):
    """The PLATFORMS key of the host from what ``uname -s`` prints; None when it fails or prints nothing
    (a host that does not answer is taken for Linux). UnsupportedPlatform, naming what uname said and
    the systems managed, when it names another system: auditing it as Linux would be wrong (issue 38,
    item 10)."""
    try:
        rc, out, _err = run_command(['uname', '-s'])
    except (IOError, OSError):
        return None
    if rc != 0 or not (out or '').strip():
        return None
    platform = platform_of(out)
    if platform is None:
        raise UnsupportedPlatform(unsupported_message(out))
    return platform


def host_platform(module, run_command, default=None):
    """detect_platform, or ``default`` when uname does not answer; fails ``module`` (fail_json), naming
    what uname said, on a host of a system the collection does not manage."""
    try:
        return detect_platform(run_command) or default
    except UnsupportedPlatform as exc:
        module.fail_json(msg=str(exc))


def gather_unix_facts(platform, run_command, root='/', tunefstab_path=None):
    """``ansible_facts.iotune`` of a Solaris (``solaris``) or HP-UX (``hpux``) host."""
    entry = PLATFORMS[platform]
    errors = []
    mnttab = read_text(_under(root, entry['mnttab']), errors)
    persistent = persistent_entries(platform, read_text(_under(root, entry['fstab']), errors, missing_ok=True))
    tunefstab_path = tunefstab_path or _under(root, entry['tunefstab'])
    present, tunefstab = _tunefstab.read_tunefstab(tunefstab_path, errors)
    return {
        'platform': platform_facts(platform, run_command, root, errors),
        'mounts': mount_facts(_mounts.parse_mnttab(mnttab or ''), persistent),
        'fstab': persistent,
        'fstab_path': _under(root, entry['fstab']),
        'vxfs': {'tunefstab_path': tunefstab_path, 'tunefstab_present': present, 'tunefstab': tunefstab},
        'cache': cache_facts(platform, run_command, root, errors),
        'not_applicable': dict(entry['not_applicable']),
        'errors': errors,
    }
