# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The write-ahead journal: records on disk before their change, runs, marks, file states."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import errno
import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.act import journal as journal_module
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import (
    Journal,
    journal_path,
    JournalError,
    latest_open_run,
    list_runs,
    mark_path,
    new_run_id,
    read_mark,
    read_records,
    torn_record,
    write_mark,
)
from ansible_collections.iotune.storage.plugins.module_utils.common.filestate import file_content, file_state
from ansible_collections.iotune.storage.plugins.module_utils.common.args import validate_run_id


def _journal(tmp_path, run_id='run-1', module='mount_options'):
    return Journal(str(tmp_path / 'journal'), run_id, module, failpoint_file=str(tmp_path / 'failpoint'))


def _lines(path):
    with open(path, 'rb') as handle:
        return handle.read().split(b'\n')


# ---------------------------------------------------------------- run ids

@pytest.mark.parametrize('run_id', ['a', '20261122T101500Z-4242', 'harden.2026-11-22', 'x:y+z_1', 'A' * 128])
def test_valid_run_ids(run_id):
    assert validate_run_id(run_id) is None


@pytest.mark.parametrize('run_id', ['', '-x', '.hidden', '../etc', 'a/b', 'a b', 'A' * 129, None, 42, 'run\n'])
def test_invalid_run_ids(run_id):
    problem = validate_run_id(run_id)
    assert problem.startswith('run_id must be 1-128 characters')
    assert repr(run_id) in problem


def test_new_run_id_is_valid_and_sorts_by_time():
    run_id = new_run_id()
    assert validate_run_id(run_id) is None
    stamp, pid = run_id.split('-')
    assert len(stamp) == len('20261122T101500Z') and stamp.endswith('Z') and stamp[8] == 'T'
    assert pid == str(os.getpid())


def test_journal_refuses_a_bad_run_id(tmp_path):
    with pytest.raises(JournalError, match='run_id must be'):
        Journal(str(tmp_path), '../escape', 'mount_options')
    assert os.listdir(str(tmp_path)) == []


# ---------------------------------------------------------------- records

def test_records_are_numbered_fsynced_lines(tmp_path):
    journal = _journal(tmp_path)
    first = journal.record('file', '/etc/fstab', {'state': 'absent'}, {'state': 'present'}, line=3)
    second = journal.record('sysctl', 'vm.swappiness', {'vm.swappiness': 60}, {'vm.swappiness': 10})
    assert (first['seq'], second['seq'], journal.written) == (1, 2, 2)
    journal_dir = str(tmp_path / 'journal')
    assert stat.S_IMODE(os.stat(journal_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(journal.path).st_mode) == 0o600
    assert journal.path == journal_path(journal_dir, 'run-1') == os.path.join(journal_dir, 'run-1.jsonl')
    lines = _lines(journal.path)
    assert lines[-1] == b'' and len(lines) == 3
    records = [json.loads(line) for line in lines[:2]]
    assert records == [first, second]
    assert sorted(records[0]) == ['after', 'before', 'kind', 'line', 'module', 'run_id', 'run_seq', 'seq', 'target', 'time']
    assert (records[0]['module'], records[0]['run_id'], records[0]['line']) == ('mount_options', 'run-1', 3)
    assert records[0]['time'].endswith('Z') and records[0]['time'] <= records[1]['time']


def test_seq_continues_across_instances(tmp_path):
    _journal(tmp_path, module='block_queue').record('sysfs', '/sys/a', 1, 2)
    _journal(tmp_path, module='block_queue').record('sysfs', '/sys/b', 1, 2)
    later = _journal(tmp_path, module='cache_limits')
    assert later.record('sysctl', 'vm.swappiness', {}, {})['seq'] == 3
    records, problems = read_records(later.path)
    assert [(r['seq'], r['module']) for r in records] == [(1, 'block_queue'), (2, 'block_queue'), (3, 'cache_limits')]
    assert problems == []


def test_unknown_kind_writes_nothing(tmp_path):
    journal = _journal(tmp_path)
    with pytest.raises(JournalError, match="unknown journal record kind 'disk'"):
        journal.record('disk', '/dev/sda', None, None)
    assert not os.path.exists(journal.path) and journal.written == 0


def test_a_rolled_back_run_takes_no_more_records(tmp_path):
    journal = _journal(tmp_path)
    journal.record('sysfs', '/sys/a', 1, 2)
    write_mark(journal.journal_dir, 'run-1', {'records': 1})
    with pytest.raises(JournalError, match='run run-1 was rolled back; start a new run_id'):
        _journal(tmp_path).record('sysfs', '/sys/b', 1, 2)
    assert len(read_records(journal.path)[0]) == 1


def test_an_existing_journal_dir_keeps_its_mode(tmp_path):
    # issue 18, F6: the mode of a directory the administrator made is not changed behind their back;
    # the journal files themselves are 0600 whatever the directory's mode
    journal_dir = tmp_path / 'journal'
    journal_dir.mkdir(mode=0o750)
    os.chmod(str(journal_dir), 0o750)
    journal = _journal(tmp_path)
    journal.record('sysfs', '/sys/a', 1, 2)
    assert stat.S_IMODE(os.stat(str(journal_dir)).st_mode) == 0o750
    assert stat.S_IMODE(os.stat(journal.path).st_mode) == 0o600


def test_a_new_journal_dir_is_0700_whatever_the_umask(tmp_path):
    old = os.umask(0o002)
    try:
        _journal(tmp_path).record('sysfs', '/sys/a', 1, 2)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(str(tmp_path / 'journal')).st_mode) == 0o700


def test_a_short_write_still_leaves_a_whole_record(tmp_path, monkeypatch):
    real_write = os.write

    def short_write(fd, data):
        return real_write(fd, data[:7])  # a disk that takes a few bytes per call
    monkeypatch.setattr(journal_module.os, 'write', short_write)
    journal = _journal(tmp_path)
    journal.record('sysfs', '/sys/a', 1, 2)
    monkeypatch.undo()
    records, problems = read_records(journal.path)
    assert [r['target'] for r in records] == ['/sys/a'] and problems == []


def test_appending_after_a_torn_record_keeps_the_journal_readable(tmp_path):
    journal = _journal(tmp_path)
    journal.record('sysfs', '/sys/a', 1, 2)
    with open(journal.path, 'ab') as handle:
        handle.write(b'{"seq": 2, "kind": "sys')   # killed while writing record 2
    _journal(tmp_path).record('sysfs', '/sys/b', 1, 2)
    records, problems = read_records(journal.path)
    assert [(r['seq'], r['target']) for r in records] == [(1, '/sys/a'), (2, '/sys/b')]
    assert problems == []


# ---------------------------------------------------------------- failpoint (SIGKILL, so in a subprocess)

FAILPOINT_SCRIPT = textwrap.dedent('''
    import sys
    from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal
    journal = Journal(sys.argv[1], 'killed', 'block_queue', failpoint_file=sys.argv[2])
    for index in range(1, 4):
        journal.record('sysfs', '/sys/block/vda/queue/x%d' % index, 1, 2)
        print('change %d made' % index, flush=True)
''')


def _run_failpoint(tmp_path, content):
    failpoint = tmp_path / 'failpoint'
    if content is not None:
        failpoint.write_text(content)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    proc = subprocess.run([sys.executable, '-c', FAILPOINT_SCRIPT, str(tmp_path / 'journal'), str(failpoint)],
                          env=env, capture_output=True, text=True, check=False, timeout=60)
    records, problems = read_records(journal_path(str(tmp_path / 'journal'), 'killed'))
    return proc, [r['seq'] for r in records], failpoint


def test_failpoint_kills_after_the_record_before_its_change(tmp_path):
    proc, seqs, failpoint = _run_failpoint(tmp_path, 'kill-after 2\n')
    assert proc.returncode == -9, proc.stderr
    assert seqs == [1, 2]
    assert proc.stdout == 'change 1 made\n'      # record 2 is on disk, its change never happened
    assert not failpoint.exists()                # it fires once


@pytest.mark.parametrize('content', [None, 'kill-after 7', 'kill-before 2', 'kill-after'])
def test_failpoint_that_does_not_match_changes_nothing(tmp_path, content):
    proc, seqs, failpoint = _run_failpoint(tmp_path, content)
    assert (proc.returncode, proc.stderr) == (0, '')
    assert seqs == [1, 2, 3]
    assert failpoint.exists() == (content is not None)


# ---------------------------------------------------------------- reading

def test_read_records_of_a_missing_journal(tmp_path):
    assert read_records(str(tmp_path / 'nope.jsonl')) == ([], [])


@pytest.mark.parametrize('tail', [b'{"seq": 3, "kin', b'{"seq": 3, "kin\n', b'{"seq": 3, "kin\n\n  \n'])
def test_a_torn_last_line_is_dropped_with_a_problem(tmp_path, tail):
    path = tmp_path / 'run.jsonl'
    path.write_bytes(b'{"seq": 1}\n\n{"seq": 2}\n' + tail)
    records, problems = read_records(str(path))
    assert records == [{'seq': 1}, {'seq': 2}]
    assert problems == ['%s: the last record is incomplete (the run was killed while writing it); '
                        'its change was never made' % path]


def test_a_corrupt_middle_line_is_an_error(tmp_path):
    path = tmp_path / 'run.jsonl'
    path.write_bytes(b'{"seq": 1}\n{"seq": 2, "ki\n{"seq": 3}\n')
    with pytest.raises(JournalError, match=r'run.jsonl line 2 is not a journal record'):
        read_records(str(path))


def test_non_utf8_line_is_not_a_record(tmp_path):
    path = tmp_path / 'run.jsonl'
    path.write_bytes(b'\xff\xfe\n{"seq": 2}\n')
    with pytest.raises(JournalError, match='line 1'):
        read_records(str(path))


# ---------------------------------------------------------------- runs and marks

def _write_run(journal_dir, run_id, times, run_seq):
    os.makedirs(journal_dir, exist_ok=True)
    with open(journal_path(journal_dir, run_id), 'w') as handle:
        for seq, time in enumerate(times, 1):
            handle.write(json.dumps({'seq': seq, 'run_seq': run_seq, 'time': time, 'kind': 'sysfs'}) + '\n')


def test_list_runs_oldest_first_by_run_sequence_not_by_the_clock(tmp_path):
    journal_dir = str(tmp_path)
    # b-late ran last, after a clock step back to 2019 (issue 23, R2): its sequence still says so
    _write_run(journal_dir, 'b-late', ['2019-01-22T10:00:00.000000Z', '2019-01-22T10:00:01.000000Z'], 3)
    _write_run(journal_dir, 'z-early', ['2020-01-21T09:00:00.000000Z'], 1)
    _write_run(journal_dir, 'a-late', ['2099-01-22T10:00:00.000000Z'], 2)
    _write_run(journal_dir, 'empty', [], None)
    write_mark(journal_dir, 'z-early', {'records': 1})
    (tmp_path / 'notes.txt').write_text('not a journal\n')
    runs = list_runs(journal_dir)
    assert [(r['run_id'], r['records'], r['rolled_back'], r['run_seq']) for r in runs] == [
        ('z-early', 1, True, 1), ('a-late', 1, False, 2), ('b-late', 2, False, 3), ('empty', 0, False, None)]
    assert runs[0]['path'] == journal_path(journal_dir, 'z-early')
    assert runs[2]['started'] == '2019-01-22T10:00:00.000000Z'


def test_a_run_sequence_is_one_more_than_the_highest_in_the_directory(tmp_path):
    journal_dir = str(tmp_path / 'journal')
    _write_run(journal_dir, 'forged-2099', ['2099-01-01T00:00:00.000000Z'], 7)
    _write_run(journal_dir, 'older', ['2020-01-01T00:00:00.000000Z'], 3)
    journal = Journal(journal_dir, 'new', 'block_queue')
    assert journal.record('sysfs', '/sys/block/sdb/queue/read_ahead_kb', 128, 4096)['run_seq'] == 8
    # the same run keeps its number in every record, and in a second module of the run
    assert Journal(journal_dir, 'new', 'cache_limits').record('sysfs', '/sys/block/sdb/queue/nr_requests', 64, 32)['run_seq'] == 8
    assert latest_open_run(journal_dir)['run_id'] == 'new'


def test_list_runs_of_a_missing_directory(tmp_path):
    assert list_runs(str(tmp_path / 'none')) == []
    assert latest_open_run(str(tmp_path / 'none')) is None


def test_latest_open_run_skips_rolled_back_and_empty_runs(tmp_path):
    journal_dir = str(tmp_path)
    _write_run(journal_dir, 'old', ['2020-01-20T00:00:00.000000Z'], 1)
    _write_run(journal_dir, 'newer', ['2020-01-21T00:00:00.000000Z'], 2)
    _write_run(journal_dir, 'newest', ['2020-01-19T00:00:00.000000Z'], 3)
    assert latest_open_run(journal_dir)['run_id'] == 'newest'
    write_mark(journal_dir, 'newest', {})
    _write_run(journal_dir, 'started-nothing', [], None)
    assert latest_open_run(journal_dir)['run_id'] == 'newer'
    write_mark(journal_dir, 'newer', {})
    write_mark(journal_dir, 'old', {})
    assert latest_open_run(journal_dir) is None


def test_a_run_that_cannot_be_ordered_stops_the_choice_of_the_latest(tmp_path):
    journal_dir = str(tmp_path)
    _write_run(journal_dir, 'good', ['2020-01-20T00:00:00.000000Z'], 1)
    (tmp_path / 'unordered.jsonl').write_text('{"seq": 1, "kind": "sysfs"}\n')
    with pytest.raises(JournalError, match=r'unordered.jsonl line 1: field run_seq: missing'):
        latest_open_run(journal_dir)
    # a broken journal of an older run blocks nothing
    (tmp_path / 'unordered.jsonl').write_text('{"seq": 1, "run_seq": 0}\nnot json\n{"seq": 3}\n')
    os.unlink(str(tmp_path / 'unordered.jsonl'))
    (tmp_path / 'broken-old.jsonl').write_text('{"seq": 1, "run_seq": 0}\n')
    _write_run(journal_dir, 'good2', ['2020-01-21T00:00:00.000000Z'], 2)
    with pytest.raises(JournalError, match='broken-old'):
        latest_open_run(journal_dir)
    (tmp_path / 'broken-old.jsonl').write_text('{"seq": 1, "run_seq": 1}\nnot json\n{"seq": 3}\n')
    assert latest_open_run(journal_dir)['run_id'] == 'good2'


def test_mark_round_trip(tmp_path):
    journal_dir = str(tmp_path)
    assert read_mark(journal_dir, 'run-1') is None
    write_mark(journal_dir, 'run-1', {'records': 3, 'restored': 2, 'run_id': 'ignored'})
    mark = read_mark(journal_dir, 'run-1')
    assert (mark['records'], mark['restored'], mark['run_id']) == (3, 2, 'run-1')
    assert mark['time'].endswith('Z')
    assert stat.S_IMODE(os.stat(mark_path(journal_dir, 'run-1')).st_mode) == 0o600
    assert sorted(os.listdir(journal_dir)) == ['run-1.rolled-back.json']


def test_a_corrupt_mark_reads_as_none(tmp_path):
    (tmp_path / 'run-1.rolled-back.json').write_text('{"time": ')
    assert read_mark(str(tmp_path), 'run-1') is None


# ---------------------------------------------------------------- file states

def test_file_state_of_an_absent_file(tmp_path):
    state = file_state(str(tmp_path / 'none'))
    assert state == {'state': 'absent'}
    assert file_content(state) is None


def test_file_state_keeps_every_byte_mode_and_owner(tmp_path):
    path = tmp_path / 'fstab'
    data = b'# caf\xe9 latin-1\r\n/dev/vdb /data ext4 defaults 0 2\n\x00tail'
    path.write_bytes(data)
    os.chmod(str(path), 0o640)
    state = file_state(str(path))
    st = os.stat(str(path))
    assert (state['state'], state['mode'], state['uid'], state['gid']) == ('present', '0640', st.st_uid, st.st_gid)
    assert file_content(state) == data
    # a journal record is JSON: the state must survive a round trip
    assert file_content(json.loads(json.dumps(state))) == data


def test_file_state_of_an_empty_file(tmp_path):
    path = tmp_path / 'empty'
    path.write_bytes(b'')
    assert file_content(file_state(str(path))) == b''


@pytest.mark.parametrize('make', ['dir', 'symlink to a dir'])
def test_file_state_refuses_what_is_not_a_regular_file(tmp_path, make):
    path = tmp_path / 'thing'
    if make == 'dir':
        path.mkdir()
    else:
        (tmp_path / 'target').mkdir()
        path.symlink_to(tmp_path / 'target')
    with pytest.raises(JournalError, match='is not a regular file'):
        file_state(str(path))


def test_file_state_follows_a_symlink_to_a_file(tmp_path):
    # Debian's /etc/sysctl.d/99-sysctl.conf is a symlink to /etc/sysctl.conf (issue 18, F5)
    (tmp_path / 'target').write_bytes(b'vm.swappiness = 10\n')
    (tmp_path / 'target').chmod(0o640)
    (tmp_path / 'link').symlink_to('target')
    state = file_state(str(tmp_path / 'link'))
    assert file_content(state) == b'vm.swappiness = 10\n' and state['mode'] == '0640'


def test_file_state_keeps_extended_attributes(tmp_path):
    path = tmp_path / 'fstab'
    path.write_bytes(b'x\n')
    try:
        os.setxattr(str(path), 'user.iotune-test', b'\x00kept')
    except OSError as exc:
        pytest.skip('%s has no user xattrs: %s' % (tmp_path, exc))
    state = file_state(str(path))
    assert state['xattrs'] == {'user.iotune-test': base64.b64encode(b'\x00kept').decode('ascii')}


def test_a_record_names_its_kind_target_and_after_before_its_before(tmp_path):
    journal = Journal(str(tmp_path), 'order', 'test')
    journal.record('file', '/etc/fstab', {'state': 'present', 'content_b64': 'eA=='}, {'state': 'absent'}, line=3)
    line = (tmp_path / 'order.jsonl').read_text()
    assert line.index('"kind"') < line.index('"target"') < line.index('"after"') < line.index('"line"') < line.index('"before"')
    assert json.loads(line)['line'] == 3


@pytest.mark.parametrize('cut, expected', [
    (0.95, {'seq': 2, 'kind': 'sysfs', 'target': '/sys/block/sdb/queue/nr_requests', 'after': 256}),
    (0.45, {'seq': 2, 'module': 'block_queue'}),
])
def test_torn_record_reads_what_survived_of_the_last_record(tmp_path, cut, expected):
    journal = Journal(str(tmp_path), 'torn', 'block_queue')
    journal.record('sysfs', '/sys/block/sdb/queue/read_ahead_kb', 128, 4096)
    journal.record('sysfs', '/sys/block/sdb/queue/nr_requests', 64, 256, device='sdb', setting='nr_requests')
    data = (tmp_path / 'torn.jsonl').read_bytes()
    last = data.rstrip(b'\n').rsplit(b'\n', 1)[1]
    (tmp_path / 'torn.jsonl').write_bytes(data[:len(data) - 1 - len(last) + int(len(last) * cut)])
    found = torn_record(str(tmp_path / 'torn.jsonl'))
    assert dict((key, found.get(key)) for key in expected) == expected
    if 'target' not in expected:
        assert 'target' not in found


def test_torn_record_is_none_for_a_whole_journal(tmp_path):
    journal = Journal(str(tmp_path), 'whole', 'test')
    journal.record('sysfs', '/sys/a', 1, 2)
    assert torn_record(journal.path) is None
    assert torn_record(str(tmp_path / 'missing.jsonl')) is None


def test_a_record_that_cannot_be_written_leaves_no_torn_line(tmp_path, monkeypatch):
    journal = Journal(str(tmp_path), 'full', 'test')
    journal.record('sysfs', '/sys/a', 1, 2)
    before = (tmp_path / 'full.jsonl').read_bytes()
    real_write = os.write

    def half_then_enospc(fd, data):
        if len(data) > 20:
            real_write(fd, data[:20])
            raise OSError(errno.ENOSPC, 'No space left on device')
        return real_write(fd, data)

    monkeypatch.setattr(os, 'write', half_then_enospc)
    with pytest.raises(JournalError, match='No space left on device; its change was not made'):
        journal.record('sysfs', '/sys/b', 3, 4)
    monkeypatch.setattr(os, 'write', real_write)
    assert (tmp_path / 'full.jsonl').read_bytes() == before
    assert journal.record('sysfs', '/sys/b', 3, 4)['seq'] == 2


def test_a_mark_that_cannot_be_written_leaves_no_temporary_file(tmp_path, monkeypatch):
    real_fsync = os.fsync

    def enospc(fd):
        raise OSError(errno.ENOSPC, 'No space left on device')

    monkeypatch.setattr(os, 'fsync', enospc)
    with pytest.raises(JournalError, match='cannot mark run r1 rolled back'):
        write_mark(str(tmp_path), 'r1', {'records': 1})
    monkeypatch.setattr(os, 'fsync', real_fsync)
    assert os.listdir(str(tmp_path)) == []


def test_the_host_lock_makes_a_second_run_wait_then_fail_naming_the_holder(tmp_path):
    # issue 18, F3: two runs at once lost fstab and rules edits; the second now waits for the first
    import subprocess
    import sys
    import time
    from ansible_collections.iotune.storage.plugins.module_utils.act.journal import LockTimeout, acquire_lock, lock_path
    journal_dir = str(tmp_path / 'iotune' / 'journal')
    holder = subprocess.Popen([sys.executable, '-c', (
        'import sys, time\n'
        'from ansible_collections.iotune.storage.plugins.module_utils.act.journal import acquire_lock\n'
        'fd = acquire_lock(sys.argv[1])\n'
        'print("held", flush=True)\n'
        'time.sleep(1.5)\n'), journal_dir], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert holder.stdout.readline() == 'held\n'
        with pytest.raises(LockTimeout) as caught:
            acquire_lock(journal_dir, timeout=0.3)
        assert str(caught.value).startswith('another iotune run (pid %d) has held %s' % (holder.pid, lock_path(journal_dir)))
        start = time.monotonic()
        os.close(acquire_lock(journal_dir, timeout=10))
        waited = time.monotonic() - start
        assert 0.3 < waited < 5
    finally:
        holder.wait(timeout=10)
    assert lock_path(journal_dir) == str(tmp_path / 'iotune' / 'journal' / 'lock')
