# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fidelity of the fio module: the same job through the module and through the fio CLI.

For each job, ROUNDS pairs run interleaved (the first of each pair alternates): the module
as Ansible runs it on a host (``python fio.py args.json``, repeat=1, timed from outside),
and fio run directly with the argv the module reports, on its own empty scratch file of
the same size (fio lays it out in both cases). The module must add at most
``--max-overhead`` % wall time, and its median bandwidth must agree with the CLI's within
the measured noise. Exit status: 0 all checks pass, 1 a check fails, 2 the bench could not
run, 130 interrupted. Every file it creates is under one temporary directory, removed at
the end (also on Ctrl-C or SIGTERM).

Python 3 standard library only; the collection's ``_fio.parse_fio_json`` reads fio's JSON.
"""

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from _common import Interrupted, cov, loadavg, median, mount_of, on_signal, stop_group

PRESETS = ('seq-read', 'seq-write', 'rand-read-4k', 'rand-write-4k', 'mixed-70-30', 'copy-like')
MEMORY_FS = ('tmpfs', 'ramfs', 'devtmpfs', 'hugetlbfs')
MODULE = os.path.join('ansible_collections', 'iotune', 'storage', 'plugins', 'modules', 'fio.py')
MIB = 1048576.0
NOISE_FORMULA = 'noise % = 2 x 100 x sqrt(cov_cli^2 + cov_module^2)'


class BenchError(Exception):
    """The bench cannot run; the message says why."""


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description='Run the same fio job through the iotune.storage.fio module and the fio CLI; '
                    'compare wall time and bandwidth.')
    parser.add_argument('--dir', help='directory on the disk file system to measure (a temporary directory '
                                      'is created inside it and removed); default /var/tmp')
    parser.add_argument('--jobs', default='seq-read,rand-read-4k',
                        help='comma-separated presets of the module (default: %(default)s; one of {0})'.format(', '.join(PRESETS)))
    parser.add_argument('--size', default='256m', help='working set of each job (default: %(default)s)')
    parser.add_argument('--runtime', type=int, default=10,
                        help='seconds each fio run lasts (default: %(default)s, the module\'s own default)')
    parser.add_argument('--rounds', type=int, default=3, help='module/CLI pairs per job, at least 2 (default: %(default)s)')
    parser.add_argument('--buffered', action='store_true', help='buffered I/O instead of direct I/O')
    parser.add_argument('--ioengine', help='ioengine passed to the module (default: the module probes fio)')
    parser.add_argument('--max-overhead', type=float, default=3.0,
                        help='largest accepted wall-time overhead of the module, in %% (default: %(default)s)')
    parser.add_argument('--coll-root', default=(os.environ.get('ANSIBLE_COLLECTIONS_PATH') or '').split(':')[0],
                        help='directory holding ansible_collections/iotune/storage (default: $ANSIBLE_COLLECTIONS_PATH)')
    parser.add_argument('--python', default=sys.executable,
                        help='interpreter that runs the module (needs ansible-core; default: this one)')
    args = parser.parse_args(argv)
    args.jobs = [job.strip() for job in args.jobs.split(',') if job.strip()]
    unknown = [job for job in args.jobs if job not in PRESETS]
    if unknown or not args.jobs:
        parser.error('--jobs: unknown preset(s) {0}; accepted: {1}'.format(', '.join(unknown) or '(none)', ', '.join(PRESETS)))
    if args.rounds < 2:
        parser.error('--rounds must be at least 2 (the noise is measured over the rounds)')
    if args.runtime < 1:
        parser.error('--runtime must be at least 1 second')
    if not args.coll_root:
        parser.error('--coll-root is needed when ANSIBLE_COLLECTIONS_PATH is not set (run through make bench)')
    return args


# --------------------------------------------------------------------------- helpers

def run_process(argv, env=None):
    """Run argv in its own process group; (seconds, rc, stdout, stderr). On an interrupt the group gets
    SIGINT (the module then removes its scratch file, fio stops), then SIGKILL if it lingers."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            start_new_session=True, universal_newlines=True)
    try:
        out, err = proc.communicate()
    except BaseException:
        stop_group(proc)
        raise
    return time.monotonic() - started, proc.returncode, out, err


def total_bw(parsed_jobs):
    """Bytes/s of one fio run: read plus write of every job."""
    return sum(job[direction]['bw_bytes'] for job in parsed_jobs for direction in ('read', 'write')
               if job[direction] is not None)


def with_filename(argv, filename):
    """argv with its --filename= replaced (the module's scratch file no longer exists)."""
    if not any(arg.startswith('--filename=') for arg in argv):
        raise BenchError('the module argv has no --filename=: {0}'.format(' '.join(argv)))
    return [('--filename=' + filename) if arg.startswith('--filename=') else arg for arg in argv]


# --------------------------------------------------------------------------- the bench

class Bench(object):
    def __init__(self, args, workdir, parse_fio_json):
        self.args = args
        self.workdir = workdir
        self.parse_fio_json = parse_fio_json
        self.module = os.path.join(args.coll_root, MODULE)
        self.env = dict(os.environ, PYTHONPATH=args.coll_root, LANG='C', LC_ALL='C')
        self.counter = 0
        self.unlink_s = []

    def module_args(self, job, check_mode=False):
        params = {'directory': self.workdir, 'jobs': [job], 'size': self.args.size, 'runtime': self.args.runtime,
                  'repeat': 1, 'direct': not self.args.buffered}
        if self.args.ioengine:
            params['ioengine'] = self.args.ioengine
        if check_mode:
            params['_ansible_check_mode'] = True
        self.counter += 1
        path = os.path.join(self.workdir, 'args-{0}.json'.format(self.counter))
        with open(path, 'w') as handle:
            json.dump({'ANSIBLE_MODULE_ARGS': params}, handle)
        return path

    def run_module(self, job, check_mode=False):
        path = self.module_args(job, check_mode)
        try:
            seconds, rc, out, err = run_process([self.args.python, self.module, path], env=self.env)
        finally:
            os.unlink(path)
        try:
            result = json.loads(out)
        except ValueError:
            raise BenchError('module run of {0} printed no JSON (rc={1}): {2}'.format(job, rc, (err or out).strip()[-2000:]))
        if rc != 0 or result.get('failed'):
            raise BenchError('module run of {0} failed (rc={1}): {2}'.format(job, rc, result.get('msg')))
        return seconds, result

    def run_cli(self, argv):
        """The same job by hand: create the scratch file, run fio, remove the file - the work the
        module does around fio, so both sides are timed for the same work."""
        self.counter += 1
        scratch = os.path.join(self.workdir, '.cli-fio-{0}'.format(self.counter))
        started = time.monotonic()
        # the module creates an empty file (0600, exclusive) and fio lays it out: the same here
        os.close(os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        try:
            dummy, rc, out, err = run_process(with_filename(argv, scratch))
        finally:
            removing = time.monotonic()
            os.unlink(scratch)
            self.unlink_s.append(time.monotonic() - removing)
        seconds = time.monotonic() - started
        if rc != 0:
            raise BenchError('fio failed (rc={0}): {1}'.format(rc, (err or out).strip()[-2000:]))
        parsed = self.parse_fio_json(out)
        for entry in parsed['jobs']:
            if entry['error']:
                raise BenchError('fio job {0} ended with error {1}'.format(entry['name'], entry['error']))
        return seconds, parsed

    def job(self, job):
        self.unlink_s = []
        dummy, planned = self.run_module(job, check_mode=True)
        template = planned['argv'][0]
        rows = []
        for number in range(self.args.rounds):
            order = ('module', 'cli') if number % 2 == 0 else ('cli', 'module')
            row = {'first': order[0]}
            for side in order:
                if side == 'module':
                    seconds, result = self.run_module(job)
                    ran = result['argv'][0]
                    if with_filename(ran, 'X') != with_filename(template, 'X'):
                        raise BenchError('the module ran {0}, its check mode planned {1}'.format(' '.join(ran), ' '.join(template)))
                    entry = result['results'][0]
                    row['module_s'] = seconds
                    row['module_inner_s'] = result['wall_s']
                    row['module_bw'] = sum(entry[d]['bw_bytes'] for d in ('read', 'write') if entry[d] is not None)
                    row['fio_version'] = result['fio_version']
                    row['ioengine'] = result['ioengine']
                else:
                    seconds, parsed = self.run_cli(template)
                    row['cli_s'] = seconds
                    row['cli_bw'] = total_bw(parsed['jobs'])
                    row['cli_fio_version'] = parsed['fio_version']
            rows.append(row)
            print('  {0} round {1}/{2} ({3} first): module {4:.3f} s {5:.1f} MiB/s, cli {6:.3f} s {7:.1f} MiB/s'.format(
                job, number + 1, self.args.rounds, row['first'], row['module_s'], row['module_bw'] / MIB,
                row['cli_s'], row['cli_bw'] / MIB), flush=True)
        return self.summarise(job, template, rows)

    def summarise(self, job, template, rows):
        col = dict((key, [row[key] for row in rows]) for key in rows[0] if key != 'first')
        module_s, cli_s = median(col['module_s']), median(col['cli_s'])
        module_bw, cli_bw = median(col['module_bw']), median(col['cli_bw'])
        cov_module, cov_cli = cov(col['module_bw']), cov(col['cli_bw'])
        summary = {
            'job': job, 'argv': template, 'rows': rows,
            'module_s': module_s, 'cli_s': cli_s,
            'overhead_ms': (module_s - cli_s) * 1000, 'overhead_pct': (module_s - cli_s) / cli_s * 100,
            'paired_ms': median([row['module_s'] - row['cli_s'] for row in rows]) * 1000,
            'unlink_ms': median(self.unlink_s) * 1000,
            'outside_ms': median([row['module_s'] - row['module_inner_s'] for row in rows]) * 1000,
            'inner_extra_ms': (median(col['module_inner_s']) - cli_s) * 1000,
            'module_bw': module_bw, 'cli_bw': cli_bw, 'cov_module': cov_module, 'cov_cli': cov_cli,
            'diff_pct': (module_bw - cli_bw) / cli_bw * 100,
            'noise_pct': 2 * 100 * math.sqrt(cov_cli ** 2 + cov_module ** 2),
            'fio_version': rows[0]['fio_version'], 'ioengine': rows[0]['ioengine'],
        }
        # judged on the figures as printed (2 decimals), so that the verdict can be checked by eye
        summary['overhead_ok'] = round(summary['overhead_pct'], 2) <= self.args.max_overhead
        summary['bw_ok'] = abs(round(summary['diff_pct'], 2)) <= round(summary['noise_pct'], 2)
        return summary


def verdict(ok):
    return 'PASS' if ok else 'FAIL'


def report(args, summaries):
    limit = args.max_overhead
    for s in summaries:
        shown = with_filename(s['argv'], '<scratch>')
        print('')
        print('{0}: {1}'.format(s['job'], ' '.join(shown)))
        print('  {0:<22} {1:>12} {2:>12}'.format('median of {0} rounds'.format(args.rounds), 'module', 'fio CLI'))
        print('  {0:<22} {1:>12.3f} {2:>12.3f}   overhead {3:+.0f} ms = {4:+.2f} % (limit {5:g} %)   {6}'.format(
            'wall time s', s['module_s'], s['cli_s'], s['overhead_ms'], s['overhead_pct'], limit, verdict(s['overhead_ok'])))
        print('  {0:<22} {1:>12.1f} {2:>12.1f}   diff {3:+.2f} % (noise +-{4:.2f} %)   {5}'.format(
            'bandwidth MiB/s', s['module_bw'] / MIB, s['cli_bw'] / MIB, s['diff_pct'], s['noise_pct'], verdict(s['bw_ok'])))
        print('  {0:<22} {1:>11.2f}% {2:>11.2f}%'.format('bandwidth CoV', s['cov_module'] * 100, s['cov_cli'] * 100))
        print('  module overhead: {0:.0f} ms outside its own clock (interpreter start, imports, arguments, JSON out), '
              '{1:+.0f} ms inside it beyond the CLI run (fio --enghelp probe, meminfo, '
              'parsing);'.format(s['outside_ms'], s['inner_extra_ms']))
        print('  the median of the per-round differences is {0:+.0f} ms; removing the {1} file took {2:.0f} ms after a CLI run '
              '(timed on both sides)'.format(s['paired_ms'], args.size, s['unlink_ms']))
    print('')
    print('overhead % = (module - cli) / cli x 100 on the median wall times; a fixed cost in ms, so the % falls as --runtime grows')
    print('bandwidth diff % = (module - cli) / cli x 100 on the median bandwidths (read + write)')
    print('{0}, cov = sample standard deviation / mean of the bandwidth over the rounds; the diff passes when |diff| <= noise'.format(NOISE_FORMULA))
    failed = [s['job'] for s in summaries if not (s['overhead_ok'] and s['bw_ok'])]
    print('RESULT: {0}'.format('PASS' if not failed else 'FAIL ({0})'.format(', '.join(failed))))
    return 1 if failed else 0


def main(argv=None):
    args = parse_args(argv)
    module = os.path.join(args.coll_root, MODULE)
    if not os.path.isfile(module):
        print('fio_fidelity: no module at {0}; run make collection (or make bench)'.format(module), file=sys.stderr)
        return 2
    sys.path.insert(0, args.coll_root)
    # pylint: disable-next=import-outside-toplevel
    from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import parse_fio_json
    # pylint: disable-next=import-outside-toplevel
    from ansible_collections.iotune.storage.plugins.module_utils.common.units import to_bytes

    base = args.dir or '/var/tmp'
    workdir = None
    previous = dict((sig, signal.signal(sig, on_signal)) for sig in (signal.SIGINT, signal.SIGTERM))
    try:
        try:
            size = to_bytes(args.size)
        except ValueError as exc:
            raise BenchError('--size: {0}'.format(exc))
        if not os.path.isdir(base):
            raise BenchError('--dir {0} is not a directory'.format(base))
        found = mount_of(base)
        if found is None:
            raise BenchError('cannot find the file system of {0} in /proc/self/mountinfo'.format(base))
        point, fstype, source = found
        if fstype in MEMORY_FS:
            raise BenchError('{0} is on {1} ({2}), a memory file system: use --dir on a disk file system'.format(base, fstype, point))
        fs = os.statvfs(base)
        if fs.f_bavail * fs.f_frsize < size + (128 << 20):
            raise BenchError('not enough free space in {0} for a {1} scratch file'.format(base, args.size))
        workdir = tempfile.mkdtemp(prefix='iotune-fidelity-', dir=base)
        print('fio fidelity: module vs fio CLI, {0} rounds per job, interleaved, the first of each pair alternating'.format(args.rounds))
        print('directory {0} ({1} {2} on {3}), size {4}, runtime {5} s, {6} I/O, module run by {7}'.format(
            workdir, fstype, source, point, args.size, args.runtime, 'buffered' if args.buffered else 'direct', args.python), flush=True)
        load_start = loadavg()
        bench = Bench(args, workdir, parse_fio_json)
        summaries = [bench.job(job) for job in args.jobs]
        print('fio {0}, ioengine {1}; load average {2} at the start, {3} at the end ({4} CPUs)'.format(
            summaries[0]['fio_version'], summaries[0]['ioengine'], load_start, loadavg(), os.cpu_count()))
        return report(args, summaries)
    except BenchError as exc:
        print('fio_fidelity: {0}'.format(exc), file=sys.stderr)
        return 2
    except (Interrupted, KeyboardInterrupt) as exc:
        print('fio_fidelity: interrupted ({0}), cleaning up'.format(exc or 'SIGINT'), file=sys.stderr)
        return 130
    finally:
        # ignore further signals while removing what was created
        for sig in previous:
            signal.signal(sig, signal.SIG_IGN)
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


if __name__ == '__main__':
    sys.exit(main())
