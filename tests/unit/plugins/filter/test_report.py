# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter.report import check_summary, host_checks


def test_check_summary_counts_every_status():
    checks = [{'status': 'drift'}, {'status': 'drift'}, {'status': 'not_persistent'}]
    assert check_summary(checks) == {'compliant': 0, 'drift': 2, 'not_persistent': 1, 'not_applicable': 0, 'error': 0}


def test_check_summary_rejects_unknown_status():
    with pytest.raises(AnsibleFilterError, match='list of checks'):
        check_summary([{'status': 'fine'}])


def test_host_checks_tags_each_check():
    report = {'host': 'db1', 'checks': [{'id': 'a', 'status': 'drift'}, {'id': 'b', 'status': 'compliant'}]}
    assert [(c['host'], c['id']) for c in host_checks(report)] == [('db1', 'a'), ('db1', 'b')]
    assert host_checks({'host': 'x'}) == []
