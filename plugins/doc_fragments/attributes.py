# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """Shared attribute declarations for iotune.storage modules.

    Every module extends C(iotune.storage.attributes) (the descriptions) and
    declares C(support:) for each attribute in its own C(attributes:) section,
    or extends one of the ready-made combinations below.
    """

    # Descriptions of the attributes every module declares.
    DOCUMENTATION = r'''
options: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
  idempotent:
    description:
      - When run twice in a row outside check mode, with the same arguments, the second invocation indicates no change.
      - This assumes that the system controlled/queried by the module has not changed in a relevant way.
'''

    # Description of the facts attribute; use with DOCUMENTATION.
    FACTS = r'''
options: {}
attributes:
  facts:
    description: Action returns an C(ansible_facts) dictionary that will update existing host facts.
'''

    # Read-only modules (info and facts modules); use with DOCUMENTATION.
    INFO_MODULE = r'''
options: {}
attributes:
  check_mode:
    support: full
    details:
      - This action does not modify state.
  diff_mode:
    support: none
    details:
      - This action does not modify state.
  idempotent:
    support: full
    details:
      - This action does not modify state.
'''

    # The concern modules (mount_options, tunefstab, block_queue, cache_limits);
    # each declares its own diff_mode. Use with DOCUMENTATION.
    CONCERN = r'''
options: {}
attributes:
  check_mode:
    support: full
    details:
      - Check mode reads the state, reports the checks and what would change (C(changed) is true when something would),
        and writes nothing.
  idempotent:
    support: full
    details:
      - A second run with the same request changes nothing and reports C(changed=false).
'''

    # The modules of the action group iotune.storage.iotune (meta/runtime.yml): those that take journal_dir.
    # Use with DOCUMENTATION.
    ACTION_GROUP = r'''
options: {}
attributes:
  action_group:
    description: Use C(group/iotune.storage.iotune) in C(module_defaults) to set the default of options for all modules in the group.
    support: full
    details:
      - The group holds the modules that take O(journal_dir) (the journal and its rollback), so that
        C(module_defaults) of C(group/iotune.storage.iotune) can set O(journal_dir) for all of them; an option that
        not every member takes fails the members without it.
    membership:
      - iotune.storage.iotune
'''
