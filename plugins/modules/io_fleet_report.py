#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: io_fleet_report
short_description: Write the fleet's reports on the controller
version_added: 0.3.0
description:
  - Writes C(hosts/<host>.json) for each host report, and C(summary.json), C(junit.xml) and C(report.html) for the
    fleet, into O(dir) on the controller, in one task. Never contacts a host.
  - Adds the run to C(history.json) in O(dir) (its findings, waived, new and resolved counts), which C(report.html)
    draws as the fleet's findings over the kept runs; its first section lists what is new and resolved since each
    host's previous report (docs/reports.md).
  - An action plugin only; use it with C(run_once) and C(delegate_to=localhost). It changes no managed state and
    returns C(changed=false).
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
  reports:
    description: The host reports (as the C(report) that C(iotune.storage.io_policy) returns).
    type: list
    elements: dict
    required: true
  keep:
    description: How many runs C(history.json) keeps, the newest (V(0) keeps every one).
    type: int
    default: 30
seealso:
  - module: iotune.storage.io_policy
'''

EXAMPLES = r'''
- name: Write the fleet reports
  iotune.storage.io_fleet_report:
    dir: "{{ playbook_dir }}/iotune-reports"
    reports: "{{ ansible_play_hosts | map('extract', hostvars, ['audit', 'report']) | list }}"
  delegate_to: localhost
  run_once: true
'''

RETURN = r'''
files:
  description: The files written.
  returned: always
  type: list
  elements: str
'''
