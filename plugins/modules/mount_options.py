#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: mount_options
short_description: Ensure mount options live and in fstab
version_added: 0.1.0
deprecated:
  removed_in: 2.0.0
  why: >-
    One grammar for the policy. This module has an option set of its own beside the policy's iotune_mounts, which
    iotune.storage.io_policy audits and enforces together with the other concerns in one round trip per host.
  alternative: >-
    Use iotune.storage.io_policy with concerns=[mount_options] and the policy's iotune_mounts, or the iotune.storage.mount_options role,
    or the iotune.storage.harden_io playbook.
description:
  - Compares options of mount points with a policy of options to ensure (O(present)) and options to forbid (O(absent)),
    both live (C(/proc/self/mountinfo)) and persistently (the fstab entry). Every other option is left alone.
  - Compares semantically, not as text. C(defaults) in fstab stands for C(rw,suid,dev,exec,auto,nouser,async);
    C(relatime) is the kernel default (an fstab entry without atime option means C(relatime), a live mount showing
    neither C(relatime) nor C(noatime) is C(strictatime)); C(noatime) implies C(nodiratime); C(async), C(rw),
    C(suid), C(dev) and C(exec) are in effect unless their opposite is.
  - Key=value options compare by key and value, values as sizes when both are sizes
    (C(logbsize=32k) equals C(logbsize=32768)). A bare key in O(absent) (C(mincache)) forbids every value of it.
    VxFS options such as C(mincache=direct), C(convosync=direct), C(delaylog) are ordinary options.
  - Options only mount(8) reads (C(nofail), C(_netdev), C(noauto), C(x-*)) are checked in fstab only.
  - Returns one check per mount point and option. A mount point that is mounted but not in fstab is
    C(not_persistent) at best, since it does not come back at boot.
  - Outside check mode, writes the fstab change (atomically, owner and mode kept, every other byte of the file
    unchanged), then remounts (C(mount --options-source=disable -o remount,...)) and verifies the requested options
    in C(/proc/self/mountinfo). When a remount fails or does not give the requested options, the live options and
    that mount's fstab line are put back and the module fails, naming the error.
  - Options a remount cannot set on the file system type (ext4 C(data=), C(nodelalloc), C(dax); xfs C(logbufs=),
    C(logbsize=), C(largeio)...) go to fstab only, and their checks say that they need an unmount and mount; options
    mountinfo never shows (C(norelatime), C(iversion), xfs C(noattr2)) are compared in fstab only, unverifiable live.
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
attributes:
  diff_mode:
    support: full
    details:
      - Shows the fstab text and the live options before and after the (planned) change.
options:
  path:
    description:
      - Mount point to check. Trailing slashes are ignored.
      - Mutually exclusive with O(mounts); one of them is required.
    type: path
  present:
    description: Options that must be in effect on O(path) (V(noatime), V(commit=60)). One option per item.
    type: list
    elements: str
  absent:
    description:
      - Options that must not be in effect on O(path) (V(sync), V(mincache=direct)). One option per item.
      - V(relatime) cannot be listed, as it is the kernel default; put V(noatime) or V(strictatime) in O(present).
    type: list
    elements: str
  mounts:
    description:
      - Several mount points in one call, each with its own O(mounts[].present) and O(mounts[].absent)
        (the shape of the C(iotune_mounts) policy variable).
      - Mutually exclusive with O(path), O(present) and O(absent).
    type: list
    elements: dict
    suboptions:
      path:
        description: Mount point.
        type: path
        required: true
      present:
        description: Options that must be in effect.
        type: list
        elements: str
        default: []
      absent:
        description: Options that must not be in effect.
        type: list
        elements: str
        default: []
  fstab:
    description: The fstab file to compare with (and, in a later version, to edit).
    type: path
    default: /etc/fstab
  remount:
    description:
      - Whether applying would remount to change the live options. With V(false) only the file would change.
      - The checks compare live options either way.
    type: bool
    default: true
notes:
  - File-system specific defaults the kernel does not print (for example ext4 C(data=ordered)) cannot be seen live;
    list options in the form the kernel shows them.
seealso:
  - module: iotune.storage.io_facts
  - name: mount(8)
    description: Filesystem-independent mount options.
    link: https://man7.org/linux/man-pages/man8/mount.8.html
'''

EXAMPLES = r'''
- name: Audit the atime and sync options of /data
  iotune.storage.mount_options:
    path: /data
    present:
      - noatime
      - commit=60
    absent:
      - sync
  check_mode: true
  register: data_mount

- name: Audit every mount of the policy in one call
  iotune.storage.mount_options:
    mounts: "{{ iotune_mounts }}"
  check_mode: true
  register: mount_audit

- name: Fail when a backup target is mounted with direct I/O
  ansible.builtin.assert:
    that: mount_audit.checks | selectattr('status', 'eq', 'drift') | list | length == 0
    fail_msg: "{{ mount_audit.checks | selectattr('status', 'eq', 'drift') | map(attribute='message') | list }}"

- name: Apply - edit fstab and remount, journalled as run chg-4711 (io_rollback run_id=chg-4711 undoes it)
  iotune.storage.mount_options:
    path: /backup
    present:
      - noatime
    absent:
      - mincache=direct
      - convosync=direct
    run_id: chg-4711
  register: backup_mount
'''

RETURN = r'''
checks:
  description:
    - One check per mount point and option, in request order.
    - A mount point that is neither mounted nor in fstab gives one C(not_applicable) check with setting C(mount_point).
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: C(mount_options:<path>:<setting>).
      type: str
      returned: always
    concern:
      description: Always C(mount_options).
      type: str
      returned: always
    target:
      description: The mount point.
      type: str
      returned: always
    setting:
      description: C(present:<option>) or C(absent:<option>).
      type: str
      returned: always
    expected:
      description: C(present) or C(absent).
      type: str
      returned: always
    live:
      description: Whether the option is in effect on the mounted file system; V(null) when not mounted or not visible live.
      type: bool
      returned: always
    persistent:
      description: Whether the fstab entry puts the option in effect; V(null) when the mount point is not in fstab.
      type: bool
      returned: always
    status:
      description: One of C(compliant), C(drift), C(not_persistent), C(not_applicable), C(error).
      type: str
      returned: always
    message:
      description: What was found, as a sentence.
      type: str
      returned: always
  sample:
    - id: "mount_options:/data:present:noatime"
      concern: mount_options
      target: /data
      setting: "present:noatime"
      expected: present
      live: false
      persistent: true
      status: drift
      message: "noatime is not in effect on /data (live: rw,relatime); fstab has it (defaults,noatime): a remount would apply it"
summary:
  description: Number of checks per status.
  returned: always
  type: dict
  sample: {compliant: 1, drift: 1, not_persistent: 0, not_applicable: 0, error: 0}
changes:
  description:
    - What applying would do, in order. C(kind=fstab) items carry C(path), C(line), C(before) and C(after) (option lists),
      C(before_line) and C(after_line) (the fstab line text); C(kind=mount) items carry C(options)
      (the argument of C(mount -o)), C(before) and C(after) (live option lists).
  returned: always
  type: list
  elements: dict
  sample:
    - kind: fstab
      target: /data
      path: /etc/fstab
      line: 12
      before: [defaults]
      after: [defaults, noatime]
      before_line: "/dev/vdb /data ext4 defaults 0 2\n"
      after_line: "/dev/vdb /data ext4 defaults,noatime 0 2\n"
    - kind: mount
      target: /data
      options: remount,noatime
      before: [rw, relatime]
      after: [rw, noatime]
mounts:
  description:
    - Per mount point, what was found and planned. C(path), C(mounted), C(in_fstab), C(fstab_path), C(fstab_line),
      C(fstype), C(live_options), C(fstab_options), C(fstab_options_after), C(remount_options),
      C(live_options_after), C(unresolved) (requests that neither fstab nor a remount can satisfy).
  returned: always
  type: list
  elements: dict
msg:
  description: Summary of the checks.
  returned: always
  type: str
  sample: "2 checks: 1 compliant, 1 drift"
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
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args, JOURNAL_ARGS
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.mount_options import MountOptions
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import exit_concern
from ansible_collections.iotune.storage.plugins.module_utils.parse.fstab import normalize_mount_point
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_mount_entry
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner


def main():
    module = AnsibleModule(
        argument_spec=dict(
            JOURNAL_ARGS,
            path=dict(type='path'),
            present=dict(type='list', elements='str'),
            absent=dict(type='list', elements='str'),
            mounts=dict(type='list', elements='dict', options=dict(
                path=dict(type='path', required=True),
                present=dict(type='list', elements='str', default=[]),
                absent=dict(type='list', elements='str', default=[]),
            )),
            fstab=dict(type='path', default='/etc/fstab'),
            remount=dict(type='bool', default=True),
            proc_root=dict(type='path', default='/proc'),
        ),
        mutually_exclusive=[('path', 'mounts'), ('mounts', 'present'), ('mounts', 'absent')],
        required_one_of=[('path', 'mounts')],
        supports_check_mode=True,
    )
    params = module.params
    if params['mounts'] is not None:
        requests = params['mounts']
        names = ['mounts[%d]' % index for index in range(len(requests))]
    else:
        requests = [{'path': params['path'], 'present': params['present'] or [], 'absent': params['absent'] or []}]
        names = ['path']
    errors = check_args(params, paths=('fstab', 'proc_root'), written=('fstab',))
    seen = {}
    for name, request in zip(names, requests):
        validate_mount_entry(request, name, errors)
        if isinstance(request.get('path'), str):
            key = normalize_mount_point(request['path'])
            if key in seen:
                errors.append('%s.path: %s is listed twice (also %s)' % (name, request['path'], seen[key]))
            seen.setdefault(key, name)
    if errors:
        module.fail_json(msg='invalid mount options request: ' + '; '.join(errors), errors=errors)

    concern = MountOptions(CommandRunner(module), requests, fstab=params['fstab'], remount=params['remount'],
                           proc_root=params['proc_root'])
    exit_concern(module, concern, concern.runner)


if __name__ == '__main__':
    main()
