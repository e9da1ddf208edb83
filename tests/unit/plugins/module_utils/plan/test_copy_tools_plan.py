# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The copy tools named by digest: planned without their content where the host has them, drift in an
audit where it does not, a stop before any change in a run that would install them without it; and
the concern showing a binary tool by digest, never by content."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import hashlib
import re

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.files import mount_point_of
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.copy_tools import CopyTools
from ansible_collections.iotune.storage.plugins.module_utils.plan.copy_tools import plan_copy_tools, wanted_file

# a zipapp is binary: an interpreter line, then a zip archive
ZIPAPP = b'#!/usr/bin/python3 -IS\nPK\x03\x04\x14\x00\x00\x00\x08\x00\xff\xfe' + bytes(range(256))
DIGEST = hashlib.sha256(ZIPAPP).hexdigest()


def by_digest(path):
    return {'path': str(path), 'mode': 0o755, 'sha256': DIGEST, 'size': len(ZIPAPP)}


def with_content(path):
    return dict(by_digest(path), content_b64=base64.b64encode(ZIPAPP).decode('ascii'))


def test_a_tool_the_host_has_needs_no_content(tmp_path):
    (tmp_path / 'iotune-copy').write_bytes(ZIPAPP)
    plan = plan_copy_tools([by_digest(tmp_path / 'iotune-copy')], installing=True)
    assert [c['status'] for c in plan['checks']] == ['compliant']
    assert plan['changes'] == [] and plan['content_needed'] == []
    assert plan['installed'] == {str(tmp_path / 'iotune-copy'): DIGEST}
    assert plan['checks'][0]['live'] == DIGEST[:12] == plan['checks'][0]['expected']


def test_without_content_a_missing_tool_is_drift_in_an_audit(tmp_path):
    plan = plan_copy_tools([by_digest(tmp_path / 'bin' / 'iotune-copy')])
    assert [c['status'] for c in plan['checks']] == ['drift']
    assert plan['checks'][0]['message'].endswith('iotune-copy is not installed')
    assert [c['kind'] for c in plan['changes']] == ['dir', 'file']
    assert plan['content_needed'] == [str(tmp_path / 'bin' / 'iotune-copy')]
    assert plan['installed'] == {str(tmp_path / 'bin' / 'iotune-copy'): None}


def test_without_content_a_run_that_installs_stops_naming_the_tool(tmp_path):
    (tmp_path / 'iotune-copy').write_bytes(b'an older tool\n')
    plan = plan_copy_tools([by_digest(tmp_path / 'iotune-copy')], installing=True)
    assert [c['status'] for c in plan['checks']] == ['error']
    assert 'differs from the version this collection installs' in plan['checks'][0]['message']
    assert 'its content was not sent (the controller expected the host to have sha256 %s)' % DIGEST[:12] \
        in plan['checks'][0]['message']
    assert plan['content_needed'] == [str(tmp_path / 'iotune-copy')]


def test_with_content_the_binary_tool_is_installed_as_sent(tmp_path):
    plan = plan_copy_tools([with_content(tmp_path / 'iotune-copy')], installing=True)
    assert [c['status'] for c in plan['checks']] == ['drift'] and plan['content_needed'] == []
    assert plan['changes'][0]['after'] == ZIPAPP


@pytest.mark.parametrize('item, message', [
    ({'content_b64': 'not base64!'}, 'files[0].content_b64: not base64'),
    ({'content_b64': base64.b64encode(b'other').decode('ascii')}, 'does not have the sha256 given'),
    ({'sha256': 'ABC'}, 'files[0].sha256: expected 64 lowercase hexadecimal digits'),
])
def test_content_that_is_not_what_was_named_is_refused(tmp_path, item, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        wanted_file(dict(with_content(tmp_path / 'iotune-copy'), **item), 'files[0]')


def test_a_file_needs_content_or_a_digest():
    with pytest.raises(ValueError, match=re.escape('files[0]: needs content, content_b64 or sha256')):
        wanted_file({'path': '/usr/local/bin/iotune-copy', 'mode': 0o755}, 'files[0]')


class _Module(object):
    def __init__(self, check_mode, mode):
        self.check_mode, self.params = check_mode, {'mode': mode}


class _Runner(object):
    def __init__(self, check_mode, mode):
        self.module = _Module(check_mode, mode)


@pytest.mark.parametrize('check_mode, mode, installing', [
    (False, 'enforce', True), (True, 'enforce', False), (False, 'audit', False), (True, 'audit', False),
])
def test_the_concern_installs_only_in_an_enforcing_run_outside_check_mode(check_mode, mode, installing):
    assert CopyTools(_Runner(check_mode, mode), [by_digest('/usr/local/bin/iotune-copy')]).installing is installing


def test_a_binary_tool_shows_by_digest_and_size_in_results_and_diffs(tmp_path):
    path = tmp_path / 'iotune-copy'
    path.write_bytes(b'old\xff\xfe\n')
    conf = tmp_path / 'copy.conf'
    files = [by_digest(path), {'path': str(conf), 'mode': 0o644, 'content': 'buffer_size=8M\n'}]
    concern = CopyTools(_Runner(True, 'enforce'), files)
    plan = concern.plan()
    shown = concern.show(plan['changes'])
    assert shown[0]['before'] == 'sha256 %s, 6 bytes' % hashlib.sha256(b'old\xff\xfe\n').hexdigest()
    assert shown[0]['after'] == 'sha256 %s, %d bytes' % (DIGEST, len(ZIPAPP))
    assert shown[1]['before'] is None and shown[1]['after'] == 'buffer_size=8M\n'
    diffs = concern.diff(plan)
    assert diffs[0]['after'] == 'sha256 %s, %d bytes\n' % (DIGEST, len(ZIPAPP))
    assert diffs[1] == {'before_header': '%s (absent)' % conf, 'after_header': str(conf), 'before': '',
                        'after': 'buffer_size=8M\n'}
    assert concern.extra(plan) == {'content_needed': [str(path)], 'installed': {
        str(path): hashlib.sha256(b'old\xff\xfe\n').hexdigest(), str(conf): None}}


class _Statvfs(object):
    """os.statvfs's answer for every path: a file system mounted with ``flags``; the paths asked."""

    def __init__(self, flags):
        self.f_flag, self.asked = flags, []

    def __call__(self, path):
        self.asked.append(path)
        return self


@pytest.mark.parametrize('installed', [True, False])
def test_a_tool_on_a_noexec_file_system_is_an_error_naming_the_directory_and_the_mount(tmp_path, installed):
    # issue 38, item 9: the audit said compliant (or harden installed it), and the tool failed with rc 126
    if installed:
        (tmp_path / 'bin').mkdir()
        (tmp_path / 'bin' / 'iotune-copy').write_bytes(ZIPAPP)
    config = {'path': str(tmp_path / 'etc' / 'copy.conf'), 'mode': 0o644, 'content': 'streams=2\n'}
    statvfs = _Statvfs(8)  # ST_NOEXEC
    plan = plan_copy_tools([with_content(tmp_path / 'bin' / 'iotune-copy'), config], statvfs=statvfs)
    tool, conf = plan['checks']
    assert (tool['status'], conf['status']) == ('error', 'drift'), plan['checks']
    assert tool['message'].endswith(
        '%s cannot run there: its directory %s is on a file system mounted noexec (at %s); install the tools in a '
        'directory of a file system mounted exec (copy_tools_bin_dir), or remove noexec from that mount'
        % (tmp_path / 'bin' / 'iotune-copy', tmp_path / 'bin', mount_point_of(str(tmp_path)))), tool['message']
    # the directory itself, or the nearest one above it that exists
    assert statvfs.asked == [str(tmp_path / 'bin') if installed else str(tmp_path)]
    assert [c['status'] for c in plan_copy_tools([with_content(tmp_path / 'bin' / 'iotune-copy')],
                                                 statvfs=_Statvfs(0))['checks']] == ['compliant' if installed else 'drift']
