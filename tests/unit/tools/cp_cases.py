# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cases of GNU coreutils' own cp tests (tests/cp/*.sh, coreutils 9.1) that concern the options iotune-copy
claims, as data: test_cp_cases.py runs each with GNU cp and with the installed tool (the zipapp) in two identical
sandboxes and compares the outcome; `make schema` renders DIFFERENCES into the copy tool's docs
(docs/copy_tool.md, "Differences from cp").

A case: its name, the coreutils test it comes from (or the issue that found it), a POSIX shell script that
builds the sandbox (run with `sh -ec` inside it, as the coreutils scripts build theirs), cp's arguments (the
tool gets the same, or tool_args), the umask of both runs, the user who runs the copy (root, or 'nobody' after
the sandbox is given to it), whether times are compared (-p), and, for a case where the tool deliberately does
not do what cp does, the key of its entry in DIFFERENCES and what the tool does instead (exit zero or not, its
messages).

cleanup, when given, is a script run in the sandbox after the comparison (a loop device to detach).

cp's -d is -R here for files given on the command line (both copy a symbolic link as a link; the tool has no
--preserve=links), and cp -dR is -R.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import collections

Case = collections.namedtuple('Case', 'name origin setup args tool_args umask user times differs tool_outcome cleanup')


def case(name, origin, setup, args, tool_args=None, umask=0o022, user=None, times=False, differs=None, tool_outcome=None,
         cleanup=None):
    return Case(name, origin, setup, tuple(args.split()) if isinstance(args, str) else tuple(args),
                None if tool_args is None else tuple(tool_args.split()), umask, user, times, differs, tool_outcome, cleanup)


# key: (what cp does, what iotune-copy does instead, why)
DIFFERENCES = {
    'block device onto itself': (
        "copies a block device onto a second device node of the same device (the same major and minor number)",
        "refuses: \"'a' and 'b' are the same file\" (it compares two block devices' device numbers)",
        "reading and writing one device at once, as two names, is never what was meant; cp compares only the nodes' "
        "inodes",
    ),
    'into itself': (
        "copies the top level of the directory into itself (dir/dir) before it notices, then refuses",
        "refuses before it writes anything: it compares the destination and every directory above it with the "
        "source by device and inode (also through a bind mount or a link)",
        "nothing half-copied is left to clean up; the verdict and the message are cp's",
    ),
    'standard input': (
        "copies a file named '-'",
        "reads standard input ('-' as the source) or writes standard output ('-' as the destination); "
        "name a file called '-' as './-'",
        "pipelines (iotune-copy db.dbf - | gzip | iotune-copy - db.gz) with the tool's large I/Os and --nocache",
    ),
}


CASES = []

# ---------------------------------------------------------------------------
# same-file.sh: cp must never destroy the source by copying it onto itself, through any name. cp's -d is -R
# here (for files on the command line both copy a symbolic link as a link); -b, -l and -s the tool does not have.

_SAME_FILE_SETUPS = {
    'foo symlink': 'echo XYZ > foo; ln -s foo symlink',
    'symlink foo': 'echo XYZ > foo; ln -s foo symlink',
    'foo foo': 'echo XYZ > foo',
    'sl1 sl2': 'echo XYZ > foo; ln -s foo sl1; ln -s foo sl2',
    'foo hardlink': 'echo XYZ > foo; ln foo hardlink',
    'hlsl sl2': 'echo XYZ > foo; ln -s foo sl2; ln sl2 hlsl',
}
_SAME_FILE_OPTIONS = ('', '-R', '-f', '-R -f', '--remove-destination', '-R --remove-destination')

for _args, _setup in _SAME_FILE_SETUPS.items():
    for _options in _SAME_FILE_OPTIONS:
        CASES.append(case('same-file: cp %s%s' % (_options + ' ' if _options else '', _args), 'same-file.sh', _setup,
                          (_options + ' ' + _args).split()))

# ---------------------------------------------------------------------------
# Links the copy must not write through (abuse.sh, thru-dangling.sh, no-deref-link*.sh, deref-slink.sh) and the
# cases issue 52 found

CASES += [
    case('abuse: -R through a just-created dangling symlink', 'abuse.sh',
         'mkdir a b c; ln -s ../t a/1; echo payload > b/1', '-R a/1 b/1 c'),
    case('abuse: -R through a just-created symlink to a file', 'abuse.sh',
         'mkdir a b c; ln -s ../t a/1; echo payload > b/1; echo i > t', '-R a/1 b/1 c'),
    case('abuse: through a just-created symlink, the link second', 'issue 52',
         'mkdir a b c; ln -s ../t a/1; echo payload > b/1; echo i > t', '-R b/1 a/1 c'),
    case('-R symlink onto the file it names', 'issue 52', 'echo XYZ > foo; ln -s foo symlink', '-R symlink foo'),
    case('-R symlink onto the file it names, into a directory', 'issue 52',
         'mkdir d; echo XYZ > d/foo; ln -s d/foo foo', '-R foo d'),
    case('-R --remove-destination symlink onto the file it names, into a directory', 'issue 52',
         'mkdir d; echo XYZ > d/foo; ln -s d/foo foo', '-R --remove-destination foo d'),
    case('two sources with one name', 'issue 52', 'mkdir d1 d2 c; echo 1 > d1/x; echo 2 > d2/x', 'd1/x d2/x c'),
    case('-R two sources with one name', 'issue 52', 'mkdir d1 d2 c; echo 1 > d1/x; echo 2 > d2/x', '-R d1/x d2/x c'),
    case('-f two sources with one name', 'issue 52', 'mkdir d1 d2 c; echo 1 > d1/x; echo 2 > d2/x', '-f d1/x d2/x c'),
    case('two sources with one name, the first a directory', 'issue 52',
         'mkdir d1 d2 c; mkdir d1/x; echo 2 > d2/x', '-R d1/x d2/x c'),
    case('the same source twice', 'issue 52', 'mkdir c; echo 1 > a', 'a a c'),
    case('no-deref-link1: -R a/foo onto a link to itself', 'no-deref-link1.sh',
         'mkdir a b; echo bar > a/foo; ln -s ../a/foo b/foo', '-R a/foo b'),
    case('no-deref-link2: -R a into b holding a link to it', 'no-deref-link2.sh',
         'mkdir b; echo bar > a; ln -s ../a b/a', '-R a b'),
    case('no-deref-link3: -R a onto a link to it', 'no-deref-link3.sh', 'echo bar > a; ln -s a b', '-R a b'),
    case('deref-slink: -R f onto a symlink', 'deref-slink.sh',
         'touch f slink-target; ln -s slink-target slink', '-R f slink'),
    case('thru-dangling: onto a dangling symlink', 'thru-dangling.sh', 'ln -s no-such dangle; echo hi > f', 'f dangle'),
    case('thru-dangling: -f onto a dangling symlink', 'thru-dangling.sh', 'ln -s no-such dangle; echo hi > f', '-f f dangle'),
    case('thru-dangling: -f onto a symlink loop', 'thru-dangling.sh', 'ln -s loop loop; echo hi > f', '-f f loop'),
    case('thru-dangling: onto a symlink loop', 'thru-dangling.sh', 'ln -s loop loop; echo hi > f', 'f loop'),
    case('dir-rm-dest: --remove-destination onto a symlink loop', 'dir-rm-dest.sh',
         'ln -s loop loop; touch file', '--remove-destination file loop'),
    case('--remove-destination onto a dangling symlink', 'issue 52',
         'ln -s nowhere d; echo XYZ > src', '--remove-destination src d'),
    case('--remove-destination onto a symlink to the source', 'issue 52',
         'echo XYZ > src; ln -s src d', '--remove-destination src d'),
    case('--remove-destination onto a hard link of the source', 'issue 52',
         'echo XYZ > src; ln src d', '--remove-destination src d'),
    case('-f onto a symlink to the source', 'issue 52', 'echo XYZ > src; ln -s src d', '-f src d'),
    case('-f onto a hard link of the source', 'issue 52', 'echo XYZ > src; ln src d', '-f src d'),
    case('-R a symlink onto a dangling symlink', 'issue 52', 'ln -s nowhere d; ln -s elsewhere s', '-R s d'),
    case('-R a symlink onto a symlink loop', 'issue 52', 'ln -s d d; ln -s elsewhere s', '-R s d'),
]

# ---------------------------------------------------------------------------
# Directories and trailing slashes (dir-rm-dest.sh, dir-slash.sh, dir-vs-file.sh, r-vs-symlink.sh,
# symlink-slash.sh, into-self.sh, src-base-dot.sh)

CASES += [
    case('dir-rm-dest: -R --remove-destination into a new directory', 'dir-rm-dest.sh',
         'mkdir d e', '-R --remove-destination d e'),
    case('dir-rm-dest: -R --remove-destination onto an existing copy', 'dir-rm-dest.sh',
         'mkdir d e e/d', '-R --remove-destination d e'),
    case('dir-slash: -R dir1/ into dir2', 'dir-slash.sh', 'mkdir dir1 dir2; touch dir1/file', '-R dir1/ dir2'),
    case('dir-vs-file: -R dir onto a file', 'dir-vs-file.sh', 'mkdir dir; touch file', '-R dir file'),
    case('a file onto a directory', 'dir-vs-file.sh', 'mkdir dir; mkdir dir/file; touch file', 'file dir'),
    case('r-vs-symlink: -r a dangling symlink', 'r-vs-symlink.sh', 'ln -s no-such-file no-file', '-r no-file junk'),
    case('r-vs-symlink: -r a symlink to a file', 'r-vs-symlink.sh', 'echo abc > foo; ln -s foo slink', '-r slink bar'),
    case('symlink-slash: -R symlink/ s', 'symlink-slash.sh', 'mkdir dir; ln -s dir symlink', '-R symlink/ s'),
    case('into-self: -R dir dir', 'into-self.sh', 'mkdir a dir', '-R dir dir', differs='into itself',
         tool_outcome=(False, ["cannot copy a directory, 'dir', into itself, 'dir/dir'"])),
    case('into-self: -R dir into dir/sub', 'into-self.sh', 'mkdir -p dir/sub; touch dir/f', '-R dir dir/sub',
         differs='into itself', tool_outcome=(False, ["cannot copy a directory, 'dir', into itself, 'dir/sub/dir'"])),
    case('-R a directory onto a symlink to it', 'into-self.sh', 'mkdir dir; ln -s dir d', '-R dir d',
         differs='into itself', tool_outcome=(False, ["cannot copy a directory, 'dir', into itself, 'd/dir'"])),
    case("'-' as the source", 'issue 52', 'echo data > ./-', '- copy', differs='standard input',
         tool_outcome=(True, [])),
    case('src-base-dot: -R x/. into .', 'src-base-dot.sh', 'mkdir x y; touch x/f', '-R x/. y'),
    case('-R x/.. into a directory', 'src-base-dot.sh', 'mkdir -p x/sub y', '-R x/sub/.. y'),
    case('a file with a trailing slash onto a new name', 'trailing-slash', 'touch f', 'f new/'),
    case('a file onto a file with a trailing slash', 'trailing-slash', 'touch f g', 'f g/'),
    case('-R a directory with a trailing slash onto a new name', 'trailing-slash', 'mkdir d; touch d/f', '-R d/ new/'),
    case('several sources onto a file', 'trailing-slash', 'touch a b c', 'a b c'),
    case('several sources onto a missing directory', 'trailing-slash', 'touch a b', 'a b missing'),
]

# ---------------------------------------------------------------------------
# Modes and special bits (special-bits.sh, perm.sh, preserve-mode.sh, special-f.sh)

for _umask in (0o000, 0o022, 0o077):
    for _mode in ('1777', '2775', '1755', '3777', '0555', '0700'):
        CASES.append(case('-r a directory %s under umask %03o' % (_mode, _umask), 'special-bits.sh',
                          'mkdir d; touch d/f; chmod %s d' % _mode, '-r d e', umask=_umask))
        CASES.append(case('-r -p a directory %s under umask %03o' % (_mode, _umask), 'special-bits.sh',
                          'mkdir d; touch d/f; chmod %s d' % _mode, '-r -p d e', umask=_umask, times=True))
    for _mode in ('1666', '4755', '0644'):
        CASES.append(case('-R a FIFO %s under umask %03o' % (_mode, _umask), 'special-f.sh',
                          'mkfifo fifo; chmod %s fifo' % _mode, '-R fifo copy', umask=_umask))
    CASES.append(case('a file u+s,g+s under umask %03o' % _umask, 'special-bits.sh',
                      'touch a; chmod 6755 a', 'a a2', umask=_umask))

CASES += [
    case('special-bits: -p u+sx,go=', 'special-bits.sh', 'touch a; chmod u+sx,go= a', '-p a a2', times=True),
    case('special-bits: -p u=rwx,g=sx,o=', 'special-bits.sh', 'touch b; chmod u=rwx,g=sx,o= b', '-p b b2', times=True),
    case('special-bits: -p a=r,ug+sx as another user', 'special-bits.sh', 'touch c; chmod a=r,ug+sx c', '-p c c2',
         user='nobody', times=True),
    case('special-f: -R a FIFO onto a file', 'special-f.sh', 'mkfifo fifo; touch e', '-R fifo e'),
    case('special-f: -R -f a FIFO onto a FIFO', 'special-f.sh', 'mkfifo fifo; mkfifo e', '-R -f fifo e'),
    case('preserve-mode: a 0600 file onto a new name', 'preserve-mode.sh', 'touch b; chmod 600 b', 'b c'),
    case('preserve-mode: onto an existing 0600 file', 'preserve-mode.sh', 'touch a c; chmod 600 c', 'a c'),
    case('preserve-mode: -r a 0705 directory', 'preserve-mode.sh', 'mkdir d2; chmod 705 d2', '-r d2 d3'),
    case('-p a file of another owner', 'preserve-2.sh', 'touch f; chown 4321:4321 f; chmod 640 f', '-p f g', times=True),
    case('a file of another owner, as another user', 'preserve-2.sh', 'touch f; chmod 644 f', 'f g', user='nobody'),
    case('-p a sticky directory of another owner, as another user', 'special-bits.sh',
         'mkdir d; chown 4321:4321 d; chmod 1777 d', '-r -p d e', user='nobody', times=True),
    case('-p a file of another owner, as another user', 'preserve-2.sh', 'touch f; chown 4321:4321 f; chmod 644 f',
         '-p f g', user='nobody', times=True),
    case('a block device onto a second node of it', 'issue 52',
         'truncate -s 1M img; dev=$(losetup -f --show img); mknod a b $(stat -c "0x%t 0x%T" "$dev"); '
         'mknod b b $(stat -c "0x%t 0x%T" "$dev")', 'a b', differs='block device onto itself',
         tool_outcome=(False, ["'a' and 'b' are the same file"]),
         cleanup='for dev in $(losetup -j img | cut -d: -f1); do losetup -d "$dev"; done'),
]
