# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""README.md's demo output is what `make demo` printed (issue 42): each block after a
``<!-- demo output: FILE -->`` marker is lines of that recorded output, in order (``...`` stands for lines
left out), and the story the README tells of the run is the recorded one: the last audit finds what the
first found, line for line, after a harden that fixed every check and a second that changed nothing."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

import pytest

from ansible_collections.iotune.storage.tests.unit.meta import collection_docs as cd

MARKER = re.compile(r'^<!-- demo output: (\S+) -->\n```text\n(.*?)^```', re.M | re.S)


def _read(relative):
    with open(os.path.join(cd.ROOT, relative), encoding='utf-8') as handle:
        return handle.read()


def _blocks():
    return MARKER.findall(_read('README.md'))


def _in_order(shown, recorded):
    """True when every line of ``shown`` is a line of ``recorded`` (trailing blanks aside), in order; ``...``
    skips lines, anything else must follow the line before it."""
    lines = [line.rstrip() for line in recorded.splitlines()]
    position, gap = 0, True
    for line in shown.splitlines():
        if line == '...':
            gap = True
            continue
        found = [index for index in range(position, len(lines)) if lines[index] == line.rstrip()]
        if not found or (not gap and found[0] != position):
            return False
        position, gap = found[0] + 1, False
    return True


def _findings(log):
    """The findings of an audit's output: its bullets after the summary, the report directory aside."""
    text = _read(os.path.join('tests', 'unit', 'fixtures', 'demo', log))
    return re.findall(r"^    - '(iotune-demo: .*?)'$", text, re.M | re.S)


def test_the_readme_shows_demo_output():
    assert len(_blocks()) >= 2


@pytest.mark.parametrize('source, block', _blocks())
def test_each_block_is_recorded_demo_output(source, block):
    assert _in_order(block, _read(source)), 'README.md shows lines %s did not print in that order' % source


def test_the_story_is_the_recorded_one():
    first, last = _findings('audit-first.log'), _findings('audit-after-rollback.log')
    drift, not_persistent = re.search(r'(\d+) drift, (\d+) not persistent', _read('tests/unit/fixtures/demo/audit-first.log')).groups()
    assert len(first) == int(drift) + int(not_persistent) > 0 and first == last
    harden = _read('tests/unit/fixtures/demo/harden.log')
    again = _read('tests/unit/fixtures/demo/harden-again.log')
    assert "13 compliant, 0 drift, 0 not persistent, 0 not applicable, 0 error" in harden and 'changed=1' in harden
    assert 'changed=0' in again


def test_a_line_not_printed_is_found():
    recorded = 'a\nb\nc\n'
    assert _in_order('a\n...\nc', recorded) and _in_order('b\nc', recorded)
    assert not _in_order('a\nc', recorded) and not _in_order('c\na', recorded) and not _in_order('x', recorded)
