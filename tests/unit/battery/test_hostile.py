# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hostile battery (issue 23): what a local user who can plant files, or a careless admin, gives
the collection. Every case runs the real code (modules in-process through module_harness.run_main,
journals written by the real apply_* functions, the controller's write_reports) on a host tree in
tmp_path, records every command (a changing one is refused, a program planted in tmp_path would
really run and leave a marker), and asserts that the run fails or refuses with a message naming
the journal, the line and the field (or the option and the mode or owner), that no command that
changes anything was attempted and that the tree is byte-identical afterwards (content, mode,
owner, links), the target of any planted link included.

Groups (CASES_PER_GROUP counts the cases of each, for docs/reliability.md):

- ``forged_records``: forged and malformed journal records of every kind (file, dir, sysfs, sysctl,
  mount, vxtunefs, unit) and field, each rolled back in check mode and for real: nothing is
  restored, nothing runs. Well-formed records that name a program or a root of their own
  (``mount_bin``, ``vxtunefs``, ``systemctl``, ``proc_root``, ``sys_root``, ``argv``) are restored
  with io_rollback's own, and the planted program never runs; a forged run dated 2099 with a lower
  run_seq does not become the latest run.
- ``other_runs``: a bad journal of another run blocks no rollback of a good run (a warning), and a
  bad record in the run itself restores nothing.
- ``planted_links``: a link planted at every file the collection writes, on the host (journal,
  lock, rolled-back mark and its temporary name, snapshot and its temporary name, host report and
  its temporary name) and on the controller (hosts/<host>.json, summary.json, report.html,
  junit.xml, a temporary name): the write fails (journal, lock) or replaces the link (mark,
  snapshots, reports); the link's target is never written, truncated or created, nor read.
- ``unsafe_dirs``: journal_dir, snapshot_dir, the report dir and iotune_report_dir with mode 0777 or
  0770, owned by another user, a symbolic link, under a parent writable by others (not sticky) or
  owned by another user: refused naming the option and the mode or owner, for io_rollback (also in
  check mode, where nothing is read), an enforcing run, io_snapshot (write and read), io_report
  and write_reports; a sticky parent (as /tmp) is accepted.
- ``host_names``: hostile inventory host names give distinct files inside hosts/ and nothing
  outside the report directory.
- ``special_slices``: systemd's own slices as the bulk slice, through io_policy's controller
  validation and the cache_limits module.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import hashlib
import json
import os
import stat
import subprocess
import tempfile

import pytest

from ansible.module_utils import basic

from ansible_collections.iotune.storage.plugins.action.io_policy import module_args, with_host_vars
from ansible_collections.iotune.storage.plugins.module_utils.act import journal as _journal
from ansible_collections.iotune.storage.plugins.module_utils.act import rollback as _rollback_logic
from ansible_collections.iotune.storage.plugins.module_utils.act.apply import (
    apply_directory, apply_file, apply_mount, apply_sysctl, apply_sysfs, apply_vxtunefs)
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal, acquire_lock, journal_path, mark_path
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.module_utils.engine.snapshot import render_snapshot
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import read_live
from ansible_collections.iotune.storage.plugins.modules import cache_limits, copy_tools, fio, io_report, io_rollback, io_snapshot
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import write_reports
from ansible_collections.iotune.storage.tests.unit.conftest import fixture_path, write_file
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.act.test_apply import FakeMount

RUN = 'r-20261125T101500Z-1'
OWN_MOUNT = '/own/bin/mount'
OWN_VX = '/own/bin/vxtunefs'
OWN_SYSTEMCTL = '/own/bin/systemctl'
OWN = (OWN_MOUNT, OWN_VX, OWN_SYSTEMCTL)
# a queue file no setting can be: the kernel never lets it be written (block/blk-sysfs.c, mode 0444)
UNMANAGED_QUEUE_FILE = 'logical_block_size'
VOL01 = '/dev/vx/dsk/datadg/vol01'
# Commands that only read: vxtunefs -p, and what io_snapshot asks (tool versions, package queries)
READ_ONLY = ('-p', '--version', '-W', '-q', '-S', '-qf', '--query', 'show', 'info')
CASES_PER_GROUP = {}


def group(name, cases):
    CASES_PER_GROUP[name] = CASES_PER_GROUP.get(name, 0) + len(cases)
    return cases


# ---------------------------------------------------------------------------------------- the host tree

_write = write_file


def _read(path):
    with open(str(path), 'rb') as handle:
        return handle.read()


def digest(root, skip=()):
    """{relative path: (type, mode, uid, gid, bytes | link target | None)} of ``root`` and
    everything under it (links not followed), but the relative paths in ``skip``."""
    root = str(root)
    found = {}
    for directory, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if os.path.relpath(os.path.join(directory, name), root) not in skip]
        for name in [None] + dirs + files:
            path = directory if name is None else os.path.join(directory, name)
            rel = os.path.relpath(path, root)
            if rel in skip or name is None and directory != root:
                continue
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                content = 'link:' + os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                content = _read(path)
            else:
                content = None
            found[rel] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, content)
    return found


def _diff(before, after):
    return sorted(set(before.items()) ^ set(after.items()), key=repr)[:4]


class Host(object):
    """A host in tmp_path/host: fstab and a file no policy names (etc/passwd), a slice unit, a queue,
    vm sysctls, mountinfo, a live VxFS tunable, a journal directory (its lock taken once, so
    that a later lock writes the same bytes), a procfs a record may name (evil-proc) and a
    program a record may name (evil: it leaves tmp_path/MARKER when it runs)."""

    def __init__(self, tmp_path):
        self.tmp = str(tmp_path)
        self.root = os.path.join(self.tmp, 'host')
        self.marker = os.path.join(self.tmp, 'MARKER')
        self.evil = self.path('evil')
        _write(self.path('etc', 'fstab'), b'/dev/vdb /data ext4 defaults 0 2\n', 0o640)
        _write(self.path('etc', 'passwd'), b'root:x:0:0:root:/root:/bin/sh\n')
        _write(self.path('etc', 'systemd', 'system', 'iotune-bulk.slice'), '[Slice]\n')
        for name, value in (('read_ahead_kb', '128'), ('scheduler', 'none [mq-deadline] kyber'), ('nr_requests', '256'),
                            (UNMANAGED_QUEUE_FILE, '512')):
            _write(self.path('sys', 'block', 'vda', 'queue', name), value)
        for name, value in (('swappiness', '60'), ('dirty_ratio', '20'), ('dirty_bytes', '0'),
                            ('dirty_background_ratio', '10'), ('dirty_background_bytes', '0')):
            _write(self.path('proc', 'sys', 'vm', name), value)
        _write(self.path('proc', 'sys', 'kernel', 'core_pattern'), 'core\n')
        _write(self.path('proc', 'self', 'mountinfo'), _read(fixture_path('policy', 'proc-vxfs', 'self', 'mountinfo')))
        _write(self.path('evil-proc', 'sys', 'vm', 'swappiness'), '60')
        os.makedirs(self.path('empty'))
        os.makedirs(self.path('etc', 'sysctl.d'))
        _write(self.path('vxfs', 'read_pref_io'), '65536\n')
        _write(self.evil, '#!/bin/sh\necho "$0 $*" >> %s\n' % self.marker, 0o755)
        self.journal_dir = self.path('journal')
        os.close(acquire_lock(self.journal_dir))
        self.managed = [self.path('etc', 'fstab'), self.path('etc', 'iotune', 'copy.conf'),
                        self.path('etc', 'systemd', 'system', 'iotune-bulk.slice')]

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def journal(self, module, run_id=RUN):
        return Journal(self.journal_dir, run_id, module, failpoint_file=self.path('no-failpoint'))

    def rollback_args(self, **extra):
        return dict({'journal_dir': self.journal_dir, 'managed_files': self.managed, 'sys_root': self.path('sys'),
                     'proc_root': self.path('proc'), 'mount_bin': OWN_MOUNT, 'vxtunefs': OWN_VX}, **extra)

    def digest(self, skip=()):
        return digest(self.root, skip)


class Commands(object):
    """Every command a module runs: ``own`` binaries are simulated (mount on the tree's mountinfo,
    vxtunefs on host/vxfs, systemctl), a program in tmp_path really runs (so a planted one leaves
    its marker), anything else answers 'not run'. ``changes``: what went through
    CommandRunner.change."""

    def __init__(self, host):
        self.host = host
        self.calls, self.changes = [], []
        self.mount = FakeMount(host.path('proc'))

    def run(self, argv):
        argv = [argv] if isinstance(argv, str) else list(argv)
        self.calls.append(argv)
        if argv[0].startswith(self.host.tmp + os.sep):
            proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
            return proc.returncode, proc.stdout, proc.stderr
        if argv[0] == OWN_MOUNT:
            return self.mount(argv)
        if argv[0] == OWN_VX and argv[1] == '-p':
            return 0, 'Filesystem i/o parameters for %s\nread_pref_io = %s\n' % (
                argv[2], _read(self.host.path('vxfs', 'read_pref_io')).decode().strip()), ''
        if argv[0] == OWN_VX and argv[1] == '-o':
            _write(self.host.path('vxfs', argv[2].split('=')[0]), argv[2].split('=')[1] + '\n')
            return 0, '', ''
        if argv[0] == OWN_SYSTEMCTL:
            return 0, '', ''
        return 1, '', 'not run by the hostile battery'

    def reset(self):
        self.calls, self.changes = [], []

    def read_live(self, binary, mount_point):
        return read_live(binary, mount_point, self.run)

    def assert_nothing_changed(self):
        assert self.changes == [], 'a changing command was attempted: %s' % self.changes
        assert all(argv[0] not in OWN or any(word in argv for word in READ_ONLY) for argv in self.calls), self.calls

    def assert_no_planted_program(self):
        assert not os.path.exists(self.host.marker), _read(self.host.marker)
        assert all(not argv[0].startswith(self.host.tmp + os.sep) for argv in self.calls), self.calls


@pytest.fixture(name='host')
def host_fixture(tmp_path, monkeypatch):
    host = Host(tmp_path)
    monkeypatch.chdir(host.root)
    commands = Commands(host)

    def run_command(self, argv, **kwargs):
        return commands.run(argv)

    def change(self, argv, check_rc=False, **extra):
        commands.changes.append(list(argv))
        return original_change(self, argv, check_rc, **extra)
    original_change = CommandRunner.change
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(CommandRunner, 'change', change)
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, *a, **k: '/own/bin/' + name)
    host.commands = commands
    return host


# ---------------------------------------------------------------------------------------- runs of every kind

def _run_file(host):
    apply_file(host.journal('mount_options'), host.path('etc', 'fstab'), b'/dev/vdb /data ext4 defaults,noatime 0 2\n')


def _run_dir(host):
    apply_directory(host.journal('copy_tools'), host.path('etc', 'iotune'))


def _run_sysfs(host):
    apply_sysfs(host.journal('block_queue'), {'target': 'vda', 'setting': 'read_ahead_kb', 'after': 4096,
                                              'path': host.path('sys', 'block', 'vda', 'queue', 'read_ahead_kb')})


def _run_scheduler(host):
    # the record of a scheduler switch, with the nr_requests it resets (as apply_sysfs writes it)
    host.journal('block_queue').record('sysfs', host.path('sys', 'block', 'vda', 'queue', 'scheduler'), 'mq-deadline',
                                       'kyber', device='vda', setting='scheduler', resets={'nr_requests': 256})


def _run_sysctl(host):
    apply_sysctl(host.journal('cache_limits'), {'target': 'vm.swappiness', 'after': 10}, host.path('proc'))


def _run_mount(host):
    apply_mount(host.journal('mount_options'), {'target': '/data', 'options': 'remount,noatime', 'after': ['rw', 'noatime']},
                host.commands.run, OWN_MOUNT, host.path('proc'), present=['noatime'])


def _run_vxtunefs(host):
    apply_vxtunefs(host.journal('tunefstab'), {'target': '/data', 'setting': 'read_pref_io', 'after': 262144, 'device': VOL01,
                                               'argv': [OWN_VX, '-o', 'read_pref_io=262144', '/data']},
                   host.commands.run, host.commands.read_live)


def _run_unit(host):
    journal = host.journal('cache_limits')
    apply_file(journal, host.path('etc', 'systemd', 'system', 'iotune-bulk.slice'), '[Slice]\nMemoryHigh=25%\n')
    journal.record('unit', 'iotune-bulk.slice', None, 'daemon-reload')


RUNS = {'file': _run_file, 'dir': _run_dir, 'sysfs': _run_sysfs, 'scheduler': _run_scheduler, 'sysctl': _run_sysctl,
        'mount': _run_mount, 'vxtunefs': _run_vxtunefs, 'unit': _run_unit}
KINDS = ('file', 'dir', 'sysfs', 'sysctl', 'mount', 'vxtunefs', 'unit')


def _records(path):
    return [json.loads(line) for line in _read(path).decode('utf-8').splitlines() if line.strip()]


def _rewrite(path, records):
    data = ''.join(json.dumps(record) + '\n' for record in records).encode('utf-8')
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    with os.fdopen(fd, 'wb') as handle:
        handle.write(data)


def _forge(host, run_id, mutate, line=None):
    """Apply ``mutate(record, host)`` (it returns the new record) to a line of the journal of
    ``run_id`` (default its last line)."""
    path = journal_path(host.journal_dir, run_id)
    records = _records(path)
    index = len(records) - 1 if line is None else line - 1
    records[index] = mutate(records[index], host)
    _rewrite(path, records)
    return path, index + 1


# ---------------------------------------------------------------------------------------- forgeries

def _value(value, host):
    return value(host) if callable(value) else value


def setf(field, value):
    """Set a dotted field (``before.mode``) of the record to ``value`` (or ``value(host)``)."""
    def mutate(record, host):
        node = record
        parts = field.split('.')
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = _value(value, host)
        return record
    return mutate


def drop(field):
    def mutate(record, host):
        node = record
        parts = field.split('.')
        for part in parts[:-1]:
            node = node[part]
        del node[parts[-1]]
        return record
    return mutate


def whole(value):
    return lambda record, host: value


def b64(data):
    return base64.b64encode(data).decode('ascii')


def _truncated(record, host):
    # valid base64 that decodes to a cut file, its digest the old one (R4)
    record['before']['content_b64'] = b64(base64.b64decode(record['before']['content_b64'])[:10])
    return record


def forged(kind, label, mutate, field, line=None, run=None):
    return pytest.param(run or kind, mutate, field, line, id='%s-%s' % (kind, label))


def _common(kind):
    return [
        forged(kind, 'seq-missing', drop('seq'), 'seq'),
        forged(kind, 'seq-bool', setf('seq', True), 'seq'),
        forged(kind, 'seq-negative', setf('seq', -1), 'seq'),
        forged(kind, 'seq-text', setf('seq', '1'), 'seq'),
        forged(kind, 'run_seq-missing', drop('run_seq'), 'run_seq'),
        forged(kind, 'run_seq-zero', setf('run_seq', 0), 'run_seq'),
        forged(kind, 'run_id-of-another-run', setf('run_id', 'r-other'), 'run_id'),
        forged(kind, 'time-missing', drop('time'), 'time'),
        forged(kind, 'time-not-a-time', setf('time', 'yesterday'), 'time'),
        forged(kind, 'time-number', setf('time', 1764065700), 'time'),
        forged(kind, 'module-unknown', setf('module', 'shell'), 'module'),
        forged(kind, 'kind-unknown', setf('kind', 'exec'), 'kind'),
        forged(kind, 'target-missing', drop('target'), 'target'),
    ]


def _paths_kind(kind):
    return [
        forged(kind, 'target-relative', setf('target', 'etc/fstab'), 'target'),
        forged(kind, 'target-dotdot', setf('target', lambda h: h.path('etc', '..', 'etc', 'fstab')), 'target'),
    ]


FORGED = group('forged_records', [
    forged('record', 'json-list', whole([1, 2]), 'record', run='file'),
    forged('record', 'json-string', whole('restore /etc/passwd'), 'record', run='file'),
    forged('record', 'json-number', whole(7), 'record', run='file'),
    forged('record', 'json-null', whole(None), 'record', run='file'),
] + [case for kind in KINDS for case in _common(kind)] + [
    case for kind in ('file', 'dir', 'sysfs', 'mount', 'vxtunefs') for case in _paths_kind(kind)] + [
    # ------------------------------------------------------------ file
    forged('file', 'target-not-managed', setf('target', lambda h: h.path('etc', 'passwd')), 'target'),
    forged('file', 'target-etc-passwd', setf('target', '/etc/passwd'), 'target'),
    forged('file', 'target-a-number', setf('target', 5), 'target'),
    forged('file', 'before-null', setf('before', None), 'before'),
    forged('file', 'before-string', setf('before', 'root::0:0::/root:/bin/sh'), 'before'),
    forged('file', 'before-list', setf('before', []), 'before'),
    forged('file', 'before-state-unknown', setf('before.state', 'link'), 'before.state'),
    forged('file', 'mode-0999', setf('before.mode', '0999'), 'before.mode'),
    forged('file', 'mode-rwx', setf('before.mode', 'rwx'), 'before.mode'),
    forged('file', 'mode-number', setf('before.mode', 420), 'before.mode'),
    forged('file', 'uid-negative', setf('before.uid', -1), 'before.uid'),
    forged('file', 'uid-bool', setf('before.uid', True), 'before.uid'),
    forged('file', 'gid-text', setf('before.gid', 'root'), 'before.gid'),
    forged('file', 'content-not-base64', setf('before.content_b64', 'not base64!'), 'before.content_b64'),
    forged('file', 'content-missing', drop('before.content_b64'), 'before.content_b64'),
    forged('file', 'content-empty-sha256-mismatch', setf('before.content_b64', ''), 'before.sha256'),
    forged('file', 'content-truncated-sha256-mismatch', _truncated, 'before.sha256'),
    forged('file', 'sha256-missing', drop('before.sha256'), 'before.sha256'),
    forged('file', 'sha256-of-other-content', setf('before.sha256', hashlib.sha256(b'x').hexdigest()), 'before.sha256'),
    forged('file', 'sha256-upper-case', lambda r, h: setf('before.sha256', r['before']['sha256'].upper())(r, h),
           'before.sha256'),
    forged('file', 'xattrs-not-an-object', setf('before.xattrs', ['user.x']), 'before.xattrs'),
    forged('file', 'xattr-name-without-namespace', setf('before.xattrs', {'evil': 'AA=='}), 'before.xattrs'),
    forged('file', 'xattr-name-with-space', setf('before.xattrs', {'user.a b': 'AA=='}), 'before.xattrs'),
    forged('file', 'xattr-value-not-base64', setf('before.xattrs', {'user.x': '!!'}), 'before.xattrs.user.x'),
    forged('file', 'after-null', setf('after', None), 'after'),
    forged('file', 'after-sha256-missing', drop('after.sha256'), 'after.sha256'),
    forged('file', 'after-size-negative', setf('after.size', -1), 'after.size'),
    # ------------------------------------------------------------ dir
    forged('dir', 'target-etc', setf('target', '/etc'), 'target'),
    forged('dir', 'target-not-above-managed', setf('target', lambda h: h.path('etc', 'passwd.d')), 'target'),
    forged('dir', 'before-null', setf('before', None), 'before.state'),
    forged('dir', 'before-string', setf('before', 'absent'), 'before.state'),
    forged('dir', 'before-state-unknown', setf('before.state', 'gone'), 'before.state'),
    # ------------------------------------------------------------ sysfs
    forged('sysfs', 'target-climbs-out', setf('target', lambda h: h.path('sys') + '/block/../../x'), 'target'),
    forged('sysfs', 'target-wrong-setting', setf('target', lambda h: h.path('sys', 'block', 'vda', 'queue', UNMANAGED_QUEUE_FILE)),
           'target'),
    forged('sysfs', 'target-outside-queue', setf('target', lambda h: h.path('sys', 'block', 'vda', 'device', 'delete')),
           'target'),
    forged('sysfs', 'target-other-sys-root', setf('target', '/sys/block/vda/queue/read_ahead_kb'), 'target'),
    forged('sysfs', 'target-procfs', setf('target', lambda h: h.path('proc', 'sys', 'kernel', 'core_pattern')), 'target'),
    forged('sysfs', 'target-device-dash', setf('target', lambda h: h.path('sys', 'block', '-x', 'queue', 'read_ahead_kb')),
           'target'),
    forged('sysfs', 'before-null', setf('before', None), 'before'),
    forged('sysfs', 'before-string', setf('before', '4096'), 'before'),
    forged('sysfs', 'before-negative', setf('before', -1), 'before'),
    forged('sysfs', 'before-bool', setf('before', False), 'before'),
    forged('sysfs', 'before-object', setf('before', {'read_ahead_kb': 128}), 'before'),
    forged('sysfs', 'after-string', setf('after', 'lots'), 'after'),
    forged('sysfs', 'resets-on-a-number-setting', setf('resets', {'nr_requests': 1}), 'resets'),
    forged('sysfs', 'resets-not-an-object', setf('resets', ['nr_requests']), 'resets'),
    forged('scheduler', 'resets-unknown-name', setf('resets', {'read_ahead_kb': 1}), 'resets', run='scheduler'),
    forged('scheduler', 'resets-path', setf('resets', {'../../../etc/passwd': 1}), 'resets', run='scheduler'),
    forged('scheduler', 'resets-value-text', setf('resets', {'nr_requests': 'x'}), 'resets.nr_requests', run='scheduler'),
    forged('scheduler', 'before-not-a-scheduler', setf('before', 'none; reboot'), 'before', run='scheduler'),
    forged('scheduler', 'before-number', setf('before', 3), 'before', run='scheduler'),
    # ------------------------------------------------------------ sysctl
    forged('sysctl', 'target-climbs-out', setf('target', 'vm./root/x'), 'target'),
    forged('sysctl', 'target-dotdot', setf('target', 'vm.../../kernel/core_pattern'), 'target'),
    forged('sysctl', 'target-kernel-core_pattern', setf('target', 'kernel.core_pattern'), 'target'),
    forged('sysctl', 'target-unknown-vm', setf('target', 'vm.overcommit_memory'), 'target'),
    forged('sysctl', 'before-null', setf('before', None), 'before'),
    forged('sysctl', 'before-string', setf('before', '60'), 'before'),
    forged('sysctl', 'before-list', setf('before', [60]), 'before'),
    forged('sysctl', 'before-without-target', setf('before', {'vm.dirty_ratio': 20}), 'before'),
    forged('sysctl', 'before-other-key', setf('before', {'vm.swappiness': 60, 'kernel.core_pattern': 0}), 'before'),
    forged('sysctl', 'before-key-climbs-out', setf('before', {'vm.swappiness': 60, 'vm./root/x': 1}), 'before'),
    forged('sysctl', 'before-value-negative', setf('before', {'vm.swappiness': -1}), 'before.vm.swappiness'),
    forged('sysctl', 'before-value-text', setf('before', {'vm.swappiness': '|/tmp/evil'}), 'before.vm.swappiness'),
    forged('sysctl', 'after-missing', drop('after'), 'after'),
    # ------------------------------------------------------------ mount
    forged('mount', 'before-null', setf('before', None), 'before'),
    forged('mount', 'before-string', setf('before', 'rw,relatime'), 'before'),
    forged('mount', 'before-empty', setf('before', []), 'before'),
    forged('mount', 'before-option-with-comma', setf('before', ['rw', 'relatime,exec']), 'before'),
    forged('mount', 'before-option-with-space', setf('before', ['rw', 'relatime -o exec']), 'before'),
    forged('mount', 'before-option-with-newline', setf('before', ['rw', 'relatime\nexec']), 'before'),
    forged('mount', 'before-option-number', setf('before', ['rw', 1]), 'before'),
    forged('mount', 'after-option-with-comma', setf('after', ['rw,suid']), 'after'),
    # ------------------------------------------------------------ vxtunefs
    forged('vxtunefs', 'setting-with-slash', setf('setting', 'read_pref_io/../../x'), 'setting'),
    forged('vxtunefs', 'setting-with-equals', setf('setting', 'read_pref_io=1,write_pref_io'), 'setting'),
    forged('vxtunefs', 'setting-missing', drop('setting'), 'setting'),
    forged('vxtunefs', 'before-string', setf('before', '65536'), 'before'),
    forged('vxtunefs', 'before-negative', setf('before', -1), 'before'),
    forged('vxtunefs', 'after-missing', drop('after'), 'after'),
    # ------------------------------------------------------------ unit
    forged('unit', 'name-with-slash', setf('target', '../../etc/passwd.slice'), 'target'),
    forged('unit', 'name-absolute', setf('target', '/etc/systemd/system/x.slice'), 'target'),
    forged('unit', 'name-not-a-unit', setf('target', 'reboot.target'), 'target'),
    forged('unit', 'name-with-space', setf('target', 'a b.slice'), 'target'),
    forged('unit', 'after-restart', setf('after', 'restart'), 'after'),
    forged('unit', 'after-missing', drop('after'), 'after'),
])


def _rollback(host, monkeypatch, **extra):
    return run_main(monkeypatch, io_rollback, host.rollback_args(**extra))


@pytest.mark.parametrize('run, mutate, field, line', FORGED)
def test_a_forged_record_restores_nothing_and_runs_nothing(host, monkeypatch, run, mutate, field, line):
    RUNS[run](host)
    host.commands.reset()
    path, line = _forge(host, RUN, mutate, line)
    before = host.digest()
    for check_mode in (True, False):
        kind, result = _rollback(host, monkeypatch, run_id=RUN, _ansible_check_mode=check_mode)
        assert kind == 'fail', result
        assert '%s line %d: field %s: ' % (path, line, field) in result['msg'], result['msg']
        assert result['msg'].startswith('run %s: nothing restored: ' % RUN), result['msg']
        assert (result['changed'], result['records']) == (False, [])
        assert host.digest() == before, _diff(before, host.digest())
    host.commands.assert_no_planted_program()
    host.commands.assert_nothing_changed()


def test_a_record_differing_in_run_seq_from_the_first_is_refused(host, monkeypatch):
    _run_file(host)
    _run_sysctl(host)
    path, line = _forge(host, RUN, setf('run_seq', 7), 2)
    before = host.digest()
    kind, result = _rollback(host, monkeypatch, run_id=RUN)
    assert kind == 'fail' and '%s line 2: field run_seq: must be 1 as in the first record, got 7' % path in result['msg']
    assert host.digest() == before
    host.commands.assert_nothing_changed()


CASES_PER_GROUP['forged_records'] += 1


# ------------------------------------------------------------ well-formed records naming programs and roots of their own

def _with(kind, fields):
    return pytest.param(kind, fields, id='%s-names-%s' % (kind, '-'.join(sorted(fields))))


PROGRAM_FIELDS = group('forged_records', [
    _with('mount', {'mount_bin': '@evil', 'proc_root': '@evil-proc', 'argv': ['@evil']}),
    _with('vxtunefs', {'vxtunefs': '@evil', 'argv': ['@evil', '-o', 'read_pref_io=1', '/data']}),
    _with('unit', {'systemctl': '@evil'}),
    _with('sysctl', {'proc_root': '@evil-proc'}),
    _with('sysfs', {'sys_root': '@evil-proc', 'path': '@evil'}),
    _with('file', {'mount_bin': '@evil', 'vxtunefs': '@evil', 'systemctl': '@evil', 'command': ['@evil']}),
])


def _resolve(value, host):
    if isinstance(value, str) and value.startswith('@'):
        return host.path(value[1:])
    if isinstance(value, list):
        return [_resolve(item, host) for item in value]
    return value


@pytest.mark.parametrize('run, fields', PROGRAM_FIELDS)
def test_a_record_never_names_the_program_or_the_root(host, monkeypatch, run, fields):
    journal_skip = ('journal',)
    pristine = host.digest(journal_skip)
    RUNS[run](host)
    _forge(host, RUN, lambda record, h: dict(record, **dict((key, _resolve(value, h)) for key, value in fields.items())))
    host.commands.reset()
    applied = host.digest()
    # check mode: what would be restored, nothing run but what reads
    kind, result = _rollback(host, monkeypatch, run_id=RUN, _ansible_check_mode=True)
    assert (kind, result['changed']) == ('exit', True), result
    assert host.digest() == applied, _diff(applied, host.digest())
    host.commands.assert_nothing_changed()
    host.commands.assert_no_planted_program()
    # for real: restored with io_rollback's own mount, vxtunefs, systemctl and roots
    kind, result = _rollback(host, monkeypatch, run_id=RUN)
    assert (kind, result['changed'], result['errors']) == ('exit', True, []), result
    host.commands.assert_no_planted_program()
    assert all(argv[0] in OWN for argv in host.commands.changes), host.commands.changes
    assert host.digest(journal_skip) == pristine, _diff(pristine, host.digest(journal_skip))
    if run == 'unit':
        assert host.commands.changes == [[OWN_SYSTEMCTL, 'daemon-reload']]


def test_a_forged_run_dated_2099_is_not_the_latest_run(host, monkeypatch):
    fstab = host.path('etc', 'fstab')
    original = _read(fstab)
    apply_file(host.journal('mount_options', 'r-a'), fstab, b'/dev/vdb /data ext4 defaults,noatime 0 2\n')
    apply_sysctl(host.journal('cache_limits', 'r-b'), {'target': 'vm.swappiness', 'after': 10}, host.path('proc'))
    # a well-formed run, named and dated to sort last, with a lower run_seq than r-b
    forged_before = b'forged\n'
    forged_record = {'seq': 1, 'run_seq': 1, 'time': '2099-01-01T00:00:00.000000Z', 'run_id': 'zz-20990101T000000Z',
                     'module': 'mount_options', 'kind': 'file', 'target': fstab,
                     'after': {'state': 'present', 'sha256': hashlib.sha256(original).hexdigest(), 'size': len(original)},
                     'before': {'state': 'present', 'content_b64': b64(forged_before), 'uid': 0, 'gid': 0, 'mode': '0644',
                                'sha256': hashlib.sha256(forged_before).hexdigest()}}
    _write(journal_path(host.journal_dir, 'zz-20990101T000000Z'), json.dumps(forged_record) + '\n', 0o600)
    kind, result = _rollback(host, monkeypatch)
    assert (kind, result['run_id'], result['changed']) == ('exit', 'r-b', True), result
    assert _read(host.path('proc', 'sys', 'vm', 'swappiness')) == b'60'
    # r-a and the forged run share run_seq 1, which one run only is given: neither is picked by its name
    kind, result = _rollback(host, monkeypatch)
    assert kind == 'fail' and result['msg'] == (
        'cannot tell which run is the latest: runs r-a, zz-20990101T000000Z have the same run_seq 1, which one run only '
        'is given: one of them was not written by a run of the collection; name the run with run_id'), result
    assert _read(fstab) == b'/dev/vdb /data ext4 defaults,noatime 0 2\n'
    kind, result = _rollback(host, monkeypatch, run_id='r-a')
    assert (kind, result['changed']) == ('exit', True), result
    assert _read(fstab) == original
    host.commands.assert_nothing_changed()


CASES_PER_GROUP['forged_records'] += 1


# ---------------------------------------------------------------------------------------- other runs

def _bad_lines(lines):
    def write(host, run_id):
        _write(journal_path(host.journal_dir, run_id), ''.join(line + '\n' for line in lines), 0o600)
    return write


def _bad_record(mutate):
    def write(host, run_id):
        apply_file(host.journal('mount_options', run_id), host.path('etc', 'iotune-x'), 'x\n')
        _forge(host, run_id, mutate)
    return write


OTHER_RUNS = group('other_runs', [
    pytest.param(_bad_record(setf('target', lambda h: h.path('etc', 'passwd'))), id='other-run-target-not-managed'),
    pytest.param(_bad_record(setf('before', None)), id='other-run-before-null'),
    pytest.param(_bad_record(setf('kind', 'exec')), id='other-run-kind-unknown'),
    pytest.param(_bad_record(drop('time')), id='other-run-time-missing'),
    pytest.param(_bad_lines(['[1, 2]', '"x"']), id='other-run-json-list'),
    pytest.param(_bad_lines(['{"seq": 1, "run_seq": 9, "kind": "file"}', 'not json', '{}']), id='other-run-not-json'),
    pytest.param(_bad_lines(['{"seq": 1}']), id='other-run-without-run_seq'),
])


@pytest.mark.parametrize('write_other', OTHER_RUNS)
def test_a_bad_journal_of_another_run_blocks_no_rollback(host, monkeypatch, write_other):
    fstab = host.path('etc', 'fstab')
    original = _read(fstab)
    passwd = _read(host.path('etc', 'passwd'))
    _run_file(host)
    write_other(host, 'r-other')
    other = _read(journal_path(host.journal_dir, 'r-other'))
    kind, result = _rollback(host, monkeypatch, run_id=RUN)
    assert (kind, result['changed']) == ('exit', True), result
    assert _read(fstab) == original
    assert _read(host.path('etc', 'passwd')) == passwd
    assert _read(journal_path(host.journal_dir, 'r-other')) == other
    if result['warnings']:
        assert all('r-other' in warning for warning in result['warnings']), result['warnings']
    host.commands.assert_nothing_changed()


OWN_RUN = group('other_runs', [
    pytest.param(2, setf('target', 'kernel.core_pattern'), 'target', id='own-run-second-record-bad'),
    pytest.param(1, setf('before.mode', 'rwx'), 'before.mode', id='own-run-first-record-bad'),
    pytest.param(2, whole(['not', 'a', 'record']), 'record', id='own-run-second-record-a-list'),
])


@pytest.mark.parametrize('line, mutate, field', OWN_RUN)
def test_a_bad_record_in_the_run_restores_nothing(host, monkeypatch, line, mutate, field):
    _run_file(host)
    _run_sysctl(host)
    path, line = _forge(host, RUN, mutate, line)
    before = host.digest()
    kind, result = _rollback(host, monkeypatch, run_id=RUN)
    assert kind == 'fail' and '%s line %d: field %s: ' % (path, line, field) in result['msg'], result
    assert host.digest() == before
    # without run_id, the same run is the latest: named, not skipped for an older one
    kind, result = _rollback(host, monkeypatch)
    assert kind == 'fail' and '%s line %d: field %s: ' % (path, line, field) in result['msg'], result
    assert host.digest() == before
    host.commands.assert_nothing_changed()


# ---------------------------------------------------------------------------------------- planted links

class Names(object):
    """tempfile's candidate names, the first one known (a link is planted at it): mkstemp must
    step over it (O_EXCL) rather than write through it."""

    def __init__(self):
        self.count = 0

    def __call__(self):
        def names():
            yield 'hostile1'
            while True:
                self.count += 1
                yield 'ordin%03d' % self.count
        return names()


def _armed(host):
    """What is outside the host and the controller directory, just before the run."""
    host.outside = digest(host.tmp, skip=('host', 'controller'))


def _victim(host):
    path = os.path.join(host.tmp, 'victim')
    _write(path, b'root-owned content that must stay\n', 0o600)
    return path


def _plant(link, target):
    if not os.path.isdir(os.path.dirname(link)):
        os.makedirs(os.path.dirname(link), 0o700)
    os.symlink(target, link)


def _copy_tools(host, monkeypatch):
    return run_main(monkeypatch, copy_tools, {'files': [{'path': host.path('etc', 'iotune', 'copy.conf'), 'content': 'new\n'}],
                                              'journal_dir': host.journal_dir, 'run_id': 'r-copy'})


def _snapshot_args(host, **extra):
    empty = host.path('empty')
    return dict({'name': 'pre-upgrade', 'snapshot_dir': host.path('snapshots'), 'fstab_path': host.path('etc', 'fstab'),
                 'tunefstab_path': host.path('etc', 'vx', 'tunefstab'), 'vxtunefs': OWN_VX, 'sys_root': host.path('sys'),
                 'proc_root': host.path('proc'), 'dev_root': empty, 'sysctl_conf_dirs': [empty],
                 'sysctl_conf': host.path('etc', 'sysctl.conf'), 'udev_rules_dirs': [empty], 'udev_db_dir': empty,
                 'unit_dir': host.path('etc', 'systemd', 'system')}, **extra)


def _report(host_name):
    return {'host': host_name, 'run_id': RUN, 'time': '2026-11-25T10:15:00Z', 'mode': 'audit',
            'summary': dict((status, 0) for status in STATUSES), 'checks': []}


def _link_journal(host, monkeypatch, victim):
    _plant(journal_path(host.journal_dir, 'r-copy'), victim)
    _armed(host)
    kind, result = _copy_tools(host, monkeypatch)
    return kind, result, ['cannot', journal_path(host.journal_dir, 'r-copy')]


def _link_journal_read(host, monkeypatch, victim):
    # the victim holds a well-formed journal of run r-x: followed, it would restore fstab from it
    _run_file(host)
    records = _records(journal_path(host.journal_dir, RUN))
    os.unlink(journal_path(host.journal_dir, RUN))
    if os.path.exists(victim):
        records[0]['run_id'] = 'r-x'
        _rewrite(victim, records)
    _plant(journal_path(host.journal_dir, 'r-x'), victim)
    _armed(host)
    kind, result = _rollback(host, monkeypatch, run_id='r-x')
    return kind, result, ['cannot read the journal of run r-x', journal_path(host.journal_dir, 'r-x')]


def _link_lock(host, monkeypatch, victim):
    os.unlink(_journal.lock_path(host.journal_dir))
    _plant(_journal.lock_path(host.journal_dir), victim)
    _armed(host)
    kind, result = _copy_tools(host, monkeypatch)
    return kind, result, ['cannot open the lock', _journal.lock_path(host.journal_dir)]


def _link_lock_rollback(host, monkeypatch, victim):
    _run_file(host)
    os.unlink(_journal.lock_path(host.journal_dir))
    _plant(_journal.lock_path(host.journal_dir), victim)
    _armed(host)
    kind, result = _rollback(host, monkeypatch, run_id=RUN)
    return kind, result, ['cannot open the lock', _journal.lock_path(host.journal_dir)]


def _link_mark(host, monkeypatch, victim):
    _run_file(host)
    _plant(mark_path(host.journal_dir, RUN), victim)
    _armed(host)
    kind, result = _rollback(host, monkeypatch, run_id=RUN)
    return kind, result, [mark_path(host.journal_dir, RUN)]


def _link_mark_temp(host, monkeypatch, victim):
    _run_file(host)
    monkeypatch.setattr(tempfile, '_get_candidate_names', Names())
    _plant(os.path.join(host.journal_dir, '.%s.hostile1.tmp' % os.path.basename(mark_path(host.journal_dir, RUN))), victim)
    _armed(host)
    kind, result = _rollback(host, monkeypatch, run_id=RUN)
    return kind, result, [mark_path(host.journal_dir, RUN)]


def _link_snapshot(host, monkeypatch, victim):
    _plant(host.path('snapshots', 'pre-upgrade.json'), victim)
    _armed(host)
    kind, result = run_main(monkeypatch, io_snapshot, _snapshot_args(host))
    return kind, result, [host.path('snapshots', 'pre-upgrade.json')]


def _link_snapshot_temp(host, monkeypatch, victim):
    monkeypatch.setattr(tempfile, '_get_candidate_names', Names())
    _plant(host.path('snapshots', '.pre-upgrade.json.hostile1.iotune'), victim)
    _armed(host)
    kind, result = run_main(monkeypatch, io_snapshot, _snapshot_args(host))
    return kind, result, [host.path('snapshots', 'pre-upgrade.json')]


def _link_snapshot_read(host, monkeypatch, victim):
    # the victim is a well-formed snapshot: followed, it would be compared as ours
    if os.path.exists(victim):
        _write(victim, render_snapshot({'format': 1, 'name': 'pre-upgrade'}), 0o600)
    _plant(host.path('snapshots', 'pre-upgrade.json'), victim)
    _armed(host)
    kind, result = run_main(monkeypatch, io_snapshot, _snapshot_args(host, name=None, read=['pre-upgrade']))
    return kind, result, ['read[0]', "no snapshot 'pre-upgrade'", host.path('snapshots', 'pre-upgrade.json')]


def _report_args(host):
    return {'report': {'host': 'vm1', 'mode': 'audit', 'checks': []}, 'names': ['audit-latest.json'],
            'dir': host.path('reports')}


def _link_report(host, monkeypatch, victim):
    _plant(host.path('reports', 'audit-latest.json'), victim)
    _armed(host)
    kind, result = run_main(monkeypatch, io_report, _report_args(host))
    return kind, result, [host.path('reports', 'audit-latest.json')]


def _link_report_temp(host, monkeypatch, victim):
    monkeypatch.setattr(tempfile, '_get_candidate_names', Names())
    _plant(host.path('reports', '.audit-latest.json.hostile1.iotune'), victim)
    _armed(host)
    kind, result = run_main(monkeypatch, io_report, _report_args(host))
    return kind, result, [host.path('reports', 'audit-latest.json')]


def _controller(name, temp=False):
    def plant(host, monkeypatch, victim):
        directory = os.path.join(host.tmp, 'controller')
        path = os.path.join(directory, name)
        if temp:
            monkeypatch.setattr(tempfile, '_get_candidate_names', Names())
            _plant(os.path.join(os.path.dirname(path), '.%s.hostile1' % os.path.basename(path)), victim)
        else:
            _plant(path, victim)
        _armed(host)
        written = write_reports(directory, [_report('web1')], now='2026-11-25T10:15:00Z')
        return 'exit', {'written': written}, [path]
    return plant


def link(label, plant, outcome):
    return pytest.param(plant, outcome, id=label)


LINKS = group('planted_links', [
    link('host-journal-enforcing-run', _link_journal, 'fails'),
    link('host-journal-read-by-rollback', _link_journal_read, 'refuses'),
    link('host-lock-enforcing-run', _link_lock, 'fails'),
    link('host-lock-rollback', _link_lock_rollback, 'fails'),
    link('host-rolled-back-mark', _link_mark, 'replaces'),
    link('host-rolled-back-mark-temporary', _link_mark_temp, 'steps-over'),
    link('host-snapshot', _link_snapshot, 'replaces'),
    link('host-snapshot-temporary', _link_snapshot_temp, 'steps-over'),
    link('host-snapshot-read', _link_snapshot_read, 'fails'),
    link('host-report', _link_report, 'replaces'),
    link('host-report-temporary', _link_report_temp, 'steps-over'),
    link('controller-hosts-json', _controller(os.path.join('hosts', 'web1.json')), 'replaces'),
    link('controller-summary-json', _controller('summary.json'), 'replaces'),
    link('controller-report-html', _controller('report.html'), 'replaces'),
    link('controller-junit-xml', _controller('junit.xml'), 'replaces'),
    link('controller-hosts-json-temporary', _controller(os.path.join('hosts', 'web1.json'), temp=True), 'steps-over'),
    link('controller-summary-temporary', _controller('summary.json', temp=True), 'steps-over'),
])


@pytest.mark.parametrize('dangling', [False, True], ids=['to-a-file', 'dangling'])
@pytest.mark.parametrize('plant, outcome', LINKS)
def test_a_planted_link_is_never_written_through(host, monkeypatch, plant, outcome, dangling):
    victim = _victim(host)
    if dangling:
        victim = os.path.join(host.tmp, 'victim-new')
    kind, result, needles = plant(host, monkeypatch, victim)
    assert digest(host.tmp, skip=('host', 'controller')) == host.outside, 'the link was followed'
    assert not os.path.lexists(os.path.join(host.tmp, 'victim-new'))
    path = needles[-1]
    if outcome == 'refuses' and dangling:
        # a link to nothing is no journal: nothing to roll back, nothing read or created
        assert (kind, result['changed'], result['records']) == ('exit', False, []), result
        assert os.path.islink(path)
    elif outcome in ('fails', 'refuses'):
        assert kind == 'fail', result
        for needle in needles:
            assert needle in result['msg'], (needle, result['msg'])
        assert os.path.islink(path)
        assert not os.path.exists(host.path('etc', 'iotune', 'copy.conf'))
        assert _read(host.path('etc', 'fstab')) != b'root-owned content that must stay\n'
    else:
        assert kind == 'exit', result
        if outcome == 'replaces':
            # the link itself is replaced by a regular file of ours
            assert stat.S_ISREG(os.lstat(path).st_mode) and os.lstat(path).st_uid == os.geteuid(), path
        else:
            assert stat.S_ISREG(os.lstat(path).st_mode)
            temps = [name for name in os.listdir(os.path.dirname(path)) if 'hostile1' in name]
            assert len(temps) == 1 and os.path.islink(os.path.join(os.path.dirname(path), temps[0])), temps
    host.commands.assert_nothing_changed()


CASES_PER_GROUP['planted_links'] *= 2  # each to a file and dangling


# ---------------------------------------------------------------------------------------- unsafe directories

def _unsafe(problem):
    """Make ``<tmp>/parent/dir`` (a private directory with its contents) unsafe; the needles of the refusal."""
    def make(parent, directory):
        if problem == 'dir-0777':
            os.chmod(directory, 0o777)
            return ['has mode 0777, writable by group and other']
        if problem == 'dir-0770':
            os.chmod(directory, 0o770)
            return ['has mode 0770, writable by group']
        if problem == 'dir-owner-65534':
            os.chown(directory, 65534, 65534)
            return ['belongs to', 'uid 65534']
        if problem == 'dir-symlink':
            os.rename(directory, directory + '.real')
            os.symlink(directory + '.real', directory)
            return ['is a symbolic link']
        if problem == 'parent-0777':
            os.chmod(parent, 0o777)
            return [parent, 'has mode 0777 (writable by others, not sticky)']
        if problem == 'parent-owner-65534':
            os.chown(parent, 65534, 65534)
            return [parent, 'belongs to', 'uid 65534']
        assert problem == 'parent-sticky-1777'
        os.chmod(parent, 0o1777)
        return None
    return make


PROBLEMS = ('dir-0777', 'dir-0770', 'dir-owner-65534', 'dir-symlink', 'parent-0777', 'parent-owner-65534')


class DirTarget(object):
    """One user of a directory: ``prepare(host, directory)`` fills it (as a good run would),
    ``run(host, monkeypatch, directory)`` -> (kind, result); ``option`` is named in the refusal."""

    def __init__(self, option, prepare, run):
        self.option, self.prepare, self.run = option, prepare, run


def _prepare_journal(host, directory):
    journal = Journal(directory, RUN, 'mount_options', failpoint_file=host.path('no-failpoint'))
    apply_file(journal, host.path('etc', 'fstab'), b'/dev/vdb /data ext4 defaults,noatime 0 2\n')
    os.close(acquire_lock(directory))


def _reads(monkeypatch):
    """Record every read of a journal directory by io_rollback (its logic is in act/rollback.py)."""
    reads = []

    def recorded(name, real):
        def wrapper(*args, **kwargs):
            reads.append((name, args))
            return real(*args, **kwargs)
        return wrapper
    for name in ('read_records', 'latest_open_run', 'list_runs', 'read_mark', 'torn_record'):
        monkeypatch.setattr(_rollback_logic, name, recorded(name, getattr(_rollback_logic, name)))
    return reads


def _rollback_in(check_mode):
    def run(host, monkeypatch, directory):
        reads = _reads(monkeypatch)
        args = host.rollback_args(journal_dir=directory, run_id=RUN, _ansible_check_mode=check_mode)
        kind, result = run_main(monkeypatch, io_rollback, args)
        if kind == 'fail':
            assert reads == [], 'read from a directory that is not private: %s' % reads
        return kind, result
    return run


def _enforce(host, monkeypatch, directory):
    sysctl_d = host.path('etc', 'sysctl.d')
    return run_main(monkeypatch, cache_limits, {
        'sysctl': {'vm.swappiness': 10}, 'sysctl_file': os.path.join(sysctl_d, '60-iotune.conf'),
        'sysctl_conf_dirs': [sysctl_d], 'sysctl_conf': host.path('etc', 'sysctl.conf'), 'proc_root': host.path('proc'),
        'systemd_run_dir': host.path('no-systemd'), 'journal_dir': directory, 'run_id': 'r-enforce'})


def _prepare_snapshots(host, directory):
    _write(os.path.join(directory, 'pre-upgrade.json'), render_snapshot({'format': 1, 'name': 'pre-upgrade'}), 0o600)


def _snapshot_write(host, monkeypatch, directory):
    return run_main(monkeypatch, io_snapshot, _snapshot_args(host, name='post-upgrade', snapshot_dir=directory))


def _snapshot_check(host, monkeypatch, directory):
    # check mode writes nothing, but refuses what the real run would refuse
    return run_main(monkeypatch, io_snapshot, _snapshot_args(host, name='post-upgrade', snapshot_dir=directory,
                                                             _ansible_check_mode=True))


def _snapshot_read(host, monkeypatch, directory):
    return run_main(monkeypatch, io_snapshot, _snapshot_args(host, name=None, read=['pre-upgrade'], snapshot_dir=directory))


def _prepare_reports(host, directory):
    _write(os.path.join(directory, 'audit-latest.json'), '{"host": "vm1"}\n', 0o640)


def _report_write(host, monkeypatch, directory):
    return run_main(monkeypatch, io_report, dict(_report_args(host), dir=directory))


def _prepare_controller(host, directory):
    os.mkdir(os.path.join(directory, 'hosts'), 0o755)


def _controller_write(host, monkeypatch, directory):
    try:
        return 'exit', {'written': write_reports(directory, [_report('web1')], now='2026-11-25T10:15:00Z')}
    except ValueError as exc:
        return 'fail', {'msg': str(exc)}


DIR_TARGETS = {
    'io_rollback': DirTarget('journal_dir', _prepare_journal, _rollback_in(False)),
    'io_rollback-check-mode': DirTarget('journal_dir', _prepare_journal, _rollback_in(True)),
    'cache_limits-enforce': DirTarget('journal_dir', _prepare_journal, _enforce),
    'io_snapshot-write': DirTarget('snapshot_dir', _prepare_snapshots, _snapshot_write),
    'io_snapshot-read': DirTarget('snapshot_dir', _prepare_snapshots, _snapshot_read),
    'io_snapshot-check-mode': DirTarget('snapshot_dir', _prepare_snapshots, _snapshot_check),
    'io_report': DirTarget('dir', _prepare_reports, _report_write),
    'controller-write_reports': DirTarget('iotune_report_dir', _prepare_controller, _controller_write),
}

UNSAFE = group('unsafe_dirs', [pytest.param(target, problem, id='%s-%s' % (target, problem))
                               for target in DIR_TARGETS for problem in PROBLEMS + ('parent-sticky-1777',)])


@pytest.mark.parametrize('target, problem', UNSAFE)
def test_a_directory_others_can_write_is_refused(host, monkeypatch, target, problem):
    parent = os.path.join(host.tmp, 'parent')
    directory = os.path.join(parent, 'dir')
    os.makedirs(directory, 0o700)
    os.chmod(parent, 0o755)
    DIR_TARGETS[target].prepare(host, directory)
    needles = _unsafe(problem)(parent, directory)
    before = digest(host.tmp)
    kind, result = DIR_TARGETS[target].run(host, monkeypatch, directory)
    if needles is None:
        # a sticky parent (as /tmp): nobody else can rename or remove what is ours there
        assert kind == 'exit', result
        return
    assert kind == 'fail', result
    for needle in ['%s: ' % DIR_TARGETS[target].option] + needles:
        assert needle in result['msg'], (needle, result['msg'])
    assert digest(host.tmp) == before, _diff(before, digest(host.tmp))
    host.commands.assert_nothing_changed()


# ---------------------------------------------------------------------------------------- fio's scratch file

SCRATCH = group('unsafe_dirs', [pytest.param(problem, id='fio-scratch-%s' % problem) for problem in (
    'dir-0777', 'dir-0770', 'dir-owner-65534', 'parent-0777', 'parent-owner-65534', 'dir-sticky-1777', 'parent-sticky-1777')])


@pytest.mark.parametrize('problem', SCRATCH)
def test_a_scratch_directory_others_can_write_is_refused(host, problem):
    """fio opens its scratch file by name: whoever can rename in the directory could swap it for a link to any
    file while fio writes; a sticky directory (/tmp) keeps root's file root's."""
    parent = os.path.join(host.tmp, 'parent')
    directory = os.path.join(parent, 'data')
    os.makedirs(directory, 0o755)
    os.chmod(parent, 0o755)
    where, change = problem.split('-', 1)
    path = directory if where == 'dir' else parent
    if change.startswith('owner'):
        os.chown(path, 65534, 65534)
    else:
        os.chmod(path, int(change.split('-')[-1], 8) | (0o1000 if change.startswith('sticky') else 0))
    before = digest(host.tmp)
    try:
        scratch = fio.create_scratch(directory, 4096, 0)
    except fio.MeasureError as exc:
        assert not change.startswith('sticky'), exc
        assert str(exc).startswith('directory: ') and ('65534' in str(exc) or '0777' in str(exc) or '0770' in str(exc)), exc
        assert digest(host.tmp) == before
        return
    assert change.startswith('sticky'), 'created %s in an unsafe directory' % scratch
    os.unlink(scratch)


def test_fio_raw_output_replaces_a_planted_link(host):
    directory = host.path('fio-raw')
    os.makedirs(directory, 0o700)
    victim = host.path('victim')
    _write(victim, 'keep me\n', 0o600)
    for name in ('run-1.json', 'run-1.json.tmp'):
        os.symlink(victim, os.path.join(directory, name))
    path = fio.write_raw(directory, 'run-1.json', '{"fio version": "fio-3.33"}')
    assert _read(victim) == b'keep me\n'
    assert not os.path.islink(path) and json.loads(_read(path).decode('utf-8')) == {'fio version': 'fio-3.33'}


CASES_PER_GROUP['planted_links'] += 1


# ---------------------------------------------------------------------------------------- hostile host names

HOST_NAMES = ['a/b', '../../x', '..', '.', '.hidden', 'x\nnewline', '', '\x00', 'a%2Fb', '/etc/passwd', 'web1/../../..',
              'h\u00f4te', '-rf']
NAMES = group('host_names', [pytest.param(name, id='host-name-%r' % name) for name in HOST_NAMES] +
              [pytest.param(None, id='all-names-together')])


@pytest.mark.parametrize('name', NAMES)
def test_a_host_name_stays_in_hosts(host, name):
    directory = os.path.join(host.tmp, 'controller')
    names = ['web1'] + (HOST_NAMES if name is None else [name])
    outside = digest(host.tmp, skip=('controller',))
    written = write_reports(directory, [_report(each) for each in names], now='2026-11-25T10:15:00Z')
    assert digest(host.tmp, skip=('controller',)) == outside
    hosts = os.path.join(directory, 'hosts')
    files = sorted(os.listdir(hosts))
    assert len(files) == len(names), files
    assert written[:len(names)] == [os.path.join(hosts, os.path.basename(path)) for path in written[:len(names)]]
    assert all(not entry.startswith('.') and '/' not in entry and '\n' not in entry for entry in files), files
    assert sorted(os.listdir(directory)) == ['.iotune-report.lock', 'history.json', 'hosts', 'junit.xml', 'report.html', 'summary.json']
    # written in the order of the fleet files: by host name
    for each, path in zip(sorted(names), written):
        assert os.path.dirname(path) == hosts and json.loads(_read(path).decode('utf-8'))['host'] == each


# ---------------------------------------------------------------------------------------- systemd's own slices

SLICES = ('system.slice', 'user.slice', '-.slice', 'machine.slice', 'user-1000.slice', 'capsule.slice')
SPECIAL = group('special_slices', [pytest.param(target, name, id='%s-%s' % (target, name))
                                   for target in ('io_policy-controller', 'cache_limits') for name in SLICES])


@pytest.mark.parametrize('target, name', SPECIAL)
def test_a_special_slice_is_refused(host, monkeypatch, target, name):
    unit_dir = host.path('etc', 'systemd', 'system')
    os.makedirs(host.path('run', 'systemd', 'system'))
    before = host.digest()
    if target == 'io_policy-controller':
        args, errors = module_args(with_host_vars(
            {'policy': {'iotune_cache': {'bulk_slice': {'memory_high': '25%', 'name': name}}}, 'mode': 'enforce',
             'run_id': 'r-slice', 'journal_dir': host.journal_dir}, lambda var: None))
        kind, msg, field = ('fail' if errors else 'exit'), '; '.join(errors), 'iotune_cache.bulk_slice.name: '
    else:
        kind, result = run_main(monkeypatch, cache_limits, {
            'bulk_slice': {'memory_high': '25%', 'name': name, 'unit_dir': unit_dir}, 'proc_root': host.path('proc'),
            'sysctl_file': host.path('etc', 'sysctl.d', '60-iotune.conf'), 'sysctl_conf_dirs': [host.path('etc', 'sysctl.d')],
            'sysctl_conf': host.path('etc', 'sysctl.conf'), 'systemd_run_dir': host.path('run', 'systemd', 'system'),
            'journal_dir': host.journal_dir, 'run_id': 'r-slice'})
        msg, field = result['msg'], 'bulk_slice.name: '
    assert kind == 'fail', msg
    assert field in msg and name in msg, msg
    assert ('systemd.special(7)' if name != 'user-1000.slice' else 'systemd-logind') in msg, msg
    assert not os.path.exists(os.path.join(unit_dir, name))
    assert host.digest() == before, _diff(before, host.digest())
    host.commands.assert_nothing_changed()


def test_the_groups_are_counted():
    assert sorted(CASES_PER_GROUP) == ['forged_records', 'host_names', 'other_runs', 'planted_links', 'special_slices',
                                       'unsafe_dirs']
    assert CASES_PER_GROUP['forged_records'] >= 150
