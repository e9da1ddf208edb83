# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_snapshot end to end through main(): fixture roots, the VxFS simulator (tests/vxfs-sim/vxtunefs)
run by the module itself through AnsibleModule.run_command, and the snapshot file it writes."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import shutil
import stat
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.modules import io_snapshot
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                   'vxfs-sim', 'vxtunefs')
VOL01 = '/dev/vx/dsk/datadg/vol01'
U08 = '/dev/vx/dsk/datadg/u08'
SYSCTL_DIRS = ('etc/sysctl.d', 'run/sysctl.d', 'usr/local/lib/sysctl.d', 'usr/lib/sysctl.d', 'lib/sysctl.d')
UDEV_DIRS = ('etc/udev/rules.d', 'run/udev/rules.d', 'usr/local/lib/udev/rules.d', 'usr/lib/udev/rules.d', 'lib/udev/rules.d')


def _write(path, text):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'w') as handle:
        handle.write(text)


@pytest.fixture(name='args')
def args_fixture(tmp_path, fixture_path, sysfs_real, monkeypatch):
    """Module arguments pointing at a fixture root; the simulator has vol01 on /data and u08 on /u08."""
    root = str(tmp_path / 'root')
    proc = os.path.join(root, 'proc')
    shutil.copytree(fixture_path('proc', 'vm-loop'), proc)
    shutil.copy(fixture_path('vxfs', 'proc', 'self', 'mountinfo'), os.path.join(proc, 'self', 'mountinfo'))
    _write(os.path.join(root, 'etc/sysctl.d/60-iotune.conf'), 'vm.dirty_ratio = 40\n')
    _write(os.path.join(root, 'usr/lib/sysctl.d/50-vendor.conf'), 'vm.dirty_writeback_centisecs = 1500\n')
    _write(os.path.join(root, 'etc/fstab'), '/dev/vda / ext4 errors=remount-ro 0 1\n')
    tunefstab = os.path.join(root, 'etc/vx/tunefstab')
    shutil.copy(fixture_path('tunefstab', 'constructed-solaris.tunefstab'), os.path.join(root, 'etc'))
    os.makedirs(os.path.dirname(tunefstab))
    os.rename(os.path.join(root, 'etc', 'constructed-solaris.tunefstab'), tunefstab)
    monkeypatch.setenv('VXFS_SIM_STATE', str(tmp_path / 'vxfs-sim' / 'state.json'))
    monkeypatch.setenv('VXTUNEFSTAB', tunefstab)
    monkeypatch.delenv('VXFS_SIM_VERSION', raising=False)
    for device, mount_point in ((VOL01, '/data'), (U08, '/u08')):
        subprocess.run([SIM, '--sim-mount', device, mount_point], check=True)
    return {
        'name': 'pre-upgrade',
        'snapshot_dir': str(tmp_path / 'iotune' / 'snapshots'),
        'fstab_path': os.path.join(root, 'etc/fstab'),
        'tunefstab_path': tunefstab,
        'vxtunefs': SIM,
        'sys_root': sysfs_real,
        'proc_root': proc,
        'dev_root': os.path.join(root, 'dev'),
        'sysctl_conf_dirs': [os.path.join(root, d) for d in SYSCTL_DIRS],
        'sysctl_conf': os.path.join(root, 'etc/sysctl.conf'),
        'udev_rules_dirs': [os.path.join(root, d) for d in UDEV_DIRS],
        'udev_db_dir': os.path.join(root, 'run/udev/data'),
        'unit_dir': os.path.join(root, 'etc/systemd/system'),
        'boot_dir': os.path.join(root, 'boot'),
        'modules_dir': os.path.join(root, 'lib/modules'),
        'vmlinuz_links': [os.path.join(root, 'vmlinuz')],
    }


@pytest.fixture(name='run')
def run_fixture(monkeypatch):
    return lambda args: run_main(monkeypatch, io_snapshot, args)


def test_writes_0600_in_a_new_0700_directory(run, args):
    kind, result = run(args)
    assert kind == 'exit', result
    path = os.path.join(args['snapshot_dir'], 'pre-upgrade.json')
    assert (result['changed'], result['path']) == (True, path)
    assert stat.S_IMODE(os.stat(args['snapshot_dir']).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path) as handle:
        written = json.load(handle)
    assert written == result['snapshot']
    assert written['name'] == 'pre-upgrade' and written['format'] == 2
    assert os.listdir(args['snapshot_dir']) == ['pre-upgrade.json']


def test_existing_directory_keeps_its_mode(run, args):
    os.makedirs(args['snapshot_dir'], 0o750)
    os.chmod(args['snapshot_dir'], 0o750)
    kind, result = run(args)
    assert kind == 'exit', result
    assert stat.S_IMODE(os.stat(args['snapshot_dir']).st_mode) == 0o750
    assert stat.S_IMODE(os.stat(result['path']).st_mode) == 0o600


def test_check_mode_writes_nothing(run, args):
    args['_ansible_check_mode'] = True
    kind, result = run(args)
    assert kind == 'exit', result
    assert result['changed'] is True
    assert result['path'] == os.path.join(args['snapshot_dir'], 'pre-upgrade.json')
    assert result['snapshot']['name'] == 'pre-upgrade'
    assert not os.path.exists(os.path.dirname(args['snapshot_dir']))


@pytest.mark.parametrize('name', ['a/b', '..', '', 'x' * 101, 'x/../y', '.', 'a..b'])
def test_bad_names_fail_naming_the_field_and_write_nothing(run, args, name):
    args['name'] = name
    kind, result = run(args)
    assert kind == 'fail'
    assert result['msg'].startswith('name: %r' % name[:20])
    assert 'accepted: 1 to 100 characters' in result['msg']
    assert 'snapshot' not in result and result['changed'] is False
    assert not os.path.exists(os.path.dirname(args['snapshot_dir']))


def test_snapshot_dir_that_is_a_file(run, args, tmp_path):
    _write(str(tmp_path / 'file'), 'x')
    args['snapshot_dir'] = str(tmp_path / 'file')
    kind, result = run(args)
    assert kind == 'fail' and result['msg'] == 'snapshot_dir: %s exists and is not a directory' % args['snapshot_dir']


def test_settings_vm_key_admin_and_vendor(run, args):
    args['_ansible_check_mode'] = True
    settings = run(args)[1]['snapshot']['settings']
    admin = settings['vm.dirty_ratio']['persistent']
    assert [(a['source'], a['value'], a['vendor']) for a in admin] == [
        (os.path.join(args['sysctl_conf_dirs'][0], '60-iotune.conf'), 40, False)]
    vendor = settings['vm.dirty_writeback_centisecs']['persistent']
    assert [(a['source'], a['value'], a['vendor']) for a in vendor] == [
        (os.path.join(args['sysctl_conf_dirs'][3], '50-vendor.conf'), 1500, True)]


def test_vxfs_tunables_from_the_simulator(run, args):
    subprocess.run([SIM, '-o', 'discovered_direct_iosz=1m', '/data'], check=True)
    args['_ansible_check_mode'] = True
    snapshot = run(args)[1]['snapshot']
    assert sorted(snapshot['vxtunefs']) == ['/data', '/u08']
    assert snapshot['vxtunefs']['/data']['values']['discovered_direct_iosz'] == 1048576
    assert snapshot['vxtunefs']['/u08']['values']['discovered_direct_iosz'] == 10485760
    setting = snapshot['settings']['tunefstab:/u08:discovered_direct_iosz']
    assert (setting['target'], setting['live']) == (U08, 10485760)
    assert [(a['line'], a['value']) for a in setting['persistent']] == [(8, 10485760)]
    assert snapshot['sources'][args['tunefstab_path']]['kind'] == 'tunefstab'


def test_policy_checks_are_kept(run, args):
    args['_ansible_check_mode'] = True
    args['policy_checks'] = [{'id': 'x', 'concern': 'tunefstab', 'target': U08, 'setting': 'discovered_direct_iosz',
                              'expected': 10485760, 'live': 10485760, 'persistent': 10485760, 'status': 'compliant',
                              'message': 'ok'}]
    snapshot = run(args)[1]['snapshot']
    assert snapshot['policy_checks'] == [{'id': 'x', 'concern': 'tunefstab', 'target': U08,
                                          'setting': 'discovered_direct_iosz', 'expected': 10485760, 'status': 'compliant'}]


def test_read_returns_earlier_snapshots_in_the_same_run(run, args):
    assert run(args)[0] == 'exit'
    earlier = json.loads(open(os.path.join(args['snapshot_dir'], 'pre-upgrade.json')).read())
    kind, result = run(dict(args, name='post-upgrade', read=['pre-upgrade']))
    assert kind == 'exit', result
    assert result['snapshots'] == {'pre-upgrade': earlier}
    assert result['snapshot']['name'] == 'post-upgrade'
    assert sorted(os.listdir(args['snapshot_dir'])) == ['post-upgrade.json', 'pre-upgrade.json']


def test_read_alone_takes_no_snapshot(run, args):
    assert run(args)[0] == 'exit'
    before = sorted(os.listdir(args['snapshot_dir']))
    del args['name']
    kind, result = run(dict(args, read=['pre-upgrade', 'pre-upgrade']))
    assert kind == 'exit', result
    assert (result['changed'], list(result['snapshots']), 'snapshot' in result) == (False, ['pre-upgrade'], False)
    assert sorted(os.listdir(args['snapshot_dir'])) == before


@pytest.mark.parametrize('name, message', [
    ('missing', "read[0]: no snapshot 'missing' ("),
    ('../etc/passwd', "read[0]: name: '../etc/passwd' contains"),
])
def test_read_of_a_bad_or_missing_name_fails_naming_it_and_writes_nothing(run, args, name, message):
    assert run(args)[0] == 'exit'
    kind, result = run(dict(args, name='post-upgrade', read=[name]))
    assert kind == 'fail' and result['msg'].startswith(message), result
    assert os.listdir(args['snapshot_dir']) == ['pre-upgrade.json']
    if name == 'missing':
        assert result['msg'].endswith('snapshots in %s: pre-upgrade' % args['snapshot_dir'])


def test_kernels_from_the_boot_options(run, args, build_tree):
    """boot_dir, modules_dir, vmlinuz_links: the Debian 12 -> 13 trees, the 6.12 kernel installed and /vmlinuz moved to it."""
    root = os.path.dirname(args['boot_dir'])
    build_tree(root, 'snapshot/kernels/debian12.json', 'snapshot/kernels/debian13-kernel-installed.json')
    os.remove(os.path.join(root, 'vmlinuz'))
    os.symlink('boot/vmlinuz-6.12.117+deb13-cloud-amd64', os.path.join(root, 'vmlinuz'))
    args['_ansible_check_mode'] = True
    kind, result = run(args)
    assert kind == 'exit', result
    kernels = result['snapshot']['kernels']
    assert kernels['installed'] == ['6.1.0-50-cloud-amd64', '6.12.117+deb13-cloud-amd64']
    assert (kernels['next_boot'], kernels['next_boot_source']) == (
        '6.12.117+deb13-cloud-amd64', '%s/vmlinuz -> boot/vmlinuz-6.12.117+deb13-cloud-amd64' % root)
    assert kernels['configs']['6.12.117+deb13-cloud-amd64']['CONFIG_MQ_IOSCHED_DEADLINE'] == 'm'
    assert kernels['scheduler_modules']['6.12.117+deb13-cloud-amd64'] == ['bfq', 'kyber-iosched', 'mq-deadline']
    snapshot = result['snapshot']
    assert snapshot['format'] == 2 and snapshot['sysctl']['vm.dirty_ratio'] == '20'      # proc/vm-loop, live
    assert all('conffile' in source for source in snapshot['sources'].values())


def test_format1_snapshot_is_read(run, args, fixture_path):
    """The recorded pre-upgrade snapshot (format 1) is returned by read as it is."""
    os.makedirs(args['snapshot_dir'], 0o700)
    shutil.copy(fixture_path('snapshot', 'debian12-to-13', 'pre-upgrade.json'), args['snapshot_dir'])
    os.chmod(os.path.join(args['snapshot_dir'], 'pre-upgrade.json'), 0o600)
    kind, result = run(dict(args, name='post-upgrade', read=['pre-upgrade'], _ansible_check_mode=True))
    assert kind == 'exit', result
    assert result['snapshots']['pre-upgrade']['format'] == 1 and result['snapshot']['format'] == 2
