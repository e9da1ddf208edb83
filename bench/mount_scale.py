# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Mount-option planning at scale (issue 23, S3): 500 mount points against a 10,000-line fstab.

In a temporary directory the bench writes a generated fstab (comments, blank lines, swap, bind
mounts, duplicated and unrequested entries) and a mountinfo (over-mounted mount points among
them), then times the collection's planner as the engine runs it, without touching the host:

- audit: ``plan_mounts`` reads both files and plans (what check mode and io_policy audit run);
- enforce: the same plan with the fstab edits rendered, the new fstab written, the remounts
  simulated by rewriting mountinfo with each change's planned live options (no real remount),
  and the plan run again on the result (the engine plans again after applying).

The previous planner (before issue 23 S3: one pass over every fstab line for each mount point)
is kept in tests/unit/plugins/module_utils/plan/previous_mount_plan.py and timed on the same files in the same run, and
its plans must equal the new ones. Exit status: 0 the plans are equal and the audit takes less
than --goal seconds; 1 the goal is missed; 2 the plans differ or the bench could not run;
130 interrupted.

Python 3 standard library and the collection's module_utils, imported through PYTHONPATH (a
collections root) or else from --coll-root / $ANSIBLE_COLLECTIONS_PATH.
"""

import argparse
import importlib
import os
import random
import shutil
import signal
import sys
import tempfile
import time

from _common import Interrupted, loadavg, median, on_signal

EXIT_STATUS = ('exit status: 0 the plans equal the previous planner\'s and the audit meets the goal; 1 the goal is missed; '
               '2 the plans differ or the bench could not run; 130 interrupted')
PACKAGE = 'ansible_collections.iotune.storage.plugins.module_utils'
# the planner before issue 23 S3, kept once for the unit test and this bench
PREVIOUS = 'ansible_collections.iotune.storage.tests.unit.plugins.module_utils.plan.previous_mount_plan'


class BenchError(Exception):
    """The bench cannot run or found a wrong result; the message says why."""


def load_collection(coll_root):
    """(plan.mount_options, parse.mountinfo) of the collection: from sys.path (PYTHONPATH) when it is there, else from coll_root."""
    try:
        importlib.import_module(PACKAGE + '.plan.mount_options')
    except ImportError:
        if not coll_root or not os.path.isdir(os.path.join(coll_root, 'ansible_collections', 'iotune', 'storage')):
            raise BenchError('iotune.storage is not importable: set PYTHONPATH or ANSIBLE_COLLECTIONS_PATH to a collections '
                             'root, or pass --coll-root (make bench does this)')
        sys.path.insert(0, coll_root)
    return tuple(importlib.import_module(PACKAGE + '.' + name) for name in ('plan.mount_options', 'parse.mountinfo'))


# --------------------------------------------------------------------------- the generated host

# (present, absent) of the requests, in turn
REQUESTS = (
    (['noatime', 'nodev'], []),
    (['nosuid'], ['exec']),
    (['relatime', 'nofail'], ['sync']),
    (['commit=60'], ['nodiratime']),
)
LIVE = ('rw,relatime', 'rw,noatime', 'rw,nosuid,nodev,relatime', 'rw,relatime,sync', 'ro,relatime,nodiratime')
FSTAB_OPTIONS = ('defaults', 'noatime', 'rw,nosuid,nodev', 'defaults,sync', 'commit=5,errors=remount-ro', 'rw,user')


class Host(object):
    """A generated fstab (exactly ``lines`` lines) and mountinfo with ``mounts`` requested mount points.

    Of the requested mount points (by number modulo 25): bind mounts, trailing slashes and escaped
    spaces in fstab, duplicated fstab entries (two lines: an error check), over-mounts (mounted twice,
    the second on top), mounted but not in fstab, in fstab but not mounted, swap files and paths
    neither mounted nor listed; the other lines are comments, blank lines, swap and entries nobody
    requested, in random (seeded) order."""

    def __init__(self, escape, lines=10000, mounts=500, seed=23):
        rng = random.Random(seed)
        self.requests = []
        self.rows = []  # mountinfo rows: [mount id, parent, dev, root, mount point, options, fstype, source, super options]
        fstab = []
        next_id = [100]

        def mount(point, options, fstype='ext4', source='/dev/sda1', root='/'):
            next_id[0] += 1
            self.rows.append([next_id[0], 1, '8:%d' % (next_id[0] % 256), root, point, options, fstype, source, 'rw'])

        self.rows.append([1, 0, '8:1', '/', '/', 'rw,relatime', 'ext4', '/dev/sda1', 'rw,errors=remount-ro'])
        for number in range(mounts):
            point = '/srv/vol%04d' % number
            kind = number % 25
            options = FSTAB_OPTIONS[number % len(FSTAB_OPTIONS)]
            live = LIVE[number % len(LIVE)]
            field = escape(point)
            if kind == 1:
                field += '/'
            elif kind == 2:
                point = '/srv/vol %04d' % number
                field = escape(point)
            if kind == 3:  # a bind mount
                fstab.append('/data/src%04d %s none bind,%s 0 0\n' % (number, field, options))
                mount(point, live, root='/src%04d' % number)
            elif kind == 4:  # listed twice: the planner reports it (the last line is the one mount uses)
                fstab.append('UUID=%08x-aaaa %s ext4 %s 0 2\n' % (number, field, options))
                fstab.append('UUID=%08x-bbbb %s ext4 noatime 0 2\n' % (number, field))
                mount(point, live)
            elif kind == 5:  # mounted, not in fstab
                mount(point, live, fstype='tmpfs', source='tmpfs')
            elif kind == 6:  # in fstab, not mounted
                fstab.append('LABEL=v%04d %s xfs %s,noauto 0 0\n' % (number, field, options))
            elif kind == 7:  # a swap file: not a file system
                point = '/swap/file%04d' % number
                fstab.append('%s none swap sw 0 0\n' % point)
            elif kind == 8:  # neither mounted nor listed
                point = '/srv/gone%04d' % number
            elif kind == 9:  # over-mounted: the entry on top is the visible one
                fstab.append('/dev/vg/lv%04d\t%s\text4\t%s\t0\t2\n' % (number, field, options))
                mount(point, 'ro,noatime', source='/dev/sdz1')
                mount(point, live, source='/dev/vg/lv%04d' % number)
            else:
                fstab.append('/dev/vg/lv%04d\t%s\text4\t%s\t0\t2\n' % (number, field, options))
                mount(point, live, source='/dev/vg/lv%04d' % number)
            present, absent = REQUESTS[number % len(REQUESTS)]
            self.requests.append({'path': point + ('/' if kind == 11 else ''), 'present': list(present), 'absent': list(absent)})
        for extra in range(mounts // 10):  # mounts nobody asked about
            mount('/run/user/%d' % (1000 + extra), 'rw,nosuid,nodev,relatime', fstype='tmpfs', source='tmpfs')
        filler = []
        number = 0
        while len(fstab) + len(filler) < lines - 3:
            number += 1
            kind = number % 10
            if kind == 0:
                filler.append('# export %05d, see the storage ticket\n' % number)
            elif kind == 1:
                filler.append('\n')
            elif kind == 2:
                filler.append('UUID=%08x-5555 none swap sw,pri=%d 0 0\n' % (number, number % 5))
            elif kind == 3:
                filler.append('nas%d:/export/%05d /net/%05d nfs rw,_netdev,noauto 0 0\n' % (number % 4, number, number))
            else:
                filler.append('/dev/mapper/vg-e%05d /export/e%05d xfs %s 0 2\n' % (number, number, FSTAB_OPTIONS[number % len(FSTAB_OPTIONS)]))
        body = fstab + filler
        rng.shuffle(body)
        self.fstab = ''.join(['# /etc/fstab: generated by bench/mount_scale.py\n', '#\n',
                              '/dev/sda1 / ext4 errors=remount-ro 0 1\n'] + body)
        self.escape = escape

    def mountinfo(self):
        return ''.join('%d %d %s %s %s %s - %s %s %s\n' % (
            row[0], row[1], row[2], self.escape(row[3]), self.escape(row[4]), row[5], row[6], self.escape(row[7]), row[8])
            for row in self.rows)

    def remount(self, target, options):
        """What a remount does to mountinfo: the visible (last) mount of target gets options."""
        for row in reversed(self.rows):
            if row[4] == target:
                row[5] = ','.join(options)
                return
        raise BenchError('the plan remounts %s, which is not mounted' % target)

    def write(self, directory):
        """(fstab path, proc root) of the host written under directory."""
        os.makedirs(os.path.join(directory, 'proc', 'self'))
        fstab = os.path.join(directory, 'fstab')
        with open(fstab, 'w', newline='') as handle:
            handle.write(self.fstab)
        with open(os.path.join(directory, 'proc', 'self', 'mountinfo'), 'w') as handle:
            handle.write(self.mountinfo())
        return fstab, os.path.join(directory, 'proc')


# --------------------------------------------------------------------------- the runs

def audit(plan_mounts, host, directory):
    """(seconds, plan) of plan_mounts over the written host."""
    fstab, proc_root = host.write(directory)
    started = time.perf_counter()
    plan = plan_mounts(host.requests, fstab_path=fstab, proc_root=proc_root, remount=True)
    return time.perf_counter() - started, plan


def enforce(plan_mounts, host, directory):
    """(seconds, plan, after plan): plan, write the rendered fstab, simulate the remounts, plan again."""
    fstab, proc_root = host.write(directory)
    started = time.perf_counter()
    plan = plan_mounts(host.requests, fstab_path=fstab, proc_root=proc_root, remount=True)
    if plan['fstab']['changed']:
        with open(fstab, 'w', newline='') as handle:
            handle.write(plan['fstab']['after'])
    remounts = [change for change in plan['changes'] if change['kind'] == 'mount']
    for change in remounts:
        host.remount(change['target'], change['after'])
    if remounts:
        with open(os.path.join(proc_root, 'self', 'mountinfo'), 'w') as handle:
            handle.write(host.mountinfo())
    after = plan_mounts(host.requests, fstab_path=fstab, proc_root=proc_root, remount=True)
    return time.perf_counter() - started, plan, after


def comparable(plan, directory):
    """The plan with the temporary directory's path taken out of every string, so runs in two directories compare."""
    if isinstance(plan, dict):
        return dict((key, comparable(value, directory)) for key, value in plan.items())
    if isinstance(plan, list):
        return [comparable(value, directory) for value in plan]
    if isinstance(plan, str):
        return plan.replace(directory, '<dir>')
    return plan


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description='Time mount-option planning (audit and enforce, no real remount) for many mount points against a long '
                    'fstab, beside the previous planner.', epilog=EXIT_STATUS)
    parser.add_argument('--lines', type=int, default=10000, help='fstab lines (default: %(default)s)')
    parser.add_argument('--mounts', type=int, default=500, help='requested mount points (default: %(default)s)')
    parser.add_argument('--rounds', type=int, default=5, help='runs of the new planner; the median counts (default: %(default)s)')
    parser.add_argument('--goal', type=float, default=1.0, help='largest accepted audit time, in seconds (default: %(default)s)')
    parser.add_argument('--no-previous', action='store_true',
                        help='do not run the previous planner (it takes tens of seconds at the default size)')
    parser.add_argument('--seed', type=int, default=23, help='seed of the generated host (default: %(default)s)')
    parser.add_argument('--coll-root', default=(os.environ.get('ANSIBLE_COLLECTIONS_PATH') or '').split(':')[0],
                        help='collections root holding ansible_collections/iotune/storage, used when PYTHONPATH has none '
                             '(default: $ANSIBLE_COLLECTIONS_PATH)')
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.lines < 100 or args.mounts < 25:
        parser.error('--rounds must be at least 1, --lines at least 100 and --mounts at least 25')
    return args


def main(argv=None):
    args = parse_args(argv)
    previous_handlers = dict((sig, signal.signal(sig, on_signal)) for sig in (signal.SIGINT, signal.SIGTERM))
    work = tempfile.mkdtemp(prefix='iotune-mount-scale-')
    status = 2
    try:
        lib, mountinfo_lib = load_collection(args.coll_root)
        template = Host(mountinfo_lib.escape, args.lines, args.mounts, args.seed)
        print('mount scale: {0} mount points, fstab of {1} lines, mountinfo of {2} lines; {3} from {4}; Python {5}; '
              'load average {6} at the start'.format(
                  len(template.requests), template.fstab.count('\n'), len(template.rows), PACKAGE, os.path.dirname(lib.__file__),
                  sys.version.split()[0], loadavg()), flush=True)
        runs = {'audit': [], 'enforce': []}
        plans = {}
        for round_number in range(args.rounds):
            directory = os.path.join(work, 'new-%d' % round_number)
            seconds, plan = audit(lib.plan_mounts, Host(mountinfo_lib.escape, args.lines, args.mounts, args.seed), directory + 'a')
            runs['audit'].append(seconds)
            plans['audit'] = comparable(plan, directory + 'a')
            seconds, plan, after = enforce(lib.plan_mounts, Host(mountinfo_lib.escape, args.lines, args.mounts, args.seed), directory + 'e')
            runs['enforce'].append(seconds)
            plans['enforce'] = comparable(plan, directory + 'e'), comparable(after, directory + 'e')
        enforce_plan, after = plans['enforce']
        print('plan: {0} checks, {1} fstab edits, {2} remounts; after enforcing: {3} fstab edits and {4} remounts left '
              '(options a remount or an edit cannot change: planned as unresolved)'.format(
                  len(enforce_plan['checks']), sum(1 for c in enforce_plan['changes'] if c['kind'] == 'fstab'),
                  sum(1 for c in enforce_plan['changes'] if c['kind'] == 'mount'),
                  sum(1 for c in after['changes'] if c['kind'] == 'fstab'), sum(1 for c in after['changes'] if c['kind'] == 'mount')))
        if plans['audit'] != enforce_plan:
            raise BenchError('the audit plan and the enforce plan of the same host differ')
        audit_s, enforce_s = median(runs['audit']), median(runs['enforce'])
        previous = None
        if not args.no_previous:
            print('previous planner (one run; it takes a while)...', flush=True)
            directory = os.path.join(work, 'previous')
            previous_plan = importlib.import_module(PREVIOUS).plan_mounts
            old_audit, old_plan = audit(previous_plan, Host(mountinfo_lib.escape, args.lines, args.mounts, args.seed), directory + 'a')
            old_enforce, old_enforce_plan, old_after = enforce(previous_plan, Host(mountinfo_lib.escape, args.lines, args.mounts, args.seed),
                                                               directory + 'e')
            if comparable(old_plan, directory + 'a') != plans['audit']:
                raise BenchError('the audit plan differs from the previous planner\'s')
            if (comparable(old_enforce_plan, directory + 'e'), comparable(old_after, directory + 'e')) != plans['enforce']:
                raise BenchError('the enforce plans differ from the previous planner\'s')
            print('the plans (audit, enforce and the plan after enforcing) equal the previous planner\'s')
            previous = (old_audit, old_enforce)
        print('')
        print('| run | planner (median of {0}) | previous planner (1 run) | speed-up |'.format(args.rounds))
        print('|---|---|---|---|')
        for name, seconds, index in (('audit: plan', audit_s, 0), ('enforce: plan, write, remount (simulated), plan again', enforce_s, 1)):
            if previous:
                print('| {0} | {1:.3f} s | {2:.2f} s | {3:.0f}x |'.format(name, seconds, previous[index], previous[index] / seconds))
            else:
                print('| {0} | {1:.3f} s | not run | |'.format(name, seconds))
        print('')
        print('audit runs: {0}; enforce runs: {1} (seconds); load average {2} at the end'.format(
            ', '.join('%.3f' % s for s in runs['audit']), ', '.join('%.3f' % s for s in runs['enforce']), loadavg()))
        met = audit_s < args.goal
        print('  {0}  audit of {1} mount points against {2} fstab lines in {3:.3f} s (goal: under {4:g} s)'.format(
            'PASS' if met else 'FAIL', len(template.requests), template.fstab.count('\n'), audit_s, args.goal))
        print('RESULT: {0}'.format('PASS' if met else 'FAIL (goal missed)'))
        status = 0 if met else 1
    except BenchError as exc:
        print('mount scale: {0}'.format(exc), file=sys.stderr)
        status = 2
    except Interrupted as exc:
        print('mount scale: interrupted ({0})'.format(exc), file=sys.stderr)
        status = 130
    finally:
        shutil.rmtree(work, ignore_errors=True)
        for sig, handler in previous_handlers.items():
            signal.signal(sig, handler)
    return status


if __name__ == '__main__':
    sys.exit(main())
