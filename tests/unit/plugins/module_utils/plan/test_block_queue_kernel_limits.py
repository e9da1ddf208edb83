# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The block-queue plan against what the kernel keeps or refuses (issue 38 item 1), on util-linux's real
sysfs dump multi-devs-bcachefs: nvme0n1 (scheduler none, 1023 tags per hardware context), sda (bfq,
nr_requests 64, 32 tags), sdc (bfq, nr_requests 256, 192 tags).  A value the kernel refuses is an error
check naming the field, with no change planned; one it rounds is expected, written and persisted as kept."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse import sysfs
from ansible_collections.iotune.storage.plugins.module_utils.plan import block_queue as bq
from ansible_collections.iotune.storage.tests.unit.lsblk_dumps import extract


@pytest.fixture(name='dump', scope='module')
def dump_fixture(tmp_path_factory):
    return extract('multi-devs-bcachefs', str(tmp_path_factory.mktemp('dump')))


@pytest.fixture(name='plan')
def plan_fixture(dump, tmp_path):
    rules_dir = str(tmp_path / 'rules.d')
    os.mkdir(rules_dir)

    def plan(requests):
        return bq.plan_block_queue(requests, sys_root=os.path.join(dump, 'sys'), proc_root=os.path.join(dump, 'proc'),
                                   rules_dirs=[rules_dir], db_dir=str(tmp_path / 'no-udev-db'),
                                   rules_file=os.path.join(rules_dir, '60-iotune.rules'), page_size=4096)
    return plan


def checks_of(result):
    return dict(((c['target'], c['setting']), c) for c in result['checks'])


def sysfs_changes(result):
    return [(c['target'], c['setting'], c['before'], c['after']) for c in result['changes'] if c['kind'] == 'sysfs']


@pytest.mark.parametrize('name, limits', [
    ('nvme0n1', {'page_size': 4096, 'logical_block_size': 512, 'max_hw_sectors_kb': 256, 'nr_tags': 1023, 'nr_reserved_tags': 0}),
    ('sda', {'page_size': 4096, 'logical_block_size': 512, 'max_hw_sectors_kb': 32767, 'nr_tags': 32, 'nr_reserved_tags': 0}),
    ('sdc', {'page_size': 4096, 'logical_block_size': 512, 'max_hw_sectors_kb': 2147483647, 'nr_tags': 192, 'nr_reserved_tags': 0}),
])
def test_read_queue_limits_of_a_real_dump(dump, name, limits):
    assert sysfs.read_queue_limits(os.path.join(dump, 'sys'), name, page_size=4096) == limits


def test_read_tag_set_without_mq_is_unknown(tmp_path):
    assert sysfs.read_tag_set(str(tmp_path)) == {'nr_tags': None, 'nr_reserved_tags': None}


def test_nr_requests_above_the_tag_set_without_a_scheduler_is_an_error_before_any_change(plan):
    result = plan([{'match': {'name': 'sdc'}, 'read_ahead_kb': 2048},
                   {'match': {'name': 'nvme0n1'}, 'nr_requests': 2048, 'read_ahead_kb': 4096}])
    check = checks_of(result)[('nvme0n1', 'nr_requests')]
    assert (check['status'], check['expected'], check['live']) == ('error', 2048, 1023)
    assert check['message'] == (
        'iotune_block_devices[1].nr_requests: 2048 is more than nvme0n1 takes without an I/O scheduler: its hardware '
        'queue depth (mq/*/nr_tags) is 1023; accepted with scheduler none: 4 to 1023, with a scheduler '
        '(mq-deadline, kyber, bfq): 4 to 2048')
    assert ('nvme0n1', 'nr_requests') not in [(c[0], c[1]) for c in sysfs_changes(result)]


def test_nr_requests_is_judged_with_the_scheduler_the_policy_switches_to(plan):
    result = plan([{'match': {'name': 'nvme0n1'}, 'scheduler': 'mq-deadline', 'nr_requests': 2048},
                   {'match': {'name': 'sda'}, 'scheduler': 'none', 'nr_requests': 64}])
    checks = checks_of(result)
    assert checks[('nvme0n1', 'nr_requests')]['status'] == 'drift'
    # sda reads 64 under bfq, but a switch to none leaves it 32 tags: refused although it reads 64 now
    assert checks[('sda', 'nr_requests')]['status'] == 'error'
    assert checks[('sda', 'nr_requests')]['message'].startswith(
        'iotune_block_devices[1].nr_requests: 64 is more than sda takes without an I/O scheduler: its hardware queue '
        'depth (mq/*/nr_tags) is 32')
    assert sysfs_changes(result)[:2] == [('nvme0n1', 'scheduler', 'none', 'mq-deadline'),
                                         ('nvme0n1', 'nr_requests', 1023, 2048)]


def test_a_scheduler_switch_writes_nr_requests_again_even_when_it_reads_right(plan):
    result = plan([{'match': {'name': 'sdc'}, 'scheduler': 'mq-deadline', 'nr_requests': 256}])
    check = checks_of(result)[('sdc', 'nr_requests')]
    assert check['live'] == 256
    assert check['message'].endswith('; the switch to scheduler mq-deadline resets it, so it is written again after')
    assert sysfs_changes(result) == [('sdc', 'scheduler', 'bfq', 'mq-deadline'), ('sdc', 'nr_requests', 256, 256)]


def test_a_rounded_value_is_expected_written_and_persisted_as_the_kernel_keeps_it(plan):
    result = plan([{'match': {'name': 'sdb'}, 'read_ahead_kb': 4097, 'max_sectors_kb': 4097}])
    checks = checks_of(result)
    assert (checks[('sdb', 'read_ahead_kb')]['status'], checks[('sdb', 'read_ahead_kb')]['expected']) == ('drift', 4096)
    assert checks[('sdb', 'read_ahead_kb')]['message'] == (
        'read_ahead_kb on sdb is 8192, expected 4096; no udev rule sets it; '
        'read_ahead_kb 4097 is kept by the kernel as 4096 (whole 4 KiB pages)')
    # 512-byte sectors: max_sectors_kb is kept as it is
    assert checks[('sdb', 'max_sectors_kb')]['expected'] == 4097
    assert sysfs_changes(result) == [('sdb', 'max_sectors_kb', 4096, 4097), ('sdb', 'read_ahead_kb', 8192, 4096)]
    assert 'ATTR{queue/read_ahead_kb}="4096"' in result['devices'][0]['rule']


def test_a_refused_value_names_its_field_and_the_others_are_still_planned(plan):
    result = plan([{'match': {'name': 'nvme0n1'}, 'max_sectors_kb': 512, 'read_ahead_kb': 2}])
    checks = checks_of(result)
    assert checks[('nvme0n1', 'max_sectors_kb')]['message'] == (
        'iotune_block_devices[0].max_sectors_kb: 512 KiB is more than nvme0n1 takes: its max_hw_sectors_kb is 256; '
        'accepted on nvme0n1: 4 (a page) to 256 (its max_hw_sectors_kb)')
    assert checks[('nvme0n1', 'read_ahead_kb')]['message'].startswith('iotune_block_devices[0].read_ahead_kb: 2 KiB is less than a page')
    assert sysfs_changes(result) == []


def test_read_queue_limits_takes_the_hosts_page_size_by_default(dump):
    assert sysfs.read_queue_limits(os.path.join(dump, 'sys'), 'sda')['page_size'] == os.sysconf('SC_PAGE_SIZE')
