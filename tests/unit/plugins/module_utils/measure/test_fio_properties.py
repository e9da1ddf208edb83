# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property tests of the fio JSON parser (issue 18).

Whatever fio (or a broken fio, a full disk, a wrapper) prints, :func:`parse_fio_json` either
returns the documented shape or raises ValueError, the one exception the fio module turns into
``cannot read the fio output: ...``. The inputs are arbitrary text and bytes, arbitrary JSON,
the real fixtures under tests/unit/fixtures/fio mutated (values replaced, keys dropped, text
truncated or spliced), and the concatenated objects fio prints with ``--status-interval``.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import json
import math
import os

import pytest
from hypothesis import example, given, settings, strategies as st

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import METRICS, aggregate, parse_fio_json

FIXTURE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'fixtures', 'fio')
FIXTURES = sorted(name for name in os.listdir(FIXTURE_DIR) if name.endswith('.json'))
TEXTS = dict((name, open(os.path.join(FIXTURE_DIR, name)).read()) for name in FIXTURES)
DOCS = dict((name, json.loads(text[text.index('{'):])) for name, text in TEXTS.items()
            if name != 'fio-3.33-status-interval.json')

# the same examples every run; make fuzz (IOTUNE_FUZZ=1) draws many new ones
FAST = settings(max_examples=5000 if os.environ.get('IOTUNE_FUZZ') == '1' else 60,
                derandomize=os.environ.get('IOTUNE_FUZZ') != '1', deadline=None, database=None)

# JSON values as json.loads makes them, with the numbers that break naive code: huge ints,
# NaN and the infinities (json accepts NaN/Infinity), negative zero, booleans (ints in Python).
SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2 ** 63, max_value=2 ** 1100)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                    max_leaves=20)
# Keys and values fio JSON has, so mutations hit the paths the parser reads.
KEYS = st.sampled_from(['jobs', 'jobname', 'error', 'read', 'write', 'mixed', 'io_bytes', 'io_kbytes', 'bw_bytes', 'bw',
                        'iops', 'runtime', 'lat_ns', 'lat', 'clat_ns', 'clat', 'mean', 'percentile', '50.000000',
                        '95.000000', '99.000000', '99.900000', 'fio version']) | st.text(max_size=8)


def check_shape(result):
    """The documented result: numbers are finite ints/floats, never bools, NaN or infinities."""
    assert set(result) == {'fio_version', 'jobs'}
    assert result['fio_version'] is None or isinstance(result['fio_version'], str)
    assert isinstance(result['jobs'], list)
    for job in result['jobs']:
        assert set(job) == {'name', 'error', 'read', 'write'}
        assert isinstance(job['name'], str)
        assert isinstance(job['error'], int) and not isinstance(job['error'], bool)
        os.strerror(job['error'])  # what the module does with a job's error
        for direction in ('read', 'write'):
            section = job[direction]
            if section is None:
                continue
            assert set(section) == set(METRICS)
            for metric in METRICS:
                value = section[metric]
                if value is None:
                    assert metric == 'lat_mean_ns' or metric.startswith('clat_')
                    continue
                assert isinstance(value, (int, float)) and not isinstance(value, bool), (metric, value)
                assert math.isfinite(value), (metric, value)
    # the module aggregates the runs of a job next; that must not fail either
    if result['jobs']:
        aggregate([result, result])


def parse_or_value_error(text):
    try:
        result = parse_fio_json(text)
    except ValueError:
        return None
    check_shape(result)
    return result


# --------------------------------------------------------------------------- mutations

def _paths(value, prefix=()):
    """Every path (tuple of keys and indexes) into a JSON value, the root first."""
    yield prefix
    if isinstance(value, dict):
        for key in value:
            yield from _paths(value[key], prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, prefix + (index,))


def _mutate(doc, path, action, new_value, new_key):
    doc = copy.deepcopy(doc)
    if not path:
        return new_value if action == 'replace' else doc
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if action == 'replace':
        parent[last] = new_value
    elif action == 'delete':
        del parent[last]
    elif action == 'add' and isinstance(parent[last], dict):
        parent[last][new_key] = new_value
    return doc


@st.composite
def mutated_fixture(draw):
    name = draw(st.sampled_from(sorted(DOCS)))
    doc = DOCS[name]
    for dummy in range(draw(st.integers(min_value=1, max_value=3))):
        paths = list(_paths(doc))
        # the leaves deep in jobs[*].read/write matter most: weight towards long paths
        path = draw(st.sampled_from(paths) | st.sampled_from([path for path in paths if len(path) >= 3] or paths))
        action = draw(st.sampled_from(['replace', 'delete', 'add']))
        doc = _mutate(doc, path, action, draw(JSON), draw(KEYS))
    return doc


# --------------------------------------------------------------------------- properties

@FAST
@given(st.text(max_size=200))
@example('{"jobs": ' + '[' * 100000 + ']' * 100000 + '}')
@example('{' * 5000)
@example('{"jobs": [{"jobname": "j", "error": 0, "read": {"io_bytes": NaN, "bw_bytes": 1, "iops": 1, "runtime": 1}, '
         '"write": {"io_bytes": 0, "bw_bytes": 0, "iops": 0, "runtime": 0}}]}')
@example('{"jobs": [{"jobname": "j", "error": "28", "read": {"io_bytes": 0, "bw_bytes": 0, "iops": 0, "runtime": 0}, '
         '"write": {"io_bytes": 0, "bw_bytes": 0, "iops": 0, "runtime": 0}}]}')
def test_any_text_parses_or_raises_value_error(text):
    parse_or_value_error(text)


@FAST
@given(st.binary(max_size=200))
def test_any_bytes_parse_or_raise_value_error(data):
    parse_or_value_error(data)


@FAST
@given(st.one_of(st.none(), st.integers(), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers())))
def test_non_text_raises_value_error(value):
    with pytest.raises(ValueError):
        parse_fio_json(value)


@FAST
@given(JSON)
def test_any_json_value_parses_or_raises_value_error(value):
    parse_or_value_error(json.dumps(value))
    parse_or_value_error(json.dumps({'jobs': value}))
    parse_or_value_error(json.dumps({'jobs': [value]}))


def _job(jobname, error, read, write):
    return json.dumps({'fio version': 'fio-3.33', 'jobs': [{'jobname': jobname, 'error': error, 'read': read, 'write': write}]})


@FAST
@given(st.dictionaries(KEYS, JSON, max_size=8), st.dictionaries(KEYS, JSON, max_size=8), JSON, JSON)
@example({'io_bytes': 1, 'bw_bytes': float('inf'), 'iops': 1, 'runtime': 1}, {}, 'j', 0)
@example({'io_bytes': 2 ** 1100, 'bw_bytes': 1, 'iops': 1, 'runtime': 1}, {}, 'j', 0)
@example({'io_bytes': 1, 'bw': 2 ** 1100, 'iops': 1, 'runtime': 1}, {}, 'j', 0)
@example({'io_bytes': 1, 'bw_bytes': 1, 'iops': 1, 'runtime': 1, 'clat': {'percentile': {'99.000000': 1e308}}}, {}, 'j', 0)
@example({'io_bytes': 1, 'bw_bytes': 1, 'iops': 1, 'runtime': 1}, {}, ['not', 'a', 'name'], 0)
@example({'io_bytes': 1, 'bw_bytes': 1, 'iops': 1, 'runtime': 1}, {}, 'j', 2 ** 40)
@example({'io_bytes': 1, 'bw_bytes': 1, 'iops': 1, 'runtime': 1}, {}, 'j', 1.5)
def test_arbitrary_direction_sections_parse_or_raise_value_error(read, write, jobname, error):
    parse_or_value_error(_job(jobname, error, read, write))


@FAST
@given(mutated_fixture())
def test_mutated_fixtures_parse_or_raise_value_error(doc):
    parse_or_value_error(json.dumps(doc))


@FAST
@given(st.sampled_from(FIXTURES), st.data())
def test_truncated_and_spliced_fixtures_parse_or_raise_value_error(name, data):
    text = TEXTS[name]
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    parse_or_value_error(text[:cut])
    parse_or_value_error(text[cut:])
    junk = data.draw(st.text(max_size=20))
    parse_or_value_error(text[:cut] + junk + text[cut:])


NOISE = st.text(alphabet=st.characters(blacklist_characters='{', blacklist_categories=('Cs',)), max_size=40)


@FAST
@given(st.sampled_from(sorted(DOCS)), NOISE)
def test_noise_before_the_document_is_skipped(name, noise):
    clean = parse_fio_json(json.dumps(DOCS[name]))
    check_shape(clean)
    assert parse_fio_json(noise + '\n' + json.dumps(DOCS[name], indent=2)) == clean


@FAST
@given(st.lists(st.sampled_from(sorted(DOCS)), min_size=1, max_size=4), st.lists(NOISE, min_size=4, max_size=4),
       st.sampled_from(['', '\n', '{"no": "jobs"}\n']))
def test_concatenated_objects_give_the_last_report(names, noises, other):
    """fio --status-interval prints one object per interval and the final report last."""
    parts = []
    for index, name in enumerate(names):
        parts.append(noises[index] + json.dumps(DOCS[name], indent=1) + other)
    result = parse_fio_json(''.join(parts))
    check_shape(result)
    assert result == parse_fio_json(json.dumps(DOCS[names[-1]]))


_SECTION = '{"io_bytes": 1, "bw_bytes": 1, "iops": 1, "runtime": 1}'
_IDLE = '{"io_bytes": 0, "bw_bytes": 0, "iops": 0, "runtime": 0}'


def _raw(read=_SECTION, jobname='"j"', error='0', version='"fio-3.33"'):
    return '{"fio version": %s, "jobs": [{"jobname": %s, "error": %s, "read": %s, "write": %s}]}' % (
        version, jobname, error, read, _IDLE)


@pytest.mark.parametrize('text, message', [
    # RecursionError escaped from the JSON decoder
    ('{"jobs": ' + '[' * 100000 + ']' * 100000 + '}', 'no fio JSON document'),
    # NaN, infinities and numbers beyond 64 bits were returned as results (and broke formatting)
    (_raw(read=_SECTION.replace('"io_bytes": 1', '"io_bytes": NaN')), '"io_bytes" is not a finite number: nan'),
    (_raw(read=_SECTION.replace('"bw_bytes": 1', '"bw_bytes": -Infinity')), '"bw_bytes" is not a finite number'),
    (_raw(read=_SECTION.replace('"iops": 1', '"iops": 1' + '0' * 40)), '"iops" is out of range'),
    # a job's error went to os.strerror unchecked (TypeError, OverflowError in the module)
    (_raw(error='"28"'), '"error" is not an error number'),
    (_raw(error='1.5'), '"error" is not an error number'),
    (_raw(error='true'), '"error" is not an error number'),
    (_raw(error=str(2 ** 40)), '"error" is not an error number'),
    # names and the version are strings
    (_raw(jobname='["j"]'), '"jobname" is not a string'),
    (_raw(version='3.33'), '"fio version" is not a string'),
])
def test_regressions_raise_value_error(text, message):
    with pytest.raises(ValueError) as err:
        parse_fio_json(text)
    assert message in str(err.value)


def test_real_status_interval_output_gives_the_final_report():
    """fio-3.33 --status-interval=1 over a 3 s run: four objects, cumulative; the last is the result."""
    text = TEXTS['fio-3.33-status-interval.json']
    decoder = json.JSONDecoder()
    objects, pos = [], text.index('{')
    while pos != -1:
        doc, end = decoder.raw_decode(text, pos)
        objects.append(doc)
        pos = text.find('{', end)
    assert len(objects) == 4
    result = parse_fio_json(text)
    check_shape(result)
    final = objects[-1]['jobs'][0]['read']
    assert result['jobs'][0]['read']['runtime_ms'] == final['runtime'] == 3001
    assert result['jobs'][0]['read']['io_bytes'] == final['io_bytes']
    assert objects[0]['jobs'][0]['read']['runtime'] < final['runtime'], 'the first object is an interim status'
