# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""coreutils' own cp cases (cp_cases.py), run with GNU cp and with iotune-copy as it is installed (the zipapp,
run by its own interpreter line, /usr/bin/python3 -IS) in two identical sandboxes. Each run must end alike:
exit status zero or not, the messages (without the program's name), and the tree: every entry's type, content,
mode with the special bits, owner and group, link target, device number, hard-link group, extended attributes
(POSIX ACLs are two of them) and, for -p, times. A case the tool deliberately does not run as cp does is in
cp_cases.DIFFERENCES, with what the tool does instead, which is checked here too."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import contextlib
import errno
import os
import pwd
import re
import shutil
import stat
import subprocess
import tempfile

import pytest

from ansible_collections.iotune.storage.tests.unit.tools.copy_tool import zipapp
from ansible_collections.iotune.storage.tests.unit.tools.cp_cases import CASES, DIFFERENCES
from ansible_collections.iotune.storage.tests.unit.tools.test_iotune_copy import GNU_CP, _gnu_cp

INTERPRETER = '/usr/bin/python3'
STAMP = (1500000000123456789, 1400000000987654321)
FALLBACK = 'O_DIRECT not supported here, copying buffered'
# the program's name as it starts a message: cp names itself by the path it was run as
PROGRAM = re.compile(r'^(?:\S*/)?(?:cp|iotune-copy): ')


@pytest.fixture(scope='module')
def workspace():
    """A directory every user may enter, with the installed tool in it (the sandboxes of a case run as another
    user are given to that user)."""
    _gnu_cp()
    if not os.access(INTERPRETER, os.X_OK):
        pytest.skip('the tool is installed with %s as its interpreter' % INTERPRETER)
    root = tempfile.mkdtemp(prefix='iotune-cp-cases-')
    os.chmod(root, 0o755)
    tool = os.path.join(root, 'iotune-copy')
    shutil.copyfile(zipapp('iotune-copy'), tool)
    os.chmod(tool, 0o755)
    yield root, tool
    shutil.rmtree(root, ignore_errors=True)


def _user(name):
    if name is None:
        return None
    if os.geteuid() != 0:
        pytest.skip('running a copy as %s needs root' % name)
    return pwd.getpwnam(name)


@contextlib.contextmanager
def _umask(value):
    """The umask of the processes started inside (the setup, the copy)."""
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


def _stamp(sandbox):
    """Give every entry of the sandbox the same times (both sandboxes are built, one after the other), so that
    -p's times can be compared."""
    for directory, dirs, files in os.walk(sandbox, topdown=False):
        for name in dirs + files:
            os.utime(os.path.join(directory, name), ns=STAMP, follow_symlinks=False)


def run_side(sandbox, argv, case):
    """Build the case in sandbox, run argv there; (exit status is zero, messages without the program's name)."""
    with _umask(case.umask):
        done = subprocess.run(['sh', '-ec', case.setup], cwd=sandbox, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, check=False)
    if done.returncode != 0:
        pytest.skip('the sandbox cannot be built here: %s' % done.stdout.strip())
    _stamp(sandbox)
    user = _user(case.user)
    if user is not None:
        os.chown(sandbox, user.pw_uid, user.pw_gid)
        argv = ['setpriv', '--reuid=%d' % user.pw_uid, '--regid=%d' % user.pw_gid, '--clear-groups', '--'] + argv
    with _umask(case.umask):
        done = subprocess.run(argv, cwd=sandbox, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60, check=False)
    messages = []
    for line in done.stderr.splitlines():
        line = PROGRAM.sub('', line)
        if FALLBACK not in line:
            messages.append(line)
    return done.returncode == 0, messages


def _kind(mode):
    for test, name in ((stat.S_ISLNK, 'link'), (stat.S_ISDIR, 'dir'), (stat.S_ISREG, 'file'), (stat.S_ISFIFO, 'fifo'),
                       (stat.S_ISSOCK, 'socket'), (stat.S_ISCHR, 'char device'), (stat.S_ISBLK, 'block device')):
        if test(mode):
            return name
    return 'unknown'


def _xattrs(path):
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return {}
        raise
    return dict((name, os.getxattr(path, name, follow_symlinks=False)) for name in sorted(names))


def tree_state(root, times=False):
    """{relative path: what a copy promises about it}, links not followed; hard links named by their group."""
    entries, groups = {}, {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            entry = {'type': _kind(st.st_mode), 'owner': (st.st_uid, st.st_gid)}
            if stat.S_ISLNK(st.st_mode):
                entry['target'] = os.readlink(path)
            else:
                entry['mode'] = '%04o' % stat.S_IMODE(st.st_mode)
                entry['xattrs'] = _xattrs(path)
            if stat.S_ISREG(st.st_mode):
                with open(path, 'rb') as handle:
                    entry['content'] = handle.read()
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                entry['device'] = (os.major(st.st_rdev), os.minor(st.st_rdev))
            if times and not stat.S_ISLNK(st.st_mode):
                entry['mtime'] = st.st_mtime_ns
            if not stat.S_ISDIR(st.st_mode):
                groups.setdefault((st.st_dev, st.st_ino), []).append(rel)
            entries[rel] = entry
    for names in groups.values():
        for rel in names:
            entries[rel]['hard links'] = sorted(names)
    return entries


def _outcome(sandbox, result, case):
    ok, messages = result
    return {'exit status zero': ok, 'messages': messages, 'tree': tree_state(sandbox, case.times)}


def run_case(workspace, case, index):
    root, tool = workspace
    base = os.path.join(root, 'case-%d' % index)
    outcomes = {}
    for side, argv in (('cp', [GNU_CP] + list(case.args)),
                       ('tool', [tool] + list(case.tool_args or case.args))):
        sandbox = os.path.join(base, side)
        os.makedirs(sandbox)
        try:
            outcomes[side] = _outcome(sandbox, run_side(sandbox, argv, case), case)
        finally:
            if case.cleanup:
                subprocess.run(['sh', '-ec', case.cleanup], cwd=sandbox, check=False)
    shutil.rmtree(base, ignore_errors=True)
    return outcomes


def _differences(outcomes):
    """A readable account of where the two runs differ."""
    lines = []
    cp, tool = outcomes['cp'], outcomes['tool']
    for key in ('exit status zero', 'messages'):
        if cp[key] != tool[key]:
            lines.append('%s: cp %r, iotune-copy %r' % (key, cp[key], tool[key]))
    for rel in sorted(set(cp['tree']) | set(tool['tree'])):
        if cp['tree'].get(rel) != tool['tree'].get(rel):
            lines.append('%s: cp %r, iotune-copy %r' % (rel, cp['tree'].get(rel), tool['tree'].get(rel)))
    return '\n'.join(lines)


@pytest.mark.parametrize('index', range(len(CASES)), ids=[c.name for c in CASES])
def test_cp_case(workspace, index):
    case = CASES[index]
    outcomes = run_case(workspace, case, index)
    if case.differs is None:
        assert outcomes['tool'] == outcomes['cp'], '%s (%s):\n%s' % (case.name, case.origin, _differences(outcomes))
        return
    ok, messages = case.tool_outcome
    tool = outcomes['tool']
    assert (tool['exit status zero'], tool['messages']) == (ok, messages), case.name
    assert outcomes['tool'] != outcomes['cp'], '%s: the tool now does what cp does; take it out of DIFFERENCES' % case.name


def test_the_case_table_is_sound():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), 'two cases have one name'
    used = set(c.differs for c in CASES if c.differs)
    assert used == set(DIFFERENCES), 'every difference has its case, and every case names a listed difference'
    for c in CASES:
        assert (c.differs is None) == (c.tool_outcome is None), c.name
        assert c.origin.endswith('.sh') or c.origin in ('trailing-slash', 'issue 52'), c.name
