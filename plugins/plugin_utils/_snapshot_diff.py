# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The structural diff of two ``io_snapshot`` snapshots (pure, controller side).

The snapshot format and the difference classes are in docs/snapshot.md.  :func:`diff_snapshots`
returns one difference ``{class, key, target, setting, before, after, package, message}`` per
thing that changed, each explained in one line; :func:`summarize_differences` counts them per
class; :func:`failing` keeps those of the classes in ``iotune_upgrade_fail_on``.

The reports (:func:`differences_as_checks`, :func:`upgrade_host_report`): every difference
becomes one check record of the kind the audit reports hold, so the fleet report code writes
summary.json, junit.xml and report.html for an upgrade as it does for an audit:

======================  ======================================================================
check field             from the difference
======================  ======================================================================
``concern``             ``upgrade``
``target``              its ``target`` (device, mount point, file, package, or ``sysctl``)
``setting``             ``<class>:<key>``
``id``                  ``upgrade:<target>:<class>:<key>`` (make_check), the same on every host
                        with the same difference: the HTML fleet view (one row per id) has one
                        row per difference with the hosts that have it
``expected``            its ``before``
``live``                its ``after``
``persistent``          ``null``
``status``              ``drift`` when the class is in fail_on (a JUnit failure, the host fails),
                        ``compliant`` otherwise (a passing JUnit case: shown, not failing)
``message``             its ``message``
``difference``          ``{class, key, package}`` (extra field, kept in summary.json)
======================  ======================================================================

A host with no difference gets one ``compliant`` check ``upgrade:snapshot:no_difference``, so
that JUnit has a passing case and the fleet view a row for it.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import difflib
import fnmatch
import os
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import COMPLIANT, DRIFT, make_check, summarize
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import parse_sysctl_conf
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS, dotted
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import check_shape
from ansible_collections.iotune.storage.plugins.module_utils.engine.snapshot import SNAPSHOT_SPEC

CLASSES = ('different_host', 'host_unverified', 'snapshot_format', 'kernel_pending', 'kernel_changed', 'changed_default',
           'lost_setting', 'changed_setting', 'sysctl_changed', 'schedulers_changed', 'io_rule_changed', 'resolved', 'device_renamed',
           'device_added', 'device_removed', 'mount_added', 'mount_removed', 'summarized', 'package_changed')
DEFAULT_FAIL_ON = ('different_host', 'changed_default', 'lost_setting')
# sysctl keys outside the collection's settings whose change is changed_default (else sysctl_changed, which does
# not fail by default): the vm keys of the settings table, and those the policy sets (iotune_upgrade_io_sysctls
# overrides the list)
DEFAULT_IO_SYSCTLS = tuple(dotted(name) for name in VM_KEYS)
IO_SYSCTLS_FIELD = 'iotune_upgrade_io_sysctls'
# pseudo file systems below these directories are summarised, not listed one by one (systemd's
# /run/credentials/<unit> ramfs mounts differ between versions and boots); /tmp as a tmpfs stays a mount_added
NOISE_ROOTS = ('/run/', '/dev/', '/sys/', '/proc/')
PSEUDO_FSTYPES = ('ramfs', 'tmpfs', 'proc', 'sysfs', 'devtmpfs', 'devpts', 'cgroup', 'cgroup2', 'securityfs', 'pstore', 'bpf',
                  'debugfs', 'tracefs', 'configfs', 'fusectl', 'mqueue', 'hugetlbfs', 'binfmt_misc', 'autofs', 'efivarfs',
                  'rpc_pipefs', 'nsfs')
# the directories sysctl.d files are read from, first wins for one file name (sysctl.d(5)); /etc/sysctl.conf last
SYSCTL_DIRS = ('/etc/sysctl.d', '/run/sysctl.d', '/usr/local/lib/sysctl.d', '/usr/lib/sysctl.d', '/lib/sysctl.d')
SCHEDULER_MODULES = {'mq-deadline': 'mq-deadline', 'kyber': 'kyber-iosched', 'bfq': 'bfq'}
# vm keys the kernel computes from the memory free at boot (mm/util.c init_user_reserve, init_admin_reserve)
BOOT_COMPUTED = ('vm.user_reserve_kbytes', 'vm.admin_reserve_kbytes')
MAX_CONFIG_LINES = 8
# the kernel options a host depends on (issue 39, item 11): the file systems it mounts (ext2 and ext3
# are mounted by ext4's driver), the drivers of its block devices (by the device's kernel name) and the
# schedulers its devices run and its policy sets (_scheduler_config)
FSTYPE_CONFIGS = {'ext2': 'CONFIG_EXT4_FS', 'ext3': 'CONFIG_EXT4_FS', 'ext4': 'CONFIG_EXT4_FS', 'xfs': 'CONFIG_XFS_FS',
                  'nfs': 'CONFIG_NFS_FS', 'nfs4': 'CONFIG_NFS_FS'}
DEVICE_CONFIGS = (('nvme', 'CONFIG_BLK_DEV_NVME'), ('vd', 'CONFIG_VIRTIO_BLK'), ('sd', 'CONFIG_BLK_DEV_SD'),
                  ('loop', 'CONFIG_BLK_DEV_LOOP'), ('md', 'CONFIG_BLK_DEV_MD'), ('dm-', 'CONFIG_BLK_DEV_DM'),
                  ('nbd', 'CONFIG_BLK_DEV_NBD'))
# Debian's and Ubuntu's kernel releases end with the flavour (6.1.0-50-cloud-amd64, 6.12.117+deb13-amd64,
# 6.12.12+bpo-cloud-amd64, 5.15.0-91-generic, 6.8.0-1015-aws); Red Hat's (5.14.0-362.el9.x86_64) name none
_FLAVOUR_RE = re.compile(r'^\d+(?:\.\d+)+(?:-\d+(?:\.\d+)*)?(?:\+[a-z0-9.~]+)?-(?P<flavour>[a-z][a-z0-9-]*)$')
FAIL_ON_FIELD = 'iotune_upgrade_fail_on'
CONCERN = 'upgrade'

# policy check statuses whose live value matched the expected one ("the policy expected and had")
HAD_STATUSES = ('compliant', 'not_persistent')
VXFS_PACKAGES = ('VRTSvxfs', 'vrtsvxfs')
UTIL_LINUX = 'util-linux'
_KERNEL_PACKAGE = re.compile(r'^(linux-image|kernel)(-|$)')
MAX_LINES = 4
DEFAULT_TUNEFSTAB = '/etc/vx/tunefstab'
# what pairs a block device across two snapshots, in this order, before its kernel name (docs/snapshot.md)
IDENTITY_KINDS = ('wwn', 'serial', 'by_id', 'by_path', 'dm_name')


# ---------------------------------------------------------------------------- small helpers

def _dict(value):
    return value if isinstance(value, dict) else {}


def _list(value):
    return value if isinstance(value, list) else []


def _norm(value):
    """A value as compared: lists as sorted text, numbers and numeric text alike."""
    if isinstance(value, (list, tuple)):
        return sorted(u'%s' % (item,) for item in value)
    if value is None or isinstance(value, bool):
        return value
    return u'%s' % (value,) if not isinstance(value, str) else value.strip()


def same(first, second):
    """Whether two values of a setting are the same (20 and '20' are; option lists in any order)."""
    return _norm(first) == _norm(second)


def fmt(value):
    if value is None:
        return 'absent'
    if isinstance(value, (list, tuple)):
        return ','.join(u'%s' % (item,) for item in value) or '(none)'
    return u'%s' % (value,)


def change_text(old, new):
    """``changed from 3000 to 1500``, ``appeared with 5``, ``is gone (was 5)``."""
    if old is None:
        return 'appeared with %s' % fmt(new)
    if new is None:
        return 'is gone (was %s)' % fmt(old)
    return 'changed from %s to %s' % (fmt(old), fmt(new))


def key_parts(key):
    """(concern, subject, attribute) of a settings key: ``vm.x`` -> (cache_limits, sysctl, vm.x),
    ``block_queue:sdb:read_ahead_kb``, ``mount_options:/data`` (attribute None),
    ``tunefstab:/data/vx:read_pref_io`` (a mount point may hold ``:``)."""
    if key.startswith('block_queue:'):
        subject, dummy, attribute = key[len('block_queue:'):].partition(':')
        return 'block_queue', subject, attribute
    if key.startswith('mount_options:'):
        return 'mount_options', key[len('mount_options:'):], None
    if key.startswith('tunefstab:'):
        subject, dummy, attribute = key[len('tunefstab:'):].rpartition(':')
        return 'tunefstab', subject, attribute
    return 'cache_limits', 'sysctl', key


def _difference(klass, key, target, setting, before, after, package, message):
    return {'class': klass, 'key': key, 'target': target, 'setting': setting, 'before': before, 'after': after,
            'package': package, 'message': message}


# ---------------------------------------------------------------------------- sources

def source_changes(before, after):
    """{path: 'appeared'|'changed'|'gone'} of every source whose sha256 (else text) differs."""
    old, new = _dict(before.get('sources')), _dict(after.get('sources'))
    changes = {}
    for path in set(old) | set(new):
        if path not in old:
            changes[path] = 'appeared'
        elif path not in new:
            changes[path] = 'gone'
        else:
            first, second = _dict(old[path]), _dict(new[path])
            if (first.get('sha256'), first.get('text')) != (second.get('sha256'), second.get('text')):
                changes[path] = 'changed'
    return changes


def _source(before, after, path):
    """The source's record, after's when it still exists."""
    return _dict(_dict(after.get('sources')).get(path)) or _dict(_dict(before.get('sources')).get(path))


def is_admin(source):
    """An administrator's source: ``vendor`` false."""
    return not source.get('vendor')


def _meaningful(text):
    return [line.strip() for line in (text or '').splitlines()
            if line.strip() and not line.strip().startswith(('#', ';'))]


def line_changes(old_text, new_text):
    """(added, removed) lines, comments and blank lines left out, in file order."""
    added, removed = [], []
    old, new = _meaningful(old_text), _meaningful(new_text)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ('replace', 'delete'):
            removed.extend(old[i1:i2])
        if tag in ('replace', 'insert'):
            added.extend(new[j1:j2])
    return added, removed


def lines_summary(old_text, new_text, limit=MAX_LINES):
    """``+vm.dirty_ratio = 40 / -vm.dirty_ratio = 20``: each change's added then removed lines, at most ``limit``."""
    items = []
    old, new = _meaningful(old_text), _meaningful(new_text)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != 'equal':
            items.extend('+' + line for line in new[j1:j2])
            items.extend('-' + line for line in old[i1:i2])
    if not items:
        return 'only comments or blank lines changed'
    text = ' / '.join(items[:limit])
    if len(items) > limit:
        text += ' (and %d more line(s))' % (len(items) - limit)
    return text


# ---------------------------------------------------------------------------- packages

def _packages(snapshot):
    return _dict(snapshot.get('packages'))


def kernel_packages(snapshot):
    return sorted(name for name in _packages(snapshot) if _KERNEL_PACKAGE.match(name))


def package_text(name, old, new):
    if old is None:
        return '%s %s (newly installed)' % (name, new)
    if new is None:
        return '%s %s (removed)' % (name, old)
    return '%s %s -> %s' % (name, old, new)


def package_changes(before, after):
    """{name: (old, new)} of the packages other than the kernel whose version changed (None: not installed)."""
    old, new = _packages(before), _packages(after)
    changes = {}
    for name in set(old) | set(new):
        if _KERNEL_PACKAGE.match(name):
            continue
        if old.get(name) != new.get(name):
            changes[name] = (old.get(name), new.get(name))
    return changes


def kernel_change(before, after):
    """The kernel's change as {package, before, after, text}, or None.  The running kernel's package
    (``linux-image-*`` renamed with each release, ``kernel*``) and ``host.kernel_release`` count as one."""
    release_old = _dict(before.get('host')).get('kernel_release')
    release_new = _dict(after.get('host')).get('kernel_release')
    old = dict((name, _packages(before)[name]) for name in kernel_packages(before))
    new = dict((name, _packages(after)[name]) for name in kernel_packages(after))
    if release_old == release_new and old == new:
        return None
    label = (sorted(new) or sorted(old) or ['kernel'])[0]
    if release_old != release_new:
        text = 'kernel %s -> %s' % (fmt(release_old), fmt(release_new))
        values = (release_old, release_new)
    else:
        names = sorted(set(old) | set(new))
        text = '; '.join(package_text(name, old.get(name), new.get(name)) for name in names)
        values = (old.get(label), new.get(label))
    if set(old) != set(new) and old and new:
        text += ' (%s -> %s)' % (', '.join(sorted(old)), ', '.join(sorted(new)))
    return {'package': label, 'before': values[0], 'after': values[1], 'text': text}


# ---------------------------------------------------------------------------- host and device identity

def _text(value):
    return value.strip() if isinstance(value, str) and value.strip() else None


def host_differences(before, after):
    """``different_host`` when the hostnames or the machine ids (both known) differ; else
    ``host_unverified`` once when a side has no machine id (a snapshot of the older format, or a
    host without /etc/machine-id); else nothing."""
    names = (before.get('name') or 'before', after.get('name') or 'after')
    hosts = (_dict(before.get('host')), _dict(after.get('host')))
    hostnames = [_text(host.get('hostname')) for host in hosts]
    ids = [_text(host.get('machine_id')) for host in hosts]

    def differ(pair):
        return pair[0] is not None and pair[1] is not None and pair[0].lower() != pair[1].lower()

    def described(index):
        return '%s (machine-id %s)' % (hostnames[index] or 'unknown hostname', ids[index] or 'unknown')
    if differ(hostnames) or differ(ids):
        if not differ(ids) and ids[0] is not None and ids[1] is not None:
            why = '; the machine-id is the same: a clone that kept its template\'s machine-id, or a host renamed between the snapshots'
        elif not differ(hostnames) and hostnames[0] is not None:
            why = '; the hostname is the same: another host of that name, or the host was installed again'
        else:
            why = ''
        message = ('%s was taken on %s, %s on %s: the snapshots are of different hosts%s; every other difference compares '
                   'the two hosts: take %s again on this host, or compare the snapshot of this host'
                   % (names[0], described(0), names[1], described(1), why, names[0]))
        return [_difference('different_host', 'host', 'snapshot', 'host', described(0), described(1), None, message)]
    if ids[0] is None or ids[1] is None:
        why = ['has no machine-id (a snapshot of the older format)' if 'machine_id' not in host
               else 'was taken on a host without a machine-id' for host in hosts]
        if ids[0] is None and ids[1] is None and why[0] == why[1]:
            lacking = ['neither ' + why[0].replace('has no', 'has a').replace('a snapshot', 'snapshots')
                       if why[0].startswith('has') else 'both were taken on hosts without a machine-id']
        else:
            lacking = ['%s %s' % (names[index], why[index]) for index in (0, 1) if ids[index] is None]
        same_name = 'both were taken on %s' % hostnames[1] if hostnames[0] and hostnames[1] else 'the hostname is not known on both'
        message = ('cannot tell whether %s and %s are of the same host: %s; %s; take %s again if it may be of another host'
                   % (names[0], names[1], ', '.join(lacking), same_name, names[0]))
        return [_difference('host_unverified', 'host', 'snapshot', 'host', described(0), described(1), None, message)]
    return []


def device_identities(snapshot):
    """{device: {kind: set of values}} of the block devices of a snapshot: ``wwn`` (lower case; a
    ``wwn-0x<hex>`` by-id link counts as ``naa.<hex>``), ``serial``, ``by_id`` and ``by_path`` link
    names, ``dm_name``.  ``device_ids`` where the snapshot has it, else the wwn and serial of
    ``facts.block_devices`` (the older format)."""
    devices = _dict(_dict(snapshot.get('facts')).get('block_devices'))
    ids = _dict(snapshot.get('device_ids'))
    result = {}
    for name in devices:
        info, known = _dict(devices[name]), _dict(ids.get(name))
        by_id = set(item for item in _list(known.get('by_id')) if _text(item))
        wwn = set(value.lower() for value in (_text(known.get('wwn')) or _text(info.get('wwn')),) if value)
        wwn |= set('naa.' + link[len('wwn-0x'):].lower() for link in by_id if link.startswith('wwn-0x') and len(link) > 6)
        result[name] = {
            'wwn': wwn,
            'serial': set(value for value in (_text(known.get('serial')) or _text(info.get('serial')),) if value),
            'by_id': by_id,
            'by_path': set(item for item in _list(known.get('by_path')) if _text(item)),
            'dm_name': set(value for value in (_text(info.get('dm_name')),) if value),
        }
    return result


def _agree(first, second):
    """(kind, value) of the first identity kind both devices have, when they share a value of it;
    None when they have no kind in common or the first one differs."""
    for kind in IDENTITY_KINDS:
        if first[kind] and second[kind]:
            shared = sorted(first[kind] & second[kind])
            return (kind, shared[0]) if shared else None
    return None


def pair_devices(before, after):
    """({before name: after name}, {before name: (kind, value) or None}) of the block devices that are
    the same device in both snapshots.  First a device with the same kernel name on both sides whose
    first identity both know agrees; then, in IDENTITY_KINDS order, a value that exactly one unpaired
    device on each side has (a renamed device); then the same kernel name (the pairing of devices
    without identities, and of the older format).  Unpaired devices were added or removed."""
    old, new = device_identities(before), device_identities(after)
    pairs, paired_by = {}, {}
    for name in sorted(set(old) & set(new)):
        agreed = _agree(old[name], new[name])
        if agreed:
            pairs[name], paired_by[name] = name, agreed
    for kind in IDENTITY_KINDS:
        left_old = [name for name in sorted(old) if name not in pairs]
        taken = set(pairs.values())
        left_new = [name for name in sorted(new) if name not in taken]
        index_old, index_new = {}, {}
        for index, names, identities in ((index_old, left_old, old), (index_new, left_new, new)):
            for name in names:
                for value in identities[name][kind]:
                    index.setdefault(value, []).append(name)
        for value in sorted(index_old):
            first, second = index_old[value], index_new.get(value, [])
            if len(first) == 1 and len(second) == 1 and first[0] not in pairs and second[0] not in set(pairs.values()):
                pairs[first[0]], paired_by[first[0]] = second[0], (kind, value)
    taken = set(pairs.values())
    for name in sorted(set(old) & set(new)):
        if name not in pairs and name not in taken:
            pairs[name], paired_by[name] = name, None
    return pairs, paired_by


# ---------------------------------------------------------------------------- context

class _Context(object):
    """What the rules share: both snapshots and what changed between them."""

    def __init__(self, before, after):
        self.before = before
        self.after = after
        self.sources = source_changes(before, after)
        self.packages = package_changes(before, after)
        self.kernel = kernel_change(before, after)
        self.pairs, self.paired_by = pair_devices(before, after)
        self.renames = dict((old, new) for old, new in self.pairs.items() if old != new)
        self.renamed_from = dict((new, old) for old, new in self.renames.items())
        old, new = _dict(_dict(before.get('facts')).get('block_devices')), _dict(_dict(after.get('facts')).get('block_devices'))
        self.devices_added = sorted(set(new) - set(self.pairs.values()))
        self.devices_removed = sorted(set(old) - set(self.pairs))
        empty_old = set(name for name in self.devices_removed if _dict(old.get(name)).get('size_bytes') == 0)
        empty_new = set(name for name in self.devices_added if _dict(new.get(name)).get('size_bytes') == 0)
        self.empty_devices = {'gone': sorted(empty_old), 'appeared': sorted(empty_new)}
        self.all_added, self.all_removed = set(self.devices_added), set(self.devices_removed)
        self.devices_added = [name for name in self.devices_added if name not in empty_new]
        self.devices_removed = [name for name in self.devices_removed if name not in empty_old]
        old, new = _dict(_dict(before.get('facts')).get('mounts')), _dict(_dict(after.get('facts')).get('mounts'))
        self.mounts_added = sorted(path for path in set(new) - set(old) if not is_noise_mount(path, new[path]))
        self.mounts_removed = sorted(path for path in set(old) - set(new) if not is_noise_mount(path, old[path]))
        self.noise_mounts = {'mounted': sorted(path for path in set(new) - set(old) if is_noise_mount(path, new[path])),
                             'unmounted': sorted(path for path in set(old) - set(new) if is_noise_mount(path, old[path]))}
        self.names = (before.get('name') or 'before', after.get('name') or 'after')
        # a snapshot of format 1 records no file owners, no sysctl values beyond the settings, no kernels
        self.format1 = [name for name, snapshot in zip(self.names, (before, after)) if snapshot.get('format', 1) < 2]
        self.policy_covered = set()     # policy check ids a rule has reported (resolved or lost)
        self.unowned = []               # changed administrator's sources whose owner is not recorded

    def owner(self, path):
        """(package, conffile) of a source: the package that owns it (dpkg -S, rpm -qf) and the one whose
        conffile it is ({package, obsolete}), each None when not recorded or not owned."""
        package, conffile = None, None
        for snapshot in (self.after, self.before):
            record = _dict(_dict(snapshot.get('sources')).get(path))
            package = package or record.get('package')
            conffile = conffile or _dict(record.get('conffile')) or _dict(_dict(snapshot.get('conffiles')).get(path))
        return package or conffile.get('package'), conffile or None

    def owners_recorded(self, path):
        """Whether the snapshot that has the source records owners (format 2)."""
        record = _dict(_dict(self.after.get('sources')).get(path)) or _dict(_dict(self.before.get('sources')).get(path))
        return 'conffile' in record

    def source(self, path):
        return _source(self.before, self.after, path)

    def translate(self, key):
        """A settings key of ``before`` as ``after`` names it: ``block_queue:<old>:<attr>`` of a renamed
        device becomes ``block_queue:<new>:<attr>``; any other key is itself."""
        concern, subject, attribute = key_parts(key)
        if concern == 'block_queue' and subject in self.renames:
            return 'block_queue:%s:%s' % (self.renames[subject], attribute)
        return key

    def rename_text(self, key):
        """``nvme0n1 -> nvme1n1`` when ``key`` (as ``after`` names it) is of a renamed device, else None."""
        concern, subject, dummy = key_parts(key)
        if concern == 'block_queue' and subject in self.renamed_from:
            return '%s -> %s' % (self.renamed_from[subject], subject)
        return None

    def package_version_text(self, name):
        if name in self.packages:
            return package_text(name, *self.packages[name])
        version = _packages(self.after).get(name) or _packages(self.before).get(name)
        return '%s %s' % (name, version) if version else name


# ---------------------------------------------------------------------------- rule: changed_setting

def changed_setting_differences(ctx):
    """One ``changed_setting`` per administrator's source (vendor false) that changed, appeared or went."""
    differences = []
    old_sources, new_sources = _dict(ctx.before.get('sources')), _dict(ctx.after.get('sources'))
    for path in sorted(ctx.sources):
        source = ctx.source(path)
        if not is_admin(source):
            continue
        how = ctx.sources[path]
        old_text = _dict(old_sources.get(path)).get('text')
        new_text = _dict(new_sources.get(path)).get('text')
        added, removed = line_changes(old_text, new_text)
        owner, conffile = ctx.owner(path)
        package = owner if owner in ctx.packages else None
        if how == 'appeared':
            message = '%s appeared: %s' % (path, lines_summary('', new_text))
        elif how == 'gone':
            message = '%s is gone: %s; what it set now comes from elsewhere or the defaults' % (path, lines_summary(old_text, ''))
        else:
            message = '%s changed: %s' % (path, lines_summary(old_text, new_text))
        if package and how == 'gone':
            message += '; removed with %s%s' % (ctx.package_version_text(package), ' (an obsolete conffile of it)'
                                                if conffile and conffile.get('obsolete') else ' (a conffile it no longer ships)'
                                                if conffile else '')
        elif package:
            message += '; %s with %s: check the upgrade kept your values' % (
                'installed' if how == 'appeared' else 'rewritten', ctx.package_version_text(package))
        elif owner:
            message += '; %s did not change: an administrator\'s edit' % ctx.package_version_text(owner)
        elif not ctx.owners_recorded(path):
            ctx.unowned.append(path)
            message += '; which package owns it is not recorded (%s of format 1)' % ' and '.join(ctx.format1 or ['a snapshot'])
        differences.append(_difference('changed_setting', path, path, source.get('kind'),
                                       None if how == 'appeared' else removed, None if how == 'gone' else added,
                                       package, message))
    return differences


def io_rule_differences(ctx):
    """io_rule_changed: a vendor's udev rule file that sets queue attributes or applies io.cost (systemd's
    iocost builtin) appeared, changed or went, with the package that brought it; an administrator's file
    is a changed_setting. What it does to a value the collection reads is a difference of its own."""
    differences = []
    new_sources = _dict(ctx.after.get('sources'))
    for path in sorted(ctx.sources):
        source = ctx.source(path)
        if is_admin(source) or source.get('kind') != 'udev':
            continue
        how = ctx.sources[path]
        text = _dict(new_sources.get(path)).get('text') or _dict(_dict(ctx.before.get('sources')).get(path)).get('text') or ''
        owner, dummy = ctx.owner(path)
        package = owner if owner in ctx.packages else None
        does = ('applies I/O cost control (systemd\'s iocost builtin: io.cost QoS and model parameters for the devices '
                'hwdb gives IOCOST_SOLUTIONS; udevadm info names them)' if 'iocost' in text
                else 'sets queue attributes of block devices')
        if package:
            when = ' with %s' % ctx.package_version_text(package)
        else:
            # no package change explains it: the snapshot before may come from a collection that did not record it
            when = ' (no package change recorded with it: it may have been there before and not recorded)' \
                if how == 'appeared' else ''
        message = 'vendor udev rule %s %s%s: it %s' % (
            path, {'appeared': 'is new', 'gone': 'is gone', 'changed': 'changed'}.get(how, how), when, does)
        differences.append(_difference('io_rule_changed', path, path, 'udev', None if how == 'appeared' else 'present',
                                       None if how == 'gone' else 'present', package, message))
    return differences


# ---------------------------------------------------------------------------- rule: devices and mounts

KIND_TEXT = {'wwn': 'WWN', 'serial': 'serial', 'by_id': '/dev/disk/by-id link', 'by_path': '/dev/disk/by-path link',
             'dm_name': 'device-mapper name'}


def device_differences(ctx):
    differences = []
    devices_old = _dict(_dict(ctx.before.get('facts')).get('block_devices'))
    devices_new = _dict(_dict(ctx.after.get('facts')).get('block_devices'))
    for old in sorted(ctx.renames):
        new = ctx.renames[old]
        kind, value = ctx.paired_by[old]
        size = _dict(devices_new[new]).get('size_bytes')
        differences.append(_difference(
            'device_renamed', '%s->%s' % (old, new), new, 'device', old, new, None,
            'block device %s is now %s (the same %s %s%s): its settings are compared under the new name; a udev rule '
            'that matches the kernel name %s no longer applies to it'
            % (old, new, KIND_TEXT[kind], value, ', %.1f GiB' % (size / 1073741824.0) if isinstance(size, int) else '', old)))
    for name in ctx.devices_added:
        differences.append(_difference('device_added', name, name, 'device', None, 'present', None,
                                       'block device %s appeared%s' % (name, _device_note(devices_new[name]))))
    for name in ctx.devices_removed:
        differences.append(_difference('device_removed', name, name, 'device', 'present', None, None,
                                       'block device %s is gone%s; its settings are no longer there'
                                       % (name, _device_note(devices_old[name]))))
    return differences


def _device_note(info):
    info = _dict(info)
    parts = []
    if isinstance(info.get('size_bytes'), int):
        parts.append('%.1f GiB' % (info['size_bytes'] / 1073741824.0))
    for field in ('model', 'serial', 'wwn'):
        if info.get(field):
            parts.append('%s %s' % (field, info[field]))
    return ' (%s)' % ', '.join(parts) if parts else ''


def _in_fstab(snapshot, mount_point):
    return any(_dict(entry).get('file') == mount_point for entry in _list(_dict(snapshot.get('facts')).get('fstab')))


def mount_differences(ctx):
    differences = []
    mounts_old = _dict(_dict(ctx.before.get('facts')).get('mounts'))
    mounts_new = _dict(_dict(ctx.after.get('facts')).get('mounts'))
    for path in ctx.mounts_added:
        info = _dict(mounts_new[path])
        differences.append(_difference('mount_added', path, path, 'mount', None, 'mounted', None,
                                       '%s is mounted now (%s, %s)' % (path, info.get('source'), info.get('fstype'))))
    for path in ctx.mounts_removed:
        info = _dict(mounts_old[path])
        message = '%s is no longer mounted (was %s, %s)' % (path, info.get('source'), info.get('fstype'))
        if _in_fstab(ctx.after, path):
            message += '; it is still in /etc/fstab: it did not mount at boot, check its device and the boot log'
        differences.append(_difference('mount_removed', path, path, 'mount', 'mounted', None, None, message))
    return differences


# ---------------------------------------------------------------------------- rule: settings

def _settings(snapshot):
    return _dict(snapshot.get('settings'))


def _assignments(entry, admin):
    return [_dict(item) for item in _list(_dict(entry).get('persistent')) if bool(_dict(item).get('vendor')) is not admin]


def boot_value(entry):
    """The value the last persistent assignment gives at boot, or None."""
    assignments = _list(_dict(entry).get('persistent'))
    return _dict(assignments[-1]).get('value') if assignments else None


def _admin_changed(ctx, b, a):
    """Whether an administrator's assignment of this key changed with its source: then that source's
    changed_setting covers it.  Assignments that differ while every source of them is unchanged (a udev
    rule that no longer applies to a renamed device, or applies now) are not covered: the rules below
    explain them."""
    involved = any(item.get('source') in ctx.sources for item in _assignments(b, True) + _assignments(a, True))
    if b is not None and a is not None:
        first = [(item.get('source'), _norm(item.get('value'))) for item in _assignments(b, True)]
        second = [(item.get('source'), _norm(item.get('value'))) for item in _assignments(a, True)]
        return first != second and involved
    return involved


def _covered_elsewhere(ctx, key, b, a):
    """A key missing (or without a live value) on one side because its device or mount went or came
    (that difference covers it), or because its VxFS file system could not be read there (the
    snapshot's ``errors`` and ``vxtunefs[mp].error`` say why: not a difference)."""
    missing = [side for side, entry in ((ctx.before, b), (ctx.after, a)) if _dict(entry).get('live') is None]
    if not missing:
        return False
    concern, subject, dummy = key_parts(key)
    if concern == 'block_queue':
        # (the keys of a device that went or came are not compared: setting_differences leaves them out)
        return subject in ctx.all_added
    if concern in ('mount_options', 'tunefstab') and subject in ctx.mounts_added + ctx.mounts_removed:
        return True
    return concern == 'tunefstab' and any(_dict(_dict(side.get('vxtunefs')).get(subject)).get('error') for side in missing)


def value_change(key, b, a):
    """(old, new, pending) of a key, or None: the live value changed, or (pending) the live value is
    the same but the value the boot sources give changed and differs from it."""
    live_old, live_new = _dict(b).get('live'), _dict(a).get('live')
    if not same(live_old, live_new):
        return live_old, live_new, False
    if key_parts(key)[0] == 'mount_options' or b is None or a is None:
        return None
    boot_old, boot_new = boot_value(b), boot_value(a)
    if boot_new is not None and not same(boot_old, boot_new) and not same(boot_new, live_new):
        return live_new, boot_new, True
    return None


def explanation(ctx, key, b, a):
    """(package, text) of what explains a change of ``key``: a vendor source that sets it and changed
    (its package, else its path), else a package change of its concern; (None, None) when nothing does."""
    # the vendor assignment that wins at boot first: the last one after, then the last one before
    for item in list(reversed(_assignments(a, False))) + list(reversed(_assignments(b, False))):
        path = item.get('source')
        if path in ctx.sources:
            verb = {'appeared': 'appeared', 'changed': 'changed', 'gone': 'went away'}[ctx.sources[path]]
            return ctx.source(path).get('package') or path, {'source': path, 'how': verb, 'text': _source_text(ctx, path)}
    concern = key_parts(key)[0]
    names = []
    if concern == 'tunefstab':
        names = [name for name in VXFS_PACKAGES if name in ctx.packages]
    elif concern == 'mount_options':
        names = ['kernel'] + ([UTIL_LINUX] if UTIL_LINUX in ctx.packages else [])
    elif concern in ('block_queue', 'cache_limits'):
        names = ['kernel']
    for name in names:
        if name == 'kernel':
            if ctx.kernel:
                return ctx.kernel['package'], {'source': None, 'how': None, 'text': ctx.kernel['text']}
        else:
            return name, {'source': None, 'how': None, 'text': package_text(name, *ctx.packages[name])}
    return None, None


def _source_text(ctx, path):
    """``/usr/lib/sysctl.d/50-vendor.conf (package foo 1.0 -> 1.1)``, or the path alone."""
    package = ctx.source(path).get('package')
    return '%s (package %s)' % (path, ctx.package_version_text(package)) if package else path


def _nobody(key):
    concern = key_parts(key)[0]
    return {'cache_limits': 'no file of yours sets it', 'block_queue': 'no udev rule of yours sets it',
            'tunefstab': 'no tunefstab entry sets it', 'mount_options': '/etc/fstab does not set these options'}[concern]


def _tunefstab_path(snapshot):
    for path, source in sorted(_dict(snapshot.get('sources')).items()):
        if _dict(source).get('kind') == 'tunefstab':
            return path
    return _dict(_dict(snapshot.get('facts')).get('vxfs')).get('tunefstab_path') or DEFAULT_TUNEFSTAB


def _vxfs_device(ctx, mount_point, entry):
    for snapshot in (ctx.before, ctx.after):
        device = _dict(_dict(snapshot.get('vxtunefs')).get(mount_point)).get('device')
        if device:
            return device
        device = _dict(_dict(_dict(snapshot.get('facts')).get('mounts')).get(mount_point)).get('source')
        if device:
            return device
    return _dict(entry).get('target') or mount_point


def _keep_advice(ctx, key, old, entry):
    """How to keep the old value, for a changed_default."""
    concern, subject, attribute = key_parts(key)
    if old is None:
        return ''
    if concern == 'tunefstab':
        return 'add %s=%s to %s for %s to keep the old behaviour' % (
            attribute, fmt(old), _tunefstab_path(ctx.after), _vxfs_device(ctx, subject, entry))
    if concern == 'block_queue':
        return 'pin it with a udev rule (iotune.storage.block_queue) if the old value was right'
    if concern == 'mount_options':
        return 'put the old options in its /etc/fstab entry if they were right'
    return 'pin it in /etc/sysctl.d if the old value was right'


def _reapply_advice(key, source, value):
    concern, subject, attribute = key_parts(key)
    if concern == 'tunefstab':
        return 'run vxtunefs -o %s=%s %s or harden_io.yml' % (attribute, fmt(value), subject)
    if concern == 'block_queue':
        return 'run udevadm trigger --action=change --subsystem-match=block or harden_io.yml'
    if concern == 'mount_options':
        return 'run mount -o remount %s or harden_io.yml' % subject
    return 'run sysctl --load %s or harden_io.yml' % source


def _now(key, old, new, pending):
    if pending:
        return '%s is %s live but becomes %s at the next boot' % (key, fmt(old), fmt(new))
    return '%s %s' % (key, change_text(old, new))


def changed_default(ctx, key, b, a, old, new, pending):
    entry = a or b
    package, why = explanation(ctx, key, b, a)
    head = _now(key, old, new, pending)
    if why and why['source']:
        if why['how'] == 'went away':
            tail = '%s: %s, which set it, went away' % (_nobody(key), why['text'])
        else:
            tail = '%s: the new default comes from %s' % (_nobody(key), why['text'])
        message = '%s; %s' % (head, tail)
    elif why:
        message = '%s with %s; %s' % (head, why['text'], _nobody(key))
    else:
        message = '%s; %s and no package change explains it (was the old value set live only?)' % (head, _nobody(key))
    advice = _keep_advice(ctx, key, old, entry)
    if advice:
        # "... with VRTSvxfs 7.4 -> 8.0; no tunefstab entry sets it: add ..."; after a sentence with a colon, "; "
        message += ('; ' if not why or why['source'] else ': ') + advice
    return _difference('changed_default', key, _dict(entry).get('target') or key_parts(key)[1],
                       _dict(entry).get('setting') or key_parts(key)[2] or key_parts(key)[0], old, new, package, message)


def _lost(key, b, a, old, new, package, message):
    entry = a or b
    return _difference('lost_setting', key, _dict(entry).get('target') or key_parts(key)[1],
                       _dict(entry).get('setting') or key_parts(key)[2] or key_parts(key)[0], old, new, package, message)


def _applies_text(ctx, key, source, now):
    """Why an unchanged rule's assignment came or went: ``<source> no longer applies to the device ...``."""
    rename = ctx.rename_text(key)
    if now:
        text = '%s applies to the device now, which it did not before' % source
        return text + (' (a rule that matches the kernel name follows the name, not the disk: check it is meant for '
                       'this disk)' if rename else '')
    text = '%s no longer applies to the device' % source
    if rename:
        return text + ('; make the rule match the disk by ID_WWN, ID_SERIAL or ID_PATH instead of the kernel name %s'
                       % rename.split(' -> ')[0])
    return text + ' (what the rule matches on changed)'


def admin_lost(ctx, key, b, a, old, new, pending):
    """An administrator's unchanged assignment sets the key and its value changed anyway."""
    admin = (_assignments(a, True) or _assignments(b, True))[-1]
    source, value = admin.get('source'), admin.get('value')
    package, why = explanation(ctx, key, b, a)
    both = b is not None and a is not None
    stopped = both and not _assignments(a, True)            # the rule applied before, not now
    started = both and not _assignments(b, True)            # it applies now, not before
    if same(new, value) and old is None:
        return None  # the key appeared with the value the administrator's unchanged source sets
    if started and same(new, value):
        message = '%s changed from %s to %s: %s' % (key, fmt(old), fmt(new), _applies_text(ctx, key, source, True))
        return _difference('changed_default', key, _dict(a).get('target') or key_parts(key)[1],
                           _dict(a).get('setting') or key_parts(key)[2], old, new, package, message)
    if same(new, value):
        message = ('%s was %s, set live only (%s sets %s), and is now %s: the live-only value is lost; put it in %s '
                   'if it was right' % (key, fmt(old), source, fmt(value), fmt(new), source))
        return _lost(key, b, a, old, new, package, message)
    if pending:
        message = '%s is %s live, but at the next boot it becomes %s though %s sets %s' % (key, fmt(old), fmt(new), source, fmt(value))
    else:
        message = '%s is %s, %s sets %s: the setting is lost' % (key, fmt(new), source, fmt(value))
    overrider = _overrider(a, source, value)
    if overrider:
        message += ('; %s comes after it at boot and sets %s: name your file so that it sorts after %s, then %s'
                    % (_source_text(ctx, overrider['source']), fmt(overrider.get('value')), overrider['source'].rsplit('/', 1)[-1],
                       _reapply_advice(key, source, value)))
        return _lost(key, b, a, old, new, package, message)
    if why and why['source']:
        message += '; %s %s' % (why['text'], why['how'])
    elif why:
        message += ' with %s' % why['text']
    if stopped:
        message += '; %s; then %s' % (_applies_text(ctx, key, source, False), _reapply_advice(key, source, value))
    else:
        message += '; %s' % _reapply_advice(key, source, value)
    return _lost(key, b, a, old, new, package, message)


def _overrider(entry, source, value):
    """The vendor assignment after the administrator's one (from ``source``) that wins at boot with another value."""
    assignments = [_dict(item) for item in _list(_dict(entry).get('persistent'))]
    sources = [item.get('source') for item in assignments]
    if not assignments or source not in sources:
        return None
    last = assignments[-1]
    if last.get('vendor') and sources.index(source) < len(assignments) - 1 and not same(last.get('value'), value):
        return last
    return None


# ---------------------------------------------------------------------------- policy checks

def mounts_of_device(snapshot, device):
    """Mount points of a device (tunefstab checks name the device; the settings keys the mount point)."""
    found = set()
    for mount_point, info in _dict(snapshot.get('vxtunefs')).items():
        if _dict(info).get('device') == device:
            found.add(mount_point)
    for mount_point, info in _dict(_dict(snapshot.get('facts')).get('mounts')).items():
        if _dict(info).get('source') == device:
            found.add(mount_point)
    if device in _dict(_dict(snapshot.get('facts')).get('mounts')) or device in _dict(snapshot.get('vxtunefs')):
        found.add(device)
    return sorted(found)


def _equals(expected):
    return lambda live: same(live, expected)


def _option(option, present):
    return lambda live: (option in _list(live)) is present


def policy_keys(check, snapshot):
    """[(settings key, holds(live) -> bool)] a policy check is about:

    ``cache_limits:sysctl:<vm.key>`` -> ``<vm.key>``; ``block_queue:<dev>:<attr>`` -> ``block_queue:<dev>:<attr>``;
    ``mount_options:<path>:present|absent:<option>`` -> ``mount_options:<path>`` (the option in or out of the
    live list); ``tunefstab:<device>:<tunable>`` -> ``tunefstab:<mount point>:<tunable>`` for each mount point of
    the device (``vxtunefs[*].device``, else ``facts.mounts[*].source``).  Other checks (the slice's
    MemoryHigh, copy_tools) have no settings key: []."""
    concern, target, setting = check.get('concern'), check.get('target'), check.get('setting')
    expected = check.get('expected')
    if not isinstance(target, str) or not isinstance(setting, str):
        return []
    if concern == 'cache_limits' and target == 'sysctl':
        return [(setting, _equals(expected))]
    if concern == 'block_queue':
        return [('block_queue:%s:%s' % (target, setting), _equals(expected))]
    if concern == 'mount_options':
        state, dummy, option = setting.partition(':')
        if state in ('present', 'absent') and option:
            return [('mount_options:%s' % target, _option(option, state == 'present'))]
        return []
    if concern == 'tunefstab':
        return [('tunefstab:%s:%s' % (mount_point, setting), _equals(expected)) for mount_point in mounts_of_device(snapshot, target)]
    return []


def policy_lost(ctx, key, b, a):
    """The policy checks of ``before`` (compliant or not_persistent: the live value was the expected one)
    about ``key`` whose expectation held before and does not hold after: [check]."""
    lost = []
    for check in _list(ctx.before.get('policy_checks')):
        check = _dict(check)
        if check.get('status') not in HAD_STATUSES:
            continue
        for policy_key, holds in policy_keys(check, ctx.before):
            if ctx.translate(policy_key) == key and holds(_dict(b).get('live')) and not holds(_dict(a).get('live')):
                lost.append(check)
    ctx.policy_covered.update(check.get('id') for check in lost)
    return lost


def policy_resolved_checks(ctx, key, b, a):
    """The policy checks of ``before`` about ``key`` that did not hold then (drift, not_persistent, error)
    and hold now: what the policy wanted has come."""
    found = []
    for check in _list(ctx.before.get('policy_checks')):
        check = _dict(check)
        if check.get('status') == 'compliant':
            continue
        for policy_key, holds in policy_keys(check, ctx.before):
            if ctx.translate(policy_key) == key and not holds(_dict(b).get('live')) and holds(_dict(a).get('live')):
                found.append(check)
    return found


def _check_option(check):
    """The option of a mount_options check (``absent:commit=1`` -> ``commit=1``), else None."""
    if check.get('concern') != 'mount_options':
        return None
    return (check.get('setting') or '').partition(':')[2] or None


def policy_wants(ctx, mount_point, option):
    """'present', 'absent' or None: what the policy checks of either snapshot want of ``option`` on ``mount_point``."""
    for snapshot in (ctx.after, ctx.before):
        for check in _list(snapshot.get('policy_checks')):
            check = _dict(check)
            if check.get('concern') == 'mount_options' and check.get('target') == mount_point and _check_option(check) == option:
                return (check.get('setting') or '').partition(':')[0]
    return None


def policy_status_differences(ctx):
    """Each policy check of ``before`` against the same check of ``after`` (when ``after`` audited the
    policy): one that held and no longer does is lost_setting, one that did not and does now is resolved,
    unless a settings rule reported it already."""
    after = dict((_dict(check).get('id'), _dict(check)) for check in _list(ctx.after.get('policy_checks')))
    differences = []
    for check in _list(ctx.before.get('policy_checks')):
        check = _dict(check)
        now = after.get(check.get('id'))
        if now is None or check.get('id') in ctx.policy_covered:
            continue
        was, status = check.get('status'), now.get('status')
        if was in HAD_STATUSES and status not in HAD_STATUSES and status != 'not_applicable':
            klass, what = 'lost_setting', 'the setting is lost: run harden_io.yml to set it again'
        elif was not in HAD_STATUSES and status in HAD_STATUSES:
            klass, what = 'resolved', 'as the policy wants'
        else:
            continue
        differences.append(_difference(klass, 'policy:%s' % check.get('id'), check.get('target'), check.get('setting'), was,
                                       status, None, 'policy check %s was %s before and is %s now: %s (%s)'
                                       % (check.get('id'), was, status, now.get('message') or '', what)))
    return differences


def policy_status(before, after):
    """[{id, before, after}] of the policy checks of both snapshots (after: None when it did not audit)."""
    now = dict((_dict(check).get('id'), _dict(check).get('status')) for check in _list(_dict(after).get('policy_checks')))
    return [{'id': _dict(check).get('id'), 'before': _dict(check).get('status'), 'after': now.get(_dict(check).get('id'))}
            for check in _list(_dict(before).get('policy_checks'))]


def policy_lost_difference(ctx, key, b, a, old, new, pending, checks):
    package, why = explanation(ctx, key, b, a)
    wanted = ', '.join(sorted(set('%s %s' % (c.get('setting'), fmt(c.get('expected'))) if c.get('concern') == 'mount_options'
                                  else fmt(c.get('expected')) for c in checks)))
    message = '%s: the policy expects %s and it held before (check %s): the setting is %s' % (
        _now(key, old, new, pending), wanted, ', '.join(sorted(set(c.get('id') or '?' for c in checks))),
        'lost at the next boot' if pending else 'lost')
    if why:
        message += ' with %s%s' % (why['text'], ' (%s)' % why['how'] if why['source'] else '')  # e.g. "(appeared)"
    message += '; run harden_io.yml to set it again and make it persistent'
    return _lost(key, b, a, old, new, package, message)


def mount_options_difference(ctx, key, b, a, old, new):
    """Options compared one by one: an option /etc/fstab (or the policy) sets that was live and is gone is
    lost_setting; any other change of the live options is changed_default."""
    admin = set()
    for item in _assignments(a, True) or _assignments(b, True):
        admin |= set(_list(item.get('value')))
    old_set, new_set = set(_list(old)), set(_list(new))
    gone, came = sorted(old_set - new_set), sorted(new_set - old_set)
    lost = [option for option in gone if option in admin]
    checks = policy_lost(ctx, key, b, a)
    summary = ' / '.join(['+' + option for option in came] + ['-' + option for option in gone])  # as the file line summary
    package, why = explanation(ctx, key, b, a)
    subject = key_parts(key)[1]
    if lost or checks:
        message = '%s: %s' % (key, summary)
        if lost:
            message += '; /etc/fstab sets %s but the live mount no longer has it: the setting is lost' % ','.join(lost)
        if checks:
            message += '; the policy expects %s and it held before: the setting is lost' % ', '.join(
                sorted(set(c.get('setting') for c in checks)))
        if why:
            message += ' (with %s)' % why['text']
        # an option fstab sets comes back with a remount; one only the policy wanted needs enforcing
        message += '; %s' % (_reapply_advice(key, None, None) if lost else 'run harden_io.yml to set it again and make it persistent')
        return _lost(key, b, a, old, new, package, message)
    # explain before blaming: the unchanged fstab entry and the policy come before any package
    follows_fstab = bool(_assignments(a, True)) and all(o not in admin for o in gone) and all(o in admin for o in came)
    resolved = policy_resolved_checks(ctx, key, b, a)
    unexplained = [o for o in gone + came if not (follows_fstab and (o in gone or o in admin)) and not any(
        _check_option(check) == o for check in resolved)]
    if not unexplained:
        ctx.policy_covered.update(check.get('id') for check in resolved)
        parts = []
        if follows_fstab:
            entry = _assignments(a, True)[-1]
            parts.append('the live options now follow the /etc/fstab entry (%s)%s' % (
                fmt(entry.get('value')), ', which does not set %s: it was set live only' % ','.join(gone) if gone else ''))
        if resolved:
            parts.append('as the policy wants (%s, %s before)' % (', '.join(sorted(c.get('id') for c in resolved)),
                                                                  '/'.join(sorted(set(c.get('status') for c in resolved)))))
        message = '%s changed: %s; %s' % (key, summary, '; '.join(parts))
        return _difference('resolved', key, subject, _dict(a or b).get('setting') or 'options', old, new, None, message)
    if why:
        message = '%s changed: %s with %s; %s' % (key, summary, why['text'], _nobody(key))
    else:
        message = '%s changed: %s; %s and no package change explains it (remounted live?)' % (key, summary, _nobody(key))
    # advice never contradicts the policy: an option it wants absent is not suggested back
    keep = [o for o in gone if policy_wants(ctx, subject, o) != 'absent']
    if keep:
        message += '; add %s to the /etc/fstab entry of %s if the old behaviour was right' % (','.join(keep), subject)
    return _difference('changed_default', key, subject, _dict(a or b).get('setting') or 'options', old, new, package, message)


def setting_difference(ctx, key, b, a):
    """The one difference of a settings key, or None."""
    if _covered_elsewhere(ctx, key, b, a):
        return None
    if _admin_changed(ctx, b, a):
        return None
    change = value_change(key, b, a)
    if change is None:
        return None
    old, new, pending = change
    if key_parts(key)[0] == 'mount_options':
        return mount_options_difference(ctx, key, b, a, old, new)
    if _assignments(a, True) or _assignments(b, True):
        return admin_lost(ctx, key, b, a, old, new, pending)
    checks = policy_lost(ctx, key, b, dict(_dict(a), live=new) if pending else a)
    if checks:
        return policy_lost_difference(ctx, key, b, a, old, new, pending, checks)
    return changed_default(ctx, key, b, a, old, new, pending)


def setting_differences(ctx):
    """One difference per settings key at most; the keys of a renamed device are compared under its
    new name, those of a device that went or came are left to device_removed / device_added."""
    old, new = {}, {}
    for key, entry in _settings(ctx.before).items():
        concern, subject, dummy = key_parts(key)
        if not (concern == 'block_queue' and subject in ctx.all_removed):
            old[ctx.translate(key)] = entry
    for key, entry in _settings(ctx.after).items():
        concern, subject, dummy = key_parts(key)
        if not (concern == 'block_queue' and subject in ctx.all_added):
            new[key] = entry
    differences = []
    for key in sorted(set(old) | set(new)):
        difference = setting_difference(ctx, key, old.get(key), new.get(key))
        if difference is not None:
            rename = ctx.rename_text(key)
            if rename:
                difference['message'] = difference['message'].replace(key, '%s (renamed %s)' % (key, rename), 1)
            differences.append(difference)
    return differences


# ---------------------------------------------------------------------------- rule: other sysctl keys

def sysctl_files(snapshot):
    """The sysctl sources of a snapshot in the order they apply at boot (sysctl.d(5)): by file name across
    SYSCTL_DIRS, where a name in an earlier directory hides the same name in a later one, then
    /etc/sysctl.conf. [(path, source)]."""
    chosen, conf = {}, []
    for path, source in _dict(snapshot.get('sources')).items():
        source = _dict(source)
        if source.get('kind') != 'sysctl':
            continue
        directory, name = os.path.split(path)
        rank = [index for index, known in enumerate(SYSCTL_DIRS) if directory.endswith(known)]
        if not rank:
            conf.append((path, source))
        elif name not in chosen or rank[0] < chosen[name][0]:
            chosen[name] = (rank[0], path, source)
    return [(chosen[name][1], chosen[name][2]) for name in sorted(chosen)] + sorted(conf)


def sysctl_assignments(snapshot):
    """{key: [(path, value)]} in boot order, of every key a sysctl source of the snapshot sets."""
    found = {}
    for path, source in sysctl_files(snapshot):
        for item in parse_sysctl_conf(source.get('text') or ''):
            found.setdefault(item['key'], []).append((path, item['value']))
    return found


def _io_key(key, io_sysctls, policy_keys_set):
    return key in policy_keys_set or any(fnmatch.fnmatchcase(key, pattern) for pattern in io_sysctls)


def _sysctl_unchanged(ctx, old, new, boot_old, boot_new):
    """True when a key has nothing to report: the same value, or, where a value was not recorded, no
    file changed what it sets; or an administrator's file that sets it changed or went (its
    changed_setting covers it)."""
    if old is not None and new is not None:
        if same(old, new):
            return True
    elif same(boot_old and boot_old[1], boot_new and boot_new[1]):
        return True  # a value not recorded and no file that changed what it sets
    return any(boot and is_admin(ctx.source(boot[0])) and boot[0] in ctx.sources for boot in (boot_old, boot_new))


def _sysctl_cause(ctx, key, boot_old, boot_new, admin_new):
    """(package or None, why): the file (and its package) that sets the new value, or that set the old one
    and went, or the kernel's default."""
    package = None
    if boot_new and boot_new[0] in ctx.sources and not admin_new:
        package = ctx.source(boot_new[0]).get('package')
        why = 'the new value comes from %s, which %s' % (_source_text(ctx, boot_new[0]), {
            'appeared': 'appeared', 'changed': 'changed', 'gone': 'went away'}[ctx.sources[boot_new[0]]])
    elif boot_old and boot_old[0] in ctx.sources and ctx.sources[boot_old[0]] == 'gone':
        package = ctx.owner(boot_old[0])[0]
        why = '%s, which set it to %s, went away' % (_source_text(ctx, boot_old[0]), fmt(boot_old[1]))
    elif boot_new and admin_new:
        why = '%s sets %s' % (boot_new[0], fmt(boot_new[1]))
    elif ctx.kernel:
        package, why = ctx.kernel['package'], 'no file sets it: the default of %s' % ctx.kernel['text']
    elif key in BOOT_COMPUTED:
        why = 'no file sets it: the kernel computes it from the memory free at boot'
    else:
        why = 'no file sets it and no package change explains it (was it set live?)'
    return package, why


def _sysctl_class(message, io_key, admin_new, new, boot_new):
    """(class, message): an I/O key is changed_default (pin it) or lost_setting (an administrator's file
    sets another value than the live one); any other key is sysctl_changed, which does not fail."""
    if not io_key:
        return 'sysctl_changed', message + '; not an I/O setting (%s): reported, not failing' % IO_SYSCTLS_FIELD
    if admin_new and not same(new, boot_new[1]):
        return 'lost_setting', message
    return 'changed_default', message + '; pin it in /etc/sysctl.d if the old value was right'


def _grouped_sysctl_differences(grouped):
    """One sysctl_changed difference per (why, package) of the keys outside vm.* that are not I/O keys."""
    differences = []
    for (why, package), items in sorted(grouped.items()):
        more = ' (and %d more)' % (len(items) - MAX_LINES) if len(items) > MAX_LINES else ''
        differences.append(_difference(
            'sysctl_changed', 'sysctl:%s' % (package or why), 'sysctl', 'other keys', None, items, package,
            '%d key(s) outside vm.* changed: %s%s; %s; not I/O settings: reported, not failing'
            % (len(items), ', '.join(items[:MAX_LINES]), more, why)))
    return differences


def sysctl_differences(ctx, io_sysctls=DEFAULT_IO_SYSCTLS):
    """The sysctl keys outside the collection's settings: every /proc/sys/vm value and every key a sysctl
    file sets (``sysctl`` of format 2; a format-1 snapshot has only its files). A changed value is traced to
    the file (and its package) that sets it now, or that set it and went; I/O keys (``io_sysctls`` and the
    policy's own) are changed_default, the others sysctl_changed, which does not fail by default."""
    settings = set(_settings(ctx.before)) | set(_settings(ctx.after))
    live_old, live_new = _dict(ctx.before.get('sysctl')), _dict(ctx.after.get('sysctl'))
    files_old, files_new = sysctl_assignments(ctx.before), sysctl_assignments(ctx.after)
    policy_set = set(_dict(check).get('setting') for check in _list(ctx.before.get('policy_checks'))
                     if _dict(check).get('concern') == 'cache_limits')
    differences, grouped = [], {}
    for key in sorted(set(live_old) | set(live_new) | set(files_old) | set(files_new)):
        if key in settings:
            continue
        old, new = live_old.get(key), live_new.get(key)
        boot_old = files_old[key][-1] if key in files_old else None
        boot_new = files_new[key][-1] if key in files_new else None
        if _sysctl_unchanged(ctx, old, new, boot_old, boot_new):
            continue
        unknown = [ctx.names[index] for index, value in enumerate((old, new)) if value is None]
        admin_new = boot_new and is_admin(ctx.source(boot_new[0]))
        package, why = _sysctl_cause(ctx, key, boot_old, boot_new, admin_new)
        value = new if new is not None else boot_new and boot_new[1]
        io_key = _io_key(key, io_sysctls, policy_set)
        if not key.startswith('vm.') and not io_key:
            # keys outside vm.* are reported per file that sets them, in one line each
            grouped.setdefault((why, package), []).append('%s %s' % (key, fmt(value)))
            continue
        head = '%s %s' % (key, change_text(old, new)) if not unknown else '%s is now %s' % (
            key, 'set to %s by the files' % fmt(boot_new[1]) if boot_new else 'set by no file')
        message = '%s: %s' % (head, why)
        if unknown:
            message += ' (live value not recorded: format 1)'
        klass, message = _sysctl_class(message, io_key, admin_new, new, boot_new)
        differences.append(_difference(klass, key, 'sysctl', key, old, value, package, message))
    return differences + _grouped_sysctl_differences(grouped)


# ---------------------------------------------------------------------------- rule: kernels and schedulers

def _kernels(snapshot):
    return _dict(snapshot.get('kernels'))


def host_config_uses(*snapshots):
    """{CONFIG name: what of the host uses it} from the snapshots' facts and policy checks: the file systems it
    mounts (pseudo mounts left out), the drivers of its block devices, the schedulers its devices run or its
    policy sets."""
    uses = {}
    for snap in snapshots:
        facts = _dict(snap.get('facts'))
        by_config = {}
        for path, info in sorted(_dict(facts.get('mounts')).items()):
            fstype = _dict(info).get('fstype')
            if fstype in FSTYPE_CONFIGS and not is_noise_mount(path, info):
                by_config.setdefault((FSTYPE_CONFIGS[fstype], fstype), []).append(path)
        devices = _dict(facts.get('block_devices'))
        for name in sorted(devices):
            config = next((config for prefix, config in DEVICE_CONFIGS if name.startswith(prefix)), None)
            if config:
                by_config.setdefault((config, None), []).append(name)
        wanted = [(_dict(check).get('expected'), _dict(check).get('target')) for check in _list(snap.get('policy_checks'))
                  if _dict(check).get('concern') == 'block_queue' and _dict(check).get('setting') == 'scheduler']
        running = [(_dict(info).get('scheduler'), name) for name, info in sorted(devices.items())]
        for scheduler, name in wanted + running:
            if scheduler in SCHEDULER_MODULES:
                by_config.setdefault((_scheduler_config(scheduler), scheduler), []).append(name)
        for (config, what), names in sorted(by_config.items()):
            text = '%s: %s' % (what, ', '.join(names)) if what and what in FSTYPE_CONFIGS else (
                'scheduler of %s' % _name_ranges(sorted(set(names))) if what else _name_ranges(names))
            uses.setdefault(config, text)
    return uses


def _config_value(config, name):
    """An option's value in a kernel config; ``absent`` where the kernel has no such option (not the
    same as ``n``, an option it has and leaves out)."""
    return config.get(name, 'absent')


def config_changes(old, new, limit=MAX_CONFIG_LINES, uses=None):
    """``CONFIG_MQ_IOSCHED_DEADLINE y -> m`` for the I/O options that differ, at most ``limit``: those the host
    uses first (``uses``: host_config_uses, with what uses them), then the schedulers, then the others."""
    old, new, uses = _dict(old), _dict(new), _dict(uses)
    names = sorted(set(old) | set(new), key=lambda name: (name not in uses, 'IOSCHED' not in name, name))
    items = ['%s %s -> %s%s' % (name, _config_value(old, name), _config_value(new, name), ' (%s)' % uses[name] if name in uses else '')
             for name in names if old.get(name, 'n') != new.get(name, 'n')]
    text = ', '.join(items[:limit])
    if len(items) > limit:
        text += ' (and %d more)' % (len(items) - limit)
    return text


def unchanged_uses(old, new, uses):
    """What stayed the same for the host: ``CONFIG_EXT4_FS y (ext4: /)`` for each option it uses that both
    kernels set alike."""
    old, new = _dict(old), _dict(new)
    return ['%s %s (%s)' % (name, _config_value(new, name), uses[name]) for name in sorted(uses)
            if (name in old or name in new) and old.get(name, 'n') == new.get(name, 'n')]


def kernel_flavour(release):
    """The flavour a Debian or Ubuntu kernel release ends with (``cloud-amd64``, ``generic``), else None."""
    found = _FLAVOUR_RE.match(release or '')
    return found.group('flavour') if found else None


def _flavour_text(old, new):
    first, second = kernel_flavour(old), kernel_flavour(new)
    if first and second and first != second:
        return '; the kernel flavour changed: %s -> %s (a kernel built with another configuration, not only a newer one)' % (
            first, second)
    return ''


def _kernel_io_text(configs, modules, old, new, uses=None):
    """What a change from kernel ``old`` to ``new`` changes in the block layer, from /boot/config-*, the options the
    host uses first, and what stayed the same for it."""
    if old not in configs or new not in configs:
        return 'the I/O configuration of %s is not recorded' % (old if old not in configs else new)
    uses = _dict(uses)
    changes = config_changes(configs[old], configs[new], uses=uses)
    same = unchanged_uses(configs[old], configs[new], uses)
    schedulers = sorted(_scheduler_config(name) for name in SCHEDULER_MODULES)
    if all(_dict(configs[old]).get(name, 'n') == _dict(configs[new]).get(name, 'n') for name in schedulers):
        same.append('the schedulers\' options (%s)' % ', '.join(
            '%s %s' % (name, _config_value(_dict(configs[new]), name)) for name in schedulers if name not in uses))
    unchanged = '; unchanged for this host: %s' % ', '.join(same) if same else ''
    if not changes:
        return 'the block layer\'s options (/boot/config-*) are the same%s' % unchanged
    text = 'block layer options: %s' % changes
    moved = [name for name, module in sorted(SCHEDULER_MODULES.items())
             if _dict(configs[old]).get(_scheduler_config(name)) == 'y' and _dict(configs[new]).get(_scheduler_config(name)) == 'm']
    if moved:
        loadable = [name for name in moved if SCHEDULER_MODULES[name] in _list(_dict(modules).get(new))]
        text += ' (%s built in before, a module in %s%s)' % (', '.join(moved), new, ': not loaded unless something loads it'
                                                             if loadable else '')
    return text + unchanged


def _scheduler_config(name):
    return {'mq-deadline': 'CONFIG_MQ_IOSCHED_DEADLINE', 'kyber': 'CONFIG_MQ_IOSCHED_KYBER', 'bfq': 'CONFIG_IOSCHED_BFQ'}[name]


def kernel_differences(ctx):
    """kernel_changed when the running kernel changed, kernel_pending when ``after`` installed a kernel that
    the next boot runs and that is not running: each on its own line, with what it changes in the block layer."""
    differences = []
    old = _dict(ctx.before.get('host')).get('kernel_release')
    new = _dict(ctx.after.get('host')).get('kernel_release')
    configs = dict(_dict(_kernels(ctx.before).get('configs')), **_dict(_kernels(ctx.after).get('configs')))
    modules = dict(_dict(_kernels(ctx.before).get('scheduler_modules')), **_dict(_kernels(ctx.after).get('scheduler_modules')))
    uses = host_config_uses(ctx.after, ctx.before)
    if old and new and old != new:
        differences.append(_difference('kernel_changed', 'kernel', 'kernel', 'release', old, new,
                                       ctx.kernel and ctx.kernel['package'],
                                       'the running kernel changed: %s -> %s%s; %s' % (
                                           old, new, _flavour_text(old, new), _kernel_io_text(configs, modules, old, new, uses))))
    elif ctx.kernel:
        differences.append(_difference('kernel_changed', 'kernel', 'kernel', 'package', ctx.kernel['before'], ctx.kernel['after'],
                                       ctx.kernel['package'], 'the running kernel\'s package changed: %s' % ctx.kernel['text']))
    kernels = _kernels(ctx.after)
    pending = kernels.get('next_boot')
    if pending and new and pending != new:
        differences.append(_difference(
            'kernel_pending', 'kernel:next_boot', 'kernel', 'next_boot', new, pending, None,
            'the next boot runs kernel %s (%s), not the running %s%s: reboot before you trust this comparison; %s'
            % (pending, kernels.get('next_boot_source') or 'found', new, _flavour_text(new, pending),
               _kernel_io_text(configs, modules, new, pending, uses))))
    return differences


def scheduler_differences(ctx):
    """schedulers_changed: the schedulers a device offers changed (one line per change, naming the
    devices); a scheduler the policy sets that is no longer offered says whether the running kernel has
    it as a module (modprobe) or not at all."""
    old_devices = _dict(_dict(ctx.before.get('facts')).get('block_devices'))
    new_devices = _dict(_dict(ctx.after.get('facts')).get('block_devices'))
    release = _dict(ctx.after.get('host')).get('kernel_release')
    modules = _list(_dict(_kernels(ctx.after).get('scheduler_modules')).get(release))
    wanted = dict((_dict(check).get('target'), _dict(check).get('expected')) for check in _list(ctx.before.get('policy_checks'))
                  if _dict(check).get('concern') == 'block_queue' and _dict(check).get('setting') == 'scheduler')
    groups = {}
    for old_name, new_name in sorted(ctx.pairs.items()):
        first = sorted(_list(_dict(old_devices.get(old_name)).get('schedulers')))
        second = sorted(_list(_dict(new_devices.get(new_name)).get('schedulers')))
        if first and second and first != second:
            groups.setdefault((tuple(first), tuple(second)), []).append((old_name, new_name))
    differences = []
    for (first, second), names in sorted(groups.items()):
        devices = ', '.join(new for old, new in names)
        message = 'schedulers offered by %s changed: %s -> %s' % (devices, ' '.join(first), ' '.join(second))
        if ctx.kernel:
            message += ' with %s' % ctx.kernel['text']
        for old, new in names:
            scheduler = wanted.get(old)
            if scheduler and scheduler not in second:
                module = SCHEDULER_MODULES.get(scheduler)
                if module and module in modules:
                    message += ('; the policy sets %s on %s: kernel %s has it as a module (kernel/block/%s): list %s in '
                                '/etc/modules-load.d/ so that it is loaded at boot' % (scheduler, new, release, module, module))
                elif modules or _kernels(ctx.after):
                    message += '; the policy sets %s on %s: kernel %s has it neither built in nor as a module' % (
                        scheduler, new, release)
                else:
                    message += '; the policy sets %s on %s: it is not built in (whether it is a module is not recorded)' % (
                        scheduler, new)
        differences.append(_difference('schedulers_changed', 'schedulers:%s' % devices, devices, 'schedulers', list(first),
                                       list(second), ctx.kernel and ctx.kernel['package'], message))
    return differences


# ---------------------------------------------------------------------------- rule: noise and formats

def is_noise_mount(path, info):
    """A pseudo file system below /run, /dev, /sys or /proc (docs/upgrades.md): summarised."""
    return path.startswith(NOISE_ROOTS) and _dict(info).get('fstype') in PSEUDO_FSTYPES


def _name_ranges(names):
    """``loop0-loop7`` for consecutive numbered names of one prefix, else the names."""
    parsed = [re.match(r'^(.*?)(\d+)$', name) for name in names]
    if len(names) > 2 and all(parsed) and len(set(m.group(1) for m in parsed)) == 1:
        numbers = sorted(int(m.group(2)) for m in parsed)
        if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
            return '%s%d-%s%d' % (parsed[0].group(1), numbers[0], parsed[0].group(1), numbers[-1])
    return ', '.join(names)


def summarized_differences(ctx):
    """One summarized line per kind of noise: pseudo mounts by directory (mounted and unmounted counted,
    their types named), block devices of size 0 (appeared and gone counted)."""
    differences = []
    mounts_old = _dict(_dict(ctx.before.get('facts')).get('mounts'))
    mounts_new = _dict(_dict(ctx.after.get('facts')).get('mounts'))
    kinds = {}
    for how, paths, mounts in (('mounted', ctx.noise_mounts['mounted'], mounts_new),
                               ('unmounted', ctx.noise_mounts['unmounted'], mounts_old)):
        for path in paths:
            # by directory: systemd 257 mounts /run/credentials/<unit> as tmpfs where 252 used ramfs
            found = kinds.setdefault(os.path.dirname(path.rstrip('/')) or '/', {'mounted': [], 'unmounted': [], 'types': set()})
            found[how].append(path)
            found['types'].add(_dict(mounts[path]).get('fstype'))
    for directory, found in sorted(kinds.items()):
        counts = ', '.join('%d %s' % (len(found[how]), text) for how, text in (('mounted', 'mounted now'),
                                                                               ('unmounted', 'no longer mounted')) if found[how])
        differences.append(_difference(
            'summarized', 'mounts:%s/*' % directory.rstrip('/'), directory, 'mounts', len(found['unmounted']),
            len(found['mounted']), None, '%s/* (%s): %s; pseudo file systems below %s are summarised, not compared one by one'
            % (directory.rstrip('/'), ', '.join(sorted(found['types'])), counts, '/'.join(directory.split('/')[:2]) + '/')))
    empty = ctx.empty_devices
    if empty['gone'] or empty['appeared']:
        parts = ['%d gone (%s)' % (len(empty['gone']), _name_ranges(empty['gone']))] if empty['gone'] else []
        parts += ['%d appeared (%s)' % (len(empty['appeared']), _name_ranges(empty['appeared']))] if empty['appeared'] else []
        differences.append(_difference(
            'summarized', 'devices:size-0', 'devices', 'devices', len(empty['gone']), len(empty['appeared']), None,
            'block devices of size 0 (no medium or backing file): %s; not compared one by one' % '; '.join(parts)))
    return differences


def format_differences(ctx):
    """One snapshot_format line when a snapshot is of format 1: what it lacks is said once."""
    if not ctx.format1:
        return []
    return [_difference(
        'snapshot_format', 'format', 'snapshot', 'format', _dict(ctx.before).get('format', 1), _dict(ctx.after).get('format', 1),
        None, '%s %s of format 1: %s no file owners or conffiles, no sysctl values beyond the collection\'s settings '
              '(other keys are traced from the sysctl files alone), no installed or next-boot kernel and no kernel '
              'configuration: those are not compared' % (' and '.join(ctx.format1), *(
                  ('are snapshots', 'they record') if len(ctx.format1) > 1 else ('is a snapshot', 'it records'))))]


# ---------------------------------------------------------------------------- rule: packages

def package_differences(ctx, named):
    """package_changed for each package change (the kernel as one) that no difference in ``named`` names."""
    differences = []
    if ctx.unowned:
        tail = ('no setting the collection reads is traced to it, but %s changed and its owner is not recorded '
                '(format 1)' % ', '.join(ctx.unowned))
    else:
        tail = 'no setting the collection reads changed with it'
    for name in sorted(ctx.packages):
        if name in named:
            continue
        old, new = ctx.packages[name]
        differences.append(_difference('package_changed', name, name, 'version', old, new, name,
                                       '%s: %s' % (package_text(name, old, new), tail)))
    return differences


# ---------------------------------------------------------------------------- API

def sort_differences(differences):
    return sorted(differences, key=lambda item: (CLASSES.index(item['class']), item['key']))


class SnapshotError(ValueError):
    """A snapshot given to diff_snapshots that is not one: the message names the side (``before``,
    ``after``) and the field not of its type (engine/snapshot.SNAPSHOT_SPEC)."""


def diff_snapshots(before, after, io_sysctls=DEFAULT_IO_SYSCTLS):
    """The differences between two snapshots, sorted by class (CLASSES order) then key; SnapshotError
    when either is not a snapshot (a snapshot read back is input: DESIGN.md, issue 38, item 13)."""
    for side, snapshot in (('before', before), ('after', after)):
        problem = check_shape(snapshot, SNAPSHOT_SPEC, side)
        if problem:
            raise SnapshotError(problem)
    ctx = _Context(before, after)
    differences = (host_differences(ctx.before, ctx.after) + format_differences(ctx) + kernel_differences(ctx)
                   + changed_setting_differences(ctx) + io_rule_differences(ctx) + setting_differences(ctx)
                   + sysctl_differences(ctx, io_sysctls)
                   + scheduler_differences(ctx) + device_differences(ctx) + mount_differences(ctx)
                   + summarized_differences(ctx))
    differences += policy_status_differences(ctx)
    named = set(item['package'] for item in differences if item['package'])
    differences += package_differences(ctx, named)
    return sort_differences(differences)


def summarize_differences(differences):
    """Count of differences per class, every class present (zero when none)."""
    counts = dict((klass, 0) for klass in CLASSES)
    for difference in differences:
        counts[difference['class']] += 1
    return counts


def validate_fail_on(fail_on):
    """``fail_on`` as a tuple; ValueError naming iotune_upgrade_fail_on for anything but a list of known classes."""
    if isinstance(fail_on, (str, bytes)) or not isinstance(fail_on, (list, tuple)):
        raise ValueError('%s: must be a list of difference classes, got %r (accepted: %s)'
                         % (FAIL_ON_FIELD, fail_on, ', '.join(CLASSES)))
    unknown = [item for item in fail_on if item not in CLASSES]
    if unknown:
        raise ValueError('%s: unknown difference class(es) %s (accepted: %s)'
                         % (FAIL_ON_FIELD, ', '.join(repr(item) for item in unknown), ', '.join(CLASSES)))
    return tuple(fail_on)


def failing(differences, fail_on=DEFAULT_FAIL_ON):
    """The differences whose class is in ``fail_on`` (validated)."""
    fail_on = validate_fail_on(fail_on)
    return [difference for difference in differences if difference['class'] in fail_on]


def differences_as_checks(host, differences, fail_on=DEFAULT_FAIL_ON):
    """The differences as report checks (mapping in the module docstring); a host without any
    gets one compliant ``upgrade:snapshot:no_difference`` check."""
    fail_on = validate_fail_on(fail_on)
    checks = []
    for difference in differences:
        klass = difference['class']
        check = make_check(CONCERN, difference.get('target') or difference['key'], '%s:%s' % (klass, difference['key']),
                           difference.get('before'), difference.get('after'), None,
                           DRIFT if klass in fail_on else COMPLIANT, difference.get('message'))
        check['difference'] = {'class': klass, 'key': difference['key'], 'package': difference.get('package')}
        checks.append(check)
    if not checks:
        checks.append(make_check(CONCERN, 'snapshot', 'no_difference', None, None, None, COMPLIANT,
                                 '%s: no difference between the snapshots in any setting, source, device, mount or '
                                 'package the collection reads' % host))
    return checks


def upgrade_host_report(host, differences, fail_on, run_id, now):
    """A host report for the fleet report writer (io_fleet_report): mode ``upgrade``, the checks of
    :func:`differences_as_checks`, their summary, and ``differences`` counted per class."""
    checks = differences_as_checks(host, differences, fail_on)
    return {'host': host, 'run_id': run_id, 'time': now, 'mode': CONCERN, 'summary': summarize(checks), 'checks': checks,
            'differences': summarize_differences(differences)}
