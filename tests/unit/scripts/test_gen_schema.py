# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""make schema: the committed argument specs and docs/policy.md tables are what the policy schema generates."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import importlib.machinery
import importlib.util
import os

import pytest
import yaml

from ansible_collections.iotune.storage.plugins.module_utils.policy import schema as _policy
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_policy
from ansible_collections.iotune.storage.plugins.module_utils.parse.sysfs import QUEUE_INT_ATTRS
from ansible_collections.iotune.storage.plugins.module_utils.settings.block_queue import QUEUE_SETTINGS, WRITE_ORDER
from ansible_collections.iotune.storage.plugins.module_utils.settings.cache_limits import VM_KEYS

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
LOADER = importlib.machinery.SourceFileLoader('gen_schema', os.path.join(ROOT, 'scripts', 'gen_schema'))
gen = importlib.util.module_from_spec(importlib.util.spec_from_loader('gen_schema', LOADER))
LOADER.exec_module(gen)

GENERATED = gen.outputs(ROOT)


def test_every_role_that_takes_policy_variables_has_them_generated():
    assert set(GENERATED) >= {
        'docs/policy.md', 'plugins/modules/block_queue.py',
        'roles/io_audit/meta/argument_specs.yml', 'roles/mount_options/meta/argument_specs.yml',
        'roles/tunefstab/meta/argument_specs.yml', 'roles/block_queue/meta/argument_specs.yml',
        'roles/cache_limits/meta/argument_specs.yml', 'roles/copy_tools/meta/argument_specs.yml',
    }


@pytest.mark.parametrize('path', sorted(GENERATED))
def test_committed_file_is_what_make_schema_writes(path):
    committed, generated = GENERATED[path]
    assert committed == generated, '%s differs from the policy schema: run make schema' % path


def io_audit_options():
    with open(os.path.join(ROOT, 'roles', 'io_audit', 'meta', 'argument_specs.yml')) as handle:
        return yaml.safe_load(handle)['argument_specs']['main']['options']


def schema_fields(options, prefix=''):
    for name, node in options.items():
        yield prefix + name
        if 'options' in node:
            yield from schema_fields(node['options'], prefix + name + ('[].' if node['type'] == 'list' else '.'))


def test_the_argument_spec_holds_every_policy_key_with_the_schemas_types_and_every_field_described():
    options = io_audit_options()
    for name in _policy.POLICY_KEYS:
        spec, node = options[name], _policy.SCHEMA[name]
        assert spec['type'] == node['type'] and 'accepted' not in spec and 'unit' not in spec, name
        # no suboptions: Ansible's argument validation would refuse a misspelled key with a message that names
        # neither the entry nor the key alone, followed by the whole spec (issue 39, item 10); io_policy validates
        assert 'options' not in spec, name
        described = [item.split(')', 1)[0][2:] for item in spec['description'] if item.startswith('C(')]
        assert described == list(schema_fields(node.get('options', {}))), name
    # the key the argument spec declared and the validation refused (issue 17): one definition now
    assert ['memory_high', 'name'] == list(_policy.BULK_SLICE_KEYS)
    assert [item for item in options['iotune_cache']['description'] if item.startswith('C(bulk_slice.')] == [
        item for item in options['iotune_cache']['description'] if item.split(')', 1)[0][2:] in (
            'bulk_slice.memory_high', 'bulk_slice.name')]


def test_nested_choices_are_documented_and_left_to_the_policy_validation():
    options = io_audit_options()
    scheduler, = [item for item in options['iotune_block_devices']['description'] if item.startswith('C(scheduler)')]
    assert all('V(%s)' % name in scheduler for name in _policy.SCHEDULERS)
    assert options['iotune_profile']['choices'] == list(_policy.PROFILE_NAMES)
    # and the validation names the entry where the argument spec would name only the list
    assert validate_policy({'iotune_block_devices': [{'match': {'name': 'sda'}, 'scheduler': 'fast'}]}) == [
        "iotune_block_devices[0].scheduler: unknown scheduler 'fast' (accepted: %s)" % ', '.join(_policy.SCHEDULERS)]
    assert validate_policy({'iotune_mounts': [{'path': '/data', 'presnt': ['noatime']}]})[0].startswith(
        'iotune_mounts[0].presnt: unknown key (accepted: path, present, absent, remount)')


def test_the_block_queue_module_offers_the_schemas_schedulers():
    from ansible_collections.iotune.storage.plugins.modules import block_queue
    doc = yaml.safe_load(block_queue.DOCUMENTATION)
    assert doc['options']['scheduler']['choices'] == list(_policy.SCHEDULERS)
    assert doc['options']['devices']['suboptions']['scheduler']['choices'] == list(_policy.SCHEDULERS)


def test_the_reference_table_has_a_row_per_field():
    text = GENERATED['docs/policy.md'][1]
    for field in ('iotune_profile', 'iotune_mounts[].present', 'iotune_block_devices[].match.wwn',
                  'iotune_block_devices[].scheduler', 'iotune_cache.bulk_slice.name', 'iotune_copy_tools.streams'):
        assert '| `%s` |' % field in text
    assert '| `iotune_cache.bulk_slice.name` | str |  | `iotune-bulk.slice` |' in text


def test_a_changed_schema_shows_up_as_a_difference(monkeypatch):
    monkeypatch.setitem(_policy.SCHEMA['iotune_cache']['options']['dirty_ratio'], 'accepted', '0 to 99')
    changed = gen.outputs(ROOT)
    assert changed['docs/policy.md'][0] != changed['docs/policy.md'][1]
    assert gen.main(['--root', ROOT, '--check']) == 1


@pytest.mark.parametrize('text, message', [
    ('a\n# BEGIN make schema: policy iotune_nothing\n# END make schema\n', 'no policy variable iotune_nothing'),
    ('a\n# BEGIN make schema: fields\nb\n', 'has no END marker'),
    ('# BEGIN make schema: frobnicate\n# END make schema\n', "unknown marker 'frobnicate'"),
    ('# BEGIN make schema: choices iotune_cache.nothing\n# END make schema\n', 'no schema entry iotune_cache.nothing'),
])
def test_bad_markers_are_refused(text, message):
    with pytest.raises(gen.SchemaError, match=message):
        gen.render(text, 'x.yml')


def test_render_is_idempotent_and_keeps_the_rest():
    text = 'before\n    # BEGIN make schema: choices iotune_copy_tools.state\n    stale\n    # END make schema\nafter\n'
    once = gen.render(text)
    assert once == 'before\n    # BEGIN make schema: choices iotune_copy_tools.state\n    choices: [present, absent]\n' \
                   '    # END make schema\nafter\n'
    assert gen.render(once) == once


def test_inline_lists_are_generated_inside_the_line_and_kept_otherwise():
    line = 'a | <!-- BEGIN make schema: queue write order -->stale<!-- END make schema --> | b'
    once = gen.render(line)
    assert once == ('a | <!-- BEGIN make schema: queue write order -->%s<!-- END make schema --> | b'
                    % ', '.join('`%s`' % name for name in WRITE_ORDER))
    assert gen.render(once) == once
    with pytest.raises(gen.SchemaError, match="unknown list 'queue nothing'"):
        gen.render('<!-- BEGIN make schema: queue nothing --><!-- END make schema -->', 'x.md')


def test_sentences_name_every_setting_and_wrap_as_yaml():
    text = '  notes:\n    # BEGIN make schema: sentence io_facts.vm\n    # END make schema\n'
    notes = yaml.safe_load(gen.render(text))['notes']
    assert all('C(%s)' % name in notes[0] for name in VM_KEYS)
    text = '  setting:\n    # BEGIN make schema: sentence block_queue.setting\n    # END make schema\n'
    assert yaml.safe_load(gen.render(text))['setting']['description'].startswith('V(read_ahead_kb), V(max_sectors_kb)')
    with pytest.raises(gen.SchemaError, match='no sentence nothing'):
        gen.render('# BEGIN make schema: sentence nothing\n# END make schema\n')


def test_the_block_queue_module_documents_the_options_it_takes():
    from ansible_collections.iotune.storage.plugins.modules import block_queue
    options = yaml.safe_load(block_queue.DOCUMENTATION)['options']
    for name, setting in QUEUE_SETTINGS.items():
        assert options[name]['type'] == block_queue.SETTING_SPECS[name]['type'] == setting['type']
        assert options[name]['description'] == setting['description']
        assert options[name].get('choices') == block_queue.SETTING_SPECS[name].get('choices')
        assert options['devices']['suboptions'][name] == dict(options[name], description='See O(%s).' % name)
    assert all('O(%s)' % name in ' '.join(options['devices']['description']) for name in QUEUE_SETTINGS)


def test_io_facts_and_cache_limits_document_every_key():
    from ansible_collections.iotune.storage.plugins.modules import cache_limits, io_facts
    facts = yaml.safe_load(io_facts.RETURN)['ansible_facts']['contains']['iotune']['contains']
    assert all('C(%s)' % name in facts['block_devices']['description'][1] for name in QUEUE_INT_ATTRS)
    assert all('C(%s)' % name in facts['vm']['description'][0] for name in VM_KEYS)
    keys = yaml.safe_load(cache_limits.DOCUMENTATION)['options']['sysctl']['description'][1]
    assert all('C(vm.%s) (' % name in keys for name in VM_KEYS)
