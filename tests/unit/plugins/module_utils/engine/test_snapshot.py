# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""_snapshot (issue 19): the snapshot of docs/snapshot.md from fixture roots, with a fake
dpkg and the VxFS simulator (tests/vxfs-sim/vxtunefs) for the live VxFS values."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.engine import snapshot as snap
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import load_order
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS

TESTS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
SIM = os.path.join(TESTS, 'vxfs-sim', 'vxtunefs')
VOL01 = '/dev/vx/dsk/datadg/vol01'
U08 = '/dev/vx/dsk/datadg/u08'
U09 = '/dev/vx/dsk/datadg/u09'
UDEV_DIRS = ('etc/udev/rules.d', 'run/udev/rules.d', 'usr/local/lib/udev/rules.d', 'usr/lib/udev/rules.d', 'lib/udev/rules.d')
SYSCTL_DIRS = ('etc/sysctl.d', 'run/sysctl.d', 'usr/local/lib/sysctl.d', 'usr/lib/sysctl.d', 'lib/sysctl.d')
MACHINE_ID = '4c4c4544004a3510804ac4c04f4e3732'
NOW = datetime.datetime(2026, 11, 25, 10, 0, 0, tzinfo=datetime.timezone.utc)
VM_LIVE = {'dirty_ratio': 40, 'dirty_background_ratio': 10, 'dirty_bytes': 0, 'dirty_background_bytes': 0,
           'dirty_expire_centisecs': 3000, 'dirty_writeback_centisecs': 1500, 'vfs_cache_pressure': 100,
           'swappiness': 60, 'min_free_kbytes': 67584, 'dirtytime_expire_seconds': 43200}


# ---------------------------------------------------------------- name

@pytest.mark.parametrize('name', ['pre-upgrade', 'post-upgrade', 'a', 'x' * 100, '.hidden', 'a.b', 'kernel 6.1 (before)'])
def test_valid_names(name):
    assert snap.validate_name(name) == name


@pytest.mark.parametrize('name, why', [
    ('a/b', 'contains a "/"'),
    ('/abs', 'contains a "/"'),
    ('..', 'contains ".."'),
    ('x/../y', 'contains a "/"'),
    ('a..b', 'contains ".."'),
    ('.', 'is not accepted'),
    ('', 'has 0 characters'),
    ('x' * 101, 'has 101 characters'),
    ('a\0b', 'contains a NUL character'),
    (None, 'is not a string'),
    (7, 'is not a string'),
])
def test_bad_names_name_the_field(name, why):
    with pytest.raises(ValueError) as excinfo:
        snap.validate_name(name)
    message = str(excinfo.value)
    assert message.startswith('name: ') and why in message
    assert message.endswith('accepted: 1 to 100 characters, without "/" or NUL, not "." or "..", without ".." in it')


def test_snapshot_path():
    assert snap.snapshot_path('/var/lib/iotune/snapshots', 'pre-upgrade') == '/var/lib/iotune/snapshots/pre-upgrade.json'
    with pytest.raises(ValueError, match='^snapshot_dir: must be an absolute path'):
        snap.snapshot_path('snapshots', 'pre-upgrade')


def test_write_snapshot_modes(tmp_path):
    directory = str(tmp_path / 'iotune' / 'snapshots')
    path = snap.write_snapshot(directory, 'pre-upgrade', {'name': 'pre-upgrade'})
    assert path == os.path.join(directory, 'pre-upgrade.json')
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path) as handle:
        assert json.load(handle) == {'name': 'pre-upgrade'}
    # an existing directory keeps its mode; an existing file becomes 0600 again; no temporary file is left
    os.chmod(directory, 0o750)
    os.chmod(path, 0o644)
    snap.write_snapshot(directory, 'pre-upgrade', {'name': 'pre-upgrade', 'format': 1})
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o750
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert os.listdir(directory) == ['pre-upgrade.json']


def test_write_snapshot_refuses_a_file_as_directory(tmp_path):
    (tmp_path / 'file').write_text('x')
    with pytest.raises(ValueError, match='^snapshot_dir: .* exists and is not a directory'):
        snap.write_snapshot(str(tmp_path / 'file'), 'pre-upgrade', {})


# ---------------------------------------------------------------- vendor files and packages

@pytest.mark.parametrize('path, vendor', [
    ('/usr/lib/sysctl.d/50-pid-max.conf', True),
    ('/lib/sysctl.d/50-pid-max.conf', True),
    ('/usr/lib/udev/rules.d/60-block.rules', True),
    ('/lib/udev/rules.d/60-block.rules', True),
    ('/etc/sysctl.d/60-iotune.conf', False),
    ('/run/sysctl.d/70-runtime.conf', False),
    ('/usr/local/lib/sysctl.d/65-local.conf', False),
    ('/usr/local/lib/udev/rules.d/65-local.rules', False),
    ('/etc/sysctl.conf', False),
    ('/etc/udev/rules.d/60-iotune.rules', False),
    ('/tmp/root/usr/lib/sysctl.d/x.conf', True),          # fixture roots
    ('/tmp/root/usr/local/lib/sysctl.d/x.conf', False),
])
def test_vendor_directories(path, vendor):
    assert snap.is_vendor(path) is vendor


def test_parse_dpkg_query():
    out = ('coreutils\t9.1-1\tinstall ok installed\n'
           'fio\t3.33-3\tinstall ok installed\n'
           'udev\t\tunknown ok not-installed\n'
           'procps\t2:4.0.2-3\tdeinstall ok config-files\n'
           'linux-image-6.1.0-27-amd64\t6.1.115-1\thold ok installed\n')
    assert snap.parse_dpkg_query(out) == {'coreutils': '9.1-1', 'fio': '3.33-3', 'linux-image-6.1.0-27-amd64': '6.1.115-1'}


def test_parse_rpm_query_keeps_the_running_kernel():
    out = ('kernel-core\t6.5.6-300.fc39\tx86_64\n'
           'kernel-core\t6.5.12-300.fc39\tx86_64\n'
           'package kernel is not installed\n'
           'util-linux\t2.39.2-1.fc39\tx86_64\n'
           'coreutils\t9.3-4.fc39\tx86_64\n'
           'VRTSvxfs\t1:8.0.2.1100-RHEL9\tx86_64\n')
    assert snap.parse_rpm_query(out, '6.5.12-300.fc39.x86_64') == {
        'kernel-core': '6.5.12-300.fc39', 'util-linux': '2.39.2-1.fc39', 'coreutils': '9.3-4.fc39',
        'VRTSvxfs': '1:8.0.2.1100-RHEL9'}


def test_parse_dpkg_search():
    out = ('systemd: /usr/lib/sysctl.d/50-pid-max.conf\n'
           'diversion by foo from: /etc/x.conf\n'
           'libc6:amd64, libc6:i386: /usr/lib/sysctl.d/10-libc.conf\n'
           'procps: /etc/sysctl.conf\n')
    assert snap.parse_dpkg_search(out) == {
        '/usr/lib/sysctl.d/50-pid-max.conf': 'systemd',
        '/usr/lib/sysctl.d/10-libc.conf': 'libc6, libc6',
        '/etc/sysctl.conf': 'procps',
    }


def test_dpkg_owners_through_the_other_side_of_merged_usr():
    """Debian 12 records udev's files under /lib, listed here under /usr/lib (the earlier directory)."""
    calls = []

    def run(argv):
        calls.append(argv)
        known = {'/lib/udev/rules.d/60-block.rules': 'udev', '/usr/lib/sysctl.d/50-pid-max.conf': 'systemd'}
        out = ''.join('%s: %s\n' % (known[p], p) for p in argv[2:] if p in known)
        return (0 if len(out.splitlines()) == len(argv) - 2 else 1), out, ''
    errors = []
    owners = snap.file_owners('dpkg', {'search': '/usr/bin/dpkg'},
                              ['/usr/lib/sysctl.d/50-pid-max.conf', '/usr/lib/udev/rules.d/60-block.rules',
                               '/usr/lib/udev/rules.d/99-none.rules'], run, errors)
    assert owners == {'/usr/lib/sysctl.d/50-pid-max.conf': 'systemd', '/usr/lib/udev/rules.d/60-block.rules': 'udev',
                      '/usr/lib/udev/rules.d/99-none.rules': None}
    # one call: the paths, then their other merged-/usr names
    assert calls == [
        ['/usr/bin/dpkg', '-S', '/usr/lib/sysctl.d/50-pid-max.conf', '/usr/lib/udev/rules.d/60-block.rules',
         '/usr/lib/udev/rules.d/99-none.rules', '/lib/sysctl.d/50-pid-max.conf', '/lib/udev/rules.d/60-block.rules',
         '/lib/udev/rules.d/99-none.rules'],
    ]
    assert errors == []


def test_rpm_owners_one_file_at_a_time():
    def run(argv):
        if argv[-1] == '/usr/lib/sysctl.d/50-default.conf':
            return 0, 'systemd\n', ''
        return 1, 'file %s is not owned by any package\n' % argv[-1], ''
    owners = snap.file_owners('rpm', {'search': '/usr/bin/rpm'}, ['/usr/lib/sysctl.d/50-default.conf', '/usr/lib/x'], run, [])
    assert owners == {'/usr/lib/sysctl.d/50-default.conf': 'systemd', '/usr/lib/x': None}


# ---------------------------------------------------------------- a whole snapshot from fixture roots

def _write(path, text):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'w') as handle:
        handle.write(text)


@pytest.fixture(name='host')
def host_fixture(tmp_path, build_tree, fixture_path, read_fixture, sysfs_real, monkeypatch):
    """A host root: the real sysfs capture, a proc with the VxFS mountinfo, the constructed udev tree,
    a sysctl tree with a vendor file, the Solaris tunefstab sample, a slice unit, and the simulator
    with vol01 on /data, u08 on /u08 (both in mountinfo) and u09 on /u09 (only in the tunefstab)."""
    root = str(tmp_path / 'root')
    build_tree(root, 'udev/constructed-tree.json')
    proc = os.path.join(root, 'proc')
    shutil.copytree(fixture_path('vxfs', 'proc', 'self'), os.path.join(proc, 'self'))
    shutil.copy(fixture_path('proc', 'vm-loop', 'meminfo'), os.path.join(proc, 'meminfo'))
    os.makedirs(os.path.join(proc, 'sys', 'vm'), exist_ok=True)
    for key in VM_KEYS:
        if key in VM_LIVE:
            _write(os.path.join(proc, 'sys', 'vm', key), '%d\n' % VM_LIVE[key])
        else:  # a key of the settings table this test does not set: the real value of the VM fixture
            shutil.copy(fixture_path('proc', 'vm-loop', 'sys', 'vm', key), os.path.join(proc, 'sys', 'vm', key))
    _write(os.path.join(proc, 'sys', 'kernel', 'osrelease'), '6.1.0-27-amd64\n')
    _write(os.path.join(proc, 'sys', 'kernel', 'hostname'), 'db01\n')
    _write(os.path.join(root, 'etc/machine-id'), MACHINE_ID + '\n')
    _write(os.path.join(root, 'etc/sysctl.d/60-iotune.conf'), '# iotune\nvm.dirty_ratio = 40\n')
    _write(os.path.join(root, 'usr/lib/sysctl.d/50-vendor.conf'), 'vm.dirty_ratio = 30\nvm.dirty_writeback_centisecs = 1500\n')
    _write(os.path.join(root, 'etc/sysctl.conf'), '# nothing here\n')
    _write(os.path.join(root, 'etc/fstab'), '/dev/vda / ext4 errors=remount-ro 0 1\n'
           '%s /data vxfs delaylog 0 2\n/dev/vdz /archive xfs defaults,noauto 0 0\n/dev/vdy none swap sw 0 0\n' % VOL01)
    shutil.copy(fixture_path('tunefstab', 'constructed-solaris.tunefstab'), os.path.join(root, 'etc/tunefstab'))
    _write(os.path.join(root, 'etc/systemd/system/iotune-bulk.slice'), '[Slice]\nMemoryHigh=2G\n')
    _write(os.path.join(root, 'etc/systemd/system/iotune-bulk.slice.d/10-cpu.conf'), '[Slice]\nCPUWeight=20\n')
    tunefstab = os.path.join(root, 'etc/tunefstab')
    monkeypatch.setenv('VXFS_SIM_STATE', str(tmp_path / 'vxfs-sim' / 'state.json'))
    monkeypatch.setenv('VXTUNEFSTAB', tunefstab)
    monkeypatch.delenv('VXFS_SIM_VERSION', raising=False)

    def sim(*args):
        return subprocess.run([sys.executable, SIM] + list(args), check=True, capture_output=True, text=True).stdout
    for device, mount_point in ((VOL01, '/data'), (U08, '/u08'), (U09, '/u09')):
        sim('--sim-mount', device, mount_point)
    calls = []

    def run_command(argv):
        calls.append(list(argv))
        assert isinstance(argv, list)
        name = os.path.basename(argv[0])
        if name == 'dpkg-query' and argv[1] == '-W':
            # the real database of a Debian 12 host (its conffiles under the fixture root), the kernel, and database
            lines = [(' ' + root + line[1:] if line.startswith(' /') else line) for line in take.database.splitlines()]
            return 0, '\n'.join(lines) + '\nlinux-image-6.1.0-27-amd64\t6.1.115-1\tinstall ok installed\n', ''
        if name == 'dpkg-query' and argv[1] == '-S':
            found = [p for p in argv[2:] if p[len(root):] in take.owners]
            return (0 if len(found) == len(argv) - 2 else 1), ''.join('%s: %s\n' % (take.owners[p[len(root):]], p) for p in found), \
                ''.join('dpkg-query: no path found matching pattern %s\n' % p for p in argv[2:] if p not in found)
        if name == 'vxtunefs':
            proc_ = subprocess.run([sys.executable, SIM] + argv[1:], capture_output=True, text=True, check=False)
            return proc_.returncode, proc_.stdout, proc_.stderr
        return 127, '', 'not here'
    bins = {'dpkg-query': '/usr/bin/dpkg-query', 'dpkg': '/usr/bin/dpkg', 'vxtunefs': SIM}

    def take(name='pre-upgrade', **extra):
        args = dict(
            run_command=run_command, find_bin=bins.get, now=NOW,
            sys_root=sysfs_real, proc_root=proc, dev_root=os.path.join(root, 'dev'),
            fstab_path=os.path.join(root, 'etc/fstab'), tunefstab_path=tunefstab,
            sysctl_conf_dirs=[os.path.join(root, d) for d in SYSCTL_DIRS], sysctl_conf=os.path.join(root, 'etc/sysctl.conf'),
            udev_rules_dirs=[os.path.join(root, d) for d in UDEV_DIRS], udev_db_dir=os.path.join(root, 'run/udev/data'),
            unit_dir=os.path.join(root, 'etc/systemd/system'), machine_id_path=os.path.join(root, 'etc/machine-id'),
            boot_dir=os.path.join(root, 'boot'), modules_dir=os.path.join(root, 'lib/modules'),
            vmlinuz_links=[os.path.join(root, 'vmlinuz'), os.path.join(root, 'boot/vmlinuz')])
        args.update(extra)
        return snap.take_snapshot(name, **args)
    take.root = root
    take.database = read_fixture('commands', 'dpkg-query-W-conffiles-debian12.txt')
    # dpkg-query -S of Debian 12: procps ships /etc/sysctl.conf
    take.owners = {'/usr/lib/sysctl.d/50-vendor.conf': 'procps', '/lib/udev/rules.d/60-block-scheduler.rules': 'udev',
                   '/etc/sysctl.conf': 'procps'}
    take.sim = sim
    take.calls = calls
    take.tunefstab = tunefstab
    return take


def test_top_level(host):
    result = host(policy_checks=[{'id': 'cache_limits:sysctl:vm.dirty_ratio', 'concern': 'cache_limits', 'target': 'sysctl',
                                  'setting': 'vm.dirty_ratio', 'expected': 40, 'live': 40, 'persistent': 40,
                                  'status': 'compliant', 'message': 'm'}])
    assert list(result) == ['format', 'name', 'taken', 'host', 'package_manager', 'packages', 'conffiles', 'kernels', 'facts',
                            'device_ids', 'sources', 'sysctl', 'vxtunefs', 'settings', 'policy_checks', 'errors']
    # the fixture root has no /boot: nothing installed, nothing known, no error
    assert result['kernels'] == {'running': '6.1.0-27-amd64', 'installed': [], 'next_boot': None, 'next_boot_source': None,
                                 'configs': {}, 'scheduler_modules': {}}
    assert (result['format'], result['name'], result['taken']) == (2, 'pre-upgrade', '2026-11-25T10:00:00Z')
    assert result['host'] == {'hostname': 'db01', 'kernel_release': '6.1.0-27-amd64', 'machine_id': MACHINE_ID}
    assert result['package_manager'] == 'dpkg'
    assert result['packages'] == {'coreutils': '9.1-1', 'fio': '3.33-3', 'linux-image-6.1.0-27-amd64': '6.1.115-1',
                                  'procps': '2:4.0.2-3', 'udev': '252.39-1~deb12u2', 'util-linux': '2.38.1-5+deb12u3'}
    assert sorted(result['facts']) == ['block_devices', 'errors', 'fstab', 'memory_bytes', 'mounts', 'tools', 'vm', 'vxfs']
    assert result['policy_checks'] == [{'id': 'cache_limits:sysctl:vm.dirty_ratio', 'concern': 'cache_limits',
                                        'target': 'sysctl', 'setting': 'vm.dirty_ratio', 'expected': 40, 'status': 'compliant'}]
    # one JSON document, and the commands were argument lists: one dpkg-query -S of every source, one -W of the database
    json.loads(snap.render_snapshot(result).decode('utf-8'))
    queries = [argv for argv in host.calls if argv[0] == '/usr/bin/dpkg-query']
    assert [argv[:2] for argv in queries] == [['/usr/bin/dpkg-query', '-S'], ['/usr/bin/dpkg-query', '-W']]
    assert queries[0][2:] == list(result['sources'])
    assert queries[1] == ['/usr/bin/dpkg-query', '-W', '-f', r'${Package}\t${Version}\t${Status}\n${Conffiles}\n']
    assert [argv for argv in host.calls if argv[0] == '/usr/bin/dpkg'] == []


def test_sources(host):
    result = host()
    root = host.root
    sources = dict((path[len(root):], value) for path, value in result['sources'].items())
    sysctl_order = [path[len(root):] for path in load_order([os.path.join(root, d) for d in SYSCTL_DIRS],
                                                            os.path.join(root, 'etc/sysctl.conf'))]
    # by kind, each kind in boot order
    assert list(sources) == (['/etc/fstab', '/etc/tunefstab'] + [p for p in sources if sources[p]['kind'] == 'udev']
                             + sysctl_order
                             + ['/etc/systemd/system/iotune-bulk.slice', '/etc/systemd/system/iotune-bulk.slice.d/10-cpu.conf'])
    assert sysctl_order == ['/usr/lib/sysctl.d/50-vendor.conf', '/etc/sysctl.d/60-iotune.conf', '/etc/sysctl.conf']
    # udev: the files that set a queue attribute, in processing order; the masked 60-block-scheduler is not read
    assert [p for p in sources if sources[p]['kind'] == 'udev'] == [
        '/etc/udev/rules.d/60-iotune.rules', '/etc/udev/rules.d/61-wwn-max-sectors.rules',
        '/etc/udev/rules.d/65-dm-readahead.rules', '/run/udev/rules.d/69-vendor.rules',
        '/etc/udev/rules.d/70-readahead.rules', '/etc/udev/rules.d/99-local.rules']
    vendor = sources['/usr/lib/sysctl.d/50-vendor.conf']
    assert vendor == {'kind': 'sysctl', 'text': 'vm.dirty_ratio = 30\nvm.dirty_writeback_centisecs = 1500\n',
                      'sha256': hashlib.sha256(b'vm.dirty_ratio = 30\nvm.dirty_writeback_centisecs = 1500\n').hexdigest(),
                      'vendor': True, 'package': 'procps', 'conffile': None}
    assert [(p, s['kind'], s['vendor'], s['package']) for p, s in sources.items() if not s['vendor']][:2] == [
        ('/etc/fstab', 'fstab', False, None), ('/etc/tunefstab', 'tunefstab', False, None)]
    assert sources['/etc/systemd/system/iotune-bulk.slice']['text'] == '[Slice]\nMemoryHigh=2G\n'
    # owners are looked up for every source, admin files too: procps ships /etc/sysctl.conf as a conffile
    assert (sources['/etc/sysctl.conf']['package'], sources['/etc/sysctl.conf']['conffile']) == (
        'procps', {'package': 'procps', 'obsolete': False, 'removed': False})
    search = [call for call in host.calls if call[:2] == ['/usr/bin/dpkg-query', '-S']]
    assert [[p[len(root):] for p in call[2:]] for call in search] == [list(sources)]


def test_settings_vm_admin_and_vendor(host):
    """dirty_ratio: a vendor file then the administrator's; dirty_writeback_centisecs: only a vendor file."""
    settings = host()['settings']
    root = host.root

    def rel(setting):
        return [(a['source'][len(root):], a['line'], a['value'], a['vendor']) for a in setting['persistent']]
    ratio = settings['vm.dirty_ratio']
    assert (ratio['concern'], ratio['target'], ratio['setting'], ratio['live']) == ('cache_limits', 'sysctl', 'vm.dirty_ratio', 40)
    assert rel(ratio) == [('/usr/lib/sysctl.d/50-vendor.conf', 1, 30, True), ('/etc/sysctl.d/60-iotune.conf', 2, 40, False)]
    writeback = settings['vm.dirty_writeback_centisecs']
    assert writeback['live'] == 1500
    assert rel(writeback) == [('/usr/lib/sysctl.d/50-vendor.conf', 2, 1500, True)]
    assert settings['vm.swappiness'] == {'concern': 'cache_limits', 'target': 'sysctl', 'setting': 'vm.swappiness',
                                         'live': 60, 'persistent': []}
    assert sorted(k for k in settings if k.startswith('vm.')) == sorted('vm.' + k for k in VM_KEYS)


def test_settings_block_queue_with_the_rules_in_order(host):
    result = host()
    settings = result['settings']
    root = host.root

    def rel(key):
        return [(a['source'][len(root):], a['line'], a['value'], a['vendor']) for a in settings[key]['persistent']]
    ra = settings['block_queue:vda:read_ahead_kb']
    assert (ra['concern'], ra['target'], ra['setting'], ra['live']) == ('block_queue', 'vda', 'read_ahead_kb', 8192)
    # 60-iotune.rules sets 8192, then 70-readahead.rules (rotational disks) 4096, which wins at boot
    assert rel('block_queue:vda:read_ahead_kb') == [('/etc/udev/rules.d/60-iotune.rules', 3, 8192, False),
                                                    ('/etc/udev/rules.d/70-readahead.rules', 4, 4096, False)]
    assert rel('block_queue:vda:scheduler') == [('/etc/udev/rules.d/60-iotune.rules', 3, 'mq-deadline', False)]
    assert rel('block_queue:loop1:nr_requests') == [('/etc/udev/rules.d/60-iotune.rules', 4, 128, False)]
    assert settings['block_queue:vda:nr_requests']['persistent'] == []
    # a rule whose effect cannot be known is reported, not guessed
    unknown = [e for e in result['errors'] if e.startswith('block_queue:loop1:read_ahead_kb: ')]
    assert len(unknown) == 1 and '99-local.rules' in unknown[0]


def test_settings_mount_options(host):
    settings = host()['settings']
    fstab = os.path.join(host.root, 'etc/fstab')
    assert settings['mount_options:/data'] == {
        'concern': 'mount_options', 'target': '/data', 'setting': 'options',
        'live': ['delaylog', 'ioerror=mwdisable', 'largefiles', 'relatime', 'rw'],
        'persistent': [{'source': fstab, 'line': 2, 'value': ['delaylog'], 'vendor': False}]}
    # not mounted, but in fstab
    assert settings['mount_options:/archive']['live'] is None
    assert settings['mount_options:/archive']['persistent'][0]['value'] == ['defaults', 'noauto']
    # mounted, not in fstab; a bind mount of a subdirectory is there too; swap is not a mount point
    assert settings['mount_options:/scratch']['persistent'] == []
    assert sorted(k for k in settings if k.startswith('mount_options:')) == [
        'mount_options:/', 'mount_options:/archive', 'mount_options:/data', 'mount_options:/scratch',
        'mount_options:/srv/u08-export', 'mount_options:/u08']


def test_vxtunefs_and_tunefstab_settings_from_the_simulator(host):
    host.sim('-o', 'read_ahead=2', '/data')          # live only
    result = host()
    assert sorted(result['vxtunefs']) == ['/data', '/u08', '/u09']
    data = result['vxtunefs']['/data']
    assert (data['device'], data['error']) == (VOL01, None)
    # the mount applied the tunefstab lines of vol01 (read_nstream: the later line wins)
    assert (data['values']['read_pref_io'], data['values']['read_nstream'], data['values']['read_ahead']) == (262144, 8, 2)
    assert len(data['values']) == 25
    # u09 is not in mountinfo: found through the tunefstab file
    assert result['vxtunefs']['/u09']['device'] == U09
    settings = result['settings']
    tunefstab = host.tunefstab
    assert settings['tunefstab:/data:read_nstream'] == {
        'concern': 'tunefstab', 'target': VOL01, 'setting': 'read_nstream', 'live': 8,
        'persistent': [{'source': tunefstab, 'line': 7, 'value': 4, 'vendor': False},
                       {'source': tunefstab, 'line': 12, 'value': 8, 'vendor': False}]}
    assert settings['tunefstab:/data:read_ahead'] == {
        'concern': 'tunefstab', 'target': VOL01, 'setting': 'read_ahead', 'live': 2, 'persistent': []}
    assert settings['tunefstab:/u08:discovered_direct_iosz']['live'] == 10485760
    assert settings['tunefstab:/u09:discovered_direct_iosz'] == {
        'concern': 'tunefstab', 'target': U09, 'setting': 'discovered_direct_iosz', 'live': 262144, 'persistent': []}
    # vxtunefs -p per mount point from mountinfo, then per device of the file not mounted there
    vx = [call[1:] for call in host.calls if call[0] == SIM]
    assert vx == [['-p', '/data'], ['-p', '/u08'], ['-p', U09]]


def test_simulated_upgrade_changes_a_default(host):
    """Seed 001: the simulator upgraded to 8.0; what no tunefstab line sets follows the new default."""
    before = host('pre-upgrade')['settings']
    host.sim('--sim-upgrade', '8.0')
    after = host('post-upgrade')['settings']
    changed = dict((key, (before[key]['live'], after[key]['live'])) for key in before
                   if key in after and before[key]['live'] != after[key]['live'])
    assert changed == {'tunefstab:/data:discovered_direct_iosz': (262144, 1048576),
                       'tunefstab:/u09:discovered_direct_iosz': (262144, 1048576)}
    assert after['tunefstab:/data:discovered_direct_iosz']['persistent'] == []
    # u08's tunefstab line keeps its value
    assert after['tunefstab:/u08:discovered_direct_iosz']['live'] == 10485760


def test_no_vxtunefs(host):
    result = host(find_bin={'dpkg-query': '/usr/bin/dpkg-query', 'dpkg': '/usr/bin/dpkg'}.get)
    assert result['vxtunefs']['/data'] == {'device': VOL01, 'values': None,
                                           'error': 'no vxtunefs on this host: live values not read'}
    assert '/u09' not in result['vxtunefs']
    # what the tunefstab sets is still in the settings, with no live value
    assert result['settings']['tunefstab:/data:read_nstream']['live'] is None
    assert [a['value'] for a in result['settings']['tunefstab:/data:read_nstream']['persistent']] == [4, 8]


def test_no_package_manager_and_no_commands(host):
    result = host(find_bin={}.get)
    assert (result['package_manager'], result['packages']) == (None, {})
    assert all(source['package'] is None for source in result['sources'].values())
    result = host(run_command=None)
    assert result['vxtunefs']['/data']['values'] is None and result['packages'] == {}


def test_unreadable_source_is_an_error_not_a_failure(host):
    # a directory named like a sysctl file cannot be read (whoever runs the tests)
    path = os.path.join(host.root, 'etc/sysctl.d/70-broken.conf')
    os.makedirs(path)
    result = host()
    assert path not in result['sources']
    assert ['cannot read %s: Is a directory' % path] == [error for error in result['errors'] if path in error]


def test_bad_input_names_the_field(host):
    with pytest.raises(ValueError, match='^name: '):
        host('x/../y')
    with pytest.raises(ValueError, match=r'^policy_checks\[1\]: expected a check'):
        host(policy_checks=[{'id': 'a'}, 'compliant'])


# ---------------------------------------------------------------- issue 23: host and device identities

@pytest.mark.parametrize('content, expected, error', [
    ('4c4c4544004a3510804ac4c04f4e3732\n', '4c4c4544004a3510804ac4c04f4e3732', None),
    ('4c4c4544004a3510804ac4c04f4e3732', '4c4c4544004a3510804ac4c04f4e3732', None),
    ('', None, None),                      # an image that leaves the id to the first boot
    ('uninitialized\n', 'uninitialized', None),
    (None, None, None),                    # no file: a container
    ('dir', None, 'Is a directory'),
], ids=['newline', 'no-newline', 'empty', 'uninitialized', 'missing', 'unreadable'])
def test_machine_id(tmp_path, content, expected, error):
    path = str(tmp_path / 'machine-id')
    if content == 'dir':
        os.makedirs(path)
    elif content is not None:
        _write(path, content)
    errors = []
    assert snap.host_identity(str(tmp_path / 'proc'), path, errors)['machine_id'] == expected
    assert [e for e in errors if error and error in e] == errors and len(errors) == (1 if error else 0)


@pytest.mark.parametrize('dump, expected', [
    ('simple-nvme', {
        'nvme0n1': ('nvme.1987-35303032364237323832303336303144-4b494e4753544f4e20534b433130303032343047-00000001',
                    '50026B728203601D'),
        'sda': ('t10.ATA     KINGSTON SH103S3240G                    50026B724B09A1FF', None),
        'sdb': ('t10.ATA     WDC WD800JD-00MSA1                           WD-WMAM9XE78956', None)}),
    ('multi-devs-bcachefs', {
        'nvme0n1': ('eui.00000000000000000026b7283b12b315', '50026B7283B12B31'),
        'sda': ('naa.50026b724b09a1ff', None),
        'sdb': ('t10.ATA     WDC WD800JD-00MSA1                           WD-WMAM9XE78956', None),
        'sdc': ('naa.33333330000036b0', None),
        'sr0': (None, None)}),
], ids=['kernel-4.16', 'kernel-6.17'])
def test_device_ids_from_real_sysfs(tmp_path, build_tree, dump, expected):
    """The wwid and serial files of util-linux's real lsblk dumps: nvme's wwid is /sys/block/<dev>/wwid, its
    serial (padded with spaces) device/serial; SATA disks have device/wwid and no serial file."""
    root = build_tree(str(tmp_path), 'sysfs/lsblk-identities.json')
    from ansible_collections.iotune.storage.plugins.module_utils.parse.sysfs import read_block_devices
    devices = read_block_devices(os.path.join(root, dump))
    ids = snap.device_ids(devices, str(tmp_path / 'no-dev'))
    assert dict((name, (info['wwn'], info['serial'])) for name, info in ids.items()) == expected
    assert all(info['by_id'] == [] and info['by_path'] == [] for info in ids.values())


def test_device_ids_with_the_udev_links(tmp_path):
    """by-id and by-path links of whole devices; a partition's links, a link to a device sysfs does not
    list and a dangling link are left out."""
    disk = tmp_path / 'dev' / 'disk'
    links = {
        'by-id/nvme-eui.00000000000000000026b7283b12b315': '../../nvme0n1',
        'by-id/nvme-KINGSTON_SFYR2S1T0_50026B7283B12B31': '../../nvme0n1',
        'by-id/nvme-KINGSTON_SFYR2S1T0_50026B7283B12B31-part1': '../../nvme0n1p1',
        'by-id/wwn-0x50026b724b09a1ff': '../../sda',
        'by-id/ata-KINGSTON_SH103S3240G_50026B724B09A1FF': '../../sda',
        'by-id/usb-Generic_Flash_Disk': '../../sdz',
        'by-path/pci-0000:05:00.0-nvme-1': '../../nvme0n1',
        'by-path/pci-0000:00:1f.2-ata-1': '../../sda',
        'by-path/pci-0000:00:1f.2-ata-1.0': '../../sda',
        'by-path/pci-0000:00:1f.2-ata-1-part1': '../../sda1',
    }
    for rel, target in links.items():
        path = disk / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, str(path))
    devices = {'nvme0n1': {'wwn': 'eui.00000000000000000026b7283b12b315', 'serial': '50026B7283B12B31'},
               'sda': {'wwn': 'naa.50026b724b09a1ff', 'serial': None}, 'loop0': {}}
    assert snap.device_ids(devices, str(tmp_path / 'dev')) == {
        'loop0': {'wwn': None, 'serial': None, 'by_id': [], 'by_path': []},
        'nvme0n1': {'wwn': 'eui.00000000000000000026b7283b12b315', 'serial': '50026B7283B12B31',
                    'by_id': ['nvme-KINGSTON_SFYR2S1T0_50026B7283B12B31', 'nvme-eui.00000000000000000026b7283b12b315'],
                    'by_path': ['pci-0000:05:00.0-nvme-1']},
        'sda': {'wwn': 'naa.50026b724b09a1ff', 'serial': None,
                'by_id': ['ata-KINGSTON_SH103S3240G_50026B724B09A1FF', 'wwn-0x50026b724b09a1ff'],
                'by_path': ['pci-0000:00:1f.2-ata-1', 'pci-0000:00:1f.2-ata-1.0']}}


def test_snapshot_records_the_identities(host):
    result = host()
    assert result['host']['machine_id'] == MACHINE_ID
    assert sorted(result['device_ids']) == sorted(result['facts']['block_devices'])
    assert all(sorted(info) == ['by_id', 'by_path', 'serial', 'wwn'] for info in result['device_ids'].values())
    # a host without /etc/machine-id: null, and no error
    result = host(machine_id_path=os.path.join(host.root, 'etc/no-machine-id'))
    assert result['host']['machine_id'] is None
    assert not [e for e in result['errors'] if 'machine-id' in e]


# ---------------------------------------------------------------- issue 24: format 2

RECORDED = ('snapshot', 'debian12-to-13')
# the kernel and fs keys the recorded sysctl files set: ground-truth.sh read /proc/sys/vm only, these values
# are Debian's defaults (constructed); the net.ipv4.conf directories of a host with one interface
CONSTRUCTED_KEYS = {'kernel/pid_max': '4194304\n', 'kernel/core_pattern': 'core\n', 'kernel/sysrq': '438\n',
                    'kernel/core_uses_pid': '1\n', 'fs/protected_fifos': '1\n', 'fs/protected_hardlinks': '1\n',
                    'fs/protected_regular': '2\n', 'fs/protected_symlinks': '1\n',
                    'net/ipv4/conf/all/rp_filter': '2\n', 'net/ipv4/conf/default/rp_filter': '2\n',
                    'net/ipv4/conf/lo/rp_filter': '2\n', 'net/ipv4/conf/enp0s1/rp_filter': '2\n',
                    'net/ipv4/conf/all/accept_source_route': '0\n', 'net/ipv4/conf/default/accept_source_route': '0\n',
                    'net/ipv4/conf/lo/accept_source_route': '0\n', 'net/ipv4/conf/enp0s1/accept_source_route': '0\n',
                    'net/ipv4/conf/all/promote_secondaries': '1\n', 'net/ipv4/conf/default/promote_secondaries': '1\n',
                    'net/ipv4/conf/lo/promote_secondaries': '1\n', 'net/ipv4/conf/enp0s1/promote_secondaries': '1\n',
                    'net/ipv4/ping_group_range': '0\t2147483647\n', 'net/core/default_qdisc': 'fq_codel\n'}


def ground_truth_vm(read_fixture, side):
    """{name: raw value} of the '## sysctl vm' section of ground-truth-<side>.txt (sysctl -a as the VM printed it)."""
    values = {}
    section = None
    for line in read_fixture(*RECORDED + ('ground-truth-%s.txt' % side,)).splitlines():
        if line.startswith('## '):
            section = line[3:]
        elif section == 'sysctl vm' and ' = ' in line:
            key, value = line.split(' = ', 1)
            values[key[len('vm.'):]] = value
    return values


def recorded_proc(tmp_path, read_fixture, side):
    """A proc root whose sys/vm is what the VM's sysctl -a printed, plus CONSTRUCTED_KEYS."""
    proc = str(tmp_path / side / 'proc')
    for name, value in ground_truth_vm(read_fixture, side).items():
        _write(os.path.join(proc, 'sys', 'vm', name), value + '\n')
    for rel, value in CONSTRUCTED_KEYS.items():
        _write(os.path.join(proc, 'sys', rel), value)
    return proc


def recorded(read_fixture, side):
    return json.loads(read_fixture(*RECORDED + ('%s-upgrade.json' % side,)))


@pytest.mark.parametrize('side, key, value', [
    ('pre', 'vm.max_map_count', '65530'),
    ('post', 'vm.max_map_count', '1048576'),
    ('pre', 'vm.user_reserve_kbytes', '30122'),
    ('post', 'vm.user_reserve_kbytes', '30124'),
    ('pre', 'vm.dirty_ratio', '40'),
    ('pre', 'vm.lowmem_reserve_ratio', '256 256 32 0 0'),      # tabs collapsed
    ('pre', 'vm.numa_zonelist_order', 'Node'),
    ('pre', 'vm.page-cluster', '3'),
    ('pre', 'kernel.pid_max', '4194304'),                      # /usr/lib/sysctl.d/50-pid-max.conf
    ('post', 'kernel.pid_max', '4194304'),
    ('post', 'kernel.core_pattern', 'core'),                   # 10-coredump-debian.conf, new in 13
    ('post', 'net.ipv4.conf.enp0s1.rp_filter', '2'),           # net.ipv4.conf.*.rp_filter of 50-default.conf
    ('post', 'net.ipv4.conf.all.rp_filter', '2'),
    ('post', 'net.ipv4.ping_group_range', '0 2147483647'),     # -net.ipv4.ping_group_range = ...
    ('post', 'fs.protected_regular', '2'),
])
def test_sysctl_values_of_the_recorded_upgrade(tmp_path, read_fixture, side, key, value):
    """All of /proc/sys/vm as the VM printed it before and after, and the keys the recorded sysctl files set."""
    proc = recorded_proc(tmp_path, read_fixture, {'pre': 'before', 'post': 'after'}[side])
    values = snap.sysctl_values(proc, recorded(read_fixture, side)['sources'])
    assert values[key] == value


@pytest.mark.parametrize('side, absent', [
    # the files of 12 set no kernel.core_pattern, sysrq or rp_filter (13's 10-coredump-debian.conf and 50-default.conf do)
    ('pre', ['kernel.core_pattern', 'kernel.sysrq', 'net.ipv4.conf.all.rp_filter']),
    ('post', []),
])
def test_sysctl_keys_come_from_the_files_of_the_snapshot(tmp_path, read_fixture, side, absent):
    proc = recorded_proc(tmp_path, read_fixture, 'before')
    snapshot = recorded(read_fixture, side)
    values = snap.sysctl_values(proc, snapshot['sources'])
    vm = ground_truth_vm(read_fixture, 'before')
    assert sorted(k for k in values if k.startswith('vm.')) == sorted('vm.' + name for name in vm)
    assert len(vm) == 45
    assert [key for key in absent if key in values] == []
    assert list(values) == sorted(values)
    assert all(isinstance(v, str) for v in values.values())


def test_sysctl_values_skip_what_cannot_be_read(tmp_path, monkeypatch):
    """Write-only (drop_caches, compact_memory: EACCES for root too on a real /proc), a directory, a dangling
    link: left out silently; a key a file sets that the kernel does not have is left out; a key with .. stays inside."""
    from ansible_collections.iotune.storage.plugins.module_utils.parse import sysctl as _sysctl
    proc = str(tmp_path / 'proc')
    _write(os.path.join(proc, 'sys/vm/dirty_ratio'), '20\n')
    _write(os.path.join(proc, 'sys/vm/drop_caches'), '0\n')
    _write(os.path.join(proc, 'sys/vm/compact_memory'), '')
    os.makedirs(os.path.join(proc, 'sys/vm/subdir'))
    os.symlink('missing', os.path.join(proc, 'sys/vm/dangling'))
    _write(os.path.join(proc, 'sys/kernel/pid_max'), '  4194304 \n')
    _write(os.path.join(proc, 'sys/net/ipv4/conf/eth0.100/forwarding'), '1\n')
    _write(str(tmp_path / 'secret'), 'no\n')
    real_open = open

    def write_only(path, *args, **kwargs):
        if os.path.basename(path) in ('drop_caches', 'compact_memory'):
            raise PermissionError(13, 'Permission denied', path)
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(_sysctl, 'open', write_only, raising=False)
    text = ('kernel.pid_max = 4194304\nvm.no_such_key = 1\n-kernel.absent = 2\nnet/ipv4/conf/eth0.100/forwarding = 1\n'
            '../secret = 1\nnet.*.conf.eth*.forwarding = 1\n')
    sources = {'/etc/sysctl.d/x.conf': {'kind': 'sysctl', 'text': text},
               '/etc/fstab': {'kind': 'fstab', 'text': 'kernel.hostname = x\n'}}
    assert snap.sysctl_values(proc, sources) == {'kernel.pid_max': '4194304', 'net.ipv4.conf.eth0/100.forwarding': '1',
                                                 'vm.dirty_ratio': '20'}
    assert snap.sysctl_values(str(tmp_path / 'no-proc'), sources) == {}


@pytest.mark.parametrize('key, parts', [
    ('vm.dirty_ratio', ['vm', 'dirty_ratio']),
    ('vm/dirty_ratio', ['vm', 'dirty_ratio']),
    ('net.ipv4.conf.eth0/100.forwarding', ['net', 'ipv4', 'conf', 'eth0.100', 'forwarding']),
    ('net/ipv4/conf/eth0.100/forwarding', ['net', 'ipv4', 'conf', 'eth0.100', 'forwarding']),
    ('../etc', None),
    ('vm..x', None),
])
def test_sysctl_key_parts(key, parts):
    from ansible_collections.iotune.storage.plugins.module_utils.parse import sysctl as _sysctl
    assert _sysctl.key_parts(key) == parts
    if parts:
        assert _sysctl.dotted_key(parts) == _sysctl.normalize_key(key)


# ---------------------------------------------------------------- format 2: owners and conffiles

def test_parse_dpkg_database_of_a_real_debian12_host(read_fixture):
    """dpkg-query -W -f '${Package}\\t${Version}\\t${Status}\\n${Conffiles}\\n' of a Debian 12 host (dpkg 1.21.22)."""
    versions, conffiles = snap.parse_dpkg_database(read_fixture('commands', 'dpkg-query-W-conffiles-debian12.txt'))
    assert (versions['procps'], versions['udev'], versions['util-linux']) == ('2:4.0.2-3', '252.39-1~deb12u2', '2.38.1-5+deb12u3')
    assert len(versions) == 808
    assert conffiles['/etc/sysctl.conf'] == {'package': 'procps', 'obsolete': False, 'removed': False}
    assert conffiles['/etc/sysctl.d/README.sysctl'] == {'package': 'procps', 'obsolete': False, 'removed': False}
    assert conffiles['/etc/udev/udev.conf']['package'] == 'udev'
    assert not any(record['obsolete'] or record['removed'] for record in conffiles.values())


@pytest.mark.parametrize('text, versions, conffiles', [
    # Debian 13's procps after the upgrade: /etc/sysctl.conf is an obsolete conffile (removed by its postinst)
    ('procps\t2:4.0.4-9\tinstall ok installed\n /etc/init.d/procps f9903aa0d9f2f10714269befb4cdba8f\n'
     ' /etc/sysctl.conf c0c09cba30da0565737cace8000d64ee obsolete\n',
     {'procps': '2:4.0.4-9'}, {'/etc/init.d/procps': ('procps', False, False), '/etc/sysctl.conf': ('procps', True, False)}),
    # dpkg >= 1.22 writes a newline before the conffiles; remove-on-upgrade is not obsolete
    ('systemd\t257.13-1~deb13u1\tinstall ok installed\n\n /etc/systemd/system.conf 36ace4ee newconffile\n'
     ' /etc/x.conf 1234 remove-on-upgrade\n\nfio\t3.39-1\tinstall ok installed\n\n',
     {'systemd': '257.13-1~deb13u1', 'fio': '3.39-1'},
     {'/etc/systemd/system.conf': ('systemd', False, False), '/etc/x.conf': ('systemd', False, False)}),
    # removed, not purged: the conffiles are left, the package has no installed version
    ('tuned\t2.20.0-1\tdeinstall ok config-files\n /etc/sysctl.d/60-tuned.conf 99aa\n',
     {}, {'/etc/sysctl.d/60-tuned.conf': ('tuned', False, True)}),
    # half-configured during a failed upgrade: its files are there
    ('linux-sysctl-defaults\t4.12.1\tinstall reinstreq half-configured\n /etc/sysctl.d/y.conf 11\n',
     {}, {'/etc/sysctl.d/y.conf': ('linux-sysctl-defaults', False, False)}),
    ('purged\t\tunknown ok not-installed\n /etc/z.conf 11\n', {}, {}),
    ('', {}, {}),
])
def test_parse_dpkg_database(text, versions, conffiles):
    found_versions, found = snap.parse_dpkg_database(text)
    assert found_versions == versions
    assert dict((p, (r['package'], r['obsolete'], r['removed'])) for p, r in found.items()) == conffiles


def test_parse_rpm_files():
    """rpm -q --qf '[%{=NAME}\\t%{FILEFLAGS:fflags}\\t%{FILENAMES}\\n]' (constructed after Fedora's setup and systemd)."""
    out = ('setup\tcn\t/etc/fstab\nsetup\t\t/etc/profile.d\nsystemd\tcn\t/etc/systemd/journald.conf\n'
           'systemd\t\t/usr/lib/sysctl.d/50-default.conf\nprocps-ng\tcn\t/etc/sysctl.conf\npackage x is not installed\n')
    assert snap.parse_rpm_files(out) == {
        '/etc/fstab': {'package': 'setup', 'obsolete': False, 'removed': False},
        '/etc/systemd/journald.conf': {'package': 'systemd', 'obsolete': False, 'removed': False},
        '/etc/sysctl.conf': {'package': 'procps-ng', 'obsolete': False, 'removed': False}}


@pytest.mark.parametrize('path, files, dirs, expected', [
    ('/etc/sysctl.conf', ['/etc/fstab', '/etc/sysctl.conf'], [], True),
    ('/etc/sysctl.d/README.sysctl', [], ['/etc/sysctl.d'], True),
    ('/etc/sysctl.d/README.sysctl', [], ['/etc/sysctl.d/'], True),
    ('/etc/sysctl.dx/a.conf', [], ['/etc/sysctl.d'], False),
    ('/etc/systemd/system/multi-user.target.wants/x.service', [], ['/etc/systemd/system'], True),
    ('/etc/systemd/journald.conf', ['/etc/fstab'], ['/etc/systemd/system'], False),
])
def test_conffile_scope(path, files, dirs, expected):
    assert snap.in_scope(path, files, dirs) is expected


def test_conffile_scope_of_the_defaults():
    files, dirs = snap.conffile_scope('/etc/fstab', '/etc/vx/tunefstab', ['/etc/sysctl.d', '/usr/lib/sysctl.d'], '/etc/sysctl.conf',
                                      ['/etc/udev/rules.d'], '/etc/systemd/system')
    assert (files, dirs) == (['/etc/fstab', '/etc/sysctl.conf', '/etc/vx/tunefstab'],
                             ['/etc/sysctl.d', '/usr/lib/sysctl.d', '/etc/udev/rules.d', '/etc/systemd/system', '/etc/vx'])
    # a tunefstab elsewhere does not put its whole directory in the scope
    assert snap.conffile_scope('/etc/fstab', '/etc/tunefstab', [], '', [], '')[1] == []


def test_conffiles_of_the_directories_read(host):
    """Top-level conffiles: those of the real Debian 12 database under the directories the collection reads."""
    result = host()
    root = host.root
    assert result['conffiles'] == {
        root + '/etc/sysctl.conf': {'package': 'procps', 'obsolete': False, 'removed': False},
        root + '/etc/sysctl.d/README.sysctl': {'package': 'procps', 'obsolete': False, 'removed': False}}
    assert not [e for e in result['errors'] if 'dpkg' in e]


def test_obsolete_conffile_removed_by_the_upgrade_is_known(host):
    """Debian 13: procps dropped /etc/sysctl.conf (an obsolete conffile); no source, but the conffile record says whose."""
    os.remove(os.path.join(host.root, 'etc/sysctl.conf'))
    host.database = host.database.replace(' /etc/sysctl.conf c0c09cba30da0565737cace8000d64ee\n',
                                          ' /etc/sysctl.conf c0c09cba30da0565737cace8000d64ee obsolete\n')
    host.database += 'tuned\t2.20.0-1\tdeinstall ok config-files\n /etc/sysctl.d/60-tuned.conf 99aa\n'
    result = host()
    path = host.root + '/etc/sysctl.conf'
    assert path not in result['sources']
    assert result['conffiles'][path] == {'package': 'procps', 'obsolete': True, 'removed': False}
    assert result['conffiles'][host.root + '/etc/sysctl.d/60-tuned.conf'] == {'package': 'tuned', 'obsolete': False, 'removed': True}
    # the conffile packages' versions are there (a removed package has none)
    assert result['packages']['procps'] == '2:4.0.2-3' and 'tuned' not in result['packages']


def test_a_conffile_package_outside_the_list_gets_its_version(host):
    """An administrator's file that is a package's conffile: that package's version is recorded."""
    _write(os.path.join(host.root, 'etc/sysctl.d/30-postgresql-shm.conf'), 'kernel.shmmax = 1\n')
    host.database += 'postgresql-common\t248\tinstall ok installed\n /etc/sysctl.d/30-postgresql-shm.conf 0e2f\n'
    host.owners['/etc/sysctl.d/30-postgresql-shm.conf'] = 'postgresql-common'
    result = host()
    source = result['sources'][host.root + '/etc/sysctl.d/30-postgresql-shm.conf']
    assert (source['vendor'], source['package'], source['conffile']) == (
        False, 'postgresql-common', {'package': 'postgresql-common', 'obsolete': False, 'removed': False})
    assert result['packages']['postgresql-common'] == '248'


@pytest.mark.parametrize('find_bin, run_command', [
    ({}.get, 'fake'),                                            # a container without dpkg-query or rpm
    ({'dpkg-query': '/usr/bin/dpkg-query'}.get, 'failing'),      # dpkg-query there but it cannot run
    ({'dpkg-query': '/usr/bin/dpkg-query'}.get, None),           # no commands at all
])
def test_no_package_manager_nulls_and_no_failure(host, find_bin, run_command):
    if run_command == 'fake':
        result = host(find_bin=find_bin)
    elif run_command == 'failing':
        def failing(argv):
            raise OSError(2, 'No such file or directory')
        result = host(find_bin=find_bin, run_command=failing)
    else:
        result = host(find_bin=find_bin, run_command=None)
    assert result['packages'] == {} and result['conffiles'] == {}
    assert all(source['package'] is None and source['conffile'] is None for source in result['sources'].values())
    assert result['format'] == 2 and result['sysctl']['vm.dirty_ratio'] == '40'


def test_rpm_owners_and_conffiles(tmp_path):
    """rpm: rpm -qf per path (and per directory of the scope that exists), one rpm -q of the owners' files, one of the versions."""
    calls = []
    etc = tmp_path / 'etc'
    (etc / 'sysctl.d').mkdir(parents=True)
    (etc / 'fstab').write_text('')
    fstab, sysctl_d, vendor = str(etc / 'fstab'), str(etc / 'sysctl.d'), '/usr/lib/sysctl.d/50-default.conf'
    owned = {fstab: 'setup', sysctl_d: 'systemd', vendor: 'systemd'}

    def run(argv):
        calls.append(argv)
        if argv[1] == '-qf':
            return (0, owned[argv[-1]] + '\n', '') if argv[-1] in owned else (1, 'file %s is not owned by any package\n' % argv[-1], '')
        if argv[3] == snap.RPM_FILES_FORMAT:
            return 0, 'setup\tcn\t%s\nsystemd\t\t%s\nsystemd\tcn\t%s/x.conf\n' % (fstab, vendor, sysctl_d), ''
        return 1, 'systemd\t254.5-2.fc39\tx86_64\nsetup\t2.14.4-1.fc39\tnoarch\npackage fio is not installed\n', ''
    errors = []
    packages, owners, conffiles = snap.gather_packages('rpm', {'query': '/usr/bin/rpm', 'search': '/usr/bin/rpm'}, run, '6.5.12',
                                                       [fstab, vendor], ([fstab], [sysctl_d, str(tmp_path / 'none')]), errors)
    assert owners == {fstab: 'setup', vendor: 'systemd'}
    assert conffiles == {fstab: {'package': 'setup', 'obsolete': False, 'removed': False},
                         sysctl_d + '/x.conf': {'package': 'systemd', 'obsolete': False, 'removed': False}}
    assert packages == {'systemd': '254.5-2.fc39', 'setup': '2.14.4-1.fc39'}
    assert [c[1] for c in calls] == ['-qf', '-qf', '-qf', '-q', '-q'] and errors == []
    assert calls[3][4:] == ['setup', 'systemd']


# ---------------------------------------------------------------- format 2: kernels

K61 = '6.1.0-50-cloud-amd64'
K612 = '6.12.117+deb13-cloud-amd64'


@pytest.fixture(name='boot_root')
def boot_root_fixture(tmp_path, build_tree):
    """build(stage) -> root of a /boot, /lib/modules and / links tree: ``before`` (Debian 12, 6.1 only),
    ``pending`` (6.12 installed, /vmlinuz moved to it by its postinst, /vmlinuz.old the 6.1), ``nolinks``
    (both installed, no link), ``empty`` (no /boot)."""
    def build(stage):
        root = str(tmp_path / stage)
        if stage == 'empty':
            os.makedirs(root)
            return root
        build_tree(root, 'snapshot/kernels/debian12.json')
        if stage != 'before':
            build_tree(root, 'snapshot/kernels/debian13-kernel-installed.json')
            os.remove(os.path.join(root, 'vmlinuz'))
            if stage == 'pending':
                os.symlink('boot/vmlinuz-%s' % K612, os.path.join(root, 'vmlinuz'))
                os.symlink('boot/vmlinuz-%s' % K61, os.path.join(root, 'vmlinuz.old'))
        return root
    return build


def kernels_of(root, running):
    errors = []
    result = snap.kernel_state(running, os.path.join(root, 'boot'),
                               [os.path.join(root, 'vmlinuz'), os.path.join(root, 'boot', 'vmlinuz')],
                               os.path.join(root, 'lib', 'modules'), errors)
    assert errors == []
    return result


@pytest.mark.parametrize('stage, running, installed, next_boot, source', [
    ('before', K61, [K61], K61, '/vmlinuz -> boot/vmlinuz-%s' % K61),
    ('pending', K61, [K61, K612], K612, '/vmlinuz -> boot/vmlinuz-%s' % K612),      # after, before the reboot
    ('pending', K612, [K61, K612], K612, '/vmlinuz -> boot/vmlinuz-%s' % K612),     # after the reboot into 6.12
    ('nolinks', K61, [K61, K612], K612, 'newest installed'),
    ('empty', K61, [], None, None),
])
def test_kernels_installed_and_next_boot(boot_root, stage, running, installed, next_boot, source):
    root = boot_root(stage)
    kernels = kernels_of(root, running)
    shown = kernels['next_boot_source'] and kernels['next_boot_source'].replace(root, '')
    assert (kernels['running'], kernels['installed'], kernels['next_boot'], shown) == (running, installed, next_boot, source)


@pytest.mark.parametrize('stage, running, configs, modules', [
    ('before', K61, {K61: ('y', 'm', 'm', 'n')}, {K61: ['bfq', 'kyber-iosched']}),
    # the pending kernel: mq-deadline becomes a module (M3 of issue 24), NFS built
    ('pending', K61, {K61: ('y', 'm', 'm', 'n'), K612: ('m', 'm', 'm', 'm')},
     {K61: ['bfq', 'kyber-iosched'], K612: ['bfq', 'kyber-iosched', 'mq-deadline']}),
    ('pending', K612, {K612: ('m', 'm', 'm', 'm')}, {K612: ['bfq', 'kyber-iosched', 'mq-deadline']}),
    ('empty', K61, {}, {}),
])
def test_kernel_configs_and_scheduler_modules(boot_root, stage, running, configs, modules):
    kernels = kernels_of(boot_root(stage), running)
    assert dict((release, (c['CONFIG_MQ_IOSCHED_DEADLINE'], c['CONFIG_MQ_IOSCHED_KYBER'], c['CONFIG_IOSCHED_BFQ'],
                           c['CONFIG_NFS_FS'])) for release, c in kernels['configs'].items()) == configs
    assert kernels['scheduler_modules'] == modules


def test_kernel_config_keeps_the_block_options_only(boot_root):
    config = kernels_of(boot_root('pending'), K61)['configs'][K612]
    assert config == {
        'CONFIG_BFQ_CGROUP_DEBUG': 'n', 'CONFIG_BFQ_GROUP_IOSCHED': 'y', 'CONFIG_BLK_CGROUP': 'y',
        'CONFIG_BLK_DEV_BSG_COMMON': 'y', 'CONFIG_BLK_DEV_DM': 'm', 'CONFIG_BLK_DEV_LOOP': 'm',
        'CONFIG_BLK_DEV_LOOP_MIN_COUNT': '0', 'CONFIG_BLK_DEV_THROTTLING_LOW': 'n', 'CONFIG_BLK_DEV_WRITE_MOUNTED': 'y',
        'CONFIG_BLK_WBT': 'y', 'CONFIG_BLK_WBT_MQ': 'y', 'CONFIG_BLOCK': 'y', 'CONFIG_BLOCK_LEGACY_AUTOLOAD': 'y',
        'CONFIG_DM_CRYPT': 'm', 'CONFIG_EXT4_FS': 'y', 'CONFIG_IOSCHED_BFQ': 'm', 'CONFIG_MD': 'y', 'CONFIG_MD_RAID1': 'm',
        'CONFIG_MQ_IOSCHED_DEADLINE': 'm', 'CONFIG_MQ_IOSCHED_KYBER': 'm', 'CONFIG_NFS_FS': 'm', 'CONFIG_NVME_CORE': 'm',
        'CONFIG_SCSI': 'y', 'CONFIG_SCSI_MOD': 'y', 'CONFIG_VIRTIO_BLK': 'm', 'CONFIG_XFS_FS': 'm'}


@pytest.mark.parametrize('releases, newest', [
    (['6.1.0-50-cloud-amd64', '6.12.117+deb13-cloud-amd64'], '6.12.117+deb13-cloud-amd64'),
    (['6.1.0-9-amd64', '6.1.0-10-amd64'], '6.1.0-10-amd64'),
    (['5.14.0-362.8.1.el9_3.x86_64', '5.14.0-70.13.1.el9_0.x86_64'], '5.14.0-362.8.1.el9_3.x86_64'),
    (['6.5.6-300.fc39.x86_64', '6.5.12-300.fc39.x86_64'], '6.5.12-300.fc39.x86_64'),
])
def test_newest_by_natural_order(tmp_path, releases, newest):
    for release in releases:
        _write(str(tmp_path / 'boot' / ('vmlinuz-' + release)), '')
    kernels = snap.kernel_state(releases[0], str(tmp_path / 'boot'), [], str(tmp_path / 'modules'))
    assert (kernels['installed'][-1], kernels['next_boot'], kernels['next_boot_source']) == (newest, newest, 'newest installed')


def test_a_dangling_or_foreign_link_is_not_the_next_boot(boot_root):
    """/vmlinuz pointing to a kernel that is gone (or not a vmlinuz-) is passed over: /boot/vmlinuz, then the newest."""
    root = boot_root('nolinks')
    os.symlink('boot/vmlinuz-6.0.0-1-amd64', os.path.join(root, 'vmlinuz'))
    os.symlink('bzImage', os.path.join(root, 'boot', 'vmlinuz'))
    kernels = kernels_of(root, K61)
    assert (kernels['next_boot'], kernels['next_boot_source']) == (K612, 'newest installed')
    os.remove(os.path.join(root, 'boot', 'vmlinuz'))
    os.symlink('vmlinuz-%s' % K61, os.path.join(root, 'boot', 'vmlinuz'))
    kernels = kernels_of(root, K61)
    assert (kernels['next_boot'], kernels['next_boot_source']) == (K61, '%s/boot/vmlinuz -> vmlinuz-%s' % (root, K61))


def test_snapshot_of_a_fixture_host_has_every_format2_field(host, boot_root):
    """A whole snapshot: sysctl, owners and conffiles of the sources, conffiles, kernels, machine id, device ids."""
    root = boot_root('pending')
    result = host(boot_dir=os.path.join(root, 'boot'), modules_dir=os.path.join(root, 'lib', 'modules'),
                  vmlinuz_links=[os.path.join(root, 'vmlinuz')])
    assert result['format'] == 2
    assert result['kernels']['running'] == result['host']['kernel_release'] == '6.1.0-27-amd64'
    assert result['kernels']['installed'] == [K61, K612] and result['kernels']['next_boot'] == K612
    assert list(result['kernels']['configs']) == [K612]          # the fixture host runs 6.1.0-27: no config of it
    assert result['kernels']['scheduler_modules'] == {K612: ['bfq', 'kyber-iosched', 'mq-deadline']}
    assert result['sysctl']['vm.dirty_ratio'] == '40' and result['sysctl']['vm.min_free_kbytes'] == '67584'
    assert all(sorted(source) == ['conffile', 'kind', 'package', 'sha256', 'text', 'vendor'] for source in result['sources'].values())
    assert result['conffiles'] and result['host']['machine_id'] == MACHINE_ID and result['device_ids']
    # the file a snapshot writes is read back by read_snapshot
    directory = str(host.root + '-snapshots')
    snap.write_snapshot(directory, 'pre-upgrade', result)
    assert snap.read_snapshot(directory, 'pre-upgrade') == json.loads(snap.render_snapshot(result).decode('utf-8'))


@pytest.mark.parametrize('name', ['pre-upgrade', 'post-upgrade'])
def test_format1_snapshots_of_the_recorded_upgrade_are_read(tmp_path, fixture_path, name):
    directory = str(tmp_path / 'snapshots')
    os.makedirs(directory, 0o700)
    shutil.copy(fixture_path(*RECORDED + (name + '.json',)), directory)
    os.chmod(os.path.join(directory, name + '.json'), 0o600)
    snapshot = snap.read_snapshot(directory, name)
    assert snapshot['format'] == 1 and 'sysctl' not in snapshot and 'kernels' not in snapshot and 'conffiles' not in snapshot
    with open(fixture_path(*RECORDED + (name + '.json',))) as handle:
        assert snapshot == json.load(handle)


@pytest.mark.parametrize('content, readable', [
    ({'format': 1, 'name': 'x'}, True),
    ({'format': 2, 'name': 'x'}, True),
    ({'format': 3, 'name': 'x'}, False),
    ({'format': '2', 'name': 'x'}, False),
    ({'format': True, 'name': 'x'}, False),
    ({'name': 'x'}, False),
    ([1, 2], False),
])
def test_read_snapshot_formats(tmp_path, content, readable):
    directory = str(tmp_path / 'snapshots')
    os.makedirs(directory, 0o700)
    _write(os.path.join(directory, 'x.json'), json.dumps(content))
    os.chmod(os.path.join(directory, 'x.json'), 0o600)
    if readable:
        assert snap.read_snapshot(directory, 'x') == content
    else:
        with pytest.raises(ValueError, match=r'^read: .*x\.json is not a snapshot of format 1 or 2$'):
            snap.read_snapshot(directory, 'x')


@pytest.mark.parametrize('content, problem', [
    # issue 38, item 13: a 300 MiB snapshot was returned whole (927 MiB RSS), a deep one ended in RecursionError
    (None, r'larger than 33554432 bytes'),
    (b'{"format": 2, "errors": ' + b'[' * 100000 + b']' * 100000 + b'}', r'nested deeper than 32 levels'),
    (b'{"format": 2, "settings": {"vm.dirty_ratio": {"live": {"a": 1}}}}',
     r'x\.json\.settings\.vm\.dirty_ratio\.live: an object, where a string or an integer'),
    (b'{"format": 2, "facts": {"block_devices": {"sdb": {"size_bytes": 1' + b'0' * 400 + b'}}}}',
     r'x\.json\.facts\.block_devices\.sdb\.size_bytes: an integer of 401 digits'),
    (b'{"format": 2, "taken": Infinity}', r'not JSON: Infinity is not JSON'),
])
def test_a_snapshot_read_back_is_limited_in_size_depth_and_types(tmp_path, content, problem):
    directory = str(tmp_path / 'snapshots')
    os.makedirs(directory, 0o700)
    path = os.path.join(directory, 'x.json')
    with open(path, 'wb') as handle:
        if content is None:
            handle.truncate(300 << 20)     # sparse
        else:
            handle.write(content)
    os.chmod(path, 0o600)
    with pytest.raises(ValueError, match=r'^read: .*' + problem):
        snap.read_snapshot(directory, 'x')


# systemd's rules.d/90-iocost.rules (systemd 254 and later; Debian 13 ships it in udev), written here in its shape:
# the rule that matters is its RUN of the iocost builtin for the devices hwdb gives IOCOST_SOLUTIONS
IOCOST_RULES = '''# do not edit this file, it will be overwritten on update

ACTION=="remove", GOTO="iocost_end"
SUBSYSTEM!="block", GOTO="iocost_end"
ENV{DEVTYPE}!="disk", GOTO="iocost_end"

ENV{IOCOST_SOLUTIONS}!="", RUN+="iocost apply $env{DEVNAME}"

LABEL="iocost_end"
'''


def test_a_vendor_rule_that_applies_io_cost_is_a_source(host):
    # issue 39, item 12: it names no queue attribute, yet it changes block I/O
    _write(os.path.join(host.root, 'usr/lib/udev/rules.d/90-iocost.rules'), IOCOST_RULES)
    _write(os.path.join(host.root, 'usr/lib/udev/rules.d/91-other.rules'), 'SUBSYSTEM=="block", RUN+="/bin/true"\n')
    sources = host()['sources']
    iocost = sources[os.path.join(host.root, 'usr/lib/udev/rules.d/90-iocost.rules')]
    assert (iocost['kind'], iocost['vendor'], iocost['text']) == ('udev', True, IOCOST_RULES)
    assert os.path.join(host.root, 'usr/lib/udev/rules.d/91-other.rules') not in sources
