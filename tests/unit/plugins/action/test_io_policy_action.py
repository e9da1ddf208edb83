# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_policy's controller side: the policy validated and merged before any host work, and the
bulk slice's name carried to the host's planner and to the copy tools' copy.conf."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import datetime
import hashlib
import json
import os
import pytest

from ansible_collections.iotune.storage.plugins.action.io_policy import (INSTALLED_FACT, fail_on_drift, installed_fact, known_tools,
                                                                         module_args, run_module, with_host_vars)
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits import plan_slice

POLICY = {
    'iotune_cache': {'dirty_ratio': 20, 'bulk_slice': {'memory_high': '25%', 'name': 'backup.slice'}},
    'iotune_copy_tools': {'buffer_size': '8M'},
}


def conf_of(args):
    return [f['content'] for f in args['copy_tools_files'] if f['path'] == '/etc/iotune/copy.conf'][0]


def test_the_bulk_slice_name_validates_and_reaches_the_host_and_copy_conf():
    args, errors = module_args({'policy': POLICY})
    assert errors == []
    assert args['policy']['iotune_cache']['bulk_slice'] == {'memory_high': '25%', 'name': 'backup.slice'}
    assert 'slice=backup.slice\n' in conf_of(args)


def test_without_a_name_the_default_slice_is_used():
    args, errors = module_args({'policy': {'iotune_cache': {'bulk_slice': {'memory_high': '4g'}},
                                           'iotune_copy_tools': {}}})
    assert errors == [] and 'slice=iotune-bulk.slice\n' in conf_of(args)
    assert 'name' not in args['policy']['iotune_cache']['bulk_slice']


def test_the_copy_tools_role_variable_wins_over_the_policy():
    args, errors = module_args({'policy': POLICY, 'copy_tools_slice': 'other.slice'})
    assert errors == [] and 'slice=other.slice\n' in conf_of(args)


def test_a_bad_slice_name_stops_before_any_host_work():
    policy = {'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': '../evil.slice'}}}
    args, errors = module_args({'policy': policy})
    assert args is None
    assert errors == ["iotune_cache.bulk_slice.name: '../evil.slice' is not a slice name (accepted: a systemd unit name "
                      "ending in .slice (letters, digits, \":_.-\\\"; no \"/\"), e.g. backup.slice)"]


def test_the_named_slice_is_the_unit_the_planner_writes(tmp_path):
    run_dir = tmp_path / 'run'
    run_dir.mkdir()
    args, dummy = module_args({'policy': POLICY})
    bulk = dict(args['policy']['iotune_cache']['bulk_slice'], unit_dir=str(tmp_path))
    checks, changes, detail, warnings = plan_slice(bulk, str(run_dir), lambda argv: (0, 'LoadState=not-found\n', ''),
                                                   'systemctl', 8 << 30)
    assert checks[0]['id'] == 'cache_limits:backup.slice:MemoryHigh'
    assert changes[0]['path'] == os.path.join(str(tmp_path), 'backup.slice')
    assert changes[0]['after'].endswith('Description=iotune bulk I/O jobs (backup.slice)\n\n[Slice]\nMemoryHigh=25%\n')


# The copy tools by digest: their content goes only where the host needs it.

TOOLS_POLICY = {'iotune_copy_tools': {'buffer_size': '8M'}}


def tools_of(args):
    return dict((f['path'], f) for f in args['copy_tools_files'] if f['mode'] == '0755')


def test_the_tools_are_named_by_digest_and_sent_only_to_an_enforcing_run():
    audit, dummy = module_args({'policy': TOOLS_POLICY})
    check, dummy = module_args({'policy': TOOLS_POLICY, 'mode': 'enforce'}, check_mode=True)
    enforce, dummy = module_args({'policy': TOOLS_POLICY, 'mode': 'enforce'})
    for args in (audit, check):
        assert sorted(tools_of(args)) == ['/usr/local/bin/iotune-bulk', '/usr/local/bin/iotune-copy']
        assert all('content_b64' not in item and len(item['sha256']) == 64 for item in tools_of(args).values())
    sent = tools_of(enforce)
    for path, item in sent.items():
        data = base64.b64decode(item['content_b64'])
        assert hashlib.sha256(data).hexdigest() == item['sha256'] and len(data) == item['size']
        assert data.startswith(b'#!/usr/bin/python3 -IS\nPK'), 'a zipapp with the tools\' interpreter line'
    assert len(json.dumps(audit)) < 3000 < len(json.dumps(enforce))


def test_a_host_known_to_have_a_tool_gets_its_digest_only():
    enforce, dummy = module_args({'policy': TOOLS_POLICY, 'mode': 'enforce'})
    digests = dict((path, item['sha256']) for path, item in tools_of(enforce).items())
    known = dict(digests, **{'/usr/local/bin/iotune-bulk': '0' * 64})   # an older iotune-bulk
    args, dummy = module_args({'policy': TOOLS_POLICY, 'mode': 'enforce'}, known=known)
    assert 'content_b64' not in tools_of(args)['/usr/local/bin/iotune-copy']
    assert 'content_b64' in tools_of(args)['/usr/local/bin/iotune-bulk']
    absent, dummy = module_args({'policy': {'iotune_copy_tools': {'state': 'absent'}}, 'mode': 'enforce'})
    assert all('content_b64' not in item for item in tools_of(absent).values())


def _result(installed, failed=False, needed=()):
    return {'failed': failed, 'concerns': {'copy_tools': {'installed': installed, 'content_needed': list(needed)}}}


def test_one_round_trip_and_the_fact_of_what_the_host_has():
    task_args = {'policy': TOOLS_POLICY, 'mode': 'enforce'}
    args, dummy = module_args(task_args, known={'/usr/local/bin/iotune-copy': 'a' * 64})
    calls = []

    def execute(module_args_):
        calls.append(module_args_)
        return _result({'/usr/local/bin/iotune-copy': 'b' * 64})
    done = run_module(execute, task_args, args, False, {'/usr/local/bin/iotune-copy': 'a' * 64, '/opt/x': 'c' * 64}, 'db1')
    assert len(calls) == 1
    assert done['ansible_facts'] == {INSTALLED_FACT: {'host': 'db1', 'files': {'/usr/local/bin/iotune-copy': 'b' * 64, '/opt/x': 'c' * 64}}}
    assert not done.get('warnings')


def test_fail_on_drift_is_a_boolean_named_when_it_is_not():
    assert fail_on_drift(None) is None
    assert fail_on_drift(True) is True and fail_on_drift('False') is False   # a template's text under ansible-core 2.16
    with pytest.raises(ValueError, match='fail_on_drift: must be a boolean'):
        fail_on_drift('sometimes')
    args, errors = module_args({'policy': POLICY, 'fail_on_drift': 'sometimes'})
    assert args is None and errors == ["fail_on_drift: must be a boolean (true or false), got 'sometimes'"]
    args, errors = module_args({'policy': POLICY, 'fail_on_drift': True})
    assert not errors and 'fail_on_drift' not in args     # the module never sees it


def test_the_fact_counts_only_on_the_host_it_names():
    files = {'/usr/local/bin/iotune-copy': 'a' * 64}
    assert known_tools(installed_fact('db1', files), 'db1') == files
    # another host's fact, seen here because ansible-core 2.21 shares one facts object between the hosts
    # that had none after a run_once task (ansible/ansible#87148): not this host's, nothing is known
    assert known_tools(installed_fact('db2', files), 'db1') is None
    # the form of earlier releases (path: sha256, no host), from a fact cache: cannot be told from a leaked one
    assert known_tools(files, 'db1') is None
    assert known_tools(None, 'db1') is None
    assert known_tools({'host': 'db1', 'files': 'x'}, 'db1') is None


def test_a_stale_fact_costs_a_second_round_trip_with_the_content():
    task_args = {'policy': TOOLS_POLICY, 'mode': 'enforce'}
    enforce, dummy = module_args(task_args)
    known = dict((path, item['sha256']) for path, item in tools_of(enforce).items())
    args, dummy = module_args(task_args, known=known)
    calls = []

    def execute(module_args_):
        calls.append(module_args_)
        if len(calls) == 1:   # the host lost iotune-copy since the fact was taken: nothing changed
            return _result({'/usr/local/bin/iotune-copy': None}, failed=True, needed=['/usr/local/bin/iotune-copy'])
        return _result(known)
    done = run_module(execute, task_args, args, False, known, 'db1')
    assert len(calls) == 2 and not done['failed']
    assert all('content_b64' not in item for item in tools_of(calls[0]).values())
    assert all('content_b64' in item for item in tools_of(calls[1]).values())
    assert done['ansible_facts'][INSTALLED_FACT] == {'host': 'db1', 'files': known}
    # said, since it costs a round trip: the fleet bench fails a first harden that needed one
    assert [w for w in done['warnings'] if 'second round trip' in w and '/usr/local/bin/iotune-copy' in w]


WAIVERS = [{'name': 'db only', 'checks': ['mount_options:/data:*'], 'hosts': ['dbservers'], 'reason': 'r', 'owner': 'o',
            'expires': datetime.date(2026, 12, 1)},
           {'checks': ['cache_limits:*:*'], 'reason': 'r', 'owner': 'o', 'expires': '2026-11-01'}]


def test_the_waivers_that_cover_the_host_reach_the_module_with_their_days_left():
    args, errors = module_args({'policy': {}, 'waivers': WAIVERS}, host='db1', groups=['dbservers'],
                               today=datetime.date(2026, 11, 28))
    assert errors == []
    assert [(w['name'], w['days_left'], w['expired']) for w in args['waivers']] == [
        ('db only', 3, False), ('iotune_waivers[1]', -27, True)]
    args = module_args({'policy': {}, 'waivers': WAIVERS}, host='web1', groups=['web'], today=datetime.date(2026, 11, 28))[0]
    assert [w['name'] for w in args['waivers']] == ['iotune_waivers[1]']
    assert 'waivers' not in module_args({'policy': {}}, host='web1')[0]


def test_a_bad_waiver_stops_before_any_host_work_naming_the_field():
    args, errors = module_args({'policy': {}, 'waivers': [dict(WAIVERS[0], expires='next week')]}, host='db1')
    assert args is None
    assert errors == ["iotune_waivers[0].expires: 'next week' is not a date YYYY-MM-DD, the last day the waiver holds"]


def test_the_waivers_come_from_the_hosts_variable():
    args = with_host_vars({}, lambda name: WAIVERS if name == 'iotune_waivers' else None)
    assert args['waivers'] == WAIVERS


def test_the_severity_overrides_are_validated_and_passed():
    args, errors = module_args({'policy': {}, 'severity': [{'checks': 'block_queue:*', 'severity': 'high'}]}, host='h')
    assert errors == [] and args['severity'] == [{'checks': ['block_queue:*'], 'severity': 'high'}]
    args, errors = module_args({'policy': {}, 'severity': [{'checks': ['x'], 'severity': 'urgent'}]}, host='h')
    assert args is None and errors == ["iotune_severity[0].severity: must be one of low, medium, high, got 'urgent'"]
