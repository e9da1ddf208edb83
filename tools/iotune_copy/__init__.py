# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The source of iotune-copy and iotune-bulk, built into one zipapp each (tools/zipapps.py, run by
# make collection and make build); the copy_tools concern installs them as /usr/local/bin/iotune-copy
# and iotune-bulk with the interpreter line #!/usr/bin/python3 -IS (isolated mode, no site: the
# standard library only, whatever PYTHON* variables or site-packages the host has).
"""iotune-copy: copy files with large I/Os, optionally with direct I/O or without filling the page cache.

Usage like cp::

    iotune-copy [options] SOURCE DEST
    iotune-copy [options] SOURCE... DIRECTORY
    iotune-copy db.dbf - | gzip | iotune-copy - db.gz

Every read and write is one buffer (``--buffer-size``, default ``buffer_size=`` in
/etc/iotune/copy.conf, else 8M). A plain copy (no ``--direct``, no ``--nocache``) between two
regular files hands each data extent whole to the kernel with copy_file_range(2), as GNU cp
does (a buffer at a time with ``--progress``): no copy through user space, and a reflink or a
server-side copy where the file system offers one; where the kernel declines (another file
system type, a device, a pipe), the tool reads and writes. From a file or a block device, a
second thread reads the next buffer while the last one is written (two buffers; with direct I/O
at both ends and ``--streams`` above 1, see below), so the source and the destination are busy
at once.
Only the data extents of sparse files are copied
(SEEK_DATA/SEEK_HOLE); holes stay holes. As with cp, an existing destination is written in
place: opened for writing and truncated, it keeps its inode, hard links, owner, mode and ACL
(a failed copy leaves it partly written, as cp's would); ``-f`` removes one that cannot be
opened and creates it anew, ``--remove-destination`` removes it first. A new destination is
written under a temporary name in its directory (``.<name>.iotune-copy-<random>``), synced and
renamed, so it never exists half-written. A destination that is a symbolic link is written
through, in place (the link stays a link), and a dangling link is refused (``--remove-destination``
replaces either). As in GNU cp, the source is never copied onto itself through another name (existing.py),
and several sources copied into one directory never overwrite, or write through, what an earlier one
made; docs/copy_tool.md lists where the tool deliberately differs from cp. ``-p`` keeps the
mode, owner, times and POSIX ACLs (access, and a directory's default ACL). ``-r`` walks the tree
with a stack (any depth) and refuses a destination inside the source, compared by device and
inode (also through a bind mount). With ``-r``, a destination directory inside the tree that is
a symbolic link is refused ("cannot overwrite non-directory"), as by cp -r: nothing is written
outside the destination tree through it.

``--direct`` opens both files with O_DIRECT. The alignment is the file's direct I/O
offset alignment from statx(STATX_DIOALIGN), else the logical block size of the device
in sysfs, else 4096. Buffers are private anonymous mmap areas, their size a multiple of the
alignment of both files; from 2 MiB up they are aligned to 2 MiB and asked for transparent huge
pages (MADV_HUGEPAGE), so that a direct I/O request is a few physically contiguous segments and
a device that limits segments per request (virtio-blk) gets whole max_sectors_kb requests. The
unaligned tail of a file (size not a multiple of the
alignment) is written with O_DIRECT cleared on the same descriptor (fcntl F_SETFL), then
the file is synced; no padding, so it is right for block-device destinations too. A file
system that refuses O_DIRECT is copied buffered, with one message per file system. With direct
I/O at both ends nothing else (no read-ahead, no write-back) keeps the device busy between one
I/O and the next. One stream (the default: ``streams=`` in the config file, else 1) reads a
buffer and writes it, then the next, as dd does. ``--streams N`` above 1 runs N threads that
each read a buffer and write it, chunks taken in file order, so that several reads and writes
are in flight, for a device that serves several requests at once better than one after the
other; the destination's data extents are then allocated first (fallocate), so that its writes
land inside the file and may run at once.

``--nocache`` drops the pages it read from the page cache after each read, and the pages
it wrote after each 64 MiB (fdatasync, then POSIX_FADV_DONTNEED) and at the end.

Exit status: 0 success, 1 an error (the other sources are still copied), 2 usage,
128+N when stopped by signal N (SIGINT, SIGTERM, SIGHUP; the temporary file is removed).

Python 3.9+ standard library only, Linux.
"""

import os
import sys
import zipimport


class _ArchiveModules(object):
    """Imports this package's modules from the zipapp it runs from, compiling each source once.

    zipimport (Python 3.8 to 3.12) compiles a module's source a second time only to tell its file
    name, which doubled the compile time of a tool made of small modules, at every start."""

    def __init__(self, loader, prefix):
        self.loader, self.prefix = loader, prefix

    def find_spec(self, name, path=None, target=None):
        package, dummy, module = name.rpartition('.')
        if package != __name__:
            return None
        entry = self.prefix + module + '.py'
        try:
            source = self.loader.get_data(entry)
        except OSError:
            return None
        from importlib.machinery import ModuleSpec
        spec = ModuleSpec(name, self, origin=os.path.join(self.loader.archive, entry))
        spec.has_location, spec.loader_state = True, source
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        spec = module.__spec__
        exec(compile(spec.loader_state, spec.origin, 'exec', dont_inherit=True), module.__dict__)

    def get_source(self, name):
        """For tracebacks (linecache)."""
        spec = self.find_spec(name)
        return None if spec is None else spec.loader_state.decode('utf-8')


if isinstance(globals().get('__loader__'), zipimport.zipimporter):
    sys.meta_path.insert(0, _ArchiveModules(__loader__, __name__ + '/'))
