# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """The write-ahead journal options every concern module takes (module_utils/_concern.JOURNAL_ARGS)."""

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
