# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The copy_tools concern: the large-block copy tools and their configuration file (plan.copy_tools)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.filestate import digest_text
from ansible_collections.iotune.storage.plugins.module_utils.engine.concern import Concern, act, apply_changes
from ansible_collections.iotune.storage.plugins.module_utils.plan.copy_tools import plan_copy_tools, wanted_file


class CopyTools(Concern):
    """The tools (executable files) show in results and diffs as a digest and a size, never
    as their content; the configuration file shows as text. A file may come as its digest
    only (io_policy sends a tool's content only when it expects the host to need it): it
    is planned from the digest, and a run that would install it without its content fails
    before any change, naming it in ``content_needed`` (the action plugin then sends it).
    ``installing``: whether this run writes (default: outside check mode, and for io_policy
    in mode enforce)."""
    name = 'copy_tools'

    def __init__(self, runner, files, state='present', installing=None):
        self.runner, self.state = runner, state
        self.files = [wanted_file(item, 'copy_tools_files[%d]' % index) for index, item in enumerate(files)]
        self.tools = set(item['path'] for item in self.files if item['mode'] & 0o111)
        if installing is None:
            module = getattr(runner, 'module', None)
            installing = module is None or (not module.check_mode and module.params.get('mode', 'enforce') == 'enforce')
        self.installing = installing

    def plan(self):
        return plan_copy_tools(self.files, self.state, installing=self.installing)

    def _side(self, change, side):
        data, tool = change.get(side), change['target'] in self.tools
        if side == 'after' and change['kind'] == 'file' and (data is None or tool):
            return digest_text(change['after_sha256'], change.get('after_size'))
        if data is None:
            return None
        return digest_text(data) if tool else data.decode('utf-8', 'replace')

    def diff(self, plan):
        diffs = []
        for change in self.show(plan['changes']):
            if change['kind'] in ('file', 'remove'):
                tool = change['target'] in self.tools
                diffs.append({'before_header': change['target'] if change['before'] is not None else '%s (absent)' % change['target'],
                              'after_header': change['target'] if change['after'] is not None else '%s (removed)' % change['target'],
                              'before': (change['before'] or '') + ('\n' if tool and change['before'] else ''),
                              'after': (change['after'] or '') + ('\n' if tool and change['after'] else '')})
        return diffs

    def show(self, changes):
        return [dict(change, before=self._side(change, 'before'), after=self._side(change, 'after'))
                if change['kind'] in ('file', 'remove') else change for change in changes]

    def apply(self, journal, plan):
        apply_changes(journal, plan['changes'], dir=lambda journal, change: act().apply_directory(journal, change['target']),
                      remove=lambda journal, change: act().remove_file(journal, change['target']))

    def extra(self, plan):
        return {'content_needed': plan['content_needed'], 'installed': plan['installed']}
