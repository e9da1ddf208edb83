# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The write side: each apply_* journals then changes, each restore_* puts a record's ``before`` back.

Sysfs and /proc/sys are trees of plain files in tmp_path; mounts are a fake mount(8) that
rewrites a fake self/mountinfo; VxFS tunables come from the simulator tests/vxfs-sim/vxtunefs."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib
import os
import shutil
import stat
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act import apply as _apply
from ansible_collections.iotune.storage.plugins.module_utils.act.apply import (
    apply_file,
    apply_mount,
    apply_sysctl,
    apply_sysfs,
    apply_vxtunefs,
    ApplyError,
    live_options_of,
    missing_options,
    remount_argv,
    restore_file,
    restore_mount,
    restore_sysctl,
    restore_sysfs,
    restore_vxtunefs,
    reverse_remount_words,
    sysfs_value,
    write_value,
)
from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import atomic_write, stale_temps
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal, read_records
from ansible_collections.iotune.storage.plugins.module_utils.act.records import RecordError, Trusted, validate_record
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import read_live

SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))),
                   'vxfs-sim', 'vxtunefs')
VOL01 = '/dev/vx/dsk/datadg/vol01'
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason='changing a file owner needs root')


@pytest.fixture(name='journal')
def journal_fixture(tmp_path):
    return Journal(str(tmp_path / 'journal'), 'run-1', 'test', failpoint_file=str(tmp_path / 'failpoint'))


def records_of(journal):
    records, problems = read_records(journal.path)
    assert problems == []
    return records


def _read(path):
    with open(str(path), 'rb') as handle:
        return handle.read()


def _owner_mode(path):
    st = os.stat(str(path))
    return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


# ================================================================ files

def test_atomic_write_new_file_is_0644_whatever_the_umask(tmp_path):
    path = tmp_path / 'new'
    old = os.umask(0o077)
    try:
        atomic_write(str(path), 'caf\udce9\n')    # text with a surrogate-escaped byte
    finally:
        os.umask(old)
    assert _read(path) == b'caf\xe9\n'
    assert _owner_mode(path)[2] == 0o644
    assert os.listdir(str(tmp_path)) == ['new']


@AS_ROOT
def test_atomic_write_keeps_mode_and_owner_of_an_existing_file(tmp_path):
    path = tmp_path / 'fstab'
    path.write_bytes(b'old\n')
    os.chmod(str(path), 0o600)
    os.chown(str(path), 1234, 5678)
    atomic_write(str(path), b'new\n', mode=0o644, uid=0, gid=0)
    assert _read(path) == b'new\n'
    assert _owner_mode(path) == (1234, 5678, 0o600)


@AS_ROOT
def test_atomic_write_without_keep_existing_sets_what_it_is_given(tmp_path):
    path = tmp_path / 'fstab'
    path.write_bytes(b'old\n')
    atomic_write(str(path), b'new\n', mode=0o640, uid=1234, gid=5678, keep_existing=False)
    assert _owner_mode(path) == (1234, 5678, 0o640)


def test_atomic_write_failure_leaves_the_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / 'fstab'
    path.write_bytes(b'old\n')

    def rename(src, dst):
        assert os.path.exists(src)        # the temporary file was there until the failure
        raise OSError(28, 'No space left on device')
    monkeypatch.setattr(_apply.os, 'rename', rename)
    with pytest.raises(OSError, match='No space left'):
        atomic_write(str(path), b'new\n')
    monkeypatch.undo()
    assert os.listdir(str(tmp_path)) == ['fstab']
    assert _read(path) == b'old\n'


def test_apply_file_creates_then_restore_removes(tmp_path, journal):
    path = str(tmp_path / 'etc' / '60-iotune.conf')
    os.makedirs(os.path.dirname(path))
    assert apply_file(journal, path, 'vm.swappiness = 10\n', note='x') is True
    assert _read(path) == b'vm.swappiness = 10\n'
    assert _owner_mode(path)[2] == 0o644
    record, = records_of(journal)
    assert (record['kind'], record['target'], record['before'], record['note']) == ('file', path, {'state': 'absent'}, 'x')
    assert record['after'] == {'state': 'present', 'size': 19,
                               'sha256': hashlib.sha256(b'vm.swappiness = 10\n').hexdigest()}
    assert restore_file(path, record['before'], check=True) is True
    assert os.path.exists(path)
    assert restore_file(path, record['before']) is True
    assert not os.path.exists(path)
    assert restore_file(path, record['before']) is False


@AS_ROOT
def test_apply_file_and_restore_byte_for_byte(tmp_path, journal):
    path = tmp_path / 'fstab'
    original = b'# \xff\xfe not UTF-8\r\n/dev/vdb\t/data  ext4 defaults 0 2   \n\n'
    path.write_bytes(original)
    os.chmod(str(path), 0o640)
    os.chown(str(path), 1234, 5678)
    assert apply_file(journal, str(path), b'/dev/vdb /data ext4 defaults,noatime 0 2\n') is True
    assert _read(path) == b'/dev/vdb /data ext4 defaults,noatime 0 2\n'
    assert _owner_mode(path) == (1234, 5678, 0o640)            # kept by the write
    # the same content again: nothing to do, nothing journalled
    assert apply_file(journal, str(path), '/dev/vdb /data ext4 defaults,noatime 0 2\n') is False
    record, = records_of(journal)
    os.chmod(str(path), 0o666)
    os.chown(str(path), 0, 0)
    assert restore_file(str(path), record['before'], check=True) is True
    assert _read(path) == b'/dev/vdb /data ext4 defaults,noatime 0 2\n' and _owner_mode(path) == (0, 0, 0o666)
    assert restore_file(str(path), record['before']) is True
    assert _read(path) == original
    assert _owner_mode(path) == (1234, 5678, 0o640)
    assert restore_file(str(path), record['before']) is False
    assert sorted(os.listdir(str(tmp_path))) == ['fstab', 'journal']


def _set_xattr(path, name, value):
    try:
        os.setxattr(str(path), name, value)
    except OSError as exc:
        pytest.skip('no %s on %s: %s' % (name, path, exc))


def test_apply_file_keeps_extended_attributes_and_restore_puts_them_back(tmp_path, journal):
    # issue 18, F2: xattrs (and so POSIX ACLs) were dropped by the rename and not restored
    path = tmp_path / 'fstab'
    path.write_bytes(b'old\n')
    _set_xattr(path, 'user.iotune-test', b'kept')
    assert apply_file(journal, str(path), 'new\n') is True
    assert os.getxattr(str(path), 'user.iotune-test') == b'kept'
    os.removexattr(str(path), 'user.iotune-test')
    _set_xattr(path, 'user.other', b'added later')
    record, = records_of(journal)
    assert restore_file(str(path), record['before']) is True
    assert _read(path) == b'old\n' and os.listxattr(str(path)) == ['user.iotune-test']
    assert os.getxattr(str(path), 'user.iotune-test') == b'kept'


@pytest.mark.skipif(not shutil.which('setfacl'), reason='setfacl (Debian package acl) is not installed')
def test_apply_file_keeps_a_posix_acl_and_restore_puts_it_back(tmp_path, journal):
    path = tmp_path / '60-iotune.rules'
    path.write_bytes(b'old\n')
    path.chmod(0o640)
    if subprocess.call(['setfacl', '-m', 'u:nobody:r', str(path)]) != 0:
        pytest.skip('%s does not take POSIX ACLs' % tmp_path)
    acl = subprocess.check_output(['getfacl', '-cp', str(path)])
    assert b'user:nobody:r--' in acl
    apply_file(journal, str(path), 'new\n')
    assert subprocess.check_output(['getfacl', '-cp', str(path)]) == acl
    subprocess.check_call(['setfacl', '-b', str(path)])
    record, = records_of(journal)
    assert restore_file(str(path), record['before']) is True
    assert subprocess.check_output(['getfacl', '-cp', str(path)]) == acl and _read(path) == b'old\n'


def test_apply_file_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path, journal):
    # issue 18, F5: /etc/sysctl.d/99-sysctl.conf -> ../sysctl.conf on Debian
    (tmp_path / 'sysctl.conf').write_bytes(b'vm.swappiness = 60\n')
    (tmp_path / 'sysctl.conf').chmod(0o600)
    inode = os.stat(str(tmp_path / 'sysctl.conf')).st_ino
    link = tmp_path / '99-sysctl.conf'
    link.symlink_to('sysctl.conf')
    assert apply_file(journal, str(link), 'vm.swappiness = 10\n') is True
    assert os.path.islink(str(link)) and os.readlink(str(link)) == 'sysctl.conf'
    assert _read(tmp_path / 'sysctl.conf') == b'vm.swappiness = 10\n'
    assert stat.S_IMODE(os.stat(str(tmp_path / 'sysctl.conf')).st_mode) == 0o600
    assert os.stat(str(tmp_path / 'sysctl.conf')).st_ino != inode  # replaced by rename, in its own directory
    assert apply_file(journal, str(link), 'vm.swappiness = 10\n') is False
    record, = records_of(journal)
    assert restore_file(str(link), record['before']) is True
    assert os.path.islink(str(link)) and _read(tmp_path / 'sysctl.conf') == b'vm.swappiness = 60\n'
    assert restore_file(str(link), record['before']) is False


def test_restore_file_removes_the_temporary_files_a_killed_run_left(tmp_path, journal):
    # issue 18, F4: SIGKILL between the temporary file and the rename
    path = tmp_path / 'fstab'
    path.write_bytes(b'old\n')
    apply_file(journal, str(path), 'new\n')
    stale = tmp_path / '.fstab.k3x_9q2a.iotune'
    stale.write_bytes(b'half a fst')
    unrelated = [tmp_path / '.fstab.too-long-name.iotune', tmp_path / '.fstab2.abcdefgh.iotune', tmp_path / 'fstab.abcdefgh.iotune']
    for other in unrelated:
        other.write_bytes(b'not ours')
    record, = records_of(journal)
    assert stale_temps(str(path)) == [str(stale)]
    assert restore_file(str(path), record['before'], check=True) is True
    assert stale.exists()
    assert restore_file(str(path), record['before']) is True
    assert not stale.exists() and all(other.exists() for other in unrelated)
    assert restore_file(str(path), record['before']) is False


def test_restore_file_puts_back_only_the_mode(tmp_path, journal):
    path = tmp_path / 'rules'
    path.write_bytes(b'same\n')
    os.chmod(str(path), 0o600)
    apply_file(journal, str(path), b'other\n')
    record, = records_of(journal)
    path.write_bytes(b'same\n')
    os.chmod(str(path), 0o644)
    assert restore_file(str(path), record['before']) is True
    assert _owner_mode(path)[2] == 0o600


def test_restore_file_recreates_a_removed_directory(tmp_path, journal):
    path = tmp_path / 'units' / 'iotune-bulk.slice'
    path.parent.mkdir()
    path.write_bytes(b'[Slice]\n')
    apply_file(journal, str(path), b'[Slice]\nMemoryHigh=25%\n')
    record, = records_of(journal)
    os.unlink(str(path))
    os.rmdir(str(path.parent))
    assert restore_file(str(path), record['before']) is True
    assert _read(path) == b'[Slice]\n'


def test_apply_file_in_a_missing_directory_fails_after_its_record(tmp_path, journal):
    path = str(tmp_path / 'missing' / 'file')
    with pytest.raises(ApplyError, match='cannot write .*/missing/file: directory .*/missing does not exist'):
        apply_file(journal, path, 'x\n')
    record, = records_of(journal)          # written ahead; its change never happened
    assert restore_file(path, record['before']) is False
    assert not os.path.exists(str(tmp_path / 'missing'))


# ================================================================ sysfs

@pytest.fixture(name='queue')
def queue_fixture(tmp_path):
    """A fake /sys/block/vda/queue of plain files."""
    queue = tmp_path / 'sys' / 'block' / 'vda' / 'queue'
    queue.mkdir(parents=True)
    for name, text in (('read_ahead_kb', '128\n'), ('nr_requests', '256\n'), ('scheduler', 'none [mq-deadline]\n'),
                       ('write_cache', 'write back\n')):
        (queue / name).write_text(text)
    return queue


@pytest.mark.parametrize('name, text, value', [
    ('read_ahead_kb', '128\n', 128),
    ('scheduler', 'none [mq-deadline] kyber bfq\n', 'mq-deadline'),
    ('scheduler', '[none] mq-deadline\n', 'none'),
    ('scheduler', 'none\n', 'none'),
    ('write_cache', 'write back\n', 'write back'),
])
def test_sysfs_value(tmp_path, name, text, value):
    (tmp_path / name).write_text(text)
    assert sysfs_value(str(tmp_path / name)) == value


def _sysfs_change(queue, setting, after):
    return {'kind': 'sysfs', 'target': 'vda', 'setting': setting, 'path': str(queue / setting), 'before': None,
            'after': after}


def test_apply_and_restore_sysfs(queue, journal):
    change = _sysfs_change(queue, 'read_ahead_kb', 4096)
    assert apply_sysfs(journal, change) is True
    assert (queue / 'read_ahead_kb').read_text() == '4096'
    assert apply_sysfs(journal, change) is False
    record, = records_of(journal)
    assert (record['kind'], record['target'], record['before'], record['after'], record['device'], record['setting']) == (
        'sysfs', str(queue / 'read_ahead_kb'), 128, 4096, 'vda', 'read_ahead_kb')
    assert restore_sysfs(record, check=True) is True
    assert (queue / 'read_ahead_kb').read_text() == '4096'
    assert restore_sysfs(record) is True
    assert sysfs_value(str(queue / 'read_ahead_kb')) == 128
    assert restore_sysfs(record) is False


def _dm_device(block, name, uuid, read_ahead_kb):
    queue = block / name / 'queue'
    queue.mkdir(parents=True)
    (block / name / 'dm').mkdir()
    (block / name / 'dm' / 'uuid').write_text(uuid + '\n')
    (queue / 'read_ahead_kb').write_text('%d\n' % read_ahead_kb)
    return queue


MAP_UUID = 'mpath-360014052600000000004000800000000'
LV_UUID = 'LVM-dIe36kYts73aNslDocu6vMQ9pHwJlbvMQnpeWbaO0rIgyxDFIS6xFYZ8bbprmRve'


def test_restore_sysfs_follows_a_renamed_device(tmp_path, journal):
    """A multipath map reloaded (or a reboot) gets another dm-N: the rollback writes the device the record
    names by its dm uuid, never the one that now has the old kernel name."""
    block = tmp_path / 'sys' / 'block'
    old_map = _dm_device(block, 'dm-1', MAP_UUID, 128)
    assert apply_sysfs(journal, _sysfs_change(old_map, 'read_ahead_kb', 4096)) is True
    record, = records_of(journal)
    assert record['identity'] == 'dm/uuid=' + MAP_UUID
    # now dm-1 is the LV and the map is dm-2
    (block / 'dm-1' / 'dm' / 'uuid').write_text(LV_UUID + '\n')
    (old_map / 'read_ahead_kb').write_text('2048\n')
    new_map = _dm_device(block, 'dm-2', MAP_UUID, 4096)
    assert _apply.sysfs_target(record) == (str(new_map / 'read_ahead_kb'),
                                           'the device that was dm-1 (dm/uuid=%s) is dm-2 now' % MAP_UUID)
    assert restore_sysfs(record) is True
    assert sysfs_value(str(new_map / 'read_ahead_kb')) == 128
    assert sysfs_value(str(old_map / 'read_ahead_kb')) == 2048


@pytest.mark.parametrize('others, found', [([], 'gone'), (['dm-3', 'dm-4'], 'on dm-3, dm-4')])
def test_restore_sysfs_refuses_a_device_it_cannot_tell(tmp_path, journal, others, found):
    block = tmp_path / 'sys' / 'block'
    queue = _dm_device(block, 'dm-1', MAP_UUID, 128)
    apply_sysfs(journal, _sysfs_change(queue, 'read_ahead_kb', 4096))
    record, = records_of(journal)
    (block / 'dm-1' / 'dm' / 'uuid').write_text(LV_UUID + '\n')
    for name in others:
        _dm_device(block, name, MAP_UUID, 4096)
    with pytest.raises(ApplyError) as caught:
        restore_sysfs(record)
    assert ('the device that was dm-1 (dm/uuid=%s) is %s now; not restored' % (MAP_UUID, found)) in str(caught.value)
    assert sysfs_value(str(queue / 'read_ahead_kb')) == 4096


def test_a_sysfs_record_without_identity_keeps_its_path(queue, journal):
    # records written before identities were kept, and devices without one (a virtio disk without serial)
    apply_sysfs(journal, _sysfs_change(queue, 'read_ahead_kb', 4096))
    record, = records_of(journal)
    assert 'identity' not in record
    assert _apply.sysfs_target(record) == (record['target'], None)


def test_apply_and_restore_scheduler(queue, journal):
    # a plain file holds what was written: 'none' reads back as the single (active) name
    assert apply_sysfs(journal, _sysfs_change(queue, 'scheduler', 'none')) is True
    record, = records_of(journal)
    assert (record['before'], record['after']) == ('mq-deadline', 'none')
    assert restore_sysfs(record) is True
    assert (queue / 'scheduler').read_text() == 'mq-deadline'
    assert apply_sysfs(journal, _sysfs_change(queue, 'scheduler', 'mq-deadline')) is False


def _kernel_like_queue(queue, monkeypatch):
    """write_value as the kernel does it for a queue: a scheduler switch sets nr_requests anew."""
    real_write = _apply.write_value

    def write(path, value):
        real_write(path, value)
        if os.path.basename(path) == 'scheduler':
            real_write(str(queue / 'nr_requests'), 128)

    monkeypatch.setattr(_apply, 'write_value', write)


def test_a_scheduler_switch_keeps_the_nr_requests_it_resets_and_rollback_puts_it_back(queue, journal, monkeypatch):
    # issue 18, R1: nr_requests was 64; the switch made it 128; the rollback restored 128 instead of 64
    _kernel_like_queue(queue, monkeypatch)
    (queue / 'nr_requests').write_text('64\n')
    assert apply_sysfs(journal, _sysfs_change(queue, 'scheduler', 'none')) is True
    assert sysfs_value(str(queue / 'nr_requests')) == 128
    record, = records_of(journal)
    assert record['resets'] == {'nr_requests': 64}
    assert restore_sysfs(record, check=True) is True
    assert restore_sysfs(record) is True
    assert (sysfs_value(str(queue / 'scheduler')), sysfs_value(str(queue / 'nr_requests'))) == ('mq-deadline', 64)
    assert restore_sysfs(record) is False


def test_rollback_of_a_scheduler_and_nr_requests_run_ends_at_the_first_nr_requests(queue, journal, monkeypatch):
    _kernel_like_queue(queue, monkeypatch)
    (queue / 'nr_requests').write_text('64\n')
    apply_sysfs(journal, _sysfs_change(queue, 'scheduler', 'none'))
    apply_sysfs(journal, _sysfs_change(queue, 'nr_requests', 256))
    for record in reversed(records_of(journal)):
        restore_sysfs(record)
    assert (sysfs_value(str(queue / 'scheduler')), sysfs_value(str(queue / 'nr_requests'))) == ('mq-deadline', 64)


def _raising_max_sectors(queue, monkeypatch):
    """A max_sectors_kb write that raises read_ahead_kb to twice it, as Linux 6.18 does on a rotational queue
    without an optimal_io_size (blk_apply_bdi_limits; seen on loop devices)."""
    real_write = _apply.write_value

    def write(path, value):
        real_write(path, value)
        if os.path.basename(path) == 'max_sectors_kb':
            read_ahead = str(queue / 'read_ahead_kb')
            real_write(read_ahead, max(sysfs_value(read_ahead), 2 * int(value)))

    monkeypatch.setattr(_apply, 'write_value', write)


def test_a_max_sectors_write_keeps_the_read_ahead_it_raises_and_rollback_puts_it_back(queue, journal, monkeypatch):
    # issue 38: max_sectors_kb 64 -> 1280 raised read_ahead_kb 128 -> 2560; the rollback left 2560
    _raising_max_sectors(queue, monkeypatch)
    (queue / 'max_sectors_kb').write_text('64\n')
    assert apply_sysfs(journal, _sysfs_change(queue, 'max_sectors_kb', 1280)) is True
    assert sysfs_value(str(queue / 'read_ahead_kb')) == 2560
    # the policy's read_ahead_kb, written after it, records the raised value as its before
    assert apply_sysfs(journal, _sysfs_change(queue, 'read_ahead_kb', 1024)) is True
    first, second = records_of(journal)
    assert first['resets'] == {'read_ahead_kb': 128} and second['before'] == 2560
    for record in reversed(records_of(journal)):
        restore_sysfs(record)
    assert (sysfs_value(str(queue / 'max_sectors_kb')), sysfs_value(str(queue / 'read_ahead_kb'))) == (64, 128)


def test_restore_sysfs_puts_back_only_the_reset_value(queue, journal, monkeypatch):
    _kernel_like_queue(queue, monkeypatch)
    (queue / 'nr_requests').write_text('64\n')
    apply_sysfs(journal, _sysfs_change(queue, 'scheduler', 'none'))
    record, = records_of(journal)
    (queue / 'scheduler').write_text('mq-deadline')
    assert restore_sysfs(record) is True
    assert sysfs_value(str(queue / 'nr_requests')) == 64


def test_apply_sysfs_read_back_differs(queue, journal, monkeypatch):
    # the kernel takes the write but clamps the value (nr_requests below 4 becomes 4)
    def clamping_write(path, value):
        with open(path, 'w') as handle:
            handle.write('%d' % max(4, value))
    monkeypatch.setattr(_apply, 'write_value', clamping_write)
    with pytest.raises(ApplyError, match=r'nr_requests reads 4 after writing 2$'):
        apply_sysfs(journal, _sysfs_change(queue, 'nr_requests', 2))
    record, = records_of(journal)
    assert record['before'] == 256


def test_write_value_reports_the_kernel_error():
    # /dev/full fails every write with ENOSPC, as sysfs fails a value it refuses with EINVAL
    with pytest.raises(ApplyError, match='^cannot write 4096 to /dev/full: No space left on device$'):
        write_value('/dev/full', 4096)


# ================================================================ sysctl

@pytest.fixture(name='proc_root')
def proc_root_fixture(tmp_path):
    vm = tmp_path / 'proc' / 'sys' / 'vm'
    vm.mkdir(parents=True)
    for name, value in (('dirty_bytes', 0), ('dirty_ratio', 20), ('swappiness', 60)):
        (vm / name).write_text('%d\n' % value)
    return str(tmp_path / 'proc')


def _vm(proc_root, name):
    with open(os.path.join(proc_root, 'sys', 'vm', name)) as handle:
        return int(handle.read())


def test_apply_and_restore_sysctl(proc_root, journal):
    change = {'kind': 'sysctl', 'target': 'vm.swappiness', 'before': 60, 'after': 10, 'pair': None}
    assert apply_sysctl(journal, change, proc_root) is True
    assert _vm(proc_root, 'swappiness') == 10
    assert apply_sysctl(journal, change, proc_root) is False
    record, = records_of(journal)
    # a record names no root: the rollback's own proc_root is used (issue 23, T1)
    assert (record['target'], record['before'], record['after'], 'proc_root' in record) == (
        'vm.swappiness', {'vm.swappiness': 60}, {'vm.swappiness': 10}, False)
    assert restore_sysctl(record, True, proc_root) is True and _vm(proc_root, 'swappiness') == 10
    assert restore_sysctl(record, False, proc_root) is True and _vm(proc_root, 'swappiness') == 60
    assert restore_sysctl(record, False, proc_root) is False


def test_sysctl_pair_restores_the_value_that_was_in_force(proc_root, journal, monkeypatch):
    change = {'kind': 'sysctl', 'target': 'vm.dirty_bytes', 'after': 268435456, 'pair': 'vm.dirty_ratio'}
    assert apply_sysctl(journal, change, proc_root) is True
    record, = records_of(journal)
    assert record['before'] == {'vm.dirty_bytes': 0, 'vm.dirty_ratio': 20}
    assert record['after'] == {'vm.dirty_bytes': 268435456}
    # what the kernel does on writing dirty_bytes; a plain file does not
    with open(os.path.join(proc_root, 'sys', 'vm', 'dirty_ratio'), 'w') as handle:
        handle.write('0\n')
    writes = []
    real_write = _apply.write_value
    monkeypatch.setattr(_apply, 'write_value', lambda path, value: writes.append((os.path.basename(path), value))
                        or real_write(path, value))
    assert restore_sysctl(record, False, proc_root) is True
    # writing dirty_ratio makes the kernel zero dirty_bytes: writing 0 to dirty_bytes would zero dirty_ratio
    assert writes == [('dirty_ratio', 20)]
    assert _vm(proc_root, 'dirty_ratio') == 20


def test_sysctl_pair_with_the_bytes_value_in_force(proc_root, journal, monkeypatch):
    for name, value in (('dirty_bytes', 536870912), ('dirty_ratio', 0)):
        with open(os.path.join(proc_root, 'sys', 'vm', name), 'w') as handle:
            handle.write('%d\n' % value)
    apply_sysctl(journal, {'target': 'vm.dirty_ratio', 'after': 10, 'pair': 'vm.dirty_bytes'}, proc_root)
    record, = records_of(journal)
    writes = []
    monkeypatch.setattr(_apply, 'write_value', lambda path, value: writes.append((os.path.basename(path), value)))
    restore_sysctl(record, False, proc_root)
    assert writes == [('dirty_bytes', 536870912)]


def test_restore_sysctl_of_a_zero_value(proc_root, journal):
    with open(os.path.join(proc_root, 'sys', 'vm', 'swappiness'), 'w') as handle:
        handle.write('0\n')
    apply_sysctl(journal, {'target': 'vm.swappiness', 'after': 10}, proc_root)
    record, = records_of(journal)
    assert restore_sysctl(record, False, proc_root) is True
    assert _vm(proc_root, 'swappiness') == 0


def test_apply_sysctl_read_back_differs(proc_root, journal, monkeypatch):
    monkeypatch.setattr(_apply, 'write_value', lambda path, value: None)   # accepted, then ignored
    with pytest.raises(ApplyError, match='^vm.swappiness reads 60 after writing 10$'):
        apply_sysctl(journal, {'target': 'vm.swappiness', 'after': 10}, proc_root)
    assert len(records_of(journal)) == 1


# ================================================================ mounts (pure)

@pytest.mark.parametrize('current, before, words', [
    (['rw', 'relatime'], ['rw', 'relatime'], []),
    (['rw', 'relatime'], ['rw', 'noatime'], ['noatime']),
    # libmount keeps noatime on a remount unless "atime" clears it
    (['rw', 'noatime'], ['rw', 'relatime'], ['atime', 'relatime']),
    (['rw', 'noatime', 'nodiratime'], ['rw', 'relatime'], ['diratime', 'atime', 'relatime']),
    # strictatime is never shown: the atime mode is what the lists leave out
    (['rw', 'noatime'], ['rw'], ['strictatime']),
    (['rw', 'relatime'], ['rw'], ['strictatime']),
    (['rw'], ['rw', 'relatime'], ['relatime']),
    (['rw', 'relatime', 'sync'], ['rw', 'relatime'], ['async']),
    (['rw', 'relatime'], ['rw', 'relatime', 'sync'], ['sync']),
    (['ro', 'relatime'], ['rw', 'relatime'], ['rw']),
    (['rw', 'relatime', 'commit=60'], ['rw', 'relatime', 'commit=5'], ['commit=5']),
    # a remount cannot drop a key=value option
    (['rw', 'relatime', 'commit=60'], ['rw', 'relatime'], []),
])
def test_reverse_remount_words(current, before, words):
    assert reverse_remount_words(current, before) == words


@pytest.mark.parametrize('current, before, fstype, attempt, words', [
    (['rw', 'relatime', 'errors=panic'], ['rw', 'relatime'], 'ext4', 0, ['errors=continue']),
    (['rw', 'relatime', 'errors=panic'], ['rw', 'relatime'], 'ext4', 1, ['errors=remount-ro']),
    (['rw', 'relatime', 'commit=60'], ['rw', 'relatime'], 'ext4', 0, ['commit=5']),
    (['rw', 'relatime', 'commit=60'], ['rw', 'relatime'], 'ext3', 0, ['commit=5']),
    (['rw', 'relatime', 'commit=60'], ['rw', 'relatime', 'commit=30'], 'ext4', 0, ['commit=30']),
    # no known default: nothing to remount with
    (['rw', 'relatime', 'commit=60'], ['rw', 'relatime'], 'btrfs', 0, []),
    (['rw', 'relatime', 'mincache=direct'], ['rw', 'relatime'], 'vxfs', 0, []),
])
def test_reverse_remount_words_to_a_hidden_default(current, before, fstype, attempt, words):
    assert reverse_remount_words(current, before, fstype, attempt) == words


@pytest.mark.parametrize('live, present, absent, missing', [
    (['rw', 'relatime'], ['noatime'], ['sync'], ['noatime']),
    (['rw', 'noatime', 'sync'], ['noatime'], ['sync'], ['sync']),
    (['rw', 'noatime'], ['noatime', 'commit=60'], ['sync', 'mincache'], ['commit=60']),
    (['rw', 'noatime', 'mincache=direct'], [], ['mincache'], ['mincache']),
    (['rw', 'noatime', 'logbsize=256k'], ['logbsize=262144', 'nodiratime'], [], []),
    (['rw'], ['relatime'], [], ['relatime']),
])
def test_missing_options(live, present, absent, missing):
    assert missing_options(live, present, absent) == missing


def test_remount_argv():
    assert remount_argv('/usr/bin/mount', '/data', ['atime', 'relatime']) == [
        '/usr/bin/mount', '--options-source=disable', '-o', 'remount,atime,relatime', '/data']


# ================================================================ mounts (fake mount(8))

MOUNTINFO = (
    '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,errors=remount-ro\n'
    '81 27 254:16 / /data rw,relatime shared:41 - ext4 /dev/vdb rw\n'
    '82 27 254:32 / /db rw,noatime shared:42 - ext4 /dev/vdc rw,commit=5\n'
)


class FakeMount(object):
    """``mount --options-source=disable -o remount,<words> <path>`` on a fake proc_root: rewrites the
    line of <path> in self/mountinfo roughly as Linux does.  Per-mount flags (ro, atime mode,
    nodiratime) are in the per-mount field, sync and key=value options in the super options.  As
    with libmount and Linux, a remount keeps noatime unless its words hold ``atime`` or
    ``strictatime``, and keeps the atime flags (atime mode, nodiratime) unless it names one.

    ``sabotage``: word lists used instead of the real words, one per call, first calls first."""

    def __init__(self, proc_root, rc=0, err='', sabotage=(), hidden=None):
        self.path = os.path.join(proc_root, 'self', 'mountinfo')
        # key=value options the file system does not show at this value (ext4: errors= of the superblock)
        self.hidden = hidden or {}
        self.rc, self.err = rc, err
        self.sabotage = list(sabotage)
        self.calls = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        assert argv[1:3] == ['--options-source=disable', '-o'] and len(argv) == 5, argv
        words = argv[3].split(',')
        assert words.pop(0) == 'remount'
        if self.rc:
            return self.rc, '', self.err
        if self.sabotage:
            words = self.sabotage.pop(0)
        with open(self.path) as handle:
            lines = handle.read().splitlines(True)
        for index, line in enumerate(lines):
            fields = line.split(' ')
            if fields[4] == argv[4]:
                sep = fields.index('-')
                fields[5], fields[sep + 3] = self.remount(fields[5].split(','), fields[sep + 3].strip().split(','),
                                                          words, self.hidden)
                fields[sep + 3] += '\n'
                lines[index] = ' '.join(fields)
        with open(self.path, 'w') as handle:
            handle.write(''.join(lines))
        return 0, '', ''

    @staticmethod
    def remount(flags, super_options, words, hidden=None):
        hidden = hidden or {}
        ro = 'ro' in flags
        atime = 'noatime' if 'noatime' in flags else 'relatime' if 'relatime' in flags else 'strictatime'
        nodiratime = 'nodiratime' in flags
        clear_noatime = 'atime' in words
        if any(word in ('noatime', 'nodiratime', 'relatime', 'strictatime') for word in words):
            # fs/namespace.c path_mount: naming one atime flag sets them all (relatime unless noatime)
            atime = 'noatime' if atime == 'noatime' and not clear_noatime else 'relatime'
            nodiratime = False
        for word in words:
            if word in ('ro', 'rw'):
                ro = word == 'ro'
            elif word in ('noatime', 'strictatime'):
                atime = word
            elif word == 'relatime':
                if atime != 'noatime' or clear_noatime:
                    atime = word
            elif word in ('diratime', 'nodiratime'):
                nodiratime = word == 'nodiratime'
            elif word in ('sync', 'async'):
                super_options = [o for o in super_options if o != 'sync'] + (['sync'] if word == 'sync' else [])
            elif '=' in word:
                key = word.split('=')[0] + '='
                super_options = [o for o in super_options if not o.startswith(key)] + [word]
        super_options = [o for o in super_options if o.split('=')[0] not in hidden or o.split('=')[1] != hidden[o.split('=')[0]]]
        flags = ['ro' if ro else 'rw'] + (['nodiratime'] if nodiratime else []) \
            + ([atime] if atime != 'strictatime' else [])
        return ','.join(flags), ','.join(super_options)


@pytest.fixture(name='mount_proc')
def mount_proc_fixture(tmp_path):
    (tmp_path / 'proc' / 'self').mkdir(parents=True)
    (tmp_path / 'proc' / 'self' / 'mountinfo').write_text(MOUNTINFO)
    return str(tmp_path / 'proc')


def _mount_change(path, words, after):
    return {'kind': 'mount', 'target': path, 'options': ','.join(['remount'] + words), 'after': after}


def test_apply_and_restore_mount(mount_proc, journal):
    mount = FakeMount(mount_proc)
    change = _mount_change('/data', ['noatime'], ['rw', 'noatime'])
    assert apply_mount(journal, change, mount, '/bin/mount', mount_proc, ['noatime'], ['sync']) is True
    assert mount.calls == [['/bin/mount', '--options-source=disable', '-o', 'remount,noatime', '/data']]
    assert live_options_of(mount_proc, '/data') == ['rw', 'noatime']
    record, = records_of(journal)
    assert (record['kind'], record['target'], record['before'], record['after']) == (
        'mount', '/data', ['rw', 'relatime'], ['rw', 'noatime'])
    assert (record['options'], 'mount_bin' in record, 'proc_root' in record) == ('remount,noatime', False, False)

    assert restore_mount(record, mount, True, '/bin/mount', mount_proc) is True
    assert len(mount.calls) == 1
    assert restore_mount(record, mount, False, '/bin/mount', mount_proc) is True
    # "relatime" alone would leave noatime in place
    assert mount.calls[1] == ['/bin/mount', '--options-source=disable', '-o', 'remount,atime,relatime', '/data']
    assert live_options_of(mount_proc, '/data') == ['rw', 'relatime']
    with open(os.path.join(mount_proc, 'self', 'mountinfo')) as handle:
        assert handle.read() == MOUNTINFO
    assert restore_mount(record, mount, False, '/bin/mount', mount_proc) is False
    assert len(mount.calls) == 2


def test_nodiratime_set_and_rolled_back(mount_proc, journal):
    """Issue 38 item 3: remount,diratime alone keeps nodiratime (the kernel keeps the atime flags of a
    remount that names none); the rollback names the atime mode with it."""
    mount = FakeMount(mount_proc)
    change = _mount_change('/data', ['nodiratime'], ['rw', 'relatime', 'nodiratime'])
    assert apply_mount(journal, change, mount, 'mount', mount_proc, ['nodiratime'], []) is True
    assert live_options_of(mount_proc, '/data') == ['rw', 'nodiratime', 'relatime']
    record, = records_of(journal)
    assert restore_mount(record, mount, False, 'mount', mount_proc) is True
    assert mount.calls[1][3] == 'remount,diratime,relatime'
    assert live_options_of(mount_proc, '/data') == ['rw', 'relatime']


@pytest.mark.parametrize('superblock, calls', [
    ('continue', ['remount,errors=continue']),
    # tune2fs -e remount-ro: ext4 then shows errors=continue, and hides remount-ro
    ('remount-ro', ['remount,errors=continue', 'remount,errors=remount-ro']),
])
def test_errors_panic_rolled_back_to_the_hidden_default(mount_proc, journal, superblock, calls):
    """Issue 38 item 4: ext4 shows errors= only when it differs from the superblock's behaviour; the
    rollback remounts with the default (continue, then the other candidates, read back after each)."""
    mount = FakeMount(mount_proc, hidden={'errors': superblock})
    change = _mount_change('/data', ['errors=panic'], ['rw', 'relatime', 'errors=panic'])
    assert apply_mount(journal, change, mount, 'mount', mount_proc, ['errors=panic'], []) is True
    assert live_options_of(mount_proc, '/data') == ['rw', 'relatime', 'errors=panic']
    record, = records_of(journal)
    assert restore_mount(record, mount, True, 'mount', mount_proc) is True
    assert restore_mount(record, mount, False, 'mount', mount_proc) is True
    assert [call[3] for call in mount.calls[1:]] == calls
    assert live_options_of(mount_proc, '/data') == ['rw', 'relatime']


def test_apply_mount_does_not_expect_what_a_remount_cannot_do(mount_proc, journal):
    # commit=5 cannot be dropped by a remount: the plan left it unresolved, so it is not an error
    mount = FakeMount(mount_proc)
    change = _mount_change('/db', ['sync'], ['rw', 'noatime', 'commit=5', 'sync'])
    assert apply_mount(journal, change, mount, 'mount', mount_proc, ['sync'], ['commit=5']) is True
    assert live_options_of(mount_proc, '/db') == ['rw', 'noatime', 'commit=5', 'sync']


def test_apply_mount_failed_remount(mount_proc, journal):
    mount = FakeMount(mount_proc, rc=32, err='mount: /data: mount point not mounted or bad option.\n')
    with pytest.raises(ApplyError, match=r'^mount -o remount,noatime /data failed \(rc=32\): mount: /data: mount '
                                         r'point not mounted or bad option\.$'):
        apply_mount(journal, _mount_change('/data', ['noatime'], ['rw', 'noatime']), mount, 'mount', mount_proc,
                    ['noatime'])
    assert len(records_of(journal)) == 1         # written ahead of the remount


def test_apply_mount_of_a_mount_point_that_went_away(mount_proc, journal):
    with pytest.raises(ApplyError, match='^/gone is no longer mounted$'):
        apply_mount(journal, _mount_change('/gone', ['noatime'], []), FakeMount(mount_proc), 'mount', mount_proc)
    assert journal.written == 0


def test_apply_mount_verify_failure_remounts_back(mount_proc, journal):
    # the remount "succeeds" but gives sync instead of noatime
    mount = FakeMount(mount_proc, sabotage=[['sync']])
    with pytest.raises(ApplyError) as excinfo:
        apply_mount(journal, _mount_change('/data', ['noatime'], ['rw', 'noatime']), mount, 'mount', mount_proc,
                    ['noatime'])
    assert str(excinfo.value) == ('after mount -o remount,noatime /data the live options are rw,relatime,sync: '
                                  'noatime not as requested')
    assert [call[3] for call in mount.calls] == ['remount,noatime', 'remount,async']
    assert live_options_of(mount_proc, '/data') == ['rw', 'relatime']


def test_apply_mount_verify_failure_and_remount_back_fails(mount_proc, journal):
    mount = FakeMount(mount_proc, sabotage=[['sync'], []])
    with pytest.raises(ApplyError) as excinfo:
        apply_mount(journal, _mount_change('/data', ['noatime'], ['rw', 'noatime']), mount, 'mount', mount_proc,
                    ['noatime'])
    assert str(excinfo.value) == (
        'after mount -o remount,noatime /data the live options are rw,relatime,sync: noatime not as requested; '
        'putting the options back failed too: after mount -o remount,async /data the live options are '
        'rw,relatime,sync, not rw,relatime')


def test_restore_mount_not_mounted(mount_proc):
    record = {'target': '/gone', 'before': ['rw', 'relatime']}
    with pytest.raises(ApplyError, match='^/gone is not mounted: cannot restore its options rw,relatime$'):
        restore_mount(record, FakeMount(mount_proc), proc_root=mount_proc)


def test_restore_mount_that_a_remount_cannot_restore(mount_proc):
    # /db has commit=5 live; a record saying it had none cannot be restored by a remount
    mount = FakeMount(mount_proc)
    record = {'target': '/db', 'before': ['rw', 'noatime']}
    with pytest.raises(ApplyError, match='^/db has the live options rw,noatime,commit=5, not rw,noatime, and a '
                                         'remount cannot put them back'):
        restore_mount(record, mount, proc_root=mount_proc)
    assert mount.calls == []


# ================================================================ vxtunefs (the simulator)

@pytest.fixture(name='sim')
def sim_fixture(tmp_path, monkeypatch):
    """run_command(argv) for the simulator, with vol01 mounted on /data."""
    monkeypatch.setenv('VXFS_SIM_STATE', str(tmp_path / 'vxfs-sim' / 'state.json'))
    monkeypatch.setenv('VXTUNEFSTAB', str(tmp_path / 'no-tunefstab'))

    def run_command(argv):
        run_command.calls.append(list(argv))
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        return proc.returncode, proc.stdout, proc.stderr
    run_command.calls = []
    run_command([SIM, '--sim-mount', VOL01, '/data'])
    run_command.calls = []
    return run_command


def _live(sim):
    return lambda binary, mount_point: read_live(binary, mount_point, sim)


def _vx_change(setting, after, mount_point='/data'):
    return {'kind': 'vxtunefs', 'target': mount_point, 'device': VOL01, 'setting': setting, 'after': after,
            'argv': [SIM, '-o', '%s=%d' % (setting, after), mount_point]}


def test_apply_and_restore_vxtunefs(sim, journal):
    assert apply_vxtunefs(journal, _vx_change('read_pref_io', 262144), sim, _live(sim)) is True
    assert sim.calls == [[SIM, '-p', '/data'], [SIM, '-o', 'read_pref_io=262144', '/data'], [SIM, '-p', '/data']]
    assert read_live(SIM, '/data', sim)[0]['read_pref_io'] == 262144
    assert apply_vxtunefs(journal, _vx_change('read_pref_io', 262144), sim, _live(sim)) is False
    record, = records_of(journal)
    assert (record['kind'], record['target'], record['setting'], record['before'], record['after'], record['device'],
            'vxtunefs' in record) == ('vxtunefs', '/data', 'read_pref_io', 65536, 262144, VOL01, False)
    assert restore_vxtunefs(record, sim, _live(sim), True, SIM) is True
    assert read_live(SIM, '/data', sim)[0]['read_pref_io'] == 262144
    assert restore_vxtunefs(record, sim, _live(sim), False, SIM) is True
    assert read_live(SIM, '/data', sim)[0]['read_pref_io'] == 65536
    assert restore_vxtunefs(record, sim, _live(sim), False, SIM) is False
    with pytest.raises(ApplyError, match='vxtunefs not found'):
        restore_vxtunefs(record, sim, _live(sim))


def test_restore_vxtunefs_of_an_unknown_before(sim):
    record = {'target': '/data', 'setting': 'read_pref_io', 'before': None}
    assert restore_vxtunefs(record, sim, _live(sim), vxtunefs=SIM) is False
    assert all(call[1] == '-p' for call in sim.calls)


def test_apply_vxtunefs_unreadable_changes_nothing(sim, journal):
    with pytest.raises(ApplyError, match=r'-p /u08 failed \(rc=1\): UX:vxfs vxtunefs: ERROR: /u08 is not a mounted VxFS'):
        apply_vxtunefs(journal, _vx_change('read_pref_io', 262144, '/u08'), sim, _live(sim))
    assert journal.written == 0


def test_apply_vxtunefs_refused_value(sim, journal):
    with pytest.raises(ApplyError, match=r'-o read_ahead=3 /data failed \(rc=1\): UX:vxfs vxtunefs: ERROR: invalid value 3'):
        apply_vxtunefs(journal, _vx_change('read_ahead', 3), sim, _live(sim))
    record, = records_of(journal)
    assert record['before'] == 1
    assert restore_vxtunefs(record, sim, _live(sim), vxtunefs=SIM) is False


def test_apply_vxtunefs_read_back_differs(sim, journal):
    def ignores_o(argv):
        return (0, '', '') if '-o' in argv else sim(argv)
    with pytest.raises(ApplyError, match=r'-p /data: read_pref_io reads 65536 after setting 262144$'):
        apply_vxtunefs(journal, _vx_change('read_pref_io', 262144), ignores_o, _live(sim))


def _sysfs_record(**fields):
    record = {'seq': 1, 'run_seq': 1, 'time': '2026-11-26T10:15:00.000000Z', 'run_id': 'run-1', 'module': 'block_queue',
              'kind': 'sysfs', 'target': '/sys/block/dm-1/queue/read_ahead_kb', 'before': 128, 'after': 4096,
              'identity': 'dm/uuid=' + MAP_UUID}
    record.update(fields)
    return dict((key, value) for key, value in record.items() if value is not None)


@pytest.mark.parametrize('identity', ['dm/uuid=' + MAP_UUID, 'md/uuid=0a95e326-82ba-45de-da35-2ee884234008',
                                      'wwid=t10.LIO-ORG lun0:26000000', None])
def test_a_valid_sysfs_record_identity(identity):
    assert validate_record(_sysfs_record(identity=identity), 'j', 1, 'run-1', None, Trusted()) == _sysfs_record(identity=identity)


@pytest.mark.parametrize('identity', ['dm-1', 'path=/etc/passwd', 'wwid=', 'wwid=a\x00b', 'wwid=' + 'x' * 300, 42])
def test_a_forged_sysfs_record_identity_names_the_field(identity):
    with pytest.raises(RecordError, match=r'^j line 3: field identity: '):
        validate_record(_sysfs_record(identity=identity), 'j', 3, 'run-1', None, Trusted())
