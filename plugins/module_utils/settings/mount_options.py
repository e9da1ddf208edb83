# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount options iotune accepts in a policy, and the form of each one's value; pure.

A policy option is written to fstab and passed to ``mount -o remount``, so an option that no
file system knows, or a value of the wrong form, must be refused before anything is written
(a remount that fails leaves fstab to be put back). The catalogue holds the generic options of
mount(8) and the options of ext4, xfs, VxFS (mount_vxfs(1M)), tmpfs, btrfs and NFS, and every word of
the mount-word table (settings/mount_words.py: Solaris UFS ``forcedirectio`` and ``logging``). User-space
options (``x-*``, ``X-*``, ``comment=``) pass unchecked, as mount(8) ignores them.

Each option maps to the forms it takes: ``FLAG`` (no value), ``INT`` (a decimal integer),
``SIZE`` (bytes or k/m/g), ``PERCENT_SIZE`` (a size or a percentage), ``TEXT`` (a value without
spaces, commas, quotes or shell characters) or a tuple of the accepted words.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_words import MOUNT_WORDS

FLAG, INT, SIZE, PERCENT_SIZE, TEXT = 'flag', 'int', 'size', 'size or percentage', 'text'

_GENERIC = {
    'rw': FLAG, 'ro': FLAG, 'suid': FLAG, 'nosuid': FLAG, 'dev': FLAG, 'nodev': FLAG, 'exec': FLAG, 'noexec': FLAG,
    'sync': FLAG, 'async': FLAG, 'dirsync': FLAG, 'atime': FLAG, 'noatime': FLAG, 'diratime': FLAG,
    'nodiratime': FLAG, 'relatime': FLAG, 'norelatime': FLAG, 'strictatime': FLAG, 'nostrictatime': FLAG,
    'lazytime': FLAG, 'nolazytime': FLAG, 'mand': FLAG, 'nomand': FLAG, 'iversion': FLAG, 'noiversion': FLAG,
    'symfollow': FLAG, 'nosymfollow': FLAG, 'auto': FLAG, 'noauto': FLAG, 'user': (FLAG, TEXT), 'nouser': FLAG,
    'users': FLAG, 'owner': FLAG, 'group': FLAG, 'nofail': FLAG, '_netdev': FLAG, 'defaults': FLAG,
    'context': TEXT, 'fscontext': TEXT, 'defcontext': TEXT, 'rootcontext': TEXT, 'loop': (FLAG, TEXT),
    'offset': INT, 'sizelimit': INT, 'uid': INT, 'gid': INT, 'mode': TEXT, 'umask': TEXT,
}
_EXT4 = {
    'journal_checksum': FLAG, 'nojournal_checksum': FLAG, 'journal_async_commit': FLAG, 'journal_ioprio': INT,
    'journal_dev': TEXT, 'journal_path': TEXT, 'barrier': (FLAG, INT), 'nobarrier': FLAG, 'commit': INT,
    'data': ('journal', 'ordered', 'writeback'), 'data_err': ('ignore', 'abort'),
    'errors': ('continue', 'remount-ro', 'panic'), 'discard': FLAG, 'nodiscard': FLAG, 'noload': FLAG,
    'norecovery': FLAG, 'dioread_lock': FLAG, 'dioread_nolock': FLAG, 'delalloc': FLAG, 'nodelalloc': FLAG,
    'max_batch_time': INT, 'min_batch_time': INT, 'stripe': INT, 'inode_readahead_blks': INT,
    'auto_da_alloc': (FLAG, INT), 'noauto_da_alloc': FLAG, 'init_itable': (FLAG, INT), 'noinit_itable': FLAG,
    'block_validity': FLAG, 'noblock_validity': FLAG, 'i_version': FLAG, 'nombcache': FLAG, 'prjquota': FLAG,
    'usrquota': FLAG, 'grpquota': FLAG, 'quota': FLAG, 'noquota': FLAG, 'jqfmt': ('vfsold', 'vfsv0', 'vfsv1'),
    'usrjquota': TEXT, 'grpjquota': TEXT, 'resgid': INT, 'resuid': INT, 'sb': INT, 'user_xattr': FLAG,
    'nouser_xattr': FLAG, 'acl': FLAG, 'noacl': FLAG, 'bh': FLAG, 'nobh': FLAG, 'orlov': FLAG, 'oldalloc': FLAG,
    'dax': (FLAG, ('always', 'never', 'inode')), 'inlinecrypt': FLAG, 'debug': FLAG, 'grpid': FLAG,
    'bsdgroups': FLAG, 'nogrpid': FLAG, 'sysvgroups': FLAG, 'minixdf': FLAG, 'bsddf': FLAG,
}
_XFS = {
    'allocsize': SIZE, 'attr2': FLAG, 'noattr2': FLAG, 'filestreams': FLAG, 'ikeep': FLAG, 'noikeep': FLAG,
    'inode32': FLAG, 'inode64': FLAG, 'largeio': FLAG, 'nolargeio': FLAG, 'logbufs': INT, 'logbsize': SIZE,
    'logdev': TEXT, 'rtdev': TEXT, 'noalign': FLAG, 'nouuid': FLAG, 'uquota': FLAG, 'uqnoenforce': FLAG,
    'gquota': FLAG, 'gqnoenforce': FLAG, 'pquota': FLAG, 'pqnoenforce': FLAG, 'qnoenforce': FLAG, 'sunit': INT,
    'swidth': INT, 'swalloc': FLAG, 'wsync': FLAG,
}
_VXFS = {
    'mincache': ('closesync', 'direct', 'dsync', 'unbuffered', 'tmpcache'),
    'convosync': ('closesync', 'delay', 'direct', 'dsync', 'unbuffered'),
    'log': FLAG, 'delaylog': FLAG, 'tmplog': FLAG, 'blkclear': FLAG, 'largefiles': FLAG, 'nolargefiles': FLAG,
    'qio': FLAG, 'noqio': FLAG, 'ioerror': ('disable', 'nodisable', 'wdisable', 'mwdisable', 'mdisable'),
    'cio': FLAG, 'datainlog': FLAG, 'nodatainlog': FLAG, 'crw': FLAG, 'ckpt': TEXT, 'snapof': TEXT,
    'snapsize': INT, 'cluster': FLAG, 'seconly': FLAG, 'logiosize': INT, 'noatime_log': FLAG,
}
_TMPFS = {
    'size': PERCENT_SIZE, 'nr_blocks': SIZE, 'nr_inodes': SIZE,
    'huge': ('never', 'always', 'within_size', 'advise', 'deny', 'force'), 'mpol': TEXT, 'noswap': FLAG,
}
_BTRFS = {
    'compress': (FLAG, TEXT), 'compress-force': (FLAG, TEXT), 'space_cache': (FLAG, ('v1', 'v2')),
    'nospace_cache': FLAG, 'ssd': FLAG, 'nossd': FLAG, 'ssd_spread': FLAG, 'autodefrag': FLAG,
    'noautodefrag': FLAG, 'subvol': TEXT, 'subvolid': INT, 'degraded': FLAG, 'datacow': FLAG, 'nodatacow': FLAG,
    'datasum': FLAG, 'nodatasum': FLAG, 'flushoncommit': FLAG, 'noflushoncommit': FLAG, 'thread_pool': INT,
    'max_inline': SIZE, 'metadata_ratio': INT, 'skip_balance': FLAG, 'device': TEXT, 'clear_cache': FLAG,
}
_NFS = {
    'vers': TEXT, 'nfsvers': TEXT, 'minorversion': INT, 'proto': ('tcp', 'udp', 'rdma', 'tcp6', 'udp6', 'rdma6'),
    'mountproto': ('tcp', 'udp', 'tcp6', 'udp6'), 'rsize': INT, 'wsize': INT, 'hard': FLAG, 'soft': FLAG,
    'softerr': FLAG, 'intr': FLAG, 'nointr': FLAG, 'timeo': INT, 'retrans': INT, 'retry': INT, 'ac': FLAG,
    'noac': FLAG, 'actimeo': INT, 'acregmin': INT, 'acregmax': INT, 'acdirmin': INT, 'acdirmax': INT,
    'sec': TEXT, 'lookupcache': ('all', 'none', 'pos', 'positive'), 'local_lock': ('all', 'flock', 'posix', 'none'),
    'lock': FLAG, 'nolock': FLAG, 'tcp': FLAG, 'udp': FLAG, 'rdma': FLAG, 'port': INT, 'mountport': INT,
    'mounthost': TEXT, 'addr': TEXT, 'clientaddr': TEXT, 'fsc': (FLAG, TEXT), 'nofsc': FLAG, 'sharecache': FLAG,
    'nosharecache': FLAG, 'resvport': FLAG, 'noresvport': FLAG, 'rdirplus': FLAG, 'nordirplus': FLAG, 'cto': FLAG,
    'nocto': FLAG, 'namlen': INT, 'nconnect': INT, 'max_connect': INT, 'bg': FLAG, 'fg': FLAG, 'posix': FLAG,
    'noposix': FLAG, 'acl': FLAG, 'noacl': FLAG, 'xprtsec': ('none', 'tls', 'mtls'), 'softreval': FLAG,
    'nosoftreval': FLAG, 'write': ('lazy', 'eager', 'wait'), 'alignwrite': FLAG, 'noalignwrite': FLAG,
    'migration': FLAG, 'nomigration': FLAG, 'bsize': INT, 'mountvers': INT, 'mountaddr': TEXT,
}
# NFS's rsize and wsize are plain integers (the kernel's fsparam_u32, fs/nfs/fs_context.c): mount.nfs
# refuses 1m; what a remount does with each NFS option is in settings/nfs_options.py.

CATALOGUE = {}
for _table in (_GENERIC, _EXT4, _XFS, _VXFS, _TMPFS, _BTRFS, _NFS):
    for _name, _forms in _table.items():
        _forms = _forms if isinstance(_forms, tuple) and _forms[0] in (FLAG, INT, SIZE, TEXT) else (_forms,)
        CATALOGUE.setdefault(_name, ())
        CATALOGUE[_name] = CATALOGUE[_name] + tuple(form for form in _forms if form not in CATALOGUE[_name])

# the words of the mount-word table (Solaris UFS forcedirectio and logging among them) take no value
for _word in MOUNT_WORDS:
    CATALOGUE.setdefault(_word, (FLAG,))

FILE_SYSTEMS = 'generic (mount(8)), ext4, xfs, vxfs, tmpfs, btrfs, nfs, Solaris/HP-UX ufs'
USERSPACE_PREFIXES = ('x-', 'X-', 'comment=')

_NAME_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_-]*$')
# A value: no blank, comma, quote, backslash or shell character (it is written into fstab and
# handed to mount -o); paths, SELinux contexts and host names fit.
_TEXT_RE = re.compile(r'^[A-Za-z0-9_./:@+%-]+$')
_INT_RE = re.compile(r'^[0-9]+$')
_SIZE_RE = re.compile(r'^[0-9]+[kKmMgGtT]?$')
_PERCENT_RE = re.compile(r'^[0-9]+%$')


def _describe(forms):
    words = []
    for form in forms:
        if form == FLAG:
            words.append('no value')
        elif isinstance(form, tuple):
            words.append('one of %s' % ', '.join(form))
        else:
            words.append({INT: 'an integer', SIZE: 'a size such as 64k', PERCENT_SIZE: 'a size or a percentage',
                          TEXT: 'a value without blanks, commas, quotes or shell characters'}[form])
    return ' or '.join(words)


def _value_fits(value, form):
    if form == INT:
        return bool(_INT_RE.match(value))
    if form == SIZE:
        return bool(_SIZE_RE.match(value))
    if form == PERCENT_SIZE:
        return bool(_SIZE_RE.match(value) or _PERCENT_RE.match(value))
    if form == TEXT:
        return bool(_TEXT_RE.match(value))
    return isinstance(form, tuple) and value in form


def option_problem(option, key_only_ok=False):
    """Why ``option`` is not a mount option iotune accepts (text naming the accepted forms), or None.

    key_only_ok: an option that takes a value may be named without one (``absent: [mincache]``
    forbids every mincache=)."""
    if option.startswith(USERSPACE_PREFIXES):
        return None if _TEXT_RE.match(option.split('=', 1)[-1] or 'x') or option.startswith('comment=') else \
            'a user-space option, but its value has blanks, quotes or shell characters'
    name, sep, value = option.partition('=')
    if not _NAME_RE.match(name):
        return 'not an option name (letters, digits, _ and -)'
    forms = CATALOGUE.get(name)
    if forms is None:
        return 'not a mount option of %s (user-space options start with x-)' % FILE_SYSTEMS
    if not sep:
        if FLAG in forms or key_only_ok:
            return None
        return '%s takes a value: %s' % (name, _describe(forms))
    if any(_value_fits(value, form) for form in forms if form != FLAG):
        return None
    return '%s takes %s' % (name, _describe(forms))


# ---------------------------------------------------------------- what a live remount can do (Linux)
# What ``mount -o remount,<option>`` does with an option of a file system type, and whether
# /proc/self/mountinfo shows the option, as seen on Linux 6.18 (mount(8) of util-linux 2.38)
# with ext4 and xfs loop mounts; docs/policy.md has the table.  An option not listed here is
# changed by a remount and shown when set (the generic VFS flags, ext4's commit=, errors=...).
CHANGES, REFUSED, IGNORED = 'changes', 'refuses', 'ignores'
_EXT_TYPES = ('ext2', 'ext3', 'ext4')
# ext4 (fs/ext4/super.c ext4_check_opt_consistency, __ext4_remount): "Cannot change data mode on
# remount", "can't disable delalloc during remount", "can't change dax mount option while
# remounting": the remount fails (rc 32); journal_async_commit fails too.  "changing
# journal_checksum during remount not supported; ignoring": rc 0, nothing changes.
_EXT4_REMOUNT = {'data': REFUSED, 'nodelalloc': REFUSED, 'dax': REFUSED, 'journal_async_commit': REFUSED,
                 'journal_dev': REFUSED, 'journal_path': REFUSED,
                 'journal_checksum': IGNORED, 'nojournal_checksum': IGNORED}
# xfs (fs/xfs/xfs_super.c xfs_fs_reconfigure) changes inode32/inode64 (and the VFS flags) only:
# every other xfs option is accepted (rc 0) and left as it was (logbufs=4, logbsize=64k,
# allocsize=64k, largeio, swalloc, wsync, noalign, filestreams, discard... all seen unchanged).
_XFS_REMOUNT_CHANGES = ('inode32', 'inode64')
# options mountinfo never shows, whatever the mount: the kernel mounts relatime all the same under
# norelatime; SB_I_VERSION is not a flag the VFS prints; ext4 prints only nojournal_checksum (its
# checksums follow metadata_csum); xfs's attr2/noattr2 (deprecated) and ikeep/noikeep are not printed.
_UNSHOWN = {'*': ('norelatime', 'iversion', 'noiversion'), 'ext4': ('journal_checksum', 'i_version', 'journal_ioprio'),
            'xfs': ('attr2', 'noattr2', 'ikeep', 'noikeep')}


# key=value options a file system leaves out of mountinfo at their default value, and that default: a
# remount with it takes back a value a run set (seen on 6.18: remount,commit=5 drops commit=60 from
# mountinfo).  ext4 prints errors= only when it differs from the superblock's errors behaviour
# (tune2fs -e; mke2fs makes it continue), so each of the three is a candidate, the usual one first.
HIDDEN_DEFAULTS = {'ext4': {'errors': ('continue', 'remount-ro', 'panic'), 'commit': ('5',),
                            'inode_readahead_blks': ('32',), 'max_batch_time': ('15000',), 'min_batch_time': ('0',),
                            'stripe': ('0',), 'data_err': ('ignore',), 'resuid': ('0',), 'resgid': ('0',)}}


def hidden_defaults(key, fstype):
    """The values of ``key`` a mount of type ``fstype`` does not show because they are its default,
    the likeliest first (empty when none is known)."""
    return HIDDEN_DEFAULTS.get(_family(fstype), {}).get(key, ())


def _family(fstype):
    return 'ext4' if fstype in _EXT_TYPES else fstype


def live_remount(option, fstype):
    """What a remount of a mount of type ``fstype`` does with ``option``: CHANGES, REFUSED (the
    remount fails) or IGNORED (it succeeds and changes nothing)."""
    key = option.split('=', 1)[0]
    family = _family(fstype)
    if family == 'ext4':
        return _EXT4_REMOUNT.get(option, _EXT4_REMOUNT.get(key, CHANGES))
    if family == 'xfs' and (key in _XFS or key == 'dax') and option not in _XFS_REMOUNT_CHANGES:
        return IGNORED
    return CHANGES


def shown_live(option, fstype):
    """False when /proc/self/mountinfo never shows ``option`` on a mount of type ``fstype``."""
    key = option.split('=', 1)[0]
    return not any(word in _UNSHOWN.get(table, ()) for table in ('*', _family(fstype)) for word in (option, key))
