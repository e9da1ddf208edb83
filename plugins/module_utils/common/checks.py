# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The check record every concern returns, and the rule that gives its status.

A check compares one setting of one target with the policy, on both sides:
the live value (what the kernel does now) and the persistent one (what the
next boot or mount will do).  Audit reports checks; enforce acts on the ones
that are not compliant, so both read the same decision.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

COMPLIANT = 'compliant'
DRIFT = 'drift'
NOT_PERSISTENT = 'not_persistent'
NOT_APPLICABLE = 'not_applicable'
ERROR = 'error'
STATUSES = (COMPLIANT, DRIFT, NOT_PERSISTENT, NOT_APPLICABLE, ERROR)

CONCERNS = ('mount_options', 'tunefstab', 'block_queue', 'cache_limits', 'copy_tools')


def check_id(concern, target, setting):
    """Stable identifier of a check: ``<concern>:<target>:<setting>``."""
    return '%s:%s:%s' % (concern, target, setting)


def make_check(concern, target, setting, expected, live, persistent, status, message):
    """A check record; ``status`` must be one of STATUSES."""
    if status not in STATUSES:
        raise ValueError('unknown check status %r (accepted: %s)' % (status, ', '.join(STATUSES)))
    return {
        'id': check_id(concern, target, setting),
        'concern': concern,
        'target': target,
        'setting': setting,
        'expected': expected,
        'live': live,
        'persistent': persistent,
        'status': status,
        'message': message,
    }


def status_of(live_ok, persistent_ok):
    """Status from the two comparisons with the policy.

    ``live_ok``/``persistent_ok`` are True (matches), False (differs) or None
    (that side cannot be known here, e.g. no vxtunefs): an unknown side is
    judged by the other one alone.  Live drift outranks persistence: a value
    that is wrong now is drift even if the next boot would fix it.
    """
    if live_ok is False:
        return DRIFT
    if persistent_ok is False:
        return NOT_PERSISTENT if live_ok else DRIFT
    if live_ok is None and persistent_ok is None:
        return NOT_APPLICABLE
    return COMPLIANT


def summarize(checks):
    """Count of checks per status (every status present, zero when unused)."""
    counts = dict((status, 0) for status in STATUSES)
    for check in checks:
        counts[check['status']] += 1
    return counts
