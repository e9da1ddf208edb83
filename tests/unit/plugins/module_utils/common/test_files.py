# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.files import parse_mode, read_text


def test_reads_text(tmp_path):
    path = tmp_path / 'f'
    path.write_bytes(b'a\r\nb\n')
    assert read_text(str(path)) == 'a\nb\n'
    assert read_text(str(path), newline='') == 'a\r\nb\n'


def test_keeps_undecodable_bytes_with_surrogateescape(tmp_path):
    path = tmp_path / 'f'
    path.write_bytes(b'caf\xe9\n')
    text = read_text(str(path), decode_errors='surrogateescape', newline='')
    assert text.encode('utf-8', 'surrogateescape') == b'caf\xe9\n'


@pytest.mark.parametrize('missing_ok, reported', [(True, 0), (False, 1)])
def test_missing_file(tmp_path, missing_ok, reported):
    errors = []
    assert read_text(str(tmp_path / 'absent'), errors, missing_ok=missing_ok) is None
    assert len(errors) == reported


def test_unreadable_path_is_always_reported(tmp_path):
    errors = []
    assert read_text(str(tmp_path), errors, missing_ok=True) is None
    assert errors == ['cannot read %s: Is a directory' % tmp_path]


@pytest.mark.parametrize('value, mode', [('0640', 0o640), ('755', 0o755), (644, 0o644), ('4755', 0o4755), ('0', 0)])
def test_parse_mode(value, mode):
    assert parse_mode(value, 'mode') == mode


@pytest.mark.parametrize('value', ['rwx', '0888', '17777', '-1', ''])
def test_parse_mode_refuses_what_is_not_an_octal_mode(value):
    with pytest.raises(ValueError, match=r"^dir_mode: mode must be octal such as 0755 or 0644, got "):
        parse_mode(value, 'dir_mode')
