# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The iotune policy: validation and normalization against the schema (policy/schema.py); pure, no AnsibleModule.

Missing (or null) keys mean empty.  validate_policy() returns every problem
as one message that starts with the field path (``iotune_block_devices[0].
read_ahead_kb: ...``) and names the accepted values; normalize_policy() turns
a valid policy into plain data (sizes as int bytes, defaults filled).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import normalize_mount_point as normalize_path
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import (
    BLOCK_DEVICE_KEYS, BULK_SLICE_KEYS, CACHE_KEYS, CACHE_PAIRS, CACHE_SYSCTL_KEYS, COPY_TOOLS_KEYS, COPY_TOOLS_STATES,
    MATCH_KEYS, MOUNT_KEYS, POLICY_KEYS, PROFILE_NAMES, REMOUNT_MODES, TUNEFSTAB_KEYS)
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_algebra import (
    DEFAULTS_EXPANSION, contradicts, implies, option_slot, options_equal, replacements)
from ansible_collections.iotune.storage.plugins.module_utils.settings.mount_options import option_problem
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import ORDERED, VM_SYSCTLS
from ansible_collections.iotune.storage.plugins.module_utils.settings.tunefstab import VXFS_TUNABLE_MAX, VXFS_TUNABLES, accepted
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits_unix import UNIX_CACHE, UNIX_CACHE_KEYS
from ansible_collections.iotune.storage.plugins.module_utils.common.units import ULONG_MAX, parse_int, to_bytes

# iotune-copy's default I/O size (seed 002: cp8M) and the largest it accepts.
COPY_BUFFER_DEFAULT = 8 << 20
COPY_BUFFER_MAX = 1 << 30
# iotune-copy --direct: the most buffers in flight it accepts, and the memory they may take.
COPY_STREAMS_MAX = 64
COPY_STREAMS_MEMORY = 1 << 30

SIZE_EXAMPLES = '10485760, 256k, 10m, 1g'

_OPTION_RE = re.compile(r'^[^\s,=][^\s,]*$')


# ---------------------------------------------------------------------------
# Value helpers.

def show_value(value):
    """Value as it appears in a message: text quoted, everything else plain."""
    if isinstance(value, str):
        return "'%s'" % value
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


def _type_name(value):
    if isinstance(value, bool):
        return 'bool'
    if isinstance(value, dict):
        return 'dict'
    if isinstance(value, (list, tuple)):
        return 'list'
    if isinstance(value, str):
        return 'str'
    if isinstance(value, int):
        return 'int'
    if value is None:
        return 'null'
    return type(value).__name__


def as_int(value):
    """An int from an int or a decimal text; None for anything else (booleans included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, str)):
        return parse_int(value)
    return None


def as_size(value):
    """Bytes from a size (int or text such as ``256k``); None when it is not a size."""
    try:
        return to_bytes(value.strip() if isinstance(value, str) else value)
    except ValueError:
        return None


# MemoryHigh= as systemd reads it (systemd.resource-control(5); config_parse_memory_limit() reads a
# percentage with parse_permyriad() of src/basic/percent-util.c, else a size with parse_size(), base 1024).
# Checked with systemd 252's `systemd-analyze verify`: 25%, 12.5%, 12.34%, 100.00%, 125‰, 12.5‰,
# 125‱, 4G, 1K, 4T and infinity are read; 12.345% (three decimals), 12.55‰, 1.5‱, 0%, 101%,
# 100.01%, 4g, 1k, 4GiB, 4KB, Infinity, 0 and 18446744073709551615 are "ignoring"-logged, which leaves
# the slice uncapped. A percentage is of RAM, at most 100%, above 0; a size at least 1 byte and below
# 2^64 - 1 (systemd's "no limit").
MEMORY_HIGH_MAX = ULONG_MAX - 1
# (suffix, decimals allowed after the point, permyriad per unit)
_PERMYRIAD_SUFFIXES = (('%', 2, 100), ('\u2030', 1, 10), ('\u2031', 0, 1))
_FRACTION_RE = re.compile(r'^([0-9]+)(?:\.([0-9]+))?$')
_UNIT_SIZE_RE = re.compile(r'^([0-9]+)([KMGTPE]?)$')
_UNIT_SIZE_SHIFT = {'': 0, 'K': 10, 'M': 20, 'G': 30, 'T': 40, 'P': 50, 'E': 60}


def percent_text(permyriad):
    """1250 -> '12.5%': the normalized MemoryHigh= percentage (at most two decimals, as systemd takes)."""
    whole, rest = divmod(permyriad, 100)
    if not rest:
        return '%d%%' % whole
    if not rest % 10:
        return '%d.%d%%' % (whole, rest // 10)
    return '%d.%02d%%' % (whole, rest)


def _permyriad(text):
    """(permyriad, problem) of a text ending in %, per mille or per ten thousand; (None, None) for other text.

    Only the plain decimal forms are read (25%, 12.5%, 12.25%, 125‰, 12.5‰, 1250‱); a
    leading zero or sign is refused, since systemd reads 010% as octal (8%)."""
    for suffix, decimals, scale in _PERMYRIAD_SUFFIXES:
        if not text.endswith(suffix):
            continue
        match = _FRACTION_RE.match(text[:-len(suffix)])
        if not match:
            return None, 'not a plain decimal number followed by %s' % suffix
        if len(match.group(1)) > 1 and match.group(1).startswith('0'):
            return None, 'a leading zero (systemd reads 010% as octal, 8%)'
        fraction = match.group(2) or ''
        if len(fraction) > decimals:
            return None, ('systemd takes at most %d decimal(s) before %s' % (decimals, suffix) if decimals
                          else 'systemd takes no decimals before %s' % suffix)
        value = int(match.group(1)) * scale + (int(fraction) * scale // 10 ** len(fraction) if fraction else 0)
        if not 0 < value <= 10000:
            return None, 'a percentage of RAM must be above 0 and at most 100%'
        return value, None
    return None, None


def parse_memory_high(value):
    """A MemoryHigh= value of the policy: int bytes, ``'N%'`` (percentage of RAM, normalized text
    with at most two decimals) or ``'infinity'``; None when it is none of these or systemd would
    ignore it (12.345%, 0%, 150%, 0 bytes).

    Sizes take the policy's size grammar (``4g``, ``512M``, ``268435456``) and are written as bytes;
    percentages the forms systemd reads (``N%``, ``N.N%``, ``N.NN%``, ``N‰``, ``N.N‰``,
    ``N‱``), written as ``N%``/``N.N%``/``N.NN%``."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == 'infinity':
            return 'infinity'
        permyriad, problem = _permyriad(text)
        if permyriad is not None:
            return percent_text(permyriad)
        if problem:
            return None
    size = as_size(value)
    if size is None or not 0 < size <= MEMORY_HIGH_MAX:
        return None
    return size


def read_unit_memory_high(text):
    """A ``MemoryHigh=`` value as written in a unit file or printed by ``systemctl show``:
    (value, problem). ``value`` is normalized as parse_memory_high() returns it, or None with
    ``problem`` saying why it cannot count as set: systemd ignores it (``12.345%``, ``4g``), or it
    is a form systemd reads differently from its look (``010%`` is octal), which is rewritten.
    An empty value (a reset) is not handled here."""
    text = text.strip()
    if text == 'infinity':
        return 'infinity', None
    permyriad, problem = _permyriad(text)
    if permyriad is not None:
        return percent_text(permyriad), None
    if problem:
        return None, problem
    match = _UNIT_SIZE_RE.match(text)
    if match:
        size = int(match.group(1)) << _UNIT_SIZE_SHIFT[match.group(2)]
        if 0 < size <= MEMORY_HIGH_MAX:
            return size, None
        return None, 'a size must be at least 1 byte and below 16E'
    return None, 'not a size, a percentage or infinity as systemd reads them'


UNIT_MEMORY_HIGH_ACCEPTED = ('in a unit file, systemd reads bytes or a size with K, M, G, T, P or E (base 1024, upper '
                             'case), a percentage of RAM N%, N.N% or N.NN% (above 0, at most 100), N\u2030 or N.N\u2030, '
                             'N\u2031, or infinity')
MEMORY_HIGH_ACCEPTED = ('a size such as 256m, 4g or 10485760 (written as bytes), a percentage of RAM above 0 and at most '
                        '100 with at most two decimals such as 25%, 12.5% or 12.25% (or 125\u2030, 12.5\u2030 per mille), '
                        'or infinity; systemd ignores other forms such as 12.345%')


# ---------------------------------------------------------------------------
# Validators; each appends messages to ``errors`` and returns nothing.

def _check_keys(item, accepted, where, errors):
    for key in item:
        if key not in accepted:
            errors.append('%s.%s: unknown key (accepted: %s)' % (where, key, ', '.join(accepted)))


def _expect_dict(value, where, errors, what='a dict'):
    if value is None:
        return {}
    if not isinstance(value, dict):
        errors.append('%s: must be %s, got %s' % (where, what, _type_name(value)))
        return None
    return value


def _expect_list(value, where, errors, what='a list'):
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        errors.append('%s: must be %s, got %s' % (where, what, _type_name(value)))
        return None
    return value


def _check_int(value, where, errors, minimum=0, maximum=None):
    number = as_int(value)
    if number is None or number < minimum or (maximum is not None and number > maximum):
        if maximum is None:
            errors.append('%s: must be an integer >= %d, got %s' % (where, minimum, show_value(value)))
        else:
            errors.append('%s: must be an integer between %d and %d, got %s' % (where, minimum, maximum, show_value(value)))
        return None
    return number


def _check_size(value, where, errors, minimum=0, maximum=None):
    size = as_size(value)
    if size is None:
        errors.append('%s: %s is not a size (accepted: %s)' % (where, show_value(value), SIZE_EXAMPLES))
        return None
    if size < minimum:
        errors.append('%s: must be a size of at least %d bytes, got %s' % (where, minimum, show_value(value)))
        return None
    if maximum is not None and size > maximum:
        errors.append('%s: must be a size of at most %d bytes (the kernel refuses more), got %s'
                      % (where, maximum, show_value(value)))
        return None
    return size


def _check_absolute_path(value, where, errors):
    if not isinstance(value, str) or not value.startswith('/'):
        errors.append('%s: must be an absolute path, got %s' % (where, show_value(value)))
        return False
    return True


def check_option_syntax(option, where, errors, key_only_ok=False):
    """One mount option: text, no spaces, no commas, not ``defaults``, an option some file system
    knows with a value of the form it takes (_mount_options). key_only_ok: ``absent`` may name a
    valued option without its value."""
    if not isinstance(option, str) or not _OPTION_RE.match(option):
        errors.append('%s: %s is not a mount option (one option per item, no spaces or commas, '
                      'e.g. noatime, commit=60, mincache=direct)' % (where, show_value(option)))
        return False
    if option == 'defaults':
        errors.append("%s: 'defaults' is not an option to ensure or forbid "
                      "(name the options it stands for: %s)" % (where, ', '.join(DEFAULTS_EXPANSION)))
        return False
    problem = option_problem(option, key_only_ok)
    if problem:
        errors.append('%s: %s is not a mount option iotune accepts: %s' % (where, show_value(option), problem))
        return False
    return True


def _check_remount_mode(value, where, errors):
    """``remount``: null (the default, in_place) or one of its choices."""
    if value is not None and value not in REMOUNT_MODES:
        errors.append('%s.remount: must be one of %s, got %s' % (where, ', '.join(REMOUNT_MODES), show_value(value)))


def validate_mount_entry(entry, where, errors):
    """Validate one ``{path, present, absent}`` entry (policy or module input)."""
    entry = _expect_dict(entry, where, errors, 'a dict with keys %s' % ', '.join(MOUNT_KEYS))
    if entry is None:
        return
    _check_keys(entry, MOUNT_KEYS, where, errors)
    if 'path' not in entry or entry['path'] is None:
        errors.append('%s.path: required (the mount point, e.g. /data)' % where)
    else:
        _check_absolute_path(entry['path'], where + '.path', errors)
    lists = {}
    for name in ('present', 'absent'):
        options = _expect_list(entry.get(name), '%s.%s' % (where, name), errors, 'a list of mount options')
        if options is None:
            continue
        good = []
        for index, option in enumerate(options):
            if check_option_syntax(option, '%s.%s[%d]' % (where, name, index), errors, key_only_ok=name == 'absent'):
                good.append((index, option))
        for number, (index, option) in enumerate(good):
            if any(options_equal(option, other) for dummy, other in good[:number]):
                errors.append('%s.%s: option %s is listed twice' % (where, name, show_value(option)))
        lists[name] = good
    _check_remount_mode(entry.get('remount'), where, errors)
    _check_mount_contradictions(where, lists.get('present', []), lists.get('absent', []), errors)


def _check_mount_contradictions(where, present, absent, errors):
    """Options no mount can have together, found by the mount algebra (settings.mount_algebra.contradicts):
    a harden of them would flip between runs. ``present``/``absent``: [(index, option)]."""
    for number, (index, option) in enumerate(present):
        for other_index, other in present[:number]:
            slot = option_slot(option)
            if slot is not None and slot == option_slot(other) and not options_equal(option, other):
                errors.append('%s.present: options %s and %s contradict each other (keep one)'
                              % (where, show_value(other), show_value(option)))
            elif slot != option_slot(other) and contradicts([other, option], []):
                errors.append('%s.present[%d] %s and %s.present[%d] %s contradict each other: no mount can have '
                              'both (keep one)' % (where, other_index, show_value(other), where, index,
                                                   show_value(option)))
    for dummy, option in absent:
        others = replacements(option)
        if others:
            errors.append("%s.absent: %s is the kernel default and cannot just be removed; "
                          "put %s in present instead" % (where, show_value(option), ' or '.join(others)))
    for index, option in present:
        for other_index, other in absent:
            if options_equal(option, other):
                errors.append('%s: option %s is in both present and absent' % (where, show_value(option)))
            elif implies(option, other):
                errors.append('%s: option %s in present puts %s, which is in absent, in effect'
                              % (where, show_value(option), show_value(other)))
            elif not replacements(other) and contradicts([option], [other]):
                errors.append('%s.present[%d] %s and %s.absent[%d] %s contradict each other: no mount can have %s '
                              'without %s (keep one)' % (where, index, show_value(option), where, other_index,
                                                         show_value(other), show_value(option), show_value(other)))


def _validate_mounts(value, errors):
    entries = _expect_list(value, 'iotune_mounts', errors)
    if entries is None:
        return
    seen = {}
    for index, entry in enumerate(entries):
        where = 'iotune_mounts[%d]' % index
        validate_mount_entry(entry, where, errors)
        path = entry.get('path') if isinstance(entry, dict) else None
        if isinstance(path, str) and path.startswith('/'):
            key = normalize_path(path)
            if key in seen:
                errors.append('%s.path: %s is listed twice (also iotune_mounts[%d])' % (where, show_value(path), seen[key]))
            else:
                seen[key] = index


def validate_tunable(name, value, where, errors):
    """One VxFS tunable; returns the normalized int or None."""
    if name not in VXFS_TUNABLES:
        errors.append('%s: unknown tunable (accepted: %s)' % (where, ', '.join(sorted(VXFS_TUNABLES))))
        return None
    entry = VXFS_TUNABLES[name]
    if entry['kind'] == 'size':
        return _check_size(value, where, errors, maximum=VXFS_TUNABLE_MAX)
    if entry['kind'] == 'count':
        return _check_int(value, where, errors, minimum=entry['minimum'], maximum=VXFS_TUNABLE_MAX)
    number = as_size(value) if entry.get('type') == 'size' else as_int(value)
    if number not in entry['choices']:
        errors.append('%s: must be %s, got %s' % (where, accepted(name), show_value(value)))
        return None
    return number


def _dict_entries(value, name, keys, errors):
    """Yield (index, where, entry) for each dict in the list ``name``, with
    unknown keys reported; entries that are not dicts are reported and skipped."""
    entries = _expect_list(value, name, errors)
    for index, entry in enumerate(entries or []):
        where = '%s[%d]' % (name, index)
        entry = _expect_dict(entry, where, errors, 'a dict with keys %s' % ', '.join(keys))
        if entry is not None:
            _check_keys(entry, keys, where, errors)
            yield index, where, entry


def _validate_tunefstab(value, errors):
    seen = {}
    normalized = []
    for index, where, entry in _dict_entries(value, 'iotune_tunefstab', TUNEFSTAB_KEYS, errors):
        device = entry.get('device')
        if device is None:
            errors.append('%s.device: required (the block device, e.g. /dev/vx/dsk/datadg/vol01)' % where)
        elif not isinstance(device, str) or not (device.startswith('/') or device == 'system-default') \
                or any(char.isspace() or char in '#,=' for char in device):
            # '#' starts a tunefstab comment; ',' and '=' belong to the tunable list (and to vxtunefs -o)
            errors.append("%s.device: must be an absolute device path without whitespace, '#', ',' or '=', "
                          "or system-default, got %s" % (where, show_value(device)))
        elif device in seen:
            errors.append('%s.device: %s is listed twice (also iotune_tunefstab[%d])' % (where, show_value(device), seen[device]))
        else:
            seen[device] = index
        tunables = _expect_dict(entry.get('tunables'), where + '.tunables', errors)
        if tunables is None:
            continue
        values = {}
        for name, tvalue in tunables.items():
            values[name] = validate_tunable(name, tvalue, '%s.tunables.%s' % (where, name), errors)
        if isinstance(device, str):
            normalized.append((index, device, values))
    # A system-default line takes precedence over a device's lines (tunefstab(4) on HP-UX): a device value
    # that the policy's own system-default entry sets otherwise could never be in effect (issue 23, P4).
    for default_index, default_device, default_values in normalized:
        if default_device != 'system-default':
            continue
        for index, device, values in normalized:
            if device == 'system-default':
                continue
            for name in sorted(values):
                if values[name] is not None and default_values.get(name) is not None and values[name] != default_values[name]:
                    errors.append("iotune_tunefstab[%d].tunables.%s: %d for %s contradicts %d for system-default "
                                  "(iotune_tunefstab[%d]): a system-default line takes precedence over a device's lines "
                                  "(tunefstab(4)), so %s would get %d; give both the same value or drop one"
                                  % (index, name, values[name], device, default_values[name], default_index, device,
                                     default_values[name]))


def validate_match(match, where, errors, dev_paths=False):
    """A block-device match dict; the (key, normalised value) it names, or None with the errors appended.
    With ``dev_paths`` (the block_queue module's documented form) a name may also be given as
    ``/dev/<name>`` or ``/dev/mapper/<name>``."""
    match = _expect_dict(match, where, errors, 'a dict with exactly one of %s' % ', '.join(MATCH_KEYS))
    if match is None:
        return None
    _check_keys(match, MATCH_KEYS, where, errors)
    given = [key for key in MATCH_KEYS if match.get(key) is not None]
    if len(given) != 1:
        errors.append('%s: must have exactly one of %s (got %s)'
                      % (where, ', '.join(MATCH_KEYS), ', '.join(given) if given else 'none'))
        return None
    key = given[0]
    value = match[key]
    if not isinstance(value, str) or not value.strip():
        errors.append('%s.%s: must be a non-empty text, got %s' % (where, key, show_value(value)))
        return None
    if '"' in value or any(ord(char) < 32 or ord(char) == 127 for char in value):
        # the value is written into a udev rule between double quotes
        errors.append('%s.%s: must be one line of text without \'"\' or control characters (newline, tab), got %r'
                      % (where, key, value))
        return None
    if key == 'mountpoint' and not _check_absolute_path(value, where + '.mountpoint', errors):
        return None
    name = value
    if key == 'name' and dev_paths:
        for prefix in ('/dev/mapper/', '/dev/'):
            if name.startswith(prefix):
                name = name[len(prefix):]
                break
    # md/<name>: an md array by its name (/dev/md/<name>)
    own = name[len('md/'):] if key == 'name' and name.startswith('md/') else name
    if key == 'name' and (not own or '/' in own or own in ('.', '..') or any(char.isspace() for char in own)):
        errors.append('%s.name: must be a kernel device name such as sdb or nvme0n1, a device-mapper name or md/<array name> '
                      '(%s), got %s' % (where, 'or /dev/sdb, /dev/mapper/vg0-data, /dev/md/data' if dev_paths else 'without /dev/',
                                        show_value(value)))
        return None
    return (key, normalize_path(value) if key == 'mountpoint' else name if key == 'name' else value)


def _validate_block_devices(value, errors):
    seen = {}
    for index, where, entry in _dict_entries(value, 'iotune_block_devices', BLOCK_DEVICE_KEYS, errors):
        if 'match' not in entry:
            errors.append('%s.match: required (exactly one of %s)' % (where, ', '.join(MATCH_KEYS)))
        else:
            matched = validate_match(entry['match'], where + '.match', errors)
            if matched is not None:
                if matched in seen:
                    errors.append('%s.match: %s %s is listed twice (also iotune_block_devices[%d])'
                                  % (where, matched[0], show_value(matched[1]), seen[matched]))
                else:
                    seen[matched] = index
        for name in QUEUE_SETTINGS:
            if entry.get(name) is not None:
                validate_queue_value(name, entry[name], '%s.%s' % (where, name), errors)


def validate_queue_value(name, value, where, errors):
    """One block-queue setting; returns the normalized value (an int, or one of the choices) or None."""
    setting = QUEUE_SETTINGS[name]
    if 'choices' not in setting:
        return _check_int(value, where, errors, minimum=setting['minimum'], maximum=setting['maximum'])
    if value not in setting['choices']:
        errors.append('%s: unknown %s %s (accepted: %s)' % (where, name, show_value(value), ', '.join(setting['choices'])))
        return None
    return value


def validate_cache_value(key, value, where, errors):
    """One iotune_cache sysctl value (key without ``vm.``); returns the normalized int or None."""
    sysctl = VM_SYSCTLS[key]
    check = _check_size if sysctl['type'] == 'size' else _check_int
    return check(value, where, errors, minimum=sysctl['minimum'], maximum=sysctl['maximum'])


_SLICE_NAME_RE = re.compile(r'^[A-Za-z0-9:_.\\-]+\.slice$')
# systemd.special(7): the slices systemd itself sets up; a unit file of that name written to
# /etc/systemd/system replaces the vendor's, and its MemoryHigh= caps every unit below it
# (system.slice: every system service). capsule.slice is special since systemd 256.
SYSTEMD_SPECIAL_SLICES = ('-.slice', 'system.slice', 'user.slice', 'machine.slice', 'capsule.slice')
# systemd-logind creates user-<uid>.slice under user.slice for every user who logs in; the whole
# user-*.slice family is logind's. A child of another special slice (system-backup.slice, a child
# of system.slice) caps only the units put in it, so it is accepted.
SYSTEMD_OWNED_SLICE_PREFIXES = ('user-',)
SLICE_NAME_ACCEPTED = 'a systemd unit name ending in .slice (letters, digits, ":_.-\\"; no "/"), e.g. backup.slice'
SLICE_OWN_ACCEPTED = ('a slice of your own such as iotune-bulk.slice, backup.slice or system-backup.slice (a child of '
                      'system.slice caps only the units put in it), not one of systemd\'s own slices (%s, user-*.slice)'
                      % ', '.join(SYSTEMD_SPECIAL_SLICES))


def slice_name_problem(name):
    """None when ``name`` can be the bulk slice, else why not (a sentence without the field name)."""
    if not isinstance(name, str) or not _SLICE_NAME_RE.match(name) or name.startswith('-') and name != '-.slice' \
            or len(name) > 255:
        return '%s is not a slice name (accepted: %s)' % (show_value(name), SLICE_NAME_ACCEPTED)
    if name in SYSTEMD_SPECIAL_SLICES or name.startswith(SYSTEMD_OWNED_SLICE_PREFIXES):
        what = 'a systemd special unit (systemd.special(7))' if name in SYSTEMD_SPECIAL_SLICES else \
            'a slice systemd-logind creates and owns (user-<uid>.slice, under user.slice)'
        return ('%s is %s: writing its unit file would replace the vendor\'s and its MemoryHigh= would cap every unit '
                'below it, not just bulk jobs (accepted: %s)' % (show_value(name), what, SLICE_OWN_ACCEPTED))
    return None


def validate_bulk_slice(value, where, errors):
    """The bulk_slice dict; returns the normalized memory_high or None."""
    value = _expect_dict(value, where, errors, 'a dict with keys %s' % ', '.join(BULK_SLICE_KEYS))
    if value is None:
        return None
    _check_keys(value, BULK_SLICE_KEYS, where, errors)
    name = value.get('name')
    problem = None if name is None else slice_name_problem(name)
    if problem:
        errors.append('%s.name: %s' % (where, problem))
    if value.get('memory_high') is None:
        errors.append('%s.memory_high: required (%s)' % (where, MEMORY_HIGH_ACCEPTED))
        return None
    memory_high = parse_memory_high(value['memory_high'])
    if memory_high is None:
        errors.append('%s.memory_high: %s is not a memory limit (accepted: %s)'
                      % (where, show_value(value['memory_high']), MEMORY_HIGH_ACCEPTED))
    return memory_high


def check_cache_order(values, prefix, errors):
    """The background writeback limits below the foreground ones; ``values`` holds the valid ints by key
    without ``vm.`` and a message names the field as ``prefix + key``."""
    for first, second in ORDERED:
        low, high = values.get(first), values.get(second)
        if low is not None and high is not None and low >= high:
            errors.append('%s%s: must be lower than %s (%d >= %d); the kernel would use half of %s instead'
                          % (prefix, first, second, low, high, second))


def _validate_cache(value, errors):
    cache = _expect_dict(value, 'iotune_cache', errors)
    if cache is None:
        return
    _check_keys(cache, CACHE_KEYS, 'iotune_cache', errors)
    values = {}
    for key in CACHE_SYSCTL_KEYS:
        if cache.get(key) is not None:
            values[key] = validate_cache_value(key, cache[key], 'iotune_cache.' + key, errors)
    for bytes_key, ratio_key in CACHE_PAIRS:
        if bytes_key in values and ratio_key in values:
            errors.append('iotune_cache: set either %s or %s, not both (writing one makes the kernel zero the other)'
                          % (bytes_key, ratio_key))
    check_cache_order(values, 'iotune_cache.', errors)
    unix = dict((key, _check_size(cache[key], 'iotune_cache.' + key, errors, minimum=UNIX_CACHE[key]['minimum'],
                                  maximum=UNIX_CACHE[key]['maximum']))
                for key in UNIX_CACHE_KEYS if cache.get(key) is not None)
    if unix.get('filecache_min') and unix.get('filecache_max') and unix['filecache_min'] > unix['filecache_max']:
        errors.append('iotune_cache.filecache_min: must not be above filecache_max (%d > %d bytes; kctune refuses it)'
                      % (unix['filecache_min'], unix['filecache_max']))
    if cache.get('bulk_slice') is not None:
        validate_bulk_slice(cache['bulk_slice'], 'iotune_cache.bulk_slice', errors)


def validate_buffer_size(value, where, errors):
    """iotune-copy's default I/O size: 1 byte to 1 GiB; returns the int bytes or None."""
    size = _check_size(value, where, errors, minimum=1)
    if size is not None and size > COPY_BUFFER_MAX:
        errors.append('%s: %s is larger than iotune-copy accepts (at most 1g = %d bytes)' % (where, show_value(value), COPY_BUFFER_MAX))
        return None
    return size


def validate_copy_tools(value, where, errors, sep='.'):
    """The iotune_copy_tools dict. A message names the field as ``where + sep + key``: ``iotune_copy_tools.state``
    for the policy, ``copy_tools_state`` for the copy_tools role's own variables (sep ``_``)."""
    tools = _expect_dict(value, where, errors, 'a dict with keys %s' % ', '.join(COPY_TOOLS_KEYS))
    if tools is None:
        return
    for key in tools:
        if key not in COPY_TOOLS_KEYS:
            errors.append('%s%s%s: unknown key (accepted: %s)' % (where, sep, key, ', '.join(COPY_TOOLS_KEYS)))
    state = tools.get('state')
    if state is not None and state not in COPY_TOOLS_STATES:
        errors.append('%s%sstate: unknown state %s (accepted: %s)' % (where, sep, show_value(state), ', '.join(COPY_TOOLS_STATES)))
    size = COPY_BUFFER_DEFAULT
    if tools.get('buffer_size') is not None:
        size = validate_buffer_size(tools['buffer_size'], where + sep + 'buffer_size', errors)
    if tools.get('streams') is not None:
        streams = _check_int(tools['streams'], where + sep + 'streams', errors, minimum=1, maximum=COPY_STREAMS_MAX)
        if streams is not None and size is not None and streams * size > COPY_STREAMS_MEMORY:
            errors.append('%s%sstreams: %d buffers of %s pass the 1g iotune-copy allows for them (accepted: streams x buffer_size <= 1g)'
                          % (where, sep, streams, buffer_size_text(size)))


def validate_policy(policy, profiles=PROFILE_NAMES):
    """Every problem of ``policy`` as a list of messages ([] when valid).

    Each message starts with the field path and names the accepted values."""
    errors = []
    if policy is None:
        return errors
    if not isinstance(policy, dict):
        return ['policy: must be a dict of %s, got %s' % (', '.join(POLICY_KEYS), _type_name(policy))]
    for key in policy:
        if key not in POLICY_KEYS:
            errors.append('%s: unknown policy key (accepted: %s)' % (key, ', '.join(POLICY_KEYS)))
    profile = policy.get('iotune_profile')
    if profile is not None and profile not in profiles:
        errors.append('iotune_profile: unknown profile %s (accepted: %s, or null)' % (show_value(profile), ', '.join(profiles)))
    _validate_mounts(policy.get('iotune_mounts'), errors)
    _validate_tunefstab(policy.get('iotune_tunefstab'), errors)
    _validate_block_devices(policy.get('iotune_block_devices'), errors)
    _validate_cache(policy.get('iotune_cache'), errors)
    validate_copy_tools(policy.get('iotune_copy_tools'), 'iotune_copy_tools', errors)
    return errors


# ---------------------------------------------------------------------------
# Normalization (of a valid policy).

def normalize_mount_entry(entry):
    normal = {
        'path': normalize_path(entry['path']),
        'present': list(entry.get('present') or []),
        'absent': list(entry.get('absent') or []),
    }
    if entry.get('remount') not in (None, REMOUNT_MODES[0]):
        normal['remount'] = entry['remount']  # only when not the default: plans and reports stay as they were
    return normal


def normalize_tunables(tunables):
    """VxFS tunables with sizes and counts as ints (assumes valid input)."""
    result = {}
    for name, value in (tunables or {}).items():
        result[name] = validate_tunable(name, value, name, [])
    return result


def normalize_cache(cache):
    """iotune_cache with sizes as int bytes and memory_high normalized (assumes valid input)."""
    result = {}
    for key in CACHE_SYSCTL_KEYS:
        if (cache or {}).get(key) is not None:
            result[key] = validate_cache_value(key, cache[key], key, [])
    for key in UNIX_CACHE_KEYS:
        if (cache or {}).get(key) is not None:
            result[key] = as_size(cache[key])
    bulk = (cache or {}).get('bulk_slice')
    if bulk is not None:
        result['bulk_slice'] = {'memory_high': parse_memory_high(bulk['memory_high'])}
        if bulk.get('name') is not None:
            result['bulk_slice']['name'] = bulk['name']
    return result


def normalize_copy_tools(tools):
    """iotune_copy_tools with its defaults (state present, buffer_size 8 MiB, streams None: the tool's own
    default) and the size as int bytes; None when it is not set (the copy tools are then not managed: {}
    would mean installed with the defaults, so a normalized policy fed back means the same policy).
    Assumes valid input."""
    if tools is None:
        return None
    size = tools.get('buffer_size')
    streams = tools.get('streams')
    return {
        'state': tools.get('state') or 'present',
        'buffer_size': COPY_BUFFER_DEFAULT if size is None else as_size(size),
        'streams': None if streams is None else as_int(streams),
    }


def buffer_size_text(size):
    """A size in bytes as iotune-copy's --buffer-size reads it: '8M', '256k', '1G', else the bytes ('1000')."""
    for suffix, unit in (('G', 1 << 30), ('M', 1 << 20), ('k', 1 << 10)):
        if size >= unit and size % unit == 0:
            return '%d%s' % (size // unit, suffix)
    return str(size)


def normalize_policy(policy):
    """A validated policy as plain data: every key present (null / [] / {}; iotune_copy_tools null when not set),
    sizes and counts as ints, mount points without trailing slash, only the
    block-device settings that were given."""
    policy = policy or {}
    block_devices = []
    for entry in policy.get('iotune_block_devices') or []:
        key = [name for name in MATCH_KEYS if entry['match'].get(name) is not None][0]
        value = entry['match'][key]
        item = {'match': {key: normalize_path(value) if key == 'mountpoint' else value}}
        for name in QUEUE_SETTINGS:
            if entry.get(name) is not None:
                item[name] = validate_queue_value(name, entry[name], name, [])
        block_devices.append(item)
    return {
        'iotune_profile': policy.get('iotune_profile'),
        'iotune_mounts': [normalize_mount_entry(entry) for entry in policy.get('iotune_mounts') or []],
        'iotune_tunefstab': [
            {'device': entry['device'], 'tunables': normalize_tunables(entry.get('tunables'))}
            for entry in policy.get('iotune_tunefstab') or []
        ],
        'iotune_block_devices': block_devices,
        'iotune_cache': normalize_cache(policy.get('iotune_cache')),
        'iotune_copy_tools': normalize_copy_tools(policy.get('iotune_copy_tools')),
    }


def cache_sysctl(cache):
    """The vm.* sysctls of a normalized iotune_cache: ``{'vm.dirty_bytes': 268435456, ...}``
    (the ``sysctl`` option of the cache_limits module)."""
    return dict(('vm.' + key, value) for key, value in (cache or {}).items() if key in CACHE_SYSCTL_KEYS)
