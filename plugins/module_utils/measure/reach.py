# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a measurement's I/O reached (docs/benchmark.md, "What was measured"): a device that keeps the
data, or memory that answers for it.

From the target: a file system that lives in memory (tmpfs, ramfs), an overlay (followed to its upper
layer), a RAM disk (zram, brd), a loop device without direct I/O (its backing file's pages are in the
host's page cache: ``/sys/block/loopN/loop/dio`` is 0), a loop device whose backing file is itself on
such a target, and device-mapper or MD devices over any of these (followed through ``slaves/``).

From the figures (``figure_reasons``): a read that ran several times faster in one repeat than the
median of its repeats, a buffered sequential read faster than the direct one of the same run, a direct read whose
median completion latency is below what a device of its kind can answer in.

``classify_*`` read sysfs and the mount table (bounded, no link followed outside sysfs); the figure
checks are pure."""

from __future__ import (absolute_import, division, print_function)

import os
import re
import stat

from ansible_collections.iotune.storage.plugins.module_utils.common.units import format_bytes_rate
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import mount_entry_of
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysfs import block_dir, list_dir, read_attr, resolve_devno

DEVICE = 'device'
MEMORY = 'memory'
UNKNOWN = 'unknown'
MEDIA = (DEVICE, MEMORY, UNKNOWN)

MEMORY_FILESYSTEMS = ('tmpfs', 'ramfs', 'devtmpfs', 'hugetlbfs', 'shm')
NETWORK_FILESYSTEMS = ('nfs', 'nfs4', 'cifs', 'smb3', 'ceph', 'glusterfs', 'fuse.sshfs', '9p', 'virtiofs')
_RAM_DISK_RE = re.compile(r'^(zram\d+|ram\d+)$')
MAX_DEPTH = 8

GENERIC_FIX = 'measure a file system on a real disk, or a file larger than twice the RAM'
# a measurement this many times faster than the median of the same I/O's measurements did not come from the same
# device: memory answered it. Against the median, not the slowest: a busy host stalls a lab VM under TCG several
# times over (an A/A search beside image builds spread 6x), which makes slow outliers, not fast ones
REPEAT_SPEEDUP = 4.0
MIN_SAMPLES = 3
# a buffered sequential read this many times faster than the direct sequential read of the same run read memory
BUFFERED_OVER_DIRECT = 2.0
# the median completion latency of a direct read below which no device of the kind answers (ns): a rotating
# disk's track cache answers in tens of microseconds, the fastest flash in about ten
LATENCY_FLOOR_NS = {'rotational': 20000, 'solid-state': 5000}


def reached(medium, reasons=(), fix=None, device=None, chain=()):
    """The shape every measurement carries: {medium, reasons, fix, device, chain}."""
    return {'medium': medium, 'reasons': list(reasons), 'fix': fix, 'device': device, 'chain': list(chain)}


def _option(entry, name):
    for item in entry['super_options'] + entry['mount_options']:
        key, sep, value = item.partition('=')
        if sep and key == name:
            return value
    return None


def classify_path(path, sys_root='/sys', proc_root='/proc', depth=0):
    """What I/O on a file at ``path`` (an existing file or directory) reaches."""
    try:
        info = os.stat(path)
        entry = mount_entry_of(path, proc_root)
    except OSError as exc:
        return reached(UNKNOWN, ['%s: %s' % (path, exc.strerror)], GENERIC_FIX)
    fstype = entry['fstype'] if entry else None
    where = '%s is on %s' % (path, entry['mount_point']) if entry else path
    if fstype in MEMORY_FILESYSTEMS:
        return reached(MEMORY, ['%s, a %s file system: it lives in memory' % (where, fstype)], GENERIC_FIX)
    if fstype == 'overlay':
        upper = _option(entry, 'upperdir')
        if upper and depth < MAX_DEPTH and os.path.isdir(upper):
            found = classify_path(upper, sys_root, proc_root, depth + 1)
            found['reasons'] = ['%s, an overlay whose upper layer %s: %s' % (where, upper, reason) for reason in found['reasons']]
            return found
        return reached(UNKNOWN, ['%s, an overlay whose upper layer cannot be followed' % where], GENERIC_FIX)
    if fstype in NETWORK_FILESYSTEMS:
        return reached(UNKNOWN, ['%s, a %s file system: the server and its caches answer, not a local device' % (where, fstype)],
                       GENERIC_FIX)
    disk, dummy = resolve_devno(sys_root, os.major(info.st_dev), os.minor(info.st_dev))
    if disk is None and entry and entry['source'].startswith('/dev/'):
        # btrfs and others give their files an anonymous device number: the mount's source names the device
        try:
            source = os.stat(entry['source'])
            if stat.S_ISBLK(source.st_mode):
                disk, dummy = resolve_devno(sys_root, os.major(source.st_rdev), os.minor(source.st_rdev))
        except OSError:
            pass
    if disk is None:
        return reached(UNKNOWN, ['%s (%s): no block device under it' % (where, fstype or 'unknown type')], GENERIC_FIX)
    return classify_device(disk, sys_root, proc_root, depth + 1)


def classify_device(name, sys_root='/sys', proc_root='/proc', depth=0):
    """What I/O on block device ``name`` (a kernel name; a partition counts as its disk) reaches."""
    path = block_dir(sys_root, name)
    if path is not None and os.path.isfile(os.path.join(path, 'partition')):
        name, path = os.path.basename(os.path.dirname(path)), os.path.dirname(path)
    if _RAM_DISK_RE.match(name):
        return reached(MEMORY, ['%s is a RAM disk (%s)' % (name, 'zram' if name.startswith('zram') else 'brd')], GENERIC_FIX,
                       device=name, chain=[name])
    if path is None or depth > MAX_DEPTH:
        return reached(UNKNOWN, ['%s: not found in %s/block' % (name, sys_root)], GENERIC_FIX, device=name, chain=[name])
    if name.startswith('loop'):
        return _classify_loop(name, path, sys_root, proc_root, depth)
    slaves = sorted(list_dir(os.path.join(path, 'slaves')))
    if not slaves:
        return reached(DEVICE, device=name, chain=[name])
    below = [classify_device(slave, sys_root, proc_root, depth + 1) for slave in slaves]
    chain = [name] + [part for found in below for part in found['chain']]
    for medium in (MEMORY, UNKNOWN):
        hit = [found for found in below if found['medium'] == medium]
        if hit:
            return reached(medium, ['%s is over %s' % (name, reason) for found in hit for reason in found['reasons']],
                           hit[0]['fix'], device=name, chain=chain)
    return reached(DEVICE, device=name, chain=chain)


def _classify_loop(name, path, sys_root, proc_root, depth):
    dio = read_attr(os.path.join(path, 'loop', 'dio'))
    backing = read_attr(os.path.join(path, 'loop', 'backing_file'))
    if backing is None:
        return reached(UNKNOWN, ['%s is a loop device with no backing file' % name], GENERIC_FIX, device=name, chain=[name])
    deleted = backing.endswith(' (deleted)')
    if dio != '1':
        return reached(MEMORY, ['%s reads its backing file %s through the host\'s page cache (direct I/O off: %s/block/%s/loop/dio '
                                'is %s)' % (name, backing, sys_root, name, dio)],
                       'losetup --direct-io=on /dev/%s (with its backing file on a real disk), a file larger than twice the '
                       'RAM, or a real disk' % name, device=name, chain=[name])
    if deleted or not os.path.exists(backing):
        return reached(UNKNOWN, ['%s\'s backing file %s cannot be looked at' % (name, backing)], GENERIC_FIX, device=name,
                       chain=[name])
    below = classify_path(backing, sys_root, proc_root, depth + 1)
    if below['medium'] == DEVICE:
        return reached(DEVICE, device=name, chain=[name] + below['chain'])
    return reached(below['medium'], ['%s (direct I/O on) reads its backing file %s: %s' % (name, backing, reason)
                                     for reason in below['reasons']], below['fix'], device=name, chain=[name] + below['chain'])


def classify_target(target, sys_root='/sys', proc_root='/proc'):
    """What I/O on ``target`` (a directory or file, or a block device node) reaches."""
    try:
        info = os.stat(target)
    except OSError as exc:
        return reached(UNKNOWN, ['%s: %s' % (target, exc.strerror)], GENERIC_FIX)
    if stat.S_ISBLK(info.st_mode):
        disk, dummy = resolve_devno(sys_root, os.major(info.st_rdev), os.minor(info.st_rdev))
        return classify_device(disk or os.path.basename(target), sys_root, proc_root)
    return classify_path(target, sys_root, proc_root)


def rotational(sys_root, chain):
    """'rotational' when the last device of ``chain`` (the one that keeps the data) says so, else 'solid-state'."""
    for name in reversed(chain or ()):
        path = block_dir(sys_root, name)
        if path is not None:
            return 'rotational' if read_attr(os.path.join(path, 'queue', 'rotational')) == '1' else 'solid-state'
    return 'solid-state'


# --------------------------------------------------------------------------- the figures

def fast_outlier(values):
    """(the fastest, the median) when the fastest of three or more measurements of one I/O is REPEAT_SPEEDUP times the
    median or more (memory answered it), else None."""
    values = sorted(value for value in values if value)
    if len(values) < MIN_SAMPLES:
        return None
    middle = len(values) // 2
    median = values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2.0
    return (values[-1], median) if values[-1] >= REPEAT_SPEEDUP * median else None


def figure_reasons(jobs, kind='solid-state'):
    """{job name: [reasons]} for the figures of one run no device gives. ``jobs``: dicts with ``name``, ``rw``,
    ``direct``, ``read`` (medians: bw_bytes, clat_p50_ns) and ``read_bw_samples`` (bytes/s of each repeat).
    ``kind``: 'rotational' or 'solid-state', for the latency floor."""
    found = {}
    cold = [job['read']['bw_bytes'] for job in jobs if job.get('direct') and job.get('rw') == 'read' and job.get('read')
            and job['read'].get('bw_bytes')]
    cold_bw = max(cold) if cold else None
    for job in jobs:
        section = job.get('read')
        if not section:
            continue
        reasons = []
        outlier = fast_outlier(job.get('read_bw_samples') or ())
        if outlier:
            reasons.append('its reads ran at %s in one repeat, %.1fx the median of its repeats (%s): memory answered it'
                           % (format_bytes_rate(outlier[0]), outlier[0] / outlier[1], format_bytes_rate(outlier[1])))
        if not job.get('direct') and job.get('rw') == 'read' and cold_bw and section.get('bw_bytes', 0) >= BUFFERED_OVER_DIRECT * cold_bw:
            reasons.append('its buffered reads ran at %s, %.1fx the %s the device delivered to direct reads in the same run'
                           % (format_bytes_rate(section['bw_bytes']), section['bw_bytes'] / cold_bw, format_bytes_rate(cold_bw)))
        floor = LATENCY_FLOOR_NS[kind]
        p50 = section.get('clat_p50_ns')
        if job.get('direct') and p50 is not None and p50 < floor:
            reasons.append('its direct reads completed in %.1f us (median), faster than any %s device answers (%d us)'
                           % (p50 / 1000.0, kind, floor // 1000))
        if reasons:
            found[job['name']] = reasons
    return found


def job_reached(target, direct, figures, cache=None):
    """What one job reached: the target's answer, the cache guard's (``cache``: (reason, fix) of a buffered job on a
    working set under 2x RAM, or None) and the figures' reasons."""
    reasons, fix, medium = [], target['fix'], target['medium']
    if target['medium'] == MEMORY:
        reasons.extend(target['reasons'])
    if cache and not direct:
        reasons.append(cache[0])
        fix = fix or cache[1]
        medium = MEMORY
    if figures:
        reasons.extend(figures)
        fix = fix or GENERIC_FIX
        medium = MEMORY
    if medium == UNKNOWN:
        reasons.extend(target['reasons'])
    return {'medium': medium, 'reasons': reasons, 'fix': fix if medium != DEVICE else None}


def describe(found):
    """One sentence for a console line or a warning: what was reached, why, and the fix."""
    if found['medium'] == DEVICE:
        return 'reached %s' % ' over '.join(found.get('chain') or ()) if found.get('chain') else 'reached a device'
    text = '%s: %s' % ('MEMORY, not the disk' if found['medium'] == MEMORY else 'cannot tell what it reached', '; '.join(found['reasons']))
    if found.get('fix'):
        text += '; to measure the disk: %s' % found['fix']
    return text
