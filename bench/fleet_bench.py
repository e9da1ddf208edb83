# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet bench: the playbooks' wall time against Ansible's floor (one round trip per host, `ansible -m ping`).

For each fleet size N (``--sizes``, default 10,40,100), on N fresh lab containers named
``iotune-bench-1`` ... (``lab/fleet up``: image iotune-lab/debian12:latest, built by
lab/container-image when missing, never pulled; a tmpfs at /mnt/scratch, an fstab line, a
tunefstab and old copy tools, one policy and a different drift on each host), times side by side
in one run, with the docker connection (community.docker.docker), forks 10 and pipelining:

  ping       ``ansible all -m ping``, after a warm-up ping, before each run and after the last: the
             denominator of a run is the mean of the pings just before and just after it, so that a
             machine whose speed drifts over the minutes of a size (ping at 100 hosts took 26 s and,
             an hour later, 36 s on the same machine) does not skew the ratios of the runs far from
             one ping
  audit      ``audit_io.yml``: must change nothing and find drift on every host
  harden 1   ``harden_io.yml``: must change every host and leave no drift, nothing not persistent,
             no error in its reports, in one round trip per host (no host warned of a second one:
             the copy tools' content resent)
  harden 2   ``harden_io.yml`` again: must report changed=0 on every host, in the play recap and
             in its reports
  rollback   ``rollback_io.yml -e iotune_run_id=<the first harden's>``: must change every host and
             bring every managed file and the live options of /mnt/scratch back to the digest
             taken before the audit (``lab/fleet digest``)

The four runs go twice on the same hosts: a first cycle on the new hosts, where each host compiles
the collection's Python into its byte-code cache (common.bytecode; printed in a table of its own,
no goal), then the same cycle again, which the goals apply to: a fleet is audited and hardened
again and again, and only its first run of a collection version fills the cache.

Every run's exit status is checked and its play recap must name exactly the fleet's hosts with
failed=0 and unreachable=0. The tables show each run's seconds and its ratio to ping, then the
goals of issue 41, each PASS or FAIL with the measured value:

  audit/ping <= 1.5, first harden/ping <= 2.0, second harden/ping <= 1.5, rollback/ping <= 1.5
  at every size, and no ratio growing by more than 10 % from the smallest size to the largest
  (only when 10 and 100 are among the sizes).

After each size's first harden (every container at its largest) the bench reads what the
containers use (``docker stats``: the memory of each, summed) and how far the controller's
MemAvailable fell since before the containers were started, and prints both.

The containers are removed after each size, at the end, and on Ctrl-C or SIGTERM (the running
ansible process group gets SIGINT first). The bench refuses to start while containers named
``<prefix>-<n>`` exist (another fleet bench running, or one killed hard: ``lab/fleet down
iotune-bench`` removes them). Ansible runs with a generated ansible.cfg in a temporary directory
(forks, pipelining, host_key_checking off, the default stdout callback), the ansible and
ansible-playbook beside this Python (the .venv of make bench) or else on PATH, and the collection
from ANSIBLE_COLLECTIONS_PATH (make bench sets it). Python 3 standard library only.
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

from _common import Interrupted, loadavg, median, mem_available, on_signal, stop_group

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLEET = os.path.join(ROOT, 'lab', 'fleet')
IMAGE_SCRIPT = os.path.join(ROOT, 'lab', 'container-image')
IMAGE = 'iotune-lab/debian12:latest'
PREFIX = 'iotune-bench'
# (key, column title, playbook)
RUNS = (
    ('audit', 'audit_io', 'audit_io'),
    ('harden1', 'harden_io 1st', 'harden_io'),
    ('harden2', 'harden_io 2nd', 'harden_io'),
    ('rollback', 'rollback_io', 'rollback_io'),
)
# (key, label, largest ratio to ping)
GOALS = (
    ('audit', 'audit/ping', 1.5),
    ('harden1', 'first harden/ping', 2.0),
    ('harden2', 'second harden/ping', 1.5),
    ('rollback', 'rollback/ping', 1.5),
)
GROWTH = 0.10
GROWTH_FROM, GROWTH_TO = 10, 100
MIB = 1 << 20
MEMORY_UNITS = {'B': 1, 'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30, 'TiB': 1 << 40, 'kB': 1000, 'MB': 10 ** 6, 'GB': 10 ** 9}
MEMORY_RE = re.compile(r'^\s*([0-9.]+)\s*([A-Za-z]+)\s*/')
RECAP_RE = re.compile(r'^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)', re.M)
PING_RE = re.compile(r'^(\S+) \| SUCCESS => ', re.M)
# io_policy's warning when a host's fact of its copy tools was wrong and the content went in a second round trip
SECOND_TRIP = 'a second round trip'
EXIT_STATUS = ('exit status: 0 every run right and every goal met; 1 every run right but a goal missed; '
               '2 a run failed or did not do what it must (or the bench could not run); 130 interrupted')


class BenchError(Exception):
    """A run failed or did the wrong thing, or the bench cannot run; the message says why."""


# --------------------------------------------------------------------------- processes

def tool(name):
    """The ansible command beside this Python (the .venv make bench uses), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which(name)
    if found is None:
        raise BenchError('{0} is neither beside {1} nor on PATH'.format(name, sys.executable))
    return found


def run(argv, env=None, log=None, what=None):
    """Run argv in its own process group; (seconds, its stdout then its stderr, where Ansible's warnings go).
    Its output goes to log (when given).

    BenchError when it exits non-zero; on an interruption the whole group is stopped (SIGINT, then SIGKILL).
    """
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            universal_newlines=True)
    try:
        out, err = proc.communicate()
    except BaseException:
        stop_group(proc)
        raise
    seconds = time.monotonic() - started
    if log:
        with open(log, 'w') as handle:
            handle.write('$ {0}\n{1}{2}'.format(' '.join(argv), out, err))
    if proc.returncode != 0:
        tail = (out + err).strip()[-3000:]
        raise BenchError('{0} failed (rc={1}){2}:\n{3}'.format(
            what or ' '.join(argv), proc.returncode, ', log ' + log if log else '', tail))
    return seconds, out + err


def fleet(*args):
    """lab/fleet's JSON answer."""
    return json.loads(run([sys.executable, FLEET] + list(args), what='lab/fleet ' + args[0])[1])


def bench_containers(prefix):
    out = run(['docker', 'ps', '-a', '--filter', 'name=^{0}-[0-9]+$'.format(prefix), '--format', '{{.Names}}'],
              what='docker ps')[1]
    return out.split()


def ensure_image():
    """The lab image, built by lab/container-image when it is missing (never pulled); its id."""
    found = subprocess.run(['docker', 'image', 'inspect', '--format', '{{.Id}}', IMAGE], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, universal_newlines=True, check=False)
    if found.returncode != 0:
        print('{0} is missing: building it with lab/container-image (no registry is used)'.format(IMAGE), flush=True)
        proc = subprocess.Popen([IMAGE_SCRIPT], stdout=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait()
        except BaseException:
            stop_group(proc)
            raise
        if proc.returncode != 0:
            raise BenchError('lab/container-image failed (rc={0})'.format(proc.returncode))
        found = subprocess.run(['docker', 'image', 'inspect', '--format', '{{.Id}}', IMAGE], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True, check=False)
        if found.returncode != 0:
            raise BenchError('lab/container-image did not leave {0}: {1}'.format(IMAGE, found.stderr.strip()))
    return found.stdout.strip()


# --------------------------------------------------------------------------- checks

def recap(output, hosts, what):
    """{host: changed} of the play recap, which must name exactly the hosts, each with failed=0 and unreachable=0."""
    rows = RECAP_RE.findall(output)
    named = sorted(host for host, dummy, dummy, dummy, dummy in rows)
    if named != sorted(hosts):
        raise BenchError('{0}: the play recap names {1}, the fleet is {2}'.format(what, named, sorted(hosts)))
    bad = ['{0} (unreachable={1}, failed={2})'.format(host, unreachable, failed)
           for host, dummy, dummy, unreachable, failed in rows if int(unreachable) or int(failed)]
    if bad:
        raise BenchError('{0}: {1}'.format(what, ', '.join(bad)))
    return dict((host, int(changed)) for host, dummy, changed, dummy, dummy in rows)


def report_summary(report_dir, hosts, what):
    """{host: summary} of the fleet report's summary.json (the counts of each status and of changes)."""
    path = os.path.join(report_dir, 'summary.json')
    try:
        with open(path) as handle:
            by_host = json.load(handle)['by_host']
    except (OSError, ValueError, KeyError) as exc:
        raise BenchError('{0}: no fleet report at {1}: {2}'.format(what, path, exc))
    if sorted(by_host) != sorted(hosts):
        raise BenchError('{0}: the fleet report names {1}, the fleet is {2}'.format(what, sorted(by_host), sorted(hosts)))
    return by_host


def hosts_where(mapping, test):
    return sorted(host for host, value in mapping.items() if test(value))


def check_run(key, changed, summary):
    """BenchError when a run did not do what it must (changed: {host: changed tasks}; summary: report or None)."""
    problems = []
    if key == 'audit':
        problems += [('changed something on', hosts_where(changed, bool)),
                     ('found no drift on', hosts_where(summary, lambda s: not s['drift'] + s['not_persistent'])),
                     ('reports an error on', hosts_where(summary, lambda s: s['error']))]
    elif key in ('harden1', 'harden2'):
        if key == 'harden1':
            problems += [('changed nothing on', hosts_where(changed, lambda count: not count)),
                         ('reports no change on', hosts_where(summary, lambda s: not s['changed']))]
        else:
            problems += [('changed something (play recap) on', hosts_where(changed, bool)),
                         ('reports a change on', hosts_where(summary, lambda s: s['changed']))]
        problems += [('left drift or a setting not persistent on', hosts_where(summary, lambda s: s['drift'] + s['not_persistent'])),
                     ('reports an error on', hosts_where(summary, lambda s: s['error']))]
    elif key == 'rollback':
        problems += [('changed nothing on', hosts_where(changed, lambda count: not count))]
    found = ['{0} {1}'.format(text, ', '.join(hosts)) for text, hosts in problems if hosts]
    if found:
        raise BenchError('{0}: {1}'.format(key, '; '.join(found)))


# --------------------------------------------------------------------------- memory

def parse_memory_usage(text):
    """Bytes of docker stats' MemUsage (``12.5MiB / 23.4GiB``: the part before the slash); BenchError otherwise."""
    match = MEMORY_RE.match(text)
    if not match or match.group(2) not in MEMORY_UNITS:
        raise BenchError('docker stats: cannot read the memory use {0!r}'.format(text))
    return int(float(match.group(1)) * MEMORY_UNITS[match.group(2)])


def containers_memory(prefix):
    """(containers, bytes): the memory docker stats reports for the containers named prefix-N, summed."""
    out = run(['docker', 'stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}'], what='docker stats')[1]
    used = [parse_memory_usage(line.split(' ', 1)[1]) for line in out.splitlines()
            if re.match(r'^{0}-[0-9]+ '.format(re.escape(prefix)), line)]
    return len(used), sum(used)


# --------------------------------------------------------------------------- measuring

class Bench(object):

    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.prefix = args.prefix
        self.started = False    # containers of this bench may exist: remove them at the end
        self.memory = {}        # size: (bytes the containers use, bytes MemAvailable fell) after the first harden
        self.ansible = tool('ansible')
        self.playbook = tool('ansible-playbook')
        config = os.path.join(work, 'ansible.cfg')
        with open(config, 'w') as handle:
            handle.write('[defaults]\nforks = {0}\nhost_key_checking = False\nretry_files_enabled = False\n'
                         'stdout_callback = default\nnocolor = True\n\n[connection]\npipelining = True\n'.format(args.forks))
        # the file keeps ~/.ansible.cfg and a stray ansible.cfg out; the variables win over ANSIBLE_* from outside
        self.env = dict(os.environ, ANSIBLE_CONFIG=config, ANSIBLE_FORKS=str(args.forks), ANSIBLE_PIPELINING='true',
                        ANSIBLE_HOST_KEY_CHECKING='false', ANSIBLE_STDOUT_CALLBACK='default', ANSIBLE_NOCOLOR='true',
                        ANSIBLE_FORCE_COLOR='false', ANSIBLE_RETRY_FILES_ENABLED='false')
        self.env.pop('ANSIBLE_CALLBACKS_ENABLED', None)     # no timing or profiling callbacks in the timed runs

    def log(self, name):
        return os.path.join(self.work, name + '.log')

    def ping(self, inventory, hosts, name):
        seconds, out = run([self.ansible, 'all', '-i', inventory, '-m', 'ansible.builtin.ping'], self.env,
                           self.log(name), 'ansible -m ping')
        answered = sorted(PING_RE.findall(out))
        if answered != sorted(hosts):
            raise BenchError('ping: SUCCESS from {0}, the fleet is {1} (log {2})'.format(answered, sorted(hosts), self.log(name)))
        return seconds

    def cycle(self, inventory, hosts, size, before, label, available):
        """The four runs in order, each checked and timed between two pings: {key: seconds, 'ping': the median of the
        cycle's pings, 'floor': {key: the mean of the pings just before and after the run}}. The rollback must bring
        every host back to ``before`` (lab/fleet digest)."""
        harden_run = 'bench-{0}-{1}-harden1'.format(size, label)
        pings = [self.ping(inventory, hosts, 'ping-{0}-{1}-0'.format(size, label))]
        times = {'floor': {}}
        for index, (key, title, book) in enumerate(RUNS):
            run_id = harden_run if key == 'rollback' else 'bench-{0}-{1}-{2}'.format(size, label, key)
            reports = os.path.join(self.work, 'reports-{0}-{1}-{2}'.format(size, label, key))
            argv = [self.playbook, '-i', inventory, 'iotune.storage.' + book, '-e', 'iotune_run_id=' + run_id,
                    '-e', 'iotune_report_dir=' + reports]
            name = '{0}-{1}-{2}'.format(key, size, label)
            seconds, out = run(argv, self.env, self.log(name), title)
            try:
                if key.startswith('harden') and SECOND_TRIP in out:
                    raise BenchError('{0}: {1} host(s) needed {2} (io_policy warned)'.format(title, out.count(SECOND_TRIP), SECOND_TRIP))
                changed = recap(out, hosts, key)
                summary = report_summary(reports, hosts, key) if key != 'rollback' else None
                check_run(key, changed, summary)
            except BenchError as exc:
                raise BenchError('{0} (log {1})'.format(exc, self.log(name)))
            times[key] = seconds
            pings.append(self.ping(inventory, hosts, 'ping-{0}-{1}-{2}'.format(size, label, index + 1)))
            times['floor'][key] = (pings[-2] + pings[-1]) / 2
            print('  {0} {1:.2f} s ({2:.2f}x ping: {3:.2f} s before, {4:.2f} s after), changed on {5} of {6} hosts'.format(
                title, seconds, seconds / times['floor'][key], pings[-2], pings[-1], len(hosts_where(changed, bool)), len(hosts)),
                flush=True)
            if key == 'harden1' and label == 'again':
                counted, used = containers_memory(self.prefix)
                self.memory[size] = (used, available - mem_available(BenchError))
                print('  memory after the first harden: {0} containers use {1:.0f} MiB (docker stats), {2:.1f} MiB each; '
                      'MemAvailable {3:+.0f} MiB since before they started'.format(
                          counted, used / MIB, used / MIB / max(counted, 1), -self.memory[size][1] / MIB), flush=True)
        after = fleet('digest', self.prefix)
        differs = sorted(host for host in before if before[host] != after.get(host))
        if differs:
            detail = dict((host, dict((name, (value, after.get(host, {}).get(name))) for name, value in before[host].items()
                                      if value != after.get(host, {}).get(name))) for host in differs)
            raise BenchError('after rollback_io.yml the managed files or live options differ from before on {0}: {1}'.format(
                ', '.join(differs), json.dumps(detail, sort_keys=True)))
        print('  rollback brought every host back to its digest from before', flush=True)
        times['ping'] = median(pings)
        return times

    def measure(self, size):
        """({key: seconds} of the first cycle on the new hosts, of the second) at one fleet size, every run checked."""
        inventory = os.path.join(self.work, 'inventory-{0}.json'.format(size))
        self.started = True
        available = mem_available(BenchError)
        hosts = fleet('up', self.prefix, str(size), inventory)
        before = fleet('digest', self.prefix)
        if sorted(before) != sorted(hosts):
            raise BenchError('lab/fleet digest names {0}, the fleet is {1}'.format(sorted(before), sorted(hosts)))
        print('  {0} containers up; warm-up ping'.format(size), flush=True)
        self.ping(inventory, hosts, 'ping-{0}-warmup'.format(size))
        print('  first cycle on the new hosts (each host compiles the collection\'s Python into its byte-code cache):', flush=True)
        first = self.cycle(inventory, hosts, size, before, 'first', available)
        print('  the same again, with the hosts\' byte-code caches filled by the first cycle (the goals apply to this one):', flush=True)
        times = self.cycle(inventory, hosts, size, before, 'again', available)
        fleet('down', self.prefix)
        return first, times

    def cleanup(self):
        """Remove the containers this bench may have started; a problem or None."""
        if not self.started:
            return None
        done = subprocess.run([sys.executable, FLEET, 'down', self.prefix], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              universal_newlines=True, check=False)
        return None if done.returncode == 0 else 'lab/fleet down {0} failed: {1}'.format(self.prefix, done.stderr.strip())


# --------------------------------------------------------------------------- report

def ratios(times):
    """{key: the run's seconds over the mean of the pings just before and after it}."""
    return dict((key, times[key] / times['floor'][key]) for key, dummy, dummy in GOALS)


def table(rows, markdown):
    head = ['hosts', 'ping'] + [title for dummy, title, dummy in RUNS]
    lines = []
    for size, times in rows:
        ratio = ratios(times)
        lines.append([str(size), '{0:.2f} s'.format(times['ping'])] +
                     ['{0:.2f} s ({1:.2f}x)'.format(times[key], ratio[key]) for key, dummy, dummy in RUNS])
    if markdown:
        return '\n'.join(['| {0} |'.format(' | '.join(head)), '|' + '---|' * len(head)] +
                         ['| {0} |'.format(' | '.join(line)) for line in lines])
    widths = [max(len(row[index]) for row in [head] + lines) for index in range(len(head))]
    return '\n'.join('  ' + '  '.join(cell.rjust(width) for cell, width in zip(row, widths)) for row in [head] + lines)


def goals(rows):
    """[(passed, sentence)] of every goal that these sizes measure."""
    verdicts = []
    for size, times in rows:
        ratio = ratios(times)
        for key, label, limit in GOALS:
            value = round(ratio[key], 2)
            verdicts.append((value <= limit, '{0} at {1} hosts: {2:.2f} (goal <= {3:.1f})'.format(label, size, value, limit)))
    by_size = dict(rows)
    if GROWTH_FROM in by_size and GROWTH_TO in by_size:
        small, large = ratios(by_size[GROWTH_FROM]), ratios(by_size[GROWTH_TO])
        for key, label, dummy in GOALS:
            growth = round((large[key] / small[key] - 1) * 100, 1)
            verdicts.append((growth <= GROWTH * 100, '{0} from {1} to {2} hosts: {3:.2f} -> {4:.2f}, {5:+.1f} % (goal <= +{6:.0f} %)'.format(
                label, GROWTH_FROM, GROWTH_TO, small[key], large[key], growth, GROWTH * 100)))
    return verdicts


def first_line(argv):
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False).stdout
    except OSError as exc:
        return '{0}: {1}'.format(argv[0], exc.strerror)
    return (out.splitlines() or [''])[0].strip()


def parse_sizes(text):
    try:
        sizes = sorted(set(int(part) for part in text.split(',') if part.strip()))
    except ValueError:
        raise argparse.ArgumentTypeError('invalid sizes {0!r}: positive integers separated by commas'.format(text))
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError('invalid sizes {0!r}: positive integers separated by commas'.format(text))
    return sizes


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description='Time ansible -m ping, audit_io.yml, a first and a second harden_io.yml and rollback_io.yml side by side '
                    'on N lab containers for each N, check every run, and print each playbook\'s ratio to ping with the goals '
                    '(audit <= 1.5, first harden <= 2.0, second harden <= 1.5, rollback <= 1.5, no ratio growing by more than '
                    '10 % from 10 to 100 hosts), and what the containers use in memory.',
        epilog=EXIT_STATUS + '. Run through make bench or bench/run fleet (they set ANSIBLE_COLLECTIONS_PATH to the built collection).')
    parser.add_argument('--sizes', type=parse_sizes, default='10,40,100',
                        help='fleet sizes, comma-separated (default: %(default)s); the growth goals need 10 and 100')
    parser.add_argument('--forks', type=int, default=10, help='Ansible forks (default: %(default)s)')
    parser.add_argument('--prefix', default=PREFIX, help='container names are PREFIX-1 ... (default: %(default)s)')
    parser.add_argument('--markdown', action='store_true', help='print the table in Markdown (for docs/performance.md)')
    parser.add_argument('--keep', action='store_true', help='keep the work directory (ansible.cfg, inventories, logs, reports); '
                                                            'it is always kept when a run fails')
    args = parser.parse_args(argv)
    if args.forks < 1:
        parser.error('--forks must be at least 1')
    if not os.environ.get('ANSIBLE_COLLECTIONS_PATH'):
        parser.error('ANSIBLE_COLLECTIONS_PATH is not set: run through make bench or bench/run fleet, which build the collection '
                     'and set it')
    return args


def main(argv=None):
    args = parse_args(argv)
    previous = dict((sig, signal.signal(sig, on_signal)) for sig in (signal.SIGINT, signal.SIGTERM))
    work = tempfile.mkdtemp(prefix='iotune-fleet-bench-')
    bench = None
    keep = args.keep
    status = 2
    try:
        if shutil.which('docker') is None:
            raise BenchError('docker is not installed')
        bench = Bench(args, work)
        existing = bench_containers(args.prefix)
        if existing:
            raise BenchError('containers {0} exist: another fleet bench is running, or one was killed; remove them with '
                             'lab/fleet down {1} when they are left over'.format(', '.join(existing), args.prefix))
        image = ensure_image()
        print('fleet bench: {0} containers ({1}, image {2} {3}), docker connection, forks {4}, pipelining; sizes {5}'.format(
            args.prefix + '-N', 'lab/fleet', IMAGE, image[7:19] if image.startswith('sha256:') else image[:12], args.forks,
            ', '.join(str(size) for size in args.sizes)), flush=True)
        print('{0} ({1}); {2}; collections from {3}; kernel {4}, {5} CPUs; work directory {6}'.format(
            first_line([bench.ansible, '--version']), bench.ansible, first_line(['docker', '--version']),
            os.environ['ANSIBLE_COLLECTIONS_PATH'], os.uname().release, os.cpu_count(), work), flush=True)
        load_start = loadavg()
        rows, firsts = [], []
        for size in args.sizes:
            print('fleet of {0}:'.format(size), flush=True)
            first, times = bench.measure(size)
            firsts.append((size, first))
            rows.append((size, times))
        print('')
        print('wall time of each run and its ratio to ping, the mean of the pings just before and after it (the ping column: '
              'the median of the cycle\'s five pings); load average {0} at the start, {1} at the end'.format(load_start, loadavg()))
        print('the first cycle on new hosts (their byte-code caches empty):')
        print(table(firsts, args.markdown))
        print('the second cycle (the goals):')
        print(table(rows, args.markdown))
        for size, (used, fell) in sorted(bench.memory.items()):
            print('  memory at {0} hosts, after the first harden: the containers {1:.0f} MiB ({2:.1f} MiB each), the machine\'s '
                  'MemAvailable {3:+.0f} MiB since before they started (of {4:.0f} MiB in all)'.format(
                      size, used / MIB, used / MIB / size, -fell / MIB, os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / MIB))
        print('')
        verdicts = goals(rows)
        for passed, sentence in verdicts:
            print('  {0}  {1}'.format('PASS' if passed else 'FAIL', sentence))
        if not (GROWTH_FROM in args.sizes and GROWTH_TO in args.sizes):
            print('  (growth goals not measured: they need sizes {0} and {1})'.format(GROWTH_FROM, GROWTH_TO))
        failed = [sentence for passed, sentence in verdicts if not passed]
        print('RESULT: {0}'.format('PASS' if not failed else 'FAIL ({0} of {1} goals missed)'.format(len(failed), len(verdicts))))
        status = 1 if failed else 0
    except BenchError as exc:
        print('fleet_bench: {0}'.format(exc), file=sys.stderr)
        keep = keep or (bench is not None and bench.started)    # the logs of the run that failed
        status = 2
    except (Interrupted, KeyboardInterrupt) as exc:
        print('fleet_bench: interrupted ({0}), removing the containers'.format(exc or 'SIGINT'), file=sys.stderr)
        status = 130
    finally:
        for sig in previous:
            signal.signal(sig, signal.SIG_IGN)
        problem = bench.cleanup() if bench is not None else None
        if keep:
            print('fleet_bench: work directory kept: {0}'.format(work), file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if problem:
            print('fleet_bench: {0}'.format(problem), file=sys.stderr)
            status = status or 2
    return status


if __name__ == '__main__':
    sys.exit(main())
