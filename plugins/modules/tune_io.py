#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: tune_io
short_description: Find the value of an I/O setting by measurement, beyond the noise
version_added: 1.0.0
description:
  - A measured search on one target, a mounted file system or a bare block device, of block-queue settings, mount
    options or the copy tool's buffer. Each round measures the current value and every candidate once, in a new
    shuffled order, each candidate applied through the write-ahead journal under a run id of its own and undone
    from it right after its measurement, each measurement on a new file. The host is left as it was found; a
    digest of its managed state before and after says so.
  - A candidate is recommended only when it beats the current value beyond the noise. The rule (docs/tuning.md) pairs
    the rounds, takes a distribution-free confidence interval of the median effect shared among the candidates, and
    asks for a minimum effect; rounds that fall into two modes are reported, and a win must hold within each mode.
    Otherwise the answer is to keep the current value.
  - Each candidate gets one of three answers. V(better) or V(worse) beyond the noise, with the rounds it won or lost.
    V(no-difference) when the run could have seen an effect of O(resolution) and did not. V(undecided) when the noise
    hides effects that large; the answer then names the next step (the rounds the same noise would need, direct I/O or a
    larger file, a quieter host).
  - A search refuses a target whose I/O reaches memory (a loop device without direct I/O, tmpfs, a RAM disk, a device
    over one; see the C(fio) module) unless O(allow_memory=true), and a name one round of which ran four times as fast
    as the median of its rounds (memory answered it) does not decide.
  - The answer comes with a policy fragment for C(harden_io.yml) that matches the device by what survives a reboot
    (its WWN, else its serial) and names the hardware, so it can serve a group of identical hosts; a mount option
    gives C(iotune_mounts), the copy tool's buffer C(iotune_copy_tools).
  - Check mode checks the request and every candidate against what the device keeps, and returns the plan and its
    duration without measuring or changing anything.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.action_group
  - iotune.storage.roots
attributes:
  check_mode:
    support: full
    details:
      - Check mode returns the plan (candidates, the order of each round, the estimated seconds); nothing is measured.
  diff_mode:
    support: none
  idempotent:
    support: full
    details:
      - Every candidate is undone after its measurement; the module reports C(changed=false) when the managed state
        after the search equals the state before, and fails when it does not.
options:
  target:
    description:
      - A mount point (the scratch files go there, or in O(directory)) or a bare block device.
      - A block device is measured raw only with O(allow_destructive=true), and never when it carries a signature or
        is held by another device (as the C(fio) module).
    type: path
    required: true
  directory:
    description: A directory on the mounted O(target) for the scratch files (default the mount point itself).
    type: path
  allow_destructive:
    description: Allow measuring the bare block device in O(target) (write workloads destroy its data).
    type: bool
    default: false
  settings:
    description:
      - "The block-queue settings of the target's device to try, each with its candidate values, for example
        C({read_ahead_kb: [128, 1024, 4096]}). One setting changes at a time; the others stay as they are."
      - Settings are those of C(iotune_block_devices) (C(read_ahead_kb), C(max_sectors_kb), C(nr_requests),
        C(rq_affinity), C(scheduler)). A value the device would refuse or round is found before anything is measured.
      - C(mount_options), one mount option per candidate (V(noatime), V(commit=30)), set in O(fstab) and by a live
        remount, both put back by the undo. An option no live remount can set is refused before anything is measured.
      - The VxFS tunables of a target mounted as vxfs (C(read_pref_io), C(write_pref_io), C(discovered_direct_iosz),
        ...), set in O(tunefstab) and live with C(vxtunefs -o), both put back by the undo.
      - With O(workload=copy), also the copy tool's C(buffer_size) and C(direct).
    type: dict
    required: true
  workload:
    description:
      - A preset, or a fio job as an element of the C(fio) module's C(jobs) (a dict with C(rw)), or V(copy).
      - V(copy) times the copy tool (O(copy_tool)) copying a new file of O(size), whose pages are dropped first, until
        the copy is on disk (fsync); its settings C(buffer_size) (sizes) and C(direct) (V(true), V(false)) are then
        searchable too. The current buffer size is that of O(copy_config), else the tool's default.
      - V(cold-seq-read) buffered 128 KiB reads of a new file whose cached pages fio drops first (read-ahead decides);
        V(restore-write) buffered 1 MiB writes flushed at the end, as a restore; V(rand-read-8k) direct 8 KiB random
        reads at queue depth 16; V(seq-read-direct) direct 1 MiB reads at queue depth 4.
    type: raw
    default: cold-seq-read
  copy_tool:
    description: The copy tool a V(copy) workload runs (installed by the C(copy_tools) role).
    type: path
    default: /usr/local/bin/iotune-copy
  copy_config:
    description: The copy tool's configuration file; its C(buffer_size) is the current value.
    type: path
    default: /etc/iotune/copy.conf
  fstab:
    description: The fstab a C(mount_options) candidate is written to (and put back from) during its measurement.
    type: path
    default: /etc/fstab
  vxfs_device:
    description: The tunefstab device of a VxFS target (default the source of its mount, C(/dev/vx/dsk/<dg>/<vol>)).
    type: str
  tunefstab:
    description: The tunefstab file a VxFS candidate is written to (and put back from) during its measurement.
    type: path
    default: /etc/vx/tunefstab
  vxtunefs:
    description: The vxtunefs program (default found in C(/opt/VRTS/bin), C(/sbin) and the PATH).
    type: path
  copy_direct:
    description: The current value of C(direct) for a V(copy) workload (whether the copies use C(--direct) today).
    type: bool
    default: false
  metric:
    description: V(bw) compares bytes per second (higher is better), V(lat) the mean latency (lower is better).
    type: str
    choices: [bw, lat]
    default: bw
  rounds:
    description: Rounds; each measures the current value and every candidate once. The plan refuses fewer than the rule needs.
    type: int
    default: 8
  runtime:
    description: Seconds at most of each measurement (one pass over O(size), stopped at this time).
    type: int
    default: 5
  size:
    description: Size of each new file (or of the region of the device) a measurement works on.
    type: str
    default: 256m
  max_seconds:
    description: The budget. The plan refuses a search whose estimate exceeds it; a search that runs late stops after a round.
    type: int
    default: 900
  confidence:
    description: Confidence of the decision, shared among the candidates.
    type: float
    default: 0.95
  min_effect:
    description: The smallest gain worth a change, a fraction (V(0.05) is 5 %).
    type: float
    default: 0.05
  resolution:
    description:
      - The effect, a fraction (V(0.25) is 25 %), that a V(no-difference) answer must have been able to see. When the
        noise hides effects that large the answer is V(undecided).
    type: float
    default: 0.25
  allow_memory:
    description:
      - Measure a target whose I/O reaches memory, and decide on measurements that read memory. The answer says so.
    type: bool
    default: false
  aa:
    description:
      - An A/A search. The one candidate is the current value again, nothing is changed, and the answer must be "no
        difference". It shows what the noise of this target does to the rule.
    type: bool
    default: false
  seed:
    description: Seed of the shuffled orders (default a random one, returned in RV(seed) to repeat the search).
    type: int
  run_id:
    description:
      - Run id of the search. Each candidate is applied under C(<run_id>-t<number>), so a search killed half-way is
        undone by C(io_rollback) (the latest open run) like any other run. Default one from the time and the process.
      - A search refuses to start while the trial of an earlier one is still applied (killed before its undo), since
        its candidate would be taken for the current value. The message names the rollback command.
    type: str
  journal_dir:
    description: Directory of the write-ahead run journals.
    type: path
    default: /var/lib/iotune/journal
  min_free:
    description: Free space to leave on the file system beyond a scratch file.
    type: str
    default: 64m
  fio_path:
    description: The fio program. Default C(fio) on the PATH.
    type: path
notes:
  - Only live values change during a search, never a udev rule or another file. C(harden_io.yml) with the fragment
    makes a recommendation persistent.
seealso:
  - module: iotune.storage.fio
  - module: iotune.storage.io_rollback
'''

EXAMPLES = r'''
- name: Find the read-ahead for a cold sequential read of /data
  iotune.storage.tune_io:
    target: /data
    settings:
      read_ahead_kb: [128, 512, 2048, 8192]
    workload: cold-seq-read
    size: 4g
    rounds: 8
    max_seconds: 1800
  register: found

- name: Show the answer and the fragment for harden_io.yml
  ansible.builtin.debug:
    msg: "{{ found.msg }}: {{ found.policy_fragment | to_nice_yaml }}"
'''

RETURN = r'''
msg:
  description: The answer in one sentence.
  returned: always
  type: str
  sample: "use read_ahead_kb=2048 instead of the current 128: read_ahead_kb=2048 better: 1.31x, faster in 8 of 8 rounds
    (interval 1.22x-1.40x); the current value ranged 401.2 MiB/s-433.0 MiB/s (1.1x) over 8 rounds"
run_id:
  description: The search's run id; each candidate was applied under C(<run_id>-t<number>).
  returned: always
  type: str
metric:
  description: The metric compared, V(bw) (bytes/s) or V(lat) (ns).
  returned: always
  type: str
seed:
  description: The seed of the shuffled orders.
  returned: always
  type: int
device:
  description: The kernel name of the device whose queue was searched, with its identity (model, wwn, serial).
  returned: always
  type: dict
current:
  description: The current value of each searched setting (the baseline).
  returned: always
  type: dict
candidates:
  description: The candidates (C(name), C(setting), C(value)).
  returned: always
  type: list
  elements: dict
orders:
  description: The order of each round.
  returned: always
  type: list
  elements: list
estimated_seconds:
  description: The plan's estimate of the search's duration.
  returned: always
  type: int
rounds:
  description: The measured value of each name in each complete round (bytes/s for V(bw), ns for V(lat)).
  returned: unless check mode
  type: list
  elements: dict
decision:
  description:
    - The decision rule's answer, C(recommended) (a candidate name or null), C(verdicts) (per candidate C(outcome),
      C(effect), C(interval), C(rounds), and C(mode_effects) with two modes), C(modes) and C(rule).
    - C(outcome) is one of V(better), V(worse), V(no-difference) (an effect of C(detectable) would have been seen),
      V(undecided) (the noise hides effects up to C(detectable); C(rounds_needed) rounds would see O(resolution)),
      V(inconsistent) (better in one mode only), V(cache-suspect) (measured memory) and V(too-few-rounds). C(won) and
      C(lost) count the rounds in which the candidate was better or worse than the current value.
    - C(spread) is the spread of the current value's measurements (C(low), C(high), C(ratio), C(cv)).
  returned: unless check mode
  type: dict
reached:
  description:
    - What the search's I/O reached, as the C(fio) module's RV(reached) (C(medium) V(device), V(memory) or V(unknown), with
      C(reasons) and C(fix)); the figures add a reason when a round of a name ran four times as fast as the median of
      its rounds.
  returned: always
  type: dict
recommended:
  description: The recommended setting and value, or an empty dict (keep the current value).
  returned: unless check mode
  type: dict
policy_fragment:
  description: The policy for harden_io.yml with the recommended values (C(iotune_block_devices)); empty when none.
  returned: unless check mode
  type: dict
deploy_concern:
  description:
    - The io_policy concern through which tune_io.yml deploys the recommended value, V(block_queue) for a queue setting
      or V(copy_tools) for the copy tool's buffer; null when nothing is recommended or the value is left to
      harden_io.yml (a mount option, a VxFS tunable, C(--direct)).
  returned: unless check mode
  type: str
hardware:
  description: The hardware the fragment was found on (model, WWN, serial).
  returned: unless check mode
  type: str
state_digest:
  description:
    - sha256 of the managed state a search of the target can change, before and after the search (C(before), C(after));
      they are equal, else the search fails naming the settings that differ.
    - That state is the queue settings of the target's device, the options and VxFS tunables of its mount point (live and
      persistent), and the O(fstab) and O(tunefstab) files; what changes elsewhere on the host meanwhile (a device attached,
      a container started) is not the search's.
    - In check mode C(before) only, to compare with a later run (a search killed half-way, then rolled back).
  returned: always
  type: dict
trials:
  description: The run ids under which a candidate was applied and undone.
  returned: unless check mode
  type: list
  elements: str
stopped:
  description: Why the search stopped before its last round (the budget), or null.
  returned: unless check mode
  type: str
'''

import errno
import os
import random
import signal
import stat
import time

from ansible.module_utils.basic import AnsibleModule

# AnsiballZ ships sources only: the collection's byte code comes from the host's cache (common.bytecode)
if __name__ == '__main__':
    from ansible_collections.iotune.storage.plugins.module_utils.common.bytecode import install as install_bytecode_cache
    install_bytecode_cache()
from ansible_collections.iotune.storage.plugins.module_utils.act.journal import new_run_id
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.module_utils.common.units import format_bytes, to_bytes
from ansible_collections.iotune.storage.plugins.module_utils.engine.tune import (
    MOUNT_SETTING, SearchError, Trials, managed_state, plan_errors, refuse_open_trials, run_rounds, state_differences, state_digest,
    state_scope)
from ansible_collections.iotune.storage.plugins.module_utils.measure.decide import decide
from ansible_collections.iotune.storage.plugins.module_utils.measure.fio_run import (
    MeasureError, check_device, create_scratch, device_bytes, free_bytes, run_fio, stop_on_signal)
from ansible_collections.iotune.storage.plugins.module_utils.measure.search import (
    BASELINE, budget_problem, cache_suspect_job, candidates, check_request, config_buffer_size, copy_argv, measured_value,
    answer_message, deploy_concern, policy_fragment, recommended_values, round_orders, rounds_problem, trial_argv, trial_seconds,
    workload_job)
from ansible_collections.iotune.storage.plugins.module_utils.measure.reach import MEMORY, classify_target, describe, fast_outlier
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import read_mountinfo, visible_mounts
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysfs import read_block_device
from ansible_collections.iotune.storage.plugins.module_utils.plan.block_queue import resolve_match
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import TUNABLE_NAMES, find_vxtunefs, normalize_tunable, validate_entry
from ansible_collections.iotune.storage.plugins.module_utils.parse.udev import DB_DIR
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import SCHEMA
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS

# the settings a trial applies through the journal (the copy tool's are options of its command line)
APPLIED = tuple(QUEUE_SETTINGS) + (MOUNT_SETTING,) + TUNABLE_NAMES

ARGUMENT_SPEC = dict(
    target=dict(type='path', required=True),
    directory=dict(type='path'),
    allow_destructive=dict(type='bool', default=False),
    settings=dict(type='dict', required=True),
    workload=dict(type='raw', default='cold-seq-read'),
    metric=dict(type='str', choices=['bw', 'lat'], default='bw'),
    rounds=dict(type='int', default=8),
    runtime=dict(type='int', default=5),
    size=dict(type='str', default='256m'),
    max_seconds=dict(type='int', default=900),
    confidence=dict(type='float', default=0.95),
    min_effect=dict(type='float', default=0.05),
    resolution=dict(type='float', default=0.25),
    allow_memory=dict(type='bool', default=False),
    aa=dict(type='bool', default=False),
    seed=dict(type='int'),
    run_id=dict(type='str'),
    journal_dir=dict(type='path', default='/var/lib/iotune/journal'),
    min_free=dict(type='str', default='64m'),
    fio_path=dict(type='path'),
    copy_tool=dict(type='path', default='/usr/local/bin/iotune-copy'),
    copy_config=dict(type='path', default='/etc/iotune/copy.conf'),
    copy_direct=dict(type='bool', default=False),
    fstab=dict(type='path', default='/etc/fstab'),
    vxfs_device=dict(type='str'),
    tunefstab=dict(type='path', default='/etc/vx/tunefstab'),
    vxtunefs=dict(type='path'),
    sys_root=dict(type='path', default='/sys'),
    proc_root=dict(type='path', default='/proc'),
)


def resolve_target(runner, params, mounts):
    """(match, scratch directory or None, raw device or None) of O(target); SearchError when it is neither
    a mount point nor a bare block device."""
    target = params['target']
    try:
        info = os.stat(target)
    except OSError as exc:
        raise SearchError('target %s: %s' % (target, exc.strerror))
    if stat.S_ISBLK(info.st_mode):
        if not params['allow_destructive']:
            raise SearchError('target %s is a block device: measuring it raw destroys its data; set allow_destructive: true '
                              'to allow it, or give a mount point' % target)
        try:
            check_device(runner, target)
        except MeasureError as exc:
            raise SearchError('target: %s' % exc)
        return {'name': os.path.basename(os.path.realpath(target))}, None, target
    # a mount point as the host's mount table (proc_root) says
    if target not in mounts:
        raise SearchError('target %s is neither a mount point nor a block device' % target)
    return {'mountpoint': target}, params['directory'] or target, None


def current_values(trials, settings, params, mounts):
    """{setting: current value} (a queue setting's live value, a mount's live options, a VxFS tunable's live
    value, the copy tool's from its config) and the kernel names of the target's devices (none when no queue
    setting is searched and the target has no block device: a VxFS volume of the simulator; one when a queue
    setting is searched)."""
    queue = dict((setting, values[0]) for setting, values in settings.items() if setting in QUEUE_SETTINGS)
    names, dummy, problem = resolve_match(trials.match, params['sys_root'], params['proc_root'], DB_DIR)
    if (problem or len(names) != 1) and queue:
        raise SearchError('target: a search tries the queue of one device: %s' % (problem or '%s selects %s' % (
            params['target'], ', '.join(names))))
    current = {}
    vxfs = dict((setting, values[0]) for setting, values in settings.items() if setting in TUNABLE_NAMES)
    for values in (queue, vxfs):
        for check in trials.plan(values)['checks'] if values else []:
            current.setdefault(check['setting'], check['live'])
    if 'buffer_size' in settings:
        current['buffer_size'] = config_buffer_size(read_config(params['copy_config']),
                                                    SCHEMA['iotune_copy_tools']['options']['buffer_size']['default'])
    if 'direct' in settings:
        current['direct'] = params['copy_direct']
    if MOUNT_SETTING in settings:
        entry = mounts.get(trials.match.get('mountpoint'))
        if entry is None:
            raise SearchError('settings.%s: the target must be a mount point' % MOUNT_SETTING)
        current[MOUNT_SETTING] = ','.join(entry['options'])
    return current, [] if problem else names


def vxfs_of(params, mounts):
    """The VxFS side of a search: {device (vxfs_device, else the source of the target's mount), tunefstab,
    vxtunefs}; SearchError when a tunable is searched and the target is not mounted as vxfs."""
    if not set(params['settings']) & set(TUNABLE_NAMES):
        return {}
    entry = mounts.get(params['target'])
    if entry is None or entry['fstype'] != 'vxfs':
        raise SearchError('settings: a VxFS tunable is searched, but %s is not mounted as vxfs' % params['target'])
    vxtunefs, problem = find_vxtunefs(params['vxtunefs'])
    if problem or vxtunefs is None:
        raise SearchError('vxtunefs: %s' % (problem or 'not found: give its path in vxtunefs'))
    device = params['vxfs_device'] or entry['source']
    errors = []
    for name in sorted(set(params['settings']) & set(TUNABLE_NAMES)):
        for index, value in enumerate(params['settings'][name]):
            errors.extend(validate_entry({'device': device, 'tunables': {name: value}}, 'settings.%s[%d]' % (name, index))[1])
    if errors:
        raise SearchError('; '.join(error.replace('.tunables.%s' % name, '') for error in errors))
    return {'device': device, 'tunefstab': params['tunefstab'], 'vxtunefs': vxtunefs}


def read_config(path):
    """The copy tool's config file's text ('' when there is none); at most 64 KiB of a regular file, no link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return ''
        raise SearchError('copy_config %s: %s' % (path, exc.strerror))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SearchError('copy_config %s is not a regular file' % path)
        data = os.read(fd, 65537)
    finally:
        os.close(fd)
    if len(data) > 65536:
        raise SearchError('copy_config %s is larger than 64 KiB: not a copy.conf' % path)
    return data.decode('utf-8', 'replace')


def checked_candidates(trials, found, current):
    """The candidates, each planned (read only), a mount option already live left out (it is the current value):
    SearchError naming ``settings.<name>`` when the device would refuse one or no live remount can set it."""
    errors = []
    live = (current.get(MOUNT_SETTING) or '').split(',')
    found[:] = [candidate for candidate in found if not (candidate['setting'] == MOUNT_SETTING and candidate['value'] in live)
                and not (candidate['setting'] in TUNABLE_NAMES and normalize_tunable(candidate['setting'], candidate['value'])
                         == current.get(candidate['setting']))]
    for candidate in found:
        setting, value = candidate['setting'], candidate['value']
        if setting in APPLIED:
            kind = 'mount' if setting == MOUNT_SETTING else 'vxtunefs' if setting in TUNABLE_NAMES else None
            errors.extend(plan_errors(trials.plan({setting: value}), 'settings.%s' % setting, live_kind=kind,
                                      queue_value=value if setting in QUEUE_SETTINGS else None))
    if errors:
        raise SearchError('nothing measured: %s' % '; '.join(errors))


class Measure(object):
    """One fio measurement: a new file (or the device's region), one fio pass, the value of the metric."""

    def __init__(self, runner, fio, job, params, directory, device):
        self.runner, self.fio, self.job, self.params = runner, fio, job, params
        self.directory, self.device = directory, device
        self.size = to_bytes(params['size'])
        if device is not None:
            self.size = min(self.size, device_bytes(device))

    def __call__(self, candidate):
        scratch = None
        try:
            if self.device is None:
                scratch = create_scratch(self.directory, self.size, to_bytes(self.params['min_free']))
            argv = trial_argv(self.fio, self.job, scratch or self.device, self.size, self.params['runtime'])
            dummy, parsed = run_fio(self.runner, argv)
        finally:
            if scratch is not None and os.path.exists(scratch):
                os.unlink(scratch)
        return measured_value(parsed, self.job, self.params['metric'])


def lay_out(path, size):
    """Write ``size`` bytes to the new file ``path``, flush them and drop its pages: a cold source."""
    block = os.urandom(1024 * 1024)
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        left = size
        while left > 0:
            left -= os.write(fd, block[:min(left, len(block))])
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


class CopyMeasure(Measure):
    """One copy: a new source file, the copy tool's copy of it timed until the copy is on disk; bytes/s."""

    def __call__(self, candidate):
        source = create_scratch(self.directory, 2 * self.size, to_bytes(self.params['min_free']))
        destination = source + '-copy'
        try:
            lay_out(source, self.size)
            argv = copy_argv(self.params['copy_tool'], self.params['copy_config'], candidate, self.params['copy_direct'],
                             source, destination)
            started = time.monotonic()
            rc, out, err = self.runner.change(argv)
            if rc != 0:
                raise MeasureError('%s failed (rc=%d): %s' % (' '.join(argv[:-3]), rc, (err or out).strip()[-500:]))
            fd = os.open(destination, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            elapsed = time.monotonic() - started
        finally:
            for path in (source, destination):
                if os.path.lexists(path):
                    os.unlink(path)
        return self.size / elapsed if self.params['metric'] == 'bw' else elapsed * 1e9


def make_trial(trials, measure, by_name, suspect_job):
    def trial(name, number):
        candidate = by_name[name]
        applied = candidate['setting'] in APPLIED
        trial_id = trials.apply({candidate['setting']: candidate['value']}, number) if applied else None
        try:
            value = measure(candidate)
        finally:
            if trial_id is not None:
                trials.undo(trial_id)
        return value, suspect_job
    return trial


def plan_search(module, runner, params, result):
    """Everything checked before the first change: (trials, measure, by_name, device info, job, the scope of the state
    digest); SearchError otherwise."""
    job = workload_job(params['workload'])
    # the host's mount table, read once for the target, the VxFS volume and the live mount options
    mounts = visible_mounts(read_mountinfo(params['proc_root']))
    match, directory, device = resolve_target(runner, params, mounts)
    refuse_open_trials(params['journal_dir'])
    result['reached'] = classify_target(device or directory, params['sys_root'], params['proc_root'])
    if result['reached']['medium'] == MEMORY and not params['allow_memory']:
        raise SearchError('nothing measured: %s; allow_memory: true measures it anyway' % describe(result['reached']))
    vxfs = vxfs_of(params, mounts)
    trials = Trials(runner, match, params['journal_dir'], result['run_id'], params['sys_root'], params['proc_root'],
                    warn=module.warn, fstab=params['fstab'], vxfs=vxfs)
    current, names = current_values(trials, params['settings'], params, mounts)
    name = names[0] if len(names) == 1 else None
    info = read_block_device(params['sys_root'], name, udev_db_dir=DB_DIR) if name else {}
    result.update(current=current, device=dict(name=name, **dict((key, info.get(key)) for key in ('model', 'wwn', 'serial'))))
    found = candidates(params['settings'], current, params['aa'])
    checked_candidates(trials, found, current)
    problem = rounds_problem(params['rounds'], params['confidence'], max(len(found), 1))
    names = [BASELINE] + [candidate['name'] for candidate in found]
    seconds = trial_seconds(job, params['runtime'], params['size'])
    result.update(candidates=found, orders=round_orders(names, params['rounds'], result['seed']),
                  estimated_seconds=seconds * params['rounds'] * len(names))
    problem = problem or budget_problem(params['rounds'] * len(names), seconds, params['max_seconds'])
    if not found:
        problem = 'settings: every candidate is the current value (%s); nothing to compare' % current
    if problem:
        raise SearchError(problem)
    by_name = dict((candidate['name'], candidate) for candidate in found)
    by_name[BASELINE] = {'name': BASELINE, 'setting': None, 'value': None}
    scope = state_scope(names, match.get('mountpoint'), params['fstab'], params['tunefstab'])
    return trials, measurer(module, runner, job, params, directory, device), by_name, info, job, scope


def space_problem(job, params, directory):
    """The sentence refusing a search whose files do not fit in ``directory`` (checked before the first change), or None."""
    if directory is None:
        return None
    needed = to_bytes(params['size']) * (2 if job.get('copy') else 1) + to_bytes(params['min_free'])
    try:
        free = free_bytes(directory)
    except OSError as exc:
        return 'directory %s: %s' % (directory, exc.strerror)
    if free < needed:
        return ('size: each measurement needs %s in %s (%s%s and min_free), %s are free' % (
            format_bytes(needed), directory, 'a source and its copy of ' if job.get('copy') else 'a file of ', params['size'],
            format_bytes(free)))
    return None


def measurer(module, runner, job, params, directory, device):
    """The measurement of the workload: the copy tool's copy, or fio."""
    problem = space_problem(job, params, directory)
    if problem:
        raise SearchError(problem)
    if job.get('copy'):
        if directory is None:
            raise SearchError('workload: copy needs a mount point as target (it copies a file there)')
        if not os.access(params['copy_tool'], os.X_OK):
            raise SearchError('copy_tool %s is not an executable file: install the copy tools (the copy_tools role)' % params['copy_tool'])
        return CopyMeasure(runner, None, job, params, directory, device)
    fio = params['fio_path'] or module.get_bin_path('fio')
    if fio is None:
        raise SearchError('fio not found on the PATH: install the fio package on the host')
    return Measure(runner, fio, job, params, directory, device)


def memory_figures(rounds, reached, allow_memory, job):
    """The names a round of which ran REPEAT_SPEEDUP times faster than the median of their rounds (memory answered it:
    no device gives the same I/O at such different speeds), added to ``reached`` as its reasons; none with allow_memory."""
    found = set()
    for name in sorted(set(name for measured in rounds for name in measured)):
        outlier = fast_outlier([measured.get(name) for measured in rounds])
        if outlier:
            found.add(name)
            reached['reasons'].append('%s ran %.1fx faster in one round than the median of its rounds: memory answered it'
                                      % (name, outlier[0] / outlier[1]))
    if found and reached['medium'] != MEMORY:
        buffered = not job.get('direct', True) and not job.get('copy')
        reached.update(medium=MEMORY, fix=reached['fix'] or ('direct I/O or a file larger than twice the RAM' if buffered else
                                                             'a disk no cache answers for (a virtual disk with cache=none), '
                                                             'or a real disk'))
    return set() if allow_memory else found


def search(module, runner, params, result):
    trials, measure, by_name, info, job, scope = plan_search(module, runner, params, result)
    fragment_info = (result['device']['name'], info)
    before = managed_state(scope, params['sys_root'], params['proc_root'])
    if module.check_mode:
        result.update(state_digest={'before': state_digest(before)}, msg='check mode: would measure %d round(s) of %d (about %d s)' % (
            params['rounds'], len(result['orders'][0]), result['estimated_seconds']))
        return
    result['trials'] = trials.applied
    started = time.monotonic()
    rounds, suspect, stopped = run_rounds(result['orders'], make_trial(trials, measure, by_name, cache_suspect_job(job)),
                                          time.monotonic, started + params['max_seconds'])
    after = managed_state(scope, params['sys_root'], params['proc_root'])
    suspect |= memory_figures(rounds, result['reached'], params['allow_memory'], job)
    decision = decide(rounds, BASELINE, [candidate['name'] for candidate in result['candidates']], params['confidence'],
                      params['min_effect'], params['metric'] == 'bw', suspect=suspect, resolution=params['resolution'])
    values = recommended_values(decision, by_name)
    fragment, hardware, warning = policy_fragment(fragment_info[0], fragment_info[1], values, trials.match.get('mountpoint'),
                                                  trials.vxfs.get('device'))
    if warning and values:
        module.warn(warning)
    result.update(rounds=rounds, decision=decision, recommended=values, policy_fragment=fragment if values else {},
                  deploy_concern=deploy_concern(values),
                  hardware=hardware, stopped=stopped, state_digest={'before': state_digest(before), 'after': state_digest(after)},
                  elapsed_seconds=round(time.monotonic() - started, 1),
                  msg=answer_message(decision, by_name, result['current'], job, params['metric'], result['reached']))
    differences = state_differences(before, after)
    if differences:
        raise SearchError('the managed state after the search differs from the state before (%s; digest %s, then %s); the '
                          'journal runs %s hold what was changed' % (', '.join(differences), state_digest(before)[:12],
                                                                     state_digest(after)[:12], ', '.join(trials.applied)))


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    errors = check_args(params, paths=('target', 'directory', 'journal_dir', 'fio_path', 'copy_tool', 'copy_config', 'fstab',
                                       'tunefstab', 'vxtunefs', 'sys_root', 'proc_root'))
    errors += check_request(params, TUNABLE_NAMES)
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors)
    runner = CommandRunner(module)
    result = dict(changed=False, run_id=params['run_id'] or 'tune-' + new_run_id(), metric=params['metric'],
                  seed=params['seed'] if params['seed'] is not None else random.SystemRandom().randrange(2 ** 31))
    previous = dict((signum, signal.signal(signum, stop_on_signal)) for signum in (signal.SIGTERM, signal.SIGHUP))
    try:
        search(module, runner, params, result)
    except (SearchError, MeasureError, ValueError) as exc:
        # a search that failed after its answer (the digest differs) keeps the answer's figures, with the failure as msg
        module.fail_json(**dict(result, msg=str(exc)))
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
