# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The documentation site that make docs built (scripts/docs-site), opened in headless Chromium:
the collection's index, a module page built from the module's own docs, and a guide from docs/."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re
import shutil
import subprocess

import pytest

HTML = os.environ.get('IOTUNE_DOCS_HTML') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build', 'docs', 'html')
PAGES = os.path.join(HTML, 'collections', 'iotune', 'storage')


def dom(tmp_path, page):
    chromium = shutil.which('chromium')
    assert chromium, 'chromium is not on PATH (make setup installs it)'
    argv = [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--user-data-dir=%s' % (tmp_path / 'profile'),
            '--enable-logging=stderr', '--v=0', '--virtual-time-budget=10000', '--dump-dom', 'file://' + page]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True, env=dict(os.environ, HOME=str(tmp_path)))
    assert 'Uncaught' not in done.stderr, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope='module', autouse=True)
def built():
    assert os.path.isfile(os.path.join(PAGES, 'index.html')), 'no site in %s: run make docs' % HTML


def test_the_collection_index_lists_modules_roles_filters_and_the_guides(tmp_path):
    page = dom(tmp_path, os.path.join(PAGES, 'index.html'))
    for link in ('io_policy_module.html', 'io_audit_role.html', 'fio_compare_filter.html', 'docsite/guides.html'):
        assert 'href="%s' % link in page, link


def test_a_module_page_carries_the_modules_own_options(tmp_path):
    page = dom(tmp_path, os.path.join(PAGES, 'io_policy_module.html'))
    assert re.search(r'<title>iotune\.storage\.io_policy module', page), page[:400]
    # report.keep and its default, from DOCUMENTATION in plugins/modules/io_policy.py
    assert 'keep' in page and 'reports_removed' in page and 'textfile_dir' in page


def test_a_guide_of_docs_is_a_page_with_its_sections_and_links(tmp_path):
    page = dom(tmp_path, os.path.join(PAGES, 'docsite', 'guides', 'reports.html'))
    assert 'The fix for each finding' in page and 'id="history"' in page
    # a link from one guide to another is a link between pages of the site
    assert 'href="severity.html"' in page
