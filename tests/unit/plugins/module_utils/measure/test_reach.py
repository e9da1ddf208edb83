# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a measurement reached: sysfs trees laid out as the kernel does, the mount table of a fake /proc, and
the figures no device gives. The loop devices of this machine are in tests/integration/targets/fio."""

from __future__ import (absolute_import, division, print_function)

import os

from ansible_collections.iotune.storage.plugins.module_utils.measure.reach import (
    DEVICE, MEMORY, UNKNOWN, classify_device, classify_path, classify_target, describe, fast_outlier, figure_reasons, job_reached,
    reached)


def _attr(root, relative, text):
    path = os.path.join(str(root), relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as handle:
        handle.write(text + '\n')


def _mountinfo(proc, lines):
    os.makedirs(os.path.join(str(proc), 'self'), exist_ok=True)
    with open(os.path.join(str(proc), 'self', 'mountinfo'), 'w') as handle:
        handle.write(''.join(line + '\n' for line in lines))


def _here(path, fstype, source='/dev/sda1', options='rw', point='/'):
    info = os.stat(str(path))
    return '21 1 %d:%d / %s rw,relatime - %s %s %s' % (os.major(info.st_dev), os.minor(info.st_dev), point, fstype, source, options)


def test_a_loop_device_without_direct_io_is_memory(tmp_path):
    _attr(tmp_path, 'block/loop3/loop/dio', '0')
    _attr(tmp_path, 'block/loop3/loop/backing_file', '/var/tmp/disk.img')
    found = classify_device('loop3', str(tmp_path))
    assert found['medium'] == MEMORY and found['device'] == 'loop3'
    assert found['reasons'] == ["loop3 reads its backing file /var/tmp/disk.img through the host's page cache (direct I/O off: "
                                "%s/block/loop3/loop/dio is 0)" % tmp_path]
    assert found['fix'].startswith('losetup --direct-io=on /dev/loop3')


def test_a_loop_device_with_direct_io_follows_its_backing_file(tmp_path):
    sys_root, proc = tmp_path / 'sys', tmp_path / 'proc'
    image = tmp_path / 'disk.img'
    image.write_bytes(b'')
    _attr(sys_root, 'block/loop3/loop/dio', '1')
    _attr(sys_root, 'block/loop3/loop/backing_file', str(image))
    _mountinfo(proc, [_here(image, 'tmpfs', 'tmpfs')])
    found = classify_device('loop3', str(sys_root), str(proc))
    assert found['medium'] == MEMORY
    assert found['reasons'][0].startswith('loop3 (direct I/O on) reads its backing file %s: %s is on /, a tmpfs file system' % (image, image))
    # the same file on a disk the sysfs tree knows: a device, and the chain names it
    info = os.stat(str(image))
    _attr(sys_root, 'block/sdz/queue/rotational', '1')
    os.makedirs(str(sys_root / 'dev' / 'block'), exist_ok=True)
    os.symlink(str(sys_root / 'block' / 'sdz'), str(sys_root / 'dev' / 'block' / ('%d:%d' % (os.major(info.st_dev), os.minor(info.st_dev)))))
    _mountinfo(proc, [_here(image, 'xfs', '/dev/sdz')])
    found = classify_device('loop3', str(sys_root), str(proc))
    assert (found['medium'], found['chain'], found['reasons'], found['fix']) == (DEVICE, ['loop3', 'sdz'], [], None)


def test_device_mapper_over_a_memory_device_is_memory(tmp_path):
    _attr(tmp_path, 'block/loop1/loop/dio', '0')
    _attr(tmp_path, 'block/loop1/loop/backing_file', '/img')
    _attr(tmp_path, 'block/sda/queue/rotational', '0')
    os.makedirs(str(tmp_path / 'block' / 'dm-0' / 'slaves' / 'loop1'))
    os.makedirs(str(tmp_path / 'block' / 'md0' / 'slaves' / 'sda'))
    found = classify_device('dm-0', str(tmp_path))
    assert found['medium'] == MEMORY and found['chain'] == ['dm-0', 'loop1']
    assert found['reasons'][0].startswith('dm-0 is over loop1 reads its backing file /img')
    assert classify_device('md0', str(tmp_path))['medium'] == DEVICE


def test_ram_disks_are_memory(tmp_path):
    for name, kind in (('zram0', 'zram'), ('ram1', 'brd')):
        found = classify_device(name, str(tmp_path))
        assert found['medium'] == MEMORY and found['reasons'] == ['%s is a RAM disk (%s)' % (name, kind)]
    assert classify_device('ramdisk', str(tmp_path))['medium'] == UNKNOWN


def test_a_partition_counts_as_its_disk(tmp_path):
    _attr(tmp_path, 'block/loop2/loop/dio', '0')
    _attr(tmp_path, 'block/loop2/loop/backing_file', '/img')
    _attr(tmp_path, 'block/loop2/loop2p1/partition', '1')
    found = classify_device('loop2p1', str(tmp_path))
    assert found['medium'] == MEMORY and found['device'] == 'loop2'


def test_tmpfs_overlay_and_network_paths(tmp_path):
    proc = tmp_path / 'proc'
    _mountinfo(proc, [_here(tmp_path, 'tmpfs', 'tmpfs')])
    found = classify_path(str(tmp_path), str(tmp_path / 'sys'), str(proc))
    assert found['medium'] == MEMORY and found['reasons'] == ['%s is on /, a tmpfs file system: it lives in memory' % tmp_path]
    _mountinfo(proc, [_here(tmp_path, 'nfs4', 'server:/export')])
    assert classify_path(str(tmp_path), str(tmp_path / 'sys'), str(proc))['medium'] == UNKNOWN
    # an overlay is followed to its upper layer, here on tmpfs (the same test directory, mounted twice in the fake table)
    upper = tmp_path / 'upper'
    upper.mkdir()
    _mountinfo(proc, [_here(tmp_path, 'overlay', 'overlay', 'rw,upperdir=%s' % upper, point=str(tmp_path)),
                      _here(upper, 'tmpfs', 'tmpfs', point=str(upper))])
    found = classify_path(str(tmp_path), str(tmp_path / 'sys'), str(proc))
    assert found['medium'] == MEMORY and 'an overlay whose upper layer %s' % upper in found['reasons'][0]


def test_a_missing_target_is_unknown(tmp_path):
    found = classify_target(str(tmp_path / 'gone'), str(tmp_path), str(tmp_path))
    assert found['medium'] == UNKNOWN and 'No such file' in found['reasons'][0]


def _job(name, rw, direct, bw, p50=500000, samples=None):
    return {'name': name, 'rw': rw, 'direct': direct, 'read': {'bw_bytes': bw, 'clat_p50_ns': p50}, 'read_bw_samples': samples}


def test_figures_no_device_gives():
    mib = 1048576
    jobs = [_job('seq-read', 'read', True, 533 * mib, samples=[520 * mib, 540 * mib, 530 * mib]),
            _job('cold', 'read', False, 3622 * mib, samples=[348 * mib, 3657 * mib, 360 * mib]),
            _job('rand', 'randread', True, 50 * mib, p50=1800),
            _job('write', 'write', True, 100 * mib)]
    jobs[3]['read'] = None
    found = figure_reasons(jobs)
    assert sorted(found) == ['cold', 'rand']
    assert found['cold'] == ['its reads ran at 3.6 GiB/s in one repeat, 10.2x the median of its repeats (360 MiB/s): memory '
                             'answered it',
                             'its buffered reads ran at 3.5 GiB/s, 6.8x the 533 MiB/s the device delivered to direct reads in '
                             'the same run']
    assert found['rand'] == ['its direct reads completed in 1.8 us (median), faster than any solid-state device answers (5 us)']
    assert figure_reasons(jobs[2:3], 'rotational')['rand'][0].endswith('rotational device answers (20 us)')
    # a device that keeps its speed: nothing to say; nor of slow outliers (a busy host), nor of two repeats
    assert figure_reasons([_job('seq-read', 'read', True, 500 * mib, samples=[400 * mib, 600 * mib, 500 * mib])]) == {}
    assert figure_reasons([_job('seq-read', 'read', True, 500 * mib, samples=[80 * mib, 600 * mib, 500 * mib])]) == {}
    assert figure_reasons([_job('seq-read', 'read', True, 500 * mib, samples=[80 * mib, 600 * mib])]) == {}


def test_job_reached_joins_the_target_the_cache_guard_and_the_figures():
    device = reached(DEVICE, device='vdb', chain=['vdb'])
    assert job_reached(device, True, None) == {'medium': DEVICE, 'reasons': [], 'fix': None}
    buffered = job_reached(device, False, None, ('buffered I/O on a 64 MiB working set', 'direct: true'))
    assert buffered == {'medium': MEMORY, 'reasons': ['buffered I/O on a 64 MiB working set'], 'fix': 'direct: true'}
    # the cache guard says nothing of a direct job
    assert job_reached(device, True, None, ('buffered', 'direct: true'))['medium'] == DEVICE
    loop = reached(MEMORY, ['loop3 reads its backing file'], 'losetup --direct-io=on /dev/loop3', 'loop3', ['loop3'])
    direct = job_reached(loop, True, None)
    assert direct == {'medium': MEMORY, 'reasons': ['loop3 reads its backing file'], 'fix': 'losetup --direct-io=on /dev/loop3'}
    assert describe(direct) == ('MEMORY, not the disk: loop3 reads its backing file; to measure the disk: '
                                'losetup --direct-io=on /dev/loop3')
    assert describe(device) == 'reached vdb'


def test_a_fast_outlier_is_measured_against_the_median():
    assert fast_outlier([100, 110, 450]) == (450, 110)
    assert fast_outlier([100, 110, 430]) is None
    # the A/A search beside image builds: slow rounds, not fast ones
    assert fast_outlier([600, 100, 610, 590, 605, 98, 612, 601]) is None
    assert fast_outlier([100, 450]) is None and fast_outlier([None, 0, 100]) is None
