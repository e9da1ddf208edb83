# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""iotune-copy (the package tools/iotune_copy): sizes, direct I/O, sparse files, cp semantics, atomicity.

The tool is loaded from its package (copy_tool.py); the end-to-end cases (pipelines, signals) run the
zipapp built from it with this interpreter in a subprocess.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import fcntl
import io
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest

from ansible_collections.iotune.storage.tests.unit.tools.copy_tool import load_tool, zipapp

tool = load_tool()
TOOL = zipapp('iotune-copy')

KIB = 1024
MIB = 1024 * 1024
BUF = 64 * KIB
FALLBACK = 'O_DIRECT not supported here, copying buffered'


def data(size, seed=0):
    return random.Random(seed).randbytes(size)


def write(path, content):
    with open(str(path), 'wb') as handle:
        handle.write(content)
    return str(path)


def read(path):
    with open(str(path), 'rb') as handle:
        return handle.read()


def run_main(argv):
    """(exit status, stderr text) of the tool's main() run in this process."""
    err = io.StringIO()
    rc = tool.main([str(arg) for arg in argv], stderr=err)
    return rc, err.getvalue()


def temp_files(directory):
    return sorted(name for name in os.listdir(str(directory)) if tool.TEMP_MARK in name)


def copy_threads():
    """The tool's threads still alive: its read-ahead reader and its --streams threads."""
    return [thread for thread in threading.enumerate() if thread.name in ('iotune-copy-reader', 'iotune-copy-stream')]


def direct_supported(directory):
    """Whether the file system of directory takes O_DIRECT (the tool's path is asserted either way)."""
    path = os.path.join(str(directory), '.probe-direct')
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        tool.enable_direct(fd)
        return bool(tool.dio_alignment(fd))
    except OSError:
        return False
    finally:
        os.close(fd)
        os.unlink(path)


# ---------------------------------------------------------------------------
# Sizes and config


@pytest.mark.parametrize('text, expected', [
    ('1', 1),
    ('4096', 4096),
    ('256k', 256 * KIB),
    ('256K', 256 * KIB),
    ('8M', 8 * MIB),
    ('8m', 8 * MIB),
    ('1g', 1024 * MIB),
    ('1G', 1024 * MIB),
    (' 64k ', 64 * KIB),
    ('8 M', 8 * MIB),
    ('0008k', 8 * KIB),
])
def test_parse_size_valid(text, expected):
    assert tool.parse_size(text) == expected


@pytest.mark.parametrize('text, message', [
    ('', 'expected a number of bytes'),
    ('8MB', 'expected a number of bytes'),
    ('1.5M', 'expected a number of bytes'),
    ('-1', 'expected a number of bytes'),
    ('k', 'expected a number of bytes'),
    ('1t', 'expected a number of bytes'),
    ('8 MiB', 'expected a number of bytes'),
    ('+8M', 'expected a number of bytes'),
    ('1 2k', 'expected a number of bytes'),
    ('\uff18M', 'expected a number of bytes'),     # a fullwidth 8: a digit to str.isdigit, not to the tool
    ('8\u00b2', 'expected a number of bytes'),
    ('kk', 'expected a number of bytes'),
    ('0', 'must be greater than 0'),
    ('0k', 'must be greater than 0'),
])
def test_parse_size_invalid(text, message):
    with pytest.raises(ValueError) as info:
        tool.parse_size(text)
    assert message in str(info.value)
    if message.startswith('expected'):
        for form in ('256k', '8M', '1g', 'bytes'):
            assert form in str(info.value)


@pytest.mark.parametrize('config, argv, expected', [
    (None, [], 8 * MIB),
    ('buffer_size=128k\n', [], 128 * KIB),
    ('# copy settings\n\nbuffer_size = "16M"\nother=1\n', [], 16 * MIB),
    ('buffer_size=1g\n', [], 1024 * MIB),
    ('buffer_size=bogus\n', ['--buffer-size', '256k'], 256 * KIB),
])
def test_buffer_size_from_config(tmp_path, config, argv, expected):
    path = tmp_path / 'copy.conf'
    if config is not None:
        path.write_text(config)
    options, sources, dest = tool.parse_command_line(argv + ['--config', str(path), 'a', 'b'])
    assert options.buffer_size == expected
    assert (sources, dest) == (['a'], 'b')


@pytest.mark.parametrize('config, argv, message', [
    ('buffer_size=bogus\n', ['a', 'b'], 'buffer_size: invalid size'),
    ('buffer_size=0\n', ['a', 'b'], 'must be greater than 0'),
    ('buffer_size\n', ['a', 'b'], 'expected key=value'),
    (None, ['--buffer-size', '12x', 'a', 'b'], 'argument --buffer-size: invalid size'),
    (None, ['--buffer-size', '2g', 'a', 'b'], 'larger than the maximum'),
    (None, ['--verify', '-', 'b'], "--verify cannot be used with '-'"),
    (None, ['--verify', 'a', '-'], "--verify cannot be used with '-'"),
    (None, ['-', 'a', 'dir'], "'-' (standard input) must be the only source"),
    (None, ['a', 'b', '-'], "only one source can be copied to '-'"),
    (None, ['onlyone'], "missing destination file operand after 'onlyone'"),
    (None, [], 'missing file operand'),
    (None, ['--bogus', 'a', 'b'], "unrecognized option '--bogus'"),
    (None, ['--direct=yes', 'a', 'b'], "option '--direct' doesn't allow an argument"),
    (None, ['a', 'b', '--buffer-size'], "option '--buffer-size' requires an argument"),
    (None, ['-rx', 'a', 'b'], "invalid option -- 'x'"),
    (None, ['--direct', '--streams', '0', 'a', 'b'], "argument --streams: invalid value '0': expected a whole number from 1 to 64"),
    (None, ['--direct', '--streams', '65', 'a', 'b'], "argument --streams: invalid value '65'"),
    (None, ['--direct', '--streams=four', 'a', 'b'], "argument --streams: invalid value 'four'"),
    (None, ['--direct', '--streams', '-2', 'a', 'b'], "argument --streams: invalid value '-2'"),
    (None, ['--streams', '4', 'a', 'b'], 'argument --streams: only with --direct'),
    (None, ['--direct', '--streams', '33', '--buffer-size', '32M', 'a', 'b'], '33 buffers of 33554432 bytes pass 1G'),
])
def test_usage_errors(tmp_path, capsys, config, argv, message):
    path = tmp_path / 'copy.conf'
    if config is not None:
        path.write_text(config)
    assert tool.main(['--config', str(path)] + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith('usage: iotune-copy [options] SOURCE DEST\n')
    error = err.splitlines()[2]
    assert error.startswith('iotune-copy: error: ') and message in error
    assert err.endswith("Try 'iotune-copy --help' for more information.\n")
    if 'invalid size' in message:
        assert '256k, 8M, 1g' in err
    if config is not None:
        assert str(path) in err


@pytest.mark.parametrize('argv, settings, paths', [
    (['a', 'b'], {}, ['a', 'b']),
    (['-rp', '--direct', 'a', 'b'], {'recursive': True, 'preserve': True, 'direct': True}, ['a', 'b']),
    (['a', '-R', 'b', '--nocache'], {'recursive': True, 'nocache': True}, ['a', 'b']),
    (['--buffer-size', '256k', '--config=/x.conf', 'a', 'b'], {'buffer_size': '256k', 'config': '/x.conf'}, ['a', 'b']),
    (['--buffer-size=1M', '--buffer-size', '2M', 'a', 'b'], {'buffer_size': '2M'}, ['a', 'b']),
    (['--buf', '64k', '--prog', '--ver', 'a', 'b'], {'buffer_size': '64k', 'progress': True, 'verify': True}, ['a', 'b']),
    (['--buffer-size', '--direct', 'a', 'b'], {'buffer_size': '--direct'}, ['a', 'b']),
    (['-', 'out'], {}, ['-', 'out']),
    (['--', '-r', '--direct', 'b'], {}, ['-r', '--direct', 'b']),
    (['-p', '--', '--', 'b'], {'preserve': True}, ['--', 'b']),
    (['-h'], {'help': True}, []),
])
def test_parse_arguments(argv, settings, paths):
    assert tool.parse_arguments(argv) == (settings, paths)


def test_ambiguous_long_option(monkeypatch):
    monkeypatch.setitem(tool._LONG_OPTIONS, '--preserve', 'preserve')
    with pytest.raises(tool.UsageError) as info:
        tool.parse_arguments(['--pr', 'a', 'b'])
    assert str(info.value) == "option '--pr' is ambiguous; possibilities: --preserve --progress"
    assert tool.parse_arguments(['--pres', 'a', 'b']) == ({'preserve': True}, ['a', 'b'])


def test_help_goes_to_stdout_and_exits_0(capsys):
    assert tool.main(['--help', 'ignored']) == 0
    out, err = capsys.readouterr()
    assert out.startswith('usage: iotune-copy [options] SOURCE DEST\n')
    for option in ('--recursive', '-p ', '--buffer-size SIZE', '--config PATH', '--direct', '--nocache', '--progress', '--verify', '--streams N',
                   '--help'):
        assert option in out
    assert tool.DEFAULT_CONFIG in out and err == ''


def test_options_from_command_line(tmp_path):
    options, sources, dest = tool.parse_command_line(['--config', str(tmp_path / 'none'), '-rp', '--nocache', 'a', 'b', 'c'])
    assert (options.recursive, options.preserve, options.nocache, options.direct, options.progress, options.verify) == (
        True, True, True, False, False, False)
    assert (sources, dest) == (['a', 'b'], 'c')


@pytest.mark.parametrize('argv, streams', [
    ([], 1),
    (['--buffer-size', '256M'], 1),
    (['--buffer-size', '1G'], 1),
    (['--direct', '--streams', '3'], 3),
    (['--direct', '--streams', '64', '--buffer-size', '16M'], 64),
    (['--direct', '--streams', '1', '--buffer-size', '1G'], 1),
])
def test_streams_default_and_limits(tmp_path, argv, streams):
    """1 stream by default (measured: docs/performance.md); --streams within 1-64 and 1G of buffers."""
    options = tool.parse_command_line(['--config', str(tmp_path / 'none')] + argv + ['a', 'b'])[0]
    assert options.streams == streams


@pytest.mark.parametrize('config, argv, streams', [
    ('streams=3\n', ['--direct'], 3),
    ('streams = "16"\nbuffer_size=16M\n', ['--direct'], 16),
    ('streams=1\n', [], 1),
    ('streams=3\n', ['--direct', '--streams', '5'], 5),
    ('streams=bogus\n', ['--direct', '--streams', '5'], 5),
    # a default from the file is lowered to what fits in 1G of buffers, as the tool's own is
    ('streams=64\n', ['--direct', '--buffer-size', '256M'], 4),
])
def test_streams_from_config(tmp_path, config, argv, streams):
    path = tmp_path / 'copy.conf'
    path.write_text(config)
    assert tool.parse_command_line(['--config', str(path)] + argv + ['a', 'b'])[0].streams == streams


@pytest.mark.parametrize('config, message', [
    ('streams=0\n', "streams: invalid value '0': expected a whole number from 1 to 64"),
    ('streams=65\n', "streams: invalid value '65'"),
    ('streams=four\n', "streams: invalid value 'four'"),
])
def test_bad_streams_in_config(tmp_path, capsys, config, message):
    path = tmp_path / 'copy.conf'
    path.write_text(config)
    assert tool.main(['--config', str(path), '--direct', 'a', 'b']) == 2
    error = capsys.readouterr().err.splitlines()[2]
    assert error.startswith('iotune-copy: error: %s: %s' % (path, message)), error


def test_config_not_read_when_the_command_line_settles_it(tmp_path):
    path = tmp_path / 'copy.conf'
    path.write_text('no equals sign\n')
    options = tool.parse_command_line(['--config', str(path), '--direct', '--streams', '2', '--buffer-size', '1M', 'a', 'b'])[0]
    assert (options.streams, options.buffer_size) == (2, MIB)
    with pytest.raises(tool.UsageError) as info:
        tool.parse_command_line(['--config', str(path), '--direct', '--streams', '2', 'a', 'b'])
    assert str(info.value) == '%s:1: expected key=value, found \'no equals sign\'' % path


# ---------------------------------------------------------------------------
# Alignment helpers


@pytest.mark.parametrize('value, alignment, down, up', [
    (0, 512, 0, 0),
    (1, 512, 0, 512),
    (511, 512, 0, 512),
    (512, 512, 512, 512),
    (513, 512, 512, 1024),
    (4097, 4096, 4096, 8192),
    (10, 1, 10, 10),
])
def test_align(value, alignment, down, up):
    assert tool.align_down(value, alignment) == down
    assert tool.align_up(value, alignment) == up
    assert tool.is_aligned(value, alignment) == (down == value)


@pytest.mark.parametrize('alignments, expected', [
    ((1, 1), 1),
    ((1, 512), 512),
    ((512, 4096), 4096),
    ((4096, 512), 4096),
    ((512, 512), 512),
])
def test_common_alignment(alignments, expected):
    assert tool.common_alignment(*alignments) == expected


@pytest.mark.parametrize('buffer_size, alignment, size, expected', [
    (8 * MIB, 1, None, 8 * MIB),
    (8 * MIB, 1, 100, 100),
    (8 * MIB, 1, 0, 1),
    (8 * MIB, 4096, 100, 4096),
    (8 * MIB, 4096, 0, 4096),
    (1000, 512, None, 1024),
    (1000, 512, 10 * MIB, 1024),
    (64 * KIB, 4096, 64 * KIB + 1, 64 * KIB),
])
def test_buffer_length(buffer_size, alignment, size, expected):
    assert tool.buffer_length(buffer_size, alignment, size) == expected


@pytest.mark.parametrize('extents, size, alignment, expected', [
    ([], 100, 1, []),
    ([(0, 100)], 100, 1, [(0, 100)]),
    ([(0, 100)], 100, 512, [(0, 512)]),
    ([(4096, 8192), (0, 10)], 10000, 1, [(0, 10), (4096, 8192)]),
    ([(100, 200), (300, 400)], 1000, 512, [(0, 512)]),
    ([(0, 4096), (4096, 8192)], 9000, 1, [(0, 8192)]),
    ([(0, 4096), (12288, 20000)], 10000, 4096, [(0, 4096)]),
    ([(0, 4096), (8192, 20000)], 10000, 4096, [(0, 4096), (8192, 12288)]),
    ([(1000, 5000)], 3000, 1024, [(0, 3072)]),
    ([(5000, 6000)], 3000, 1, []),
])
def test_plan_extents(extents, size, alignment, expected):
    assert tool.plan_extents(extents, size, alignment) == expected


@pytest.mark.parametrize('plan, size, length, expected', [
    ([], 100, 64, []),
    ([(0, 128)], 128, 64, [(0, 64), (64, 64)]),
    ([(0, 4096)], 4000, 1024, [(0, 1024), (1024, 1024), (2048, 1024), (3072, 1024)]),
    ([(0, 512), (8192, 12288)], 10000, 4096, [(0, 512), (8192, 4096)]),
    ([(0, 8192)], 8192, 3072, [(0, 3072), (3072, 3072), (6144, 2048)]),
    ([(0, 8192)], 4096, 4096, [(0, 4096)]),
])
def test_plan_chunks(plan, size, length, expected):
    assert tool.plan_chunks(plan, size, length) == expected


def _fake_sysfs(root, entries):
    """entries: {"MAJ:MIN": (device dir relative to sys/devices, logical_block_size or None)}."""
    for node, (device, lbs) in entries.items():
        device_dir = root / 'devices' / device
        device_dir.mkdir(parents=True, exist_ok=True)
        if lbs is not None:
            (device_dir / 'queue').mkdir(exist_ok=True)
            (device_dir / 'queue' / 'logical_block_size').write_text('%s\n' % lbs)
        links = root / 'dev' / 'block'
        links.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(str(device_dir), str(links)), str(links / node))
    return str(root)


@pytest.mark.parametrize('node, expected', [
    ('8:0', 4096),       # whole disk
    ('8:1', 4096),       # partition: the parent disk's queue
    ('253:0', 512),      # dm device: its own queue
    ('9:0', None),       # a device without queue/ anywhere
    ('7:0', None),       # garbage in logical_block_size
    ('0:42', None),      # no block device (tmpfs, overlay)
])
def test_sysfs_logical_block_size(tmp_path, node, expected):
    sysfs = _fake_sysfs(tmp_path / 'sys', {
        '8:0': ('pci0/block/sda', 4096),
        '8:1': ('pci0/block/sda/sda1', None),
        '253:0': ('virtual/block/dm-0', 512),
        '9:0': ('virtual/block/md0', None),
        '7:0': ('virtual/block/loop0', 'many'),
    })
    major, minor = (int(part) for part in node.split(':'))
    assert tool.sysfs_logical_block_size(os.makedev(major, minor), sysfs) == expected


@pytest.mark.parametrize('statx, sysfs_lbs, expected', [
    ((4, 512), 4096, 512),    # statx DIOALIGN wins
    ((0, 0), 512, 0),         # statx says: no direct I/O on this file
    (None, 2048, 2048),       # no statx: the device's logical block size
    (None, None, 4096),       # neither: 4096
])
def test_dio_alignment_sources(tmp_path, monkeypatch, statx, sysfs_lbs, expected):
    path = write(tmp_path / 'f', b'x')
    fd = os.open(path, os.O_RDONLY)
    try:
        dev = os.fstat(fd).st_dev
        entries = {}
        if sysfs_lbs is not None:
            entries['%d:%d' % (os.major(dev), os.minor(dev))] = ('virtual/block/fake', sysfs_lbs)
        sysfs = _fake_sysfs(tmp_path / 'sys', entries) if entries else str(tmp_path / 'nosys')
        monkeypatch.setattr(tool, 'statx_dio_alignment', lambda dummy_fd: statx)
        assert tool.dio_alignment(fd, sysfs) == expected
    finally:
        os.close(fd)


def test_dio_alignment_real_file(tmp_path):
    path = write(tmp_path / 'f', b'x')
    fd = os.open(path, os.O_RDONLY)
    try:
        alignment = tool.dio_alignment(fd)
    finally:
        os.close(fd)
    assert alignment == 0 or (alignment >= 1 and alignment & (alignment - 1) == 0)


# ---------------------------------------------------------------------------
# Copies byte for byte

SIZES = [0, 1, 4095, 4096, 4097, BUF - 1, BUF, BUF + 1, 3 * BUF + 4321]


@pytest.mark.parametrize('flags', [[], ['--direct'], ['--nocache'], ['--direct', '--nocache'], ['--direct', '--streams', '1'],
                                   ['--direct', '--streams', '3']], ids=lambda f: ' '.join(f) or 'plain')
@pytest.mark.parametrize('size', SIZES)
def test_copy_sizes(tmp_path, size, flags):
    content = data(size, size)
    src = write(tmp_path / 'src', content)
    dst = tmp_path / 'out' / 'dst'
    dst.parent.mkdir()
    rc, err = run_main(['--buffer-size', '64k'] + flags + [src, dst])
    assert rc == 0, err
    assert read(dst) == content
    assert temp_files(dst.parent) == []
    if '--direct' in flags and not direct_supported(tmp_path):
        assert FALLBACK in err
    else:
        assert err == ''


def test_copy_replaces_existing_destination(tmp_path):
    src = write(tmp_path / 'src', b'new content')
    dst = write(tmp_path / 'dst', b'old content that is longer')
    rc, err = run_main([src, dst])
    assert (rc, err) == (0, '')
    assert read(dst) == b'new content'


def test_copy_into_directory_and_through_symlink(tmp_path):
    src1 = write(tmp_path / 'one', b'1')
    src2 = write(tmp_path / 'two', b'22')
    target = tmp_path / 'dir'
    target.mkdir()
    rc, err = run_main([src1, src2, target])
    assert (rc, err) == (0, '')
    assert read(target / 'one') == b'1' and read(target / 'two') == b'22'
    # a symbolic link as destination is written through, like cp
    real = write(tmp_path / 'real', b'old')
    os.symlink('real', str(tmp_path / 'link'))
    rc, err = run_main([src2, tmp_path / 'link'])
    assert (rc, err) == (0, '')
    assert os.path.islink(str(tmp_path / 'link')) and read(real) == b'22'
    os.symlink('nowhere', str(tmp_path / 'dangling'))
    rc, err = run_main([src2, tmp_path / 'dangling'])
    assert rc == 1 and "not writing through dangling symlink '%s'" % (tmp_path / 'dangling') in err


@pytest.mark.parametrize('streams', [[], ['--streams', '8']], ids=['default', 'streams-8'])
def test_direct_writes_aligned_part_with_o_direct_and_tail_without(tmp_path, monkeypatch, streams):
    if not direct_supported(tmp_path):
        pytest.skip('no O_DIRECT on %s' % tmp_path)
    size = 3 * BUF + 4321
    content = data(size, 7)
    src = write(tmp_path / 'src', content)
    fd = os.open(src, os.O_RDONLY)
    alignment = tool.dio_alignment(fd)
    os.close(fd)
    calls, in_flight = [], []
    real_write_at = tool.write_at

    def spy(fd, view, offset):
        direct = bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT)
        calls.append((offset, len(view), direct, len(in_flight)))
        in_flight.append(offset)
        try:
            time.sleep(0.05 if len(view) == BUF else 0)  # the full chunks are still being written when the tail is read
            return real_write_at(fd, view, offset)
        finally:
            in_flight.remove(offset)

    monkeypatch.setattr(tool, 'write_at', spy)
    rc, err = run_main(['--direct', '--buffer-size', '64k'] + streams + [src, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    assert read(tmp_path / 'dst') == content
    head = tool.align_down(4321, alignment)
    tail = [(3 * BUF, head, True)] if head else []
    tail.append((3 * BUF + head, 4321 - head, False))
    # the full chunks (in parallel streams: in any order); the tail alone after them, O_DIRECT off only for its end
    assert sorted(call[:3] for call in calls[:-len(tail)]) == [(0, BUF, True), (BUF, BUF, True), (2 * BUF, BUF, True)]
    assert calls[-len(tail):] == [call + (0,) for call in tail]


def test_direct_refused_falls_back_once(tmp_path, monkeypatch):
    def refuse(dummy_fd):
        raise OSError(errno.EINVAL, 'Invalid argument')

    monkeypatch.setattr(tool, 'enable_direct', refuse)
    first = write(tmp_path / 'a', data(BUF + 3, 1))
    second = write(tmp_path / 'b', data(5000, 2))
    out = tmp_path / 'out'
    out.mkdir()
    rc, err = run_main(['--direct', '--buffer-size', '64k', first, second, out])
    assert rc == 0
    assert read(out / 'a') == read(first) and read(out / 'b') == read(second)
    expected = 'iotune-copy: %s: %s\n' % (tool.mount_point(str(tmp_path)), FALLBACK)
    assert err == expected


def test_direct_einval_during_io_falls_back(tmp_path, monkeypatch):
    real_write_at = tool.write_at

    def refuse_direct(fd, view, offset):
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT:
            raise OSError(errno.EINVAL, 'Invalid argument')
        return real_write_at(fd, view, offset)

    monkeypatch.setattr(tool, 'write_at', refuse_direct)
    content = data(3 * BUF + 1, 3)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--direct', '--buffer-size', '64k', src, tmp_path / 'dst'])
    assert rc == 0, err
    assert read(tmp_path / 'dst') == content
    assert err.count(FALLBACK) == 1


def test_direct_einval_in_two_streams_at_once_falls_back_once(tmp_path, monkeypatch):
    """Two streams whose writes were both issued under O_DIRECT both get EINVAL: the one that comes
    second retries buffered (it found O_DIRECT already dropped), and the message comes once."""
    if not direct_supported(tmp_path):
        pytest.skip('no O_DIRECT on %s' % tmp_path)
    real_write_at = tool.write_at
    both_issued = threading.Barrier(2, timeout=10)

    def refuse_direct(fd, view, offset):
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT:
            both_issued.wait()   # both streams are inside a direct write before either fails
            raise OSError(errno.EINVAL, 'Invalid argument')
        return real_write_at(fd, view, offset)

    monkeypatch.setattr(tool, 'write_at', refuse_direct)
    content = data(4 * BUF, 5)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--direct', '--streams', '2', '--buffer-size', '64k', src, tmp_path / 'dst'])
    assert rc == 0, err
    assert read(tmp_path / 'dst') == content
    assert err.count(FALLBACK) == 1


@pytest.mark.parametrize('streams', [1, 3, 8])
def test_direct_streams_keep_that_many_reads_in_flight(tmp_path, monkeypatch, streams):
    """--streams N: N chunks are read at once (each stream reads, then writes its own buffer), never more."""
    if not direct_supported(tmp_path):
        pytest.skip('no O_DIRECT on %s' % tmp_path)
    chunks = 12
    lock = threading.Lock()
    state = {'now': 0, 'peak': 0}
    real_read_at = tool.read_at

    def read_at(fd, view, offset):
        with lock:
            state['now'] += 1
            state['peak'] = max(state['peak'], state['now'])
        deadline = time.monotonic() + 5
        while state['now'] < min(streams, chunks) and state['peak'] < streams and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(0.01)  # room for a read that should not start
        try:
            return real_read_at(fd, view, offset)
        finally:
            with lock:
                state['now'] -= 1

    monkeypatch.setattr(tool, 'read_at', read_at)
    content = data(chunks * BUF, 20)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--direct', '--streams', streams, '--buffer-size', '64k', src, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    assert read(tmp_path / 'dst') == content
    assert state['peak'] == streams
    assert copy_threads() == []


def test_direct_streams_not_more_than_the_chunks(tmp_path, monkeypatch):
    """A file of two buffers gets two streams (and two buffers), whatever --streams says."""
    if not direct_supported(tmp_path):
        pytest.skip('no O_DIRECT on %s' % tmp_path)
    started = []
    real_thread = threading.Thread

    def thread(target=None, **kwargs):
        started.append(kwargs.get('name'))
        return real_thread(target=target, **kwargs)

    monkeypatch.setattr(tool.threading, 'Thread', thread)
    content = data(2 * BUF, 21)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--direct', '--streams', '8', '--buffer-size', '64k', src, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    assert read(tmp_path / 'dst') == content
    assert started == ['iotune-copy-stream'] * 2


@pytest.mark.parametrize('streams', ['1', '4'])
def test_direct_streams_stop_where_the_source_shrank(tmp_path, monkeypatch, streams):
    """Reads past a point return nothing (the file was truncated during the copy): the copy ends there."""
    if not direct_supported(tmp_path):
        pytest.skip('no O_DIRECT on %s' % tmp_path)
    real_read_at = tool.read_at

    def read_at(fd, view, offset):
        return 0 if offset >= 5 * BUF else real_read_at(fd, view, offset)

    monkeypatch.setattr(tool, 'read_at', read_at)
    content = data(12 * BUF + 100, 22)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--direct', '--streams', streams, '--buffer-size', '64k', '--progress', src, tmp_path / 'dst'])
    assert rc == 0, err
    assert read(tmp_path / 'dst') == content[:5 * BUF]
    assert copy_threads() == []


@pytest.mark.parametrize('failure, status, message', [
    (OSError(errno.ENOSPC, 'No space left on device'), 1, "iotune-copy: error writing '{dst}': No space left on device\n"),
    (signal.SIGINT, 130, ''),
], ids=['ENOSPC', 'SIGINT'])
def test_direct_streams_failure_stops_all_and_leaves_nothing(tmp_path, monkeypatch, failure, status, message):
    if not direct_supported(tmp_path):
        pytest.skip('no O_DIRECT on %s' % tmp_path)
    monkeypatch.setattr(tool, 'write_at', _failing(tool.write_at, 3, failure))
    src = write(tmp_path / 'src', data(16 * BUF, 23))
    dst = tmp_path / 'dst'
    rc, err = run_main(['--direct', '--streams', '4', '--buffer-size', '64k', src, dst])
    assert (rc, err) == (status, message.format(dst=dst))
    assert temp_files(tmp_path) == [] and not os.path.exists(str(dst))
    assert copy_threads() == []


def test_statx_without_direct_io_copies_buffered(tmp_path, monkeypatch):
    monkeypatch.setattr(tool, 'statx_dio_alignment', lambda dummy_fd: (0, 0))
    content = data(10000, 4)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--direct', src, tmp_path / 'dst'])
    assert rc == 0 and FALLBACK in err
    assert read(tmp_path / 'dst') == content


# ---------------------------------------------------------------------------
# copy_file_range for plain copies


def _spy(monkeypatch, name):
    calls = []
    real = getattr(tool, name)

    def spy(*args):
        result = real(*args)
        calls.append((args[-1], args[-2] if name == 'copy_range' else len(args[1]), result))
        return result

    monkeypatch.setattr(tool, name, spy)
    return calls


def test_plain_copy_goes_through_copy_file_range(tmp_path, monkeypatch):
    size = 3 * BUF + 4321
    content = data(size, 31)
    src = write(tmp_path / 'src', content)
    ranges = _spy(monkeypatch, 'copy_range')
    reads, writes = _spy(monkeypatch, 'read_at'), _spy(monkeypatch, 'write_at')
    rc, err = run_main(['--buffer-size', '64k', src, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    assert read(tmp_path / 'dst') == content
    # the whole file in one call, as cp asks (issue 38, item 19: in buffer-sized calls, the device saw more and
    # smaller requests than cp's)
    assert [(offset, count) for offset, count, dummy in ranges] == [(0, size)]
    assert sum(done for dummy, dummy2, done in ranges) == size
    assert reads == [] and writes == []


def _spy_writeback(monkeypatch, result=None):
    calls = []
    real = tool.start_writeback

    def spy(fd, offset, length):
        done = real(fd, offset, length) if result is None else result
        calls.append((offset, length, done))
        return done

    monkeypatch.setattr(tool, 'start_writeback', spy)
    return calls


def test_a_file_larger_than_a_writeback_step_goes_a_step_a_call_each_written_back_at_once(tmp_path, monkeypatch):
    # cp leaves the whole copy dirty until the final fsync; the tool starts each step's writeback as soon as it is
    # copied, so that the device writes while the next step is read (docs/performance.md)
    monkeypatch.setattr(tool, 'WRITEBACK_STEP', 4 * BUF)
    size = 10 * BUF + 123
    content = data(size, 37)
    src = write(tmp_path / 'src', content)
    ranges = _spy(monkeypatch, 'copy_range')
    started = _spy_writeback(monkeypatch)
    assert run_main([src, tmp_path / 'dst']) == (0, '')
    assert read(tmp_path / 'dst') == content
    steps = [(0, 4 * BUF), (4 * BUF, 4 * BUF), (8 * BUF, 2 * BUF + 123)]
    assert [(offset, count) for offset, count, dummy in ranges] == steps
    # the real sync_file_range(2), which this kernel has
    assert started == [(offset, count, True) for offset, count in steps]


def test_without_sync_file_range_the_rest_goes_in_one_call(tmp_path, monkeypatch):
    monkeypatch.setattr(tool, 'WRITEBACK_STEP', 4 * BUF)
    size = 10 * BUF
    content = data(size, 38)
    src = write(tmp_path / 'src', content)
    ranges = _spy(monkeypatch, 'copy_range')
    started = _spy_writeback(monkeypatch, result=False)
    assert run_main([src, tmp_path / 'dst']) == (0, '')
    assert read(tmp_path / 'dst') == content
    assert [(offset, count) for offset, count, dummy in ranges] == [(0, 4 * BUF), (4 * BUF, 6 * BUF)]
    assert started == [(0, 4 * BUF, False)]


def test_start_writeback_of_a_real_file(tmp_path):
    path = write(tmp_path / 'dirty', data(BUF, 39))
    fd = os.open(path, os.O_RDWR)
    try:
        assert tool.start_writeback(fd, 0, BUF) is True
        # a bad descriptor: False (EBADF), the caller's final fsync then writes everything
        assert tool.start_writeback(-1, 0, BUF) is False
    finally:
        os.close(fd)


def test_a_copy_the_kernel_does_whole_maps_no_buffer(tmp_path, monkeypatch):
    """The buffers are made only when the tool reads and writes itself: a plain copy that copy_file_range does
    whole never maps them; where the kernel declines (here: every call returns 0), the copy makes its two."""
    made = []
    real = tool.io_buffer

    def io_buffer(length):
        made.append(length)
        return real(length)

    monkeypatch.setattr(tool, 'io_buffer', io_buffer)
    content = data(3 * BUF + 4321, 33)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--buffer-size', '64k', src, tmp_path / 'dst'])
    assert (rc, err, made) == (0, '', [])
    assert read(tmp_path / 'dst') == content
    monkeypatch.setattr(tool, 'copy_range', lambda *args: 0)
    rc, err = run_main(['--buffer-size', '64k', src, tmp_path / 'declined'])
    assert (rc, err, made) == (0, '', [BUF, BUF])
    assert read(tmp_path / 'declined') == content


@pytest.mark.parametrize('flags', [['--direct'], ['--nocache'], ['--direct', '--nocache']], ids=' '.join)
def test_direct_and_nocache_never_use_copy_file_range(tmp_path, monkeypatch, flags):
    content = data(2 * BUF + 7, 32)
    src = write(tmp_path / 'src', content)
    ranges = _spy(monkeypatch, 'copy_range')
    rc, err = run_main(['--buffer-size', '64k'] + flags + [src, tmp_path / 'dst'])
    assert rc == 0, err
    assert read(tmp_path / 'dst') == content
    assert ranges == []


@pytest.mark.parametrize('code', [errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EIO, None],
                         ids=lambda code: errno.errorcode[code] if code else 'returns-0')
@pytest.mark.parametrize('fail_on_call', [1, 3])
def test_declined_copy_file_range_goes_on_with_read_and_write(tmp_path, monkeypatch, code, fail_on_call):
    size = 4 * BUF + 99
    content = data(size, 33)
    src = write(tmp_path / 'src', content)
    real = tool.copy_range
    calls = []

    def copy_range(src_fd, dst_fd, count, offset):
        calls.append((offset, count))
        if len(calls) == fail_on_call:
            if code is None:
                return 0
            raise OSError(code, os.strerror(code))
        return real(src_fd, dst_fd, min(count, BUF), offset)  # short counts, as the kernel may return

    monkeypatch.setattr(tool, 'copy_range', copy_range)
    writes = _spy(monkeypatch, 'write_at')
    rc, err = run_main(['--buffer-size', '64k', src, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    assert read(tmp_path / 'dst') == content
    # each call asks for the whole rest (a short count is followed by a call for what is left, issue 38 item 19);
    # declined once, never asked again; read and write take over at that offset
    assert calls == [(offset * BUF, size - offset * BUF) for offset in range(fail_on_call)]
    start = (fail_on_call - 1) * BUF
    assert [(offset, length) for offset, length, dummy in writes] == \
        [(offset, min(BUF, size - offset)) for offset in range(start, size, BUF)]


def test_copy_file_range_to_a_file_that_reports_more_than_it_holds(tmp_path):
    source = '/sys/kernel/mm/transparent_hugepage/enabled'
    if not os.path.exists(source) or os.stat(source).st_size <= len(read(source)):
        pytest.skip('no sysfs file here whose size exceeds its content')
    rc, err = run_main([source, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    assert read(tmp_path / 'dst') == read(source)


# ---------------------------------------------------------------------------
# Sparse files


def _sparse_source(path, layout, size):
    with open(str(path), 'wb') as handle:
        for offset, length in layout:
            handle.seek(offset)
            handle.write(data(length, offset))
        handle.truncate(size)
    return str(path)


SPARSE = [
    # (data ranges, size)
    ([(0, 4096), (32 * MIB, 4096), (64 * MIB, 1)], 64 * MIB + 1),
    ([(16 * MIB + 100, 5000)], 48 * MIB),                  # hole at both ends
    ([], 8 * MIB),                                           # only a hole
]


@pytest.mark.parametrize('flags', [[], ['--direct'], ['--nocache']], ids=lambda f: ' '.join(f) or 'plain')
@pytest.mark.parametrize('layout, size', SPARSE)
def test_sparse_copy_keeps_holes(tmp_path, layout, size, flags):
    src = _sparse_source(tmp_path / 'src', layout, size)
    rc, err = run_main(['--buffer-size', '1M'] + flags + [src, tmp_path / 'dst'])
    assert rc == 0, err
    st = os.stat(str(tmp_path / 'dst'))
    assert st.st_size == size
    assert st.st_blocks * 512 < size // 50
    assert read(tmp_path / 'dst') == read(src)


def test_data_extents(tmp_path):
    src = _sparse_source(tmp_path / 'src', [(0, 100), (8 * MIB, 100)], 16 * MIB)
    fd = os.open(src, os.O_RDONLY)
    try:
        extents = tool.data_extents(fd, 16 * MIB)
    finally:
        os.close(fd)
    assert extents[0][0] == 0 and extents[0][1] >= 100
    assert any(start <= 8 * MIB and end >= 8 * MIB + 100 for start, end in extents)
    assert sum(end - start for start, end in extents) < MIB


def test_data_extents_without_seek_data():
    read_end, write_end = os.pipe()
    try:
        assert tool.data_extents(read_end, 1000) == [(0, 1000)]
        assert tool.data_extents(read_end, 0) == []
    finally:
        os.close(read_end)
        os.close(write_end)


# ---------------------------------------------------------------------------
# Modes, times, trees

STAMP = (1500000000123456789, 1600000000987654321)


@pytest.mark.parametrize('src_mode, umask, preserve, expected', [
    (0o640, 0o022, True, 0o640),
    (0o755, 0o077, True, 0o755),
    (0o4755, 0o022, True, 0o4755),
    (0o666, 0o027, False, 0o640),
    (0o777, 0o027, False, 0o750),
    (0o4755, 0o022, False, 0o755),
    (0o600, 0o000, False, 0o600),
])
def test_mode_and_times(tmp_path, src_mode, umask, preserve, expected):
    if src_mode & stat.S_ISUID and preserve and os.geteuid() != 0:
        pytest.skip('only root keeps the owner, and with it the setuid bit')
    src = write(tmp_path / 'src', b'mode')
    os.chmod(src, src_mode)
    os.utime(src, ns=STAMP)
    old = os.umask(umask)
    try:
        rc, err = run_main((['-p'] if preserve else []) + [src, tmp_path / 'dst'])
    finally:
        os.umask(old)
    assert (rc, err) == (0, '')
    st = os.stat(str(tmp_path / 'dst'))
    assert stat.S_IMODE(st.st_mode) == expected
    if preserve:
        assert (st.st_atime_ns, st.st_mtime_ns) == STAMP
        assert (st.st_uid, st.st_gid) == (os.stat(src).st_uid, os.stat(src).st_gid)
    else:
        assert st.st_mtime_ns != STAMP[1]


def _make_tree(root):
    (root / 'sub' / 'deeper').mkdir(parents=True)
    (root / 'empty').mkdir()
    write(root / 'top.bin', data(3 * BUF + 5, 11))
    write(root / 'sub' / 'file', b'sub file')
    write(root / 'sub' / 'deeper' / 'zero', b'')
    os.symlink('sub/file', str(root / 'link'))
    os.symlink('../nowhere', str(root / 'sub' / 'dangling'))
    os.symlink('sub', str(root / 'dirlink'))
    os.mkfifo(str(root / 'fifo'))
    os.chmod(str(root / 'sub'), 0o750)


def _snapshot(root):
    """{relative path: description} of a tree, without following links."""
    found = {}
    for directory, dirs, files in os.walk(str(root)):
        for name in dirs + files:
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, str(root))
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ('link', os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ('dir',)
            elif stat.S_ISFIFO(st.st_mode):
                found[rel] = ('fifo',)
            else:
                found[rel] = ('file', read(path))
    return found


def test_recursive_copy(tmp_path):
    src = tmp_path / 'tree'
    _make_tree(src)
    rc, err = run_main(['-r', '--buffer-size', '64k', src, tmp_path / 'copy'])
    assert (rc, err) == (0, '')
    assert _snapshot(tmp_path / 'copy') == _snapshot(src)
    assert os.path.islink(str(tmp_path / 'copy' / 'dirlink'))
    assert temp_files(tmp_path / 'copy') == []
    # an existing directory destination receives the tree under its name
    rc, err = run_main(['-R', src, tmp_path / 'copy'])
    assert (rc, err) == (0, '')
    assert _snapshot(tmp_path / 'copy' / 'tree') == _snapshot(src)


def test_recursive_preserve_directories(tmp_path):
    src = tmp_path / 'tree'
    _make_tree(src)
    os.utime(str(src / 'sub'), ns=STAMP)
    rc, err = run_main(['-r', '-p', src, tmp_path / 'copy'])
    assert (rc, err) == (0, '')
    st = os.stat(str(tmp_path / 'copy' / 'sub'))
    assert stat.S_IMODE(st.st_mode) == 0o750
    assert st.st_mtime_ns == STAMP[1]


def test_recursive_top_level_symlink_is_copied_as_link(tmp_path):
    write(tmp_path / 'file', b'x')
    os.symlink('file', str(tmp_path / 'link'))
    rc, err = run_main(['-r', tmp_path / 'link', tmp_path / 'copy'])
    assert (rc, err) == (0, '')
    assert os.readlink(str(tmp_path / 'copy')) == 'file'
    rc, err = run_main([tmp_path / 'link', tmp_path / 'followed'])
    assert (rc, err) == (0, '')
    assert not os.path.islink(str(tmp_path / 'followed')) and read(tmp_path / 'followed') == b'x'


# ---------------------------------------------------------------------------
# Symbolic links in the destination, side by side with GNU cp (issue 18, S2)

GNU_CP = '/bin/cp'
NOBODY = 65534


def _gnu_cp():
    try:
        version = subprocess.run([GNU_CP, '--version'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 universal_newlines=True, check=False).stdout
    except OSError:
        version = ''
    if 'GNU coreutils' not in version:
        pytest.skip('GNU cp (%s) is needed to compare with' % GNU_CP)
    return GNU_CP


def _side_by_side(tmp_path, setup, cp_args, tool_args):
    """Build setup(root) in two directories, run GNU cp in one and iotune-copy in the other, names relative to it.

    {'cp': (root, what setup returned, exit status, messages), 'tool': ...}: the messages without the
    program name, and without the tool's O_DIRECT fallback line (cp has no --direct).
    """
    cp = _gnu_cp()
    sides = {}
    for side, argv in (('cp', [cp] + list(cp_args)), ('tool', _tool_argv(*tool_args))):
        root = tmp_path / side
        root.mkdir()
        before = setup(root)
        done = subprocess.run(argv, cwd=str(root), stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=60, check=False)
        messages = [line.partition(': ')[2] for line in done.stderr.splitlines() if FALLBACK not in line]
        sides[side] = (root, before, done.returncode, messages)
    return sides


def _link_to_file(root, sparse=False):
    """dir/link -> ../elsewhere/real, an existing file with its own mode (and owner, for root), longer than the source.

    A sparse source has holes at both ends: they must not keep the old content of the file written in place.
    """
    (root / 'dir').mkdir()
    (root / 'elsewhere').mkdir()
    if sparse:
        src = _sparse_source(root / 'src', [(2 * BUF, BUF + 7)], 4 * BUF)
    else:
        src = write(root / 'src', data(3 * BUF + 5, 21))
    os.chmod(src, 0o755)
    os.utime(src, ns=STAMP)
    real = write(root / 'elsewhere' / 'real', b'the old content, longer than the new one ' * 8 * KIB)
    os.chmod(real, 0o640)
    if os.geteuid() == 0:
        os.chown(real, NOBODY, NOBODY)
    os.symlink('../elsewhere/real', str(root / 'dir' / 'link'))
    return os.stat(real)


def _after(root, before, preserve):
    """What a copy onto dir/link left: the link, the file it points to (inode kept?), the names in both directories."""
    real = root / 'elsewhere' / 'real'
    st = os.stat(str(real))
    found = {
        'link': os.readlink(str(root / 'dir' / 'link')) if os.path.islink(str(root / 'dir' / 'link')) else None,
        'same inode': (st.st_dev, st.st_ino) == (before.st_dev, before.st_ino),
        'mode': oct(stat.S_IMODE(st.st_mode)),
        'owner': (st.st_uid, st.st_gid),
        'content': read(real) == read(root / 'src'),
        'names': (sorted(os.listdir(str(root / 'dir'))), sorted(os.listdir(str(root / 'elsewhere')))),
    }
    if preserve:
        found['mtime'] = st.st_mtime_ns
    return found


@pytest.mark.parametrize('flags', [[], ['-p'], ['-r'], ['--nocache'], ['--direct'], ['--direct', '--streams', '3'], ['--direct', '-p']],
                         ids=lambda f: ' '.join(f) or 'plain')
@pytest.mark.parametrize('sparse', [False, True], ids=['dense', 'sparse'])
def test_symlink_destination_is_written_in_place_like_cp(tmp_path, flags, sparse):
    cp_flags = [flag for flag in flags if flag in ('-p', '-r')]
    sides = _side_by_side(tmp_path, lambda root: _link_to_file(root, sparse), cp_flags + ['src', 'dir/link'],
                          ['--buffer-size', '64k'] + flags + ['src', 'dir/link'])
    results = dict((side, (rc, messages, _after(root, before, '-p' in flags))) for side, (root, before, rc, messages) in sides.items())
    assert results['tool'] == results['cp']
    rc, messages, found = results['tool']
    assert (rc, messages) == (0, [])
    assert found['link'] == '../elsewhere/real' and found['same inode'] and found['content']
    assert found['names'] == (['link'], ['real'])
    if '-p' in flags:
        assert found['mode'] == '0o755' and found['mtime'] == STAMP[1]
    else:
        owner = (NOBODY, NOBODY) if os.geteuid() == 0 else (os.getuid(), os.getgid())
        assert (found['mode'], found['owner']) == ('0o640', owner)


def _dangling(root):
    (root / 'dir').mkdir()
    write(root / 'src', b'new')
    os.symlink('../nowhere', str(root / 'dir' / 'link'))


def _loop(root):
    (root / 'dir').mkdir()
    write(root / 'src', b'new')
    os.symlink('link', str(root / 'dir' / 'link'))


@pytest.mark.parametrize('setup, flags, message', [
    (_dangling, [], "not writing through dangling symlink 'dir/link'"),
    (_dangling, ['-r'], "not writing through dangling symlink 'dir/link'"),
    (_dangling, ['--direct'], "not writing through dangling symlink 'dir/link'"),
    (_loop, [], "cannot stat 'dir/link': Too many levels of symbolic links"),
], ids=['dangling', 'dangling -r', 'dangling --direct', 'loop'])
def test_dangling_or_looping_symlink_destination_is_refused_like_cp(tmp_path, setup, flags, message):
    cp_flags = [flag for flag in flags if flag == '-r']
    sides = _side_by_side(tmp_path, setup, cp_flags + ['src', 'dir/link'], flags + ['src', 'dir/link'])
    results = dict((side, (rc, messages, _snapshot(root))) for side, (root, dummy, rc, messages) in sides.items())
    assert results['tool'] == results['cp']
    assert results['tool'][:2] == (1, [message])
    assert not os.path.exists(str(tmp_path / 'tool' / 'nowhere'))


def _tree_onto(link):
    """A source tree, and a destination tree whose 'tree/sub' (or 'tree') is the given symlink; 'outside' must stay as it is."""
    def setup(root):
        (root / 'tree' / 'sub').mkdir(parents=True)
        write(root / 'tree' / 'top', b'top')
        write(root / 'tree' / 'sub' / 'inner', b'inner')
        (root / 'outside').mkdir()
        write(root / 'outside' / 'keep', b'keep')
        write(root / 'afile', b'a file')
        (root / 'dst' / 'tree').mkdir(parents=True)
        if link is not None:
            name, target = link
            os.symlink(target, str(root / 'dst' / name))
    return setup


@pytest.mark.parametrize('link, message', [
    (('tree/sub', '../../outside'), "cannot overwrite non-directory 'dst/tree/sub' with directory 'tree/sub'"),
    (('tree/sub', '../../afile'), "cannot overwrite non-directory 'dst/tree/sub' with directory 'tree/sub'"),
    (('tree/sub', 'nowhere'), "cannot overwrite non-directory 'dst/tree/sub' with directory 'tree/sub'"),
    (('tree/sub', '.'), "cannot overwrite non-directory 'dst/tree/sub' with directory 'tree/sub'"),
    (('tree/top', '../../outside/keep'), None),
], ids=['dir outside', 'file', 'dangling', 'dir inside', 'file link written through'])
def test_recursive_never_writes_through_a_symlinked_subdirectory_like_cp(tmp_path, link, message):
    def setup(root):
        _tree_onto(link)(root)
        return os.stat(str(root / 'outside' / 'keep'))

    sides = _side_by_side(tmp_path, setup, ['-r', 'tree', 'dst'], ['-r', 'tree', 'dst'])
    results = dict((side, (rc, messages, _snapshot(root))) for side, (root, dummy, rc, messages) in sides.items())
    assert results['tool'] == results['cp']
    root, before, rc, messages = sides['tool']
    if message is None:
        # a file: written through the link in place, as cp -r does
        assert (rc, messages) == (0, [])
        kept = os.stat(str(root / 'outside' / 'keep'))
        assert (kept.st_ino, read(root / 'outside' / 'keep')) == (before.st_ino, b'top')
    else:
        assert (rc, messages) == (1, [message])
        assert _snapshot(root / 'outside') == {'keep': ('file', b'keep')} and read(root / 'afile') == b'a file'
        assert read(root / 'dst' / 'tree' / 'top') == b'top'   # the rest is still copied
    assert temp_files(root / 'dst' / 'tree') == []


@pytest.mark.parametrize('name, target, message', [
    ('tree', '../tree', "'tree' and 'dst/tree' are the same file"),
    ('tree', '../outside', "cannot overwrite non-directory 'dst/tree' with directory 'tree'"),
    ('tree', 'nowhere', "cannot overwrite non-directory 'dst/tree' with directory 'tree'"),
], ids=['the source itself', 'dir outside', 'dangling'])
def test_recursive_destination_directory_that_is_a_symlink_like_cp(tmp_path, name, target, message):
    def setup(root):
        _tree_onto(None)(root)
        os.rmdir(str(root / 'dst' / 'tree'))
        os.symlink(target, str(root / 'dst' / name))

    sides = _side_by_side(tmp_path, setup, ['-r', 'tree', 'dst'], ['-r', 'tree', 'dst'])
    results = dict((side, (rc, messages, _snapshot(root))) for side, (root, dummy, rc, messages) in sides.items())
    assert results['tool'] == results['cp']
    assert results['tool'][:2] == (1, [message])


def test_dev_stdout_to_a_pipe_like_cp(tmp_path):
    """/dev/stdout is a link to /proc/self/fd/1, itself a link to 'pipe:[N]': opened as named, as cp opens it."""
    content = data(3 * BUF + 9, 23)
    src = write(tmp_path / 'src', content)
    for argv in ([_gnu_cp(), src, '/dev/stdout'], _tool_argv('--buffer-size', '64k', src, '/dev/stdout')):
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, check=False)
        assert (done.returncode, done.stderr, done.stdout == content) == (0, b'', True)


def test_symlink_destination_written_in_place_in_process(tmp_path, monkeypatch):
    """The same without cp (and in this process, for coverage): a failure leaves the link and its file, like cp."""
    before = _link_to_file(tmp_path)
    rc, err = run_main(['--buffer-size', '64k', tmp_path / 'src', tmp_path / 'dir' / 'link'])
    assert (rc, err) == (0, '')
    found = _after(tmp_path, before, False)
    assert found['link'] == '../elsewhere/real' and found['same inode'] and found['content'] and found['mode'] == '0o640'
    monkeypatch.setattr(tool, 'copy_range', _no_kernel_copy)
    monkeypatch.setattr(tool, 'write_at', _failing(tool.write_at, 2, OSError(errno.ENOSPC, 'No space left on device')))
    rc, err = run_main(['--buffer-size', '64k', tmp_path / 'src', tmp_path / 'dir' / 'link'])
    assert (rc, err) == (1, "iotune-copy: error writing '%s': No space left on device\n" % (tmp_path / 'dir' / 'link'))
    assert os.path.islink(str(tmp_path / 'dir' / 'link')) and os.stat(str(tmp_path / 'elsewhere' / 'real')).st_ino == before.st_ino
    assert temp_files(tmp_path / 'dir') == [] and temp_files(tmp_path / 'elsewhere') == []


def test_fifo_source_is_read_without_r(tmp_path):
    fifo = str(tmp_path / 'fifo')
    os.mkfifo(fifo)
    content = data(3 * BUF + 17, 5)

    def feed():
        with open(fifo, 'wb') as handle:
            handle.write(content)

    writer = threading.Thread(target=feed)
    writer.start()
    rc, err = run_main(['--buffer-size', '64k', '--direct', fifo, tmp_path / 'dst'])
    writer.join()
    assert rc == 0, err
    assert read(tmp_path / 'dst') == content


@pytest.mark.parametrize('source', ['/proc/version', '/proc/self/mounts'])
def test_file_that_reports_size_zero_is_read_to_the_end(tmp_path, source):
    if not os.path.exists(source) or os.stat(source).st_size != 0:
        pytest.skip('%s does not report size 0 here' % source)
    rc, err = run_main([source, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    copied = read(tmp_path / 'dst')
    assert copied and copied.splitlines()[0] == read(source).splitlines()[0]


# ---------------------------------------------------------------------------
# Errors


def test_missing_source_others_still_copied(tmp_path):
    src = write(tmp_path / 'a', b'a')
    out = tmp_path / 'out'
    out.mkdir()
    missing = str(tmp_path / 'missing')
    rc, err = run_main([missing, src, out])
    assert rc == 1
    assert err == "iotune-copy: cannot stat '%s': No such file or directory\n" % missing
    assert read(out / 'a') == b'a'


def test_directory_without_r(tmp_path):
    (tmp_path / 'd').mkdir()
    src = write(tmp_path / 'a', b'a')
    out = tmp_path / 'out'
    out.mkdir()
    rc, err = run_main([tmp_path / 'd', src, out])
    assert rc == 1
    assert err == "iotune-copy: -r not specified; omitting directory '%s'\n" % (tmp_path / 'd')
    assert read(out / 'a') == b'a' and not os.path.exists(str(out / 'd'))


@pytest.mark.parametrize('how', ['same name', 'hard link', 'into directory'])
def test_same_file(tmp_path, how):
    src = write(tmp_path / 'a', b'precious')
    if how == 'same name':
        dst, shown = src, src
    elif how == 'hard link':
        dst = shown = str(tmp_path / 'b')
        os.link(src, dst)
    else:
        dst, shown = str(tmp_path), str(tmp_path / 'a')
    rc, err = run_main([src, dst])
    assert rc == 1
    assert err == "iotune-copy: '%s' and '%s' are the same file\n" % (src, shown)
    assert read(src) == b'precious'
    assert temp_files(tmp_path) == []


def test_directory_into_itself(tmp_path):
    (tmp_path / 'd').mkdir()
    rc, err = run_main(['-r', tmp_path / 'd', tmp_path / 'd' / 'sub'])
    assert rc == 1 and 'cannot copy a directory' in err and 'into itself' in err
    assert os.listdir(str(tmp_path / 'd')) == []


@pytest.mark.parametrize('case', ['chmod 555', 'parent is a file', 'refused (simulated)'])
def test_unwritable_destination(tmp_path, monkeypatch, case):
    src = write(tmp_path / 'a', b'a')
    if case == 'chmod 555':
        if os.geteuid() == 0:
            pytest.skip('root writes into a mode 555 directory')
        (tmp_path / 'ro').mkdir(mode=0o555)
        dst, reason = tmp_path / 'ro' / 'x', 'Permission denied'
    elif case == 'parent is a file':
        write(tmp_path / 'f', b'')
        dst, reason = tmp_path / 'f' / 'x', 'Not a directory'
    else:
        def refuse(dummy_target, dummy_mode):
            raise PermissionError(errno.EACCES, 'Permission denied')

        monkeypatch.setattr(tool, 'create_temp', refuse)
        dst, reason = tmp_path / 'x', 'Permission denied'
    rc, err = run_main([src, dst])
    assert rc == 1
    # cp's words: a destination whose parent is a file cannot be looked at (stat: ENOTDIR)
    action = 'cannot stat' if case == 'parent is a file' else 'cannot create regular file'
    assert err == "iotune-copy: %s '%s': %s\n" % (action, dst, reason)


@pytest.mark.parametrize('argv, message', [
    (['{a}', '{a}', '{b}'], "target '{b}': No such file or directory"),
    (['{a}', '{a}', '{a}'], "target '{a}': Not a directory"),
    (['-', '{dir}'], "cannot copy standard input into directory '{dir}': name the destination file"),
    (['{dir}', '{a}'], "-r not specified; omitting directory '{dir}'"),
    (['-r', '{dir}', '{a}'], "cannot overwrite non-directory '{a}' with directory '{dir}'"),
    (['{a}', '{dir}/'], None),
    (['{a}', '{b}/'], "cannot create regular file '{b}/': Not a directory"),
])
def test_cp_messages(tmp_path, argv, message):
    names = {'a': write(tmp_path / 'a', b'a'), 'b': str(tmp_path / 'b'), 'dir': str(tmp_path / 'dir')}
    os.mkdir(names['dir'])
    rc, err = run_main([arg.format(**names) for arg in argv])
    if message is None:
        assert (rc, err) == (0, '')
    else:
        assert rc == 1
        assert err == 'iotune-copy: %s\n' % message.format(**names)


# ---------------------------------------------------------------------------
# Pipelines (subprocess)


def _tool_argv(*args):
    return [sys.executable, TOOL] + [str(arg) for arg in args]


@pytest.mark.parametrize('flags', [[], ['--direct', '--nocache']], ids=['plain', 'direct nocache'])
def test_pipeline(tmp_path, flags):
    content = data(5 * BUF + 99, 9)
    src = write(tmp_path / 'src', content)
    dst = tmp_path / 'dst'
    first = subprocess.Popen(_tool_argv('--buffer-size', '64k', *(flags + [src, '-'])), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    second = subprocess.Popen(_tool_argv('--buffer-size', '64k', *(flags + ['-', dst])), stdin=first.stdout, stderr=subprocess.PIPE)
    first.stdout.close()
    second_err = second.communicate(timeout=30)[1]
    first_err = first.communicate(timeout=30)[1]
    assert (first.returncode, first_err) == (0, b'')
    assert (second.returncode, second_err) == (0, b'')
    assert read(dst) == content


def test_stdout_gets_only_the_data(tmp_path):
    content = data(BUF + 1, 10)
    src = write(tmp_path / 'src', content)
    done = subprocess.run(_tool_argv('--progress', src, '-'), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30, check=False)
    assert done.returncode == 0
    assert done.stdout == content
    assert b'%d bytes' % len(content) in done.stderr


def test_closed_stdout_ends_quietly(tmp_path):
    src = write(tmp_path / 'src', data(4 * MIB, 12))
    proc = subprocess.Popen(_tool_argv('--buffer-size', '64k', src, '-'), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert len(proc.stdout.read(10)) == 10
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=30) == 128 + signal.SIGPIPE
    assert err == b''


# ---------------------------------------------------------------------------
# Atomicity


def _failing(real, fail_on_call, exc, once=False):
    """real, except that call fail_on_call and every later one (only it, once) raise exc, or it sends signal exc."""
    calls = []

    def wrapper(*args):
        calls.append(args)
        if len(calls) == fail_on_call or (len(calls) > fail_on_call and not once):
            if not isinstance(exc, int):
                raise exc
            if len(calls) == fail_on_call:
                os.kill(os.getpid(), exc)
                time.sleep(0.1)
        return real(*args)

    return wrapper


def _no_kernel_copy(*dummy_args):
    raise OSError(errno.ENOSYS, 'Function not implemented')


def _short_kernel_copy(real):
    """copy_file_range that copies at most BUF bytes a call, as the kernel may: a copy in several calls."""
    return lambda src_fd, dst_fd, count, offset: real(src_fd, dst_fd, min(count, BUF), offset)


@pytest.mark.parametrize('path', ['kernel', 'buffer'])
@pytest.mark.parametrize('existing', [None, b'the old destination'], ids=['new', 'existing'])
@pytest.mark.parametrize('failure, status, message', [
    (OSError(errno.ENOSPC, 'No space left on device'), 1, "iotune-copy: error writing '{dst}': No space left on device\n"),
    (signal.SIGINT, 130, ''),
    (signal.SIGTERM, 143, ''),
], ids=['ENOSPC', 'SIGINT', 'SIGTERM'])
def test_failed_copy_leaves_no_partial_new_file(tmp_path, monkeypatch, existing, failure, status, message, path):
    """A new destination is never left half-written; an existing one is written in place, as cp writes it: it
    keeps its inode and what was copied before the failure (issue 38, item 16)."""
    src = write(tmp_path / 'src', data(4 * BUF, 13))
    dst = tmp_path / 'dst'
    before = None if existing is None else os.stat(write(dst, existing))
    if path == 'kernel':
        # a full disk fails copy_file_range and the write that takes over alike
        monkeypatch.setattr(tool, 'copy_range', _failing(_short_kernel_copy(tool.copy_range), 2, failure))
        if not isinstance(failure, int):
            monkeypatch.setattr(tool, 'write_at', _failing(tool.write_at, 1, failure))
    else:
        monkeypatch.setattr(tool, 'copy_range', _no_kernel_copy)
        monkeypatch.setattr(tool, 'write_at', _failing(tool.write_at, 2, failure))
    handlers = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    rc, err = run_main(['--buffer-size', '64k', src, dst])
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers
    assert (rc, err) == (status, message.format(dst=dst))
    assert temp_files(tmp_path) == []
    assert copy_threads() == []
    if existing is None:
        assert not os.path.exists(str(dst))
    else:
        assert read(dst) == read(src)[:BUF] and os.stat(str(dst)).st_ino == before.st_ino


@pytest.mark.parametrize('fail_on_call', [1, 3])
def test_read_error_names_the_source_and_leaves_nothing(tmp_path, monkeypatch, fail_on_call):
    monkeypatch.setattr(tool, 'copy_range', _no_kernel_copy)
    monkeypatch.setattr(tool, 'read_at', _failing(tool.read_at, fail_on_call, OSError(errno.EIO, 'Input/output error'), once=True))
    src = write(tmp_path / 'src', data(4 * BUF, 15))
    other = write(tmp_path / 'other', b'still copied')
    out = tmp_path / 'out'
    out.mkdir()
    rc, err = run_main(['--buffer-size', '64k', src, other, out])
    assert (rc, err) == (1, "iotune-copy: error reading '%s': Input/output error\n" % src)
    assert sorted(os.listdir(str(out))) == ['other'] and read(out / 'other') == b'still copied'
    assert copy_threads() == []


def test_reads_run_ahead_of_writes_by_at_most_the_buffers(tmp_path, monkeypatch):
    """While a buffer is written the next one is read; never more than READ_AHEAD_BUFFERS ahead."""
    monkeypatch.setattr(tool, 'copy_range', _no_kernel_copy)
    chunks = 6
    reads, writes, ahead = [], [], []
    real_read_at, real_write_at = tool.read_at, tool.write_at

    def read_at(fd, view, offset):
        reads.append(offset)
        return real_read_at(fd, view, offset)

    def write_at(fd, view, offset):
        wanted = min(len(writes) + tool.READ_AHEAD_BUFFERS, chunks)
        deadline = time.monotonic() + 10
        while len(reads) < wanted and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.02)  # room for a read that should not happen
        ahead.append(len(reads) - len(writes))
        writes.append(offset)
        return real_write_at(fd, view, offset)

    monkeypatch.setattr(tool, 'read_at', read_at)
    monkeypatch.setattr(tool, 'write_at', write_at)
    content = data(chunks * BUF, 16)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--buffer-size', '64k', src, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    assert read(tmp_path / 'dst') == content
    assert writes == [index * BUF for index in range(chunks)]
    assert ahead == [2, 2, 2, 2, 2, 1]


@pytest.mark.parametrize('existing', [None, b'keep me'], ids=['new', 'existing'])
def test_killed_copy_from_fifo_leaves_no_partial_new_file(tmp_path, existing):
    """A new destination never exists half-written; an existing one is written in place, as cp writes it, and
    keeps what was copied before the signal (its inode too)."""
    fifo = str(tmp_path / 'fifo')
    os.mkfifo(fifo)
    dst = tmp_path / 'dst'
    content = data(BUF + 100, 14)  # a buffer is written, then the read of the next waits for data that never comes
    before = None if existing is None else os.stat(write(dst, existing))
    feeder = os.open(fifo, os.O_RDWR)  # a writer that never ends the data
    try:
        proc = subprocess.Popen(_tool_argv('--buffer-size', '64k', fifo, dst), stderr=subprocess.PIPE)
        os.write(feeder, content)  # more than a pipe holds: the tool reads as it comes
        deadline = time.monotonic() + 20

        def started():
            return temp_files(tmp_path) if existing is None else os.stat(str(dst)).st_size == BUF

        while not started() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert started(), 'the copy did not start'
        time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=20)[1]
    finally:
        os.close(feeder)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert temp_files(tmp_path) == []
    if existing is None:
        assert not os.path.exists(str(dst))
    else:
        assert read(dst) == content[:BUF] and os.stat(str(dst)).st_ino == before.st_ino


# ---------------------------------------------------------------------------
# Verify, nocache, progress


@pytest.mark.parametrize('flags', [[], ['--direct', '--nocache']], ids=['plain', 'direct nocache'])
def test_verify_passes(tmp_path, flags):
    content = data(2 * BUF + 3, 15)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--verify', '--buffer-size', '64k'] + flags + [src, tmp_path / 'dst'])
    assert rc == 0, err
    if not flags or direct_supported(tmp_path):
        assert err == ''
    assert read(tmp_path / 'dst') == content


def test_verify_detects_altered_destination(tmp_path, monkeypatch):
    src = write(tmp_path / 'src', data(2 * BUF, 16))
    dst = str(tmp_path / 'dst')
    real_digest = tool.file_digest

    def altering_digest(path, options, limit=None):
        if path == dst:
            with open(dst, 'r+b') as handle:
                handle.seek(BUF)
                handle.write(b'\0corrupted')
        return real_digest(path, options, limit)

    monkeypatch.setattr(tool, 'file_digest', altering_digest)
    rc, err = run_main(['--verify', src, dst])
    assert rc == 1
    assert err.startswith("iotune-copy: verification failed: '%s' differs from '%s'" % (dst, src))
    assert os.path.exists(dst)


def test_verify_cannot_check_a_fifo(tmp_path):
    fifo = str(tmp_path / 'fifo')
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, 'wb').close())
    writer.start()
    rc, err = run_main(['--verify', fifo, tmp_path / 'dst'])
    writer.join()
    assert rc == 1 and "cannot verify '%s': not a regular file" % fifo in err


@pytest.mark.skipif(shutil.which('fincore') is None, reason='fincore (util-linux) not installed')
@pytest.mark.parametrize('flags, cached', [(['--nocache'], False), ([], True)], ids=['nocache', 'plain'])
def test_nocache_leaves_little_in_the_page_cache(tmp_path, monkeypatch, flags, cached):
    # the plain copy shows that fincore sees a cached copy; through the buffer, since
    # copy_file_range may clone extents (xfs, btrfs) and leave nothing cached
    monkeypatch.setattr(tool, 'copy_range', _no_kernel_copy)
    size = 64 * MIB
    content = data(size, 17)
    src = write(tmp_path / 'src', content)
    dst = str(tmp_path / 'dst')
    rc, err = run_main(flags + [src, dst])
    assert (rc, err) == (0, '')
    out = subprocess.run(['fincore', '--bytes', '--noheadings', '--output', 'RES,SIZE', dst],
                         stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout.split()
    resident, total = int(out[0]), int(out[1])
    assert total == size
    assert (resident >= size // 2) == cached, 'resident %d of %d bytes' % (resident, total)
    assert read(dst) == content


def test_nocache_drops_pages_as_it_goes(tmp_path, monkeypatch):
    monkeypatch.setattr(tool, 'NOCACHE_FLUSH_BYTES', MIB)
    calls = []
    syncs = []
    real_fdatasync = os.fdatasync
    monkeypatch.setattr(tool, 'fadvise_dontneed', lambda fd, offset, length: calls.append((fd, offset, length)))

    def fdatasync(fd):
        syncs.append(fd)
        real_fdatasync(fd)

    monkeypatch.setattr(tool.os, 'fdatasync', fdatasync)
    content = data(4 * MIB + 5, 19)
    src = write(tmp_path / 'src', content)
    rc, err = run_main(['--nocache', '--buffer-size', '256k', src, tmp_path / 'dst'])
    assert (rc, err) == (0, '')
    assert read(tmp_path / 'dst') == content
    src_fd = calls[0][0]
    source = [(offset, length) for fd, offset, length in calls if fd == src_fd]
    dest = [(offset, length) for fd, offset, length in calls if fd != src_fd]
    assert source == [(offset, 256 * KIB) for offset in range(0, 4 * MIB, 256 * KIB)] + [(4 * MIB, 5)]
    # every MiB written is synced and dropped, then the whole file after the final fsync
    assert dest == [(0, MIB), (MIB, MIB), (2 * MIB, MIB), (3 * MIB, MIB), (0, 0)]
    assert len(syncs) == 4


def test_progress_final_line(tmp_path):
    src = write(tmp_path / 'src', data(MIB, 18))
    rc, err = run_main(['--progress', '--buffer-size', '64k', src, tmp_path / 'dst'])
    assert rc == 0
    last = err.splitlines()[-1]
    assert last.startswith('iotune-copy: 1048576 bytes (1.0 MiB) copied in ')
    assert last.endswith('MiB/s')


def test_progress_throttle_and_eta():
    now = [100.0]
    out = io.StringIO()
    meter = tool.Progress(out, total=4 * MIB, clock=lambda: now[0])
    for step in (0.1, 0.5, 0.1, 0.5):
        now[0] += step
        meter.add(MIB)
    now[0] += 0.2
    meter.finish()
    lines = out.getvalue().splitlines()
    assert lines == [
        'iotune-copy: 2097152 of 4194304 bytes (50%) copied, 3.3 MiB/s, ETA 0:00:01',
        'iotune-copy: 4194304 of 4194304 bytes (100%) copied, 3.3 MiB/s, ETA 0:00:00',
        'iotune-copy: 4194304 bytes (4.0 MiB) copied in 1.40 s, 2.9 MiB/s',
    ]


@pytest.mark.parametrize('done, total, elapsed, final, expected', [
    (0, None, 0.0, False, '0 bytes (0 B) copied, 0.0 MiB/s'),
    (3 * MIB, None, 1.0, False, '3145728 bytes (3.0 MiB) copied, 3.0 MiB/s'),
    (MIB, 4 * MIB, 1.0, False, '1048576 of 4194304 bytes (25%) copied, 1.0 MiB/s, ETA 0:00:03'),
    (5 * 1024 ** 3, None, 10.0, True, '5368709120 bytes (5.0 GiB) copied in 10.00 s, 512.0 MiB/s'),
])
def test_progress_line(done, total, elapsed, final, expected):
    assert tool.progress_line(done, total, elapsed, final) == expected


def test_direct_streams_preallocate_the_data_extents_of_a_new_file(tmp_path, monkeypatch):
    """With direct I/O in several streams the destination's data extents are allocated before the writes
    (which then land inside the file's size, several at once where the file system allows); holes stay
    holes. One stream (the default) writes in file order and allocates nothing first."""
    if not direct_supported(tmp_path):
        pytest.skip('no O_DIRECT on %s' % tmp_path)
    calls = []
    real = tool.preallocate

    def spy(fd, offset, length):
        calls.append((offset, length))
        return real(fd, offset, length)

    monkeypatch.setattr(tool, 'preallocate', spy)
    dense = write(tmp_path / 'dense', data(3 * BUF + 100, 30))
    rc, err = run_main(['--direct', '--streams', '3', '--buffer-size', '64k', dense, tmp_path / 'dense.copy'])
    assert (rc, err) == (0, '') and read(tmp_path / 'dense.copy') == read(dense)
    assert calls == [(0, 3 * BUF + 100)]
    sparse = str(tmp_path / 'sparse')
    with open(sparse, 'wb') as handle:
        handle.truncate(64 * MIB)
        handle.seek(32 * MIB)
        handle.write(data(BUF, 31))
    del calls[:]
    rc, err = run_main(['--direct', '--streams', '3', '--buffer-size', '64k', sparse, tmp_path / 'sparse.copy'])
    assert (rc, err) == (0, '') and read(tmp_path / 'sparse.copy') == read(sparse)
    assert all(32 * MIB - 1024 * KIB <= offset and offset + length <= 32 * MIB + BUF + 1024 * KIB for offset, length in calls)
    assert os.stat(str(tmp_path / 'sparse.copy')).st_blocks * 512 < 8 * MIB
    del calls[:]
    rc, err = run_main(['--buffer-size', '64k', dense, tmp_path / 'buffered.copy'])
    assert (rc, err, calls) == (0, '', [])
    rc, err = run_main(['--direct', '--buffer-size', '64k', dense, tmp_path / 'serial.copy'])
    assert (rc, err, calls) == (0, '', [])
    assert read(tmp_path / 'serial.copy') == read(dense)


def _vma_flags(address):
    """The VmFlags of the mapping of this process that holds address (/proc/self/smaps)."""
    inside = False
    with open('/proc/self/smaps') as handle:
        for line in handle:
            head = line.split()[0]
            if '-' in head and not head.endswith(':'):
                start, end = (int(part, 16) for part in head.split('-'))
                inside = start <= address < end
            elif inside and head == 'VmFlags:':
                return line.split()[1:]
    raise AssertionError('no mapping holds %#x' % address)


@pytest.mark.skipif(not os.path.exists('/proc/self/smaps'), reason='Linux /proc needed')
@pytest.mark.parametrize('length', [2 * MIB, 8 * MIB, 8 * MIB + 64 * KIB, 64 * KIB])
def test_io_buffers_are_private_and_from_2m_up_aligned_huge_page_candidates(length):
    """A buffer of 2 MiB or more starts on a 2 MiB boundary and is marked MADV_HUGEPAGE (VmFlags hg), so that
    a direct I/O request from it is a few contiguous segments; a smaller one is an ordinary private mapping.
    Neither is shared memory (shmem takes no transparent huge pages)."""
    buf, view = tool.io_buffer(length)
    try:
        assert len(view) == length and not view.readonly
        import ctypes
        first_byte = ctypes.c_char.from_buffer(view)
        address = ctypes.addressof(first_byte)
        del first_byte  # the mapping cannot be closed while ctypes holds it
        flags = _vma_flags(address)
        assert 'sh' not in flags
        thp = open('/sys/kernel/mm/transparent_hugepage/enabled').read() if os.path.exists(
            '/sys/kernel/mm/transparent_hugepage/enabled') else '[never]'
        if length >= 2 * MIB:
            assert address % (2 * MIB) == 0
            if '[never]' not in thp:
                assert 'hg' in flags
        else:
            assert 'hg' not in flags
        view[:] = b'\x01' * length
        assert buf.find(b'\x01') >= 0
    finally:
        view.release()
        buf.close()
