# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The mount words whose meaning iotune reasons about: one entry per word; pure data.

The mount algebra (settings/mount_algebra.py: slots, opposites, what a list puts in effect, the
remount words), the NFS recovery rules (settings/nfs_options.py), the policy's checks of present and
absent (policy/validate.py) and the Solaris/HP-UX remount (plan/mount_options_unix.py: the words of which
a mount has one at a time, and those fixed at mount time) are all derived from MOUNT_WORDS. A word
not listed is a file system's own flag (``discard``/``nodiscard`` share the slot ``flag:discard``)
or a ``key=value`` option. Adding a word is adding an entry here. Each entry:

* ``slot``: what the word sets; the words of one slot replace each other in an option list (left out
  for a word that is a flag of its own, None for ``defaults``, which sets several);
* ``sets``: what the word makes of its slot: True or False for a slot that is on or off (``ro``
  sets slot ``ro`` True, ``rw`` sets it False), the word itself for a slot that holds one of several
  words (the atime mode, the NFS recovery, the VxFS intent log), None for a word that only clears
  another one (``atime`` clears ``noatime``: the kernel's default mode comes back);
* ``clears``: for ``sets: None``, the word it clears;
* ``opposite``: the word that ends this one (a remount cannot drop a word, it gives the opposite;
  fstab's ``defaults`` stands for ``async``: ``sync`` ends it); None when no single word does;
* ``default``: True when the word is in effect on a mount that names nothing of its slot (None: the
  platform's default, which iotune does not rely on). The algebra counts the default of an on/off
  slot and of the atime mode as in effect; a word of several (NFS ``hard``) it writes out all the
  same, since /etc/nfsmount.conf may change the client's default;
* ``printed``: False when the kernel never prints the word in /proc/self/mountinfo even when it is
  in effect, because it only restores a default (``async``, ``suid``, ``strictatime``);
* ``implies``: the words it puts in effect whatever else the list says (``noatime`` -> ``nodiratime``:
  no directory access time is kept where no access time is);
* ``also_sets``: the words it sets as if they followed it, which later words may override (mount(8):
  ``user`` -> ``noexec``, ``nosuid``, ``nodev``);
* ``userspace``: read only by mount(8) or systemd, never shown in mountinfo (``noauto``);
* ``in_defaults``: one of the words fstab's ``defaults`` stands for (mount(8));
* ``remount``: per platform where the word exists (``linux``, ``solaris``, ``hpux``), what a live
  remount does with it: ``changes``, or ``fixed`` (the mount keeps the value it was mounted with;
  VxFS largefiles, mount_vxfs(1M)).

Sources: mount(8) of util-linux 2.38 and fs/namespace.c (Linux 6.18, checked with loop mounts);
mount_ufs(1M), mount_vxfs(1M), nfs(5), fs/nfs/fs_context.c.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

LINUX = {'linux': 'changes'}
EVERYWHERE = {'linux': 'changes', 'solaris': 'changes', 'hpux': 'changes'}
UNIX = {'solaris': 'changes', 'hpux': 'changes'}
UNIX_FIXED = {'solaris': 'fixed', 'hpux': 'fixed'}
PLATFORM_NAMES = ('linux', 'solaris', 'hpux')
REMOUNT_EFFECTS = ('changes', 'fixed')


def _pair(off, on, slot=None, off_printed=False, remount=None, in_defaults=False):
    """The two words of an on/off slot: ``off`` is the default (usually not printed), ``on`` sets the slot."""
    slot = slot or on
    remount = remount or LINUX
    return {
        off: {'slot': slot, 'sets': False, 'opposite': on, 'default': True, 'printed': off_printed,
              'remount': remount, 'in_defaults': in_defaults},
        on: {'slot': slot, 'sets': True, 'opposite': off, 'default': False, 'printed': True, 'remount': remount},
    }


MOUNT_WORDS = {}
MOUNT_WORDS.update(_pair('rw', 'ro', off_printed=True, remount=EVERYWHERE, in_defaults=True))
MOUNT_WORDS.update(_pair('suid', 'nosuid', remount=EVERYWHERE, in_defaults=True))
MOUNT_WORDS.update(_pair('dev', 'nodev', in_defaults=True))
MOUNT_WORDS.update(_pair('exec', 'noexec', in_defaults=True))
MOUNT_WORDS.update(_pair('diratime', 'nodiratime'))
MOUNT_WORDS.update(_pair('nolazytime', 'lazytime'))
MOUNT_WORDS.update(_pair('nomand', 'mand'))
MOUNT_WORDS.update(_pair('noiversion', 'iversion'))
MOUNT_WORDS.update(_pair('symfollow', 'nosymfollow'))
MOUNT_WORDS.update({
    'dirsync': {'slot': 'dirsync', 'sets': True, 'opposite': None, 'default': False, 'printed': True,
                'remount': LINUX},
    # mount(8)'s own words: the kernel never sees them
    'auto': {'slot': 'noauto', 'sets': False, 'opposite': 'noauto', 'default': True, 'printed': False,
             'userspace': True, 'in_defaults': True, 'remount': LINUX},
    'noauto': {'slot': 'noauto', 'sets': True, 'opposite': 'auto', 'default': False, 'printed': False,
               'userspace': True, 'remount': LINUX},
    'nouser': {'slot': 'user', 'sets': False, 'opposite': 'user', 'default': True, 'printed': False,
               'userspace': True, 'in_defaults': True, 'remount': LINUX},
    'user': {'slot': 'user', 'sets': True, 'opposite': 'nouser', 'default': False, 'printed': False,
             'userspace': True, 'also_sets': ('noexec', 'nosuid', 'nodev'), 'remount': LINUX},
    'users': {'slot': 'user', 'sets': True, 'opposite': 'nouser', 'default': False, 'printed': False,
              'userspace': True, 'also_sets': ('noexec', 'nosuid', 'nodev'), 'remount': LINUX},
    'owner': {'userspace': True, 'remount': LINUX},
    'group': {'userspace': True, 'remount': LINUX},
    'nofail': {'userspace': True, 'remount': LINUX},
    '_netdev': {'userspace': True, 'remount': LINUX},
    'defaults': {'slot': None, 'userspace': True, 'remount': LINUX},
})
MOUNT_WORDS.update(_pair('async', 'sync', in_defaults=True))  # after nouser: mount(8)'s order of what defaults means
MOUNT_WORDS.update({
    # the atime mode: one of noatime, relatime (the kernel's default) and strictatime
    'noatime': {'slot': 'atime', 'sets': 'noatime', 'opposite': 'relatime', 'default': False, 'printed': True,
                'implies': ('nodiratime',), 'remount': EVERYWHERE},
    'relatime': {'slot': 'atime', 'sets': 'relatime', 'opposite': None, 'default': True, 'printed': True,
                 'remount': LINUX},
    'strictatime': {'slot': 'atime', 'sets': 'strictatime', 'opposite': 'relatime', 'default': False,
                    'printed': False, 'remount': LINUX},
    'atime': {'slot': 'atime', 'sets': None, 'clears': 'noatime', 'opposite': 'noatime', 'default': True,
              'printed': False, 'remount': EVERYWHERE},
    'nostrictatime': {'slot': 'atime', 'sets': None, 'clears': 'strictatime', 'opposite': 'strictatime',
                      'default': True, 'printed': False, 'remount': LINUX},
    # clears relatime only: noatime or strictatime beside it stay; the kernel mounts relatime all the same
    'norelatime': {'slot': 'norelatime', 'sets': None, 'clears': 'relatime', 'opposite': None, 'default': False,
                   'printed': True, 'remount': LINUX},
    # how the NFS client recovers from a server that does not answer (fs/nfs/fs_context.c)
    'hard': {'slot': 'nfs-recovery', 'sets': 'hard', 'opposite': None, 'default': True, 'printed': True,
             'remount': LINUX},
    'soft': {'slot': 'nfs-recovery', 'sets': 'soft', 'opposite': None, 'default': False, 'printed': True,
             'remount': LINUX},
    'softerr': {'slot': 'nfs-recovery', 'sets': 'softerr', 'opposite': None, 'default': False, 'printed': True,
                'remount': LINUX},
})


def _unix_words(slot, words, remount=None):
    """Solaris/HP-UX words of which a mount has one at a time; mnttab shows what the mount was given, and
    the platform's default is not one iotune relies on (None)."""
    return dict((word, {'slot': slot, 'sets': word, 'opposite': None, 'default': None, 'printed': True,
                        'remount': remount or UNIX}) for word in words)


# Solaris and HP-UX (mount_ufs(1M), mount_vxfs(1M)): the VxFS intent log, large files (fixed when the
# file system is mounted), VxFS data in the log and Quick I/O, UFS logging and forced direct I/O
MOUNT_WORDS.update(_unix_words('vxfs-log', ('log', 'delaylog', 'tmplog', 'nolog')))
MOUNT_WORDS.update(_unix_words('largefiles', ('largefiles', 'nolargefiles'), UNIX_FIXED))
MOUNT_WORDS.update(_unix_words('datainlog', ('datainlog', 'nodatainlog')))
MOUNT_WORDS.update(_unix_words('qio', ('qio', 'noqio')))
MOUNT_WORDS.update(_unix_words('logging', ('logging', 'nologging')))
MOUNT_WORDS.update(_unix_words('forcedirectio', ('forcedirectio', 'noforcedirectio')))
# Solaris UFS: access-time updates written when the disk is next accessed for another reason (Solaris 7 3/99 on)
MOUNT_WORDS.update(_unix_words('dfratime', ('dfratime', 'nodfratime'), {'solaris': 'changes'}))


def words_on(platform):
    """The entries of the words that exist on ``platform``: {word: entry}."""
    return dict((word, entry) for word, entry in MOUNT_WORDS.items() if platform in entry['remount'])


def slot_groups(platform):
    """The words of each slot on ``platform`` that has more than one: a mount has one of them at a time."""
    groups = {}
    for word, entry in sorted(words_on(platform).items()):
        if entry['slot'] is not None:
            groups.setdefault(entry['slot'], []).append(word)
    return tuple(tuple(words) for slot, words in sorted(groups.items()) if len(words) > 1)


def fixed_at_mount(platform):
    """The words a remount on ``platform`` cannot change."""
    return tuple(sorted(word for word, entry in words_on(platform).items() if entry['remount'][platform] == 'fixed'))
