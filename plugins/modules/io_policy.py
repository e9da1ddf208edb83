#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: io_policy
short_description: Audit or enforce the whole iotune policy on a host in one round trip
version_added: 0.3.0
description:
  - Takes the whole iotune policy (mount options, VxFS tunefstab, block-device queues, writeback and page-cache limits
    and the bulk slice, the large-block copy tools) and, in one module run on the host, reads the state, plans every
    concern and returns one list of checks.
  - With O(mode=audit) it changes nothing but its report file. With O(mode=enforce) and outside check mode it makes
    every planned change under one O(run_id), each journalled before it is made (C(io_rollback) undoes the run, also one
    killed half-way), reloads what the changes need (C(udevadm control --reload) after a new udev rule file when udevd
    runs, C(sysctl --load) of the managed sysctl file, C(systemctl daemon-reload) after a slice unit change), reads the
    state again and returns every check with C(changed) and C(status_before).
  - A reload that fails fails the module after the state is read again, naming the command, its exit status and
    output; the changes stay made and journalled. C(io_rollback) follows the same reload rule.
  - An C(error) check in a concern that has changes to make stops the run before anything is written.
  - With O(report), writes the host report (the checks, their summary and a few host facts) to
    C(<report.dir>/<name>) for each of O(report.names), atomically; never in check mode.
  - The action plugin of the same name validates the policy on the controller (a bad policy fails before the host is
    contacted, naming the field and the accepted values), merges its profile, and sends the copy tools from the
    collection's files. Results carry a digest and a size of each tool, never its content.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.action_group
  - iotune.storage.attributes.concern
  - iotune.storage.journal
  - iotune.storage.roots
  - iotune.storage.roots.tunefstab
  - iotune.storage.roots.vxtunefs
attributes:
  diff_mode:
    support: full
    details:
      - Shows every file and live value each concern would change (the copy tools as a digest and a size).
options:
  policy:
    description:
      - The policy, with the keys of the iotune policy variables (C(iotune_profile), C(iotune_mounts),
        C(iotune_tunefstab), C(iotune_block_devices), C(iotune_cache), C(iotune_copy_tools)); see C(docs/policy.md).
      - Default the host's variables of these names.
      - The action plugin validates it, merges the profile under it and passes the effective policy to the module.
    type: dict
  validate_only:
    description: Validate the policy (and O(benchmark)) on the controller and return, without contacting the host.
    type: bool
    default: false
  benchmark:
    description:
      - The C(iotune_benchmark) settings (default the host's variable), validated with the policy on the controller
        so that a bad value stops the run before any host work. The module does not measure.
    type: dict
  measuring:
    description: Validate O(benchmark) as for a measurement that runs whatever its C(enabled) says (C(benchmark_io.yml)).
    type: bool
    default: false
  fail_on_drift:
    version_added: 1.0.0
    description:
      - Whether the play fails this host when it drifts (the C(io_audit) role passes its C(iotune_audit_fail_on_drift)
        and C(iotune_audit_fail_on) as the host sees them). Only returned as RV(fail_on_drift), for
        C(iotune.storage.io_fleet_report)'s RV(iotune.storage.io_fleet_report#module:gated_hosts); the module does
        not read it.
    type: bool
  copy_tools_bin_dir:
    description: Directory the copy tools are installed in (default the variable C(copy_tools_bin_dir), else V(/usr/local/bin)).
    type: path
  copy_tools_config:
    description: The copy tools' configuration file (default the variable C(copy_tools_config), else V(/etc/iotune/copy.conf)).
    type: path
  copy_tools_slice:
    description:
      - The slice C(iotune-bulk) runs commands in (default the variable C(copy_tools_slice), else the name of
        C(iotune_cache.bulk_slice), else V(iotune-bulk.slice)).
    type: str
  concerns:
    description: The concerns to run, of those the policy sets. Default all.
    type: list
    elements: str
    choices: [mount_options, tunefstab, block_queue, cache_limits, copy_tools]
    default: [mount_options, tunefstab, block_queue, cache_limits, copy_tools]
  mode:
    description: V(audit) plans and reports only; V(enforce) makes the changes (outside check mode).
    type: str
    choices: [audit, enforce]
    default: audit
  fstab:
    description:
      - The fstab file of the mount options concern; by default C(/etc/fstab), and C(/etc/vfstab) on a host whose
        C(uname -s) says C(SunOS) (docs/platforms.md).
      - This and the other file and behaviour options below default to the enforcing roles' variables when the host
        has them (C(mount_options_fstab), C(mount_options_remount), C(tunefstab_path), C(tunefstab_apply),
        C(tunefstab_vxtunefs), C(block_queue_persist), C(block_queue_rules_file), C(cache_limits_sysctl_file),
        C(iotune_journal_dir)), so that an audit, an enforcement and a rollback use the same files.
    type: path
  mnttab:
    version_added: 1.0.0
    description:
      - On Solaris/illumos and HP-UX, the live mount table the mount options concern and the VxFS tunables read.
      - Unused on Linux, which has C(/proc/self/mountinfo).
    type: path
    default: /etc/mnttab
  remount:
    description: Whether enforcing remounts to change live mount options (else only fstab changes).
    type: bool
    default: true
  tunefstab_apply:
    description: Whether enforcing also sets live VxFS values with C(vxtunefs -o) (which briefly freezes the file system).
    type: bool
    default: false
  block_queue_persist:
    description: Whether block queue settings must also be in the udev rule file.
    type: bool
    default: true
  rules_file:
    description: The udev rule file the block queue concern manages.
    type: path
    default: /etc/udev/rules.d/60-iotune.rules
  sysctl_file:
    description: The sysctl file the cache limits concern manages.
    type: path
    default: /etc/sysctl.d/60-iotune.conf
  copy_tools_files:
    description:
      - The copy tools and their configuration, C({path, content, mode}); the action plugin builds them from the
        collection's files and the C(iotune_copy_tools) policy.
    type: list
    elements: dict
    default: []
  report:
    description: Where the host report goes; no report is written without it, nor in check mode.
    type: dict
    suboptions:
      dir:
        description: Directory of the report files.
        type: path
        default: /var/lib/iotune/reports
      names:
        description: File names (this run's and the latest); none writes no file but still returns RV(report).
        type: list
        elements: str
        default: []
      host:
        description: The host name the report carries (the inventory name).
        type: str
        required: true
      profile:
        description: The policy's profile, for the report.
        type: str
      mode:
        description: The report's mode (V(audit), V(harden)).
        type: str
        required: true
      keep:
        version_added: 1.0.0
        description:
          - How many report files of this mode (C(<mode>-<run id>.json)) the host keeps in O(report.dir); older ones
            are removed after the report is written (never in check mode). V(0) keeps every one.
          - The report names what is new and what was resolved since the previous report of its mode (its
            C(<mode>-latest.json)), in C(history); see docs/reports.md.
        type: int
        default: 30
      textfile_dir:
        version_added: 1.0.0
        description:
          - Also write the report as C(iotune.prom), a node_exporter textfile-collector file (docs/monitoring.md), in
            this directory, atomically with mode 0644; never in check mode. Empty or left out, none is written.
          - The directory is created (0755) when missing; an existing one must belong to root or the running user and
            be writable by nobody else, or the run fails naming it.
          - The time of the other mode's last run comes from its C(audit-latest.json) or C(harden-latest.json) in
            O(report.dir).
        type: path
  waivers:
    version_added: 1.0.0
    description:
      - The waivers that cover this host (docs/waivers.md), as the action plugin gives them from C(iotune_waivers) after
        validating them, with the days left counted on the controller.
      - A check that an unexpired waiver matches keeps its real status and carries C(waiver) in RV(checks) and the report.
      - With O(mode=enforce), the setting of a waived check that is not compliant is left as it is, live and
        persistent, and the other checks are enforced. When one change would fix a waived check and another (one
        fstab line for two options of a mount point, one rules file line for two settings of a device), the run fails
        before any change and names both (end the waiver, or waive the other check too).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The waiver's name in reports.
        type: str
        required: true
      checks:
        description: Check ids or shell-style patterns.
        type: list
        elements: str
        required: true
      reason:
        description: Why the check is waived.
        type: str
        required: true
      owner:
        description: Who answers for the waiver.
        type: str
        required: true
      expires:
        description: The last day the waiver holds, YYYY-MM-DD.
        type: str
        required: true
      days_left:
        description: Days from the controller's today to O(waivers[].expires); negative once it has expired.
        type: int
        required: true
      expired:
        description: Whether it has expired (then it waives nothing and the report says so).
        type: bool
        required: true
  severity:
    version_added: 1.0.0
    description:
      - The policy's severity overrides (docs/severity.md), as the action plugin gives them from C(iotune_severity)
        after validating them. Every check carries C(severity), one of V(low), V(medium) or V(high), from the first
        override whose pattern matches its id, else the default for its concern and setting.
    type: list
    elements: dict
    default: []
    suboptions:
      checks:
        description: Check ids or shell-style patterns.
        type: list
        elements: str
        required: true
      severity:
        description: The severity of the checks they match.
        type: str
        choices: [low, medium, high]
        required: true
notes:
  - The per-concern modules (M(iotune.storage.mount_options), M(iotune.storage.tunefstab),
    M(iotune.storage.block_queue), M(iotune.storage.cache_limits), M(iotune.storage.copy_tools)) run the same planners
    and appliers for one concern. They are deprecated and will be removed in 2.0.0; use this module with O(concerns)
    (or the roles of the same names) instead.
seealso:
  - module: iotune.storage.io_rollback
  - module: iotune.storage.io_facts
'''

EXAMPLES = r'''
- name: Audit the whole policy, writing the host report
  iotune.storage.io_policy:
    policy:
      iotune_mounts:
        - {path: /backup, present: [noatime], absent: ["mincache=direct"]}
      iotune_cache: {dirty_background_bytes: 128m}
    report: {names: [audit-latest.json], host: "{{ inventory_hostname }}", mode: audit}
  register: audit

- name: Enforce it under one run id (io_rollback run_id=chg-4711 undoes it)
  iotune.storage.io_policy:
    policy: "{{ my_policy }}"
    mode: enforce
    run_id: chg-4711
'''

RETURN = r'''
checks:
  description:
    - Every check of every concern (C(id), C(concern), C(target), C(setting), C(expected), C(live), C(persistent),
      C(status), C(message)); after changes each also has C(changed) and C(status_before).
  returned: always
  type: list
  elements: dict
summary:
  description: Number of checks per status.
  returned: always
  type: dict
  sample: {compliant: 12, drift: 1, not_persistent: 0, not_applicable: 0, error: 0}
concerns:
  description: Per concern run, its C(summary), its C(changes) (the copy tools as a digest and a size) and its own details.
  returned: always
  type: dict
msg:
  description: Summary of the checks.
  returned: always
  type: str
report:
  description: The host report (also written to the host with O(report)).
  returned: when O(report) is given
  type: dict
fail_on_drift:
  description: O(fail_on_drift) as given, set by the action plugin.
  returned: when O(fail_on_drift) is given
  type: bool
waivers:
  description:
    - Per waiver of O(waivers), its C(status) (V(active), V(expired), or V(stale) when unexpired and matching no
      check) and the check ids it C(matched).
  returned: when O(waivers) is given
  type: list
  elements: dict
textfile_path:
  description: The path of C(iotune.prom) (not written in check mode).
  returned: when O(report.textfile_dir) is given
  type: str
report_paths:
  description: The report files written (none in check mode or when they already hold the report).
  returned: when O(report) is given
  type: list
  elements: str
reports_removed:
  description: The older report files of this mode removed to keep O(report.keep) (in check mode, those that would be).
  returned: when O(report) is given
  type: list
  elements: str
# BEGIN scripts/gen_return_docs: iotune.storage.journal
run_id:
  description:
    - The run whose journal holds the changes (the O(run_id) given, or one made from the time and the process id).
    - Pass it to C(io_rollback) as its C(run_id) to undo the run.
  returned: when changes were applied
  type: str
  sample: 20261122T101500Z-4242
journal:
  description: Path of the run's journal file, C(<journal_dir>/<run_id>.jsonl).
  returned: when changes were applied
  type: str
  sample: /var/lib/iotune/journal/20261122T101500Z-4242.jsonl
reloaded:
  description:
    - The reload commands the changes needed, each run once after all of them, for example C(udevadm control --reload)
      after a new udev rule file (where udevd runs) or C(sysctl --load) of the managed sysctl file.
    - A reload that fails is a warning and is not listed.
  returned: when changes were applied
  type: list
  elements: str
  sample: [udevadm control --reload]
checks_before:
  description:
    - The checks as they were before the changes. RV(checks) then holds the state after them, each check with
      C(changed) (true when the change moved its status) and C(status_before).
  returned: when changes were applied
  type: list
  elements: dict
# END scripts/gen_return_docs
'''

import os
import time

from ansible.module_utils.basic import AnsibleModule

# AnsiballZ ships sources only: the collection's byte code comes from the host's cache (common.bytecode)
if __name__ == '__main__':
    from ansible_collections.iotune.storage.plugins.module_utils.common.bytecode import install as install_bytecode_cache
    install_bytecode_cache()
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits import DEFAULT_SLICE, DEFAULT_UNIT_DIR
from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import summary_message
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args, JOURNAL_ARGS
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.block_queue import BlockQueue
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.cache_limits import CacheLimits, UnixCache
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.copy_tools import CopyTools
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.mount_options import MountOptions, UnixMountOptions
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.tunefstab import Tunefstab
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import EngineError, NotApplicable, run_concerns
from ansible_collections.iotune.storage.plugins.module_utils.common.checks import COMPLIANT, CONCERNS, NOT_APPLICABLE
from ansible_collections.iotune.storage.plugins.module_utils.common.files import parse_mode
from ansible_collections.iotune.storage.plugins.module_utils.parse.iofacts import gather_io_facts
from ansible_collections.iotune.storage.plugins.module_utils.parse.mountinfo import read_mountinfo, visible_mounts
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import cache_sysctl
from ansible_collections.iotune.storage.plugins.module_utils.policy.severity import apply_severity
from ansible_collections.iotune.storage.plugins.module_utils.policy.waivers import apply_waivers, waived_count
from ansible_collections.iotune.storage.plugins.module_utils.engine.history import changes_since, read_previous
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import prune_reports, report_paths, visible_data, write_report
from ansible_collections.iotune.storage.plugins.module_utils.engine.textfile import write_textfile
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import check_existing
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import find_vxtunefs, validate_entry
from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import host_platform
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS, UNIX
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits_unix import UNIX_CACHE_KEYS
from ansible_collections.iotune.storage.plugins.module_utils.common.files import read_text


def build_concerns(params, runner, mount_entries, memory_bytes, warn, platform='linux'):
    """The concerns the policy sets, of those asked for, in apply order; on Solaris and HP-UX
    (``platform``) the mount options of vfstab or HP-UX fstab and mnttab, and a not_applicable
    check for each concern io_policy does not manage there."""
    policy = params['policy']
    wanted = set(params['concerns'])
    concerns = []
    if 'mount_options' in wanted and policy.get('iotune_mounts'):
        if platform in UNIX:
            concerns.append(UnixMountOptions(runner, policy['iotune_mounts'], platform, fstab=params['fstab'],
                                             mnttab=params['mnttab'], remount=params['remount']))
        else:
            concerns.append(MountOptions(runner, policy['iotune_mounts'], fstab=params['fstab'],
                                         remount=params['remount'], proc_root=params['proc_root']))
    if 'tunefstab' in wanted and policy.get('iotune_tunefstab'):
        entries = [validate_entry(entry)[0] for entry in policy['iotune_tunefstab']]
        vxtunefs, problem = find_vxtunefs(params['vxtunefs'])
        if problem:
            warn(problem)
        concerns.append(Tunefstab(runner, entries, path=params['tunefstab_path'], apply=params['tunefstab_apply'],
                                  vxtunefs=vxtunefs, proc_root=params['proc_root'], mount_entries=mount_entries))
    if platform in UNIX:
        cache = dict((key, value) for key, value in (policy.get('iotune_cache') or {}).items() if value not in (None, {}))
        if 'cache_limits' in wanted and cache:
            concerns.append(UnixCache(runner, cache, platform))
        asked = {'block_queue': policy.get('iotune_block_devices'), 'copy_tools': policy.get('iotune_copy_tools')}
        return concerns + [NotApplicable(name, platform, reason) for name, reason in sorted(PLATFORMS[platform]['policy_not_applicable'].items())
                           if name in wanted and asked[name]]
    if 'block_queue' in wanted and policy.get('iotune_block_devices'):
        concerns.append(BlockQueue(runner, policy['iotune_block_devices'], persist=params['block_queue_persist'],
                                   rules_file=params['rules_file'], sys_root=params['sys_root'],
                                   proc_root=params['proc_root'], mount_entries=mount_entries))
    cache = policy.get('iotune_cache') or {}
    if 'cache_limits' in wanted and cache:
        bulk = cache.get('bulk_slice')
        if bulk:
            bulk = {'memory_high': bulk['memory_high'], 'name': bulk.get('name') or DEFAULT_SLICE,
                    'unit_dir': bulk.get('unit_dir') or DEFAULT_UNIT_DIR}
        concerns.append(CacheLimits(runner, sysctl=cache_sysctl(cache), bulk_slice=bulk,
                                    sysctl_file=params['sysctl_file'], proc_root=params['proc_root'],
                                    memory_bytes=memory_bytes,
                                    other_platforms=[key for key in UNIX_CACHE_KEYS if cache.get(key) is not None]))
    if 'copy_tools' in wanted and policy.get('iotune_copy_tools'):
        files = [dict(item, mode=parse_mode(item.get('mode') or '0644', 'copy_tools_files[%d]' % index))
                 for index, item in enumerate(params['copy_tools_files'])]
        concerns.append(CopyTools(runner, files, policy['iotune_copy_tools'].get('state') or 'present'))
    return concerns


def host_facts(params, runner, mount_entries, facts):
    """The few facts a report carries, from one io_facts pass (memory, VxFS tools, tool versions)."""
    try:
        block_devices = len(os.listdir(os.path.join(params['sys_root'], 'block')))
    except OSError:
        block_devices = 0
    return {
        'memory_bytes': facts.get('memory_bytes'),
        'fio': (facts['tools'].get('fio') or {}).get('version'),
        'coreutils': (facts['tools'].get('coreutils') or {}).get('version'),
        'vxfs_tools': facts['vxfs']['tools_present'],
        # which binaries the versions were asked of: the next run asks again only of another file (parse/iofacts.gather_tools)
        'tools': dict((key, tool) for key, tool in facts['tools'].items() if tool and tool.get('identity')),
        'block_devices': block_devices,
        'mounts': len(visible_mounts(mount_entries)),
    }


PATH_ARGS = ('fstab', 'mnttab', 'tunefstab_path', 'vxtunefs', 'rules_file', 'sysctl_file', 'copy_tools_bin_dir',
             'copy_tools_config', 'sys_root', 'proc_root')


def written_files(params):
    """The file arguments an enforcing run of this policy writes."""
    policy, wanted = params['policy'], params['concerns']
    written = []
    if 'mount_options' in wanted and policy.get('iotune_mounts'):
        written.append('fstab')
    if 'tunefstab' in wanted and policy.get('iotune_tunefstab'):
        # the file is written with or without tunefstab_apply (which only adds the live values)
        written.append('tunefstab_path')
    if 'block_queue' in wanted and policy.get('iotune_block_devices') and params['block_queue_persist']:
        written.append('rules_file')
    if 'cache_limits' in wanted and cache_sysctl(policy.get('iotune_cache')):
        written.append('sysctl_file')
    return written


ARGUMENT_SPEC = dict(
    JOURNAL_ARGS,
    policy=dict(type='dict'),
    validate_only=dict(type='bool', default=False),
    benchmark=dict(type='dict'),
    measuring=dict(type='bool', default=False),
    fail_on_drift=dict(type='bool'),
    copy_tools_bin_dir=dict(type='path'),
    copy_tools_config=dict(type='path'),
    copy_tools_slice=dict(type='str'),
    concerns=dict(type='list', elements='str', choices=list(CONCERNS), default=list(CONCERNS)),
    mode=dict(type='str', choices=['audit', 'enforce'], default='audit'),
    fstab=dict(type='path'),
    mnttab=dict(type='path', default='/etc/mnttab'),
    remount=dict(type='bool', default=True),
    tunefstab_path=dict(type='path', default='/etc/vx/tunefstab'),
    tunefstab_apply=dict(type='bool', default=False),
    vxtunefs=dict(type='path'),
    block_queue_persist=dict(type='bool', default=True),
    rules_file=dict(type='path', default='/etc/udev/rules.d/60-iotune.rules'),
    sysctl_file=dict(type='path', default='/etc/sysctl.d/60-iotune.conf'),
    copy_tools_files=dict(type='list', elements='dict', default=[]),
    report=dict(type='dict', options=dict(
        dir=dict(type='path', default='/var/lib/iotune/reports'),
        names=dict(type='list', elements='str', default=[]),
        host=dict(type='str', required=True),
        profile=dict(type='str'),
        mode=dict(type='str', required=True),
        keep=dict(type='int', default=30),
        textfile_dir=dict(type='path'),
    )),
    sys_root=dict(type='path', default='/sys'),
    proc_root=dict(type='path', default='/proc'),
    severity=dict(type='list', elements='dict', default=[], options=dict(
        checks=dict(type='list', elements='str', required=True),
        severity=dict(type='str', choices=['low', 'medium', 'high'], required=True),
    )),
    waivers=dict(type='list', elements='dict', default=[], options=dict(
        name=dict(type='str', required=True),
        checks=dict(type='list', elements='str', required=True),
        reason=dict(type='str', required=True),
        owner=dict(type='str', required=True),
        expires=dict(type='str', required=True),
        days_left=dict(type='int', required=True),
        expired=dict(type='bool', required=True),
    )),
)


def copy_tools_file_errors(params):
    """Each copy_tools_files path must be absolute, and a file when the copy_tools concern runs."""
    errors = []
    for index, item in enumerate(params['copy_tools_files']):
        # the action plugin names the option each file comes from (copy_tools_bin_dir, copy_tools_config)
        where = 'copy_tools_files[%d].path%s' % (index, ' (%s)' % item['option'] if item.get('option') else '')
        if not os.path.isabs(item.get('path') or ''):
            errors.append('%s: must be an absolute path, got %r' % (where, item.get('path')))
        elif 'copy_tools' in params['concerns'] and os.path.isdir(item['path']):
            errors.append('%s: %s is a directory, not a file' % (where, item['path']))
    return errors


def report_errors(spec):
    """The report's names and directory, checked before any change, not when the report is written after them."""
    if spec is None:
        return []
    errors = []
    try:
        report_paths(spec['dir'], spec['names'] or ['report.json'])
    except ValueError as exc:
        errors.append('report.%s' % exc)
    if os.path.lexists(spec['dir']) and not os.path.isdir(spec['dir']):
        errors.append('report.dir: %s is not a directory' % spec['dir'])
    if spec['keep'] < 0:
        errors.append('report.keep: must be 0 (keep every report) or a number of reports to keep, got %d' % spec['keep'])
    textfile_dir = spec['textfile_dir']
    if textfile_dir:
        if not os.path.isabs(textfile_dir):
            errors.append('report.textfile_dir: must be an absolute path, got %r' % textfile_dir)
        elif os.path.lexists(textfile_dir) and not os.path.isdir(textfile_dir):
            errors.append('report.textfile_dir: %s is not a directory' % textfile_dir)
        else:
            try:
                check_existing(textfile_dir, 'report.textfile_dir')
            except ValueError as exc:
                errors.append(str(exc))
    return errors


def argument_errors(params):
    """Every problem of the arguments, before anything is read or changed."""
    errors = check_args(params, paths=PATH_ARGS, written=written_files(params))
    errors.extend(copy_tools_file_errors(params))
    errors.extend(report_errors(params['report']))
    return errors


def read_live_mounts(params, platform, errors):
    """The live mounts as the concerns read them: Linux's mountinfo entries, or on Solaris and HP-UX the
    lines of mnttab."""
    if platform not in UNIX:
        return read_mountinfo(params['proc_root'], errors)
    from ansible_collections.iotune.storage.plugins.module_utils.plan.mount_options_unix import live_mounts   # Solaris, HP-UX
    text = read_text(params['mnttab'], errors)
    return live_mounts(text or '')


def waived_findings(waivers):
    """The function that gives, of a run's planned checks, the ids of those an enforcing run must
    leave alone: an unexpired waiver matches them and they are not compliant."""
    def waived_of(checks):
        return frozenset(check['id'] for check in apply_waivers(checks, waivers)[0]
                         if check.get('waiver') and check['status'] not in (COMPLIANT, NOT_APPLICABLE))
    return waived_of


def run_policy(module, runner, mount_entries, facts, platform='linux'):
    """(result, failure): the engine's run of the concerns asked for, its checks marked with the
    waivers that match them, with its message; failure is the engine's error or None."""
    params = module.params
    try:
        concerns = build_concerns(params, runner, mount_entries, facts.get('memory_bytes'), module.warn, platform)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    waived_of = waived_findings(params['waivers']) if any(not waiver['expired'] for waiver in params['waivers']) else None
    try:
        result = run_concerns(concerns, runner, check_mode=module.check_mode, diff=module._diff,
                              run_id=params['run_id'], journal_dir=params['journal_dir'], warn=module.warn,
                              apply=params['mode'] == 'enforce', mark_all=True, waived_of=waived_of)
        failure = None
    except EngineError as exc:
        result, failure = exc.result, str(exc)
    result['checks'] = apply_severity(result['checks'], params['severity'])
    if params['waivers']:
        result['checks'], result['waivers'] = apply_waivers(result['checks'], params['waivers'])
    result['msg'] = failure or summary_message(result['checks'])
    if params['waivers'] and not failure:
        result['msg'] += '; %d waived' % waived_count(result['checks'])
        # the waived findings of an enforcing run are the ones it left as they were
        left = [check for check in result['checks'] if check.get('waiver') and check['status'] not in (COMPLIANT, NOT_APPLICABLE)]
        if params['mode'] == 'enforce' and waived_of and left:
            result['msg'] += ' (%d left as they are)' % len(left)
    if result.get('journal') and not failure:
        result['msg'] += '; %d change(s) journalled in %s' % (result['changes_made'], result['journal'])
    return result, failure


def previous_report(params):
    """What history and the tool versions take from the host's last report of this mode (engine/history.read_previous),
    or None without reports."""
    spec = params['report']
    return read_previous(os.path.join(spec['dir'], '%s-latest.json' % spec['mode'])) if spec is not None else None


def known_tools(params, previous):
    """The tools (path, identity, version) a previous report of this host names (parse/iofacts.gather_tools asks
    only of another binary): this mode's last report, else the last of the other mode (an audit's before the
    first harden)."""
    if (previous or {}).get('tools'):
        return previous['tools']
    spec = params['report']
    for other in ('audit', 'harden'):
        if spec is not None and other != spec['mode']:
            found = read_previous(os.path.join(spec['dir'], '%s-latest.json' % other))
            if (found or {}).get('tools'):
                return found['tools']
    return {}


def host_report(params, result, runner, mount_entries, facts, previous):
    """The host's report of this run (docs/reports.md)."""
    spec = params['report']
    report = {
        'host': spec['host'],
        'run_id': result.get('run_id') or params['run_id'],
        'time': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
        'profile': spec['profile'],
        'host_facts': host_facts(params, runner, mount_entries, facts),
        'mode': spec['mode'],
        'summary': dict(result['summary']),
        'checks': result['checks'],
        'history': changes_since(previous, result['checks']),
    }
    if params['mode'] == 'enforce':
        report['summary']['changed'] = sum(1 for check in result['checks'] if check.get('changed'))
    if 'waivers' in result:
        report['summary']['waived'] = waived_count(result['checks'])
        report['waivers'] = result['waivers']
    return report


def write_host_report(module, spec, result):
    """Write result['report'] under each of the report's names (in check mode only the paths); fail naming the file."""
    try:
        result['report_paths'] = write_report(spec['dir'], spec['names'], result['report'], check=module.check_mode)[1] \
            if spec['names'] else []
        result['reports_removed'] = prune_reports(spec['dir'], spec['mode'], spec['keep'], protect=spec['names'],
                                                  check=module.check_mode) if spec['names'] else []
    except ValueError as exc:
        module.fail_json(**dict(result, msg='report.%s' % exc))
    except (IOError, OSError) as exc:
        where = getattr(exc, 'filename', None) or spec['dir']
        module.fail_json(**dict(result, msg='cannot write the report %s: %s' % (where, exc.strerror or exc)))
    if spec['textfile_dir']:
        try:
            result['textfile_path'] = write_textfile(spec['textfile_dir'], result['report'], spec['dir'], check=module.check_mode)
        except ValueError as exc:
            module.fail_json(**dict(result, msg='report.%s' % exc))
        except (IOError, OSError) as exc:
            where = getattr(exc, 'filename', None) or spec['textfile_dir']
            module.fail_json(**dict(result, msg='cannot write report.textfile_dir %s: %s' % (where, exc.strerror or exc)))


class PolicyModule(AnsibleModule):
    """AnsibleModule whose result is valid UTF-8 whatever bytes the host's files hold: a byte that
    is not UTF-8 (a Latin-1 fstab line, which enforcing keeps as it is) is shown as ``\\xe9`` in the
    checks, messages and diffs, where the controller would refuse the whole result (issue 38, item 12)."""

    def exit_json(self, **kwargs):
        super(PolicyModule, self).exit_json(**visible_data(kwargs))

    def fail_json(self, msg, **kwargs):
        super(PolicyModule, self).fail_json(**visible_data(dict(kwargs, msg=msg)))


def main():
    module = PolicyModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    if params['policy'] is None:
        module.fail_json(msg='policy: the effective policy is needed (the io_policy action plugin passes it)')
    runner = CommandRunner(module)
    # the platform is what the host says it is (uname -s); a host that does not answer is Linux, as before
    platform = host_platform(module, runner, 'linux')
    if params['fstab'] is None:
        params['fstab'] = PLATFORMS[platform]['fstab']
    errors = argument_errors(params)
    if errors:
        module.fail_json(msg='invalid arguments, nothing read or changed: ' + '; '.join(errors), errors=errors)
    read_errors = []
    mount_entries = read_live_mounts(params, platform, read_errors)
    previous = previous_report(params)
    facts = gather_io_facts(gather=['memory', 'vxfs', 'tools'], proc_root=params['proc_root'],
                            tunefstab_path=params['tunefstab_path'], run_command=runner,
                            known_tools=known_tools(params, previous))
    result, failure = run_policy(module, runner, mount_entries if not read_errors or platform in UNIX else None, facts, platform)
    if params['report'] is not None:
        result['report'] = host_report(params, result, runner, mount_entries, facts, previous)
        write_host_report(module, params['report'], result)
    if failure:
        module.fail_json(**result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
