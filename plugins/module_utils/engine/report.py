# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host's copy of a run report: where it goes, what its file holds, and which older ones stay."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import json
import os
import re
import stat

from ansible_collections.iotune.storage.plugins.module_utils.common.atomic import atomic_write
from ansible_collections.iotune.storage.plugins.module_utils.common.trust import check_existing, open_nofollow, private_directory


def report_paths(directory, names):
    """The path of each report file; ValueError naming the field when a name is not a plain file name."""
    if not directory or not os.path.isabs(directory):
        raise ValueError('dir: must be an absolute path, got %r' % (directory,))
    if not names:
        raise ValueError('names: at least one file name is needed')
    paths = []
    for index, name in enumerate(names):
        if not name or '/' in name or name.startswith('.') or any(ord(char) < 32 or ord(char) == 127 for char in name):
            raise ValueError('names[%d]: %r is not a plain file name (no "/", no control characters such as a newline, '
                             'not empty, not starting with ".")' % (index, name))
        path = os.path.join(directory, name)
        if path not in paths:
            paths.append(path)
    return paths


# what no report may hold as such: lone surrogates (a byte that was not UTF-8, read with surrogateescape,
# is U+DC80-U+DCFF) cannot be encoded as UTF-8, so a module result holding one is refused by the controller
_NOT_UTF8 = re.compile(u'[\ud800-\udfff]')
# and what XML 1.0 forbids besides (junit.xml, report.html): C0 controls but tab, newline and carriage return; U+FFFE/F
_NOT_XML = re.compile(u'[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _shown(match):
    code = ord(match.group(0))
    if 0xdc80 <= code <= 0xdcff:
        return '\\x%02x' % (code - 0xdc00)     # the byte itself, as Python shows it
    return '\\x%02x' % code if code < 0x100 else '\\u%04x' % code


def visible_text(text, forbidden=_NOT_UTF8):
    """``text`` with each character ``forbidden`` matches shown as its escape: a byte that was
    not UTF-8 as ``\\xe9`` (the byte), a control character as ``\\x1b``, another as ``\\ufffe``.
    Nothing is dropped; a backslash already in the text is left as it is."""
    return forbidden.sub(_shown, text) if forbidden.search(text) else text


def xml_text(text):
    """``text`` as XML 1.0 may hold it (see visible_text)."""
    return visible_text(text, _NOT_XML)


def visible_data(value):
    """``value`` (a module result, a report) with every string in it, keys too, valid UTF-8
    (visible_text): the controller refuses a result holding a byte of a host's file that is not
    UTF-8 (issue 38, item 12), and the file itself keeps its bytes."""
    if isinstance(value, str):
        return visible_text(value)
    if isinstance(value, dict):
        return dict((visible_data(key), visible_data(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [visible_data(item) for item in value]
    return value


# a report's ``time`` (and a history line's): UTC, to the second
TIME_RE = re.compile(r'^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$')
READ_LIMIT = 64 << 20
# deeper than anything the collection writes nests (a snapshot: 6 levels), far below what
# Python's JSON decoder and the code after it can recurse into
MAX_DEPTH = 32


class ReadBackError(ValueError):
    """A file read back (a previous report, the other mode's latest, history.json, a snapshot) that is
    not what the collection writes: the message names the file and what was wrong (too big, nested
    too deep, not JSON, a field not of its type). DESIGN.md: a file read back is input.
    ``strerror`` is set when the file could not be read at all."""

    strerror = None


class MapOf(object):
    """A JSON object whose every value is of ``spec`` (check_shape)."""

    def __init__(self, spec):
        self.spec = spec


class ListOf(object):
    """A JSON array whose every item is of ``spec`` (check_shape)."""

    def __init__(self, spec):
        self.spec = spec


# a JSON value of any type, not looked into
ANY = object()
# an integer read back fits in 64 bits (10**400 ends in OverflowError where it becomes a float)
MAX_INT = (1 << 63) - 1
_NONE = type(None)
_NAMES = ((bool, 'a boolean'), (int, 'an integer'), (float, 'a number'), (str, 'a string'), (list, 'an array'),
          (dict, 'an object'), (_NONE, 'null'))


def json_type(value):
    """What ``value`` is, as a JSON type: 'a string', 'an integer', 'null'..."""
    return next((name for kind, name in _NAMES if isinstance(value, kind)), type(value).__name__)


def _spec_name(spec):
    if isinstance(spec, (MapOf, dict)):
        return 'an object'
    if isinstance(spec, ListOf):
        return 'an array'
    return 'null' if spec in (None, _NONE) else json_type(spec())


_KINDS = {}


def _kinds(spec):
    """(the types of a leaf spec, whether it has structures among its alternatives), computed once a spec."""
    cached = _KINDS.get(id(spec))
    if cached is None or cached[0] is not spec:
        alternatives = spec if isinstance(spec, tuple) else (spec,)
        cached = _KINDS[id(spec)] = (spec, tuple(type(None) if kind is None else kind for kind in alternatives
                                                 if isinstance(kind, type) or kind is None),
                                     any(not (isinstance(kind, type) or kind is None) for kind in alternatives))
    return cached[1:]


def _plain(spec):
    """The types a value of a leaf ``spec`` may be of with nothing more to check (not int: its bound)."""
    if spec is ANY or isinstance(spec, (MapOf, ListOf, dict)):
        return ()
    kinds, structured = _kinds(spec)
    return () if structured else tuple(kind for kind in kinds if kind is not int)


def _leaf_problem(value, spec):
    kinds = _kinds(spec)[0]
    if isinstance(value, bool):
        if bool in kinds:
            return None
    elif isinstance(value, kinds):
        if isinstance(value, int) and not -MAX_INT <= value <= MAX_INT:
            return [], 'an integer of %d digits, beyond what is read back (64 bits)' % len(str(abs(value)))
        return None
    return [], '%s, where %s belongs' % (json_type(value), ' or '.join(_spec_name(kind) for kind in kinds))


def _alternatives_problem(value, spec):
    problems = [_problem(value, alternative) for alternative in spec]
    if None in problems:
        return None
    # the value is of one alternative's type, but not inside: say what is wrong inside
    inner = [problem for problem in problems if problem[0]]
    return inner[0] if inner else ([], '%s, where %s belongs' % (json_type(value), ' or '.join(_spec_name(kind) for kind in spec)))


def _problem(value, spec):
    """None, or ([the keys from the field up to ``value``], what is wrong); see check_shape."""
    if spec is ANY:
        return None
    if isinstance(spec, ListOf):
        if not isinstance(value, list):
            return [], '%s, where an array belongs' % json_type(value)
        pairs = enumerate(value)
    elif isinstance(spec, (MapOf, dict)):
        if not isinstance(value, dict):
            return [], '%s, where an object belongs' % json_type(value)
        pairs = value.items() if isinstance(spec, MapOf) else ((key, value[key]) for key in spec if key in value)
    elif isinstance(spec, tuple) and _kinds(spec)[1]:
        return _alternatives_problem(value, spec)
    else:
        return _leaf_problem(value, spec)
    for key, item in pairs:
        inner = spec.spec if isinstance(spec, (MapOf, ListOf)) else spec[key]
        if type(item) in _plain(inner):
            continue    # the common case, without a call
        found = _problem(item, inner)
        if found:
            found[0].append(key)
            return found
    return None


def check_shape(value, spec, where):
    """The first way ``value`` is not of ``spec``, naming the field (``where``, then
    ``.key`` and ``[index]``), or None. ``spec``: ANY; a type, or a tuple of alternatives (types,
    None for null, structures; bool is not an integer, an integer fits in 64 bits); a dict of
    key -> spec (an object whose keys, when present, are of their spec; other keys are not looked
    at); MapOf(spec); ListOf(spec)."""
    found = _problem(value, spec)
    if not found:
        return None
    keys, what = found
    return '%s%s: %s' % (where, ''.join('[%d]' % key if isinstance(key, int) else '.%s' % key for key in reversed(keys)), what)


_NOT_BRACKETS = bytes(bytearray(byte for byte in range(256) if byte not in bytearray(b'[]{}')))


def too_deep(data, depth=MAX_DEPTH):
    """Whether the JSON text ``data`` (bytes) nests arrays and objects deeper than ``depth``, told
    without parsing it (so without recursing): the strings taken out, each pass removes the innermost
    pairs of brackets; text whose brackets do not pair is left to the decoder to refuse."""
    outside = b''.join(data.replace(b'\\\\', b'').replace(b'\\"', b'').split(b'"')[0::2])
    brackets = outside.translate(None, _NOT_BRACKETS).replace(b'{', b'[').replace(b'}', b']')
    for dummy in range(depth):
        if not brackets:
            return False
        inner = brackets.replace(b'[]', b'')
        if inner == brackets:
            return False
        brackets = inner
    return bool(brackets) and brackets.replace(b'[]', b'') != brackets


def _no_constant(name):
    raise ValueError('%s is not JSON' % name)


def read_json_file(path, limit=READ_LIMIT, depth=MAX_DEPTH, spec=ANY):
    """The JSON value of the file at ``path``, or None when there is no such file. A file read back is
    input (DESIGN.md): ReadBackError, naming the file and what was wrong, when it is a link or not a
    regular file of the running user, over ``limit`` bytes, nested deeper than ``depth``, not JSON
    (NaN and Infinity included) or not of ``spec`` (check_shape)."""
    try:
        with os.fdopen(open_nofollow(path, os.O_RDONLY), 'rb') as handle:
            data = handle.read(limit + 1)
    except (IOError, OSError) as exc:
        if exc.errno == errno.ENOENT:
            return None
        error = ReadBackError('%s: cannot be read: %s' % (path, exc.strerror or exc))
        error.strerror = exc.strerror or str(exc)     # not read at all (a link, another user's file)
        raise error
    if len(data) > limit:
        raise ReadBackError('%s: larger than %d bytes, the most read back' % (path, limit))
    if too_deep(data, depth):
        raise ReadBackError('%s: nested deeper than %d levels, the most read back' % (path, depth))
    try:
        value = json.loads(data.decode('utf-8'), parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ReadBackError('%s: not JSON: %s' % (path, exc))
    problem = check_shape(value, spec, 'the file')
    if problem:
        raise ReadBackError('%s: %s' % (path, problem))
    return value


def render_report(report):
    """The bytes of a report file: JSON as the controller's copy is written (to_nice_json), and a newline."""
    return (json.dumps(visible_data(report), indent=4, sort_keys=True, separators=(',', ': ')) + '\n').encode('utf-8')


def _holds(path, data):
    try:
        with os.fdopen(open_nofollow(path, os.O_RDONLY), 'rb') as handle:
            return handle.read() == data
    except (IOError, OSError):
        return False


def write_report(directory, names, report, mode=0o640, dir_mode=0o750, check=False):
    """Write ``report`` to each of ``names`` in ``directory`` (created with ``dir_mode``),
    atomically, skipping files that already hold it. Returns (paths, written).
    The directory must belong to the running user and not be writable by group or other, and a
    link planted at a report's name is replaced, never written through (issue 23, T3).
    ValueError names a bad field; IOError/OSError come from the file system."""
    paths = report_paths(directory, names)
    check_existing(directory, 'dir')
    data = render_report(report)
    written = [path for path in paths if not _holds(path, data)]
    if check or not written:
        return paths, written
    private_directory(directory, 'dir', dir_mode)
    for path in written:
        atomic_write(path, data, mode=mode, follow_links=False, durable=False)
    return paths, written


def is_report_name(name, mode):
    """Whether ``name`` is a report file of ``mode`` that pruning may remove (not ``<mode>-latest.json``)."""
    return bool(re.match(r'^%s-[^/]+\.json\Z' % re.escape(mode), name)) and name != '%s-latest.json' % mode


def kept_reports(directory, mode):
    """The report files of ``mode`` in ``directory`` (``<mode>-*.json``, not ``<mode>-latest.json``),
    oldest first by modification time: what pruning chooses from. Only regular files and links
    (a link is removed, never followed) are named; a directory of that name is left alone."""
    found = []
    for name in os.listdir(directory):
        if not is_report_name(name, mode):
            continue
        try:
            st = os.lstat(os.path.join(directory, name))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            found.append((st.st_mtime_ns if hasattr(st, 'st_mtime_ns') else int(st.st_mtime * 1e9), name))
    return [name for dummy, name in sorted(found)]


def prune_reports(directory, mode, keep, protect=(), check=False):
    """Remove all but the newest ``keep`` report files of ``mode`` from ``directory`` (0: keep
    every one), never a name in ``protect`` (this run's, counted even when check mode has not
    written it); returns the paths removed (in check mode, those that would be)."""
    if not keep or not os.path.isdir(directory):
        return []
    names = kept_reports(directory, mode)
    unwritten = [name for name in protect if is_report_name(name, mode) and name not in names]
    surplus = len(names) + len(set(unwritten)) - keep
    removed = []
    for name in names:
        if surplus <= 0:
            break
        if name in protect:
            continue
        path = os.path.join(directory, name)
        if not check:
            try:
                os.unlink(path)
            except OSError:
                if not os.path.lexists(path):
                    continue    # another run removed it first
                raise
        removed.append(path)
        surplus -= 1
    return removed
