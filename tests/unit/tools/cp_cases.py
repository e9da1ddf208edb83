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

# ---------------------------------------------------------------------------
# Ported by case area (second batch)
#
# Sparse files (sparse.sh, sparse-2.sh): the hole layout is not compared, only what a reader sees (content, mode).
# The tool's own I/O options are given to the tool alone (tool_args): its copy must still read as cp's.

_SPARSE_128K = 'dd bs=1 seek=131073 of=sparse < /dev/null 2> /dev/null'

CASES += [
    case('sparse: a 128K+1 hole', 'sparse.sh', _SPARSE_128K, 'sparse copy'),
    case('sparse: -p a 128K+1 hole', 'sparse.sh', _SPARSE_128K + '; chmod 640 sparse', '-p sparse copy', times=True),
    case('sparse: -R a directory of sparse files', 'sparse.sh',
         'mkdir d; cd d; ' + _SPARSE_128K + '; printf x > k; dd bs=1k seek=300 of=k < /dev/null 2> /dev/null', '-R d e'),
    case('sparse: a hole onto a longer file', 'sparse.sh',
         _SPARSE_128K + '; dd if=/dev/zero bs=4096 count=64 2> /dev/null | tr "\\0" U > copy', 'sparse copy'),
    case('sparse: -f a hole onto a longer file', 'sparse.sh',
         _SPARSE_128K + '; dd if=/dev/zero bs=4096 count=64 2> /dev/null | tr "\\0" U > copy', '-f sparse copy'),
    case('sparse: --remove-destination a hole onto a longer file', 'sparse.sh',
         _SPARSE_128K + '; dd if=/dev/zero bs=4096 count=64 2> /dev/null | tr "\\0" U > copy; ln copy other',
         '--remove-destination sparse copy'),
    case('sparse: a hole onto a longer file with a hard link', 'sparse.sh',
         _SPARSE_128K + '; dd if=/dev/zero bs=4096 count=64 2> /dev/null | tr "\\0" U > copy; ln copy other',
         'sparse copy'),
]
for _tool_options in ('--direct', '--nocache --verify', '--buffer-size 4k', '--direct --streams 4 --buffer-size 4k'):
    CASES.append(case('sparse: a 128K+1 hole, the tool with %s' % _tool_options, 'sparse.sh', _SPARSE_128K,
                      'sparse copy', tool_args=_tool_options + ' sparse copy'))

# sparse.sh's files of alternating data and zeros (as written, and as dd conv=sparse leaves them)


def _sparse_runs(first, second, n, blocks=128):
    return ('dd if=/dev/zero bs=4096 count=%d of=zeros 2> /dev/null; tr "\\0" U < zeros > nonzero; i=0; '
            'while [ $i -lt %d ]; do if [ $((i %% 2)) = 0 ]; then f=%s; else f=%s; fi; '
            'dd if=$f bs=4096 count=%d 2> /dev/null >> file.in; i=$((i + 1)); done; '
            'dd if=file.in of=sparse.in bs=4096 conv=sparse 2> /dev/null; cmp file.in sparse.in; '
            'rm zeros nonzero; mkdir d' % (n, blocks // n, first, second, n))


for _first, _second in (('nonzero', 'zeros'), ('zeros', 'nonzero')):
    for _n in (1, 11, 128):
        CASES.append(case('sparse: %s first, %d blocks a run' % (_first, _n), 'sparse.sh', _sparse_runs(_first, _second, _n),
                          'file.in sparse.in d'))
    CASES.append(case('sparse: %s first, 11 blocks a run, the tool with --direct --streams 3' % _first, 'sparse.sh',
                      _sparse_runs(_first, _second, 11), 'file.in sparse.in d',
                      tool_args='--direct --streams 3 --buffer-size 8k file.in sparse.in d'))

_K = 'printf x > k; dd bs=1k seek=128 of=k < /dev/null 2> /dev/null'
CASES += [
    case('sparse-2: x and a 128K hole', 'sparse-2.sh', _K, 'k k2'),
    case('sparse-2: x, a 128K hole and y', 'sparse-2.sh', _K + '; printf y >> k', 'k k2'),
    case('sparse-2: x, a 128K hole and y, the tool with --buffer-size 1k', 'sparse-2.sh', _K + '; printf y >> k', 'k k2',
         tool_args='--buffer-size 1k k k2'),
    case('sparse-2: x and 255K of written zeros', 'sparse-2.sh',
         'printf x > k; dd bs=1k seek=1 of=k count=255 < /dev/zero 2> /dev/null', 'k k2'),
    case('sparse-2: -p x and a 128K hole onto an existing copy', 'sparse-2.sh', _K + '; printf y >> k; cp k k2; printf z > k2',
         '-p k k2', times=True),
]

# ---------------------------------------------------------------------------
# POSIX ACLs (acl.sh): a plain copy does not carry the source's ACL (a new file gets its directory's default ACL,
# an existing one keeps its own); -p copies it, and takes an extended ACL away from a destination whose source
# has none. Users and groups by number, so that the setups do not depend on the machine's names.

_ACL_FILE = 'mkdir a b; touch a/file; setfacl -m u:4321:rw- a/file'
_DEFAULT_ACL_DIR = 'mkdir dd; setfacl -d -m u:4321:rwx,g:4322:r-x,o::--- dd'

CASES += [
    case('acl: a file with an ACL into a directory', 'acl.sh', _ACL_FILE, 'a/file b/'),
    case('acl: -p a file with an ACL into a directory', 'acl.sh', _ACL_FILE, '-p a/file b/'),
    case('acl: -p a file with an ACL and a mask', 'acl.sh',
         'touch f; chmod 640 f; setfacl -m u:4321:rwx,g:4322:r--,m::r-x f', '-p f g', times=True),
    case('acl: a file with an ACL onto a file with another ACL', 'acl.sh',
         _ACL_FILE + '; touch b/file; setfacl -m g:4322:r-- b/file', 'a/file b/'),
    case('acl: -p a file with an ACL onto a file with another ACL', 'acl.sh',
         _ACL_FILE + '; touch b/file; setfacl -m g:4322:r-- b/file', '-p a/file b/', times=True),
    case('acl: -p a file without an ACL onto a file with one', 'acl.sh',
         'mkdir a b; touch a/file b/file; chmod 600 a/file; setfacl -m u:4321:rwx b/file', '-p a/file b/', times=True),
    case('acl: a file without an ACL onto a file with one', 'acl.sh',
         'mkdir a b; touch a/file b/file; chmod 600 a/file; setfacl -m u:4321:rwx b/file', 'a/file b/'),
    case('acl: --remove-destination a file onto a file with an ACL', 'acl.sh',
         'mkdir a b; touch a/file b/file; setfacl -m u:4321:rwx b/file', '--remove-destination a/file b/'),
    case('acl: -f a file onto a file with an ACL', 'acl.sh',
         'mkdir a b; touch a/file b/file; setfacl -m u:4321:rwx b/file', '-f a/file b/'),
    case('acl: a file into a directory with a default ACL', 'acl.sh', _DEFAULT_ACL_DIR + '; touch f; chmod 755 f', 'f dd'),
    case('acl: a 0600 file into a directory with a default ACL', 'acl.sh', _DEFAULT_ACL_DIR + '; touch f; chmod 600 f',
         'f dd'),
    case('acl: a file into a directory with a default ACL under umask 077', 'acl.sh',
         _DEFAULT_ACL_DIR + '; touch f; chmod 664 f', 'f dd', umask=0o077),
    case('acl: -p a file into a directory with a default ACL', 'acl.sh', _DEFAULT_ACL_DIR + '; touch f; chmod 640 f',
         '-p f dd'),
    case('acl: -p a file with an ACL into a directory with a default ACL', 'acl.sh',
         _DEFAULT_ACL_DIR + '; touch f; setfacl -m u:4323:r-x f', '-p f dd'),
    case('acl: -R a tree into a directory with a default ACL', 'acl.sh',
         _DEFAULT_ACL_DIR + '; mkdir -p t/sub; touch t/f t/sub/g; chmod 700 t/sub; chmod 751 t/f', '-R t dd'),
    case('acl: -R -p a tree into a directory with a default ACL', 'acl.sh',
         _DEFAULT_ACL_DIR + '; mkdir -p t/sub; touch t/f t/sub/g; chmod 700 t/sub; chmod 751 t/f', '-R -p t dd'),
    case('acl: -R a directory with a default ACL', 'acl.sh', _DEFAULT_ACL_DIR + '; touch dd/f', '-R dd copy'),
    case('acl: -R -p a directory with a default ACL', 'acl.sh', _DEFAULT_ACL_DIR + '; touch dd/f', '-R -p dd copy',
         times=True),
    case('acl: -R -p a tree with ACLs', 'acl.sh',
         'mkdir -p t/sub; touch t/f t/sub/g; setfacl -m u:4321:r-x t t/sub; setfacl -m g:4322:rw- t/f t/sub/g; '
         'setfacl -d -m u:4323:rw- t/sub', '-R -p t copy', times=True),
    case('acl: -R a tree with ACLs', 'acl.sh',
         'mkdir -p t/sub; touch t/f t/sub/g; setfacl -m u:4321:r-x t t/sub; setfacl -m g:4322:rw- t/f t/sub/g',
         '-R t copy'),
    case('acl: -R -p a tree with ACLs onto an existing copy', 'acl.sh',
         'mkdir -p t/sub copy/t/sub; touch t/f t/sub/g copy/t/f; setfacl -m u:4321:r-x t/sub; setfacl -m g:4322:rw- t/f; '
         'setfacl -m u:4324:rwx copy/t copy/t/f', '-R -p t copy', times=True),
    case('acl: -R -p a FIFO with an ACL', 'acl.sh', 'mkfifo fifo; setfacl -m u:4321:rw- fifo', '-R -p fifo copy'),
    case('acl: -p a file with an ACL as another user', 'acl.sh',
         'touch f; chown nobody f; setfacl -m u:4321:rw-,g:4322:r-- f', '-p f g', user='nobody', times=True),
    case('acl: a file into a directory with a default ACL as another user', 'acl.sh',
         _DEFAULT_ACL_DIR + '; chown nobody dd; touch f; chmod 644 f', 'f dd', user='nobody'),
]

# ---------------------------------------------------------------------------
# Extended attributes (cp-mv-enotsup-xattr.sh): cp -p does not copy user.* xattrs, and an existing destination,
# written in place, keeps its own. python3 sets them (setfattr is not everywhere).

_XATTR = '/usr/bin/python3 -IS -c "import os, sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode())"'

CASES += [
    case('xattr: a file with a user xattr', 'cp-mv-enotsup-xattr.sh', 'echo test > a; %s a user.foo bar' % _XATTR, 'a b'),
    case('xattr: -p a file with a user xattr', 'cp-mv-enotsup-xattr.sh', 'echo test > a; %s a user.foo bar' % _XATTR,
         '-p a b', times=True),
    case('xattr: a file onto a file with a user xattr', 'cp-mv-enotsup-xattr.sh',
         'echo test > a; echo old > b; %s b user.foo bar' % _XATTR, 'a b'),
    case('xattr: -p a file onto a file with a user xattr', 'cp-mv-enotsup-xattr.sh',
         'echo test > a; echo old > b; %s a user.foo new; %s b user.foo old' % (_XATTR, _XATTR), '-p a b', times=True),
    case('xattr: --remove-destination onto a file with a user xattr', 'cp-mv-enotsup-xattr.sh',
         'echo test > a; echo old > b; %s b user.foo bar' % _XATTR, '--remove-destination a b'),
    case('xattr: -f onto a file with a user xattr', 'cp-mv-enotsup-xattr.sh',
         'echo test > a; echo old > b; %s b user.foo bar' % _XATTR, '-f a b'),
    case('xattr: -R -p a tree with user xattrs', 'cp-mv-enotsup-xattr.sh',
         'mkdir -p d/sub; echo x > d/f; %s d user.a 1; %s d/sub user.b 2; %s d/f user.c 3' % (_XATTR, _XATTR, _XATTR),
         '-R -p d e', times=True),
    case('xattr: -R a tree with user xattrs onto a copy with its own', 'cp-mv-enotsup-xattr.sh',
         'mkdir -p d/sub e/d/sub; echo x > d/f; echo y > e/d/f; %s d/f user.c 3; %s e/d/f user.c old; %s e/d/sub user.d 4'
         % (_XATTR, _XATTR, _XATTR), '-R d e'),
    case('xattr: -f onto a read-only file with a user xattr as another user', 'cp-mv-enotsup-xattr.sh',
         'echo test > a; echo old > b; %s b user.foo bar; chmod 444 b; chown nobody a b' % _XATTR, '-f a b', user='nobody'),
    case('xattr: -p a file with a user xattr as another user', 'cp-mv-enotsup-xattr.sh',
         'echo test > a; %s a user.foo bar; chown nobody a' % _XATTR, '-p a b', user='nobody', times=True),
]

# ---------------------------------------------------------------------------
# Ownership and times (preserve-gid.sh, preserve-2.sh, preserve-slink-time.sh, special-bits.sh): as root -p keeps
# the owner and group; a plain copy is the copier's. As another user -p cannot give a file away (and then drops
# set-user-ID and set-group-ID bits). Owners by number; the sandbox's user is 'nobody'.

_OWNERS = (('a0', '0:0'), ('b0', '4321:4322'), ('b1', '4321:4323'), ('c0', '0:4322'))
for _file, _owner in _OWNERS:
    for _options in ('', '-p'):
        CASES.append(case('preserve-gid: %s%s owned %s' % (_options + ' ' if _options else '', _file, _owner),
                          'preserve-gid.sh', 'echo %s > %s; chown %s %s' % (_file, _file, _owner, _file),
                          (_options + ' %s b' % _file).split(), times=_options == '-p'))
CASES += [
    case('preserve-gid: -p a file owned by the copier, as another user', 'preserve-gid.sh',
         'echo a > a; chown nobody a; chmod 6755 a', '-p a b', user='nobody', times=True),
    case('preserve-gid: -p a set-ID file owned by root, as another user', 'preserve-gid.sh',
         'echo a > a; chmod 6755 a', '-p a b', user='nobody', times=True),
    case('preserve-gid: -p a file of another group, as another user', 'preserve-gid.sh',
         'echo a > a; chown nobody:4322 a; chmod 2750 a', '-p a b', user='nobody', times=True),
    case('preserve-gid: a set-ID file owned by root, as another user', 'preserve-gid.sh',
         'echo a > a; chmod 6755 a', 'a b', user='nobody'),
    case('preserve-2: -p onto a file of another owner', 'preserve-2.sh',
         'echo a > f; echo b > g; chown 4321:4322 g; chmod 600 g', '-p f g', times=True),
    case('preserve-2: onto a file of another owner', 'preserve-2.sh',
         'echo a > f; echo b > g; chown 4321:4322 g; chmod 606 g', 'f g'),
    case('preserve-2: --remove-destination onto a file of another owner', 'preserve-2.sh',
         'echo a > f; echo b > g; chown 4321:4322 g; chmod 606 g', '--remove-destination f g'),
    case('preserve-2: -R -p a tree of several owners', 'preserve-2.sh',
         'mkdir -p d/s; echo x > d/f; ln -s f d/l; ln -s nowhere d/s/dangle; mkfifo d/s/p; chown -h 4321:4322 d/s d/l d/s/p; '
         'chown 4323:4324 d/f; chmod 2771 d/s; chmod 4711 d/f', '-R -p d e', times=True),
    case('preserve-2: -R a tree of several owners', 'preserve-2.sh',
         'mkdir -p d/s; echo x > d/f; ln -s f d/l; mkfifo d/s/p; chown -h 4321:4322 d/s d/l d/s/p; chown 4323:4324 d/f',
         '-R d e'),
    case('preserve-2: -R -p a tree of several owners, as another user', 'preserve-2.sh',
         'mkdir -p d/s; echo x > d/f; ln -s f d/l; mkfifo d/s/p; chown -h 4321:4322 d/s d/l d/s/p; chmod 755 d/s; '
         'chmod 4755 d/f', '-R -p d e', user='nobody', times=True),
    case('preserve-2: -R -p onto an existing tree', 'preserve-2.sh',
         'mkdir -p d/s e/d/s; echo x > d/f; echo old > e/d/f; chmod 700 d/s; chmod 777 e/d e/d/s; chown 4321 d/f',
         '-R -p d e', times=True),
    case('preserve-2: -p nested directories keep their times', 'preserve-2.sh',
         'mkdir -p d/a/b/c; touch d/a/b/c/f d/a/g', '-R -p d e', times=True),
    case('preserve-slink-time: -R -p a dangling symlink', 'preserve-slink-time.sh',
         'ln -s no-such dangle; chown -h 4321:4322 dangle', '-R -p dangle d2', times=True),
    case('preserve-slink-time: -R a dangling symlink of another owner', 'preserve-slink-time.sh',
         'ln -s no-such dangle; chown -h 4321:4322 dangle', '-R dangle d2'),
]

# ---------------------------------------------------------------------------
# perm.sh: a new copy has the source's mode less the umask (-p: the source's mode); an existing destination
# keeps its mode, with or without -f, unless -p.

_PERM_EXISTING = {0o031: ('r', 'wx', 'rwx'), 0o037: ('w', 'x', 'rw'), 0o002: ('rwx', 'xr', 'wx')}
for _umask, _perms in sorted(_PERM_EXISTING.items()):
    for _options in ('', '-p'):
        CASES.append(case('perm: %scp src dest under umask %03o' % (_options + ' ' if _options else '', _umask), 'perm.sh',
                          'touch src; chmod u=r,g=rx,o= src', (_options + ' src dest').split(), umask=_umask,
                          times=_options == '-p'))
    for _options, _perm in zip(('', '-f', '-p'), _perms):
        CASES.append(case('perm: %scp src onto a u=rw,g=%s,o=%s dest under umask %03o'
                          % (_options + ' ' if _options else '', _perm, _perm[::-1], _umask), 'perm.sh',
                          'touch src dest; chmod u=r,g=rx,o= src; chmod u=rw,g=%s,o=%s dest' % (_perm, _perm[::-1]),
                          (_options + ' src dest').split(), umask=_umask, times=_options == '-p'))

# ---------------------------------------------------------------------------
# existing-perm-dir.sh: copying into an existing directory does not change its mode (-p does)

_EXISTING_DIR = 'mkdir -p -m ug-s,u=rwx,g=rwx,o=rx src/dir; mkdir -p -m ug-s,u=rwx,g=,o= dst/dir; touch src/dir/f'
CASES += [
    case('existing-perm-dir: -r src/. dst/', 'existing-perm-dir.sh', _EXISTING_DIR, '-r src/. dst/', umask=0o002),
    case('existing-perm-dir: -r -p src/. dst/', 'existing-perm-dir.sh', _EXISTING_DIR, '-r -p src/. dst/', umask=0o002,
         times=True),
    case('existing-perm-dir: -r -f src/. dst/ under umask 077', 'existing-perm-dir.sh', _EXISTING_DIR, '-r -f src/. dst/',
         umask=0o077),
    case('existing-perm-dir: -r --remove-destination src/. dst/', 'existing-perm-dir.sh', _EXISTING_DIR,
         '-r --remove-destination src/. dst/', umask=0o002),
    case('existing-perm-dir: -r src/dir into a 0500 dst/dir', 'existing-perm-dir.sh',
         _EXISTING_DIR + '; mkdir dst/dir/dir; chmod 500 dst/dir/dir', '-r src/dir dst/dir'),
    case('existing-perm-dir: -r src/dir into a 0500 dst/dir as another user', 'existing-perm-dir.sh',
         _EXISTING_DIR + '; mkdir dst/dir/dir; chmod 500 dst/dir/dir; chown -R nobody dst', '-r src/dir dst/dir',
         user='nobody'),
]

# ---------------------------------------------------------------------------
# Hard links (link-preserve.sh): cp -R (without --preserve=links, which the tool does not have) makes each name
# its own copy; an existing destination is written in place, so its other names see the new content.

CASES += [
    case('link-preserve: -R two hard links into a directory', 'link-preserve.sh', 'echo a > a; ln a b; mkdir c', '-R a b c'),
    case('link-preserve: -R a tree with hard links', 'link-preserve.sh',
         'mkdir -p d/s; echo a > d/a; ln d/a d/b; ln d/a d/s/c', '-R d c'),
    case('link-preserve: -R -p a tree with hard links', 'link-preserve.sh',
         'mkdir d; echo a > d/a; ln d/a d/b; chmod 731 d/a', '-R -p d c', times=True),
    case('link-preserve: -R a tree with a hard link to a symlink', 'link-preserve.sh',
         'mkdir d; ln -s a d/sl; ln d/sl d/hl', '-R d c'),
    case('link-preserve: -R onto a tree whose file has a hard link outside', 'link-preserve.sh',
         'mkdir -p src dst/src; echo new > src/f; echo old > dst/src/f; ln dst/src/f other', '-R src dst'),
    case('link-preserve: -R --remove-destination onto a tree whose file has a hard link outside', 'link-preserve.sh',
         'mkdir -p src dst/src; echo new > src/f; echo old > dst/src/f; ln dst/src/f other', '-R --remove-destination src dst'),
    case('link-preserve: -R -f onto a tree whose file has a hard link outside', 'link-preserve.sh',
         'mkdir -p src dst/src; echo new > src/f; echo old > dst/src/f; ln dst/src/f other', '-R -f src dst'),
    case('link-preserve: a file onto the second name of another file', 'link-preserve.sh',
         'echo a > a; echo b > b; ln b c', 'a c'),
    case('link-preserve: -R a tree into a tree holding its own hard links', 'link-preserve.sh',
         'mkdir -p d e/d; echo a > d/a; echo b > d/b; echo old > e/d/a; ln e/d/a e/d/b', '-R d e'),
]

# ---------------------------------------------------------------------------
# Symbolic links in a tree and chains of them (cp-deref.sh, cp-HL.sh, slink-2-slink.sh, thru-dangling.sh,
# r-vs-symlink.sh): -R copies every link as a link, on the command line too; without -R the command line's
# links are followed.

CASES += [
    case('cp-deref: -R two symlinks to one directory', 'cp-deref.sh',
         'mkdir a b c d; ln -s ../c a; ln -s ../c b', '-R a b d'),
    case('cp-deref: -R a tree with a symlink to a directory in it', 'cp-deref.sh',
         'mkdir -p t/real; touch t/real/f; ln -s real t/link; ln -s ../real t/real/up', '-R t u'),
    case('cp-deref: -R a tree with a symlink loop in it', 'cp-deref.sh', 'mkdir t; ln -s loop t/loop; ln -s b t/a; ln -s a t/b',
         '-R t u'),
    case('cp-HL: -R a symlink and a tree with a dangling one', 'cp-HL.sh',
         'mkdir src-dir dest-dir; echo f > f; ln -s f slink; ln -s no-such-file src-dir/slink', '-R slink src-dir dest-dir'),
    case('cp-HL: a symlink and a file into a directory', 'cp-HL.sh',
         'mkdir dest-dir; echo f > f; ln -s f slink; echo g > g', 'slink g dest-dir'),
    case('symlink chain: a chain to a file', 'thru-dangling.sh', 'echo x > f; ln -s f c; ln -s c b; ln -s b a', 'a copy'),
    case('symlink chain: -R a chain to a file', 'thru-dangling.sh', 'echo x > f; ln -s f c; ln -s c b; ln -s b a',
         '-R a copy'),
    case('symlink chain: a chain to nothing', 'thru-dangling.sh', 'ln -s none c; ln -s c b; ln -s b a', 'a copy'),
    case('symlink chain: onto a chain to a file', 'thru-dangling.sh',
         'echo x > src; echo old > f; ln -s f c; ln -s c b; ln -s b a', 'src a'),
    case('symlink chain: onto a chain to nothing', 'thru-dangling.sh', 'echo x > src; ln -s none c; ln -s c b; ln -s b a',
         'src a'),
    case('symlink chain: -R onto a chain to a file', 'thru-dangling.sh',
         'echo x > src; echo old > f; ln -s f c; ln -s c b; ln -s b a', '-R src a'),
    case('symlink chain: --remove-destination onto a chain to a file', 'thru-dangling.sh',
         'echo x > src; echo old > f; ln -s f c; ln -s c b; ln -s b a', '--remove-destination src a'),
    case('symlink chain: onto a chain to a directory', 'thru-dangling.sh',
         'echo x > src; mkdir d; ln -s d c; ln -s c b; ln -s b a', 'src a'),
    case('symlink chain: -R a chain onto a chain', 'slink-2-slink.sh',
         'touch file; ln -s file a; ln -s a b; ln -s no-such-file c', '-R b c'),
    case('slink-2-slink: -R a symlink onto a symlink to the same file', 'slink-2-slink.sh',
         'touch file; ln -s file a; ln -s file b', '-R a b'),
    case('slink-2-slink: -R a dangling symlink onto a dangling symlink', 'slink-2-slink.sh',
         'ln -s no-such-file c; ln -s no-such-file d', '-R c d'),
    case('slink-2-slink: -R -f a dangling symlink onto a symlink to a file', 'slink-2-slink.sh',
         'touch file; ln -s file a; ln -s no-such-file c', '-R -f c a'),
    case('r-vs-symlink: -R a symlink to a directory', 'r-vs-symlink.sh', 'mkdir d; touch d/f; ln -s d slink', '-R slink copy'),
    case('r-vs-symlink: a symlink to a directory without -R', 'r-vs-symlink.sh', 'mkdir d; ln -s d slink', 'slink copy'),
    case('r-vs-symlink: -R a symlink to a directory into a directory', 'r-vs-symlink.sh',
         'mkdir d e; touch d/f; ln -s d slink', '-R slink e'),
]

# ---------------------------------------------------------------------------
# Trailing slashes (mv/trailing-slash.sh, for 'cp -r'), into itself, and directories against files
# (into-self.sh, dir-vs-file.sh, dir-slash.sh, symlink-slash.sh)

CASES += [
    case('trailing-slash: -r d e/ with e missing', 'trailing-slash', 'mkdir d; touch d/f', '-r d e/'),
    case('trailing-slash: -r d e/ with e a directory', 'trailing-slash', 'mkdir d e; touch d/f', '-r d e/'),
    case('trailing-slash: -r d e/ with e a file', 'trailing-slash', 'mkdir d; touch d/f e', '-r d e/'),
    case('trailing-slash: b no-such/', 'trailing-slash', 'touch b', 'b no-such/'),
    case('trailing-slash: a file onto a symlink to a directory, with a slash', 'trailing-slash',
         'touch f; mkdir d; ln -s d l', 'f l/'),
    case('trailing-slash: a file onto a dangling symlink, with a slash', 'trailing-slash', 'touch f; ln -s none l', 'f l/'),
    case('trailing-slash: a file with a slash as the source', 'trailing-slash', 'touch f', '-R f/ g'),
    case('trailing-slash: -R several slashes', 'trailing-slash', 'mkdir d e; touch d/f', '-R d/// e//'),
    case('trailing-slash: -R d/. onto an existing directory', 'trailing-slash', 'mkdir -p d/s e; touch d/f', '-R d/. e'),
    case('trailing-slash: -R d/. onto a new name', 'trailing-slash', 'mkdir -p d/s; touch d/f', '-R d/. e'),
    case('symlink-slash: -R symlink/ into a directory', 'symlink-slash.sh', 'mkdir dir e; touch dir/f; ln -s dir symlink',
         '-R symlink/ e'),



    case('into-self: a file into its own directory', 'into-self.sh', 'mkdir d; touch d/f', 'd/f d'),
    case('into-self: -R dir/sub into dir', 'into-self.sh', 'mkdir -p dir/sub; touch dir/sub/f', '-R dir/sub dir'),
    case('into-self: -R dir into .', 'into-self.sh', 'mkdir dir; touch dir/f', '-R dir .'),
    case('into-self: -R a dir into its parent by two names', 'into-self.sh', 'mkdir -p p/dir; touch p/dir/f', '-R p/dir p/./'),
    case('dir-vs-file: -R dir onto a symlink to a file', 'dir-vs-file.sh', 'mkdir dir; touch file; ln -s file l', '-R dir l'),
    case('dir-vs-file: a file onto a symlink to a directory', 'dir-vs-file.sh', 'mkdir dir; echo x > file; ln -s dir l',
         'file l'),
    case('dir-vs-file: -R --remove-destination dir onto a file', 'dir-vs-file.sh', 'mkdir dir; touch file',
         '-R --remove-destination dir file'),
    case('dir-vs-file: -R -f dir onto a file', 'dir-vs-file.sh', 'mkdir dir; touch file', '-R -f dir file'),
    case('dir-vs-file: --remove-destination a file onto a directory', 'dir-vs-file.sh', 'mkdir -p dir/file; touch file',
         '--remove-destination file dir'),
    case('dir-vs-file: -R a tree onto one with a file where it has a directory', 'dir-vs-file.sh',
         'mkdir -p src/x dst/src; touch src/x/f dst/src/x', '-R src dst'),
    case('dir-vs-file: -R a tree onto one with a directory where it has a file', 'dir-vs-file.sh',
         'mkdir -p src dst/src/x; touch src/x dst/src/x/f', '-R src dst'),
    case('dir-vs-file: -R --remove-destination a tree onto one with a directory where it has a file', 'dir-vs-file.sh',
         'mkdir -p src dst/src/x; touch src/x dst/src/x/f', '-R --remove-destination src dst'),
    case('dir-vs-file: -R -f a tree onto one with a file where it has a directory', 'dir-vs-file.sh',
         'mkdir -p src/x dst/src; touch src/x/f dst/src/x', '-R -f src dst'),
    case('dir-vs-file: -R a tree onto one with a symlink where it has a directory', 'dir-vs-file.sh',
         'mkdir -p src/x dst/src elsewhere; touch src/x/f; ln -s ../../elsewhere dst/src/x', '-R src dst'),
]

# ---------------------------------------------------------------------------
# proc-zero-len.sh: a file that stats as empty but is not (/proc), and device files as sources

CASES += [
    case('proc-zero-len: a /proc/sys file that stats as empty, the tool with --buffer-size 1M', 'proc-zero-len.sh', 'true',
         '/proc/sys/kernel/ostype out', tool_args='--buffer-size 1M /proc/sys/kernel/ostype out'),
    case('proc-zero-len: -p a /proc/sys file, the tool with --buffer-size 64k', 'proc-zero-len.sh',
         'echo a longer line than Linux > out', '-p /proc/sys/kernel/ostype out',
         tool_args='-p --buffer-size 64k /proc/sys/kernel/ostype out'),
    # the default 8 MiB buffer is more than the kernel reads from /proc/sys at once (ENOMEM): smaller reads
    case('proc-zero-len: a /proc file that stats as empty', 'proc-zero-len.sh', 'true', '/proc/sys/kernel/ostype out'),
    case('proc-zero-len: -p a /proc file that stats as empty', 'proc-zero-len.sh', 'true', '-p /proc/sys/kernel/ostype out'),
    case('proc-zero-len: -R a /proc file that stats as empty', 'proc-zero-len.sh', 'true', '-R /proc/sys/kernel/ostype out'),
    case('proc-zero-len: a /proc file, the tool with --direct', 'proc-zero-len.sh', 'true', '/proc/sys/kernel/ostype out',
         tool_args='--direct /proc/sys/kernel/ostype out'),
    case('proc-zero-len: a /proc file onto a longer file', 'proc-zero-len.sh', 'echo a longer line than Linux > out',
         '/proc/sys/kernel/ostype out'),
    case('proc-zero-len: /proc/version', 'proc-zero-len.sh', 'true', '/proc/version out'),
    case('proc-zero-len: -R /proc/version onto a longer file', 'proc-zero-len.sh',
         'dd if=/dev/zero bs=4096 count=4 2> /dev/null | tr "\\0" U > out', '-R /proc/version out'),
    case('proc-zero-len: /dev/null', 'proc-zero-len.sh', 'true', '/dev/null out'),
    case('proc-zero-len: /dev/null onto a file', 'proc-zero-len.sh', 'echo x > out', '/dev/null out'),
    case('proc-zero-len: -R /dev/null', 'proc-zero-len.sh', 'true', '-R /dev/null out'),
    case('proc-zero-len: -R /dev/null as another user', 'proc-zero-len.sh', 'true', '-R /dev/null out', user='nobody'),
]

# ---------------------------------------------------------------------------
# Permission failures as another user (fail-perm.sh): the sandbox is the user's, what the setup makes is root's
# unless it is given away.

_GIVE = 'chown -R "nobody:$(id -g nobody)"'
CASES += [
    case('fail-perm: -pR a directory with an unreadable file', 'fail-perm.sh',
         'mkdir D D/D; touch D/a; chmod 0 D/a; chmod u=rx,go=,-st D; %s D' % _GIVE, '-pR D DD', user='nobody', times=True),
    case('fail-perm: -R a directory with an unreadable file', 'fail-perm.sh',
         'mkdir D D/D; touch D/a; chmod 0 D/a; chmod u=rx,go=,-st D; %s D' % _GIVE, '-R D DD', user='nobody'),
    case('fail-perm: -R a directory with an unreadable directory', 'fail-perm.sh',
         'mkdir -p D/D/E; touch D/a; chmod 0 D/D; %s D' % _GIVE, '-R D DD', user='nobody'),
    case('fail-perm: onto a symlink into a closed directory', 'fail-perm.sh',
         'mkdir D D/D; chmod 0 D; ln -s D/D symlink; touch F; %s D F' % _GIVE, 'F symlink', user='nobody'),
    case('fail-perm: an unreadable file', 'fail-perm.sh', 'touch a; chmod 0 a; %s a' % _GIVE, 'a b', user='nobody'),
    case('fail-perm: into a read-only directory of the copier', 'fail-perm.sh',
         'mkdir ro; touch f; chmod 555 ro; %s ro' % _GIVE, 'f ro/', user='nobody'),
    case("fail-perm: into root's directory", 'fail-perm.sh', 'mkdir ro; touch f', 'f ro', user='nobody'),
    case("fail-perm: -R into root's directory", 'fail-perm.sh', 'mkdir ro d; touch d/f', '-R d ro', user='nobody'),
    case('fail-perm: -R into a read-only directory of the copier', 'fail-perm.sh',
         'mkdir ro d; touch d/f; chmod 555 ro; %s ro' % _GIVE, '-R d ro', user='nobody'),
    case('fail-perm: onto a read-only file', 'fail-perm.sh', 'echo a > f; echo b > g; chmod 444 g; %s g' % _GIVE, 'f g',
         user='nobody'),
    case('fail-perm: -f onto a read-only file', 'fail-perm.sh', 'echo a > f; echo b > g; chmod 444 g; %s g' % _GIVE,
         '-f f g', user='nobody'),
    case('fail-perm: --remove-destination onto a read-only file', 'fail-perm.sh',
         'echo a > f; echo b > g; chmod 444 g; %s g' % _GIVE, '--remove-destination f g', user='nobody'),
    case("fail-perm: -f onto root's file", 'fail-perm.sh', 'echo a > f; echo b > g', '-f f g', user='nobody'),
    case("fail-perm: onto root's file", 'fail-perm.sh', 'echo a > f; echo b > g', 'f g', user='nobody'),
    case('fail-perm: -f onto a read-only file in a read-only directory', 'fail-perm.sh',
         'mkdir ro; echo a > f; echo b > ro/f; chmod 444 ro/f; chmod 555 ro; %s ro' % _GIVE, '-f f ro', user='nobody'),
    case("fail-perm: -f onto another's file in a sticky directory", 'fail-perm.sh',
         'mkdir t; chmod 1777 t; echo a > f; echo b > t/f; chown 4321 t/f', '-f f t', user='nobody'),
    case('fail-perm: -R a read-only directory', 'fail-perm.sh', 'mkdir -p D/s; touch D/f D/s/g; chmod 555 D D/s',
         '-R D E', user='nobody'),
    case('fail-perm: -R -p a read-only directory', 'fail-perm.sh', 'mkdir -p D/s; touch D/f D/s/g; chmod 555 D D/s',
         '-R -p D E', user='nobody', times=True),
    case('fail-perm: -R a write-only directory', 'fail-perm.sh', 'mkdir D; touch D/f; chmod 300 D; %s D' % _GIVE,
         '-R D E', user='nobody'),
    case('fail-perm: -R onto a tree with a read-only file', 'fail-perm.sh',
         'mkdir -p src dst/src; echo a > src/f; echo b > dst/src/f; chmod 444 dst/src/f; %s dst' % _GIVE, '-R src dst',
         user='nobody'),
    case('fail-perm: -R -f onto a tree with a read-only file', 'fail-perm.sh',
         'mkdir -p src dst/src; echo a > src/f; echo b > dst/src/f; chmod 444 dst/src/f; %s dst' % _GIVE, '-R -f src dst',
         user='nobody'),
    case('fail-perm: -R onto a tree with a read-only directory', 'fail-perm.sh',
         'mkdir -p src/s dst/src/s; echo a > src/s/f; chmod 555 dst/src/s; %s dst' % _GIVE, '-R src dst', user='nobody'),
]

# ---------------------------------------------------------------------------
# Special files with -R (special-f.sh): FIFOs, device nodes and sockets are made anew, not read

_SOCKET = '/usr/bin/python3 -IS -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])"'
CASES += [
    case('special-f: -R a FIFO onto a file with data', 'special-f.sh', 'mkfifo fifo; echo data > e', '-R fifo e'),
    case('special-f: -R a FIFO onto a FIFO', 'special-f.sh', 'mkfifo fifo e', '-R fifo e'),
    case('special-f: -R --remove-destination a FIFO onto a file', 'special-f.sh', 'mkfifo fifo; echo data > e; ln e e2',
         '-R --remove-destination fifo e'),
    case('special-f: -R a FIFO into a directory', 'special-f.sh', 'mkfifo fifo; mkdir d', '-R fifo d'),
    case('special-f: -R a FIFO onto a symlink to a file', 'special-f.sh', 'mkfifo fifo; touch f; ln -s f e', '-R fifo e'),
    case('special-f: -R a character device', 'special-f.sh', 'mknod null c 1 3; chmod 620 null', '-R null copy'),
    case('special-f: -R -p a block device of another owner', 'special-f.sh', 'mknod blk b 7 200; chown 4321:4322 blk',
         '-R -p blk copy', times=True),
    case('special-f: -R a character device onto a file', 'special-f.sh', 'mknod null c 1 3; echo data > e', '-R null e'),
    case('special-f: a character device without -R', 'special-f.sh', 'mknod null c 1 3', 'null copy'),
    case('special-f: -R a socket', 'special-f.sh', '%s sock' % _SOCKET, '-R sock copy'),
    case('special-f: -R a tree of special files', 'special-f.sh',
         'mkdir -p d/s; mkfifo d/p; mknod d/s/c c 1 3; chmod 604 d/p', '-R d e'),
    case('special-f: -R -p a tree of special files', 'special-f.sh',
         'mkdir -p d/s; mkfifo d/p; mknod d/s/c c 1 7; chmod 1640 d/p', '-R -p d e', times=True),
    case('special-f: -R a FIFO as another user', 'special-f.sh', 'mkfifo fifo', '-R fifo copy', user='nobody'),
]

# ---------------------------------------------------------------------------
# Nested existing trees (dir-rm-dest.sh): -R merges into what is there, plain, with -f and --remove-destination

_NESTED = ('mkdir -p src/a/b src/c dst/src/a/b dst/src/keep; echo 1 > src/a/f; echo 2 > src/a/b/g; echo 3 > src/c/h; '
           'ln -s a/f src/l; echo old > dst/src/a/f; echo older-and-longer > dst/src/a/b/g; echo k > dst/src/keep/k; '
           'ln -s nowhere dst/src/l; chmod 700 dst/src/a; chmod 751 src/a/b')
for _options in ('-R', '-R -f', '-R --remove-destination', '-R -p'):
    CASES.append(case('dir-rm-dest: %s onto a nested existing tree' % _options, 'dir-rm-dest.sh', _NESTED,
                      (_options + ' src dst').split(), times=_options == '-R -p'))
    CASES.append(case('dir-rm-dest: %s src/. onto a nested existing tree' % _options, 'dir-rm-dest.sh', _NESTED,
                      (_options + ' src/. dst/src').split(), times=_options == '-R -p'))

# ---------------------------------------------------------------------------
# Umasks (perm.sh, special-bits.sh, preserve-mode.sh): a tree of modes copied with and without -p, into new and
# existing directories

_MODES_TREE = ('mkdir -p t/open t/shut t/exists; touch t/rw t/x t/own t/open/f; chmod 777 t/open; chmod 700 t/shut; '
               'chmod 666 t/rw; chmod 755 t/x; chmod 600 t/own; chmod 2775 t/exists; mkdir -p d/t/exists; chmod 750 d/t/exists')
for _umask in (0o000, 0o002, 0o022, 0o077):
    CASES.append(case('umask %03o: -R a tree of modes' % _umask, 'perm.sh', _MODES_TREE, '-R t u', umask=_umask))
    CASES.append(case('umask %03o: -R -p a tree of modes' % _umask, 'perm.sh', _MODES_TREE, '-R -p t u', umask=_umask,
                      times=True))
    CASES.append(case('umask %03o: -R a tree of modes into an existing copy' % _umask, 'perm.sh', _MODES_TREE, '-R t d',
                      umask=_umask))

# ---------------------------------------------------------------------------
# The tool's own options (which cp has not) change none of these rules: the cases about links, the same file and
# what a run made, again with direct I/O in two streams, --nocache and --verify

_OWN_OPTIONS = ('--direct --streams 2 --nocache --verify --buffer-size 64k',)
_LINK_CASES = [c for c in CASES if c.origin in ('same-file.sh', 'abuse.sh', 'thru-dangling.sh', 'no-deref-link1.sh',
                                                'no-deref-link2.sh', 'no-deref-link3.sh', 'deref-slink.sh', 'issue 52')
               and not c.differs]
for _options in _OWN_OPTIONS:
    for _case in _LINK_CASES:
        CASES.append(_case._replace(name='%s, the tool with %s' % (_case.name, _options),
                                    tool_args=tuple(_options.split()) + (_case.tool_args or _case.args)))
