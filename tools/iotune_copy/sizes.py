# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sizes and offsets: the size forms the tool and copy.conf take, alignment arithmetic, and the plan of
what to read (data extents, chunks)."""

import math

from .errors import quote

SIZE_FORMS = 'a number of bytes (e.g. 1048576) or a number followed by k, M or G (binary multiples, any case: 256k, 8M, 1g)'
_MULTIPLIERS = {'': 1, 'k': 1024, 'm': 1024 ** 2, 'g': 1024 ** 3}


def parse_size(text):
    """Bytes of a size such as '8M', '256k', '1g' or '1048576' (binary multiples); ValueError otherwise."""
    digits = str(text).strip()
    suffix = digits[-1:].lower() if digits[-1:].lower() in _MULTIPLIERS else ''
    digits = digits[:len(digits) - len(suffix)].rstrip()
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError('invalid size %s: expected %s' % (quote(str(text)), SIZE_FORMS))
    value = int(digits) * _MULTIPLIERS[suffix]
    if value <= 0:
        raise ValueError('invalid size %s: must be greater than 0' % quote(str(text)))
    return value


def align_down(value, alignment):
    """Largest multiple of alignment <= value."""
    return value - value % alignment


def align_up(value, alignment):
    """Smallest multiple of alignment >= value."""
    return -(-value // alignment) * alignment


def is_aligned(value, alignment):
    return value % alignment == 0


def common_alignment(*alignments):
    """Alignment satisfying all the given ones (their least common multiple)."""
    result = 1
    for alignment in alignments:
        result = result * alignment // math.gcd(result, alignment)
    return result


def buffer_length(buffer_size, alignment, size=None):
    """Length of the I/O buffer: buffer_size rounded up to the alignment, no larger than the file needs."""
    length = align_up(buffer_size, alignment)
    if size is not None:
        length = min(length, align_up(max(size, 1), alignment))
    return length


def plan_extents(extents, size, alignment=1):
    """(start, end) ranges to copy: the data extents clipped to size, widened to the alignment, merged.

    The ranges are sorted and disjoint; the last one may end past size (up to the alignment).
    """
    plan = []
    for start, end in sorted(extents):
        start, end = max(0, start), min(end, size)
        if start >= end:
            continue
        start, end = align_down(start, alignment), align_up(end, alignment)
        if plan and start <= plan[-1][1]:
            plan[-1] = (plan[-1][0], max(plan[-1][1], end))
        else:
            plan.append((start, end))
    return plan


def plan_chunks(plan, size, length):
    """(offset, length) of every read of the plan, in order: length bytes at most, none starting at or past size."""
    chunks = []
    for start, end in plan:
        for offset in range(start, min(end, size), length):
            chunks.append((offset, min(length, end - offset)))
    return chunks


def format_bytes(count):
    """'1.5 MiB' style size."""
    value = float(count)
    for unit in ('B', 'KiB', 'MiB', 'GiB', 'TiB'):
        if value < 1024 or unit == 'TiB':
            return ('%d %s' % (value, unit)) if unit == 'B' else ('%.1f %s' % (value, unit))
        value /= 1024
    return '%d B' % count
