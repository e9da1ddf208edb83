# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one way the modules run commands: argument lists, the C locale, and
nothing that changes the host while in check mode."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

C_LOCALE = {'LANG': 'C', 'LC_ALL': 'C', 'LC_MESSAGES': 'C'}


class CommandError(Exception):
    pass


class CommandRunner(object):
    """Wraps an AnsibleModule's run_command.

    Calling the runner (``runner(argv)``) runs a command that only reads; it runs in
    check mode too and returns ``(rc, out, err)``. ``runner.change(argv)`` runs a
    command that changes the host and refuses to run in check mode. With
    ``check_rc`` a non-zero exit raises CommandError naming the command."""

    def __init__(self, module):
        self.module = module
        module.run_command_environ_update = dict(C_LOCALE)

    def _run(self, argv, check_rc, **extra):
        if isinstance(argv, (str, bytes)):
            raise CommandError('commands are argument lists, got a string: %r' % (argv,))
        rc, out, err = self.module.run_command(list(argv), check_rc=False, expand_user_and_vars=False, **extra)
        if check_rc and rc != 0:
            raise CommandError('%s failed (rc=%s): %s' % (' '.join(argv), rc, (err or out).strip()))
        return rc, out, err

    def __call__(self, argv, check_rc=False, **extra):
        return self._run(argv, check_rc, **extra)

    def change(self, argv, check_rc=False, **extra):
        if self.module.check_mode:
            raise CommandError('not run in check mode: %s' % ' '.join(argv))
        return self._run(argv, check_rc, **extra)

    def bin(self, name, default=None):
        """Path of ``name`` on the host's PATH (and sbin directories), else ``default``."""
        return self.module.get_bin_path(name, required=False) or default
