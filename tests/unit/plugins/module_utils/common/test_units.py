# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.units import (
    format_bytes_rate,
    format_iops,
    format_ns,
    is_size,
    parse_int,
    to_bytes,
)


@pytest.mark.parametrize('value, expected', [
    (0, 0),
    (10485760, 10485760),
    ('10485760', 10485760),
    (' 65536 ', 65536),
    ('256k', 262144),
    ('256K', 262144),
    ('256kb', 262144),
    ('256KiB', 262144),
    ('10m', 10485760),
    ('10M', 10485760),
    ('8MiB', 8388608),
    ('1g', 1073741824),
    ('1GB', 1073741824),
    ('2t', 2 * 1024 ** 4),
    ('1p', 1024 ** 5),
    ('512b', 512),
    ('64 k', 65536),
])
def test_to_bytes(value, expected):
    assert to_bytes(value) == expected


@pytest.mark.parametrize('value', ['8Q', '-1', -1, '', '   ', '1.5k', 'k', '10ib', '0x10', 'ten', True, None, 1.0, '1kk'])
def test_to_bytes_rejects(value):
    with pytest.raises(ValueError) as excinfo:
        to_bytes(value)
    message = str(excinfo.value)
    assert 'invalid size' in message
    assert '256k' in message and 'k, m, g, t or p' in message


@pytest.mark.parametrize('value, expected', [('256k', True), ('1GiB', True), ('8Q', False), ('', False)])
def test_is_size(value, expected):
    assert is_size(value) is expected


@pytest.mark.parametrize('text, expected', [
    ('128\n', 128),
    (' -1 ', -1),
    ('+5', 5),
    ('', None),
    ('12k', None),
    ('0x1af4', None),
    (None, None),
    (7, 7),
    (True, None),
])
def test_parse_int(text, expected):
    assert parse_int(text) == expected


MIB = 1048576


@pytest.mark.parametrize('value, expected', [
    (None, 'n/a'),
    (0, '0 B/s'),
    (512, '512 B/s'),
    (1536, '1.5 KiB/s'),
    (104857600, '100 MiB/s'),
    (int(123.4 * MIB), '123.4 MiB/s'),
    (1024 * MIB - 1, '1 GiB/s'),         # 1023.99... MiB/s would print as "1024 MiB/s"
    (3 * 1024 ** 4, '3 TiB/s'),
    (True, 'n/a'),
    ('100', 'n/a'),
])
def test_format_bytes_rate(value, expected):
    assert format_bytes_rate(value) == expected


@pytest.mark.parametrize('value, expected', [
    (None, 'n/a'),
    (0, '0 IOPS'),
    (2.5, '2.5 IOPS'),
    (100.0, '100 IOPS'),
    (999.4, '999.4 IOPS'),
    (999.96, '1k IOPS'),
    (1234, '1.2k IOPS'),
    (17920.0, '17.9k IOPS'),
    (2500000, '2.5M IOPS'),
])
def test_format_iops(value, expected):
    assert format_iops(value) == expected


@pytest.mark.parametrize('value, expected', [
    (None, 'n/a'),
    (0, '0 ns'),
    (850, '850 ns'),
    (850000, u'850 \u00b5s'),
    (999999, '1 ms'),
    (12300000, '12.3 ms'),
    (9000000.0, '9 ms'),
    (1.5e9, '1.5 s'),
    (float('nan'), 'n/a'),
])
def test_format_ns(value, expected):
    assert format_ns(value) == expected
