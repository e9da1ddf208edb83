# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the kernel keeps of a queue value, or refuses (issue 38 item 1): the rules of plan/queue_limits.py,
case by case.  The read-backs of the kept cases were seen on Linux 6.18 loop devices (512- and
4096-byte sectors, 4 KiB pages, max_hw_sectors_kb 1280, 128 tags): see the enforce target."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.plan import queue_limits
from ansible_collections.iotune.storage.plugins.module_utils.plan.queue_limits import keep, kept_or_same
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS, SETTINGS

LOOP = {'page_size': 4096, 'logical_block_size': 512, 'max_hw_sectors_kb': 1280, 'nr_tags': 128, 'nr_reserved_tags': 0}
LOOP_4K = dict(LOOP, logical_block_size=4096)
ARM_64K = dict(LOOP, page_size=65536)
LBS_8K = dict(LOOP, logical_block_size=8192)
UNKNOWN = {'page_size': 4096, 'logical_block_size': None, 'max_hw_sectors_kb': None, 'nr_tags': None, 'nr_reserved_tags': None}
RESERVING = dict(LOOP, nr_tags=1023, nr_reserved_tags=8)


@pytest.mark.parametrize('value, limits, kept, note', [
    (0, LOOP, 0, None),
    (4, LOOP, 4, None),
    (4096, LOOP, 4096, None),
    (4097, LOOP, 4096, 'read_ahead_kb 4097 is kept by the kernel as 4096 (whole 4 KiB pages)'),
    (5, LOOP, 4, 'read_ahead_kb 5 is kept by the kernel as 4 (whole 4 KiB pages)'),
    (4294967295, LOOP, 4294967292, 'read_ahead_kb 4294967295 is kept by the kernel as 4294967292 (whole 4 KiB pages)'),
    (4097, ARM_64K, 4096, 'read_ahead_kb 4097 is kept by the kernel as 4096 (whole 64 KiB pages)'),
    (100, ARM_64K, 64, 'read_ahead_kb 100 is kept by the kernel as 64 (whole 64 KiB pages)'),
])
def test_read_ahead_kept_in_whole_pages(value, limits, kept, note):
    assert keep('read_ahead_kb', value, limits, 'loop0') == (kept, note, None)


@pytest.mark.parametrize('value, limits, refusal', [
    (1, LOOP, '1 KiB is less than a page: the kernel keeps whole 4 KiB pages, so loop0 would read ahead nothing; '
              'accepted: 0 (off) or 4 and more, in steps of 4'),
    (3, LOOP, '3 KiB is less than a page'),
    (63, ARM_64K, 'accepted: 0 (off) or 64 and more, in steps of 64'),
])
def test_read_ahead_below_a_page_is_refused(value, limits, refusal):
    kept, note, found = keep('read_ahead_kb', value, limits, 'loop0')
    assert (kept, note) == (value, None)
    assert found.startswith(refusal) or found.endswith(refusal), found


@pytest.mark.parametrize('value, limits, kept, note', [
    (4, LOOP, 4, None),
    (6, LOOP, 6, None),
    (1279, LOOP, 1279, None),
    (1280, LOOP, 1280, None),
    (4, LOOP_4K, 4, None),
    (6, LOOP_4K, 4, 'max_sectors_kb 6 is kept by the kernel as 4 (whole 4096-byte logical blocks of loop0)'),
    (7, LOOP_4K, 4, 'max_sectors_kb 7 is kept by the kernel as 4 (whole 4096-byte logical blocks of loop0)'),
    (1279, LOOP_4K, 1276, 'max_sectors_kb 1279 is kept by the kernel as 1276 (whole 4096-byte logical blocks of loop0)'),
    (1280, LOOP_4K, 1280, None),
    (17, LBS_8K, 16, 'max_sectors_kb 17 is kept by the kernel as 16 (whole 8192-byte logical blocks of loop0)'),
    # no figures in sysfs: nothing to round against, nothing to refuse but less than a page
    (4294967295, UNKNOWN, 4294967295, None),
])
def test_max_sectors_rounded_down_to_logical_blocks(value, limits, kept, note):
    assert keep('max_sectors_kb', value, limits, 'loop0') == (kept, note, None)


@pytest.mark.parametrize('value, limits, refusal', [
    (1281, LOOP, '1281 KiB is more than loop0 takes: its max_hw_sectors_kb is 1280; accepted on loop0: 4 (a page) to 1280 '
                 '(its max_hw_sectors_kb)'),
    (5000, LOOP_4K, '5000 KiB is more than loop0 takes: its max_hw_sectors_kb is 1280; accepted on loop0: 4 (a page) to 1280 '
                    '(its max_hw_sectors_kb), kept in steps of 4 (its 4096-byte logical blocks)'),
    (3, LOOP, '3 KiB is less than a page (4 KiB): the kernel refuses it; accepted on loop0: 4 (a page) to 1280 '
              '(its max_hw_sectors_kb)'),
    (32, ARM_64K, '32 KiB is less than a page (64 KiB): the kernel refuses it; accepted on loop0: 64 (a page) to 1280 '
                  '(its max_hw_sectors_kb)'),
    (7, LBS_8K, '7 KiB is less than a page once rounded down to whole 8192-byte logical blocks; accepted on loop0: '
                '4 (a page) to 1280 (its max_hw_sectors_kb), kept in steps of 8 (its 8192-byte logical blocks)'),
])
def test_max_sectors_refused(value, limits, refusal):
    assert keep('max_sectors_kb', value, limits, 'loop0') == (value, None, refusal)


@pytest.mark.parametrize('value, limits, scheduler, refusal', [
    (128, LOOP, 'none', None),
    (127, LOOP, 'none', None),
    (4, LOOP, 'none', None),
    (129, LOOP, 'none', '129 is more than loop0 takes without an I/O scheduler: its hardware queue depth (mq/*/nr_tags) '
                        'is 128; accepted with scheduler none: 4 to 128, with a scheduler (mq-deadline, kyber, bfq): 4 to 2048'),
    (2048, LOOP, 'none', '2048 is more than loop0 takes without an I/O scheduler: its hardware queue depth (mq/*/nr_tags) '
                         'is 128; accepted with scheduler none: 4 to 128, with a scheduler (mq-deadline, kyber, bfq): 4 to 2048'),
    (2048, LOOP, 'mq-deadline', None),
    (2048, LOOP, 'bfq', None),
    (2049, LOOP, 'kyber', '2049 is more than a scheduler takes (2048); accepted on loop0 with scheduler kyber: 4 to 2048'),
    # a legacy or bio-based queue has no tag set: nothing to judge against
    (2048, UNKNOWN, 'none', None),
    (2048, UNKNOWN, None, None),
    (1023, RESERVING, 'none', None),
    (8, RESERVING, 'mq-deadline', '8 is not more than the 8 tags loop0 reserves (mq/*/nr_reserved_tags); accepted: 9 and more'),
])
def test_nr_requests_against_the_scheduler_and_the_tag_set(value, limits, scheduler, refusal):
    assert keep('nr_requests', value, limits, 'loop0', scheduler) == (value, None, refusal)


def test_nr_requests_below_the_minimum_is_raised():
    assert keep('nr_requests', 1, LOOP, 'loop0', 'none') == (4, 'nr_requests 1 is kept by the kernel as 4 (BLKDEV_MIN_RQ)', None)


@pytest.mark.parametrize('setting, value', [('scheduler', 'none'), ('rq_affinity', 2), ('read_ahead_kb', None),
                                            ('read_ahead_kb', '4097'), ('read_ahead_kb', True)])
def test_other_settings_and_values_are_kept_as_they_are(setting, value):
    assert keep(setting, value, LOOP, 'loop0', 'none') == (value, None, None)


@pytest.mark.parametrize('setting, value, kept', [
    ('read_ahead_kb', 4097, 4096),      # a udev rule of 4097 gives 4096 at boot
    ('read_ahead_kb', 1, 1),            # refused: compared as it is
    ('max_sectors_kb', 6, 4),
    ('nr_requests', 2048, 2048),
])
def test_kept_or_same(setting, value, kept):
    assert kept_or_same(setting, value, LOOP_4K, 'loop0', 'mq-deadline') == kept


def test_every_kernel_rule_of_the_table_has_its_function():
    rules = set(QUEUE_SETTINGS[name].get('kernel_rule') for name in SETTINGS) - set([None])
    assert rules == set(queue_limits._RULES)
