# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""--verify: the SHA-256 of source and destination, read as the copy reads."""

import os
import stat

from .endpoint import Endpoint
from .errors import CopyError, describe, quote
from .sizes import align_up, buffer_length
from .system import io_buffer


def file_digest(path, options, limit=None):
    """SHA-256 (hex) of a file (of its first limit bytes), read with the buffer size, O_DIRECT and cache dropping as the copy."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise CopyError('cannot open %s for reading: %s' % (quote(path), describe(exc)))
    try:
        end = Endpoint(fd, path, options, path=path)
        st = os.fstat(fd)
        size = st.st_size if stat.S_ISREG(st.st_mode) else os.lseek(fd, 0, os.SEEK_END)
        if limit is not None:
            size = min(size, limit)
        if options.direct:
            end.try_direct()
        import hashlib  # only --verify needs it: every copy pays for an import at start-up
        digest = hashlib.sha256()
        buf, view = io_buffer(buffer_length(options.buffer_size, end.alignment, size))
        try:
            offset = 0
            while offset < size:
                want = min(len(view), align_up(size - offset, end.alignment))
                count = end.read(view[:want], offset)
                digest.update(view[:min(count, size - offset)])
                offset += count
                if count < want:
                    break
        finally:
            view.release()
            try:
                buf.close()
            except BufferError:
                pass
        return digest.hexdigest()
    finally:
        os.close(fd)


def verify_copy(src, dst, options):
    """Compare the SHA-256 of source and destination; CopyError when they differ."""
    try:
        src_st = os.stat(src)
        dst_st = os.stat(dst)
    except OSError as exc:
        raise CopyError('cannot verify %s: %s' % (quote(dst), describe(exc)))
    expected = file_digest(src, options)
    # A device destination holds more than the copy: compare what was written.
    found = file_digest(dst, options, None if stat.S_ISREG(dst_st.st_mode) else src_st.st_size)
    if expected != found:
        raise CopyError('verification failed: %s differs from %s (sha256 %s, source %s); it is left in place'
                        % (quote(dst), quote(src), found, expected))
