# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune-copy keeps cp's promises (issue 38, items 16-19), side by side with GNU cp: an existing destination
written in place (its inode, owner, mode, ACL and links kept), -p with POSIX ACLs, deep trees and directories
copied into themselves, and copy_file_range asked for whole extents, as cp asks. Cases ported from the
coreutils test suite (tests/cp/) say which one they come from."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import shutil
import stat
import subprocess

import pytest

from ansible_collections.iotune.storage.tests.unit.tools.test_iotune_copy import (
    BUF, STAMP, _side_by_side, _snapshot, _spy, data, read, run_main, write)

OWNER = 4321
ACL_USER = 1000


def _acl_tools():
    if not (shutil.which('getfacl') and shutil.which('setfacl')):
        pytest.skip('getfacl and setfacl are needed to read and set POSIX ACLs')


def getfacl(path):
    """The ACL of path as getfacl prints it (numeric ids, no header), or the error when it cannot."""
    done = subprocess.run(['getfacl', '-cnp', str(path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=False)
    return done.stdout


def setfacl(path, *args):
    done = subprocess.run(['setfacl'] + list(args) + [str(path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=False)
    if done.returncode != 0:
        pytest.skip('no POSIX ACLs here: %s' % done.stdout.strip())


def _describe(path, before=None):
    """What cp promises about a file: inode kept?, mode, owner, ACL, content, and the names beside it."""
    st = os.stat(str(path))
    found = {
        'mode': oct(stat.S_IMODE(st.st_mode)),
        'owner': (st.st_uid, st.st_gid),
        'acl': getfacl(path),
        'content': read(path),
        'names': sorted(os.listdir(os.path.dirname(str(path)))),
    }
    if before is not None:
        found['same inode'] = (st.st_dev, st.st_ino) == (before.st_dev, before.st_ino)
    return found


# ---------------------------------------------------------------------------
# Item 16: copying over an existing file writes into it, as cp does


def _private_destination(root):
    """src (0644), and dst: an existing private file (0600, owner 4321, an ACL entry, a second hard link), longer."""
    src = write(root / 'src', data(3 * BUF + 5, 16))
    os.chmod(src, 0o644)
    os.utime(src, ns=STAMP)
    dst = write(root / 'dst', b'the old private content, longer than the new one ' * 8 * 1024)
    os.chmod(dst, 0o600)
    os.chown(dst, OWNER, OWNER)
    setfacl(dst, '-m', 'u:%d:rw' % ACL_USER)
    os.link(dst, str(root / 'second-link'))
    return os.stat(dst)


@pytest.mark.parametrize('flags', [[], ['-r'], ['--nocache'], ['--direct'], ['--direct', '--streams', '3'], ['-p'],
                                   ['--direct', '-p']], ids=lambda f: ' '.join(f) or 'plain')
def test_existing_destination_is_written_in_place_like_cp(tmp_path, flags):
    if os.geteuid() != 0:
        pytest.skip('giving the destination another owner needs root')
    _acl_tools()
    cp_flags = [flag for flag in flags if flag in ('-p', '-r')]
    sides = _side_by_side(tmp_path, _private_destination, cp_flags + ['src', 'dst'],
                          ['--buffer-size', '64k'] + flags + ['src', 'dst'])
    results = {}
    for side, (root, before, rc, messages) in sides.items():
        results[side] = (rc, messages, _describe(root / 'dst', before), read(root / 'second-link') == read(root / 'src'))
    assert results['tool'] == results['cp']
    rc, messages, found, link_has_new_content = results['tool']
    assert (rc, messages) == (0, [])
    assert found['same inode'] and link_has_new_content
    assert found['names'] == ['dst', 'second-link', 'src']
    if '-p' in flags:
        assert found['mode'] == '0o644' and found['owner'] == (0, 0)
    else:
        # a private file never becomes world-readable, and keeps its owner and ACL
        assert found['mode'] == '0o660' and found['owner'] == (OWNER, OWNER)  # 0660: the group bits show the ACL mask
        assert 'user:%d:rw-' % ACL_USER in found['acl']


PERMS = ['r', 'w', 'x', 'rw', 'wx', 'rx', 'rwx']


@pytest.mark.parametrize('umask', [0o031, 0o037, 0o002], ids=oct)
@pytest.mark.parametrize('flags', [[], ['-p']], ids=lambda f: ' '.join(f) or 'plain')
@pytest.mark.parametrize('existing', [True, False], ids=['existing', 'new'])
def test_destination_mode_like_cp(tmp_path, umask, flags, existing):
    """coreutils tests/cp/perm.sh: an existing destination keeps its mode (without -p), a new one gets the
    source's mode less the umask; -p gives the source's mode."""
    def setup(root, group, other):
        src = write(root / 'src', b'perm')
        os.chmod(src, 0o450)  # u=r,g=rx,o=
        if existing:
            os.chmod(write(root / 'dst', b''), 0o600 | _bits(group) << 3 | _bits(other))

    old = os.umask(umask)
    try:
        found = {}
        for group, other in zip(PERMS, reversed(PERMS)) if existing else [('', '')]:
            base = tmp_path / ('g%s-o%s' % (group, other))
            base.mkdir()
            sides = _side_by_side(base, lambda root: setup(root, group, other), flags + ['src', 'dst'], flags + ['src', 'dst'])
            found[base.name] = dict((side, (rc, messages, oct(stat.S_IMODE(os.stat(str(root / 'dst')).st_mode))))
                                    for side, (root, dummy, rc, messages) in sides.items())
    finally:
        os.umask(old)
    for name, results in found.items():
        assert results['tool'] == results['cp'], name
        assert results['tool'][:2] == (0, [])


def _bits(perm):
    return (4 if 'r' in perm else 0) | (2 if 'w' in perm else 0) | (1 if 'x' in perm else 0)


def _busy_program(root):
    """dst: a copy of sleep(1) that is running (writing it fails: ETXTBSY), with a second hard link."""
    write(root / 'src', b'new')
    shutil.copy2(shutil.which('sleep'), str(root / 'dst'))
    os.link(str(root / 'dst'), str(root / 'second-link'))
    process = subprocess.Popen([str(root / 'dst'), '30'])
    return process


@pytest.mark.parametrize('flags', [[], ['-f'], ['--force'], ['--remove-destination']], ids=lambda f: ' '.join(f) or 'plain')
def test_force_and_remove_destination_like_cp(tmp_path, flags):
    """cp -f removes a destination it cannot open (a running program: "Text file busy") and creates it anew;
    --remove-destination removes it first; without them the copy fails and the file is untouched."""
    processes = []

    def setup(root):
        processes.append(_busy_program(root))
        return os.stat(str(root / 'dst'))

    try:
        sides = _side_by_side(tmp_path, setup, flags + ['src', 'dst'], flags + ['src', 'dst'])
    finally:
        for process in processes:
            process.kill()
            process.wait()
    results = {}
    for side, (root, before, rc, messages) in sides.items():
        st = os.stat(str(root / 'dst'))
        results[side] = (rc, messages, st.st_ino == before.st_ino, read(root / 'dst') == b'new', st.st_nlink)
    assert results['tool'] == results['cp']
    if flags:
        assert results['tool'] == (0, [], False, True, 1)
    else:
        assert results['tool'] == (1, ["cannot create regular file 'dst': Text file busy"], True, False, 2)


# ---------------------------------------------------------------------------
# Item 17: -p keeps POSIX ACLs, the mask too


def _file_with_acl(root):
    """src with a named user (rw-) whose mask (r--) limits it, and beside it dst with an ACL of its own."""
    src = write(root / 'src', b'acl')
    os.chmod(src, 0o640)
    setfacl(src, '-m', 'u:%d:rw,g::rw,m::r' % ACL_USER)
    plain = write(root / 'plain', b'no acl')
    os.chmod(plain, 0o640)
    dst = write(root / 'existing', b'old')
    setfacl(dst, '-m', 'u:2000:rwx')
    return None


@pytest.mark.parametrize('flags', [['-p'], [], ['-p', '--direct']], ids=' '.join)
@pytest.mark.parametrize('source, target', [('src', 'new'), ('src', 'existing'), ('plain', 'existing')])
def test_preserve_copies_posix_acls_like_cp(tmp_path, flags, source, target):
    _acl_tools()
    cp_flags = [flag for flag in flags if flag != '--direct']
    sides = _side_by_side(tmp_path, _file_with_acl, cp_flags + [source, target], flags + [source, target])
    results = dict((side, (rc, messages, _describe(root / target)))
                   for side, (root, dummy, rc, messages) in sides.items())
    assert results['tool'] == results['cp']
    rc, messages, found = results['tool']
    assert (rc, messages) == (0, [])
    if '-p' in flags and source == 'src':
        assert 'user:%d:rw-\t#effective:r--' % ACL_USER in found['acl'] and 'mask::r--' in found['acl']
        assert 'group::rw-\t#effective:r--' in found['acl']


def _directory_with_default_acl(root):
    (root / 'tree' / 'sub').mkdir(parents=True)
    os.chmod(str(root / 'tree' / 'sub'), 0o750)
    write(root / 'tree' / 'sub' / 'file', b'x')
    setfacl(root / 'tree' / 'sub', '-m', 'u:%d:rx,m::rx' % ACL_USER)
    setfacl(root / 'tree' / 'sub', '-d', '-m', 'u:%d:rwx,g::r' % ACL_USER)
    setfacl(root / 'tree' / 'sub' / 'file', '-m', 'u:%d:r' % ACL_USER)
    (root / 'copy' / 'sub').mkdir(parents=True)   # an existing directory in the destination, with an ACL of its own
    setfacl(root / 'copy' / 'sub', '-m', 'u:2000:rwx')
    setfacl(root / 'copy' / 'sub', '-d', '-m', 'u:2000:rwx')
    return None


@pytest.mark.parametrize('flags', [['-r', '-p'], ['-r']], ids=' '.join)
@pytest.mark.parametrize('target', ['new', 'copy'])
def test_preserve_copies_directory_acls_like_cp(tmp_path, flags, target):
    _acl_tools()
    sides = _side_by_side(tmp_path, _directory_with_default_acl, flags + ['tree', target], flags + ['tree', target])
    results = {}
    for side, (root, dummy, rc, messages) in sides.items():
        top = root / target / ('tree' if target == 'copy' else '')
        results[side] = (rc, messages, getfacl(top / 'sub'), getfacl(top / 'sub' / 'file'))
    assert results['tool'] == results['cp']
    assert results['tool'][:2] == (0, [])
    if '-p' in flags:
        assert 'default:user:%d:rwx' % ACL_USER in results['tool'][2]


def _under_default_acl(root):
    """tree (0755, with a read-only subdirectory 0555), and into: a directory with a default ACL, which gives a new
    file or directory its mode instead of the umask."""
    (root / 'tree' / 'sub').mkdir(parents=True)
    write(root / 'tree' / 'file', b'x')
    os.chmod(str(root / 'tree' / 'file'), 0o755)
    os.chmod(str(root / 'tree' / 'sub'), 0o555)
    (root / 'into').mkdir()
    setfacl(root / 'into', '-d', '-m', 'u:%d:rwx,g::rx,o::-' % ACL_USER)


def test_new_files_and_directories_under_a_default_acl_like_cp(tmp_path):
    """Without -p a new directory (also one whose source is read-only) and a new file get the parent's default
    ACL, as cp's mkdir and open give it (a chmod to the source's mode less the umask would override it)."""
    _acl_tools()
    sides = _side_by_side(tmp_path, _under_default_acl, ['-r', 'tree', 'into/'], ['-r', 'tree', 'into/'])
    results = {}
    for side, (root, dummy, rc, messages) in sides.items():
        top = root / 'into' / 'tree'
        results[side] = (rc, messages, getfacl(top), getfacl(top / 'sub'), getfacl(top / 'file'))
    assert results['tool'] == results['cp']
    assert results['tool'][:2] == (0, []) and 'other::---' in results['tool'][2]
    for tree in tmp_path / 'cp', tmp_path / 'tool':
        os.chmod(str(tree / 'into' / 'tree' / 'sub'), 0o755)  # so that pytest can remove it


# ---------------------------------------------------------------------------
# Item 18: -r iterates (no recursion limit) and refuses a directory copied into itself, by device and inode


def _deep_tree(root, depth=600):
    path = str(root / 'deep')
    os.mkdir(path)
    for dummy in range(depth):
        path = os.path.join(path, 'd')
        os.mkdir(path)
    write(os.path.join(path, 'leaf'), b'at the bottom')


def test_deep_tree_is_copied_like_cp(tmp_path):
    sides = _side_by_side(tmp_path, _deep_tree, ['-r', 'deep', 'copy'], ['-r', 'deep', 'copy'])
    results = dict((side, (rc, messages, _snapshot(root / 'copy') == _snapshot(root / 'deep')))
                   for side, (root, dummy, rc, messages) in sides.items())
    assert results['tool'] == results['cp'] == (0, [], True)


def test_deep_tree_in_process(tmp_path):
    """In this process too (the interpreter's recursion limit is the same): 600 levels, and -p on the way back."""
    _deep_tree(tmp_path)
    rc, err = run_main(['-r', '-p', tmp_path / 'deep', tmp_path / 'copy'])
    assert (rc, err) == (0, '')
    assert _snapshot(tmp_path / 'copy') == _snapshot(tmp_path / 'deep')


def _bind_mounted(root):
    """t/x, and bm: t bind-mounted (one name more for the same directory)."""
    (root / 't' / 'x').mkdir(parents=True)
    write(root / 't' / 'x' / 'file', b'f')
    (root / 'bm').mkdir()
    done = subprocess.run(['mount', '--bind', str(root / 't'), str(root / 'bm')], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    if done.returncode != 0:
        pytest.skip('cannot bind-mount here: %s' % done.stdout.strip())
    return root / 'bm'


def _depth(path):
    return max(dirpath[len(str(path)):].count(os.sep) for dirpath, dummy, dummy2 in os.walk(str(path)))


@pytest.mark.parametrize('target', ['bm/copy', 'bm/x/copy'])
def test_directory_into_itself_through_a_bind_mount_like_cp(tmp_path, target):
    if os.geteuid() != 0:
        pytest.skip('bind mounts need root')
    mounts = []

    def setup(root):
        mounts.append(_bind_mounted(root))

    try:
        sides = _side_by_side(tmp_path, setup, ['-r', 't', target], ['-r', 't', target])
    finally:
        for mount in mounts:
            subprocess.run(['umount', str(mount)], check=False)
    results = dict((side, (rc, messages)) for side, (root, dummy, rc, messages) in sides.items())
    assert results['tool'] == results['cp'] == (1, ["cannot copy a directory, 't', into itself, '%s'" % target])
    # cp copies a level before it notices; the tool notices before it writes anything
    assert _depth(tmp_path / 'tool' / 't') <= _depth(tmp_path / 'cp' / 't') <= 3
    assert _snapshot(tmp_path / 'tool' / 't') == {'x': ('dir',), 'x/file': ('file', b'f')}


def test_directory_into_itself_found_during_the_walk(tmp_path):
    """A subdirectory of the source bind-mounted as the destination's parent: no ancestor of the destination is
    the source, but the walk meets the directory it created (its device and inode), and stops there."""
    if os.geteuid() != 0:
        pytest.skip('bind mounts need root')
    (tmp_path / 't' / 'x').mkdir(parents=True)
    (tmp_path / 'bm').mkdir()
    subprocess.run(['mount', '--bind', str(tmp_path / 't' / 'x'), str(tmp_path / 'bm')], check=True)
    try:
        rc, err = run_main(['-r', tmp_path / 't', tmp_path / 'bm' / 'copy'])
    finally:
        subprocess.run(['umount', str(tmp_path / 'bm')], check=False)
    assert rc == 1
    assert err == "iotune-copy: cannot copy a directory, '%s', into itself, '%s'\n" % (tmp_path / 't', tmp_path / 'bm' / 'copy')
    assert _depth(tmp_path / 't') <= 3


def test_directory_into_itself_messages_like_cp(tmp_path):
    """coreutils tests/cp/into-self.sh: cp -R dir dir."""
    def setup(root):
        (root / 'a').mkdir()
        (root / 'dir').mkdir()

    sides = _side_by_side(tmp_path, setup, ['-R', 'dir', 'dir'], ['-R', 'dir', 'dir'])
    results = dict((side, (rc, messages)) for side, (root, dummy, rc, messages) in sides.items())
    assert results['tool'] == results['cp'] == (1, ["cannot copy a directory, 'dir', into itself, 'dir/dir'"])


def test_existing_directory_keeps_its_mode_like_cp(tmp_path):
    """coreutils tests/cp/existing-perm-dir.sh: cp -r src/. dst/ keeps dst/dir's mode."""
    def setup(root):
        (root / 'src' / 'dir').mkdir(parents=True)
        os.chmod(str(root / 'src' / 'dir'), 0o775)
        (root / 'dst' / 'dir').mkdir(parents=True)
        os.chmod(str(root / 'dst' / 'dir'), 0o700)

    old = os.umask(0o002)
    try:
        sides = _side_by_side(tmp_path, setup, ['-r', 'src/.', 'dst/'], ['-r', 'src/.', 'dst/'])
    finally:
        os.umask(old)
    results = dict((side, (rc, messages, oct(stat.S_IMODE(os.stat(str(root / 'dst' / 'dir')).st_mode))))
                   for side, (root, dummy, rc, messages) in sides.items())
    assert results['tool'] == results['cp'] == (0, [], '0o700')


# ---------------------------------------------------------------------------
# Item 19: copy_file_range asked for the whole of each extent, as cp asks (and in test_iotune_copy.py:
# test_plain_copy_goes_through_copy_file_range, test_declined_copy_file_range_goes_on_with_read_and_write)


def test_progress_asks_copy_file_range_a_buffer_at_a_time(tmp_path, monkeypatch):
    size = 3 * BUF + 4321
    src = write(tmp_path / 'src', data(size, 193))
    ranges = _spy(monkeypatch, 'copy_range')
    rc, dummy = run_main(['--buffer-size', '64k', '--progress', src, tmp_path / 'dst'])
    assert rc == 0
    assert [(offset, count) for offset, count, dummy in ranges] == [(0, BUF), (BUF, BUF), (2 * BUF, BUF), (3 * BUF, 4321)]
