# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The failpoint the unit tests see is their own, never the integration test's /run/iotune/failpoint."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import subprocess
import sys

from ansible_collections.iotune.storage.plugins.module_utils.common import atomic

WRITE_FSTAB = '''
import sys
from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import atomic_write
atomic_write(sys.argv[1], b"written\\n")
print("renamed")
'''


def test_the_unit_tests_run_with_a_failpoint_of_their_own(private_failpoint):
    assert atomic.failpoint_file() == private_failpoint != atomic.FAILPOINT_FILE


def test_without_the_environment_the_failpoint_is_the_one_in_run(monkeypatch):
    monkeypatch.delenv(atomic.FAILPOINT_ENV)
    assert atomic.failpoint_file() == '/run/iotune/failpoint'


def _write_fstab(tmp_path, failpoint):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    env[atomic.FAILPOINT_ENV] = str(failpoint)
    return subprocess.run([sys.executable, '-c', WRITE_FSTAB, str(tmp_path / 'fstab')],
                          env=env, capture_output=True, text=True, check=False, timeout=60)


def test_a_write_fires_the_failpoint_the_environment_names(tmp_path):
    failpoint = tmp_path / 'failpoint'
    failpoint.write_text('kill-before-rename fstab\n')
    proc = _write_fstab(tmp_path, failpoint)
    assert proc.returncode == -9, proc.stderr
    assert not failpoint.exists() and not (tmp_path / 'fstab').exists()
    assert len(atomic.stale_temps(str(tmp_path / 'fstab'))) == 1


def test_a_write_leaves_a_failpoint_of_another_file_alone(tmp_path):
    failpoint = tmp_path / 'failpoint'
    failpoint.write_text('kill-before-rename sysctl.conf\n')
    proc = _write_fstab(tmp_path, failpoint)
    assert (proc.returncode, proc.stdout) == (0, 'renamed\n'), proc.stderr
    assert failpoint.exists() and (tmp_path / 'fstab').read_text() == 'written\n'


def test_a_durable_write_syncs_the_file_and_its_directory_and_a_report_does_not(monkeypatch, tmp_path):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, 'fsync', lambda fd: synced.append(fd) or real_fsync(fd))
    atomic.atomic_write(str(tmp_path / 'fstab'), b'managed\n')
    assert len(synced) == 2                      # the file before the rename, the directory after it
    del synced[:]
    atomic.atomic_write(str(tmp_path / 'audit-latest.json'), b'{}\n', follow_links=False, durable=False)
    assert synced == [] and (tmp_path / 'audit-latest.json').read_bytes() == b'{}\n'
