# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.plan import block_queue as bq
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS

DIRS = ('etc/udev/rules.d', 'run/udev/rules.d', 'usr/local/lib/udev/rules.d', 'usr/lib/udev/rules.d', 'lib/udev/rules.d')
IOTUNE_RULES = '/etc/udev/rules.d/60-iotune.rules'


@pytest.fixture(name='udev_root')
def udev_root_fixture(build_tree, tmp_path):
    return build_tree(tmp_path / 'root', 'udev/constructed-tree.json')


@pytest.fixture(name='plan')
def plan_fixture(sysfs_full, udev_root, fixture_path):
    """plan(requests, **overrides) on the full sysfs capture and the constructed udev tree."""
    def plan(requests, **overrides):
        args = dict(
            sys_root=sysfs_full,
            proc_root=fixture_path('proc', 'constructed-dm-md'),
            rules_dirs=[os.path.join(udev_root, d) for d in DIRS],
            db_dir=os.path.join(udev_root, 'run/udev/data'),
            rules_file=udev_root + IOTUNE_RULES,
            page_size=4096,
        )
        args.update(overrides)
        result = bq.plan_block_queue(requests, **args)
        for item in result['checks']:
            item['message'] = item['message'].replace(udev_root, '')
        result['warnings'] = [w.replace(udev_root, '') for w in result['warnings']]
        return result
    return plan


def one(result, target, setting):
    found = [c for c in result['checks'] if c['target'] == target and c['setting'] == setting]
    assert len(found) == 1, result['checks']
    return found[0]


# ---------------------------------------------------------------- input

@pytest.mark.parametrize('request_, errors', [
    ({'match': {'name': 'vda'}, 'read_ahead_kb': 4096, 'scheduler': 'mq-deadline'}, []),
    ({'match': {'name': 'vda'}, 'read_ahead_kb': 0}, []),
    ({'match': {'name': 'vda'}, 'read_ahead_kb': -1},
     ["devices[0].read_ahead_kb: -1 is not valid; expected an integer from 0 to 4294967295 (KiB; 0 turns read-ahead off)"]),
    ({'match': {'name': 'vda'}, 'max_sectors_kb': 2},
     ["devices[0].max_sectors_kb: 2 is not valid; expected an integer from 4 to 4294967295 (KiB, at least one page, "
      "at most the device's max_hw_sectors_kb)"]),
    ({'match': {'name': 'vda'}, 'nr_requests': 1},
     ['devices[0].nr_requests: 1 is not valid; expected an integer from 4 to 2048 (the kernel raises smaller values to 4 and refuses larger ones)']),
    ({'match': {'name': 'vda'}, 'nr_requests': True},
     ['devices[0].nr_requests: True is not valid; expected an integer from 4 to 2048 (the kernel raises smaller values to 4 and refuses larger ones)']),
    ({'match': {'name': 'vda'}, 'scheduler': 'cfqq'},
     ["devices[0].scheduler: 'cfqq' is not valid; expected one of none, mq-deadline, kyber, bfq, deadline, cfq, noop"]),
    ({'match': {'name': 'vda'}}, ['devices[0]: nothing to check; give at least one of %s' % ', '.join(QUEUE_SETTINGS)]),
    ({'match': {'name': 'vda', 'wwn': 'x'}, 'nr_requests': 64},
     ['devices[0].match: must have exactly one of name, mountpoint, wwn, serial (got name, wwn)']),
    ({'match': {'label': 'x'}, 'nr_requests': 64},
     ['devices[0].match.label: unknown key (accepted: name, mountpoint, wwn, serial)',
      'devices[0].match: must have exactly one of name, mountpoint, wwn, serial (got none)']),
    ({'match': {'serial': 'S3Z9"\nRUN+="/bin/reboot'}, 'nr_requests': 64},
     ['devices[0].match.serial: must be one line of text without \'"\' or control characters (newline, tab), '
      'got \'S3Z9"\\nRUN+="/bin/reboot\'']),
    ({'match': {'mountpoint': 'srv/data'}, 'nr_requests': 64},
     ["devices[0].match.mountpoint: must be an absolute path, got 'srv/data'"]),
])
def test_validate_request(request_, errors):
    assert bq.validate_request(request_, 'devices[0]') == errors


def test_validate_requests_refuses_a_device_matched_twice():
    requests = [{'match': {'name': 'vda'}, 'nr_requests': 64}, {'match': {'name': 'vda'}, 'read_ahead_kb': 128}]
    assert bq.validate_requests(requests, ['devices[0]', 'devices[1]']) == [
        'devices[1].match: name=vda is listed twice (also devices[0])']


def test_validate_request_top_level_names_the_field():
    assert bq.validate_request({'match': {'name': 'vda'}, 'read_ahead_kb': -8}) == [
        'read_ahead_kb: -8 is not valid; expected an integer from 0 to 4294967295 (KiB; 0 turns read-ahead off)']


# ---------------------------------------------------------------- resolution

@pytest.mark.parametrize('match, names, note, problem', [
    ({'name': 'vda'}, ['vda'], None, None),
    ({'name': '/dev/vda'}, ['vda'], None, None),
    ({'name': 'loop0p2'}, ['loop0'], 'loop0p2 is a partition: queue settings apply to its disk loop0', None),
    ({'name': 'sda10'}, ['sda'], 'sda10 is a partition: queue settings apply to its disk sda', None),
    ({'name': 'vg0-data'}, ['dm-0'], 'vg0-data is the device-mapper name of dm-0', None),
    ({'name': '/dev/mapper/vg1-archive'}, ['dm-1'], 'dm-1 is a device-mapper/md device', None),
    ({'name': 'sdq'}, [], None, 'no block device named sdq in'),
    ({'mountpoint': '/'}, ['vda'], None, None),
    ({'mountpoint': '/srv/data/'}, ['dm-0'],
     'dm-0 is a device-mapper/md device: its own queue settings apply to I/O through it, the leaf disks (loop0) keep theirs',
     None),
    ({'mountpoint': '/srv/archive'}, ['dm-1'], 'the leaf disks (loop1, loop2) keep theirs', None),
    ({'mountpoint': '/mnt/with space/and more'}, ['loop0'],
     '/mnt/with space/and more is on partition loop0p1: queue settings apply to its disk loop0', None),
    # btrfs has an anonymous device number; the mount source names the device
    ({'mountpoint': '/home'}, ['vda'], '/home is mounted from /dev/vda', None),
    ({'mountpoint': '/mnt/nfs4'}, [], None,
     '/mnt/nfs4 is a nfs4 mount of filer.example.com:/export/backup with no block device (device number 0:45)'),
    ({'mountpoint': '/not/mounted'}, [], None, 'nothing is mounted on /not/mounted'),
    ({'wwn': 'naa.5000c500a1b2c3d4'}, ['sda'], None, None),
    ({'wwn': '0x5000C500A1B2C3D4'}, ['sda'], None, None),
    ({'wwn': 'eui.0025388b71b2c3d4'}, ['nvme0n1'], None, None),
    ({'wwn': '0x0000000000000001'}, [], None, 'no block device has WWN 0x0000000000000001'),
    ({'serial': 'S5GXNF0R123456A'}, ['nvme0n1'], None, None),
    ({'serial': 'overlayblk'}, ['vda'], None, None),
    # only the udev database knows the ATA serial of sda
    ({'serial': 'ZC1ABCDE'}, ['sda'], None, None),
    ({'serial': 'nope'}, [], None, 'no block device has serial nope'),
])
def test_resolve_match(sysfs_full, udev_root, fixture_path, match, names, note, problem):
    found, notes, found_problem = bq.resolve_match(match, sysfs_full, fixture_path('proc', 'constructed-dm-md'),
                                                   os.path.join(udev_root, 'run/udev/data'))
    assert found == names
    if note:
        assert [n for n in notes if note in n], notes
    if problem:
        assert found_problem.startswith(problem)
    else:
        assert found_problem is None


# ---------------------------------------------------------------- statuses

@pytest.mark.parametrize('request_, target, setting, status, expected_check', [
    # live right and the managed file sets it
    ({'match': {'name': 'vda'}, 'scheduler': 'mq-deadline'}, 'vda', 'scheduler', 'compliant',
     {'live': 'mq-deadline', 'persistent': 'mq-deadline',
      'message': 'scheduler on vda is mq-deadline live and udev rule /etc/udev/rules.d/60-iotune.rules:3 '
                 'sets mq-deadline at boot too'}),
    # live wrong, the rules would fix it at boot: still drift now
    ({'match': {'name': 'vda'}, 'read_ahead_kb': 4096}, 'vda', 'read_ahead_kb', 'drift',
     {'live': 8192, 'persistent': 4096,
      'message': 'read_ahead_kb on vda is 8192, expected 4096; udev rule /etc/udev/rules.d/70-readahead.rules:4 '
                 'sets 4096 at boot'}),
    ({'match': {'name': 'vda'}, 'nr_requests': 64}, 'vda', 'nr_requests', 'drift',
     {'live': 256, 'persistent': None, 'message': 'nr_requests on vda is 256, expected 64; no udev rule sets it'}),
    # live right, nothing persists it
    ({'match': {'name': 'vda'}, 'nr_requests': 256}, 'vda', 'nr_requests', 'not_persistent',
     {'live': 256, 'persistent': None,
      'message': 'nr_requests on vda is 256 live but no udev rule sets it: lost at reboot'}),
    # live right, a rule sets something else at boot
    ({'match': {'name': 'nvme0n1'}, 'nr_requests': 1023}, 'nvme0n1', 'nr_requests', 'not_persistent',
     {'live': 1023, 'persistent': 512,
      'message': 'nr_requests on nvme0n1 is 1023 live but udev rule /run/udev/rules.d/69-vendor.rules:2 sets 512 at boot'}),
    # the persistent side cannot be known: judged by the live side, and said so
    ({'match': {'name': 'loop1'}, 'read_ahead_kb': 2560}, 'loop1', 'read_ahead_kb', 'compliant',
     {'live': 2560, 'persistent': None,
      'message': 'read_ahead_kb on loop1 is 2560 live; persistence unknown: /etc/udev/rules.d/99-local.rules:3 '
                 'may set it (PROGRAM cannot be evaluated)'}),
    ({'match': {'name': 'loop2'}, 'read_ahead_kb': 4096}, 'loop2', 'read_ahead_kb', 'drift',
     {'live': 128, 'persistent': None}),
    # the device has no such attribute
    ({'match': {'name': 'zram0'}, 'scheduler': 'none'}, 'zram0', 'scheduler', 'not_applicable',
     {'live': None, 'message': 'zram0 has no queue/scheduler: the setting does not apply to it'}),
    ({'match': {'name': 'md0'}, 'nr_requests': 128}, 'md0', 'nr_requests', 'not_applicable', {}),
    ({'match': {'name': 'nope'}, 'nr_requests': 128}, 'name=nope', 'device', 'not_applicable',
     {'message': 'no block device named nope in %s/block'}),
    # values the device cannot take
    ({'match': {'name': 'loop0'}, 'max_sectors_kb': 2048}, 'loop0', 'max_sectors_kb', 'error',
     {'live': 1280, 'message': 'iotune_block_devices[0].max_sectors_kb: 2048 KiB is more than loop0 takes: its max_hw_sectors_kb '
                               'is 1280; accepted on loop0: 4 (a page) to 1280 (its max_hw_sectors_kb)'}),
    # a value the kernel rounds is expected as it keeps it
    ({'match': {'name': 'loop2'}, 'read_ahead_kb': 4097}, 'loop2', 'read_ahead_kb', 'drift',
     {'live': 128, 'expected': 4096,
      'message': 'read_ahead_kb on loop2 is 128, expected 4096; persistence unknown: /etc/udev/rules.d/99-local.rules:4 '
                 'runs \'/sbin/blockdev --setra 2048 /dev/%k\', which may set it after the rules; '
                 'read_ahead_kb 4097 is kept by the kernel as 4096 (whole 4 KiB pages)'}),
    ({'match': {'name': 'nvme0n1'}, 'scheduler': 'bfq'}, 'nvme0n1', 'scheduler', 'error',
     {'message': 'scheduler bfq is not offered by nvme0n1 (available: none, mq-deadline)'}),
    # partial sysfs: the attribute exists but cannot be read
    ({'match': {'name': 'xvdf'}, 'nr_requests': 128}, 'xvdf', 'nr_requests', 'error', {}),
    # the note about the partition ends the message
    ({'match': {'name': 'loop0p1'}, 'read_ahead_kb': 2560}, 'loop0', 'read_ahead_kb', 'not_persistent',
     {'message': 'read_ahead_kb on loop0 is 2560 live but no udev rule sets it: lost at reboot. '
                 'loop0p1 is a partition: queue settings apply to its disk loop0'}),
])
def test_statuses(plan, sysfs_full, request_, target, setting, status, expected_check):
    check = one(plan([request_]), target, setting)
    assert check['status'] == status
    assert check['id'] == 'block_queue:%s:%s' % (target, setting)
    assert check['concern'] == 'block_queue'
    for key, value in expected_check.items():
        if key == 'message' and '%s' in value:
            value = value % sysfs_full
        assert check[key] == value, key


def test_every_status_is_covered():
    covered = set(case[3] for case in test_statuses.pytestmark[0].args[1])
    assert covered == set(STATUSES)


def test_persist_false_checks_only_live(plan):
    result = plan([{'match': {'name': 'vda'}, 'nr_requests': 256}], persist=False)
    check = one(result, 'vda', 'nr_requests')
    assert check['status'] == 'compliant'
    assert check['message'] == 'nr_requests on vda is 256 live; persistence not checked (persist is false)'
    assert result['changes'] == []


def test_conflicting_requests(plan):
    result = plan([{'match': {'name': 'vda'}, 'nr_requests': 64},
                   {'match': {'serial': 'overlayblk'}, 'nr_requests': 128, 'read_ahead_kb': 8192}])
    check = one(result, 'vda', 'nr_requests')
    assert check['status'] == 'error'
    assert check['message'] == 'conflicting policy for nr_requests on vda: 64 (devices[0]) and 128 (devices[1])'
    assert one(result, 'vda', 'read_ahead_kb')['status'] == 'not_persistent'
    assert result['devices'][0]['matches'] == ['name=vda', 'serial=overlayblk']


# ---------------------------------------------------------------- the plan

def test_plan_compliant_has_no_changes(plan):
    result = plan([{'match': {'name': 'vda'}, 'scheduler': 'mq-deadline'},
                   {'match': {'name': 'loop1'}, 'nr_requests': 128}])
    assert [c['status'] for c in result['checks']] == ['compliant', 'compliant']
    assert result['changes'] == []
    assert result['warnings'] == []


def test_plan_changes_sysfs_in_write_order_and_rules_file(plan, sysfs_full, udev_root):
    result = plan([{'match': {'name': 'loop2'}, 'read_ahead_kb': 4096, 'nr_requests': 64, 'scheduler': 'mq-deadline'}])
    sysfs = [c for c in result['changes'] if c['kind'] == 'sysfs']
    assert [(c['setting'], c['before'], c['after']) for c in sysfs] == [
        ('scheduler', 'none', 'mq-deadline'), ('nr_requests', 128, 64), ('read_ahead_kb', 128, 4096)]
    assert sysfs[0]['path'] == os.path.join(sysfs_full, 'block', 'loop2', 'queue', 'scheduler')
    files = [c for c in result['changes'] if c['kind'] == 'file']
    assert len(files) == 1
    before = files[0]['before']
    with open(udev_root + IOTUNE_RULES) as handle:
        assert before == handle.read()
    # read_ahead_kb is not added: a RUN in 99-local.rules makes its persistence unknown
    assert files[0]['after'] == before + (
        'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="loop2", ATTR{queue/scheduler}="mq-deadline", '
        'ATTR{queue/nr_requests}="64"\n')
    assert result['devices'] == [{
        'name': 'loop2', 'matches': ['name=loop2'], 'notes': [], 'identity': 'KERNEL=="loop2"',
        'rule': 'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="loop2", ATTR{queue/scheduler}="mq-deadline", '
                'ATTR{queue/nr_requests}="64"'}]
    assert result['warnings'] == []


def test_plan_merges_into_the_managed_line(plan):
    result = plan([{'match': {'name': 'vda'}, 'nr_requests': 256, 'scheduler': 'mq-deadline'}])
    after = [c for c in result['changes'] if c['kind'] == 'file'][0]['after']
    assert after.splitlines()[2] == (
        'ACTION=="add|change", SUBSYSTEM=="block", ATTR{serial}=="overlayblk", ATTR{queue/scheduler}="mq-deadline", '
        'ATTR{queue/nr_requests}="256", ATTR{queue/read_ahead_kb}="8192"')
    assert len(after.splitlines()) == 4


def test_plan_warns_when_a_later_rule_still_overrides(plan):
    result = plan([{'match': {'name': 'vda'}, 'read_ahead_kb': 8192}])
    check = one(result, 'vda', 'read_ahead_kb')
    assert check['status'] == 'not_persistent'
    # the managed line already says 8192: nothing to write, and the plan says why it stays so
    assert result['changes'] == []
    assert result['warnings'] == [
        'after writing /etc/udev/rules.d/60-iotune.rules, udev rule /etc/udev/rules.d/70-readahead.rules:4 '
        'would still set read_ahead_kb on vda to 4096 at boot']


def test_plan_new_rules_file(plan, udev_root):
    result = plan([{'match': {'wwn': 'eui.0025388b71b2c3d4'}, 'read_ahead_kb': 128}],
                  rules_file=udev_root + '/etc/udev/rules.d/61-iotune.rules')
    change = [c for c in result['changes'] if c['kind'] == 'file'][0]
    assert change['before'] is None
    assert change['after'] == bq.RULES_HEADER + (
        'ACTION=="add|change", SUBSYSTEM=="block", ATTR{wwid}=="eui.0025388b71b2c3d4", ATTR{queue/read_ahead_kb}="128"\n')
    assert result['warnings'] == []


@pytest.mark.parametrize('rules_file, warning', [
    ('/srv/60-iotune.rules', 'is not a *.rules file in the udev search path'),
    ('/etc/udev/rules.d/60-iotune.conf', 'is not a *.rules file in the udev search path'),
    # the same name in an earlier directory of the search path masks the managed file
    ('/lib/udev/rules.d/55-dm.rules', 'masks rules_file'),
])
def test_plan_warns_about_rules_files_udev_does_not_read(plan, udev_root, rules_file, warning):
    if rules_file.startswith('/lib/'):
        os.symlink('/dev/null', udev_root + '/etc/udev/rules.d/55-dm.rules')
    result = plan([{'match': {'name': 'loop2'}, 'nr_requests': 64}], rules_file=udev_root + rules_file)
    assert [w for w in result['warnings'] if warning in w], result['warnings']


def test_plan_reads_but_never_writes(plan, sysfs_full, udev_root):
    def snapshot():
        state = {}
        for top in (sysfs_full, udev_root):
            for directory, dummy, files in os.walk(top):
                for name in files:
                    path = os.path.join(directory, name)
                    if os.path.isfile(path):
                        with open(path, 'rb') as handle:
                            state[path] = handle.read()
        return state
    before = snapshot()
    plan([{'match': {'name': 'loop2'}, 'read_ahead_kb': 4096, 'nr_requests': 64, 'scheduler': 'mq-deadline'},
          {'match': {'mountpoint': '/srv/data'}, 'read_ahead_kb': 8192}])
    assert snapshot() == before


# ---------------------------------------------------------------- the managed rule

@pytest.mark.parametrize('name, db, identity, warned', [
    ('nvme0n1', None, 'ATTR{wwid}=="eui.0025388b71b2c3d4"', False),
    ('sda', None, 'ENV{DEVTYPE}=="disk", ATTRS{wwid}=="naa.5000c500a1b2c3d4"', False),
    ('vda', None, 'ATTR{serial}=="overlayblk"', False),
    ('dm-0', None, 'ATTR{dm/uuid}=="LVM-Qm3cXbN0dE1fG2hI3jK4lM5nO6pQ7rS8tU9vW0xY1zA2bC3dE4fG5hI6jK7l"', False),
    ('loop0', None, 'KERNEL=="loop0"', False),
    # identifiers known only from the udev database are set after 60-iotune.rules runs
    ('loop1', {'env': {'ID_WWN': '0x50014ee2b1c2d3e4'}}, 'ENV{DEVTYPE}=="disk", ENV{ID_WWN}=="0x50014ee2b1c2d3e4"', True),
    ('loop1', {'env': {'ID_SERIAL': 'QEMU_HARDDISK_QM00001'}}, 'ENV{DEVTYPE}=="disk", ENV{ID_SERIAL}=="QEMU_HARDDISK_QM00001"', True),
    # a value udev would read as a glob is not used
    ('loop1', {'env': {'ID_SERIAL': 'odd*serial'}}, 'KERNEL=="loop1"', False),
])
def test_rule_identity(sysfs_full, name, db, identity, warned):
    found, warning = bq.rule_identity(sysfs_full, name, db)
    assert found == identity
    assert (warning is not None) is warned


@pytest.mark.parametrize('text, settings, expected', [
    (None, {'read_ahead_kb': 4096},
     bq.RULES_HEADER + 'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vdb", ATTR{queue/read_ahead_kb}="4096"\n'),
    # other lines are kept as they are; the device's line is merged in place
    ('# mine\nKERNEL=="sdz", ATTR{queue/nr_requests}="8"\r\n'
     'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vdb", ATTR{queue/nr_requests}="64"\r\n',
     {'read_ahead_kb': 4096},
     '# mine\nKERNEL=="sdz", ATTR{queue/nr_requests}="8"\r\n'
     'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vdb", ATTR{queue/nr_requests}="64", '
     'ATTR{queue/read_ahead_kb}="4096"\r\n'),
    # later lines with the same match keys would override the merged one: dropped
    ('ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vdb", ATTR{queue/read_ahead_kb}="128"\n'
     'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vdb", ATTR{queue/scheduler}="none"\n',
     {'read_ahead_kb': 4096},
     'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vdb", ATTR{queue/read_ahead_kb}="4096"\n'),
    # a file without a final newline gets one before the new line
    ('# no newline', {'nr_requests': 32},
     '# no newline\nACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vdb", ATTR{queue/nr_requests}="32"\n'),
])
def test_merge_rules_text(text, settings, expected):
    assert bq.merge_rules_text(text, 'KERNEL=="vdb"', settings) == expected


def test_unreadable_rules_file_is_never_replaced(plan, tmp_path, udev_root):
    unreadable = udev_root + '/etc/udev/rules.d/61-iotune.rules'
    os.mkdir(unreadable)        # a directory cannot be read as a file, even by root
    result = plan([{'match': {'name': 'loop2'}, 'nr_requests': 64}], rules_file=unreadable)
    assert one(result, 'loop2', 'nr_requests')['status'] == 'drift'
    assert [c['kind'] for c in result['changes']] == ['sysfs']
    assert result['warnings'][0] == '/etc/udev/rules.d/61-iotune.rules cannot be read: no change to it is planned'


@pytest.mark.parametrize('name', ['vdb', '/dev/vdb', '/dev/mapper/vg0-data', 'dm-0', 'md/data', '/dev/md/data'])
def test_validate_request_takes_the_documented_name_forms(name):
    assert bq.validate_request({'match': {'name': name}, 'read_ahead_kb': 128}) == []


@pytest.mark.parametrize('name', ['/dev/../etc', '/dev/', '/etc/vdb', '/dev/mapper/a/b', 'vd b', 'md/', 'md/a/b', 'md/..'])
def test_validate_request_refuses_other_paths_as_names(name):
    assert bq.validate_request({'match': {'name': name}, 'read_ahead_kb': 128}) == [
        'match.name: must be a kernel device name such as sdb or nvme0n1, a device-mapper name or md/<array name> '
        '(or /dev/sdb, /dev/mapper/vg0-data, /dev/md/data), got %r' % name]


# ---------------------------------------------------------------- rq_affinity: one entry of the queue table

def test_rq_affinity_is_audited_and_planned_like_the_other_settings(plan, sysfs_full):
    result = plan([{'match': {'name': 'loop2'}, 'rq_affinity': 2, 'nr_requests': 64}])
    check = one(result, 'loop2', 'rq_affinity')
    assert (check['status'], check['live'], check['persistent']) == ('drift', 1, None)
    assert check['message'] == 'rq_affinity on loop2 is 1, expected 2; no udev rule sets it'
    sysfs = [c for c in result['changes'] if c['kind'] == 'sysfs']
    assert [(c['setting'], c['before'], c['after']) for c in sysfs] == [('nr_requests', 128, 64), ('rq_affinity', 1, 2)]
    assert sysfs[1]['path'] == os.path.join(sysfs_full, 'block', 'loop2', 'queue', 'rq_affinity')
    assert result['devices'][0]['rule'] == ('ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="loop2", '
                                            'ATTR{queue/nr_requests}="64", ATTR{queue/rq_affinity}="2"')


def test_rq_affinity_the_device_lacks_or_the_kernel_ignores(plan):
    check = one(plan([{'match': {'name': 'zram0'}, 'rq_affinity': 1}]), 'zram0', 'rq_affinity')
    assert (check['status'], check['message']) == ('not_applicable', 'zram0 has no queue/rq_affinity: the setting does not apply to it')
    assert bq.validate_request({'match': {'name': 'vda'}, 'rq_affinity': 3}) == [
        'rq_affinity: 3 is not valid; expected an integer from 0 to 2 (the kernel ignores larger values and refuses negative ones)']


def test_rules_are_read_only_for_the_devices_selected(plan, monkeypatch):
    """A policy whose matches select no device reads no udev rule (an audit of a host without the
    policy's disks); one that selects a device reads them."""
    read = []
    real = bq._udev.read_rules

    def counting(files, errors=None, override=None):
        read.append(len(files))
        return real(files, errors, override)
    monkeypatch.setattr(bq._udev, 'read_rules', counting)
    result = plan([{'match': {'name': 'nope'}, 'nr_requests': 128}])
    assert [c['status'] for c in result['checks']] == ['not_applicable'] and read == []
    plan([{'match': {'name': 'vda'}, 'read_ahead_kb': 4096}])
    assert len(read) == 1 and read[0] > 0
