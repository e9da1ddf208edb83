#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: io_snapshot
short_description: Capture a host's whole storage I/O state to a snapshot file
version_added: 0.3.0
description:
  - Captures, in one module run, everything the collection knows how to read about the host's I/O settings
    and writes it to C(<snapshot_dir>/<name>.json) (file mode 0600; a missing directory is created with mode 0700,
    an existing one keeps its mode), through a temporary file and a rename. Returns the snapshot.
  - "The snapshot holds: the C(io_facts) state; the text, SHA-256, vendor flag and owning package of every persistent
    source (fstab, tunefstab, the udev rule files that set a queue attribute, every sysctl file in boot order,
    the bulk-job slice unit and its drop-ins); the live C(vxtunefs -p) values of every VxFS file system;
    the kernel release; the versions of the packages that matter (the running kernel's, util-linux, coreutils,
    fio, procps, udev, VRTSvxfs, and the owners and conffile packages of the sources) through dpkg or rpm;
    the conffiles of the directories the collection reads; the live text of every file of C(/proc/sys/vm)
    and of every key a sysctl file sets; the installed kernels, the one the next boot runs and their block
    options and scheduler modules; and C(settings), every managed value flattened with the persistent
    assignments that set it in boot order."
  - Snapshots are written in format 2; O(read) also reads format 1 (taken by earlier versions), as it is.
  - The format is described in C(docs/snapshot.md) of the collection. C(playbooks/upgrade_check.yml) takes one
    before an upgrade and one after and explains the differences.
  - Reads only, apart from the snapshot file. What cannot be read is listed in RV(snapshot.errors); the module does
    not fail because of it.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.roots
  - iotune.storage.roots.fstab
  - iotune.storage.roots.tunefstab
  - iotune.storage.roots.vxtunefs
  - iotune.storage.roots.udev
  - iotune.storage.roots.sysctl
attributes:
  check_mode:
    support: full
    details:
      - Check mode captures and returns the snapshot with C(changed=true) and writes nothing.
  diff_mode:
    support: none
  idempotent:
    support: none
    details:
      - Every run captures the state anew (with the time it was taken) and writes the file again.
options:
  name:
    description:
      - The snapshot's name, and the file name without C(.json).
      - 1 to 100 characters, without C(/) or NUL, not C(.) or C(..), without C(..) in it.
      - Without it the module takes no snapshot and only reads those named in O(read).
    type: str
  read:
    description:
      - Names of snapshots already in O(snapshot_dir) to return as RV(snapshots), read in the same run (the
        C(after) phase of C(upgrade_check.yml) takes C(post-upgrade) and reads C(pre-upgrade) in one round trip).
      - A name that is not there fails naming this option and listing the snapshots there.
    type: list
    elements: str
    default: []
  snapshot_dir:
    description: Directory of the snapshot files.
    type: path
    default: /var/lib/iotune/snapshots
  policy_checks:
    description:
      - The checks of a policy audit run just before the snapshot (as the concern modules and C(io_policy) return
        them); kept as RV(snapshot.policy_checks) with their C(id), C(concern), C(target), C(setting), C(expected)
        and C(status).
    type: list
    elements: dict
    default: []
  unit_dir:
    description: Directory of the bulk-job slice unit.
    type: path
    default: /etc/systemd/system
  slice_name:
    description: Name of the bulk-job slice unit (as O(iotune.storage.cache_limits#module:bulk_slice.name)).
    type: str
    default: iotune-bulk.slice
  boot_dir:
    description:
      - Directory of the installed kernels; a release is installed when C(<boot_dir>/vmlinuz-<release>) exists, and
        C(<boot_dir>/config-<release>) gives its block and I/O options. Only changed for tests or another root.
    type: path
    default: /boot
  modules_dir:
    description:
      - Directory of the kernel modules; C(<modules_dir>/<release>/kernel/block) lists the scheduler modules of a release.
        Only changed for tests or another root.
    type: path
    default: /lib/modules
  vmlinuz_links:
    description:
      - The links to the kernel the next boot runs, tried in order (Debian keeps them pointing to the newest kernel,
        which GRUB boots by default). When none of them is a link to an installed C(vmlinuz-<release>), the newest
        installed release (natural order of the release strings) is taken.
    type: list
    elements: path
    default: [/vmlinuz, /boot/vmlinuz]
  fstab_path:
    aliases: [fstab]
    description:
      - The mount table, read and joined with the live mounts; by default C(/etc/fstab), and C(/etc/vfstab) on a host
        whose C(uname -s) says C(SunOS). On Solaris and HP-UX the live mounts are those of C(/etc/mnttab) and the VxFS
        package is read with C(pkginfo) or C(swlist) (docs/platforms.md).
    default: null
notes:
  - A file a package ships as defaults (in C(/usr/lib/sysctl.d), C(/lib/sysctl.d), C(/usr/lib/udev/rules.d),
    C(/lib/udev/rules.d)) is marked C(vendor). The owner of every source is looked up with one C(dpkg-query -S)
    (or C(rpm -qf) per file), the conffiles with one C(dpkg-query -W) of the package database (or one C(rpm -q) of
    the owners' files). Without dpkg or rpm these are null and nothing fails.
  - VxFS file systems are those mounted as C(vxfs) in mountinfo, and the devices of the tunefstab file that
    C(vxtunefs -p <device>) reports mounted.
  - Commands run as argument lists in the C locale; none of them changes the host.
seealso:
  - module: iotune.storage.io_facts
  - module: iotune.storage.io_rollback
'''

EXAMPLES = r'''
- name: Capture the I/O state before the upgrade
  iotune.storage.io_snapshot:
    name: pre-upgrade
  register: before

- name: Keep the checks of the policy audit with the snapshot
  iotune.storage.io_snapshot:
    name: pre-upgrade
    policy_checks: "{{ audit.checks }}"

- name: Show what the snapshot says about discovered_direct_iosz
  ansible.builtin.debug:
    msg: "{{ before.snapshot.settings | dict2items | selectattr('value.setting', 'eq', 'discovered_direct_iosz') }}"
'''

RETURN = r'''
snapshots:
  description: The snapshots named in O(read), by name.
  returned: always
  type: dict
path:
  description: The snapshot file (in check mode, the file that would be written).
  returned: always
  type: str
  sample: /var/lib/iotune/snapshots/pre-upgrade.json
snapshot:
  description: The snapshot, as written to RV(path); the keys are described in C(docs/snapshot.md).
  returned: success
  type: dict
  contains:
    format:
      description: Format version of the snapshot (2; snapshots of format 1 have no C(sysctl), C(conffiles), C(kernels)).
      type: int
      returned: always
      sample: 2
    name:
      description: The snapshot's name.
      type: str
      returned: always
      sample: pre-upgrade
    taken:
      description: UTC time the snapshot was taken.
      type: str
      returned: always
      sample: "2026-11-25T10:00:00Z"
    host:
      description: C(hostname), C(kernel_release) and C(machine_id).
      type: dict
      returned: always
      sample: {hostname: db01, kernel_release: 6.1.0-27-amd64, machine_id: 4c4c4544004a3510804ac4c04f4e3732}
    package_manager:
      description: V(dpkg), V(rpm) or V(null).
      type: str
      returned: always
    packages:
      description: Versions of the installed packages that matter to I/O settings.
      type: dict
      returned: always
      sample: {coreutils: "9.1-1", fio: "3.33-3", linux-image-6.1.0-27-amd64: "6.1.115-1", udev: "252.31-1~deb12u1"}
    conffiles:
      description:
        - Path to C(package), C(obsolete) and C(removed) of every conffile of a package under the files and directories
          the collection reads (C(/etc/fstab), C(/etc/sysctl.conf), C(/etc/vx/tunefstab), the sysctl.d and udev rules
          directories, C(/etc/systemd/system), C(/etc/vx)), whether the file exists or not.
      type: dict
      returned: always
      sample: {/etc/sysctl.conf: {package: procps, obsolete: true, removed: false}}
    kernels:
      description:
        - C(running) (the release), C(installed) (releases with C(<boot_dir>/vmlinuz-<release>), oldest first),
          C(next_boot) and C(next_boot_source) (how it was found), C(configs) (release to the block and I/O options
          of its C(config-<release>), C(y), C(m), C(n) or the value) and C(scheduler_modules) (release to the modules
          of C(kernel/block)), for the running and the next boot's release.
      type: dict
      returned: always
      sample:
        running: 6.1.0-50-cloud-amd64
        installed: [6.1.0-50-cloud-amd64, 6.12.117+deb13-cloud-amd64]
        next_boot: 6.12.117+deb13-cloud-amd64
        next_boot_source: /vmlinuz -> boot/vmlinuz-6.12.117+deb13-cloud-amd64
        configs: {6.12.117+deb13-cloud-amd64: {CONFIG_MQ_IOSCHED_DEADLINE: m}}
        scheduler_modules: {6.12.117+deb13-cloud-amd64: [bfq, kyber-iosched, mq-deadline]}
    sysctl:
      description:
        - Dotted key to live text (whitespace collapsed) of every readable file of C(/proc/sys/vm), and of every key
          the sysctl files of RV(snapshot.sources) set (patterns expanded); a key that cannot be read is left out.
      type: dict
      returned: always
      sample: {vm.max_map_count: "1048576", vm.dirty_ratio: "40", kernel.pid_max: "4194304"}
    device_ids:
      description: Block device to C(wwn), C(serial), C(by_id) and C(by_path).
      type: dict
      returned: always
    facts:
      description: The state C(iotune.storage.io_facts) returns (all subsets, and its C(errors)).
      type: dict
      returned: always
    sources:
      description:
        - Path to C(kind), C(text), C(sha256), C(vendor), C(package) (the owner, or null) and C(conffile) (C(package),
          C(obsolete), C(removed) when the file is a package's conffile, else null) of every persistent source.
      type: dict
      returned: always
      sample:
        /usr/lib/sysctl.d/50-pid-max.conf:
          kind: sysctl
          text: "kernel.pid_max = 4194304\n"
          sha256: a8917a12...
          vendor: true
          package: systemd
          conffile: null
    vxtunefs:
      description: Mount point to C(device), C(values) (tunable to int) and C(error) of each VxFS file system.
      type: dict
      returned: always
    settings:
      description:
        - Every managed value, keyed C(vm.<name>), C(block_queue:<device>:<attribute>), C(mount_options:<mount point>)
          or C(tunefstab:<mount point>:<tunable>); each has C(concern), C(target), C(setting), C(live) and
          C(persistent), the assignments (C(source), C(line), C(value), C(vendor)) in the order they apply at boot.
      type: dict
      returned: always
      sample:
        vm.dirty_ratio:
          concern: cache_limits
          target: sysctl
          setting: vm.dirty_ratio
          live: 40
          persistent:
            - {source: /etc/sysctl.d/60-iotune.conf, line: 2, value: 40, vendor: false}
    policy_checks:
      description: The policy checks given in O(policy_checks), with the keys a snapshot keeps.
      type: list
      elements: dict
      returned: always
    errors:
      description: What could not be read, as sentences (the facts' errors included).
      type: list
      elements: str
      returned: always
'''

import os

from ansible.module_utils.basic import AnsibleModule

# AnsiballZ ships sources only: the collection's byte code comes from the host's cache (common.bytecode)
if __name__ == '__main__':
    from ansible_collections.iotune.storage.plugins.module_utils.common.bytecode import install as install_bytecode_cache
    install_bytecode_cache()
from ansible_collections.iotune.storage.plugins.module_utils.plan.cache_limits import DEFAULT_UNIT_DIR
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import DEFAULT_SLICE
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner
from ansible_collections.iotune.storage.plugins.module_utils.engine.snapshot import (
    BOOT_DIR, DEFAULT_DIR, MODULES_DIR, VMLINUZ_LINKS, read_snapshot, snapshot_path, take_snapshot, write_snapshot)
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysctl import CONF_DIRS, SYSCTL_CONF
from ansible_collections.iotune.storage.plugins.module_utils.parse.udev import DB_DIR, RULES_DIRS
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import check_existing
from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import host_platform
from ansible_collections.iotune.storage.plugins.module_utils.settings.platforms import PLATFORMS


# the options take_snapshot reads its sources from, as they are named there
SOURCE_ARGS = ('sys_root', 'proc_root', 'dev_root', 'fstab_path', 'tunefstab_path', 'sysctl_conf_dirs', 'sysctl_conf',
               'udev_rules_dirs', 'udev_db_dir', 'unit_dir', 'slice_name', 'vxtunefs', 'boot_dir', 'modules_dir', 'vmlinuz_links')


ARGUMENT_SPEC = dict(
    name=dict(type='str'),
    read=dict(type='list', elements='str', default=[]),
    snapshot_dir=dict(type='path', default=DEFAULT_DIR),
    policy_checks=dict(type='list', elements='dict', default=[]),
    fstab_path=dict(type='path', aliases=['fstab']),
    tunefstab_path=dict(type='path', default='/etc/vx/tunefstab'),
    vxtunefs=dict(type='path'),
    sys_root=dict(type='path', default='/sys'),
    proc_root=dict(type='path', default='/proc'),
    dev_root=dict(type='path', default='/dev'),
    sysctl_conf_dirs=dict(type='list', elements='path', default=list(CONF_DIRS)),
    sysctl_conf=dict(type='path', default=SYSCTL_CONF),
    udev_rules_dirs=dict(type='list', elements='path', default=list(RULES_DIRS)),
    udev_db_dir=dict(type='path', default=DB_DIR),
    unit_dir=dict(type='path', default=DEFAULT_UNIT_DIR),
    slice_name=dict(type='str', default=DEFAULT_SLICE),
    boot_dir=dict(type='path', default=BOOT_DIR),
    modules_dir=dict(type='path', default=MODULES_DIR),
    vmlinuz_links=dict(type='list', elements='path', default=list(VMLINUZ_LINKS)),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    result = dict(changed=False, path=None, snapshots={})
    if params['name'] is None and not params['read']:
        module.fail_json(msg='name, read: give name (the snapshot to take) or read (the snapshots to return), or both', **result)
    try:
        if os.path.lexists(params['snapshot_dir']) and not os.path.isdir(params['snapshot_dir']):
            raise ValueError('snapshot_dir: %s exists and is not a directory' % params['snapshot_dir'])
        # refused before anything is read, in check mode too: the real run would refuse it (issue 23)
        check_existing(params['snapshot_dir'], 'snapshot_dir')
        for index, name in enumerate(params['read']):
            result['snapshots'][name] = read_snapshot(params['snapshot_dir'], name, 'read[%d]' % index)
    except ValueError as exc:
        module.fail_json(msg=str(exc), **result)
    if params['name'] is None:
        module.exit_json(**result)
    runner = CommandRunner(module)
    # the platform is what the host says it is (uname -s), and its mount table the default fstab_path
    platform = host_platform(module, runner, 'linux')
    if params['fstab_path'] is None:
        params['fstab_path'] = PLATFORMS[platform]['fstab']
    try:
        result['path'] = snapshot_path(params['snapshot_dir'], params['name'])
        snapshot = take_snapshot(params['name'], policy_checks=params['policy_checks'], run_command=runner, platform=platform,
                                 **dict((key, params[key]) for key in SOURCE_ARGS))
    except ValueError as exc:
        module.fail_json(msg=str(exc), **result)
    if not module.check_mode:
        try:
            write_snapshot(params['snapshot_dir'], params['name'], snapshot)
        except ValueError as exc:
            module.fail_json(msg=str(exc), **result)
        except (IOError, OSError) as exc:
            module.fail_json(msg='cannot write the snapshot %s: %s' % (getattr(exc, 'filename', None) or result['path'],
                                                                       exc.strerror or exc), **result)
    result['changed'] = True
    result['snapshot'] = snapshot
    module.exit_json(**result)


if __name__ == '__main__':
    main()
