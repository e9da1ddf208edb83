# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Size and unit helpers (pure, no AnsibleModule).

Sizes use binary multiples: ``k`` = 1024, ``m`` = 1024**2 ... as VxFS tunefstab,
``blockdev`` and most storage tools do.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math
import re

SECTOR_SIZE = 512

# The kernel's C integer limits, as its sysfs and sysctl handlers apply them.
INT_MAX = (1 << 31) - 1
UINT_MAX = (1 << 32) - 1
ULONG_MAX = (1 << 64) - 1

_MULTIPLIERS = {
    '': 1,
    'k': 1024,
    'm': 1024 ** 2,
    'g': 1024 ** 3,
    't': 1024 ** 4,
    'p': 1024 ** 5,
}

_SIZE_RE = re.compile(r'^(\d+)\s*([kmgtp]?)(i?b)?$', re.IGNORECASE)
_INT_RE = re.compile(r'^[+-]?\d+$')

ACCEPTED_SIZE_FORMS = (
    'a non-negative integer number of bytes, optionally followed by a binary multiple '
    'k, m, g, t or p (case-insensitive, optional "b" or "ib" suffix), '
    'e.g. 10485760, 256k, 10M, 1GiB, 512b'
)


def to_bytes(value):
    """Convert a size (int or text such as ``"256k"``) to an int number of bytes.

    Raises ValueError naming the accepted forms for anything else
    (negative numbers, fractions, empty text, unknown suffixes, booleans).
    """
    if isinstance(value, bool):
        raise ValueError('invalid size %r: expected %s' % (value, ACCEPTED_SIZE_FORMS))
    if isinstance(value, int):
        if value < 0:
            raise ValueError('invalid size %r: expected %s' % (value, ACCEPTED_SIZE_FORMS))
        return value
    if not isinstance(value, str):
        raise ValueError('invalid size %r: expected %s' % (value, ACCEPTED_SIZE_FORMS))
    match = _SIZE_RE.match(value.strip())
    if not match:
        raise ValueError('invalid size %r: expected %s' % (value, ACCEPTED_SIZE_FORMS))
    number, unit, suffix = match.groups()
    if suffix and suffix.lower() == 'ib' and not unit:
        # "10ib" is not a size
        raise ValueError('invalid size %r: expected %s' % (value, ACCEPTED_SIZE_FORMS))
    return int(number) * _MULTIPLIERS[unit.lower()]


def is_size(text):
    """True when to_bytes() accepts ``text``."""
    try:
        to_bytes(text)
    except ValueError:
        return False
    return True


def parse_int(text):
    """Strict int parse of a (stripped) text; None when it is not an integer."""
    if text is None:
        return None
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text
    text = text.strip()
    if not _INT_RE.match(text):
        return None
    return int(text)


# --------------------------------------------------------------------------- for people

def real_number(value):
    """``value`` as a float when it is a real number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return None
    return value


def one_decimal(value):
    """One decimal, without a trailing ``.0``: 123.4, 850, 1.2."""
    text = '%.1f' % value
    if text.endswith('.0'):
        text = text[:-2]
    if text == '-0':
        text = '0'
    return text


def format_bytes(value, per=''):
    """Bytes with binary multiples: ``123.4 MiB`` (``per='/s'``: ``123.4 MiB/s``)."""
    value = real_number(value)
    if value is None:
        return 'n/a'
    units = tuple(unit + per for unit in ('B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'))
    index = 0
    while abs(value) >= 1024 and index < len(units) - 1:
        value /= 1024.0
        index += 1
    # 1023.96 KiB/s would print as "1024 KiB/s": move it up a unit
    if abs(round(value, 1)) >= 1024 and index < len(units) - 1:
        value /= 1024.0
        index += 1
    return u'%s %s' % (one_decimal(value), units[index])


def format_bytes_rate(value):
    """Bytes/s with binary multiples: ``123.4 MiB/s``."""
    return format_bytes(value, '/s')


def format_iops(value):
    """IO/s with decimal multiples: ``850 IOPS``, ``1.2k IOPS``, ``3.4M IOPS``."""
    value = real_number(value)
    if value is None:
        return 'n/a'
    suffixes = ('', 'k', 'M', 'G')
    index = 0
    while abs(round(value, 1)) >= 1000 and index < len(suffixes) - 1:
        value /= 1000.0
        index += 1
    return u'%s%s IOPS' % (one_decimal(value), suffixes[index])


def format_ns(value):
    """A duration in nanoseconds: ``850 ns``, ``850 µs``, ``12.3 ms``, ``1.5 s``."""
    value = real_number(value)
    if value is None:
        return 'n/a'
    units = ('ns', u'\u00b5s', 'ms', 's')
    index = 0
    while abs(round(value, 1)) >= 1000 and index < len(units) - 1:
        value /= 1000.0
        index += 1
    return u'%s %s' % (one_decimal(value), units[index])
