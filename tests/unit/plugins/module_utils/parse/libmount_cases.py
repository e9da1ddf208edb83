# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Mount-table lines as libmount reads them, as data (issue 53): test_libmount_cases.py reads each with the
collection's parsers (parse/fstab.py, parse/mountinfo.py) and with the installed findmnt (libmount itself).

INPUTS are util-linux's own test files (tests/unit/fixtures/libmount, see its README.md), EXPECTED the outputs
libmount's test program prints for some of them. CRAFTED are lines written here for what the util-linux files
do not hold: a case is its name, its format ('fstab' or 'mountinfo'), its text (a str: one line without its
terminator, or a few lines joined by '\\n'; a byte that is not UTF-8 is written as the surrogate
read_text(..., 'surrogateescape') gives for it, '\\udcff' for 0xff), the line terminator written after it
('\\n' unless the case says otherwise: '\\r\\n', or '' for a file without a final newline) and, for a line the
collection deliberately reads differently from libmount, the key of its entry in DIFFERENCES and what the
collection reads instead (``ours``: the entries in the form the differential test compares, see
test_libmount_cases._ours_fstab / _ours_mountinfo; [] when it refuses the line); for a line the collection reads
as libmount does but will not edit, the key of its entry in EDIT_REFUSALS (``refuses_edit``).

Each entry of DIFFERENCES: key -> (what libmount reads, what the collection reads instead, why); a case that
names a key must read differently from libmount, and as ``ours`` says (so a stale entry fails).
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import collections

# key: (what libmount reads, what the collection reads instead, why)
DIFFERENCES = {}

# Lines the collection reads as libmount does but will not edit (its planner says so, naming the line, and
# changes nothing there): key -> (what libmount would read after the edit, what the collection does, why)
EDIT_REFUSALS = {
    'unbalanced quote': (
        "an option added after an options field with an unbalanced double quote (x-a=\"b,c) as part of the quoted "
        "value: the option is never applied",
        "does not edit the line: the mount point's check says why (\"has an unbalanced double quote\") and to "
        "change the line by hand",
        "an edit that mount(8) would not read as written is never made",
    ),
}

Case = collections.namedtuple('Case', 'name fmt text eol differs ours refuses_edit')


def case(name, fmt, text, eol='\n', differs=None, ours=None, refuses_edit=None):
    return Case(name, fmt, text, eol, differs, ours, refuses_edit)


# util-linux's inputs (tests/ts/libmount/files/<name>): file here, format, git blob id of util-linux's file
INPUTS = [
    ('fstab', 'fstab', 'a8f73bcd9311eb2b8ab7fd7a5dac186577d990a9'),
    ('fstab.comment', 'fstab', '656e663afd6e2ce074fe486850c01d61a4b58ab0'),
    ('fstab.broken', 'fstab', 'c79f026ec5209beed9d30a3765e8e669096fd515'),
    ('fstab_btrfs', 'fstab', 'b6a9a015a340e743f8a7453f36335edd116c739c'),
    ('mtab', 'fstab', '93bc90e6085f533099e0c57ae4156988403a98b7'),
    ('mountinfo.gz', 'mountinfo', '2b01740481d3d959972ab00dc966f99973c91177'),
    ('mountinfo_nosrc', 'mountinfo', '1ef7cf08be8573b2aa476df092dc610e284f385a'),
    ('mountinfo_btrfs', 'mountinfo', 'fe2c759b167f9a363c47b96faa061b4e557ada27'),
    ('mountinfo_mv', 'mountinfo', '3d55affa9b540e900e8c035036a23c688f5d8552'),
    ('mountinfo_re', 'mountinfo', 'df379fa1e17287c2f5fa8b1f1bc3c1098b9cb90a'),
    ('mountinfo_u', 'mountinfo', 'a3dde97ff6d48941d9cbea4ad9ce1c8cb8d4b926'),
]

# libmount's expected outputs (tests/expected/libmount/<name>): file here, the input it is the output for, git blob
# id, and the input's lines libmount reports as parse errors and drops. Only fstab.broken has any: line 1 ("bug",
# one field) and line 8 ("this is broken line with unexpected number of fields": "with" is no dump number); the
# expected file shows them as its two leading empty lines (the test's sed blanks each "parse error" message), and
# `findmnt --fstab --tab-file fstab.broken` says "parse error at line 1" and "at line 8".
EXPECTED = [
    ('tabfiles-parse-fstab', 'fstab', 'd6615267603bd9681f477455546bff53e3422b56', ()),
    ('tabfiles-parse-fstab-full', 'fstab.comment', 'f1caff6d9a56037dbfce651640b4687f9dbd4296', ()),
    ('tabfiles-parse-fstab-broken', 'fstab.broken', 'b838fbcc7565a7f89932fd91c8d7bf6cc1cf7a2e', (1, 8)),
    ('tabfiles-parse-mtab', 'mtab', '93f4849bcdefc30cad31b2ff1aa629599f7028ef', ()),
    ('tabfiles-parse-mountinfo.gz', 'mountinfo.gz', '3380d7717b9795dbd7aceca76b52c432b2dfee54', ()),
    ('tabfiles-parse-mountinfo-nosrc', 'mountinfo_nosrc', '3458607d44b7edbf5003c4b4de0d97eebb68ddb1', ()),
]

_LONG_OPTIONS = ','.join('x-opt%04d=%d' % (n, n) for n in range(1100))       # 15 KB of options
_LONG_PATH = '/mnt/' + '/'.join('d%03d\\040x' % n for n in range(1300))       # a 15 KB escaped mount point

CRAFTED = [
    # --- fstab: octal escapes in every field (libmount unmangles each field, options included) ---
    case('fstab 040 in spec', 'fstab', '/dev/disk/by-label/my\\040disk /mnt/label ext4 defaults 0 2'),
    case('fstab 040 in file', 'fstab', '/dev/sdb1 /mnt/my\\040data ext4 defaults 0 2'),
    case('fstab 011 in file', 'fstab', '/dev/sdb1 /mnt/tab\\011dir xfs noatime 0 0'),
    case('fstab 012 in file', 'fstab', '/dev/sdb1 /mnt/new\\012line xfs noatime 0 0'),
    case('fstab 134 in file', 'fstab', '/dev/sdb1 /mnt/back\\134slash ext4 defaults 0 0'),
    case('fstab 054 in file', 'fstab', '/dev/sdb1 /mnt/a\\054b ext4 defaults 0 0'),
    case('fstab 040 in vfstype', 'fstab', 'host:/x /mnt/fuse fuse.my\\040fs defaults 0 0'),
    case('fstab 054 in options', 'fstab', '/dev/sdb1 /mnt/opt ext4 defaults,x-a=1\\054noexec 0 0'),
    case('fstab 040 in options', 'fstab', '/dev/sdb1 /mnt/opt ext4 x-label=a\\040b,ro 0 0'),
    case('fstab 011 in options', 'fstab', '/dev/sdb1 /mnt/opt ext4 x-sep=\\011,ro 0 0'),
    case('fstab 134 in options', 'fstab', '//srv/share /mnt/smb cifs x-unc=\\134\\134srv\\134share,ro 0 0'),
    case('fstab 043 starts a spec', 'fstab', '\\043notacomment /mnt/hash ext4 defaults 0 0'),
    case('fstab octal utf-8 in file', 'fstab', '/dev/sdb1 /mnt/caf\\303\\251 ext4 defaults 0 2'),
    case('fstab octal utf-8 in spec', 'fstab', 'LABEL=caf\\303\\251 /mnt/cafe ext4 defaults 0 2'),
    case('fstab raw utf-8 in file', 'fstab', '/dev/sdb1 /mnt/caf\u00e9 ext4 defaults 0 2'),
    case('fstab octal 377 in file', 'fstab', '/dev/sdb1 /mnt/x\\377y ext4 defaults 0 0'),
    case('fstab raw byte ff in file', 'fstab', '/dev/sdb1 /mnt/x\udcffy ext4 defaults 0 0'),
    case('fstab octal 377 in options', 'fstab', '/dev/sdb1 /mnt/o377 ext4 x-b=\\377,ro 0 0'),
    case('fstab backslash not octal', 'fstab', '/dev/sdb1 /mnt/a\\8b\\x41 ext4 defaults 0 0'),
    case('fstab backslash short octal', 'fstab', '/dev/sdb1 /mnt/short\\04 ext4 defaults 0 0'),
    case('fstab octal 400 overflows', 'fstab', '/dev/sdb1 /mnt/big\\400x ext4 defaults 0 0'),

    # --- fstab: separators ---
    case('fstab runs of spaces', 'fstab', '/dev/sdb1     /mnt/spaces     ext4     defaults     0     2'),
    case('fstab tabs', 'fstab', '/dev/sdb1\t\t/mnt/tabs\text4\tdefaults\t0\t2'),
    case('fstab mixed blanks', 'fstab', ' \t /dev/sdb1 \t /mnt/mixed\t ext4  defaults \t1 \t 2 \t '),
    case('fstab leading blanks', 'fstab', ' \t/dev/sdb1 /mnt/lead ext4 defaults 0 0'),
    case('fstab trailing blanks', 'fstab', '/dev/sdb1 /mnt/trail ext4 defaults 0 0 \t '),
    case('fstab vertical tab between fields', 'fstab', '/dev/sdb1\x0b/mnt/vt ext4 defaults 0 0'),
    case('fstab vertical tab in file', 'fstab', '/dev/sdb1 /mnt/v\x0bt ext4 defaults 0 0'),
    case('fstab form feed in file', 'fstab', '/dev/sdb1 /mnt/f\x0cf ext4 defaults 0 0'),
    case('fstab form feed after options', 'fstab', '/dev/sdb1 /mnt/ff ext4 defaults\x0c 0 0'),
    case('fstab vertical tab before dump', 'fstab', '/dev/sdb1 /mnt/vtdump ext4 defaults \x0b1 2'),
    case('fstab vertical tab after pass', 'fstab', '/dev/sdb1 /mnt/vtpass ext4 defaults 0 2\x0b'),
    case('fstab CR in file', 'fstab', '/dev/sdb1 /mnt/cr\rx ext4 defaults 0 0'),
    case('fstab CR between fields', 'fstab', '/dev/sdb1\r/mnt/cr ext4 defaults 0 0'),
    case('fstab CR after options', 'fstab', '/dev/sdb1 /mnt/cropt ext4 defaults\r 0 0'),
    case('fstab no-break space in file', 'fstab', '/dev/sdb1 /mnt/nb\u00a0sp ext4 defaults 0 0'),

    # --- fstab: line endings ---
    case('fstab CRLF', 'fstab', '/dev/sdb1 /mnt/crlf ext4 defaults 0 2', eol='\r\n'),
    case('fstab CRLF after options', 'fstab', '/dev/sdb1 /mnt/crlf4 ext4 noatime', eol='\r\n'),
    case('fstab CRLF after vfstype', 'fstab', '/dev/sdb1 /mnt/crlf3 ext4', eol='\r\n'),
    case('fstab CR CR LF', 'fstab', '/dev/sdb1 /mnt/crcrlf ext4 defaults 0 2\r', eol='\r\n'),
    case('fstab CRLF comment', 'fstab', '# a comment', eol='\r\n'),
    case('fstab no final newline', 'fstab', '/dev/sdb1 /mnt/nonl ext4 defaults 0 2', eol=''),
    case('fstab no final newline after vfstype', 'fstab', '/dev/sdb1 /mnt/nonl3 ext4', eol=''),
    case('fstab CR without LF at the end', 'fstab', '/dev/sdb1 /mnt/cronly ext4 defaults 0 2\r', eol=''),

    # --- fstab: empty and missing fields ---
    case('fstab three fields', 'fstab', '/dev/sdb1 /mnt/three ext4'),
    case('fstab four fields', 'fstab', '/dev/sdb1 /mnt/four ext4 noatime'),
    case('fstab five fields', 'fstab', '/dev/sdb1 /mnt/five ext4 noatime 1'),
    case('fstab two fields', 'fstab', '/dev/sdb1 /mnt/two'),
    case('fstab one field', 'fstab', 'lonely'),
    case('fstab empty option items', 'fstab', '/dev/sdb1 /mnt/commas ext4 ,,defaults,, 0 0'),
    case('fstab options only a comma', 'fstab', '/dev/sdb1 /mnt/comma ext4 , 0 0'),

    # --- fstab: a seventh field, signed and odd numbers ---
    case('fstab seventh field', 'fstab', '/dev/sdb1 /mnt/seven ext4 defaults 0 2 extra'),
    case('fstab signed plus', 'fstab', '/dev/sdb1 /mnt/plus ext4 defaults +1 +2'),
    case('fstab signed minus', 'fstab', '/dev/sdb1 /mnt/minus ext4 defaults -1 -1'),
    case('fstab leading zeros', 'fstab', '/dev/sdb1 /mnt/zeros ext4 defaults 007 010'),
    case('fstab dump not a number', 'fstab', '/dev/sdb1 /mnt/nodump ext4 defaults x 0'),
    case('fstab pass not a number', 'fstab', '/dev/sdb1 /mnt/nopass ext4 defaults 0 y'),
    case('fstab pass with trailing letter', 'fstab', '/dev/sdb1 /mnt/pass2x ext4 defaults 0 2x'),
    case('fstab dump hexadecimal', 'fstab', '/dev/sdb1 /mnt/hex ext4 defaults 0x1 0'),
    case('fstab dump beyond int', 'fstab', '/dev/sdb1 /mnt/huge ext4 defaults 99999999999 1'),

    # --- fstab: comments ---
    case('fstab comment', 'fstab', '# /dev/sdb1 /mnt/commented ext4 defaults 0 0'),
    case('fstab indented comment', 'fstab', ' \t# indented comment'),
    case('fstab comment after pass', 'fstab', '/dev/sdb1 /mnt/note ext4 defaults 0 2 # a note'),
    case('fstab comment after pass tab', 'fstab', '/dev/sdb1 /mnt/note2 ext4 defaults 0 2\t#note'),
    case('fstab hash glued to pass', 'fstab', '/dev/sdb1 /mnt/glued ext4 defaults 0 2#note'),
    case('fstab comment after options', 'fstab', '/dev/sdb1 /mnt/optnote ext4 defaults # a note'),
    case('fstab comment after dump', 'fstab', '/dev/sdb1 /mnt/dumpnote ext4 defaults 0 # a note'),
    case('fstab hash inside file', 'fstab', '/dev/sdb1 /mnt/a#b ext4 defaults 0 0'),
    case('fstab blank line', 'fstab', ''),

    # --- fstab: quoted options, duplicates, long lines ---
    case('fstab quoted short context', 'fstab', '/dev/sdb1 /mnt/ctx2 ext4 context="a:b:c1,c2" 0 0'),
    case('fstab unbalanced quote', 'fstab', '/dev/sdb1 /mnt/quote ext4 x-a="b,c 0 0', refuses_edit='unbalanced quote'),
    case('fstab duplicate mount point', 'fstab', '/dev/sdb1 /mnt/dup ext4 noatime 0 2\n/dev/sdc1 /mnt/dup xfs nodev 0 2'),
    case('fstab 15 KB options', 'fstab', '/dev/sdb1 /mnt/longopts ext4 ' + _LONG_OPTIONS + ' 0 2'),
    case('fstab 15 KB mount point', 'fstab', '/dev/sdb1 ' + _LONG_PATH + ' ext4 defaults 0 2'),

    # --- mountinfo ---
    case('mountinfo proc(5) example', 'mountinfo', '36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/sda1 rw,errors=continue'),
    case('mountinfo ro super block under rw mount', 'mountinfo', '37 20 8:18 / /mnt/rosb rw,relatime - ext4 /dev/sdb2 ro,errors=continue'),
    case('mountinfo ro mount of rw super block', 'mountinfo', '38 20 8:19 / /mnt/robind ro,relatime - ext4 /dev/sdb3 rw,errors=continue'),
    case('mountinfo ro both', 'mountinfo', '39 20 8:20 / /mnt/roboth ro,relatime - ext4 /dev/sdb4 ro,errors=continue'),
    case('mountinfo no rw or ro at all', 'mountinfo', '40 20 0:61 / /mnt/norw relatime - tmpfs tmpfs size=1024k'),
    case('mountinfo empty source', 'mountinfo', '30 20 0:60 / /mnt/nosrc rw,relatime - tmpfs  rw,size=1024k,mode=755'),
    case('mountinfo empty source with optional fields', 'mountinfo', '31 20 0:63 / /mnt/nosrc2 rw,relatime shared:5 master:2 - tmpfs  rw,size=1m'),
    case('mountinfo three spaces after fstype', 'mountinfo', '32 20 0:64 / /mnt/nosrc3 rw,relatime - tmpfs   rw,size=2m'),
    case('mountinfo empty source and no options', 'mountinfo', '33 20 0:65 / /mnt/nosrc4 rw,relatime - tmpfs  '),
    case('mountinfo tab after fstype', 'mountinfo', '34 20 0:66 / /mnt/tabsrc rw,relatime - tmpfs\t\trw'),
    case('mountinfo CR in mount point', 'mountinfo', '49 20 0:56 / /mnt/test/foo\rbar rw,relatime shared:323 - tmpfs tmpfs rw'),
    case('mountinfo CR in source', 'mountinfo', '50 20 0:67 / /mnt/crsrc rw,relatime - tmpfs tmp\rfs rw'),
    case('mountinfo 040 in mount point', 'mountinfo', '51 20 8:33 / /mnt/my\\040data rw,relatime - ext4 /dev/sdc1 rw'),
    case('mountinfo 011 012 134 in mount point', 'mountinfo', '52 20 8:34 / /mnt/a\\011b\\012c\\134d rw,relatime - ext4 /dev/sdc2 rw'),
    case('mountinfo 040 in root', 'mountinfo', '53 20 8:35 /sub\\040dir /mnt/bind rw,relatime - ext4 /dev/sdc3 rw'),
    case('mountinfo 040 in source', 'mountinfo', '54 20 0:68 / /mnt/smb rw,relatime - cifs //srv/my\\040share rw,vers=3.0'),
    case('mountinfo 040 in fstype', 'mountinfo', '55 20 0:69 / /mnt/fuse rw,relatime - fuse.my\\040fs host:/x rw'),
    case('mountinfo 054 in options', 'mountinfo', '56 20 0:70 / /mnt/o54 rw,relatime - tmpfs tmpfs rw,x-a=1\\054b'),
    case('mountinfo octal utf-8 in mount point', 'mountinfo', '57 20 8:36 / /mnt/caf\\303\\251 rw,relatime - ext4 /dev/sdc4 rw'),
    case('mountinfo raw utf-8 in mount point', 'mountinfo', '58 20 8:37 / /mnt/caf\u00e9 rw,relatime - ext4 /dev/sdc5 rw'),
    case('mountinfo octal 377 in mount point', 'mountinfo', '59 20 8:38 / /mnt/x\\377y rw,relatime - ext4 /dev/sdc6 rw'),
    case('mountinfo raw byte ff in mount point', 'mountinfo', '60 20 8:39 / /mnt/x\udcffy rw,relatime - ext4 /dev/sdc7 rw'),
    case('mountinfo backslashes not octal', 'mountinfo',
         '61 20 0:38 / /mnt/sounds rw,relatime - cifs //foo.home/bar/ rw,unc=\\\\foo.home\\bar,username=kzak'),
    case('mountinfo quoted context', 'mountinfo',
         '62 20 8:40 / /mnt/ctx rw,relatime - ext4 /dev/sdc8 rw,context="system_u:object_r:tmp_t:s0:c1,c2",data=ordered'),
    case('mountinfo many optional fields', 'mountinfo',
         '63 20 0:71 / /mnt/prop rw,relatime shared:1 master:2 propagate_from:3 unbindable - tmpfs tmpfs rw'),
    case('mountinfo runs of spaces', 'mountinfo', '64  20  0:72  /  /mnt/spaces  rw,relatime  -  tmpfs  tmpfs  rw'),
    case('mountinfo tabs as separators', 'mountinfo', '65\t20\t0:73\t/\t/mnt/tabs\trw,relatime\t-\ttmpfs\ttmpfs\trw'),
    case('mountinfo tab before the dash', 'mountinfo', '66 20 0:74 / /mnt/tabdash rw,relatime\t- tmpfs tmpfs rw'),
    case('mountinfo leading and trailing blanks', 'mountinfo', ' \t67 20 0:75 / /mnt/blanks rw,relatime - tmpfs tmpfs rw \t '),
    case('mountinfo vertical tab in mount point', 'mountinfo', '68 20 0:76 / /mnt/v\x0bt rw,relatime - tmpfs tmpfs rw'),
    case('mountinfo form feed in mount point', 'mountinfo', '69 20 0:77 / /mnt/f\x0cf rw,relatime - tmpfs tmpfs rw'),
    case('mountinfo CRLF', 'mountinfo', '71 20 0:79 / /mnt/crlf rw,relatime - tmpfs tmpfs rw', eol='\r\n'),
    case('mountinfo no final newline', 'mountinfo', '72 20 0:80 / /mnt/nonl rw,relatime - tmpfs tmpfs rw', eol=''),
    case('mountinfo extra field', 'mountinfo', '73 20 0:81 / /mnt/extra rw,relatime - tmpfs tmpfs rw extra'),
    case('mountinfo no separator', 'mountinfo', '74 20 0:82 / /mnt/nosep rw,relatime tmpfs tmpfs rw'),
    case('mountinfo no fs options', 'mountinfo', '75 20 0:83 / /mnt/nofsopts rw,relatime - tmpfs tmpfs'),
    case('mountinfo no source', 'mountinfo', '76 20 0:84 / /mnt/nosource rw,relatime - tmpfs'),
    case('mountinfo id not a number', 'mountinfo', 'x 20 0:86 / /mnt/badid rw,relatime - tmpfs tmpfs rw'),
    case('mountinfo negative id', 'mountinfo', '-78 20 0:87 / /mnt/negid rw,relatime - tmpfs tmpfs rw'),
    case('mountinfo major:minor not numbers', 'mountinfo', '79 20 0:x / /mnt/baddev rw,relatime - tmpfs tmpfs rw'),
    case('mountinfo major:minor trailing letter', 'mountinfo', '80 20 8:1x / /mnt/devx rw,relatime - ext4 /dev/sdd1 rw'),
    case('mountinfo comment line', 'mountinfo', '# 83 20 0:89 / /mnt/commented rw - tmpfs tmpfs rw'),
    case('mountinfo blank line', 'mountinfo', ''),
    case('mountinfo stacked mounts', 'mountinfo',
         '84 20 0:90 / /mnt/stack rw,relatime - tmpfs tmpfs rw,size=1m\n85 84 0:91 / /mnt/stack ro,relatime - tmpfs tmpfs rw,size=2m'),
    case('mountinfo 15 KB options', 'mountinfo', '86 20 0:92 / /mnt/longopts rw,relatime - tmpfs tmpfs rw,' + _LONG_OPTIONS),
    case('mountinfo 15 KB mount point', 'mountinfo', '87 20 0:93 / ' + _LONG_PATH + ' rw,relatime - tmpfs tmpfs rw'),
]
