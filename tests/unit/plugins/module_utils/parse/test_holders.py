# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What holds a mount open, from a fixture /proc tree (links as the kernel shows them)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse import holders as _holders
from ansible_collections.iotune.storage.plugins.module_utils.parse.holders import describe_holders, mount_holders

MAPS_LIBC = '7f1c2a000000-7f1c2a028000 r--p 00000000 fe:01 1574 /usr/lib/x86_64-linux-gnu/libc.so.6\n'


def make_process(proc_root, pid, comm, cwd='/root', root='/', exe='/usr/bin/bash', fds=(), maps=MAPS_LIBC):
    """/proc/<pid> as the kernel shows it: cwd, root and exe links, fd/<n> links, maps and comm."""
    proc_dir = os.path.join(str(proc_root), str(pid))
    os.makedirs(os.path.join(proc_dir, 'fd'))
    for name, target in (('cwd', cwd), ('root', root), ('exe', exe)):
        os.symlink(target, os.path.join(proc_dir, name))
    for number, target in enumerate(fds):
        os.symlink(target, os.path.join(proc_dir, 'fd', str(number)))
    with open(os.path.join(proc_dir, 'maps'), 'w') as handle:
        handle.write(maps)
    with open(os.path.join(proc_dir, 'comm'), 'w') as handle:
        handle.write(comm + '\n')
    return proc_dir


@pytest.fixture(name='proc_root')
def proc_root_fixture(tmp_path):
    proc_root = tmp_path / 'proc'
    (proc_root / 'self').mkdir(parents=True)
    make_process(proc_root, 1, 'systemd', exe='/usr/lib/systemd/systemd', fds=['/dev/null', 'socket:[1234]'])
    make_process(proc_root, 4242, 'bash', cwd='/mnt/nfs/work')
    make_process(proc_root, 4300, 'postgres', fds=['/dev/null', '/var/log/pg.log', '/mnt/nfs/base/16384 (deleted)'])
    make_process(proc_root, 4400, 'java', maps=MAPS_LIBC + '7f1c2b000000-7f1c2b100000 r-xp 00000000 00:34 99 /mnt/nfs/lib/libx.so\n')
    make_process(proc_root, 4500, 'chrooted', root='/mnt/nfs/jail', cwd='/mnt/nfs/jail')
    make_process(proc_root, 4600, 'less', cwd='/mnt/nfsother', fds=['/mnt/nfs2/file'])  # a longer name, not under it
    return str(proc_root)


def test_holders_name_the_pid_the_command_and_what_is_under_the_mount(proc_root):
    assert mount_holders('/mnt/nfs', proc_root) == [
        {'pid': 4242, 'command': 'bash', 'what': ['cwd']},
        {'pid': 4300, 'command': 'postgres', 'what': ['fd 2']},
        {'pid': 4400, 'command': 'java', 'what': ['mapped file']},
        {'pid': 4500, 'command': 'chrooted', 'what': ['cwd', 'root']},
    ]


def test_nothing_holds_a_mount_nobody_uses(proc_root):
    assert mount_holders('/srv/idle', proc_root) == []
    assert mount_holders('/mnt/nfs2', proc_root) == [{'pid': 4600, 'command': 'less', 'what': ['fd 0']}]


def test_a_mount_under_the_mount_point_holds_it(proc_root):
    found = mount_holders('/srv/idle', proc_root, ['/', '/srv/idle', '/srv/idle/snap', '/srv/idler'])
    assert found == [{'pid': None, 'command': 'mount', 'what': ['/srv/idle/snap']}]
    assert describe_holders(found) == 'the mount /srv/idle/snap under it'


def test_describe_holders(proc_root):
    assert describe_holders(mount_holders('/mnt/nfs', proc_root)[:2]) == 'pid 4242 (bash: cwd), pid 4300 (postgres: fd 2)'


def test_a_process_that_ended_while_read_is_skipped(proc_root):
    os.makedirs(os.path.join(proc_root, '5000'))  # no links, no fd directory: gone
    assert [holder['pid'] for holder in mount_holders('/mnt/nfs', proc_root)] == [4242, 4300, 4400, 4500]


def test_a_process_that_cannot_be_read_counts_as_a_holder(proc_root, monkeypatch):
    listdir = os.listdir

    def refusing(path):
        if path.endswith(os.path.join('4600', 'fd')):
            raise OSError(errno.EACCES, 'Permission denied')
        return listdir(path)
    monkeypatch.setattr(_holders.os, 'listdir', refusing)
    assert mount_holders('/srv/idle', proc_root) == [
        {'pid': 4600, 'command': 'less', 'what': ['cannot be inspected (Permission denied)']}]


def test_an_unreadable_proc_root_is_a_holder(tmp_path):
    found = mount_holders('/mnt/nfs', str(tmp_path / 'missing'))
    assert found[0]['pid'] is None and 'cannot be read' in describe_holders(found)
