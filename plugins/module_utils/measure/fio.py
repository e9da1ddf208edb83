# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""fio helpers for the ``iotune.storage.fio`` module (pure, no AnsibleModule).

* :func:`parse_fio_json` turns ``fio --output-format=json`` output (fio 2.x and 3.x) into
  one normalised shape: bytes/s, nanoseconds, bytes, milliseconds.
* :func:`aggregate` summarises ``repeat`` runs of the same jobs (median and coefficient
  of variation per metric).
* :func:`build_argv` builds the fio argument list (never a shell string) for a preset.
* :func:`cache_suspect` flags buffered runs whose working set fits in the page cache.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import math
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.units import format_bytes, to_bytes

DIRECTIONS = ('read', 'write')

# Metrics of one direction, in output order. Units: bytes/s, IO/s, ns, bytes, ms.
METRICS = (
    'bw_bytes', 'iops', 'lat_mean_ns', 'clat_mean_ns',
    'clat_p50_ns', 'clat_p95_ns', 'clat_p99_ns', 'clat_p999_ns',
    'io_bytes', 'runtime_ms',
)

_PERCENTILES = (
    ('clat_p50_ns', '50.000000'),
    ('clat_p95_ns', '95.000000'),
    ('clat_p99_ns', '99.000000'),
    ('clat_p999_ns', '99.900000'),
)


# --------------------------------------------------------------------------- parsing

def _find_document(text):
    """Return the last JSON object in ``text`` that has a ``jobs`` key.

    fio prints warnings such as ``fio: ...`` (and with some options plain text) before the
    JSON document, so every ``{`` is tried as a start until one decodes. With
    ``--status-interval`` fio prints one object per interval, each with the totals so far, and
    the final report last: the last object is the result. Input nested too deeply for the
    decoder counts as not decodable.
    """
    decoder = json.JSONDecoder()
    found = None
    pos = text.find('{')
    while pos != -1:
        try:
            doc, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            doc = None
        if isinstance(doc, dict) and 'jobs' in doc:
            found = doc
            pos = text.find('{', end)
        else:
            pos = text.find('{', pos + 1)
    if found is None:
        raise ValueError('no fio JSON document (an object with a "jobs" list) found in the output; '
                         'was fio run with --output-format=json?')
    return found


# fio's counters are 64-bit; anything beyond is not a value fio printed.
_NUMBER_LIMIT = 2 ** 64
# A job's error is a C int (an errno, 0 for none).
_ERROR_LIMIT = 2 ** 31


def _number(section, key, where):
    if key not in section:
        raise ValueError('{0}: missing "{1}"'.format(where, key))
    value = section[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError('{0}: "{1}" is not a number: {2!r}'.format(where, key, value))
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError('{0}: "{1}" is not a finite number: {2!r}'.format(where, key, value))
    if abs(value) >= _NUMBER_LIMIT:
        raise ValueError('{0}: "{1}" is out of range (beyond 2^64): {2!r}'.format(where, key, value))
    return value


def _direction(data, where):
    """Normalise one ``read``/``write`` section; None when it did no I/O."""
    if not isinstance(data, dict):
        raise ValueError('{0}: expected an object, got {1!r}'.format(where, data))
    io_bytes = _number(data, 'io_bytes', where)
    if 'io_kbytes' not in data:
        # fio 2.x: "io_bytes" held KiB despite its name (io_kbytes came with the fix in 3.x).
        io_bytes *= 1024
    if io_bytes == 0:
        return None
    if 'bw_bytes' in data:
        bw_bytes = _number(data, 'bw_bytes', where)
    elif 'bw' in data:
        # fio before bw_bytes existed reported only "bw" in KiB/s.
        bw_bytes = _number(data, 'bw', where) * 1024
    else:
        raise ValueError('{0}: missing "bw_bytes" (fio >= 3) and "bw" (older fio, KiB/s)'.format(where))
    result = {
        'bw_bytes': bw_bytes,
        'iops': _number(data, 'iops', where),
        'io_bytes': io_bytes,
        'runtime_ms': _number(data, 'runtime', where),
        'lat_mean_ns': None,
        'clat_mean_ns': None,
    }
    # fio >= 3.0 reports nanoseconds in *_ns; fio 2.x reported microseconds without suffix.
    if isinstance(data.get('lat_ns'), dict):
        lat, lat_scale = data['lat_ns'], 1
    elif isinstance(data.get('lat'), dict):
        lat, lat_scale = data['lat'], 1000
    else:
        lat, lat_scale = None, 1
    if lat is not None and 'mean' in lat:
        result['lat_mean_ns'] = _number(lat, 'mean', where + '.lat') * lat_scale
    if isinstance(data.get('clat_ns'), dict):
        clat, clat_scale = data['clat_ns'], 1
    elif isinstance(data.get('clat'), dict):
        clat, clat_scale = data['clat'], 1000
    else:
        clat, clat_scale = {}, 1
    if 'mean' in clat:
        result['clat_mean_ns'] = _number(clat, 'mean', where + '.clat') * clat_scale
    # Percentiles are absent with clat_percentiles=0 or lat_percentiles=1: report None then.
    percentiles = clat.get('percentile')
    if not isinstance(percentiles, dict):
        percentiles = {}
    for name, key in _PERCENTILES:
        if key in percentiles:
            result[name] = _number(percentiles, key, where + '.clat.percentile') * clat_scale
        else:
            result[name] = None
    return result


def parse_fio_json(text):
    """Parse fio JSON output into ``{fio_version, jobs: [{name, error, read, write}]}``.

    ``read``/``write`` are None when that direction did no I/O (``io_bytes`` 0), otherwise
    a dict with the keys in :data:`METRICS`: ``bw_bytes`` (bytes/s), ``iops``,
    ``lat_mean_ns`` (total latency mean), ``clat_p50_ns`` ... ``clat_p999_ns``
    (completion latency percentiles, None when fio did not report them), ``io_bytes`` and
    ``runtime_ms``. Old fio units are converted: ``bw`` KiB/s, ``lat``/``clat`` in µs and,
    before ``io_kbytes`` existed (fio 2.x), ``io_bytes`` in KiB.

    Text before the JSON document (fio warnings) is skipped; of several concatenated objects
    (``--status-interval``) the last, fio's final report, is read. Numbers must be finite and
    within 64 bits, ``jobname`` a string, ``error`` an int. Raises ValueError (and nothing
    else, whatever the input) naming what is missing or wrong.
    """
    if not isinstance(text, str):
        if isinstance(text, bytes):
            text = text.decode('utf-8', 'replace')
        else:
            raise ValueError('fio output must be text, got {0!r}'.format(type(text).__name__))
    doc = _find_document(text)
    version = doc.get('fio version')
    if version is not None and not isinstance(version, str):
        raise ValueError('"fio version" is not a string: {0!r}'.format(version))
    jobs = doc['jobs']
    if not isinstance(jobs, list):
        raise ValueError('"jobs" is not a list')
    parsed = []
    for index, job in enumerate(jobs):
        where = 'jobs[{0}]'.format(index)
        if not isinstance(job, dict):
            raise ValueError('{0}: expected an object'.format(where))
        if 'jobname' not in job:
            raise ValueError('{0}: missing "jobname"'.format(where))
        if not isinstance(job['jobname'], str):
            raise ValueError('{0}: "jobname" is not a string: {1!r}'.format(where, job['jobname']))
        where = '{0} ("{1}")'.format(where, job['jobname'])
        error = job.get('error', 0)
        if isinstance(error, bool) or not isinstance(error, int) or not -_ERROR_LIMIT <= error < _ERROR_LIMIT:
            raise ValueError('{0}: "error" is not an error number (an int): {1!r}'.format(where, error))
        entry = {'name': job['jobname'], 'error': error}
        for direction in DIRECTIONS:
            if direction not in job:
                hint = ' (unified_rw_reporting is not supported)' if 'mixed' in job else ''
                raise ValueError('{0}: missing "{1}"{2}'.format(where, direction, hint))
            entry[direction] = _direction(job[direction], '{0}.{1}'.format(where, direction))
        parsed.append(entry)
    return {'fio_version': version, 'jobs': parsed}


# --------------------------------------------------------------------------- aggregation

def median(values):
    """Median of a non-empty list of numbers (mean of the middle two for even counts)."""
    ordered = sorted(values)
    count = len(ordered)
    if count == 0:
        raise ValueError('median of no values')
    middle = count // 2
    if count % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def coefficient_of_variation(values):
    """Sample standard deviation (n - 1) divided by the mean.

    The sample form is used because ``repeat`` runs are a small sample of possible runs;
    it is the larger, more cautious estimate. 0.0 for a single value or a mean of 0.
    """
    count = len(values)
    if count < 2:
        return 0.0
    mean = sum(values) / count
    if mean == 0:
        return 0.0
    variance = sum((value - mean) ** 2 for value in values) / (count - 1)
    return math.sqrt(variance) / abs(mean)


def aggregate(runs):
    """Summarise repeated runs (a list of :func:`parse_fio_json` results) of the same jobs.

    Returns ``{runs, fio_version, jobs: [{name, errors, read, write}]}`` where each direction
    is None when no run did I/O in it, else ``{metric: {median, cv, samples}}``; a metric
    no run reported has ``median`` None. ``cv`` is the coefficient of variation from the
    sample standard deviation (see :func:`coefficient_of_variation`).
    """
    if not runs:
        raise ValueError('aggregate needs at least one run')
    names = [job['name'] for job in runs[0]['jobs']]
    for number, run in enumerate(runs[1:], 2):
        other = [job['name'] for job in run['jobs']]
        if other != names:
            raise ValueError('run {0} has jobs {1}, run 1 has {2}: runs must repeat the same jobs'.format(
                number, other, names))
    jobs = []
    for index, name in enumerate(names):
        entry = {'name': name, 'errors': [run['jobs'][index]['error'] for run in runs]}
        for direction in DIRECTIONS:
            sections = [run['jobs'][index][direction] for run in runs]
            sections = [section for section in sections if section is not None]
            if not sections:
                entry[direction] = None
                continue
            summary = {}
            for metric in METRICS:
                values = [section[metric] for section in sections if section.get(metric) is not None]
                summary[metric] = {
                    'median': median(values) if values else None,
                    'cv': coefficient_of_variation(values) if values else None,
                    'samples': len(values),
                    'range': [min(values), max(values)] if values else None,
                }
            entry[direction] = summary
        jobs.append(entry)
    return {'runs': len(runs), 'fio_version': runs[0].get('fio_version'), 'jobs': jobs}


# --------------------------------------------------------------------------- argv

# Preset -> fio options. copy-like imitates a large-buffer copy tool (cp with an 8 MiB
# buffer) on one file: sequential rw=rw alternates 8 MiB reads and writes (50/50),
# synchronous (psync, iodepth 1) as cp is.
PRESETS = {
    'seq-read': (('rw', 'read'), ('bs', '1M')),
    'seq-write': (('rw', 'write'), ('bs', '1M')),
    'rand-read-4k': (('rw', 'randread'), ('bs', '4k')),
    'rand-write-4k': (('rw', 'randwrite'), ('bs', '4k')),
    'mixed-70-30': (('rw', 'randrw'), ('rwmixread', '70'), ('bs', '4k')),
    'copy-like': (('rw', 'rw'), ('rwmixread', '50'), ('bs', '8M'), ('ioengine', 'psync'), ('iodepth', '1')),
}

_WRITE_PRESETS = ('seq-write', 'rand-write-4k', 'mixed-70-30', 'copy-like')

# rw modes of a job given as raw options instead of a preset (no trim modes: they discard data).
RW_MODES = ('read', 'write', 'randread', 'randwrite', 'rw', 'readwrite', 'randrw')
# Engines that do plain I/O on the target file; fio's others run commands (exec), talk to the
# network (net, rdma), or address devices by other means (sg, nbd, mtd).
IOENGINES = ('sync', 'psync', 'vsync', 'pvsync', 'pvsync2', 'libaio', 'io_uring', 'posixaio', 'mmap')
# Keys a job may carry (the module's `jobs` elements).
JOB_KEYS = ('preset', 'rw', 'name', 'bs', 'iodepth', 'ioengine', 'rwmixread', 'direct', 'options')

# Options set through dedicated job keys (or always by build_argv): not allowed in extra.
MANAGED_OPTIONS = frozenset((
    'name', 'filename', 'rw', 'readwrite', 'bs', 'blocksize', 'direct', 'buffered', 'size',
    'runtime', 'ramp_time', 'time_based', 'ioengine', 'iodepth', 'rwmixread', 'rwmixwrite',
    'output', 'output_format',
))
# The options a job's ``options`` may set: an allowlist of fio options that only shape the
# workload (pattern, sizes of the I/O, parallelism, pacing, flushing, buffer contents, engine
# tuning) of the one target the module names. Nothing that names a path or a file (filename,
# directory, opendir, a file-backed mem=mmap:/path), runs a command (exec_*, trigger*), writes
# logs or other output, changes system state (ioscheduler, cgroup, prio, lockmem, unlink) or
# grows the scratch file past the checked free space (offset, filesize, file_append, fill_device)
# is on it. name -> None (any value of the plain form, see _VALUE_RE) or the tuple of accepted values.
_FLAG = ('0', '1')
_MEM_TYPES = ('malloc', 'mmap', 'mmapshared')
ALLOWED_OPTIONS = {
    # block sizes and alignment
    'bsrange': None, 'blocksize_range': None, 'bssplit': None, 'bs_unaligned': _FLAG, 'blocksize_unaligned': _FLAG,
    'bs_is_seq_rand': _FLAG, 'blockalign': None, 'ba': None,
    # amount of I/O
    'io_size': None, 'number_ios': None, 'loops': None,
    # parallelism and queueing
    'numjobs': None, 'thread': _FLAG, 'group_reporting': _FLAG, 'iodepth_batch': None, 'iodepth_batch_submit': None,
    'iodepth_batch_complete_min': None, 'iodepth_batch_complete_max': None, 'iodepth_low': None,
    'serialize_overlap': _FLAG, 'io_submit_mode': ('inline', 'offload'),
    # random access pattern
    'norandommap': _FLAG, 'randrepeat': _FLAG, 'allrandrepeat': _FLAG, 'randseed': None, 'random_distribution': None,
    'random_generator': ('tausworthe', 'lfsr', 'tausworthe64'), 'percentage_random': None,
    'rw_sequencer': ('sequential', 'identical'),
    # flushing, caching and layout of the target
    'sync': ('none', '0', 'sync', '1', 'dsync'), 'fsync': None, 'fdatasync': None, 'end_fsync': _FLAG,
    'fsync_on_close': _FLAG, 'invalidate': _FLAG, 'fadvise_hint': ('0', '1', 'sequential', 'random'), 'pre_read': _FLAG,
    'overwrite': _FLAG,
    'fallocate': ('none', 'native', 'posix', 'keep', 'truncate', '0', '1'),
    # pacing
    'startdelay': None, 'thinktime': None, 'thinktime_spin': None, 'thinktime_blocks': None,
    'thinktime_blocks_type': ('complete', 'issue'), 'rate': None, 'rate_min': None, 'rate_iops': None,
    'rate_iops_min': None, 'rate_process': ('linear', 'poisson'), 'rate_ignore_thinktime': _FLAG, 'rate_cycle': None,
    'latency_target': None, 'latency_window': None, 'latency_percentile': None, 'latency_run': _FLAG,
    'max_latency': None,
    # buffer contents and memory (anonymous only: no file-backed "mmap:/path" form)
    'zero_buffers': _FLAG, 'refill_buffers': _FLAG, 'scramble_buffers': _FLAG, 'buffer_compress_percentage': None,
    'buffer_compress_chunk': None, 'dedupe_percentage': None, 'mem': _MEM_TYPES, 'iomem': _MEM_TYPES,
    'mem_align': None, 'iomem_align': None,
    # engine tuning (io_uring, libaio, pvsync2; fio refuses them with another engine)
    'hipri': _FLAG, 'fixedbufs': _FLAG, 'registerfiles': _FLAG, 'sqthread_poll': _FLAG, 'nonvectored': _FLAG,
    'userspace_reap': _FLAG, 'nowait': _FLAG,
}
# The plain form of an allowed option's value: numbers with units, ranges and lists
# (4k-64k, 4k/50:64k/50, zipf:1.2, 1m,512k); no spaces, quotes, "$", "=" or control characters.
_VALUE_RE = re.compile(r'^[A-Za-z0-9_.,:/%-]+$')
OPTIONS_DOC = "the fio module's documentation (jobs) and docs/benchmark.md"

_KEY_RE = re.compile(r'^[a-z0-9_]+$')
_DURATION_RE = re.compile(r'^\d+$')


def _accepted_presets():
    return ', '.join(sorted(PRESETS))


def _check_value(key, value):
    if isinstance(value, bool):
        return '1' if value else '0'
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str) or value == '':
        raise ValueError('fio option "{0}": value must be a non-empty string or a number, got {1!r}'.format(key, value))
    if any(char in value for char in '\n\r\0'):
        raise ValueError('fio option "{0}": value must not contain newlines or NUL'.format(key))
    return value


def accepted_options():
    """The names :func:`check_fio_options` accepts, sorted (for messages and documentation)."""
    return sorted(ALLOWED_OPTIONS)


def _allowed_value(key, value, where):
    try:
        value = _check_value(key, value)
    except ValueError as exc:
        raise ValueError('{0}: {1}'.format(where, exc))
    choices = ALLOWED_OPTIONS[key]
    if choices is None:
        if not _VALUE_RE.match(value):
            raise ValueError('{0}: fio option "{1}": value {2!r} is not of the plain form fio takes for it (letters, digits '
                             'and . , : / % - only)'.format(where, key, value))
    elif value not in choices:
        hint = ''
        if key in ('mem', 'iomem') and ':' in value:
            hint = ' (the file-backed "type:path" form creates and truncates that file)'
        raise ValueError('{0}: fio option "{1}": value {2!r} is not accepted{3}; accepted: {4}'.format(
            where, key, value, hint, ', '.join(choices)))
    return value


def check_fio_options(extra, where='options'):
    """A job's raw fio options checked against the allowlist, as (key, value) pairs.

    ``extra`` is a dict, or a list of ``--key=value``/``key=value`` (a bare ``--key`` is
    ``key=1``). Every name must be in :data:`ALLOWED_OPTIONS` (options the module sets through
    a job key, :data:`MANAGED_OPTIONS`, say so), every value of the form it takes there.
    ``where`` names the field in errors (``jobs[0].options``). The one check of raw options:
    the module, build_argv and the ``iotune_benchmark`` policy validation all use it.
    Raises ValueError naming ``where``, the option and the accepted ones.
    """
    if extra is None:
        return []
    if isinstance(extra, dict):
        pairs = sorted(extra.items(), key=lambda item: str(item[0]))
    elif isinstance(extra, (list, tuple)):
        pairs = []
        for item in extra:
            if not isinstance(item, str):
                raise ValueError('{0}: fio option {1!r} is not a string of the form --name=value'.format(where, item))
            text = item[2:] if item.startswith('--') else item
            if '=' in text:
                key, value = text.split('=', 1)
            else:
                key, value = text, True
            pairs.append((key, value))
    else:
        raise ValueError('{0}: fio options must be a dict or a list of --name=value strings'.format(where))
    checked = []
    for key, value in pairs:
        if not isinstance(key, str) or not _KEY_RE.match(key):
            raise ValueError('{0}: fio option {1!r}: names are lower-case letters, digits and "_" only'.format(where, key))
        if key in MANAGED_OPTIONS:
            raise ValueError('{0}: fio option "{1}" is set by the module; use the dedicated option instead'.format(where, key))
        if key not in ALLOWED_OPTIONS:
            raise ValueError('{0}: fio option "{1}" is not allowed: only options that shape the workload are (none that '
                             'names a file or path, runs a command, writes output or changes system state); accepted: {2} '
                             '(see {3})'.format(where, key, ', '.join(accepted_options()), OPTIONS_DOC))
        checked.append((key, _allowed_value(key, value, where)))
    return checked


def _seconds(job, key):
    value = job.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and _DURATION_RE.match(value))):
        raise ValueError('{0} must be a non-negative whole number of seconds, got {1!r}'.format(key, value))
    value = int(value)
    if value < 0:
        raise ValueError('{0} must be a non-negative whole number of seconds, got {1!r}'.format(key, value))
    return value


def _workload(job):
    """(options, writes): the options of the job's preset or of its raw ``rw`` (with ``bs`` 4k and
    ``rwmixread``), and whether the workload writes."""
    preset = job.get('preset')
    raw_rw = job.get('rw')
    if preset is not None and raw_rw is not None:
        raise ValueError('a job has either a preset or rw (raw fio options), not both')
    if preset is None and raw_rw is not None:
        if raw_rw not in RW_MODES:
            raise ValueError('unknown rw {0!r}; accepted: {1}'.format(raw_rw, ', '.join(RW_MODES)))
        base = [('rw', raw_rw), ('bs', '4k')]
        if job.get('rwmixread') is not None:
            if raw_rw not in ('rw', 'readwrite', 'randrw'):
                raise ValueError('rwmixread applies only to rw, readwrite and randrw')
            base.append(('rwmixread', _check_value('rwmixread', job['rwmixread'])))
        return base, 'write' in raw_rw or raw_rw in ('rw', 'randrw')
    if preset not in PRESETS:
        raise ValueError('unknown fio preset {0!r}; accepted presets: {1}'.format(preset, _accepted_presets()))
    return list(PRESETS[preset]), preset in _WRITE_PRESETS


def _target_and_name(job):
    """(filename, job name), each checked: fio reads ":" in a file name as a list separator."""
    filename = job.get('filename')
    if not isinstance(filename, str) or not filename:
        raise ValueError('filename is required (a file or block device to test)')
    if ':' in filename or any(char in filename for char in '\n\r\0'):
        raise ValueError('filename {0!r} must not contain ":" (fio reads it as a list separator) '
                         'or control characters'.format(filename))
    name = job.get('name') or job.get('preset') or job.get('rw')
    if not isinstance(name, str) or not _KEY_RE.match(name.replace('-', '_')):
        raise ValueError('job name {0!r}: use letters, digits, "-" and "_" only'.format(name))
    return filename, name


def _with_overrides(options, job):
    """``options`` with the job's ioengine, bs, iodepth and rwmixread in place of the preset's (added when new)."""
    overrides = {}
    for key in ('ioengine', 'bs', 'iodepth', 'rwmixread'):
        if job.get(key) is not None:
            overrides[key] = _check_value(key, job[key])
    options = [(key, overrides.pop(key, value)) for key, value in options]
    options.extend(sorted(overrides.items()))
    return options


def _io_options(job, writes):
    """direct (a buffered write flushes at its end), size, runtime (time based) and ramp_time of the job."""
    direct = job.get('direct', True)
    if not isinstance(direct, bool):
        raise ValueError('direct must be true or false, got {0!r}'.format(direct))
    options = [('direct', '1' if direct else '0')]
    if not direct and writes:
        options.append(('end_fsync', '1'))
    if job.get('size') is not None:
        options.append(('size', str(to_bytes(job['size']))))
    runtime = _seconds(job, 'runtime')
    if runtime:
        options.append(('runtime', str(runtime)))
        options.append(('time_based', '1'))
    ramp_time = _seconds(job, 'ramp_time')
    if ramp_time:
        options.append(('ramp_time', str(ramp_time)))
    return options


def _extra_options(job, name, options):
    """The job's raw fio options, checked, none of them one that ``options`` already sets."""
    where = 'job {0} options'.format(name)
    extra = check_fio_options(job.get('extra'), where)
    seen = set(key for key, dummy in options)
    for key, dummy in extra:
        if key in seen:
            raise ValueError('{0}: fio option "{1}" is already set by the preset'.format(where, key))
        seen.add(key)
    return extra


def build_argv(fio_bin, job):
    """Build the fio argument list for one job.

    ``job`` keys: ``preset`` (see :data:`PRESETS`) or ``rw`` (one of :data:`RW_MODES`, with
    ``bs`` default 4k and optional ``rwmixread``), ``filename`` (required),
    ``name`` (default: the preset or rw), ``size`` (bytes or "10G"), ``runtime`` and ``ramp_time``
    (seconds; runtime makes the job time based), ``direct`` (default True), ``ioengine``,
    ``bs``, ``iodepth`` (override the preset), ``extra`` (dict or list of ``--name=value``).
    Buffered write presets get ``end_fsync=1`` so the flush is part of the result.
    ``--output-format=json`` is always added. Raises ValueError for invalid input.
    """
    if not isinstance(fio_bin, str) or not fio_bin:
        raise ValueError('fio_bin must be a non-empty path')
    if not isinstance(job, dict):
        raise ValueError('job must be a dict')
    base, writes = _workload(job)
    if job.get('ioengine') is not None and job['ioengine'] not in IOENGINES:
        raise ValueError('unknown ioengine {0!r}; accepted: {1}'.format(job['ioengine'], ', '.join(IOENGINES)))
    filename, name = _target_and_name(job)
    options = _with_overrides([('name', name), ('filename', filename)] + base, job)
    options.extend(_io_options(job, writes))
    options.extend(_extra_options(job, name, options))
    options.append(('output-format', 'json'))
    return [fio_bin] + ['--{0}={1}'.format(key, value) for key, value in options]


# --------------------------------------------------------------------------- cache check

def cache_suspect(direct, working_set_bytes, mem_total_bytes):
    """True when a buffered run (direct false) used a working set below 2x RAM.

    Such a result largely measures the page cache, not the storage. An unknown RAM size
    (None) with buffered I/O counts as suspect.
    """
    if direct:
        return False
    if mem_total_bytes is None:
        return True
    for label, value in (('working_set_bytes', working_set_bytes), ('mem_total_bytes', mem_total_bytes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError('{0} must be a non-negative integer, got {1!r}'.format(label, value))
    return working_set_bytes < 2 * mem_total_bytes


# --------------------------------------------------------------------------- module helpers

# Metrics a result reports per direction (the median of the repeats) and their cov.
RESULT_METRICS = ('bw_bytes', 'iops', 'lat_mean_ns', 'clat_mean_ns', 'clat_p50_ns', 'clat_p95_ns', 'clat_p99_ns', 'clat_p999_ns')


def normalize_jobs(jobs):
    """The module's ``jobs`` (preset names or dicts) as a list of job dicts.

    A string is a preset name. A dict has a ``preset`` or an ``rw`` and the keys of
    :data:`JOB_KEYS`; ``options`` holds further raw fio options. Names must be unique
    (they key the results). Raises ValueError naming ``jobs[i]`` and the accepted values.
    """
    if not isinstance(jobs, list) or not jobs:
        raise ValueError('jobs must be a non-empty list of preset names or job dicts')
    normalized = []
    for index, spec in enumerate(jobs):
        where = 'jobs[{0}]'.format(index)
        if isinstance(spec, str):
            spec = {'preset': spec}
        if not isinstance(spec, dict):
            raise ValueError('{0}: expected a preset name or a dict, got {1!r}'.format(where, spec))
        unknown = sorted(set(spec) - set(JOB_KEYS))
        if unknown:
            raise ValueError('{0}: unknown key(s) {1}; accepted: {2}'.format(where, ', '.join(unknown), ', '.join(JOB_KEYS)))
        if spec.get('preset') is None and spec.get('rw') is None:
            raise ValueError('{0}: needs a preset ({1}) or an rw ({2})'.format(where, _accepted_presets(), ', '.join(RW_MODES)))
        if spec.get('preset') is not None and spec['preset'] not in PRESETS:
            raise ValueError('{0}: unknown preset {1!r}; accepted presets: {2}'.format(where, spec['preset'], _accepted_presets()))
        job = dict((key, value) for key, value in spec.items() if value is not None and key != 'options')
        if spec.get('options') is not None:
            check_fio_options(spec['options'], where + '.options')
            job['extra'] = spec['options']
        job['name'] = spec.get('name') or spec.get('preset') or spec.get('rw')
        normalized.append(job)
    names = [job['name'] for job in normalized]
    duplicates = sorted(set(name for name in names if names.count(name) > 1))
    if duplicates:
        raise ValueError('jobs: duplicate job name(s) {0}; give each job a distinct name'.format(', '.join(duplicates)))
    return normalized


def preset_sets(job, option):
    """True when the job's preset fixes ``option`` itself (copy-like fixes ioengine)."""
    return any(key == option for key, dummy in PRESETS.get(job.get('preset'), ()))


# a comparison of two measurements counts a change beyond this many percent and beyond the noise
# (plugin_utils/_fio_compare: noise_factor x the combined coefficients of variation of both sides)
COMPARE_THRESHOLD_PCT = 10.0
COMPARE_NOISE_FACTOR = 2.0


def comparison_noise_pct(cv_before, cv_after, noise_factor=COMPARE_NOISE_FACTOR):
    """The noise (percent) of a comparison of two measurements: noise_factor x 100 x the root of the sum of their
    squared coefficients of variation (a None cv counts as 0), rounded to 2 decimals."""
    return round(noise_factor * 100.0 * math.sqrt((cv_before or 0.0) ** 2 + (cv_after or 0.0) ** 2), 2) + 0.0


def detectable_pct(cv, noise_factor=COMPARE_NOISE_FACTOR, threshold_pct=COMPARE_THRESHOLD_PCT):
    """The smallest change (percent) a comparison with another measurement of the same noise ``cv`` would see:
    the threshold, or the noise of the two when that is larger."""
    return max(threshold_pct, comparison_noise_pct(cv, cv, noise_factor))


def job_result(aggregated, job, suspect):
    """One entry of the module's ``results``: medians per direction and their cov."""
    result = {
        'name': aggregated['name'],
        'preset': job.get('preset'),
        'rw': job.get('rw') or dict(PRESETS[job['preset']])['rw'],
        'direct': job.get('direct', True),
        'cache_suspect': suspect,
        'cov': {},
        'bw_range': {},
        'detectable_pct': {},
    }
    for direction in DIRECTIONS:
        summary = aggregated[direction]
        if summary is None:
            result[direction] = None
            result['cov'][direction] = None
            result['bw_range'][direction] = None
            result['detectable_pct'][direction] = None
            continue
        result[direction] = dict((metric, summary[metric]['median']) for metric in RESULT_METRICS + ('io_bytes',))
        result['cov'][direction] = dict((metric, summary[metric]['cv']) for metric in RESULT_METRICS)
        result['bw_range'][direction] = summary['bw_bytes']['range']
        result['detectable_pct'][direction] = detectable_pct(summary['bw_bytes']['cv'])
    return result


def cache_reason(working_set_bytes, mem_total_bytes):
    """(reason, fix) of a buffered job on a working set under twice the RAM: what it measured and how to measure the storage."""
    if mem_total_bytes is None:
        memory = 'an unknown amount of RAM'
        needed = 'at least twice the RAM'
    else:
        memory = '{0} of RAM'.format(format_bytes(mem_total_bytes))
        needed = 'at least {0}'.format(format_bytes(2 * mem_total_bytes))
    return ('buffered I/O on a {0} working set with {1} (under 2x RAM): the result measures the page cache (memory), '
            'not the storage'.format(format_bytes(working_set_bytes), memory),
            'direct: true, a size of {0}, or allow_cached: true to accept it'.format(needed))


def cache_warning(name, working_set_bytes, mem_total_bytes):
    """The warning a cache-suspect job gets: what it measured and how to measure the storage."""
    reason, fix = cache_reason(working_set_bytes, mem_total_bytes)
    return 'fio job {0}: {1}. Use {2}.'.format(name, reason, fix)
