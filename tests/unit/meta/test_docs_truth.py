# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What README.md, roles/*/README.md and docs/*.md name exists (issue 42: docs that cannot drift). A test of the
repository: the release tarball, which carries no Makefile, bench/, lab/ or molecule/, leaves it out (galaxy.yml).

Read from every document, line by line:

* a Markdown link to a path: the file or directory is in the repository (a link that climbs out of it
  fails, as does one to a path that is gone);
* a path in backquotes whose first directory is one of the repository's: it exists, taken from the
  repository's root, the document's folder, tests/unit (whose tests the docs name as
  ``meta/test_x.py``), a role or a molecule scenario; or the Makefile builds it;
* ``make TARGET`` (and ``make bench PART``): the Makefile has the target (bench/run the part);
* ``iotune.storage.NAME``: a module, plugin, filter, role or playbook of the collection;
* a variable ``iotune_*`` or ``<role>_*``: the roles, playbooks or plugins read or set it (or it is the
  name of an integration target, ``io_audit_policy``);
* a task of a YAML example that calls a module, ``iotune.storage.NAME: {...}`` (as a task or in
  ``module_defaults``): every option it gives, and every suboption within, is one the module documents
  (with its doc fragments and aliases); and so is ``option`` (or ``option.suboption``) in the prose form
  ```module`'s `option```.

A name that is meant not to exist (the docs say the collection has no such file) is listed in
NOT_THERE with the sentence's reason.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import glob
import os
import re
import textwrap

import yaml

import pytest

from ansible_collections.iotune.storage.tests.unit.meta import collection_docs as cd

ROOT = cd.ROOT
DOCS = ['README.md', 'roles/README.md'] + sorted(
    os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, 'roles', '*', 'README.md')) + glob.glob(os.path.join(ROOT, 'docs', '*.md')))
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
CODE = re.compile(r'`([^`\n]+)`')
PATH = re.compile(r'^\.?[\w.-]+(?:/[\w.*-]+)*/?$')
MAKE = re.compile(r'\bmake ([a-z][a-z0-9_-]*)((?: [a-z]+)*)')
FQCN = re.compile(r'\biotune\.storage\.([a-z_][a-z0-9_]*)\b')
ROLES = sorted(os.path.basename(path) for path in glob.glob(os.path.join(ROOT, 'roles', '*')) if os.path.isdir(path))
VARIABLE = re.compile(r'(?<![\w./-])((?:iotune|%s)_[a-z0-9_]*[a-z0-9])\b' % '|'.join(ROLES))
# names the docs give on purpose for what is not there, with why
NOT_THERE = {
    ('docs/fleet.md', 'meta/execution-environment.yml'): 'the collection has none (a sentence says so)',
    ('roles/copy_tools/README.md', 'roles/copy_tools/files/'): 'where the tool would be, were it a role file',
}
# directories whose paths the docs name relative to them
BASES = ['', 'tests/unit', 'tests/unit/plugins'] + ['roles/%s' % role for role in ROLES] + sorted(
    os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, 'molecule', '*')) if os.path.isdir(path))


def _read(relative):
    with open(os.path.join(ROOT, relative), encoding='utf-8') as handle:
        return handle.read()


def _lines():
    for doc in DOCS:
        for number, line in enumerate(_read(doc).splitlines(), 1):
            yield doc, number, line


def _top_dirs():
    found = set()
    for base in BASES:
        found.update(name for name in os.listdir(os.path.join(ROOT, base) if base else ROOT)
                     if os.path.isdir(os.path.join(ROOT, base, name)) and not name.startswith('.'))
    return found | {'.ci'}


TOP_DIRS = _top_dirs()
MAKEFILE = _read('Makefile')
TARGETS = set(re.findall(r'^([a-z][a-z0-9_-]*):', MAKEFILE, re.M))
BENCH_PARTS = set(re.findall(r'^  "([a-z]+)\|', _read('bench/run'), re.M))


def _plugin_names():
    names = set(ROLES)
    names.update(os.path.splitext(os.path.basename(path))[0] for path in glob.glob(os.path.join(ROOT, 'plugins', '*', '*.py')))
    names.update(os.path.splitext(os.path.basename(path))[0] for path in glob.glob(os.path.join(ROOT, 'playbooks', '*.yml')))
    for path in glob.glob(os.path.join(ROOT, 'plugins', 'filter', '*.py')):
        names.update(re.findall(r"'([a-z_]+)': [a-z_]+[,}]", _read(os.path.relpath(path, ROOT))))
    return names


def _code_text():
    parts = []
    for pattern in ('roles/**/*.yml', 'roles/**/*.j2', 'playbooks/**/*.yml', 'playbooks/**/*.j2', 'plugins/**/*.py',
                    'meta/*.yml', 'lab/*', 'bench/*.py', 'scripts/*'):
        for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            if os.path.isfile(path):
                parts.append(_read(os.path.relpath(path, ROOT)))
    return '\n'.join(parts)


PLUGINS = _plugin_names()
CODE_TEXT = _code_text()
CODE_WORDS = set(re.findall(r'[A-Za-z0-9_]+', CODE_TEXT))
INTEGRATION_TARGETS = set(os.listdir(os.path.join(ROOT, 'tests', 'integration', 'targets')))


def _path_exists(doc, path):
    pattern = path.replace('X.Y', '*')
    for base in [os.path.dirname(doc)] + BASES:
        if glob.glob(os.path.join(ROOT, base, pattern)):
            return True
    if path.startswith('build/'):  # what make writes under build/ (make demo: build/demo, make test-upgrade ...)
        return re.search(r'\bbuild/%s\b' % re.escape(path.split('/')[1]), MAKEFILE + CODE_TEXT) is not None
    return path in MAKEFILE  # built by make (the zipapps of roles/copy_tools/files/)


def link_problems():
    found = []
    for doc, number, line in _lines():
        for target in LINK.findall(line):
            if re.match(r'^[a-z]+:', target) or target.startswith('#'):
                continue
            resolved = os.path.normpath(os.path.join(os.path.dirname(doc), target.split('#')[0]))
            if resolved.startswith('..') or os.path.isabs(resolved):
                found.append('%s:%d: link %s leaves the repository' % (doc, number, target))
            elif not os.path.exists(os.path.join(ROOT, resolved)):
                found.append('%s:%d: link %s: no %s' % (doc, number, target, resolved))
    return found


def code_problems():
    found = []
    for doc, number, line in _lines():
        for code in CODE.findall(line):
            words = code.split()
            first = words[0].rstrip(',.:;') if words else ''
            if ('/' in first and PATH.match(first) and first.split('/')[0] in TOP_DIRS
                    and (doc, first) not in NOT_THERE and not _path_exists(doc, first)):
                found.append('%s:%d: path %s does not exist' % (doc, number, first))
            for target, parts in MAKE.findall(code):
                if target not in TARGETS:
                    found.append('%s:%d: make %s: no such target' % (doc, number, target))
                elif target == 'bench':
                    found += ['%s:%d: make bench %s: no such part' % (doc, number, part)
                              for part in parts.split() if part not in BENCH_PARTS]
            found += ['%s:%d: iotune.storage.%s: no such module, plugin, filter, role or playbook' % (doc, number, name)
                      for name in FQCN.findall(code) if name not in PLUGINS]
    return found


def variable_problems():
    found = []
    for doc, number, line in _lines():
        for code in CODE.findall(line):
            for name in VARIABLE.findall(code):
                if name not in INTEGRATION_TARGETS and name not in CODE_WORDS:
                    found.append('%s:%d: variable %s: nothing reads or sets it' % (doc, number, name))
    return found


YAML_BLOCK = re.compile(r'^([ \t]*)```ya?ml[ \t]*\n(.*?)^\1```', re.M | re.S)
MODULES = cd.module_names()


def _fragment_options(name):
    """The options a doc fragment (iotune.storage.FILE or iotune.storage.FILE.CONSTANT) adds."""
    parts = name.split('.')[2:]
    constants = cd.class_string_constants(cd.path('plugins', 'doc_fragments', parts[0] + '.py'))
    return yaml.safe_load(constants[parts[1].upper() if len(parts) > 1 else 'DOCUMENTATION']).get('options') or {}


def module_options(name):
    """{option: spec} of a module, its doc fragments' options included."""
    doc = cd.module_docs(name)[0]
    options = {}
    for fragment in doc.get('extends_documentation_fragment') or []:
        options.update(_fragment_options(fragment))
    options.update(doc.get('options') or {})
    return options


def _unknown_options(given, options, where):
    """The keys of a task's arguments (and of their dicts, down the suboptions) that are no option."""
    names = dict(options)
    for spec in options.values():
        names.update((alias, spec) for alias in spec.get('aliases') or [])
    found = []
    for key, value in given.items():
        if key not in names:
            found.append('%s: %s (options: %s)' % (where, key, ', '.join(sorted(options))))
            continue
        suboptions = names[key].get('suboptions')
        items = value if isinstance(value, list) else [value]
        for item in items if suboptions else []:
            if isinstance(item, dict):
                found += _unknown_options(item, suboptions, '%s.%s' % (where, key))
    return found


def _module_calls(node):
    """(module, arguments) of every iotune.storage module call in a parsed YAML example."""
    if isinstance(node, list):
        for item in node:
            yield from _module_calls(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            name = key[len('iotune.storage.'):] if isinstance(key, str) and key.startswith('iotune.storage.') else None
            if name in MODULES and isinstance(value, dict):
                yield name, value
            else:
                yield from _module_calls(value)


def _examples():
    for doc in DOCS:
        text = _read(doc)
        for match in YAML_BLOCK.finditer(text):
            yield doc, text.count('\n', 0, match.start()) + 2, textwrap.dedent(match.group(2))


PROSE_OPTION = re.compile(r"`(%s)`'s `([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)`" % '|'.join(MODULES))


def _prose_option_problems():
    found = []
    for doc, number, line in _lines():
        for name, dotted in PROSE_OPTION.findall(line):
            head, dummy, rest = dotted.partition('.')
            given = {head: {rest: None} if rest else None}
            found += ['%s:%d: `%s`\'s `%s`: no option %s' % (doc, number, name, dotted, problem)
                      for problem in _unknown_options(given, module_options(name), name)]
    return found


def option_problems():
    found = _prose_option_problems()
    for doc, number, block in _examples():
        for name, arguments in _module_calls(yaml.safe_load(block)):
            found += ['%s:%d: iotune.storage.%s: no option %s' % (doc, number, name, problem)
                      for problem in _unknown_options(arguments, module_options(name), name)]
    return found


def test_the_examples_call_modules_with_their_options(monkeypatch):
    """The option check reads the examples: some call modules, and a misspelled option is found."""
    calls = [call for doc, number, block in _examples() for call in _module_calls(yaml.safe_load(block))]
    assert len(calls) >= 3
    assert _unknown_options({'policy': {}, 'concern': ['x']}, module_options('io_policy'), 'io_policy') != []
    assert _unknown_options({'report': {'dir': '/r', 'kept': 3}}, module_options('io_policy'), 'io_policy') != []
    assert _unknown_options({'journal_dir': '/j', 'mode': 'audit'}, module_options('io_policy'), 'io_policy') == []
    lines = [('docs/policy.md', 1, "`io_policy`'s `report.kept` and `io_policy`'s `report.keep`, `io_snapshot`'s `read`")]
    monkeypatch.setitem(_prose_option_problems.__globals__, '_lines', lambda: iter(lines))
    assert len(_prose_option_problems()) == 1 and 'report.kept' in _prose_option_problems()[0]


@pytest.mark.parametrize('check', [link_problems, code_problems, variable_problems, option_problems])
def test_what_the_docs_name_exists(check):
    assert check() == []


def test_the_checks_read_the_docs_and_find_a_missing_name(tmp_path, monkeypatch):
    """The checks are not empty by construction: every document is read, and a name that is gone is found."""
    assert len(DOCS) > 20 and 'docs/policy.md' in DOCS and 'roles/io_audit/README.md' in DOCS
    lines = [(doc, 1, '[x](../../nowhere.md) `plugins/modules/gone.py` `make nosuchtarget` `make bench nopart` '
                      '`iotune.storage.gone` `iotune_no_such_variable`') for doc in ('docs/policy.md',)]
    monkeypatch.setitem(link_problems.__globals__, '_lines', lambda: iter(lines))
    assert len(link_problems()) == 1 and len(code_problems()) == 4 and len(variable_problems()) == 1
