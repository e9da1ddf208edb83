#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: block_queue
short_description: Ensure block device queue settings, live in sysfs and persistent in udev rules
version_added: 0.1.0
deprecated:
  removed_in: 2.0.0
  why: >-
    One grammar for the policy. This module has an option set of its own beside the policy's iotune_block_devices, which
    iotune.storage.io_policy audits and enforces together with the other concerns in one round trip per host.
  alternative: >-
    Use iotune.storage.io_policy with concerns=[block_queue] and the policy's iotune_block_devices, or the iotune.storage.block_queue role,
    or the iotune.storage.harden_io playbook.
description:
  - Compares the queue settings of block devices (the options below) with a policy, on both sides - the live value in
    C(/sys/block/<dev>/queue/) and the value the udev rules would set when the device is added at boot.
  - A value that is right now but that no udev rule sets is reported as V(not_persistent) - it is lost at the next
    reboot.
  - Returns one check per device and setting, and the plan of changes that would make them compliant (sysfs
    writes and the new text of the managed udev rule file O(rules_file)).
  - Outside check mode, writes each drifting attribute to sysfs and reads it back, then writes O(rules_file)
    atomically (other devices' lines kept). It does not reload udev; the C(iotune.storage.block_queue) role's
    handler runs C(udevadm control --reload) once.
  - A value the device cannot take (O(max_sectors_kb) above C(max_hw_sectors_kb), a scheduler the kernel does not
    offer) is an C(error) check; outside check mode it fails the module before anything is written.
  - Each change is journalled before it is made (see O(run_id)); C(io_rollback) undoes a run.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.action_group
  - iotune.storage.attributes.concern
  - iotune.storage.journal
  - iotune.storage.roots
  - iotune.storage.roots.udev
attributes:
  diff_mode:
    support: full
    details:
      - Shows the sysfs values and the managed udev rule file before and after the planned change.
options:
  match:
    description:
      - Selects one device, by exactly one key.
      - Mutually exclusive with O(devices).
    type: dict
    suboptions: &match_options
      name:
        description:
          - Kernel name (V(vdb), V(/dev/vdb), V(dm-0)) or device-mapper name (V(vg0-data), V(/dev/mapper/vg0-data)).
          - A partition resolves to its disk, whose queue applies.
        type: str
      mountpoint:
        description:
          - Mount point; resolved through C(/proc/self/mountinfo) to the device whose queue its I/O goes through.
          - A partition resolves to its disk. A device-mapper or md device stays itself (its queue applies to I/O
            through it); the check message names the leaf disks under it.
        type: path
      wwn:
        description:
          - World wide name, compared with the sysfs C(wwid) attributes and with C(ID_WWN) in the udev database,
            ignoring case and a C(naa.), C(eui.) or C(0x) prefix.
        type: str
      serial:
        description: Serial number, compared with the sysfs C(serial) attributes and C(ID_SERIAL)/C(ID_SERIAL_SHORT) in the udev database.
        type: str
  # BEGIN make schema: queue options
  read_ahead_kb:
    description:
      - Read-ahead in KiB (C(queue/read_ahead_kb)); 0 turns read-ahead off.
      - C(blockdev --setra) counts 512-byte sectors, twice this number.
      - The kernel keeps whole pages, so the plan expects, writes and persists the value it keeps (4097 is 4096 with 4
        KiB pages); a value below one page other than 0 gives an V(error) check.
    type: int
  max_sectors_kb:
    description:
      - Largest request size in KiB (C(queue/max_sectors_kb)), at least a page.
      - A value above the device's C(max_hw_sectors_kb) or below a page gives an V(error) check.
      - The kernel keeps whole logical blocks, so the plan expects, writes and persists the value it keeps (6 is 4 on a
        device of 4096-byte sectors).
    type: int
  nr_requests:
    description:
      - Requests allocated per queue (C(queue/nr_requests)), the queue depth of the block layer.
      - The kernel raises smaller values than 4 to 4.
      - With scheduler V(none) (the policy's, else the live one) at most the depth of the device's tag set
        (C(mq/*/nr_tags)); more gives an V(error) check.
    type: int
  scheduler:
    description:
      - I/O scheduler (C(queue/scheduler)); must be one the device offers.
      - A scheduler the device does not offer gives an V(error) check naming the ones it offers.
    type: str
    choices: [none, mq-deadline, kyber, bfq, deadline, cfq, noop]
  rq_affinity:
    description:
      - Which CPU completes a request (C(queue/rq_affinity)); 0 the one its interrupt arrives on, 1 (the kernel default)
        one of the group of the CPU that issued it, 2 that very CPU.
    type: int
    version_added: 1.0.0
  nomerges:
    description:
      - Which adjacent requests the block layer merges (C(queue/nomerges)); 0 (the kernel default) every one it can, 1
        only those one lookup finds, 2 none (less CPU per I/O where merging gains nothing).
    type: int
    version_added: 1.0.0
  # END make schema
  devices:
    description:
      - Several devices in one call (one round trip per host for the whole policy).
      # BEGIN make schema: sentence block_queue.exclusive
      - Mutually exclusive with O(match), O(read_ahead_kb), O(max_sectors_kb), O(nr_requests), O(scheduler),
        O(rq_affinity) and O(nomerges).
      # END make schema
      - Two entries that select the same device with different values for a setting give an V(error) check.
    type: list
    elements: dict
    suboptions:
      match:
        description: Selects the device(s), by exactly one key (see O(match)).
        type: dict
        required: true
        suboptions: *match_options
      # BEGIN make schema: queue suboptions
      read_ahead_kb:
        description: See O(read_ahead_kb).
        type: int
      max_sectors_kb:
        description: See O(max_sectors_kb).
        type: int
      nr_requests:
        description: See O(nr_requests).
        type: int
      scheduler:
        description: See O(scheduler).
        type: str
        choices: [none, mq-deadline, kyber, bfq, deadline, cfq, noop]
      rq_affinity:
        description: See O(rq_affinity).
        type: int
        version_added: 1.0.0
      nomerges:
        description: See O(nomerges).
        type: int
        version_added: 1.0.0
      # END make schema
  persist:
    description:
      - Whether the settings must survive a reboot. When V(false), only the live values are checked and no udev
        rule is planned.
    type: bool
    default: true
  rules_file:
    description:
      - The udev rule file the collection manages. The plan rewrites only the lines for the selected devices.
      - It must be a C(*.rules) file in one of O(udev_rules_dirs), or udev never reads it (the module warns).
    type: path
    default: /etc/udev/rules.d/60-iotune.rules
notes:
  - The persistent value is what the udev rules would write when the device is added at boot (the C(add) event
    that coldplug sends), evaluated key by key like systemd-udevd does - C(ACTION), C(SUBSYSTEM), C(KERNEL),
    C(DEVPATH), C(DRIVER), C(ENV{}), C(ATTR{}), C(TEST) and, on the device or one of its parents, C(KERNELS),
    C(SUBSYSTEMS), C(DRIVERS), C(ATTRS{}); C(GOTO)/C(LABEL) and C(OPTIONS="last_rule") are followed; the last
    C(ATTR{queue/...}) or C(ATTR{bdi/read_ahead_kb}) assignment wins.
  - A rule that cannot be evaluated here (C(PROGRAM), C(IMPORT{program}), unknown keys, a property only a
    program would set and no udev database entry to read it from) and that would set a checked setting makes
    the persistent value unknown (V(null)); the message names the file and line. A C(RUN) command that mentions
    the setting (or C(blockdev --setra)) does the same.
  - Settings made outside udev - C(blockdev --setra) in C(/etc/rc.local), systemd units, tuned profiles - are not
    read; they are out of scope, and the check reports such a value as V(not_persistent).
  - The planned rule matches the device stably - by C(wwid) or C(serial) from sysfs, the device-mapper UUID,
    C(ENV{ID_WWN}) or C(ENV{ID_SERIAL}) from the udev database, else the kernel name.
  # BEGIN make schema: sentence block_queue.write_order
  - The settings of a device are written, to sysfs and in its rule, in the order C(scheduler), C(nr_requests),
    C(max_sectors_kb), C(read_ahead_kb), C(rq_affinity) and C(nomerges).
  # END make schema
seealso:
  - name: udev(7)
    description: udev rule syntax and processing order.
    link: https://man7.org/linux/man-pages/man7/udev.7.html
  - name: Block layer sysfs attributes
    description: Kernel documentation of /sys/block/<disk>/queue.
    link: https://docs.kernel.org/block/queue-sysfs.html
'''

EXAMPLES = r'''
- name: Audit the read-ahead and scheduler of the data disk
  iotune.storage.block_queue:
    match:
      name: vdb
    read_ahead_kb: 4096
    scheduler: mq-deadline
  check_mode: true
  register: vdb_queue

- name: Audit several devices in one round trip
  iotune.storage.block_queue:
    devices:
      - match:
          mountpoint: /srv/data
        read_ahead_kb: 4096
      - match:
          wwn: naa.5000c500a1b2c3d4
        max_sectors_kb: 1024
        nr_requests: 256
  check_mode: true
  register: queues

- name: List the settings that would not survive a reboot
  ansible.builtin.debug:
    msg: "{{ queues.checks | selectattr('status', 'equalto', 'not_persistent') | map(attribute='message') }}"

- name: Apply - write sysfs and the udev rule file, journalled as run chg-4711
  iotune.storage.block_queue:
    match:
      mountpoint: /srv/data
    read_ahead_kb: 4096
    scheduler: mq-deadline
    run_id: chg-4711
  register: data_queue
'''

RETURN = r'''
checks:
  description:
    - One check per device and requested setting; a match that selects no device gives one V(not_applicable)
      check with C(setting) V(device).
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: C(block_queue:<device>:<setting>).
      type: str
      returned: always
      sample: block_queue:vda:read_ahead_kb
    concern:
      description: Always V(block_queue).
      type: str
      returned: always
    target:
      description: Kernel name of the device whose queue is checked (or the match, for V(not_applicable) device checks).
      type: str
      returned: always
      sample: vda
    setting:
      # BEGIN make schema: sentence block_queue.setting
      description: V(read_ahead_kb), V(max_sectors_kb), V(nr_requests), V(scheduler), V(rq_affinity), V(nomerges) (or
        V(device)).
      # END make schema
      type: str
      returned: always
    expected:
      description: The policy value.
      type: raw
      returned: always
      sample: 4096
    live:
      description: The value in sysfs (for the scheduler, the active one); V(null) when the device has no such attribute.
      type: raw
      returned: always
      sample: 8192
    persistent:
      description: The value the udev rules set at boot; V(null) when no rule sets it or when it cannot be known (the message says which).
      type: raw
      returned: always
      sample: null
    status:
      description: V(compliant), V(drift), V(not_persistent), V(not_applicable) or V(error).
      type: str
      returned: always
      sample: drift
    message:
      description: A sentence saying what was found.
      type: str
      returned: always
      sample: "read_ahead_kb on vda is 8192, expected 4096; no udev rule sets it"
summary:
  description: Number of checks per status.
  returned: always
  type: dict
  sample: {compliant: 1, drift: 1, not_persistent: 0, not_applicable: 0, error: 0}
msg:
  description: Summary of the checks.
  returned: always
  type: str
  sample: "2 checks: 1 compliant, 1 drift"
changes:
  description:
    - Sysfs writes C({kind, target, setting, path, before, after}) in write order, then at most one
      C({kind, target, before, after}) of C(kind) V(file) with the whole text of O(rules_file) before (V(null) when absent)
      and after.
  type: list
  elements: dict
  returned: always
  sample:
    - kind: sysfs
      target: vda
      setting: read_ahead_kb
      path: /sys/block/vda/queue/read_ahead_kb
      before: 8192
      after: 4096
devices:
  description: Each selected device with C(name), C(matches), C(notes), C(identity) (the udev match keys) and C(rule) (its managed rule line, or V(null)).
  type: list
  elements: dict
  returned: always
  sample:
    - name: vda
      matches: [name=vda]
      notes: []
      identity: ATTR{serial}=="overlayblk"
      rule: ACTION=="add|change", SUBSYSTEM=="block", ATTR{serial}=="overlayblk", ATTR{queue/read_ahead_kb}="4096"
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

from ansible.module_utils.basic import AnsibleModule

# AnsiballZ ships sources only: the collection's byte code comes from the host's cache (common.bytecode)
if __name__ == '__main__':
    from ansible_collections.iotune.storage.plugins.module_utils.common.bytecode import install as install_bytecode_cache
    install_bytecode_cache()
from ansible_collections.iotune.storage.plugins.module_utils.plan.block_queue import (
    DEFAULT_RULES_FILE, SETTINGS, validate_request, validate_requests)
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import MATCH_KEYS
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS
from ansible_collections.iotune.storage.plugins.module_utils.parse.udev import DB_DIR, RULES_DIRS
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args, element_message, JOURNAL_ARGS
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.block_queue import BlockQueue
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import exit_concern
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner


MATCH_SPEC = dict(
    type='dict',
    options=dict(
        name=dict(type='str'),
        mountpoint=dict(type='path'),
        wwn=dict(type='str'),
        serial=dict(type='str'),
    ),
    mutually_exclusive=[list(MATCH_KEYS)],
    required_one_of=[list(MATCH_KEYS)],
)


def setting_spec(setting):
    """The option spec of a queue setting: its type, and its choices when it has some."""
    spec = dict(type=setting['type'])
    if 'choices' in setting:
        spec['choices'] = list(setting['choices'])
    return spec


SETTING_SPECS = dict((name, setting_spec(setting)) for name, setting in QUEUE_SETTINGS.items())


class BlockQueueModule(AnsibleModule):
    """AnsibleModule whose argument errors in ``devices`` name the element on every ansible-core."""

    def fail_json(self, msg, **kwargs):
        msg = element_message(msg, self.params, 'devices', validate_request)
        return super(BlockQueueModule, self).fail_json(msg=msg, **kwargs)


def main():
    argument_spec = dict(
        JOURNAL_ARGS,
        match=dict(MATCH_SPEC),
        devices=dict(type='list', elements='dict', options=dict(match=dict(MATCH_SPEC, required=True), **SETTING_SPECS)),
        persist=dict(type='bool', default=True),
        rules_file=dict(type='path', default=DEFAULT_RULES_FILE),
        sys_root=dict(type='path', default='/sys'),
        proc_root=dict(type='path', default='/proc'),
        udev_rules_dirs=dict(type='list', elements='path', default=list(RULES_DIRS)),
        udev_db_dir=dict(type='path', default=DB_DIR),
    )
    argument_spec.update(SETTING_SPECS)
    module = BlockQueueModule(
        argument_spec=argument_spec,
        mutually_exclusive=[['match', 'devices']] + [['devices', setting] for setting in SETTINGS],
        required_one_of=[['match', 'devices']],
        supports_check_mode=True,
    )
    params = module.params
    if params['devices'] is not None:
        requests = params['devices']
        labels = ['devices[%d]' % index for index in range(len(requests))]
    else:
        requests = [dict((key, params[key]) for key in ('match',) + SETTINGS)]
        labels = ['']
    errors = check_args(params, paths=('rules_file', 'sys_root', 'proc_root', 'udev_db_dir'),
                        written=('rules_file',) if params['persist'] else ())
    errors.extend(validate_requests(requests, labels))
    if errors:
        module.fail_json(msg='invalid block_queue policy: %s' % '; '.join(errors), errors=errors)

    concern = BlockQueue(CommandRunner(module), requests, persist=params['persist'], rules_file=params['rules_file'],
                         sys_root=params['sys_root'], proc_root=params['proc_root'],
                         rules_dirs=params['udev_rules_dirs'], db_dir=params['udev_db_dir'])
    exit_concern(module, concern, concern.runner)


if __name__ == '__main__':
    main()
