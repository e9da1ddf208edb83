# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a block-queue setting belongs on a stacked device; pure, reads sysfs only (sys_root parameter).

What the kernel does, and where it says so:

* read-ahead: a file system on a dm or md device reads ahead with that device's own
  ``read_ahead_kb`` (the bdi of its gendisk), never its members'; LVM sets an LV's own
  (``lvchange -r``) and md computes its own at assembly (drivers/md/raid*.c, "read-ahead ... size").
  Documentation/ABI/stable/sysfs-block (``queue/read_ahead_kb``); block/blk-settings.c
  ``blk_apply_bdi_limits`` sets ``bdi->ra_pages`` per queue.
* limits: a dm table's limits are stacked from its targets' devices
  (drivers/md/dm-table.c ``dm_calculate_queue_limits`` → block/blk-settings.c ``blk_stack_limits``,
  which starts from ``blk_set_stacking_limits``, "Inherit limits from component devices"), so a
  map's ``max_hw_sectors_kb`` is the smallest of its paths' and ``max_sectors_kb`` above it is
  refused (EINVAL, block/blk-sysfs.c ``queue_max_sectors_store``).  A request-based multipath map
  (drivers/md/dm-mpath.c, ``DM_TYPE_REQUEST_BASED``/``DM_TYPE_MQ_REQUEST_BASED``) clones each of its
  requests onto a path's own request queue (``multipath_clone_and_map``), where that path's
  ``max_sectors_kb`` applies: so ``max_sectors_kb`` belongs on every path and on the map (the paths
  first when raising, the map first when lowering).  The clone bypasses the path's scheduler
  (block/blk-mq.c ``blk_insert_cloned_request``: "Since we have a scheduler attached on the top
  device, bypass a potential scheduler on the bottom device for insert"), so the scheduler and
  ``nr_requests`` that I/O through the map meets are the map's own (seen on Linux 6.1: the map has
  ``[mq-deadline] none`` and ``nr_requests`` 256 of its own).
* bio-based dm (linear, LVM, crypt) and md have no request queue: ``queue/scheduler`` reads ``none``
  and ``queue/nr_requests`` is refused (block/blk-sysfs.c ``queue_requests_store``: EINVAL unless
  ``queue_is_mq``); I/O is scheduled on the leaf disks.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.parse import sysfs as _sysfs
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import REQUEST_QUEUE_ONLY, STACKED_LIMITS

DISK, PARTITION, MPATH, MPATH_PATH, LVM, CRYPT, DM, MD, LOOP = (
    'disk', 'partition', 'multipath map', 'multipath path', 'LVM LV', 'dm-crypt', 'device-mapper', 'md', 'loop')
BIO_BASED = (LVM, CRYPT, DM, MD)
_DM_KINDS = (('mpath-', MPATH), ('LVM-', LVM), ('CRYPT-', CRYPT))


def dm_uuid(sys_root, name):
    return _sysfs.read_attr(os.path.join(sys_root, 'block', name, 'dm', 'uuid')) or ''


def classify(sys_root, name):
    """The kind of the /sys/block entry (or partition) ``name``: one of the constants above."""
    path = _sysfs.block_dir(sys_root, name)
    if path is None:
        return DISK
    if _sysfs.is_partition_dir(path):
        return PARTITION
    if os.path.isdir(os.path.join(path, 'dm')) or name.startswith('dm-'):
        uuid = dm_uuid(sys_root, name)
        for prefix, kind in _DM_KINDS:
            if uuid.startswith(prefix):
                return kind
        return DM
    if os.path.isdir(os.path.join(path, 'md')) or name.startswith('md'):
        return MD
    if name.startswith('loop'):
        return LOOP
    if multipath_map_of(sys_root, name):
        return MPATH_PATH
    return DISK


def multipath_map_of(sys_root, name):
    """The dm multipath map holding ``name`` (a path), or None."""
    for holder in _sysfs.list_dir(os.path.join(sys_root, 'block', name, 'holders')):
        if dm_uuid(sys_root, holder).startswith('mpath-'):
            return holder
    return None


def paths_of(sys_root, name):
    """The path devices of multipath map ``name``, sorted."""
    return sorted(_sysfs.list_dir(os.path.join(sys_root, 'block', name, 'slaves')))


def collapse_paths(sys_root, names):
    """``names`` with each multipath path replaced by its map (a WWN or serial is shared by the map and
    all its paths: the match means the LUN, whose I/O goes through the map); and a note or None."""
    result, folded = [], {}
    for name in names:
        mpath = multipath_map_of(sys_root, name)
        if mpath:
            folded.setdefault(mpath, []).append(name)
            name = mpath
        if name not in result:
            result.append(name)
    notes = ['%s %s paths of multipath map %s (%s): the match selects the map' % (
        ', '.join(paths), 'is a' if len(paths) == 1 else 'are the', mpath, dm_uuid(sys_root, mpath))
        for mpath, paths in sorted(folded.items())]
    return result, notes


def placements(sys_root, name, setting):
    """Where ``setting`` asked of device ``name`` goes: ``(targets, problem)``; ``targets`` is a list of
    ``(device, reason)`` in order (reason: None when it is the device itself, plain); ``problem`` is a
    sentence when the setting applies to no device of the stack."""
    kind = classify(sys_root, name)
    if kind == MPATH:
        paths = paths_of(sys_root, name)
        if setting in STACKED_LIMITS:
            return ([(path, 'a path of multipath map %s, whose limit cannot pass its paths\'' % name) for path in paths]
                    + [(name, 'the multipath map, stacked on %s' % ', '.join(paths))]), None
        if setting in REQUEST_QUEUE_ONLY:
            return [(name, 'a request-based multipath map schedules its requests itself; its paths\' schedulers '
                           'are bypassed')], None
        return [(name, 'I/O through multipath map %s uses its own %s' % (name, setting))], None
    if kind in BIO_BASED and setting in REQUEST_QUEUE_ONLY:
        leaves = _sysfs.backing_disks(sys_root, name)
        return [], ('%s does not apply to %s (%s, bio-based: no request queue of its own); I/O through it is '
                    'queued on %s: set it there' % (setting, name, kind, ', '.join(leaves) or 'its members'))
    if kind in BIO_BASED and setting == 'read_ahead_kb':
        return [(name, 'I/O through %s (%s) uses its own read-ahead, not its members\'' % (name, kind))], None
    return [(name, None)], None


def order_writes(changes, sys_root):
    """Sysfs changes in write order, with a multipath map's stacked limit (max_sectors_kb) after its paths' when raising and
    before them when lowering (a map's value cannot pass a path's at any moment)."""
    ordered = list(changes)
    for change in changes:
        if change['setting'] not in STACKED_LIMITS or classify(sys_root, change['target']) != MPATH:
            continue
        paths = set(paths_of(sys_root, change['target']))
        index = ordered.index(change)
        ordered.remove(change)
        positions = [i for i, other in enumerate(ordered) if other['setting'] == change['setting'] and other['target'] in paths]
        raising = isinstance(change['before'], int) and change['after'] > change['before']
        if not positions:
            at = index
        else:
            at = positions[-1] + 1 if raising else positions[0]
        ordered.insert(at, change)
    return ordered
