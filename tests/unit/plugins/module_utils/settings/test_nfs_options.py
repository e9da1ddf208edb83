# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The NFS table: what a remount does with each NFS option, and NFS options read from mountinfo."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.settings import mount_options
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import edit_fstab_options, option_slot
from ansible_collections.iotune.storage.plugins.module_utils.settings.nfs_options import (
    CHANGES, IGNORED, MOUNT_ONLY, NFS_OPTIONS, REFUSED, negotiated_lower, nfs_in_effect, nfs_missing, remount_effect,
    remount_source)

# mountinfo's super options of an NFSv4.2 mount (Linux 6.x, nfs_show_options), per-mount flags first
LIVE = ['rw', 'relatime', 'vers=4.2', 'rsize=524288', 'wsize=524288', 'namlen=255', 'acregmin=30', 'acregmax=30',
        'acdirmax=30', 'hard', 'proto=tcp', 'nconnect=4', 'timeo=600', 'retrans=2', 'sec=sys',
        'clientaddr=192.0.2.10', 'local_lock=none', 'addr=192.0.2.1']
PLAIN = ['rw', 'relatime', 'vers=4.2', 'rsize=1048576', 'wsize=1048576', 'namlen=255', 'hard', 'proto=tcp',
         'timeo=600', 'retrans=2', 'sec=sys', 'clientaddr=192.0.2.10', 'local_lock=none', 'addr=192.0.2.1']


def test_every_nfs_option_of_the_catalogue_has_its_remount_effect():
    assert sorted(set(mount_options._NFS) - set(NFS_OPTIONS)) == []
    assert sorted(set(NFS_OPTIONS) - set(mount_options.CATALOGUE)) == []


@pytest.mark.parametrize('option, effect', [
    ('noatime', CHANGES), ('ro', CHANGES), ('nosuid', CHANGES), ('sync', CHANGES),
    ('rsize=1048576', REFUSED), ('wsize=65536', REFUSED), ('vers=4.1', REFUSED), ('actimeo=30', REFUSED),
    ('acregmin=3', REFUSED), ('hard', REFUSED), ('soft', REFUSED), ('softerr', REFUSED), ('timeo=600', REFUSED),
    ('retrans=2', REFUSED), ('sec=krb5', REFUSED), ('lookupcache=none', REFUSED), ('noac', REFUSED), ('nocto', REFUSED),
    ('local_lock=all', REFUSED), ('fsc', REFUSED), ('port=2049', REFUSED),
    ('nconnect=4', IGNORED), ('max_connect=8', IGNORED), ('xprtsec=tls', IGNORED), ('proto=rdma', IGNORED),
    ('clientaddr=192.0.2.10', IGNORED), ('tcp', IGNORED), ('namlen=255', IGNORED),
    ('bg', MOUNT_ONLY), ('retry=2', MOUNT_ONLY),
])
def test_remount_effect(option, effect):
    assert remount_effect(option) == effect


def test_each_effect_names_its_source():
    assert remount_source('rsize=1048576') == 'fs/nfs/super.c nfs_compare_remount_data'
    assert remount_source('nconnect=4').startswith('fs/nfs/fs_context.c')
    assert remount_source('bg').startswith('nfs(5)')
    assert remount_source('noatime') is None


@pytest.mark.parametrize('option, live, expected', [
    ('rsize=524288', LIVE, True),
    ('rsize=1048576', LIVE, False),
    ('nconnect=4', LIVE, True),
    ('nconnect=4', PLAIN, False),
    ('nconnect=1', PLAIN, True),            # not shown: one connection
    ('nconnect', PLAIN, False),             # absent: [nconnect] is met by a mount without it
    ('nconnect', LIVE, True),
    ('actimeo=30', LIVE, True),             # acdirmin=30 is the default, so not shown
    ('actimeo=30', PLAIN, False),
    ('actimeo=60', ['acregmin=60', 'acdirmin=60'], True),
    ('acregmin=3', PLAIN, True),
    ('acdirmin=30', LIVE, True),
    ('hard', LIVE, True),
    ('soft', LIVE, False),
    ('softerr', ['softerr', 'proto=tcp'], True),
    ('hard', ['softerr', 'proto=tcp'], False),
    ('vers=4', LIVE, True),                 # the minor version is negotiated
    ('vers=4.2', LIVE, True),
    ('nfsvers=4.2', LIVE, True),
    ('vers=4.1', LIVE, False),
    ('vers=3', LIVE, False),
    ('minorversion=2', LIVE, True),
    ('minorversion=1', LIVE, False),
    ('tcp', LIVE, True),
    ('udp', LIVE, False),
    ('tcp', ['proto=tcp6'], True),
    ('cto', LIVE, True),                    # nocto is shown only when set
    ('nocto', LIVE, False),
    ('nocto', LIVE + ['nocto'], True),
    ('lock', LIVE, True),
    ('nolock', ['vers=3', 'nolock'], True),
    ('lookupcache=all', LIVE, True),
    ('lookupcache=none', LIVE, False),
    ('lookupcache=pos', ['lookupcache=pos'], True),
    ('local_lock=none', LIVE, True),
    ('xprtsec=none', LIVE, True),
    ('sec=sys', LIVE, True),
    ('noatime', LIVE, False),
    ('relatime', LIVE, True),
    ('bg', LIVE, None),                     # mount.nfs only
    ('intr', LIVE, None),
])
def test_nfs_in_effect(option, live, expected):
    assert nfs_in_effect(option, live) is expected


@pytest.mark.parametrize('option, live, lower', [
    ('rsize=1048576', LIVE, '524288'),
    ('wsize=1048576', LIVE, '524288'),
    ('rsize=524288', LIVE, None),
    ('rsize=65536', LIVE, None),            # above what was asked: not a cap
    ('nconnect=8', LIVE, None),
    ('rsize', LIVE, None),
])
def test_negotiated_lower(option, live, lower):
    assert negotiated_lower(option, live) == lower


def test_nfs_missing():
    assert nfs_missing(LIVE, ['nconnect=4', 'actimeo=30', 'rsize=1048576', 'bg'], ['nocto', 'soft']) == ['rsize=1048576']
    assert nfs_missing(PLAIN, ['nconnect=4', 'hard'], ['nconnect', 'sync']) == ['nconnect=4']


def test_hard_soft_and_softerr_are_one_setting():
    assert option_slot('hard') == option_slot('soft') == option_slot('softerr')
    assert edit_fstab_options(['rw', 'soft', 'timeo=50'], ['hard'], []) == (['rw', 'hard', 'timeo=50'], [])
    assert edit_fstab_options(['rw', 'hard'], [], ['hard']) == (['rw'], [])
