# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Journal records are input: a schema per kind, checked before anything is restored (issue 23).

A record says what was there before a change; it never says what to run or where the roots
are. Binaries (mount, vxtunefs, systemctl) and roots (/sys, /proc) come from io_rollback's own
options (``Trusted``); a target must be something the collection manages: a queue attribute
``<sys_root>/block/<device>/queue/<setting>``, a known ``vm.*`` sysctl, a file the policy names
(``Trusted.files``) or the directory of one, a mount point, a VxFS tunable of a mount point, a
systemd unit name. A record that breaks the schema raises RecordError naming the journal, the
line and the field."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import binascii
import hashlib
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import RESETS
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import SETTINGS as QUEUE_SETTINGS
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import CONCERNS as MODULES
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import DEVICE_IDENTITY_KINDS, KINDS, JournalError
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits_unix import platform_keys
from ansible_collections.iotune.storage.plugins.module_utils.settings.nfs_options import NFS_TYPES
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS, dotted

SYSCTL_KEYS = tuple(dotted(key) for key in VM_KEYS)

_IDENTITY = re.compile(r'^(%s)=[^\n]{1,256}\Z' % '|'.join(re.escape(kind) for kind in DEVICE_IDENTITY_KINDS))
_DEVICE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.:!+-]{0,127}\Z')
_SCHEDULER = re.compile(r'^[a-z0-9][a-z0-9_-]{0,31}\Z')
_OPTION = re.compile(r'^[^\s,\x00-\x1f\x7f]{1,256}\Z')
# an NFS source as mountinfo shows it: host:/path or [v6 address]:/path, without blanks, commas or controls
_NFS_SOURCE = re.compile(r'^(\[[0-9A-Fa-f:.%]{2,64}\]|[A-Za-z0-9_.%-]{1,253}):/[^\s,\x00-\x1f\x7f]{0,4095}\Z')
_TUNABLE = re.compile(r'^[a-z][a-z0-9_]{0,63}\Z')
_UNIT = re.compile(r'^[A-Za-z0-9:_.\\-]{1,250}\.(slice|service|scope|mount)\Z')
_HEX64 = re.compile(r'^[0-9a-f]{64}\Z')
_XATTR = re.compile(r'^(user|trusted|security|system)\.[\x21-\x7e]{1,250}\Z')
_OCTAL = re.compile(r'^0?[0-7]{3,4}\Z')
_TIME = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\Z')


class RecordError(JournalError):
    """A journal record that does not fit its kind's schema."""


def _ancestors(paths):
    for path in paths:
        directory = os.path.dirname(path)
        while directory not in ('/', ''):
            yield directory
            directory = os.path.dirname(directory)


class Trusted(object):
    """What the rollback takes from its own options, never from a record."""

    def __init__(self, files=(), sys_root='/sys', proc_root='/proc', mount_bin='mount', vxtunefs=None, systemctl=None,
                 mnttab='/etc/mnttab', kctune='kctune'):
        self.mnttab, self.kctune = mnttab, kctune
        self.files = frozenset(os.path.normpath(path) for path in files)
        # a run creates only the directories above the files it manages (copy_tools: /etc/iotune)
        self.dirs = frozenset(_ancestors(self.files))
        self.sys_root, self.proc_root = os.path.normpath(sys_root), os.path.normpath(proc_root)
        self.mount_bin, self.vxtunefs, self.systemctl = mount_bin, vxtunefs, systemctl


def _is_int(value, minimum=0):
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _abs_path(value):
    return isinstance(value, str) and value.startswith('/') and os.path.normpath(value) == value and '\x00' not in value


def _b64(value):
    try:
        return base64.b64decode(value, validate=True)
    except (TypeError, ValueError, binascii.Error):
        return None


class _Check(object):
    def __init__(self, journal, line):
        self.where = '%s line %d' % (journal, line)

    def fail(self, field, problem):
        raise RecordError('%s: field %s: %s' % (self.where, field, problem))

    def need(self, condition, field, problem):
        if not condition:
            self.fail(field, problem)


def _file_state(check, field, state, before):
    check.need(isinstance(state, dict), field, 'must be an object')
    check.need(state.get('state') in ('present', 'absent'), field + '.state', 'must be present or absent')
    if state['state'] == 'absent':
        return
    if not before:
        check.need(isinstance(state.get('sha256'), str) and _HEX64.match(state['sha256']), field + '.sha256',
                   'must be 64 hexadecimal digits')
        check.need(_is_int(state.get('size')), field + '.size', 'must be a size in bytes')
        return
    check.need(isinstance(state.get('content_b64'), str), field + '.content_b64', 'must be base64 text')
    content = _b64(state['content_b64'])
    check.need(content is not None, field + '.content_b64', 'is not base64')
    check.need(isinstance(state.get('sha256'), str) and _HEX64.match(state['sha256']), field + '.sha256',
               'must be the 64 hexadecimal digits of the content\'s digest')
    check.need(hashlib.sha256(content).hexdigest() == state['sha256'], field + '.sha256',
               'does not match the content (%d bytes): the record is corrupt' % len(content))
    check.need(isinstance(state.get('mode'), str) and _OCTAL.match(state['mode']), field + '.mode',
               'must be an octal mode such as 0644')
    for name in ('uid', 'gid'):
        check.need(_is_int(state.get(name)), field + '.' + name, 'must be a number 0 or more')
    xattrs = state.get('xattrs', {})
    check.need(isinstance(xattrs, dict), field + '.xattrs', 'must be an object')
    for name, value in xattrs.items():
        check.need(_XATTR.match(name), field + '.xattrs', '%r is not an attribute name (user., trusted., security., system.)' % name)
        check.need(isinstance(value, str) and _b64(value) is not None, field + '.xattrs.' + name, 'is not base64')


def _queue_value(check, field, setting, value, nullable=False):
    if value is None and nullable:
        return
    if setting == 'scheduler':
        check.need(isinstance(value, str) and _SCHEDULER.match(value), field, 'must be a scheduler name')
    else:
        check.need(_is_int(value), field, 'must be a number 0 or more for %s' % setting)


def _check_file(check, record, trusted):
    check.need(record['target'] in trusted.files, 'target',
               '%s is not a file the collection manages here (%s)' % (record['target'], ', '.join(sorted(trusted.files)) or 'none'))
    _file_state(check, 'before', record.get('before'), True)
    _file_state(check, 'after', record.get('after'), False)


def _check_dir(check, record, trusted):
    check.need(record['target'] in trusted.dirs, 'target',
               '%s is not a directory above a file the collection manages here' % record['target'])
    check.need(isinstance(record.get('before'), dict) and record['before'].get('state') in ('present', 'absent'),
               'before.state', 'must be present or absent')


def _check_sysfs(check, record, trusted):
    queue = os.path.join(trusted.sys_root, 'block')
    target = record['target']
    parts = target[len(queue) + 1:].split('/') if target.startswith(queue + '/') else []
    check.need(len(parts) == 3 and _DEVICE.match(parts[0]) and parts[1] == 'queue' and parts[2] in QUEUE_SETTINGS, 'target',
               'must be %s/<device>/queue/<%s>, got %r' % (queue, '|'.join(QUEUE_SETTINGS), target))
    setting = parts[2]
    identity = record.get('identity')
    check.need(identity is None or (isinstance(identity, str) and _IDENTITY.match(identity) is not None and identity.isprintable()),
               'identity', 'must be <kind>=<text> with a kind of %s (printable, at most 256 characters)' % ', '.join(DEVICE_IDENTITY_KINDS))
    _queue_value(check, 'before', setting, record.get('before'))
    _queue_value(check, 'after', setting, record.get('after'))
    resets = record.get('resets', {})
    check.need(isinstance(resets, dict), 'resets', 'must be an object')
    for name, value in resets.items():
        check.need(name in RESETS.get(setting, ()), 'resets', '%r is not a value a write of %s resets (%s)'
                   % (name, setting, ', '.join(RESETS.get(setting, ())) or 'none'))
        _queue_value(check, 'resets.' + name, name, value)


def _check_sysctl(check, record, trusted):
    target = record['target']
    check.need(target in SYSCTL_KEYS, 'target', '%r is not a sysctl the collection manages (%s)' % (target, ', '.join(SYSCTL_KEYS)))
    for field in ('before', 'after'):
        values = record.get(field)
        check.need(isinstance(values, dict) and target in values, field, 'must be an object with %s' % target)
        for key, value in values.items():
            check.need(key in SYSCTL_KEYS, field, '%r is not a sysctl the collection manages' % key)
            check.need(_is_int(value), '%s.%s' % (field, key), 'must be a number 0 or more')


def _check_mount(check, record, trusted):
    for field in ('before', 'after'):
        options = record.get(field)
        check.need(isinstance(options, list) and options and all(isinstance(o, str) and _OPTION.match(o) for o in options),
                   field, 'must be a list of mount options (no blanks, commas or control characters)')


def _check_mount_cycle(check, record, trusted):
    """An NFS mount unmounted and mounted (remount: cycle): its file system type and source are data that
    the rollback compares with the live mount before it unmounts anything, never a program to run."""
    _check_mount(check, record, trusted)
    check.need(record.get('fstype') in NFS_TYPES, 'fstype', 'must be one of %s' % ', '.join(NFS_TYPES))
    check.need(isinstance(record.get('source'), str) and _NFS_SOURCE.match(record['source']), 'source',
               'must be an NFS source such as server:/export (no blanks, commas or control characters)')


def _check_unix_remount(check, record, trusted):
    """A Solaris/HP-UX remount: its file system type is data the rollback compares with mnttab's, never a
    program or a path."""
    _check_mount(check, record, trusted)
    check.need(record.get('fstype') in UNIX_REMOUNT_TYPES, 'fstype', 'must be one of %s' % ', '.join(UNIX_REMOUNT_TYPES))


def _check_kctune(check, record, trusted):
    """An HP-UX tunable: one of the file cache's, its expressions as kctune(1M) takes them, never a command."""
    check.need(record['target'] in KCTUNE_TUNABLES, 'target', 'must be one of %s' % ', '.join(KCTUNE_TUNABLES))
    for field in ('before', 'after'):
        check.need(isinstance(record.get(field), str) and _KCTUNE_VALUE.match(record[field]) is not None, field,
                   'must be a kctune value: Default, a percentage (50%) or bytes with K, KB, M, MB or GB')


def _check_vxtunefs(check, record, trusted):
    check.need(isinstance(record.get('setting'), str) and _TUNABLE.match(record['setting']), 'setting',
               'must be a VxFS tunable name (lower-case letters, digits, _)')
    check.need(record.get('before') is None or _is_int(record['before']), 'before', 'must be a number 0 or more, or null')
    check.need(_is_int(record.get('after')), 'after', 'must be a number 0 or more')


def _check_unit(check, record, trusted):
    check.need(_UNIT.match(record['target']), 'target', 'must be a systemd unit name, got %r' % record['target'])
    check.need(record.get('after') == 'daemon-reload', 'after', 'must be daemon-reload')


_KIND_CHECKS = {'file': _check_file, 'dir': _check_dir, 'sysfs': _check_sysfs, 'sysctl': _check_sysctl,
                'mount': _check_mount, 'vxtunefs': _check_vxtunefs, 'unit': _check_unit, 'mount_cycle': _check_mount_cycle,
                'unix_remount': _check_unix_remount, 'kctune': _check_kctune}
KCTUNE_TUNABLES = platform_keys('hpux')
_KCTUNE_VALUE = re.compile(r'^(Default|[0-9]{1,20}(%|K|KB|M|MB|GB)?)\Z')
# kinds whose target is a path: absolute and normalised, so that no '..' climbs out
_PATH_KINDS = ('file', 'dir', 'sysfs', 'mount', 'vxtunefs', 'mount_cycle', 'unix_remount')
# the file systems whose options a Solaris/HP-UX remount changes (mount_vxfs(1M), mount_ufs(1M), HP-UX mount_hfs(1M))
UNIX_REMOUNT_TYPES = ('vxfs', 'ufs', 'hfs')


def validate_record(record, journal, line, run_id, run_seq, trusted):
    """Raise RecordError (naming ``journal``, ``line`` and the field) unless ``record`` is a
    well-formed record of run ``run_id`` (its ``run_seq``) whose target the collection manages."""
    check = _Check(journal, line)
    check.need(isinstance(record, dict), 'record', 'must be a JSON object, got %s' % type(record).__name__)
    check.need(_is_int(record.get('seq'), 1), 'seq', 'must be a number 1 or more')
    check.need(record.get('run_id') == run_id, 'run_id', 'must be %r (the journal\'s run), got %r' % (run_id, record.get('run_id')))
    check.need(_is_int(record.get('run_seq'), 1), 'run_seq', 'must be a number 1 or more')
    check.need(run_seq is None or record['run_seq'] == run_seq, 'run_seq',
               'must be %s as in the first record, got %r' % (run_seq, record['run_seq']))
    check.need(isinstance(record.get('time'), str) and _TIME.match(record['time']), 'time', 'must be a UTC time such as '
               '2026-11-25T10:15:00.000000Z')
    check.need(record.get('module') in MODULES, 'module', 'must be one of %s' % ', '.join(MODULES))
    check.need(record.get('kind') in KINDS, 'kind', 'must be one of %s' % ', '.join(KINDS))
    check.need(isinstance(record.get('target'), str) and record['target'], 'target', 'must be a text')
    if record['kind'] in _PATH_KINDS:
        check.need(_abs_path(record['target']), 'target', 'must be an absolute, normalised path, got %r' % record['target'])
    _KIND_CHECKS[record['kind']](check, record, trusted)
    return record


def validate_records(numbered, journal, run_id, trusted):
    """The records of one journal (read_records(numbered=True)), each validated; RecordError on
    the first bad one."""
    run_seq = None
    for line, record in numbered:
        validate_record(record, journal, line, run_id, run_seq, trusted)
        run_seq = record['run_seq']
    return [record for line, record in numbered]
