# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.filter import policy as policy_filters
from ansible_collections.iotune.storage.plugins.module_utils.settings.tunefstab import VXFS_TUNABLES
from ansible_collections.iotune.storage.plugins.filter.policy import (
    FilterModule,
    cache_sysctl,
    copy_buffer_size,
    copy_tools_errors,
    effective_policy,
    policy_errors,
)

BAD = {
    'iotune_mounts': [{'path': '/data', 'presnt': ['noatime']}],
    'iotune_block_devices': [{'match': {'name': 'vdb'}, 'read_ahead_kb': -1, 'scheduler': 'fast'}],
    'iotune_tunefstab': [{'device': '/dev/vx/dsk/datadg/vol01', 'tunables': {'read_pref_io': '8Q', 'frobnicate': 1}}],
}


def test_filters_are_registered():
    assert sorted(FilterModule().filters()) == ['benchmark_errors', 'benchmark_settings', 'cache_sysctl', 'copy_buffer_size',
                                                'copy_tools_errors', 'effective_policy', 'policy_errors']


@pytest.mark.parametrize('name', sorted(FilterModule().filters()))
def test_every_filter_has_a_doc_file(name):
    path = os.path.join(os.path.dirname(os.path.abspath(policy_filters.__file__)), name + '.yml')
    with open(path) as handle:
        doc = yaml.safe_load(handle)
    assert doc['DOCUMENTATION']['name'] == name
    assert doc['DOCUMENTATION']['options']['_input']['required'] is True
    assert 'iotune.storage.%s' % name in doc['EXAMPLES']
    assert '_value' in doc['RETURN']


def test_policy_errors_valid():
    assert policy_errors({}) == []
    assert policy_errors({'iotune_profile': 'throughput', 'iotune_mounts': [{'path': '/data', 'present': ['noatime']}]}) == []


def test_policy_errors_lists_every_problem():
    assert policy_errors(BAD) == [
        'iotune_mounts[0].presnt: unknown key (accepted: path, present, absent, remount)',
        "iotune_tunefstab[0].tunables.read_pref_io: '8Q' is not a size (accepted: 10485760, 256k, 10m, 1g)",
        'iotune_tunefstab[0].tunables.frobnicate: unknown tunable (accepted: %s)' % ', '.join(sorted(VXFS_TUNABLES)),
        'iotune_block_devices[0].read_ahead_kb: must be an integer between 0 and 4294967295, got -1',
        "iotune_block_devices[0].scheduler: unknown scheduler 'fast' (accepted: none, mq-deadline, kyber, bfq, "
        "deadline, cfq, noop)",
    ]


def test_effective_policy():
    result = effective_policy({'iotune_profile': 'backup_restore', 'iotune_mounts': [{'path': '/backup/'}],
                               'iotune_cache': {'dirty_background_bytes': '64m'}})
    assert result == {
        'iotune_profile': 'backup_restore',
        'iotune_mounts': [{'path': '/backup', 'present': [], 'absent': ['mincache=direct', 'convosync=direct', 'sync']}],
        'iotune_tunefstab': [],
        'iotune_block_devices': [],
        'iotune_cache': {'bulk_slice': {'memory_high': '25%'}, 'dirty_background_bytes': 67108864},
        'iotune_copy_tools': None,
    }


def test_effective_policy_fails_with_the_messages():
    with pytest.raises(AnsibleFilterError) as excinfo:
        effective_policy(dict(BAD, iotune_profile='throughput'))
    message = str(excinfo.value)
    assert message.startswith('invalid iotune policy: iotune_mounts[0].presnt: unknown key')
    assert 'iotune_block_devices[0].read_ahead_kb: must be an integer between 0 and 4294967295, got -1' in message
    assert "iotune_tunefstab[0].tunables.read_pref_io: '8Q' is not a size" in message


def test_effective_policy_unknown_profile():
    with pytest.raises(AnsibleFilterError, match="iotune_profile: unknown profile 'fast' "
                                                 r"\(accepted: throughput, database_directio, backup_restore, or null\)"):
        effective_policy({'iotune_profile': 'fast'})


def test_cache_sysctl():
    cache = effective_policy({'iotune_profile': 'database_directio'})['iotune_cache']
    assert cache_sysctl(cache) == {'vm.dirty_bytes': 268435456, 'vm.dirty_background_bytes': 67108864,
                                   'vm.dirty_expire_centisecs': 1500}
    assert cache_sysctl({'bulk_slice': {'memory_high': '25%'}}) == {}
    with pytest.raises(AnsibleFilterError):
        cache_sysctl(['vm.dirty_ratio'])


def test_copy_tools_errors():
    assert copy_tools_errors({'state': 'present', 'buffer_size': '8M'}) == []
    assert copy_tools_errors({'state': 'gone', 'buffer_size': '8M'}) == [
        "iotune_copy_tools.state: unknown state 'gone' (accepted: present, absent)"]
    assert copy_tools_errors({'state': 'present', 'buffer_size': '0k'}, 'copy_tools', '_') == [
        "copy_tools_buffer_size: must be a size of at least 1 bytes, got '0k'"]


@pytest.mark.parametrize('name', ['backup.slice', 'system-backup.slice', 'iotune-bulk.slice', 'a\\x2db.slice'])
def test_copy_tools_errors_accept_the_slices_the_policy_accepts(name):
    assert copy_tools_errors({'state': 'present', 'buffer_size': '8M', 'slice': name}, 'copy_tools', '_') == []


@pytest.mark.parametrize('name', ['system.slice', 'user-1000.slice', '../evil.slice', 'backup', 'a@b.slice', 7])
def test_copy_tools_errors_refuse_the_slices_the_policy_refuses(name):
    """The role's copy_tools_slice and the policy's bulk_slice.name follow one rule (the role once had its own
    regular expression, which took a@b.slice and system.slice)."""
    errors = copy_tools_errors({'state': 'present', 'buffer_size': '8M', 'slice': name}, 'copy_tools', '_')
    assert len(errors) == 1 and errors[0].startswith('copy_tools_slice: ')


@pytest.mark.parametrize('size, text', [('8M', '8M'), ('8MiB', '8M'), (8388608, '8M'), ('256KiB', '256k'), ('1g', '1G'), (1000, '1000')])
def test_copy_buffer_size(size, text):
    assert copy_buffer_size(size) == text


@pytest.mark.parametrize('size', ['2g', '8 megs', 0, None, True])
def test_copy_buffer_size_refuses(size):
    with pytest.raises(AnsibleFilterError, match='buffer size'):
        copy_buffer_size(size)


def test_filters_in_a_play(tmp_path):
    """The filters as a role uses them: by FQCN, in a real ansible run on the controller."""
    here = os.path.abspath(policy_filters.__file__)
    collections_root = here[:here.index(os.sep + 'ansible_collections' + os.sep)]
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_root, ANSIBLE_LOCAL_TEMP=str(tmp_path),
               ANSIBLE_HOME=str(tmp_path), ANSIBLE_NOCOLOR='1', ANSIBLE_LOAD_CALLBACK_PLUGINS='1',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.minimal', ANSIBLE_GATHERING='explicit')
    expression = (
        "{{ [({'iotune_mounts': [{'path': '/d', 'present': ['sync'], 'absent': ['sync']}]} | iotune.storage.policy_errors),"
        " ({'iotune_profile': 'throughput'} | iotune.storage.effective_policy).iotune_cache | iotune.storage.cache_sysctl] }}")
    proc = subprocess.run(
        [sys.executable, '-m', 'ansible.cli.adhoc', 'localhost', '-c', 'local', '-i', 'localhost,',
         '-m', 'ansible.builtin.debug', '-a', 'msg="%s"' % expression],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # ansible-core's own minimal callback (ansible.posix's json callback is not a dependency): "localhost | SUCCESS => {...}"
    result = json.loads(proc.stdout[proc.stdout.index(' => ') + 4:])
    assert result['msg'] == [["iotune_mounts[0]: option 'sync' is in both present and absent"],
                             {'vm.dirty_ratio': 40, 'vm.dirty_background_ratio': 10}]


@pytest.mark.parametrize('policy', [
    {},
    {'iotune_copy_tools': {}},
    {'iotune_copy_tools': {'state': 'absent'}},
    {'iotune_profile': 'backup_restore', 'iotune_mounts': [{'path': '/backup/'}], 'iotune_cache': {'dirty_background_bytes': '64m'}},
    {'iotune_profile': 'throughput', 'iotune_block_devices': [{'match': {'name': 'vdb'}, 'read_ahead_kb': 4096}]},
])
def test_the_effective_policy_fed_back_means_the_same_policy(policy):
    # issue 55, item 10: a policy without iotune_copy_tools came back with iotune_copy_tools: {}, which fed back installs
    # the copy tools
    once = effective_policy(policy)
    assert effective_policy(once) == once
    assert (once['iotune_copy_tools'] is None) == ('iotune_copy_tools' not in policy)
