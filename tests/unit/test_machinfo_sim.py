# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HP-UX machinfo simulator tests/unix-sim/machinfo, run as a subprocess: its memory is the kctune
simulator's, read with the collection's own parsers, and its release the uname simulator's."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

from ansible_collections.iotune.storage.tests.unit.simulators import simulator
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_platform import parse_machinfo_memory, parse_machinfo_release

GIB = 1024 ** 3


def test_memory_and_release_as_the_collection_reads_them(tmp_path):
    (tmp_path / 'uname.json').write_text(json.dumps({'sysname': 'HP-UX', 'nodename': 'h1', 'release': 'B.11.31',
                                                     'version': 'U', 'machine': 'ia64'}))
    machinfo = simulator('machinfo', {'UNIX_SIM_DIR': str(tmp_path), 'KCTUNE_SIM_MEMORY': str(12 * GIB)})
    rc, out, err = machinfo()
    assert (rc, err) == (0, '')
    assert 'Memory: 12288 MB (12.00 GB)\n' in out
    assert parse_machinfo_memory(out) == 12 * GIB and parse_machinfo_release(out) == 'B.11.31'
    assert machinfo('-v')[0] == 1
