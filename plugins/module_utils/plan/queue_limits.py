# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the kernel keeps of a block-queue value, or why it refuses it; pure, no AnsibleModule (issue 38).

A write the kernel rounds reads back another number, and one it refuses fails with EINVAL: either
way an enforcing run failed at apply time, after other concerns had changed.  The planner asks
keep() first, with the device's figures (parse/sysfs.read_queue_limits), and then expects, writes
and persists the value the kernel keeps, or makes the refusal an error check before any change.
The rules (block/blk-sysfs.c, blk-settings.c and blk-mq.c; seen on Linux 6.18 loop devices):

* read_ahead_kb is kept in whole pages (``ra_pages = ra_kb >> (PAGE_SHIFT - 10)``): 4097 reads back
  4096, 4294967295 reads back 4294967292.  Below one page, but not 0, the kernel would turn
  read-ahead off: refused here rather than kept as 0.
* max_sectors_kb below a page is refused (EINVAL); above the device's max_hw_sectors_kb it is refused
  by older kernels and capped by newer ones (both refused here: the device cannot do it); the rest is
  rounded down to whole logical blocks (6 on a 4096-byte-sector device reads back 4).
* nr_requests below BLKDEV_MIN_RQ (4) is raised to 4 (the policy's minimum); with an I/O scheduler
  it may reach MAX_SCHED_RQ (2048), without one (``none``) only the depth of the device's tag set,
  which sysfs shows as ``mq/<n>/nr_tags``; at most the reserved tags (``mq/<n>/nr_reserved_tags``) is
  refused.  It is judged against the scheduler the device has when it is written: the policy's,
  since the scheduler is written first (a switch resets nr_requests), else the live one.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.units import SECTOR_SIZE
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import MAX_SCHED_RQ, QUEUE_SETTINGS

BLKDEV_MIN_RQ = 4


def keep(setting, value, limits, device, scheduler=None):
    """(the value the kernel keeps of ``value``, a sentence when it differs, a refusal or None).

    ``limits``: parse/sysfs.read_queue_limits of ``device``; ``scheduler``: the one the device has when
    the value is written.  A figure sysfs does not give is not checked.  The refusal names the device,
    its figure and the accepted range; the caller puts the field in front."""
    rule = _RULES.get(QUEUE_SETTINGS.get(setting, {}).get('kernel_rule'))
    if rule is None or isinstance(value, bool) or not isinstance(value, int):
        return value, None, None
    return rule(value, limits, device, scheduler)


def kept_or_same(setting, value, limits, device, scheduler=None):
    """The value the kernel keeps, or ``value`` itself when it would refuse it (a udev rule's value)."""
    kept, dummy, refusal = keep(setting, value, limits, device, scheduler)
    return value if refusal else kept


def _page_kb(limits):
    return max(1, (limits.get('page_size') or 4096) // 1024)


def _read_ahead(value, limits, device, scheduler):
    page_kb = _page_kb(limits)
    kept = value // page_kb * page_kb
    if kept == value:
        return value, None, None
    if kept == 0:
        return value, None, ('%d KiB is less than a page: the kernel keeps whole %d KiB pages, so %s would read ahead '
                             'nothing; accepted: 0 (off) or %d and more, in steps of %d' % (value, page_kb, device, page_kb, page_kb))
    return kept, 'read_ahead_kb %d is kept by the kernel as %d (whole %d KiB pages)' % (value, kept, page_kb), None


def _max_sectors(value, limits, device, scheduler):
    page_kb = _page_kb(limits)
    hw_kb = limits.get('max_hw_sectors_kb')
    block = limits.get('logical_block_size') or SECTOR_SIZE
    accepted = 'accepted on %s: %d (a page) to %s%s' % (
        device, page_kb, hw_kb if hw_kb is not None else 'its max_hw_sectors_kb',
        ' (its max_hw_sectors_kb)' if hw_kb is not None else '')
    if block > 1024:
        accepted += ', kept in steps of %d (its %d-byte logical blocks)' % (block // 1024, block)
    if value < page_kb:
        return value, None, '%d KiB is less than a page (%d KiB): the kernel refuses it; %s' % (value, page_kb, accepted)
    if hw_kb is not None and value > hw_kb:
        return value, None, '%d KiB is more than %s takes: its max_hw_sectors_kb is %d; %s' % (value, device, hw_kb, accepted)
    sectors_per_block = max(1, block // SECTOR_SIZE)
    kept = value * 2 // sectors_per_block * sectors_per_block // 2
    if kept < page_kb:
        return value, None, '%d KiB is less than a page once rounded down to whole %d-byte logical blocks; %s' % (
            value, block, accepted)
    if kept == value:
        return value, None, None
    return kept, 'max_sectors_kb %d is kept by the kernel as %d (whole %d-byte logical blocks of %s)' % (
        value, kept, block, device), None


def _nr_requests(value, limits, device, scheduler):
    kept = max(value, BLKDEV_MIN_RQ)
    depth, reserved = limits.get('nr_tags'), limits.get('nr_reserved_tags') or 0
    if scheduler == 'none' and depth is not None and kept > depth:
        return value, None, ('%d is more than %s takes without an I/O scheduler: its hardware queue depth '
                             '(mq/*/nr_tags) is %d; accepted with scheduler none: %d to %d, with a scheduler '
                             '(mq-deadline, kyber, bfq): %d to %d' % (value, device, depth, max(BLKDEV_MIN_RQ, reserved + 1),
                                                                      depth, max(BLKDEV_MIN_RQ, reserved + 1), MAX_SCHED_RQ))
    if scheduler not in (None, 'none') and depth is not None and kept > MAX_SCHED_RQ:
        return value, None, '%d is more than a scheduler takes (%d); accepted on %s with scheduler %s: %d to %d' % (
            value, MAX_SCHED_RQ, device, scheduler, max(BLKDEV_MIN_RQ, reserved + 1), MAX_SCHED_RQ)
    if kept <= reserved:
        return value, None, '%d is not more than the %d tags %s reserves (mq/*/nr_reserved_tags); accepted: %d and more' % (
            value, reserved, device, reserved + 1)
    if kept == value:
        return value, None, None
    return kept, 'nr_requests %d is kept by the kernel as %d (BLKDEV_MIN_RQ)' % (value, kept), None


# the table's kernel_rule: its function
_RULES = {'whole_pages': _read_ahead, 'logical_blocks': _max_sectors, 'tag_set': _nr_requests}
