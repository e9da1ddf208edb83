# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan of a measured search (the tune_io module, docs/tuning.md): its request checked field
by field, its candidates, the shuffled order of each round, its duration against the budget, and
the fio command line of one measurement. Pure: no I/O."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import random
import re

from ansible_collections.iotune.storage.plugins.module_utils.common.units import format_bytes_rate, to_bytes
from ansible_collections.iotune.storage.plugins.module_utils.measure.decide import (
    BETTER, CACHE_SUSPECT, INCONSISTENT, NO_DIFFERENCE, TOO_FEW_ROUNDS, UNDECIDED, WORSE, min_rounds)
from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import build_argv, check_fio_options, normalize_jobs
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS, accepted_text

BASELINE = 'current'
AA_CANDIDATE = 'current-again'

# The workloads a search names by preset. Each is one pass over a new file, capped by the runtime
# (no time_based looping: a second pass over a buffered file would read the page cache):
# * cold-seq-read: buffered 128 KiB reads of a file whose cached pages fio drops first (invalidate),
#   so read-ahead decides how large the disk's reads are;
# * restore-write: a restore's buffered 1 MiB writes, flushed at the end (end_fsync), as pax does;
# * rand-read-8k: a database's 8 KiB random reads, direct, queue depth 16;
# * seq-read-direct: 1 MiB direct reads, queue depth 4 (max_sectors_kb, the scheduler).
WORKLOADS = {
    'cold-seq-read': {'rw': 'read', 'bs': '128k', 'direct': False, 'ioengine': 'psync', 'options': {'invalidate': 1}},
    'restore-write': {'rw': 'write', 'bs': '1m', 'direct': False, 'ioengine': 'psync'},
    'rand-read-8k': {'rw': 'randread', 'bs': '8k', 'direct': True, 'iodepth': 16},
    'seq-read-direct': {'rw': 'read', 'bs': '1m', 'direct': True, 'iodepth': 4},
}
# Settings a search can try: the block queue of the target's device (read through sysfs, applied
# live through the journal and undone after each measurement; nothing persistent is written), and
# with the copy workload the copy tool's buffer size and --direct (options of its command line).
MOUNT_SETTING = 'mount_options'
SEARCHABLE = tuple(sorted(QUEUE_SETTINGS)) + (MOUNT_SETTING,)
_MOUNT_OPTION_RE = re.compile(r'^[a-z0-9_][a-z0-9_.=:+-]*$')
COPY_WORKLOAD = 'copy'
COPY_SETTINGS = ('buffer_size', 'direct')
COPY_ACCEPTED = {'buffer_size': 'a size from 1 byte to 1g (4k, 1m, 8M)', 'direct': 'true or false',
                 MOUNT_SETTING: 'one mount option a live remount can set, such as noatime or commit=30'}
MAX_COPY_BUFFER = 1024 * 1024 * 1024
# the rate the estimate assumes for a copy (a 4 KiB direct copy is far slower: give it a small size)
COPY_BYTES_PER_S = 50 * 1024 * 1024
# Seconds a measurement costs beyond its runtime (fio's start, the candidate applied and undone),
# and the rate at which fio lays out a new file before a read, for the estimate.
TRIAL_OVERHEAD_S = 2
LAYOUT_BYTES_PER_S = 100 * 1024 * 1024
MAX_ROUNDS = 200
MAX_CANDIDATES = 16


def _whole(value, field, minimum, maximum, errors):
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        errors.append('%s: %r is not valid; expected a whole number from %d to %d' % (field, value, minimum, maximum))
        return False
    return True


def _valid_setting_value(setting, value):
    if setting == MOUNT_SETTING:
        return isinstance(value, str) and bool(_MOUNT_OPTION_RE.match(value))
    if setting == 'direct':
        return isinstance(value, bool)
    if setting == 'buffer_size':
        try:
            return 1 <= to_bytes(value) <= MAX_COPY_BUFFER
        except ValueError:
            return False
    spec = QUEUE_SETTINGS[setting]
    if 'choices' in spec:
        return value in spec['choices']
    return not isinstance(value, bool) and isinstance(value, int) and spec['minimum'] <= value <= spec['maximum']


def _accepted(name):
    return COPY_ACCEPTED[name] if name in COPY_ACCEPTED else accepted_text(name)


def check_settings(settings, errors, copy=False, vxfs=()):
    """settings: {setting: [candidate values]}; errors name ``settings.<name>[i]`` and the accepted values.
    ``copy``: the workload is the copy tool's copy, which alone takes its settings. ``vxfs``: the VxFS
    tunables' names (plan.tunefstab checks their values when it plans each candidate)."""
    if not isinstance(settings, dict) or not settings:
        errors.append('settings: give at least one setting to search, with its candidate values: one of %s'
                      % ', '.join(SEARCHABLE + (COPY_SETTINGS if copy else ())))
        return
    for name in sorted(settings, key=str):
        values = settings[name]
        if name in COPY_SETTINGS and not copy:
            errors.append('settings.%s: a setting of the copy tool, searched only with workload: copy' % name)
            continue
        if name not in SEARCHABLE and name not in COPY_SETTINGS and name not in vxfs:
            errors.append('settings.%s: not a setting a search can try; accepted: %s, the VxFS tunables (%s)'
                          % (name, ', '.join(SEARCHABLE + COPY_SETTINGS), ', '.join(vxfs)))
            continue
        if name in vxfs:
            if not isinstance(values, list) or not values:
                errors.append('settings.%s: expected a non-empty list of candidate values' % name)
            continue
        if not isinstance(values, list) or not values:
            errors.append('settings.%s: expected a non-empty list of candidate values (%s)' % (name, _accepted(name)))
            continue
        for index, value in enumerate(values):
            if not _valid_setting_value(name, value):
                errors.append('settings.%s[%d]: %r is not valid; expected %s' % (name, index, value, _accepted(name)))
        if len(set(map(str, values))) != len(values):
            errors.append('settings.%s: a candidate is listed twice' % name)


def workload_job(workload):
    """The fio job (a dict of measure.fio's job keys) of a preset name or a job dict; ValueError names ``workload``."""
    if workload == COPY_WORKLOAD:
        return {'name': COPY_WORKLOAD, 'copy': True, 'direct': True}
    if isinstance(workload, str):
        if workload not in WORKLOADS:
            raise ValueError('workload: unknown preset %r; accepted: %s, %s (the copy tool), or a fio job (a dict with rw)'
                             % (workload, ', '.join(sorted(WORKLOADS)), COPY_WORKLOAD))
        spec = dict(WORKLOADS[workload], name=workload)
    elif isinstance(workload, dict):
        spec = dict(workload)
        spec.setdefault('name', 'workload')
    else:
        raise ValueError('workload: expected a preset name (%s) or a fio job dict, got %r' % (', '.join(sorted(WORKLOADS)), workload))
    try:
        job = normalize_jobs([spec])[0]
        build_argv('fio', dict(job, filename='/check'))
        return job
    except ValueError as exc:
        raise ValueError('workload: %s' % str(exc).replace('jobs[0]', 'job'))


def check_request(params, vxfs=()):
    """The errors of a search request (the tune_io module's parameters), each naming its field; ``vxfs``
    the names of the VxFS tunables."""
    errors = []
    check_settings(params.get('settings'), errors, params.get('workload') == COPY_WORKLOAD, vxfs)
    try:
        workload_job(params.get('workload'))
    except ValueError as exc:
        errors.append(str(exc))
    _whole(params.get('rounds'), 'rounds', 1, MAX_ROUNDS, errors)
    _whole(params.get('runtime'), 'runtime', 1, 3600, errors)
    _whole(params.get('max_seconds'), 'max_seconds', 1, 7 * 86400, errors)
    try:
        if to_bytes(params.get('size')) < 1024 * 1024:
            errors.append('size: %r is too small; expected at least 1m' % (params.get('size'),))
    except ValueError as exc:
        errors.append('size: %s' % exc)
    confidence, min_effect = params.get('confidence'), params.get('min_effect')
    if not isinstance(confidence, float) or not 0.5 <= confidence < 1:
        errors.append('confidence: %r is not valid; expected a fraction from 0.5 to below 1 (0.95)' % (confidence,))
    if not isinstance(min_effect, float) or not 0 <= min_effect < 10:
        errors.append('min_effect: %r is not valid; expected a fraction from 0 (0.05 is 5 %%)' % (min_effect,))
    resolution = params.get('resolution', 0.25)
    if not isinstance(resolution, float) or not 0 < resolution < 10:
        errors.append('resolution: %r is not valid; expected a fraction above 0 (0.25 is 25 %%)' % (resolution,))
    return errors


def candidates(settings, current, aa=False):
    """The candidates besides the current value: ``[{'name', 'setting', 'value'}]``, one setting
    changed at a time (the others stay as they are), a value equal to the current one left out
    (it is the baseline). In an A/A search one candidate, the current value again, changes nothing."""
    if aa:
        return [{'name': AA_CANDIDATE, 'setting': None, 'value': None}]
    found = []
    for setting in sorted(settings):
        for value in settings[setting]:
            if value_text(value) != value_text(current.get(setting)):
                found.append({'name': '%s=%s' % (setting, value_text(value)), 'setting': setting, 'value': value})
    return found


def value_text(value):
    """A value as a name shows it (true/false as YAML writes them)."""
    return ('true' if value else 'false') if isinstance(value, bool) else str(value)


def round_orders(names, rounds, seed):
    """A new shuffled order of ``names`` for each round (A B C, C A B, ...), from ``seed``."""
    rng = random.Random(seed)
    orders = []
    for dummy in range(rounds):
        order = list(names)
        rng.shuffle(order)
        orders.append(order)
    return orders


def trial_seconds(job, runtime, size):
    """The estimated seconds of one measurement: the runtime, the overhead and, for a read, laying out the file."""
    if job.get('copy'):
        return TRIAL_OVERHEAD_S + -(-to_bytes(size) // LAYOUT_BYTES_PER_S) + -(-to_bytes(size) // COPY_BYTES_PER_S)
    reads = 'read' in job.get('rw', '') or job.get('rw') in ('rw', 'randrw')
    layout = -(-to_bytes(size) // LAYOUT_BYTES_PER_S) if reads else 0
    return runtime + TRIAL_OVERHEAD_S + layout


def budget_problem(trials, seconds_each, max_seconds):
    """The sentence refusing a search longer than its budget, or None."""
    needed = trials * seconds_each
    if needed > max_seconds:
        return ('max_seconds: the search needs about %d s (%d measurements x %d s: runtime, layout and overhead), more than '
                'max_seconds %d; give fewer candidates or rounds, a shorter runtime, or a larger max_seconds'
                % (needed, trials, seconds_each, max_seconds))
    return None


def rounds_problem(rounds, confidence, count):
    """The sentence refusing too few rounds for ``count`` candidates at ``confidence``, or None."""
    needed = min_rounds(confidence, count)
    if rounds < needed:
        return ('rounds: %d rounds cannot show a difference at %s confidence among %d candidate(s); at least %d are needed '
                '(docs/tuning.md, the decision rule)' % (rounds, confidence, count, needed))
    return None


def trial_argv(fio, job, filename, size, runtime):
    """fio's command line for one measurement of ``job`` on ``filename``: one pass over ``size``
    bytes, stopped after ``runtime`` seconds (not time based, so no pass reads a cached file again)."""
    argv = build_argv(fio, dict(job, filename=filename, size=size))
    return argv[:-1] + ['--runtime=%d' % runtime] + argv[-1:]


def measured_value(parsed, job, metric):
    """The number a trial yields from parsed fio output (measure.fio.parse_fio_json): ``bw`` the bytes/s of its
    direction (both summed for a mixed job), ``lat`` the mean completion latency in ns (higher is worse)."""
    total_bw, lat = 0, []
    for entry in parsed['jobs']:
        for direction in ('read', 'write'):
            section = entry.get(direction)
            if section and section.get('io_bytes'):
                total_bw += section['bw_bytes']
                lat.append(section['lat_mean_ns'])
    if metric == 'lat':
        return max(lat) if lat else None
    return total_bw or None


def stable_match(name, info):
    """The ``match`` of an iotune_block_devices entry for device ``name`` that survives a reboot
    (its WWN, else its serial, else its kernel name), and a warning when only the name is left."""
    for key in ('wwn', 'serial'):
        if info.get(key):
            return {key: info[key]}, None
    return {'name': name}, ('%s has no WWN or serial: the fragment matches it by its kernel name, which a reboot may '
                            'give another disk' % name)


def policy_fragment(name, info, values, mount_point=None, vxfs_device=None):
    """The policy to give harden_io.yml for the values a search recommends on device ``name``
    (``info``: its io_facts, for the match and the hardware named): {'iotune_block_devices': [...]}
    for a queue setting, {'iotune_mounts': [...]} for a mount option of ``mount_point``, {'iotune_tunefstab':
    [...]} for a VxFS tunable of ``vxfs_device``,
    {'iotune_copy_tools': {...}} for the copy tool's buffer size (--direct is an
    option of each command, not of the policy: the answer's message says it), and the hardware line
    (model, WWN, serial) a person reads before giving it to a group of hosts."""
    hardware = ', '.join('%s %s' % (key, info[key]) for key in ('model', 'wwn', 'serial') if info.get(key)) or 'unknown hardware'
    queue = dict((key, value) for key, value in values.items() if key in QUEUE_SETTINGS)
    fragment, warning = {}, None
    if queue:
        match, warning = stable_match(name, info)
        fragment['iotune_block_devices'] = [dict(queue, match=match)]
    if MOUNT_SETTING in values:
        fragment['iotune_mounts'] = [{'path': mount_point, 'present': [values[MOUNT_SETTING]]}]
    vxfs = dict((key, value) for key, value in values.items() if key not in QUEUE_SETTINGS and key not in
                (MOUNT_SETTING,) + COPY_SETTINGS)
    if vxfs:
        fragment['iotune_tunefstab'] = [{'device': vxfs_device, 'tunables': vxfs}]
    if 'buffer_size' in values:
        fragment['iotune_copy_tools'] = {'state': 'present', 'buffer_size': values['buffer_size']}
    return fragment, hardware, warning


def recommended_values(decision, by_name):
    """{setting: value} of the recommended candidate, or {} (keep the current value)."""
    name = decision['recommended']
    if name is None or by_name[name]['setting'] is None:
        return {}
    return {by_name[name]['setting']: by_name[name]['value']}


def deploy_concern(values):
    """The io_policy concern through which tune_io deploys the recommended ``values`` (a queue setting:
    block_queue; the copy tool's buffer: copy_tools), or None when it leaves them to harden_io.yml: the
    old value of a mount option, a VxFS tunable or --direct is not one a search can put back."""
    if any(key in QUEUE_SETTINGS for key in values):
        return 'block_queue'
    if 'buffer_size' in values:
        return 'copy_tools'
    return None


def cache_suspect_job(job):
    """True when a buffered job's result may come from the page cache. A search measures one pass
    over a new file that fio lays out, flushes (create_fsync) and drops from the cache (invalidate,
    fio's default) before it reads; a buffered write is flushed at its end (end_fsync). What stays
    suspect: a mixed read/write job (it reads what it just wrote), and options that read the file
    again (loops, io_size, number_ios) or keep its pages (invalidate=0). A copy reads a new file whose pages
    were dropped and is timed until its destination is on disk (fsync)."""
    if job.get('direct', True) or job.get('copy'):
        return False
    extra = dict(check_fio_options(job.get('extra')))
    rw = job.get('rw') or ''
    if rw in ('rw', 'readwrite', 'randrw'):
        return True
    if str(extra.get('invalidate', 1)) in ('0', 'False', 'false'):
        return True
    return any(key in extra for key in ('loops', 'io_size', 'number_ios'))


def copy_argv(tool, config, candidate, direct, source, destination):
    """The copy tool's command line for one measurement: its config file (the current buffer size), the
    candidate's --buffer-size or --direct, and the baseline's --direct (``direct``)."""
    argv = [tool, '--config', config]
    if candidate.get('setting') == 'buffer_size':
        argv += ['--buffer-size', str(candidate['value'])]
    if (candidate['value'] if candidate.get('setting') == 'direct' else direct):
        argv.append('--direct')
    return argv + ['--', source, destination]


def config_buffer_size(text, default):
    """The buffer_size= of a copy.conf text (the last one, as the tool reads key=value lines), else ``default``."""
    found = default
    for line in text.splitlines():
        line = line.split(' #')[0].split('\t#')[0].strip()
        key, sep, value = line.partition('=')
        if sep and key.strip() == 'buffer_size' and not line.startswith('#'):
            found = value.strip().strip('"\'')
    return found


def _pct(fraction):
    return ('%.1f %%' if fraction < 0.1 else '%.0f %%') % (100.0 * fraction)


def _rounds_phrase(verdict, higher_is_better=True):
    """'slower in 6 of 7 rounds' (or faster/better, for the side the candidate was on more often)."""
    better, worse = ('faster', 'slower') if higher_is_better else ('better', 'worse')
    if verdict['lost'] >= verdict['won']:
        return '%s in %d of %d rounds' % (worse, verdict['lost'], verdict['rounds'])
    return '%s in %d of %d rounds' % (better, verdict['won'], verdict['rounds'])


def verdict_text(verdict, higher_is_better=True):
    """One candidate's answer for people: what it is, its median effect, the rounds, and what the run could have seen."""
    name, outcome = verdict['candidate'], verdict['outcome']
    if outcome == CACHE_SUSPECT:
        return '%s not decided: measured memory' % name
    if verdict['effect'] is None:
        return '%s %s: no pair measured' % (name, outcome)
    effect = '%.2fx, %s' % (verdict['effect'], _rounds_phrase(verdict, higher_is_better))
    if outcome in (BETTER, WORSE):
        return '%s %s: %s (interval %.2fx-%.2fx)' % (name, outcome, effect, verdict['interval'][0], verdict['interval'][1])
    if outcome == NO_DIFFERENCE:
        return '%s no difference: %s; an effect of %s or more would have been seen' % (name, effect, _pct(verdict['detectable']))
    if outcome == UNDECIDED:
        return '%s undecided: %s; the noise hides effects up to %s' % (name, effect, _pct(verdict['detectable']))
    return '%s %s: %s' % (name, outcome, effect)


def next_steps(decision, job, reached=None):
    """What would let an undecided search decide: more rounds (as many as the same noise needs), and what quiets the
    measurement (direct I/O or a larger file for a buffered one, the fix of a memory target, a quieter host)."""
    needed = [verdict['rounds_needed'] for verdict in decision['verdicts'] if verdict.get('rounds_needed')]
    steps = []
    if needed:
        steps.append('%d rounds (the same noise needs them to see %s)' % (max(needed), _pct(decision['rule']['resolution'])))
    if reached and reached.get('medium') == 'memory' and reached.get('fix'):
        steps.append(reached['fix'])
    elif not job.get('direct', True) and not job.get('copy'):
        steps.append('direct I/O or a file larger than twice the RAM')
    steps.append('a quieter host')
    return steps


def answer_message(decision, by_name, current, job, metric='bw', reached=None):
    """The search's answer in one paragraph: the recommendation or "keep the current value", each candidate's
    answer (better, worse with the rounds it lost, no difference with what the run could have seen, undecided),
    the spread of the current value, and the next step when the data could not decide."""
    higher = metric == 'bw'
    texts = [verdict_text(verdict, higher) for verdict in decision['verdicts']]
    spread = decision.get('spread')
    noise = ''
    if spread:
        low, high = (format_bytes_rate(spread['low']), format_bytes_rate(spread['high'])) if higher else (
            '%.0f us' % (spread['low'] / 1000.0), '%.0f us' % (spread['high'] / 1000.0))
        noise = '; the current value ranged %s-%s (%.1fx) over %d rounds' % (low, high, spread['ratio'], decision['rule']['rounds'])
    name = decision['recommended']
    if name is not None:
        setting = by_name[name]['setting']
        text = 'use %s instead of the current %s: %s%s%s' % (
            name, value_text(current.get(setting)), '; '.join(texts), noise, _decided_on_memory(decision, reached))
        if setting == 'direct':
            text += '; --direct is an option of each iotune-copy command: the policy has no default for it'
        return text
    undecided = [verdict for verdict in decision['verdicts'] if verdict['outcome'] in (UNDECIDED, TOO_FEW_ROUNDS, INCONSISTENT)]
    memory = [verdict for verdict in decision['verdicts'] if verdict['outcome'] == CACHE_SUSPECT]
    if memory and len(memory) == len(decision['verdicts']):
        head = 'keep the current value: not decided, the search measured memory, not the disk'
    elif memory:
        head = 'keep the current value: %d of %d candidates measured memory, not the disk, and were not decided' % (
            len(memory), len(decision['verdicts']))
    elif undecided:
        head = 'keep the current value: the data cannot decide'
    else:
        head = 'keep the current value: no candidate beats it beyond the noise'
    text = '%s (%s)%s%s' % (head, '; '.join(texts), noise, _decided_on_memory(decision, reached))
    if undecided or memory:
        text += '; next: %s' % ', '.join(next_steps(decision, job, reached))
    return text


def _decided_on_memory(decision, reached):
    """The words of an answer decided on memory because the user allowed it (allow_memory), else ''."""
    if not reached or reached.get('medium') != 'memory' or any(verdict['outcome'] == CACHE_SUSPECT for verdict in decision['verdicts']):
        return ''
    return '; measured memory, decided all the same (allow_memory): %s' % '; '.join(reached.get('reasons') or ())
