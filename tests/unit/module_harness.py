# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a module's main() in-process and catch how it ends."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import contextlib
import json

import pytest

from ansible.module_utils import basic
from ansible.module_utils.common.text.converters import to_bytes

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core before 2.19 reads the arguments from basic._ANSIBLE_ARGS
    @contextlib.contextmanager
    def patch_module_args(args=None):
        args = dict(args or {})
        args.setdefault('_ansible_remote_tmp', '/tmp')
        args.setdefault('_ansible_keep_remote_files', False)
        saved = basic._ANSIBLE_ARGS
        basic._ANSIBLE_ARGS = to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': args}))
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = saved


class ModuleExit(Exception):
    """Raised instead of exit_json/fail_json; args are (kind, result), kind 'exit' or 'fail'."""


def on_linux(run_command):
    """A fake ``AnsibleModule.run_command`` that answers ``uname -s`` as a Linux host does (the modules ask
    it first: parse.unixfacts.detect_platform) and hands every other command to ``run_command``."""
    def answer(self, argv, **kwargs):
        if list(argv) == ['uname', '-s']:
            return 0, 'Linux\n', ''
        return run_command(self, argv, **kwargs)
    return answer


def no_commands(monkeypatch):
    """A Linux host whose modules run no command (``--version`` of a tool: not here) and find no program."""
    def no_command(self, argv, **kwargs):
        if argv[1:] == ['--version']:
            return 1, '', 'not here'
        raise AssertionError('ran %s' % argv)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', on_linux(no_command))
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, *a, **k: None)


def run_main(monkeypatch, module, args):
    """Run ``module.main()`` with ``args``; return ('exit' | 'fail', result).

    Warnings the module issues are returned in ``result['warnings']``."""
    warnings = []

    def warn(self, warning, **kwargs):
        warnings.append(warning)

    def exit_json(self, **kwargs):
        kwargs['warnings'] = list(warnings)
        raise ModuleExit('exit', kwargs)

    def fail_json(self, **kwargs):
        kwargs['warnings'] = list(warnings)
        raise ModuleExit('fail', kwargs)

    monkeypatch.setattr(basic.AnsibleModule, 'warn', warn)
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', exit_json)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', fail_json)
    with patch_module_args(args):
        with pytest.raises(ModuleExit) as excinfo:
            module.main()
    return excinfo.value.args
