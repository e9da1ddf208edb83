# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The command line of iotune-copy: GNU-style options, copy.conf's defaults, cp's rules for the
destination, signals and the exit status."""

import errno
import os
import signal
import stat
import sys

from .config import DEFAULT_CONFIG, read_config
from .errors import PROG, CopyError, Interrupted, StdoutClosed, describe, quote
from .existing import Operands
from .options import DEFAULT_BUFFER_SIZE, DEFAULT_STREAMS, MAX_BUFFER_SIZE, MAX_STREAM_MEMORY, MAX_STREAMS, Options
from .sizes import parse_size
from .tree import copy_entry

_SIGNALS = ('SIGINT', 'SIGTERM', 'SIGHUP')


USAGE = """usage: {0} [options] SOURCE DEST
       {0} [options] SOURCE... DIRECTORY""".format(PROG)


HELP = USAGE + """

Copy files with large I/Os (one buffer per read and write), optionally with direct I/O or
without filling the page cache. As cp does, an existing destination (or the file a symbolic
link to one points to) is written in place, keeping its owner, mode, ACL and hard links; a new
one is written under a temporary name and renamed when complete. '-' is standard input (as
SOURCE) or standard output (as DEST).

options:
  -r, -R, --recursive   copy directories recursively (symbolic links as links)
  -p                    preserve mode, POSIX ACLs, ownership (when permitted) and timestamps
  -f, --force           if an existing destination cannot be opened, remove it and try again
  --remove-destination  remove each existing destination before copying (not written in place)
  --buffer-size SIZE    size of each read and write: bytes or with k, M, G
                        (default: buffer_size= in the config file, else {0})
  --config PATH         config file (default: {1})
  --direct              O_DIRECT reads and writes (buffered where the file system refuses it)
  --streams N           with --direct: copy N buffers at once, each read and written by its
                        own thread (1-{2}; default: streams= in the config file, else {3};
                        fewer when N buffers would pass 1G); 1 stream reads a buffer, then
                        writes it, as dd does
  --nocache             drop the copied data from the page cache as the copy goes
  --progress            report bytes copied, rate and ETA on stderr
  --verify              compare the SHA-256 of source and destination after the copy
  -h, --help            show this help and exit
""".format(DEFAULT_BUFFER_SIZE, DEFAULT_CONFIG, MAX_STREAMS, DEFAULT_STREAMS)


# option -> Options field; the long options that take a value
_SHORT_OPTIONS = {'r': 'recursive', 'R': 'recursive', 'p': 'preserve', 'f': 'force', 'h': 'help'}


_LONG_OPTIONS = {'--recursive': 'recursive', '--buffer-size': 'buffer_size', '--config': 'config', '--direct': 'direct',
                 '--nocache': 'nocache', '--progress': 'progress', '--streams': 'streams', '--verify': 'verify',
                 '--force': 'force', '--remove-destination': 'remove_destination', '--help': 'help'}


_VALUE_OPTIONS = ('--buffer-size', '--config', '--streams')


# the Options fields that are flags
_FLAGS = ('recursive', 'preserve', 'direct', 'nocache', 'progress', 'verify', 'force', 'remove_destination')


class UsageError(Exception):
    """A bad command line; the message is printed after the usage."""


def _long_option(word):
    """(option, value or None) of '--name' or '--name=value'; a unique prefix names its option, as in GNU getopt."""
    name, equals, value = word.partition('=')
    matches = [name] if name in _LONG_OPTIONS else sorted(option for option in _LONG_OPTIONS if option.startswith(name))
    if not matches:
        raise UsageError('unrecognized option %s' % quote(word))
    if len(matches) > 1:
        raise UsageError('option %s is ambiguous; possibilities: %s' % (quote(name), ' '.join(matches)))
    return matches[0], (value if equals else None)


def parse_arguments(argv):
    """(settings, paths) of a command line, GNU style: options anywhere, '--' ends them, '-' is a path.

    settings maps the Options fields given to their values (True for a flag, the text for a value).
    """
    settings, paths = {}, []
    words = iter(argv)
    for word in words:
        if word == '--':
            paths.extend(words)
        elif word.startswith('--'):
            option, value = _long_option(word)
            if option in _VALUE_OPTIONS:
                if value is None:
                    value = next(words, None)
                if value is None:
                    raise UsageError('option %s requires an argument' % quote(option))
                settings[_LONG_OPTIONS[option]] = value
            elif value is not None:
                raise UsageError("option %s doesn't allow an argument" % quote(option))
            else:
                settings[_LONG_OPTIONS[option]] = True
        elif word.startswith('-') and word != '-':
            for letter in word[1:]:
                if letter not in _SHORT_OPTIONS:
                    raise UsageError('invalid option -- %s' % quote(letter))
                settings[_SHORT_OPTIONS[letter]] = True
        else:
            paths.append(word)
    return settings, paths


def _config(settings):
    """The key=value pairs of the config file (--config, else the default); UsageError when it cannot be read."""
    path = settings.get('config', DEFAULT_CONFIG)
    try:
        return path, read_config(path)
    except ValueError as exc:
        raise UsageError(str(exc))
    except OSError as exc:
        raise UsageError('cannot read %s: %s' % (path, describe(exc)))


def _buffer_size(settings, config):
    """The buffer size: --buffer-size, else buffer_size= in the config file, else the default; UsageError."""
    if 'buffer_size' in settings:
        try:
            return parse_size(settings['buffer_size'])
        except ValueError as exc:
            raise UsageError('argument --buffer-size: %s' % exc)
    path, values = config
    try:
        return parse_size(values.get('buffer_size', DEFAULT_BUFFER_SIZE))
    except ValueError as exc:
        raise UsageError('%s: buffer_size: %s' % (path, exc))


def _stream_count(text, where):
    """int of a stream count from 1 to MAX_STREAMS; UsageError naming where it came from."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_STREAMS:
        raise UsageError('%s: invalid value %s: expected a whole number from 1 to %d' % (where, quote(text), MAX_STREAMS))
    return int(text)


def _streams(settings, config, buffer_size):
    """The number of --direct streams; UsageError.

    --streams N (1 to MAX_STREAMS, N buffers within 1G), else streams= in the config file, else the
    default; a default from the file or the tool is lowered to what fits in 1G of buffers, so a
    large --buffer-size still works without --streams."""
    if 'streams' in settings:
        streams = _stream_count(settings['streams'], 'argument --streams')
        if streams * buffer_size > MAX_STREAM_MEMORY:
            raise UsageError('argument --streams: %d buffers of %d bytes pass 1G; use fewer streams or a smaller --buffer-size'
                             % (streams, buffer_size))
        return streams
    path, values = config
    default = _stream_count(values['streams'], '%s: streams' % path) if 'streams' in values else DEFAULT_STREAMS
    return max(1, min(default, MAX_STREAM_MEMORY // buffer_size))


def parse_command_line(argv, stderr=None):
    """(Options, sources, destination) of a command line; UsageError on a bad one, SystemExit(0) after --help."""
    settings, paths = parse_arguments(argv)
    if settings.get('help'):
        sys.stdout.write(HELP)
        raise SystemExit(0)
    if not paths:
        raise UsageError('missing file operand')
    if len(paths) < 2:
        raise UsageError('missing destination file operand after %s' % quote(paths[0]))
    sources, dest = paths[:-1], paths[-1]
    if '-' in sources and len(sources) > 1:
        raise UsageError("'-' (standard input) must be the only source")
    if dest == '-' and len(sources) > 1:
        raise UsageError("only one source can be copied to '-' (standard output)")
    if settings.get('verify') and ('-' in sources or dest == '-'):
        raise UsageError("--verify cannot be used with '-' (standard input or output)")
    # the file is read only when the command line leaves a setting to it
    config = (None, {}) if 'buffer_size' in settings and 'streams' in settings else _config(settings)
    buffer_size = _buffer_size(settings, config)
    if buffer_size > MAX_BUFFER_SIZE:
        raise UsageError('buffer size %d is larger than the maximum, 1G' % buffer_size)
    flags = dict((name, bool(settings.get(name))) for name in _FLAGS)
    if 'streams' in settings and not settings.get('direct'):
        raise UsageError('argument --streams: only with --direct (buffered copies are kept busy by the kernel\'s read-ahead and write-back)')
    streams = _streams(settings, config, buffer_size)
    return Options(buffer_size=buffer_size, streams=streams, stderr=stderr, **flags), sources, dest


def _total_size(sources):
    """Bytes to copy when every source is a regular file (for the ETA), else None."""
    total = 0
    for src in sources:
        try:
            st = os.stat(src) if src != '-' else os.fstat(0)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or src == '-':
            return None
        total += st.st_size
    return total


def _targets(sources, dest, options):
    """(source, exact destination) pairs, cp style; None (after reporting) when dest must be a directory and is not.

    Into a directory, a source's destination is its last component there ('x/sub/..' copies into the directory
    itself, as cp does: never beside it)."""
    if dest == '-':
        return [(sources[0], dest)]
    dest_is_dir = os.path.isdir(dest)
    if len(sources) > 1 and not dest_is_dir:
        try:
            os.stat(dest)
            reason = os.strerror(errno.ENOTDIR)
        except OSError as exc:
            reason = describe(exc)
        options.report('target %s: %s' % (quote(dest), reason))
        return None
    pairs = []
    for src in sources:
        if not dest_is_dir:
            pairs.append((src, dest))
        elif src == '-':
            pairs.append((src, None))
        else:
            name = os.path.basename(src.rstrip(os.sep)) or src
            pairs.append((src, os.path.join(dest, '' if name == '..' else name)))
    return pairs


def _copy_operand(src, target, options, operands):
    """Copy one source operand; with several sources into one directory (operands: existing.Operands), as cp: a
    source given twice is copied once (a warning), and nothing this run made is overwritten or written through."""
    if operands is not None and src != '-':
        try:
            src_st = os.lstat(src) if options.recursive else os.stat(src)
        except OSError:
            src_st = None  # copy_entry says why
        if src_st is not None:
            if operands.given_before(src, src_st):
                options.warn('warning: source file %s specified more than once' % quote(src))
                return
            operands.check(src, src_st, target, options)
    copy_entry(src, target, options)
    if operands is not None:
        operands.made_now(target)


def _on_signal(signum, dummy_frame):
    raise Interrupted(signum)


def run(sources, dest, options):
    """Copy the sources; the exit status."""
    pairs = _targets(sources, dest, options)
    if pairs is None:
        return 1
    if options.progress:
        from .progress import Progress  # here, not at the top: only --progress needs it, every start pays for an import
        options.meter = Progress(options.stderr, _total_size(sources))
    operands = Operands() if len(pairs) > 1 else None
    try:
        for src, target in pairs:
            if target is None:
                options.report('cannot copy standard input into directory %s: name the destination file' % quote(dest))
                continue
            try:
                _copy_operand(src, target, options, operands)
            except CopyError as exc:
                options.report(str(exc))
    except StdoutClosed:
        return 128 + signal.SIGPIPE
    if options.meter is not None:
        options.meter.finish()
    return 1 if options.failed else 0


def main(argv=None, stderr=None):
    """Run the command line (sys.argv[1:] by default); the exit status."""
    try:
        options, sources, dest = parse_command_line(sys.argv[1:] if argv is None else argv, stderr)
    except UsageError as exc:
        (stderr or sys.stderr).write('%s\n%s: error: %s\nTry \'%s --help\' for more information.\n' % (USAGE, PROG, exc, PROG))
        return 2
    except SystemExit as exc:
        return exc.code
    previous = {}
    for name in _SIGNALS:
        signum = getattr(signal, name)
        try:
            previous[signum] = signal.signal(signum, _on_signal)
        except (ValueError, OSError):
            pass
    try:
        return run(sources, dest, options)
    except Interrupted as exc:
        return 128 + exc.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
