# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One version everywhere: nothing claims to be added in a version after galaxy.yml's, nothing is
removed in a version already reached, and the changelog's latest release is galaxy.yml's version
or an earlier one."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob

import pytest
import yaml

from ansible_collections.iotune.storage.tests.unit.meta import collection_docs as cd


def _versions_added(node, where):
    """(where, version) of every version_added in a doc tree (options, suboptions, contains, entry points)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == 'version_added':
                found.append((where, value))
            else:
                found.extend(_versions_added(value, '%s.%s' % (where, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_versions_added(value, '%s[%d]' % (where, index)))
    return found


def all_versions_added():
    found = []
    for name in cd.module_names():
        doc, ret = cd.module_docs(name)
        found.extend(_versions_added(doc, 'module %s DOCUMENTATION' % name))
        found.extend(_versions_added(ret, 'module %s RETURN' % name))
    for name, doc in cd.filter_docs().items():
        found.extend(_versions_added(doc, 'filter %s' % name))
    for role, spec in cd.role_specs().items():
        found.extend(_versions_added(spec, 'role %s argument_specs' % role))
    for fragment in sorted(glob.glob(cd.path('plugins', 'doc_fragments', '*.py'))):
        for var, text in cd.class_string_constants(fragment).items():
            found.extend(_versions_added(yaml.safe_load(text), 'doc fragment %s.%s' % (fragment.rsplit('/', 1)[-1], var)))
    return found


def test_galaxy_version_is_semantic():
    assert cd.version_tuple(cd.galaxy()['version'])


def test_the_collector_sees_the_modules_filters_and_their_versions():
    where = [entry[0] for entry in all_versions_added()]
    assert any(w.startswith('module io_policy DOCUMENTATION') for w in where), where
    assert any(w.startswith('filter ') for w in where), where


def test_nothing_is_added_after_the_galaxy_version():
    galaxy_version = cd.galaxy()['version']
    later = []
    for where, version in all_versions_added():
        try:
            if cd.version_tuple(version) > cd.version_tuple(galaxy_version):
                later.append('%s: %s' % (where, version))
        except ValueError as error:
            later.append('%s: %s' % (where, error))
    assert not later, 'version_added later than galaxy.yml version %s (or not X.Y.Z):\n%s' % (galaxy_version, '\n'.join(later))


def test_version_added_are_strings():
    # an unquoted 1.0 would be a float in YAML; every one here must read as X.Y.Z text
    assert all(isinstance(version, str) for dummy, version in all_versions_added())


def test_deprecations_are_removed_in_a_later_version_and_agree_with_the_docs():
    galaxy_version = cd.version_tuple(cd.galaxy()['version'])
    routing = (cd.runtime().get('plugin_routing') or {}).get('modules') or {}
    problems = []
    for name, entry in sorted(routing.items()):
        deprecation = entry.get('deprecation')
        if not deprecation:
            continue
        removal = deprecation.get('removal_version')
        if removal is None or cd.version_tuple(removal) <= galaxy_version:
            problems.append('%s: removal_version %r is not after %s' % (name, removal, cd.galaxy()['version']))
        doc = cd.module_docs(name)[0]
        if (doc.get('deprecated') or {}).get('removed_in') != removal:
            problems.append('%s: DOCUMENTATION deprecated.removed_in %r, runtime.yml %r'
                            % (name, (doc.get('deprecated') or {}).get('removed_in'), removal))
    for name in cd.module_names():
        if cd.module_docs(name)[0].get('deprecated') and not (routing.get(name) or {}).get('deprecation'):
            problems.append('%s: deprecated in DOCUMENTATION but not in meta/runtime.yml' % name)
    assert not problems, '\n'.join(problems)


def test_the_changelog_does_not_run_ahead_of_galaxy():
    releases = (cd.load_yaml('changelogs', 'changelog.yaml') or {}).get('releases') or {}
    galaxy_version = cd.version_tuple(cd.galaxy()['version'])
    ahead = [version for version in releases if cd.version_tuple(version) > galaxy_version]
    assert not ahead, 'changelog.yaml has releases after galaxy.yml version %s: %s' % (cd.galaxy()['version'], ahead)


@pytest.mark.parametrize('version, expected', [('0.3.0', (0, 3, 0)), ('1.10.2', (1, 10, 2))])
def test_version_tuple(version, expected):
    assert cd.version_tuple(version) == expected


@pytest.mark.parametrize('version', ['0.3', '1.0.0-rc1', 'v1.0.0', 1.0])
def test_version_tuple_refuses(version):
    with pytest.raises(ValueError):
        cd.version_tuple(version)
