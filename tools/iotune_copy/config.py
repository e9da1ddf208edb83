# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""copy.conf, the configuration of iotune-copy and iotune-bulk: key=value lines, the one reader of both
tools (built into each zipapp)."""

from .errors import quote

DEFAULT_CONFIG = '/etc/iotune/copy.conf'


def strip_comment(line):
    """The line without its comment, which starts at a '#' at the start of the line or after a blank
    (without the re module, whose import costs every start of the tools a few ms)."""
    for index, char in enumerate(line):
        if char == '#' and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def parse_config(text, name='config'):
    """key=value pairs of a config file's text; ValueError on a line that is not one.

    The one reader of copy.conf, built into both tools. '#' starts a comment,
    at the start of a line or after a blank; a value may be quoted.
    """
    values = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = strip_comment(line).strip()
        if not line:
            continue
        key, sep, value = line.partition('=')
        if not sep or not key.strip():
            raise ValueError('%s:%d: expected key=value, found %s' % (name, number, quote(line)))
        values[key.strip()] = value.strip().strip('"\'')
    return values


def read_config(path):
    """key=value pairs of the config file; {} when it does not exist."""
    try:
        with open(path, 'r', encoding='utf-8') as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}
    return parse_config(text, path)
