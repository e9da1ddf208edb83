# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""remount: cycle on NFS: unmount and mount when nothing holds the mount open, journalled, read back,
rolled back by the same cycle; with a fake mount(8)/umount(8) that rewrites a fixture /proc tree as
Linux shows an NFS mount (nfs_show_options), and fixture processes for the holders."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act.apply import (
    ApplyError, apply_mount, apply_mount_cycle, cycle_argvs, live_options_of, restore_mount_cycle, umount_bin_for)
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal, journal_path, read_records
from ansible_collections.iotune.storage.plugins.module_utils.act.records import RecordError, Trusted, validate_record
from ansible_collections.iotune.storage.plugins.module_utils.act.rollback import RollbackError, roll_back
from ansible_collections.iotune.storage.plugins.module_utils.act.apply import apply_file

PATH, SOURCE = '/mnt/nfs', 'filer:/export'
ROOT_LINE = '27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n'
# what a plain `mount -t nfs4 filer:/export /mnt/nfs` shows when the server caps rsize and wsize at 512 KiB
BEFORE = ['rw', 'relatime', 'vers=4.2', 'rsize=524288', 'wsize=524288', 'namlen=255', 'hard', 'proto=tcp',
          'timeo=600', 'retrans=2', 'sec=sys', 'clientaddr=192.0.2.10', 'local_lock=none', 'addr=192.0.2.1']
WANTED = ['rw', 'rsize=1048576', 'nconnect=4', 'actimeo=30', 'noatime']
CAP = 524288
_VFS = ('ro', 'rw', 'noatime', 'relatime', 'strictatime', 'nosuid', 'nodev', 'noexec', 'sync', 'nodiratime')
_AC_DEFAULTS = (('acregmin', '3'), ('acregmax', '60'), ('acdirmin', '30'), ('acdirmax', '60'))


def nfs_line(options, source=SOURCE, path=PATH, ignore=()):
    """The mountinfo line Linux writes for an NFSv4.2 mount made with ``options`` (a server capping rsize/wsize
    at CAP); options in ``ignore`` are dropped as an older kernel would."""
    given = dict(option.split('=', 1) if '=' in option else (option, None) for option in options if option not in ignore)
    flags = ['ro' if 'ro' in given else 'rw', 'noatime' if 'noatime' in given else 'relatime']
    flags += [word for word in ('nosuid', 'nodev', 'noexec', 'nodiratime') if word in given]
    if 'actimeo' in given:
        given.update((name, given['actimeo']) for name, dummy in _AC_DEFAULTS)
    sizes = ['%s=%d' % (name, min(int(given.get(name, CAP)), CAP)) for name in ('rsize', 'wsize')]
    ac = ['%s=%s' % (name, given[name]) for name, default in _AC_DEFAULTS if given.get(name, default) != default]
    recovery = [word for word in ('soft', 'softerr') if word in given] or ['hard']
    nconnect = ['nconnect=%s' % given['nconnect']] if 'nconnect' in given else []
    super_options = (['rw', 'vers=4.2'] + sizes + ['namlen=255'] + ac + recovery + ['proto=tcp'] + nconnect
                     + ['timeo=%s' % given.get('timeo', '600'), 'retrans=2', 'sec=sys', 'clientaddr=192.0.2.10',
                        'local_lock=none', 'addr=192.0.2.1'])
    return '131 27 0:52 / %s %s shared:180 - nfs4 %s %s\n' % (path, ','.join(flags), source, ','.join(super_options))


class FakeNfs(object):
    """``umount <path>`` and ``mount --options-source=disable -t nfs4 -o <opts> <source> <path>`` on a fake
    proc_root; ``fail``: {'umount'|'mount': [rc, ...]} answered first; ``ignore``: options the kernel drops."""

    def __init__(self, proc_root, fail=None, ignore=()):
        self.path = os.path.join(proc_root, 'self', 'mountinfo')
        self.fail, self.ignore, self.calls = dict(fail or {}), ignore, []

    def _lines(self):
        with open(self.path) as handle:
            return handle.read().splitlines(True)

    def _write(self, lines):
        with open(self.path, 'w') as handle:
            handle.write(''.join(lines))

    def __call__(self, argv):
        self.calls.append(list(argv))
        program = os.path.basename(argv[0])
        if self.fail.get(program):
            return self.fail[program].pop(0), '', '%s: %s: target is busy.\n' % (program, argv[-1])
        if program == 'umount':
            lines = [line for line in self._lines() if line.split(' ')[4] != argv[1]]
            assert len(lines) == len(self._lines()) - 1, 'umount of what is not mounted'
            self._write(lines)
            return 0, '', ''
        assert program == 'mount' and argv[1:4] == ['--options-source=disable', '-t', 'nfs4'] and argv[4] == '-o', argv
        self._write(self._lines() + [nfs_line(argv[5].split(','), argv[6], argv[7], self.ignore)])
        return 0, '', ''


@pytest.fixture(name='proc_root')
def proc_root_fixture(tmp_path):
    (tmp_path / 'proc' / 'self').mkdir(parents=True)
    (tmp_path / 'proc' / 'self' / 'mountinfo').write_text(ROOT_LINE + nfs_line(BEFORE))
    return str(tmp_path / 'proc')


@pytest.fixture(name='journal')
def journal_fixture(tmp_path):
    return Journal(str(tmp_path / 'journal'), 'run-1', 'mount_options')


def _hold(proc_root, pid=4242, comm='bash', cwd='/mnt/nfs/work'):
    proc_dir = os.path.join(proc_root, str(pid))
    os.makedirs(os.path.join(proc_dir, 'fd'))
    os.symlink(cwd, os.path.join(proc_dir, 'cwd'))
    with open(os.path.join(proc_dir, 'maps'), 'w') as handle:
        handle.write('')
    with open(os.path.join(proc_dir, 'comm'), 'w') as handle:
        handle.write(comm + '\n')


def _change(options=None, present=('rsize=1048576', 'nconnect=4', 'actimeo=30', 'noatime'), absent=('soft',)):
    options = list(options or WANTED)
    return {'kind': 'mount_cycle', 'target': PATH, 'fstype': 'nfs4', 'source': SOURCE, 'options': options,
            'before': list(BEFORE), 'after': options, 'present': list(present), 'absent': list(absent)}


def _records(journal):
    return read_records(journal_path(journal.journal_dir, journal.run_id))[0]


def test_the_argument_vectors():
    assert umount_bin_for('/usr/bin/mount') == '/usr/bin/umount' and umount_bin_for('mount') == 'umount'
    assert cycle_argvs('/usr/bin/mount', PATH, 'nfs4', SOURCE, ['rw', 'nconnect=4']) == (
        ['/usr/bin/umount', PATH],
        ['/usr/bin/mount', '--options-source=disable', '-t', 'nfs4', '-o', 'rw,nconnect=4', SOURCE, PATH])


def test_cycle_journals_unmounts_mounts_and_reads_back(proc_root, journal):
    nfs = FakeNfs(proc_root)
    assert apply_mount_cycle(journal, _change(), nfs, '/own/mount', proc_root) is True
    assert nfs.calls == [['/own/umount', PATH], ['/own/mount', '--options-source=disable', '-t', 'nfs4', '-o',
                                                 'rw,rsize=1048576,nconnect=4,actimeo=30,noatime', SOURCE, PATH]]
    now = live_options_of(proc_root, PATH)
    # rsize stays at the server's cap: not an error (the plan reports it as negotiated)
    assert 'nconnect=4' in now and 'noatime' in now and 'rsize=524288' in now and 'acregmin=30' in now
    record, = _records(journal)
    assert (record['kind'], record['target'], record['before'], record['after'], record['fstype'], record['source']) == (
        'mount_cycle', PATH, BEFORE, WANTED, 'nfs4', SOURCE)
    assert 'mount_bin' not in record and 'proc_root' not in record


def test_cycle_is_refused_while_a_process_holds_the_mount(proc_root, journal):
    _hold(proc_root)
    nfs = FakeNfs(proc_root)
    with pytest.raises(ApplyError, match=r'^/mnt/nfs was not unmounted: pid 4242 \(bash: cwd\) holds it open$'):
        apply_mount_cycle(journal, _change(), nfs, 'mount', proc_root)
    assert (nfs.calls, journal.written, live_options_of(proc_root, PATH)) == ([], 0, BEFORE)


def test_cycle_is_refused_while_a_mount_is_under_it(proc_root, journal):
    with open(os.path.join(proc_root, 'self', 'mountinfo'), 'a') as handle:
        handle.write('140 131 0:60 / /mnt/nfs/snap rw,relatime shared:190 - tmpfs tmpfs rw\n')
    with pytest.raises(ApplyError, match='the mount /mnt/nfs/snap under it holds it open'):
        apply_mount_cycle(journal, _change(), FakeNfs(proc_root), 'mount', proc_root)
    assert journal.written == 0


def test_a_failed_unmount_leaves_the_mount_as_it_was(proc_root, journal):
    nfs = FakeNfs(proc_root, fail={'umount': [32]})
    with pytest.raises(ApplyError, match=r'^umount /mnt/nfs failed \(rc=32\): umount: /mnt/nfs: target is busy\.; '
                                         r'/mnt/nfs is still mounted as it was$'):
        apply_mount_cycle(journal, _change(), nfs, 'mount', proc_root)
    assert len(_records(journal)) == 1 and live_options_of(proc_root, PATH) == BEFORE


def test_a_failed_mount_mounts_the_previous_options_again(proc_root, journal):
    nfs = FakeNfs(proc_root, fail={'mount': [32]})
    with pytest.raises(ApplyError, match=r'/mnt/nfs was mounted again with its previous options$'):
        apply_mount_cycle(journal, _change(), nfs, 'mount', proc_root)
    assert nfs.calls[-1][5] == ','.join(BEFORE)
    assert live_options_of(proc_root, PATH) == BEFORE


def test_a_mount_that_fails_twice_says_the_mount_is_gone(proc_root, journal):
    with pytest.raises(ApplyError, match=r'failed too: .*; /mnt/nfs is not mounted now$'):
        apply_mount_cycle(journal, _change(), FakeNfs(proc_root, fail={'mount': [32, 32]}), 'mount', proc_root)
    assert live_options_of(proc_root, PATH) is None


def test_an_option_the_kernel_does_not_show_is_named_and_the_mount_cycled_back(proc_root, journal):
    nfs = FakeNfs(proc_root, ignore=('nconnect=4',))
    with pytest.raises(ApplyError) as excinfo:
        apply_mount_cycle(journal, _change(), nfs, 'mount', proc_root)
    assert ': nconnect=4 not as requested (accepted and not shown, or ignored)' in str(excinfo.value)
    assert 'rsize' not in str(excinfo.value).rsplit(': ', maxsplit=1)[-1]
    assert len(nfs.calls) == 4 and live_options_of(proc_root, PATH) == BEFORE


def test_a_mount_that_changed_source_is_not_unmounted(proc_root, journal):
    change = dict(_change(), source='other:/export')
    with pytest.raises(ApplyError, match='^/mnt/nfs is now nfs4 filer:/export, not nfs4 other:/export: not unmounted$'):
        apply_mount_cycle(journal, change, FakeNfs(proc_root), 'mount', proc_root)


def test_restore_cycles_back_to_the_options_before(proc_root, journal):
    nfs = FakeNfs(proc_root)
    apply_mount_cycle(journal, _change(), nfs, 'mount', proc_root)
    record, = _records(journal)
    assert restore_mount_cycle(record, nfs, True, '/own/mount', proc_root) is True
    assert len(nfs.calls) == 2  # check mode: nothing run
    assert restore_mount_cycle(record, nfs, False, '/own/mount', proc_root) is True
    assert nfs.calls[2:] == [['/own/umount', PATH], ['/own/mount', '--options-source=disable', '-t', 'nfs4', '-o',
                                                     ','.join(BEFORE), SOURCE, PATH]]
    with open(os.path.join(proc_root, 'self', 'mountinfo')) as handle:
        assert handle.read() == ROOT_LINE + nfs_line(BEFORE)
    assert restore_mount_cycle(record, nfs, False, '/own/mount', proc_root) is False
    assert len(nfs.calls) == 4


def test_restore_is_refused_while_a_process_holds_the_mount(proc_root, journal):
    nfs = FakeNfs(proc_root)
    apply_mount_cycle(journal, _change(), nfs, 'mount', proc_root)
    _hold(proc_root, 777, 'vim', '/mnt/nfs/notes.txt')
    record, = _records(journal)
    with pytest.raises(ApplyError, match=r'pid 777 \(vim: cwd\) holds it open'):
        restore_mount_cycle(record, nfs, True, 'mount', proc_root)
    assert len(nfs.calls) == 2


def test_a_remount_of_nfs_reads_back_with_the_nfs_defaults(proc_root, journal):
    # cto and actimeo=3/60/30/60 defaults are not shown: not an error after a remount of the VFS options
    nfs_remount = FakeNfs(proc_root)

    def remount(argv):
        nfs_remount.calls.append(argv)
        with open(nfs_remount.path) as handle:
            text = handle.read()
        with open(nfs_remount.path, 'w') as handle:
            handle.write(text.replace(' rw,relatime shared:180', ' rw,noatime shared:180'))
        return 0, '', ''
    change = {'kind': 'mount', 'target': PATH, 'options': 'remount,noatime', 'after': ['rw', 'noatime'] + BEFORE[2:]}
    assert apply_mount(journal, change, remount, 'mount', proc_root, ['noatime', 'cto', 'acregmin=3', 'nconnect=4'], ['nocto'])


# ---------------------------------------------------------------- the journal record, read back

def _record(**fields):
    record = {'seq': 1, 'run_seq': 1, 'time': '2026-11-25T10:15:00.000000Z', 'run_id': 'run-1', 'module': 'mount_options',
              'kind': 'mount_cycle', 'target': PATH, 'before': list(BEFORE), 'after': list(WANTED), 'fstype': 'nfs4',
              'source': SOURCE}
    record.update(fields)
    return dict((key, value) for key, value in record.items() if value is not None)


@pytest.mark.parametrize('fields', [{}, {'fstype': 'nfs', 'source': '[2001:db8::1]:/srv/export'}, {'source': 'filer.example.org:/'}])
def test_a_valid_cycle_record(fields):
    assert validate_record(_record(**fields), 'j', 1, 'run-1', None, Trusted()) == _record(**fields)


@pytest.mark.parametrize('fields, field', [
    ({'fstype': 'ext4'}, 'fstype'),
    ({'fstype': None}, 'fstype'),
    ({'source': 'filer:/export,nconnect=16'}, 'source'),
    ({'source': 'filer:/export /etc'}, 'source'),
    ({'source': '/dev/vdb'}, 'source'),
    ({'source': None}, 'source'),
    ({'before': 'rw,relatime'}, 'before'),
    ({'after': ['rw', 'a b']}, 'after'),
    ({'target': '/mnt/../etc'}, 'target'),
])
def test_a_forged_cycle_record_names_its_field(fields, field):
    with pytest.raises(RecordError, match=r'^j line 3: field %s: ' % field):
        validate_record(_record(**fields), 'j', 3, 'run-1', None, Trusted())


def test_roll_back_restores_the_cycle_with_its_own_programs_then_fstab(tmp_path, proc_root):
    fstab = tmp_path / 'fstab'
    fstab.write_text('filer:/export /mnt/nfs nfs4 rw,_netdev 0 0\n')
    journal = Journal(str(tmp_path / 'journal'), 'run-1', 'mount_options')
    nfs = FakeNfs(proc_root)
    apply_file(journal, str(fstab), 'filer:/export /mnt/nfs nfs4 rw,_netdev,nconnect=4 0 0\n')
    apply_mount_cycle(journal, _change(WANTED[:1] + ['nconnect=4'], ['nconnect=4'], []), nfs, 'mount', proc_root)

    class Runner(object):
        def change(self, argv):
            return nfs(argv)
    trusted = Trusted([str(fstab)], str(tmp_path / 'sys'), proc_root, '/own/mount')
    result = roll_back(str(tmp_path / 'journal'), 'run-1', trusted, Runner(), warn=lambda message: None)
    assert result['msg'] == 'run run-1: 2 of 2 records restored'
    assert nfs.calls[2:] == [['/own/umount', PATH], ['/own/mount', '--options-source=disable', '-t', 'nfs4', '-o',
                                                     ','.join(BEFORE), SOURCE, PATH]]
    assert live_options_of(proc_root, PATH) == BEFORE
    assert fstab.read_text() == 'filer:/export /mnt/nfs nfs4 rw,_netdev 0 0\n'


def test_roll_back_fails_naming_the_holder_and_leaves_the_run_open(tmp_path, proc_root):
    journal = Journal(str(tmp_path / 'journal'), 'run-1', 'mount_options')
    nfs = FakeNfs(proc_root)
    apply_mount_cycle(journal, _change(), nfs, 'mount', proc_root)
    _hold(proc_root)

    class Runner(object):
        def change(self, argv):
            return nfs(argv)
    with pytest.raises(RollbackError) as excinfo:
        roll_back(str(tmp_path / 'journal'), 'run-1', Trusted([], proc_root=proc_root), Runner(), warn=lambda message: None)
    assert 'pid 4242 (bash: cwd) holds it open' in json.dumps(excinfo.value.result['errors'])
    assert len(nfs.calls) == 2
