# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers of the targets that run modules as Ansible runs them on a host (reliability, mount_limits): a module in
its own Python process with an arguments file, and a list of cases run one after the other."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import argparse
import json
import os
import subprocess
import sys


class ModuleRunner(object):
    """Runs the collection's modules found under ``collections``, writing argument files in ``work``."""

    def __init__(self, work, collections):
        self.work, self.collections = work, collections
        self.calls = 0

    def module(self, name, args, check=False, expect_kill=False):
        """The module's result (its JSON), with ``rc`` the process's exit status (only that with
        ``expect_kill``: a run a fault kills prints nothing)."""
        self.calls += 1
        path = os.path.join(self.work, 'args-%d.json' % self.calls)
        with open(path, 'w') as handle:
            json.dump({'ANSIBLE_MODULE_ARGS': dict(args, _ansible_check_mode=check)}, handle)
        proc = subprocess.run([sys.executable, '-m', 'ansible_collections.iotune.storage.plugins.modules.' + name, path],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False,
                              env=dict(os.environ, PYTHONPATH=self.collections))
        if expect_kill:
            return {'rc': proc.returncode}
        try:
            result = json.loads(proc.stdout.decode())
        except ValueError:
            raise AssertionError('%s printed no result (rc %s): %s' % (name, proc.returncode, proc.stderr.decode()[-500:]))
        result['rc'] = proc.returncode
        return result


def run_all(cases, host, crashed):
    """Each case function's result on ``host``; a case that raises is ``crashed(name, exception)``, and the
    others still run."""
    results = []
    for run in cases:
        try:
            results.append(run(host))
        except Exception as exc:  # pylint: disable=broad-except
            results.append(crashed(run.__name__, exc))
    return results


def target_options(description, loops):
    """--work, --loops (``loops`` of them) and --collections, as a target's runme.sh passes them."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--work', required=True)
    parser.add_argument('--loops', nargs=loops, required=True)
    parser.add_argument('--collections', required=True)
    return parser.parse_args()
