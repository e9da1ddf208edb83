# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where each block-queue setting goes on a stacked device (plan/stacking.py and its use in plan/block_queue.py).

The tree: a LUN (WWID naa.6001405abc) seen through two SCSI paths sdc and sdd, assembled by dm-multipath into
dm-3 (mpatha); an LV dm-4 on the map; an md RAID1 md1 of sde and sdf; a dm-crypt dm-5 on md1; loop3; sda plain."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.plan import block_queue as bq
from ansible_collections.iotune.storage.plugins.module_utils.plan import stacking as st

WWID = 'naa.6001405abc'
MPATH_UUID = 'mpath-36001405abc'
LVM_UUID = 'LVM-Qm3cXbN0dE1fG2hI3jK4lM5nO6pQ7rS8tU9vW0xY1zA2bC3dE4fG5hI6jK7l'
MD_UUID = '3c2d4e5f-0a1b-2c3d-4e5f-60718293a4b5'
REQUEST_QUEUE = {'read_ahead_kb': '128', 'max_sectors_kb': '256', 'max_hw_sectors_kb': '512', 'nr_requests': '64',
                 'scheduler': '[mq-deadline] none', 'rq_affinity': '1'}
BIO_QUEUE = {'read_ahead_kb': '4096', 'max_sectors_kb': '256', 'max_hw_sectors_kb': '512', 'scheduler': 'none', 'rq_affinity': '1'}


def _write(path, text):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'w') as handle:
        handle.write(text + '\n')


def _device(sys_root, rel, name, devno, queue, files=None):
    """A block device at sys/devices/<rel>/<name>, linked from sys/block and sys/class/block."""
    path = os.path.join(sys_root, 'devices', rel, name)
    _write(os.path.join(path, 'dev'), devno)
    _write(os.path.join(path, 'size'), '2097152')
    for attr, value in queue.items():
        _write(os.path.join(path, 'queue', attr), value)
    for attr, value in (files or {}).items():
        _write(os.path.join(path, attr), value)
    for top in ('block', os.path.join('class', 'block')):
        if not os.path.isdir(os.path.join(sys_root, top)):
            os.makedirs(os.path.join(sys_root, top))
        os.symlink(path, os.path.join(sys_root, top, name))
    return path


def _stack(lower, upper):
    """``upper`` (a path) is stacked on ``lower``: slaves/ and holders/ links."""
    for directory, link, target in ((upper, 'slaves', lower), (lower, 'holders', upper)):
        if not os.path.isdir(os.path.join(directory, link)):
            os.makedirs(os.path.join(directory, link))
        os.symlink(target, os.path.join(directory, link, os.path.basename(target)))


@pytest.fixture(name='tree')
def tree_fixture(tmp_path):
    root = str(tmp_path)
    sys_root = os.path.join(root, 'sys')
    paths = {}
    for index, name in enumerate(('sda', 'sdc', 'sdd', 'sde', 'sdf')):
        scsi = os.path.join(sys_root, 'devices', 'scsi', '1:0:0:%d' % index)
        _write(os.path.join(scsi, 'wwid'), WWID if name in ('sdc', 'sdd') else 'naa.50000000000%d' % index)
        paths[name] = _device(sys_root, os.path.join('scsi', '1:0:0:%d' % index, 'block'), name, '8:%d' % (16 * index), REQUEST_QUEUE)
        os.symlink(scsi, os.path.join(paths[name], 'device'))
    virtual = os.path.join('virtual', 'block')
    paths['dm-3'] = _device(sys_root, virtual, 'dm-3', '252:3', dict(REQUEST_QUEUE, scheduler='[none] mq-deadline'),
                            {'dm/uuid': MPATH_UUID, 'dm/name': 'mpatha'})
    paths['dm-4'] = _device(sys_root, virtual, 'dm-4', '252:4', BIO_QUEUE, {'dm/uuid': LVM_UUID, 'dm/name': 'vg2-lun'})
    paths['md1'] = _device(sys_root, virtual, 'md1', '9:1', BIO_QUEUE, {'md/level': 'raid1', 'md/uuid': MD_UUID})
    paths['md2'] = _device(sys_root, virtual, 'md2', '9:2', BIO_QUEUE, {'md/level': 'raid0'})
    paths['dm-5'] = _device(sys_root, virtual, 'dm-5', '252:5', BIO_QUEUE, {'dm/uuid': 'CRYPT-LUKS2-0123abcd-cr', 'dm/name': 'cr'})
    paths['dm-6'] = _device(sys_root, virtual, 'dm-6', '252:6', BIO_QUEUE, {'dm/uuid': '', 'dm/name': 'plain'})
    paths['loop3'] = _device(sys_root, virtual, 'loop3', '7:3', REQUEST_QUEUE)
    for lower, upper in (('sdc', 'dm-3'), ('sdd', 'dm-3'), ('dm-3', 'dm-4'), ('sde', 'md1'), ('sdf', 'md1'), ('md1', 'dm-5'),
                         ('loop3', 'dm-6')):
        _stack(paths[lower], paths[upper])
    for directory in ('etc/udev/rules.d', 'lib/udev/rules.d'):
        os.makedirs(os.path.join(root, directory))
    for devno in ('8:16', '8:32'):
        # multipath-tools' multipath.rules marks the paths in the udev database
        _write(os.path.join(root, 'run/udev/data', 'b' + devno), 'E:DM_MULTIPATH_DEVICE_PATH=1\nE:ID_SERIAL=36001405abc')
    return root


# what multipath-tools' multipath.rules does for a path, shortened: `multipath -u` exports DM_MULTIPATH_DEVICE_PATH
MULTIPATH_RULES = '''SUBSYSTEM!="block", GOTO="end_mpath"
KERNEL!="sd*", GOTO="end_mpath"
IMPORT{program}="/sbin/multipath -u %k"
LABEL="end_mpath"'''


def plan(tree, requests, **overrides):
    args = dict(sys_root=os.path.join(tree, 'sys'), proc_root=os.path.join(tree, 'proc'),
                rules_dirs=[os.path.join(tree, 'etc/udev/rules.d'), os.path.join(tree, 'lib/udev/rules.d')],
                db_dir=os.path.join(tree, 'run/udev/data'), rules_file=os.path.join(tree, 'etc/udev/rules.d/60-iotune.rules'))
    args.update(overrides)
    return bq.plan_block_queue(requests, **args)


def checks_of(result, setting):
    return [(c['target'], c['status']) for c in result['checks'] if c['setting'] == setting]


@pytest.mark.parametrize('name, kind', [
    ('sda', st.DISK), ('sdc', st.MPATH_PATH), ('sdd', st.MPATH_PATH), ('dm-3', st.MPATH), ('dm-4', st.LVM),
    ('dm-5', st.CRYPT), ('dm-6', st.DM), ('md1', st.MD), ('md2', st.MD), ('loop3', st.LOOP), ('sde', st.DISK),
])
def test_classify(tree, name, kind):
    assert st.classify(os.path.join(tree, 'sys'), name) == kind


@pytest.mark.parametrize('name, setting, targets, problem', [
    # read-ahead: the stacked device's own bdi
    ('dm-4', 'read_ahead_kb', ['dm-4'], None),
    ('md1', 'read_ahead_kb', ['md1'], None),
    ('dm-3', 'read_ahead_kb', ['dm-3'], None),
    # max_sectors_kb of a multipath map: every path, then the map
    ('dm-3', 'max_sectors_kb', ['sdc', 'sdd', 'dm-3'], None),
    # a request-based map schedules its requests itself: the clones bypass the paths' schedulers
    ('dm-3', 'scheduler', ['dm-3'], None),
    ('dm-3', 'nr_requests', ['dm-3'], None),
    ('dm-3', 'rq_affinity', ['dm-3'], None),
    # bio-based dm and md: no request queue of their own
    ('dm-4', 'scheduler', [], 'scheduler does not apply to dm-4 (LVM LV, bio-based: no request queue of its own); '
                              'I/O through it is queued on sdc, sdd: set it there'),
    ('md1', 'nr_requests', [], 'nr_requests does not apply to md1 (md, bio-based: no request queue of its own); '
                               'I/O through it is queued on sde, sdf: set it there'),
    ('dm-5', 'scheduler', [], 'scheduler does not apply to dm-5 (dm-crypt, bio-based: no request queue of its own); '
                              'I/O through it is queued on sde, sdf: set it there'),
    ('dm-6', 'nr_requests', [], 'nr_requests does not apply to dm-6 (device-mapper, bio-based: no request queue of its own); '
                                'I/O through it is queued on loop3: set it there'),
    ('dm-4', 'max_sectors_kb', ['dm-4'], None),
    # plain devices and a path asked by name: the device itself
    ('sda', 'scheduler', ['sda'], None),
    ('sdc', 'max_sectors_kb', ['sdc'], None),
    ('loop3', 'nr_requests', ['loop3'], None),
])
def test_placements(tree, name, setting, targets, problem):
    found, found_problem = st.placements(os.path.join(tree, 'sys'), name, setting)
    assert [target for target, dummy in found] == targets
    assert found_problem == problem


def test_placement_reasons(tree):
    found = dict(st.placements(os.path.join(tree, 'sys'), 'dm-3', 'max_sectors_kb')[0])
    assert found['sdc'] == "a path of multipath map dm-3, whose limit cannot pass its paths'"
    assert found['dm-3'] == 'the multipath map, stacked on sdc, sdd'
    assert dict(st.placements(os.path.join(tree, 'sys'), 'dm-4', 'read_ahead_kb')[0]) == {
        'dm-4': "I/O through dm-4 (LVM LV) uses its own read-ahead, not its members'"}
    assert dict(st.placements(os.path.join(tree, 'sys'), 'sda', 'read_ahead_kb')[0]) == {'sda': None}


@pytest.mark.parametrize('match', [{'wwn': WWID}, {'wwn': '0x6001405ABC'}, {'name': 'mpatha'}, {'name': '/dev/mapper/mpatha'}])
def test_a_lun_resolves_to_its_map(tree, match):
    names, notes, problem = bq.resolve_match(match, os.path.join(tree, 'sys'), db_dir=os.path.join(tree, 'run/udev/data'))
    assert problem is None
    assert names == ['dm-3']
    if 'wwn' in match:
        assert notes == ['sdc, sdd are the paths of multipath map dm-3 (%s): the match selects the map' % MPATH_UUID]
    # the generic "its own queue settings apply" note would be wrong for a multipath map
    assert not [note for note in notes if 'keep theirs' in note]


def test_collapse_paths_keeps_other_devices(tree):
    assert st.collapse_paths(os.path.join(tree, 'sys'), ['sda', 'sdd', 'dm-3', 'sdc']) == (
        ['sda', 'dm-3'], ['sdd, sdc are the paths of multipath map dm-3 (%s): the match selects the map' % MPATH_UUID])
    assert st.collapse_paths(os.path.join(tree, 'sys'), ['sda']) == (['sda'], [])


def test_max_sectors_on_a_multipath_lun(tree):
    result = plan(tree, [{'match': {'wwn': WWID}, 'max_sectors_kb': 512, 'read_ahead_kb': 8192}])
    assert sorted(checks_of(result, 'max_sectors_kb')) == [('dm-3', 'drift'), ('sdc', 'drift'), ('sdd', 'drift')]
    assert checks_of(result, 'read_ahead_kb') == [('dm-3', 'drift')]
    by_target = dict((c['target'], c['message']) for c in result['checks'] if c['setting'] == 'max_sectors_kb')
    assert by_target['sdc'] == ("max_sectors_kb on sdc is 256, expected 512; no udev rule sets it; set here for dm-3 "
                                "(asked by wwn=%s): a path of multipath map dm-3, whose limit cannot pass its paths'. sdc, sdd are the paths "
                                "of multipath map dm-3 (%s): the match selects the map" % (WWID, MPATH_UUID))
    assert by_target['dm-3'].endswith('; set here for dm-3 (asked by wwn=%s): the multipath map, stacked on sdc, sdd. '
                                      'sdc, sdd are the paths of multipath map dm-3 (%s): the match selects the map'
                                      % (WWID, MPATH_UUID))


@pytest.mark.parametrize('value, order', [
    (512, [('sdc', 'max_sectors_kb'), ('sdd', 'max_sectors_kb'), ('dm-3', 'max_sectors_kb')]),   # raising: paths first
    (128, [('dm-3', 'max_sectors_kb'), ('sdc', 'max_sectors_kb'), ('sdd', 'max_sectors_kb')]),   # lowering: map first
])
def test_write_order_of_a_map_and_its_paths(tree, value, order):
    result = plan(tree, [{'match': {'name': 'dm-3'}, 'max_sectors_kb': value}])
    assert [(c['target'], c['setting']) for c in result['changes'] if c['kind'] == 'sysfs'] == order


def test_order_writes_keeps_other_changes_in_place(tree):
    changes = [{'target': 'dm-3', 'setting': 'max_sectors_kb', 'before': 256, 'after': 512},
               {'target': 'dm-3', 'setting': 'read_ahead_kb', 'before': 128, 'after': 4096},
               {'target': 'sda', 'setting': 'scheduler', 'before': 'none', 'after': 'mq-deadline'}]
    assert st.order_writes(changes, os.path.join(tree, 'sys')) == changes


def test_scheduler_on_a_map_is_the_maps_own(tree):
    result = plan(tree, [{'match': {'name': 'mpatha'}, 'scheduler': 'mq-deadline', 'nr_requests': 32}])
    assert checks_of(result, 'scheduler') == [('dm-3', 'drift')]
    assert checks_of(result, 'nr_requests') == [('dm-3', 'drift')]
    message = [c['message'] for c in result['checks'] if c['target'] == 'dm-3' and c['setting'] == 'scheduler'][0]
    assert "a request-based multipath map schedules its requests itself; its paths' schedulers are bypassed" in message
    assert not [c for c in result['changes'] if c.get('target') in ('sdc', 'sdd')]


@pytest.mark.parametrize('match, name', [({'name': 'vg2-lun'}, 'dm-4'), ({'name': 'md1'}, 'md1')])
def test_scheduler_on_bio_based_devices_is_not_applicable(tree, match, name):
    result = plan(tree, [dict(match=match, scheduler='none', read_ahead_kb=8192)])
    assert checks_of(result, 'scheduler') == [(name, 'not_applicable')]
    check = [c for c in result['checks'] if c['setting'] == 'scheduler'][0]
    assert 'set it there (asked by name=%s)' % match['name'] in check['message']
    assert checks_of(result, 'read_ahead_kb') == [(name, 'drift')]
    assert not [c for c in result['changes'] if c.get('setting') == 'scheduler']


def test_read_ahead_on_an_lv_is_the_lv_only(tree):
    result = plan(tree, [{'match': {'name': 'dm-4'}, 'read_ahead_kb': 8192}])
    assert checks_of(result, 'read_ahead_kb') == [('dm-4', 'drift')]
    assert "I/O through dm-4 (LVM LV) uses its own read-ahead, not its members'" in result['checks'][0]['message']


@pytest.mark.parametrize('name, db, identity, warned', [
    ('dm-3', None, 'ATTR{dm/uuid}=="%s"' % MPATH_UUID, False),
    ('dm-4', None, 'ATTR{dm/uuid}=="%s"' % LVM_UUID, False),
    ('dm-5', None, 'ATTR{dm/uuid}=="CRYPT-LUKS2-0123abcd-cr"', False),
    # every path of the LUN carries its WWID: one that comes back under a new name matches too
    ('sdc', None, 'ENV{DEVTYPE}=="disk", ATTRS{wwid}=="%s"' % WWID, False),
    ('sdd', None, 'ENV{DEVTYPE}=="disk", ATTRS{wwid}=="%s"' % WWID, False),
    ('sda', None, 'ENV{DEVTYPE}=="disk", ATTRS{wwid}=="naa.500000000000"', False),
    ('md1', None, 'ATTR{md/uuid}=="%s"' % MD_UUID, False),
    ('md2', {'env': {'MD_UUID': 'a1b2c3d4:e5f60718:293a4b5c:6d7e8f90'}},
     'KERNEL=="md*", ENV{MD_UUID}=="a1b2c3d4:e5f60718:293a4b5c:6d7e8f90"', True),
    ('md2', None, 'KERNEL=="md2"', False),
])
def test_rule_identity_of_stacked_devices(tree, name, db, identity, warned):
    found, warning = bq.rule_identity(os.path.join(tree, 'sys'), name, db)
    assert found == identity
    assert (warning is not None) is warned
    assert 'dm-' not in found


def test_rules_file_of_a_multipath_lun(tree):
    _write(os.path.join(tree, 'lib/udev/rules.d/56-multipath.rules'), MULTIPATH_RULES)
    result = plan(tree, [{'match': {'wwn': WWID}, 'max_sectors_kb': 512}])
    text = [c for c in result['changes'] if c['kind'] == 'file'][0]['after']
    lines = [line for line in text.splitlines() if line and not line.startswith('#')]
    # one line for every path of the LUN (they share the WWID), one for the map; no kernel name
    assert lines == [
        'ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", '
        'ATTRS{wwid}=="%s", ATTR{queue/max_sectors_kb}="512"' % WWID,
        'ACTION=="add|change", SUBSYSTEM=="block", ATTR{dm/uuid}=="%s", ATTR{queue/max_sectors_kb}="512"' % MPATH_UUID,
    ]
    assert [device['name'] for device in result['devices']] == ['sdc', 'sdd', 'dm-3']
    assert result['warnings'] == []


@pytest.mark.parametrize('multipath_rules', ['56-multipath.rules', '60-multipath.rules', '62-multipath.rules'])
def test_path_rule_does_not_depend_on_the_multipath_rules_order(tree, multipath_rules):
    """Debian 12 installs 60-multipath.rules, which udev reads after 60-iotune.rules: a key set there would
    be unset when the path's rule runs."""
    _write(os.path.join(tree, 'lib/udev/rules.d', multipath_rules), MULTIPATH_RULES)
    result = plan(tree, [{'match': {'name': 'dm-3'}, 'max_sectors_kb': 512}])
    text = [c for c in result['changes'] if c['kind'] == 'file'][0]['after']
    assert 'DM_MULTIPATH_DEVICE_PATH' not in text and 'ATTRS{wwid}=="%s"' % WWID in text
    assert result['warnings'] == []


def test_a_rule_line_with_a_nul_byte_is_replaced(tree):
    """udev ignores a line cut by a NUL: the managed file gets a good line for the LUN's paths instead."""
    broken = ('ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ATTRS{wwid}=="%s|t10.LIO-ORG lun0:x\0", '
              'ATTR{queue/max_sectors_kb}="512"\n' % WWID)
    _write(os.path.join(tree, 'etc/udev/rules.d/60-iotune.rules'), bq.RULES_HEADER + broken)
    result = plan(tree, [{'match': {'wwn': WWID}, 'max_sectors_kb': 512}])
    text = [c for c in result['changes'] if c['kind'] == 'file'][0]['after']
    assert '\0' not in text
    assert 'ATTRS{wwid}=="%s", ATTR{queue/max_sectors_kb}="512"' % WWID in text


def test_an_md_array_by_its_name(tree):
    """md/<name> is mdadm's MD_DEVNAME (/dev/md/<name>), which stays when the kernel name md127 does not."""
    _write(os.path.join(tree, 'run/udev/data/b9:1'), 'E:MD_DEVNAME=data1\nE:MD_LEVEL=raid1')
    result = plan(tree, [{'match': {'name': 'md/data1'}, 'read_ahead_kb': 8192}])
    assert checks_of(result, 'read_ahead_kb') == [('md1', 'drift')]
    assert 'md/data1 is the md array md1' in result['checks'][0]['message']
    result = plan(tree, [{'match': {'name': 'md/nosuch'}, 'read_ahead_kb': 8192}])
    assert [c['status'] for c in result['checks']] == ['not_applicable']
    assert 'no md array named nosuch (MD_DEVNAME and MD_NAME in the udev database' in result['checks'][0]['message']


def test_an_md_array_assembled_under_its_homehost_name(tree):
    """After a reboot the lab VM's initramfs, without the host's mdadm.conf, assembled it as
    /dev/md/iotune-lab:labmd: the superblock's name still finds it."""
    _write(os.path.join(tree, 'run/udev/data/b9:1'), 'E:MD_DEVNAME=iotune-lab:data1\nE:MD_NAME=iotune-lab:data1')
    result = plan(tree, [{'match': {'name': 'md/data1'}, 'read_ahead_kb': 8192}])
    assert checks_of(result, 'read_ahead_kb') == [('md1', 'drift')]
    _write(os.path.join(tree, 'run/udev/data/b9:2'), 'E:MD_DEVNAME=data1\nE:MD_NAME=otherhost:data1')
    result = plan(tree, [{'match': {'name': 'md/data1'}, 'read_ahead_kb': 8192}])
    assert 'more than one md array named data1' in result['checks'][0]['message'] and 'md1, md2' in result['checks'][0]['message']
