# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Running fio on a host, safely: the scratch file (created exclusive and 0600 in a directory no one
else can rename in, after a free-space check), the raw device check (no signature, no holders), one
fio process run with an argument list and stopped on SIGTERM/SIGHUP. Used by the fio and tune_io
modules."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import stat

from ansible_collections.iotune.storage.plugins.module_utils.common.trust import scratch_directory_problem
from ansible_collections.iotune.storage.plugins.module_utils.common.units import format_bytes
from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import parse_fio_json

SCRATCH_PREFIX = '.iotune-fio-'


class MeasureError(Exception):
    """A request that cannot be measured; the message names the cause."""


# The fio process running now, and the signal that stopped the run (see stop_on_signal).
RUNNING = {'fio': None, 'signal': None}


def stop_on_signal(signum, dummy_frame):
    """SIGTERM and SIGHUP (a stopped play, a lost connection): stop fio, then the run ends
    through the usual error path, which removes the scratch file."""
    RUNNING['signal'] = signum
    if RUNNING['fio'] is not None and RUNNING['fio'].poll() is None:
        RUNNING['fio'].terminate()


def check_stopped():
    if RUNNING['signal'] is not None:
        raise MeasureError('stopped by signal {0} before the measurement finished'.format(RUNNING['signal']))


def default_ioengine(runner, fio):
    """libaio where this fio has it (fio --enghelp lists the engines built in), else psync."""
    rc, out, dummy = runner([fio, '--enghelp'])
    engines = set(line.strip() for line in out.splitlines()[1:]) if rc == 0 else set()
    return 'libaio' if 'libaio' in engines else 'psync'


def check_device(runner, path):
    """Refuse a device that is not a bare block device: a signature or holders mean data."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise MeasureError('filename {0}: {1}'.format(path, exc.strerror))
    if not stat.S_ISBLK(info.st_mode):
        raise MeasureError('filename {0} is not a block device; to measure a file system use directory'.format(path))
    blkid = runner.bin('blkid')
    if blkid is None:
        raise MeasureError('blkid (util-linux) is needed to check {0} for a signature before writing to it'.format(path))
    rc, out, err = runner([blkid, '-p', '-o', 'export', '--', path])
    if rc == 0:
        found = dict(line.split('=', 1) for line in out.splitlines() if '=' in line)
        kind = found.get('TYPE') or found.get('PTTYPE') or 'unknown'
        raise MeasureError('filename {0} carries a {1} signature (blkid -p): refusing to measure a device that '
                           'holds data; wipe it first if it is really scratch'.format(path, kind))
    if rc != 2:
        raise MeasureError('cannot check {0} for a signature (blkid -p rc={1}): {2}'.format(path, rc, (err or out).strip()))
    holders = '/sys/dev/block/{0}:{1}/holders'.format(os.major(info.st_rdev), os.minor(info.st_rdev))
    if os.path.isdir(holders) and os.listdir(holders):
        raise MeasureError('filename {0} is held by {1}: refusing to measure it'.format(path, ', '.join(sorted(os.listdir(holders)))))
    return info


def device_bytes(path):
    with open(path, 'rb') as handle:
        return handle.seek(0, os.SEEK_END)


def free_bytes(directory):
    """The bytes an unprivileged user may still write in ``directory``'s file system."""
    fs = os.statvfs(directory)
    return fs.f_bavail * fs.f_frsize


def create_scratch(directory, size, min_free):
    """Create the scratch file (0600, exclusive) after checking the directory and its free space."""
    if not os.path.isdir(directory):
        raise MeasureError('directory {0} does not exist or is not a directory'.format(directory))
    if not os.access(directory, os.W_OK | os.X_OK):
        raise MeasureError('directory {0} is not writable'.format(directory))
    # another user could swap the scratch file for a link to any file while fio writes it (issue 23)
    problem = scratch_directory_problem(directory, 'directory')
    if problem:
        raise MeasureError(problem)
    free = free_bytes(directory)
    if free < size + min_free:
        # the blocks of a file just removed may be freed later (xfs inactivates inodes in the background
        # since Linux 5.19); a sync makes the file system finish that
        os.sync()
        free = free_bytes(directory)
    if free < size + min_free:
        raise MeasureError('not enough free space in {0} for a {1} scratch file: {2} free, {3} needed '
                           '(size + min_free)'.format(directory, format_bytes(size), format_bytes(free), format_bytes(size + min_free)))
    name = os.path.join(directory, '{0}{1}-{2}'.format(SCRATCH_PREFIX, os.getpid(), os.urandom(4).hex()))
    try:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        raise MeasureError('cannot create the scratch file in {0}: {1}'.format(directory, exc.strerror))
    return name


def run_fio(runner, argv):
    """Run one fio process; the parsed result, or MeasureError with fio's own words."""
    check_stopped()
    rc, out, err = runner.change(argv, before_communicate_callback=lambda proc: RUNNING.update(fio=proc))
    RUNNING['fio'] = None
    check_stopped()
    if rc != 0:
        lines = [line for line in (err or out).strip().splitlines() if line.strip()]
        raise MeasureError('fio failed (rc={0}): {1}'.format(rc, ' / '.join(lines[-5:]) or 'no message'))
    try:
        parsed = parse_fio_json(out)
    except ValueError as exc:
        raise MeasureError('cannot read the fio output: {0}'.format(exc))
    for job in parsed['jobs']:
        if job['error']:
            raise MeasureError('fio job {0} ended with error {1} ({2}): {3}'.format(
                job['name'], job['error'], os.strerror(job['error']), (err or '').strip()))
    return out, parsed
