# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property tests of the parsers (issue 18): fstab, mountinfo, tunefstab, ``vxtunefs -p`` output, sysctl.d files.

The parsers never raise: a line they cannot read is reported in ``errors`` (a list the planners turn
into warnings) and skipped; only ``parse_mountinfo_line`` raises, ValueError, which ``parse_mountinfo``
catches.  fstab and tunefstab files are rewritten byte for byte where nothing changes, so parse then
render is the identity on any text; and files of valid entries come back unchanged through parse, a
plan that has nothing to do, and render.  Crashes found here have regression cases next to the
parser's own tests."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ansible_collections.iotune.storage.plugins.module_utils.plan import tunefstab as tp
from ansible_collections.iotune.storage.plugins.module_utils.settings.tunefstab import VXFS_TUNABLES
from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import entries, make_line, parse_fstab, render
from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options import plan_mounts_from
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import escape, parse_mountinfo, parse_mountinfo_line, unescape
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import parse_sysctl_conf
from ansible_collections.iotune.storage.plugins.module_utils.parse.tunefstab import (
    effective_tunables, parse_tunefstab, parse_vxtunefs_output, split_lines)

FUZZ_EXAMPLES = 20000 if os.environ.get('IOTUNE_FUZZ') == '1' else 0

# make test runs the same examples every time (derandomize), so a failure is one every run repeats;
# make fuzz (IOTUNE_FUZZ=1) draws many new ones.  A bug found either way gets an @example here.
PROPERTIES = settings(max_examples=FUZZ_EXAMPLES or 200, derandomize=not FUZZ_EXAMPLES, deadline=None, database=None,
                      suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- arbitrary text

# pieces that matter to these formats, mixed with any character: control characters (form feed,
# vertical tab and \x1c-\x1e end a line for str.splitlines), octal escapes, unicode digits
# (isdigit() but not int()), surrogates from bytes decoded with surrogateescape
TOKENS = ['\n', '\r\n', '\r', '\t', ' ', '  ', '#', ';', '-', '=', ',', ':', '/', '\\', '\\040', '\\011', '\\012',
          '\\134', '\\0', '\\777', '0', '1', '42', '\xb2', '\u0663', '\uff11', '\x0b', '\x0c', '\x1c', '\x85',
          '\u2028', '\xa0', '\x00', '\udcff', '"', 'k', '10m', 'rw', 'defaults', 'noatime', '/dev/sda1', '/data',
          'ext4', 'vxfs', 'shared:1', '254:0', 'read_pref_io', 'read_ahead', 'system-default', 'vm.dirty_ratio',
          'vm/dirty_ratio', 'Filesystem i/o parameters for /data']
SURROGATES = [chr(code) for code in range(0xdc80, 0xdd00)]

any_char = st.one_of(st.characters(), st.sampled_from(SURROGATES), st.characters(max_codepoint=0x1f))
any_piece = st.one_of(st.sampled_from(TOKENS), st.text(any_char, max_size=6))
long_line = st.tuples(st.sampled_from(['x', ' ', '\t', 'a=1,', '\\040', '#']), st.integers(2000, 20000)).map(
    lambda pair: pair[0] * pair[1])
bytes_text = st.binary(max_size=300).map(lambda data: data.decode('utf-8', 'surrogateescape'))
arbitrary_text = st.one_of(
    st.lists(any_piece, max_size=40).map(''.join),
    bytes_text,
    st.lists(st.one_of(any_piece, long_line), max_size=4).map(''.join),
)


def lines_of(*fields):
    """Lines whose words are drawn from ``fields`` (the format's own words, for near-valid lines)."""
    word = st.one_of(st.sampled_from(fields), any_piece)
    sep = st.sampled_from([' ', '\t', '  ', ' \t ', ''])
    line = st.lists(st.tuples(word, sep), max_size=12).map(lambda pairs: ''.join(w + s for w, s in pairs))
    return st.lists(st.tuples(line, st.sampled_from(['\n', '\r\n', ''])), max_size=8).map(
        lambda pairs: ''.join(text + end for text, end in pairs))


def assert_messages(errors):
    assert all(isinstance(message, str) and message for message in errors)


# ---------------------------------------------------------------- fstab

FSTAB_WORDS = ('/dev/sda1', 'UUID=abc', '/data', '/mnt/a\\040b', 'ext4', 'xfs', 'swap', 'defaults', 'noatime,nodev',
               'context="a,b"', '0', '1', '2', '\xb2', '\u0663', '#', '# comment', 'none')


@PROPERTIES
@given(st.one_of(arbitrary_text, lines_of(*FSTAB_WORDS)))
@example('/dev/sda1 /data ext4 defaults \xb2 0\n')       # '\xb2'.isdigit() but int('\xb2') fails
@example('/dev/sda1 /data ext4 defaults 0 \u0663\n')     # Arabic-Indic three: a decimal digit to int()
def test_fstab_parse_render_identity(text):
    errors = []
    records = parse_fstab(text, errors)
    assert render(records) == text
    assert_messages(errors)
    for record in records:
        assert record.kind in ('entry', 'comment', 'blank', 'invalid')
    for entry in entries(records):
        assert isinstance(entry['freq'], int) and isinstance(entry['passno'], int)
        assert isinstance(entry['spec'], str) and isinstance(entry['file'], str)


@PROPERTIES
@given(st.one_of(arbitrary_text, lines_of(*FSTAB_WORDS)), st.sampled_from(['/data', '/', '/mnt/a b']),
       st.lists(st.sampled_from(['noatime', 'nodev', 'nosuid', 'noexec', 'ro', 'sync']), max_size=2, unique=True))
@example('/dev/sda1 /data ext4 defaults \xb2 0\n', '/data', ['noatime'])
def test_fstab_plan_never_raises(text, path, present):
    """The mount planner reads any fstab text: malformed lines are warnings, never a crash."""
    records = parse_fstab(text, [])
    plan = plan_mounts_from([{'path': path, 'present': present, 'absent': []}], [], records)
    assert plan['fstab']['before'] == text


# a realistic fstab: specs and mount points with characters fstab escapes, tab or space separated,
# comments and blank lines between entries, and options the mount planner knows
path_part = st.text(st.sampled_from('abcxyz019_-. \t\\\xe9'), min_size=1, max_size=8)
mount_point = st.lists(path_part, min_size=1, max_size=3).map(lambda parts: '/' + '/'.join(parts))
spec = st.one_of(st.sampled_from(['/dev/sdb1', 'UUID=0a1b-2c3d', 'LABEL=data', 'tmpfs', 'srv:/export']),
                 mount_point.map(lambda point: '/dev' + point))
OPTIONS = ['noatime', 'nodev', 'nosuid', 'noexec', 'nofail', 'commit=60', 'logbsize=256k']
fstab_entry = st.tuples(spec, mount_point, st.sampled_from(['ext4', 'xfs', 'vxfs']),
                        st.lists(st.sampled_from(OPTIONS), min_size=1, max_size=4, unique=True),
                        st.integers(0, 1), st.integers(0, 2), st.sampled_from(['\t', ' ', '   ']))
filler = st.sampled_from(['', '# /etc/fstab: static file system information.\n', '\n', '  \n', '#\tindented\n'])


def _fstab_text(items, crlf):
    text = ''.join(pad + make_line(*entry).raw for pad, entry in items)
    return text.replace('\n', '\r\n') if crlf else text


@PROPERTIES
@given(st.lists(st.tuples(filler, fstab_entry), min_size=1, max_size=6, unique_by=lambda item: item[1][1].rstrip('/')),
       st.booleans(), st.data())
def test_fstab_valid_entries_round_trip_through_a_no_op_plan(items, crlf, data):
    text = _fstab_text([(pad, (s, m, t, o, f, p, sep)) for pad, (s, m, t, o, f, p, sep) in items], crlf)
    errors = []
    records = parse_fstab(text, errors)
    assert errors == []
    assert [(e['spec'], e['file'], e['vfstype'], e['options'], e['freq'], e['passno']) for e in entries(records)] == \
        [(s, m, t, o, f, p) for dummy, (s, m, t, o, f, p, sep) in items]
    # ask for options the entries already have: nothing to change, the text comes back byte for byte
    requests = []
    for dummy, (s, point, t, options, f, p, sep) in items:
        present = data.draw(st.lists(st.sampled_from(options), unique=True), label='present')
        requests.append({'path': point, 'present': present, 'absent': []})
    plan = plan_mounts_from(requests, [], records)
    assert plan['changes'] == []
    assert plan['fstab']['changed'] is False and plan['fstab']['after'] == text
    assert render(records) == text


# ---------------------------------------------------------------- mountinfo

MOUNTINFO_WORDS = ('27', '1', '254:0', '/', '/data', '/a\\040b', 'rw,relatime', 'shared:1', 'master:2', '-', 'ext4',
                   'vxfs', '/dev/vda', 'rw', '\xb2:0', '1:\xb2', '\u0663')


@PROPERTIES
@given(st.one_of(arbitrary_text, lines_of(*MOUNTINFO_WORDS)))
@example('27 1 \xb2:0 / / rw - ext4 /dev/vda rw\n')
@example('\u0663 1 254:0 / /\\040a rw - ext4 /dev/vda rw\n')
def test_mountinfo_never_raises(text):
    errors = []
    found = parse_mountinfo(text, errors)
    assert_messages(errors)
    for entry in found:
        assert isinstance(entry['mount_id'], int) and isinstance(entry['major'], int)
        assert isinstance(entry['mount_point'], str) and entry['fstype']


@PROPERTIES
@given(st.one_of(arbitrary_text, lines_of(*MOUNTINFO_WORDS)).map(lambda text: text.replace('\n', ' ')))
def test_mountinfo_line_raises_only_value_error(line):
    try:
        parse_mountinfo_line(line)
    except ValueError:
        pass


@PROPERTIES
@given(st.text(any_char))
def test_escape_round_trip(text):
    escaped = escape(text)
    assert unescape(escaped) == text
    assert not any(char in escaped for char in ' \t\n')


# the kernel escapes only space, tab, newline and backslash: any other character is in the name as it is
odd_mount_point = st.lists(st.text(st.sampled_from('ab1 \t\\\xa0\x0b\x0c\x1c\x1e\x85\u2028\u3000'), min_size=1, max_size=6),
                           min_size=1, max_size=3).map(lambda parts: '/' + '/'.join(parts))
mountinfo_entry = st.tuples(
    st.integers(1, 10 ** 6), st.integers(0, 10 ** 6), st.integers(0, 4095), st.integers(0, 2 ** 20),
    mount_point, st.one_of(mount_point, odd_mount_point),
    st.lists(st.sampled_from(['rw', 'ro', 'noatime', 'nodev', 'relatime']), min_size=1, max_size=3, unique=True),
    st.lists(st.sampled_from(['shared:1', 'master:2', 'propagate_from:3', 'unbindable']), max_size=2),
    st.sampled_from(['ext4', 'xfs', 'vxfs', 'tmpfs', 'fuse.sshfs']), spec,
    # the kernel always writes the super block's options (libmount refuses a line without them)
    st.lists(st.sampled_from(['rw', 'discard', 'delaylog', 'size=10m', 'errors=remount-ro']), min_size=1, max_size=3, unique=True))


@PROPERTIES
@given(st.lists(mountinfo_entry, min_size=1, max_size=6))
def test_mountinfo_valid_lines_round_trip(items):
    text = ''.join('%d %d %d:%d %s %s %s %s - %s %s %s\n' % (
        mid, parent, major, minor, escape(root), escape(point), ','.join(opts), ' '.join(optional) + ' ' * bool(optional),
        fstype, escape(source), ','.join(sup)) for mid, parent, major, minor, root, point, opts, optional, fstype, source, sup
        in items).replace('  - ', ' - ')
    errors = []
    found = parse_mountinfo(text, errors)
    assert errors == []
    assert [(e['mount_id'], e['parent_id'], e['major'], e['minor'], e['root'], e['mount_point'], e['mount_options'],
             e['optional_fields'], e['fstype'], e['source'], e['super_options']) for e in found] == \
        list(items)


# ---------------------------------------------------------------- tunefstab

DEVICE = '/dev/vx/dsk/datadg/vol01'
TUNEFSTAB_WORDS = (DEVICE, '/dev/vx/dsk/datadg/u08', 'system-default', 'read_pref_io=65536', 'read_ahead=2',
                   'read_pref_io=64k', 'read_ahead', 'read_ahead=', '=1', ',', ',,', '# comment', '#' + DEVICE)


@PROPERTIES
@given(st.one_of(arbitrary_text, lines_of(*TUNEFSTAB_WORDS)))
def test_tunefstab_never_raises_and_renders_identically(text):
    errors = []
    found = parse_tunefstab(text, errors)
    assert_messages(errors)
    for entry in found:
        assert entry['tunables'] and entry['device'] and not entry['device'].startswith('#')
    effective_tunables(found)
    # the file is only re-rendered through merge_tunefstab_text; with nothing to set it is the identity
    assert tp.merge_tunefstab_text(text, DEVICE, {}) == text


@PROPERTIES
@given(st.one_of(arbitrary_text, lines_of(*TUNEFSTAB_WORDS)), st.sampled_from([DEVICE, 'system-default']),
       st.dictionaries(st.sampled_from(tp.TUNABLE_NAMES), st.integers(0, 2 ** 40), min_size=1, max_size=3))
@example('\x0b', DEVICE, {'read_pref_io': 0})     # a vertical tab ended a line for str.splitlines()
@example('# a\x0c' + DEVICE + ' read_ahead=1\n', DEVICE, {'read_ahead': 2})
@example('\r\n\r', DEVICE, {'read_pref_io': 0})       # the unterminated last line gets the file's CRLF
# a line naming a tunable twice: only the first was rewritten, and VxFS takes the last (issue 27)
@example(DEVICE + ' write_pref_io=65536,write_pref_io=65536\n', DEVICE, {'write_pref_io': 1048576})
def test_tunefstab_merge_sets_what_it_is_asked(text, device, tunables):
    """Whatever the file holds, after the merge the device's lines set the new values, and the
    lines of other devices and comments are untouched."""
    after = tp.merge_tunefstab_text(text, device, tunables)
    own = dict((name, value) for name, (value, line) in tp.effective_for(
        [e for e in parse_tunefstab(after) if e['device'] == device], device).items())
    for name, value in tunables.items():
        assert own[name] == value
    untouched = [line.rstrip('\r\n') for line in split_lines(text) if not line.strip() or line.split()[0] != device]
    kept = [line.rstrip('\r\n') for line in split_lines(after) if not line.strip() or line.split()[0] != device]
    assert kept == untouched


SIZE_TEXT = st.one_of(st.integers(1, 2 ** 34).map(str), st.integers(1, 1024).map(lambda n: '%dk' % n),
                      st.integers(1, 64).map(lambda n: '%dm' % n))


def tunable_item(name):
    """Text of a valid value of the tunable ``name``, drawn from its entry in the VxFS tunables table."""
    entry = VXFS_TUNABLES[name]
    if entry['kind'] == 'choice':
        values = st.sampled_from([str(value) for value in entry['choices']])
    elif entry['kind'] == 'count':
        values = st.integers(entry['minimum'], entry['minimum'] + 10 ** 6).map(str)
    else:
        values = SIZE_TEXT
    return values.map(lambda value: '%s=%s' % (name, value))


tunefstab_line = st.tuples(
    st.sampled_from([DEVICE, '/dev/vx/dsk/datadg/u08', '/dev/vx/dsk/datadg/vol02', '/dev/vg01/lvol1']),
    st.lists(st.sampled_from(tp.TUNABLE_NAMES), min_size=1, max_size=4, unique=True).flatmap(
        lambda names: st.tuples(*[tunable_item(name) for name in names])),
    st.sampled_from([' ', '\t', '   ']), st.sampled_from([',', ', ']), st.sampled_from(['', ' ', '\t']))
tunefstab_filler = st.sampled_from(['', '# tunefstab\n', '\n', '   \n', '\t# indented comment\n'])


@PROPERTIES
@given(st.lists(st.tuples(tunefstab_filler, tunefstab_line), min_size=1, max_size=6), st.booleans(),
       st.booleans(), st.data())
def test_tunefstab_valid_entries_round_trip_through_a_no_op_plan(tmp_path_factory, items, crlf, final_newline, data):
    text = ''.join('%s%s%s%s%s\n' % (pad, device, sep, comma.join(values), trail)
                   for pad, (device, values, sep, comma, trail) in items)
    if crlf:
        text = text.replace('\n', '\r\n')
    if not final_newline:
        text = text.rstrip('\r\n')
    errors = []
    parsed = parse_tunefstab(text, errors)
    assert errors == []
    assert [entry['device'] for entry in parsed] == [item[1][0] for item in items]
    # a policy asking for values the file already sets (in effect: the last line wins)
    effective = effective_tunables(parsed)
    policy = []
    for device, tunables in sorted(effective.items()):
        names = data.draw(st.lists(st.sampled_from(sorted(tunables)), min_size=1, unique=True), label=device)
        entry, problems = tp.validate_entry({'device': device, 'tunables': dict((n, str(tunables[n])) for n in names)})
        assert problems == []
        policy.append(entry)
    path = tmp_path_factory.mktemp('tunefstab') / 'tunefstab'
    with open(str(path), 'w', newline='') as handle:
        handle.write(text)
    plan = tp.plan_tunefstab(policy, path=str(path), vxtunefs=None, apply=True, mount_entries=[])
    assert plan['changes'] == []
    assert set(check['status'] for check in plan['checks']) == {'compliant'}
    # the render function with the values already in effect gives the text back
    for entry in policy:
        unchanged = tp.merge_tunefstab_text(text, entry['device'], {})
        assert unchanged == text


# ---------------------------------------------------------------- vxtunefs -p output

VXTUNEFS_WORDS = ('Filesystem i/o parameters for /data', 'read_pref_io', '=', ' = ', '65536', '64k', 'read ahead',
                  'UX:vxfs vxtunefs: ERROR:', '\xb2', '-1')


@PROPERTIES
@given(st.one_of(arbitrary_text, lines_of(*VXTUNEFS_WORDS)))
def test_vxtunefs_output_never_raises(text):
    values = parse_vxtunefs_output(text)
    for name, value in values.items():
        assert name and ' ' not in name and '=' not in name
        assert isinstance(value, (int, str))


@PROPERTIES
@given(st.dictionaries(st.from_regex(r'[a-z][a-z_]{0,24}', fullmatch=True), st.integers(0, 2 ** 63), min_size=1),
       st.sampled_from(['/data', '/u08', '/mnt/a b']), st.sampled_from([' = ', '=', ' =  ']))
def test_vxtunefs_output_round_trip(values, point, sep):
    text = 'Filesystem i/o parameters for %s\n' % point + ''.join('%s%s%d\n' % (n, sep, v) for n, v in values.items())
    assert parse_vxtunefs_output(text) == values


# ---------------------------------------------------------------- sysctl.d

SYSCTL_WORDS = ('vm.dirty_ratio', 'vm/dirty_ratio', '-vm.swappiness', '=', ' = ', '40', '# c', '; c', 'net.ipv4.conf.*.rp_filter',
                'kernel.domainname = example.com')


@PROPERTIES
@given(st.one_of(arbitrary_text, lines_of(*SYSCTL_WORDS)))
def test_sysctl_never_raises(text):
    for assignment in parse_sysctl_conf(text):
        assert assignment['key'] and assignment['line'] >= 1
        assert isinstance(assignment['value'], (int, str))


sysctl_key = st.lists(st.from_regex(r'[a-z][a-z0-9_]{0,12}', fullmatch=True), min_size=2, max_size=4).map('.'.join)


@PROPERTIES
@given(st.lists(st.tuples(st.sampled_from(['', '# comment\n', '; comment\n', '\n']), sysctl_key,
                          st.one_of(st.integers(-2 ** 40, 2 ** 40), st.from_regex(r'[a-z][a-z0-9.]{0,10}', fullmatch=True)),
                          st.sampled_from(['=', ' = ', ' =\t']), st.booleans(), st.booleans()), max_size=8))
def test_sysctl_valid_lines_round_trip(items):
    text = ''
    expected = []
    for pad, key, value, sep, dash, slashes in items:
        text += pad
        written = key.replace('.', '/') if slashes else key
        text += '%s%s%s%s\n' % ('-' if dash else '', written, sep, value)
        expected.append((key, value, text.count('\n'), dash))
    assert [(a['key'], a['value'], a['line'], a['ignore_errors']) for a in parse_sysctl_conf(text)] == expected
