# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

from ansible.plugins.filter.core import to_nice_json

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
