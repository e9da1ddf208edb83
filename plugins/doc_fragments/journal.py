# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """The write-ahead journal options every concern module takes (module_utils/common/args.JOURNAL_ARGS)."""

    DOCUMENTATION = r'''
options:
  run_id:
    description:
      - Identifier of the run whose journal records the changes, so that C(io_rollback) can undo them.
        Letters, digits and the characters C(.), C(_), C(:), C(+) and C(-); at most 128 characters.
      - Used when changes are applied; not used in check mode. Without it, a run id is made from the time and process
        id and returned as RV(run_id).
      - The journal records the previous state of each change before the change is made (write-ahead),
        so a run killed half-way can still be rolled back.
    type: str
  journal_dir:
    description: Directory of the write-ahead run journals (C(<run_id>.jsonl)), used when changes are applied.
    type: path
    default: /var/lib/iotune/journal
'''

    # What these modules return about the journal, the same in each. ansible-core merges doc fragments
    # into DOCUMENTATION only, never into RETURN, so this is not used through extends_documentation_fragment:
    # scripts/gen_return_docs copies it into the RETURN of every module that extends iotune.storage.journal,
    # between the lines '# BEGIN scripts/gen_return_docs: iotune.storage.journal' and '# END scripts/gen_return_docs',
    # and a unit test (tests/unit/plugins/doc_fragments/test_return_docs.py) fails when a copy differs.
    RETURN = r'''
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
'''
