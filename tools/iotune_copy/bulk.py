# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune-bulk CMD [ARG...]: run a bulk job (backup, restore, copy) inside the systemd slice
whose memory cap (page cache included) the cache_limits role sets, so that it cannot evict
the host's working set from the page cache. Where systemd does not run, the command runs
as it is, after a warning.

The slice is iotune-bulk.slice, or the ``slice=`` of /etc/iotune/copy.conf
(``IOTUNE_COPY_CONF`` names another file), read with iotune-copy's reader (config.py), which
is built into this zipapp too: iotune-bulk needs nothing beside it.
"""

import os
import shutil
import sys

from .config import DEFAULT_CONFIG, read_config

PROG = 'iotune-bulk'
DEFAULT_SLICE = 'iotune-bulk.slice'
SYSTEMD_RUN_DIR = '/run/systemd/system'
UNIT_DIRS = ('/etc/systemd/system', '/run/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system')


def slice_of(path):
    """The slice= of the config file, else the default; ValueError naming the file on a bad one."""
    try:
        return read_config(path).get('slice') or DEFAULT_SLICE
    except OSError as exc:
        raise ValueError('cannot read %s: %s' % (path, exc.strerror))


def command_for(argv, slice_name, systemd_running, systemd_run):
    """(argv to exec, warning or None)."""
    if systemd_running and systemd_run:
        warning = None
        if not any(os.path.exists(os.path.join(unit_dir, slice_name)) for unit_dir in UNIT_DIRS):
            warning = ('%s: %s has no unit file, so no memory cap: the cache_limits role with bulk_slice '
                       'sets one' % (PROG, slice_name))
        return [systemd_run, '--scope', '--quiet', '--collect', '--slice=' + slice_name, '--'] + list(argv), warning
    return list(argv), ('%s: systemd is not running here: running %s without the memory cap of %s'
                        % (PROG, argv[0], slice_name))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ('-h', '--help'):
        sys.stderr.write('usage: %s COMMAND [ARG...]\nRuns COMMAND in %s (the memory cap of bulk jobs).\n'
                         % (PROG, DEFAULT_SLICE))
        return 0 if argv else 2
    try:
        slice_name = slice_of(os.environ.get('IOTUNE_COPY_CONF', DEFAULT_CONFIG))
    except ValueError as exc:
        sys.stderr.write('%s: %s\n' % (PROG, exc))
        return 2
    command, warning = command_for(argv, slice_name, os.path.isdir(SYSTEMD_RUN_DIR), shutil.which('systemd-run'))
    if warning:
        sys.stderr.write(warning + '\n')
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write('%s: cannot run %s: %s\n' % (PROG, command[0], exc.strerror))
        return 127
    return 0  # not reached: execvp replaced the process
