# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""GNU cp's rules for a destination that exists (coreutils' copy.c): whether it is the source under another name
(same_file_ok), and, when several sources go into one directory, the names this run has made from its operands,
which a later operand must neither overwrite nor write through (cp's src_info and dest_info)."""

import os
import stat

from .errors import CopyError, quote

# what same_file_ok finds
COPY, SAME_FILE, NOTHING_TO_DO = 'copy', 'same file', 'nothing to do'


def identical(st1, st2):
    """Whether two stats are of one inode."""
    return st1 is not None and st2 is not None and (st1.st_dev, st1.st_ino) == (st2.st_dev, st2.st_ino)


def same_name(name1, name2):
    """Whether two paths name one directory entry: the same last component in the same directory (gnulib's
    same_name)."""
    name1, name2 = name1.rstrip(os.sep) or os.sep, name2.rstrip(os.sep) or os.sep
    if os.path.basename(name1) != os.path.basename(name2):
        return False
    try:
        return identical(os.stat(os.path.dirname(name1) or '.'), os.stat(os.path.dirname(name2) or '.'))
    except OSError:
        return False


def _is_link(st):
    return stat.S_ISLNK(st.st_mode)


def _stat_unless_link(path, st):
    """st, or for a symbolic link the stat of what it names (None when that cannot be had)."""
    if not _is_link(st):
        return st
    try:
        return os.stat(path)
    except OSError:
        return None


def same_file_ok(src, src_st, dst, dst_st, options):
    """COPY, SAME_FILE (cp: "'src' and 'dst' are the same file") or NOTHING_TO_DO (two hard links of one symbolic
    link, with -r: cp leaves them), as GNU cp's same_file_ok decides for cp's options that the tool has.

    src_st is the source's stat as the copy sees it (lstat with -r, else stat); dst_st the destination's (lstat
    when the copy replaces the name rather than writing through it: with -r for a source that is not a regular
    file, and with --remove-destination; else stat). Without -r, a destination that is the source through links
    is seen by the stats that follow them; with -r a symbolic link is compared by what it names too, so that a link
    copied onto the file it names cannot replace that file with a link to itself."""
    same = identical(src_st, dst_st)
    if options.recursive:
        if _is_link(src_st) and _is_link(dst_st):
            if same_name(src, dst):
                return SAME_FILE
            return NOTHING_TO_DO if same else COPY
        src_link, dst_link, same_link = src_st, dst_st, same
    else:
        if not same:
            return COPY
        try:
            src_link, dst_link = os.lstat(src), os.lstat(dst)
        except OSError:
            return COPY
        same_link = identical(src_link, dst_link)
        if _is_link(src_link) and _is_link(dst_link) and options.remove_destination:
            return COPY
    if options.remove_destination:
        # removed before it is written: a link, or another hard link of the source, can go
        if _is_link(dst_link):
            return COPY
        if same_link and dst_link.st_nlink > 1 and not same_name(src, dst):
            return COPY
    if not _is_link(src_link) and not _is_link(dst_link):
        return SAME_FILE if identical(src_link, dst_link) else COPY
    if options.recursive:
        followed_src, followed_dst = _stat_unless_link(src, src_link), _stat_unless_link(dst, dst_link)
        if followed_src is None or followed_dst is None or not identical(followed_src, followed_dst):
            return COPY
    return SAME_FILE


def replaces_name(src_st, options):
    """Whether the copy replaces the destination's name (looked at with lstat) rather than writing through it."""
    return options.remove_destination or (options.recursive and not stat.S_ISREG(src_st.st_mode))


class Operands:
    """The sources given and the destinations made by one run that copies several sources into a directory (cp's
    src_info and dest_info): a source given twice is copied once, and a later source never overwrites what an
    earlier one made, nor writes through a symbolic link an earlier one made (which may point anywhere)."""

    def __init__(self):
        # {(device, inode): [names]}: a name is looked up by its inode first, as cp's hash tables do
        self.sources, self.made = {}, {}

    @staticmethod
    def _seen(entries, name, st):
        return any(same_name(name, seen) for seen in entries.get((st.st_dev, st.st_ino), ()))

    @staticmethod
    def _add(entries, name, st):
        entries.setdefault((st.st_dev, st.st_ino), []).append(name)

    def given_before(self, src, src_st):
        """Whether src (not a directory) was given before; remembers it."""
        if not stat.S_ISDIR(src_st.st_mode) and self._seen(self.sources, src, src_st):
            return True
        self._add(self.sources, src, src_st)
        return False

    def check(self, src, src_st, dst, options):
        """CopyError when copying src to dst would overwrite, or write through, what this run made."""
        try:
            dst_st = os.lstat(dst) if replaces_name(src_st, options) else os.stat(dst)
        except OSError:
            dst_st = None
        if (dst_st is not None and not stat.S_ISDIR(dst_st.st_mode) and not stat.S_ISDIR(src_st.st_mode)
                and self._seen(self.made, dst, dst_st) and same_file_ok(src, src_st, dst, dst_st, options) != SAME_FILE):
            raise CopyError('will not overwrite just-created %s with %s' % (quote(dst), quote(src)))
        try:
            link_st = os.lstat(dst)
        except OSError:
            return
        if _is_link(link_st) and self._seen(self.made, dst, link_st):
            raise CopyError('will not copy %s through just-created symlink %s' % (quote(src), quote(dst)))

    def made_now(self, dst):
        try:
            self._add(self.made, dst, os.lstat(dst))
        except OSError:
            pass
