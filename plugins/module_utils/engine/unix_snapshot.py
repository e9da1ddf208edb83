# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a snapshot (engine.snapshot) reads on Solaris/illumos and HP-UX in place of Linux's sources: the
mounts of /etc/mnttab with the entries of vfstab or HP-UX fstab, and the VxFS package and its version
(``pkginfo -l VRTSvxfs``, ``swlist -l bundle``) that an upgrade_check names when a default changed.
Block queues, vm sysctls and udev are Linux's: empty here (io_facts names them not_applicable)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import command_output, gather_unix_facts

# the package names upgrade_check's VxFS explanation looks for (plugin_utils._snapshot_diff.VXFS_PACKAGES)
VXFS_PACKAGE = 'VRTSvxfs'
PACKAGE_MANAGERS = {'solaris': 'pkginfo', 'hpux': 'swlist'}
# the command that prints the host's own identifier: hostid(1) on Solaris, the machine identification
# number of uname(1) -i on HP-UX (uname(2) idnumber)
HOST_ID = {'solaris': ['hostid'], 'hpux': ['uname', '-i']}


def _first_line(run_command, argv, errors):
    out = command_output(run_command, argv, errors)
    return out.strip().splitlines()[0].strip() if out and out.strip() else None


def unix_host_identity(platform, run_command, errors):
    """The snapshot's ``host`` on Solaris and HP-UX: ``uname -n``, ``uname -r`` and the host id as
    ``machine_id`` (None when it cannot be read: the diff then says it cannot tell the host)."""
    return {'hostname': _first_line(run_command, ['uname', '-n'], errors),
            'kernel_release': _first_line(run_command, ['uname', '-r'], errors),
            'machine_id': _first_line(run_command, HOST_ID[platform], errors)}


def _mounts(unix_mounts):
    """io_facts' mounts in the shape the snapshot reads them: mnttab has no bind mounts of a subtree (root
    ``/``) and lists a mount after the one it covers (mount_id: its place in the table)."""
    return dict((mount_point, dict(info, root='/', bind=False, mount_id=index, device=None))
                for index, (mount_point, info) in enumerate(unix_mounts.items()))


def _fstab(entries):
    """vfstab/HP-UX fstab entries in parse.fstab's shape (spec, file, vfstype, options, line)."""
    return [{'spec': entry['spec'], 'file': entry['mount_point'], 'vfstype': entry['fstype'], 'options': entry['options'],
             'line': entry['line']} for entry in entries]


def unix_snapshot_facts(platform, facts, run_command, tunefstab_path, root='/'):
    """(facts, package manager, packages) of a snapshot on ``platform``: ``facts`` with the platform's mounts,
    mount table, tunefstab and cache tunables (io_facts' ``cache``), and no Linux block devices or vm sysctls; packages {VRTSvxfs: version} when VxFS is
    installed. The platform's files are read under ``root``."""
    unix = gather_unix_facts(platform, run_command, root=root, tunefstab_path=tunefstab_path)
    facts = dict(facts, mounts=_mounts(unix['mounts']), fstab=_fstab(unix['fstab']), block_devices={}, vm={},
                 platform=unix['platform'], not_applicable=unix['not_applicable'], cache=unix['cache'],
                 vxfs=dict(facts['vxfs'], tunefstab=unix['vxfs']['tunefstab'], tunefstab_path=unix['vxfs']['tunefstab_path'],
                           tunefstab_present=unix['vxfs']['tunefstab_present']),
                 errors=facts['errors'] + unix['errors'])
    version = unix['platform']['vxfs_version']
    return facts, PACKAGE_MANAGERS[platform], ({VXFS_PACKAGE: version} if version else {})
