# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_rollback: replaying a run's journal in reverse.  The journals are written by the real apply_*
functions on files of tmp_path; the end of this file rolls back real runs of mount_options and
cache_limits (block_queue and tunefstab have theirs next to their other module tests)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from ansible.module_utils import basic

from ansible_collections.iotune.storage.plugins.module_utils.act.apply import apply_file, apply_sysctl, apply_sysfs
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import (
    Journal, journal_path, latest_open_run, mark_path, read_mark, read_records)
from ansible_collections.iotune.storage.plugins.modules import cache_limits, io_rollback, mount_options
from ansible_collections.iotune.storage.tests.unit.module_harness import on_linux, run_main
from ansible_collections.iotune.storage.tests.unit.plugins.module_utils.act.test_apply import FakeMount


def _read(path):
    with open(str(path), 'rb') as handle:
        return handle.read()


@pytest.fixture(name='host')
def host_fixture(tmp_path):
    """Files a run changes: two config files, a sysfs attribute, a vm sysctl; and the journal dir."""
    class Host(object):
        journal_dir = str(tmp_path / 'journal')
        fstab = tmp_path / 'fstab'
        rules = tmp_path / 'rules.d' / '60-iotune.rules'
        sys_root = str(tmp_path / 'sys')
        attr = tmp_path / 'sys' / 'block' / 'vda' / 'queue' / 'read_ahead_kb'
        proc_root = str(tmp_path / 'proc')
        swappiness = tmp_path / 'proc' / 'sys' / 'vm' / 'swappiness'

        def journal(self, run_id):
            return Journal(self.journal_dir, run_id, 'block_queue', failpoint_file=str(tmp_path / 'failpoint'))

        def trusted_args(self):
            return {'journal_dir': self.journal_dir, 'managed_files': [str(self.fstab), str(self.rules)],
                    'sys_root': self.sys_root, 'proc_root': self.proc_root}

        def state(self):
            return (_read(self.fstab), self.rules.exists() and _read(self.rules), self.attr.read_text().strip(),
                    self.swappiness.read_text().strip(), oct(os.stat(str(self.fstab)).st_mode & 0o7777))

    host = Host()
    host.fstab.write_bytes(b'# \xe9t\xe9 latin-1\n/dev/vdb /data ext4 defaults 0 2\n')
    os.chmod(str(host.fstab), 0o600)
    host.rules.parent.mkdir()
    host.attr.parent.mkdir(parents=True)
    host.attr.write_text('128\n')
    host.swappiness.parent.mkdir(parents=True)
    host.swappiness.write_text('60\n')
    return host


def _run(host, journal):
    """A run of four changes: fstab, a new rules file, a sysfs value, a sysctl."""
    apply_file(journal, str(host.fstab), b'/dev/vdb /data ext4 defaults,noatime 0 2\n')
    apply_file(journal, str(host.rules), 'KERNEL=="vda", ATTR{queue/read_ahead_kb}="4096"\n')
    apply_sysfs(journal, {'target': 'vda', 'setting': 'read_ahead_kb', 'path': str(host.attr), 'after': 4096})
    apply_sysctl(journal, {'target': 'vm.swappiness', 'after': 10}, host.proc_root)


@pytest.fixture(name='rollback')
def rollback_fixture(monkeypatch, host):
    def rollback(**args):
        return run_main(monkeypatch, io_rollback, dict(host.trusted_args(), **args))
    return rollback


def test_rollback_restores_everything_and_marks_the_run(host, rollback):
    before = host.state()
    _run(host, host.journal('run-1'))
    assert host.state() != before
    kind, result = rollback(run_id='run-1', _ansible_diff=True)
    assert kind == 'exit', result
    assert host.state() == before
    assert not host.rules.exists()
    assert result['changed'] is True
    assert result['run_id'] == 'run-1' and result['already_rolled_back'] is False and result['errors'] == []
    assert [(r['seq'], r['kind'], r['restored']) for r in result['records']] == [
        (4, 'sysctl', True), (3, 'sysfs', True), (2, 'file', True), (1, 'file', True)]
    assert result['msg'] == 'run run-1: 4 of 4 records restored'
    mark = read_mark(host.journal_dir, 'run-1')
    assert (mark['records'], mark['restored']) == (4, 4)
    diffs = result['diff']
    assert [d['before_header'] for d in diffs] == ['sysctl vm.swappiness', 'sysfs %s' % host.attr, str(host.rules),
                                                   str(host.fstab)]
    assert (diffs[1]['before'], diffs[1]['after']) == ('4096\n', '128\n')
    assert diffs[3]['after'] == b'# \xe9t\xe9 latin-1\n/dev/vdb /data ext4 defaults 0 2\n'.decode('utf-8', 'replace')


def test_the_diff_of_a_program_shows_its_digest_not_its_bytes(host, rollback, tmp_path):
    """A tool the run replaced (a zipapp: executable, with NUL bytes) shows in --diff as sha256 and size on both
    sides; the bytes decoded as text would be noise."""
    tool = tmp_path / 'iotune-copy'
    old, new = b'PK\x03\x04\x00old zipapp', b'PK\x03\x04\x00new zipapp, longer'
    tool.write_bytes(old)
    os.chmod(str(tool), 0o755)
    apply_file(host.journal('run-1'), str(tool), new, mode=0o755)
    args = host.trusted_args()
    kind, result = rollback(run_id='run-1', _ansible_diff=True, managed_files=args['managed_files'] + [str(tool)])
    assert kind == 'exit', result
    assert tool.read_bytes() == old
    assert [(d['before_header'], d['before'], d['after']) for d in result['diff']] == [
        (str(tool), 'sha256 %s, %d bytes\n' % (hashlib.sha256(new).hexdigest(), len(new)),
         'sha256 %s, %d bytes\n' % (hashlib.sha256(old).hexdigest(), len(old)))]


def test_default_run_is_the_latest_open_one(host, rollback):
    host.fstab.write_bytes(b'first\n')
    # the older run gets the later name: the choice goes by time
    apply_file(host.journal('z-older'), str(host.fstab), b'second\n')
    apply_file(host.journal('a-newer'), str(host.fstab), b'third\n')
    kind, result = rollback()
    assert (kind, result['run_id'], result['changed']) == ('exit', 'a-newer', True)
    assert _read(host.fstab) == b'second\n'
    kind, result = rollback()
    assert (kind, result['run_id'], result['changed']) == ('exit', 'z-older', True)
    assert _read(host.fstab) == b'first\n'
    kind, result = rollback()
    assert kind == 'exit'
    assert (result['run_id'], result['changed'], result['records']) == (None, False, [])
    assert result['msg'] == 'no run to roll back in %s' % host.journal_dir


def test_unknown_run_id_lists_the_runs(host, rollback):
    _run(host, host.journal('run-1'))
    apply_file(host.journal('run-2'), str(host.fstab), b'x\n')
    before = host.state()
    kind, result = rollback(run_id='run-9')
    # a run that changed nothing on this host: nothing to do, and a warning naming the runs there are
    assert (kind, result['changed'], result['records']) == ('exit', False, [])
    assert result['msg'] == 'run run-9 changed nothing on this host (no journal): nothing to roll back'
    assert result['warnings'] == ['run_id: no journal %s (runs in %s: run-1, run-2)' % (
        journal_path(host.journal_dir, 'run-9'), host.journal_dir)]
    assert host.state() == before
    kind, result = rollback(run_id='run-9', journal_dir=str(host.fstab.parent / 'empty'))
    assert result['warnings'][0].endswith('(runs in %s: none)' % (host.fstab.parent / 'empty'))


@pytest.mark.parametrize('run_id', ['../etc/passwd', '-rf', 'a b'])
def test_bad_run_id(host, rollback, run_id):
    kind, result = rollback(run_id=run_id)
    assert kind == 'fail'
    assert result['msg'] == ('run_id: run_id must be 1-128 characters of letters, digits and . _ : + - (not starting '
                             'with a punctuation mark), got %r' % run_id)


def test_check_mode_changes_nothing(host, rollback):
    _run(host, host.journal('run-1'))
    applied = host.state()
    kind, result = rollback(run_id='run-1', _ansible_check_mode=True)
    assert (kind, result['changed']) == ('exit', True)
    assert all(r['restored'] for r in result['records'])
    assert host.state() == applied and host.rules.exists()
    assert not os.path.exists(mark_path(host.journal_dir, 'run-1'))


def test_second_rollback_changes_nothing(host, rollback):
    before = host.state()
    _run(host, host.journal('run-1'))
    assert rollback(run_id='run-1')[1]['changed'] is True
    kind, result = rollback(run_id='run-1')
    assert kind == 'exit'
    assert (result['changed'], result['already_rolled_back']) == (False, True)
    assert result['msg'].startswith('run run-1 was rolled back at ')
    assert result['warnings'] == []
    assert host.state() == before
    # something changed the host again: a marked run is not replayed (its later records
    # may differ from the state before it for good reasons), so nothing is written
    host.attr.write_text('8192\n')
    kind, result = rollback(run_id='run-1')
    assert (kind, result['changed'], result['already_rolled_back'], result['records']) == ('exit', False, True, [])
    assert host.attr.read_text() == '8192\n'
    # no open run is left for a rollback without run_id
    assert latest_open_run(host.journal_dir) is None


def test_a_failing_record_does_not_stop_the_others(host, rollback):
    before = host.state()
    _run(host, host.journal('run-1'))
    host.attr.unlink()                      # the device went away
    kind, result = rollback(run_id='run-1')
    assert kind == 'fail'
    assert result['changed'] is True
    assert [(r['seq'], r['restored']) for r in result['records']] == [(4, True), (3, False), (2, True), (1, True)]
    assert len(result['errors']) == 1
    assert result['errors'][0].startswith('record 3 (sysfs %s): ' % host.attr)
    assert 'No such file or directory' in result['errors'][0]
    assert result['msg'] == 'run run-1: 3 of 4 records restored; 1 could not be restored: %s' % result['errors'][0]
    assert not os.path.exists(mark_path(host.journal_dir, 'run-1'))
    assert (_read(host.fstab), host.rules.exists(), host.swappiness.read_text().strip()) == (before[0], False, '60')
    # once the device is back, the run can be rolled back to the end
    host.attr.write_text('4096\n')
    kind, result = rollback(run_id='run-1')
    assert (kind, result['changed']) == ('exit', True)
    assert [r['restored'] for r in result['records']] == [False, True, False, False]
    assert host.state() == before


@pytest.mark.parametrize('check_mode', [True, False])
def test_a_file_an_upgrade_replaced_since_the_run_is_not_restored(host, rollback, check_mode):
    """Issue 24: the upgrade rewrote fstab after the run; putting the run's before back would undo the upgrade.
    The rest is restored, the file is named, the run stays open."""
    before = host.state()
    _run(host, host.journal('run-1'))
    upgraded = b'# rewritten by the upgrade\n/dev/vdb /data ext4 defaults,noatime 0 2\n'
    host.fstab.write_bytes(upgraded)
    kind, result = rollback(run_id='run-1', _ansible_check_mode=check_mode)
    assert kind == 'fail'
    assert len(result['errors']) == 1 and result['errors'][0].startswith(
        'record 1 (file %s): %s was replaced since the run (it holds neither what the run wrote' % (host.fstab, host.fstab))
    assert 'not restored' in result['errors'][0]
    assert _read(host.fstab) == upgraded
    assert [(r['seq'], r['restored']) for r in result['records']] == [(4, True), (3, True), (2, True), (1, False)]
    assert not os.path.exists(mark_path(host.journal_dir, 'run-1'))
    if not check_mode:
        assert (host.rules.exists(), host.attr.read_text().strip(), host.swappiness.read_text().strip()) == (
            False, before[2], before[3])


def test_a_torn_last_line_is_warned_about_and_ignored(host, rollback):
    before = host.state()
    _run(host, host.journal('run-1'))
    with open(journal_path(host.journal_dir, 'run-1'), 'ab') as handle:
        handle.write(b'{"seq": 5, "kind": "fi')
    kind, result = rollback(run_id='run-1')
    assert kind == 'exit', result
    assert result['warnings'] == ['%s: the last record is incomplete (the run was killed while writing it); its change '
                                  'was never made' % journal_path(host.journal_dir, 'run-1')]
    assert len(result['records']) == 4
    assert host.state() == before


def _cut_last_record(path, keep):
    """Cut the journal's last record to ``keep`` of its length, as a file system that lost its tail would."""
    data = _read(path)
    last = data.rstrip(b'\n').rsplit(b'\n', 1)[1]
    with open(str(path), 'wb') as handle:
        handle.write(data[:len(data) - 1 - len(last) + int(len(last) * keep)])


def test_a_last_record_cut_after_its_change_was_made_fails_and_leaves_the_run_open(host, rollback):
    # issue 18, F7: the rollback dropped the cut record, marked the run rolled back, and the change stayed
    before = host.state()
    _run(host, host.journal('run-1'))
    path = journal_path(host.journal_dir, 'run-1')
    _cut_last_record(path, 0.9)  # the sysctl record: vm.swappiness 60 -> 10, made
    kind, result = rollback(run_id='run-1')
    assert kind == 'fail', result
    assert 'seq 4, sysctl vm.swappiness) was cut short after it was written, and its change was made' in result['msg']
    assert read_mark(host.journal_dir, 'run-1') is None
    assert [r['kind'] for r in result['records']] == ['sysfs', 'file', 'file']
    assert host.state()[:3] == before[:3] and host.swappiness.read_text().strip() == '10'


def test_a_last_record_cut_before_its_change_is_dropped_with_a_warning(host, rollback):
    before = host.state()
    _run(host, host.journal('run-1'))
    path = journal_path(host.journal_dir, 'run-1')
    _cut_last_record(path, 0.9)
    host.swappiness.write_text('60\n')  # the change of the cut record was never made
    kind, result = rollback(run_id='run-1')
    assert kind == 'exit', result
    assert host.state() == before and read_mark(host.journal_dir, 'run-1') is not None


def test_an_older_run_is_not_rolled_back_over_a_later_run_on_the_same_file(host, rollback):
    # two runs that edited one fstab: undoing the older first would put back a file without the later edit
    before = host.state()
    apply_file(host.journal('run-1'), str(host.fstab), b'/dev/vdb /data ext4 defaults,noatime 0 2\n')
    apply_file(host.journal('run-2'), str(host.fstab), b'/dev/vdb /data ext4 defaults,noatime,nodev 0 2\n')
    changed = host.state()
    kind, result = rollback(run_id='run-1')
    assert kind == 'fail' and result['msg'] == ('run run-1: nothing restored: later runs changed the same targets and are not '
                                                'rolled back: run-2 (%s); roll them back first, newest first' % host.fstab)
    assert host.state() == changed
    assert rollback(run_id='run-2')[0] == 'exit' and rollback(run_id='run-1')[0] == 'exit'
    assert host.state() == before


def test_an_older_run_is_rolled_back_when_the_later_run_put_the_file_back(host, rollback):
    # a failed remount writes its fstab line and puts it back: the later run loses nothing
    before = host.state()
    apply_file(host.journal('run-1'), str(host.fstab), b'/dev/vdb /data ext4 defaults,noatime 0 2\n')
    apply_file(host.journal('run-1'), str(host.fstab), before[0])
    apply_file(host.journal('run-2'), str(host.fstab), b'/dev/vdb /data ext4 defaults,nodev 0 2\n')
    apply_file(host.journal('run-2'), str(host.fstab), before[0])
    kind, result = rollback(run_id='run-1')
    assert kind == 'exit', result
    assert rollback(run_id='run-2')[0] == 'exit' and host.state() == before


def test_a_corrupt_journal_fails(host, rollback):
    _run(host, host.journal('run-1'))
    path = journal_path(host.journal_dir, 'run-1')
    lines = _read(path).split(b'\n')
    lines[1] = lines[1][:20]
    with open(path, 'wb') as handle:
        handle.write(b'\n'.join(lines))
    applied = host.state()
    kind, result = rollback(run_id='run-1')
    assert kind == 'fail'
    assert result['msg'] == 'cannot read the journal of run run-1: %s line 2 is not a journal record' % path
    assert host.state() == applied
    # without run_id the latest run cannot be told: no older run is picked instead
    kind, result = rollback()
    assert kind == 'fail'
    # its first record still orders it (run_seq): it is the latest, and it is named, not an older run
    assert result['msg'] == 'cannot read the journal of run run-1: %s line 2 is not a journal record' % path
    kind, result = rollback(run_id='run-9')
    assert kind == 'exit' and 'runs in %s: run-1' % host.journal_dir in result['warnings'][0]


def test_unit_records_reload_systemd_once(host, rollback, monkeypatch, tmp_path):
    unit = tmp_path / 'iotune-bulk.slice'
    unit.write_text('[Slice]\n')
    journal = host.journal('run-1')
    apply_file(journal, str(unit), '[Slice]\nMemoryHigh=25%\n')
    # a record that names a program: the rollback runs its own systemctl, never the record's (issue 23, T1)
    journal.record('unit', 'iotune-bulk.slice', None, 'daemon-reload', systemctl='/tmp/evil')
    calls = []
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', on_linux(lambda self, argv, **kwargs: calls.append(list(argv)) or (0, '', '')))
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, *a, **k: '/usr/bin/' + name)
    kind, result = rollback(run_id='run-1', managed_files=[str(unit)])
    assert (kind, result['changed']) == ('exit', True)
    assert unit.read_text() == '[Slice]\n'
    assert calls == [['/usr/bin/systemctl', 'daemon-reload']]


KILLED_RUN = textwrap.dedent('''
    import sys
    from ansible_collections.iotune.storage.plugins.module_utils.act.apply import apply_file
    from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal
    journal = Journal(sys.argv[1], 'killed', 'mount_options', failpoint_file=sys.argv[2])
    for path in sys.argv[3:]:
        apply_file(journal, path, b'changed\\n')
''')


def test_rollback_after_a_run_killed_half_way(host, rollback, tmp_path):
    paths = [tmp_path / ('file%d' % index) for index in range(3)]
    for path in paths:
        path.write_bytes(b'original\n')
    (tmp_path / 'failpoint').write_text('kill-after 2')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    proc = subprocess.run([sys.executable, '-c', KILLED_RUN, host.journal_dir, str(tmp_path / 'failpoint')]
                          + [str(path) for path in paths], env=env, capture_output=True, check=False, timeout=60)
    assert proc.returncode == -9, proc.stderr
    # record 2 is on disk, its change is not
    assert [_read(path) for path in paths] == [b'changed\n', b'original\n', b'original\n']
    assert len(read_records(journal_path(host.journal_dir, 'killed'))[0]) == 2
    kind, result = rollback(managed_files=[str(path) for path in paths])
    assert (kind, result['run_id'], result['changed']) == ('exit', 'killed', True)
    assert [(r['seq'], r['restored']) for r in result['records']] == [(2, False), (1, True)]
    assert [_read(path) for path in paths] == [b'original\n'] * 3


# ---------------------------------------------------------------- real runs of the concern modules

def test_mount_options_apply_and_rollback(monkeypatch, tmp_path, fixture_path):
    fstab = tmp_path / 'fstab'
    shutil.copyfile(fixture_path('policy', 'constructed-vxfs.fstab'), str(fstab))
    os.chmod(str(fstab), 0o640)
    proc_root = tmp_path / 'proc'
    (proc_root / 'self').mkdir(parents=True)
    shutil.copyfile(fixture_path('policy', 'proc-vxfs', 'self', 'mountinfo'), str(proc_root / 'self' / 'mountinfo'))
    original = (_read(fstab), _read(proc_root / 'self' / 'mountinfo'))
    mount = FakeMount(str(proc_root))
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', on_linux(lambda self, argv, **kwargs: mount(argv)))
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, *a, **k: '/usr/bin/' + name)
    journal_dir = str(tmp_path / 'journal')
    args = {'fstab': str(fstab), 'proc_root': str(proc_root), 'journal_dir': journal_dir, 'run_id': 'harden-1',
            '_ansible_module_name': 'iotune.storage.mount_options',
            # /data: noatime in fstab, relatime live; /strict: strictatime in both
            'mounts': [{'path': '/data', 'present': ['noatime']}, {'path': '/strict', 'present': ['noatime']}]}

    kind, result = run_main(monkeypatch, mount_options, args)
    assert kind == 'exit', result
    assert result['changed'] is True
    assert [(c['target'], c['status'], c['changed']) for c in result['checks']] == [
        ('/data', 'compliant', True), ('/strict', 'compliant', True)]
    assert [c['status'] for c in result['checks_before']] == ['drift', 'drift']
    records = read_records(result['journal'])[0]
    assert [(r['kind'], r['target']) for r in records] == [('file', str(fstab)), ('mount', '/data'), ('mount', '/strict')]
    assert set(r['module'] for r in records) == {'mount_options'}
    assert [call[3:] for call in mount.calls] == [['remount,noatime', '/data'], ['remount,noatime', '/strict']]
    assert b'/dev/vdh\t/strict\text4\tnoatime\t0\t2\n' in _read(fstab)
    assert oct(os.stat(str(fstab)).st_mode & 0o777) == '0o640'

    kind, result = run_main(monkeypatch, mount_options, dict(args, run_id='harden-2'))
    assert (kind, result['changed']) == ('exit', False)
    assert not os.path.exists(journal_path(journal_dir, 'harden-2'))

    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': journal_dir, 'managed_files': [str(fstab)],
                                                       'proc_root': str(proc_root)})
    assert (kind, result['run_id'], result['changed']) == ('exit', 'harden-1', True), result
    assert [call[3:] for call in mount.calls[2:]] == [['remount,strictatime', '/strict'], ['remount,atime,relatime', '/data']]
    assert (_read(fstab), _read(proc_root / 'self' / 'mountinfo')) == original


def test_mount_options_failed_remount_puts_the_fstab_line_back(monkeypatch, tmp_path, fixture_path):
    fstab = tmp_path / 'fstab'
    shutil.copyfile(fixture_path('policy', 'constructed-vxfs.fstab'), str(fstab))
    proc_root = tmp_path / 'proc'
    (proc_root / 'self').mkdir(parents=True)
    shutil.copyfile(fixture_path('policy', 'proc-vxfs', 'self', 'mountinfo'), str(proc_root / 'self' / 'mountinfo'))
    original = (_read(fstab), _read(proc_root / 'self' / 'mountinfo'))
    mount = FakeMount(str(proc_root), rc=32, err='mount: /strict: permission denied.')
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', on_linux(lambda self, argv, **kwargs: mount(argv)))
    journal_dir = str(tmp_path / 'journal')
    kind, result = run_main(monkeypatch, mount_options, {
        'fstab': str(fstab), 'proc_root': str(proc_root), 'journal_dir': journal_dir, 'run_id': 'harden-1',
        'path': '/strict', 'present': ['noatime']})
    assert kind == 'fail'
    assert result['changed'] is True
    assert result['msg'].startswith('mount -o remount,noatime /strict failed (rc=32): mount: /strict: permission denied.; '
                                    'line 12 of %s was put back (3 journal record(s) written before the failure' % fstab)
    assert (_read(fstab), _read(proc_root / 'self' / 'mountinfo')) == original
    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': journal_dir, 'run_id': 'harden-1',
                                                       'managed_files': [str(fstab)], 'proc_root': str(proc_root)})
    assert kind == 'exit', result
    assert (_read(fstab), _read(proc_root / 'self' / 'mountinfo')) == original


def test_mount_options_without_remount_changes_only_fstab(monkeypatch, tmp_path, fixture_path):
    fstab = tmp_path / 'fstab'
    shutil.copyfile(fixture_path('policy', 'constructed-vxfs.fstab'), str(fstab))
    original = _read(fstab)

    def no_command(self, argv, **kwargs):
        raise AssertionError('ran %s' % argv)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', on_linux(no_command))
    args = {'fstab': str(fstab), 'proc_root': fixture_path('policy', 'proc-vxfs'), 'remount': False,
            'journal_dir': str(tmp_path / 'journal'), 'path': '/strict', 'present': ['noatime']}
    kind, result = run_main(monkeypatch, mount_options, args)
    assert (kind, result['changed']) == ('exit', True)
    assert [r['kind'] for r in read_records(result['journal'])[0]] == ['file']
    assert result['checks'][0]['status'] == 'drift'       # live is left as it is
    kind, result = run_main(monkeypatch, mount_options, args)
    assert (kind, result['changed']) == ('exit', False)
    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': str(tmp_path / 'journal'), 'managed_files': [str(fstab)]})
    assert (kind, result['changed']) == ('exit', True)
    assert _read(fstab) == original


def test_cache_limits_apply_and_rollback(monkeypatch, tmp_path, fixture_path):
    proc_root = tmp_path / 'proc'
    shutil.copytree(fixture_path('proc', 'vm-loop'), str(proc_root))
    conf_dirs = [str(tmp_path / 'etc' / 'sysctl.d'), str(tmp_path / 'usr' / 'lib' / 'sysctl.d')]
    os.makedirs(conf_dirs[0])
    sysctl_file = tmp_path / 'etc' / 'sysctl.d' / '60-iotune.conf'
    sysctl_file.write_bytes(b'# hand-made \xff\nvm.swappiness = 30\n')
    os.chmod(str(sysctl_file), 0o600)
    vm = proc_root / 'sys' / 'vm'

    def values():
        return dict((name, int((vm / name).read_text())) for name in sorted(os.listdir(str(vm))))
    original = (_read(sysctl_file), values())

    def no_command(self, argv, **kwargs):
        raise AssertionError('ran %s' % argv)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', on_linux(no_command))
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, *a, **k: None)
    journal_dir = str(tmp_path / 'journal')
    args = {'sysctl': {'vm.swappiness': 10, 'vm.dirty_background_ratio': 5}, 'sysctl_file': str(sysctl_file),
            'sysctl_conf_dirs': conf_dirs, 'sysctl_conf': str(tmp_path / 'etc' / 'sysctl.conf'),
            'proc_root': str(proc_root), 'systemd_run_dir': str(tmp_path / 'no-systemd'),
            'journal_dir': journal_dir, 'run_id': 'cache-1', '_ansible_module_name': 'cache_limits'}

    kind, result = run_main(monkeypatch, cache_limits, args)
    assert kind == 'exit', result
    assert result['changed'] is True
    assert [(c['setting'], c['status'], c['changed']) for c in result['checks']] == [
        ('vm.swappiness', 'compliant', True), ('vm.dirty_background_ratio', 'compliant', True)]
    assert (values()['swappiness'], values()['dirty_background_ratio']) == (10, 5)
    assert b'vm.swappiness = 10' in _read(sysctl_file)
    records = read_records(result['journal'])[0]
    assert [(r['kind'], r['target']) for r in records] == [
        ('file', str(sysctl_file)), ('sysctl', 'vm.swappiness'), ('sysctl', 'vm.dirty_background_ratio')]
    assert set(r['module'] for r in records) == {'cache_limits'}
    assert records[2]['before'] == {'vm.dirty_background_ratio': 10, 'vm.dirty_background_bytes': 0}

    kind, result = run_main(monkeypatch, cache_limits, dict(args, run_id='cache-2'))
    assert (kind, result['changed']) == ('exit', False), result

    kind, result = run_main(monkeypatch, io_rollback, {'journal_dir': journal_dir, 'run_id': 'cache-1',
                                                       'managed_files': [str(sysctl_file)], 'proc_root': str(proc_root)})
    assert (kind, result['changed']) == ('exit', True), result
    assert (_read(sysctl_file), values()) == original
    assert oct(os.stat(str(sysctl_file)).st_mode & 0o777) == '0o600'


def test_one_check_per_record(host, rollback):
    _run(host, host.journal('run-1'))
    host.attr.write_text('128\n')   # the sysfs value is already back: nothing to restore there
    kind, result = rollback(run_id='run-1', _ansible_check_mode=True)
    statuses = [(c['setting'], c['status']) for c in result['checks']]
    assert statuses == [('sysctl#4', 'drift'), ('sysfs:read_ahead_kb#3', 'compliant'),
                        ('file#2', 'drift'), ('file#1', 'drift')]
    assert result['checks'][2]['expected'] == 'absent'
    assert result['checks'][3]['expected'].startswith('mode 0600 owner ')
    kind, result = rollback(run_id='run-1')
    assert [c['status'] for c in result['checks']] == ['compliant'] * 4
    assert result['checks'][0]['message'] == 'sysctl vm.swappiness restored as before run run-1'
