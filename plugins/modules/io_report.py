#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: io_report
short_description: Keep an iotune report on the host
version_added: 0.3.0
description:
  - Writes one report, as JSON, under each of the given file names in a directory, in one round trip. The
    C(io_audit) role keeps every run's report this way, as C(<mode>-<run_id>.json) and C(<mode>-latest.json).
  - Each file is written through a temporary file and a rename, so a reader never sees half a report. A new
    file gets O(mode); an existing one keeps its mode and owner.
  - The directory is created when it is missing (its parents with mode 0755).
  - Nothing is validated in the report itself; it is written as given, keys sorted, indented by four spaces.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
attributes:
  check_mode:
    support: full
    details:
      - Reports which files would be written and writes nothing.
  diff_mode:
    support: none
  idempotent:
    support: full
    details:
      - A file that already holds the report is not written again.
options:
  report:
    description: The report.
    type: dict
    required: true
  names:
    description:
      - The file names to write the report under, in O(dir). Plain names only (no V(/), not starting with V(.)).
    type: list
    elements: str
    required: true
  dir:
    description: The directory of the reports.
    type: path
    default: /var/lib/iotune/reports
  mode:
    description: Mode of a new report file, as an octal string.
    type: str
    default: '0640'
  dir_mode:
    description: Mode of O(dir) when the module creates it, as an octal string.
    type: str
    default: '0750'
  keep:
    version_added: 1.0.0
    description:
      - After writing, keep only the newest O(keep) report files of the report's C(mode) in O(dir)
        (C(<mode>-<run id>.json); C(<mode>-latest.json) and the files of O(names) always stay). V(0) removes none.
    type: int
    default: 0
'''

EXAMPLES = r'''
- name: Keep the run's report on the host
  iotune.storage.io_report:
    report: "{{ report }}"
    names:
      - audit-20261122T101500Z.json
      - audit-latest.json
'''

RETURN = r'''
paths:
  description: The report files, in the order of O(names).
  returned: always
  type: list
  elements: str
  sample: [/var/lib/iotune/reports/audit-20261122T101500Z.json, /var/lib/iotune/reports/audit-latest.json]
written:
  description: The files written (in check mode, those that would be), that is those that did not hold the report already.
  returned: always
  type: list
  elements: str
removed:
  description: The older report files removed to keep O(keep) (in check mode, those that would be).
  returned: always
  type: list
  elements: str
'''


import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.iotune.storage.plugins.module_utils.common.files import parse_mode
from ansible_collections.iotune.storage.plugins.module_utils.engine.report import prune_reports, write_report


def main():
    module = AnsibleModule(
        argument_spec=dict(
            report=dict(type='dict', required=True),
            names=dict(type='list', elements='str', required=True),
            dir=dict(type='path', default='/var/lib/iotune/reports'),
            mode=dict(type='str', default='0640'),
            dir_mode=dict(type='str', default='0750'),
            keep=dict(type='int', default=0),
        ),
        supports_check_mode=True,
    )
    params = module.params
    result = dict(changed=False, paths=[], written=[], removed=[])
    if os.path.lexists(params['dir']) and not os.path.isdir(params['dir']):
        module.fail_json(msg='dir: %s is not a directory' % params['dir'], **result)
    if params['keep'] < 0:
        module.fail_json(msg='keep: must be 0 (remove no report) or a number of reports to keep, got %d' % params['keep'],
                         **result)
    try:
        mode = parse_mode(params['mode'], 'mode')
        dir_mode = parse_mode(params['dir_mode'], 'dir_mode')
        result['paths'], result['written'] = write_report(params['dir'], params['names'], params['report'], mode,
                                                          dir_mode, check=module.check_mode)
        mode_name = params['report'].get('mode')
        if params['keep'] and isinstance(mode_name, str) and mode_name:
            result['removed'] = prune_reports(params['dir'], mode_name, params['keep'], protect=params['names'],
                                              check=module.check_mode)
    except ValueError as exc:
        module.fail_json(msg=str(exc), **result)
    except (IOError, OSError) as exc:
        module.fail_json(msg='cannot write the report %s: %s' % (getattr(exc, 'filename', None) or params['dir'],
                                                                 exc.strerror or exc), **result)
    result['changed'] = bool(result['written'] or result['removed'])
    module.exit_json(**result)


if __name__ == '__main__':
    main()
