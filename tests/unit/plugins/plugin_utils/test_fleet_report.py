# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet files: summary.json, junit.xml and report.html for one host and for a thousand."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
from xml.etree import ElementTree

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import STATUSES
from ansible_collections.iotune.storage.plugins.plugin_utils import _fleet_report as fleet_report

RUN_ID = 'r-20261125T050000Z'
NOW = '2026-11-25T05:00:00Z'
DATA = re.compile(r'<script type="application/json" id="iotune-data">(.*?)</script>', re.S)
# scripts/setup puts the Jenkins schema in the .venv the tests run with
XSD = os.path.join(sys.prefix, 'share', 'iotune', 'junit-10.xsd')
CHROMIUM = shutil.which('chromium')
# --dump-dom alone dumps at the load event, before a big page has inflated its data (a promise); with a
# virtual time budget Chromium dumps once the page has nothing left to do (the budget is a ceiling)
VIRTUAL_TIME = '--virtual-time-budget=60000'
# (concern, target, setting) of the 15 checks every synthetic host has
SETTINGS = [('cache_limits', 'sysctl', 'vm.' + name) for name in (
    'dirty_ratio', 'dirty_background_ratio', 'dirty_expire_centisecs', 'dirty_writeback_centisecs', 'vfs_cache_pressure')] + \
    [('mount_options', '/data%d' % n, 'present:noatime') for n in range(4)] + \
    [('block_queue', 'vd%s' % letter, 'read_ahead_kb') for letter in 'bcd'] + \
    [('tunefstab', '/dev/vx/dsk/dg/vol%d' % n, 'write_pref_io') for n in range(2)] + \
    [('copy_tools', '/usr/local/bin/iotune-copy', 'content')]


def check(concern, target, setting, status, message, **extra):
    return dict({'id': '%s:%s:%s' % (concern, target, setting), 'concern': concern, 'target': target, 'setting': setting,
                 'expected': 40, 'live': 20, 'persistent': None, 'status': status, 'message': message}, **extra)


def report(host, checks, mode='audit'):
    summary = dict((status, sum(1 for c in checks if c['status'] == status)) for status in STATUSES)
    return {'host': host, 'run_id': RUN_ID, 'time': NOW, 'mode': mode, 'summary': summary, 'checks': checks}


# 20 checks a host: five more block-queue settings
SETTINGS_20 = SETTINGS + [('block_queue', 'vd%s' % letter, setting) for letter in 'bc'
                          for setting in ('nr_requests', 'scheduler')] + [('block_queue', 'vdd', 'nr_requests')]


def page_data_of(html):
    """The page's data, from its JSON element or its gzipped one."""
    found = DATA.search(html)
    if found:
        return json.loads(found.group(1))
    packed = re.search(r'<script type="application/octet-stream" id="iotune-data-gz">([A-Za-z0-9+/=]*)</script>', html)
    return json.loads(gzip.decompress(base64.b64decode(packed.group(1))).decode('utf-8'))


def fleet(count=1000, settings=None):
    """count hosts x 15 checks (or ``settings``); host i drifts on vm.dirty_ratio when i % 27 == 0 (37 of 1,000),
    some checks are not persistent, errors or not applicable, and every message names its host."""
    reports = []
    for i in range(count):
        host = 'db%04d.prod.example.com' % i
        checks = []
        for n, (concern, target, setting) in enumerate(settings or SETTINGS):
            status = 'compliant'
            if n == 0 and i % 27 == 0:
                status = 'drift'
            elif n == 5 and i % 10 == 3:
                status = 'not_persistent'
            elif n == 9 and i % 100 == 7:
                status = 'error'
            elif concern == 'tunefstab' and i % 2:
                status = 'not_applicable'
            message = ('%s of %s on %s is %s: live 20 since the last boot, the persistent source %s sets nothing, and '
                       'the policy asks for 40 (a long message that must wrap rather than scroll)'
                       % (setting, target, host, status, '/etc/sysctl.d/60-iotune.conf'))
            checks.append(check(concern, target, setting, status, message))
        reports.append(report(host, checks))
    return reports


def test_summary_counts_every_check_and_host():
    reports = fleet(30)
    summary = json.loads(fleet_report.summary_json(reports, RUN_ID, NOW))
    assert summary['hosts'] == 30 and summary['run_id'] == RUN_ID and summary['kind'] == 'iotune.storage audit'
    assert len(summary['checks']) == 30 * 15 and sum(summary['summary'].values()) == 30 * 15
    assert summary['summary']['drift'] == 2 and summary['summary']['not_persistent'] == 3
    assert summary['by_host']['db0000.prod.example.com']['drift'] == 1
    assert summary['benchmarks'] == {} and 'changed' not in summary['summary']


def test_summary_counts_changes_after_enforcing():
    checks = [check('mount_options', '/d', 'x', 'compliant', 'm', changed=True, status_before='drift'),
              check('mount_options', '/e', 'x', 'compliant', 'm', changed=False, status_before='compliant')]
    summary = json.loads(fleet_report.summary_json([report('h', checks, mode='harden')], RUN_ID, NOW))
    assert summary['summary']['changed'] == 1 and summary['kind'] == 'iotune.storage harden'


def test_junit_has_a_case_per_check_and_fails_drift():
    reports = fleet(30)
    root = ElementTree.fromstring(fleet_report.junit_xml(reports, RUN_ID))
    assert root.get('tests') == '450' and root.get('failures') == '5' and root.get('errors') == '1'
    suites = root.findall('testsuite')
    assert len(suites) == 30 and suites[0].get('hostname') == 'db0000.prod.example.com'
    assert suites[0].get('skipped') == '0' and suites[1].get('skipped') == '2'
    failure = suites[0].find('testcase/failure')
    assert failure.get('type') == 'drift' and failure.text == 'expected: 40; live: 20; persistent: null'


def test_hostile_names_and_messages_are_escaped():
    evil = u'<script>alert("x")</script> & \u00e9'
    checks = [check('mount_options', evil, 'present:noatime', 'drift', evil)]
    reports = [report(u'h<img src=x onerror=alert(1)>', checks)]
    html = fleet_report.report_html(reports, RUN_ID + '<b>')
    assert '<script>alert' not in html and '<img' not in html and 'r-20261125T050000Z&lt;b&gt;' in html
    data = page_data_of(html)
    assert data['hosts'] == [u'h<img src=x onerror=alert(1)>'] and evil in data['strings']
    junit = fleet_report.junit_xml(reports, RUN_ID)
    root = ElementTree.fromstring(junit)
    assert root.find('testsuite').get('name') == u'h<img src=x onerror=alert(1)>'
    assert root.find('testsuite/testcase/failure').get('message') == evil


def test_empty_fleet():
    files = fleet_report.render([], '', NOW)
    assert json.loads(files['summary.json'])['hosts'] == 0
    assert ElementTree.fromstring(files['junit.xml']).get('tests') == '0'
    assert page_data_of(files['report.html'])['checks'] == []


def test_repeated_text_is_stored_once():
    html = fleet_report.report_html(fleet(200), RUN_ID)
    data = page_data_of(html)
    assert len(data['checks']) == 3000
    assert len([s for s in data['strings'] if s.startswith('cache_limits:sysctl:')]) == 5     # ids once each


def _render_fleet(directory, reports, label):
    start = time.monotonic()
    files = fleet_report.render(reports, RUN_ID, NOW)
    seconds = time.monotonic() - start
    for name, text in files.items():
        (directory / name).write_text(text, encoding='utf-8')
    print('\n%s rendered in %.2f s; report.html %.2f MB, summary.json %.1f MB, junit.xml %.1f MB' % (
        label, seconds, (directory / 'report.html').stat().st_size / 1e6, (directory / 'summary.json').stat().st_size / 1e6,
        (directory / 'junit.xml').stat().st_size / 1e6))
    return directory


@pytest.fixture(scope='module', name='thousand')
def thousand_fixture(tmp_path_factory):
    return _render_fleet(tmp_path_factory.mktemp('fleet'), fleet(1000), '1,000 hosts x 15 checks')


@pytest.fixture(scope='module', name='ten_thousand')
def ten_thousand_fixture(tmp_path_factory):
    return _render_fleet(tmp_path_factory.mktemp('fleet10k'), fleet(10000, SETTINGS_20), '10,000 hosts x 20 checks')


def test_a_thousand_hosts_fit_in_five_megabytes(thousand):
    assert (thousand / 'report.html').stat().st_size < 5 * 1000 * 1000
    summary = json.loads((thousand / 'summary.json').read_text())
    assert summary['hosts'] == 1000 and len(summary['checks']) == 15000 and summary['summary']['drift'] == 38


def test_ten_thousand_hosts_fit_in_twenty_megabytes_and_the_page_holds_every_check(ten_thousand):
    assert (ten_thousand / 'report.html').stat().st_size < 20 * 1000 * 1000
    data = page_data_of((ten_thousand / 'report.html').read_text())
    assert len(data['hosts']) == 10000 and len(data['checks']) == 200000
    summary = json.loads((ten_thousand / 'summary.json').read_text())
    assert summary['hosts'] == 10000 and len(summary['checks']) == 200000 and summary['summary']['drift'] == 371


def _valid_junit(directory):
    done = subprocess.run(['xmllint', '--noout', '--huge', '--schema', XSD, str(directory / 'junit.xml')],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.skipif(not (shutil.which('xmllint') and os.path.exists(XSD)),
                    reason='xmllint or junit-10.xsd missing (make setup installs both)')
def test_a_thousand_hosts_junit_is_valid(thousand):
    _valid_junit(thousand)


@pytest.mark.skipif(not (shutil.which('xmllint') and os.path.exists(XSD)),
                    reason='xmllint or junit-10.xsd missing (make setup installs both)')
def test_ten_thousand_hosts_junit_is_valid(ten_thousand):
    _valid_junit(ten_thousand)


def _dump_dom(page, tmp_path):
    """The DOM of ``page`` (a file:// URL) once its script is done, in headless Chromium; no script error."""
    argv = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--user-data-dir=%s' % (tmp_path / 'profile'),
            '--enable-logging=stderr', '--v=0', VIRTUAL_TIME, '--dump-dom', page]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True, env=dict(os.environ, HOME=str(tmp_path)))
    assert 'Uncaught' not in done.stderr
    return done.stdout


def _load_in_chromium(directory, tmp_path):
    """The page's DOM after its script built the views, and the milliseconds from the start of the
    navigation to the views built (the page's data-loaded-ms: loading, inflating, parsing, building)."""
    start = time.monotonic()
    dom = _dump_dom('file://%s' % (directory / 'report.html'), tmp_path)
    wall = time.monotonic() - start
    loaded = re.search(r'data-loaded-ms="(\d+)"', dom)
    assert loaded, dom[:500]
    print('\nchromium: the page loaded and built its views %s ms after the navigation started (render %s ms); '
          '--dump-dom took %.2f s in all' % (loaded.group(1), re.search(r'data-render-ms="(\d+)"', dom).group(1), wall))
    return dom, int(loaded.group(1))


@pytest.mark.skipif(CHROMIUM is None, reason='chromium is not on PATH (make setup installs it)')
def test_a_thousand_hosts_load_in_chromium_in_under_three_seconds(thousand, tmp_path):
    dom, loaded = _load_in_chromium(thousand, tmp_path)
    assert 'data-rendered="15000"' in dom and loaded < 3000
    # the fleet view: vm.dirty_ratio drifts on 38 of the 1,000 hosts (i % 27 == 0), one click from the hosts
    assert 'drift on 38 of 1,000 hosts' in dom
    assert '<a class="count" data-key=' in dom
    # the host list: the worst hosts first, a hundred per page
    assert 'hosts 1-100 of 1,000' in dom


@pytest.mark.skipif(CHROMIUM is None, reason='chromium is not on PATH (make setup installs it)')
def test_ten_thousand_hosts_load_in_chromium_in_under_three_seconds(ten_thousand, tmp_path):
    dom, loaded = _load_in_chromium(ten_thousand, tmp_path)
    assert 'data-rendered="200000"' in dom and loaded < 3000
    assert 'drift on 371 of 10,000 hosts' in dom and 'hosts 1-100 of 10,000' in dom


WAIVER = {'name': 'w1', 'reason': 'vendor sign-off pending', 'owner': 'dba', 'expires': '2026-12-08', 'days_left': 10}


def waived_fleet():
    checks = [check('mount_options', '/data', 'noatime', 'drift', 'm', waiver=WAIVER),
              check('mount_options', '/srv', 'noatime', 'drift', 'm'),
              check('cache_limits', 'sysctl', 'vm.dirty_ratio', 'not_persistent', 'm',
                    waiver_expired=dict(WAIVER, days_left=-1))]
    host = dict(report('h1', checks), waivers=[dict(WAIVER, status='active', matched=['mount_options:/data:noatime'])])
    return [host, report('h2', [check('mount_options', '/data', 'noatime', 'compliant', 'm')])]


def test_a_waived_check_keeps_its_status_in_the_summary_and_is_counted_waived():
    summary = json.loads(fleet_report.summary_json(waived_fleet(), RUN_ID, NOW))
    assert summary['summary']['drift'] == 2 and summary['summary']['waived'] == 1
    assert summary['waivers'] == {'h1': waived_fleet()[0]['waivers']}
    assert summary['checks'][0]['waiver'] == WAIVER


@pytest.mark.skipif(not (shutil.which('xmllint') and os.path.exists(XSD)),
                    reason='xmllint or junit-10.xsd missing (make setup installs both)')
def test_a_waived_check_is_skipped_in_junit_not_failed(tmp_path):
    junit = fleet_report.junit_xml(waived_fleet(), RUN_ID)
    root = ElementTree.fromstring(junit)
    assert root.get('failures') == '2'     # /srv's drift and the check whose waiver expired
    suite = root.find('testsuite')
    assert suite.get('failures') == '2' and suite.get('skipped') == '1'
    skipped = suite.find('testcase/skipped')
    assert skipped.get('type') == 'waived'
    assert skipped.get('message') == 'drift, waived until 2026-12-08 (10 days left) by dba: vendor sign-off pending'
    (tmp_path / 'junit.xml').write_text(junit)
    done = subprocess.run(['xmllint', '--noout', '--schema', XSD, str(tmp_path / 'junit.xml')],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_page_carries_each_waiver_as_its_text():
    data = page_data_of(fleet_report.report_html(waived_fleet(), RUN_ID))
    waived, plain = data['checks'][0], data['checks'][1]
    assert data['strings'][waived[12]] == 'waived until 2026-12-08 (10 days left) by dba: vendor sign-off pending'
    assert plain[12] == -1


def test_the_reports_carry_the_severity():
    checks = [check('mount_options', '/data', 'absent:sync', 'drift', 'sync is on', severity='high'),
              check('block_queue', 'sdb', 'scheduler', 'drift', 'm', severity='low'),
              check('block_queue', 'sdc', 'scheduler', 'drift', 'm', severity='low', waiver=WAIVER),
              check('cache_limits', 'sysctl', 'vm.dirty_ratio', 'compliant', 'm', severity='medium')]
    reports = [report('h1', checks)]
    summary = json.loads(fleet_report.summary_json(reports, RUN_ID, NOW))
    assert summary['failing_by_severity'] == {'low': 1, 'medium': 0, 'high': 1}
    failure = ElementTree.fromstring(fleet_report.junit_xml(reports, RUN_ID)).find('testsuite/testcase/failure')
    assert failure.get('message') == '[high] sync is on'
    data = page_data_of(fleet_report.report_html(reports, RUN_ID))
    assert data['severities'] == ['low', 'medium', 'high']
    assert [row[13] for row in data['checks']] == [2, 0, 0, 1]


@pytest.mark.skipif(CHROMIUM is None, reason='chromium is not on PATH (make setup installs it)')
def test_the_page_sorts_by_severity_and_a_link_filters_by_it(tmp_path):
    def host(name, sync):
        return report(name, [check('block_queue', 'sdb', 'scheduler', 'drift', 'm', severity='low'),
                             check('block_queue', 'sdc', 'scheduler', 'drift', 'm', severity='low'),
                             check('mount_options', '/data', 'absent:sync', sync, 'm', severity='high'),
                             check('cache_limits', 'sysctl', 'vm.dirty_ratio', 'compliant', 'm', severity='medium')])
    # the low-severity settings drift on three hosts, sync on one: the high one still comes first
    fleet_report.write_reports(str(tmp_path / 'r'), [host('h1', 'drift'), host('h2', 'compliant'), host('h3', 'compliant')],
                               now=NOW)
    page = 'file://%s' % (tmp_path / 'r' / 'report.html')
    dom = _dump_dom(page, tmp_path)
    body = dom.split('id="fleet-body">')[1].split('</tbody>')[0]
    assert re.findall(r'data-severity="(\w+)"', body) == ['high', 'low', 'low', 'medium'], body
    assert 'mount_options:/data:absent:sync</code> <span class="severity sev-high">high</span>' in body
    dom = _dump_dom(page + '#severity=high,medium', tmp_path)
    body = dom.split('id="fleet-body">')[1].split('</tbody>')[0]
    assert re.findall(r'data-severity="(\w+)"', body) == ['high', 'medium'], body
    assert 'data-severity="low">' in dom and 'data-severity="low" checked' not in dom
    # the host list counts only the checks of the severities shown: h1 has its sync drift, the others none
    hosts = dom.split('id="hosts-body">')[1].split('</tbody>')[0]
    assert re.findall(r'data-host="\d+">(h\d)</a></td><td class="num">(\d+)</td><td class="num">(\d+)', hosts) == [
        ('h1', '1', '1'), ('h2', '2', '0'), ('h3', '2', '0')], hosts


FIX = {'changes': ['/etc/fstab line 4 becomes: /dev/sdb /data xfs noatime 0 2', 'mount -o remount,noatime /data'],
       'needs': 'remount', 'text': 'a remount (harden_io makes it; the file system stays mounted)'}


def test_the_fix_of_a_finding_is_in_junit_and_the_page():
    reports = [report('h1', [check('mount_options', '/data', 'present:noatime', 'drift', 'noatime is missing', fix=FIX),
                             check('mount_options', '/srv', 'present:noatime', 'compliant', 'fine')])]
    failure = ElementTree.fromstring(fleet_report.junit_xml(reports, RUN_ID)).find('testsuite/testcase/failure')
    assert failure.text.endswith('\nharden_io would: /etc/fstab line 4 becomes: /dev/sdb /data xfs noatime 0 2; '
                                 'mount -o remount,noatime /data. Needs: a remount (harden_io makes it; the file system stays mounted)')
    data = page_data_of(fleet_report.report_html(reports, RUN_ID))
    assert data['strings'][data['checks'][0][14]].startswith('harden_io would: /etc/fstab line 4 becomes')
    assert data['checks'][1][14] == -1


@pytest.mark.skipif(CHROMIUM is None, reason='chromium is not on PATH (make setup installs it)')
def test_a_link_opens_a_host_with_the_fix_under_each_finding(tmp_path):
    reports = [report('h1', [check('mount_options', '/data', 'present:noatime', 'drift', 'noatime is missing', fix=FIX)]),
               report('h<2>', [check('mount_options', '/data', 'present:noatime', 'compliant', 'fine')])]
    fleet_report.write_reports(str(tmp_path / 'r'), reports, now=NOW)
    dom = _dump_dom('file://%s#host=h1' % (tmp_path / 'r' / 'report.html'), tmp_path)
    view = dom.split('<div id="host-view"')[1].split('</table></div>')[0]
    assert 'hidden' not in view.split('>')[0] and 'h1: 1 check(s) shown' in view
    assert ('<td class="message">noatime is missing<div class="fix">harden_io would: /etc/fstab line 4 becomes: '
            '/dev/sdb /data xfs noatime 0 2; mount -o remount,noatime /data. Needs: a remount') in view


# issue 38, item 11: texts XML 1.0 forbids, in every field a host can fill
HOSTILE_WAIVER = dict(WAIVER, reason=u'signed off\x00by\x07nobody', owner=u'db\x1ba')


def hostile_fleet():
    mount = u'/mnt/\x1b[31mred\x0b\x0c'
    checks = [check('mount_options', mount, 'present:noatime', 'drift', u'noatime is not on %s (fstab: caf\udce9)' % mount),
              check('mount_options', mount, 'absent:sync', 'drift', u'sync\x1f', waiver=HOSTILE_WAIVER),
              check('block_queue', u'sd\x7f', 'scheduler', 'error', u'\ufffe\uffff no such'),
              check('cache_limits', 'sysctl', 'vm.dirty_ratio', 'not_applicable', u'\x08')]
    return [report(u'web\x01', checks), report(u'caf\udce9', [check('mount_options', '/', 'present:noatime', 'compliant', 'm')])]


@pytest.mark.skipif(not (shutil.which('xmllint') and os.path.exists(XSD)),
                    reason='xmllint or junit-10.xsd missing (make setup installs both)')
def test_control_characters_and_bytes_that_are_not_utf8_leave_junit_well_formed_and_shown(tmp_path):
    # the control characters alone (no byte that is not UTF-8): XML 1.0 forbids them
    (tmp_path / 'controls.xml').write_text(fleet_report.junit_xml(hostile_fleet()[:1], RUN_ID).replace(u'\udce9', u'e'))
    done = subprocess.run(['xmllint', '--noout', '--schema', XSD, str(tmp_path / 'controls.xml')],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    fleet_report.write_reports(str(tmp_path), hostile_fleet(), now=NOW)
    done = subprocess.run(['xmllint', '--noout', '--schema', XSD, str(tmp_path / 'junit.xml')],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    root = ElementTree.parse(str(tmp_path / 'junit.xml')).getroot()
    suites = root.findall('testsuite')
    # by host name, whatever the order given
    assert [suite.get('hostname') for suite in suites] == ['caf\\xe9', 'web\\x01']
    cases = suites[1].findall('testcase')
    assert cases[0].get('name') == 'mount_options:/mnt/\\x1b[31mred\\x0b\\x0c:present:noatime'
    assert cases[0].find('failure').get('message') == 'noatime is not on /mnt/\\x1b[31mred\\x0b\\x0c (fstab: caf\\xe9)'
    assert cases[1].find('skipped').get('message').endswith('by db\\x1ba: signed off\\x00by\\x07nobody')
    assert cases[2].find('error').get('message') == '\\ufffe\\uffff no such'
    assert cases[3].find('skipped').get('message') == '\\x08'
    # summary.json keeps the texts as they are (JSON can), but a byte that was not UTF-8 is shown
    summary = json.loads((tmp_path / 'summary.json').read_bytes().decode('utf-8'))
    assert summary['checks'][1]['target'] == u'/mnt/\x1b[31mred\x0b\x0c'
    assert summary['checks'][1]['message'].endswith('(fstab: caf\\xe9)')
    assert sorted(summary['by_host']) == [u'caf\\xe9', u'web\x01']
    # the page data: every text shown as junit.xml shows it
    data = page_data_of((tmp_path / 'report.html').read_bytes().decode('utf-8'))
    assert data['hosts'] == ['caf\\xe9', 'web\\x01']
    assert 'mount_options:/mnt/\\x1b[31mred\\x0b\\x0c:present:noatime' in data['strings']


@pytest.mark.skipif(CHROMIUM is None, reason='chromium is not on PATH (make setup installs it)')
def test_the_page_of_a_hostile_fleet_loads_and_shows_the_escapes(tmp_path):
    fleet_report.write_reports(str(tmp_path / 'r'), hostile_fleet(), now=NOW)
    # the host view of web\x01 open: its checks, the waiver's text among them
    dom = _dump_dom('file://%s#host=web%%5Cx01' % (tmp_path / 'r' / 'report.html'), tmp_path)
    assert 'data-rendered="5"' in dom
    assert 'web\\x01' in dom and 'caf\\xe9' in dom
    assert 'by db\\x1ba: signed off\\x00by\\x07nobody' in dom
    assert 'mount_options:/mnt/\\x1b[31mred\\x0b\\x0c:present:noatime' in dom


# ---------------------------------------------------------------------------- a measurement (benchmark_io.yml, issue 54)

MIB = 1048576
LOOP_REASON = "loop0 reads its backing file /var/tmp/disk.img through the host's page cache (direct I/O off)"
LOOP_FIX = 'measure a file system on a real disk, or a file larger than twice the RAM'
LOOP = {'medium': 'memory', 'reasons': [LOOP_REASON], 'fix': LOOP_FIX, 'device': 'loop0', 'chain': ['loop0']}
SDB = {'medium': 'device', 'reasons': [], 'fix': None, 'device': 'sdb', 'chain': ['sdb']}


def fio_job(name, cv, reached):
    read = {'bw_bytes': 100 * MIB, 'iops': 25600.0, 'lat_mean_ns': 7800, 'clat_mean_ns': 7100, 'clat_p50_ns': 6000,
            'clat_p95_ns': 9000, 'clat_p99_ns': 12000, 'clat_p999_ns': 20000}
    return {'name': name, 'preset': name, 'rw': 'read', 'direct': True, 'cache_suspect': reached['medium'] == 'memory',
            'reached': {'medium': reached['medium'], 'reasons': reached['reasons'], 'fix': reached['fix']},
            'read': read, 'write': None, 'cov': {'read': {'bw_bytes': cv}, 'write': None},
            'bw_range': {'read': [90 * MIB, 110 * MIB], 'write': None}}


def measured(host, reached, cv=0.02):
    """A benchmark_io.yml host report: no checks, a benchmark of one phase (run)."""
    benchmark = {'threshold_pct': 10, 'noise_factor': 2, 'rollback_on_regression': False, 'phases': ['run'],
                 'results': {'run': {'fio_version': 'fio-3.33', 'wall_s': 31.0, 'reached': reached,
                                     'results': [fio_job('seq-read', cv, reached)]}},
                 'comparison': [], 'regressions': [], 'recovery': [], 'rolled_back': False, 'recovered': None}
    return dict(report(host, [], mode='benchmark'), benchmark=benchmark)


def test_the_page_of_a_measurement_counts_its_hosts_once():
    html = fleet_report.report_html([measured('vm1', LOOP, cv=0.44)], RUN_ID)
    # no views of checks, which counted the hosts with a check (0) under the hosts of the run (1)
    for absent in ('id="hosts-pager"', 'id="fleet"', 'id="filters"', '<script'):
        assert absent not in html, absent
    assert re.findall(r'(\d+) (?:of (\d+) )?host\(s\)', html) == [('1', ''), ('1', '1'), ('1', '')]
    assert ('<p class="meta" id="no-checks">A measurement: no setting was checked; 1 of 1 host(s) measured, below.</p>'
            in html)


def test_the_page_marks_memory_and_shows_the_spread_and_verdict_beside_each_median():
    html = fleet_report.report_html([measured('vm1', LOOP, cv=0.44), measured('db1', SDB)], RUN_ID)
    assert ('<p class="bench-reached memory">run measured: MEMORY, not the disk: %s; fix: %s</p>'
            % (esc(LOOP_REASON), LOOP_FIX)) in html
    assert '<p class="bench-reached">run measured: sdb</p>' in html
    assert html.count('<span class="flag memory">&#9888; MEMORY, not the disk</span>') == 1
    assert (u'<tr class="verdict-memory"><td>run</td><td>100 MiB/s</td><td>\u00b1 44.0 %% (min 90 MiB/s, max 110 MiB/s)</td>'
            u'<td>25.6k IOPS</td><td>completion latency mean 7.1 \u00b5s, p50 6 \u00b5s, p99 12 \u00b5s</td><td>'
            u'<span class="verdict memory">MEMORY, not the disk: %s; fix: %s</span></td></tr>' % (esc(LOOP_REASON), LOOP_FIX)) in html
    assert (u'<tr class="verdict-steady"><td>run</td><td>100 MiB/s</td><td>\u00b1 2.0 % (min 90 MiB/s, max 110 MiB/s)</td>'
            u'<td>25.6k IOPS</td><td>completion latency mean 7.1 \u00b5s, p50 6 \u00b5s, p99 12 \u00b5s</td><td>'
            u'<span class="verdict steady">steady: a comparison sees changes over 10 %</span></td></tr>') in html
    # the fleet view's row says it too
    assert u'single run \u00b7 MEMORY, not the disk</text>' in html


def esc(text):
    return text.replace("'", '&#39;')


def test_the_console_of_a_measurement_says_what_each_host_measured():
    reports = [measured('vm1', LOOP, cv=0.44), measured('db1', SDB), report('db2', [], mode='benchmark')]
    found = fleet_report.console(reports, '/srv/reports')
    assert (found['hosts'], found['measured'], found['lines']) == (3, 2, [])
    assert found['measurements'] == [
        u'vm1 (MEMORY, not the disk: %s; fix: %s): seq-read read 100 MiB/s \u00b1 44.0 %%, completion p99 12 \u00b5s, '
        u'MEMORY' % (LOOP_REASON, LOOP_FIX),
        u'db1 (sdb): seq-read read 100 MiB/s \u00b1 2.0 %, completion p99 12 \u00b5s, steady: a comparison sees changes '
        u'over 10 %',
        u'db2: not measured']
    # at most the limit, then where the rest are
    assert fleet_report.console(reports, '/srv/reports', limit=1)['measurements'][1:] == [
        '... and 2 more: see /srv/reports/report.html']
    # an audit's console is as it was
    assert set(fleet_report.console([report('a', [])], '/srv/reports')) == {'hosts', 'summary', 'lines'}


def test_a_measurement_in_check_mode_measured_no_host():
    found = fleet_report.console([report('vm1', [], mode='benchmark')], '/srv/reports')
    assert (found['measured'], found['measurements']) == (0, ['vm1: not measured'])


NODE = shutil.which('node')
# just enough of a DOM for the page's script: its views as innerHTML strings
FAKE_DOM = u'''
var elements = {};
function element(id) {
  if (!elements[id]) {
    elements[id] = {id: id, innerHTML: '', textContent: '', hidden: true, dataset: {},
                    addEventListener: function () {}, scrollIntoView: function () {}};
  }
  return elements[id];
}
var data = element('iotune-data');
data.textContent = %s;
global.document = {getElementById: element, body: {setAttribute: function () {}}};
global.location = {hash: ''};
global.performance = {now: function () { return 0; }};
%s
console.log(JSON.stringify(element('hosts-pager').innerHTML));
'''


@pytest.mark.skipif(NODE is None, reason='node is not on PATH')
def test_the_host_list_says_how_many_hosts_of_the_run_it_shows():
    def pager(reports):
        html = fleet_report.report_html(reports, RUN_ID)
        script = re.search(r'<script>(.*?)</script>', html, re.S).group(1)
        data = json.dumps(json.dumps(page_data_of(html)))
        done = subprocess.run([NODE, '-e', FAKE_DOM % (data, script)], capture_output=True, text=True, timeout=60, check=True)
        return json.loads(done.stdout)
    # a host with a drift and one with no check (a measurement only, or nothing applicable)
    assert pager([report('a', [check('block_queue', 'sdb', 'scheduler', 'drift', 'm')]), report('b', [])]) == (
        '1 of 2 host(s) shown: the others have no check the filters show')
    assert pager([report('a', [check('block_queue', 'sdb', 'scheduler', 'drift', 'm')])]) == '1 host(s)'
