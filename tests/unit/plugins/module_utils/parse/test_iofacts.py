# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.iofacts import (
    find_executable,
    gather_io_facts,
    gather_tools,
    gather_vxfs,
    parse_cp_version,
    parse_fio_version,
    SUBSETS,
)
from ansible_collections.iotune.storage.plugins.module_utils.parse.meminfo import parse_meminfo, read_memory_bytes
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import CONF_DIRS
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS


class FakeRunner(object):
    """run_command stand-in: answers from a {basename: (rc, out, err)} table and records calls."""

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        return self.answers[os.path.basename(argv[0])]


def fake_find(table):
    def find_bin(name):
        return table.get(name)
    return find_bin


@pytest.mark.parametrize('text, expected', [
    ('fio-3.33\n', '3.33'),
    ('fio-3.39-12-g0a1b2c3\n', '3.39-12-g0a1b2c3'),
    ('fio 2.1\n', None),
    ('', None),
])
def test_parse_fio_version(text, expected):
    assert parse_fio_version(text) == expected


@pytest.mark.parametrize('text, expected', [
    ('cp (GNU coreutils) 9.4\n', '9.4'),
    ('cp (GNU coreutils) 8.32\nCopyright (C) 2020 Free Software Foundation, Inc.\n', '8.32'),
    # busybox and BSD cp have no --version; this is what they print instead (constructed)
    ('BusyBox v1.36.1 (2023-07-27 17:12:24 UTC) multi-call binary.\n', None),
    ('', None),
])
def test_parse_cp_version(text, expected):
    assert parse_cp_version(text) == expected


def test_real_command_outputs(read_fixture):
    assert parse_fio_version(read_fixture('commands', 'fio-3.33--version.txt')) == '3.33'
    assert parse_cp_version(read_fixture('commands', 'cp-coreutils-9.1--version.txt')) == '9.1'


def test_meminfo_real(read_fixture, fixture_path):
    values = parse_meminfo(read_fixture('proc', 'vm-loop', 'meminfo'))
    assert values['MemTotal'] == 24684084 * 1024
    assert values['HugePages_Total'] == 0
    assert read_memory_bytes(fixture_path('proc', 'vm-loop')) == 25276502016


def test_meminfo_missing(tmp_path):
    errors = []
    assert read_memory_bytes(str(tmp_path), errors) is None
    assert len(errors) == 1 and errors[0].startswith('cannot read %s/meminfo' % tmp_path)


def test_gather_tools(read_fixture):
    runner = FakeRunner({
        'fio': (0, read_fixture('commands', 'fio-3.33--version.txt'), ''),
        'cp': (0, read_fixture('commands', 'cp-coreutils-9.1--version.txt'), ''),
    })
    errors = []
    tools = gather_tools(runner, fake_find({'fio': '/usr/bin/fio', 'cp': '/usr/bin/cp'}), errors)
    assert tools == {'fio': {'path': '/usr/bin/fio', 'version': '3.33'}, 'coreutils': {'path': '/usr/bin/cp', 'version': '9.1'}}
    assert runner.calls == [['/usr/bin/fio', '--version'], ['/usr/bin/cp', '--version']]
    assert errors == []


def test_gather_tools_missing_and_failing():
    runner = FakeRunner({'cp': (1, '', "cp: unrecognized option '--version'\n")})
    errors = []
    tools = gather_tools(runner, fake_find({'cp': '/bin/cp'}), errors)
    assert tools == {'fio': None, 'coreutils': None}
    assert runner.calls == [['/bin/cp', '--version']]
    assert errors == ["/bin/cp --version failed (rc=1): cp: unrecognized option '--version'"]


def test_gather_tools_fio_broken():
    runner = FakeRunner({'fio': (127, '', 'error while loading shared libraries'), 'cp': (0, 'cp (GNU coreutils) 9.5\n', '')})
    errors = []
    tools = gather_tools(runner, fake_find({'fio': '/usr/bin/fio', 'cp': '/usr/bin/cp'}), errors)
    assert tools == {'fio': {'path': '/usr/bin/fio', 'version': None}, 'coreutils': {'path': '/usr/bin/cp', 'version': '9.5'}}
    assert errors == ['/usr/bin/fio --version failed (rc=127): error while loading shared libraries']


def _real_tools(tmp_path):
    """Two executable files standing in for fio and cp (their identity is real: stat of these files)."""
    paths = {}
    for name in ('fio', 'cp'):
        path = tmp_path / name
        path.write_text(u'#!/bin/sh\n')
        path.chmod(0o755)
        paths[name] = str(path)
    return paths


def test_gather_tools_reuses_a_version_only_for_the_same_file(tmp_path):
    paths = _real_tools(tmp_path)
    runner = FakeRunner({'fio': (0, 'fio-3.33\n', ''), 'cp': (0, 'cp (GNU coreutils) 9.1\n', '')})
    first = gather_tools(runner, fake_find(paths), [], known={})
    assert [first[key]['version'] for key in ('fio', 'coreutils')] == ['3.33', '9.1']
    assert all(len(first[key]['identity']) == 5 for key in ('fio', 'coreutils'))
    assert len(runner.calls) == 2
    # the same files: no command, the versions of the run before
    again = gather_tools(runner, fake_find(paths), [], known=first)
    assert again == first and len(runner.calls) == 2
    # fio replaced (an upgrade writes a new file): asked again, cp still not
    os.unlink(paths['fio'])
    _real_tools_one = tmp_path / 'fio'
    _real_tools_one.write_text(u'#!/bin/sh\n# 3.36\n')
    _real_tools_one.chmod(0o755)
    runner.answers['fio'] = (0, 'fio-3.36\n', '')
    upgraded = gather_tools(runner, fake_find(paths), [], known=first)
    assert upgraded['fio']['version'] == '3.36' and upgraded['coreutils'] == first['coreutils']
    assert runner.calls[2:] == [[paths['fio'], '--version']]


def test_gather_tools_asks_again_what_it_could_not_tell(tmp_path):
    paths = _real_tools(tmp_path)
    runner = FakeRunner({'fio': (127, '', 'error while loading shared libraries'), 'cp': (0, 'cp (GNU coreutils) 9.1\n', '')})
    errors = []
    first = gather_tools(runner, fake_find(paths), errors, known={})
    assert first['fio'] == {'path': paths['fio'], 'version': None, 'identity': None}
    again_errors = []
    gather_tools(runner, fake_find(paths), again_errors, known=first)
    assert [call[0] for call in runner.calls] == [paths['fio'], paths['cp'], paths['fio']]
    assert again_errors == errors


def test_gather_tools_without_known_has_no_identity(tmp_path):
    """io_facts and snapshots: no identity (it changes with every touch of the file), every version asked."""
    paths = _real_tools(tmp_path)
    runner = FakeRunner({'fio': (0, 'fio-3.33\n', ''), 'cp': (0, 'cp (GNU coreutils) 9.1\n', '')})
    tools = gather_tools(runner, fake_find(paths), [])
    assert tools == {'fio': {'path': paths['fio'], 'version': '3.33'}, 'coreutils': {'path': paths['cp'], 'version': '9.1'}}


@pytest.mark.parametrize('vxtunefs, tunefstab, expected_present, expected_entries', [
    ('/opt/VRTS/bin/vxtunefs', 'constructed-solaris.tunefstab', True, 5),
    (None, 'constructed-hpux.tunefstab', True, 3),
    (None, 'absent.tunefstab', False, 0),
])
def test_gather_vxfs(fixture_path, vxtunefs, tunefstab, expected_present, expected_entries):
    path = fixture_path('tunefstab', tunefstab)
    vxfs = gather_vxfs(path, fake_find({'vxtunefs': vxtunefs}), [])
    assert vxfs['tools_present'] is (vxtunefs is not None)
    assert vxfs['vxtunefs_path'] == vxtunefs
    assert vxfs['tunefstab_path'] == path
    assert vxfs['tunefstab_present'] is expected_present
    assert len(vxfs['tunefstab']) == expected_entries


def test_find_executable(tmp_path):
    bin_dir = tmp_path / 'bin'
    extra = tmp_path / 'opt'
    bin_dir.mkdir()
    extra.mkdir()
    (bin_dir / 'fio').write_text(u'#!/bin/sh\n')
    (bin_dir / 'fio').chmod(0o755)
    (bin_dir / 'notexec').write_text(u'')
    (extra / 'vxtunefs').write_text(u'#!/bin/sh\n')
    (extra / 'vxtunefs').chmod(0o755)
    assert find_executable('fio', path=str(bin_dir)) == str(bin_dir / 'fio')
    assert find_executable('notexec', path=str(bin_dir)) is None
    assert find_executable('vxtunefs', path=str(bin_dir)) is None
    assert find_executable('vxtunefs', [str(extra)], path=str(bin_dir)) == str(extra / 'vxtunefs')


# ---- the whole gatherer on the real capture -------------------------------------------------

@pytest.fixture(name='real_facts')
def real_facts_fixture(sysfs_real, fixture_path, read_fixture, tmp_path):
    runner = FakeRunner({
        'fio': (0, read_fixture('commands', 'fio-3.33--version.txt'), ''),
        'cp': (0, read_fixture('commands', 'cp-coreutils-9.1--version.txt'), ''),
    })
    return gather_io_facts(
        sys_root=sysfs_real,
        proc_root=fixture_path('proc', 'vm-loop'),
        dev_root=str(tmp_path / 'dev'),
        fstab_path=fixture_path('fstab', 'debian12-unconfigured.fstab'),
        tunefstab_path=str(tmp_path / 'tunefstab'),
        sysctl_conf_dirs=[str(tmp_path / 'none')],
        sysctl_conf=str(tmp_path / 'sysctl.conf'),
        run_command=runner,
        find_bin=fake_find({'fio': '/usr/bin/fio', 'cp': '/usr/bin/cp'}),
    )


def test_real_facts_keys(real_facts):
    assert sorted(real_facts) == ['block_devices', 'errors', 'fstab', 'memory_bytes', 'mounts', 'tools', 'vm', 'vxfs']
    assert real_facts['errors'] == []
    assert real_facts['fstab'] == []
    assert real_facts['memory_bytes'] == 25276502016
    assert real_facts['vm']['swappiness']['value'] == 60
    assert real_facts['tools']['fio'] == {'path': '/usr/bin/fio', 'version': '3.33'}
    assert real_facts['vxfs']['tunefstab_present'] is False
    assert real_facts['block_devices']['vda']['read_ahead_kb'] == 8192
    # 27 lines; /dev/pts, /dev/shm and /tmp/iotune-cap/stack are each mounted twice
    assert len(real_facts['mounts']) == 24


@pytest.mark.parametrize('mount_point, expected', [
    ('/', {'source': '/dev/vda', 'device': 'vda', 'partition': None, 'members': ['vda'], 'backing_disks': ['vda'], 'fstype': 'ext4',
           'options_live': ['rw', 'relatime', 'discard', 'resv_strict', 'resuid=65534', 'resgid=65534'],
           'mount_options': ['rw', 'relatime'],
           'super_options': ['rw', 'discard', 'resv_strict', 'resuid=65534', 'resgid=65534'],
           'options_fstab': None, 'fstab_spec': None, 'mount_id': 27, 'dev': '254:0', 'root': '/', 'bind': False}),
    ('/tmp/iotune-cap/data mnt', {
        'source': '/dev/loop0p1', 'device': 'loop0', 'partition': 'loop0p1', 'members': ['loop0p1'], 'backing_disks': ['loop0'], 'fstype': 'ext4',
        'options_live': ['rw', 'noatime', 'commit=30'], 'mount_options': ['rw', 'noatime'], 'super_options': ['rw', 'commit=30'],
        'options_fstab': None, 'fstab_spec': None, 'mount_id': 44, 'dev': '259:0', 'root': '/', 'bind': False}),
    ('/tmp/iotune-cap/bind', {
        'source': '/dev/loop0p1', 'device': 'loop0', 'partition': 'loop0p1', 'members': ['loop0p1'], 'backing_disks': ['loop0'], 'fstype': 'ext4',
        'options_live': ['rw', 'noatime', 'commit=30'], 'mount_options': ['rw', 'noatime'], 'super_options': ['rw', 'commit=30'],
        'options_fstab': None, 'fstab_spec': None, 'mount_id': 46, 'dev': '259:0', 'root': '/sub', 'bind': True}),
    ('/tmp/iotune-cap/xfs', {
        'source': '/dev/loop1', 'device': 'loop1', 'partition': None, 'members': ['loop1'], 'backing_disks': ['loop1'], 'fstype': 'xfs',
        'options_live': ['rw', 'relatime', 'largeio', 'inode64', 'logbufs=8', 'logbsize=256k', 'noquota'],
        'mount_options': ['rw', 'relatime'], 'super_options': ['rw', 'largeio', 'inode64', 'logbufs=8', 'logbsize=256k', 'noquota'],
        'options_fstab': None, 'fstab_spec': None, 'mount_id': 45, 'dev': '7:1', 'root': '/', 'bind': False}),
    # ext4 on loop0p2 with a tmpfs mounted over it: the tmpfs is what is visible
    ('/tmp/iotune-cap/stack', {
        'source': 'tmpfs', 'device': None, 'partition': None, 'members': [], 'backing_disks': [], 'fstype': 'tmpfs',
        'options_live': ['rw', 'relatime', 'size=1024k'], 'mount_options': ['rw', 'relatime'], 'super_options': ['rw', 'size=1024k'],
        'options_fstab': None, 'fstab_spec': None, 'mount_id': 49, 'dev': '0:41', 'root': '/', 'bind': False}),
])
def test_real_mounts(real_facts, mount_point, expected):
    assert real_facts['mounts'][mount_point] == expected


@pytest.mark.parametrize('mount_point, device, bind', [
    ('/var/lib/docker', 'vda', True),
    ('/tmp/iotune-cap/tmp', None, False),
    ('/proc', None, False),
    ('/sys/fs/cgroup/unified', None, False),
])
def test_real_mounts_device_and_bind(real_facts, mount_point, device, bind):
    assert real_facts['mounts'][mount_point]['device'] == device
    assert real_facts['mounts'][mount_point]['bind'] is bind


# ---- the whole gatherer on the constructed dm/md host ---------------------------------------

@pytest.fixture(name='dm_facts')
def dm_facts_fixture(sysfs_full, dev_root, fixture_path, sysctl_root):
    return gather_io_facts(
        gather=['mounts', 'fstab', 'vm'],
        sys_root=sysfs_full,
        proc_root=fixture_path('proc', 'constructed-dm-md'),
        dev_root=dev_root,
        fstab_path=fixture_path('fstab', 'constructed.fstab'),
        sysctl_conf_dirs=[os.path.join(sysctl_root, directory.lstrip('/')) for directory in CONF_DIRS],
        sysctl_conf=os.path.join(sysctl_root, 'etc', 'sysctl.conf'),
        run_command=FakeRunner({}),
    )


@pytest.mark.parametrize('mount_point, fields', [
    ('/srv/data', {'device': 'dm-0', 'partition': None, 'backing_disks': ['loop0'], 'bind': False,
                   'options_fstab': ['noatime', 'stripe=16'], 'fstab_spec': '/dev/mapper/vg0-data'}),
    ('/srv/archive', {'device': 'dm-1', 'partition': None, 'backing_disks': ['loop1', 'loop2'],
                      'options_fstab': ['logbufs=8', 'logbsize=256k', 'largeio'], 'fstab_spec': 'LABEL=archive',
                      'options_live': ['rw', 'relatime', 'attr2', 'inode64', 'logbufs=8', 'logbsize=32k', 'sunit=1024',
                                       'swidth=2048', 'noquota']}),
    ('/srv/projects', {'device': 'dm-0', 'root': '/exports/projects', 'bind': True, 'options_fstab': None}),
    ('/', {'device': 'vda', 'options_fstab': ['errors=remount-ro'], 'fstab_spec': 'UUID=3f1c2a9e-5b7d-4e8a-9c1f-2d3e4f5a6b7c'}),
    # fstab writes the mount point with a trailing slash
    ('/mnt/nfs4', {'device': None, 'backing_disks': [], 'fstype': 'nfs4', 'source': 'filer.example.com:/export/backup',
                   'options_fstab': ['rw', 'hard', '_netdev'], 'fstab_spec': 'filer.example.com:/export/backup'}),
    ('/mnt/nfs3', {'device': None, 'options_fstab': None, 'fstab_spec': None}),
    ('/mnt/backup target', {'device': None, 'options_fstab': ['size=1g', 'mode=1777'], 'fstab_spec': 'tmpfs'}),
    # btrfs: anonymous device number, resolved through the /dev path in the source
    ('/home', {'device': 'vda', 'partition': None, 'backing_disks': ['vda'], 'bind': True, 'dev': '0:48'}),
    ('/mnt/with space/and more', {'device': 'loop0', 'partition': 'loop0p1', 'backing_disks': ['loop0']}),
    ('/var/lib/docker/overlay2/3f9a/merged', {'device': None, 'fstype': 'overlay', 'backing_disks': []}),
])
def test_dm_md_mounts(dm_facts, mount_point, fields):
    mount = dm_facts['mounts'][mount_point]
    assert dict((key, mount[key]) for key in fields) == fields


def test_dm_md_fstab_resolved(dm_facts, dev_root):
    resolved = dict((entry['spec'], entry['resolved']) for entry in dm_facts['fstab'])
    real_dev = os.path.realpath(dev_root)
    assert resolved == {
        'UUID=3f1c2a9e-5b7d-4e8a-9c1f-2d3e4f5a6b7c': os.path.join(real_dev, 'vda'),
        '/dev/mapper/vg0-data': os.path.join(real_dev, 'dm-0'),
        'LABEL=archive': os.path.join(real_dev, 'dm-1'),
        'PARTUUID=7d5e1f0a-01': None,
        'UUID=0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d': None,
        '/swapfile': None,
        'filer.example.com:/export/backup': None,
        'tmpfs': None,
        '/dev/sr0': os.path.join(real_dev, 'sr0'),
    }


def test_dm_md_only_requested_subsets(dm_facts, sysctl_root):
    assert sorted(dm_facts) == ['errors', 'fstab', 'mounts', 'vm']
    assert dm_facts['vm']['dirty_ratio']['effective_persistent'] == 15
    assert dm_facts['vm']['dirty_ratio']['effective_file'] == os.path.join(sysctl_root, 'etc', 'sysctl.conf')
    # the constructed proc tree has no sys/vm: every live value is missing and reported
    assert dm_facts['vm']['dirty_ratio']['value'] is None
    assert len(dm_facts['errors']) == len(VM_KEYS)
    assert all(error.startswith('cannot read ') and '/sys/vm/' in error for error in dm_facts['errors'])


@pytest.mark.parametrize('gather, keys', [
    ([], ['errors']),
    (['memory'], ['errors', 'memory_bytes']),
    (['tools'], ['errors', 'tools']),
    (list(SUBSETS), ['block_devices', 'errors', 'fstab', 'memory_bytes', 'mounts', 'tools', 'vm', 'vxfs']),
])
def test_gather_selects_subsets(sysfs_real, fixture_path, tmp_path, gather, keys):
    runner = FakeRunner({'fio': (0, 'fio-3.33\n', ''), 'cp': (0, 'cp (GNU coreutils) 9.1\n', '')})
    facts = gather_io_facts(gather=gather, sys_root=sysfs_real, proc_root=fixture_path('proc', 'vm-loop'),
                            fstab_path=str(tmp_path / 'fstab'), tunefstab_path=str(tmp_path / 'tunefstab'),
                            sysctl_conf_dirs=[], sysctl_conf=None, run_command=runner,
                            find_bin=fake_find({'fio': '/usr/bin/fio', 'cp': '/usr/bin/cp'}))
    assert sorted(facts) == keys
    assert len(runner.calls) == (2 if 'tools' in gather else 0)


def test_gather_on_empty_root_never_raises(tmp_path):
    facts = gather_io_facts(sys_root=str(tmp_path / 'sys'), proc_root=str(tmp_path / 'proc'), dev_root=str(tmp_path / 'dev'),
                            fstab_path=str(tmp_path / 'fstab'), tunefstab_path=str(tmp_path / 'tunefstab'),
                            sysctl_conf_dirs=[], sysctl_conf=None, run_command=FakeRunner({}), find_bin=fake_find({}))
    assert facts['block_devices'] == {}
    assert facts['mounts'] == {}
    assert facts['memory_bytes'] is None
    assert facts['tools'] == {'fio': None, 'coreutils': None}
    assert facts['vxfs']['tools_present'] is False
    assert facts['errors'][0].startswith('cannot list %s' % (tmp_path / 'sys' / 'block'))
    assert facts['errors'][1].startswith('cannot read %s' % (tmp_path / 'proc' / 'self' / 'mountinfo'))
    assert len(facts['errors']) == 2 + len(VM_KEYS) + 1


def test_fstab_bytes_that_are_not_utf8(tmp_path):
    fstab = tmp_path / 'fstab'
    fstab.write_bytes(b'/dev/sdb1 /data\xff ext4 noatime 0 2\n')
    facts = gather_io_facts(gather=['fstab'], fstab_path=str(fstab), dev_root=str(tmp_path))
    assert facts['fstab'] == [{'spec': '/dev/sdb1', 'file': u'/data\ufffd', 'vfstype': 'ext4', 'options': ['noatime'],
                               'freq': 0, 'passno': 2, 'line': 1, 'resolved': None}]


def test_mount_facts_read_fstab_and_mountinfo_as_libmount_reads_them(tmp_path):
    """Issue 53: a mount point that is not UTF-8 (\\377) is the same name in mountinfo and fstab; of two fstab
    lines for one mount point the first is the one mount uses; a writable mount of a read-only file system is ro."""
    from ansible_collections.iotune.storage.plugins.module_utils.parse import fstab as fstab_mod, mountinfo
    from ansible_collections.iotune.storage.plugins.module_utils.parse.iofacts import mount_facts

    mounts = mountinfo.parse_mountinfo('37 20 8:18 / /mnt/rosb rw,relatime - ext4 /dev/sdb2 ro,errors=continue\n'
                                       '38 20 8:19 / /mnt/b\\377d rw,relatime - ext4 /dev/sdb3 rw\n')
    fstab_text = ('/dev/sdb2 /mnt/rosb ext4 errors=remount-ro 0 2\n/dev/sdx /mnt/rosb xfs noatime 0 0\n'
                  '/dev/sdb3 /mnt/b\udcffd ext4 noatime 0 0\n')
    facts = mount_facts(mounts, fstab_mod.entries(fstab_mod.parse_fstab(fstab_text)), str(tmp_path), str(tmp_path))
    assert facts['/mnt/rosb']['options_live'][0] == 'ro'
    assert facts['/mnt/rosb']['options_fstab'] == ['errors=remount-ro']
    assert facts['/mnt/b\udcffd']['options_fstab'] == ['noatime']
