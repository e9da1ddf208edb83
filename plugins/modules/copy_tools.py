#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: copy_tools
short_description: Ensure the large-block copy tools and their configuration are installed as shipped
version_added: 0.2.0
deprecated:
  removed_in: 2.0.0
  why: >-
    One grammar for the policy. This module has an option set of its own beside the policy's iotune_copy_tools, which
    iotune.storage.io_policy audits and enforces together with the other concerns in one round trip per host.
  alternative: >-
    Use iotune.storage.io_policy with concerns=[copy_tools] and the policy's iotune_copy_tools, or the iotune.storage.copy_tools role,
    or the iotune.storage.harden_io playbook.
description:
  - Compares each file of O(files) (the C(iotune-copy) and C(iotune-bulk) tools, C(/etc/iotune/copy.conf)) with the
    content this collection ships and returns one check per file, C(drift) when it is missing or differs.
  - Outside check mode, writes what differs atomically (new files get O(files[].mode); missing parent directories are
    created), or with O(state=absent) removes the files.
  - Each change, directories included, is journalled before it is made (see O(run_id)); C(io_rollback) undoes a run,
    which uninstalls tools a run installed and removes the directories it created when they are empty.
  - Normally used through the C(copy_tools) role, which passes the tools' content.
author:
  - iotune.storage maintainers (@iotune)
extends_documentation_fragment:
  - iotune.storage.attributes
  - iotune.storage.attributes.action_group
  - iotune.storage.attributes.concern
  - iotune.storage.journal
attributes:
  diff_mode:
    support: full
    details:
      - Shows each file that would be written or removed.
options:
  files:
    description: The files to install (or remove).
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: Absolute path of the file on the host.
        type: path
        required: true
      content:
        description: The content it must have.
        type: str
        required: true
      mode:
        description: Mode of a new file, octal (V('0755') for a tool). An existing file keeps its mode.
        type: str
        default: '0644'
  state:
    description: V(present) installs the files as given, V(absent) removes them.
    type: str
    choices: [present, absent]
    default: present
seealso:
  - module: iotune.storage.io_rollback
'''

EXAMPLES = r'''
- name: Audit the copy tools' configuration
  iotune.storage.copy_tools:
    files:
      - {path: /etc/iotune/copy.conf, content: "buffer_size=8M\nslice=iotune-bulk.slice\n"}
  check_mode: true
  register: tools_audit

- name: Remove them, journalled as run chg-4712
  iotune.storage.copy_tools:
    files:
      - {path: /usr/local/bin/iotune-copy, content: ""}
    state: absent
    run_id: chg-4712
'''

RETURN = r'''
checks:
  description: One check per file (concern C(copy_tools), target the path, setting C(installed)).
  returned: always
  type: list
  elements: dict
  sample:
    - id: "copy_tools:/usr/local/bin/iotune-copy:installed"
      concern: copy_tools
      target: /usr/local/bin/iotune-copy
      setting: installed
      expected: 5d41402abc4b
      live: null
      persistent: null
      status: drift
      message: /usr/local/bin/iotune-copy is not installed
summary:
  description: Number of checks per status.
  returned: always
  type: dict
changes:
  description: What applying would do, in order (C(dir), C(file) or C(remove) items with C(target)).
  returned: always
  type: list
  elements: dict
msg:
  description: Summary of the checks.
  returned: always
  type: str
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

import os

from ansible.module_utils.basic import AnsibleModule

# AnsiballZ ships sources only: the collection's byte code comes from the host's cache (common.bytecode)
if __name__ == '__main__':
    from ansible_collections.iotune.storage.plugins.module_utils.common.bytecode import install as install_bytecode_cache
    install_bytecode_cache()
from ansible_collections.iotune.storage.plugins.module_utils.common.args import check_args, JOURNAL_ARGS
from ansible_collections.iotune.storage.plugins.module_utils.engine.concerns.copy_tools import CopyTools
from ansible_collections.iotune.storage.plugins.module_utils.engine.run import exit_concern
from ansible_collections.iotune.storage.plugins.module_utils.common.files import parse_mode
from ansible_collections.iotune.storage.plugins.module_utils.common.runner import CommandRunner


def main():
    module = AnsibleModule(
        argument_spec=dict(
            JOURNAL_ARGS,
            files=dict(type='list', elements='dict', required=True, options=dict(
                path=dict(type='path', required=True),
                content=dict(type='str', required=True),
                mode=dict(type='str', default='0644'),
            )),
            state=dict(type='str', choices=['present', 'absent'], default='present'),
        ),
        supports_check_mode=True,
    )
    errors = check_args(module.params)
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors)
    files = []
    seen = {}
    for index, item in enumerate(module.params['files']):
        where = 'files[%d]' % index
        if not item['path'].startswith('/'):
            errors.append('%s.path: must be absolute, got %r' % (where, item['path']))
        elif os.path.isdir(item['path']):
            errors.append('%s.path: %s is a directory, not a file' % (where, item['path']))
        elif os.path.normpath(item['path']) in seen:
            errors.append('%s.path: %s is listed twice (also %s)' % (where, item['path'], seen[os.path.normpath(item['path'])]))
        else:
            seen[os.path.normpath(item['path'])] = where
        try:
            files.append(dict(item, mode=parse_mode(item['mode'], where)))
        except ValueError as exc:
            errors.append(str(exc))
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors)

    concern = CopyTools(CommandRunner(module), files, module.params['state'])
    exit_concern(module, concern, concern.runner)


if __name__ == '__main__':
    main()
