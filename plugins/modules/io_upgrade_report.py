#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: io_upgrade_report
short_description: Explain the differences between two snapshots of each host and write the reports
version_added: 0.3.0
description:
  - Compares each host's two snapshots (as C(iotune.storage.io_snapshot) returns them) and classifies every
    difference as C(different_host), C(host_unverified), C(snapshot_format), C(kernel_pending), C(kernel_changed),
    C(changed_default), C(lost_setting), C(changed_setting), C(sysctl_changed), C(schedulers_changed),
    C(io_rule_changed), C(resolved),
    C(device_renamed), C(device_added), C(device_removed), C(mount_added), C(mount_removed), C(summarized) or
    C(package_changed), each with one line a person can act on (C(docs/upgrades.md) of the collection gives the rules).
  - A change is explained before it is blamed on a package - live mount options that now follow the unchanged
    C(/etc/fstab) entry, or a drift the policy wanted gone that is gone, are C(resolved), never C(changed_default);
    advice never contradicts the policy.
  - C(different_host) says the two snapshots are of different hosts (their hostnames or machine ids differ);
    C(host_unverified) that it cannot tell (a snapshot without a machine id, the older format).
  - A block device with another kernel name is paired by its WWN, serial, C(/dev/disk/by-id) and
    C(/dev/disk/by-path) links (C(device_renamed)), and its settings are compared under the new name.
  - Writes the audit's report formats into O(dir) on the controller, in one task - C(hosts/<host>.json),
    C(summary.json), C(junit.xml) with one case per difference (failing those of the classes in O(fail_on)) and
    C(report.html), whose fleet view groups the hosts by difference.
  - An action plugin only; use it with C(run_once) and C(delegate_to=localhost). Never contacts a host and returns
    C(changed=false).
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
attributes:
  check_mode:
    support: none
  diff_mode:
    support: none
  idempotent:
    support: full
options:
  dir:
    description: Directory of the reports on the controller (absolute).
    type: path
    required: true
  hosts:
    description: Host name to C({before, after}), each a snapshot.
    type: dict
    required: true
  fail_on:
    description: The difference classes that fail a host (its JUnit cases fail, its checks are C(drift)).
    type: list
    elements: str
    default: [different_host, changed_default, lost_setting]
  io_sysctls:
    description:
      - Sysctl keys or shell patterns outside the collection's settings whose change is a C(changed_default); any
        other key that changed is a C(sysctl_changed), which is not in the default O(fail_on). The keys the policy
        sets count as I/O keys too.
    type: list
    elements: str
    # BEGIN make schema: default vm sysctls
    default:
      - vm.dirty_bytes
      - vm.dirty_ratio
      - vm.dirty_background_bytes
      - vm.dirty_background_ratio
      - vm.dirty_expire_centisecs
      - vm.dirty_writeback_centisecs
      - vm.dirtytime_expire_seconds
      - vm.vfs_cache_pressure
      - vm.watermark_scale_factor
      - vm.swappiness
      - vm.min_free_kbytes
    # END make schema
  run_id:
    description: The run id the reports carry. Default C(upgrade-<UTC time>).
    type: str
  write:
    description: Write the report files (false to only return the differences).
    type: bool
    default: true
seealso:
  - module: iotune.storage.io_snapshot
  - module: iotune.storage.io_fleet_report
'''

EXAMPLES = r'''
- name: Explain what the upgrade changed
  iotune.storage.io_upgrade_report:
    dir: "{{ playbook_dir }}/iotune-reports"
    hosts: "{{ dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, 'pair'))) }}"
  delegate_to: localhost
  run_once: true
'''

RETURN = r'''
hosts:
  description:
    - Per host C(differences) (each C(class), C(key), C(target), C(setting), C(before), C(after), C(package),
      C(message)), C(failing) (those of the classes in O(fail_on)), C(counts) per class, C(policy) (each policy check
      of the before snapshot with its C(id) and its status C(before) and C(after); C(after) null when the after
      snapshot holds no audit), and the snapshot names C(before) and C(after).
  returned: always
  type: dict
files:
  description: The files written.
  returned: always
  type: list
  elements: str
'''
