# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HTML page of a search, from a real tune_io result (tests/unit/fixtures/tune/loop-read-ahead.json: read_ahead_kb
0 and 4096 against 2560 on an xfs loop device, 4 KiB buffered reads, 7 rounds): one chart per setting, every round a
dot, the outcomes named, every text escaped."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import json
import os
from html.parser import HTMLParser

from ansible_collections.iotune.storage.plugins.plugin_utils._tune_report import (
    format_figure, render_tune_report, setting_columns)

FIXTURE = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'tune', 'loop-read-ahead.json')


def load():
    with open(FIXTURE) as handle:
        return json.load(handle)


class Elements(HTMLParser):
    def __init__(self):
        HTMLParser.__init__(self)
        self.tags, self.texts, self.open = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in ('meta', 'circle', 'line'):
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in ('circle', 'line'):
            return
        assert self.open and self.open[-1] == tag, (self.open, tag)
        self.open.pop()

    def handle_data(self, data):
        self.texts.append(data)


def parse(page):
    parser = Elements()
    parser.feed(page)
    parser.close()
    assert parser.open == [], parser.open
    return parser


def test_the_real_search_has_one_chart_with_every_round():
    report = load()
    page = parse(render_tune_report(report))
    assert [tag for tag, dummy in page.tags].count('svg') == 1
    rounds = len(report['search']['rounds'])
    assert [tag for tag, dummy in page.tags].count('circle') == 3 * rounds
    text = ' '.join(page.texts)
    assert report['search']['msg'] in text
    assert 'read_ahead_kb' in text and '2560 (current)' in text
    assert 'worse, ' in text and 'no-difference, ' in text


def test_columns_follow_the_candidates():
    columns = setting_columns(load()['search'], 'read_ahead_kb')
    assert [column['label'] for column in columns] == ['2560 (current)', '0', '4096']
    assert [column['verdict'] is None for column in columns] == [True, False, False]
    assert all(len(column['values']) == 7 for column in columns)


def test_an_a_a_search_has_one_chart_of_the_current_value_against_itself():
    report = load()
    search = report['search']
    search['candidates'] = [{'name': 'current-again', 'setting': None, 'value': None}]
    for measured in search['rounds']:
        measured['current-again'] = measured.pop('read_ahead_kb=0')
        measured.pop('read_ahead_kb=4096')
    search['decision']['verdicts'] = [dict(search['decision']['verdicts'][1], candidate='current-again')]
    page = parse(render_tune_report(report))
    assert 'A/A: the current value against itself' in ' '.join(page.texts)
    assert [tag for tag, dummy in page.tags].count('circle') == 2 * len(search['rounds'])


def test_every_text_is_escaped():
    report = load()
    hostile = copy.deepcopy(report)
    hostile['host'] = '<script>alert(1)</script>'
    hostile['search']['msg'] = '</p><img src=x onerror=alert(1)>'
    hostile['search']['hardware'] = 'model "><svg onload=alert(1)>'
    page = render_tune_report(hostile)
    assert '<script>' not in page and '<img' not in page and '<svg onload' not in page
    parse(page)


def test_format_figure():
    assert format_figure(1048576 * 512, 'bw') == '512.0 MiB/s'
    assert format_figure(250000, 'lat') == '250.0 µs'
    assert format_figure(None, 'bw') == '-'


def test_the_page_says_what_the_search_reached_and_what_an_undecided_run_could_have_seen():
    from ansible_collections.iotune.storage.plugins.plugin_utils._tune_report import render_tune_report
    search = {'run_id': 'r', 'metric': 'bw', 'current': {'read_ahead_kb': 128}, 'msg': 'keep the current value',
              'candidates': [{'name': 'read_ahead_kb=4096', 'setting': 'read_ahead_kb', 'value': 4096}],
              'rounds': [{'current': 100.0, 'read_ahead_kb=4096': 150.0}, {'current': 120.0, 'read_ahead_kb=4096': 60.0}],
              'decision': {'rule': {'confidence': 0.95, 'resolution': 0.25, 'rounds': 2},
                           'verdicts': [{'candidate': 'read_ahead_kb=4096', 'outcome': 'undecided', 'effect': 1.0,
                                         'interval': [0.5, 1.5], 'detectable': 1.0}]},
              'reached': {'medium': 'memory', 'reasons': ['loop3 reads its backing file /img through the host\'s page cache'],
                          'fix': 'losetup --direct-io=on /dev/loop3'}}
    page = render_tune_report({'host': 'h', 'search': search})
    assert ('<p>MEMORY, not the disk: loop3 reads its backing file /img through the host&#x27;s page cache; to measure the disk: '
            'losetup --direct-io=on /dev/loop3</p>') in page
    assert 'undecided, 1.0x, seen 100 %' in page and 'fill="#9a6700"' in page
    assert 'no difference only where 0.25 would have been seen' in page
    search['reached'] = {'medium': 'device', 'chain': ['loop3', 'vda'], 'reasons': [], 'fix': None}
    assert '<p>measured: loop3 over vda</p>' in render_tune_report({'host': 'h', 'search': search})
