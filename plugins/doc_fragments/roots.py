# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """Options that name where a module reads (and writes) the host's state: the kernel's pseudo
    file systems and the system files whose place is the same on every host. Each is a parameter
    with the real path as its default so that tests point it at fixtures (CONVENTIONS.md).

    A module that gives one of these options a meaning of its own documents it itself; an entry of
    the module's own (for example only C(aliases)) is merged over the fragment's."""

    # procfs and sysfs: iotune.storage.roots
    DOCUMENTATION = r'''
options:
  proc_root:
    description:
      - Mount point of procfs, where the live mounts (C(self/mountinfo)), the C(vm.*) values (C(sys/vm)) and
        C(meminfo) are read. Only changed for tests, or to read another root.
    type: path
    default: /proc
  sys_root:
    description:
      - Mount point of sysfs, where the block devices and their queues (C(block/<device>/queue)) are read. Only changed
        for tests, or to read another root.
    type: path
    default: /sys
'''

    # procfs only: iotune.storage.roots.proc
    PROC = r'''
options:
  proc_root:
    description:
      - Mount point of procfs, where the live mounts (C(self/mountinfo)), the C(vm.*) values (C(sys/vm)) and
        C(meminfo) are read. Only changed for tests, or to read another root.
    type: path
    default: /proc
'''

    # fstab and the devices its specs name: iotune.storage.roots.fstab
    FSTAB = r'''
options:
  fstab_path:
    description: Path of the fstab file, read and joined with the live mounts.
    type: path
    default: /etc/fstab
  dev_root:
    description: Device directory used to resolve C(UUID=), C(LABEL=), C(PARTUUID=) and C(PARTLABEL=) fstab specs.
    type: path
    default: /dev
'''

    # the VxFS tunefstab file: iotune.storage.roots.tunefstab
    TUNEFSTAB = r'''
options:
  tunefstab_path:
    description:
      - Path of the VxFS tunefstab file.
      - The E(VXTUNEFSTAB) environment variable that C(vxtunefs) honours is not consulted; set this option instead.
    type: path
    default: /etc/vx/tunefstab
'''

    # the vxtunefs program: iotune.storage.roots.vxtunefs
    VXTUNEFS = r'''
options:
  vxtunefs:
    description:
      - Path of C(vxtunefs). By default it is searched in E(PATH), then C(/opt/VRTS/bin), C(/sbin), C(/usr/sbin)
        and C(/usr/lib/fs/vxfs).
    type: path
'''

    # the udev rules and database: iotune.storage.roots.udev
    UDEV = r'''
options:
  udev_rules_dirs:
    description:
      - The udev rules search path, highest priority first. A file name in an earlier directory masks the same
        name in later ones; the files are then read sorted by name. Only changed for tests, or to read another root.
    type: list
    elements: path
    default: [/etc/udev/rules.d, /run/udev/rules.d, /usr/local/lib/udev/rules.d, /usr/lib/udev/rules.d, /lib/udev/rules.d]
  udev_db_dir:
    description:
      - The udev database (C(b<major>:<minor>) files with the device properties the rules match on). Only changed for
        tests, or to read another root.
    type: path
    default: /run/udev/data
'''

    # the sysctl files: iotune.storage.roots.sysctl
    SYSCTL = r'''
options:
  sysctl_conf_dirs:
    description:
      - The sysctl.d directories in precedence order, as systemd-sysctl reads them (a file name in an earlier
        directory masks the same name in later ones). Only changed for tests, or to read another root.
    type: list
    elements: path
    default: [/etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d, /usr/lib/sysctl.d, /lib/sysctl.d]
  sysctl_conf:
    description: The sysctl file applied after all sysctl.d files. Only changed for tests, or to read another root.
    type: path
    default: /etc/sysctl.conf
'''
