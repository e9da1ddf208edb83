# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/find-python prints a base interpreter, never the venv's that make puts first on PATH
(scripts/setup removes that venv before making it again from what find-python printed)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import subprocess
import sys
import venv

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'scripts', 'find-python')
MINOR = str(sys.version_info[1])


def find(path, *minors):
    done = subprocess.run(['bash', SCRIPT] + list(minors), env=dict(os.environ, PATH=path), capture_output=True,
                          text=True, check=False)
    return done.returncode, done.stdout.strip()


def test_a_venv_first_on_path_is_not_what_is_printed(tmp_path):
    venv.EnvBuilder(with_pip=False, symlinks=True).create(str(tmp_path / 'venv'))
    rc, found = find(str(tmp_path / 'venv' / 'bin') + os.pathsep + os.environ['PATH'], MINOR)
    assert rc == 0 and found, found
    assert not found.startswith(str(tmp_path)), found
    assert os.path.basename(found).startswith('python3')
    base = subprocess.run([found, '-c', 'import sys; print(sys.prefix == sys.base_prefix)'], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert base == 'True'


def test_none_in_range_prints_nothing():
    assert find(os.environ['PATH'], '99') == (1, '')
