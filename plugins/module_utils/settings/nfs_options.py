# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The NFS client's mount options: what a remount does with each, and how mountinfo shows it; pure.

A remount of an NFS mount changes the generic VFS options (ro/rw, the atime mode, nosuid, nodev,
noexec, sync...) and nothing of the NFS client's own. Sources (Linux 6.x):

- fs/nfs/fs_context.c ``nfs_init_fs_context``: a reconfigure starts from the mount's current
  flags, rsize, wsize, retrans, sec flavour, ac* times, timeo, port, server address, version and
  minor version; the options given are parsed over them (``nfs_fs_context_parse_param``).
- fs/nfs/super.c ``nfs_reconfigure`` -> ``nfs_compare_remount_data``: EINVAL when any of those
  differ, or the flags under ``NFS_REMOUNT_CMP_FLAGMASK`` (every NFS_MOUNT_* flag but INTR, SECURE,
  TCP, VER3, KERBEROS, NONLM, BROKEN_SUID, STRICTLOCK, LEGACY_INTERFACE: soft/hard/softerr,
  softreval, posix, nocto, noac, noacl, nordirplus, nosharecache, noresvport, lookupcache,
  local_lock and the local-lock flags nolock sets, write=, noalignwrite), or fsc: REFUSED.
- Everything else the parser accepts and the comparison never looks at (nconnect, max_connect,
  xprtsec, proto/tcp/udp/rdma, clientaddr, namlen, bsize, the mountd options, migration, intr) is
  parsed into the reconfigure context and dropped: IGNORED, the remount succeeds and changes nothing.
- bg, fg and retry= are read by mount.nfs only (nfs(5)): MOUNT_ONLY, never in mountinfo.

What mountinfo shows comes from fs/nfs/super.c ``nfs_show_mount_options``/``nfs_show_options``:
vers=, rsize=, wsize=, namlen=, hard|soft|softerr, proto=, timeo=, retrans=, sec=, local_lock=,
addr= always; the ac* times, lookupcache=, port=, nconnect=, max_connect=, xprtsec=, fsc and the
no* flags only when they differ from the default; actimeo=, minorversion=, nfsvers= and
tcp/udp/rdma never (they show as the four ac* times, vers=4.N and proto=). rsize and wsize are
what the client and server settled on: the server caps them (nfs(5), "rsize=n"), so a live value
below the one asked is the server's answer, not a failed change.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import (
    in_effect, option_state, split_option, values_equal)
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_words import MOUNT_WORDS
from ansible_collections.iotune.storage.plugins.module_utils.common.units import to_bytes

NFS_TYPES = ('nfs', 'nfs4')
CHANGES, REFUSED, IGNORED, MOUNT_ONLY = 'changes', 'refuses', 'ignores', 'mount.nfs only'
SUPER_C = 'fs/nfs/super.c nfs_compare_remount_data'
FS_CONTEXT_C = 'fs/nfs/fs_context.c parses it, nothing compares it'
NFS5 = 'nfs(5): mount.nfs reads it'

# option name (without value) -> what a remount does with it, and the source that says so
NFS_OPTIONS = {}
for _names, _effect, _source in (
        (('rsize', 'wsize', 'vers', 'nfsvers', 'minorversion', 'retrans', 'timeo', 'acregmin', 'acregmax',
          'acdirmin', 'acdirmax', 'actimeo', 'sec', 'port', 'addr', 'fsc', 'nofsc', 'hard', 'soft', 'softerr',
          'softreval', 'nosoftreval', 'posix', 'noposix', 'cto', 'nocto', 'ac', 'noac', 'acl', 'noacl', 'rdirplus',
          'nordirplus', 'sharecache', 'nosharecache', 'resvport', 'noresvport', 'lookupcache', 'local_lock', 'lock',
          'nolock', 'write', 'alignwrite', 'noalignwrite'), REFUSED, SUPER_C),
        (('nconnect', 'max_connect', 'xprtsec', 'proto', 'tcp', 'udp', 'rdma', 'clientaddr', 'namlen', 'bsize',
          'mountproto', 'mountport', 'mounthost', 'mountaddr', 'mountvers', 'migration', 'nomigration', 'intr',
          'nointr'), IGNORED, FS_CONTEXT_C),
        (('bg', 'fg', 'retry'), MOUNT_ONLY, NFS5)):
    for _name in _names:
        NFS_OPTIONS[_name] = {'remount': _effect, 'source': _source}

# the values mountinfo leaves out because they are the defaults (include/uapi/linux/nfs_fs.h NFS_DEF_AC*;
# a client without nconnect= or max_connect= uses one connection; lookupcache=all, xprtsec=none)
UNSHOWN_DEFAULTS = {'acregmin': '3', 'acregmax': '60', 'acdirmin': '30', 'acdirmax': '60', 'nconnect': '1',
                    'max_connect': '1', 'lookupcache': 'all', 'xprtsec': 'none'}
AC_KEYS = ('acregmin', 'acregmax', 'acdirmin', 'acdirmax')
# flags mountinfo shows only when set (the other word of each pair is the default)
_SHOWN_WHEN_SET = {'posix': 'noposix', 'nocto': 'cto', 'noac': 'ac', 'nolock': 'lock', 'noacl': 'acl',
                   'nordirplus': 'rdirplus', 'nosharecache': 'sharecache', 'noresvport': 'resvport',
                   'noalignwrite': 'alignwrite', 'softreval': 'nosoftreval', 'fsc': 'nofsc', 'migration': 'nomigration'}
_DEFAULT_WORDS = dict((default, shown) for shown, default in _SHOWN_WHEN_SET.items())
RECOVERY = tuple(word for word, entry in MOUNT_WORDS.items() if entry.get('slot') == 'nfs-recovery')
# the sizes the client and the server settle on: a lower live value is the server's cap
NEGOTIATED = ('rsize', 'wsize')
# options that never reach mountinfo in any form (the live side cannot be told)
_UNSHOWN = ('intr', 'nointr', 'bg', 'fg', 'retry', 'mounthost', 'bsize')


def is_nfs(fstype):
    return fstype in NFS_TYPES


def remount_effect(option):
    """What a remount of an NFS mount does with ``option``: CHANGES (a generic VFS option), REFUSED,
    IGNORED, or MOUNT_ONLY."""
    key = split_option(option)[0]
    return NFS_OPTIONS[key]['remount'] if key in NFS_OPTIONS else CHANGES


def remount_source(option):
    """The source that says what a remount does with an NFS option (None for a VFS option)."""
    entry = NFS_OPTIONS.get(split_option(option)[0])
    return entry['source'] if entry else None


def _kv(live):
    found = {}
    for option in live:
        key, value = split_option(option)
        if value is not None:
            found[key] = value
    return found


def _vers_in_effect(value, live_vers):
    """``vers=4`` is NFSv4 with the minor version negotiated: any 4.N satisfies it."""
    if live_vers is None or value is None:
        return live_vers is not None
    return live_vers == value or (('.' not in value) and live_vers.split('.')[0] == value)


def nfs_in_effect(option, live):
    """True/False whether ``option`` is in effect on an NFS mount whose mountinfo options are ``live``;
    None when mountinfo cannot show it. Defaults the kernel leaves out count as in effect."""
    key, value = split_option(option)
    kv = _kv(live)
    if key in _UNSHOWN:
        return None
    if key in ('vers', 'nfsvers'):
        return _vers_in_effect(value, kv.get('vers'))
    if key == 'minorversion':
        return value is None or kv.get('vers', '').partition('.')[2] == value
    if key == 'actimeo':
        return value is None or all(values_equal(kv.get(name, UNSHOWN_DEFAULTS[name]), value) for name in AC_KEYS)
    if key in ('tcp', 'udp', 'rdma') and value is None:
        return kv.get('proto', '').rstrip('6') == key
    if key in UNSHOWN_DEFAULTS:
        return key in kv if value is None else values_equal(kv.get(key, UNSHOWN_DEFAULTS[key]), value)
    if value is None and key in RECOVERY:
        return key in live
    if value is None and key in _DEFAULT_WORDS:
        return _DEFAULT_WORDS[key] not in live
    return in_effect(option, option_state(live, 'live'))


def negotiated_lower(option, live):
    """The live value of rsize/wsize when it is below the one ``option`` asks (the server's cap), else None."""
    key, value = split_option(option)
    if key not in NEGOTIATED or value is None:
        return None
    shown = _kv(live).get(key)
    try:
        return shown if shown is not None and to_bytes(shown) < to_bytes(value) else None
    except ValueError:
        return None


def nfs_missing(live, present, absent):
    """The requested options the live NFS option list does not honour; what mountinfo cannot show is not counted."""
    return [option for option in present if nfs_in_effect(option, live) is False] + \
        [option for option in absent if nfs_in_effect(option, live)]
