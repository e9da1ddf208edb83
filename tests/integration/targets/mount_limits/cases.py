# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 38 items 2-5 on real loop mounts; see runme.sh for the machine it needs.

Each case hardens a policy with io_policy (mount options, and a block queue value beside them), in
check mode first, then twice, and rolls the run back with io_rollback: check mode must change
nothing, the first run must not fail and must apply what a remount can, the second must change
nothing, and the rollback must bring back the alternate fstab byte for byte, the live options of
every mount and the read-ahead. Prints one table row per case; exits 1 when a case fails."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import subprocess
import sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'setup_loop_fs'))
from module_runner import ModuleRunner, run_all, target_options  # noqa: E402  pylint: disable=wrong-import-position


class Host(ModuleRunner):
    def __init__(self, work, loops, collections):
        ModuleRunner.__init__(self, work, collections)
        self.loops = dict(zip(('ext4', 'ext4ro', 'xfs'), loops))
        self.mounts = dict((name, os.path.join(work, 'mnt', name)) for name in self.loops)
        self.fstab = os.path.join(work, 'fstab')
        self.journal_dir = os.path.join(work, 'journal')
        sys.path.insert(0, collections)

    def setup(self):
        with open(self.fstab, 'w') as handle:
            handle.write('# alternate fstab of the mount_limits test\n')
            for name, loop in sorted(self.loops.items()):
                handle.write('%s\t%s\t%s\tdefaults\t0 0\n' % (loop, self.mounts[name], name.replace('ro', '')))

    def harden(self, mount, present, absent, run_id, check=False, read_ahead_kb=None):
        from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import normalize_policy, validate_policy
        policy = {'iotune_mounts': [{'path': self.mounts[mount], 'present': present, 'absent': absent}]}
        if read_ahead_kb:
            policy['iotune_block_devices'] = [{'match': {'name': self.loops[mount][len('/dev/'):]},
                                               'read_ahead_kb': read_ahead_kb}]
        errors = validate_policy(policy)
        if errors:
            return {'failed': True, 'msg': '; '.join(errors), 'changed': False}
        return self.module('io_policy', {
            'policy': normalize_policy(policy), 'mode': 'enforce', 'concerns': ['mount_options', 'block_queue'],
            'fstab': self.fstab, 'run_id': run_id, 'journal_dir': self.journal_dir, 'block_queue_persist': False}, check)

    def rollback(self, run_id):
        return self.module('io_rollback', {'run_id': run_id, 'journal_dir': self.journal_dir,
                                           'managed_files': [self.fstab]})

    def live(self, mount):
        """'per-mount options | super options' of a mount, as /proc/self/mountinfo shows them."""
        with open('/proc/self/mountinfo') as handle:
            for line in handle:
                fields = line.split()
                if fields[4] == self.mounts[mount]:
                    return '%s | %s' % (fields[5], fields[-1])
        return None

    def read_ahead(self, mount):
        with open('/sys/block/%s/queue/read_ahead_kb' % self.loops[mount][len('/dev/'):]) as handle:
            return int(handle.read())

    def state(self):
        with open(self.fstab, 'rb') as handle:
            fstab = handle.read()
        return {'fstab': fstab, 'live': dict((name, self.live(name)) for name in self.mounts),
                'read_ahead': dict((name, self.read_ahead(name)) for name in self.mounts)}

    def remount(self, mount, words):
        subprocess.run(['mount', '--options-source=disable', '-o', 'remount,' + words, self.mounts[mount]], check=True)


class Case(object):
    def __init__(self, name, what):
        self.name, self.what = name, what
        self.seen, self.failures = [], []

    def check(self, condition, what):
        if not condition:
            self.failures.append(what)
        return condition


def _checks(result):
    return dict((check['setting'], check) for check in result.get('checks') or [] if check['concern'] == 'mount_options')


def harden_cycle(host, case, mount, present, absent=(), read_ahead=False, expect=None):
    """Check mode, apply, apply again, rollback; ``expect(case, state_after, result)`` checks the first run."""
    run_id = 'limits-%s-%d' % (case.name, host.calls)
    start = host.state()
    read_ahead_kb = (2048 if start['read_ahead'][mount] != 2048 else 1024) if read_ahead else None
    args = (mount, list(present), list(absent))
    checked = host.harden(*args, run_id=run_id + '-check', check=True, read_ahead_kb=read_ahead_kb)
    case.check(not checked.get('failed'), 'check mode failed: %s' % checked.get('msg'))
    case.check(host.state() == start, 'check mode changed the state')
    first = host.harden(*args, run_id=run_id, read_ahead_kb=read_ahead_kb)
    after = host.state()
    if not case.check(not first.get('failed'), 'the first run failed: %s' % first.get('msg')):
        return
    case.check(first['changed'], 'the first run changed nothing')
    if read_ahead_kb:
        case.check(after['read_ahead'][mount] == read_ahead_kb, 'read_ahead_kb is %s, not %s (the block queue was not '
                   'applied)' % (after['read_ahead'][mount], read_ahead_kb))
    if expect:
        expect(case, after, first)
    second = host.harden(*args, run_id=run_id + '-again', read_ahead_kb=read_ahead_kb)
    case.check(not second.get('failed') and not second['changed'], 'the second run changed something or failed: %s'
               % (second.get('msg') or [c['target'] for c in second.get('changes') or []]))
    case.check(host.state() == after, 'the second run changed the state')
    case.seen.append('live after: %s' % after['live'][mount])
    back = host.rollback(run_id)
    case.check(not back.get('failed'), 'the rollback failed: %s' % back.get('msg'))
    end = host.state()
    case.check(end == start, 'the rollback left %s, not %s' % (
        dict((k, v) for k, v in end.items() if v != start[k]), dict((k, v) for k, v in start.items() if v != end[k])))
    case.seen.append('rolled back: %s' % end['live'][mount])


def case_remount_cannot_ext4(host):
    case = Case('remount_cannot_ext4', 'present: data=journal, nodelalloc, dax, journal_checksum, iversion, '
                'norelatime, noatime on ext4, read_ahead_kb beside them')
    options = ['data=journal', 'nodelalloc', 'dax', 'journal_checksum', 'iversion', 'norelatime', 'noatime']

    def expect(case, after, result):
        checks = _checks(result)
        fstab = after['fstab'].decode()
        case.check(all(option in fstab for option in options), 'fstab lacks an option: %s' % fstab)
        case.check(after['live']['ext4'].startswith('rw,noatime '), 'noatime not live: %s' % after['live']['ext4'])
        for option in ('data=journal', 'nodelalloc', 'dax'):
            message = checks['present:' + option]['message']
            case.check('needs unmount and mount of' in message, '%s: %s' % (option, message))
        for option in ('journal_checksum', 'iversion', 'norelatime'):
            check = checks['present:' + option]
            case.check(check['live'] is None and 'unverifiable live' in check['message'], '%s: %s' % (option, check))
        case.seen.append('data=journal: %s' % checks['present:data=journal']['message'].rsplit('; ', 1)[-1])
    harden_cycle(host, case, 'ext4', options, read_ahead=True, expect=expect)
    return case


def case_remount_cannot_xfs(host):
    case = Case('remount_cannot_xfs', 'present: logbufs=8, logbsize=64k, largeio, noattr2, nodiratime on xfs')

    def expect(case, after, result):
        checks = _checks(result)
        case.check(checks['present:logbufs=8']['live'] is True, 'logbufs=8 not seen live: %s' % checks['present:logbufs=8'])
        for option in ('logbsize=64k', 'largeio'):
            case.check('needs unmount and mount of' in checks['present:' + option]['message'],
                       '%s: %s' % (option, checks['present:' + option]['message']))
        case.check(checks['present:noattr2']['live'] is None, 'noattr2: %s' % checks['present:noattr2'])
        case.check(after['live']['xfs'].startswith('rw,nodiratime,relatime '), 'nodiratime: %s' % after['live']['xfs'])
    harden_cycle(host, case, 'xfs', ['logbufs=8', 'logbsize=64k', 'largeio', 'noattr2', 'nodiratime'], read_ahead=True,
                 expect=expect)
    return case


def _live_expect(mount, prefix):
    def expect(case, after, result):
        case.check(after['live'][mount].startswith(prefix), '%s live: %s, not %s...' % (mount, after['live'][mount], prefix))
    return expect


def case_nodiratime(host):
    case = Case('nodiratime', 'present: nodiratime, rolled back; on a strictatime mount; absent: nodiratime')
    harden_cycle(host, case, 'ext4', ['nodiratime'], expect=_live_expect('ext4', 'rw,nodiratime,relatime '))
    host.remount('ext4', 'strictatime')
    harden_cycle(host, case, 'ext4', ['nodiratime'], expect=_live_expect('ext4', 'rw,nodiratime '))
    host.remount('ext4', 'relatime,nodiratime')
    harden_cycle(host, case, 'ext4', [], ['nodiratime'], expect=_live_expect('ext4', 'rw,relatime '))
    host.remount('ext4', 'diratime,relatime')
    return case


def case_errors_panic(host):
    case = Case('errors_panic', 'present: errors=panic on ext4 (superblock continue) and ext4 (superblock remount-ro)')
    harden_cycle(host, case, 'ext4', ['errors=panic'], expect=_live_expect('ext4', 'rw,relatime | rw,errors=panic'))
    harden_cycle(host, case, 'ext4ro', ['errors=panic'], expect=_live_expect('ext4ro', 'rw,relatime | rw,errors=panic'))
    return case


def case_contradiction(host):
    case = Case('contradiction', 'present: strictatime with absent: atime; present: relatime with absent: atime')
    start = host.state()
    for present in ('strictatime', 'relatime'):
        for check in (True, False):
            result = host.module('mount_options', {
                'mounts': [{'path': host.mounts['ext4'], 'present': [present], 'absent': ['atime']}],
                'fstab': host.fstab, 'run_id': 'limits-contradiction', 'journal_dir': host.journal_dir}, check)
            wanted = "mounts[0].present[0] '%s' and mounts[0].absent[0] 'atime' contradict each other" % present
            case.check(result.get('failed') and wanted in result.get('msg', ''), 'module: %s' % result.get('msg'))
        result = host.harden('ext4', [present], ['atime'], 'limits-contradiction', check=True)
        wanted = "iotune_mounts[0].present[0] '%s' and iotune_mounts[0].absent[0] 'atime' contradict" % present
        case.check(result.get('failed') and wanted in result['msg'], 'policy: %s' % result.get('msg'))
        case.seen.append(result['msg'])
    case.check(host.state() == start, 'a refused policy changed the state')
    return case


CASES = (case_remount_cannot_ext4, case_remount_cannot_xfs, case_nodiratime, case_errors_panic, case_contradiction)


def main():
    options = target_options(__doc__, 3)
    host = Host(options.work, options.loops, options.collections)
    host.setup()
    start = host.state()

    def crashed(name, exc):
        case = Case(name, 'crashed')
        case.failures.append('%s: %s' % (type(exc).__name__, exc))
        return case
    cases = run_all(CASES, host, crashed)
    print('| case | policy | seen on the real mounts | result |')
    print('|---|---|---|---|')
    for case in cases:
        seen = '; '.join(case.seen).replace('|', '\\|')
        print('| %s | %s | %s | %s |' % (case.name, case.what, seen, 'PASS' if not case.failures else 'FAIL'))
    final = host.state() == start
    print('\n%d cases, %d module runs; state at the end %s the state at the start'
          % (len(cases), host.calls, 'equals' if final else 'DIFFERS from'))
    failed = [case for case in cases if case.failures]
    for case in failed:
        print('FAIL %s: %s' % (case.name, '; '.join(case.failures)), file=sys.stderr)
    return 1 if failed or not final else 0


if __name__ == '__main__':
    sys.exit(main())
