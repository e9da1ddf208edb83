# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every script under bench/ is a part of bench/run with options for --tiny, so that make test
(make bench-tiny) runs it at a tiny size and no benchmark rots unseen."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BENCH = os.path.join(ROOT, 'bench')


def parts():
    """{script: tiny options} from the PARTS array of bench/run."""
    with open(os.path.join(BENCH, 'run')) as handle:
        text = handle.read()
    block = re.search(r'^PARTS=\(\n(.*?)^\)', text, re.S | re.M).group(1)
    found = {}
    for line in block.splitlines():
        name, command, tiny = line.strip().strip('"').split('|')
        found[command.split()[-1]] = tiny
        assert name and command.startswith('python3 bench/'), line
    return found


def test_every_bench_script_is_a_part_of_bench_run():
    scripts = sorted('bench/' + name for name in os.listdir(BENCH) if name.endswith('.py') and not name.startswith('_'))
    assert scripts and sorted(parts()) == scripts


def test_the_parts_that_measure_sizes_name_a_tiny_size():
    # the scripts whose defaults take minutes get options that make them take seconds
    tiny = parts()
    for script, option in (('bench/copy_bench.py', '--size'), ('bench/fio_fidelity.py', '--size'),
                           ('bench/fleet_bench.py', '--sizes'), ('bench/mount_scale.py', '--lines')):
        assert option in tiny[script].split(), script
