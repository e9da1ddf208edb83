# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_policy with the copy tools named by digest: the audit and check mode need no content, an
enforcing run without the content the host needs changes nothing and says which, with it the tools
are installed, and then the digest alone finds them current."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import hashlib

import pytest


from ansible_collections.iotune.storage.plugins.modules import io_policy
from ansible_collections.iotune.storage.tests.unit.module_harness import no_commands, run_main

TOOL = b'#!/usr/bin/python3 -IS\nPK\x03\x04' + bytes(range(256)) * 40


@pytest.fixture(name='host')
def host_fixture(monkeypatch, tmp_path, fixture_path):
    no_commands(monkeypatch)
    (tmp_path / 'bin').mkdir()
    return {
        'policy': {'iotune_copy_tools': {'state': 'present'}},
        'concerns': ['copy_tools'],
        'proc_root': fixture_path('policy', 'proc-vxfs'), 'sys_root': str(tmp_path / 'sys'),
        'journal_dir': str(tmp_path / 'journal'), 'tunefstab_path': str(tmp_path / 'tunefstab'),
    }


def tool(tmp_path, content=False):
    item = {'path': str(tmp_path / 'bin' / 'iotune-copy'), 'mode': '0755', 'sha256': hashlib.sha256(TOOL).hexdigest(),
            'size': len(TOOL)}
    if content:
        item['content_b64'] = base64.b64encode(TOOL).decode('ascii')
    return item


def test_digest_only_then_content_then_digest_only(monkeypatch, host, tmp_path):
    path = tmp_path / 'bin' / 'iotune-copy'
    kind, audit = run_main(monkeypatch, io_policy, dict(host, copy_tools_files=[tool(tmp_path)], _ansible_diff=True))
    assert kind == 'exit' and [c['status'] for c in audit['checks']] == ['drift'], audit
    assert audit['diff'][0]['after'] == 'sha256 %s, %d bytes\n' % (hashlib.sha256(TOOL).hexdigest(), len(TOOL))
    assert audit['concerns']['copy_tools']['installed'] == {str(path): None}

    kind, check = run_main(monkeypatch, io_policy, dict(host, mode='enforce', copy_tools_files=[tool(tmp_path)],
                                                        _ansible_check_mode=True))
    assert kind == 'exit' and check['changed'] and not path.exists(), check

    kind, stopped = run_main(monkeypatch, io_policy, dict(host, mode='enforce', copy_tools_files=[tool(tmp_path)]))
    assert kind == 'fail' and not stopped['changed'] and not path.exists(), stopped
    assert stopped['concerns']['copy_tools']['content_needed'] == [str(path)]
    assert 'its content was not sent' in stopped['msg']

    kind, done = run_main(monkeypatch, io_policy, dict(host, mode='enforce', copy_tools_files=[tool(tmp_path, True)]))
    assert kind == 'exit' and done['changed'] and path.read_bytes() == TOOL, done
    assert done['concerns']['copy_tools']['installed'] == {str(path): hashlib.sha256(TOOL).hexdigest()}
    assert 'content_b64' not in str(done['concerns']['copy_tools']['changes'])

    kind, again = run_main(monkeypatch, io_policy, dict(host, mode='enforce', copy_tools_files=[tool(tmp_path)]))
    assert kind == 'exit' and not again['changed'] and [c['status'] for c in again['checks']] == ['compliant'], again


def test_content_that_does_not_have_its_digest_is_refused(monkeypatch, host, tmp_path):
    item = dict(tool(tmp_path, True), sha256='0' * 64)
    kind, result = run_main(monkeypatch, io_policy, dict(host, mode='enforce', copy_tools_files=[item]))
    assert kind == 'fail' and 'does not have the sha256 given' in result['msg'], result
    assert not (tmp_path / 'bin' / 'iotune-copy').exists()
