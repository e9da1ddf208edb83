#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: tunefstab
short_description: Ensure VxFS tunables, live with vxtunefs and persistent in /etc/vx/tunefstab
version_added: 0.1.0
deprecated:
  removed_in: 2.0.0
  why: >-
    One grammar for the policy. This module has an option set of its own beside the policy's iotune_tunefstab, which
    iotune.storage.io_policy audits and enforces together with the other concerns in one round trip per host.
  alternative: >-
    Use iotune.storage.io_policy with concerns=[tunefstab] and the policy's iotune_tunefstab, or the iotune.storage.tunefstab role,
    or the iotune.storage.harden_io playbook.
description:
  - Compares VxFS file system tunables (C(read_pref_io), C(discovered_direct_iosz) ...) with a policy, on both
    sides - the live value that C(vxtunefs -p) prints for the file system mounted from the device, and the value
    in the tunefstab file that the VxFS mount command applies at the next mount.
  - A live value that the tunefstab file does not set is reported as V(not_persistent) - it is lost at the next
    mount, as in the upgrade that silently changed C(discovered_direct_iosz) (seed 001).
  - Returns one check per device and tunable, and the plan of changes that would make them compliant (the new
    tunefstab text, every other line and comment kept byte for byte, and with O(apply) the C(vxtunefs -o) calls).
  - Outside check mode, with O(apply) sets each drifting live value with C(vxtunefs -o name=value mount_point) and
    reads it back with C(vxtunefs -p), then writes the tunefstab file atomically (other lines and comments kept).
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
      - Shows the tunefstab file and, with O(apply), the live values before and after the planned change.
options:
  device:
    description:
      - Block device of the VxFS file system, as written in tunefstab (V(/dev/vx/dsk/datadg/vol01)), or
        V(system-default) (HP-UX).
      - An absolute path without whitespace, C(#), C(,) or C(=); anything else fails before anything is read.
      - Mutually exclusive with O(entries); requires O(tunables).
    type: str
  tunables:
    description:
      - Tunable name to value. Sizes accept V(10485760), V(256k), V(10m) (binary multiples).
      # BEGIN make schema: sentence tunefstab.tunables
      - Accepted names - V(read_pref_io), V(read_nstream), V(write_pref_io), V(write_nstream), V(buf_breakup_size),
        V(discovered_direct_iosz), V(max_direct_iosz), V(default_indir_size), V(qio_cache_enable) (0 or 1),
        V(write_throttle), V(max_diskq), V(initial_extent_size), V(max_seqio_extent_size), V(max_buf_data_size) (8192 or
        65536), V(read_ahead) (0, 1 or 2), V(fcl_maxalloc), V(fcl_keeptime), V(fcl_winterval). Any other name fails
        before anything is read.
      # END make schema
    type: dict
  entries:
    description:
      - Several devices in one call (one round trip per host for the whole policy), each C({device, tunables}).
      - Mutually exclusive with O(device) and O(tunables).
    type: list
    elements: dict
    suboptions:
      device:
        description: See O(device).
        type: str
        required: true
      tunables:
        description: See O(tunables).
        type: dict
        required: true
  path:
    description: The tunefstab file.
    type: path
    default: /etc/vx/tunefstab
  apply:
    description:
      - Whether applying the plan also sets the live values with C(vxtunefs -o) (changing a tunable briefly freezes
        the file system). When V(false), only the file would be changed and the live values are reported.
    type: bool
    default: false
  vxtunefs:
    description:
      - Path of C(vxtunefs). By default it is searched in E(PATH), then C(/opt/VRTS/bin), C(/sbin), C(/usr/sbin),
        C(/usr/lib/fs/vxfs).
      - Tests point it at the VxFS simulator (C(tests/vxfs-sim/vxtunefs)).
      - When the path named here is not an executable file, the checks of every device mounted as C(vxfs) are
        V(error) (their live values were not read), and an enforcing run fails without changing anything.
    type: path
notes:
  - The live values are read with C(vxtunefs -p <mount point>) (C(LANG=C)), for the visible mount whose source is
    the device and whose type is C(vxfs). When the device is not mounted (or not as C(vxfs)) there is no live value;
    it is V(null) and the status comes from the file alone; with neither C(vxtunefs) nor the tunefstab file the
    check is V(not_applicable). A device mounted as C(vxfs) whose live values cannot be read (no C(vxtunefs) on the
    host, or O(vxtunefs) not executable) is V(error), never V(compliant) from the file alone.
  - Several lines for one device apply in order. A C(system-default) line applies to every device and takes
    precedence over the device's own lines (tunefstab(4) on HP-UX). Where it sets a tunable of a device to another
    value than the policy, editing the device's line would change nothing, so the check is V(error), naming the file
    and line, and an enforcing run fails changing nothing. Name V(system-default) with that tunable in O(entries)
    to change the C(system-default) line (for every device); a device value that this entry contradicts is refused.
    The Veritas installer writes that line as C(system_default); both spellings are that line, never a device, and
    an edit keeps the spelling of the file.
  - Values in the file are read in the forms vxtunefs(1M) documents, bytes or a number followed by C(k), C(m),
    C(g), C(t) or C(s) (512-byte sectors, so C(2048s) is 1 MiB), in either case. A value in another form (C(0x100000),
    C(1.5m)) makes the value of the next mount unknown, so the tunable's check is V(error), naming the file and the
    line, and that tunable is not written.
  - The plan changes a tunable in the last line of the device that sets it, adds new ones to the device's last
    line, or adds a line for a device that has none. A C(#) word after the device starts a trailing comment (as
    in fstab); an edited line keeps it.
seealso:
  - name: vxtunefs(1M)
    description: HP-UX 11i manual page of vxtunefs.
    link: http://modman.unixdev.net/?sektion=1m&page=vxtunefs&manpath=HP-UX-11.11
  - name: tunefstab(4)
    description: HP-UX manual page of the tunefstab file.
    link: https://www.unix.com/man-page/hpux/4/tunefstab
'''

EXAMPLES = r'''
- name: Audit the direct I/O threshold of the copy target (seed 001)
  iotune.storage.tunefstab:
    device: /dev/vx/dsk/datadg/u08
    tunables:
      discovered_direct_iosz: 10m
  check_mode: true
  register: u08

- name: Audit several file systems in one round trip
  iotune.storage.tunefstab:
    entries:
      - device: /dev/vx/dsk/datadg/vol01
        tunables:
          read_pref_io: 256k
          read_nstream: 4
      - device: /dev/vx/dsk/datadg/vol02
        tunables:
          write_pref_io: 1m
  check_mode: true
  register: vxfs

- name: Apply - set the value live with vxtunefs -o and in tunefstab, journalled as run chg-4711
  iotune.storage.tunefstab:
    device: /dev/vx/dsk/datadg/u08
    tunables:
      discovered_direct_iosz: 10m
    apply: true
    run_id: chg-4711
  register: u08_applied
'''

RETURN = r'''
checks:
  description: One check per device and tunable.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: C(tunefstab:<device>:<tunable>).
      type: str
      returned: always
      sample: tunefstab:/dev/vx/dsk/datadg/u08:discovered_direct_iosz
    concern:
      description: Always V(tunefstab).
      type: str
      returned: always
    target:
      description: The device.
      type: str
      returned: always
    setting:
      description: The tunable.
      type: str
      returned: always
    expected:
      description: The policy value (sizes in bytes).
      type: int
      returned: always
      sample: 10485760
    live:
      description: The value C(vxtunefs -p) prints, or V(null) when it was not read (the message says why).
      type: raw
      returned: always
      sample: 262144
    persistent:
      description: The value the tunefstab file sets for the device, or V(null) when it sets none.
      type: raw
      returned: always
      sample: 10485760
    status:
      description: V(compliant), V(drift), V(not_persistent), V(not_applicable) or V(error).
      type: str
      returned: always
      sample: drift
    message:
      description: A sentence saying what was found.
      type: str
      returned: always
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
    - With O(apply), C({kind, target, device, setting, before, after, argv}) of C(kind) V(vxtunefs) per live value
      (C(target) is the mount point); then at most one C({kind, target, before, after}) of C(kind) V(file) with the
      whole tunefstab text before (V(null) when absent) and after.
  type: list
  elements: dict
  returned: always
devices:
  description: Each device with C(mount_point), C(fstype) (V(null) when not mounted) and C(live_error).
  type: list
  elements: dict
  returned: always
vxtunefs:
  description: The C(vxtunefs) used (O(vxtunefs) when given, even if it cannot run), or V(null) when none was named and the
    host has none.
  type: str
  returned: always
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
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.tunefstab import Tunefstab
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import exit_concern
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import find_vxtunefs, validate_entries


def main():
    module = AnsibleModule(
        argument_spec=dict(
            JOURNAL_ARGS,
            device=dict(type='str'),
            tunables=dict(type='dict'),
            entries=dict(type='list', elements='dict', options=dict(
                device=dict(type='str', required=True),
                tunables=dict(type='dict', required=True),
            )),
            path=dict(type='path', default='/etc/vx/tunefstab'),
            apply=dict(type='bool', default=False),
            vxtunefs=dict(type='path'),
            proc_root=dict(type='path', default='/proc'),
        ),
        mutually_exclusive=[['device', 'entries'], ['tunables', 'entries']],
        required_one_of=[['device', 'entries']],
        required_together=[['device', 'tunables']],
        supports_check_mode=True,
    )
    params = module.params
    if params['entries'] is not None:
        raw = [(entry, 'entries[%d]' % index) for index, entry in enumerate(params['entries'])]
    else:
        raw = [({'device': params['device'], 'tunables': params['tunables']}, '')]
    errors = check_args(params, paths=('path', 'vxtunefs', 'proc_root'), written=('path',))
    entries, entry_errors = validate_entries([entry for entry, label in raw], [label for entry, label in raw])
    errors.extend(entry_errors)
    if errors:
        module.fail_json(msg='invalid tunefstab policy: %s' % '; '.join(errors), errors=errors)
    vxtunefs, vxtunefs_problem = find_vxtunefs(params['vxtunefs'])
    if vxtunefs_problem:
        module.warn(vxtunefs_problem)

    concern = Tunefstab(CommandRunner(module), entries, path=params['path'], apply=params['apply'], vxtunefs=vxtunefs,
                        proc_root=params['proc_root'])
    exit_concern(module, concern, concern.runner)


if __name__ == '__main__':
    main()
