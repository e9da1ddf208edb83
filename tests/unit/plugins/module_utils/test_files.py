# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils._files import read_text


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
