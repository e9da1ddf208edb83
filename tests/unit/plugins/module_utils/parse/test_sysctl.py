# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import (
    CONF_DIRS,
    load_order,
    normalize_key,
    parse_sysctl_conf,
    read_live,
    read_persistent,
    read_vm,
)
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS


def _dirs(root):
    return [os.path.join(root, directory.lstrip('/')) for directory in CONF_DIRS]


@pytest.mark.parametrize('key, expected', [
    ('vm.dirty_ratio', 'vm.dirty_ratio'),
    ('vm/dirty_ratio', 'vm.dirty_ratio'),
    (' vm/dirty_ratio ', 'vm.dirty_ratio'),
    ('net/ipv4/conf/eth0.100/forwarding', 'net.ipv4.conf.eth0/100.forwarding'),
    ('net.ipv4.conf.eth0/100.forwarding', 'net.ipv4.conf.eth0/100.forwarding'),
    ('kernel.pid_max', 'kernel.pid_max'),
])
def test_normalize_key(key, expected):
    assert normalize_key(key) == expected


def test_parse_sysctl_conf():
    text = (
        '# comment\n'
        '; also a comment\n'
        '\n'
        'vm.dirty_ratio = 40\n'
        '-vm/dirty_bytes=0\n'
        '   vm.min_free_kbytes   =  131072  \n'
        'no equals sign\n'
        '= 5\n'
        'kernel.core_pattern = |/usr/lib/systemd/systemd-coredump %P\n'
    )
    assert parse_sysctl_conf(text) == [
        {'key': 'vm.dirty_ratio', 'value': 40, 'line': 4, 'ignore_errors': False},
        {'key': 'vm.dirty_bytes', 'value': 0, 'line': 5, 'ignore_errors': True},
        {'key': 'vm.min_free_kbytes', 'value': 131072, 'line': 6, 'ignore_errors': False},
        {'key': 'kernel.core_pattern', 'value': '|/usr/lib/systemd/systemd-coredump %P', 'line': 9, 'ignore_errors': False},
    ]


@pytest.mark.parametrize('name, expected', [
    # real Debian 12 files
    ('debian12-sysctl.conf', []),
    ('debian12-50-pid-max.conf', [{'key': 'kernel.pid_max', 'value': 4194304, 'line': 16, 'ignore_errors': False}]),
    ('debian12-99-protect-links.conf', [
        {'key': 'fs.protected_fifos', 'value': 1, 'line': 7, 'ignore_errors': False},
        {'key': 'fs.protected_hardlinks', 'value': 1, 'line': 8, 'ignore_errors': False},
        {'key': 'fs.protected_regular', 'value': 2, 'line': 9, 'ignore_errors': False},
        {'key': 'fs.protected_symlinks', 'value': 1, 'line': 10, 'ignore_errors': False},
    ]),
])
def test_parse_real_debian_files(read_fixture, name, expected):
    assert parse_sysctl_conf(read_fixture('sysctl', name)) == expected


def test_load_order(sysctl_root):
    order = [os.path.relpath(path, sysctl_root) for path in load_order(_dirs(sysctl_root), os.path.join(sysctl_root, 'etc/sysctl.conf'))]
    assert order == [
        'etc/sysctl.d/30-tuned.conf',         # link to /dev/null: masks usr/lib/sysctl.d/30-tuned.conf
        'usr/lib/sysctl.d/50-pid-max.conf',   # masks lib/sysctl.d/50-pid-max.conf
        'etc/sysctl.d/60-vendor.conf',        # masks usr/lib and lib copies
        'usr/local/lib/sysctl.d/65-local.conf',
        'run/sysctl.d/70-runtime.conf',
        'etc/sysctl.d/80-iotune.conf',
        'usr/lib/sysctl.d/99-protect-links.conf',
        'etc/sysctl.d/99-zz-late.conf',
        # 99-sysctl.conf is a link to ../sysctl.conf: counted once, last
        'etc/sysctl.conf',
    ]


def test_load_order_without_dirs(tmp_path):
    assert load_order([str(tmp_path / 'nope')], str(tmp_path / 'sysctl.conf')) == []


VM_PERSISTENT = {
    'dirty_ratio': ([('etc/sysctl.d/60-vendor.conf', 2, 25), ('etc/sysctl.d/80-iotune.conf', 6, 35), ('etc/sysctl.conf', 72, 15)],
                    15, 'etc/sysctl.conf'),
    'swappiness': ([('etc/sysctl.d/99-zz-late.conf', 1, 5), ('etc/sysctl.conf', 71, 1)], 1, 'etc/sysctl.conf'),
    'dirty_background_ratio': ([('usr/local/lib/sysctl.d/65-local.conf', 1, 5)], 5, 'usr/local/lib/sysctl.d/65-local.conf'),
    'dirty_expire_centisecs': ([('run/sysctl.d/70-runtime.conf', 1, 1500)], 1500, 'run/sysctl.d/70-runtime.conf'),
    'dirty_background_bytes': ([('etc/sysctl.d/80-iotune.conf', 2, 0)], 0, 'etc/sysctl.d/80-iotune.conf'),
    'dirty_bytes': ([('etc/sysctl.d/80-iotune.conf', 4, 268435456)], 268435456, 'etc/sysctl.d/80-iotune.conf'),
    'min_free_kbytes': ([('etc/sysctl.d/80-iotune.conf', 5, 131072)], 131072, 'etc/sysctl.d/80-iotune.conf'),
    'dirty_writeback_centisecs': ([('etc/sysctl.d/80-iotune.conf', 8, 'fast')], 'fast', 'etc/sysctl.d/80-iotune.conf'),
    # only set in files that are masked
    'vfs_cache_pressure': ([], None, None),
    'dirtytime_expire_seconds': ([], None, None),
}

# real values captured from /proc/sys/vm of the test VM (proc/vm-loop); a key of the settings table not
# listed here is read from that fixture and is set in none of the sysctl files
VM_LIVE = {
    'dirty_ratio': 20, 'dirty_background_ratio': 10, 'dirty_bytes': 0, 'dirty_background_bytes': 0,
    'dirty_expire_centisecs': 3000, 'dirty_writeback_centisecs': 500, 'vfs_cache_pressure': 100,
    'swappiness': 60, 'min_free_kbytes': 67584, 'dirtytime_expire_seconds': 43200,
}


def _live_value(fixture_path, key):
    if key in VM_LIVE:
        return VM_LIVE[key]
    with open(fixture_path('proc', 'vm-loop', 'sys', 'vm', key)) as handle:
        return int(handle.read())


@pytest.mark.parametrize('key', VM_KEYS)
def test_read_vm(sysctl_root, fixture_path, key):
    errors = []
    facts = read_vm(fixture_path('proc', 'vm-loop'), _dirs(sysctl_root), os.path.join(sysctl_root, 'etc/sysctl.conf'), errors=errors)
    assigned, effective, effective_file = VM_PERSISTENT.get(key, ([], None, None))
    assert facts[key] == {
        'value': _live_value(fixture_path, key),
        'persistent': [{'file': os.path.join(sysctl_root, path), 'line': line, 'value': value} for path, line, value in assigned],
        'effective_persistent': effective,
        'effective_file': os.path.join(sysctl_root, effective_file) if effective_file else None,
    }
    assert sorted(facts) == sorted(VM_KEYS)
    assert errors == []


def test_read_vm_without_proc(tmp_path):
    errors = []
    facts = read_vm(str(tmp_path), [str(tmp_path / 'none')], str(tmp_path / 'sysctl.conf'), keys=('dirty_ratio',), errors=errors)
    assert facts == {'dirty_ratio': {'value': None, 'persistent': [], 'effective_persistent': None, 'effective_file': None}}
    assert errors == ['cannot read %s/sys/vm/dirty_ratio' % tmp_path]


def test_glob_keys(tmp_path):
    conf = tmp_path / 'sysctl.d'
    conf.mkdir()
    (conf / '10-glob.conf').write_text(u'vm.dirty_*ratio = 12\nvm.swappiness = 3\n')
    found = read_persistent(['vm.dirty_ratio', 'vm.dirty_background_ratio', 'vm.swappiness', 'vm.dirty_bytes'], [str(conf)], None)
    path = str(conf / '10-glob.conf')
    assert found == {
        'vm.dirty_ratio': [{'file': path, 'line': 1, 'value': 12}],
        'vm.dirty_background_ratio': [{'file': path, 'line': 1, 'value': 12}],
        'vm.swappiness': [{'file': path, 'line': 2, 'value': 3}],
        'vm.dirty_bytes': [],
    }


def test_unreadable_conf_is_reported(tmp_path):
    conf = tmp_path / 'sysctl.d'
    (conf / 'broken.conf').mkdir(parents=True)
    errors = []
    assert read_persistent(['vm.swappiness'], [str(conf)], None, errors) == {'vm.swappiness': []}
    assert len(errors) == 1 and errors[0].startswith('cannot read %s' % (conf / 'broken.conf'))


@pytest.mark.parametrize('key, expected', [('vm.swappiness', 60), ('vm.min_free_kbytes', 67584), ('vm.nosuch', None)])
def test_read_live(fixture_path, key, expected):
    assert read_live(fixture_path('proc', 'vm-loop'), key) == expected
