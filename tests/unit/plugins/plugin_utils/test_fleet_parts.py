# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Job slicing (issue 41): each slice writes its part, one merge writes the fleet files as one run
of all the hosts writes them, and every part read back is input."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import json
import os
import threading

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import UnsafeDirectory
from ansible_collections.iotune.storage.plugins.module_utils.engine.history import changes_since
from ansible_collections.iotune.storage.plugins.plugin_utils import _fleet_parts as fleet_parts
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_parts import merge_parts, write_part
from ansible_collections.iotune.storage.plugins.plugin_utils._fleet_report import FILES, write_reports

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..'))
BENCH = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'reports', 'bench-two-hosts.json')
RUN_ID = 'chg-4711'
NOW = '2026-11-25T05:00:00Z'
WAIVER = {'name': 'w', 'reason': 'until the new array', 'owner': 'dba', 'expires': '2026-12-31', 'days_left': 36}
FIX = {'changes': ['mount -o remount,noatime /data'], 'needs': 'remount', 'text': 'a remount'}


def check(check_id, status, severity='medium', **extra):
    concern, target, setting = check_id.split(':', 2)
    return dict({'id': check_id, 'concern': concern, 'target': target, 'setting': setting, 'status': status,
                 'severity': severity, 'expected': 40, 'live': 20, 'persistent': None,
                 'message': '%s is %s' % (check_id, status)}, **extra)


def host_report(host, number, benchmark=None):
    """A harden report of host ``number``: a drift with its fix, a waived one, a change, a history."""
    checks = [check('mount_options:/data:present:noatime', 'drift' if number % 2 else 'compliant', 'low', fix=FIX),
              check('cache_limits:sysctl:vm.dirty_ratio', 'not_persistent', waiver=WAIVER if number % 3 == 0 else None),
              check('block_queue:vdb:read_ahead_kb', 'compliant', 'high', changed=True, status_before='drift'),
              check('tunefstab:/dev/vx/dsk/dg/vol%d:write_pref_io' % number, 'not_applicable' if number > 3 else 'error')]
    for entry in checks:
        if entry.get('waiver') is None:
            entry.pop('waiver', None)
    previous = {'run_id': 'chg-4700', 'time': '2026-11-20T06:00:00Z',
                'statuses': {'mount_options:/data:present:noatime': 'drift', 'block_queue:vdb:read_ahead_kb': 'drift'}}
    report = {'host': host, 'run_id': RUN_ID, 'time': '2026-11-25T04:5%d:00Z' % number, 'mode': 'harden',
              'profile': 'throughput', 'summary': dict((s, sum(1 for c in checks if c['status'] == s)) for s in STATUSES),
              'checks': checks, 'history': changes_since(previous if number != 2 else None, checks),
              'host_facts': {'memory_bytes': 1019224064, 'mounts': 25}}
    if benchmark is not None:
        report['benchmark'] = benchmark
    return report


def fleet():
    """Six hosts, two with a measurement, a host name with a character that is escaped in its file name."""
    with open(BENCH) as handle:
        benchmarks = [report['benchmark'] for report in json.load(handle)]
    names = ['db-%d.example.com' % n for n in range(1, 6)] + ['Web/../01']
    return [host_report(name, number, benchmarks[number % 2] if number in (1, 4) else None)
            for number, name in enumerate(names)]


def tree(directory):
    """{relative path: bytes} of every file under ``directory`` but the lock and the parts."""
    found = {}
    for top, dirs, names in os.walk(str(directory)):
        dirs[:] = [name for name in dirs if name != 'parts']
        for name in names:
            if name != '.iotune-report.lock':
                path = os.path.join(top, name)
                with open(path, 'rb') as handle:
                    found[os.path.relpath(path, str(directory))] = handle.read()
    return found


def previous_run(directory):
    """A run before this one in the directory, so that history.json has a line to keep."""
    old = [dict(report, run_id='chg-4700', time='2026-11-20T06:00:00Z') for report in fleet()]
    write_reports(str(directory), old, now='2026-11-20T06:00:00Z')


def sliced(directory, slices, times=('2026-11-25T04:58:00Z', NOW, '2026-11-25T04:59:30Z')):
    for number, reports in enumerate(slices):
        write_part(str(directory), reports, 'slice-%d' % (number + 1), now=times[number % len(times)])


# ---------------------------------------------------------------------------- one run = the merged slices

def test_three_slices_merged_write_the_files_of_one_run_byte_for_byte(tmp_path):
    reports = fleet()
    one, parts = tmp_path / 'one', tmp_path / 'sliced'
    previous_run(one)
    previous_run(parts)
    # the play's order, not the host names'
    write_reports(str(one), list(reversed(reports)), now=NOW)
    # slices as AWX cuts them (every third host), each in its own order
    sliced(parts, [reports[0::3][::-1], reports[1::3], reports[2::3]])
    merged = merge_parts(str(parts), RUN_ID)
    assert merged['parts'] == ['slice-1', 'slice-2', 'slice-3'] and merged['hosts'] == 6
    assert merged['time'] == NOW, 'the latest part'
    expected, found = tree(one), tree(parts)
    assert sorted(found) == sorted(expected) and set(FILES) <= set(found)
    for name in sorted(expected):
        assert found[name] == expected[name], name
    history = json.loads(found['history.json'])['runs']
    assert [(run['run_id'], run['hosts']) for run in history] == [('chg-4700', 6), (RUN_ID, 6)]
    assert b'id="benchmarks"' in found['report.html']
    assert sorted(merged['files']) == sorted(str(parts / name) for name in FILES)


def test_merging_again_replaces_the_runs_line(tmp_path):
    reports = fleet()
    sliced(tmp_path, [reports[:2], reports[2:4], reports[4:]])
    merge_parts(str(tmp_path), RUN_ID, expected=3)
    first = tree(tmp_path)
    merge_parts(str(tmp_path), RUN_ID, expected=3)
    assert tree(tmp_path) == first
    assert len(json.loads(first['history.json'])['runs']) == 1


def test_the_fleet_files_list_the_hosts_by_name_whatever_the_order_given(tmp_path):
    reports = fleet()
    write_reports(str(tmp_path / 'a'), reports, now=NOW)
    write_reports(str(tmp_path / 'b'), reports[3:] + reports[:3], now=NOW)
    assert tree(tmp_path / 'a') == tree(tmp_path / 'b')
    summary = json.loads((tmp_path / 'a' / 'summary.json').read_text())
    assert [c['host'] for c in summary['checks']][::4] == sorted(r['host'] for r in reports)


def test_a_part_holds_the_slices_reports_and_its_time_and_no_fleet_file(tmp_path):
    reports = fleet()[:2]
    written = write_part(str(tmp_path), reports, '4712', now=NOW)
    path = tmp_path / 'parts' / RUN_ID / '4712.json'
    assert written == [str(tmp_path / 'hosts' / 'db-1.example.com.json'), str(tmp_path / 'hosts' / 'db-2.example.com.json'),
                       str(path)]
    part = json.loads(path.read_text())
    assert (part['kind'], part['format'], part['run_id'], part['part'], part['time']) == (
        'iotune.storage part', 1, RUN_ID, '4712', NOW)
    assert part['reports'] == reports
    assert not any((tmp_path / name).exists() for name in FILES)
    assert oct((tmp_path / 'parts' / RUN_ID).stat().st_mode & 0o777) == '0o755'


def test_an_empty_slice_writes_an_empty_part_that_counts(tmp_path):
    reports = fleet()
    write_part(str(tmp_path), reports, 'a', now=NOW)
    write_part(str(tmp_path), [], 'b', run_id=RUN_ID, now=NOW)
    assert merge_parts(str(tmp_path), RUN_ID, expected=2)['hosts'] == 6
    with pytest.raises(ValueError, match=r'^run_id: a part without host reports needs the run id'):
        write_part(str(tmp_path), [], 'c')


def test_two_slices_at_once_both_write_their_part(tmp_path):
    reports = fleet()
    errors = []

    def slice_of(name, hosts):
        try:
            write_part(str(tmp_path), hosts, name)
        except Exception as exc:  # pylint: disable=broad-except
            errors.append(exc)
    threads = [threading.Thread(target=slice_of, args=('s%d' % n, reports[n::3])) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and merge_parts(str(tmp_path), RUN_ID, expected=3)['hosts'] == 6


# ---------------------------------------------------------------------------- the part's name and run

@pytest.mark.parametrize('name', ['', '.hidden', '..', '../x', 'a/b', 'a b', '-x', 'x' * 65, 'caf\u00e9', 'a\nb', None, 1.5, True])
def test_a_bad_part_name_is_refused_naming_the_field(tmp_path, name):
    with pytest.raises(ValueError) as raised:
        write_part(str(tmp_path), fleet()[:1], name)
    assert str(raised.value) == ('part: must be 1 to 64 letters, digits and . _ - starting with a letter or a digit, such as '
                                 'an AWX job id, got %r' % (name,))
    assert not (tmp_path / 'parts').exists()


@pytest.mark.parametrize('name, file_name', [(4712, '4712.json'), ('slice_1.of-3', 'slice_1.of-3.json'), ('x' * 64, 'x' * 64 + '.json')])
def test_a_good_part_name_is_its_file_name(tmp_path, name, file_name):
    write_part(str(tmp_path), fleet()[:1], name)
    assert os.listdir(str(tmp_path / 'parts' / RUN_ID)) == [file_name]


def test_a_part_holds_one_run_and_each_host_once(tmp_path):
    reports = fleet()[:2]
    other = dict(reports[1], run_id='chg-9')
    with pytest.raises(ValueError, match=r"^run_id: host db-2.example.com is of run 'chg-9', not of 'chg-4711'"):
        write_part(str(tmp_path), [reports[0], other], 'a')
    with pytest.raises(ValueError, match=r"^run_id: host db-1.example.com is of run 'chg-4711', not of 'chg-5'"):
        write_part(str(tmp_path), reports, 'a', run_id='chg-5')
    with pytest.raises(ValueError, match=r'^reports: host db-1.example.com is given more than once'):
        write_part(str(tmp_path), [reports[0], reports[0]], 'a')
    with pytest.raises(ValueError, match=r'^run_id: run_id must be 1-128 characters'):
        write_part(str(tmp_path), [], 'a', run_id='../up')


def test_a_part_beyond_the_limit_is_refused_when_written(tmp_path, monkeypatch):
    monkeypatch.setattr(fleet_parts, 'PART_LIMIT', 2000)
    with pytest.raises(ValueError, match=r'^part: the reports of this slice take \d+ bytes, more than the 2000 a part may hold; '
                                         r'split the job into more slices'):
        write_part(str(tmp_path), fleet(), 'a')


def test_a_link_planted_at_the_parts_name_is_replaced_not_written_through(tmp_path):
    outside = tmp_path / 'outside'
    outside.write_text('mine\n')
    (tmp_path / 'r' / 'parts' / RUN_ID).mkdir(parents=True)
    os.chmod(str(tmp_path / 'r' / 'parts'), 0o755)
    os.symlink(str(outside), str(tmp_path / 'r' / 'parts' / RUN_ID / 'a.json'))
    write_part(str(tmp_path / 'r'), fleet()[:1], 'a')
    assert outside.read_text() == 'mine\n' and not os.path.islink(str(tmp_path / 'r' / 'parts' / RUN_ID / 'a.json'))


# ---------------------------------------------------------------------------- every part read back is input

@pytest.fixture(name='two_parts')
def two_parts_fixture(tmp_path):
    reports = fleet()
    write_part(str(tmp_path), reports[:3], 'a', now=NOW)
    write_part(str(tmp_path), reports[3:], 'b', now=NOW)
    return tmp_path


def part_file(directory, name='b'):
    return directory / 'parts' / RUN_ID / ('%s.json' % name)


def rewrite(directory, change, name='b'):
    """Part ``name`` changed by ``change(part)`` (which may return a new value to write)."""
    path = part_file(directory, name)
    part = json.loads(path.read_text())
    new = change(part)
    path.write_text(json.dumps(part if new is None else new))


def merge_error(directory, expected=None):
    with pytest.raises(ValueError) as raised:
        merge_parts(str(directory), RUN_ID, expected=expected)
    return str(raised.value)


def test_a_link_among_the_parts_is_refused(two_parts, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp('elsewhere') / 'b.json'
    os.rename(str(part_file(two_parts)), str(elsewhere))
    os.symlink(str(elsewhere), str(part_file(two_parts)))
    assert merge_error(two_parts) == 'merge: %s: not a regular file (a symbolic link)' % part_file(two_parts)
    assert not (two_parts / 'summary.json').exists()


def test_a_fifo_or_a_directory_among_the_parts_is_refused_without_waiting(two_parts):
    os.unlink(str(part_file(two_parts)))
    os.mkfifo(str(part_file(two_parts)))
    assert merge_error(two_parts) == 'merge: %s: not a regular file (a special file)' % part_file(two_parts)
    os.unlink(str(part_file(two_parts)))
    os.mkdir(str(part_file(two_parts)))
    assert merge_error(two_parts) == 'merge: %s: not a regular file (a directory)' % part_file(two_parts)


def test_a_part_too_big_is_refused(two_parts, monkeypatch):
    monkeypatch.setattr(fleet_parts, 'PART_LIMIT', 1000)
    assert merge_error(two_parts) == 'merge: %s: larger than 1000 bytes, the most read back' % part_file(two_parts, 'a')


def test_the_limit_is_64_mib():
    assert fleet_parts.PART_LIMIT == 64 << 20


def test_a_part_nested_too_deep_is_refused(two_parts):
    def deep(part):
        part['reports'][0]['waivers'] = json.loads('[' * 40 + ']' * 40)
    rewrite(two_parts, deep)
    assert merge_error(two_parts) == 'merge: %s: nested deeper than 32 levels, the most read back' % part_file(two_parts)


def _set(path, value):
    def change(part):
        if not path:
            return value
        target = part
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return None
    return change


@pytest.mark.parametrize('path, value, problem', [
    ((), [], 'the file: not a JSON object'),
    (('reports',), 'db-4', 'the file.reports: a string, where an array belongs'),
    (('reports', 0, 'host'), 4, 'the file.reports[0].host: an integer, where a string belongs'),
    (('reports', 0, 'checks'), {}, 'the file.reports[0].checks: an object, where an array belongs'),
    (('reports', 0, 'checks', 0, 'id'), None, 'the file.reports[0].checks[0].id: null, where a string belongs'),
    (('reports', 0, 'checks', 0, 'status'), 'bogus', "reports[0].checks[0].status: 'bogus' is not one of " + ', '.join(STATUSES)),
    (('reports', 0, 'checks', 1, 'waiver'), {'expires': '2026-12-31', 'days_left': '36', 'owner': 'x', 'reason': 'y'},
     'the file.reports[0].checks[1].waiver.days_left: a string, where an integer belongs'),
    (('reports', 0, 'checks', 1, 'waiver'), {'expires': '2026-12-31', 'days_left': 36},
     'reports[0].checks[1].waiver: owner, reason missing'),
    (('reports', 0, 'checks', 0, 'fix'), {'changes': 'rm -rf /'}, 'the file.reports[0].checks[0].fix.changes: a string, where null or an '
                                                                  'array belongs'),
    (('reports', 0, 'history'), {'new': [{'id': 7}]}, 'the file.reports[0].history.new[0].id: an integer, where a string belongs'),
    (('reports', 0, 'benchmark'), [], 'the file.reports[0].benchmark: an array, where null or an object belongs'),
    (('time',), 'yesterday', "time 'yesterday' is not a UTC time such as 2026-11-25T05:00:00Z"),
    (('format',), 2, "not a part (kind 'iotune.storage part', format 2; a part is of kind 'iotune.storage part', format 1)"),
    (('format',), True, 'the file.format: a boolean, where an integer belongs'),
    (('part',), 'a', "says it is part 'a' of run 'chg-4711', not part 'b' of run 'chg-4711'"),
    (('run_id',), 'chg-1', "says it is part 'b' of run 'chg-1', not part 'b' of run 'chg-4711'"),
    (('reports', 1, 'run_id'), 'chg-1', "reports[1].run_id: 'chg-1', not 'chg-4711'"),
])
def test_a_field_not_of_its_type_is_refused_naming_it(two_parts, path, value, problem):
    rewrite(two_parts, _set(path, value))
    assert merge_error(two_parts) == 'merge: %s: %s' % (part_file(two_parts), problem)


@pytest.mark.parametrize('key', ['kind', 'reports', 'time'])
def test_a_part_without_a_field_is_refused(two_parts, key):
    rewrite(two_parts, lambda part: part.pop(key) and None)
    assert merge_error(two_parts) == 'merge: %s: the file: %s missing' % (part_file(two_parts), key)


def test_a_report_without_a_host_is_refused(two_parts):
    rewrite(two_parts, lambda part: part['reports'][2].pop('host') and None)
    assert merge_error(two_parts) == 'merge: %s: reports[2]: host missing' % part_file(two_parts)


def test_what_only_the_rendering_finds_names_the_part(two_parts):
    rewrite(two_parts, _set(('reports', 0, 'benchmark'), {'comparison': [{'job': 'x'}]}))
    error = merge_error(two_parts)
    assert error.startswith('merge: part b (%s): a host report the fleet files cannot be written from: KeyError:'
                            % part_file(two_parts)), error


def test_not_json_is_refused(two_parts):
    part_file(two_parts).write_text('{"kind": NaN}')
    assert merge_error(two_parts).startswith('merge: %s: not JSON: ' % part_file(two_parts))


def test_a_host_in_two_parts_is_refused_naming_both(two_parts):
    write_part(str(two_parts), fleet()[2:4], 'c', now=NOW)
    assert merge_error(two_parts) == ('merge: host db-3.example.com is in part a and in part c: a host belongs to one slice '
                                      '(a part of an earlier attempt left in the run\'s directory? remove it)')


def test_fewer_parts_than_expected_names_how_many_were_found(two_parts):
    base = two_parts / 'parts' / RUN_ID
    assert merge_error(two_parts, expected=3) == (
        'parts: 3 part(s) expected, 2 found in %s (a, b): a slice has not written its part (failed, or still running)' % base)
    assert merge_error(two_parts, expected=1) == (
        'parts: 1 part(s) expected, 2 found in %s (a, b): a part of an earlier attempt? remove it' % base)
    assert not (two_parts / 'summary.json').exists()
    assert merge_parts(str(two_parts), RUN_ID, expected=2)['hosts'] == 6


def test_a_run_without_parts_is_named(tmp_path):
    write_part(str(tmp_path), fleet()[:1], 'a')
    with pytest.raises(ValueError, match=r'^merge: no parts of run chg-1 at %s$' % (tmp_path / 'parts' / 'chg-1')):
        merge_parts(str(tmp_path), 'chg-1')
    os.mkdir(str(tmp_path / 'parts' / 'chg-2'))
    with pytest.raises(ValueError, match=r'^merge: no part of run chg-2 in %s$' % (tmp_path / 'parts' / 'chg-2')):
        merge_parts(str(tmp_path), 'chg-2')
    with pytest.raises(ValueError, match=r'^merge: run_id must be 1-128 characters'):
        merge_parts(str(tmp_path), '../..')


def test_a_part_being_written_and_other_files_are_not_parts(two_parts):
    (two_parts / 'parts' / RUN_ID / '.b.json.x1y2').write_text('{')
    (two_parts / 'parts' / RUN_ID / 'README').write_text('notes')
    assert merge_parts(str(two_parts), RUN_ID)['parts'] == ['a', 'b']


@pytest.mark.parametrize('where', ['.', 'parts', 'parts/' + RUN_ID])
def test_a_directory_others_can_write_is_refused(two_parts, where):
    os.chmod(str(two_parts / where), 0o777)
    with pytest.raises(UnsafeDirectory, match='writable by group and other'):
        merge_parts(str(two_parts), RUN_ID)


@pytest.mark.skipif(os.geteuid() != 0, reason='gives a part to another user')
def test_a_part_of_another_user_is_refused(two_parts):
    os.chown(str(part_file(two_parts)), 65534, 65534)
    assert merge_error(two_parts).startswith('merge: %s: cannot be read: ' % part_file(two_parts))


def test_bytes_that_are_not_utf8_in_a_part_are_shown_as_their_escape(two_parts):
    reports = copy.deepcopy(fleet()[:1])
    reports[0]['checks'][0]['message'] = u'LABEL=caf\udce9 /data'
    write_part(str(two_parts), reports, 'c', run_id=RUN_ID, now=NOW)
    assert '"LABEL=caf\\\\xe9 /data"' in part_file(two_parts, 'c').read_text(encoding='utf-8')
    # a lone surrogate as JSON escapes it, put in a part by hand
    rewrite(two_parts, lambda part: part['reports'][0]['checks'][0].update(message=u'caf\udce9') or part)
    os.unlink(str(part_file(two_parts, 'a')))
    os.unlink(str(part_file(two_parts, 'c')))
    merge_parts(str(two_parts), RUN_ID)
    summary = (two_parts / 'summary.json').read_text(encoding='utf-8')
    assert '"message": "caf\\\\xe9"' in summary
