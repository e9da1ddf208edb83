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
        system_file = _under(root, entry['system_file'])
        settings = _platform.parse_etc_system(read_text(system_file, errors, missing_ok=True) or '')
        out = command_output(run_command, ['kstat', '-p', ARC_KSTAT], errors)
        live = _platform.parse_kstat_p(out or '').get(ARC_KSTAT)
        return {'zfs_arc_max': {'live': int(live) if live and live.isdigit() else None,
                                'persistent': settings.get('zfs:zfs_arc_max'), 'persistent_file': system_file,
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
