# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Faults injected into real module runs (issue 18); see runme.sh for the machine it needs.

Every case takes a digest of the state (the alternate fstab with its mode and xattrs, the live
options of both mounts, both loop devices' queue values, the sysctl files and the link, the
journal file system's stray files) before its fault and checks, after the fault and the
rollback, that the digest is back byte for byte: a difference is data lost or an unintended
change, named by device, setting and values. The digest holds only what this target made (its
two loop devices, its mounts, its files) and is taken once those devices have settled, so that
a udev event still running for them, or any event of another device, cannot make a difference.
Prints one table row per case and exits 1 when a case fails."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'setup_loop_fs'))
from module_runner import ModuleRunner  # noqa: E402  pylint: disable=wrong-import-position

FAILPOINT = '/run/iotune/failpoint'
QUEUE_FIELDS = ('read_ahead_kb', 'nr_requests', 'scheduler')
# the digest waits at most SETTLE_TIMEOUT seconds for this target's devices, until their queue
# values have held for SETTLE_QUIET seconds
SETTLE_TIMEOUT, SETTLE_QUIET = 30, 0.2


class Host(ModuleRunner):
    def __init__(self, work, loops, collections):
        self.work, self.collections = work, collections
        self.loops = [loop[len('/dev/'):] for loop in loops]
        self.devices = dict(zip(self.loops, loops))
        self.mounts = [os.path.join(work, 'mnt', 'a'), os.path.join(work, 'mnt', 'b')]
        self.fstab = os.path.join(work, 'fstab')
        self.journal_dir = os.path.join(work, 'jfs', 'journal')
        self.etc = os.path.join(work, 'etc')
        self.sysctl_d = os.path.join(self.etc, 'sysctl.d')
        self.sysctl_link = os.path.join(self.sysctl_d, '99-sysctl.conf')
        self.sysctl_conf = os.path.join(self.etc, 'sysctl.conf')
        self.rules_dir = os.path.join(self.etc, 'udev', 'rules.d')
        self.calls = 0

    def setup(self):
        with open(self.fstab, 'w') as handle:
            handle.write('# alternate fstab of the reliability test\n')
            for loop, mount in zip(self.loops, self.mounts):
                handle.write('%s\t%s\text4\tdefaults\t0 2\n' % (self.devices[loop], mount))
            # a long file, so that its journal record is large (base64 of the whole file)
            handle.write(''.join('# padding line %04d of a long fstab comment block ...........................\n' % n
                                 for n in range(1200)))
        os.chmod(self.fstab, 0o640)
        for directory in (self.sysctl_d, self.rules_dir):
            os.makedirs(directory)
        with open(self.sysctl_conf, 'w') as handle:
            handle.write('# the distribution sysctl.conf\n')
        os.symlink('../sysctl.conf', self.sysctl_link)  # as Debian ships /etc/sysctl.d/99-sysctl.conf

    def mount_options(self, mounts, run_id, check=False, expect_kill=False, journal_dir=None):
        return self.module('mount_options', {
            'mounts': [{'path': path, 'present': present} for path, present in mounts],
            'fstab': self.fstab, 'run_id': run_id, 'journal_dir': journal_dir or self.journal_dir}, check, expect_kill)

    def block_queue(self, loop, settings, run_id):
        return self.module('block_queue', {
            'devices': [dict(settings, match={'name': loop})], 'persist': False, 'run_id': run_id,
            'journal_dir': self.journal_dir, 'rules_file': os.path.join(self.rules_dir, '60-iotune.rules'),
            'udev_rules_dirs': [self.rules_dir]})

    def rollback(self, run_id, check=False):
        return self.module('io_rollback', {'run_id': run_id, 'journal_dir': self.journal_dir, 'managed_files': [
            self.fstab, self.sysctl_link, os.path.join(self.rules_dir, '60-iotune.rules')]}, check)

    def first_record_time(self, run_id):
        with open(os.path.join(self.journal_dir, run_id + '.jsonl')) as handle:
            return json.loads(handle.readline())['time']

    # ------------------------------------------------------------ state

    def queue(self, loop, name):
        with open('/sys/block/%s/queue/%s' % (loop, name)) as handle:
            text = handle.read().strip()
        return text.split('[')[1].split(']')[0] if '[' in text else text

    def set_queue(self, loop, scheduler, nr_requests):
        """Scheduler first: switching it resets nr_requests to the new scheduler's default."""
        for name, value in (('scheduler', scheduler), ('nr_requests', nr_requests)):
            with open('/sys/block/%s/queue/%s' % (loop, name), 'w') as handle:
                handle.write(value)

    def live_options(self, mount):
        with open('/proc/self/mountinfo') as handle:
            for line in handle:
                fields = line.split()
                if fields[4] == mount:
                    return ','.join(sorted(fields[5].split(',')))
        return None

    def files(self):
        state = {}
        for path in (self.fstab, self.sysctl_conf, self.sysctl_link):
            st = os.lstat(path)
            if os.path.islink(path):
                state[path] = ('link', os.readlink(path))
                continue
            with open(path, 'rb') as handle:
                content = handle.read()
            xattrs = dict((name, os.getxattr(path, name)) for name in sorted(os.listxattr(path)))
            state[path] = (content, oct(st.st_mode), st.st_uid, st.st_gid, xattrs)
        return state

    def strays(self):
        """Files no run should leave behind: temporary copies, half-written marks."""
        found = []
        for directory in (self.work, self.etc, self.sysctl_d, self.journal_dir):
            if os.path.isdir(directory):
                found += [os.path.join(directory, name) for name in os.listdir(directory)
                          if name.endswith('.iotune') or name.endswith('.tmp')]
        return sorted(found)

    def queues(self):
        return [(loop,) + tuple(self.queue(loop, name) for name in QUEUE_FIELDS) for loop in self.loops]

    def settled_queues(self, timeout=SETTLE_TIMEOUT, quiet=SETTLE_QUIET):
        """This target's loop devices once they are still: udev's queue processed (where udevd
        runs: setting up a device, and closing it after mkfs, send it events whose rules may
        write queue values), then their queue values read until they hold for ``quiet`` seconds.
        Only these devices are read: another device's events cannot change the digest."""
        if shutil.which('udevadm'):
            subprocess.run(['udevadm', 'settle', '--timeout=%d' % timeout], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
        last = self.queues()
        start = since = time.monotonic()
        while time.monotonic() - since < quiet:
            time.sleep(0.05)
            now = self.queues()
            if now != last:
                if time.monotonic() - start > timeout:
                    raise AssertionError('the queues of this target\'s devices still change after %d s: %s' % (
                        timeout, '; '.join(describe_differences({'queues': last}, {'queues': now}))))
                last, since = now, time.monotonic()
        return last

    def digest(self):
        return {'files': self.files(), 'live': [(mount, self.live_options(mount)) for mount in self.mounts],
                'queues': self.settled_queues(), 'strays': self.strays()}

    def fill_journal_fs(self, leave):
        """Fill the journal's tmpfs until ``leave`` bytes are free."""
        filler = os.path.join(self.work, 'jfs', 'filler')
        fs = os.statvfs(os.path.dirname(filler))
        size = max(0, fs.f_bavail * fs.f_frsize - leave + (os.path.getsize(filler) if os.path.exists(filler) else 0))
        with open(filler, 'wb') as handle:
            while size > 0:
                try:
                    size -= handle.write(b'\0' * min(size, 65536))
                    handle.flush()
                except OSError:
                    break

    def free_journal_fs(self):
        filler = os.path.join(self.work, 'jfs', 'filler')
        if os.path.exists(filler):
            os.unlink(filler)


def differences(before, after):
    return [key for key in before if before[key] != after[key]]


def describe_differences(before, after):
    """Each difference with what it is: the device and queue setting, the mount, the file."""
    lines = []
    for key in differences(before, after):
        if key == 'queues':
            for old, new in zip(before[key], after[key]):
                lines += ['%s %s %s -> %s' % (old[0], field, was, now)
                          for field, was, now in zip(QUEUE_FIELDS, old[1:], new[1:]) if was != now]
        elif key == 'files':
            lines += ['file %s' % path for path in before[key] if before[key][path] != after[key].get(path)]
        elif key == 'live':
            lines += ['mount %s options %s -> %s' % (old[0], old[1], new[1])
                      for old, new in zip(before[key], after[key]) if old != new]
        else:
            lines.append('%s %s -> %s' % (key, before[key], after[key]))
    return lines


class Case(object):
    def __init__(self, name, fault):
        self.name, self.fault = name, fault
        self.checks, self.failures, self.restores, self.changes = 0, [], 0, 0

    def check(self, condition, what):
        self.checks += 1
        if not condition:
            self.failures.append(what)

    def same(self, before, after, what):
        diff = differences(before, after)
        self.check(not diff, '%s: %s differ (%s)' % (what, ', '.join(diff), '; '.join(describe_differences(before, after))))
        return not diff


def case_full_journal_fs(host):
    case = Case('F1 nearly full journal file system', 'journal tmpfs left 64 KiB free, then filled to 0')
    start = host.digest()
    host.fill_journal_fs(64 * 1024)
    result = host.mount_options([(host.mounts[0], ['noatime'])], 'f1-full')
    case.check(result.get('failed') and 'not enough free space' in result.get('msg', ''), 'refused for space: %s' % result.get('msg'))
    case.check(not os.path.exists(os.path.join(host.journal_dir, 'f1-full.jsonl')), 'no journal written')
    case.same(start, host.digest(), 'refused run')
    host.free_journal_fs()
    result = host.mount_options([(host.mounts[0], ['noatime'])], 'f1-full')
    case.check(result.get('changed') and not result.get('failed'), 'applied with room: %s' % result.get('msg'))
    case.changes += 1
    host.fill_journal_fs(0)
    result = host.rollback('f1-full')
    case.check(result.get('failed') and 'cannot mark run f1-full rolled back' in result.get('msg', ''), 'mark refused: %s' % result.get('msg'))
    case.check(host.strays() == [], 'no temporary file after ENOSPC: %s' % host.strays())
    host.free_journal_fs()
    result = host.rollback('f1-full')
    case.check(not result.get('failed'), 'rollback with room: %s' % result.get('msg'))
    case.restores += case.same(start, host.digest(), 'after rollback')
    return case


def case_acl(host):
    case = Case('F2 POSIX ACL and xattr on fstab', 'setfacl u:nobody:r and user.* xattr on the managed file')
    subprocess.check_call(['setfacl', '-m', 'u:nobody:r', host.fstab])
    os.setxattr(host.fstab, 'user.iotune-test', b'kept')
    start = host.digest()
    result = host.mount_options([(host.mounts[1], ['nodev'])], 'f2-acl')
    case.check(result.get('changed'), 'applied: %s' % result.get('msg'))
    case.changes += 1
    case.check(host.files()[host.fstab][4] == start['files'][host.fstab][4], 'ACL and xattr kept by the change')
    subprocess.check_call(['setfacl', '-b', host.fstab])
    os.removexattr(host.fstab, 'user.iotune-test')
    result = host.rollback('f2-acl')
    case.check(not result.get('failed'), 'rollback: %s' % result.get('msg'))
    case.restores += case.same(start, host.digest(), 'after rollback')
    subprocess.check_call(['setfacl', '-b', host.fstab])
    os.removexattr(host.fstab, 'user.iotune-test')
    return case


def case_concurrent_runs(host, rounds=8):
    case = Case('F3 two runs at once', '%d rounds of two mount_options runs started together (half with one run id)' % rounds)
    start = host.digest()
    for index in range(rounds):
        ids = ['f3-%d-a' % index, 'f3-%d-b' % index] if index % 2 == 0 else ['f3-%d' % index] * 2
        results = [None, None]

        def run(slot, mount, option):
            results[slot] = host.mount_options([(mount, [option])], ids[slot])

        threads = [threading.Thread(target=run, args=(0, host.mounts[0], 'noatime')),
                   threading.Thread(target=run, args=(1, host.mounts[1], 'nodev'))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        case.changes += 2
        case.check(all(not result.get('failed') for result in results), 'round %d: both runs ok: %s' % (
            index, [result.get('msg') for result in results]))
        with open(host.fstab) as handle:
            lines = [line.split() for line in handle if line.startswith('/dev/')]
        case.check(['noatime' in line[3] for line in lines] == [True, False] and ['nodev' in line[3] for line in lines] == [False, True],
                   'round %d: both edits in fstab: %s' % (index, lines))
        seqs = []
        for run_id in sorted(set(ids)):
            with open(os.path.join(host.journal_dir, run_id + '.jsonl')) as handle:
                seqs.append([json.loads(line)['seq'] for line in handle])
        case.check(all(seq == list(range(1, len(seq) + 1)) for seq in seqs), 'round %d: seq unique and in order: %s' % (index, seqs))
        runs = sorted(set(ids), key=host.first_record_time)
        if len(runs) == 2:
            # the older run cannot be undone over the newer one: that would lose the newer edit
            result = host.rollback(runs[0])
            case.check(result.get('failed') and 'later runs changed the same targets' in result.get('msg', ''),
                       'round %d: older run refused: %s' % (index, result.get('msg')))
        for run_id in reversed(runs):
            result = host.rollback(run_id)
            case.check(not result.get('failed'), 'round %d rollback %s: %s' % (index, run_id, result.get('msg')))
        case.restores += case.same(start, host.digest(), 'round %d after rollback' % index)
    return case


def case_kill_before_rename(host):
    case = Case('F4 SIGKILL between temp file and rename', 'failpoint kill-before-rename fstab')
    start = host.digest()
    with open(FAILPOINT, 'w') as handle:
        handle.write('kill-before-rename fstab\n')
    result = host.mount_options([(host.mounts[0], ['noatime'])], 'f4-kill', expect_kill=True)
    case.check(result['rc'] == -9, 'killed by SIGKILL (rc %s)' % result['rc'])
    strays = host.strays()
    case.check(len(strays) == 1 and os.path.basename(strays[0]).startswith('.fstab.'), 'one temp file left: %s' % strays)
    case.changes += 1
    result = host.rollback('f4-kill')
    case.check(not result.get('failed') and result.get('changed'), 'rollback: %s' % result.get('msg'))
    case.restores += case.same(start, host.digest(), 'after rollback')
    return case


def case_kill_after_record(host):
    case = Case('SIGKILL after a journal record', 'failpoint kill-after 3: fstab and one remount done, the next not')
    start = host.digest()
    with open(FAILPOINT, 'w') as handle:
        handle.write('kill-after 3\n')
    result = host.mount_options([(host.mounts[0], ['noatime']), (host.mounts[1], ['nodev'])], 'kill-half', expect_kill=True)
    case.check(result['rc'] == -9, 'killed by SIGKILL (rc %s)' % result['rc'])
    case.check(host.digest() != start, 'the run changed something before it was killed')
    case.changes += 3
    result = host.rollback('kill-half')
    case.check(not result.get('failed'), 'rollback: %s' % result.get('msg'))
    case.restores += case.same(start, host.digest(), 'after rollback')
    return case


def case_symlinked_sysctl(host):
    case = Case('F5 symlinked sysctl file', 'sysctl_file is 99-sysctl.conf -> ../sysctl.conf')
    with open('/proc/sys/vm/swappiness') as handle:
        swappiness = int(handle.read())
    args = {'sysctl': {'vm.swappiness': swappiness}, 'sysctl_file': host.sysctl_link, 'sysctl_conf_dirs': [host.sysctl_d],
            'sysctl_conf': host.sysctl_conf, 'journal_dir': host.journal_dir}
    start = host.digest()
    checked = host.module('cache_limits', dict(args, run_id='f5-link'), check=True)
    case.check(not checked.get('failed') and checked.get('changed'), 'check mode plans the file: %s' % checked.get('msg'))
    case.same(start, host.digest(), 'check mode')
    applied = host.module('cache_limits', dict(args, run_id='f5-link'))
    case.check(not applied.get('failed') and applied.get('changed'), 'applied through the link: %s' % applied.get('msg'))
    case.changes += 1
    case.check(os.path.islink(host.sysctl_link), 'the link stays a link')
    with open(host.sysctl_conf) as handle:
        case.check('vm.swappiness = %d' % swappiness in handle.read(), 'the target holds the setting')
    again = host.module('cache_limits', dict(args, run_id='f5-link-2'))
    case.check(not again.get('failed') and not again.get('changed'), 'second apply changes nothing: %s' % again.get('msg'))
    result = host.rollback('f5-link')
    case.check(not result.get('failed'), 'rollback: %s' % result.get('msg'))
    case.restores += case.same(start, host.digest(), 'after rollback')
    return case


def case_cut_journal(host):
    case = Case('F7 journal cut after its change', 'last record cut to 90 % after read_ahead_kb was set')
    loop = host.loops[0]
    start = host.digest()
    before = host.queue(loop, 'read_ahead_kb')
    target = 1024 if before != '1024' else 2048
    result = host.block_queue(loop, {'read_ahead_kb': target}, 'f7-cut')
    case.check(result.get('changed') and not result.get('failed'), 'applied: %s' % result.get('msg'))
    case.changes += 1
    path = os.path.join(host.journal_dir, 'f7-cut.jsonl')
    with open(path, 'rb') as handle:
        data = handle.read()
    with open(path, 'wb') as handle:
        handle.write(data[:int(len(data) * 0.9)])
    result = host.rollback('f7-cut')
    case.check(result.get('failed') and 'its change was made' in result.get('msg', '') and 'read_ahead_kb' in result.get('msg', ''),
               'rollback refuses naming the target: %s' % result.get('msg'))
    case.check(not os.path.exists(os.path.join(host.journal_dir, 'f7-cut.rolled-back.json')), 'run not marked rolled back')
    # what the message asks of the administrator: the value back by hand, the cut line removed
    with open('/sys/block/%s/queue/read_ahead_kb' % loop, 'w') as handle:
        handle.write(before)
    with open(path, 'wb') as handle:
        handle.write(b'')
    result = host.rollback('f7-cut')
    case.check(not result.get('failed'), 'rollback after the repair: %s' % result.get('msg'))
    case.restores += case.same(start, host.digest(), 'after the repair')
    return case


def case_scheduler_resets(host):
    case = Case('R1 scheduler switch resets nr_requests', 'nr_requests 64 under mq-deadline, then scheduler none')
    loop = host.loops[1]
    original = (host.queue(loop, 'scheduler'), host.queue(loop, 'nr_requests'))
    try:
        host.set_queue(loop, 'mq-deadline', '64')
        start = host.digest()
        result = host.block_queue(loop, {'scheduler': 'none'}, 'r1-sched')
        case.check(result.get('changed') and not result.get('failed'), 'applied: %s' % result.get('msg'))
        case.changes += 1
        case.check(host.queue(loop, 'nr_requests') != '64', 'the kernel reset nr_requests (now %s)' % host.queue(loop, 'nr_requests'))
        result = host.rollback('r1-sched')
        case.check(not result.get('failed'), 'rollback: %s' % result.get('msg'))
        case.restores += case.same(start, host.digest(), 'after rollback (scheduler and nr_requests 64)')
    finally:
        # the case's own setup is not the run's to keep: the device leaves R1 as it came
        host.set_queue(loop, *original)
    return case


# ---------------------------------------------------------------- hostile (issue 23): real processes, real mounts

NOBODY = 65534


def _records(path):
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _write_records(path, records):
    with open(path, 'w') as handle:
        handle.write(''.join(json.dumps(record) + '\n' for record in records))


def case_unsafe_journal_dir(host):
    case = Case('H1 journal directory others can write', "0777 directory of uid 65534, its lock a link to the fstab")
    start = host.digest()
    shared = os.path.join(host.work, 'jfs', 'shared')
    os.mkdir(shared)
    os.chmod(shared, 0o777)
    os.chown(shared, NOBODY, NOBODY)
    lock = os.path.join(shared, 'lock')
    os.symlink(host.fstab, lock)  # what the other user plants
    os.lchown(lock, NOBODY, NOBODY)
    try:
        for owner, needle in ((NOBODY, 'belongs to'), (0, 'mode 0777')):
            os.chown(shared, owner, owner)
            result = host.mount_options([(host.mounts[0], ['noatime'])], 'h1-unsafe', journal_dir=shared)
            case.check(result.get('failed') and 'journal_dir' in result.get('msg', '') and needle in result.get('msg', ''),
                       'enforcing run refused naming journal_dir (%s): %s' % (needle, result.get('msg')))
            result = host.module('io_rollback', {'journal_dir': shared})
            case.check(result.get('failed') and needle in result.get('msg', ''), 'rollback refused: %s' % result.get('msg'))
        case.check(sorted(os.listdir(shared)) == ['lock'], 'nothing written there: %s' % os.listdir(shared))
        case.same(start, host.digest(), 'the link\'s target and the host')
    finally:
        os.unlink(lock)
        os.rmdir(shared)
    return case


def case_forged_program(host):
    case = Case('H2 record names a program and a root', 'mount record rewritten: mount_bin a script, proc_root elsewhere')
    start = host.digest()
    marker = os.path.join(host.work, 'pwned')
    script = os.path.join(host.work, 'evil-mount')
    with open(script, 'w') as handle:
        handle.write('#!/bin/sh\ntouch %s\n' % marker)
    os.chmod(script, 0o755)
    result = host.mount_options([(host.mounts[0], ['noatime'])], 'h2-forged')
    case.check(result.get('changed') and not result.get('failed'), 'applied: %s' % result.get('msg'))
    case.changes += 1
    path = os.path.join(host.journal_dir, 'h2-forged.jsonl')
    records = _records(path)
    for record in records:
        if record['kind'] == 'mount':
            record.update(mount_bin=script, proc_root=os.path.join(host.work, 'nowhere'))
    _write_records(path, records)
    result = host.rollback('h2-forged')
    case.check(not result.get('failed'), 'rolled back with its own mount: %s' % result.get('msg'))
    case.check(not os.path.exists(marker), 'the record\'s program never ran')
    case.restores += case.same(start, host.digest(), 'after rollback')
    os.unlink(script)
    return case


def case_corrupt_before(host):
    case = Case('H3 file record corrupt', "before.content_b64 replaced by base64 of nothing, digest kept (R4)")
    start = host.digest()
    result = host.mount_options([(host.mounts[1], ['noatime'])], 'h3-corrupt')
    case.check(result.get('changed') and not result.get('failed'), 'applied: %s' % result.get('msg'))
    case.changes += 1
    applied = host.digest()
    path = os.path.join(host.journal_dir, 'h3-corrupt.jsonl')
    with open(path) as handle:
        original = handle.read()
    records = _records(path)
    records[0]['before']['content_b64'] = ''
    _write_records(path, records)
    result = host.rollback('h3-corrupt')
    case.check(result.get('failed') and 'line 1: field before.sha256' in result.get('msg', ''),
               'refused naming line and field: %s' % result.get('msg'))
    case.same(applied, host.digest(), 'nothing restored (no empty fstab)')
    with open(path, 'w') as handle:
        handle.write(original)
    result = host.rollback('h3-corrupt')
    case.check(not result.get('failed'), 'rollback of the intact journal: %s' % result.get('msg'))
    case.restores += case.same(start, host.digest(), 'after rollback')
    return case


def case_clock_step(host):
    case = Case('H4 clock stepped back between two runs', 'the newer run\'s records dated 2001 (R2)')
    start = host.digest()
    for run_id, mount in (('h4-older', host.mounts[0]), ('h4-newer', host.mounts[0])):
        options = ['noatime'] if run_id == 'h4-older' else ['nodev']
        result = host.mount_options([(mount, options)], run_id)
        case.check(result.get('changed') and not result.get('failed'), '%s applied: %s' % (run_id, result.get('msg')))
        case.changes += 1
    path = os.path.join(host.journal_dir, 'h4-newer.jsonl')
    records = _records(path)
    for record in records:
        record['time'] = '2001-01-01T00:00:00.000000Z'
    _write_records(path, records)
    result = host.rollback('h4-older')
    case.check(result.get('failed') and 'h4-newer' in result.get('msg', ''), 'older run refused under the newer: %s'
               % result.get('msg'))
    result = host.module('io_rollback', {'journal_dir': host.journal_dir, 'managed_files': [host.fstab]})
    case.check(result.get('run_id') == 'h4-newer' and not result.get('failed'), 'the latest run is the newer one: %s'
               % result.get('msg'))
    result = host.rollback('h4-older')
    case.check(not result.get('failed'), 'then the older: %s' % result.get('msg'))
    case.restores += case.same(start, host.digest(), 'after both rollbacks')
    return case


def _read_only_mount(host, name):
    """A 16 MiB ext4 loop file system holding etc/sysctl.d, mounted read-only at work/mnt/<name>:
    (mount point, loop device)."""
    image, mount = os.path.join(host.work, 'img', name + '.img'), os.path.join(host.work, 'mnt', name)
    os.makedirs(mount)
    with open(image, 'wb') as handle:
        handle.truncate(16 * 1024 * 1024)
    loop = subprocess.check_output(['losetup', '-f', '--show', image]).decode().strip()
    subprocess.check_call(['mkfs.ext4', '-q', '-F', loop])
    subprocess.check_call(['mount', '-t', 'ext4', loop, mount])
    os.makedirs(os.path.join(mount, 'etc', 'sysctl.d'))
    subprocess.check_call(['mount', '-o', 'remount,ro', mount])
    return mount, loop


def _cache_pressure(value=None):
    """vm.vfs_cache_pressure, set to ``value`` when given."""
    with open('/proc/sys/vm/vfs_cache_pressure', 'r+') as handle:
        if value is not None:
            handle.write(str(value))
            return value
        return int(handle.read())


def case_read_only_file(host):
    """Issue 38, item 6: the sysctl file sits on a read-only mount; the same run remounts a mount
    point and sets a sysctl live, which used to be made before the file failed (EROFS). Whatever
    happens, the mount goes and the sysctl gets its value back (the digest shows what the run left)."""
    case = Case('E6 managed file on a read-only file system', 'sysctl_file on a `mount -o ro` ext4, with a remount '
                'and a live sysctl in the same io_policy run')
    mount, loop = _read_only_mount(host, 'ro')
    sysctl_file = os.path.join(mount, 'etc', 'sysctl.d', '60-iotune.conf')
    pressure = _cache_pressure()
    args = {'policy': {'iotune_mounts': [{'path': host.mounts[0], 'present': ['noatime'], 'absent': []}],
                       'iotune_cache': {'vfs_cache_pressure': 101 if pressure != 101 else 102}},
            'mode': 'enforce', 'concerns': ['mount_options', 'cache_limits'], 'fstab': host.fstab,
            'sysctl_file': sysctl_file, 'journal_dir': host.journal_dir, 'run_id': 'e6-ro'}
    try:
        start = host.digest()
        for check in (True, False):
            result = host.module('io_policy', args, check=check)
            message = result.get('msg', '')
            case.check(result.get('failed') and message.startswith('nothing changed: ') and sysctl_file in message
                       and 'read-only (at %s)' % mount in message, '%s refused naming the file and the reason: %s'
                       % ('check mode' if check else 'enforce', message))
            case.same(start, host.digest(), 'refused run (check mode %s)' % check)
            case.check(_cache_pressure() == pressure, 'vm.vfs_cache_pressure unchanged (%d, now %d)' % (pressure, _cache_pressure()))
        case.check(not os.path.exists(os.path.join(host.journal_dir, 'e6-ro.jsonl')), 'no journal written')
    finally:
        _cache_pressure(pressure)
        subprocess.call(['umount', mount])
        subprocess.call(['losetup', '-d', loop])
    return case


CASES = (case_full_journal_fs, case_acl, case_concurrent_runs, case_kill_before_rename, case_kill_after_record,
         case_symlinked_sysctl, case_cut_journal, case_scheduler_resets, case_unsafe_journal_dir, case_forged_program,
         case_corrupt_before, case_clock_step, case_read_only_file)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--work', required=True)
    parser.add_argument('--loops', nargs=2, required=True)
    parser.add_argument('--collections', required=True)
    options = parser.parse_args()
    host = Host(options.work, options.loops, options.collections)
    host.setup()
    os.makedirs(os.path.dirname(FAILPOINT), exist_ok=True)
    start = host.digest()
    cases = []
    for run in CASES:
        try:
            cases.append(run(host))
        except Exception as exc:  # a case that crashes is a failed case; the others still run
            case = Case(run.__name__, 'crashed')
            case.failures.append('%s: %s' % (type(exc).__name__, exc))
            cases.append(case)
    try:
        final = describe_differences(start, host.digest())
    except AssertionError as exc:  # the devices did not settle: which value kept changing
        final = [str(exc)]
    print('| case | fault injected | changes made | restores verified | checks | result |')
    print('|---|---|---|---|---|---|')
    for case in cases:
        print('| %s | %s | %d | %d | %d | %s |' % (case.name, case.fault, case.changes, case.restores, case.checks,
                                                   'PASS' if not case.failures else 'FAIL'))
    print('\n%d cases, %d module runs, %d changes made, %d restores verified byte for byte; state at the end %s the state '
          'at the start' % (len(cases), host.calls, sum(c.changes for c in cases), sum(c.restores for c in cases),
                            'equals' if not final else 'DIFFERS from (%s)' % '; '.join(final)))
    failed = [case for case in cases if case.failures]
    for case in failed:
        print('FAIL %s: %s' % (case.name, '; '.join(case.failures)), file=sys.stderr)
    return 1 if failed or final else 0


if __name__ == '__main__':
    sys.exit(main())
