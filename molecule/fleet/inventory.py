#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Dynamic inventory of the fleet and platforms scenarios: the running iotune-<scenario>-N containers (lab/fleet)."""
import os
import subprocess
import sys

if '--host' in sys.argv:
    print('{}')
    sys.exit(0)
ROOT = os.environ.get('MOLECULE_PROJECT_DIRECTORY') or os.path.join(os.path.dirname(os.path.realpath(__file__)), '..', '..')
REPORTS = os.path.join(os.environ.get('MOLECULE_EPHEMERAL_DIRECTORY', '/tmp/iotune-fleet'), 'reports')
PREFIX = 'iotune-' + os.environ.get('MOLECULE_SCENARIO_NAME', 'fleet')
sys.exit(subprocess.call([sys.executable, os.path.join(ROOT, 'lab', 'fleet'), 'inventory', PREFIX,
                          '--report-dir', REPORTS]))
