# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Running the command simulators of tests/unix-sim from the unit tests."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import subprocess
import sys

UNIX_SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'unix-sim')


def simulator(name, env):
    """A function running tests/unix-sim/<name> with ``env`` added to the environment: (*args) -> (rc, stdout, stderr)."""
    def run(*args):
        proc = subprocess.run([sys.executable, os.path.join(UNIX_SIM, name)] + list(args), env=dict(os.environ, **env),
                              capture_output=True, text=True, check=False)
        return proc.returncode, proc.stdout, proc.stderr
    return run


UNAME = {
    'hpux': {'sysname': 'HP-UX', 'nodename': 'scx', 'release': 'B.11.31', 'version': 'U', 'machine': 'ia64'},
    'solaris': {'sysname': 'SunOS', 'nodename': 'sol', 'release': '5.11', 'version': '11.4.0.15.0', 'machine': 'i86pc'},
}


class SimulatedUnixHost(object):
    """A Solaris or HP-UX host in ``root`` (a directory with etc/) whose commands are the simulators:
    ``host(argv)`` runs tests/unix-sim/<argv[0]> when there is one (else fails, as a command the host
    lacks), with MOUNT_SIM_MNTTAB at <root>/etc/mnttab and UNIX_SIM_DIR at <root>/unix-sim, whose
    uname.json says the platform (kctune's and kstat's state files there too). ``change`` is the same call; ``bin(name)`` the simulator's path;
    every command that ran is kept in ``ran``."""

    def __init__(self, root, platform):
        self.root = str(root)
        self.etc = os.path.join(self.root, 'etc')
        self.mnttab = os.path.join(self.etc, 'mnttab')
        sim_dir = os.path.join(self.root, 'unix-sim')
        for directory in (self.etc, sim_dir):
            if not os.path.isdir(directory):
                os.makedirs(directory)
        with open(os.path.join(sim_dir, 'uname.json'), 'w') as handle:
            json.dump(UNAME[platform], handle)
        self.env = dict(os.environ, MOUNT_SIM_MNTTAB=self.mnttab, UNIX_SIM_DIR=sim_dir,
                        KCTUNE_SIM_STATE=os.path.join(sim_dir, 'kctune.json'), KSTAT_SIM_STATE=os.path.join(sim_dir, 'kstat.json'))
        self.ran = []

    def __call__(self, argv, **kwargs):
        self.ran.append(list(argv))
        path = self.bin(os.path.basename(argv[0]))
        if path is None:
            return 127, '', '%s: not found' % argv[0]
        proc = subprocess.run([sys.executable, path] + list(argv[1:]), env=self.env, capture_output=True, text=True, check=False)
        return proc.returncode, proc.stdout, proc.stderr

    def change(self, argv, check_rc=False):
        return self(argv)

    def bin(self, name, default=None):
        path = os.path.join(UNIX_SIM, name)
        return path if os.path.isfile(path) else default
