# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

from ansible.plugins.filter.core import to_nice_json

from ansible_collections.iotune.storage.plugins.module_utils.engine import report
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import render_report, report_paths


def test_report_paths_in_order_without_repeats():
    assert report_paths('/var/lib/iotune/reports', ['audit-r1.json', 'audit-latest.json', 'audit-r1.json']) == [
        '/var/lib/iotune/reports/audit-r1.json', '/var/lib/iotune/reports/audit-latest.json']


@pytest.mark.parametrize('name', ['', 'a/b.json', '../x.json', '.hidden', '..', 'a\0b'])
def test_report_paths_refuse_what_is_not_a_plain_name(name):
    with pytest.raises(ValueError, match=r'^names\[1\]: .* is not a plain file name'):
        report_paths('/r', ['ok.json', name])


@pytest.mark.parametrize('directory', ['', 'reports', None])
def test_report_paths_need_an_absolute_directory(directory):
    with pytest.raises(ValueError, match='^dir: must be an absolute path'):
        report_paths(directory, ['a.json'])


def test_report_paths_need_a_name():
    with pytest.raises(ValueError, match='^names: at least one'):
        report_paths('/r', [])


def test_render_report_is_what_the_controller_copy_holds():
    report = {'host': 'h\u00e9', 'summary': {'drift': 1, 'compliant': 2}, 'checks': [{'id': 'a', 'live': None}],
              'benchmark': None}
    data = render_report(report)
    assert data == (to_nice_json(report) + '\n').encode('utf-8')
    assert json.loads(data.decode('utf-8')) == report


# issue 38, item 13: every file read back has a size limit, a depth limit and typed validation
@pytest.mark.parametrize('content, problem', [
    (b'[' * 100000 + b']' * 100000, 'nested deeper than 32 levels'),
    (b'{"a": ' * 33 + b'1' + b'}' * 33, 'nested deeper than 32 levels'),
    (b'{"checks": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', 'the file.checks: a string'),
    (b'{"checks": [], "n": NaN}', 'not JSON: NaN is not JSON'),
    (b'{"checks": [{"id": "a", "status": 1' + b'0' * 400 + b'}]}', 'the file.checks[0].status: an integer'),
    (b'{"checks": [{"id": "a", "status": "drift"}, {"id": ["a"], "status": "drift"}]}', 'the file.checks[1].id: an array, '
     'where a string belongs'),
    (b'\xff', 'not JSON'),
])
def test_a_file_read_back_that_is_not_what_it_must_be_is_named_with_what_is_wrong(tmp_path, content, problem):
    path = tmp_path / 'r.json'
    path.write_bytes(content)
    with pytest.raises(report.ReadBackError) as raised:
        report.read_json_file(str(path), spec={'checks': report.ListOf({'id': str, 'status': str})})
    assert str(raised.value).startswith(str(path) + ': ') and problem in str(raised.value), raised.value


def test_a_file_read_back_is_at_most_its_limit_and_missing_is_none(tmp_path):
    path = tmp_path / 'big.json'
    with open(str(path), 'wb') as handle:
        handle.truncate(300 << 20)     # 300 MiB, sparse
    with pytest.raises(report.ReadBackError, match='larger than 1048576 bytes'):
        report.read_json_file(str(path), limit=1 << 20)
    assert report.read_json_file(str(tmp_path / 'missing.json')) is None
    (tmp_path / 'ok.json').write_bytes(b'{"a": [[["' + b'[' * 100 + b'"]]]}')
    assert report.read_json_file(str(tmp_path / 'ok.json'), depth=4) == {'a': [[['[' * 100]]]}


def test_check_shape_names_the_field():
    spec = {'a': report.MapOf((None, report.ListOf(str))), 'n': int}
    assert report.check_shape({'a': {'x': None, 'y': ['1']}, 'n': 3, 'other': {}}, spec, 'f') is None
    assert report.check_shape({'a': {'y': ['1', 2]}}, spec, 'f') == 'f.a.y[1]: an integer, where a string belongs'
    assert report.check_shape({'n': True}, spec, 'f') == 'f.n: a boolean, where an integer belongs'
    assert report.check_shape({'n': 2 ** 63}, spec, 'f') == 'f.n: an integer of 19 digits, beyond what is read back (64 bits)'
    assert report.check_shape([], spec, 'f') == 'f: an array, where an object belongs'
