# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The bad-input battery (issue 18): every case gives one bad input to a module (in-process,
through module_harness.run_main) or to the io_policy action plugin's controller side, and asserts
that the run FAILS, that its message names the offending field (and the accepted values where
the set is closed), that no command that changes anything was attempted, and that every file
and live value of the host tree in tmp_path is byte-identical afterwards (content, mode and
symbolic links of the whole tree, the sysfs, procfs, udev, sysctl, fstab, tunefstab, journal,
copy tools and report fixtures included).

Every module runs outside check mode (io_policy with mode=enforce), with all of its paths in the
tree and the current directory at the tree's root, so an input wrongly accepted would show up as a
changed file or an attempted command instead of touching the test machine.

A case is ``case(target, label, args, *needles)``: ``args`` are merged over the target's base
arguments (``DROP`` removes one); a text starting with ``@`` is a path in the tree; every needle
must be in the failure message.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import shutil
import stat

import pytest

from ansible.module_utils import basic

from ansible_collections.iotune.storage.plugins.action.io_policy import module_args, with_host_vars
from ansible_collections.iotune.storage.plugins.plugin_utils._variables import unknown_variables
from ansible_collections.iotune.storage.plugins.module_utils.act.apply import apply_file
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import Journal
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.modules import (
    block_queue, cache_limits, copy_tools, fio, io_policy, io_report, io_rollback, io_snapshot, mount_options, tunefstab)
from ansible_collections.iotune.storage.tests.unit.conftest import build_tree, fixture_path, write_file
from ansible_collections.iotune.storage.tests.unit.module_harness import run_main

DROP = object()
UDEV_DIRS = ('etc/udev/rules.d', 'run/udev/rules.d', 'usr/local/lib/udev/rules.d', 'usr/lib/udev/rules.d',
             'lib/udev/rules.d')
SCHEDULERS = 'none, mq-deadline, kyber, bfq, deadline, cfq, noop'
VOL01 = '/dev/vx/dsk/datadg/vol01'
TWO_32 = 1 << 32
TWO_64 = 1 << 64
# Commands the modules may run while they only read (tool versions, fio's engine list, vxtunefs -p,
# systemctl show, blkid -p, udevadm info); anything else is a change.
READ_ONLY = ('--version', '--enghelp', '-p', 'show', 'info')
# what a module asks before anything: which platform the host is (parse.unixfacts.detect_platform)
PLATFORM_QUERY = ['uname', '-s']

# ---------------------------------------------------------------------------------------- the host tree


_write = write_file


def _build(root):
    """A host tree: sysfs (real capture, dm/md stack, partial devices), procfs with vm sysctls, udev
    rules and database, fstab, tunefstab, sysctl.d, a slice unit, copy tools, a report, a scratch
    directory for fio and a journal holding run r1."""
    build_tree(os.path.join(root, 'sys'), 'sysfs/vm-loop-partitions.json', 'sysfs/constructed-dm-md.json',
               'sysfs/constructed-partial.json')
    shutil.copytree(fixture_path('proc', 'vm-loop'), os.path.join(root, 'proc'))
    build_tree(os.path.join(root, 'udev'), 'udev/constructed-tree.json')
    _write(os.path.join(root, 'etc', 'fstab'), open(fixture_path('policy', 'constructed-vxfs.fstab'), 'rb').read(), 0o640)
    _write(os.path.join(root, 'etc', 'vx', 'tunefstab'),
           open(fixture_path('tunefstab', 'constructed-solaris.tunefstab'), 'rb').read())
    _write(os.path.join(root, 'etc', 'sysctl.d', '60-iotune.conf'), b'# hand-made \xff\nvm.swappiness = 30\n', 0o600)
    _write(os.path.join(root, 'etc', 'sysctl.d', '99-protect-links.conf'),
           open(fixture_path('sysctl', 'debian12-99-protect-links.conf'), 'rb').read())
    _write(os.path.join(root, 'etc', 'sysctl.conf'), open(fixture_path('sysctl', 'debian12-sysctl.conf'), 'rb').read())
    _write(os.path.join(root, 'etc', 'systemd', 'system', 'iotune-bulk.slice'), '[Slice]\nMemoryHigh=25%\n')
    _write(os.path.join(root, 'bin', 'iotune-copy'), '#!/usr/bin/python3\nprint("old")\n', 0o755)
    _write(os.path.join(root, 'etc', 'iotune', 'copy.conf'), 'buffer_size=8M\nslice=iotune-bulk.slice\n')
    _write(os.path.join(root, 'reports', 'audit-latest.json'), '{"host": "vm1"}\n', 0o640)
    _write(os.path.join(root, 'motd'), 'before r1\n')
    os.makedirs(os.path.join(root, 'scratch'))
    journal = Journal(os.path.join(root, 'journal'), 'r1', 'battery', failpoint_file=os.path.join(root, 'no-failpoint'))
    apply_file(journal, os.path.join(root, 'motd'), 'after r1\n')


def digest(root):
    """{relative path: (file type, mode, bytes | link target | None)} of everything under ``root``."""
    found = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                content = 'link:' + os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                with open(path, 'rb') as handle:
                    content = handle.read()
            else:
                content = None
            found[os.path.relpath(path, root)] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), content)
    return found


class Host(object):
    """The tree every case runs against (built once; a case that changed it gets a fresh copy)."""

    def __init__(self, base):
        self.pristine = os.path.join(base, 'pristine')
        self.root = os.path.join(base, 'host')
        _build(self.pristine)
        self.expected = digest(self.pristine)
        self.reset()

    def reset(self):
        if os.path.lexists(self.root):
            shutil.rmtree(self.root)
        shutil.copytree(self.pristine, self.root, symlinks=True)

    def check_unchanged(self):
        """The digest of the tree now; a changed tree is put back for the next case."""
        now = digest(self.root)
        if now != self.expected:
            self.reset()
        return now


@pytest.fixture(scope='module')
def tree(tmp_path_factory):
    return Host(str(tmp_path_factory.mktemp('battery')))


@pytest.fixture(name='host')
def host_fixture(tree, monkeypatch):
    """The tree, the current directory at its root, every command recorded: read-only ones
    answer 'not run', changing ones (CommandRunner.change) are refused."""
    monkeypatch.chdir(tree.root)
    calls = {'read': [], 'change': []}

    def run_command(self, argv, **kwargs):
        calls['read'].append(list(argv) if not isinstance(argv, str) else argv)
        return 1, '', 'not run by the battery'

    def change(self, argv, check_rc=False, **extra):
        calls['change'].append(list(argv))
        return 1, '', 'refused by the battery'
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(CommandRunner, 'change', change)
    # io_policy's slice unit directory (the policy cannot name one)
    monkeypatch.setattr(io_policy, 'DEFAULT_UNIT_DIR', os.path.join(tree.root, 'etc', 'systemd', 'system'))
    return tree, calls


# ---------------------------------------------------------------------------------------- targets

def _base(root):
    def at(*parts):
        return os.path.join(root, *parts)
    udev = [at('udev', d) for d in UDEV_DIRS]
    return {
        'mount_options': {'fstab': at('etc', 'fstab'), 'proc_root': at('proc'), 'journal_dir': at('journal'),
                          'run_id': 'bad-1'},
        'tunefstab': {'path': at('etc', 'vx', 'tunefstab'), 'proc_root': at('proc'), 'vxtunefs': at('bin', 'vxtunefs'),
                      'apply': True, 'journal_dir': at('journal'), 'run_id': 'bad-1'},
        'block_queue': {'sys_root': at('sys'), 'proc_root': at('proc'), 'udev_rules_dirs': udev,
                        'udev_db_dir': at('udev', 'run', 'udev', 'data'),
                        'rules_file': at('udev', 'etc', 'udev', 'rules.d', '60-iotune.rules'),
                        'journal_dir': at('journal'), 'run_id': 'bad-1'},
        'cache_limits': {'sysctl_file': at('etc', 'sysctl.d', '60-iotune.conf'), 'sysctl_conf_dirs': [at('etc', 'sysctl.d')],
                         'sysctl_conf': at('etc', 'sysctl.conf'), 'proc_root': at('proc'),
                         'systemd_run_dir': at('run', 'systemd', 'system'), 'journal_dir': at('journal'), 'run_id': 'bad-1'},
        'copy_tools': {'files': [{'path': at('bin', 'iotune-copy'), 'content': 'new\n', 'mode': '0755'}],
                       'journal_dir': at('journal'), 'run_id': 'bad-1'},
        'io_policy': {'policy': {'iotune_mounts': [{'path': '/data', 'present': ['noatime']}],
                                 'iotune_cache': {'dirty_background_ratio': 5}},
                      'mode': 'enforce', 'run_id': 'bad-1', 'fstab': at('etc', 'fstab'), 'remount': True,
                      'tunefstab_path': at('etc', 'vx', 'tunefstab'), 'tunefstab_apply': True,
                      'vxtunefs': at('bin', 'vxtunefs'), 'rules_file': at('udev', 'etc', 'udev', 'rules.d', '60-iotune.rules'),
                      'sysctl_file': at('etc', 'sysctl.d', '60-iotune.conf'), 'journal_dir': at('journal'),
                      'copy_tools_bin_dir': at('bin'), 'copy_tools_config': at('etc', 'iotune', 'copy.conf'),
                      'sys_root': at('sys'), 'proc_root': at('proc')},
        'io_rollback': {'journal_dir': at('journal'), 'run_id': 'r1'},
        'fio': {'directory': at('scratch'), 'size': '4m', 'runtime': 0, 'repeat': 1, 'proc_root': at('proc'),
                'fio_path': '/usr/bin/fio'},
        'io_report': {'report': {'host': 'vm1', 'mode': 'audit', 'checks': []}, 'names': ['audit-latest.json'],
                      'dir': at('reports')},
        'io_snapshot': {'name': 'pre-upgrade', 'snapshot_dir': at('snapshots'), 'fstab_path': at('etc', 'fstab'),
                        'tunefstab_path': at('etc', 'vx', 'tunefstab'), 'vxtunefs': at('bin', 'vxtunefs'),
                        'sys_root': at('sys'), 'proc_root': at('proc'), 'sysctl_conf_dirs': [at('etc', 'sysctl.d')],
                        'sysctl_conf': at('etc', 'sysctl.conf'), 'udev_rules_dirs': udev,
                        'udev_db_dir': at('udev', 'run', 'udev', 'data'), 'unit_dir': at('etc', 'systemd', 'system')},
    }


MODULES = {'mount_options': mount_options, 'tunefstab': tunefstab, 'block_queue': block_queue,
           'cache_limits': cache_limits, 'copy_tools': copy_tools, 'io_policy': io_policy, 'io_rollback': io_rollback,
           'fio': fio, 'io_report': io_report, 'io_snapshot': io_snapshot}


def _resolve(value, root):
    """``value`` with every text starting with '@' made a path in the tree."""
    if isinstance(value, str) and value.startswith('@'):
        return os.path.join(root, value[1:])
    if isinstance(value, dict):
        return dict((key, _resolve(item, root)) for key, item in value.items())
    if isinstance(value, list):
        return [_resolve(item, root) for item in value]
    return value


def _merge(base, extra):
    args = dict(base)
    for key, value in extra.items():
        if value is DROP:
            args.pop(key, None)
        else:
            args[key] = value
    return args


def run_case(monkeypatch, target, args, root, hostvars=None):
    """('exit' | 'fail', result) of one case; io_policy goes through the action plugin's controller
    side first, as ActionModule.run does, and reaches the module only with a valid policy."""
    args = _merge(_base(root)[target], _resolve(args, root))
    if target == 'cache_limits' and isinstance(args.get('bulk_slice'), dict):
        args['bulk_slice'] = dict({'unit_dir': os.path.join(root, 'etc', 'systemd', 'system')}, **args['bulk_slice'])
    if target == 'io_policy':
        args, errors = module_args(with_host_vars(args, lambda name: _resolve((hostvars or {}).get(name), root)))
        errors = unknown_variables(hostvars or {}) + errors
        if errors:
            return 'fail', {'msg': 'Invalid iotune policy: %s' % '; '.join(errors), 'errors': errors}
    return run_main(monkeypatch, MODULES[target], args)


def case(target, label, args, *needles, **kwargs):
    marks = ()
    if kwargs.get('defect'):
        marks = pytest.mark.xfail(strict=True, reason='defect: ' + kwargs['defect'])
    return pytest.param(target, args, needles, kwargs.get('hostvars'), id='%s-%s' % (target, label), marks=marks)


# ---------------------------------------------------------------------------------------- the cases

NOATIME = {'path': '/data', 'present': ['noatime']}


def policy(**values):
    return {'policy': values}


def device(**settings):
    return policy(iotune_block_devices=[dict({'match': {'name': 'vda'}}, **settings)])


CASES = [
    # ----------------------------------------------------------------- mount_options
    case('mount_options', 'relative-path', {'path': 'data', 'present': ['noatime']}, 'path', 'must be an absolute path'),
    case('mount_options', 'dotdot-path', {'path': '../data', 'present': ['noatime']}, 'path', 'must be an absolute path'),
    case('mount_options', 'semicolon', {'path': '/data', 'present': ['noatime;reboot']}, 'path.present[0]'),
    case('mount_options', 'command-substitution', {'path': '/data', 'present': ['commit=$(reboot)']}, 'path.present[0]'),
    case('mount_options', 'backquote', {'path': '/data', 'absent': ['`reboot`']}, 'path.absent[0]'),
    case('mount_options', 'space', {'path': '/data', 'present': ['noatime nodev']}, 'path.present[0]', 'no spaces or commas'),
    case('mount_options', 'comma', {'path': '/data', 'present': ['noatime,nodev']}, 'path.present[0]', 'no spaces or commas'),
    case('mount_options', 'newline', {'path': '/data', 'present': ['noatime\nnodev']}, 'path.present[0]'),
    case('mount_options', 'empty-option', {'path': '/data', 'present': ['']}, 'path.present[0]'),
    case('mount_options', 'defaults', {'path': '/data', 'present': ['defaults']}, 'path.present[0]',
         'rw, suid, dev, exec, auto, nouser, async'),
    case('mount_options', 'both-lists', {'path': '/data', 'present': ['noatime'], 'absent': ['noatime']},
         "option 'noatime' is in both present and absent"),
    case('mount_options', 'contradiction', {'path': '/data', 'present': ['noatime', 'relatime']}, 'path.present',
         'contradict'),
    case('mount_options', 'absent-relatime', {'path': '/data', 'absent': ['relatime']}, 'path.absent', 'relatime'),
    case('mount_options', 'duplicated-mount', {'mounts': [NOATIME, dict(NOATIME, path='/data/')]}, 'mounts[1].path',
         'listed twice'),
    case('mount_options', 'unknown-key', {'mounts': [{'path': '/data', 'presnt': ['noatime']}]}, 'presnt'),
    case('mount_options', 'mounts-not-a-list-of-dicts', {'mounts': ['/data']}, 'mounts',
         defect='ansible-core 2.19: a text where a list element must be a dict fails with a first error '
                '(NoLogError) that names no option; the second error, naming mounts, is not in msg'),
    case('mount_options', 'fstab-directory', {'path': '/data', 'present': ['noatime'], 'fstab': '@etc'}, 'fstab',
         'is a directory'),
    case('mount_options', 'journal-relative', {'path': '/data', 'present': ['noatime'], 'journal_dir': 'journal'},
         'journal_dir', 'must be an absolute path'),
    case('mount_options', 'journal-is-a-file', {'path': '/data', 'present': ['noatime'], 'journal_dir': '@motd'},
         'journal_dir', 'not a directory'),
    case('mount_options', 'run-id-dotdot', {'path': '/data', 'present': ['noatime'], 'run_id': '../../motd'}, 'run_id'),
    # ----------------------------------------------------------------- tunefstab
    case('tunefstab', 'unknown-tunable', {'device': VOL01, 'tunables': {'frobnicate': 1}}, 'tunables.frobnicate',
         'read_pref_io'),
    case('tunefstab', '12-parsecs', {'device': VOL01, 'tunables': {'read_pref_io': '12 parsecs'}}, 'tunables.read_pref_io'),
    case('tunefstab', '4kk', {'device': VOL01, 'tunables': {'write_pref_io': '4kk'}}, 'tunables.write_pref_io'),
    case('tunefstab', 'nstream-0', {'device': VOL01, 'tunables': {'read_nstream': 0}}, 'tunables.read_nstream'),
    case('tunefstab', 'nstream-negative', {'device': VOL01, 'tunables': {'write_nstream': -4}}, 'tunables.write_nstream'),
    case('tunefstab', 'qio-2', {'device': VOL01, 'tunables': {'qio_cache_enable': 2}}, 'tunables.qio_cache_enable', '0', '1'),
    case('tunefstab', 'buf-data-4k', {'device': VOL01, 'tunables': {'max_buf_data_size': 4096}},
         'tunables.max_buf_data_size', '8192', '65536'),
    case('tunefstab', 'relative-device', {'device': 'vol01', 'tunables': {'read_ahead': 1}}, 'device', 'not an absolute path'),
    case('tunefstab', 'device-hash', {'device': VOL01 + '#x', 'tunables': {'read_ahead': 1}}, 'device', "'#'"),
    case('tunefstab', 'device-newline', {'device': VOL01 + '\n/dev/sda', 'tunables': {'read_ahead': 1}}, 'device'),
    case('tunefstab', 'duplicated-device', {'entries': [{'device': VOL01, 'tunables': {'read_ahead': 1}},
                                                        {'device': VOL01, 'tunables': {'read_ahead': 2}}]}, 'entries[1].device'),
    case('tunefstab', 'tunables-list', {'device': VOL01, 'tunables': ['read_ahead=1']}, 'tunables'),
    case('tunefstab', 'path-directory', {'device': VOL01, 'tunables': {'read_ahead': 1}, 'path': '@etc/vx'}, 'path',
         'is a directory'),
    case('tunefstab', 'huge-size', {'device': VOL01, 'tunables': {'read_pref_io': TWO_64}}, 'tunables.read_pref_io'),
    # ----------------------------------------------------------------- block_queue
    case('block_queue', 'read_ahead_kb--1', {'match': {'name': 'vda'}, 'read_ahead_kb': -1}, 'read_ahead_kb', '4294967295'),
    case('block_queue', 'read_ahead_kb-2^32', {'match': {'name': 'vda'}, 'read_ahead_kb': TWO_32}, 'read_ahead_kb',
         '4294967295'),
    case('block_queue', 'nr_requests-0', {'match': {'name': 'vda'}, 'nr_requests': 0}, 'nr_requests', '2048'),
    case('block_queue', 'nr_requests-1e8', {'devices': [{'match': {'name': 'vda'}, 'nr_requests': 1e8}]},
         'devices[0].nr_requests', '2048'),
    case('block_queue', 'max_sectors_kb-2', {'match': {'name': 'vda'}, 'max_sectors_kb': 2}, 'max_sectors_kb'),
    case('block_queue', 'read_ahead_kb-4kk', {'match': {'name': 'vda'}, 'read_ahead_kb': '4kk'}, 'read_ahead_kb'),
    case('block_queue', 'unknown-scheduler', {'match': {'name': 'vda'}, 'scheduler': 'fast'}, 'scheduler', SCHEDULERS),
    case('block_queue', 'unknown-match-key', {'match': {'name': 'vda', 'uuid': 'x'}, 'nr_requests': 64}, 'match.uuid',
         'mountpoint, name, serial, wwn'),
    case('block_queue', 'empty-match', {'match': {}, 'nr_requests': 64}, 'match', 'name, mountpoint, wwn, serial'),
    case('block_queue', 'serial-rule-injection', {'match': {'serial': 'S3Z9"\nRUN+="/bin/reboot'}, 'nr_requests': 64},
         'match.serial'),
    case('block_queue', 'two-match-keys', {'match': {'name': 'vda', 'serial': 'x'}, 'nr_requests': 64},
         'name|mountpoint|wwn|serial'),
    case('block_queue', 'name-dotdot', {'match': {'name': '../../etc'}, 'nr_requests': 64}, 'match.name'),
    case('block_queue', 'name-newline', {'match': {'name': 'vda\nsda'}, 'nr_requests': 64}, 'match.name'),
    case('block_queue', 'mountpoint-relative', {'match': {'mountpoint': 'srv/data'}, 'nr_requests': 64}, 'match.mountpoint'),
    case('block_queue', 'conflicting-entries', {'devices': [{'match': {'name': 'vda'}, 'nr_requests': 64},
                                                            {'match': {'name': 'vda'}, 'nr_requests': 128}]},
         'devices[1].match', 'listed twice', 'devices[0]'),
    case('block_queue', 'duplicated-device', {'devices': [{'match': {'name': 'vda'}, 'nr_requests': 64},
                                                          {'match': {'name': 'vda'}, 'nr_requests': 64}]},
         'devices[1].match'),
    case('block_queue', 'rules-file-directory', {'match': {'name': 'vda'}, 'nr_requests': 64, 'rules_file': '@udev/etc'},
         'rules_file', 'is a directory'),
    case('block_queue', 'sys-root-relative', {'match': {'name': 'vda'}, 'nr_requests': 64, 'sys_root': 'sys'},
         'sys_root', 'must be an absolute path'),
    # ----------------------------------------------------------------- cache_limits
    case('cache_limits', 'bytes-and-ratio', {'sysctl': {'vm.dirty_bytes': '256m', 'vm.dirty_ratio': 20}},
         'vm.dirty_bytes', 'vm.dirty_ratio', 'not both'),
    case('cache_limits', 'dirty_ratio-101', {'sysctl': {'vm.dirty_ratio': 101}}, 'sysctl.vm.dirty_ratio', '0 and 100'),
    case('cache_limits', 'dirty_ratio--1', {'sysctl': {'vm.dirty_ratio': -1}}, 'sysctl.vm.dirty_ratio', '0 and 100'),
    case('cache_limits', 'dirty_ratio-true', {'sysctl': {'vm.dirty_ratio': True}}, 'sysctl.vm.dirty_ratio'),
    case('cache_limits', 'dirty_bytes-12-parsecs', {'sysctl': {'vm.dirty_bytes': '12 parsecs'}}, 'sysctl.vm.dirty_bytes',
         'is not a size'),
    case('cache_limits', 'dirty_bytes-4k', {'sysctl': {'vm.dirty_bytes': '4k'}}, 'sysctl.vm.dirty_bytes', '8192'),
    case('cache_limits', 'dirty_bytes-2^64', {'sysctl': {'vm.dirty_bytes': TWO_64}}, 'sysctl.vm.dirty_bytes',
         '18446744073709551615'),
    case('cache_limits', 'unknown-key', {'sysctl': {'vm.overcommit_memory': 1}}, 'sysctl.vm.overcommit_memory',
         'vm.dirty_bytes'),
    case('cache_limits', 'swappiness-201', {'sysctl': {'vm.swappiness': 201}}, 'sysctl.vm.swappiness', '0 and 200'),
    case('cache_limits', 'background-above', {'sysctl': {'vm.dirty_ratio': 10, 'vm.dirty_background_ratio': 20}},
         'dirty_background_ratio', 'dirty_ratio'),
    case('cache_limits', 'sysctl-list', {'sysctl': [5]}, 'sysctl'),
    case('cache_limits', 'memory-high-150%', {'bulk_slice': {'memory_high': '150%'}}, 'bulk_slice.memory_high',
         'infinity'),
    case('cache_limits', 'memory-high-0', {'bulk_slice': {'memory_high': 0}}, 'bulk_slice.memory_high', 'infinity'),
    case('cache_limits', 'slice-dotdot', {'bulk_slice': {'memory_high': '25%', 'name': '../evil.slice'}},
         'bulk_slice.name', '.slice'),
    case('cache_limits', 'slice-newline', {'bulk_slice': {'memory_high': '25%', 'name': 'a\nb.slice'}},
         'bulk_slice.name', '.slice'),
    case('cache_limits', 'unit-dir-relative', {'bulk_slice': {'memory_high': '25%', 'unit_dir': 'systemd'}},
         'bulk_slice.unit_dir', 'must be an absolute path'),
    case('cache_limits', 'journal-is-a-file', {'sysctl': {'vm.dirty_ratio': 20}, 'journal_dir': '@motd'}, 'journal_dir',
         'not a directory'),
    case('cache_limits', 'sysctl-file-directory', {'sysctl': {'vm.dirty_ratio': 20}, 'sysctl_file': '@etc/sysctl.d'},
         'sysctl_file', 'is a directory'),
    # ----------------------------------------------------------------- copy_tools
    case('copy_tools', 'relative-path', {'files': [{'path': 'bin/tool', 'content': 'x'}]}, 'files[0].path',
         'must be absolute'),
    case('copy_tools', 'dotdot-path', {'files': [{'path': '../tool', 'content': 'x'}]}, 'files[0].path', 'must be absolute'),
    case('copy_tools', 'empty-path', {'files': [{'path': '', 'content': 'x'}]}, 'files[0].path'),
    case('copy_tools', 'mode-rwx', {'files': [{'path': '@bin/tool', 'content': 'x', 'mode': 'rwx'}]}, 'files[0]', 'mode',
         'octal'),
    case('copy_tools', 'mode-99999', {'files': [{'path': '@bin/tool', 'content': 'x', 'mode': '99999'}]}, 'files[0]',
         'octal'),
    case('copy_tools', 'unknown-state', {'state': 'installed'}, 'state', 'present, absent'),
    case('copy_tools', 'unknown-key', {'files': [{'path': '@bin/tool', 'content': 'x', 'owner': 'root'}]}, 'owner'),
    case('copy_tools', 'directory-as-file', {'files': [{'path': '@bin', 'content': 'x'}]}, 'files[0].path',
         'is a directory'),
    case('copy_tools', 'duplicated-path', {'files': [{'path': '@bin/tool', 'content': 'x'},
                                                     {'path': '@bin/tool', 'content': 'y'}]}, 'files[1].path', 'twice'),
    case('copy_tools', 'run-id-newline', {'run_id': 'bad\n1'}, 'run_id'),
    # ----------------------------------------------------------------- io_policy: the policy (controller side)
    case('io_policy', 'read_ahead_kb-2^32', device(read_ahead_kb=TWO_32), 'iotune_block_devices[0].read_ahead_kb',
         '4294967295'),
    case('io_policy', 'read_ahead_kb--1', device(read_ahead_kb=-1), 'iotune_block_devices[0].read_ahead_kb', '0 and'),
    case('io_policy', 'nr_requests-1e8', device(nr_requests=1e8), 'iotune_block_devices[0].nr_requests', '2048'),
    case('io_policy', 'max_sectors_kb-huge', device(max_sectors_kb=10 ** 30), 'iotune_block_devices[0].max_sectors_kb',
         '4294967295'),
    case('io_policy', 'max_sectors_kb-4kk', device(max_sectors_kb='4kk'), 'iotune_block_devices[0].max_sectors_kb'),
    case('io_policy', 'unknown-scheduler', device(scheduler='fast'), 'iotune_block_devices[0].scheduler', SCHEDULERS),
    case('io_policy', 'unknown-device-key', device(read_ahead=128), 'iotune_block_devices[0].read_ahead',
         'read_ahead_kb'),
    case('io_policy', 'match-name-dotdot', policy(iotune_block_devices=[{'match': {'name': '../sda'}, 'nr_requests': 64}]),
         'iotune_block_devices[0].match.name'),
    case('io_policy', 'match-name-newline', policy(iotune_block_devices=[{'match': {'name': 'sda\nvda'}, 'nr_requests': 64}]),
         'iotune_block_devices[0].match.name'),
    case('io_policy', 'match-two-keys', policy(iotune_block_devices=[{'match': {'name': 'vda', 'wwn': 'x'}, 'nr_requests': 64}]),
         'iotune_block_devices[0].match', 'name, mountpoint, wwn, serial'),
    case('io_policy', 'match-serial-rule-injection',
         policy(iotune_block_devices=[{'match': {'serial': 'S3Z9"\nRUN+="/bin/reboot'}, 'nr_requests': 64}]),
         'iotune_block_devices[0].match.serial'),
    case('io_policy', 'match-wwn-tab', policy(iotune_block_devices=[{'match': {'wwn': 'naa.5000\t1'}, 'read_ahead_kb': 64}]),
         'iotune_block_devices[0].match.wwn'),
    case('io_policy', 'match-name-dot', policy(iotune_block_devices=[{'match': {'name': '..'}, 'nr_requests': 64}]),
         'iotune_block_devices[0].match.name'),
    case('io_policy', 'match-empty-serial', policy(iotune_block_devices=[{'match': {'serial': ''}, 'nr_requests': 64}]),
         'iotune_block_devices[0].match'),
    case('io_policy', 'duplicated-device', policy(iotune_block_devices=[{'match': {'name': 'vda'}, 'nr_requests': 64},
                                                                        {'match': {'name': 'vda'}, 'read_ahead_kb': 64}]),
         'iotune_block_devices[1].match', 'listed twice'),
    case('io_policy', 'mount-relative', policy(iotune_mounts=[{'path': 'data', 'present': ['noatime']}]),
         'iotune_mounts[0].path', 'must be an absolute path'),
    case('io_policy', 'mount-semicolon', policy(iotune_mounts=[{'path': '/data', 'present': ['noatime;rm -rf /']}]),
         'iotune_mounts[0].present[0]'),
    case('io_policy', 'mount-pipe', policy(iotune_mounts=[{'path': '/data', 'absent': ['sync|reboot']}]),
         'iotune_mounts[0].absent[0]'),
    case('io_policy', 'mount-duplicated', policy(iotune_mounts=[NOATIME, NOATIME]), 'iotune_mounts[1].path', 'listed twice'),
    case('io_policy', 'mounts-dict', policy(iotune_mounts={'path': '/data'}), 'iotune_mounts', 'must be a list'),
    case('io_policy', 'mount-unknown-key', policy(iotune_mounts=[{'path': '/data', 'presnt': ['noatime']}]),
         'iotune_mounts[0].presnt', 'path, present, absent'),
    case('io_policy', 'tunefstab-8Q', policy(iotune_tunefstab=[{'device': VOL01, 'tunables': {'read_pref_io': '8Q'}}]),
         'iotune_tunefstab[0].tunables.read_pref_io', '256k'),
    case('io_policy', 'tunefstab-unknown', policy(iotune_tunefstab=[{'device': VOL01, 'tunables': {'frobnicate': 1}}]),
         'iotune_tunefstab[0].tunables.frobnicate', 'read_pref_io'),
    case('io_policy', 'tunefstab-relative-device', policy(iotune_tunefstab=[{'device': 'vol01', 'tunables': {'read_ahead': 1}}]),
         'iotune_tunefstab[0].device'),
    case('io_policy', 'cache-bytes-and-ratio', policy(iotune_cache={'dirty_bytes': '512m', 'dirty_ratio': 20}),
         'dirty_bytes', 'dirty_ratio', 'not both'),
    case('io_policy', 'cache-12-parsecs', policy(iotune_cache={'dirty_bytes': '12 parsecs'}), 'iotune_cache.dirty_bytes',
         'not a size'),
    case('io_policy', 'cache-dirty_bytes-0', policy(iotune_cache={'dirty_bytes': 0}), 'iotune_cache.dirty_bytes', '8192'),
    case('io_policy', 'cache-ratio-1e8', policy(iotune_cache={'dirty_ratio': 1e8}), 'iotune_cache.dirty_ratio', '0 and 100'),
    case('io_policy', 'cache-expire-2^32', policy(iotune_cache={'dirty_expire_centisecs': TWO_32}),
         'iotune_cache.dirty_expire_centisecs', '2147483647'),
    case('io_policy', 'cache-unknown-key', policy(iotune_cache={'swappiness': 10}), 'iotune_cache.swappiness',
         'dirty_bytes'),
    case('io_policy', 'memory-high-lots', policy(iotune_cache={'bulk_slice': {'memory_high': 'lots'}}),
         'iotune_cache.bulk_slice.memory_high', 'infinity'),
    case('io_policy', 'slice-dotdot', policy(iotune_cache={'bulk_slice': {'memory_high': '4g', 'name': '../x.slice'}}),
         'iotune_cache.bulk_slice.name', '.slice'),
    case('io_policy', 'copy-state-installed', policy(iotune_copy_tools={'state': 'installed'}), 'iotune_copy_tools.state',
         'present, absent'),
    case('io_policy', 'copy-buffer-2g', policy(iotune_copy_tools={'buffer_size': '2g'}), 'iotune_copy_tools.buffer_size',
         '1g'),
    case('io_policy', 'copy-buffer-4kk', policy(iotune_copy_tools={'buffer_size': '4kk'}), 'iotune_copy_tools.buffer_size'),
    case('io_policy', 'copy-streams-0', policy(iotune_copy_tools={'streams': 0}), 'iotune_copy_tools.streams', '1 and 64'),
    case('io_policy', 'copy-streams-memory', policy(iotune_copy_tools={'buffer_size': '64m', 'streams': 64}),
         'iotune_copy_tools.streams', '1g'),
    case('io_policy', 'unknown-profile', policy(iotune_profile='turbo'), 'iotune_profile',
         'throughput, database_directio, backup_restore'),
    case('io_policy', 'unknown-policy-key', policy(iotune_mount=[NOATIME]), 'iotune_mount', 'iotune_mounts'),
    case('io_policy', 'policy-list', {'policy': [NOATIME]}, 'policy', 'must be a dict'),
    case('io_policy', 'benchmark-runtime--1', {'benchmark': {'directory': '/srv', 'runtime': -1}},
         'iotune_benchmark.runtime', '>= 0'),
    case('io_policy', 'benchmark-ioengine', {'benchmark': {'directory': '/srv', 'ioengine': 'exec'}},
         'iotune_benchmark.ioengine', 'libaio'),
    case('io_policy', 'benchmark-relative', {'benchmark': {'enabled': True, 'directory': 'srv'}},
         'iotune_benchmark.directory', 'absolute'),
    case('io_policy', 'benchmark-unknown-key', {'benchmark': {'directory': '/srv', 'dirctory': '/srv'}},
         'iotune_benchmark.dirctory', 'directory'),
    case('io_policy', 'benchmark-preset', {'benchmark': {'directory': '/srv', 'jobs': ['fast-read']}},
         'iotune_benchmark.jobs[0]', 'seq-read'),
    case('io_policy', 'benchmark-size-0', {'benchmark': {'directory': '/srv', 'size': 0}}, 'iotune_benchmark.size'),
    # ----------------------------------------------------------------- io_policy: run ids, journal_dir and paths (host side)
    case('io_policy', 'run-id-dotdot', {'run_id': '../../motd'}, 'run_id'),
    case('io_policy', 'run-id-empty', {'run_id': ''}, 'run_id'),
    case('io_policy', 'journal-relative', {'journal_dir': 'journal'}, 'journal_dir', 'must be an absolute path'),
    case('io_policy', 'journal-hostvar-relative', {'journal_dir': DROP}, 'journal_dir', 'must be an absolute path',
         hostvars={'iotune_journal_dir': 'var/lib/iotune/journal'}),
    # issue 39, item 6: a misspelled policy variable audited nothing and said "0 drift"
    case('io_policy', 'hostvar-misspelled', {'policy': None}, 'iotune_mount: not a variable of iotune.storage',
         'did you mean iotune_mounts?', hostvars={'iotune_mount': [NOATIME]}),
    case('io_policy', 'hostvar-unknown', {'policy': None}, 'iotune_readahead: not a variable of iotune.storage',
         'the policy is iotune_', hostvars={'iotune_readahead': 4096, 'iotune_mounts': [NOATIME]}),
    case('io_policy', 'fstab-directory', {'fstab': '@etc'}, 'fstab', 'is a directory'),
    case('io_policy', 'sysctl-file-directory', {'sysctl_file': '@etc/sysctl.d'}, 'sysctl_file', 'is a directory'),
    case('io_policy', 'tunefstab-path-directory',
         dict(policy(iotune_tunefstab=[{'device': VOL01, 'tunables': {'read_ahead': 1}}]), tunefstab_path='@etc/vx',
              tunefstab_apply=False), 'tunefstab_path', 'is a directory'),
    case('io_policy', 'proc-root-relative', {'proc_root': 'proc'}, 'proc_root', 'must be an absolute path'),
    case('io_policy', 'mode-harden', {'mode': 'harden'}, 'mode', 'audit, enforce'),
    case('io_policy', 'unknown-concern', {'concerns': ['mounts']}, 'concerns', 'mount_options, tunefstab'),
    case('io_policy', 'copy-bin-dir-relative', dict(policy(iotune_copy_tools={}), copy_tools_bin_dir='bin'),
         'copy_tools_bin_dir', 'must be an absolute path'),
    case('io_policy', 'copy-config-directory', dict(policy(iotune_copy_tools={}), copy_tools_config='@etc/iotune'),
         'copy_tools_config', 'is a directory'),
    case('io_policy', 'copy-slice-dotdot', dict(policy(iotune_copy_tools={}), copy_tools_slice='../evil.slice'),
         'copy_tools_slice', '.slice'),
    case('io_policy', 'report-name-dotdot', {'report': {'names': ['../motd'], 'host': 'vm1', 'mode': 'harden',
                                                        'dir': '@reports'}}, 'report.names[0]'),
    case('io_policy', 'report-dir-relative', {'report': {'names': ['a.json'], 'host': 'vm1', 'mode': 'harden',
                                                         'dir': 'reports'}}, 'report.dir', 'must be an absolute path'),
    # ----------------------------------------------------------------- io_rollback
    case('io_rollback', 'run-id-dotdot', {'run_id': '../journal/r1'}, 'run_id'),
    case('io_rollback', 'run-id-empty', {'run_id': ''}, 'run_id'),
    case('io_rollback', 'run-id-newline', {'run_id': 'r1\n'}, 'run_id'),
    case('io_rollback', 'run-id-space', {'run_id': 'r 1'}, 'run_id'),
    case('io_rollback', 'run-id-129', {'run_id': 'r' * 129}, 'run_id', '1-128'),
    case('io_rollback', 'run-id-leading-dash', {'run_id': '-r1'}, 'run_id'),
    case('io_rollback', 'journal-relative', {'journal_dir': 'journal'}, 'journal_dir', 'must be an absolute path'),
    case('io_rollback', 'journal-is-a-file', {'journal_dir': '@motd'}, 'journal_dir', 'not a directory'),
    case('io_rollback', 'journal-is-a-file-no-run-id', {'journal_dir': '@motd', 'run_id': DROP}, 'journal_dir',
         'not a directory'),
    # ----------------------------------------------------------------- fio
    case('fio', 'size-12-parsecs', {'size': '12 parsecs'}, 'size'),
    case('fio', 'size-4kk', {'size': '4kk'}, 'size'),
    case('fio', 'size-0', {'size': '0'}, 'size', 'more than 0'),
    case('fio', 'min-free-lots', {'min_free': 'lots'}, 'min_free'),
    case('fio', 'repeat-0', {'repeat': 0}, 'repeat', 'at least 1'),
    case('fio', 'runtime--1', {'runtime': -1}, 'runtime', '0 or more'),
    case('fio', 'ramp-time--5', {'ramp_time': -5}, 'ramp_time', '0 or more'),
    case('fio', 'unknown-preset', {'jobs': ['fast-read']}, 'jobs[0]', 'seq-read'),
    case('fio', 'duplicated-job', {'jobs': ['seq-read', 'seq-read']}, 'duplicate job name'),
    case('fio', 'exec-prerun', {'jobs': [{'preset': 'seq-read', 'options': {'exec_prerun': 'touch /tmp/x'}}]}, 'exec_prerun'),
    case('fio', 'unknown-ioengine', {'ioengine': 'exec'}, 'ioengine', 'libaio'),
    case('fio', 'directory-is-a-file', {'directory': '@motd'}, 'directory'),
    case('fio', 'directory-relative', {'directory': 'scratch'}, 'directory', 'absolute'),
    case('fio', 'raw-without-destructive', {'directory': DROP, 'filename': '@motd'}, 'filename', 'allow_destructive'),
    # ----------------------------------------------------------------- io_report
    case('io_report', 'name-dotdot', {'names': ['ok.json', '../motd']}, 'names[1]', 'plain file name'),
    case('io_report', 'names-empty', {'names': []}, 'names'),
    case('io_report', 'name-hidden', {'names': ['.hidden']}, 'names[0]', 'plain file name'),
    case('io_report', 'name-empty', {'names': ['']}, 'names[0]', 'plain file name'),
    case('io_report', 'name-newline', {'names': ['audit\nlatest.json']}, 'names[0]', 'plain file name'),
    case('io_report', 'mode-rw', {'mode': 'rw-r-----'}, 'mode', 'octal'),
    case('io_report', 'dir-mode-9', {'dir_mode': '9'}, 'dir_mode', 'octal'),
    case('io_report', 'dir-relative', {'dir': 'reports'}, 'dir', 'must be an absolute path'),
    case('io_report', 'dir-is-a-file', {'dir': '@motd'}, 'dir', 'not a directory'),
    case('io_report', 'report-text', {'report': 'not a report'}, 'report'),
    # ----------------------------------------------------------------- io_snapshot
    case('io_snapshot', 'name-slash', {'name': 'a/b'}, 'name:', 'accepted: 1 to 100 characters'),
    case('io_snapshot', 'name-dotdot', {'name': '..'}, 'name:', 'accepted: 1 to 100 characters'),
    case('io_snapshot', 'name-dotdot-inside', {'name': 'x/../journal/r1'}, 'name:'),
    case('io_snapshot', 'name-101-characters', {'name': 'x' * 101}, 'name:', '101 characters'),
    case('io_snapshot', 'name-empty', {'name': ''}, 'name:'),
    case('io_snapshot', 'read-missing', {'name': 'post-upgrade', 'read': ['pre-upgrade']}, 'read[0]', 'no snapshot'),
    case('io_snapshot', 'read-dotdot', {'name': None, 'read': ['../journal/r1']}, 'read[0]', 'name:'),
    case('io_snapshot', 'neither-name-nor-read', {'name': None}, 'name, read'),
    case('io_snapshot', 'dir-is-a-file', {'snapshot_dir': '@motd'}, 'snapshot_dir', 'not a directory'),
    case('io_snapshot', 'dir-relative', {'snapshot_dir': 'snapshots'}, 'snapshot_dir', 'absolute'),
]


@pytest.mark.parametrize('target, args, needles, hostvars', CASES)
def test_bad_input_fails_naming_it_and_changes_nothing(monkeypatch, host, target, args, needles, hostvars):
    tree, calls = host
    try:
        kind, result = run_case(monkeypatch, target, args, tree.root, hostvars)
    finally:
        after = tree.check_unchanged()
    assert kind == 'fail', result
    for needle in needles:
        assert needle in result['msg'], (needle, result['msg'])
    assert calls['change'] == [], 'a changing command was attempted: %s' % calls['change']
    assert all(isinstance(argv, list) and (argv == PLATFORM_QUERY or any(word in argv for word in READ_ONLY)) for argv in calls['read']), calls['read']
    assert after == tree.expected, sorted(set(after.items()) ^ set(tree.expected.items()))[:4]


def test_the_battery_is_big_enough():
    assert len(CASES) >= 70
    assert set(param.values[0] for param in CASES) == set(MODULES)
