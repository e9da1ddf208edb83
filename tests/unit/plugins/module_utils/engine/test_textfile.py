# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune.prom: the gauges, Prometheus' naming rules, promtool's own check, the other mode's last
time read back as untrusted input, and the directory rule."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re
import shutil
import stat
import subprocess

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.trust import UnsafeDirectory
from ansible_collections.iotune.storage.plugins.module_utils.engine.textfile import (
    read_last_time, render_textfile, report_time, write_textfile)

PROMTOOL = shutil.which('promtool')
METRIC_NAME = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*$')
LABEL_NAME = re.compile(r'^[a-zA-Z_][a-zA-Z0-9_]*$')
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\} (-?[0-9]+)$')


def check(concern, status, **extra):
    return dict({'id': '%s:t:s-%s' % (concern, status), 'concern': concern, 'status': status}, **extra)


REPORT = {'host': 'db1', 'mode': 'audit', 'run_id': 'r-"1"\\x', 'time': '2026-11-28T06:00:00Z',
          'checks': [check('mount_options', 'drift'), check('mount_options', 'drift', waiver={'name': 'w'}),
                     check('mount_options', 'compliant'), check('cache_limits', 'not_persistent')]}


def samples(text):
    found = {}
    for line in text.splitlines():
        if line.startswith('#'):
            continue
        match = SAMPLE.match(line)
        assert match, line
        found[(match.group(1), match.group(2))] = int(match.group(3))
    return found


def test_one_gauge_per_concern_and_status_and_the_run():
    text = render_textfile(REPORT, {'audit': 1795845600, 'harden': 1795759200})
    got = samples(text)
    assert got[('iotune_checks', 'concern="mount_options",status="drift"')] == 2
    assert got[('iotune_checks', 'concern="mount_options",status="error"')] == 0
    assert got[('iotune_checks', 'concern="cache_limits",status="not_persistent"')] == 1
    assert not [key for key in got if 'tunefstab' in key[1]], 'a concern the run did not have gives no series'
    assert got[('iotune_checks_waived', 'concern="mount_options"')] == 1
    assert got[('iotune_last_run_timestamp_seconds', 'mode="audit"')] == 1795845600
    assert got[('iotune_last_run_timestamp_seconds', 'mode="harden"')] == 1795759200
    assert got[('iotune_last_run_info', 'mode="audit",run_id="r-\\"1\\"\\\\x"')] == 1
    for name in set(key[0] for key in got):
        assert METRIC_NAME.match(name) and not name.startswith('__')
        assert '# HELP %s ' % name in text and '# TYPE %s gauge\n' % name in text
    for labels in set(key[1] for key in got):
        assert all(LABEL_NAME.match(pair.split('=')[0]) for pair in re.findall(r'[a-z_]+="', labels))


def test_a_mode_never_run_has_no_time():
    got = samples(render_textfile(REPORT, {'audit': 1795845600}))
    assert ('iotune_last_run_timestamp_seconds', 'mode="harden"') not in got


@pytest.mark.skipif(PROMTOOL is None, reason='promtool is not on PATH (make setup installs Debian\'s prometheus)')
def test_promtool_finds_nothing_to_say(tmp_path):
    text = render_textfile(REPORT, {'audit': 1795845600, 'harden': 1795759200})
    done = subprocess.run([PROMTOOL, 'check', 'metrics'], input=text, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, '', '')


def test_report_time():
    assert report_time('2026-11-28T06:00:00Z') == 1795845600
    for bad in ('2026-11-28 06:00:00', '2026-13-28T06:00:00Z', None, 17):
        assert report_time(bad) is None


def test_the_other_modes_time_is_read_back_as_input(tmp_path):
    latest = tmp_path / 'harden-latest.json'
    latest.write_text(json.dumps({'time': '2026-11-27T06:00:00Z', 'checks': []}))
    assert read_last_time(str(latest)) == 1795759200
    for text in ('{"time": "yesterday"}', 'not json', '[1, 2]', '{"time": 1795759200}'):
        latest.write_text(text)
        assert read_last_time(str(latest)) is None, text
    assert read_last_time(str(tmp_path / 'missing.json')) is None
    target = tmp_path / 'elsewhere.json'
    target.write_text(json.dumps({'time': '2026-11-27T06:00:00Z'}))
    latest.unlink()
    latest.symlink_to(target)
    assert read_last_time(str(latest)) is None, 'a link is never followed'


def test_write_is_atomic_0644_and_carries_the_last_harden(tmp_path):
    reports = tmp_path / 'reports'
    reports.mkdir(mode=0o750)
    (reports / 'harden-latest.json').write_text(json.dumps({'time': '2026-11-27T06:00:00Z'}))
    textfile_dir = tmp_path / 'textfile'
    path = write_textfile(str(textfile_dir), REPORT, str(reports))
    assert path == str(textfile_dir / 'iotune.prom')
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644 and stat.S_IMODE(os.stat(str(textfile_dir)).st_mode) == 0o755
    got = samples(open(path).read())
    assert got[('iotune_last_run_timestamp_seconds', 'mode="harden"')] == 1795759200
    assert got[('iotune_last_run_timestamp_seconds', 'mode="audit"')] == 1795845600
    assert os.listdir(str(textfile_dir)) == ['iotune.prom']


def test_check_mode_writes_nothing(tmp_path):
    path = write_textfile(str(tmp_path / 'textfile'), REPORT, None, check=True)
    assert path.endswith('/iotune.prom') and not os.path.exists(str(tmp_path / 'textfile'))


def test_a_directory_others_can_write_is_refused(tmp_path):
    shared = tmp_path / 'shared'
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(UnsafeDirectory, match=r'report\.textfile_dir: .* mode 0777'):
        write_textfile(str(shared), REPORT, None)
    assert os.listdir(str(shared)) == []


@pytest.mark.skipif(PROMTOOL is None, reason='promtool is not on PATH (make setup installs Debian\'s prometheus)')
def test_a_label_value_with_control_characters_or_a_byte_that_is_not_utf8_passes_promtool(tmp_path):
    """Issue 38, items 11 and 12: each shown as its escape, as junit.xml shows it."""
    report = dict(REPORT, run_id=u'r\x1b[31m\x01\x00-caf\udce9')
    data = write_textfile(str(tmp_path / 'textfile'), report, '')
    text = open(data, 'rb').read().decode('utf-8')
    assert u'run_id="r\\\\x1b[31m\\\\x01\\\\x00-caf\\\\xe9"' in text, text
    done = subprocess.run([PROMTOOL, 'check', 'metrics'], input=text, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, '', '')
