# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/test-lanes (make test) with a stand-in for make that records when each step started and
ended: the lanes wait where they must (@images, @bench-tiny: the scenarios that read this machine's
kernel state never overlap integration and bench-tiny, which change it), the vm scenario is told
lane 1's end, and a lane whose step it waits for failed or never ran stops instead of waiting forever."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import subprocess

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'scripts', 'test-lanes')
STEPS = ['images', 'lint', 'docs', 'molecule-unix', 'compat', 'molecule-default', 'molecule-platforms', 'molecule-fleet',
         'unit', 'integration', 'bench-tiny', 'molecule-stacks', 'molecule-vm']
KERNEL_READERS = ['molecule-default', 'molecule-platforms', 'molecule-fleet']

# make's stand-in: the last argument is the step; it logs "start STEP TIME", sleeps, logs "end STEP TIME"
# and fails when the step is in FAKE_FAIL; the vm step logs what IOTUNE_QUIET_FILE it was given
FAKE_MAKE = r'''#!/usr/bin/env bash
step=${!#}
case "$step" in collection | build | installed) exit 0 ;; esac
echo "start $step $(date +%s.%N)" >>"$FAKE_MAKE_LOG"
[ "$step" != molecule-vm ] || echo "quiet $step ${IOTUNE_QUIET_FILE:-}" >>"$FAKE_MAKE_LOG"
case "$step" in images | unit) sleep 1 ;; integration) sleep 1.5 ;; *) sleep 0.2 ;; esac
echo "end $step $(date +%s.%N)" >>"$FAKE_MAKE_LOG"
[[ " $FAKE_FAIL " != *" $step "* ]]
'''


def run_lanes(tmp_path, fail='', edit=None):
    """Run a copy of the script (``edit``: a function of its text) with make's stand-in: (the completed process,
    {step: {'start': t, 'end': t}}, the IOTUNE_QUIET_FILE the vm step was given)."""
    root = tmp_path / 'repo'
    (root / 'scripts').mkdir(parents=True)
    with open(SCRIPT) as handle:
        text = handle.read()
    (root / 'scripts' / 'test-lanes').write_text(edit(text) if edit else text)
    (tmp_path / 'bin').mkdir()
    make = tmp_path / 'bin' / 'make'
    make.write_text(FAKE_MAKE)
    make.chmod(0o755)
    log = tmp_path / 'make.log'
    env = dict(os.environ, PATH='%s:%s' % (tmp_path / 'bin', os.environ['PATH']), FAKE_MAKE_LOG=str(log), FAKE_FAIL=fail)
    env.pop('IOTUNE_TEST_SERIAL', None)
    # a session of its own, so that a lane left waiting (each lane is a process group) can be killed with it
    proc = subprocess.Popen(['bash', str(root / 'scripts' / 'test-lanes'), str(tmp_path / 'build')], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        subprocess.run(['pkill', '-KILL', '-s', str(proc.pid)], check=False)
        proc.communicate()
        raise AssertionError('test-lanes did not end within 120 s: a lane waits for ever')
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    times, quiet = {}, None
    for line in (log.read_text().splitlines() if log.exists() else []):
        what, step, value = line.split(' ', 2)
        if what == 'quiet':
            quiet = value
        else:
            times.setdefault(step, {})[what] = float(value)
    return done, times, quiet


def table(output):
    """{step: result} of the table test-lanes prints at the end."""
    rows = [line.strip('|').split('|') for line in output.splitlines() if line.startswith('| ')]
    return dict((cells[0].strip(), cells[1].strip()) for cells in rows if len(cells) == 3)


def test_every_step_runs_once_and_waits_where_it_must(tmp_path):
    done, times, quiet = run_lanes(tmp_path)
    assert done.returncode == 0, done.stdout[-3000:]
    assert sorted(times) == sorted(STEPS)
    results = table(done.stdout)
    assert [results[step] for step in STEPS] == ['passed'] * len(STEPS), results
    for step in ('molecule-unix', 'compat', 'integration'):
        assert times[step]['start'] >= times['images']['end'], step
    for step in KERNEL_READERS:
        assert times[step]['start'] >= times['bench-tiny']['end'], step
        for changer in ('integration', 'bench-tiny'):
            assert times[step]['end'] <= times[changer]['start'] or times[step]['start'] >= times[changer]['end'], (step, changer)
    # the first steps of both lanes run beside the images
    assert times['lint']['start'] < times['images']['end'] and times['unit']['start'] < times['images']['end']
    assert quiet == str(tmp_path / 'build' / 'test-logs' / 'lane1.done')


def test_a_lane_waiting_for_a_failed_step_stops(tmp_path):
    done, times, dummy = run_lanes(tmp_path, fail='bench-tiny')
    assert done.returncode == 1
    assert 'lane 1 stops: bench-tiny failed or was not run' in done.stdout
    results = table(done.stdout)
    assert results['bench-tiny'] == 'FAILED (rc 1)' and results['compat'] == 'passed'
    assert [results[step] for step in KERNEL_READERS] == ['not run'] * 3
    assert not set(KERNEL_READERS) & set(times)


def test_a_lane_waiting_for_a_step_its_lane_never_ran_stops(tmp_path):
    done, times, dummy = run_lanes(tmp_path, fail='integration')
    assert done.returncode == 1
    assert 'lane 2 stops after integration' in done.stdout
    assert 'lane 1 stops: bench-tiny failed or was not run' in done.stdout
    results = table(done.stdout)
    assert results['bench-tiny'] == 'not run' and results['molecule-vm'] == 'not run'
    assert not set(KERNEL_READERS + ['bench-tiny', 'molecule-vm']) & set(times)


def test_failed_images_stop_both_lanes_after_their_first_step(tmp_path):
    done, times, dummy = run_lanes(tmp_path, fail='images')
    assert done.returncode == 1
    assert sorted(times) == ['images', 'lint', 'unit'] or sorted(times) == ['docs', 'images', 'lint', 'unit'], sorted(times)
    assert 'lane 1 stops: images failed or was not run' in done.stdout
    assert 'lane 2 stops: images failed or was not run' in done.stdout


def test_a_lane_waiting_for_no_step_stops(tmp_path):
    def misspelled(text):
        assert 'compat @bench-tiny' in text
        return text.replace('compat @bench-tiny', 'compat @bench-tiy', 1)
    done, times, dummy = run_lanes(tmp_path, edit=misspelled)
    assert done.returncode == 1
    assert 'no step bench-tiy to wait for' in done.stdout and 'lane 1 stops: bench-tiy failed or was not run' in done.stdout
    assert not set(KERNEL_READERS) & set(times) and 'molecule-vm' in times
