# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the host must re-read after changes: one rule for the engine, after a run made its changes,
and for io_rollback, after it put a run's records back.

``RELOADS`` says, for each reload, which journal records need it (by kind and target), in which
direction, when the host can run it, and what the host lacks while it has not run. The records
are the ones the run wrote (APPLY) or the ones the rollback restored (ROLLBACK). Each reload runs
once, in the table's order, through ``runner.change``; the program comes from the caller's
``find_program`` (its own lookup, never a record).

A reload that fails is an error, in both directions: the changes (or restores) stay made, the
error names the command, its exit status and output, and what the host has not re-read; the
engine's run fails with it (after reading the state again), and io_rollback fails with it and
does not mark the run. Run the command by hand once its cause is fixed."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os

from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandError

# udevd listens here; where it does not exist (containers) udevd does not run and nothing is reloaded
UDEV_CONTROL = '/run/udev/control'
APPLY, ROLLBACK = 'apply', 'rollback'


def _is_file(record, suffix):
    return record.get('kind') == 'file' and str(record.get('target', '')).endswith(suffix)


class Reload(object):
    """One line of the table: ``needed(record)``, ``argv(record, find_program)``, ``possible(record, host)``."""

    def __init__(self, name, directions, needed, argv, possible, missing):
        self.name, self.directions, self.needed, self.argv = name, directions, needed, argv
        self.possible, self.missing = possible, missing


RELOADS = (
    # In a run, the unit change is the daemon-reload itself (journalled as a `unit` record, made
    # right after the unit file, and a failure fails the run); a rollback runs it once, after the
    # files are back, when it restored anything (a unit record has nothing of its own to restore).
    Reload('systemd', (ROLLBACK,), lambda record: record.get('kind') == 'unit',
           lambda record, find: [find('systemctl'), 'daemon-reload'], lambda record, host: True,
           'systemd still has the unit files as it loaded them before'),
    # udevd reads *.rules files only; the values are already written live, the reload is for the
    # devices that appear later
    Reload('udev', (APPLY, ROLLBACK), lambda record: _is_file(record, '.rules'),
           lambda record, find: [find('udevadm'), 'control', '--reload'],
           lambda record, host: host.exists(host.udev_control),
           'udevd still has the rules it read before: devices that appear later do not get the rule file as it is now'),
    # Loading only the managed file proves it loads and resets no value other files or an
    # administrator set; sysctl(8) writes the real /proc only. Not after a rollback: it puts the
    # live values back from their own records, and the restored file need not hold them.
    Reload('sysctl', (APPLY,), lambda record: _is_file(record, '.conf') and record.get('module') == 'cache_limits',
           lambda record, find: [find('sysctl'), '--load', record['target']],
           lambda record, host: host.proc_root == '/proc' and host.exists(record['target']),
           'the values are set live, but the file did not load as the next boot will load it'),
)


class _Host(object):
    def __init__(self, proc_root, udev_control, exists):
        self.proc_root, self.udev_control, self.exists = os.path.normpath(proc_root), udev_control, exists


def needed_reloads(records, direction, find_program, proc_root='/proc', udev_control=None, exists=os.path.exists):
    """The reloads (``{'argv': [...], 'missing': sentence}``, each once, in the table's order) that
    ``records`` need, made (APPLY) or undone (ROLLBACK). ``find_program(name)`` gives a program's
    path (None: the bare name, the PATH decides); ``udev_control`` defaults to UDEV_CONTROL."""
    host = _Host(proc_root, udev_control or UDEV_CONTROL, exists)

    def find(name):
        return find_program(name) or name
    found = []
    for rule in RELOADS:
        if direction not in rule.directions:
            continue
        for record in records:
            if rule.needed(record) and rule.possible(record, host):
                item = {'argv': rule.argv(record, find), 'missing': rule.missing}
                if item not in found:
                    found.append(item)
    return found


def run_reloads(reloads, runner):
    """Run each of ``reloads`` with ``runner.change``: (the commands that worked, the errors as sentences)."""
    done, errors = [], []
    for item in reloads:
        command = ' '.join(item['argv'])
        try:
            rc, out, err = runner.change(item['argv'])
        except (CommandError, IOError, OSError) as exc:
            rc, out, err = None, '', str(exc)
        if rc == 0:
            done.append(command)
        else:
            errors.append('%s failed (rc=%s): %s; %s (run it again once the cause is fixed)'
                          % (command, rc, (err or out).strip() or 'no output', item['missing']))
    return done, errors
