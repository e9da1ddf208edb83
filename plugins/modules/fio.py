#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: fio
short_description: Measure storage I/O with fio, safely, and return parsed results
version_added: 0.2.0
description:
  - Runs fio jobs (named presets or raw fio options) O(repeat) times and returns, per job and direction, the median
    bandwidth (bytes/s), IOPS, mean latency and completion-latency percentiles (ns), with the coefficient of
    variation of each metric over the repeats.
  - By default fio works on a scratch file in O(directory) that the module creates and removes, also when fio fails.
    Free space for it is checked first.
  - A raw block device is measured only when named in O(filename) with O(allow_destructive=true), and never when it
    carries a file-system, RAID or partition-table signature (C(blkid -p)) or is held by another device.
  - B(What was measured.) Every job returns what its I/O reached in RV(results[].reached), and the target in
    RV(reached), V(device) or V(memory) (or V(unknown)), with the reasons and the fix. Memory is a file system in
    memory (tmpfs, ramfs), a RAM disk (zram, brd), a loop device without direct I/O (the host's page cache answers for
    its backing file), a device-mapper or MD device or an overlay over one of these; and figures no device gives (a read
    repeat four times as fast as the median of its repeats, buffered reads twice as fast as the direct reads of the
    same run, direct reads completing faster than a device of the kind answers).
  - B(Cache guard.) A buffered job (O(direct=false)) whose working set is under twice the RAM measures the page cache,
    not the storage. A job that measured memory returns C(cache_suspect=true) and a warning (a buffered job's on a small
    working set only unless O(allow_cached=true)).
  - fio always runs with an argument list, never through a shell. Raw fio options are an allowlist of options that
    only shape the workload (see O(jobs)); options that name files or paths, run commands, write other files or
    change system state are refused.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.roots
attributes:
  check_mode:
    support: full
    details:
      - Check mode validates the request and returns the fio command lines in RV(argv); fio does not run and no file
        is created.
  diff_mode:
    support: none
  idempotent:
    support: partial
    details:
      - Measuring a directory leaves no state behind (the scratch file is removed) and reports C(changed=false).
      - On a raw device, write jobs overwrite its data and report C(changed=true) on every run.
options:
  directory:
    description:
      - Existing directory on the file system to measure. The scratch file C(.iotune-fio-<pid>-<random>) is created there
        and removed when the module ends.
      - It and every directory above it must belong to root (or the user the module runs as) and be writable by nobody
        else unless sticky (as C(/tmp)); otherwise whoever can rename in it could replace the scratch file with a link
        while fio writes.
      - Exactly one of O(directory) and O(filename) is required.
    type: path
  filename:
    description:
      - A raw block device to measure instead of a scratch file. Requires O(allow_destructive=true); write jobs destroy
        its data. Refused when it carries any signature or has holders (dm, md, LVM on top).
    type: path
  allow_destructive:
    description: Allow measuring the raw device in O(filename).
    type: bool
    default: false
  jobs:
    description:
      - The jobs, run one after another. An element is a preset name or a dict.
      - Presets are V(seq-read) and V(seq-write) (1 MiB blocks), V(rand-read-4k), V(rand-write-4k), V(mixed-70-30)
        (random 4 KiB, 70 % reads) and V(copy-like) (sequential 8 MiB reads and writes, synchronous, as a large-buffer
        copy tool does).
      - "A dict has C(preset) or C(rw) (V(read), V(write), V(randread), V(randwrite), V(rw), V(readwrite), V(randrw)),
        and optionally C(name) (default: the preset or rw; names must be unique), C(bs), C(iodepth), C(ioengine),
        C(rwmixread), C(direct) (overrides O(direct)) and C(options) (further fio options, a dict)."
      - "C(options) is an allowlist: only fio options that shape the workload are accepted, by group: block sizes
        C(bsrange), C(blocksize_range), C(bssplit), C(bs_unaligned), C(blocksize_unaligned), C(bs_is_seq_rand),
        C(blockalign), C(ba); amount C(io_size), C(number_ios), C(loops); parallelism C(numjobs), C(thread),
        C(group_reporting), C(iodepth_batch), C(iodepth_batch_submit), C(iodepth_batch_complete_min),
        C(iodepth_batch_complete_max), C(iodepth_low), C(serialize_overlap), C(io_submit_mode); random pattern
        C(norandommap), C(randrepeat), C(allrandrepeat), C(randseed), C(random_distribution), C(random_generator),
        C(percentage_random), C(rw_sequencer); flushing and layout C(sync), C(fsync), C(fdatasync), C(end_fsync),
        C(fsync_on_close), C(invalidate), C(fadvise_hint), C(pre_read), C(overwrite), C(fallocate); pacing C(startdelay), C(thinktime),
        C(thinktime_spin), C(thinktime_blocks), C(thinktime_blocks_type), C(rate), C(rate_min), C(rate_iops),
        C(rate_iops_min), C(rate_process), C(rate_ignore_thinktime), C(rate_cycle), C(latency_target),
        C(latency_window), C(latency_percentile), C(latency_run), C(max_latency); buffers C(zero_buffers),
        C(refill_buffers), C(scramble_buffers), C(buffer_compress_percentage), C(buffer_compress_chunk),
        C(dedupe_percentage), C(mem), C(iomem), C(mem_align), C(iomem_align); engine tuning C(hipri), C(fixedbufs),
        C(registerfiles), C(sqthread_poll), C(nonvectored), C(userspace_reap), C(nowait)."
      - "Values are numbers, V(true)/V(false) for flags (fio's 1 and 0), or plain strings of letters, digits and
        C(. , : / % -). C(mem) and C(iomem) take only V(malloc), V(mmap) or V(mmapshared) (anonymous memory; the
        file-backed C(mmap:/path) form, which creates and truncates that file, is refused). Anything else is refused
        before a file is created or fio runs, naming the job and the option: among others C(filename), C(directory),
        C(opendir), C(exec_prerun), C(exec_postrun), C(write_*_log), C(trigger*), C(ioscheduler), C(cgroup), C(prio),
        C(lockmem), C(unlink), C(offset), C(filesize), C(verify*) and C(status_interval). Options the module sets
        itself (C(rw), C(bs), C(iodepth), C(ioengine), C(rwmixread), C(direct), C(size), C(runtime), ...) are given
        with the job keys and module options instead."
    type: list
    elements: raw
    default: [seq-read]
  size:
    description:
      - Working set of each job (the scratch file's size, or the region of the device), for example V(1g) or V(268435456).
    type: str
    default: 256m
  runtime:
    description: Seconds each job runs (time based, looping over the working set); V(0) runs until O(size) is done once.
    type: int
    default: 10
  ramp_time:
    description: Seconds each job runs before measuring starts.
    type: int
    default: 0
  direct:
    description: Use O_DIRECT (bypass the page cache). Jobs may override it.
    type: bool
    default: true
  ioengine:
    description:
      - fio I/O engine of jobs that do not set one. Default V(libaio) where this fio has it, else V(psync).
      - fio's other engines are refused; they run commands, use the network or address devices by other means.
    type: str
    choices: [sync, psync, vsync, pvsync, pvsync2, libaio, io_uring, posixaio, mmap]
  repeat:
    description: Runs of each job; the results are the median, with the coefficient of variation as the noise.
    type: int
    default: 3
  allow_cached:
    description: Accept buffered results on a working set under twice the RAM without a warning.
    type: bool
    default: false
  output_dir:
    description: Keep fio's raw JSON of every run there, as C(<job>-<run>.json) (created when missing).
    type: path
  fio_path:
    description: The fio program. Default C(fio) on the PATH.
    type: path
  min_free:
    description: Free space to leave in O(directory) beyond the scratch file.
    type: str
    default: 64m
notes:
  - Each job runs in its own fio process, the jobs in turn for each repeat, so slow drift spreads over all jobs.
  - SIGTERM and SIGHUP end a run with the scratch file removed. When the module is killed with SIGKILL (an async
    timeout does that), the scratch file can remain; its name starts with C(.iotune-fio-).
seealso:
  - name: fio documentation
    description: The fio HOWTO, every job option.
    link: https://fio.readthedocs.io/en/latest/fio_doc.html
  - module: iotune.storage.io_facts
'''

EXAMPLES = r'''
- name: Sequential and random reads on /data, direct I/O, 3 repeats
  iotune.storage.fio:
    directory: /data
    jobs: [seq-read, rand-read-4k]
    size: 1g
    runtime: 20
  register: bench

- name: A buffered large-block write as a backup restore does, keeping the raw JSON
  iotune.storage.fio:
    directory: /restore
    jobs:
      - {preset: seq-write, name: restore-write, bs: 8m, direct: false}
    size: 64g
    output_dir: /var/lib/iotune/fio

- name: Raw options - 64 KiB random mixed I/O, queue depth 16
  iotune.storage.fio:
    directory: /data
    jobs:
      - {rw: randrw, rwmixread: 80, bs: 64k, iodepth: 16, name: oltp, options: {numjobs: 2, group_reporting: 1}}

- name: Show the bandwidth of each job
  ansible.builtin.debug:
    msg: "{{ item.name }}: {{ ((item.read or item.write).bw_bytes / 1048576) | round(1) }} MiB/s"
  loop: "{{ bench.results }}"
'''

RETURN = r'''
results:
  description: One entry per job, in order.
  returned: always (empty in check mode)
  type: list
  elements: dict
  contains:
    name:
      description: The job name.
      type: str
      returned: always
    preset:
      description: The preset, or V(null) for a job given with C(rw).
      type: str
      returned: always
    rw:
      description: fio's C(rw) of the job.
      type: str
      returned: always
    direct:
      description: Whether the job used O_DIRECT.
      type: bool
      returned: always
    cache_suspect:
      description: The job measured memory (its RV(results[].reached) says V(memory)), not the storage.
      type: bool
      returned: always
    reached:
      description:
        - What the job's I/O reached, C(medium) (V(device), V(memory) or V(unknown)), C(reasons) (sentences; empty for a
          device) and C(fix) (how to measure the device instead; null for a device).
      type: dict
      returned: always
    bw_range:
      description: Per direction the lowest and the highest bandwidth of the repeats (bytes/s), or null.
      type: dict
      returned: always
    detectable_pct:
      description:
        - Per direction the smallest change of bandwidth (percent) a comparison with another measurement as noisy as
          this one would see (the 10 % threshold, or twice the combined noise of the two when larger), or null.
      type: dict
      returned: always
    read:
      description:
        - Medians over the repeats of C(bw_bytes) (bytes/s), C(iops), C(lat_mean_ns) (total latency, submission and
          completion), C(clat_mean_ns), C(clat_p50_ns), C(clat_p95_ns), C(clat_p99_ns), C(clat_p999_ns) (completion
          latency; all in ns) and C(io_bytes); V(null) when the job did not read.
        - A percentile is V(null) when fio did not report it.
      type: dict
      returned: always
    write:
      description: As RV(results[].read), for writes.
      type: dict
      returned: always
    cov:
      description:
        - Per direction (C(read), C(write); V(null) without I/O in it), the coefficient of variation (sample standard
          deviation / mean) of each metric over the repeats. V(0.05) means 5 % noise.
      type: dict
      returned: always
  sample:
    - name: seq-read
      preset: seq-read
      rw: read
      direct: true
      cache_suspect: false
      read: {bw_bytes: 1038090240, iops: 990.0, lat_mean_ns: 1008763.2, clat_mean_ns: 1002100.5, clat_p50_ns: 978944, clat_p95_ns: 1187840,
             clat_p99_ns: 1531904, clat_p999_ns: 2179072, io_bytes: 10380902400}
      write: null
      cov:
        read: {bw_bytes: 0.012, iops: 0.012, lat_mean_ns: 0.013, clat_p50_ns: 0.02, clat_p95_ns: 0.03, clat_p99_ns: 0.05,
               clat_p999_ns: 0.08}
        write: null
fio_version:
  description: fio's version, from its JSON output.
  returned: when fio ran
  type: str
  sample: "fio-3.33"
wall_s:
  description: Seconds the module spent, fio runs and preparation included.
  returned: always
  type: float
  sample: 92.4
repeat:
  description: Runs of each job.
  returned: always
  type: int
target:
  description: The scratch file or device measured (the scratch file no longer exists).
  returned: always
  type: str
ioengine:
  description: The engine used for jobs that did not set one.
  returned: always
  type: str
working_set_bytes:
  description: The working set of each job, in bytes.
  returned: always
  type: int
memory_bytes:
  description: RAM of the host (C(MemTotal)), the reference of the cache guard.
  returned: always
  type: int
cache_suspect:
  description: True when any job measured memory.
  returned: always
  type: bool
reached:
  description:
    - What I/O on the target reaches, from the target alone, C(medium) (V(device), V(memory), V(unknown)), C(device) (the
      kernel name under the target), C(chain) (the devices followed, top first), C(reasons) and C(fix).
  returned: always
  type: dict
  sample: {medium: memory, device: loop3, chain: [loop3], fix: "losetup --direct-io=on /dev/loop3 ...",
           reasons: ["loop3 reads its backing file /var/tmp/disk.img through the host's page cache (direct I/O off)"]}
argv:
  description: The fio command line of each job (as run for each repeat).
  returned: always
  type: list
  elements: list
raw_files:
  description: The raw JSON files written to O(output_dir).
  returned: when O(output_dir) is set
  type: list
  elements: str
'''

import os
import signal
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils.measure.fio import (
    IOENGINES,
    aggregate,
    build_argv,
    cache_reason,
    cache_suspect,
    cache_warning,
    job_result,
    normalize_jobs,
    preset_sets,
)
from ansible_collections.iotune.storage.plugins.module_utils.measure.fio_run import (
    MeasureError,
    SCRATCH_PREFIX,
    check_device,
    create_scratch,
    default_ioengine,
    device_bytes,
    run_fio,
    stop_on_signal,
)
from ansible_collections.iotune.storage.plugins.module_utils.measure.reach import (
    MEMORY, classify_target, describe, figure_reasons, job_reached, rotational)
from ansible_collections.iotune.storage.plugins.module_utils.parse.meminfo import read_memory_bytes
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import atomic_write
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import private_directory
from ansible_collections.iotune.storage.plugins.module_utils.common.units import to_bytes


def fail(module, msg, **extra):
    module.fail_json(msg=msg, **extra)


def write_raw(output_dir, name, text):
    """A new name and a rename: a link planted at the name is replaced, never written through."""
    path = os.path.join(output_dir, name)
    atomic_write(path, text.encode('utf-8'), mode=0o644, keep_existing=False, follow_links=False)
    return path


ARGUMENT_SPEC = dict(
    directory=dict(type='path'),
    filename=dict(type='path'),
    allow_destructive=dict(type='bool', default=False),
    jobs=dict(type='list', elements='raw', default=['seq-read']),
    size=dict(type='str', default='256m'),
    runtime=dict(type='int', default=10),
    ramp_time=dict(type='int', default=0),
    direct=dict(type='bool', default=True),
    ioengine=dict(type='str', choices=list(IOENGINES)),
    repeat=dict(type='int', default=3),
    allow_cached=dict(type='bool', default=False),
    output_dir=dict(type='path'),
    fio_path=dict(type='path'),
    min_free=dict(type='str', default='64m'),
    proc_root=dict(type='path', default='/proc'),
    sys_root=dict(type='path', default='/sys'),
)


def elapsed(started):
    return round(time.monotonic() - started, 3)


def checked_request(module, params):
    """(size, min_free, jobs) from the parameters, or fail naming the first bad one."""
    errors = check_args(params, paths=('directory', 'filename', 'output_dir', 'fio_path', 'proc_root', 'sys_root'))
    if errors:
        fail(module, '; '.join(errors))
    for key in ('runtime', 'ramp_time'):
        if params[key] < 0:
            fail(module, '{0} must be 0 or more seconds, got {1}'.format(key, params[key]))
    if params['repeat'] < 1:
        fail(module, 'repeat must be at least 1, got {0}'.format(params['repeat']))
    try:
        size = to_bytes(params['size'])
        min_free = to_bytes(params['min_free'])
    except ValueError as exc:
        fail(module, 'size/min_free: {0}'.format(exc))
    if size <= 0:
        fail(module, 'size must be more than 0 bytes')
    try:
        jobs = normalize_jobs(params['jobs'])
    except ValueError as exc:
        fail(module, str(exc))
    if params['filename'] and not params['allow_destructive']:
        fail(module, 'filename {0} is a raw device measurement that destroys its data; set allow_destructive: true '
                     'to allow it, or use directory to measure a file system'.format(params['filename']))
    return size, min_free, jobs


def find_fio(module, fio_path):
    """The fio binary to run (fio_path, else fio on the PATH), or fail."""
    fio = fio_path or module.get_bin_path('fio')
    if fio is None or not os.access(fio, os.X_OK):
        fail(module, 'fio not found{0}: install the fio package on the host'.format(
            ' at ' + fio_path if fio_path else ' on the PATH'))
    return fio


def complete_jobs(jobs, params, size, ioengine):
    """Give every job the module-wide settings: direct and ioengine unless the job sets them, size and times."""
    for job in jobs:
        job.setdefault('direct', params['direct'])
        if 'ioengine' not in job and not preset_sets(job, 'ioengine'):
            job['ioengine'] = ioengine
        job['size'] = size
        job['runtime'] = params['runtime']
        job['ramp_time'] = params['ramp_time']


def plan_argvs(fio, jobs, target):
    """The fio command line of each job on target; MeasureError names a job that cannot run."""
    try:
        return [build_argv(fio, dict(job, filename=target)) for job in jobs]
    except ValueError as exc:
        raise MeasureError('jobs: {0}'.format(exc))


def plan_target(runner, fio, jobs, params, result):
    """(device or None, argvs): a device is checked and caps the working set; for a directory the
    jobs are validated on a stand-in name before the scratch file is created."""
    if params['filename']:
        check_device(runner, params['filename'])
        result['working_set_bytes'] = min(result['working_set_bytes'], device_bytes(params['filename']))
        return params['filename'], plan_argvs(fio, jobs, params['filename'])
    return None, plan_argvs(fio, jobs, os.path.join(params['directory'], SCRATCH_PREFIX + 'check'))


def run_repeats(runner, params, jobs, argvs, result):
    """Every job, params['repeat'] times: one run per repeat; each raw JSON kept in output_dir when set."""
    if params['output_dir']:
        try:
            private_directory(params['output_dir'], 'output_dir', 0o755)
        except ValueError as exc:
            raise MeasureError(str(exc))
        result['raw_files'] = []
    runs = []
    for number in range(1, params['repeat'] + 1):
        run = {'fio_version': None, 'jobs': []}
        for job, argv in zip(jobs, argvs):
            text, parsed = run_fio(runner, argv)
            run['fio_version'] = parsed['fio_version']
            run['jobs'].extend(parsed['jobs'])
            if params['output_dir']:
                result['raw_files'].append(write_raw(params['output_dir'], '{0}-{1}.json'.format(job['name'], number), text))
        runs.append(run)
    return runs


def measure(module, runner, fio, jobs, min_free, result, started):
    """(runs, target, argvs); check mode exits with the plan. The scratch file is removed and the signal
    handlers restored whatever happens; a failure fails the module with the result so far."""
    params = module.params
    scratch = None
    previous = dict((signum, signal.signal(signum, stop_on_signal)) for signum in (signal.SIGTERM, signal.SIGHUP))
    try:
        target, argvs = plan_target(runner, fio, jobs, params, result)
        if module.check_mode:
            result.update(argv=argvs, target=target or params['directory'], wall_s=elapsed(started),
                          msg='check mode: {0} fio run(s) planned, nothing measured'.format(len(jobs) * params['repeat']))
            module.exit_json(**result)
        if target is None:
            target = scratch = create_scratch(params['directory'], result['working_set_bytes'], min_free)
            argvs = plan_argvs(fio, jobs, target)
        runs = run_repeats(runner, params, jobs, argvs, result)
    except (MeasureError, OSError) as exc:
        result['wall_s'] = elapsed(started)
        fail(module, str(exc), **result)
    finally:
        if scratch is not None and os.path.exists(scratch):
            os.unlink(scratch)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return runs, target, argvs


def add_results(module, result, runs, jobs):
    """The median results of each job into result, each with what its I/O reached (reach.job_reached: the target,
    the cache guard, the figures); a warning for each job that measured memory (a buffered one's unless allow_cached)."""
    summary = aggregate(runs)
    size, memory, target = result['working_set_bytes'], result['memory_bytes'], result['reached']
    entries = [job_result(aggregated, job, False) for aggregated, job in zip(summary['jobs'], jobs)]
    samples = [[(run['jobs'][index].get('read') or {}).get('bw_bytes') for run in runs] for index in range(len(entries))]
    figures = figure_reasons([dict(entry, read_bw_samples=found) for entry, found in zip(entries, samples)],
                             rotational(module.params['sys_root'], target['chain']))
    warnings = []
    for entry, job in zip(entries, jobs):
        buffered = cache_suspect(job['direct'], size, memory)
        entry['reached'] = job_reached(target, job['direct'], figures.get(job['name']),
                                       cache_reason(size, memory) if buffered else None)
        entry['cache_suspect'] = entry['reached']['medium'] == MEMORY
        result['results'].append(entry)
        if buffered and target['medium'] != MEMORY and not figures.get(job['name']):
            # the cache guard alone: its warning, which allow_cached silences
            if not module.params['allow_cached']:
                warnings.append(cache_warning(job['name'], size, memory))
        elif entry['cache_suspect']:
            warnings.append('fio job %s: %s' % (job['name'], describe(entry['reached'])))
    for warning in warnings:
        module.warn(warning)
    return summary


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, mutually_exclusive=[('directory', 'filename')],
                           required_one_of=[('directory', 'filename')], supports_check_mode=True)
    runner = CommandRunner(module)
    params = module.params
    started = time.monotonic()
    size, min_free, jobs = checked_request(module, params)
    fio = find_fio(module, params['fio_path'])
    ioengine = params['ioengine'] or default_ioengine(runner, fio)
    memory = read_memory_bytes(params['proc_root'])
    complete_jobs(jobs, params, size, ioengine)

    result = dict(changed=False, results=[], repeat=params['repeat'], ioengine=ioengine, working_set_bytes=size,
                  memory_bytes=memory, cache_suspect=False)
    result['reached'] = classify_target(params['filename'] or params['directory'], params['sys_root'], params['proc_root'])
    runs, target, argvs = measure(module, runner, fio, jobs, min_free, result, started)
    summary = add_results(module, result, runs, jobs)
    result.update(
        fio_version=summary['fio_version'],
        target=target,
        argv=argvs,
        cache_suspect=any(entry['cache_suspect'] for entry in result['results']),
        changed=bool(params['filename']) and any(entry['write'] is not None for entry in result['results']),
        wall_s=elapsed(started),
    )
    module.exit_json(**result)


if __name__ == '__main__':
    main()
