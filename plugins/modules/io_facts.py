#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: io_facts
short_description: Gather storage I/O settings of a Linux, Solaris or HP-UX host as facts
version_added: 0.1.0
description:
  - Reads block-device queue settings from sysfs, live mounts from C(/proc/self/mountinfo) joined with
    C(/etc/fstab), writeback and page-cache sysctls (C(vm.*)) with their persistent sources, total memory,
    VxFS tool presence and C(/etc/vx/tunefstab), and the versions of C(fio) and GNU C(cp).
  - Returns them as C(ansible_facts.iotune), the common input of the other iotune.storage modules and roles.
  - Read-only and fast; a single pass over sysfs and procfs.
    The commands run are C(uname -s) (which platform), and C(fio --version) and C(cp --version) (when
    gathering O(gather=tools)).
  - On a host whose C(uname -s) is C(SunOS) (Solaris, illumos) or C(HP-UX), it reads instead the live mounts
    from C(/etc/mnttab) joined with C(/etc/vfstab) (Solaris) or C(/etc/fstab) (HP-UX), C(/etc/vx/tunefstab),
    the cache tunables (the ZFS ARC cap from C(kstat -p) and C(/etc/system); HP-UX's C(filecache_min) and
    C(filecache_max) from C(kctune -P)), the OS release and the VxFS version (C(pkginfo), C(swlist)), and names
    the concerns that do not apply there; O(gather) does not apply to these hosts.
  - On a host whose C(uname -s) names another system (C(AIX), C(FreeBSD)) it fails, naming what uname said
    and the systems the collection manages, and reads nothing else (docs/platforms.md).
  - Anything that cannot be read (partial sysfs in containers, unreadable files) is reported in
    C(ansible_facts.iotune.errors); the module does not fail because of it.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.facts
  - iotune.storage.attributes.info_module
  - iotune.storage.roots
  - iotune.storage.roots.fstab
  - iotune.storage.roots.tunefstab
attributes:
  facts:
    support: full
options:
  gather:
    description:
      - Which fact subsets to gather.
      - C(memory) gathers C(memory_bytes).
    type: list
    elements: str
    choices: [block_devices, mounts, fstab, vm, memory, vxfs, tools]
    default: [block_devices, mounts, fstab, vm, memory, vxfs, tools]
  udev_db_dir:
    version_added: 1.0.0
    description:
      - The udev database (C(b<major>:<minor>) files) the block devices' WWN, serial, whole model name and revision
        are completed from; without it (a container, no udev) they come from sysfs alone. Only changed for tests,
        or to read another root.
    type: path
    default: /run/udev/data
notes:
  - Persistent sysctl sources are read in the systemd-sysctl / C(sysctl --system) order
    (C(/etc/sysctl.d), C(/run/sysctl.d), C(/usr/local/lib/sysctl.d), C(/usr/lib/sysctl.d), C(/lib/sysctl.d),
    a file name in an earlier directory masking the same name in later ones, sorted by file name),
    then C(/etc/sysctl.conf); a file reached twice through a symbolic link counts once, at its last position.
  - The C(vm.*) sysctls are host-global; inside a container they show the host's values.
  - A mount's C(device) is resolved from the device number in mountinfo; file systems with anonymous device
    numbers (tmpfs, NFS, overlay) have none. For btrfs the C(/dev) path in the mount source is used instead.
  - C(bind) is true whenever the mounted root is not C(/); btrfs subvolume mounts show the same.
seealso:
  - name: proc_pid_mountinfo(5)
    description: Format of /proc/PID/mountinfo.
    link: https://man7.org/linux/man-pages/man5/proc_pid_mountinfo.5.html
  - name: Block layer sysfs attributes
    description: Kernel documentation of /sys/block/<disk>/queue.
    link: https://docs.kernel.org/block/queue-sysfs.html
'''

EXAMPLES = r'''
- name: Gather all storage I/O facts
  iotune.storage.io_facts:

- name: Show the read-ahead of every block device
  ansible.builtin.debug:
    msg: "{{ ansible_facts.iotune.block_devices | dict2items | map(attribute='value.read_ahead_kb') }}"

- name: Gather only mounts and fstab, from a non-default fstab
  iotune.storage.io_facts:
    gather:
      - mounts
      - fstab
    fstab_path: /mnt/sysimage/etc/fstab

- name: Fail when a backup target is mounted with direct I/O
  ansible.builtin.assert:
    that:
      - "'mincache=direct' not in ansible_facts.iotune.mounts['/backup'].options_live"
    fail_msg: /backup is mounted with mincache=direct, bulk restores will be slow
'''

RETURN = r'''
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: dict
  contains:
    iotune:
      description: Storage I/O facts. Only the subsets in O(gather) are present, and RV(ansible_facts.iotune.errors) always.
      returned: always
      type: dict
      contains:
        block_devices:
          description:
            - Entries of C(/sys/block) keyed by kernel name (V(sda), V(vdb), V(nvme0n1), V(dm-0), V(md0), V(loop0)).
            # BEGIN make schema: sentence io_facts.queue
            - Each value has the integer queue attributes C(read_ahead_kb) (KiB), C(max_sectors_kb) (KiB),
              C(nr_requests) (requests), C(rq_affinity), C(nomerges), C(max_hw_sectors_kb) (KiB), C(logical_block_size)
              (bytes), C(physical_block_size) (bytes), C(minimum_io_size) (bytes) and C(optimal_io_size) (bytes).
            # END make schema
            - Besides, C(scheduler) (the active one, V(none) is a valid value) and C(schedulers) (available, list);
              C(rotational), C(ro), C(removable) (booleans); C(size_bytes); C(dev) (C(MAJ:MIN));
              C(parents) (names in C(slaves/)), C(holders) (names in C(holders/)), C(partitions) (partition names);
              C(type) (lsblk's TYPE; V(disk), V(rom), V(loop), the device-mapper C(dm/uuid) prefix in lower case such as
              V(lvm), V(mpath), V(crypt) or V(part) for kpartx, V(dm) without one, the md C(md/level) such as V(raid1));
              C(dm_name), C(dm_uuid) (text).
            - C(wwn) is a real world wide name only, normalised as lsblk prints it (V(0x50026b724b09a1ff) for NAA,
              V(eui.<hex>) for EUI-64), from the sysfs C(wwid) when it is one, the NAA or EUI-64 designator of
              C(device/vpd_pg83), or udev's C(ID_WWN_WITH_EXTENSION) and C(ID_WWN); the same under every kernel (the
              sysfs C(wwid) of one SATA disk is a T10 vendor string under Linux 4.16 and an NAA name under 6.17);
              V(null) for a disk without one. C(wwid) is the sysfs C(device/wwid) or C(wwid) text as it is.
            - C(serial) from C(device/vpd_pg80) (SATA and SCSI disks), the sysfs C(serial) (NVMe, virtio), or udev's
              C(ID_SCSI_SERIAL) and C(ID_SERIAL_SHORT); C(model) the whole name from udev's C(ID_MODEL_ENC) or
              C(ID_MODEL) (sysfs cuts SCSI models at 16 characters), else sysfs; C(vendor) from sysfs; C(revision)
              from udev's C(ID_REVISION) or C(device/rev). White space is normalised.
            - Any attribute that is missing or unreadable is V(null).
          returned: when O(gather) contains V(block_devices)
          type: dict
          sample:
            vda:
              read_ahead_kb: 8192
              max_sectors_kb: 4096
              max_hw_sectors_kb: 2147483647
              nr_requests: 256
              logical_block_size: 512
              physical_block_size: 4096
              minimum_io_size: 4096
              optimal_io_size: 0
              scheduler: mq-deadline
              schedulers: [none, mq-deadline, kyber, bfq]
              rotational: true
              ro: false
              removable: false
              size_bytes: 274877906944
              dev: "254:0"
              parents: []
              holders: []
              partitions: []
              type: disk
              wwn: null
              wwid: null
              serial: overlayblk
              model: null
              vendor: "0x1af4"
              revision: null
              dm_name: null
              dm_uuid: null
            sda:
              type: disk
              wwn: "0x50026b724b09a1ff"
              wwid: naa.50026b724b09a1ff
              serial: 50026B724B09A1FF
              model: KINGSTON SH103S3240G
              vendor: ATA
              revision: 580ABBF0
        mounts:
          description:
            - Visible mounts keyed by mount point (octal escapes decoded); when a mount point is mounted more than
              once the last (top) mount wins.
            - Each value has C(source), C(fstype), C(mount_id), C(root), C(dev) (C(MAJ:MIN));
              C(device) (the C(/sys/block) name backing the mount, a partition resolving to its disk; V(null) for
              tmpfs, NFS, overlay and the like), C(partition) (partition name or V(null)),
              C(members) (every block device of the file system by its own name, a partition as itself, for instance
              V([sdc1, sdc2]) for a bcachefs over two partitions; C(device) and C(partition) are the first),
              C(backing_disks) (leaf disks reached through dm and md slaves, of every member);
              C(options_live) (merged as libmount merges them, V(ro) first when the mount or the file system is
              read-only, else V(rw), then the other mount options and super block options),
              C(mount_options) and C(super_options) (each as listed in mountinfo);
              C(options_fstab) (list, V(null) when the mount point is not in fstab), C(fstab_spec);
              C(bind) (true when C(root) is not C(/)).
          returned: when O(gather) contains V(mounts)
          type: dict
          sample:
            /:
              source: /dev/vda
              device: vda
              partition: null
              members: [vda]
              backing_disks: [vda]
              fstype: ext4
              options_live: [rw, relatime, discard]
              mount_options: [rw, relatime]
              super_options: [rw, discard]
              options_fstab: [errors=remount-ro]
              fstab_spec: UUID=3f1c2a9e-5b7d-4e8a-9c1f-2d3e4f5a6b7c
              mount_id: 27
              dev: "254:0"
              root: /
              bind: false
        fstab:
          description: Entries of the fstab file, in file order; comments and blank lines skipped.
          returned: when O(gather) contains V(fstab)
          type: list
          elements: dict
          contains:
            spec:
              description: First field, as written (C(UUID=...), C(LABEL=...), a path, C(server:/export)), escapes decoded.
              type: str
              returned: always
            file:
              description: Mount point (V(none) or V(swap) for swap entries), escapes decoded.
              type: str
              returned: always
            vfstype:
              description: File system type.
              type: str
              returned: always
            options:
              description: Mount options.
              type: list
              elements: str
              returned: always
            freq:
              description: Dump frequency (0 when absent).
              type: int
              returned: always
            passno:
              description: fsck pass number (0 when absent).
              type: int
              returned: always
            line:
              description: Line number in the file.
              type: int
              returned: always
            resolved:
              description: Real path of the device the spec names (through C(/dev/disk/by-*)), V(null) when it does not exist.
              type: str
              returned: always
        vm:
          description:
            # BEGIN make schema: sentence io_facts.vm
            - C(vm.*) sysctls keyed by short name (C(dirty_bytes), C(dirty_ratio), C(dirty_background_bytes),
              C(dirty_background_ratio), C(dirty_expire_centisecs), C(dirty_writeback_centisecs),
              C(dirtytime_expire_seconds), C(vfs_cache_pressure), C(watermark_scale_factor), C(swappiness) and
              C(min_free_kbytes)).
            # END make schema
            - Each value has C(value) (live, int or V(null)), C(persistent) (list of C(file), C(line), C(value) in
              application order), C(effective_persistent) and C(effective_file) (the last assignment, or V(null)).
          returned: when O(gather) contains V(vm)
          type: dict
          sample:
            dirty_ratio:
              value: 20
              persistent:
                - file: /etc/sysctl.d/80-iotune.conf
                  line: 3
                  value: 40
              effective_persistent: 40
              effective_file: /etc/sysctl.d/80-iotune.conf
        memory_bytes:
          description: C(MemTotal) from C(/proc/meminfo), in bytes.
          returned: when O(gather) contains V(memory)
          type: int
          sample: 25276502016
        vxfs:
          description: VxFS tools and tunefstab.
          returned: when O(gather) contains V(vxfs)
          type: dict
          contains:
            tools_present:
              description: Whether C(vxtunefs) was found (PATH, C(/opt/VRTS/bin), C(/sbin), C(/usr/sbin), C(/usr/lib/fs/vxfs)).
              type: bool
              returned: always
            vxtunefs_path:
              description: Path of C(vxtunefs), or V(null).
              type: str
              returned: always
            tunefstab_path:
              description: The tunefstab file read.
              type: str
              returned: always
            tunefstab_present:
              description: Whether the tunefstab file exists.
              type: bool
              returned: always
            tunefstab:
              description:
                - Parsed tunefstab lines in file order, each C(device), C(tunables) (name to value; integers and sizes
                  such as C(256k) as integer bytes) and C(line).
                - Several lines for one device apply in order.
              type: list
              elements: dict
              returned: always
              sample:
                - device: /dev/vx/dsk/datadg/u08
                  tunables:
                    discovered_direct_iosz: 10485760
                  line: 4
        tools:
          description: I/O tools found on the host.
          returned: when O(gather) contains V(tools)
          type: dict
          contains:
            fio:
              description: C(path) and C(version) of fio, or V(null) when it is not installed.
              type: dict
              returned: always
              sample:
                path: /usr/bin/fio
                version: "3.33"
            coreutils:
              description: C(path) of C(cp) and the GNU coreutils C(version), or V(null) when C(cp) is missing or not GNU.
              type: dict
              returned: always
              sample:
                path: /usr/bin/cp
                version: "9.1"
        platform:
          description:
            - Solaris and HP-UX hosts only. C(name) (V(solaris), V(hpux)), C(system) (what C(uname -s) printed),
              C(kernel_release) (C(uname -r)), C(release) (V(11.4) from C(/etc/release); V(B.11.31)),
              C(release_line), C(vxfs_version) (V(null) when VxFS is not installed).
          returned: on Solaris and HP-UX
          type: dict
        cache:
          description:
            - Solaris and HP-UX hosts only. Solaris, C(zfs_arc_max) with C(live) (bytes, C(kstat -p
              zfs:0:arcstats:c_max)), C(persistent) (the value as written by the last C(set zfs:zfs_arc_max) the next
              boot reads, in the fragments of C(/etc/system.d) in C-locale order, then C(/etc/system)), C(persistent_file)
              (the file of that line, V(null) when none sets it) and C(applies) (V(at the next boot)); HP-UX,
              C(filecache_min) and C(filecache_max) (and C(dbc_min_pct), C(dbc_max_pct) where the release has them) with
              C(live) (bytes), C(expression) and C(applies) (V(at once)).
          returned: on Solaris and HP-UX
          type: dict
        not_applicable:
          description: Solaris and HP-UX hosts only. The concerns that do not exist there, each with the reason.
          returned: on Solaris and HP-UX
          type: dict
          sample:
            block_queue: block-queue settings are read from sysfs and kept by udev rules, which only Linux has
        errors:
          description: What could not be read. The module does not fail for these.
          returned: always
          type: list
          elements: str
          sample:
            - "/sys/block/loop0: no queue directory (partial sysfs?)"
'''

from ansible.module_utils.basic import AnsibleModule

# AnsiballZ ships sources only: the collection's byte code comes from the host's cache (common.bytecode)
if __name__ == '__main__':
    from ansible_collections.iotune.storage.plugins.module_utils.common.bytecode import install as install_bytecode_cache
    install_bytecode_cache()
from ansible_collections.iotune.storage.plugins.module_utils.parse.iofacts import SUBSETS, gather_io_facts
from ansible_collections.iotune.storage.plugins.module_utils.parse.unixfacts import gather_unix_facts, host_platform
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner


def main():
    module = AnsibleModule(
        argument_spec=dict(
            gather=dict(type='list', elements='str', choices=list(SUBSETS), default=list(SUBSETS)),
            fstab_path=dict(type='path', default='/etc/fstab'),
            tunefstab_path=dict(type='path', default='/etc/vx/tunefstab'),
            sys_root=dict(type='path', default='/sys'),
            proc_root=dict(type='path', default='/proc'),
            dev_root=dict(type='path', default='/dev'),
            udev_db_dir=dict(type='path', default='/run/udev/data'),
        ),
        supports_check_mode=True,
    )
    runner = CommandRunner(module)
    platform = host_platform(module, runner)
    if platform in ('solaris', 'hpux'):
        module.exit_json(changed=False, ansible_facts={'iotune': gather_unix_facts(
            platform, runner, tunefstab_path=module.params['tunefstab_path'])})
    facts = gather_io_facts(
        gather=module.params['gather'],
        sys_root=module.params['sys_root'],
        proc_root=module.params['proc_root'],
        dev_root=module.params['dev_root'],
        fstab_path=module.params['fstab_path'],
        tunefstab_path=module.params['tunefstab_path'],
        udev_db_dir=module.params['udev_db_dir'],
        run_command=runner,
    )
    module.exit_json(changed=False, ansible_facts={'iotune': facts})


if __name__ == '__main__':
    main()
