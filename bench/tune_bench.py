# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measured tuning on the lab VM (docs/tuning.md): a series of A/A searches, which must answer "no
difference" or "undecided" (never "better") in at least 95 % of them, and two field cases: a known effect,
read-ahead 0 and 4096 against the kernel's default for sequential buffered 16 KiB reads of a file larger
than the VM's RAM, where read-ahead 0 must come out "worse" (each read its own request); and the copy
tool's buffer for a direct copy, installed with cp's 4 KiB (seed 002), which the search must replace by
1 MiB or more. Each answer is printed with what the run could have seen.

``--where vm`` (make bench) boots a lab VM (lab/vm) with one data disk, makes an xfs on it and runs
every search there through the iotune.storage.tune_io module; ``--where local`` (make bench-tiny)
does the same on an xfs on a direct-I/O loop device of this machine (root). The VM or the loop device
is removed at the end, also on Ctrl-C or SIGTERM. Exit status: 0 the goals are met, 1 a goal is
missed, 2 the bench could not run, 130 interrupted.

Python 3 standard library only.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from _common import Interrupted, median, on_signal

VM_NAME = 'iotune-bench-tune'
AA_GOAL = 0.95
PARTS = ('aa', 'read-ahead', 'copy')


class BenchError(Exception):
    """The bench cannot run; the message says why."""


def parse_args(argv):
    parser = argparse.ArgumentParser(description='A/A searches and the read-ahead field case of tune_io, side by side.')
    parser.add_argument('--where', choices=('vm', 'local'), default='vm',
                        help='the lab VM (default) or an xfs loop device on this machine (root)')
    parser.add_argument('--aa', type=int, default=10, help='A/A searches (default: %(default)s)')
    parser.add_argument('--rounds', type=int, default=8, help='rounds of each search (default: %(default)s)')
    parser.add_argument('--runtime', type=int, default=3, help='seconds of each measurement (default: %(default)s)')
    parser.add_argument('--size', default='128m', help='file of each A/A measurement (default: %(default)s)')
    parser.add_argument('--field-size', default='2g',
                        help='file of each read-ahead measurement, larger than the page cache (default: %(default)s)')
    parser.add_argument('--field-runtime', type=int, default=10, help='seconds of each read-ahead measurement (default: %(default)s)')
    parser.add_argument('--candidates', default='0,4096',
                        help='read_ahead_kb values tried against the kernel default (default: %(default)s); with 0 among them, '
                             '0 must come out worse')
    parser.add_argument('--copy-size', default='256m', help='file of each copy measurement (default: %(default)s)')
    parser.add_argument('--disk-size', default='4G', help='the VM data disk or loop file (default: %(default)s)')
    parser.add_argument('--parts', default='aa,read-ahead,copy', help='the parts to run (default: %(default)s)')
    parser.add_argument('--allow-memory', action='store_true',
                        help="decide on figures that look like memory (local: this machine's disk may be a virtual one "
                             "whose host caches)")
    args = parser.parse_args(argv)
    args.parts = [part for part in args.parts.split(',') if part]
    if not args.parts or set(args.parts) - set(PARTS):
        parser.error('--parts: a comma-separated list of %s' % ', '.join(PARTS))
    if args.aa < 1 or args.rounds < 6 or args.runtime < 1:
        parser.error('--aa must be at least 1, --rounds at least 6 (the rule needs them), --runtime at least 1')
    args.candidates = [int(value) for value in args.candidates.split(',') if value.strip()]
    return args


def run(argv, **kwargs):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False, **kwargs)
    if done.returncode != 0:
        raise BenchError('%s failed (rc=%d): %s' % (' '.join(argv[:3]), done.returncode, (done.stderr or done.stdout)[-2000:]))
    return done.stdout


class Target(object):
    """Where the searches run: an inventory, the mount point, and the way to remove it all."""

    def __init__(self, work):
        self.work, self.inventory, self.mount, self.undo = work, os.path.join(work, 'inventory.yml'), None, []

    def close(self):
        for argv in reversed(self.undo):
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def start_vm(target, args):
    target.undo.append(['lab/vm', 'stop', VM_NAME])
    vm = json.loads(run(['lab/vm', 'start', VM_NAME, '--disks', '1', '--disk-size', args.disk_size, '--memory', '1024'])
                    .strip().splitlines()[-1])
    for argv in (['mkfs.xfs', '-q', '-f', '/dev/vdb'], ['install', '-d', '-m', '0755', '/data'], ['mount', '/dev/vdb', '/data']):
        run(['lab/vm', 'ssh', VM_NAME] + argv)
    with open(target.inventory, 'w') as handle:
        handle.write('all:\n  hosts:\n    %s:\n      ansible_host: %s\n      ansible_port: %s\n      ansible_user: %s\n'
                     '      ansible_ssh_private_key_file: %s\n      ansible_ssh_common_args: -o StrictHostKeyChecking=no '
                     '-o UserKnownHostsFile=/dev/null\n      ansible_python_interpreter: /usr/bin/python3\n'
                     % (VM_NAME, vm['host'], vm['port'], vm['user'], vm['key']))
    target.mount = '/data'
    return 'lab VM %s (%s), xfs on vdb (%s)' % (VM_NAME, vm.get('accel'), args.disk_size)


def start_local(target, args):
    if os.geteuid() != 0:
        raise BenchError('--where local needs root (a loop device and a mount)')
    image, mount = os.path.join(target.work, 'xfs.img'), os.path.join(target.work, 'mnt')
    os.mkdir(mount)
    run(['truncate', '-s', args.disk_size, image])
    loop = run(['losetup', '-f', '--show', '--direct-io=on', image]).strip()
    target.undo.append(['losetup', '-d', loop])
    run(['mkfs.xfs', '-q', '-f', loop])
    run(['mount', loop, mount])
    target.undo.append(['umount', mount])
    with open(target.inventory, 'w') as handle:
        handle.write('all:\n  hosts:\n    localhost:\n      ansible_connection: local\n      ansible_python_interpreter: %s\n'
                     % sys.executable)
    target.mount = mount
    return 'this machine, xfs on %s (direct-I/O loop, %s)' % (loop, args.disk_size)


def search(target, request, allow_memory=False):
    """One tune_io search through Ansible (the json callback); the module's result."""
    request = dict(request, allow_memory=allow_memory)
    env = dict(os.environ, ANSIBLE_LOAD_CALLBACK_PLUGINS='1', ANSIBLE_STDOUT_CALLBACK='ansible.builtin.json',
               ANSIBLE_LOCALHOST_WARNING='false', ANSIBLE_PIPELINING='true')
    done = subprocess.run(['ansible', 'all', '-i', target.inventory, '-m', 'iotune.storage.tune_io',
                           '-a', json.dumps(dict(request, target=target.mount))],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env, check=False)
    try:
        hosts = json.loads(done.stdout)['plays'][0]['tasks'][0]['hosts']
    except (ValueError, KeyError, IndexError):
        raise BenchError('tune_io gave no result (rc=%d): %s' % (done.returncode, (done.stderr or done.stdout)[-2000:]))
    result = list(hosts.values())[0]
    if result.get('failed') or result.get('unreachable'):
        raise BenchError('tune_io failed: %s' % result.get('msg'))
    if result['state_digest']['before'] != result['state_digest']['after']:
        raise BenchError('the state digest changed during a search: %s' % result['state_digest'])
    return result


def _seen(verdict):
    """What a run that did not decide could have seen: the largest effect its interval allows, as a percentage."""
    if verdict.get('detectable') is None or verdict['outcome'] not in ('no-difference', 'undecided'):
        return '-'
    return '%.0f %%' % (100 * verdict['detectable'])


def verdict_line(label, result):
    verdict = result['decision']['verdicts'][0]
    interval = '%.3f-%.3f' % tuple(verdict['interval']) if verdict['interval'] else '-'
    modes = 'two' if result['decision']['modes'] else 'one'
    spread = result['decision'].get('spread') or {}
    line = '%-6s %6d %8.3f %13s %5s  %-14s %8s %6.2f %6.1f s' % (label, verdict['rounds'], verdict['effect'], interval, modes,
                                                                 verdict['outcome'], _seen(verdict), spread.get('ratio') or 0,
                                                                 result['elapsed_seconds'])
    if result.get('reached', {}).get('medium') != 'device':
        line += '\n       %s: %s' % (result['reached']['medium'], '; '.join(result['reached']['reasons']))
    return line


def aa_series(target, args):
    """(kept, answers): the searches that kept the current value, and each search's outcome."""
    print('A/A searches: the current value against itself, %d rounds of %d s on %s files' % (args.rounds, args.runtime, args.size))
    columns = ('search', 'rounds', 'effect', 'interval', 'modes', 'outcome', 'seen', 'spread', 'time')
    print('%-6s %6s %8s %13s %5s  %-14s %8s %6s %8s' % columns)
    kept, answers = 0, []
    for number in range(1, args.aa + 1):
        result = search(target, {'settings': {'read_ahead_kb': [128]}, 'aa': True, 'workload': 'seq-read-direct',
                                 'size': args.size, 'runtime': args.runtime, 'rounds': args.rounds, 'max_seconds': 3600},
                        args.allow_memory)
        kept += result['decision']['recommended'] is None
        answers.append(result['decision']['verdicts'][0]['outcome'])
        print(verdict_line('%d' % number, result))
        sys.stdout.flush()
    return kept, answers


def print_verdicts(result):
    """Each candidate's verdict, the medians, the answer."""
    print('%-22s %6s %8s %13s %5s  %-14s %8s %5s' % ('candidate', 'rounds', 'effect', 'interval', 'modes', 'outcome', 'seen', 'lost'))
    for verdict in result['decision']['verdicts']:
        interval = '%.3f-%.3f' % tuple(verdict['interval']) if verdict['interval'] else '-'
        modes = 'two' if result['decision']['modes'] else 'one'
        row = (verdict['candidate'], verdict['rounds'], verdict['effect'] or 0, interval, modes, verdict['outcome'], _seen(verdict),
               verdict.get('lost'))
        print('%-22s %6d %8.3f %13s %5s  %-14s %8s %5s' % row)
    medians = {}
    for name in ['current'] + [verdict['candidate'] for verdict in result['decision']['verdicts']]:
        medians[name] = median([measured[name] for measured in result['rounds'] if name in measured]) / 1048576.0
    print('median MiB/s: ' + ', '.join('%s %.0f' % item for item in sorted(medians.items())))
    print('reached: %s %s' % (result['reached']['medium'], '; '.join(result['reached']['reasons'] or result['reached']['chain'])))
    print(result['msg'])


# the known effect: sequential buffered 16 KiB reads of a new file whose pages fio drops first; without read-ahead
# each read is its own request to the disk
FIELD_WORKLOAD = {'name': 'seq-read-16k', 'rw': 'read', 'bs': '16k', 'direct': False, 'ioengine': 'psync',
                  'options': {'invalidate': 1}}


def field_case(target, args):
    print('\nread-ahead for a sequential buffered read (16 KiB reads of a new %s file, read once, %d s at most), '
          'the kernel default against %s' % (args.field_size, args.field_runtime, ', '.join(map(str, args.candidates))))
    result = search(target, {'settings': {'read_ahead_kb': args.candidates}, 'workload': FIELD_WORKLOAD,
                             'size': args.field_size, 'runtime': args.field_runtime, 'rounds': args.rounds, 'max_seconds': 7200},
                    args.allow_memory)
    print('current read_ahead_kb: %s (%s)' % (result['current']['read_ahead_kb'], result['device']['name']))
    print_verdicts(result)
    return result


def install_copy_tools(target):
    """The copy tools on the target with cp's 4 KiB buffer, through the copy_tools role; (tool, config)."""
    local = target.mount != '/data'
    bin_dir = os.path.join(target.work, 'bin') if local else '/usr/local/bin'
    config = os.path.join(target.work, 'copy.conf') if local else '/etc/iotune/copy.conf'
    play = os.path.join(target.work, 'copy_tools.yml')
    with open(play, 'w') as handle:
        handle.write('- hosts: all\n  gather_facts: false\n  roles: [iotune.storage.copy_tools]\n')
    extra = {'copy_tools_bin_dir': bin_dir, 'copy_tools_config': config, 'copy_tools_buffer_size': '4k',
             'iotune_journal_dir': os.path.join(target.work, 'journal') if local else '/var/lib/iotune/journal'}
    run(['ansible-playbook', '-i', target.inventory, play, '-e', json.dumps(extra)],
        env=dict(os.environ, ANSIBLE_LOCALHOST_WARNING='false', ANSIBLE_PIPELINING='true'))
    return os.path.join(bin_dir, 'iotune-copy'), config


def copy_case(target, args):
    tool, config = install_copy_tools(target)
    print('\ncopy tool buffer for a direct copy of a new %s file (installed with 4k, as cp), against 1m and 8m' % args.copy_size)
    result = search(target, {'settings': {'buffer_size': ['1m', '8m']}, 'workload': 'copy', 'copy_direct': True,
                             'copy_tool': tool, 'copy_config': config, 'size': args.copy_size, 'rounds': args.rounds,
                             'max_seconds': 7200}, args.allow_memory)
    print_verdicts(result)
    return result


def main(argv):
    args = parse_args(argv)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    work = tempfile.mkdtemp(prefix='iotune-tune-bench-')
    target = Target(work)
    try:
        where = (start_vm if args.where == 'vm' else start_local)(target, args)
        print('tune_io on ' + where)
        kept, answers = aa_series(target, args) if 'aa' in args.parts else (None, [])
        found = field_case(target, args) if 'read-ahead' in args.parts else None
        copied = copy_case(target, args) if 'copy' in args.parts else None
    except BenchError as exc:
        print('tune_bench: %s' % exc, file=sys.stderr)
        return 2
    except Interrupted:
        return 130
    finally:
        target.close()
        shutil.rmtree(work, ignore_errors=True)
    results, met = [], True
    if kept is not None:
        met = kept >= AA_GOAL * args.aa and 'better' not in answers
        results.append('A/A kept the current value in %d of %d searches (%.0f %%, goal at least %.0f %% and never better: %s)'
                       % (kept, args.aa, 100.0 * kept / args.aa, 100 * AA_GOAL,
                          ', '.join('%d %s' % (answers.count(answer), answer) for answer in sorted(set(answers)))))
    if copied is not None:
        # every candidate is 1 MiB or more: any recommendation meets the goal
        met = met and copied['recommended'].get('buffer_size') is not None
        results.append('copy buffer: %s (goal: 1m or more over 4k)' % copied['msg'])
    if found is not None:
        outcomes = dict((verdict['candidate'], verdict['outcome']) for verdict in found['decision']['verdicts'])
        if 'read_ahead_kb=0' in outcomes:
            # the known effect: without read-ahead every 16 KiB read waits for the disk
            met = met and outcomes['read_ahead_kb=0'] == 'worse'
            results.append('read-ahead 0 %s (goal: worse)' % outcomes['read_ahead_kb=0'])
        results.append('read-ahead: %s' % found['msg'])
    print('RESULT: ' + '; '.join(results))
    return 0 if met else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
