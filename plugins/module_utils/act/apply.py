# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Making changes, and undoing them: the write side of every concern.

Each ``apply_*`` function journals the previous state (write-ahead) and then
makes one change; each ``restore_*`` function puts a journal record's
``before`` back and says whether anything had to change.  No AnsibleModule:
commands run through a ``run_command(argv) -> (rc, out, err)`` callable."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib
import os

from ansible_collections.iotune.storage.plugins.module_utils.act.journal import DEVICE_IDENTITY_KINDS, JournalError
from ansible_collections.iotune.storage.plugins.module_utils.common.filestate import file_content, file_state
from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import as_bytes, atomic_write, fsync_dir, stale_temps
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import in_effect, option_state, plan_remount, split_option
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_options import hidden_defaults
from ansible_collections.iotune.storage.plugins.module_utils.parse.holders import describe_holders, mount_holders
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import read_mountinfo, visible_mounts
from ansible_collections.iotune.storage.plugins.module_utils.parse.unix_mounts import live_options, parse_mnttab
from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import read_kctune
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.settings.nfs_options import is_nfs, negotiated_lower, nfs_missing
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysfs import parse_scheduler, read_attr
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import RESETS


class ApplyError(Exception):
    pass


def apply_file(journal, path, data, mode=None, **extra):
    """Journal ``path`` as it is, then write ``data`` (a new file gets ``mode``, default
    0644; an existing one keeps its own); False when it already holds it."""
    data = as_bytes(data)
    before = file_state(path)
    if file_content(before) == data:
        return False
    after = {'state': 'present', 'sha256': hashlib.sha256(data).hexdigest(), 'size': len(data)}
    journal.record('file', path, before, after, **extra)
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        raise ApplyError('cannot write %s: directory %s does not exist' % (path, directory))
    atomic_write(path, data, mode=mode)
    return True


def remove_file(journal, path):
    """Journal ``path`` as it is, then remove it; False when it is absent."""
    before = file_state(path)
    if before['state'] == 'absent':
        return False
    journal.record('file', path, before, {'state': 'absent'})
    os.unlink(path)
    fsync_dir(os.path.dirname(os.path.abspath(path)))
    return True


def apply_directory(journal, path, mode=0o755):
    """Create directory ``path``, journalled (a rollback removes it again when it is
    empty); False when it exists. Its parent must exist."""
    if os.path.isdir(path):
        return False
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ApplyError('cannot create %s: directory %s does not exist' % (path, parent))
    journal.record('dir', path, {'state': 'absent'}, {'state': 'present', 'mode': '%04o' % mode})
    os.mkdir(path, mode)
    os.chmod(path, mode)
    fsync_dir(parent)
    return True


def restore_directory(record, check=False):
    """Remove a directory a run created (``before`` absent); an emptied one only: what
    someone put there since is kept, and the rollback says so."""
    path = record['target']
    if record['before'].get('state') == 'present' or not os.path.isdir(path):
        return False
    left = sorted(os.listdir(path))
    if left:
        raise ApplyError('%s was created by the run but now holds %s: left in place' % (path, ', '.join(left[:5])))
    if not check:
        os.rmdir(path)
    return True


def restore_file(path, before, check=False):
    """Put a file back as a journal record's ``before`` has it (content, mode,
    owner, extended attributes; or absent), through a symlink as the run wrote
    it, and remove the temporary files a killed run left beside it. True when
    something changed (or, with ``check``, would change)."""
    current = file_state(path)
    temps = stale_temps(os.path.realpath(path))
    if not check:
        for temp in temps:
            os.unlink(temp)
    if before.get('state') != 'present':
        if current['state'] == 'absent':
            return bool(temps)
        if not check:
            os.unlink(os.path.realpath(path))
        return True
    if current == before or check:
        return current != before or bool(temps)
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    atomic_write(path, file_content(before), int(before['mode'], 8), before['uid'], before['gid'], keep_existing=False,
                 xattrs=before.get('xattrs'))
    return True


def replaced_since(first, last):
    """Why a file a run wrote must not be put back, or None: it holds neither what the run's first record
    says was there before (``first``) nor what its last record wrote (``last``): an upgrade, a package or an
    administrator replaced it since, and restoring the run's ``before`` would undo their change."""
    content = file_content(file_state(first['target']))
    if content == file_content(first['before']) or holds_after(last) is not False:
        return None
    return ('%s was replaced since the run (it holds neither what the run wrote, sha256 %s, nor what was there '
            'before it): not restored, since that would undo whoever replaced it (an upgrade, a package, an '
            'administrator); compare it with the journal\'s before (seq %s) and put back by hand what you want'
            % (first['target'], (last.get('after') or {}).get('sha256', 'absent'), first.get('seq')))


# ---------------------------------------------------------------- sysfs and /proc/sys values

def read_value(path):
    with open(path) as handle:
        return handle.read().strip()


def write_value(path, value):
    """Write one sysfs or /proc/sys value; ApplyError with the kernel's reason."""
    try:
        with open(path, 'w') as handle:
            handle.write('%s' % value)
    except (IOError, OSError) as exc:
        raise ApplyError('cannot write %s to %s: %s' % (value, path, exc.strerror or exc))


def sysfs_value(path):
    """A queue attribute as the planners compare it: int, or the active scheduler."""
    text = read_value(path)
    if os.path.basename(path) == 'scheduler':
        return parse_scheduler(text)[0]
    try:
        return int(text)
    except ValueError:
        return text


def _reset_values(path):
    """The values a write to ``path`` resets or raises in the same queue directory (settings.RESETS: a scheduler
    switch nr_requests, a max_sectors_kb write read_ahead_kb), as they are now."""
    found = {}
    for name in RESETS.get(os.path.basename(path), ()):
        sibling = os.path.join(os.path.dirname(path), name)
        if os.path.exists(sibling):
            found[name] = sysfs_value(sibling)
    return found


def device_identity(device_dir):
    """``<kind>=<value>`` naming the block device of the sysfs directory ``device_dir`` across reboots (its dm
    or md uuid, else its wwid; a kernel name such as dm-1 may belong to another device after a reboot or a
    multipath map's reload), or None."""
    for kind in DEVICE_IDENTITY_KINDS:
        for relative in (['device/wwid', 'wwid'] if kind == 'wwid' else [kind]):
            value = read_attr(os.path.join(device_dir, relative))
            if value and value.isprintable():
                return '%s=%s' % (kind, value)
    return None


def sysfs_target(record):
    """The queue attribute a sysfs record is about now, and a note or None.

    The record's own path while its device has the identity the record keeps (records without one: always);
    else the one device that has it now, under its new name.  ApplyError when no device, or several
    others, have it: writing the old name would change another device."""
    path, identity = record['target'], record.get('identity')
    queue_dir = os.path.dirname(path)
    device_dir = os.path.dirname(queue_dir)
    if not identity or device_identity(device_dir) == identity:
        return path, None
    block_dir = os.path.dirname(device_dir)
    try:
        names = sorted(os.listdir(block_dir))
    except OSError as exc:
        raise ApplyError('cannot list %s: %s' % (block_dir, exc.strerror or exc))
    found = [name for name in names if device_identity(os.path.join(block_dir, name)) == identity]
    old = os.path.basename(device_dir)
    if len(found) != 1:
        raise ApplyError('%s: the device that was %s (%s) is %s now; not restored, so as not to change another device'
                         % (path, old, identity, 'on %s' % ', '.join(found) if found else 'gone'))
    return (os.path.join(block_dir, found[0], os.path.basename(queue_dir), os.path.basename(path)),
            'the device that was %s (%s) is %s now' % (old, identity, found[0]))


def apply_sysfs(journal, change):
    """One queue attribute: journal, write, read back. A scheduler record also keeps the
    values the switch resets, so that a rollback can put them back (issue 18, R1), and every record
    the device's stable identity, so that a rollback after a reboot finds it under a new name."""
    path = change['path']
    before = sysfs_value(path)
    if before == change['after']:
        return False
    extra = dict(device=change['target'], setting=change['setting'])
    identity = device_identity(os.path.dirname(os.path.dirname(path)))
    if identity:
        extra['identity'] = identity
    resets = _reset_values(path)
    if resets:
        extra['resets'] = resets
    journal.record('sysfs', path, before, change['after'], **extra)
    write_value(path, change['after'])
    now = sysfs_value(path)
    if now != change['after']:
        raise ApplyError('%s reads %s after writing %s' % (path, now, change['after']))
    return True


def restore_sysfs(record, check=False):
    """Write the value back; then the values its write reset or raised (``resets``).  On the device
    the record's identity names (sysfs_target)."""
    path = sysfs_target(record)[0]
    directory = os.path.dirname(path)
    resets = dict((os.path.join(directory, name), value) for name, value in sorted((record.get('resets') or {}).items()))
    wrong = [(target, value) for target, value in [(path, record['before'])] + sorted(resets.items())
             if sysfs_value(target) != value]
    if not wrong or check:
        return bool(wrong)
    if sysfs_value(path) != record['before']:
        write_value(path, record['before'])
    for target, value in sorted(resets.items()):
        if sysfs_value(target) != value:
            write_value(target, value)
    return True


def _sysctl_path(proc_root, key):
    return os.path.join(proc_root, 'sys', *key.split('.'))


def apply_sysctl(journal, change, proc_root='/proc'):
    """One vm.* value.  Writing dirty_bytes zeroes dirty_ratio (and so on for
    each bytes/ratio pair), so the record keeps both values of the pair."""
    key, expected = change['target'], change['after']
    before = {key: int(read_value(_sysctl_path(proc_root, key)))}
    if change.get('pair'):
        before[change['pair']] = int(read_value(_sysctl_path(proc_root, change['pair'])))
    if before[key] == expected:
        return False
    journal.record('sysctl', key, before, {key: expected})
    write_value(_sysctl_path(proc_root, key), expected)
    now = int(read_value(_sysctl_path(proc_root, key)))
    if now != expected:
        raise ApplyError('%s reads %s after writing %s' % (key, now, expected))
    return True


def restore_sysctl(record, check=False, proc_root='/proc'):
    """Restore the values of a sysctl record.  Of a bytes/ratio pair only the
    one that was in force (non-zero) is written: that sets the other to 0,
    as it was. ``proc_root`` is the rollback's own, never the record's."""
    before = record['before']
    current = dict((key, int(read_value(_sysctl_path(proc_root, key)))) for key in before)
    if current == before or check:
        return current != before
    in_force = [key for key, value in sorted(before.items()) if value != 0] or sorted(before)[:1]
    for key in in_force:
        write_value(_sysctl_path(proc_root, key), before[key])
    return True


def holds_after(record, proc_root='/proc'):
    """Whether a journal record's target holds the record's ``after`` now: True, False, or None when
    it cannot be told (a kind without a comparable ``after``, or a target that cannot be read)."""
    kind, target, after = record.get('kind'), record.get('target'), record.get('after')
    try:
        if kind == 'sysfs':
            return sysfs_value(sysfs_target(record)[0]) == after
        if kind == 'sysctl':
            return all(int(read_value(_sysctl_path(proc_root, key))) == value for key, value in after.items())
        if kind == 'file':
            content = file_content(file_state(target))
            if after.get('state') != 'present':
                return content is None
            return content is not None and hashlib.sha256(content).hexdigest() == after['sha256']
    except (IOError, OSError, ValueError, KeyError, AttributeError, TypeError, JournalError, ApplyError):
        return None
    return None


# ---------------------------------------------------------------- mounts

def live_entry_of(proc_root, path):
    """The visible mountinfo entry of ``path`` (None when not mounted)."""
    errors = []
    entry = visible_mounts(read_mountinfo(proc_root, errors)).get(path)
    if errors and entry is None:
        raise ApplyError('; '.join(errors))
    return entry


def live_options_of(proc_root, path):
    """Live option list of the mount at ``path`` (None when not mounted)."""
    entry = live_entry_of(proc_root, path)
    return None if entry is None else list(entry['options'])


def remount_argv(mount_bin, path, words):
    # --options-source=disable: fstab must not add options to a remount
    return [mount_bin, '--options-source=disable', '-o', ','.join(['remount'] + list(words)), path]


def remount(run_command, mount_bin, path, words):
    rc, out, err = run_command(remount_argv(mount_bin, path, words))
    if rc != 0:
        raise ApplyError('mount -o %s %s failed (rc=%s): %s' % (
            ','.join(['remount'] + list(words)), path, rc, (err or out).strip() or 'no output'))


def missing_options(live, present, absent):
    """Requested options the live list does not honour (semantically)."""
    state = option_state(live, 'live')
    return [o for o in present if in_effect(o, state) is False] + [o for o in absent if in_effect(o, state)]


def apply_mount(journal, change, run_command, mount_bin='mount', proc_root='/proc', present=(), absent=()):
    """Remount ``change['target']`` with ``change['options']`` and verify the
    requested options in mountinfo."""
    path = change['target']
    entry = live_entry_of(proc_root, path)
    if entry is None:
        raise ApplyError('%s is no longer mounted' % path)
    before = list(entry['options'])
    # on NFS, read back with the NFS client's defaults and aliases (settings.nfs_options)
    missing = nfs_missing if is_nfs(entry['fstype']) else missing_options
    words = change['options'].split(',')[1:]
    journal.record('mount', path, before, change['after'], options=change['options'])
    remount(run_command, mount_bin, path, words)
    now = live_options_of(proc_root, path) or []
    # options a remount cannot change (planned as unresolved) are not expected to be there
    unresolved = missing(change['after'], present, absent)
    wrong = [option for option in missing(now, present, absent) if option not in unresolved]
    if wrong:
        message = ('after mount -o %s %s the live options are %s: %s not as requested'
                   % (change['options'], path, ','.join(now), ', '.join(wrong)))
        try:
            restore_mount({'target': path, 'before': before}, run_command, mount_bin=mount_bin, proc_root=proc_root)
        except ApplyError as exc:
            message += '; putting the options back failed too: %s' % exc
        raise ApplyError(message)
    return True


def reverse_remount_words(current, before, fstype=None, attempt=0):
    """Remount words that take the live options ``current`` back to ``before``.  A key=value option
    ``before`` lacks goes back to the value the file system hides as its default (its ``attempt``-th
    candidate, settings.mount_options.hidden_defaults), as a remount cannot drop it."""
    present = [word for word in before if word not in current]
    absent = [word for word in current if word not in before]
    # the kernel never prints strictatime: the atime mode is what the lists leave out
    atime = option_state(before, 'live')['atime']
    if option_state(current, 'live')['atime'] != atime and atime not in present:
        present.append(atime)
    for word in list(absent):
        key, value = split_option(word)
        candidates = hidden_defaults(key, fstype) if value is not None else ()
        if candidates and not any(split_option(other)[0] == key for other in present):
            present.append('%s=%s' % (key, candidates[min(attempt, len(candidates) - 1)]))
    words, dummy, dummy = plan_remount(current, present, absent)
    return words


def _restore_attempts(current, before, fstype):
    """How many remounts a restore may take: one, or one per default candidate of a hidden key."""
    keys = [split_option(word)[0] for word in current if word not in before and '=' in word]
    return max([len(hidden_defaults(key, fstype)) for key in keys] + [1])


def restore_mount(record, run_command, check=False, mount_bin='mount', proc_root='/proc'):
    """Remount with the record's ``before`` options, through the rollback's own ``mount_bin``
    and ``proc_root`` (never the record's).  A value the file system hides at its default (ext4's
    errors= against the superblock's) is tried candidate by candidate, read back after each."""
    path = record['target']
    entry = live_entry_of(proc_root, path)
    if entry is None:
        raise ApplyError('%s is not mounted: cannot restore its options %s' % (path, ','.join(record['before'])))
    current, fstype = list(entry['options']), entry['fstype']
    if sorted(current) == sorted(record['before']):
        return False
    words = reverse_remount_words(current, record['before'], fstype)
    if not words:
        # e.g. a key=value option the run added: a remount cannot drop it
        raise ApplyError('%s has the live options %s, not %s, and a remount cannot put them back (unmount and mount it)'
                         % (path, ','.join(current), ','.join(record['before'])))
    if check:
        return True
    attempts = _restore_attempts(current, record['before'], fstype)
    for attempt in range(attempts):
        words = reverse_remount_words(current, record['before'], fstype, attempt) if attempt else words
        remount(run_command, mount_bin, path, words)
        now = live_options_of(proc_root, path) or []
        if sorted(now) == sorted(record['before']):
            return True
    raise ApplyError('after mount -o remount,%s %s the live options are %s, not %s'
                     % (','.join(words), path, ','.join(now), ','.join(record['before'])))


# ---------------------------------------------------------------- NFS: unmount and mount (remount: cycle)

def umount_bin_for(mount_bin):
    """umount(8) beside ``mount_bin`` (util-linux installs both in one directory), else the bare name."""
    return os.path.join(os.path.dirname(mount_bin), 'umount') if os.path.isabs(mount_bin) else 'umount'


def cycle_argvs(mount_bin, path, fstype, source, options):
    """``umount <path>``, then ``mount -t <fstype> -o <options> <source> <path>`` with fstab out of it."""
    return ([umount_bin_for(mount_bin), path],
            [mount_bin, '--options-source=disable', '-t', fstype, '-o', ','.join(options), source, path])


def _run(run_command, argv):
    """None when ``argv`` worked, else why not (a sentence)."""
    rc, out, err = run_command(argv)
    if rc == 0:
        return None
    return '%s failed (rc=%s): %s' % (' '.join(argv), rc, (err or out).strip() or 'no output')


def _refuse_held(path, proc_root):
    """ApplyError when something holds ``path`` open (checked just before the unmount)."""
    errors = []
    points = [entry['mount_point'] for entry in read_mountinfo(proc_root, errors)]
    holders = mount_holders(path, proc_root, points)
    if holders:
        raise ApplyError('%s was not unmounted: %s holds it open' % (path, describe_holders(holders)))


def cycle_mount(run_command, mount_bin, path, fstype, source, options, before):
    """Unmount ``path`` and mount it with ``options``; when the mount fails, mount it again with ``before``
    (the options it had). ApplyError says what happened and in which state the mount is."""
    umount_argv, mount_argv = cycle_argvs(mount_bin, path, fstype, source, options)
    problem = _run(run_command, umount_argv)
    if problem:
        raise ApplyError('%s; %s is still mounted as it was' % (problem, path))
    problem = _run(run_command, mount_argv)
    if problem is None:
        return
    again = _run(run_command, cycle_argvs(mount_bin, path, fstype, source, before)[1])
    if again:
        raise ApplyError('%s; mounting it again with its previous options failed too: %s; %s is not mounted now'
                         % (problem, again, path))
    raise ApplyError('%s; %s was mounted again with its previous options' % (problem, path))


def _same_mount(entry, fstype, source, path):
    """ApplyError unless ``path`` is still the mount of file system type ``fstype`` from ``source``."""
    if entry is None:
        raise ApplyError('%s is no longer mounted' % path)
    if (entry['fstype'], entry['source']) != (fstype, source):
        raise ApplyError('%s is now %s %s, not %s %s: not unmounted' % (path, entry['fstype'], entry['source'], fstype, source))


def apply_mount_cycle(journal, change, run_command, mount_bin='mount', proc_root='/proc'):
    """Unmount an NFS mount and mount it with ``change['options']``, when nothing holds it open (else
    ApplyError, nothing changed); then read the live options back. A requested option the kernel does not
    show is an error (the mount is cycled back to its options before); rsize/wsize the server capped
    below the request are not (the plan reports them)."""
    path = change['target']
    entry = live_entry_of(proc_root, path)
    _same_mount(entry, change['fstype'], change['source'], path)
    _refuse_held(path, proc_root)
    before = list(entry['options'])
    journal.record('mount_cycle', path, before, list(change['options']), fstype=change['fstype'], source=change['source'])
    cycle_mount(run_command, mount_bin, path, change['fstype'], change['source'], change['options'], before)
    now = live_options_of(proc_root, path) or []
    wrong = [option for option in nfs_missing(now, change.get('present') or [], change.get('absent') or [])
             if not negotiated_lower(option, now)]
    if wrong:
        message = ('after unmounting and mounting %s with %s the live options are %s: %s not as requested (accepted '
                   'and not shown, or ignored)' % (path, ','.join(change['options']), ','.join(now), ', '.join(wrong)))
        try:
            cycle_mount(run_command, mount_bin, path, change['fstype'], change['source'], before, now)
        except ApplyError as exc:
            message += '; putting the options back failed too: %s' % exc
        raise ApplyError(message)
    return True


def restore_mount_cycle(record, run_command, check=False, mount_bin='mount', proc_root='/proc'):
    """Unmount the mount of a ``mount_cycle`` record and mount it with the record's ``before``, through the
    rollback's own ``mount_bin`` and ``proc_root``; refused (ApplyError) while something holds it open."""
    path = record['target']
    entry = live_entry_of(proc_root, path)
    if entry is None:
        raise ApplyError('%s is not mounted: cannot restore its options %s' % (path, ','.join(record['before'])))
    if sorted(entry['options']) == sorted(record['before']):
        return False
    _same_mount(entry, record['fstype'], record['source'], path)
    _refuse_held(path, proc_root)
    if check:
        return True
    cycle_mount(run_command, mount_bin, path, record['fstype'], record['source'], record['before'], entry['options'])
    now = live_options_of(proc_root, path) or []
    wrong = nfs_missing(now, record['before'], [])
    if wrong:
        raise ApplyError('after unmounting and mounting %s with %s the live options are %s: %s not as before'
                         % (path, ','.join(record['before']), ','.join(now), ', '.join(wrong)))
    return True


# ---------------------------------------------------------------- Solaris/HP-UX remount

def mnttab_entry(mnttab, path):
    """The visible (last) /etc/mnttab line of mount point ``path``, or None; ApplyError when unreadable."""
    errors = []
    text = read_text(mnttab, errors)
    if text is None:
        raise ApplyError(errors[-1])
    found = [entry for entry in parse_mnttab(text) if entry['mount_point'] == path]
    return found[-1] if found else None


def _unix_live(mnttab, path, fstype):
    """(special, live options without dev=) of a mount of type ``fstype``; ApplyError when not mounted so."""
    entry = mnttab_entry(mnttab, path)
    if entry is None:
        raise ApplyError('%s is not mounted (%s)' % (path, mnttab))
    if entry['fstype'] != fstype:
        raise ApplyError('%s is now a %s mount, not %s: its options were not changed' % (path, entry['fstype'], fstype))
    return entry['special'], live_options(entry['options'])


def unix_remount_to(run_command, mount_bin, mnttab, path, fstype, options):
    """``mount -F <fstype> -o remount,<options> <special> <path>`` (the special file from mnttab, never a
    record's), then the options read back: ApplyError unless every one of ``options`` is in effect."""
    special, dummy = _unix_live(mnttab, path, fstype)
    argv = [mount_bin, '-F', fstype, '-o', ','.join(['remount'] + list(options)), special, path]
    problem = _run(run_command, argv)
    if problem:
        raise ApplyError(problem)
    dummy, now = _unix_live(mnttab, path, fstype)
    wrong = [option for option in options if option not in now]
    if wrong:
        raise ApplyError('after %s the live options are %s: %s not in effect' % (' '.join(argv), ','.join(now), ', '.join(wrong)))
    return now


def apply_unix_remount(journal, change, run_command, mount_bin, mnttab):
    """Journal and make one Solaris/HP-UX remount with the whole option list (plan.mount_options_unix); when the
    options do not read back as asked, the mount is remounted with the options before (unless it still has them)."""
    path, fstype = change['target'], change['fstype']
    dummy, before = _unix_live(mnttab, path, fstype)
    journal.record('unix_remount', path, before, change['after'], fstype=fstype)
    try:
        unix_remount_to(run_command, mount_bin, mnttab, path, fstype, change['after'])
    except ApplyError as exc:
        try:
            if sorted(_unix_live(mnttab, path, fstype)[1]) != sorted(before):
                unix_remount_to(run_command, mount_bin, mnttab, path, fstype, before)
        except ApplyError as again:
            raise ApplyError('%s; putting the options back failed too: %s' % (exc, again))
        raise
    return True


def restore_unix_remount(record, run_command, check=False, mount_bin='mount', mnttab='/etc/mnttab'):
    """Remount with the record's ``before`` options, through the rollback's own ``mount_bin`` and ``mnttab``."""
    path, fstype = record['target'], record['fstype']
    dummy, now = _unix_live(mnttab, path, fstype)
    if sorted(now) == sorted(record['before']):
        return False
    if not check:
        unix_remount_to(run_command, mount_bin, mnttab, path, fstype, record['before'])
    return True


# ---------------------------------------------------------------- HP-UX kctune

def kctune_values(run_command, kctune, names):
    """{tunable: (current bytes or None, expression)} of ``names`` from one ``kctune -P`` (parse.unixfacts);
    ApplyError when kctune fails or leaves one out."""
    errors = []
    found = read_kctune(run_command, names, errors, kctune)
    missing = [name for name in names if name not in found]
    if missing:
        raise ApplyError('%s -P: %s not listed%s' % (kctune, ', '.join(missing), ('; ' + '; '.join(errors)) if errors else ''))
    return dict((name, (found[name]['current'], found[name]['expr'])) for name in names)


def set_kctune(run_command, kctune, name, value):
    problem = _run(run_command, [kctune, '%s=%s' % (name, value)])
    if problem:
        raise ApplyError(problem)


def apply_kctunes(journal, changes, run_command, kctune):
    """Journal every tunable's expression, then set them all with one ``kctune a=x b=y`` (kctune(1M) makes all
    or none of the changes of one command, so a refused value leaves every tunable as it was), and read them
    back. The records are in ``changes``' order, which a rollback reverses one at a time."""
    if not changes:
        return False
    names = [change['target'] for change in changes]
    now = kctune_values(run_command, kctune, names)
    pending = [(change, now[change['target']][1]) for change in changes if now[change['target']][0] != change['after_bytes']]
    for change, expr in pending:
        journal.record('kctune', change['target'], expr, change['after'])
    if not pending:
        return False
    problem = _run(run_command, [kctune] + ['%s=%s' % (change['target'], change['after']) for change, dummy in pending])
    if problem:
        raise ApplyError('%s; no tunable was changed' % problem)
    now = kctune_values(run_command, kctune, names)
    for change, dummy in pending:
        current = now[change['target']][0]
        if current != change['after_bytes']:
            raise ApplyError('after kctune %s=%s, %s is %s' % (change['target'], change['after'], change['target'], current))
    return True


def restore_kctune(record, run_command, check=False, kctune='kctune'):
    """Set the tunable back to the record's expression (``Default``, a percentage or bytes) through the
    rollback's own ``kctune``."""
    name = record['target']
    dummy, expr = kctune_values(run_command, kctune, [name])[name]
    if expr == record['before']:
        return False
    if not check:
        set_kctune(run_command, kctune, name, record['before'])
        dummy, expr = kctune_values(run_command, kctune, [name])[name]
        if expr != record['before']:
            raise ApplyError('after kctune %s=%s, its expression is %s' % (name, record['before'], expr))
    return True


# ---------------------------------------------------------------- vxtunefs

def apply_vxtunefs(journal, change, run_command, read_live):
    """``vxtunefs -o name=value mount_point``, then ``vxtunefs -p`` to read it back.
    ``read_live(vxtunefs, mount_point)`` -> (values, error)."""
    vxtunefs, mount_point, name = change['argv'][0], change['target'], change['setting']
    values, error = read_live(vxtunefs, mount_point)
    if error:
        raise ApplyError(error)
    if values.get(name) == change['after']:
        return False
    journal.record('vxtunefs', mount_point, values.get(name), change['after'], setting=name,
                   device=change.get('device'))
    set_vxtunefs(run_command, vxtunefs, mount_point, name, change['after'])
    values, error = read_live(vxtunefs, mount_point)
    if error or values.get(name) != change['after']:
        raise ApplyError('%s -p %s: %s reads %s after setting %s' % (
            vxtunefs, mount_point, name, error or values.get(name), change['after']))
    return True


def set_vxtunefs(run_command, vxtunefs, mount_point, name, value):
    argv = [vxtunefs, '-o', '%s=%s' % (name, value), mount_point]
    rc, out, err = run_command(argv)
    if rc != 0:
        raise ApplyError('%s failed (rc=%s): %s' % (' '.join(argv), rc, (err or out).strip() or 'no output'))


def restore_vxtunefs(record, run_command, read_live, check=False, vxtunefs=None):
    """Set the tunable back through the rollback's own ``vxtunefs`` (never the record's)."""
    if not vxtunefs:
        raise ApplyError('vxtunefs not found: name the binary with the vxtunefs option')
    values, error = read_live(vxtunefs, record['target'])
    if error:
        raise ApplyError(error)
    if values.get(record['setting']) == record['before'] or record['before'] is None or check:
        return record['before'] is not None and values.get(record['setting']) != record['before']
    set_vxtunefs(run_command, vxtunefs, record['target'], record['setting'], record['before'])
    return True


# ---------------------------------------------------------------- the restorer of each record kind

class Restore(object):
    """How records are put back: ``trusted`` (act.records.Trusted: the rollback's own programs and
    roots, never a record's), ``runner`` (``runner(argv)`` reads, ``runner.change(argv)`` changes),
    ``read_vxtunefs(binary, mount_point)`` -> (values, error), and ``check``: say whether a record
    would be restored, change nothing."""

    def __init__(self, trusted, runner, read_vxtunefs=None, check=False):
        self.trusted, self.read_vxtunefs, self.check = trusted, read_vxtunefs, check
        self.run_change = runner if check else runner.change


def _restore_file(record, how):
    return restore_file(record['target'], record['before'], how.check)


def _restore_directory(record, how):
    return restore_directory(record, how.check)


def _restore_sysfs(record, how):
    return restore_sysfs(record, how.check)


def _restore_sysctl(record, how):
    return restore_sysctl(record, how.check, how.trusted.proc_root)


def _restore_mount(record, how):
    return restore_mount(record, how.run_change, how.check, how.trusted.mount_bin, how.trusted.proc_root)


def _restore_mount_cycle(record, how):
    return restore_mount_cycle(record, how.run_change, how.check, how.trusted.mount_bin, how.trusted.proc_root)


def _restore_unix_remount(record, how):
    return restore_unix_remount(record, how.run_change, how.check, how.trusted.mount_bin, how.trusted.mnttab)


def _restore_kctune(record, how):
    return restore_kctune(record, how.run_change, how.check, how.trusted.kctune)


def _restore_vxtunefs(record, how):
    return restore_vxtunefs(record, how.run_change, how.read_vxtunefs, how.check, how.trusted.vxtunefs)


def _restore_unit(record, how):
    """Nothing of its own: the unit file is a file record, and the daemon-reload the unit needs runs
    once after every record is back (act.reloads)."""
    return False


# kind -> restorer(record, how): True when something was (with ``how.check``: would be) put back
RESTORERS = {
    'file': _restore_file,
    'dir': _restore_directory,
    'sysfs': _restore_sysfs,
    'sysctl': _restore_sysctl,
    'mount': _restore_mount,
    'mount_cycle': _restore_mount_cycle,
    'unix_remount': _restore_unix_remount,
    'kctune': _restore_kctune,
    'vxtunefs': _restore_vxtunefs,
    'unit': _restore_unit,
}


def restore_record(record, how):
    """Put one validated journal record's ``before`` back with the restorer of its kind."""
    return RESTORERS[record['kind']](record, how)
