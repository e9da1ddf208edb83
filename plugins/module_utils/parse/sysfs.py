# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read block-device facts from sysfs; pure, no AnsibleModule.

Every reader takes ``sys_root`` (default ``/sys``) so tests point it at a
fixture tree.  Sysfs in containers is often partial: a missing or unreadable
attribute gives None and never an exception.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import os

from ansible_collections.iotune.storage.plugins.module_utils.common.units import SECTOR_SIZE, parse_int
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.parse import identity as _identity
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import INT_SETTINGS, QUEUE_SETTINGS

# integer queue attributes read as facts besides the settings, with their units
QUEUE_FACTS = {
    'max_hw_sectors_kb': 'KiB',
    'logical_block_size': 'bytes',
    'physical_block_size': 'bytes',
    'minimum_io_size': 'bytes',
    'optimal_io_size': 'bytes',
}
# the queue facts that cap a setting on the device (the table's device_maximum: max_hw_sectors_kb)
DEVICE_MAXIMA = tuple(sorted(set(QUEUE_SETTINGS[name]['device_maximum'] for name in INT_SETTINGS
                                 if QUEUE_SETTINGS[name].get('device_maximum'))))
# {name: attribute under /sys/block/<device>/} of every integer fact: the int settings, then the others
QUEUE_INT_ATTRS = dict([(name, QUEUE_SETTINGS[name]['sysfs']) for name in INT_SETTINGS]
                       + [(name, 'queue/' + name) for name in QUEUE_FACTS])


def read_attr(path, errors=None):
    """Stripped text of a sysfs attribute, or None when missing or unreadable.

    A missing attribute is normal (kernels and drivers differ); any other
    failure is appended to ``errors``."""
    text = read_text(path, errors, missing_ok=True)
    return None if text is None else text.strip()


def read_int(path, errors=None):
    """Int value of a sysfs attribute, or None (a non-integer is reported in ``errors``)."""
    text = read_attr(path, errors)
    value = parse_int(text)
    if value is None and text is not None and errors is not None:
        errors.append('%s: not an integer: %r' % (path, text))
    return value


def read_binary(path, errors=None):
    """Bytes of a binary sysfs attribute (``device/vpd_pg83``), or None when missing or unreadable."""
    try:
        with open(path, 'rb') as handle:
            return handle.read()
    except (IOError, OSError) as exc:
        if errors is not None and getattr(exc, 'errno', None) != errno.ENOENT:
            errors.append('cannot read %s: %s' % (path, exc.strerror or exc))
        return None


def read_udev_env(db_dir, devno, errors=None):
    """The udev properties of block device ``MAJ:MIN`` from the udev database ``db_dir``; {} when
    there is no record (no udev, a container, ``db_dir`` None)."""
    if not db_dir or not devno:
        return {}
    return _identity.parse_udev_env(read_text(os.path.join(db_dir, 'b%s' % devno), errors, missing_ok=True))


def read_bool(path, errors=None):
    """Bool value of a 0/1 sysfs attribute, or None."""
    value = read_int(path, errors)
    if value is None:
        return None
    return value != 0


def list_dir(path):
    """Sorted entry names of a directory, [] when missing or unreadable."""
    try:
        return sorted(os.listdir(path))
    except (IOError, OSError):
        return []


def parse_scheduler(text):
    """Parse queue/scheduler text: returns (active, available list).

    ``none [mq-deadline] kyber bfq`` -> ``('mq-deadline', ['none', 'mq-deadline',
    'kyber', 'bfq'])``.  A single name without brackets (``none`` on some
    devices) is the active one.  (None, []) for None or empty text."""
    if not text:
        return None, []
    active = None
    available = []
    for word in text.split():
        if word.startswith('[') and word.endswith(']'):
            word = word[1:-1]
            active = word
        available.append(word)
    if active is None and len(available) == 1:
        active = available[0]
    return active, available


def block_dir(sys_root, name):
    """The real sysfs directory of block device or partition ``name``, or None."""
    for candidate in (os.path.join(sys_root, 'class', 'block', name), os.path.join(sys_root, 'block', name)):
        if os.path.isdir(candidate):
            return os.path.realpath(candidate)
    # partitions are subdirectories of their disk under /sys/block
    for disk in list_dir(os.path.join(sys_root, 'block')):
        candidate = os.path.join(sys_root, 'block', disk, name)
        if os.path.isfile(os.path.join(candidate, 'partition')):
            return os.path.realpath(candidate)
    return None


def is_partition_dir(path):
    """True when the sysfs directory ``path`` is a partition."""
    return os.path.isfile(os.path.join(path, 'partition'))


def partitions_of(disk_dir):
    """Kernel names of the partitions of a disk directory, by partition number."""
    found = []
    for child in list_dir(disk_dir):
        child_dir = os.path.join(disk_dir, child)
        if is_partition_dir(child_dir):
            number = read_int(os.path.join(child_dir, 'partition'))
            found.append((number if number is not None else 0, child))
    return [name for dummy, name in sorted(found)]


def _first_attr(dev_dir, *relative_paths):
    for relative in relative_paths:
        value = read_attr(os.path.join(dev_dir, relative))
        if value:
            return value
    return None


def read_identities(dev_dir, env, errors=None):
    """Every identity of the sysfs directory ``dev_dir`` with the udev properties ``env``: {wwid (the sysfs
    text as it is), wwns (normalised real WWNs, the one io_facts reports first), wwid_forms (each ``wwid``
    text a kernel may show for it, from ``device/vpd_pg83``), serials (the one io_facts reports first,
    udev's long ID_SERIAL last)}."""
    wwid = _first_attr(dev_dir, 'device/wwid', 'wwid')
    vpd_pg83 = read_binary(os.path.join(dev_dir, 'device', 'vpd_pg83'), errors)
    vpd_pg80 = read_binary(os.path.join(dev_dir, 'device', 'vpd_pg80'), errors)
    sysfs_serials = [read_attr(os.path.join(dev_dir, relative)) for relative in ('device/serial', 'serial')]
    return {
        'wwid': wwid,
        'wwns': _identity.wwn_candidates(wwid, vpd_pg83, env),
        'wwid_forms': _identity.kernel_wwid_forms(vpd_pg83),
        'serials': _identity.serial_candidates(vpd_pg80, sysfs_serials, env),
        'serial': _identity.reported_serial(vpd_pg80, sysfs_serials, env),
    }


def identity_facts(dev_dir, env, errors=None):
    """type, dm_uuid, wwid (the sysfs text as it is), wwn (a real WWN, normalised), serial, model, vendor,
    revision and dm_name of the sysfs directory ``dev_dir``, with the udev properties ``env`` ({} without
    udev); see parse/identity.py for the sources and their order."""
    ids = read_identities(dev_dir, env, errors)
    dm_uuid = _first_attr(dev_dir, 'dm/uuid')
    mpath_wwid = _identity.multipath_wwid(dm_uuid)
    if mpath_wwid and not ids['wwid']:
        # a multipath map carries its LUN's WWID in its dm uuid, and no wwid file of its own
        ids['wwid'] = mpath_wwid
        ids['wwns'] = [wwn for wwn in [_identity.scsi_id_wwn(mpath_wwid)] if wwn]
    return {
        'type': _identity.device_type(os.path.basename(dev_dir), is_partition_dir(dev_dir), dm_uuid,
                                      _first_attr(dev_dir, 'md/level'), read_int(os.path.join(dev_dir, 'device', 'type'))),
        'dm_uuid': dm_uuid,
        'wwid': ids['wwid'],
        'wwn': ids['wwns'][0] if ids['wwns'] else None,
        'serial': ids['serial'],
        'model': _identity.model_name(_first_attr(dev_dir, 'device/model'), env),
        'vendor': _identity.normalize_whitespace(_first_attr(dev_dir, 'device/vendor')),
        'revision': _identity.normalize_whitespace(env.get('ID_REVISION') or _first_attr(dev_dir, 'device/rev')),
        'dm_name': _first_attr(dev_dir, 'dm/name'),
    }


def read_tag_set(dev_dir, errors=None):
    """{nr_tags, nr_reserved_tags} of the blk-mq tag set behind the sysfs directory ``dev_dir``: its
    hardware contexts' ``mq/<n>/nr_tags`` (the depth nr_requests may reach without an I/O scheduler, the
    least of them) and ``mq/<n>/nr_reserved_tags`` (the most of them); None where the device has no
    ``mq`` directory (a legacy or a bio-based queue) or the files cannot be read."""
    contexts = [os.path.join(dev_dir, 'mq', context) for context in list_dir(os.path.join(dev_dir, 'mq'))]
    tags = [value for value in (read_int(os.path.join(context, 'nr_tags'), errors) for context in contexts) if value is not None]
    reserved = [value for value in (read_int(os.path.join(context, 'nr_reserved_tags'), errors) for context in contexts)
                if value is not None]
    return {'nr_tags': min(tags) if tags else None, 'nr_reserved_tags': max(reserved) if reserved else None}


def read_queue_limits(sys_root, name, page_size=None, errors=None, info=None):
    """What the kernel checks a queue value against on block device ``name``: ``page_size`` (bytes; None
    reads the host's, ``os.sysconf``), ``logical_block_size`` (bytes), ``max_hw_sectors_kb`` and the tag set
    (read_tag_set); a value sysfs does not give is None. ``info``: the device's read_block_device, whose
    queue facts are taken rather than read again."""
    dev_dir = os.path.join(sys_root, 'block', name)
    limits = {'page_size': page_size if page_size is not None else os.sysconf('SC_PAGE_SIZE')}
    for fact in ('logical_block_size',) + DEVICE_MAXIMA:
        limits[fact] = info.get(fact) if info is not None else read_int(os.path.join(dev_dir, QUEUE_INT_ATTRS[fact]), errors)
    limits.update(read_tag_set(dev_dir, errors))
    return limits


def read_block_device(sys_root, name, errors=None, udev_db_dir=None):
    """Facts of one /sys/block entry (see read_block_devices)."""
    dev_dir = os.path.join(sys_root, 'block', name)
    queue = os.path.join(dev_dir, 'queue')
    info = {}
    for fact, attribute in QUEUE_INT_ATTRS.items():
        info[fact] = read_int(os.path.join(dev_dir, attribute), errors)
    scheduler = os.path.join(dev_dir, QUEUE_SETTINGS['scheduler']['sysfs'])
    info['scheduler'], info['schedulers'] = parse_scheduler(read_attr(scheduler, errors))
    info['rotational'] = read_bool(os.path.join(queue, 'rotational'), errors)
    sectors = read_int(os.path.join(dev_dir, 'size'), errors)
    info['size_bytes'] = sectors * SECTOR_SIZE if sectors is not None else None
    info['dev'] = read_attr(os.path.join(dev_dir, 'dev'), errors)
    info['ro'] = read_bool(os.path.join(dev_dir, 'ro'), errors)
    info['removable'] = read_bool(os.path.join(dev_dir, 'removable'), errors)
    info['parents'] = list_dir(os.path.join(dev_dir, 'slaves'))
    info['holders'] = list_dir(os.path.join(dev_dir, 'holders'))
    info['partitions'] = partitions_of(dev_dir)
    info.update(identity_facts(dev_dir, read_udev_env(udev_db_dir, info['dev'], errors), errors))
    return info


def read_block_devices(sys_root='/sys', errors=None, udev_db_dir=None):
    """Facts of every entry of ``<sys_root>/block``, keyed by kernel name.

    Each value: the integer queue attributes (QUEUE_INT_ATTRS: the int settings
    of the queue table, then QUEUE_FACTS), scheduler (active), schedulers
    (list), rotational, ro, removable (bools), size_bytes (sysfs size is
    always in 512-byte sectors), dev ("MAJ:MIN"), parents (slaves/), holders
    (holders/), partitions, and identity_facts' type, dm_uuid, wwid, wwn, serial, model, vendor,
    revision, dm_name (text), with the udev properties of ``udev_db_dir`` (None: sysfs only).
    Anything missing or unreadable is None; failures other than a missing attribute are appended to ``errors``.
    """
    top = os.path.join(sys_root, 'block')
    try:
        names = sorted(os.listdir(top))
    except (IOError, OSError) as exc:
        if errors is not None:
            errors.append('cannot list %s: %s' % (top, exc))
        return {}
    devices = {}
    for name in names:
        if errors is not None and not os.path.isdir(os.path.join(top, name, 'queue')):
            errors.append('%s: no queue directory (partial sysfs?)' % os.path.join(top, name))
        devices[name] = read_block_device(sys_root, name, errors, udev_db_dir)
    return devices


def resolve_devno(sys_root, major, minor):
    """Resolve a device number through ``<sys_root>/dev/block/MAJ:MIN``.

    Returns (disk, partition): the /sys/block name backing it and the partition
    name (None unless it is a partition); (None, None) when the number is not
    a block device known to sysfs (tmpfs, nfs, overlay, btrfs anonymous ...).
    """
    link = os.path.join(sys_root, 'dev', 'block', '%d:%d' % (major, minor))
    if not os.path.isdir(link):
        return None, None
    return split_partition(os.path.realpath(link))


def split_partition(path):
    """(disk, partition) names for a real sysfs block directory."""
    name = os.path.basename(path)
    if is_partition_dir(path):
        return os.path.basename(os.path.dirname(path)), name
    return name, None


def _linked_block_name(path):
    """The block device (a partition's own name) a sysfs link ``path`` points to, or None."""
    try:
        target = os.path.realpath(path)
    except (IOError, OSError):
        return None
    return os.path.basename(target) if os.path.isfile(os.path.join(target, 'dev')) else None


def filesystem_members(sys_root, name):
    """Kernel names of all the devices of the multi-device file system block device ``name`` belongs to,
    sorted; [] when sysfs lists none.

    bcachefs: ``<device>/bcachefs`` links to ``/sys/fs/bcachefs/<uuid>/dev-N``, whose ``block`` links
    back to each member; btrfs: ``/sys/fs/btrfs/<fsid>/devices/<name>``."""
    path = block_dir(sys_root, name)
    groups = []
    if path and os.path.isdir(os.path.join(path, 'bcachefs')):
        fs_dir = os.path.dirname(os.path.realpath(os.path.join(path, 'bcachefs')))
        groups.append([os.path.join(fs_dir, member, 'block') for member in list_dir(fs_dir) if member.startswith('dev-')])
    btrfs = os.path.join(sys_root, 'fs', 'btrfs')
    for fsid in list_dir(btrfs):
        devices = os.path.join(btrfs, fsid, 'devices')
        if name in list_dir(devices):
            groups.append([os.path.join(devices, member) for member in list_dir(devices)])
    found = set()
    for links in groups:
        found.update(member for member in (_linked_block_name(link) for link in links) if member)
    return sorted(found)


def backing_disks(sys_root, name):
    """Leaf disks under ``name``, walking slaves/ through dm and md devices.

    A partition counts as its disk.  Returns a sorted list of /sys/block names;
    [name's disk] when it has no slaves."""
    leaves = set()
    seen = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        path = block_dir(sys_root, current)
        slaves = list_dir(os.path.join(path, 'slaves')) if path else []
        if slaves:
            pending.extend(slaves)
        elif path is not None:
            leaves.add(split_partition(path)[0])
        else:
            leaves.add(current)
    return sorted(leaves)
