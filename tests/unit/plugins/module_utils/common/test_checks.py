# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import (
    make_check, status_of, summarize,
)


@pytest.mark.parametrize('live_ok, persistent_ok, status', [
    (True, True, 'compliant'),
    (True, False, 'not_persistent'),
    (False, True, 'drift'),
    (False, False, 'drift'),
    (None, True, 'compliant'),
    (None, False, 'drift'),
    (True, None, 'compliant'),
    (False, None, 'drift'),
    (None, None, 'not_applicable'),
])
def test_status_of(live_ok, persistent_ok, status):
    assert status_of(live_ok, persistent_ok) == status


def test_make_check_and_summary():
    check = make_check('block_queue', 'vdb', 'read_ahead_kb', 4096, 8, None, 'drift', 'live 8 KiB')
    assert check['id'] == 'block_queue:vdb:read_ahead_kb'
    assert summarize([check, dict(check, status='compliant')]) == {
        'compliant': 1, 'drift': 1, 'not_persistent': 0, 'not_applicable': 0, 'error': 0}


def test_make_check_rejects_unknown_status():
    with pytest.raises(ValueError, match='accepted: compliant, drift'):
        make_check('x', 't', 's', 1, 1, 1, 'fine', '')
