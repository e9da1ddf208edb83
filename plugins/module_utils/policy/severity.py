# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How much a check matters (docs/severity.md): a default per concern and setting, from the field
cases, and the policy's overrides (``iotune_severity``), validated on the controller."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import fnmatch

from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import show_value
from ansible_collections.iotune.storage.plugins.module_utils.policy.waivers import dict_items, text_list

LEVELS = ('low', 'medium', 'high')
OVERRIDE_KEYS = ('checks', 'severity')

# (concern, setting pattern, severity), the first match wins; a concern's last line is its default.
DEFAULTS = (
    # seed 000: mincache=direct,convosync=direct made restores ten times slower; sync and
    # forcedirectio turn every buffered write or read into a direct one the same way
    ('mount_options', 'absent:sync', 'high'),
    ('mount_options', 'absent:mincache=*', 'high'),
    ('mount_options', 'absent:convosync=*', 'high'),
    ('mount_options', 'absent:forcedirectio', 'high'),
    ('mount_options', '*', 'medium'),
    # seeds 001 and 002: discovered_direct_iosz after an upgrade (1 h -> 3 h), write_pref_io 64 KiB
    # against 1 MiB (4x)
    ('tunefstab', 'discovered_direct_iosz', 'high'),
    ('tunefstab', '*_pref_io', 'high'),
    ('tunefstab', '*_nstream', 'high'),
    ('tunefstab', '*', 'medium'),
    ('block_queue', 'read_ahead_kb', 'medium'),
    ('block_queue', 'max_sectors_kb', 'medium'),
    ('block_queue', '*', 'low'),
    ('cache_limits', 'vm.dirty_*', 'medium'),
    ('cache_limits', 'zfs_arc_max', 'medium'),
    ('cache_limits', 'filecache_*', 'medium'),
    ('cache_limits', '*', 'low'),
    ('copy_tools', '*', 'low'),
)
FALLBACK = 'medium'


def default_severity(concern, setting):
    for known, pattern, level in DEFAULTS:
        if known == concern and fnmatch.fnmatchcase(str(setting), pattern):
            return level
    return FALLBACK


def validate_overrides(value, field='iotune_severity'):
    """(overrides, errors): each override {checks: [ids or patterns], severity: one of LEVELS}."""
    if value is None:
        return [], []
    overrides, errors = [], []
    for where, item, before in dict_items(value, field, '{checks, severity}', 'checks and severity', OVERRIDE_KEYS, errors):
        checks = text_list(item.get('checks'), where + '.checks', errors, 'check ids or patterns')
        if item.get('severity') not in LEVELS:
            errors.append('%s.severity: must be one of %s, got %s' % (where, ', '.join(LEVELS), show_value(item.get('severity'))))
        if len(errors) == before:
            overrides.append({'checks': checks, 'severity': item['severity']})
    return overrides, errors


def apply_severity(checks, overrides=()):
    """The checks, each with ``severity``: the first override whose pattern matches its id, else
    the default for its concern and setting."""
    marked = []
    for check in checks:
        level = next((override['severity'] for override in overrides
                      if any(fnmatch.fnmatchcase(check['id'], pattern) for pattern in override['checks'])), None)
        marked.append(dict(check, severity=level or default_severity(check['concern'], check.get('setting'))))
    return marked
