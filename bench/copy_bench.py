# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune-copy against dd and cp: speed on one file, and what a copy does to the page cache.

Speed: one source file of ``--size`` random bytes; ROUNDS rounds of ``iotune-copy --direct`` and
``dd bs=8M`` (both ``iflag=direct oflag=direct conv=fsync``), ``dd bs=4K`` (the same), buffered
``dd bs=8M conv=fsync`` as a reference without a goal (the I/O size of iotune-copy, in C), buffered
``iotune-copy`` and GNU ``cp``. The two contenders of a goal run one right after the other, the
one that goes first alternating from round to round, and each of the buffered pair always
follows a buffered copy, so that both meet the disk and the VM's memory in the same state; a
goal's ratio is the median of the ratios of its rounds (paired), the disk's drift from minute to
minute, which moves both sides of a pair alike, cancels out. Before
each copy the destination is removed, the file system synced (``sync -f``), the source made cold
(fsync, then ``POSIX_FADV_DONTNEED`` on the whole file: a per-file drop, no global drop_caches)
and the bench waits ``--settle`` seconds, then faults in and frees ``--warm-memory`` bytes of
anonymous memory (``dd bs=N count=1`` from /dev/zero): a copy through the page cache allocates
twice its size, and on a VM whose free memory goes back to the hypervisor (free page reporting,
a balloon) the first touch of that memory costs more than the copy itself, by an amount that
changes from minute to minute; after the warm-up every contender finds the memory it needs
backed, as on a host that is not a VM. iotune-copy runs as the copy_tools role installs it,
``python3 -I -S`` (isolated, no site). Each copy is timed from the start of its process until
the data and the name are durable: iotune-copy fsyncs the file and its directory itself;
``conv=fsync`` syncs dd's file and the bench then fsyncs the directory; after cp the bench fsyncs
the file and the directory. After each copy, outside the timed window, both files are dropped
from the cache and compared byte for byte (``cmp``).

Cache pollution: a ``--working-set`` file (256 MiB) is read in a fresh memory cgroup limited to
working set + ``--memory-headroom`` (512 MiB), then a ``--pollution-size`` (2 GiB) file is copied
in the same group with ``cp`` or ``iotune-copy --nocache``; ``fincore`` tells how much of the
working set is still cached. cgroup v2 (``memory.max``) where the memory controller is there,
else cgroup v1 (``memory.limit_in_bytes``); SKIP when neither can be used.

Exit status: 0 every goal passes, 1 a goal fails, 2 the bench could not run, 130 interrupted.
Files are created in one temporary directory (and one in ``--dest-dir``), removed at the end
with the cgroups, also on Ctrl-C or SIGTERM. Python 3 standard library only, Linux.
"""

import argparse
import importlib.util
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from _common import Interrupted, cov, loadavg, median, mem_available, mount_of, mountinfo, on_signal, stop_group

MEMORY_FS = ('tmpfs', 'ramfs', 'devtmpfs', 'hugetlbfs')
MIB = 1048576.0
CHUNK = 8 << 20
# the builder of the zipapps that the copy_tools concern installs (make collection runs it too)
ZIPAPPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, 'tools', 'zipapps.py')
SIZE_RE = re.compile(r'^\s*([0-9]+)\s*([kmgt]?)i?b?\s*$', re.IGNORECASE)
NOISE_FORMULA = 'noise % = 2 x 100 x sqrt(cov_a^2 + cov_b^2)'

# goals: (name, numerator contender, denominator contender, least ratio)
GOALS = (
    ('iotune-copy --direct vs dd bs=8M direct', 'iotune-direct', 'dd-8m', 1.0),
    ('iotune-copy --direct vs dd bs=4K direct', 'iotune-direct', 'dd-4k', 10.0),
    ('iotune-copy (buffered) vs cp', 'iotune-buffered', 'cp', 0.95),
)
# contenders that run one right after the other, which one first alternating from round to round
PAIRS = (('iotune-direct', 'dd-8m'), ('iotune-buffered', 'cp'))
KEPT_GOAL = 90.0        # % of the working set still cached after iotune-copy --nocache
CACHED_SETUP = 95.0     # % of the working set cached (and charged to the group) after reading it


class BenchError(Exception):
    """The bench cannot run; the message says why."""


class Skip(Exception):
    """A part cannot run on this machine; the message says why."""


def parse_size(text):
    match = SIZE_RE.match(text)
    if not match:
        raise argparse.ArgumentTypeError('invalid size {0!r}: bytes, or a number with k, m, g or t (binary multiples)'.format(text))
    value = int(match.group(1)) * 1024 ** ' kmgt'.index(match.group(2).lower() or ' ')
    if value <= 0 or value % (1 << 20):
        raise argparse.ArgumentTypeError('invalid size {0!r}: must be a positive multiple of 1 MiB'.format(text))
    return value


def parse_warm(text):
    if text == 'auto':
        return text
    if text.strip() == '0':
        return 0
    return parse_size(text)


def warm_bytes(setting, size, available):
    """Bytes the warm-up faults in: 'auto' is what a buffered copy of size allocates (source and destination in
    the page cache) and 512 MiB more, at most half of the available memory; rounded down to MiB."""
    wanted = 2 * size + (512 << 20) if setting == 'auto' else setting
    return min(wanted, available // 2) >> 20 << 20


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description='Time iotune-copy against dd and cp on one file (same cold start, same durable end state, '
                    'interleaved rounds, every copy verified) and measure the page cache a copy evicts.')
    parser.add_argument('--dir', help='directory on the disk file system to use (a temporary directory is created inside '
                                      'it and removed); default /var/tmp')
    parser.add_argument('--dest-dir', help='directory for the destinations (default: beside the sources)')
    parser.add_argument('--size', type=parse_size, default='1g', help='size of the timed copies (default: %(default)s)')
    parser.add_argument('--rounds', type=int, default=5, help='rounds, each copying once with every contender, at least 2 '
                                                              '(default: %(default)s)')
    parser.add_argument('--pollution-size', type=parse_size, default='2g',
                        help='size of the copy in the cache-pollution part (default: %(default)s)')
    parser.add_argument('--working-set', type=parse_size, default='256m',
                        help='cached file whose eviction is measured (default: %(default)s)')
    parser.add_argument('--memory-headroom', type=parse_size, default='512m',
                        help='the memory cgroup\'s limit is working set + this (default: %(default)s): room for the copying '
                             'process and the 64 MiB that --nocache lets be dirty, far below the size copied')
    parser.add_argument('--settle', type=float, default=5.0,
                        help='seconds to wait before each timed copy, after removing the previous copy and dropping the source '
                             '(default: %(default)s): the memory freed meanwhile settles (on a VM with free page reporting it goes '
                             'back to the hypervisor after about 2 s), so that every copy starts from the same state whatever ran before')
    parser.add_argument('--warm-memory', type=parse_warm, default='auto',
                        help='bytes of memory to fault in and free just before each timed copy, after the settle pause; 0 for none '
                             '(default: %(default)s = 2 x --size + 512 MiB, at most half of MemAvailable): a VM that hands free '
                             'memory back to its hypervisor makes a buffered copy pay for backing it again, so the time would '
                             'measure the hypervisor more than the tools')
    parser.add_argument('--no-pollution', action='store_true', help='skip the cache-pollution part')
    parser.add_argument('--tool', help='iotune-copy to run (default: the zipapp built from tools/iotune_copy into the work '
                                       'directory, as make collection builds it)')
    parser.add_argument('--python', default=sys.executable or 'python3', help='interpreter that runs it (default: %(default)s)')
    args = parser.parse_args(argv)
    if args.settle < 0:
        parser.error('--settle must be 0 or more')
    if args.rounds < 2:
        parser.error('--rounds must be at least 2 (the noise is measured over the rounds)')
    return args


# --------------------------------------------------------------------------- helpers

def build_tool(directory):
    """iotune-copy built from the package as the collection builds it (tools/zipapps.py): its path in directory."""
    spec = importlib.util.spec_from_file_location('iotune_zipapps', ZIPAPPS)
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    path = os.path.join(directory, 'iotune-copy')
    with open(path, 'wb') as handle:
        handle.write(builder.build('iotune-copy'))
    return path


def check_disk_dir(path, option):
    if not os.path.isdir(path):
        raise BenchError('{0} {1} is not a directory'.format(option, path))
    found = mount_of(path)
    if found is None:
        raise BenchError('cannot find the file system of {0} in /proc/self/mountinfo'.format(path))
    point, fstype, source = found
    if fstype in MEMORY_FS:
        raise BenchError('{0} is on {1} ({2}), a memory file system: use {3} on a disk file system'.format(path, fstype, point, option))
    return point, fstype, source


def first_line(argv):
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False).stdout
    except OSError as exc:
        raise BenchError('cannot run {0}: {1}'.format(argv[0], exc.strerror))
    return (out.splitlines() or [''])[0].strip()


def run_process(argv, what):
    """Run argv in its own process group, standard output discarded; its stderr. BenchError when it fails."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, universal_newlines=True)
    try:
        dummy, err = proc.communicate()
    except BaseException:
        stop_group(proc)
        raise
    if proc.returncode != 0:
        killed = ' (killed by {0})'.format(signal.Signals(-proc.returncode).name) if proc.returncode < 0 else ''
        raise BenchError('{0} failed (rc={1}{2}): {3}\n  command: {4}'.format(what, proc.returncode, killed, err.strip()[-2000:], ' '.join(argv)))
    return err


def fsync_path(path, directory=False):
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_cold(path):
    """Write back, then drop the file's pages from the page cache (this file only)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def syncfs(directory):
    """Write back the file system (the previous copy's removal), so that it is not done in the next timed window."""
    run_process(['sync', '-f', directory], 'sync -f')


def device_stat(path):
    """The sysfs stat file of the block device that holds path (/sys/dev/block/MAJ:MIN/stat), or None (tmpfs,
    overlay: no block device of its own)."""
    st = os.stat(path)
    stat_path = '/sys/dev/block/{0}:{1}/stat'.format(os.major(st.st_dev), os.minor(st.st_dev))
    return stat_path if os.path.exists(stat_path) else None


def io_counts(stat_path):
    """(read requests, sectors read, write requests, sectors written) completed so far (Documentation/block/stat.rst)."""
    with open(stat_path) as handle:
        fields = [int(field) for field in handle.read().split()]
    return fields[0], fields[2], fields[4], fields[6]


def remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def cached_bytes(path):
    """Bytes of path in the page cache, from util-linux fincore."""
    out = subprocess.run(['fincore', '--bytes', '--noheadings', '--raw', '--output', 'RES,SIZE', path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, check=False)
    fields = out.stdout.split()
    if out.returncode != 0 or len(fields) != 2:
        raise BenchError('fincore {0} failed (rc={1}): {2}'.format(path, out.returncode, (out.stderr or out.stdout).strip()))
    return int(fields[0])


def cached_pct(path, size):
    return cached_bytes(path) * 100.0 / size


def verify(src, dst, what):
    """Byte-for-byte comparison (cmp), outside the timed window, of what is on disk: both files are dropped from the cache first.

    So every copy leaves the page cache in the same state (both files read back by readahead), whatever it did itself.
    """
    make_cold(src)
    make_cold(dst)
    out = subprocess.run(['cmp', src, dst], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    if out.returncode != 0:
        raise BenchError('{0}: the copy differs from the source: {1}'.format(what, out.stdout.strip()))


def write_random(path, size):
    """A file of random bytes (not zeros: nothing to compress or deduplicate), synced and dropped from the cache."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        done = 0
        while done < size:
            done += os.write(fd, os.urandom(min(CHUNK, size - done)))
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- memory cgroups

class Cgroups(object):
    """Memory cgroups for the copies: v2 (memory.max) where the memory controller is on the unified hierarchy, else v1."""

    def __init__(self):
        self.version = None
        self.root = None
        self.home = None          # this process's own group in that hierarchy: where strays are moved back
        self.enabled_memory = False
        self.created = []
        self.notes = []

    def setup(self):
        reasons = []
        for point, fstype, dummy, options in mountinfo():
            if fstype == 'cgroup2' and self.version is None:
                controllers = self._read(os.path.join(point, 'cgroup.controllers')).split()
                if 'memory' in controllers:
                    self.version, self.root = 2, point
                else:
                    reasons.append('cgroup v2 at {0} has no memory controller (controllers: {1})'.format(point, ' '.join(controllers) or 'none'))
        if self.version is None:
            for point, fstype, dummy, options in mountinfo():
                if fstype == 'cgroup' and 'memory' in options.split(','):
                    self.version, self.root = 1, point
                    break
            else:
                reasons.append('no cgroup v1 memory hierarchy mounted')
        if self.version is None:
            raise Skip('; '.join(reasons) or 'no cgroup file system mounted')
        self.notes = reasons
        wanted = '' if self.version == 2 else 'memory'
        with open('/proc/self/cgroup') as handle:
            for line in handle:
                dummy, names, path = line.rstrip('\n').split(':', 2)
                if (self.version == 2 and dummy == '0' and names == '') or (self.version == 1 and wanted in names.split(',')):
                    self.home = os.path.join(self.root, path.lstrip('/'))
        if self.version == 2:
            control = os.path.join(self.root, 'cgroup.subtree_control')
            if 'memory' not in self._read(control).split():
                try:
                    self._write(control, '+memory')
                except OSError as exc:
                    raise Skip('cannot enable the memory controller in {0}: {1}'.format(control, exc.strerror))
                self.enabled_memory = True
        try:
            probe = self.create('probe', 1 << 30)
        except OSError as exc:
            raise Skip('cannot create a memory cgroup in {0}: {1}'.format(self.root, exc.strerror))
        self.remove(probe)

    def describe(self):
        limit = 'memory.max' if self.version == 2 else 'memory.limit_in_bytes'
        why = ' because {0}'.format('; '.join(self.notes)) if self.notes else ''
        return 'cgroup v{0} at {1} ({2}){3}'.format(self.version, self.root, limit, why)

    @staticmethod
    def _read(path):
        try:
            with open(path) as handle:
                return handle.read()
        except OSError:
            return ''

    @staticmethod
    def _write(path, text):
        with open(path, 'w') as handle:
            handle.write(text)

    def create(self, name, limit):
        path = os.path.join(self.root, 'iotune-bench-{0}-{1}'.format(os.getpid(), name))
        os.mkdir(path)
        self.created.append(path)
        if self.version == 2:
            self._write(os.path.join(path, 'memory.max'), str(limit))
            if os.path.exists(os.path.join(path, 'memory.swap.max')):
                self._write(os.path.join(path, 'memory.swap.max'), '0')
        else:
            self._write(os.path.join(path, 'memory.limit_in_bytes'), str(limit))
        return path

    def wrap(self, path, argv):
        """argv run inside the group: a shell moves itself there, then execs argv."""
        return ['sh', '-c', 'echo $$ > "$0" && exec "$@"', os.path.join(path, 'cgroup.procs')] + list(argv)

    def stats(self, path):
        """{'file': page cache charged to the group, 'peak': highest usage or None, 'limit_hits': times the limit was reached}."""
        stat = dict((key, int(value)) for key, value in (line.split() for line in self._read(os.path.join(path, 'memory.stat')).splitlines()))
        if self.version == 2:
            events = dict(line.split() for line in self._read(os.path.join(path, 'memory.events')).splitlines())
            peak = self._read(os.path.join(path, 'memory.peak')).strip()
            return {'file': stat.get('file', 0), 'peak': int(peak) if peak else None, 'limit_hits': int(events.get('max', 0))}
        peak = self._read(os.path.join(path, 'memory.max_usage_in_bytes')).strip()
        return {'file': stat.get('cache', 0), 'peak': int(peak) if peak else None,
                'limit_hits': int(self._read(os.path.join(path, 'memory.failcnt')).strip() or 0)}

    def remove(self, path):
        """Move any process left back to this process's group, then remove the group (retried: it can be busy for a moment)."""
        target = os.path.join(self.home or self.root, 'cgroup.procs')
        for attempt in range(50):
            for pid in self._read(os.path.join(path, 'cgroup.procs')).split():
                try:
                    self._write(target, pid)
                except OSError:
                    pass
            try:
                os.rmdir(path)
                break
            except FileNotFoundError:
                break
            except OSError:
                if attempt == 49:
                    raise
                time.sleep(0.1)
        if path in self.created:
            self.created.remove(path)

    def cleanup(self):
        problems = []
        for path in list(self.created):
            try:
                self.remove(path)
            except OSError as exc:
                problems.append('cannot remove the cgroup {0}: {1}'.format(path, exc.strerror))
        if self.enabled_memory:
            try:
                self._write(os.path.join(self.root, 'cgroup.subtree_control'), '-memory')
            except OSError:
                pass  # another group uses it by now
        return problems


# --------------------------------------------------------------------------- the bench

def round_order(contenders, number):
    """The contenders in round ``number`` (from 0): as given in even rounds; in odd rounds the two of
    each pair in PAIRS swap places (each pair is adjacent in the given order)."""
    order = list(contenders)
    if number % 2:
        keys = [entry[0] for entry in order]
        for first, second in PAIRS:
            i, j = keys.index(first), keys.index(second)
            order[i], order[j] = order[j], order[i]
    return order


def paired_ratio(top, bottom):
    """Median over the rounds of (time of bottom / time of top): how many times faster top was than bottom in the same round."""
    return median([b / t for t, b in zip(top, bottom)])


class Bench(object):
    def __init__(self, args, workdir, destdir):
        self.args = args
        self.workdir = workdir
        self.destdir = destdir
        self.source = os.path.join(workdir, 'source')
        self.dest = os.path.join(destdir, 'copy')
        self.tool = [args.python, '-I', '-S', args.tool]     # as installed: #!/usr/bin/python3 -IS
        self.warm = warm_bytes(args.warm_memory, args.size, mem_available(BenchError))
        self.residual = 0.0        # highest share of a source still cached at the start of a timed copy, %
        # the devices of the sources and destinations, whose requests each timed copy counts
        self.devices = sorted(set(path for path in (device_stat(workdir), device_stat(destdir)) if path))
        self.requests = {}         # contender key: [per copy {stat file: io_counts delta}]

    def contenders(self):
        """(key, label, argv builder, what the bench syncs after the process) in the first round's order (see round_order)."""
        def dd(block):
            return lambda src, dst: ['dd', 'if=' + src, 'of=' + dst, 'bs=' + block, 'iflag=direct', 'oflag=direct', 'conv=fsync', 'status=none']
        return (
            ('iotune-direct', 'iotune-copy --direct', lambda src, dst: self.tool + ['--direct', src, dst], ()),
            ('dd-8m', 'dd bs=8M direct', dd('8M'), ('dir',)),
            ('dd-4k', 'dd bs=4K direct', dd('4K'), ('dir',)),
            ('dd-8m-buffered', 'dd bs=8M (reference)', lambda src, dst: ['dd', 'if=' + src, 'of=' + dst, 'bs=8M', 'conv=fsync', 'status=none'],
             ('dir',)),
            ('iotune-buffered', 'iotune-copy', lambda src, dst: self.tool + [src, dst], ()),
            ('cp', 'cp', lambda src, dst: ['cp', src, dst], ('file', 'dir')),
        )

    def timed_copy(self, key, label, argv, syncs, src, dst, size):
        """(seconds from the process start until the copy is durable, (user, sys) CPU seconds of the process); verified afterwards.
        The requests the devices completed meanwhile are kept under the contender's key (anything else doing I/O then counts too)."""
        remove(dst)
        syncfs(os.path.dirname(dst))
        make_cold(src)
        self.residual = max(self.residual, cached_pct(src, size))
        time.sleep(self.args.settle)
        if self.warm:
            run_process(['dd', 'if=/dev/zero', 'of=/dev/null', 'bs={0}'.format(self.warm), 'count=1', 'status=none'], 'warming memory')
        counts = dict((device, io_counts(device)) for device in self.devices)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        run_process(argv, label)
        if 'file' in syncs:
            fsync_path(dst)
        if 'dir' in syncs:
            fsync_path(os.path.dirname(dst), directory=True)
        seconds = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.requests.setdefault(key, []).append(dict(
            (device, tuple(now - then for now, then in zip(io_counts(device), counts[device]))) for device in self.devices))
        verify(src, dst, label)
        remove(dst)
        return seconds, (after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime)

    def speed(self):
        write_random(self.source, self.args.size)
        contenders = self.contenders()
        times = dict((key, []) for key, dummy, dummy, dummy in contenders)
        for number in range(self.args.rounds):
            shown = []
            for key, label, build, syncs in round_order(contenders, number):
                seconds, cpu = self.timed_copy(key, label, build(self.source, self.dest), syncs, self.source, self.dest, self.args.size)
                times[key].append((seconds, cpu))
                shown.append('{0} {1:.2f} s (sys {2:.2f})'.format(label, seconds, cpu[1]))
            print('  round {0}/{1}: {2}'.format(number + 1, self.args.rounds, ', '.join(shown)), flush=True)
        remove(self.source)
        return contenders, times

    def startup_ms(self):
        """Milliseconds (median of 5) of python -I -S -c pass (the interpreter) and python -I -S TOOL --help (and iotune-copy's imports)."""
        found = []
        for argv in (self.tool[:-1] + ['-c', 'pass'], self.tool + ['--help']):
            runs = []
            for dummy in range(5):
                started = time.monotonic()
                run_process(argv, ' '.join(argv))
                runs.append(time.monotonic() - started)
            found.append(median(runs) * 1000)
        return found

    def pollution(self, cgroups):
        args = self.args
        wset = os.path.join(self.workdir, 'working-set')
        source = os.path.join(self.workdir, 'pollution-source')
        write_random(wset, args.working_set)
        write_random(source, args.pollution_size)
        limit = args.working_set + args.memory_headroom
        contenders = (
            ('cp', 'cp', ['cp', source, self.dest], ('file', 'dir')),
            ('nocache', 'iotune-copy --nocache', self.tool + ['--nocache', source, self.dest], ()),
        )
        runs = dict((key, []) for key, dummy, dummy, dummy in contenders)
        for number in range(args.rounds):
            order = contenders if number % 2 == 0 else tuple(reversed(contenders))
            shown = []
            for key, label, argv, syncs in order:
                remove(self.dest)
                syncfs(os.path.dirname(self.dest))
                make_cold(wset)
                make_cold(source)
                group = cgroups.create('{0}-{1}'.format(key, number + 1), limit)
                run_process(cgroups.wrap(group, ['dd', 'if=' + wset, 'of=/dev/null', 'bs=1M', 'status=none']), 'reading the working set')
                before = cached_pct(wset, args.working_set)
                charged = cgroups.stats(group)['file'] * 100.0 / args.working_set
                started = time.monotonic()
                run_process(cgroups.wrap(group, argv), label)
                if 'file' in syncs:
                    fsync_path(self.dest)
                if 'dir' in syncs:
                    fsync_path(os.path.dirname(self.dest), directory=True)
                seconds = time.monotonic() - started
                after = cached_pct(wset, args.working_set)
                stats = cgroups.stats(group)
                cgroups.remove(group)
                verify(source, self.dest, label)
                remove(self.dest)
                runs[key].append({'before': before, 'charged': charged, 'after': after, 'seconds': seconds,
                                  'peak': stats['peak'], 'limit_hits': stats['limit_hits']})
                shown.append('{0}: working set {1:.1f} % cached ({2:.1f} % charged to the group) -> {3:.1f} % kept, copy {4:.2f} s'.format(
                    label, before, charged, after, seconds))
            print('  round {0}/{1}: {2}'.format(number + 1, args.rounds, '; '.join(shown)), flush=True)
        remove(wset)
        remove(source)
        return contenders, runs, limit


# --------------------------------------------------------------------------- report

def verdict(ok):
    return 'PASS' if ok else 'FAIL'


def mib(count):
    return '{0:g} MiB'.format(count / MIB)


def report_speed(args, contenders, times):
    print('')
    print('speed: {0} per copy, median of {1} rounds; timed from the process start until data and name are durable'.format(mib(args.size), args.rounds))
    print('  {0:<22} {1:>9} {2:>9} {3:>7} {4:>7} {5:>7} {6:>7} {7:>7}   {8}'.format(
        'contender', 'median s', 'MiB/s', 'CoV', 'min s', 'max s', 'user s', 'sys s', 'timed'))
    timed = {
        'iotune-direct': 'python3 -IS iotune-copy --direct (fsyncs file and directory itself)',
        'dd-8m': 'dd bs=8M iflag=direct oflag=direct conv=fsync; fsync(dir)',
        'dd-4k': 'dd bs=4K iflag=direct oflag=direct conv=fsync; fsync(dir)',
        'iotune-buffered': 'python3 -IS iotune-copy (fsyncs file and directory itself)',
        'cp': 'cp SRC DST; fsync(DST); fsync(dir)',
        'dd-8m-buffered': 'dd bs=8M conv=fsync (buffered, no goal); fsync(dir)',
    }
    walls = dict((key, [wall for wall, dummy in runs]) for key, runs in times.items())
    rates = {}
    covs = {}
    for key, label, dummy, dummy in contenders:
        seconds = median(walls[key])
        rates[key] = args.size / MIB / seconds
        covs[key] = cov(walls[key])
        print('  {0:<22} {1:>9.3f} {2:>9.1f} {3:>6.1f}% {4:>7.3f} {5:>7.3f} {6:>7.2f} {7:>7.2f}   {8}'.format(
            label, seconds, rates[key], covs[key] * 100, min(walls[key]), max(walls[key]), median([cpu[0] for dummy, cpu in times[key]]),
            median([cpu[1] for dummy, cpu in times[key]]), timed[key]))
    print('')
    print('  {0:<42} {1:>8} {2:>9} {3:>10} {4:>10}  {5:<6} {6}'.format('goal', 'ratio', 'needs', 'of medians', 'noise', 'result', 'MiB/s'))
    results = []
    for name, top, bottom, least in GOALS:
        ratio = paired_ratio(walls[top], walls[bottom])
        noise = 2 * 100 * math.sqrt(covs[top] ** 2 + covs[bottom] ** 2)
        ok = round(ratio, 2) >= least
        results.append((name, ok))
        print('  {0:<42} {1:>7.2f}x {2:>9} {3:>9.2f}x {4:>10}  {5:<6} {6:.1f} vs {7:.1f}'.format(
            name, ratio, '>= {0:g}x'.format(least), rates[top] / rates[bottom], '+-{0:.1f} %'.format(noise), verdict(ok),
            rates[top], rates[bottom]))
    print('')
    print('  paired rounds (time of the other / time of iotune-copy, round by round; the ratio above is their median):')
    for name, top, bottom, least in GOALS:
        print('  {0:<42} {1}'.format(name, ' '.join('{0:.2f}'.format(b / t) for t, b in zip(walls[top], walls[bottom]))))
    # The 4K goal presumes a disk where small I/Os cost far more than their bytes; dd shows what this one allows.
    print('  the disk itself: dd bs=8M direct is {0:.2f}x dd bs=4K direct in this run (a large-block copy cannot gain much more)'.format(
        rates['dd-8m'] / rates['dd-4k']))
    return results


def report_requests(contenders, requests, devices):
    """The requests each contender's copies sent to the devices: a copy that needs fewer, larger requests for the
    same bytes is faster on a device that charges per request (docs/performance.md, 2026-11-28)."""
    for device in devices:
        name = os.path.basename(os.path.realpath(os.path.dirname(device)))
        print('')
        print('  requests to {0} per copy ({1}; median of the rounds; any other I/O to it meanwhile counts too):'.format(name, device))
        print('  {0:<22} {1:>9} {2:>10} {3:>9} {4:>10}'.format('contender', 'reads', 'KiB each', 'writes', 'KiB each'))
        for key, label, dummy, dummy in contenders:
            runs = [run[device] for run in requests.get(key, [])]
            if not runs:
                continue
            reads, read_sectors, writes, write_sectors = (median([run[index] for run in runs]) for index in range(4))
            print('  {0:<22} {1:>9.0f} {2:>10} {3:>9.0f} {4:>10}'.format(
                label, reads, '{0:.0f}'.format(read_sectors / 2.0 / reads) if reads else '-',
                writes, '{0:.0f}'.format(write_sectors / 2.0 / writes) if writes else '-'))


def report_pollution(args, contenders, runs, limit, cgroups):
    print('')
    print('cache pollution: {0} working set read in a fresh cgroup v{1}, limit {2} (working set + {3} headroom), then a {4} copy in the '
          'same group, copy timed until durable; median of {5} rounds'.format(
              mib(args.working_set), cgroups.version, mib(limit), mib(args.memory_headroom), mib(args.pollution_size), args.rounds))
    print('  {0:<22} {1:>13} {2:>13} {3:>13} {4:>9} {5:>11} {6:>10}'.format(
        'contender', 'cached before', 'kept median', 'kept min-max', 'copy s', 'peak MiB', 'limit hits'))
    summary = {}
    for key, label, dummy, dummy in contenders:
        rows = runs[key]
        kept = [row['after'] for row in rows]
        peaks = [row['peak'] for row in rows if row['peak'] is not None]
        summary[key] = kept
        print('  {0:<22} {1:>12.1f}% {2:>12.1f}% {3:>13} {4:>9.2f} {5:>11} {6:>10}'.format(
            label, min(row['before'] for row in rows), median(kept), '{0:.1f}-{1:.1f} %'.format(min(kept), max(kept)),
            median([row['seconds'] for row in rows]), '{0:.0f}'.format(max(peaks) / MIB) if peaks else '-',
            max(row['limit_hits'] for row in rows)))
    setup_ok = all(row['before'] >= CACHED_SETUP and row['charged'] >= CACHED_SETUP for rows in runs.values() for row in rows)
    pressure_ok = max(summary['cp']) < KEPT_GOAL
    kept_ok = min(summary['nocache']) >= KEPT_GOAL
    print('')
    print('  {0:<9} {1:<5} working set >= {2:g} % cached and charged to the group before every copy (min {3:.1f} %)'.format(
        'setup', verdict(setup_ok), CACHED_SETUP, min(min(row['before'], row['charged']) for rows in runs.values() for row in rows)))
    print('  {0:<9} {1:<5} cp keeps < {2:g} % of the working set in every run (max {3:.1f} %)'.format(
        'pressure', verdict(pressure_ok), KEPT_GOAL, max(summary['cp'])))
    if not pressure_ok:
        print('            the copy did not push the working set out, so this run shows nothing about --nocache '
              '(lower --memory-headroom or raise --pollution-size)')
    goal_ok = kept_ok and pressure_ok and setup_ok
    print('  {0:<9} {1:<5} iotune-copy --nocache keeps >= {2:g} % of the working set in every run (min {3:.1f} %){4}'.format(
        'goal', verdict(goal_ok), KEPT_GOAL, min(summary['nocache']), '' if pressure_ok and setup_ok else ': no valid measurement'))
    return [('cache pollution setup', setup_ok), ('cache pollution pressure', pressure_ok), ('iotune-copy --nocache keeps the working set', goal_ok)]


def main(argv=None):
    args = parse_args(argv)
    if args.tool is not None and not os.path.isfile(args.tool):
        print('copy_bench: no iotune-copy at {0}'.format(args.tool), file=sys.stderr)
        return 2
    base = args.dir or '/var/tmp'
    workdir = destdir = None
    cgroups = Cgroups()
    previous = dict((sig, signal.signal(sig, on_signal)) for sig in (signal.SIGINT, signal.SIGTERM))
    status = 2
    try:
        point, fstype, source = check_disk_dir(base, '--dir')
        dest_mount = None
        if args.dest_dir:
            dest_mount = check_disk_dir(args.dest_dir, '--dest-dir')
        pollution = 0 if args.no_pollution else args.working_set + args.pollution_size
        need = {}   # st_dev: [directory, bytes]: the sources and the largest destination, per file system
        for where, count in ((base, args.size + pollution), (args.dest_dir or base, max(args.size, 0 if args.no_pollution else args.pollution_size))):
            need.setdefault(os.stat(where).st_dev, [where, 0])[1] += count
        for where, count in need.values():
            fs = os.statvfs(where)
            if fs.f_bavail * fs.f_frsize < count + (256 << 20):
                raise BenchError('not enough free space in {0}: {1} needed'.format(where, mib(count + (256 << 20))))
        for tool in ('cp', 'dd', 'cmp', 'fincore', 'sync', 'sh'):
            if shutil.which(tool) is None:
                raise BenchError('{0} is not installed'.format(tool))
        workdir = tempfile.mkdtemp(prefix='iotune-copybench-', dir=base)
        destdir = tempfile.mkdtemp(prefix='iotune-copybench-dest-', dir=args.dest_dir) if args.dest_dir else workdir
        if args.tool is None:
            args.tool = build_tool(workdir)
        print('copy bench: iotune-copy vs dd and cp, {0} rounds, interleaved (the two of a goal one right after the other, '
              'which one first alternating)'.format(args.rounds))
        print('iotune-copy {0} run by {1} (Python {2}); {3}; {4}; {5}'.format(
            args.tool, args.python, first_line([args.python, '-c', 'import platform; print(platform.python_version())']),
            first_line(['cp', '--version']), first_line(['dd', '--version']), first_line(['fincore', '--version'])))
        print('sources in {0} ({1} {2} on {3}), destinations in {4}{5}; kernel {6}, {7} CPUs, {8} MiB RAM'.format(
            workdir, fstype, source, point, destdir, ' ({0} {1} on {2})'.format(dest_mount[1], dest_mount[2], dest_mount[0]) if dest_mount else '',
            os.uname().release, os.cpu_count(), os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') >> 20))
        load_start = loadavg()
        bench = Bench(args, workdir, destdir)
        print('before every timed copy: destination removed, sync -f, source fsynced and dropped (POSIX_FADV_DONTNEED), {0:g} s pause, '
              '{1}; after it: both files dropped from the cache and compared (cmp)'.format(
                  args.settle, '{0} of memory faulted in and freed (--warm-memory)'.format(mib(bench.warm)) if bench.warm else 'no memory warm-up'),
              flush=True)
        results = []
        contenders, times = bench.speed()
        startup = bench.startup_ms()
        pollution_result = None
        if not args.no_pollution:
            try:
                cgroups.setup()
                print('cache pollution: a memory cgroup for each copy, {0}'.format(cgroups.describe()), flush=True)
                pollution_result = bench.pollution(cgroups)
            except Skip as exc:
                pollution_result = exc
        results += report_speed(args, contenders, times)
        report_requests(contenders, bench.requests, bench.devices)
        print('  source still cached at the start of a timed copy: at most {0:.1f} %'.format(bench.residual))
        print('  fixed cost in every iotune-copy time: python -I -S -c pass {0:.0f} ms, python -I -S iotune-copy --help {1:.0f} ms '
              '(interpreter start and the tool\'s imports)'.format(*startup))
        print('  ratio = median over the rounds of the ratio of the two times of a round (paired); of medians = rate / rate on the median '
              'times; {0}, cov = sample standard deviation / mean of the times; user s, sys s: median CPU time of the copy process'.format(
                  NOISE_FORMULA))
        skipped = None
        if isinstance(pollution_result, Skip):
            skipped = str(pollution_result)
            print('')
            print('cache pollution: SKIP ({0})'.format(skipped))
        elif pollution_result is not None:
            results += report_pollution(args, *pollution_result, cgroups=cgroups)
        print('load average {0} at the start, {1} at the end'.format(load_start, loadavg()))
        failed = [name for name, ok in results if not ok]
        extra = ' (cache pollution SKIPPED: {0})'.format(skipped) if skipped else (' (cache pollution not run)' if args.no_pollution else '')
        print('RESULT: {0}{1}'.format('PASS' if not failed else 'FAIL ({0})'.format(', '.join(failed)), extra))
        status = 1 if failed else 0
    except BenchError as exc:
        print('copy_bench: {0}'.format(exc), file=sys.stderr)
        status = 2
    except (Interrupted, KeyboardInterrupt) as exc:
        print('copy_bench: interrupted ({0}), cleaning up'.format(exc or 'SIGINT'), file=sys.stderr)
        status = 130
    finally:
        # ignore further signals while removing what was created
        for sig in previous:
            signal.signal(sig, signal.SIG_IGN)
        problems = cgroups.cleanup()
        for path in (workdir, destdir):
            if path is not None:
                shutil.rmtree(path, ignore_errors=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for problem in problems:
            print('copy_bench: {0}'.format(problem), file=sys.stderr)
    return status


if __name__ == '__main__':
    sys.exit(main())
