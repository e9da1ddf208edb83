#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: io_rollback
short_description: Undo an enforcement run from its write-ahead journal
version_added: 0.1.0
description:
  - Replays the journal of a run (C(<journal_dir>/<run_id>.jsonl), written by C(mount_options), C(block_queue),
    C(cache_limits) and C(tunefstab)) in reverse order and puts back what each record says was there before
    the change. Files come back byte for byte with their mode and owner (or are removed when the run created them),
    sysfs and C(/proc/sys) values are written back (of a bytes/ratio sysctl pair, the one that was in force),
    mount options are restored by remount, VxFS tunables through C(vxtunefs -o).
  - Works after a run that was killed half-way, since every record is on disk before its change is made; a record
    whose change never happened finds its previous state already in place.
  - Marks the run rolled back (C(<run_id>.rolled-back.json)). Rolling back a marked run again changes nothing
    and does not replay it.
  - A run without a journal on the host (it changed nothing there) has nothing to roll back. The module
    then succeeds, with a warning that lists the runs the host has.
  - When something cannot be restored the module goes on with the other records, then fails naming each failure,
    and the run is not marked.
  - After the restores the host re-reads what they need, by the rule C(io_policy) follows after a run
    (docs/reliability.md) - C(systemctl daemon-reload) once when the run has C(unit) records and anything was restored,
    C(udevadm control --reload) when a udev rule file was restored or removed and udevd runs. A reload that fails is an
    error naming the command, its exit status and output; the restores stay made and the run is not marked.
  - A run is not rolled back, and nothing is restored, while a later run that is not rolled back changed one of its
    targets and the target no longer holds what this run left there; the module fails naming the later runs (roll
    back newest first). When the last journal record was cut short after its change was made, the other records
    are restored, the module fails naming the target, and the run is not marked.
  - Journals are input, not truth (docs/reliability.md, threat model). O(journal_dir) must belong to the user the
    module runs as and must not be writable by group or other, or nothing is read from it. Every record is checked
    against the schema of its kind before anything is restored; a bad record fails naming the journal, the line and
    the field, and restores nothing. A record never names a program or a root; O(mount_bin), O(vxtunefs),
    C(systemctl), O(sys_root) and O(proc_root) are this module's own, and a file record must name one of
    O(managed_files). A file's previous content is restored only when it matches the digest recorded with it.
  - When a run wrote a file several times (a failed remount puts its fstab line back), the file is restored once,
    from the run's first record of it.
  - A file that holds neither what the run wrote nor what was there before it (an upgrade, a package or an
    administrator replaced it since) is not restored; the module names it and fails after restoring the rest, and
    the run is not marked.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.action_group
  - iotune.storage.roots.vxtunefs
attributes:
  check_mode:
    support: full
    details:
      - Reports what would be restored and changes nothing.
  diff_mode:
    support: full
    details:
      - Shows the files and values before and after the restore.
  idempotent:
    support: full
    details:
      - A rolled-back run is marked; rolling it back again reports C(changed=false).
options:
  run_id:
    description:
      - The run to undo. Default is the latest run (by its run sequence number, kept under the host lock, never by
        the clock) that has records and is not rolled back yet.
    type: str
  journal_dir:
    description: Directory of the run journals. It must belong to the user the module runs as and must not be
      writable by group or other; the directories above it must belong to root or that user.
    type: path
    default: /var/lib/iotune/journal
  managed_files:
    description:
      - The files a run may have written, as the policy names them; a file record for any other path is refused.
        The C(io_rollback) role passes the inventory's paths (C(mount_options_fstab), C(tunefstab_path),
        C(block_queue_rules_file), C(cache_limits_sysctl_file), the bulk slice's unit, the copy tools).
      - On a host whose C(uname -s) says C(SunOS), C(/etc/vfstab) (its mount table) and C(/etc/system) (the ZFS ARC cap)
        are managed too; on C(HP-UX), C(/etc/fstab).
    type: list
    elements: path
    default: [/etc/fstab, /etc/vx/tunefstab, /etc/udev/rules.d/60-iotune.rules, /etc/sysctl.d/60-iotune.conf,
              /etc/systemd/system/iotune-bulk.slice, /usr/local/bin/iotune-copy, /usr/local/bin/iotune-bulk,
              /etc/iotune/copy.conf]
  sys_root:
    description: Root of sysfs; a queue record must name C(<sys_root>/block/<device>/queue/<setting>).
    type: path
    default: /sys
  proc_root:
    description: Root of procfs, for C(vm.*) values and the live mount options.
    type: path
    default: /proc
  mount_bin:
    description: The C(mount) program that remounts; default is C(mount) from the PATH.
    type: path
  mnttab:
    version_added: 1.0.0
    description: On Solaris/illumos and HP-UX, the live mount table a remount record is checked against and read back from.
    type: path
    default: /etc/mnttab
'''

EXAMPLES = r'''
- name: Undo the latest hardening run
  iotune.storage.io_rollback:

- name: Undo one run
  iotune.storage.io_rollback:
    run_id: 20261122T101500Z
'''

RETURN = r'''
run_id:
  description: The run rolled back (null when there was none to roll back).
  returned: always
  type: str
  sample: 20261122T101500Z
records:
  description: The journal records replayed, in the order they were replayed (the reverse of the run), each with
    C(seq), C(module), C(kind), C(target) and C(restored) (true when the previous state had to be put back).
  returned: always
  type: list
  elements: dict
checks:
  description:
    - One check per replayed record, in replay order (concern C(io_rollback), setting C(<kind>[:<setting>]#<seq>),
      C(expected) the state before the run). C(compliant) when the state is as before the run (restored or already
      so), C(drift) in check mode when it would be restored, C(error) when it cannot be restored.
  returned: always
  type: list
  elements: dict
already_rolled_back:
  description: True when the run was marked rolled back before this call.
  returned: always
  type: bool
errors:
  description: Records that could not be restored, and reloads that failed, as sentences.
  returned: always
  type: list
  elements: str
reloaded:
  description: The reload commands that ran after the restores and succeeded.
  returned: always
  type: list
  elements: str
  sample: ["/usr/bin/systemctl daemon-reload", "/usr/bin/udevadm control --reload"]
msg:
  description: What was done.
  returned: always
  type: str
  sample: "run 20261122T101500Z: 5 of 7 records restored"
'''

import os

from ansible.module_utils.basic import AnsibleModule

# AnsiballZ ships sources only: the collection's byte code comes from the host's cache (common.bytecode)
if __name__ == '__main__':
    from ansible_collections.iotune.storage.plugins.module_utils.common.bytecode import install as install_bytecode_cache
    install_bytecode_cache()
from ansible_collections.iotune.storage.plugins.module_utils.act.records import Trusted
from ansible_collections.iotune.storage.plugins.module_utils.act.rollback import DEFAULT_MANAGED_FILES, RollbackError, roll_back
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.module_utils.plan.tunefstab import find_vxtunefs, read_live
from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import host_platform, system_fragment_paths
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS, UNIX

ARGUMENT_SPEC = dict(
    run_id=dict(type='str'),
    journal_dir=dict(type='path', default='/var/lib/iotune/journal'),
    managed_files=dict(type='list', elements='path', default=DEFAULT_MANAGED_FILES),
    sys_root=dict(type='path', default='/sys'),
    proc_root=dict(type='path', default='/proc'),
    mount_bin=dict(type='path'),
    mnttab=dict(type='path', default='/etc/mnttab'),
    vxtunefs=dict(type='path'),
)


def argument_errors(params):
    """The arguments' errors, found before anything is read."""
    errors = check_args(params, paths=('sys_root', 'proc_root', 'mount_bin', 'mnttab', 'vxtunefs'))
    errors.extend('managed_files[%d]: must be an absolute path, got %r' % (index, path)
                  for index, path in enumerate(params['managed_files']) if not os.path.isabs(path))
    return errors


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    errors = argument_errors(params)
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors)
    runner = CommandRunner(module)
    vxtunefs, dummy = find_vxtunefs(params['vxtunefs'])
    # the platform's own mount table is managed there (Solaris: /etc/vfstab), as the host says (uname -s)
    platform = host_platform(module, runner, 'linux')
    files = params['managed_files'] + [PLATFORMS[platform][key] for key in ('fstab', 'system_file', 'system_fragment')
                                       if platform in UNIX and key in PLATFORMS[platform]]
    if 'system_file' in PLATFORMS[platform]:
        # the ARC cap may be in any fragment of /etc/system.d: the ones there now, as this module lists them
        files += system_fragment_paths(PLATFORMS[platform]['system_file'], []) or []
    # the programs and roots are this module's own, never a record's
    trusted = Trusted(files, params['sys_root'], params['proc_root'],
                      params['mount_bin'] or module.get_bin_path('mount') or '/bin/mount', vxtunefs,
                      module.get_bin_path('systemctl'), mnttab=params['mnttab'], kctune=module.get_bin_path('kctune') or 'kctune')

    def read_vxtunefs(binary, mount_point):
        return read_live(binary, mount_point, runner)
    try:
        result = roll_back(params['journal_dir'], params['run_id'], trusted, runner, read_vxtunefs,
                           check=module.check_mode, diff=module._diff, warn=module.warn)
    except RollbackError as exc:
        module.fail_json(**dict(exc.result, msg=str(exc)))
    module.exit_json(**result)


if __name__ == '__main__':
    main()
