# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/enforce.md's table of variables names every host variable io_policy reads (ARG_VARS), so
that the page cannot fall behind the action again (issue 42: it listed fewer than the action read)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re

from ansible_collections.iotune.storage.plugins.action.io_policy import ARG_VARS
from ansible_collections.iotune.storage.tests.unit.meta import collection_docs as cd


def table_variables():
    with open(os.path.join(cd.ROOT, 'docs', 'enforce.md')) as handle:
        text = handle.read()
    section = text.split('\n## Variables\n', 1)[1].split('\n## ', 1)[0]
    return set(re.findall(r'^\| `([a-z_]+)` \|', section, re.M))


def test_the_variables_table_names_every_host_variable_io_policy_reads():
    documented = table_variables()
    assert sorted(var for arg, var in ARG_VARS if var not in documented) == []
    # and names no variable the action does not read, but the run id the play passes
    assert sorted(documented - set(var for arg, var in ARG_VARS) - {'iotune_run_id'}) == []
