# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The write-ahead journal of an enforcement run.

``<journal_dir>/<run_id>.jsonl`` (directory mode 0700) holds one JSON record per
change: ``{seq, time, run_id, module, kind, target, before, after, ...}``.  A
record is appended and fsynced *before* its change is made, so a run killed at
any point leaves a journal that covers everything it changed: replaying the
records in reverse restores the state before the run.  A record whose change
never happened restores a value that is already there.

``<run_id>.rolled-back.json`` marks a run that was rolled back.

Runs are ordered by ``run_seq``, a number every record of a run carries: one more than the
highest of the journals in the directory when the run wrote its first record, under the host
lock (``<journal_dir>/lock``). The clock orders nothing: a clock step cannot make an older run
look newer (issue 23, R2). The directory must be private (_trust.directory_problem), and every
file in it is opened without following links (issue 23, T1/T2).

Fault injection for tests: when the failpoint file (common.atomic.failpoint_file) exists and
holds ``kill-after <seq>``, the process kills itself with SIGKILL right after
record ``<seq>`` is on disk (before its change); with ``kill-before-rename
<file name>``, after a file's temporary copy is written and before it replaces
the file (common.atomic.atomic_write). The file is removed first so it fires once.
Tests use it to prove rollback after a run killed half-way."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime
import errno
import fcntl
import json
import os
import re
import tempfile
import time

from ansible_collections.iotune.storage.plugins.module_utils.common.args import validate_run_id
from ansible_collections.iotune.storage.plugins.module_utils.common.filestate import JournalError
from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import failpoint, fsync_dir
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import (
    UnsafeDirectory, directory_problem, open_nofollow, private_directory)

KINDS = ('file', 'sysfs', 'sysctl', 'mount', 'vxtunefs', 'unit', 'dir', 'mount_cycle', 'unix_remount', 'kctune')
# what a sysfs record names its block device by, besides its kernel name: <kind>=<value>, the sysfs attribute
# of that name (wwid: device/wwid, else wwid)
DEVICE_IDENTITY_KINDS = ('dm/uuid', 'md/uuid', 'wwid')
SUFFIX = '.jsonl'
MARK_SUFFIX = '.rolled-back.json'


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')


def new_run_id():
    """A run id that sorts by time: 20261122T101500Z-1234."""
    return '%s-%d' % (datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ'), os.getpid())


def journal_path(journal_dir, run_id):
    return os.path.join(journal_dir, run_id + SUFFIX)


def mark_path(journal_dir, run_id):
    return os.path.join(journal_dir, run_id + MARK_SUFFIX)


def ensure_dir(journal_dir):
    """Create the journal directory (0700, whatever the umask) with its parents. An existing
    directory keeps its mode and owner when they are private (issue 18, F6); one that another
    user owns or that group or other can write is refused naming journal_dir (issue 23, T1)."""
    created = not os.path.lexists(journal_dir)
    try:
        private_directory(journal_dir, 'journal_dir')
    except UnsafeDirectory as exc:
        raise JournalError(str(exc))
    if created:
        fsync_dir(os.path.dirname(os.path.abspath(journal_dir)))


def check_dir(journal_dir):
    """Raise JournalError when an existing journal directory is not private (nothing is read
    from one that others can write: its records would say what to restore)."""
    if os.path.lexists(journal_dir):
        problem = directory_problem(journal_dir, 'journal_dir')
        if problem:
            raise JournalError(problem)


class LockTimeout(JournalError):
    """Another run held the host lock for longer than the timeout."""


LOCK_NAME = 'lock'
LOCK_TIMEOUT = 60


def lock_path(journal_dir):
    """The host lock inside the journal directory, a directory of the collection's own
    (/var/lib/iotune/journal/lock by default): ``journal_dir: /etc/x`` must not put it in /etc."""
    return os.path.join(journal_dir, LOCK_NAME)


def acquire_lock(journal_dir, timeout=LOCK_TIMEOUT, clock=time.monotonic, sleep=time.sleep):
    """Take the host's iotune lock (flock on lock_path) and return its descriptor: closing it, or
    the process ending, releases it. Two runs that plan and change under it cannot interleave
    their reads and writes (issue 18, F3). Waits up to ``timeout`` seconds for another run, then
    raises LockTimeout naming the holder's pid."""
    ensure_dir(journal_dir)
    path = lock_path(journal_dir)
    try:
        # never through a planted link, never truncated before it is ours (issue 23, T2)
        fd = open_nofollow(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise JournalError('cannot open the lock %s: %s (a link, or a file of another user, is refused)'
                           % (path, exc.strerror or exc))
    deadline = clock() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except (IOError, OSError) as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                os.close(fd)
                raise
            if clock() >= deadline:
                holder = os.pread(fd, 64, 0).decode('ascii', 'replace').strip() or 'unknown'
                os.close(fd)
                raise LockTimeout('another iotune run (pid %s) has held %s for %d s; nothing changed: '
                                  'try again when it has finished' % (holder, path, timeout))
            sleep(0.2)
    os.ftruncate(fd, 0)
    os.pwrite(fd, ('%d\n' % os.getpid()).encode('ascii'), 0)
    return fd


def _drop_torn_tail(fd):
    """Cut a torn last record (no newline: the run was killed while writing it,
    so its change never started) before appending after it."""
    pos = os.fstat(fd).st_size
    if not pos or os.pread(fd, 1, pos - 1) == b'\n':
        return
    while pos > 0:
        start = max(0, pos - 4096)
        newline = os.pread(fd, pos - start, start).rfind(b'\n')
        if newline >= 0:
            os.ftruncate(fd, start + newline + 1)
            return
        pos = start
    os.ftruncate(fd, 0)


def record_entry(seq, run_id, module, kind, target, before, after, extra, run_seq=1):
    """A record with its small keys first and ``before`` (a whole file, for a file) last:
    a record cut short still names its kind, target and ``after`` (see torn_record)."""
    entry = {'seq': seq, 'run_seq': run_seq, 'time': now_utc(), 'run_id': run_id, 'module': module, 'kind': kind,
             'target': target, 'after': after}
    entry.update((key, extra[key]) for key in sorted(extra))
    entry['before'] = before
    return entry


class Journal(object):
    """Appends the records of one run; one instance per module invocation. ``records`` keeps what this
    instance wrote (engine/run reads it for the reload rule, act/reloads)."""

    def __init__(self, journal_dir, run_id, module, failpoint_file=None):
        problem = validate_run_id(run_id)
        if problem:
            raise JournalError(problem)
        self.journal_dir = journal_dir
        self.run_id = run_id
        self.module = module
        self.path = journal_path(journal_dir, run_id)
        self.failpoint_file = failpoint_file
        self.written = 0
        self.records = []
        self._seq = None
        self._run_seq = None
        self._dir_checked = False

    def _next_seq(self):
        if self._seq is None:
            records = read_records(self.path)[0]
            self._seq = len(records)
            self._run_seq = records[0].get('run_seq') if records else next_run_seq(self.journal_dir)
        self._seq += 1
        return self._seq

    def record(self, kind, target, before, after, **extra):
        """Append one record and fsync it; returns the record."""
        if kind not in KINDS:
            raise JournalError('unknown journal record kind %r' % kind)
        if not self._dir_checked:
            # once per run of a module: the walk up to / is the same for every record
            ensure_dir(self.journal_dir)
            self._dir_checked = True
        if os.path.exists(mark_path(self.journal_dir, self.run_id)):
            raise JournalError('run %s was rolled back; start a new run_id to change the host again' % self.run_id)
        seq = self._next_seq()
        entry = record_entry(seq, self.run_id, self.module, kind, target, before, after, extra, self._run_seq)
        line = (json.dumps(entry) + '\n').encode('utf-8')
        created = not os.path.exists(self.path)
        try:
            fd = open_nofollow(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            self._seq -= 1
            raise JournalError('cannot open the journal %s: %s (a link, or a file of another user, is refused); '
                               'its change was not made' % (self.path, exc.strerror or exc))
        try:
            _drop_torn_tail(fd)
            size = os.fstat(fd).st_size
            try:
                while line:
                    line = line[os.write(fd, line):]
                os.fsync(fd)
            except (IOError, OSError) as exc:
                # a full file system (ENOSPC) must not leave half a record: its change is not made
                os.ftruncate(fd, size)
                self._seq -= 1
                raise JournalError('cannot write journal record %d to %s: %s; its change was not made'
                                   % (entry['seq'], self.path, exc.strerror or exc))
        finally:
            os.close(fd)
        if created:
            fsync_dir(self.journal_dir)
        self.written += 1
        self.records.append(entry)
        self._failpoint(entry['seq'])
        return entry

    def _failpoint(self, seq):
        failpoint('kill-after', seq, self.failpoint_file)


def read_bytes(path):
    """The bytes of a journal file, read without following a link; None when it is missing."""
    try:
        fd = open_nofollow(path, os.O_RDONLY)
    except (IOError, OSError) as exc:
        if exc.errno == errno.ENOENT:
            return None
        raise JournalError('cannot read %s: %s (a link, or a file of another user, is refused)' % (path, exc.strerror or exc))
    with os.fdopen(fd, 'rb') as handle:
        return handle.read()


def next_run_seq(journal_dir):
    """One more than the highest ``run_seq`` of the journals in ``journal_dir`` (their first
    records; a journal that cannot be read counts as nothing)."""
    highest = 0
    for name in _journal_names(journal_dir):
        first = _first_record(os.path.join(journal_dir, name))
        value = first.get('run_seq') if isinstance(first, dict) else None
        if isinstance(value, int) and not isinstance(value, bool):
            highest = max(highest, value)
    return highest + 1


def _journal_names(journal_dir):
    try:
        return sorted(name for name in os.listdir(journal_dir) if name.endswith(SUFFIX))
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return []
        raise


def _first_record(path):
    try:
        fd = open_nofollow(path, os.O_RDONLY)
    except (IOError, OSError):
        return None
    with os.fdopen(fd, 'rb') as handle:
        line = handle.readline(1 << 20)
    try:
        return json.loads(line.decode('utf-8'))
    except ValueError:
        return None


def read_records(path, numbered=False):
    """(records, problems) of a journal file.  A torn last line (a run killed
    while writing it) is dropped with a problem: its change never started.
    With ``numbered`` each record comes as (line number, record)."""
    data = read_bytes(path)
    if data is None:
        return [], []
    records, problems = [], []
    lines = data.split(b'\n')
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            records.append(json.loads(raw.decode('utf-8')))
            if numbered:
                records[-1] = (index + 1, records[-1])
        except ValueError:
            last = index == len(lines) - 1 or all(not rest.strip() for rest in lines[index + 1:])
            if not last:
                raise JournalError('%s line %d is not a journal record' % (path, index + 1))
            problems.append('%s: the last record is incomplete (the run was killed while writing it); '
                            'its change was never made' % path)
    return records, problems


_TORN_FIELDS = re.compile(r'"(seq|kind|target|module)": ("(?:[^"\\]|\\.)*"|\d+)')


def torn_record(path):
    """What can be read of a journal's last record when it is cut short (None when the last
    record is whole): ``seq``, ``kind``, ``target``, ``module`` and ``after`` where they
    survived. A record is cut either while it was written (its change never started) or
    after, by a file system that lost its tail (the change was made; issue 18, F7)."""
    try:
        data = read_bytes(path)
    except JournalError:
        return None
    if data is None:
        return None
    tail = data.rstrip(b'\n').rsplit(b'\n', 1)[-1].decode('utf-8', 'replace')
    if not tail.strip():
        return None
    try:
        json.loads(tail)
        return None
    except ValueError:
        pass
    found = {}
    for key, value in _TORN_FIELDS.findall(tail):
        found.setdefault(key, json.loads(value))
    after = re.search(r'"after": ', tail)
    if after:
        try:
            found['after'] = json.JSONDecoder().raw_decode(tail, after.end())[0]
        except ValueError:
            pass
    return found


def list_runs(journal_dir):
    """Runs in the journal directory, oldest first by ``run_seq``:
    [{run_id, path, records, run_seq, started, rolled_back, problem}]. A journal that cannot
    be read, or whose first record has no ``run_seq``, is listed with its ``problem`` and
    ``run_seq`` None (last): it blocks no other run."""
    runs = []
    for name in _journal_names(journal_dir):
        run_id = name[:-len(SUFFIX)]
        path = os.path.join(journal_dir, name)
        run = {'run_id': run_id, 'path': path, 'records': 0, 'run_seq': None, 'started': None, 'problem': None,
               'rolled_back': os.path.exists(mark_path(journal_dir, run_id))}
        try:
            records, dummy = read_records(path)
        except (JournalError, ValueError) as exc:
            run['problem'] = str(exc)
            records = []
        run['records'] = len(records)
        if not records and run['problem']:
            records = [_first_record(path)]
        if records:
            first = records[0] if isinstance(records[0], dict) else {}
            value = first.get('run_seq')
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                run['run_seq'] = value
            elif run['problem'] is None:
                run['problem'] = '%s line 1: field run_seq: missing or not a positive integer' % path
            run['started'] = first.get('time') if isinstance(first.get('time'), str) else None
        runs.append(run)
    return sorted(runs, key=lambda run: (run['run_seq'] is None, run['run_seq'] or 0, run['run_id']))


def latest_open_run(journal_dir):
    """The newest run (highest run_seq) not rolled back, or None. A journal that cannot be read
    could be the newest one: JournalError names it rather than an older run being picked."""
    runs = [run for run in list_runs(journal_dir) if not run['rolled_back'] and (run['records'] or run['problem'])]
    unordered = [run for run in runs if run['run_seq'] is None]
    if unordered:
        raise JournalError('; '.join(run['problem'] for run in unordered))
    tied = [run['run_id'] for run in runs if runs[-1]['run_seq'] == run['run_seq']]
    if len(tied) > 1:
        # a run_seq is given once, under the lock: a run named to sort last must not win a tie (issue 23)
        raise JournalError('runs %s have the same run_seq %d, which one run only is given: one of them was not written '
                           'by a run of the collection' % (', '.join(tied), runs[-1]['run_seq']))
    return runs[-1] if runs else None


def read_mark(journal_dir, run_id):
    """The rolled-back mark of ``run_id`` (a dict), or None."""
    try:
        data = read_bytes(mark_path(journal_dir, run_id))
        mark = json.loads(data.decode('utf-8')) if data is not None else None
    except (JournalError, ValueError):
        return None
    return mark if isinstance(mark, dict) else None


def write_mark(journal_dir, run_id, summary):
    """Mark ``run_id`` rolled back (atomically)."""
    path = mark_path(journal_dir, run_id)
    temp = None
    try:
        # a new name (O_EXCL, so never through a planted link), then a rename over the mark (issue 23, T2)
        fd, temp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), suffix='.tmp', dir=journal_dir)
        with os.fdopen(fd, 'w') as handle:
            json.dump(dict(summary, run_id=run_id, time=now_utc()), handle, sort_keys=True)
            handle.write('\n')
            handle.flush()
            os.fchmod(handle.fileno(), 0o600)
            os.fsync(handle.fileno())
        os.rename(temp, path)
    except (IOError, OSError) as exc:
        # a full file system: no half-written mark left behind (issue 18, F1)
        if temp is not None and os.path.lexists(temp):
            os.unlink(temp)
        raise JournalError('cannot mark run %s rolled back in %s: %s' % (run_id, journal_dir, exc.strerror or exc))
    fsync_dir(journal_dir)
