# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The block-queue settings iotune manages: one entry per setting; pure data.

Everything else that names these settings comes from QUEUE_SETTINGS: the policy schema
(iotune_block_devices), its validation, the planner's order and messages, the sysfs and udev
readers, the snapshot, the journal's record check, the block_queue module's options and the
documentation (`make schema`). Adding a setting is adding an entry here. Each entry:

* ``sysfs``: the attribute under ``/sys/block/<device>/`` that holds it;
* ``udev``: the ``ATTR{...}`` names a udev rule writes it through (the first is the one iotune writes);
* ``run_words``: words of a ``RUN``/``PROGRAM`` command line that mean it may write the setting;
* ``type``: ``int`` or ``str``; ``minimum``/``maximum`` (ints) or ``choices`` (str); ``unit``;
* ``write_order``: the rank in which the settings of one device are written (lowest first);
* ``reset_by_scheduler``: a scheduler switch sets it anew, so a rollback that restores the
  scheduler restores it after that;
* ``raised_by``: a write of that setting may raise it (Linux 6.18 raises read_ahead_kb to at least twice
  max_sectors_kb on a rotational queue without an optimal_io_size, at every queue-limits update), so the
  writer's journal record keeps it (``resets``), as a scheduler record keeps nr_requests;
* ``device_maximum``: the sysfs queue attribute that caps it on the device, when there is one (the plan reads it
  with parse/sysfs.read_queue_limits and refuses a value above it);
* ``kernel_rule``: how the kernel rounds or refuses a value the schema accepts (plan/queue_limits.py):
  ``whole_pages``, ``logical_blocks`` or ``tag_set``; none: kept as written;
* ``stacked_limit``: a limit stacked from the members (block/blk-settings.c ``blk_stack_limits``): on a
  dm-multipath map it belongs on every path and on the map (plan/stacking.py);
* ``request_queue``: it exists only on a request (blk-mq) queue: a request-based multipath map has its own
  (its paths' are bypassed), a bio-based dm or md device has none (plan/stacking.py);
* ``description``: sentences for the policy and module documentation;
* ``version_added``: the collection release that added it (the block_queue module's option says so), when
  after the first;
* ``accepted``: what the reference table of docs/policy.md says beyond the range;
* ``range_note``: what the block_queue module's message says after the range.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.units import UINT_MAX

# nr_requests above MAX_SCHED_RQ (2 x BLKDEV_DEFAULT_RQ x 8, i.e. 16 x 128) is refused with a
# scheduler, above the depth of the device's tag set (mq/*/nr_tags) without one (plan/queue_limits.py).
MAX_SCHED_RQ = 2048

QUEUE_SETTINGS = {
    'read_ahead_kb': {
        'sysfs': 'queue/read_ahead_kb',
        'udev': ('queue/read_ahead_kb', 'bdi/read_ahead_kb'),
        'run_words': ('read_ahead_kb', '--setra', '--setfra'),
        'type': 'int', 'unit': 'KiB', 'minimum': 0, 'maximum': UINT_MAX,
        'write_order': 4,
        'kernel_rule': 'whole_pages',
        'raised_by': 'max_sectors_kb',
        'description': ['Read-ahead in KiB (C(queue/read_ahead_kb)); 0 turns read-ahead off.',
                        'C(blockdev --setra) counts 512-byte sectors, twice this number.',
                        'The kernel keeps whole pages, so the plan expects, writes and persists the value it keeps (4097 is '
                        '4096 with 4 KiB pages); a value below one page other than 0 gives an V(error) check.'],
        'accepted': '0 turns read-ahead off; kept in whole pages (4097 is 4096 with 4 KiB pages); below a page an error',
        'range_note': 'KiB; 0 turns read-ahead off',
    },
    'max_sectors_kb': {
        'sysfs': 'queue/max_sectors_kb',
        'udev': ('queue/max_sectors_kb',),
        'run_words': ('max_sectors_kb',),
        'type': 'int', 'unit': 'KiB', 'minimum': 4, 'maximum': UINT_MAX,
        'write_order': 3,
        'device_maximum': 'max_hw_sectors_kb',
        'kernel_rule': 'logical_blocks',
        'stacked_limit': True,
        'description': ['Largest request size in KiB (C(queue/max_sectors_kb)), at least a page.',
                        'A value above the device\'s C(max_hw_sectors_kb) or below a page gives an V(error) check.',
                        'The kernel keeps whole logical blocks, so the plan expects, writes and persists the value it keeps '
                        '(6 is 4 on a device of 4096-byte sectors).'],
        'accepted': ('at least a page, at most the device\'s `max_hw_sectors_kb` (else an error); kept in whole logical '
                     'blocks (6 is 4 with 4096-byte sectors)'),
        'range_note': 'KiB, at least one page, at most the device\'s max_hw_sectors_kb',
    },
    'nr_requests': {
        'sysfs': 'queue/nr_requests',
        'udev': ('queue/nr_requests',),
        'run_words': ('nr_requests',),
        'type': 'int', 'unit': 'requests', 'minimum': 4, 'maximum': MAX_SCHED_RQ,
        'write_order': 2,
        # blk-mq gives the queue the new elevator's depth on a switch
        'reset_by_scheduler': True,
        'kernel_rule': 'tag_set',
        'request_queue': True,
        'description': ['Requests allocated per queue (C(queue/nr_requests)), the queue depth of the block layer.',
                        'The kernel raises smaller values than 4 to 4.',
                        'With scheduler V(none) (the policy\'s, else the live one) at most the depth of the device\'s tag set '
                        '(C(mq/*/nr_tags)); more gives an V(error) check.'],
        'accepted': 'with scheduler `none`, at most the depth of the device\'s tag set (`mq/*/nr_tags`), else an error',
        'range_note': 'the kernel raises smaller values to 4 and refuses larger ones',
    },
    'scheduler': {
        'sysfs': 'queue/scheduler',
        'udev': ('queue/scheduler',),
        'run_words': ('scheduler', 'elevator'),
        'type': 'str',
        'choices': ('none', 'mq-deadline', 'kyber', 'bfq', 'deadline', 'cfq', 'noop'),
        # first: a new scheduler reallocates the requests, so nr_requests comes after it
        'write_order': 1,
        'request_queue': True,
        'description': ['I/O scheduler (C(queue/scheduler)); must be one the device offers.',
                        'A scheduler the device does not offer gives an V(error) check naming the ones it offers.'],
        'accepted': 'checked against what the device offers on the host (`deadline`, `cfq`, `noop`: legacy kernels)',
    },
    'rq_affinity': {
        'sysfs': 'queue/rq_affinity',
        'udev': ('queue/rq_affinity',),
        'run_words': ('rq_affinity',),
        'version_added': '1.0.0',
        'type': 'int', 'minimum': 0, 'maximum': 2,
        'write_order': 5,
        'description': ['Which CPU completes a request (C(queue/rq_affinity)); 0 the one its interrupt arrives on, 1 (the kernel '
                        'default) one of the group of the CPU that issued it, 2 that very CPU.'],
        'accepted': '1 is the kernel default',
        'range_note': 'the kernel ignores larger values and refuses negative ones',
    },
    'nomerges': {
        'sysfs': 'queue/nomerges',
        'udev': ('queue/nomerges',),
        'run_words': ('nomerges',),
        'version_added': '1.0.0',
        'type': 'int', 'minimum': 0, 'maximum': 2,
        'write_order': 6,
        'description': ['Which adjacent requests the block layer merges (C(queue/nomerges)); 0 (the kernel default) every '
                        'one it can, 1 only those one lookup finds, 2 none (less CPU per I/O where merging gains nothing).'],
        'accepted': '0 is the kernel default',
        'range_note': 'the kernel keeps any larger value as 1 and refuses negative ones',
    },
}

SETTINGS = tuple(QUEUE_SETTINGS)
INT_SETTINGS = tuple(name for name in SETTINGS if QUEUE_SETTINGS[name]['type'] == 'int')
WRITE_ORDER = tuple(sorted(SETTINGS, key=lambda name: QUEUE_SETTINGS[name]['write_order']))
RESET_BY_SCHEDULER = tuple(name for name in SETTINGS if QUEUE_SETTINGS[name].get('reset_by_scheduler'))


def _resets():
    found = {}
    for name in SETTINGS:
        spec = QUEUE_SETTINGS[name]
        for writer in (('scheduler',) if spec.get('reset_by_scheduler') else ()) + tuple(filter(None, [spec.get('raised_by')])):
            found[writer] = found.get(writer, ()) + (name,)
    return found


# {setting: the settings a write of it resets or raises, whose values its journal record keeps (``resets``)}
RESETS = _resets()
STACKED_LIMITS = tuple(name for name in SETTINGS if QUEUE_SETTINGS[name].get('stacked_limit'))
REQUEST_QUEUE_ONLY = tuple(name for name in SETTINGS if QUEUE_SETTINGS[name].get('request_queue'))
SCHEDULERS = QUEUE_SETTINGS['scheduler']['choices']
# {ATTR{} name a udev rule assigns: setting}
UDEV_ATTRIBUTES = dict((attribute, name) for name in SETTINGS for attribute in QUEUE_SETTINGS[name]['udev'])


def accepted_text(name):
    """What the block_queue module expects of a setting, for its messages: the range and the note, or the choices."""
    setting = QUEUE_SETTINGS[name]
    if 'choices' in setting:
        return 'one of %s' % ', '.join(setting['choices'])
    return 'an integer from %d to %d (%s)' % (setting['minimum'], setting['maximum'], setting['range_note'])
