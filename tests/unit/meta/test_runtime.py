# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""meta/runtime.yml against plugins/modules: the action group iotune holds exactly the modules that
take journal_dir, and says so in their docs; the deprecated per-concern modules are deprecated in
both places, and nothing in roles/ or playbooks/ calls them; module_defaults through the group
reaches the modules in a real ansible-playbook run."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import os
import re
import subprocess
import sys

import pytest
import yaml

from ansible_collections.iotune.storage.tests.unit.meta import collection_docs as cd

GROUP = 'iotune'
DEPRECATED = ('mount_options', 'tunefstab', 'block_queue', 'cache_limits', 'copy_tools')


def takes_journal_dir(name):
    doc = cd.module_docs(name)[0]
    return 'journal_dir' in (doc.get('options') or {}) or 'iotune.storage.journal' in (doc.get('extends_documentation_fragment') or [])


def group_members():
    return (cd.runtime().get('action_groups') or {}).get(GROUP) or []


def test_runtime_names_only_modules_that_exist():
    modules = set(cd.module_names())
    runtime = cd.runtime()
    named = set(member for members in (runtime.get('action_groups') or {}).values() for member in members)
    named |= set(((runtime.get('plugin_routing') or {}).get('modules') or {}))
    assert named - modules == set()


def test_the_group_holds_exactly_the_modules_that_take_journal_dir():
    members = group_members()
    assert len(members) == len(set(members)), members
    assert sorted(members) == sorted(name for name in cd.module_names() if takes_journal_dir(name))


def test_the_members_document_their_membership():
    documented = []
    for name in cd.module_names():
        fragments = cd.module_docs(name)[0].get('extends_documentation_fragment') or []
        if 'iotune.storage.attributes.action_group' in fragments:
            documented.append(name)
    assert sorted(documented) == sorted(group_members())


def test_the_action_group_fragment_names_the_group():
    fragment = cd.class_string_constants(cd.path('plugins', 'doc_fragments', 'attributes.py'))['ACTION_GROUP']
    assert yaml.safe_load(fragment)['attributes']['action_group']['membership'] == ['iotune.storage.iotune']


@pytest.mark.parametrize('name', DEPRECATED)
def test_the_per_concern_modules_are_deprecated_for_io_policy(name):
    deprecation = cd.runtime()['plugin_routing']['modules'][name]['deprecation']
    assert deprecation['removal_version'] == '2.0.0'
    assert 'iotune.storage.io_policy' in deprecation['warning_text']
    assert 'concerns [%s]' % name in deprecation['warning_text']
    doc = cd.module_docs(name)[0]['deprecated']
    assert doc['removed_in'] == '2.0.0'
    assert doc['why'] and 'iotune.storage.io_policy' in doc['alternative']
    assert 'concerns=[%s]' % name in doc['alternative']


def test_roles_and_playbooks_do_not_call_the_deprecated_modules():
    pattern = re.compile(r'^\s*(?:-\s+)?iotune\.storage\.(%s)\s*:' % '|'.join(DEPRECATED), re.M)
    calls = []
    for name in sorted(glob.glob(cd.path('roles', '**', '*.yml'), recursive=True) + glob.glob(cd.path('playbooks', '**', '*.yml'), recursive=True)):
        with open(name, 'r', encoding='utf-8') as handle:
            for match in pattern.finditer(handle.read()):
                calls.append('%s: %s' % (os.path.relpath(name, cd.ROOT), match.group(0).strip()))
    assert not calls, calls


PLAYBOOK = '''
- name: Module defaults of the action group, a journal directory
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/iotune.storage.iotune:
      journal_dir: "{{ journal }}"
  tasks:
    - name: Roll back in check mode, the journal directory from the group's defaults
      iotune.storage.io_rollback:
      check_mode: true
      register: rollback
    - name: Assert io_rollback looked in the group's journal directory
      ansible.builtin.assert:
        that: rollback.msg == 'no run to roll back in ' ~ journal

- name: Module defaults of the action group, a journal directory that is a file
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/iotune.storage.iotune:
      journal_dir: "{{ fstab }}"
  tasks:
    - name: Enforce nothing with io_policy (an action plugin) in check mode
      iotune.storage.io_policy:
        policy: {}
        mode: enforce
        fstab: "{{ fstab }}"
      check_mode: true
      register: engine
      failed_when: false
    - name: Audit a directory with a deprecated module in check mode
      iotune.storage.mount_options:
        path: "{{ journal }}"
        present: [noatime]
        fstab: "{{ fstab }}"
      check_mode: true
      register: mounts
      failed_when: false
    - name: Assert both refused the group's journal_dir, and the deprecation reached the result
      ansible.builtin.assert:
        that:
          - engine.msg is search('journal_dir. ' ~ fstab ~ ' is not a directory')
          - mounts.msg is search('journal_dir. ' ~ fstab ~ ' is not a directory')
          # before 2.19 the deprecation is shown (asserted on the output below) but not kept in the result
          - ansible_version.full is version('2.19', '<') or mounts.deprecations | map(attribute='msg')
            | select('search', 'io_policy with concerns .mount_options.') | list | length == 1
'''


def ansible_playbook():
    path = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
    if not os.access(path, os.X_OK):
        pytest.skip('no ansible-playbook beside %s' % sys.executable)
    return path


def test_module_defaults_of_the_group_reach_the_modules(tmp_path):
    # the collection under test: ROOT is <path>/ansible_collections/iotune/storage
    collections_path = os.path.dirname(os.path.dirname(os.path.dirname(cd.ROOT)))
    if os.path.basename(os.path.dirname(os.path.dirname(cd.ROOT))) != 'ansible_collections':
        pytest.skip('the collection is not under ansible_collections/iotune/storage')
    journal = tmp_path / 'journal'
    journal.mkdir(mode=0o700)
    os.chmod(str(tmp_path), 0o700)
    fstab = tmp_path / 'fstab'
    fstab.write_text('# empty\n')
    playbook = tmp_path / 'group.yml'
    playbook.write_text(PLAYBOOK)
    config = tmp_path / 'ansible.cfg'
    config.write_text('[defaults]\n')
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path, ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false', ANSIBLE_NOCOLOR='true', ANSIBLE_FORCE_COLOR='false',
               ANSIBLE_DEPRECATION_WARNINGS='true', ANSIBLE_CONFIG=str(config), ANSIBLE_HOME=str(tmp_path / 'home'))
    proc = subprocess.run([ansible_playbook(), '-i', 'localhost,', '-c', 'local',
                           '-e', 'ansible_python_interpreter=%s' % sys.executable,
                           '-e', 'journal=%s' % journal, '-e', 'fstab=%s' % fstab, str(playbook)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert re.search(r'^localhost +: ok=5 +changed=0 +unreachable=0 +failed=0', output, re.M), output
    # the deprecation is shown, naming the replacement
    assert re.search(r'iotune\.storage\.mount_options has been\s+deprecated', output), output
    assert 'Use iotune.storage.io_policy with concerns [mount_options]' in re.sub(r'\s+', ' ', output), output
