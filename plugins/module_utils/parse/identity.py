# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a block device is and which disk it is: WWN, serial, model and lsblk's TYPE; pure, no file access.

The kernel's ``wwid`` attribute is the designator the kernel prefers among those of the SCSI VPD page
0x83, and that choice changed between kernels: the same SATA SSD reads ``t10.ATA     KINGSTON ...``
under 4.16 and ``naa.50026b724b09a1ff`` under 6.17 (util-linux's lsblk dumps).  A WWN is therefore
taken from every source that has one (sysfs ``wwid`` when it is an NAA or EUI name, the NAA or
EUI-64 designator of ``vpd_pg83``, udev's ``ID_WWN_WITH_EXTENSION``/``ID_WWN``) and normalised the
way lsblk prints it: ``0x<hex>`` for NAA, ``eui.<hex>`` for EUI-64 and NGUID, lower case.  The
serial of a SATA/SCSI disk is in ``vpd_pg80`` (and udev's ``ID_SCSI_SERIAL``/``ID_SERIAL_SHORT``),
not in ``device/serial``, which only NVMe and virtio have.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

_HEX_RE = re.compile(r'^[0-9a-f]+$')
_UDEV_ESCAPE_RE = re.compile(br'\\x([0-9a-fA-F]{2})')
_WWN_KEY_PREFIXES = ('wwn-', 'naa.', 'eui.', '0x')

# SCSI peripheral device types as lsblk names them (lib/blkdev.c blkdev_scsi_type_to_name)
SCSI_TYPES = {0x00: 'disk', 0x01: 'tape', 0x02: 'printer', 0x03: 'processor', 0x04: 'worm', 0x05: 'rom',
              0x06: 'scanner', 0x07: 'mo-disk', 0x08: 'changer', 0x09: 'comm', 0x0c: 'raid',
              0x0d: 'enclosure', 0x0e: 'rbc', 0x11: 'osd', 0x7f: 'no-lun'}

# VPD page 0x83 designator types (SPC-4 7.8.6.1) with the prefix the kernel's wwid gives them
DESIGNATOR_T10, DESIGNATOR_EUI64, DESIGNATOR_NAA, DESIGNATOR_NAME = 1, 2, 3, 8


def _hex_of(text):
    return text if text and _HEX_RE.match(text) and len(text) in (16, 32) else None


def normalize_wwn(value):
    """The WWN in ``value`` as lsblk prints it, or None when ``value`` is no WWN.

    ``naa.50026B724B09A1FF``, ``0x50026b724b09a1ff`` and the by-id link name ``wwn-0x50026b724b09a1ff``
    give ``0x50026b724b09a1ff``; ``eui.<16 or 32 hex digits>`` gives itself in lower case.  A T10
    vendor string (``t10.ATA ...``), the NVMe fallback ``nvme.<vid>-<serial>-<model>-<nsid>`` and
    anything else give None: they name a product and a serial, not a world wide name."""
    text = (value or '').strip().lower()
    if text.startswith('wwn-'):
        text = text[len('wwn-'):]
    for prefix, form in (('naa.', '0x'), ('0x', '0x'), ('eui.', 'eui.')):
        if text.startswith(prefix) and _hex_of(text[len(prefix):]):
            return form + text[len(prefix):]
    return None


def multipath_wwid(dm_uuid):
    """The WWID of a dm-multipath map, from its ``dm/uuid`` (``mpath-<wwid>``), or None.

    multipath-tools names a LUN by udev's ID_SERIAL for SCSI (scsi_id: a designator-type digit, ``3``
    for NAA, ``2`` for EUI-64, then the hex), so ``mpath-36001405...`` is the LUN ``naa.6001405...``."""
    if not dm_uuid or not dm_uuid.startswith('mpath-') or len(dm_uuid) <= len('mpath-'):
        return None
    return dm_uuid[len('mpath-'):]


def scsi_id_wwn(wwid):
    """The WWN of a scsi_id-style WWID (``3<naa hex>``, ``2<eui hex>``), or None for other forms."""
    text = (wwid or '').strip().lower()
    if text[:1] == '3' and _hex_of(text[1:]):
        return '0x' + text[1:]
    if text[:1] == '2' and _hex_of(text[1:]) and len(text) - 1 in (16, 32):
        return 'eui.' + text[1:]
    return None


def wwn_key(value):
    """A WWN-ish text for comparison: lower case, without one ``wwn-`` and one ``naa.``/``eui.``/``0x`` prefix.

    ``naa.5002...``, ``0x5002...`` and ``5002...`` compare equal; other texts (a T10 string a policy
    copied from an older kernel's ``wwid``) compare as they are, in lower case."""
    text = (value or '').strip().lower()
    if text.startswith('wwn-'):
        text = text[len('wwn-'):]
    for prefix in _WWN_KEY_PREFIXES[1:]:
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


# ---------------------------------------------------------------- SCSI VPD pages

def vpd_pg80_serial(data):
    """The unit serial number of a VPD page 0x80 (``device/vpd_pg80``, bytes), stripped; None.

    Header: byte 1 is the page code 0x80, bytes 2-3 the length; then the serial in ASCII, padded with
    spaces (on either side: ``     WD-WMAM9XE78956``)."""
    if not data or len(data) < 4 or bytearray(data)[1] != 0x80:
        return None
    raw = bytearray(data)
    length = (raw[2] << 8) | raw[3]
    serial = bytes(raw[4:4 + length]).replace(b'\x00', b' ').decode('ascii', 'replace').strip()
    return serial or None


def vpd_pg83_designators(data):
    """The designators of a VPD page 0x83 (``device/vpd_pg83``, bytes) about the logical unit itself.

    A list of (type, code set, body bytes) in page order; designators of the target port or the
    target device (association 1 and 2) are left out.  A truncated page gives what it holds."""
    raw = bytearray(data or b'')
    if len(raw) < 4 or raw[1] != 0x83:
        return []
    end = min(len(raw), 4 + ((raw[2] << 8) | raw[3]))
    found, pos = [], 4
    while pos + 4 <= end:
        code_set, association, kind, length = raw[pos] & 0x0f, (raw[pos + 1] >> 4) & 0x03, raw[pos + 1] & 0x0f, raw[pos + 3]
        body = bytes(raw[pos + 4:pos + 4 + length])
        if association == 0 and len(body) == length:
            found.append((kind, code_set, body))
        pos += 4 + length
    return found


def _hexlify(body):
    return ''.join('%02x' % byte for byte in bytearray(body))


def vpd_pg83_wwn(data):
    """The WWN of a VPD page 0x83, normalised (``0x<hex>`` for NAA, ``eui.<hex>`` for EUI-64); None.

    The NAA designator wins over EUI-64, as in udev's scsi_id and the kernel's wwid."""
    designators = vpd_pg83_designators(data)
    for wanted, form in ((DESIGNATOR_NAA, '0x'), (DESIGNATOR_EUI64, 'eui.')):
        for kind, code_set, body in designators:
            if kind == wanted and code_set == 1 and len(body) in (8, 16):
                return form + _hexlify(body)
    return None


def kernel_wwid_forms(data):
    """Every ``wwid`` text a kernel may show for the logical unit of a VPD page 0x83, in page order.

    The kernel (drivers/scsi/scsi_lib.c scsi_vpd_lun_id) makes ``wwid`` of one designator, and
    which one changed between kernels: ``naa.<hex>``, ``eui.<hex>``, ``t10.<ASCII>`` (trailing
    spaces dropped, as udev compares attributes) or a SCSI name string.  A text with a control
    character is left out (LIO pads its T10 designator with NUL bytes): no udev rule or policy can
    name it."""
    forms = []
    for kind, code_set, body in vpd_pg83_designators(data):
        text = None
        if kind == DESIGNATOR_NAA and code_set == 1:
            text = 'naa.' + _hexlify(body)
        elif kind == DESIGNATOR_EUI64 and code_set == 1:
            text = 'eui.' + _hexlify(body)
        elif kind == DESIGNATOR_T10 and code_set == 2:
            text = 't10.' + body.rstrip(b'\x00').decode('ascii', 'replace').rstrip()
        elif kind == DESIGNATOR_NAME and code_set == 3:
            text = body.rstrip(b'\x00').decode('utf-8', 'replace').rstrip()
        if text and text not in forms and all(char.isprintable() for char in text):
            forms.append(text)
    return forms


# ---------------------------------------------------------------- udev properties

def parse_udev_env(text):
    """The properties (``E:KEY=value`` lines) of a udev database file (``/run/udev/data/b8:0``)."""
    env = {}
    for line in (text or '').splitlines():
        if line.startswith('E:'):
            name, sep, value = line[2:].partition('=')
            if sep and name:
                env[name] = value
    return env


def udev_decode(value):
    """A udev ``*_ENC`` value with its ``\\xHH`` escapes decoded (``KINGSTON\\x20SH103S3240G``)."""
    raw = (value or '').encode('utf-8', 'surrogateescape')
    return _UDEV_ESCAPE_RE.sub(lambda match: bytearray([int(match.group(1), 16)]), raw).decode('utf-8', 'replace')


def normalize_whitespace(text):
    """Runs of white space as one space, none at either end; None for None or blank text."""
    if text is None:
        return None
    return ' '.join(text.split()) or None


# ---------------------------------------------------------------- choices

def first(values):
    for value in values:
        if value:
            return value
    return None


def wwn_candidates(wwid, vpd_pg83, env):
    """The normalised WWNs of a device, sysfs first: ``wwid`` when it is one, ``vpd_pg83``, then udev's
    ``ID_WWN_WITH_EXTENSION`` and ``ID_WWN``; duplicates dropped."""
    found = []
    for value in (normalize_wwn(wwid), vpd_pg83_wwn(vpd_pg83),
                  normalize_wwn(env.get('ID_WWN_WITH_EXTENSION')), normalize_wwn(env.get('ID_WWN'))):
        if value and value not in found:
            found.append(value)
    return found


def serial_candidates(vpd_pg80, sysfs_serials, env):
    """The serials of a device, the one io_facts reports first: ``vpd_pg80``, the sysfs ``serial``
    files (NVMe, virtio), udev's ``ID_SCSI_SERIAL``, ``ID_SERIAL_SHORT`` and (for matching only, last)
    ``ID_SERIAL``; stripped, duplicates dropped."""
    found = []
    values = [vpd_pg80_serial(vpd_pg80)] + list(sysfs_serials) + [env.get(key) for key in ('ID_SCSI_SERIAL', 'ID_SERIAL_SHORT', 'ID_SERIAL')]
    for value in values:
        value = normalize_whitespace(value)
        if value and value not in found:
            found.append(value)
    return found


def reported_serial(vpd_pg80, sysfs_serials, env):
    """The serial io_facts reports (serial_candidates without udev's long ``ID_SERIAL``), or None."""
    candidates = serial_candidates(vpd_pg80, sysfs_serials, dict((k, v) for k, v in env.items() if k != 'ID_SERIAL'))
    return candidates[0] if candidates else None


def model_name(sysfs_model, env):
    """The whole model name: udev's ``ID_MODEL_ENC`` decoded (sysfs cuts SCSI models at 16
    characters: ``KINGSTON SH103S3`` for ``KINGSTON SH103S3240G``), else ``ID_MODEL``, else sysfs;
    white space normalised as lsblk does."""
    if env.get('ID_MODEL_ENC'):
        return normalize_whitespace(udev_decode(env['ID_MODEL_ENC']))
    return normalize_whitespace(env.get('ID_MODEL')) or normalize_whitespace(sysfs_model)


def device_type(name, partition=False, dm_uuid=None, md_level=None, scsi_type=None):
    """lsblk's TYPE of a block device: ``part``; for device-mapper the ``dm/uuid`` prefix in lower case
    (``lvm``, ``mpath``, ``crypt``, ``part`` for a kpartx ``part1-mpath-...``), ``dm`` without one;
    ``loop``; for md the ``md/level`` (``raid1``) or ``md``; else the SCSI device type (``disk``, ``rom``)
    or ``disk``."""
    if partition:
        return 'part'
    if name.startswith('dm-'):
        prefix = (dm_uuid or '').split('-', 1)[0].lower()
        if prefix.startswith('part'):
            prefix = 'part'
        return prefix or 'dm'
    if name.startswith('loop'):
        return 'loop'
    if name.startswith('md'):
        return (md_level or 'md').lower()
    return SCSI_TYPES.get(scsi_type, 'disk') if scsi_type is not None else 'disk'
