# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The filter the tune_io role writes a search's HTML report with."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils._tune_report import render_tune_report


def tune_report_html(report):
    """The self-contained HTML page of a tune_io report (the role's JSON report)."""
    if not isinstance(report, dict):
        raise AnsibleFilterError('tune_report_html expects a tune_io report (a dict), got %s' % type(report).__name__)
    try:
        return render_tune_report(report)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise AnsibleFilterError('tune_report_html: the report is not one tune_io.yml writes: %s' % exc)


class FilterModule(object):
    def filters(self):
        return {'tune_report_html': tune_report_html}
