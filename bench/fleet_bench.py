# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet bench: the playbooks' wall time against Ansible's floor, one round trip per host.

For each fleet size N, on N lab containers (lab/fleet: one policy, a different drift on each
host; docker connection, forks 10, pipelining), times side by side in one run:
`ansible all -m ping` (median of 3: the floor), audit_io.yml, a first harden_io.yml, a second
one (which must change nothing), and rollback_io.yml (which must bring every managed file and
live mount option back to the digest taken before). Prints one table with each playbook's ratio
to ping, then the goals:

    audit/ping <= 2.0, first harden/ping <= 4.0, second harden/ping <= 3.0, rollback/ping <= 3.0,
    and no ratio growing by more than 15 % from the smallest size to the largest (when >= 40).

Exits 1 when a run fails or checks wrong, 3 when every run is right but a goal is missed.
Standard library only; run through `make bench` (or bench/run fleet), which sets
ANSIBLE_COLLECTIONS_PATH.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from _common import Interrupted, median, on_signal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLEET = os.path.join(ROOT, 'lab', 'fleet')
PREFIX = 'iotune-bench'
PLAYBOOKS = (('audit', 'audit_io'), ('harden1', 'harden_io'), ('harden2', 'harden_io'), ('rollback', 'rollback_io'))
GOALS = {'audit': 2.0, 'harden1': 4.0, 'harden2': 3.0, 'rollback': 3.0}
GROWTH = 0.15
RECAP = re.compile(r'^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)', re.M)


class BenchError(Exception):
    pass


def tool(name):
    """The ansible command beside this Python (the .venv make bench uses), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.path.exists(beside) else (shutil.which(name) or name)


def timed(argv, env, log):
    start = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    with open(log, 'w') as handle:
        handle.write(done.stdout + done.stderr)
    if done.returncode != 0:
        raise BenchError('%s failed (rc=%d), see %s:\n%s' % (' '.join(argv[:3]), done.returncode, log,
                                                            done.stdout[-2000:]))
    return seconds, done.stdout


def recap(output):
    """{host: changed} of the play recap."""
    return dict((host, int(changed)) for host, ok, changed, unreachable, failed in RECAP.findall(output))


def fleet(*args):
    done = subprocess.run([sys.executable, FLEET] + list(args), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BenchError('lab/fleet %s: %s' % (args[0], done.stderr.strip()))
    return json.loads(done.stdout)


def measure(size, work, env):
    """{name: seconds} at one fleet size, every run checked."""
    inventory = os.path.join(work, 'inventory-%d.json' % size)
    reports = os.path.join(work, 'reports-%d' % size)
    hosts = fleet('up', PREFIX, str(size), inventory, '--report-dir', reports)
    before = fleet('digest', PREFIX)
    run_id = 'bench-fleet-%d' % size
    ansible, playbook = tool('ansible'), tool('ansible-playbook')
    timed([ansible, 'all', '-i', inventory, '-m', 'ping'], env, os.path.join(work, 'warmup.log'))
    pings = [timed([ansible, 'all', '-i', inventory, '-m', 'ping'], env, os.path.join(work, 'ping.log'))[0]
             for dummy in range(3)]
    times = {'ping': median(pings)}
    for name, book in PLAYBOOKS:
        argv = [playbook, '-i', inventory, 'iotune.storage.' + book, '-e', 'iotune_run_id=' + run_id]
        seconds, output = timed(argv, env, os.path.join(work, '%s-%d.log' % (name, size)))
        changed = recap(output)
        if sorted(changed) != sorted(hosts):
            raise BenchError('%s: the recap names %s, the fleet is %s' % (name, sorted(changed), hosts))
        if name in ('harden1', 'rollback') and not all(changed.values()):
            raise BenchError('%s changed nothing on %s' % (name, [h for h, c in changed.items() if not c]))
        if name == 'harden2' and any(changed.values()):
            raise BenchError('the second harden changed %s' % dict((h, c) for h, c in changed.items() if c))
        times[name] = seconds
    after = fleet('digest', PREFIX)
    if after != before:
        raise BenchError('after rollback the managed state differs on %s'
                         % [host for host in before if before[host] != after.get(host)])
    return times


def ratios(times):
    return dict((name, times[name] / times['ping']) for name in GOALS)


def table(rows, markdown):
    head = ['hosts', 'ping', 'audit_io', 'harden_io (1st)', 'harden_io (2nd)', 'rollback_io']
    lines = []
    for size, times in rows:
        ratio = ratios(times)
        lines.append([str(size), '%.2f s' % times['ping']] +
                     ['%.2f s (%.2fx)' % (times[name], ratio[name]) for name in ('audit', 'harden1', 'harden2', 'rollback')])
    if markdown:
        return '\n'.join(['| %s |' % ' | '.join(head), '|' + '---|' * len(head)] + ['| %s |' % ' | '.join(l) for l in lines])
    widths = [max(len(row[i]) for row in [head] + lines) for i in range(len(head))]
    return '\n'.join('  '.join(cell.ljust(width) for cell, width in zip(row, widths)) for row in [head] + lines)


def goals(rows):
    """[(passed, sentence)] of every goal."""
    verdicts = []
    for size, times in rows:
        for name, limit in GOALS.items():
            value = ratios(times)[name]
            verdicts.append((value <= limit, '%s/ping at %d hosts: %.2f (goal <= %.1f)' % (name, size, value, limit)))
    sizes = [size for size, dummy in rows]
    if len(rows) > 1 and max(sizes) >= 40:
        small, large = ratios(rows[0][1]), ratios(rows[-1][1])
        for name in GOALS:
            growth = large[name] / small[name] - 1
            verdicts.append((growth <= GROWTH, '%s/ping from %d to %d hosts: %+.0f %% (goal <= +%.0f %%)'
                             % (name, sizes[0], sizes[-1], growth * 100, GROWTH * 100)))
    return verdicts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0], epilog='exit status: 0 all goals met, 1 a run '
                                     'failed or checked wrong, 3 a goal missed, 130 interrupted')
    parser.add_argument('--sizes', default='10,20,40', help='fleet sizes, comma-separated (default 10,20,40)')
    parser.add_argument('--forks', type=int, default=10, help='Ansible forks (default 10)')
    parser.add_argument('--markdown', action='store_true', help='print the table in Markdown (docs/performance.md)')
    parser.add_argument('--keep', action='store_true', help='keep the work directory (logs, reports)')
    args = parser.parse_args(argv)
    sizes = sorted(int(size) for size in args.sizes.split(','))
    if 'ANSIBLE_COLLECTIONS_PATH' not in os.environ:
        parser.error('run through make bench, which builds the collection and sets ANSIBLE_COLLECTIONS_PATH')
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    work = tempfile.mkdtemp(prefix='iotune-fleet-bench-')
    env = dict(os.environ, ANSIBLE_FORKS=str(args.forks), ANSIBLE_PIPELINING='true', ANSIBLE_HOST_KEY_CHECKING='false',
               ANSIBLE_FORCE_COLOR='false', ANSIBLE_NOCOLOR='true', ANSIBLE_RETRY_FILES_ENABLED='false')
    rows = []
    try:
        for size in sizes:
            print('fleet of %d: measuring ...' % size, flush=True)
            rows.append((size, measure(size, work, env)))
            fleet('down', PREFIX)
    except BenchError as exc:
        print('fleet bench: %s' % exc, file=sys.stderr)
        return 1
    except Interrupted:
        return 130
    finally:
        subprocess.run([sys.executable, FLEET, 'down', PREFIX], capture_output=True, check=False)
        if args.keep:
            print('work directory: %s' % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print('lab containers, docker connection, forks %d, pipelining; ping is the median of 3' % args.forks)
    print(table(rows, args.markdown))
    print()
    verdicts = goals(rows)
    for passed, sentence in verdicts:
        print('%s  %s' % ('PASS' if passed else 'FAIL', sentence))
    return 0 if all(passed for passed, dummy in verdicts) else 3


if __name__ == '__main__':
    sys.exit(main())
