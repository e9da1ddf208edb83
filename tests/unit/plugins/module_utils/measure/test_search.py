# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan of a measured search: its request checked field by field, its candidates, the shuffled
rounds, the budget, and the fio command line of one measurement."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.measure.decide import decide
from ansible_collections.iotune.storage.plugins.module_utils.measure.search import (
    answer_message,
    AA_CANDIDATE,
    budget_problem,
    cache_suspect_job,
    config_buffer_size,
    copy_argv,
    deploy_concern,
    policy_fragment,
    candidates,
    check_request,
    measured_value,
    round_orders,
    SEARCHABLE,
    rounds_problem,
    trial_argv,
    trial_seconds,
    workload_job,
    WORKLOADS,
)
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS

GOOD = {'settings': {'read_ahead_kb': [128, 1024, 4096]}, 'workload': 'cold-seq-read', 'rounds': 8, 'runtime': 5,
        'max_seconds': 600, 'size': '256m', 'confidence': 0.95, 'min_effect': 0.05}


def test_a_good_request_has_no_errors():
    assert check_request(GOOD) == []


@pytest.mark.parametrize('change, expected', [
    ({'settings': {}}, 'settings: give at least one setting to search'),
    ({'settings': {'read_ahead': [1]}},
     'settings.read_ahead: not a setting a search can try; accepted: ' + ', '.join(SEARCHABLE)),
    ({'settings': {'read_ahead_kb': 128}}, 'settings.read_ahead_kb: expected a non-empty list of candidate values'),
    ({'settings': {'read_ahead_kb': [128, -1]}}, 'settings.read_ahead_kb[1]: -1 is not valid; expected an integer from 0'),
    ({'settings': {'scheduler': ['deadlines']}},
     "settings.scheduler[0]: 'deadlines' is not valid; expected one of none, mq-deadline"),
    ({'settings': {'read_ahead_kb': [128, 128]}}, 'settings.read_ahead_kb: a candidate is listed twice'),
    ({'workload': 'seq'}, "workload: unknown preset 'seq'; accepted: cold-seq-read, rand-read-8k, restore-write, seq-read-direct"),
    ({'workload': {'rw': 'read', 'options': {'filename': '/etc/passwd'}}}, 'workload: job.options'),
    ({'workload': {'rw': 'trim'}}, "workload: unknown"),
    ({'rounds': 0}, 'rounds: 0 is not valid; expected a whole number from 1 to 200'),
    ({'runtime': True}, 'runtime: True is not valid'),
    ({'size': '10k'}, "size: '10k' is too small; expected at least 1m"),
    ({'size': 'big'}, 'size: '),
    ({'confidence': 1.0}, 'confidence: 1.0 is not valid'),
    ({'min_effect': -0.1}, 'min_effect: -0.1 is not valid'),
])
def test_bad_input_is_named(change, expected):
    errors = check_request(dict(GOOD, **change))
    assert len(errors) == 1 and errors[0].startswith(expected), errors


def test_candidates_change_one_setting_and_leave_out_the_current_value():
    found = candidates({'read_ahead_kb': [128, 1024], 'scheduler': ['none', 'mq-deadline']},
                       {'read_ahead_kb': 128, 'scheduler': 'mq-deadline'})
    assert found == [{'name': 'read_ahead_kb=1024', 'setting': 'read_ahead_kb', 'value': 1024},
                     {'name': 'scheduler=none', 'setting': 'scheduler', 'value': 'none'}]
    assert candidates({'read_ahead_kb': [1024]}, {}, aa=True) == [{'name': AA_CANDIDATE, 'setting': None, 'value': None}]


def test_round_orders_are_shuffled_per_round_and_reproducible():
    names = ['current', 'a', 'b', 'c']
    orders = round_orders(names, 40, 7)
    assert orders == round_orders(names, 40, 7)
    assert all(sorted(order) == sorted(names) for order in orders)
    # not one fixed order: every name comes first in some round
    assert set(order[0] for order in orders) == set(names)


def test_budget_and_rounds():
    job = workload_job('cold-seq-read')
    assert trial_seconds(job, 5, '256m') == 5 + 2 + 3
    assert trial_seconds(workload_job('restore-write'), 5, '256m') == 7
    assert budget_problem(40, 10, 400) is None
    assert budget_problem(40, 10, 399).startswith('max_seconds: the search needs about 400 s (40 measurements x 10 s')
    assert rounds_problem(6, 0.95, 1) is None
    assert rounds_problem(6, 0.95, 2) == ('rounds: 6 rounds cannot show a difference at 0.95 confidence among 2 '
                                          'candidate(s); at least 7 are needed (docs/tuning.md, the decision rule)')


@pytest.mark.parametrize('name', sorted(WORKLOADS))
def test_trial_argv_is_one_pass_capped_by_runtime(name):
    argv = trial_argv('/usr/bin/fio', workload_job(name), '/mnt/.iotune-fio-1-ab', 268435456, 5)
    assert '--runtime=5' in argv and '--time_based=1' not in argv
    assert '--size=268435456' in argv and '--filename=/mnt/.iotune-fio-1-ab' in argv
    assert argv[-1] == '--output-format=json'


def test_cold_read_drops_the_files_cached_pages_first():
    argv = trial_argv('fio', workload_job('cold-seq-read'), '/x/f', 1 << 28, 5)
    assert '--invalidate=1' in argv and '--direct=0' in argv


def test_measured_value():
    parsed = {'jobs': [{'name': 'w', 'error': 0, 'read': {'bw_bytes': 100, 'io_bytes': 5, 'lat_mean_ns': 7},
                        'write': {'bw_bytes': 50, 'io_bytes': 5, 'lat_mean_ns': 9}}]}
    assert measured_value(parsed, {}, 'bw') == 150
    assert measured_value(parsed, {}, 'lat') == 9
    assert measured_value({'jobs': [{'name': 'w', 'error': 0, 'read': None, 'write': None}]}, {}, 'bw') is None


def test_copy_settings_only_with_the_copy_workload():
    errors = check_request(dict(GOOD, settings={'buffer_size': ['4k', '1m']}))
    assert errors == ['settings.buffer_size: a setting of the copy tool, searched only with workload: copy']
    assert check_request(dict(GOOD, settings={'buffer_size': ['4k', '1m'], 'direct': [True]}, workload='copy')) == []
    errors = check_request(dict(GOOD, settings={'buffer_size': ['2g'], 'direct': ['yes']}, workload='copy'))
    assert errors == ["settings.buffer_size[0]: '2g' is not valid; expected a size from 1 byte to 1g (4k, 1m, 8M)",
                      "settings.direct[0]: 'yes' is not valid; expected true or false"]


def test_copy_candidates_and_command_lines():
    found = candidates({'buffer_size': ['8M', '1m'], 'direct': [True, False]}, {'buffer_size': '8M', 'direct': False})
    assert [candidate['name'] for candidate in found] == ['buffer_size=1m', 'direct=true']
    argv = copy_argv('/usr/local/bin/iotune-copy', '/etc/iotune/copy.conf', found[0], True, '/d/src', '/d/src-copy')
    assert argv == ['/usr/local/bin/iotune-copy', '--config', '/etc/iotune/copy.conf', '--buffer-size', '1m', '--direct',
                    '--', '/d/src', '/d/src-copy']
    assert '--direct' in copy_argv('t', 'c', found[1], False, 's', 'd')
    assert '--direct' not in copy_argv('t', 'c', {'name': 'current', 'setting': None, 'value': None}, False, 's', 'd')
    job = workload_job('copy')
    assert job['copy'] and not cache_suspect_job(job)
    assert trial_seconds(job, 5, '100m') == 2 + 1 + 2


def test_config_buffer_size():
    assert config_buffer_size('# iotune\nbuffer_size=4k\nstreams=3\n', '8M') == '4k'
    assert config_buffer_size('buffer_size = "1M"  # large\nbuffer_size=2M\n', '8M') == '2M'
    assert config_buffer_size('#buffer_size=4k\n', '8M') == '8M'


def test_a_copy_fragment_sets_the_tools_buffer_size():
    fragment, hardware, warning = policy_fragment('vdb', {'serial': 'x1'}, {'buffer_size': '1m'})
    assert fragment == {'iotune_copy_tools': {'state': 'present', 'buffer_size': '1m'}} and warning is None
    fragment, dummy, warning = policy_fragment('loop0', {}, {'read_ahead_kb': 4096})
    assert fragment == {'iotune_block_devices': [{'match': {'name': 'loop0'}, 'read_ahead_kb': 4096}]}
    assert 'no WWN or serial' in warning


@pytest.mark.parametrize('values, concern', [({name: 1}, 'block_queue') for name in QUEUE_SETTINGS] + [
    ({'buffer_size': '1m'}, 'copy_tools'), ({'direct': True}, None), ({'mount_options': 'noatime'}, None),
    ({'read_pref_io': 1048576}, None), ({}, None)])
def test_tune_io_deploys_a_queue_setting_or_the_buffer_and_leaves_the_rest_to_harden_io(values, concern):
    assert deploy_concern(values) == concern


def _loop_search():
    with open(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures', 'tune', 'loop-read-ahead.json')) as handle:
        return json.load(handle)['search']


def test_the_answer_names_the_worse_the_undecided_and_the_next_step():
    found = _loop_search()
    decision = decide(found['rounds'], 'current', ['read_ahead_kb=0', 'read_ahead_kb=4096'])
    by_name = {'read_ahead_kb=0': {'setting': 'read_ahead_kb', 'value': 0}, 'read_ahead_kb=4096': {'setting': 'read_ahead_kb', 'value': 4096}}
    message = answer_message(decision, by_name, {'read_ahead_kb': 2560}, workload_job('cold-seq-read'))
    assert message == (
        'keep the current value: the data cannot decide (read_ahead_kb=0 worse: 0.04x, slower in 7 of 7 rounds '
        '(interval 0.03x-0.11x); read_ahead_kb=4096 undecided: 0.78x, slower in 5 of 7 rounds; the noise hides effects up to '
        '170 %); the current value ranged 444.4 MiB/s-1.4 GiB/s (3.1x) over 7 rounds; next: 139 rounds (the same noise needs '
        'them to see 25 %), direct I/O or a file larger than twice the RAM, a quieter host')
    # the target's fix comes first when the search measured memory
    reached = {'medium': 'memory', 'fix': 'losetup --direct-io=on /dev/loop3'}
    memory = decide(found['rounds'], 'current', ['read_ahead_kb=4096'], suspect={'current'})
    assert answer_message(memory, by_name, {'read_ahead_kb': 2560}, workload_job('cold-seq-read'), reached=reached) == (
        'keep the current value: not decided, the search measured memory, not the disk (read_ahead_kb=4096 not decided: '
        'measured memory); the current value ranged 444.4 MiB/s-1.4 GiB/s (3.1x) over 7 rounds; next: '
        'losetup --direct-io=on /dev/loop3, a quieter host')


def test_the_answer_of_a_win_and_of_no_difference():
    rounds = [{'current': 100.0 * f, 'read_ahead_kb=2048': 131.0 * f, 'read_ahead_kb=512': 100.5 * f} for f in
              (1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03, 0.97)]
    by_name = {'read_ahead_kb=2048': {'setting': 'read_ahead_kb', 'value': 2048}, 'read_ahead_kb=512': {'setting': 'read_ahead_kb', 'value': 512}}
    decision = decide(rounds, 'current', ['read_ahead_kb=2048', 'read_ahead_kb=512'])
    message = answer_message(decision, by_name, {'read_ahead_kb': 128}, workload_job('seq-read-direct'))
    assert message == ('use read_ahead_kb=2048 instead of the current 128: read_ahead_kb=2048 better: 1.31x, faster in 8 of 8 '
                       'rounds (interval 1.31x-1.31x); read_ahead_kb=512 no difference: 1.00x, faster in 8 of 8 rounds; an '
                       'effect of 0.5 % or more would have been seen; the current value ranged 97 B/s-103 B/s (1.1x) over 8 rounds')


def test_an_answer_decided_on_memory_says_so():
    rounds = [{'current': 100.0 * f, 'read_ahead_kb=2048': 131.0 * f} for f in (1.0, 3.5, 0.98, 1.01, 0.99, 1.0, 1.03, 0.97)]
    by_name = {'read_ahead_kb=2048': {'setting': 'read_ahead_kb', 'value': 2048}}
    decision = decide(rounds, 'current', ['read_ahead_kb=2048'])
    reached = {'medium': 'memory', 'reasons': ['current ran 3.6x faster in one round than in another'], 'fix': 'a real disk'}
    message = answer_message(decision, by_name, {'read_ahead_kb': 128}, workload_job('seq-read-direct'), reached=reached)
    assert message.endswith('; measured memory, decided all the same (allow_memory): current ran 3.6x faster in one round '
                            'than in another')
    assert message.startswith('use read_ahead_kb=2048 instead of the current 128: ')


def test_an_answer_where_some_candidates_measured_memory():
    found = _loop_search()
    decision = decide(found['rounds'], 'current', ['read_ahead_kb=0', 'read_ahead_kb=4096'], suspect={'read_ahead_kb=4096'})
    by_name = {'read_ahead_kb=0': {'setting': 'read_ahead_kb', 'value': 0}, 'read_ahead_kb=4096': {'setting': 'read_ahead_kb', 'value': 4096}}
    message = answer_message(decision, by_name, {'read_ahead_kb': 2560}, workload_job('cold-seq-read'))
    assert message.startswith('keep the current value: 1 of 2 candidates measured memory, not the disk, and were not decided '
                              '(read_ahead_kb=0 worse: 0.04x, slower in 7 of 7 rounds (interval 0.03x-0.11x); read_ahead_kb=4096 '
                              'not decided: measured memory)')
