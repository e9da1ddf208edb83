# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.plan import tunefstab as tp
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import parse_mountinfo
from ansible_collections.iotune.storage.plugins.module_utils.parse.tunefstab import parse_tunefstab

VOL01 = '/dev/vx/dsk/datadg/vol01'
U08 = '/dev/vx/dsk/datadg/u08'
VOL02 = '/dev/vx/dsk/datadg/vol02'
EXT01 = '/dev/vx/dsk/datadg/ext01'
SOLARIS = ('tunefstab', 'constructed-solaris.tunefstab')
SOLARIS_WITH_VOL02 = 'a tunefstab with a vol02 line'


# ---------------------------------------------------------------- input

@pytest.mark.parametrize('name, value, expected', [
    ('discovered_direct_iosz', '10m', 10485760),
    ('discovered_direct_iosz', 10485760, 10485760),
    ('discovered_direct_iosz', ' 256k ', 262144),
    ('read_pref_io', '64K', 65536),
    ('read_nstream', 4, 4),
    ('read_nstream', '8', 8),
    ('write_throttle', 0, 0),
    ('max_buf_data_size', '64k', 65536),
    ('max_buf_data_size', 8192, 8192),
    ('qio_cache_enable', '1', 1),
    ('read_ahead', 2, 2),
])
def test_normalize_tunable(name, value, expected):
    assert tp.normalize_tunable(name, value) == expected


@pytest.mark.parametrize('name, value, message', [
    ('discovered_direct_iosz', '8Q', "'8Q' is not valid; expected a size in bytes (10485760, 256k, 10m)"),
    ('discovered_direct_iosz', -1, '-1 is not valid; expected a size in bytes (10485760, 256k, 10m)'),
    ('read_nstream', 0, '0 is not valid; expected an integer >= 1'),
    ('read_nstream', '4k', "'4k' is not valid; expected an integer >= 1"),
    ('write_throttle', True, 'True is not valid; expected an integer >= 0'),
    ('read_ahead', 3, '3 is not valid; expected one of 0, 1, 2'),
    ('max_buf_data_size', 16384, '16384 is not valid; expected 8k or 64k (8192 or 65536 bytes)'),
    ('fcl_keeptime', 1.5, '1.5 is not valid; expected an integer >= 0'),
    ('read_pref_iosz', 1, 'unknown tunable; accepted: read_pref_io, read_nstream, write_pref_io'),
])
def test_normalize_tunable_rejects(name, value, message):
    with pytest.raises(ValueError) as excinfo:
        tp.normalize_tunable(name, value)
    assert str(excinfo.value).startswith(message)


def test_validate_entry_names_every_bad_field():
    tunables = {'discovered_direct_iosz': '10m', 'bogus': 1, 'read_ahead': 5}
    entry, errors = tp.validate_entry({'device': U08, 'tunables': tunables}, 'entries[1]')
    assert entry == {'device': U08, 'tunables': {'discovered_direct_iosz': 10485760}}
    assert errors == [
        'entries[1].tunables.bogus: unknown tunable; accepted: ' + ', '.join(tp.TUNABLE_NAMES),
        'entries[1].tunables.read_ahead: 5 is not valid; expected one of 0, 1, 2',
    ]


@pytest.mark.parametrize('entry, error', [
    ({'device': '', 'tunables': {'read_ahead': 1}}, "device: '' is not valid (not an absolute path)"),
    ({'device': '/dev/a /dev/b', 'tunables': {'read_ahead': 1}}, "device: '/dev/a /dev/b' is not valid (contains ' ')"),
    # issue 18, D7: '#' made the planned line a comment and the plan raised KeyError
    ({'device': '#/dev/vx/dsk/datadg/vol01', 'tunables': {'read_ahead': 1}},
     "device: '#/dev/vx/dsk/datadg/vol01' is not valid (not an absolute path); expected an absolute block device path "
     "without whitespace, '#', ',' or '=' (such as /dev/vx/dsk/datadg/vol01), or system-default"),
    ({'device': '/dev/vx/dsk/datadg/vol#1', 'tunables': {'read_ahead': 1}}, "device: '/dev/vx/dsk/datadg/vol#1' is not valid (contains '#')"),
    ({'device': '/dev/a,b=c', 'tunables': {'read_ahead': 1}}, "device: '/dev/a,b=c' is not valid (contains ',', '=')"),
    ({'device': ' /dev/a\t', 'tunables': {'read_ahead': 1}}, "device: ' /dev/a\\t' is not valid (not an absolute path)"),
    ({'device': '/dev/a\n', 'tunables': {'read_ahead': 1}}, "device: '/dev/a\\n' is not valid (contains '\\n')"),
    ({'device': 'vx/dsk/datadg/vol01', 'tunables': {'read_ahead': 1}}, "device: 'vx/dsk/datadg/vol01' is not valid"),
    ({'device': None, 'tunables': {'read_ahead': 1}}, "device: None is not valid"),
    ({'device': VOL01, 'tunables': {}}, 'tunables: expected a non-empty dict'),
    ({'device': VOL01, 'tunables': None}, 'tunables: expected a non-empty dict'),
])
def test_validate_entry_rejects(entry, error):
    dummy, errors = tp.validate_entry(entry)
    assert len(errors) == 1 and errors[0].startswith(error)


@pytest.mark.parametrize('device', [VOL01, '/dev/vg01/lvol1', 'system-default'])
def test_validate_entry_accepts_devices(device):
    entry, errors = tp.validate_entry({'device': device, 'tunables': {'read_ahead': 1}})
    assert (entry, errors) == ({'device': device, 'tunables': {'read_ahead': 1}}, [])


# ---------------------------------------------------------------- the file

def test_effective_for_system_default_takes_precedence(read_fixture):
    entries = parse_tunefstab(read_fixture('tunefstab', 'constructed-hpux.tunefstab'))
    assert tp.effective_for(entries, '/dev/vg01/lvol1') == {
        'read_pref_io': (65536, 4), 'read_nstream': (4, 4), 'max_buf_data_size': (65536, 4),
        'qio_cache_enable': (1, 4), 'max_diskq': (2097152, 3), 'read_ahead': (2, 3)}
    assert tp.effective_for(entries, '/dev/vg01/lvol9') == {'max_diskq': (2097152, 3), 'read_ahead': (2, 3)}


@pytest.mark.parametrize('device, tunables, changed_lines', [
    # every line of the device that sets the tunable (the last is the one in effect)
    (VOL01, {'read_nstream': 16}, {7: '/dev/vx/dsk/datadg/vol01 read_pref_io=262144,read_nstream=16,write_pref_io=262144,write_nstream=4',
                                   12: '\t/dev/vx/dsk/datadg/vol01 read_nstream=16'}),
    (VOL01, {'write_pref_io': 1048576},
     {7: '/dev/vx/dsk/datadg/vol01 read_pref_io=262144,read_nstream=4,write_pref_io=1048576,write_nstream=4'}),
    # a tunable the device does not have yet goes to its last line
    (VOL01, {'max_diskq': 2097152, 'read_nstream': 8},
     {7: '/dev/vx/dsk/datadg/vol01 read_pref_io=262144,read_nstream=8,write_pref_io=262144,write_nstream=4',
      12: '\t/dev/vx/dsk/datadg/vol01 read_nstream=8,max_diskq=2097152'}),
    # spacing of the line is kept
    ('/dev/vx/dsk/datadg/u09', {'read_pref_io': 524288}, {11: '/dev/vx/dsk/datadg/u09   read_pref_io=524288'}),
    (U08, {'discovered_direct_iosz': 10485760, 'write_throttle': 16},
     {10: '/dev/vx/dsk/datadg/u08 max_direct_iosz=1m,write_throttle=16'}),
])
def test_merge_keeps_every_other_byte(read_fixture, device, tunables, changed_lines):
    text = read_fixture(*SOLARIS)
    after = tp.merge_tunefstab_text(text, device, tunables)
    old, new = text.splitlines(True), after.splitlines(True)
    assert len(old) == len(new)
    for number, (old_line, new_line) in enumerate(zip(old, new), 1):
        if number in changed_lines:
            assert new_line == changed_lines[number] + '\n'
        else:
            assert new_line == old_line
    assert tp.effective_for(parse_tunefstab(after), device)[sorted(tunables)[0]][0] == tunables[sorted(tunables)[0]]


@pytest.mark.parametrize('text, expected', [
    (None, '/dev/vx/dsk/datadg/vol03 read_pref_io=65536,read_nstream=2\n'),
    ('', '/dev/vx/dsk/datadg/vol03 read_pref_io=65536,read_nstream=2\n'),
    ('# header', '# header\n/dev/vx/dsk/datadg/vol03 read_pref_io=65536,read_nstream=2\n'),
    ('# header\r\n/dev/x a=1\r\n', '# header\r\n/dev/x a=1\r\n/dev/vx/dsk/datadg/vol03 read_pref_io=65536,read_nstream=2\r\n'),
])
def test_merge_new_device_line(text, expected):
    assert tp.merge_tunefstab_text(text, '/dev/vx/dsk/datadg/vol03', {'read_nstream': 2, 'read_pref_io': 65536}) == expected


# issue 23, P3: editing a line dropped its trailing comment, or put the new items after it (in the comment).
# (line of the Solaris sample, the same line with a comment, tunables to set, the line after the edit)
@pytest.mark.parametrize('line, commented, tunables, expected', [
    # the value in the comment's way is changed
    ('/dev/vx/dsk/datadg/u08 discovered_direct_iosz=10485760', '/dev/vx/dsk/datadg/u08 discovered_direct_iosz=10485760  # seed 001',
     {'discovered_direct_iosz': 262144}, '/dev/vx/dsk/datadg/u08 discovered_direct_iosz=262144  # seed 001'),
    # new items go before the comment
    ('/dev/vx/dsk/datadg/u08 max_direct_iosz=1m,write_throttle=0', '/dev/vx/dsk/datadg/u08 max_direct_iosz=1m,write_throttle=0\t# 1 MiB',
     {'write_throttle': 16, 'max_diskq': 2097152},
     '/dev/vx/dsk/datadg/u08 max_direct_iosz=1m,write_throttle=16,max_diskq=2097152\t# 1 MiB'),
    ('\t/dev/vx/dsk/datadg/vol01 read_nstream=8', '\t/dev/vx/dsk/datadg/vol01 read_nstream=8 # columns # of the stripe',
     {'read_nstream': 16}, '\t/dev/vx/dsk/datadg/vol01 read_nstream=16 # columns # of the stripe'),
    ('/dev/vx/dsk/datadg/u09   read_pref_io=256k', '/dev/vx/dsk/datadg/u09   read_pref_io=256k #', {'read_pref_io': 524288},
     '/dev/vx/dsk/datadg/u09   read_pref_io=524288 #'),
])
def test_merge_keeps_the_trailing_comment(read_fixture, line, commented, tunables, expected):
    text = read_fixture(*SOLARIS)
    assert line + '\n' in text
    before = text.replace(line + '\n', commented + '\n')
    after = tp.merge_tunefstab_text(before, line.split()[0], tunables)
    # vol01's first line sets read_nstream too: every occurrence gets the value
    expected_text = before.replace('read_nstream=4,', 'read_nstream=16,') if 'vol01 read_nstream' in line else before
    assert after == expected_text.replace(commented + '\n', expected + '\n')
    effective = tp.effective_for(parse_tunefstab(after), line.split()[0])
    assert dict((name, effective[name][0]) for name in tunables) == tunables


def test_plan_reads_past_a_trailing_comment(plan, fixture_path, read_fixture, tmp_path):
    # seed 001's fix with a note: compliant in the file (it was drift: '10485760#seed001' is no number)
    commented = tmp_path / 'tunefstab'
    commented.write_text(read_fixture(*SOLARIS).replace('discovered_direct_iosz=10485760\n',
                                                        'discovered_direct_iosz=10485760 # seed 001\n'))
    plan.outputs['/u08'] = (0, sample_output(read_fixture, '/u08', discovered_direct_iosz=10485760), '')
    result = plan([{'device': U08, 'tunables': {'discovered_direct_iosz': '10m', 'max_diskq': '2m'}}], path=str(commented))
    assert one(result, U08, 'discovered_direct_iosz')['status'] == 'compliant'
    assert one(result, U08, 'discovered_direct_iosz')['persistent'] == 10485760
    assert result['changes'][0]['after'].count('discovered_direct_iosz=10485760 # seed 001\n') == 1


def test_merge_keeps_crlf_and_unterminated_last_line():
    text = '# t\r\n/dev/x read_ahead=1'
    assert tp.merge_tunefstab_text(text, '/dev/x', {'read_ahead': 2, 'max_diskq': 1048576}) == \
        '# t\r\n/dev/x read_ahead=2,max_diskq=1048576'


# ---------------------------------------------------------------- live

def test_find_mount_prefers_the_root_mount(read_fixture):
    entries = parse_mountinfo(read_fixture('vxfs', 'proc', 'self', 'mountinfo'))
    assert tp.find_mount(entries, U08) == ('/u08', 'vxfs')
    assert tp.find_mount(entries, EXT01) == ('/scratch', 'ext4')
    assert tp.find_mount(entries, VOL02) == (None, None)


@pytest.mark.parametrize('answer, values, error', [
    ((0, 'Filesystem i/o parameters for /data\nread_pref_io = 65536\n', ''), {'read_pref_io': 65536}, None),
    ((1, '', 'UX:vxfs vxtunefs: ERROR: /data is not a mounted VxFS file system\n'), None,
     'vxtunefs -p /data failed (rc=1): UX:vxfs vxtunefs: ERROR: /data is not a mounted VxFS file system'),
    ((0, 'garbage\n', ''), None, 'vxtunefs -p /data printed no tunables'),
    (OSError(2, 'No such file or directory'), None, 'cannot run vxtunefs -p /data'),
])
def test_read_live(answer, values, error):
    def run_command(argv):
        assert argv == ['vxtunefs', '-p', '/data']
        if isinstance(answer, Exception):
            raise answer
        return answer
    found, found_error = tp.read_live('vxtunefs', '/data', run_command)
    assert found == values
    if error:
        assert found_error.startswith(error)
    else:
        assert found_error is None


# ---------------------------------------------------------------- checks

def sample_output(read_fixture, mount_point, **changes):
    lines = []
    for line in read_fixture('vxtunefs', 'seed003-solaris9.txt').splitlines():
        name = line.split(' = ')[0]
        if name in changes:
            line = '%s = %s' % (name, changes[name])
        lines.append(line.replace('/filesystem', mount_point))
    return '\n'.join(lines) + '\n'


@pytest.fixture(name='plan')
def plan_fixture(read_fixture, fixture_path):
    """plan(entries, **overrides): the Solaris tunefstab sample, the VxFS mountinfo, and a fake
    vxtunefs that prints the seed 003 sample (vol01 at /data tuned like its tunefstab lines)."""
    outputs = {
        '/data': (0, sample_output(read_fixture, '/data', read_pref_io=262144, read_nstream=8), ''),
        '/u08': (0, sample_output(read_fixture, '/u08'), ''),
    }
    calls = []

    def run_command(argv):
        calls.append(argv)
        return outputs[argv[-1]]

    def plan(entries, **overrides):
        args = dict(path=fixture_path(*SOLARIS), vxtunefs='/opt/VRTS/bin/vxtunefs', run_command=run_command,
                    proc_root=fixture_path('vxfs', 'proc'), can_run=lambda path: path == '/opt/VRTS/bin/vxtunefs')
        args.update(overrides)
        normalized = [tp.validate_entry(entry)[0] for entry in entries]
        result = tp.plan_tunefstab(normalized, **args)
        result['calls'] = list(calls)
        for item in result['checks']:
            item['message'] = item['message'].replace(fixture_path(*SOLARIS), '/etc/vx/tunefstab')
        return result
    plan.outputs = outputs
    plan.read_fixture = read_fixture
    return plan


def one(result, target, setting):
    found = [c for c in result['checks'] if c['target'] == target and c['setting'] == setting]
    assert len(found) == 1, result['checks']
    return found[0]


@pytest.mark.parametrize('entry, setting, overrides, status, expected_check', [
    ({'device': VOL01, 'tunables': {'read_pref_io': '256k'}}, 'read_pref_io', {}, 'compliant',
     {'live': 262144, 'persistent': 262144, 'expected': 262144,
      'message': 'read_pref_io on /dev/vx/dsk/datadg/vol01 is 262144 live (vxtunefs -p /data) and '
                 '/etc/vx/tunefstab line 7 sets 262144'}),
    # seed 001: the file says 10m, the live value went back to 256k
    ({'device': U08, 'tunables': {'discovered_direct_iosz': '10m'}}, 'discovered_direct_iosz', {}, 'drift',
     {'live': 262144, 'persistent': 10485760,
      'message': 'discovered_direct_iosz on /dev/vx/dsk/datadg/u08 is 262144 live (vxtunefs -p /u08), expected '
                 '10485760; /etc/vx/tunefstab line 8 sets 10485760'}),
    ({'device': VOL01, 'tunables': {'max_diskq': '1m'}}, 'max_diskq', {}, 'not_persistent',
     {'live': 1048576, 'persistent': None,
      'message': 'max_diskq on /dev/vx/dsk/datadg/vol01 is 1048576 live (vxtunefs -p /data) but '
                 '/etc/vx/tunefstab does not set it: lost at the next mount'}),
    ({'device': VOL01, 'tunables': {'read_nstream': 4}}, 'read_nstream', {}, 'drift',
     {'live': 8, 'persistent': 8}),
    # issue 18, D8: no vxtunefs, and the device is mounted as vxfs: its live value exists but was not read,
    # so the file alone cannot say it is compliant (it said compliant before)
    ({'device': VOL01, 'tunables': {'read_pref_io': 262144}}, 'read_pref_io', {'vxtunefs': None}, 'error',
     {'live': None, 'persistent': 262144,
      'message': 'read_pref_io on /dev/vx/dsk/datadg/vol01: no vxtunefs on this host (searched PATH, /opt/VRTS/bin, /sbin, '
                 '/usr/sbin, /usr/lib/fs/vxfs) but /dev/vx/dsk/datadg/vol01 is mounted on /data as vxfs: its live values '
                 'cannot be read; name the binary with the vxtunefs option'}),
    ({'device': VOL01, 'tunables': {'read_pref_io': 65536}}, 'read_pref_io', {'vxtunefs': None}, 'error',
     {'live': None, 'persistent': 262144}),
    # a named vxtunefs that cannot run: the same, naming the option and the path
    ({'device': VOL01, 'tunables': {'read_pref_io': 262144}}, 'read_pref_io', {'vxtunefs': '/opt/missing/vxtunefs'}, 'error',
     {'live': None, 'persistent': 262144,
      'message': 'read_pref_io on /dev/vx/dsk/datadg/vol01: vxtunefs /opt/missing/vxtunefs (the vxtunefs option) is not '
                 'an executable file: the live values of /dev/vx/dsk/datadg/vol01 on /data cannot be read'}),
    # no vxtunefs and not mounted: there is no live value, the file alone decides
    ({'device': VOL02, 'tunables': {'read_ahead': 2}}, 'read_ahead', {'vxtunefs': None, 'path': SOLARIS_WITH_VOL02},
     'compliant', {'live': None, 'persistent': 2,
                   'message': 'read_ahead on /dev/vx/dsk/datadg/vol02: /dev/vx/dsk/datadg/vol02 is not mounted: live value '
                              'not checked; /etc/vx/tunefstab line 1 sets 2'}),
    ({'device': EXT01, 'tunables': {'read_ahead': 2}}, 'read_ahead', {'vxtunefs': None}, 'drift', {'live': None}),
    # neither vxtunefs nor the file, and nothing mounted as vxfs: VxFS is not in use
    ({'device': VOL02, 'tunables': {'read_pref_io': 65536}}, 'read_pref_io',
     {'vxtunefs': None, 'path': '/nonexistent/tunefstab'}, 'not_applicable',
     {'message': 'no vxtunefs on this host and no /nonexistent/tunefstab: VxFS is not in use here'}),
    # a named vxtunefs that cannot run, no file, not mounted: the value is not persisted (VxFS was named)
    ({'device': VOL02, 'tunables': {'read_pref_io': 65536}}, 'read_pref_io',
     {'vxtunefs': '/opt/missing/vxtunefs', 'path': '/nonexistent/tunefstab'}, 'drift', {}),
    # vxtunefs present, no file: the value is not persisted
    ({'device': VOL01, 'tunables': {'read_pref_io': 262144}}, 'read_pref_io', {'path': '/nonexistent/tunefstab'},
     'not_persistent',
     {'message': 'read_pref_io on /dev/vx/dsk/datadg/vol01 is 262144 live (vxtunefs -p /data) but there is no '
                 '/nonexistent/tunefstab: lost at the next mount'}),
    ({'device': VOL02, 'tunables': {'read_ahead': 2}}, 'read_ahead', {}, 'drift',
     {'live': None, 'message': 'read_ahead on /dev/vx/dsk/datadg/vol02: /dev/vx/dsk/datadg/vol02 is not mounted: '
                               'live value not checked; /etc/vx/tunefstab does not set it'}),
    ({'device': EXT01, 'tunables': {'read_ahead': 2}}, 'read_ahead', {}, 'drift',
     {'message': 'read_ahead on /dev/vx/dsk/datadg/ext01: /dev/vx/dsk/datadg/ext01 is mounted on /scratch as ext4, '
                 'not vxfs: live value not checked; /etc/vx/tunefstab does not set it'}),
    ({'device': U08, 'tunables': {'fcl_keeptime': 0}}, 'fcl_keeptime', {'vxtunefs': None}, 'error', {}),
])
def test_statuses(plan, entry, setting, overrides, status, expected_check, tmp_path):
    if overrides.get('path') == SOLARIS_WITH_VOL02:
        vol02 = tmp_path / 'tunefstab'
        vol02.write_text('%s read_ahead=2\n' % VOL02)
        overrides = dict(overrides, path=str(vol02))
    check = one(plan([entry], **overrides), entry['device'], setting)
    if overrides.get('path', '').startswith(str(tmp_path)):
        check['message'] = check['message'].replace(overrides['path'], '/etc/vx/tunefstab')
    assert check['status'] == status
    assert check['id'] == 'tunefstab:%s:%s' % (entry['device'], setting)
    for key, value in expected_check.items():
        assert check[key] == value, key


def test_error_status_when_vxtunefs_fails(plan):
    plan.outputs['/u08'] = (1, '', 'UX:vxfs vxtunefs: ERROR: cannot get parameters\n')
    result = plan([{'device': U08, 'tunables': {'discovered_direct_iosz': '10m', 'max_direct_iosz': '1m'}}])
    assert [c['status'] for c in result['checks']] == ['error', 'error']
    assert result['checks'][0]['message'] == (
        'discovered_direct_iosz on /dev/vx/dsk/datadg/u08: /opt/VRTS/bin/vxtunefs -p /u08 failed (rc=1): '
        'UX:vxfs vxtunefs: ERROR: cannot get parameters')
    assert result['changes'] == []


def test_tunable_not_printed(plan):
    plan.outputs['/data'] = (0, 'Filesystem i/o parameters for /data\nread_pref_io = 262144\n', '')
    check = one(plan([{'device': VOL01, 'tunables': {'read_nstream': 8}}]), VOL01, 'read_nstream')
    assert check['status'] == 'compliant'
    assert check['message'] == ('read_nstream on /dev/vx/dsk/datadg/vol01: vxtunefs -p /data does not print it: '
                                'live value not checked; /etc/vx/tunefstab line 12 sets 8')


def test_every_status_is_covered():
    covered = set(case[3] for case in test_statuses.pytestmark[0].args[1]) | {'error'}
    assert covered == set(STATUSES)


def test_one_vxtunefs_call_per_mount_point(plan):
    result = plan([{'device': VOL01, 'tunables': {'read_pref_io': 262144}},
                   {'device': VOL01, 'tunables': {'read_nstream': 8}},
                   {'device': U08, 'tunables': {'max_direct_iosz': '1m'}}])
    assert result['calls'] == [['/opt/VRTS/bin/vxtunefs', '-p', '/data'], ['/opt/VRTS/bin/vxtunefs', '-p', '/u08']]
    assert result['devices'][0] == {'device': VOL01, 'mount_point': '/data', 'fstype': 'vxfs', 'live_error': None}


def test_plan_changes(plan, read_fixture):
    policy = [{'device': U08, 'tunables': {'discovered_direct_iosz': '10m', 'max_diskq': '2m'}},
              {'device': VOL02, 'tunables': {'read_ahead': 2}}]
    without_apply = plan(policy)
    assert [c['kind'] for c in without_apply['changes']] == ['file']
    change = plan(policy, apply=True)['changes']
    assert change[:2] == [
        {'kind': 'vxtunefs', 'target': '/u08', 'device': U08, 'setting': 'discovered_direct_iosz', 'before': 262144,
         'after': 10485760, 'argv': ['/opt/VRTS/bin/vxtunefs', '-o', 'discovered_direct_iosz=10485760', '/u08']},
        {'kind': 'vxtunefs', 'target': '/u08', 'device': U08, 'setting': 'max_diskq', 'before': 1048576,
         'after': 2097152, 'argv': ['/opt/VRTS/bin/vxtunefs', '-o', 'max_diskq=2097152', '/u08']},
    ]
    text = read_fixture(*SOLARIS)
    assert change[2]['kind'] == 'file' and change[2]['before'] == text
    # only max_diskq is missing from the file for u08 (discovered_direct_iosz is there); vol02 gets a line
    assert change[2]['after'] == text.replace(
        '/dev/vx/dsk/datadg/u08 max_direct_iosz=1m,write_throttle=0\n',
        '/dev/vx/dsk/datadg/u08 max_direct_iosz=1m,write_throttle=0,max_diskq=2097152\n') + \
        '/dev/vx/dsk/datadg/vol02 read_ahead=2\n'


def test_plan_compliant_has_no_changes(plan):
    result = plan([{'device': VOL01, 'tunables': {'read_pref_io': 262144, 'read_nstream': 8}}], apply=True)
    assert [c['status'] for c in result['checks']] == ['compliant', 'compliant']
    assert result['changes'] == []


# issue 23, P4: a system-default line takes precedence over a device's lines (tunefstab(4) on HP-UX). Where it
# contradicts the policy for a device, the device's line was edited anyway (no effect) and the device stayed drift
# with a warning; now the check is an error naming the line, and nothing is planned for it. Unless the policy
# names system-default itself: then its line is what changes. HP-UX sample: line 3 system-default
# max_diskq=2097152,read_ahead=2; line 4 lvol1 read_pref_io=65536,...; line 5 lvol2 read_ahead=0 (none mounted).
LVOL1 = '/dev/vg01/lvol1'
LVOL2 = '/dev/vg01/lvol2'
HPUX = ('tunefstab', 'constructed-hpux.tunefstab')
DEFAULT_WINS = ("{name} on {device}: {device} is not mounted: live value not checked; /etc/vx/tunefstab line 3 is a "
                "system-default line that sets {name} to 2 for every VxFS file system and takes precedence over the lines "
                "of {device} (tunefstab(4)): enforcing cannot make {expected} persist for {device} without changing that "
                "line for every device; name system-default with {name} in the policy, or take {name} off line 3")


@pytest.mark.parametrize('entries, statuses, message, changed_lines', [
    # the system-default line wins over the policy: error, the device's line is left alone
    ([{'device': LVOL1, 'tunables': {'read_ahead': 1}}], [(LVOL1, 'read_ahead', 'error')],
     DEFAULT_WINS.format(name='read_ahead', device=LVOL1, expected=1), {}),
    # lvol2's own line sets 0 as the policy asks, but the system-default line wins
    ([{'device': LVOL2, 'tunables': {'read_ahead': 0}}], [(LVOL2, 'read_ahead', 'error')],
     DEFAULT_WINS.format(name='read_ahead', device=LVOL2, expected=0), {}),
    # the system-default value is the policy's: compliant, and the message says which line decides
    ([{'device': LVOL1, 'tunables': {'read_ahead': 2, 'max_diskq': '2m'}}],
     [(LVOL1, 'max_diskq', 'compliant'), (LVOL1, 'read_ahead', 'compliant')],
     'read_ahead on /dev/vg01/lvol1: /dev/vg01/lvol1 is not mounted: live value not checked; /etc/vx/tunefstab line 3, '
     'a system-default line, sets 2', {}),
    # a tunable no system-default line sets: the device's line is edited, as before
    ([{'device': LVOL1, 'tunables': {'read_pref_io': '128k'}}], [(LVOL1, 'read_pref_io', 'drift')], None,
     {4: '/dev/vg01/lvol1 read_pref_io=131072,read_nstream=4,max_buf_data_size=64K,qio_cache_enable=1'}),
    # the policy names system-default: its line is what changes, for every device, and lvol1 follows it
    ([{'device': 'system-default', 'tunables': {'read_ahead': 1}}, {'device': LVOL1, 'tunables': {'read_ahead': 1}}],
     [('system-default', 'read_ahead', 'drift'), (LVOL1, 'read_ahead', 'drift')],
     'read_ahead on /dev/vg01/lvol1: /dev/vg01/lvol1 is not mounted: live value not checked; /etc/vx/tunefstab line 3, a '
     'system-default line, sets 2; the policy\'s system-default entry writes read_ahead=1 on a system-default line, which '
     'decides for every device', {3: 'system-default max_diskq=2097152,read_ahead=1'}),
    # ... and a device value it contradicts could never be in effect (validate_entries refuses it too)
    ([{'device': 'system-default', 'tunables': {'read_ahead': 1}}, {'device': LVOL1, 'tunables': {'read_ahead': 0}}],
     [('system-default', 'read_ahead', 'drift'), (LVOL1, 'read_ahead', 'error')],
     'read_ahead on /dev/vg01/lvol1: /dev/vg01/lvol1 is not mounted: live value not checked; the policy sets read_ahead to '
     '1 for system-default, and a system-default line takes precedence over a device\'s lines (tunefstab(4)): '
     '/dev/vg01/lvol1 would get 1, never 0; give both the same value or drop one',
     {3: 'system-default max_diskq=2097152,read_ahead=1'}),
])
def test_plan_with_a_system_default_line(fixture_path, read_fixture, entries, statuses, message, changed_lines):
    normalized = [tp.validate_entry(entry)[0] for entry in entries]
    result = tp.plan_tunefstab(normalized, path=fixture_path(*HPUX), vxtunefs=None, proc_root=fixture_path('vxfs', 'proc'))
    for check in result['checks']:
        check['message'] = check['message'].replace(fixture_path(*HPUX), '/etc/vx/tunefstab')
    assert [(check['target'], check['setting'], check['status']) for check in result['checks']] == statuses
    if message:
        last = result['checks'][-1]
        assert last['message'] == message
    assert not any('would still set' in warning for warning in result['warnings'])
    text = read_fixture(*HPUX)
    if not changed_lines:
        assert result['changes'] == []
        return
    assert [change['kind'] for change in result['changes']] == ['file']
    old, new = text.splitlines(True), result['changes'][0]['after'].splitlines(True)
    assert len(old) == len(new)
    for number, (old_line, new_line) in enumerate(zip(old, new), 1):
        assert new_line == (changed_lines[number] + '\n' if number in changed_lines else old_line)


def test_plan_does_not_set_live_what_a_system_default_line_undoes(plan, tmp_path, read_fixture):
    # vol01 mounted, live read_ahead 1; a system-default line sets 2: vxtunefs -o would last until the next mount
    path = tmp_path / 'tunefstab'
    path.write_text('system-default read_ahead=2\n' + read_fixture(*SOLARIS))
    result = plan([{'device': VOL01, 'tunables': {'read_ahead': 0}}], path=str(path), apply=True)
    check = one(result, VOL01, 'read_ahead')
    assert (check['status'], check['live'], check['persistent']) == ('error', 1, 2)
    assert check['message'].startswith('read_ahead on %s is 1 live (vxtunefs -p /data), expected 0; %s line 1 is a '
                                       'system-default line that sets read_ahead to 2' % (VOL01, path))
    assert result['changes'] == []


def test_validate_entries_refuses_a_contradicted_device_value():
    entries, errors = tp.validate_entries(
        [{'device': 'system-default', 'tunables': {'read_ahead': 1, 'max_diskq': '1m'}},
         {'device': LVOL1, 'tunables': {'read_ahead': 0, 'max_diskq': 1048576, 'read_pref_io': '64k'}}],
        ['entries[0]', 'entries[1]'])
    assert errors == [
        "entries[1].tunables.read_ahead: 0 for /dev/vg01/lvol1 contradicts 1 for system-default (entries[0]): a "
        "system-default line takes precedence over a device's lines (tunefstab(4)), so /dev/vg01/lvol1 would get 1; "
        "give both the same value or drop one"]


def test_find_vxtunefs(tmp_path):
    binary = tmp_path / 'vxtunefs'
    binary.write_text('#!/bin/sh\n')
    binary.chmod(0o755)
    assert tp.find_vxtunefs(str(binary)) == (str(binary), None)
    # issue 18, D8: a named binary that cannot run is kept, so that the checks it was named for are errors
    assert tp.find_vxtunefs(str(tmp_path / 'nope')) == (
        str(tmp_path / 'nope'), 'vxtunefs %s (the vxtunefs option) is not an executable file' % (tmp_path / 'nope'))
    binary.chmod(0o644)
    assert tp.find_vxtunefs(str(binary))[1] == 'vxtunefs %s (the vxtunefs option) is not an executable file' % binary
    assert tp.find_vxtunefs(None, find_bin=lambda name, dirs: '/opt/VRTS/bin/' + name) == ('/opt/VRTS/bin/vxtunefs', None)


@pytest.mark.parametrize('vxtunefs, status, message', [
    (None, 'error', 'read_pref_io on /dev/vx/dsk/datadg/vol01: no vxtunefs on this host (searched PATH, /opt/VRTS/bin, '
                    '/sbin, /usr/sbin, /usr/lib/fs/vxfs) but /dev/vx/dsk/datadg/vol01 is mounted on /data as vxfs: its live '
                    'values cannot be read; name the binary with the vxtunefs option'),
    ('/opt/VRTS/bin/vxtunefs', 'compliant',
     'read_pref_io on /dev/vx/dsk/datadg/vol01 is 262144 live (vxtunefs -p /data); %s cannot be read'),
])
def test_unreadable_tunefstab_is_never_replaced(plan, tmp_path, vxtunefs, status, message):
    unreadable = tmp_path / 'tunefstab'
    unreadable.mkdir()          # a directory cannot be read as a file, even by root
    result = plan([{'device': VOL01, 'tunables': {'read_pref_io': 262144}}], path=str(unreadable), vxtunefs=vxtunefs)
    check = result['checks'][0]
    assert (check['status'], check['message']) == (status, message % unreadable if '%s' in message else message)
    assert result['changes'] == []


# ---------------------------------------------------------------- a tunable named twice (issue 27)

@pytest.mark.parametrize('line, expected', [
    # VxFS takes the last: both occurrences get the value, so the line says one thing
    ('%s write_pref_io=65536,write_pref_io=65536' % U08, '%s write_pref_io=1048576,write_pref_io=1048576' % U08),
    ('%s write_pref_io=65536,read_nstream=4,write_pref_io=131072' % U08,
     '%s write_pref_io=1048576,read_nstream=4,write_pref_io=1048576' % U08),
])
def test_merge_rewrites_every_occurrence_of_a_tunable(line, expected):
    after = tp.merge_tunefstab_text('# t\n%s\n' % line, U08, {'write_pref_io': 1048576})
    assert after == '# t\n%s\n' % expected
    assert tp.effective_for(parse_tunefstab(after), U08)['write_pref_io'][0] == 1048576


def test_merge_rewrites_a_tunable_on_every_line_of_the_device():
    text = '%s write_pref_io=65536\n%s read_nstream=4,write_pref_io=65536\n' % (U08, U08)
    after = tp.merge_tunefstab_text(text, U08, {'write_pref_io': 1048576})
    assert after == '%s write_pref_io=1048576\n%s read_nstream=4,write_pref_io=1048576\n' % (U08, U08)


def test_a_tunable_named_twice_is_enforced_then_compliant(plan, tmp_path):
    """The case a property test found once in 8 runs: only the first of two was rewritten, so the host
    stayed in drift and a second harden said changed=0."""
    path = tmp_path / 'tunefstab'
    path.write_text('%s write_pref_io=65536,write_pref_io=65536\n' % U08)
    plan.outputs['/u08'] = (0, sample_output(plan.read_fixture, '/u08', write_pref_io=1048576), '')
    entries = [{'device': U08, 'tunables': {'write_pref_io': '1m'}}]
    first = plan(entries, path=str(path), apply=True)
    check = one(first, U08, 'write_pref_io')
    assert check['status'] == 'not_persistent', check
    assert 'system-default' not in check['message'], check['message']
    path.write_text([c for c in first['changes'] if c['kind'] == 'file'][0]['after'])
    second = plan(entries, path=str(path), apply=True)
    assert one(second, U08, 'write_pref_io')['status'] == 'compliant'
    assert second['changes'] == []
