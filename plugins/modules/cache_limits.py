#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: cache_limits
short_description: Ensure page-cache and writeback limits and the memory cap of bulk jobs
version_added: 0.1.0
deprecated:
  removed_in: 2.0.0
  why: >-
    One grammar for the policy. This module has an option set of its own beside the policy's iotune_cache, which
    iotune.storage.io_policy audits and enforces together with the other concerns in one round trip per host.
  alternative: >-
    Use iotune.storage.io_policy with concerns=[cache_limits] and the policy's iotune_cache, or the iotune.storage.cache_limits role,
    or the iotune.storage.harden_io playbook.
description:
  - Compares C(vm.*) writeback sysctls with a policy, live (C(/proc/sys/vm)) and persistently (the value the next
    boot produces from the kernel default and the sysctl files in the systemd-sysctl load order).
    The file that decides each value is named in the check message.
  - Each bytes/ratio pair (C(vm.dirty_bytes)/C(vm.dirty_ratio), C(vm.dirty_background_bytes)/C(vm.dirty_background_ratio))
    is handled as the kernel handles it, where writing one value zeroes the other. Only the key asked is compared;
    the message says when a later file would override the managed one.
  - With O(bulk_slice), checks that a systemd slice caps the memory (page cache included) of bulk jobs such as backups
    and copies with C(MemoryHigh=), in its unit file and live. Where systemd does not run the check is C(not_applicable).
  - Outside check mode, writes O(sysctl_file) atomically (other lines kept), then each drifting value to
    C(/proc/sys) and reads it back. Of a bytes/ratio pair, the journal keeps both values, so that a rollback
    restores the one that was in force. With O(bulk_slice), writes the slice unit and runs C(systemctl daemon-reload).
  - Each change is journalled before it is made (see O(run_id)); C(io_rollback) undoes a run.
  - Check mode returns the same decision in RV(changes) and changes nothing.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.action_group
  - iotune.storage.attributes.concern
  - iotune.storage.journal
  - iotune.storage.roots.proc
  - iotune.storage.roots.sysctl
attributes:
  diff_mode:
    support: full
    details:
      - Shows the managed sysctl file, the slice unit file and the live sysctl values the planned changes would produce.
options:
  sysctl:
    description:
      - Expected values, keyed by dotted sysctl name (V(vm.dirty_ratio)); the C(vm/dirty_ratio) form is accepted too.
      # BEGIN make schema: sentence cache_limits.keys
      - Accepted keys, with the values each takes, are C(vm.dirty_bytes) (a size, 8192 to 18446744073709551615 bytes),
        C(vm.dirty_ratio) (0 to 100), C(vm.dirty_background_bytes) (a size, 1 to 18446744073709551615 bytes),
        C(vm.dirty_background_ratio) (0 to 100), C(vm.dirty_expire_centisecs) (0 to 2147483647),
        C(vm.dirty_writeback_centisecs) (0 to 2147483647), C(vm.dirtytime_expire_seconds) (0 to 2147483647),
        C(vm.vfs_cache_pressure) (0 to 2147483647), C(vm.watermark_scale_factor) (1 to 3000), C(vm.swappiness) (0 to
        200) and C(vm.min_free_kbytes) (0 to 2147483647).
      # END make schema
      - Values are integers; C(*_bytes) keys accept sizes such as V(256m) or V(10485760).
      - Name one key of each bytes/ratio pair, not both.
    type: dict
  sysctl_file:
    description: The sysctl file iotune manages (where applying writes the values).
    type: path
    default: /etc/sysctl.d/60-iotune.conf
  bulk_slice:
    description: Memory cap of the systemd slice that bulk jobs run in.
    type: dict
    suboptions:
      memory_high:
        description:
          - C(MemoryHigh=) of the slice. A size (V(4g), V(268435456); written to the unit in bytes), a percentage of RAM
            above 0 and at most 100 with at most two decimals (V(25%), V(12.5%), V(12.25%); per mille V(125‰) or V(12.5‰)),
            or V(infinity). Other forms, which systemd ignores (V(12.345%)), are refused, changing nothing.
          - A percentage is compared with the byte value systemd reports through C(MemTotal).
          - A C(MemoryHigh=) line of the unit that systemd ignores (V(12.345%), V(4g)) or reads otherwise than it looks
            (V(010%) is octal there) never counts as set; it is rewritten.
        type: raw
        required: true
      name:
        description:
          - Name of the slice unit.
          - systemd's own slices (systemd.special(7)) are refused, changing nothing, since a unit file written over
            theirs would cap every unit below them (V(system.slice) holds every system service) - V(-.slice),
            V(system.slice), V(user.slice), V(machine.slice), V(capsule.slice) and the C(user-<uid>.slice) family
            that systemd-logind creates. A child slice of your own such as V(system-backup.slice) caps only the units
            put in it and is accepted.
        type: str
        default: iotune-bulk.slice
      unit_dir:
        description: Directory of the slice unit file (drop-ins in C(<unit_dir>/<name>.d/) are read too).
        type: path
        default: /etc/systemd/system
  systemd_run_dir:
    description: The directory whose existence shows that systemd runs as the service manager. Only changed for tests.
    type: path
    default: /run/systemd/system
notes:
  - The C(vm.*) sysctls are host-global; inside a container they show the host's values.
  - C(systemctl show) runs with the C(C) locale and an argument list.
seealso:
  - module: iotune.storage.io_facts
  - name: sysctl.d(5)
    description: Load order of the sysctl configuration files.
    link: https://man7.org/linux/man-pages/man5/sysctl.d.5.html
  - name: Documentation for /proc/sys/vm/
    description: Kernel documentation of the writeback sysctls.
    link: https://docs.kernel.org/admin-guide/sysctl/vm.html
'''

EXAMPLES = r'''
- name: Audit writeback limits
  iotune.storage.cache_limits:
    sysctl:
      vm.dirty_bytes: 256m
      vm.dirty_background_bytes: 64m
      vm.dirty_expire_centisecs: 1500
  check_mode: true
  register: cache_audit

- name: Audit the memory cap of bulk jobs as well
  iotune.storage.cache_limits:
    sysctl:
      vm.dirty_ratio: 40
    bulk_slice:
      memory_high: 25%
  check_mode: true

- name: Show what is not persistent
  ansible.builtin.debug:
    msg: "{{ cache_audit.checks | selectattr('status', 'eq', 'not_persistent') | map(attribute='message') | list }}"

- name: Apply - write the sysctl file and the live values, journalled as run chg-4711
  iotune.storage.cache_limits:
    sysctl:
      vm.dirty_bytes: 256m
      vm.dirty_background_bytes: 64m
    run_id: chg-4711
  register: cache_applied
'''

RETURN = r'''
checks:
  description:
    - One check per sysctl key (target C(sysctl), setting the dotted key) and one for the slice
      (target the slice name, setting C(MemoryHigh)).
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: C(cache_limits:<target>:<setting>).
      type: str
      returned: always
    concern:
      description: Always C(cache_limits).
      type: str
      returned: always
    target:
      description: C(sysctl) or the slice name.
      type: str
      returned: always
    setting:
      description: The dotted sysctl key, or C(MemoryHigh).
      type: str
      returned: always
    expected:
      description: The expected value (integer; for the slice also a percentage such as C(25%) or C(infinity)).
      type: raw
      returned: always
    live:
      description: The live value; V(null) when unknown (slice not loaded, systemd not running).
      type: raw
      returned: always
    persistent:
      description: The value after the next boot (sysctl) or in the unit file (slice); V(null) when nothing sets it.
      type: raw
      returned: always
    status:
      description: One of C(compliant), C(drift), C(not_persistent), C(not_applicable), C(error).
      type: str
      returned: always
    message:
      description: What was found, as a sentence, naming the file that decides the persistent value.
      type: str
      returned: always
  sample:
    - id: "cache_limits:sysctl:vm.dirty_ratio"
      concern: cache_limits
      target: sysctl
      setting: vm.dirty_ratio
      expected: 40
      live: 40
      persistent: 20
      status: not_persistent
      message: "vm.dirty_ratio is 40 live; no sysctl file sets it, so the next boot gives the kernel default 20: it is lost at the next boot"
summary:
  description: Number of checks per status.
  returned: always
  type: dict
  sample: {compliant: 1, drift: 0, not_persistent: 1, not_applicable: 1, error: 0}
changes:
  description:
    - What applying would do, in order. C(kind=file) items carry C(path), C(before) and C(after) (file text, C(before)
      V(null) for a new file); C(kind=sysctl) items carry C(path), C(before), C(after), C(pair) and C(pair_before)
      (the other half of a bytes/ratio pair, which the kernel zeroes); C(kind=unit) items carry C(action).
  returned: always
  type: list
  elements: dict
sysctl:
  description:
    - Per key, C(expected), C(live), C(persistent), the C(file) and C(line) that decide the persistent value
      (V(null) for the kernel default), C(set_by) (the key written there) and C(overridden_by)
      (a later file that would override the managed file).
  returned: always
  type: dict
bulk_slice:
  description:
    - C(name), C(unit_path), C(expected), C(live), C(persistent), C(load_state) and C(need_daemon_reload);
      V(null) without O(bulk_slice).
  returned: always
  type: dict
msg:
  description: Summary of the checks.
  returned: always
  type: str
  sample: "3 checks: 1 compliant, 1 not_persistent, 1 not_applicable"
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

from ansible.module_utils.basic import AnsibleModule

# AnsiballZ ships sources only: the collection's byte code comes from the host's cache (common.bytecode)
if __name__ == '__main__':
    from ansible_collections.iotune.storage.plugins.module_utils.common.bytecode import install as install_bytecode_cache
    install_bytecode_cache()
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits import (
    DEFAULT_SLICE,
    DEFAULT_SYSCTL_FILE,
    DEFAULT_UNIT_DIR,
    SYSTEMD_RUN_DIR,
    validate_sysctl,
)
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import check_cache_order, validate_bulk_slice
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import CONF_DIRS, SYSCTL_CONF
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args, JOURNAL_ARGS
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.cache_limits import CacheLimits
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import exit_concern
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner


def main():
    module = AnsibleModule(
        argument_spec=dict(
            JOURNAL_ARGS,
            sysctl=dict(type='dict'),
            sysctl_file=dict(type='path', default=DEFAULT_SYSCTL_FILE),
            bulk_slice=dict(type='dict', options=dict(
                memory_high=dict(type='raw', required=True),
                name=dict(type='str', default=DEFAULT_SLICE),
                unit_dir=dict(type='path', default=DEFAULT_UNIT_DIR),
            )),
            proc_root=dict(type='path', default='/proc'),
            sysctl_conf_dirs=dict(type='list', elements='path', default=list(CONF_DIRS)),
            sysctl_conf=dict(type='path', default=SYSCTL_CONF),
            systemd_run_dir=dict(type='path', default=SYSTEMD_RUN_DIR),
        ),
        required_one_of=[('sysctl', 'bulk_slice')],
        supports_check_mode=True,
    )
    params = module.params

    values, errors = validate_sysctl(params['sysctl'])
    check_cache_order(dict((key[len('vm.'):], value) for key, value in values.items()), 'sysctl.vm.', errors)
    errors = check_args(params, paths=('sysctl_file', 'proc_root', 'sysctl_conf', 'systemd_run_dir'),
                        written=('sysctl_file',) if params['sysctl'] else ()) + errors
    if params['bulk_slice'] is not None:
        validate_bulk_slice(dict((key, params['bulk_slice'][key]) for key in ('memory_high', 'name')), 'bulk_slice', errors)
        if not os.path.isabs(params['bulk_slice']['unit_dir']):
            errors.append('bulk_slice.unit_dir: must be an absolute path, got %r' % params['bulk_slice']['unit_dir'])
    if errors:
        module.fail_json(msg='invalid cache limits request: ' + '; '.join(errors), errors=errors)

    concern = CacheLimits(CommandRunner(module), sysctl=params['sysctl'], bulk_slice=params['bulk_slice'],
                          sysctl_file=params['sysctl_file'], proc_root=params['proc_root'],
                          conf_dirs=params['sysctl_conf_dirs'], sysctl_conf=params['sysctl_conf'],
                          systemd_run_dir=params['systemd_run_dir'])
    exit_concern(module, concern, concern.runner)


if __name__ == '__main__':
    main()
