# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune-bulk: the command it runs, with and without systemd, and its configuration."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import subprocess
import sys

import pytest

from ansible_collections.iotune.storage.tests.unit.tools.copy_tool import load_bulk, load_tool, zipapp

bulk = load_bulk()
TOOL = zipapp('iotune-bulk')


def test_runs_in_the_slice_through_systemd_run(monkeypatch):
    monkeypatch.setattr(bulk.os.path, 'exists', lambda path: path == '/etc/systemd/system/iotune-bulk.slice')
    argv, warning = bulk.command_for(['tar', 'cf', '-', '/data'], 'iotune-bulk.slice', True, '/usr/bin/systemd-run')
    assert argv == ['/usr/bin/systemd-run', '--scope', '--quiet', '--collect', '--slice=iotune-bulk.slice', '--',
                    'tar', 'cf', '-', '/data']
    assert warning is None


def test_warns_when_the_slice_has_no_cap(monkeypatch):
    monkeypatch.setattr(bulk.os.path, 'exists', lambda path: False)
    argv, warning = bulk.command_for(['cp', 'a', 'b'], 'backup.slice', True, '/usr/bin/systemd-run')
    assert argv[-3:] == ['cp', 'a', 'b'] and 'backup.slice has no unit file, so no memory cap' in warning


@pytest.mark.parametrize('running, systemd_run', [(False, '/usr/bin/systemd-run'), (True, None)])
def test_without_systemd_the_command_runs_as_it_is(running, systemd_run):
    argv, warning = bulk.command_for(['cp', 'a', 'b'], 'iotune-bulk.slice', running, systemd_run)
    assert argv == ['cp', 'a', 'b']
    assert warning == 'iotune-bulk: systemd is not running here: running cp without the memory cap of iotune-bulk.slice'


def test_reads_the_slice_with_iotune_copys_reader(tmp_path):
    conf = tmp_path / 'copy.conf'
    conf.write_text('# managed\nbuffer_size=8M\nslice = backup.slice  # the backup cap\n')
    assert bulk.read_config is load_tool().read_config
    assert bulk.read_config(str(conf)) == {'buffer_size': '8M', 'slice': 'backup.slice'}
    assert bulk.slice_of(str(conf)) == 'backup.slice'
    assert bulk.slice_of(str(tmp_path / 'missing')) == 'iotune-bulk.slice'


def test_a_bad_copy_conf_stops_it_as_it_stops_iotune_copy(tmp_path):
    conf = tmp_path / 'copy.conf'
    conf.write_text('slice=backup.slice\nnot a setting\n')
    done = run(['true'], IOTUNE_COPY_CONF=str(conf))
    assert done.returncode == 2
    assert done.stderr == "iotune-bulk: %s:2: expected key=value, found 'not a setting'\n" % conf


def test_without_iotune_copy_beside_it_it_reads_copy_conf_itself(tmp_path):
    # the zipapp carries iotune-copy's reader: it used to load it from iotune-copy beside it, and stopped without it
    alone = tmp_path / 'iotune-bulk'
    alone.write_bytes(open(TOOL, 'rb').read())
    conf = tmp_path / 'copy.conf'
    conf.write_text('slice=backup.slice\nnot a setting\n')
    done = subprocess.run([sys.executable, str(alone), 'true'], capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, IOTUNE_COPY_CONF=str(conf)), check=False)
    assert done.returncode == 2 and done.stderr == "iotune-bulk: %s:2: expected key=value, found 'not a setting'\n" % conf
    done = subprocess.run([sys.executable, str(alone), 'true'], capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, IOTUNE_COPY_CONF=str(tmp_path / 'none')), check=False)
    assert done.returncode == 0


def run(args, **env):
    return subprocess.run([sys.executable, TOOL] + args, capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, **env), check=False)


def test_the_command_runs_and_its_exit_code_is_kept(tmp_path):
    # this machine (or container) may or may not run systemd: either way the command runs
    done = run([sys.executable, '-c', 'import sys; print("bulk job"); sys.exit(3)'],
               IOTUNE_COPY_CONF=str(tmp_path / 'none'))
    assert done.returncode == 3 and done.stdout == 'bulk job\n'


@pytest.mark.parametrize('args, rc, text', [
    ([], 2, 'usage: iotune-bulk COMMAND'),
    (['--help'], 0, 'usage: iotune-bulk COMMAND'),
    (['/nonexistent/command'], 127, 'iotune-bulk: cannot run /nonexistent/command: No such file or directory'),
])
def test_usage_and_missing_commands(args, rc, text):
    done = run(args)
    if args == ['/nonexistent/command'] and os.path.isdir('/run/systemd/system'):
        pytest.skip('systemd-run reports a missing command itself')
    assert done.returncode == rc and text in done.stderr
