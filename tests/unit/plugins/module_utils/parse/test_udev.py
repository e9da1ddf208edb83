# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse import udev as _udev

DIRS = ('etc/udev/rules.d', 'run/udev/rules.d', 'usr/local/lib/udev/rules.d', 'usr/lib/udev/rules.d', 'lib/udev/rules.d')


@pytest.fixture(name='udev_root')
def udev_root_fixture(build_tree, tmp_path):
    """The constructed udev configuration (etc/, run/, lib/ rules, /dev/null mask, database)."""
    return build_tree(tmp_path / 'root', 'udev/constructed-tree.json')


def rule_dirs(root):
    return [os.path.join(root, d) for d in DIRS]


def short(text, root):
    return text.replace(root, '') if text else text


def evaluate_text(sys_root, name, text, tmp_path, db_dir=None, extra=None):
    """Evaluate rule text (and extra {file name: text}) for /sys/block/<name>."""
    rules_dir = tmp_path / 'rules.d'
    rules_dir.mkdir(exist_ok=True)
    (rules_dir / '50-test.rules').write_text(text)
    for file_name, file_text in (extra or {}).items():
        (rules_dir / file_name).write_text(file_text)
    rules = _udev.read_rules(_udev.list_rule_files([str(rules_dir)]))
    device = _udev.device_properties(sys_root, name, db_dir or str(tmp_path / 'no-db'))
    return _udev.evaluate(rules, device)


# ---------------------------------------------------------------- parsing

def test_logical_lines_join_continuations_and_skip_comments():
    text = (
        '# comment\n'
        '\n'
        'ACTION=="add", \\\n'
        '  KERNEL=="sd*", \\\n'
        '# a comment inside a continuation is dropped\n'
        '  ATTR{queue/read_ahead_kb}="4096"\n'
        '   KERNEL=="vd*", GOTO="x"   \n'
        'LABEL="x"\n'
    )
    assert _udev.logical_lines(text) == [
        (3, 'ACTION=="add", KERNEL=="sd*", ATTR{queue/read_ahead_kb}="4096"'),
        (7, 'KERNEL=="vd*", GOTO="x"'),
        (8, 'LABEL="x"'),
    ]


@pytest.mark.parametrize('line, tokens', [
    ('ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="sd[a-z]", ATTR{queue/scheduler}="bfq"',
     [('ACTION', None, '==', 'add|change'), ('SUBSYSTEM', None, '==', 'block'), ('KERNEL', None, '==', 'sd[a-z]'),
      ('ATTR', 'queue/scheduler', '=', 'bfq')]),
    ('KERNEL!="loop*" SYMLINK+="disk/x" OPTIONS:="nowatch"',
     [('KERNEL', None, '!=', 'loop*'), ('SYMLINK', None, '+=', 'disk/x'), ('OPTIONS', None, ':=', 'nowatch')]),
    ('ENV{X} == "a,b", RUN+="/bin/sh -c \\"echo 1 > /sys/x\\""',
     [('ENV', 'X', '==', 'a,b'), ('RUN', None, '+=', '/bin/sh -c "echo 1 > /sys/x"')]),
    ('IMPORT{builtin}="hwdb \'ieee1394:node:ven$attr{vendor}\'", ENV{A}-="b"',
     [('IMPORT', 'builtin', '=', "hwdb 'ieee1394:node:ven$attr{vendor}'"), ('ENV', 'A', '-=', 'b')]),
    ('SYMLINK+=e"disk/by-label/a\\x20b"', [('SYMLINK', None, '+=', 'disk/by-label/a\\x20b')]),
])
def test_parse_rule_line(line, tokens):
    assert _udev.parse_rule_line(line) == tokens


@pytest.mark.parametrize('line', [
    'KERNEL=="sda", ATTR{queue/nr_requests}="64',     # unterminated value
    'KERNEL "sda"',                                     # no operator
    'KERNEL==sda',                                      # value not quoted
])
def test_parse_rule_line_rejects_what_udev_ignores(line):
    with pytest.raises(ValueError):
        _udev.parse_rule_line(line)


def test_parse_rules_marks_invalid_lines():
    rules = _udev.parse_rules('KERNEL=="sda", GROUP="disk"\nKERNEL=="sdb" ATTR{queue/nr_requests}="64\n', 'x.rules')
    assert [r['line'] for r in rules] == [1, 2]
    assert rules[0]['invalid'] is None
    assert 'unterminated' in rules[1]['invalid']


def test_a_nul_byte_ends_the_line_as_in_udev():
    # a rule iotune once wrote with an LIO LUN's NUL-padded T10 designator: udev 252 said
    # "60-iotune.rules:1 Invalid key/value pair, ignoring." and the same for line 2
    text = ('ENV{DEVTYPE}=="disk", ATTRS{wwid}=="naa.6001405|t10.LIO-ORG lun0:abcd\0", ATTR{queue/max_sectors_kb}="256"\n'
            'ATTR{dm/uuid}=="LVM-x", ATTR{queue/read_ahead_kb}="2048"\n')
    rules = _udev.parse_rules(text, 'x.rules')
    assert [(r['line'], bool(r['invalid'])) for r in rules] == [(1, True), (2, True), (3, False)]


@pytest.mark.parametrize('pattern, value, expected', [
    ('sd*', 'sda', True),
    ('sd*[!0-9]', 'sda', True),
    ('sd*[!0-9]', 'sda1', False),
    ('vd*[!0-9]', 'vdb', True),
    ('loop*|nvme*|sd*', 'nvme0n1', True),
    ('loop*|nvme*', 'vda', False),
    ('?*', '', False),
    ('?*', 'x', True),
    ('', '', True),
    ('dm-[0-9]*', 'dm-12', True),
    ('[6-9]*', '7', True),
    ('add|change', 'add', True),
])
def test_glob_match(pattern, value, expected):
    assert _udev.glob_match(pattern, value) is expected


# ---------------------------------------------------------------- files, database, device

def test_rule_files_order_and_masking(udev_root):
    files = _udev.list_rule_files(rule_dirs(udev_root) + [os.path.join(udev_root, 'missing')])
    assert [(f['name'], short(f['path'], udev_root), f['masked']) for f in files] == [
        ('50-udev-default.rules', '/lib/udev/rules.d/50-udev-default.rules', False),
        ('55-dm.rules', '/lib/udev/rules.d/55-dm.rules', False),
        # /etc/udev/rules.d/60-block-scheduler.rules -> /dev/null masks the distribution file
        ('60-block-scheduler.rules', '/etc/udev/rules.d/60-block-scheduler.rules', True),
        ('60-iotune.rules', '/etc/udev/rules.d/60-iotune.rules', False),
        ('60-persistent-storage.rules', '/lib/udev/rules.d/60-persistent-storage.rules', False),
        ('61-wwn-max-sectors.rules', '/etc/udev/rules.d/61-wwn-max-sectors.rules', False),
        ('65-dm-readahead.rules', '/etc/udev/rules.d/65-dm-readahead.rules', False),
        # the same name in /run wins over /lib
        ('69-vendor.rules', '/run/udev/rules.d/69-vendor.rules', False),
        ('70-readahead.rules', '/etc/udev/rules.d/70-readahead.rules', False),
        ('99-local.rules', '/etc/udev/rules.d/99-local.rules', False),
    ]


def test_read_rules_skips_masked_files_and_honours_override(udev_root):
    files = _udev.list_rule_files(rule_dirs(udev_root))
    rules = _udev.read_rules(files)
    assert not [r for r in rules if r['file'].endswith('60-block-scheduler.rules')]
    assert not [r for r in rules if r['invalid']]
    iotune = os.path.join(udev_root, 'etc/udev/rules.d/60-iotune.rules')
    rules = _udev.read_rules(files, override={iotune: 'KERNEL=="vda", ATTR{queue/nr_requests}="64"\n'})
    assert [r['text'] for r in rules if r['file'] == iotune] == ['KERNEL=="vda", ATTR{queue/nr_requests}="64"']


def test_parse_db(udev_root):
    record = _udev.read_db(os.path.join(udev_root, 'run/udev/data'), '8:0')
    assert record['env']['ID_WWN'] == '0x5000c500a1b2c3d4'
    assert record['env']['ID_SERIAL_SHORT'] == 'ZC1ABCDE'
    assert 'disk/by-id/wwn-0x5000c500a1b2c3d4' in record['links']
    assert record['tags'] == ['systemd']
    assert _udev.read_db(os.path.join(udev_root, 'run/udev/data'), '259:5') is None


def test_device_properties(sysfs_full, udev_root):
    vda = _udev.device_properties(sysfs_full, 'vda', os.path.join(udev_root, 'run/udev/data'))
    assert vda['devpath'] == '/devices/pci0000:00/0000:00:02.0/virtio1/block/vda'
    assert vda['uevent']['DEVTYPE'] == 'disk' and vda['uevent']['DISKSEQ'] == '9'
    assert vda['db']['env']['ID_SERIAL'] == 'overlayblk'
    # sda has no uevent file in the capture: DEVTYPE and numbers come from /sys/block and dev
    sda = _udev.device_properties(sysfs_full, 'sda', '/nonexistent')
    assert (sda['devtype'], sda['uevent']['MAJOR'], sda['uevent']['MINOR'], sda['db']) == ('disk', '8', '0', None)
    assert _udev.device_properties(sysfs_full, 'nope') is None


# ---------------------------------------------------------------- evaluation of the constructed tree

RA, MS, NR, SCHED = 'read_ahead_kb', 'max_sectors_kb', 'nr_requests', 'scheduler'


@pytest.mark.parametrize('name, setting, with_db, value, source, unknown', [
    # the managed file sets vda's scheduler
    ('vda', SCHED, True, 'mq-deadline', '/etc/udev/rules.d/60-iotune.rules:3', None),
    # the tuned-like 70-readahead.rules sorts later and overrides the managed 8192
    ('vda', RA, True, '4096', '/etc/udev/rules.d/70-readahead.rules:4', None),
    ('vda', NR, True, None, None, None),
    # ID_WWN comes from scsi_id (IMPORT{program}): known only from the udev database
    ('sda', MS, True, '1024', '/etc/udev/rules.d/61-wwn-max-sectors.rules:3', None),
    ('sda', MS, False, None, None, 'ENV{ID_WWN} may be set by IMPORT{program} at'),
    # the distribution scheduler rule for sd* is masked by /dev/null
    ('sda', SCHED, True, None, None, None),
    # /run/udev/rules.d/69-vendor.rules masks the /lib file of the same name
    ('nvme0n1', NR, False, '512', '/run/udev/rules.d/69-vendor.rules:2', None),
    # DM_NAME is computed from sysfs ($attr{dm/name}) by 55-dm.rules: known without a database
    ('dm-0', RA, False, '4096', '/etc/udev/rules.d/65-dm-readahead.rules:2', None),
    ('dm-1', RA, False, '4096', '/etc/udev/rules.d/70-readahead.rules:4', None),
    ('loop1', NR, False, '128', '/etc/udev/rules.d/60-iotune.rules:4', None),
    ('loop1', RA, False, None, None, '/etc/udev/rules.d/99-local.rules:3 may set it (PROGRAM cannot be evaluated)'),
    ('loop2', RA, False, None, None, "/etc/udev/rules.d/99-local.rules:4 runs '/sbin/blockdev --setra 2048 /dev/%k'"),
    ('loop0', SCHED, False, None, None, '/etc/udev/rules.d/99-local.rules:5 may set it (unknown key FROBNICATE)'),
    ('loop0', RA, False, None, None, None),
    ('zram0', RA, True, None, None, None),
])
def test_constructed_tree(sysfs_full, udev_root, name, setting, with_db, value, source, unknown):
    db_dir = os.path.join(udev_root, 'run/udev/data' if with_db else 'no-db')
    rules = _udev.read_rules(_udev.list_rule_files(rule_dirs(udev_root)))
    result = _udev.evaluate(rules, _udev.device_properties(sysfs_full, name, db_dir))[setting]
    assert short(result['source'], udev_root) == source
    if unknown:
        assert len(result['unknown']) == 1 and unknown in short(result['unknown'][0], udev_root)
    else:
        assert result['unknown'] == []
        assert result['value'] == value


# ---------------------------------------------------------------- evaluation corner cases

@pytest.mark.parametrize('name, text, setting, value', [
    # last assignment wins
    ('vda', 'KERNEL=="vda", ATTR{queue/read_ahead_kb}="1024"\nKERNEL=="vd*", ATTR{queue/read_ahead_kb}="2048"\n',
     RA, '2048'),
    # bdi/read_ahead_kb is the same setting
    ('vda', 'KERNEL=="vda", ATTR{queue/read_ahead_kb}="1024"\nKERNEL=="vda", ATTR{bdi/read_ahead_kb}="512"\n',
     RA, '512'),
    # boot sends "add": a change-only rule does not apply
    ('vda', 'ACTION=="change", KERNEL=="vda", ATTR{queue/nr_requests}="64"\n', NR, None),
    ('vda', 'ACTION!="remove", SUBSYSTEM=="block", KERNEL!="loop*|sd*", ATTR{queue/nr_requests}="64"\n', NR, '64'),
    # partitions have no queue: the disk is evaluated as a disk
    ('vda', 'ENV{DEVTYPE}=="partition", ATTR{queue/nr_requests}="64"\n', NR, None),
    # a missing attribute never matches, not even with !=
    ('vda', 'ATTR{no_such_attribute}!="x", ATTR{queue/nr_requests}="64"\n', NR, None),
    ('vda', 'ATTR{queue/rotational}=="1", ATTR{queue/scheduler}="bfq"\n', SCHED, 'bfq'),
    # trailing blanks of an attribute are ignored unless the pattern has some
    ('nvme0n1', 'ATTRS{model}=="Samsung SSD 980 PRO 1TB", ATTR{queue/nr_requests}="256"\n', NR, '256'),
    ('nvme0n1', 'ATTRS{model}=="Samsung SSD 980 PRO 1TB ", ATTR{queue/nr_requests}="256"\n', NR, None),
    # ATTRS and KERNELS look at the device and its parents
    ('sda', 'ATTRS{wwid}=="naa.5000c500a1b2c3d4", ATTR{queue/max_sectors_kb}="512"\n', MS, '512'),
    ('sda', 'KERNELS=="0:0:0:0", ATTR{queue/max_sectors_kb}="512"\n', MS, '512'),
    ('sda', 'ATTRS{vendor}=="ATA", ATTR{queue/max_sectors_kb}="512"\n', MS, '512'),
    # all parent keys of a rule must match on the same parent: ata1 has no vendor
    ('sda', 'KERNELS=="ata1", ATTRS{vendor}=="ATA", ATTR{queue/max_sectors_kb}="512"\n', MS, None),
    # substitutions that can be evaluated
    ('vda', 'KERNEL=="vda", ATTR{queue/read_ahead_kb}="$attr{queue/max_sectors_kb}"\n', RA, '4096'),
    ('vda', 'KERNEL=="vda", ENV{RA}="2048"\nENV{RA}=="?*", ATTR{queue/read_ahead_kb}="%E{RA}"\n', RA, '2048'),
    # GOTO certainly taken skips to the LABEL; a GOTO without its LABEL is ignored
    ('vda', 'KERNEL=="vd*", GOTO="end"\nATTR{queue/nr_requests}="64"\nLABEL="end"\n', NR, None),
    ('vda', 'KERNEL=="sd*", GOTO="end"\nATTR{queue/nr_requests}="64"\nLABEL="end"\n', NR, '64'),
    ('vda', 'KERNEL=="vd*", GOTO="nowhere"\nATTR{queue/nr_requests}="64"\n', NR, '64'),
    ('vda', 'KERNEL=="vd*", GOTO="end"\nLABEL="end"\nATTR{queue/nr_requests}="64"\n', NR, '64'),
    # OPTIONS="last_rule" stops the processing
    ('vda', 'KERNEL=="vda", OPTIONS+="last_rule"\nATTR{queue/nr_requests}="64"\n', NR, None),
    # TEST relative to the device directory
    ('vda', 'TEST=="queue/scheduler", ATTR{queue/scheduler}="none"\n', SCHED, 'none'),
    ('vda', 'TEST!="queue/scheduler", ATTR{queue/scheduler}="none"\n', SCHED, None),
    # an IMPORT{builtin} only sets its own family of properties
    ('vda', 'IMPORT{builtin}="path_id"\nENV{DM_NAME}=="x", ATTR{queue/nr_requests}="64"\n', NR, None),
])
def test_corner_cases(sysfs_full, tmp_path, name, text, setting, value):
    result = evaluate_text(sysfs_full, name, text, tmp_path)[setting]
    assert result['unknown'] == []
    assert result['value'] == value


@pytest.mark.parametrize('text, reason', [
    ('PROGRAM=="/bin/true", KERNEL=="vda", ATTR{queue/nr_requests}="64"\n', '50-test.rules:1 may set it (PROGRAM cannot be evaluated)'),
    ('KERNEL=="vda", IMPORT{program}="/bin/x", ATTR{queue/nr_requests}="64"\n', 'IMPORT{program} cannot be evaluated'),
    ('FOO=="1", ATTR{queue/nr_requests}="64"\n', 'unknown key FOO'),
    ('KERNEL=="vda", ATTR{queue/nr_requests}="$result"\n', 'substitution $result cannot be evaluated'),
    ('KERNEL=="vda", ATTR{queue/nr_requests}="64\n', '50-test.rules:1 cannot be parsed (unterminated quoted value)'),
    # a GOTO that may be taken makes what it may skip unknown
    ('PROGRAM=="/bin/x", GOTO="end"\nKERNEL=="vda", ATTR{queue/nr_requests}="64"\nLABEL="end"\n',
     'it may be skipped by GOTO="end" at'),
    ('PROGRAM=="/bin/x", OPTIONS+="last_rule"\nKERNEL=="vda", ATTR{queue/nr_requests}="64"\n',
     'it may be skipped by OPTIONS="last_rule" at'),
    # a property that only a program sets, with no udev database to read it from
    ('IMPORT{program}="/bin/x"\nENV{X}=="1", ATTR{queue/nr_requests}="64"\n', 'ENV{X} may be set by IMPORT{program} at'),
    ('PROGRAM=="/bin/x", ENV{X}="1"\nENV{X}=="1", ATTR{queue/nr_requests}="64"\n', 'ENV{X} may be set by'),
    # absolute TEST paths outside /sys are not looked at
    ('TEST=="/etc/iotune-fast", ATTR{queue/nr_requests}="64"\n', 'TEST=="/etc/iotune-fast" cannot be evaluated'),
    # RUN may write the setting after all rules: even a later certain ATTR does not settle it
    ('KERNEL=="vda", RUN+="/bin/sh -c \'echo 64 > /sys/block/%k/queue/nr_requests\'"\n'
     'KERNEL=="vda", ATTR{queue/nr_requests}="128"\n', 'which may set it after the rules'),
])
def test_unknown_cases(sysfs_full, tmp_path, text, reason):
    result = evaluate_text(sysfs_full, 'vda', text, tmp_path)[NR]
    assert len(result['unknown']) == 1, result
    assert reason in result['unknown'][0]


def test_certain_rule_after_unknown_one_settles_the_value(sysfs_full, tmp_path):
    text = ('PROGRAM=="/bin/x", ATTR{queue/nr_requests}="64"\n'
            'KERNEL=="vda", ATTR{queue/nr_requests}="128"\n')
    result = evaluate_text(sysfs_full, 'vda', text, tmp_path)[NR]
    assert (result['value'], result['unknown']) == ('128', [])


def test_goto_is_local_to_its_file(sysfs_full, tmp_path):
    result = evaluate_text(sysfs_full, 'vda', 'KERNEL=="vda", GOTO="end"\nLABEL="end"\n', tmp_path,
                           extra={'60-next.rules': 'ATTR{queue/nr_requests}="64"\nLABEL="end"\n'})[NR]
    assert result['value'] == '64'


def test_import_with_database_uses_its_properties(sysfs_full, tmp_path):
    db = tmp_path / 'db'
    db.mkdir()
    (db / 'b254:0').write_text('E:ID_MODEL=FAST\n')
    text = 'IMPORT{program}="/bin/x"\nENV{ID_MODEL}=="FAST", ATTR{queue/nr_requests}="64"\n' \
           'ENV{ID_OTHER}=="?*", ATTR{queue/read_ahead_kb}="1"\n'
    result = evaluate_text(sysfs_full, 'vda', text, tmp_path, db_dir=str(db))
    assert (result[NR]['value'], result[NR]['unknown']) == ('64', [])
    # a property the database does not hold was never set
    assert (result[RA]['value'], result[RA]['unknown']) == (None, [])


def test_real_host_rules_parse(tmp_path):
    """Whatever udev rules this machine has parse without an exception."""
    files = _udev.list_rule_files()
    rules = _udev.read_rules(files)
    assert isinstance(rules, list)


def test_rq_affinity_is_read_from_the_rules_like_the_other_settings(sysfs_full, tmp_path):
    result = evaluate_text(sysfs_full, 'vda', 'KERNEL=="vda", ATTR{queue/rq_affinity}="2"\n', tmp_path)['rq_affinity']
    assert (result['value'], result['unknown']) == ('2', [])
    text = 'KERNEL=="vda", RUN+="/bin/sh -c \'echo 2 > /sys/block/%k/queue/rq_affinity\'"\n'
    result = evaluate_text(sysfs_full, 'vda', text, tmp_path)['rq_affinity']
    assert len(result['unknown']) == 1 and 'which may set it after the rules' in result['unknown'][0]


def test_a_text_is_parsed_once_and_each_call_gets_rules_of_its_own(monkeypatch):
    text = 'KERNEL=="sd*", ATTR{queue/read_ahead_kb}="4096"\nbad line\n'
    parsed = []
    real = _udev._parse_rules

    def counting(text, filename):
        parsed.append(filename)
        return real(text, filename)
    monkeypatch.setattr(_udev, '_PARSED', {})
    monkeypatch.setattr(_udev, '_parse_rules', counting)
    first = _udev.parse_rules(text, '/etc/udev/rules.d/a.rules')
    first[0]['tokens'].append(('X', None, '=', 'y'))
    first[1]['invalid'] = 'changed by a caller'
    second = _udev.parse_rules(text, '/etc/udev/rules.d/a.rules')
    assert parsed == ['/etc/udev/rules.d/a.rules']
    assert second == real(text, '/etc/udev/rules.d/a.rules') != first
    # another file, or another text of the file, is parsed on its own
    _udev.parse_rules(text, '/etc/udev/rules.d/b.rules')
    _udev.parse_rules(text + 'KERNEL=="vd*"\n', '/etc/udev/rules.d/a.rules')
    assert parsed == ['/etc/udev/rules.d/a.rules', '/etc/udev/rules.d/b.rules', '/etc/udev/rules.d/a.rules']
