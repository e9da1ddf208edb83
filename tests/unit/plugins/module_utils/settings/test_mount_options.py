# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Mount options a policy may ensure or forbid: known to a file system, with a value of the right form
(issue 18, D2: garbage options were written to fstab and failed only at the remount)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_options import CATALOGUE, option_problem
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_policy


@pytest.mark.parametrize('option', [
    'noatime', 'commit=60', 'data=journal', 'errors=remount-ro', 'barrier', 'barrier=0', 'logbsize=64k',
    'allocsize=1m', 'mincache=closesync', 'convosync=direct', 'delaylog', 'size=50%', 'size=16m', 'nr_inodes=10k',
    'huge=within_size', 'x-systemd.automount', 'x-systemd.device-timeout=10s', 'X-mount.mkdir', 'comment=any thing',
    'context=system_u:object_r:tmp_t:s0', 'journal_path=/dev/vg/journal', 'vers=4.2', 'rsize=1048576',
    'compress=zstd:3', 'dax', 'dax=inode', 'mode=1777', 'uid=1000', 'nofail', '_netdev', 'compress-force=lzo',
])
def test_known_options(option):
    assert option_problem(option) is None


@pytest.mark.parametrize('option, problem', [
    ('noatime;touch$IFS/x', 'not an option name'),
    ('$(reboot)', 'not an option name'),
    ('frobnicate', 'not a mount option of generic (mount(8)), ext4, xfs, vxfs, tmpfs, btrfs, nfs'),
    ('commit=abc', 'commit takes an integer'),
    ('commit=-1', 'commit takes an integer'),
    ('commit', 'commit takes a value: an integer'),
    ('noatime=1', 'noatime takes no value'),
    ('data=fast', 'data takes one of journal, ordered, writeback'),
    ('mincache=direct;id', 'mincache takes one of closesync, direct, dsync, unbuffered, tmpcache'),
    ('context=$(id)', 'context takes a value without blanks, commas, quotes or shell characters'),
    ('logbsize=64q', 'logbsize takes a size such as 64k'),
    ('x-foo=`id`', 'a user-space option, but its value has blanks, quotes or shell characters'),
    ('60', 'not an option name'),
])
def test_garbage_is_refused_naming_the_accepted_form(option, problem):
    assert option_problem(option).startswith(problem), option_problem(option)


def test_absent_may_name_a_valued_option_without_its_value():
    assert option_problem('mincache', key_only_ok=True) is None
    assert option_problem('mincache') == 'mincache takes a value: one of closesync, direct, dsync, unbuffered, tmpcache'


def test_forms_merge_across_file_systems():
    assert set(CATALOGUE['acl']) == {'flag'}          # ext4 and nfs
    assert 'flag' in CATALOGUE['barrier'] and 'int' in CATALOGUE['barrier']


@pytest.mark.parametrize('lists, message', [
    ({'present': ['noatime;touch$IFS/x']},
     "iotune_mounts[0].present[0]: 'noatime;touch$IFS/x' is not a mount option iotune accepts: not an option name"),
    ({'present': ['$(touch${IFS}/x)']}, "iotune_mounts[0].present[0]: '$(touch${IFS}/x)' is not a mount option iotune accepts"),
    ({'present': ['noatime', 'frobnicate']},
     "iotune_mounts[0].present[1]: 'frobnicate' is not a mount option iotune accepts: not a mount option of"),
    ({'absent': ['commit=abc']},
     "iotune_mounts[0].absent[0]: 'commit=abc' is not a mount option iotune accepts: commit takes an integer"),
    ({'present': [42]}, 'iotune_mounts[0].present[0]: 42 is not a mount option'),
])
def test_policy_refuses_them_naming_the_field(lists, message):
    errors = validate_policy({'iotune_mounts': [dict({'path': '/data'}, **lists)]})
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_policy_accepts_a_bare_valued_option_in_absent_only():
    assert validate_policy({'iotune_mounts': [{'path': '/b', 'absent': ['mincache', 'convosync']}]}) == []
    assert validate_policy({'iotune_mounts': [{'path': '/b', 'present': ['mincache']}]}) == [
        "iotune_mounts[0].present[0]: 'mincache' is not a mount option iotune accepts: mincache takes a value: "
        "one of closesync, direct, dsync, unbuffered, tmpcache"]
