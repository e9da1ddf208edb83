# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Waivers: validation naming the field, which hosts a waiver covers, days left, and the marks
on the checks (active, expired, stale)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.policy.waivers import (
    apply_waivers, parse_date, validate_waivers, waived_count, waivers_for_host)

TODAY = datetime.date(2026, 11, 28)
GOOD = {'name': 'backup window', 'checks': ['mount_options:/data/*:noatime'], 'hosts': ['db*', 'backup'],
        'reason': 'the backup agent needs atime until its upgrade', 'owner': 'storage-team', 'expires': '2026-12-31'}


def check(concern, target, setting, status='drift'):
    return {'id': '%s:%s:%s' % (concern, target, setting), 'concern': concern, 'target': target, 'setting': setting,
            'status': status}


def test_a_good_waiver_is_normalized():
    waivers, errors = validate_waivers([GOOD, dict(GOOD, name=None, hosts=None, checks='cache_limits:sysctl:vm.*',
                                                   expires=datetime.date(2027, 1, 31))])
    assert errors == []
    assert waivers[0] == dict(GOOD)
    assert waivers[1]['name'] == 'iotune_waivers[1]' and waivers[1]['hosts'] is None
    assert waivers[1]['checks'] == ['cache_limits:sysctl:vm.*'] and waivers[1]['expires'] == '2027-01-31'


@pytest.mark.parametrize('change,message', [
    ({'expires': '2026-02-30'}, "iotune_waivers[0].expires: '2026-02-30' is not a date YYYY-MM-DD"),
    ({'expires': '31.12.2026'}, "iotune_waivers[0].expires: '31.12.2026' is not a date YYYY-MM-DD"),
    ({'expires': 20261231}, 'iotune_waivers[0].expires: 20261231 is not a date YYYY-MM-DD'),
    ({'expires': None}, 'iotune_waivers[0].expires: required'),
    ({'reason': ''}, 'iotune_waivers[0].reason: required'),
    ({'owner': None}, 'iotune_waivers[0].owner: required'),
    ({'checks': []}, 'iotune_waivers[0].checks: required'),
    ({'checks': ['ok', '']}, 'iotune_waivers[0].checks: must be a non-empty list of check ids or patterns'),
    ({'hosts': 'db1'}, None),
    ({'hosts': []}, 'iotune_waivers[0].hosts: must be a non-empty list of host or group names or patterns'),
    ({'hosts': [3]}, 'iotune_waivers[0].hosts: must be a non-empty list of host or group names or patterns'),
    ({'owner': ['a']}, 'iotune_waivers[0].owner: must be text'),
    # issue 38, item 14: text of blanks only (or of characters nothing shows) names nobody and nothing
    ({'reason': '   '}, "iotune_waivers[0].reason: must have a visible character, got '   '"),
    ({'owner': '\t\u00a0'}, "iotune_waivers[0].owner: must have a visible character"),
    ({'name': ' '}, "iotune_waivers[0].name: must have a visible character, got ' '"),
    ({'reason': '\u200b\x00'}, 'iotune_waivers[0].reason: must have a visible character'),
    ({'owner': ' dba '}, None),
    ({'until': '2026-12-31'}, 'iotune_waivers[0].until: unknown key (accepted: name, checks, hosts, reason, owner, expires)'),
])
def test_a_bad_waiver_is_named_with_its_field(change, message):
    waivers, errors = validate_waivers([dict(GOOD, **change)])
    if message is None:
        assert errors == [] and len(waivers) == 1
        assert [waivers[0][key] for key in change] == [['db1'] if key == 'hosts' else change[key] for key in change]
    else:
        assert len(errors) == 1 and errors[0].startswith(message), errors
        assert waivers == []


@pytest.mark.parametrize('value,message', [
    ({'checks': ['x']}, 'iotune_waivers: must be a list of waivers'),
    (['x'], "iotune_waivers[0]: must be a dict with checks, reason, owner, expires, got 'x'"),
])
def test_a_bad_list_is_named(value, message):
    assert validate_waivers(value)[1][0].startswith(message)


def test_no_waivers():
    assert validate_waivers(None) == ([], [])


def test_dates():
    assert parse_date('2026-12-31') == datetime.date(2026, 12, 31)
    assert parse_date(datetime.date(2026, 12, 31)) == datetime.date(2026, 12, 31)
    assert parse_date(datetime.datetime(2026, 12, 31, 10, 0)) is None
    assert parse_date('2026-12-31T00:00') is None


def test_the_hosts_a_waiver_covers_by_name_pattern_and_group():
    waivers = validate_waivers([GOOD])[0]
    assert [w['name'] for w in waivers_for_host(waivers, 'db7', [], TODAY)] == ['backup window']
    assert waivers_for_host(waivers, 'web1', ['backup', 'all'], TODAY)[0]['days_left'] == 33
    assert waivers_for_host(waivers, 'web1', ['web'], TODAY) == []
    everyone = validate_waivers([dict(GOOD, hosts=None)])[0]
    assert len(waivers_for_host(everyone, 'web1', [], TODAY)) == 1


def test_days_left_and_expiry_count_the_last_day():
    waivers = validate_waivers([dict(GOOD, hosts=None, expires='2026-11-28'), dict(GOOD, hosts=None, expires='2026-11-27')])[0]
    last_day, gone = waivers_for_host(waivers, 'h', [], TODAY)
    assert (last_day['days_left'], last_day['expired']) == (0, False)
    assert (gone['days_left'], gone['expired']) == (-1, True)


def host_waivers(*items):
    return waivers_for_host(validate_waivers([dict(GOOD, hosts=None, **item) for item in items])[0], 'h', [], TODAY)


def test_a_waived_check_keeps_its_status_and_carries_the_waiver():
    checks = [check('mount_options', '/data/a', 'noatime'), check('mount_options', '/srv', 'noatime'),
              check('cache_limits', 'sysctl', 'vm.dirty_ratio', 'compliant')]
    marked, outcomes = apply_waivers(checks, host_waivers({}))
    assert [c['status'] for c in marked] == ['drift', 'drift', 'compliant']
    assert marked[0]['waiver'] == {'name': 'backup window', 'reason': GOOD['reason'], 'owner': 'storage-team',
                                   'expires': '2026-12-31', 'days_left': 33}
    assert 'waiver' not in marked[1] and 'waiver' not in marked[2]
    assert outcomes == [dict(marked[0]['waiver'], status='active', matched=['mount_options:/data/a:noatime'])]
    assert waived_count(marked) == 1
    assert 'waiver' not in checks[0], 'the checks given are not changed'


def test_an_expired_waiver_waives_nothing_and_says_so():
    marked, outcomes = apply_waivers([check('mount_options', '/data/a', 'noatime')], host_waivers({'expires': '2026-11-01'}))
    assert 'waiver' not in marked[0]
    assert marked[0]['waiver_expired']['days_left'] == -27
    assert outcomes[0]['status'] == 'expired' and waived_count(marked) == 0


def test_an_unexpired_waiver_wins_over_an_expired_one():
    marked = apply_waivers([check('mount_options', '/data/a', 'noatime')],
                           host_waivers({'expires': '2026-11-01', 'name': 'old'}, {'name': 'new'}))[0]
    assert marked[0]['waiver']['name'] == 'new' and 'waiver_expired' not in marked[0]


def test_a_waiver_that_matches_nothing_is_stale():
    marked, outcomes = apply_waivers([check('block_queue', 'vdb', 'read_ahead_kb')], host_waivers({}))
    assert outcomes[0]['status'] == 'stale' and outcomes[0]['matched'] == []
    assert 'waiver' not in marked[0]


def test_a_pattern_is_matched_on_the_whole_id():
    marked = apply_waivers([check('cache_limits', 'sysctl', 'vm.dirty_ratio'), check('cache_limits', 'sysctl', 'vm.swappiness')],
                           host_waivers({'checks': ['cache_limits:sysctl:vm.dirty_*']}))[0]
    assert ['waiver' in c for c in marked] == [True, False]
    assert 'waiver' not in apply_waivers([check('cache_limits', 'sysctl', 'vm.dirty_ratio')],
                                         host_waivers({'checks': ['dirty_ratio']}))[0][0]
