# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What iotune-copy says when something fails: its name, the errors that stop one source or the run, and
file names quoted as cp quotes them."""


PROG = 'iotune-copy'


class CopyError(Exception):
    """One source could not be copied; the message is printed after 'iotune-copy: '."""


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP; a BaseException so that no error handler swallows it."""

    def __init__(self, signum):
        super(Interrupted, self).__init__(signum)
        self.signum = signum


class StdoutClosed(Exception):
    """The reader of standard output went away (EPIPE): stop quietly, like cat."""


def quote(name):
    """Quote a file name the way cp does in its messages."""
    if "'" not in name:
        return "'%s'" % name
    return "'%s'" % name.replace("'", "'\\''")


def describe(exc):
    """The strerror text of an OSError (cp prints that after the file name)."""
    return exc.strerror or str(exc)
