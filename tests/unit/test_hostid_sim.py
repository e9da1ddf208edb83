# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Solaris hostid simulator tests/unix-sim/hostid: eight hex digits from the simulated identity."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

from ansible_collections.iotune.storage.tests.unit.simulators import simulator


def hostid_of(tmp_path, identity):
    (tmp_path / 'uname.json').write_text(json.dumps(identity))
    return simulator('hostid', {'UNIX_SIM_DIR': str(tmp_path)})


def test_the_id_of_the_identity_in_eight_hex_digits(tmp_path):
    assert hostid_of(tmp_path, {'nodename': 'sol10', 'hostid': '8a3b1c'})() == (0, '008a3b1c\n', '')


def test_without_an_id_one_is_made_from_the_node_name_and_stays_the_same(tmp_path):
    run = hostid_of(tmp_path, {'nodename': 'sol10'})
    first = run()
    assert first[0] == 0 and len(first[1]) == 9 and int(first[1], 16) >= 0
    assert run() == first


def test_an_operand_or_a_missing_identity_fails(tmp_path):
    assert hostid_of(tmp_path, {'nodename': 'sol10'})('-x')[0] == 1
    rc, out, err = simulator('hostid', {'UNIX_SIM_DIR': str(tmp_path / 'none')})()
    assert (rc, out) == (1, '') and 'uname.json' in err
