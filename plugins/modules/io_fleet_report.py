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
  - The fleet files list the hosts by name, whatever the order of O(reports).
  - Under job slicing (docs/fleet.md, Job slicing), each slice writes its part with O(part) instead of the fleet
    files, and one task with O(merge) writes the fleet files from the parts of the run exactly as one run of all the
    hosts writes them.
  - With O(start), first in a play and once, before any host work, it checks that the reports can be written in O(dir)
    and chooses the run's id (RV(run_id)), and writes nothing (the playbooks' C(roles/io_audit/tasks/start.yml)).
  - An action plugin only; use it with C(run_once) and C(delegate_to=localhost). It changes no managed state and
    returns C(changed=false). In check mode it writes nothing and returns RV(console) (and RV(iotune_summary)).
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
attributes:
  check_mode:
    support: full
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
    description:
      - The host reports (as the C(report) that C(iotune.storage.io_policy) returns).
      - Required unless O(merge), or O(results) and O(hosts), are given; not with them.
      - A template that gathers every host's report (C(map('extract', hostvars, ...))) costs seconds per ten hosts on
        the controller; O(results) and O(hosts) read the same reports in a fraction of that.
    type: list
    elements: dict
  results:
    description:
      - The name of the variable C(iotune.storage.io_policy)'s result is registered as on every host; the reports are
        that result's C(report) of each host of O(hosts) that has one, read from the host's variables as they are
        (not templated).
      - With O(hosts); not with O(reports) or O(merge).
    type: str
    version_added: 1.0.0
  hosts:
    description: With O(results), the hosts whose reports to read, normally C(ansible_play_hosts).
    type: list
    elements: str
    version_added: 1.0.0
  summary:
    description:
      - Also return RV(iotune_summary), the run's summary, and publish it as the run's custom stat C(iotune_summary)
        as C(ansible.builtin.set_stats) with C(aggregate=false) and C(per_host=false) would (the task's
        C(ansible_stats)); ansible-runner, AWX and Automation Controller keep it with the job (docs/fleet.md).
      - C(mode) (V(audit), V(harden)), and any of C(run_id), C(failed_hosts) (the play's failed and unreachable
        hosts) and C(fail_on) (the audit's gate, C(statuses) and C(severities); the hosts it fails are added).
    type: dict
    version_added: 1.0.0
  keep:
    version_added: 1.0.0
    description: How many runs C(history.json) keeps, the newest (V(0) keeps every one).
    type: int
    default: 30
  part:
    description:
      - The name of this slice of a sliced job, for example AWX's C(awx_job_id); 1 to 64 letters, digits and C(.)
        C(_) C(-), starting with a letter or a digit.
      - Writes C(hosts/<host>.json) as without it and, instead of the fleet files, C(parts/<run id>/<part>.json) in
        O(dir) with the host reports and the time it was written, atomically and under the directory's lock.
      - A part holds at most 64 MiB; a bigger slice is refused (split the job into more slices).
      - The run id is O(run_id), or the one the reports share.
    type: str
    version_added: 1.0.0
  run_id:
    description:
      - With O(part), the run the part belongs to, the same for every slice (C(iotune_run_id)); every report must be of
        it. Needed when the slice has no host report.
    type: str
    version_added: 1.0.0
  merge:
    description:
      - The run id of a sliced run whose parts (C(parts/<merge>/*.json) in O(dir)) to merge. Writes C(summary.json),
        C(junit.xml), C(report.html) and one C(history.json) line for all the hosts of the parts, byte for byte as one
        run of those hosts writes them, with the time of the latest part.
      - Each part is read back as input, not trusted; it is refused when it is a link or not a regular file of the
        controller's user, its directory can be written by others, it is larger than 64 MiB or nested deeper than 32
        levels, or a field is not of its type; a host in two parts is refused naming both.
    type: str
    version_added: 1.0.0
  start:
    description:
      - Start a run instead of writing reports, once and before any host work. Stops the run, naming
        C(iotune_report_dir) and ending with C(the run stopped before any host work), when the reports cannot be
        written in O(dir) (not a directory of the controller's user, writable by others, a link, not writable or not
        creatable; in check mode only the form of O(dir) is checked), or when O(fail_on) is not a gate the C(io_audit)
        role can apply.
      - Returns RV(run_id), O(run_id) or, when that is empty, a new one (the UTC time to the microsecond and eight
        random hex digits). A given one the journals would refuse (1 to 128 letters, digits and C(.) C(_) C(:) C(+)
        C(-), not starting with a punctuation mark) stops the run naming C(iotune_run_id). Writes nothing.
      - Takes only O(dir), O(run_id), O(fail_on) and O(benchmark_hosts).
    type: bool
    default: false
    version_added: 1.0.0
  fail_on:
    description:
      - With O(start), the audit's gate as the C(io_audit) role's C(iotune_audit_fail_on) gives it (V({}) when not set),
        a dict with C(statuses) (a list of V(compliant), V(drift), V(not_persistent), V(not_applicable), V(error)) and
        C(severity) (V(low), V(medium) or V(high)). Anything else stops the run naming C(iotune_audit_fail_on).
    type: raw
    version_added: 1.0.0
  benchmark_hosts:
    description:
      - With O(start), the hosts of the play (C(ansible_play_hosts)); returns RV(measuring), whether any of them may
        measure with C(iotune_benchmark.enabled) (C(harden_io.yml) runs its measured phases once, skipped, when none
        can). A host may measure unless its C(iotune_benchmark) from the inventory and the extra vars (read raw, never
        templated) and the first host's as the task sees it (with the play's variables) are unset, empty, or a dict
        whose C(enabled) is absent, null or false; a template or a host not found may.
    type: list
    elements: str
    version_added: 1.0.0
  parts:
    description:
      - With O(merge), how many parts there must be (the job's slice count); fewer or more is an error naming what was
        found. Without it, every part found is merged.
    type: int
    version_added: 1.0.0
seealso:
  - module: iotune.storage.io_policy
'''

EXAMPLES = r'''
- name: Write the fleet reports of the hosts whose io_policy result is registered as audit
  iotune.storage.io_fleet_report:
    dir: "{{ playbook_dir }}/iotune-reports"
    results: audit
    hosts: "{{ ansible_play_hosts }}"
  delegate_to: localhost
  run_once: true
  register: fleet

- name: Say what is not compliant
  ansible.builtin.debug:
    msg: "{{ fleet.console.lines }}"
  run_once: true

- name: Check the report directory and choose the run id, before any host work
  iotune.storage.io_fleet_report:
    dir: /srv/iotune-reports
    start: true
    run_id: "{{ iotune_run_id | default(none, true) }}"
  run_once: true
  register: run

- name: Write this slice's part of a sliced job (AWX job slicing)
  iotune.storage.io_fleet_report:
    dir: /srv/iotune-reports
    reports: "{{ ansible_play_hosts | map('extract', hostvars, ['audit', 'report']) | list }}"
    part: "{{ awx_job_id }}"
    run_id: "{{ iotune_run_id }}"
  delegate_to: localhost
  run_once: true

- name: Merge the parts of the run into the fleet reports (playbooks/merge_reports.yml)
  iotune.storage.io_fleet_report:
    dir: /srv/iotune-reports
    merge: "{{ iotune_run_id }}"
    parts: 4
'''

RETURN = r'''
files:
  description: The files written (none in check mode).
  returned: always
  type: list
  elements: str
iotune_summary:
  description:
    - With O(summary), the run's summary (docs/fleet.md, AWX / ansible-runner) - C(mode), C(run_id), C(check_mode),
      C(hosts), C(statuses) (every check status counted), C(changed), C(waived), C(failed_hosts) and C(reports) (the
      directory and the fleet files, or a slice's part; V(null) in check mode).
  returned: with O(summary)
  type: dict
console:
  description:
    - What the console says of the reports, computed once on the controller.
    - "C(hosts) (how many reports), C(summary) (the count of every check status over the fleet, C(waived), and
      C(changed) after an enforcing run) and C(lines), C(host: status: message) for every check that is not compliant,
      at most 50 and then one line that says how many more there are and where."
    - "After a measurement (reports with a C(benchmark) part) also C(measured) (how many hosts have one) and
      C(measurements), one line per host and phase, what was measured (the device, or MEMORY with the reason), each
      job's medians, spread and verdict; benchmark_io.yml ends with them instead of the audit's summary."
  returned: unless O(merge) is given
  type: dict
  sample:
    hosts: 2
    summary: {compliant: 7, drift: 1, not_persistent: 0, not_applicable: 0, error: 0, waived: 0}
    lines: ["web1: drift: noatime is not in effect on /data (live: no; fstab: no)"]
gated_hosts:
  description:
    - The hosts of O(hosts) whose registered result (O(results)) has C(fail_on_drift) true, that is, those the
      C(io_audit) role fails when they drift; it runs its failing task once, not once per host, when this is empty.
  returned: when O(results) is given
  type: list
  elements: str
  sample: [db1]
measuring:
  description: With O(start) and O(benchmark_hosts), whether any of those hosts may measure.
  returned: with start and benchmark_hosts
  type: bool
run_id:
  description: The run of the part written, or of the parts merged; with O(start), the run's id.
  returned: with start, part or merge
  type: str
  sample: chg-4711
part:
  description: The name of the part written.
  returned: with part
  type: str
  sample: "4712"
part_file:
  description: The part's file.
  returned: with part
  type: str
  sample: /srv/iotune-reports/parts/chg-4711/4712.json
parts:
  description: The names of the parts merged, in order.
  returned: with merge
  type: list
  elements: str
  sample: ["4712", "4713", "4714"]
hosts:
  description: How many hosts the merged reports hold.
  returned: with merge
  type: int
time:
  description: The time of the merged fleet files, the latest part's.
  returned: with merge
  type: str
  sample: "2026-11-25T05:00:00Z"
'''
