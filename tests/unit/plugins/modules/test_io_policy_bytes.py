# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_policy over an fstab line holding a byte that is not UTF-8 (issue 38, item 12): the result
goes through the JSON encoding and decoding Ansible uses between module and controller, and the
fstab keeps its bytes."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

try:
    from ansible.module_utils.common.json import Direction, get_module_decoder, get_module_encoder
except ImportError:  # ansible-core before 2.19: the module's result is plain JSON, read back as UTF-8
    Direction = get_module_decoder = get_module_encoder = None

from ansible_collections.iotune.storage.plugins.modules import io_policy
from ansible_collections.iotune.storage.tests.unit.module_harness import no_commands, run_main

# a Latin-1 label: 0xE9 is "é" in Latin-1 and no UTF-8 at all
FSTAB = b'# caf\xe9 servers\nLABEL=caf\xe9 /strict ext4 strictatime,comment=\xe9t\xe9 0 2\n'
MOUNTINFO = '36 1 8:1 / /strict rw,relatime shared:1 - ext4 /dev/vdh rw\n'


def through_ansible(result):
    """``result`` as the controller gets it: encoded as a module's result is, decoded as the
    controller decodes it (which refuses a string that is not valid UTF-8)."""
    if get_module_encoder is None:
        # ensure_ascii=False as the controller's UTF-8 reading sees it: a lone surrogate fails to encode
        return json.loads(json.dumps(result, ensure_ascii=False).encode('utf-8').decode('utf-8'))
    text = json.dumps(result, cls=get_module_encoder('legacy', Direction.MODULE_TO_CONTROLLER))
    text.encode('utf-8')
    return json.loads(text, cls=get_module_decoder('legacy', Direction.MODULE_TO_CONTROLLER))


def strings(value):
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in strings(key) + strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return [value] if isinstance(value, str) else []


@pytest.fixture(name='latin1')
def latin1_fixture(monkeypatch, tmp_path):
    (tmp_path / 'fstab').write_bytes(FSTAB)
    (tmp_path / 'proc' / 'self').mkdir(parents=True)
    (tmp_path / 'proc' / 'self' / 'mountinfo').write_text(MOUNTINFO)
    no_commands(monkeypatch)
    return {
        'policy': {'iotune_mounts': [{'path': '/strict', 'present': ['noatime'], 'absent': []}]},
        'concerns': ['mount_options'], 'fstab': str(tmp_path / 'fstab'), 'remount': False,
        'proc_root': str(tmp_path / 'proc'), 'sys_root': str(tmp_path / 'sys'),
        'journal_dir': str(tmp_path / 'journal'), 'run_id': 'r1',
        'report': {'dir': str(tmp_path / 'reports'), 'names': ['r1.json'], 'host': 'h1', 'mode': 'audit'},
    }


@pytest.mark.parametrize('mode', ['audit', 'enforce'])
def test_a_latin1_fstab_line_gives_a_result_the_controller_accepts(monkeypatch, latin1, tmp_path, mode):
    kind, result = run_main(monkeypatch, io_policy, dict(latin1, mode=mode, _ansible_diff=True))
    assert kind == 'exit', result
    # the diff shows the fstab line, the byte as \xe9
    assert any('LABEL=caf\\xe9 /strict ext4 strictatime,comment=\\xe9t\\xe9 0 2' in text
               for text in strings(result['diff'])), result['diff']
    got = through_ansible(result)
    texts = strings(got)
    assert not [text for text in texts if any(0xd800 <= ord(char) <= 0xdfff for char in text)]
    # the byte is shown, not dropped
    assert any('LABEL=caf\\xe9 /strict' in text for text in texts), texts
    # the host's copy of the report too
    assert through_ansible(json.loads((tmp_path / 'reports' / 'r1.json').read_bytes().decode('utf-8'))) == got['report']
    fstab = (tmp_path / 'fstab').read_bytes()
    if mode == 'audit':
        assert fstab == FSTAB
    else:
        # the option added, every other byte kept
        assert fstab == FSTAB.replace(b'strictatime,comment', b'noatime,comment'), fstab
