# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Block queue settings: the audit decision and the plan of changes; pure, no AnsibleModule.

One planner serves check mode and apply: plan_block_queue() reads sysfs,
mountinfo, the udev rules and the udev database, and returns the checks (the
audit) and the changes that would make every check compliant (sysfs writes,
and the new text of the managed udev rule file).  It never writes anything.

A request is ``{match: {name|mountpoint|wwn|serial: ...}, <setting>: value, ...}``
with the settings of the queue table (settings/block_queue.py); unset settings are None.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.parse import identity as _identity
from ansible_collections.iotune.storage.plugins.module_utils.parse import sysfs as _sysfs
from ansible_collections.iotune.storage.plugins.module_utils.parse import udev as _udev
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import (
    DRIFT, ERROR, NOT_APPLICABLE, NOT_PERSISTENT, make_check, status_of)
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import read_mountinfo, visible_mounts
from ansible_collections.iotune.storage.plugins.module_utils.plan import queue_limits as _queue_limits
from ansible_collections.iotune.storage.plugins.module_utils.plan import stacking as _stacking
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import MATCH_KEYS
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_match
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import (
    INT_SETTINGS, QUEUE_SETTINGS, RESET_BY_SCHEDULER, SETTINGS, UDEV_ATTRIBUTES, WRITE_ORDER, accepted_text)

CONCERN = 'block_queue'
DEFAULT_RULES_FILE = '/etc/udev/rules.d/60-iotune.rules'
RULES_HEADER = (
    '# Managed by iotune.storage (block_queue): block queue settings applied by udev at boot.\n'
    '# Lines are rewritten by the collection; put your own rules in another file.\n'
)
# the policy variable whose entries the requests are, for the field an error check names
POLICY_FIELD = 'iotune_block_devices'
RULE_PREFIX = 'ACTION=="add|change", SUBSYSTEM=="block"'
_GLOB_CHARS = set('*?[]|"\\')


# ---------------------------------------------------------------- input

def validate_request(request, where=''):
    """Errors (list of str) in one request; each names the field and the accepted values. The
    match is checked by the policy's own rule (_policy.validate_match): its value goes into a
    udev rule and a sysfs path."""
    prefix = '%s.' % where if where else ''
    errors = []
    validate_match(request.get('match'), prefix + 'match', errors, dev_paths=True)
    for setting in SETTINGS:
        value = request.get(setting)
        if value is not None and not _valid_value(setting, value):
            errors.append('%s%s: %r is not valid; expected %s' % (prefix, setting, value, accepted_text(setting)))
    if not [s for s in SETTINGS if request.get(s) is not None]:
        errors.append('%s: nothing to check; give at least one of %s' % (where or 'request', ', '.join(SETTINGS)))
    return errors


def _valid_value(setting, value):
    spec = QUEUE_SETTINGS[setting]
    if 'choices' in spec:
        return value in spec['choices']
    return not isinstance(value, bool) and isinstance(value, int) and spec['minimum'] <= value <= spec['maximum']


def validate_requests(requests, labels):
    """validate_request for each, and each device matched once (two requests for one device
    would fight over its values)."""
    errors, seen = [], {}
    for request, label in zip(requests, labels):
        errors.extend(validate_request(request, label))
        matched = validate_match(request.get('match'), 'match', [], dev_paths=True)
        if matched is None:
            continue
        if matched in seen:
            errors.append('%s.match: %s=%s is listed twice (also %s)' % (label, matched[0], matched[1], seen[matched]))
        else:
            seen[matched] = label
    return errors


def match_label(match):
    for key in MATCH_KEYS:
        if match.get(key) not in (None, ''):
            return '%s=%s' % (key, match[key])
    return 'match=?'


# ---------------------------------------------------------------- resolution

def _normalize_id(value):
    """A WWN as compared (parse/identity.py wwn_key): lower case, without a ``wwn-`` and a ``naa.``/``eui.``/``0x``
    prefix, so ``naa.5002...``, ``0x5002...`` and ``5002...`` are one WWN."""
    return _identity.wwn_key(value)


def _dm_names(sys_root):
    names = {}
    for name in _sysfs.list_dir(os.path.join(sys_root, 'block')):
        dm_name = _sysfs.read_attr(os.path.join(sys_root, 'block', name, 'dm', 'name'))
        if dm_name:
            names[dm_name] = name
    return names


def _md_names(sys_root, db_dir):
    """{array name: [kernel names]} of the md arrays, from the udev properties mdadm's 63-md-raid-arrays.rules
    exports: MD_DEVNAME (``labmd`` for /dev/md/labmd) and MD_NAME, the name in the superblock
    (``<homehost>:labmd``), also without the homehost.  The superblock's name is what stays: an array
    assembled where the homehost differs (an initramfs without the host's mdadm.conf) comes up as
    /dev/md/iotune-lab:labmd, MD_DEVNAME ``iotune-lab:labmd``."""
    names = {}
    for name in _sysfs.list_dir(os.path.join(sys_root, 'block')):
        if name.startswith('md'):
            env = _sysfs.read_udev_env(db_dir, _sysfs.read_attr(os.path.join(sys_root, 'block', name, 'dev')))
            found = set()
            for value in (env.get('MD_DEVNAME'), env.get('MD_NAME')):
                if value:
                    found.update([value, value.rpartition(':')[2]])
            for md_name in found:
                names.setdefault(md_name, []).append(name)
    return names


def _queue_note(sys_root, disk):
    """A note when the queue belongs to a dm or md device stacked on other disks (a multipath map: its
    placements say where each setting goes instead)."""
    if _stacking.classify(sys_root, disk) == _stacking.MPATH:
        return None
    if disk.startswith('dm-') or disk.startswith('md') or _sysfs.list_dir(os.path.join(sys_root, 'block', disk, 'slaves')):
        leaves = _sysfs.backing_disks(sys_root, disk)
        if leaves and leaves != [disk]:
            return ('%s is a device-mapper/md device: its own queue settings apply to I/O through it, '
                    'the leaf disks (%s) keep theirs' % (disk, ', '.join(leaves)))
    return None


def _by_name(sys_root, name, db_dir=None):
    notes = []
    if name.startswith('/dev/'):
        name = name[len('/dev/'):]
    if name.startswith('mapper/'):
        name = _dm_names(sys_root).get(name[len('mapper/'):], name)
    if name.startswith('md/'):
        found = _md_names(sys_root, db_dir).get(name[len('md/'):], [])
        if len(found) != 1:
            return [], notes, '%s md array named %s (MD_DEVNAME and MD_NAME in the udev database %s)%s' % (
                'no' if not found else 'more than one', name[len('md/'):], db_dir, ': %s' % ', '.join(found) if found else '')
        notes.append('%s is the md array %s' % (name, found[0]))
        name = found[0]
    path = _sysfs.block_dir(sys_root, name)
    if path is None:
        dm = _dm_names(sys_root).get(name)
        if dm is None:
            return [], notes, 'no block device named %s in %s' % (name, os.path.join(sys_root, 'block'))
        notes.append('%s is the device-mapper name of %s' % (name, dm))
        return [dm], notes, None
    disk, partition = _sysfs.split_partition(path)
    if partition:
        notes.append('%s is a partition: queue settings apply to its disk %s' % (partition, disk))
    return [disk], notes, None


def _by_mountpoint(sys_root, proc_root, mountpoint, mount_entries):
    if mount_entries is None:
        mount_entries = read_mountinfo(proc_root)
    target = mountpoint.rstrip('/') or '/'
    entry = visible_mounts(mount_entries).get(target)
    if entry is None:
        return [], [], 'nothing is mounted on %s' % target
    disk, partition = _sysfs.resolve_devno(sys_root, entry['major'], entry['minor'])
    if disk is None and entry['source'].startswith('/dev/'):
        # btrfs and others report an anonymous device number; the source names the device
        devices, notes, problem = _by_name(sys_root, entry['source'])
        if problem is None:
            return devices, ['%s is mounted from %s' % (target, entry['source'])] + notes, None
    if disk is None:
        return [], [], '%s is a %s mount of %s with no block device (device number %d:%d)' % (
            target, entry['fstype'], entry['source'], entry['major'], entry['minor'])
    notes = []
    if partition:
        notes.append('%s is on partition %s: queue settings apply to its disk %s' % (target, partition, disk))
    return [disk], notes, None


def _identities(sys_root, db_dir, name):
    """WWN and serial candidates of a /sys/block entry, which stay the same across kernels.

    WWNs: the real WWNs (sysfs ``wwid`` when it is one, the NAA or EUI-64 designator of ``vpd_pg83``,
    udev's ID_WWN_WITH_EXTENSION and ID_WWN), then each ``wwid`` text a kernel may show for the disk
    (``t10.ATA ...`` under 4.16 and ``naa.<hex>`` under 6.17 for one SATA SSD), so a match written with
    either form finds it under both kernels.  Serials: ``vpd_pg80``, sysfs ``serial``, udev's
    ID_SCSI_SERIAL, ID_SERIAL_SHORT and ID_SERIAL."""
    dev_dir = os.path.join(sys_root, 'block', name)
    env = _sysfs.read_udev_env(db_dir, _sysfs.read_attr(os.path.join(dev_dir, 'dev')))
    ids = _sysfs.read_identities(dev_dir, env)
    wwns = ids['wwns'] + [form for form in [ids['wwid']] + ids['wwid_forms'] if form]
    return wwns, ids['serials']


def _by_identity(sys_root, db_dir, key, wanted):
    found = []
    for name in _sysfs.list_dir(os.path.join(sys_root, 'block')):
        wwns, serials = _identities(sys_root, db_dir, name)
        if key == 'wwn' and _normalize_id(wanted) in [_normalize_id(w) for w in wwns]:
            found.append(name)
        elif key == 'serial' and ' '.join(wanted.split()) in serials:
            found.append(name)
    if not found:
        return [], [], 'no block device has %s %s (sysfs wwid, vpd_pg83 and vpd_pg80, serial, and the udev database in %s)' % (
            key.upper() if key == 'wwn' else key, wanted, db_dir)
    found, notes = _stacking.collapse_paths(sys_root, found)
    if len(found) > 1:
        notes.append('%s %s is carried by %s (several paths to one LUN?)' % (key, wanted, ', '.join(found)))
    return found, notes, None


def resolve_match(match, sys_root='/sys', proc_root='/proc', db_dir=_udev.DB_DIR, mount_entries=None):
    """The /sys/block entries whose queue a match selects.

    Returns (names, notes, problem): ``problem`` is a sentence when nothing is
    found.  A partition resolves to its disk; a mount point resolves through
    mountinfo to the device whose queue the I/O goes through (a dm or md
    device stays itself; its leaf disks are named in a note)."""
    if match.get('name'):
        names, notes, problem = _by_name(sys_root, match['name'], db_dir)
    elif match.get('mountpoint'):
        names, notes, problem = _by_mountpoint(sys_root, proc_root, match['mountpoint'], mount_entries)
    elif match.get('wwn'):
        names, notes, problem = _by_identity(sys_root, db_dir, 'wwn', match['wwn'])
    elif match.get('serial'):
        names, notes, problem = _by_identity(sys_root, db_dir, 'serial', match['serial'])
    else:
        return [], [], 'match gives none of %s' % ', '.join(MATCH_KEYS)
    for name in names:
        note = _queue_note(sys_root, name)
        if note:
            notes.append(note)
    return names, notes, problem


# ---------------------------------------------------------------- the managed rule

def _usable(value):
    return value and not (set(value) & _GLOB_CHARS) and value == value.strip() and value.isprintable()


def _wwid_alternatives(dev_dir, wwid):
    """The ATTRS{wwid} pattern of a SCSI disk that matches under every kernel: its ``wwid``, then each other
    text a kernel may make of the designators of its ``vpd_pg83`` (``t10.ATA ...`` under 4.16,
    ``naa.<hex>`` under 6.17 for one SATA SSD), as udev's ``|`` alternatives."""
    vpd_pg83 = _sysfs.read_binary(os.path.join(dev_dir, 'device', 'vpd_pg83'))
    forms = [wwid] + [form for form in _identity.kernel_wwid_forms(vpd_pg83) if form != wwid and _usable(form)]
    return '|'.join(forms)


def rule_identity(sys_root, name, db=None):
    """The udev match keys that select ``name`` stably, and a warning or None.

    A device-mapper device keys on its ``dm/uuid`` (``mpath-<wwid>``, ``LVM-<vg uuid><lv uuid>``,
    ``CRYPT-...``: the same value as udev's DM_UUID, readable from sysfs at the event), never ``dm-N``.
    An md array keys on its ``md/uuid`` (sysfs, Linux 4.x+), else on mdadm's MD_UUID.  A multipath path
    cannot be told from its siblings (one LUN, one WWID): it keys on the LUN's WWID, which every path
    carries, so every path, one that fails and comes back under a new name too, gets the setting.
    Not on ``DM_MULTIPATH_DEVICE_PATH``: multipath-tools sets it in a rules file whose number differs
    between distributions (56-multipath.rules upstream, 60-multipath.rules on Debian 12), after which a
    rule of the same number may run."""
    if _stacking.classify(sys_root, name) == _stacking.MD:
        return _md_identity(sys_root, name, db)
    return _device_identity(sys_root, name, db)


def _md_identity(sys_root, name, db):
    uuid = _sysfs.read_attr(os.path.join(sys_root, 'block', name, 'md', 'uuid'))
    if _usable(uuid):
        return 'ATTR{md/uuid}=="%s"' % uuid, None
    env = db['env'] if db else {}
    if _usable(env.get('MD_UUID')):
        return ('KERNEL=="md*", ENV{MD_UUID}=="%s"' % env['MD_UUID'],
                'MD_UUID is only set by mdadm\'s 63-md-raid-arrays.rules: name the rules file 64-iotune.rules or later '
                'so the rule applies at boot')
    return 'KERNEL=="%s"' % name, None


def _device_identity(sys_root, name, db=None):
    """The stable keys of a disk or device-mapper device.

    Sysfs attributes are known when udev processes the add event; the
    properties ID_WWN and ID_SERIAL are only set by 60-persistent-storage.rules,
    which sorts after 60-iotune.rules, so they are used only when sysfs has no
    identifier.  Order: WWN (ATTR{wwid}, ATTRS{wwid}, ENV{ID_WWN}), the
    device-mapper UUID, serial (ATTR{serial}, ATTRS{serial}, ENV{ID_SERIAL}),
    then the kernel name.  ATTRS{wwid} lists every form a kernel gives the
    disk's wwid (from vpd_pg83), so the rule survives a kernel upgrade."""
    dev_dir = os.path.join(sys_root, 'block', name)
    env = db['env'] if db else {}
    candidates = (
        ('ATTR{wwid}', _sysfs.read_attr(os.path.join(dev_dir, 'wwid')), False),
        ('ATTRS{wwid}', _sysfs.read_attr(os.path.join(dev_dir, 'device', 'wwid')), True),
        ('ENV{ID_WWN}', env.get('ID_WWN'), True),
        ('ATTR{dm/uuid}', _sysfs.read_attr(os.path.join(dev_dir, 'dm', 'uuid')), False),
        ('ATTR{serial}', _sysfs.read_attr(os.path.join(dev_dir, 'serial')), False),
        ('ATTRS{serial}', _sysfs.read_attr(os.path.join(dev_dir, 'device', 'serial')), True),
        ('ENV{ID_SERIAL}', env.get('ID_SERIAL'), True),
    )
    for key, value, partitions_match in candidates:
        if not _usable(value):
            continue
        if key == 'ATTRS{wwid}':
            value = _wwid_alternatives(dev_dir, value)
        keys = '%s=="%s"' % (key, value)
        if partitions_match:
            keys = 'ENV{DEVTYPE}=="disk", ' + keys
        warning = None
        if key.startswith('ENV{'):
            warning = ('%s is only set by 60-persistent-storage.rules, which udev reads after a rules file named '
                       '60-iotune.rules: name the rules file 61-iotune.rules or later so the rule applies at boot'
                       % key[4:-1])
        return keys, warning
    return 'KERNEL=="%s"' % name, None


def rule_line(identity, settings):
    """The managed rule line: identity keys, then one ATTR{...} per setting in write order."""
    parts = [RULE_PREFIX, identity]
    for setting in WRITE_ORDER:
        if settings.get(setting) is not None:
            parts.append('ATTR{%s}="%s"' % (QUEUE_SETTINGS[setting]['udev'][0], settings[setting]))
    return ', '.join(parts)


def _identity_of(tokens):
    return tuple(t for t in tokens if not (t[0] == 'ATTR' and t[2] in _udev.ASSIGN_OPS and t[1] in UDEV_ATTRIBUTES))


def merge_rules_text(text, identity, settings):
    """New text of the managed rules file with ``settings`` merged into the device's line.

    The device's line is the first one with the same match keys; its other
    queue settings are kept, and later lines with the same match keys are
    dropped (they would override it).  A line with a NUL byte is dropped: udev cuts it in two and
    ignores both (iotune 0.3 wrote one for LIO LUNs, whose T10 designator is NUL-padded).  Every
    other line is kept as it is.  A missing file (None) starts with a header comment."""
    wanted = _identity_of(_udev.parse_rule_line(rule_line(identity, {'scheduler': 'x'})))
    lines = (text if text is not None else RULES_HEADER).splitlines(True)
    out = []
    done = False
    for line in lines:
        if '\0' in line:
            continue
        stripped = line.strip()
        tokens = None
        if stripped and not stripped.startswith('#') and not stripped.endswith('\\'):
            try:
                tokens = _udev.parse_rule_line(stripped)
            except ValueError:
                tokens = None
        if tokens is None or _identity_of(tokens) != wanted:
            out.append(line)
            continue
        if done:
            continue
        merged = {}
        for key, attr, op, value in tokens:
            if key == 'ATTR' and attr in UDEV_ATTRIBUTES:
                merged[UDEV_ATTRIBUTES[attr]] = value
        merged.update(dict((k, v) for k, v in settings.items() if v is not None))
        ending = line[len(line.rstrip('\r\n')):] or '\n'
        out.append(rule_line(identity, merged) + ending)
        done = True
    if not done:
        if out and not out[-1].endswith('\n'):
            out[-1] += '\n'
        out.append(rule_line(identity, settings) + '\n')
    return ''.join(out)


# ---------------------------------------------------------------- checks

def _as_setting_value(setting, text):
    if text is None:
        return None
    text = text.strip()
    if setting in INT_SETTINGS:
        try:
            return int(text)
        except ValueError:
            return text
    return text


def _persistence(evaluation, setting, expected, persist, kept=None):
    """(persistent value, persistent_ok, clause describing it). ``kept(value)``: what the kernel keeps of
    the rule's value, so that a rule of 4097 persists a read_ahead_kb of 4096."""
    if not persist:
        return None, None, 'persistence not checked (persist is false)'
    record = evaluation[setting] if evaluation else None
    if record is None:
        return None, None, 'persistence unknown: the udev rules could not be evaluated'
    if record['unknown']:
        return None, None, 'persistence unknown: %s' % '; '.join(record['unknown'])
    if record['value'] is None:
        return None, False, 'no udev rule sets it'
    value = _as_setting_value(setting, record['value'])
    return value, (kept(value) if kept else value) == expected, 'udev rule %s sets %s at boot' % (record['source'], value)


def _message(setting, name, live, expected, live_ok, persistent_ok, clause):
    if live_ok:
        if persistent_ok is False:
            if clause == 'no udev rule sets it':
                return '%s on %s is %s live but no udev rule sets it: lost at reboot' % (setting, name, live)
            return '%s on %s is %s live but %s' % (setting, name, live, clause)
        if persistent_ok is True:
            return '%s on %s is %s live and %s' % (setting, name, live, clause.replace(' at boot', ' at boot too'))
        return '%s on %s is %s live; %s' % (setting, name, live, clause)
    return '%s on %s is %s, expected %s; %s' % (setting, name, live, expected, clause)


def _check_setting(sys_root, name, info, setting, wanted, evaluation, persist, kernel):
    """(check, sysfs changes, persistent_ok) for one setting of one device. ``kernel``: {limits (the
    device's read_queue_limits), scheduler (the one it has when the setting is written), switching (the
    plan switches it, which resets nr_requests), field (the policy field, for errors)}."""
    spec = QUEUE_SETTINGS[setting]
    attr_path = os.path.join(sys_root, 'block', name, spec['sysfs'])
    live = info.get(setting)
    if not os.path.exists(attr_path):
        return make_check(CONCERN, name, setting, wanted, None, None, NOT_APPLICABLE,
                          '%s has no %s: the setting does not apply to it' % (name, spec['sysfs'])), [], None
    if live is None:
        return make_check(CONCERN, name, setting, wanted, None, None, ERROR,
                          'cannot read %s' % attr_path), [], None
    if setting == 'scheduler' and wanted not in info.get('schedulers', []):
        return make_check(CONCERN, name, setting, wanted, live, None, ERROR,
                          'scheduler %s is not offered by %s (available: %s)'
                          % (wanted, name, ', '.join(info.get('schedulers') or ['none listed']))), [], None
    expected, note, refusal = _queue_limits.keep(setting, wanted, kernel['limits'], name, kernel['scheduler'])
    if refusal:
        return make_check(CONCERN, name, setting, wanted, live, None, ERROR, '%s.%s: %s' % (kernel['field'], setting, refusal)), [], None
    persistent, persistent_ok, clause = _persistence(
        evaluation, setting, expected, persist,
        lambda value: _queue_limits.kept_or_same(setting, value, kernel['limits'], name, kernel['scheduler']))
    live_ok = live == expected
    check = make_check(CONCERN, name, setting, expected, live, persistent, status_of(live_ok, persistent_ok),
                       _message(setting, name, live, expected, live_ok, persistent_ok, clause) + ('; %s' % note if note else ''))
    reset = live_ok and kernel['switching'] and setting in RESET_BY_SCHEDULER
    if reset:
        check['message'] += '; the switch to scheduler %s resets it, so it is written again after' % kernel['scheduler']
    changes = []
    if not live_ok or reset:
        changes.append({'kind': 'sysfs', 'target': name, 'setting': setting, 'path': attr_path,
                        'before': live, 'after': expected})
    return check, changes, persistent_ok


def _rule_files_with(dirs, rules_file):
    """The files udev would read once ``rules_file`` exists; and a warning or None."""
    files = _udev.list_rule_files(dirs)
    name = os.path.basename(rules_file)
    directory = os.path.dirname(rules_file)
    if directory not in [d.rstrip('/') or '/' for d in dirs] or not name.endswith('.rules'):
        return files, 'rules_file %s is not a *.rules file in the udev search path (%s): udev would not read it' % (
            rules_file, ', '.join(dirs))
    for entry in files:
        if entry['name'] == name:
            if entry['path'] != rules_file:
                return files, '%s masks rules_file %s (same name, earlier in the udev search path)' % (
                    entry['path'], rules_file)
            return files, None
    files = files + [{'name': name, 'path': rules_file, 'masked': False}]
    return sorted(files, key=lambda entry: entry['name']), None


def plan_block_queue(requests, sys_root='/sys', proc_root='/proc', rules_dirs=_udev.RULES_DIRS,
                     db_dir=_udev.DB_DIR, rules_file=DEFAULT_RULES_FILE, persist=True, mount_entries=None, page_size=None):
    """Audit the requests and plan the changes; reads only.  ``page_size``: the host's (os.sysconf) when None.

    Returns a dict:

    * ``checks``: one check per device and requested setting (make_check
      records); a match that selects nothing gives one not_applicable check.
    * ``changes``: sysfs writes ``{kind: sysfs, target, setting, path, before,
      after}`` in write order, then at most one ``{kind: file, target:
      rules_file, before, after}`` with the full old (None: absent) and new
      text of the managed rule file.  Empty when every check is compliant.
    * ``devices``: per resolved device ``{name, matches, notes, identity,
      rule}`` (``rule``: the managed line it would have, or None).
    * ``warnings``: sentences about the plan (e.g. a later rule that would
      still override the managed one at boot).
    """
    errors = []
    files, file_warning = _rule_files_with(rules_dirs, rules_file)
    devices, checks = _selected_devices(requests, sys_root, proc_root, db_dir, mount_entries)
    # the udev rules matter to the devices the requests select: when they select none, none is read
    rules = _udev.read_rules(files, errors) if devices else []
    old_text, persist_file, warnings = _read_managed_file(rules_file, persist, errors)
    sysfs_changes = []
    for entry in devices:
        device_checks, device_changes = _audit_device(entry, sys_root, db_dir, rules, persist, page_size)
        checks += device_checks
        sysfs_changes += device_changes
    new_text, result_devices = _merge_rules(devices, old_text, persist_file, persist, warnings)
    changes = _stacking.order_writes(sorted(sysfs_changes, key=lambda c: (c['target'], WRITE_ORDER.index(c['setting']))), sys_root)
    if persist_file and new_text != old_text:
        changes.append({'kind': 'file', 'target': rules_file, 'before': old_text, 'after': new_text})
    if persist_file and any(entry['persisted'] for entry in devices):
        warnings.extend([file_warning] if file_warning else _verify(files, rules_file, new_text, sys_root, db_dir, devices))
    return {'checks': checks, 'changes': changes, 'devices': result_devices, 'warnings': warnings + errors}


def _read_managed_file(rules_file, persist, errors):
    """(text of the managed rule file or None, whether the plan may rewrite it, warnings)."""
    old_text = read_text(rules_file, errors, missing_ok=True, decode_errors='surrogateescape', newline='')
    if old_text is None and os.path.lexists(rules_file):
        # never plan to replace a file that could not be read
        return old_text, False, ['%s cannot be read: no change to it is planned' % rules_file]
    return old_text, persist, []


def _selected_devices(requests, sys_root, proc_root, db_dir, mount_entries):
    """The devices the requests select, in order, each ``{name, matches, notes, settings: {setting: (value,
    request index)}, conflicts}``; and a not_applicable check per match that selects nothing."""
    checks, devices, by_name = [], [], {}
    for index, request in enumerate(requests):
        match = request.get('match') or {}
        names, notes, problem = resolve_match(match, sys_root, proc_root, db_dir, mount_entries)
        if problem:
            checks.append(make_check(CONCERN, match_label(match), 'device', None, None, None, NOT_APPLICABLE, problem))
            continue
        for name in names:
            for target, placed, reasons in _place_request(sys_root, name, request, match_label(match), checks):
                if target not in by_name:
                    by_name[target] = {'name': target, 'matches': [], 'notes': [], 'settings': {}, 'conflicts': [], 'reasons': {}}
                    devices.append(by_name[target])
                _add_request(by_name[target], placed, index, match_label(match), notes)
                for setting, reason in reasons.items():
                    by_name[target]['reasons'].setdefault(setting, reason)
    return devices, checks


def _place_request(sys_root, name, request, label, checks):
    """[(target, the request's settings that go to it, {setting: why})] of one request on its resolved device
    ``name``, in order (plan/stacking.py decides); a not_applicable check (into ``checks``) per setting that no
    device of the stack takes."""
    order, by_target = [], {}
    for setting in SETTINGS:
        if request.get(setting) is None:
            continue
        targets, problem = _stacking.placements(sys_root, name, setting)
        if problem:
            checks.append(make_check(CONCERN, name, setting, request[setting], None, None, NOT_APPLICABLE,
                                     '%s (asked by %s)' % (problem, label)))
            continue
        for target, reason in targets:
            if target not in by_target:
                by_target[target] = ({'match': request.get('match')}, {})
                order.append(target)
            by_target[target][0][setting] = request[setting]
            if reason:
                by_target[target][1][setting] = 'set here for %s (asked by %s): %s' % (name, label, reason)
    return [(target, by_target[target][0], by_target[target][1]) for target in order]


def _add_request(entry, request, index, label, notes):
    """The settings of request ``index`` asked of a device; a value another request gave otherwise is a conflict."""
    entry['matches'].append(label)
    entry['notes'].extend(note for note in notes if note not in entry['notes'])
    for setting in SETTINGS:
        value = request.get(setting)
        if value is None:
            continue
        if setting in entry['settings'] and entry['settings'][setting][0] != value:
            entry['conflicts'].append((setting, entry['settings'][setting], (value, index)))
            continue
        entry['settings'].setdefault(setting, (value, index))


def _audit_device(entry, sys_root, db_dir, rules, persist, page_size=None):
    """(checks, sysfs changes) of one selected device. Records in ``entry`` its udev identity and the
    settings the managed rule must persist (``persisted``)."""
    name = entry['name']
    info = _sysfs.read_block_device(sys_root, name)
    device = _udev.device_properties(sys_root, name, db_dir)
    evaluation = _udev.evaluate(rules, device) if device else None
    entry['identity'], entry['identity_warning'] = rule_identity(sys_root, name, device['db'] if device else None)
    note_text = ''.join('. %s' % note for note in entry['notes'])
    checks, changes, to_persist = [], [], {}
    for setting, first, other in entry['conflicts']:
        checks.append(make_check(CONCERN, name, setting, first[0], info.get(setting), None, ERROR,
                                 'conflicting policy for %s on %s: %r (devices[%d]) and %r (devices[%d])'
                                 % (setting, name, first[0], first[1], other[0], other[1])))
    conflicted = set(setting for setting, dummy_a, dummy_b in entry['conflicts'])
    kernel = _kernel_context(sys_root, name, info, entry['settings'], page_size)
    for setting in SETTINGS:
        if setting not in entry['settings'] or setting in conflicted:
            continue
        expected, index = entry['settings'][setting]
        kernel['field'] = '%s[%d]' % (POLICY_FIELD, index)
        check, setting_changes, persistent_ok = _check_setting(sys_root, name, info, setting, expected, evaluation, persist, kernel)
        if setting in entry['reasons']:
            check['message'] += '; %s' % entry['reasons'][setting]
        check['message'] += note_text
        checks.append(check)
        changes.extend(setting_changes)
        if persistent_ok is False and check['status'] in (DRIFT, NOT_PERSISTENT):
            to_persist[setting] = check['expected']
    entry['persisted'] = to_persist
    return checks, changes


def _kernel_context(sys_root, name, info, settings, page_size):
    """What the kernel judges the device's values against (see _check_setting): its limits and the scheduler
    it has when nr_requests is written, the policy's when the device offers it (it is written first)."""
    wanted = settings.get('scheduler', (None,))[0]
    switching = wanted is not None and wanted in (info.get('schedulers') or []) and wanted != info.get('scheduler')
    return {'limits': _sysfs.read_queue_limits(sys_root, name, page_size, info=info), 'switching': switching,
            'scheduler': wanted if switching else info.get('scheduler'), 'field': POLICY_FIELD}


def _merge_rules(devices, old_text, persist_file, persist, warnings):
    """The managed rule file's new text, each device's settings to persist merged into its line, and the
    devices as the plan returns them (``rule``: the device's managed line in the new text)."""
    new_text = old_text
    result = []
    for entry in devices:
        if persist_file and entry['persisted']:
            new_text = merge_rules_text(new_text, entry['identity'], entry['persisted'])
            if entry['identity_warning']:
                warnings.append('%s: %s' % (entry['name'], entry['identity_warning']))
        result.append({'name': entry['name'], 'matches': entry['matches'], 'notes': entry['notes'],
                       'identity': entry['identity'], 'rule': _managed_line(new_text, entry['identity']) if persist else None})
    return new_text, result


def _managed_line(text, identity):
    if text is None:
        return None
    wanted = _identity_of(_udev.parse_rule_line(rule_line(identity, {'scheduler': 'x'})))
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith('#'):
            continue
        try:
            if _identity_of(_udev.parse_rule_line(stripped)) == wanted:
                return stripped
        except ValueError:
            continue
    return None


def _verify(files, rules_file, new_text, sys_root, db_dir, devices):
    """Warnings for settings the new rules file would still not persist."""
    warnings = []
    rules = _udev.read_rules(files, override={rules_file: new_text})
    for entry in devices:
        device = _udev.device_properties(sys_root, entry['name'], db_dir)
        if device is None:
            continue
        evaluation = _udev.evaluate(rules, device)
        for setting, expected in sorted(entry.get('persisted', {}).items()):
            record = evaluation[setting]
            if record['unknown']:
                continue
            value = _as_setting_value(setting, record['value'])
            if value == expected:
                continue
            if record['source'] is None:
                warnings.append('after writing %s, no udev rule would set %s on %s at boot: '
                                'the managed rule would not match it' % (rules_file, setting, entry['name']))
            elif not record['source'].startswith(rules_file + ':'):
                warnings.append('after writing %s, udev rule %s would still set %s on %s to %s at boot'
                                % (rules_file, record['source'], setting, entry['name'], value))
    return warnings
