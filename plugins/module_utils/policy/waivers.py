# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Waivers: written-down exceptions to the policy that expire (docs/waivers.md).

``iotune_waivers`` is a list; each waiver names checks by id or shell-style pattern
(``cache_limits:vm:dirty_ratio``, ``mount_options:/data/*:*``), optionally the hosts or groups it
covers (all hosts when left out), a reason, an owner and the last day it holds (``expires``,
YYYY-MM-DD). The controller validates the list and gives each host the waivers that cover it,
with the days left counted on the controller's clock (``waivers_for_host``); the module marks the
checks they match (``apply_waivers``). A waived check keeps its real status."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime
import fnmatch
import re

from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import show_value

WAIVER_KEYS = ('name', 'checks', 'hosts', 'reason', 'owner', 'expires')
REQUIRED_KEYS = ('checks', 'reason', 'owner', 'expires')
DATE_ACCEPTED = 'a date YYYY-MM-DD, the last day the waiver holds'
_DATE_RE = re.compile(r'^(\d{4})-(\d{2})-(\d{2})$')

ACTIVE = 'active'
EXPIRED = 'expired'
STALE = 'stale'


def parse_date(value):
    """A datetime.date from a date (YAML reads an unquoted 2027-03-31 as one) or a YYYY-MM-DD
    string; None when it is neither or not a real day."""
    if isinstance(value, datetime.datetime):
        return None
    if isinstance(value, datetime.date):
        return value
    match = _DATE_RE.match(value) if isinstance(value, str) else None
    if not match:
        return None
    try:
        return datetime.date(*(int(part) for part in match.groups()))
    except ValueError:
        return None


def visible(text):
    """Whether ``text`` has a character that shows: blanks, control and format characters only
    (spaces, tabs, NUL, zero-width spaces) name nobody and say nothing (issue 38, item 14)."""
    return any(char.isprintable() and not char.isspace() for char in text)


def text_list(value, where, errors, what):
    """A non-empty list of non-empty strings (a single string taken as a list of one), or None
    with an error saying it must be ``what``."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(item, str) and item.strip() for item in value):
        errors.append('%s: must be a non-empty list of %s, got %s' % (where, what, show_value(value)))
        return None
    return [item.strip() for item in value]


def dict_items(value, field, list_of, dict_with, keys, errors):
    """(where, item, errors before its checks) of each dict of the list ``value``, a list field of
    the policy such as iotune_waivers, with an error naming the field for a value that is not a
    list, an item that is not a dict and a key not in ``keys``; lazily, so that each item's errors
    follow the previous item's."""
    if not isinstance(value, (list, tuple)):
        errors.append('%s: must be a list of %s, got %s' % (field, list_of, show_value(value)))
        return
    for index, item in enumerate(value):
        where = '%s[%d]' % (field, index)
        if not isinstance(item, dict):
            errors.append('%s: must be a dict with %s, got %s' % (where, dict_with, show_value(item)))
            continue
        before = len(errors)
        for key in sorted(item):
            if key not in keys:
                errors.append('%s.%s: unknown key (accepted: %s)' % (where, key, ', '.join(keys)))
        yield where, item, before


def validate_waivers(value, field='iotune_waivers'):
    """(waivers, errors): ``value`` checked and normalized, each waiver as {name, checks, hosts
    (None: every host), reason, owner, expires (YYYY-MM-DD)}; every error names its field."""
    if value is None:
        return [], []
    waivers, errors = [], []
    for where, item, before in dict_items(value, field, 'waivers', ', '.join(REQUIRED_KEYS), WAIVER_KEYS, errors):
        for key in REQUIRED_KEYS:
            if item.get(key) in (None, '', []):
                errors.append('%s.%s: required' % (where, key))
        checks = text_list(item['checks'], where + '.checks', errors, 'check ids or patterns') if item.get('checks') else None
        hosts = text_list(item['hosts'], where + '.hosts', errors, 'host or group names or patterns') \
            if item.get('hosts') is not None else None
        for key in ('name', 'reason', 'owner'):
            if item.get(key) not in (None, '') and not isinstance(item[key], str):
                errors.append('%s.%s: must be text, got %s' % (where, key, show_value(item[key])))
            elif item.get(key) and not visible(item[key]):
                errors.append('%s.%s: must have a visible character, got %s' % (where, key, show_value(item[key])))
        expires = parse_date(item.get('expires'))
        if item.get('expires') not in (None, '') and expires is None:
            errors.append('%s.expires: %s is not %s' % (where, show_value(item['expires']), DATE_ACCEPTED))
        if len(errors) == before:
            waivers.append({'name': item.get('name') or where, 'checks': checks, 'hosts': hosts,
                            'reason': item['reason'], 'owner': item['owner'], 'expires': expires.isoformat()})
    return waivers, errors


def covers_host(waiver, host, groups):
    """Whether ``waiver`` covers ``host``: no hosts given, or one of them (a name or pattern) is the
    host or one of its groups."""
    if waiver['hosts'] is None:
        return True
    names = ([host] if host else []) + list(groups or [])
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in waiver['hosts'] for name in names)


def waivers_for_host(waivers, host, groups, today):
    """The validated waivers that cover ``host``, each with ``days_left`` (0 on its last day) and
    ``expired``, counted from ``today`` (a datetime.date): what the module is given."""
    found = []
    for waiver in waivers:
        if covers_host(waiver, host, groups):
            days_left = (parse_date(waiver['expires']) - today).days
            found.append({'name': waiver['name'], 'checks': list(waiver['checks']), 'reason': waiver['reason'],
                          'owner': waiver['owner'], 'expires': waiver['expires'], 'days_left': days_left,
                          'expired': days_left < 0})
    return found


def _matches(waiver, check_id):
    return any(fnmatch.fnmatchcase(check_id, pattern) for pattern in waiver['checks'])


def _mark(waiver):
    return dict((key, waiver[key]) for key in ('name', 'reason', 'owner', 'expires', 'days_left'))


def apply_waivers(checks, waivers):
    """(checks, outcomes): each check that an unexpired waiver matches with ``waiver`` (the first
    such waiver: name, reason, owner, expires, days_left) and one that only expired waivers match
    with ``waiver_expired`` (the status counts again); and per waiver its ``status`` (active,
    expired, or stale: unexpired and matching no check) and the ids it matched."""
    marked, outcomes = [], []
    matched = dict((index, []) for index in range(len(waivers)))
    for check in checks:
        check = dict(check)
        check.pop('waiver', None)
        check.pop('waiver_expired', None)
        hits = [index for index, waiver in enumerate(waivers) if _matches(waiver, check['id'])]
        for index in hits:
            matched[index].append(check['id'])
        active = [waivers[index] for index in hits if not waivers[index]['expired']]
        if active:
            check['waiver'] = _mark(active[0])
        elif hits:
            check['waiver_expired'] = _mark(waivers[hits[0]])
        marked.append(check)
    for index, waiver in enumerate(waivers):
        status = EXPIRED if waiver['expired'] else (ACTIVE if matched[index] else STALE)
        outcomes.append(dict(_mark(waiver), status=status, matched=matched[index]))
    return marked, outcomes


def waived_count(checks):
    return sum(1 for check in checks if check.get('waiver'))
