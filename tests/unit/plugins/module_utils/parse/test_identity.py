# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""parse/identity.py: WWN forms, SCSI VPD pages 0x80 and 0x83, udev's encoded model, lsblk's TYPE."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import binascii

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse import identity as ident

# the KINGSTON SH103S3240G's pages, byte for byte from util-linux's lsblk dumps (same under kernel 4.16 and 6.17)
KINGSTON_PG80 = binascii.unhexlify('008000143530303236423732344230394131464620202020')
KINGSTON_PG83 = binascii.unhexlify(
    '0083006c0200001435303032364237323442303941314646202020200201004441544120202020204b494e4753544f4e2053483130'
    '3353333234304720202020202020202020202020202020202020203530303236423732344230394131464620202020010300085002'
    '6b724b09a1ff')
# the WDC WD800JD's: a T10 designator and a vendor-specific one, no NAA
WDC_PG80 = binascii.unhexlify('00800014202020202057442d574d414d3958453738393536')
# scsi_debug's: an NAA of the logical unit, then designators of the target port and device (left out)
SCSI_DEBUG_PG83 = binascii.unhexlify(
    '008300710201001d4c696e7578202020736373695f646562756720202020202031343030300103000833333330000036b06194000400'
    '0000016193000832222220000036ae619500040000070061a3000832222220000036ad63a800186e61612e33323232323232303030'
    '30303336414400000000')


@pytest.mark.parametrize('value, expected', [
    ('naa.50026b724b09a1ff', '0x50026b724b09a1ff'),
    ('NAA.50026B724B09A1FF\n', '0x50026b724b09a1ff'),
    ('0x50026b724b09a1ff', '0x50026b724b09a1ff'),
    ('wwn-0x50026b724b09a1ff', '0x50026b724b09a1ff'),
    ('naa.6000c29a3b2c4d5e6f708192a3b4c5d6', '0x6000c29a3b2c4d5e6f708192a3b4c5d6'),    # NAA 6, 16 bytes
    ('eui.00000000000000000026b7283b12b315', 'eui.00000000000000000026b7283b12b315'),
    ('eui.0025388b71b2c3d4', 'eui.0025388b71b2c3d4'),
    ('t10.ATA     KINGSTON SH103S3240G                    50026B724B09A1FF', None),
    ('nvme.1987-35303032364237323832303336303144-4b494e4753544f4e20534b433130303032343047-00000001', None),
    ('naa.5002', None),
    ('0xWD-WMAM9XE78956', None),
    ('', None),
    (None, None),
])
def test_normalize_wwn(value, expected):
    assert ident.normalize_wwn(value) == expected


def test_wwn_key_ignores_the_prefix():
    forms = ('naa.50026B724B09A1FF', '0x50026b724b09a1ff', '50026b724b09a1ff', 'wwn-0x50026b724b09a1ff', ' NAA.50026b724b09a1ff ')
    assert set(ident.wwn_key(form) for form in forms) == set(['50026b724b09a1ff'])


@pytest.mark.parametrize('data, expected', [
    (KINGSTON_PG80, '50026B724B09A1FF'),
    (WDC_PG80, 'WD-WMAM9XE78956'),
    (binascii.unhexlify('008000053134303030'), '14000'),     # scsi_debug
    (KINGSTON_PG83, None),                                       # another page
    (b'\x00\x80\x00', None),
    (b'', None),
    (None, None),
])
def test_vpd_pg80_serial(data, expected):
    assert ident.vpd_pg80_serial(data) == expected


def test_vpd_pg83():
    assert ident.vpd_pg83_wwn(KINGSTON_PG83) == '0x50026b724b09a1ff'
    assert ident.kernel_wwid_forms(KINGSTON_PG83) == [
        't10.ATA     KINGSTON SH103S3240G                    50026B724B09A1FF', 'naa.50026b724b09a1ff']
    assert ident.vpd_pg83_wwn(SCSI_DEBUG_PG83) == '0x33333330000036b0'
    assert ident.kernel_wwid_forms(SCSI_DEBUG_PG83) == ['t10.Linux   scsi_debug      14000', 'naa.33333330000036b0']
    assert ident.vpd_pg83_wwn(KINGSTON_PG83[:60]) is None                # truncated before the NAA
    assert ident.vpd_pg83_wwn(KINGSTON_PG80) is None and ident.kernel_wwid_forms(None) == []


# an LIO iSCSI LUN (targetcli-fb, Linux 6.1, the stacks lab VM): NAA 6, then a T10 designator padded with a NUL
LIO_PG83 = bytes.fromhex(
    '008300b20103001060014052600000000004000800000000020100324c494f2d4f5247206c756e303a32363030303030302d303030'
    '302d343030302d383030302d303030303030303061626364005194000400000001519500040000000001060004000000005398002869'
    '716e2e323032362d31312e6c61622e696f74756e653a737461636b732c742c307830303031000053a8002069716e2e323032362d3131'
    '2e6c61622e696f74756e653a737461636b73000000')


def test_vpd_pg83_of_an_lio_lun_has_no_control_characters():
    # a NUL in a udev rule's value makes udev ignore that line and the next (seen in the lab VM)
    assert ident.kernel_wwid_forms(LIO_PG83) == [
        'naa.60014052600000000004000800000000', 't10.LIO-ORG lun0:26000000-0000-4000-8000-00000000abcd']
    assert ident.vpd_pg83_wwn(LIO_PG83) == '0x60014052600000000004000800000000'
    assert ident.vpd_pg80_serial(b'\x00\x80\x00%26000000-0000-4000-8000-00000000abcd\x00') == '26000000-0000-4000-8000-00000000abcd'


def test_wwn_and_serial_sources_in_order():
    env = {'ID_WWN': '0x50026b724b09a1ff', 'ID_SERIAL_SHORT': '50026B724B09A1FF',
           'ID_SERIAL': 'KINGSTON_SH103S3240G_50026B724B09A1FF'}
    assert ident.wwn_candidates('t10.ATA     KINGSTON SH103S3240G', KINGSTON_PG83, env) == ['0x50026b724b09a1ff']
    assert ident.wwn_candidates('naa.50026b724b09a1ff', None, {}) == ['0x50026b724b09a1ff']
    assert ident.wwn_candidates(None, None, {'ID_WWN_WITH_EXTENSION': '0x6000c29a3b2c4d5e6f708192a3b4c5d6',
                                             'ID_WWN': '0x6000c29a3b2c4d5e'}) == [
        '0x6000c29a3b2c4d5e6f708192a3b4c5d6', '0x6000c29a3b2c4d5e']
    assert ident.serial_candidates(None, [None, None], env) == ['50026B724B09A1FF', 'KINGSTON_SH103S3240G_50026B724B09A1FF']
    assert ident.reported_serial(None, [None, None], {'ID_SERIAL': 'long_one'}) is None
    assert ident.reported_serial(WDC_PG80, ['  nvme-serial  ', None], {}) == 'WD-WMAM9XE78956'
    assert ident.reported_serial(None, ['  S5GXNF0R123456A  ', None], {}) == 'S5GXNF0R123456A'


@pytest.mark.parametrize('sysfs_model, env, expected', [
    ('KINGSTON SH103S3', {'ID_MODEL': 'KINGSTON_SH103S3240G',
                          'ID_MODEL_ENC': 'KINGSTON\\x20SH103S3240G\\x20\\x20\\x20\\x20'}, 'KINGSTON SH103S3240G'),
    ('DVD+-RW GH82N   ', {'ID_MODEL_ENC': 'HL-DT-ST\\x20DVD+\\x2f-RW\\x20GH82N\\x20\\x20'}, 'HL-DT-ST DVD+/-RW GH82N'),
    ('KINGSTON SFYR2S1T0', {'ID_MODEL': 'KINGSTON SFYR2S1T0'}, 'KINGSTON SFYR2S1T0'),   # nvme: no _ENC
    ('scsi_debug      ', {}, 'scsi_debug'),
    (None, {}, None),
])
def test_model_name(sysfs_model, env, expected):
    assert ident.model_name(sysfs_model, env) == expected


def test_udev_env_and_decoding():
    assert ident.parse_udev_env('S:disk/by-id/x\nE:ID_WWN=0x5\nE:ID_MODEL_ENC=a\\x20b\nG:systemd\nE:BROKEN\n') == {
        'ID_WWN': '0x5', 'ID_MODEL_ENC': 'a\\x20b'}
    assert ident.parse_udev_env(None) == {}
    assert ident.udev_decode('Caf\\xc3\\xa9\\x20\\x5cx') == u'Caf\xe9 \\x'


@pytest.mark.parametrize('name, kwargs, expected', [
    ('sda1', {'partition': True}, 'part'),
    ('dm-0', {'dm_uuid': 'LVM-8Bwyu3HKrv5sSNTifv6uCZ5XTkJoMXeD'}, 'lvm'),
    ('dm-1', {'dm_uuid': 'mpath-3600140512345678'}, 'mpath'),
    ('dm-2', {'dm_uuid': 'CRYPT-LUKS2-0123abcd-luks-0123'}, 'crypt'),
    ('dm-3', {'dm_uuid': 'part1-mpath-3600140512345678'}, 'part'),     # kpartx
    ('dm-4', {}, 'dm'),
    ('loop0', {}, 'loop'),
    ('md0', {'md_level': 'raid1'}, 'raid1'),
    ('md127', {}, 'md'),
    ('sr0', {'scsi_type': 5}, 'rom'),
    ('sdc', {'scsi_type': 0}, 'disk'),
    ('sdd', {'scsi_type': 0x42}, 'disk'),
    ('nvme0n1', {}, 'disk'),
])
def test_device_type(name, kwargs, expected):
    assert ident.device_type(name, **kwargs) == expected


@pytest.mark.parametrize('dm_uuid, wwid, wwn', [
    # the stacks lab VM's LIO LUN through dm-multipath (Linux 6.1, multipath-tools 0.9.4)
    ('mpath-360014052600000000004000800000000', '360014052600000000004000800000000', '0x60014052600000000004000800000000'),
    ('mpath-2002538b471b2c0a1', '2002538b471b2c0a1', 'eui.002538b471b2c0a1'),
    ('mpath-SATA_disk_1234', 'SATA_disk_1234', None),
    ('LVM-abc', None, None),
    ('mpath-', None, None),
    (None, None, None),
])
def test_multipath_map_wwid_and_wwn(dm_uuid, wwid, wwn):
    assert ident.multipath_wwid(dm_uuid) == wwid
    assert ident.scsi_id_wwn(wwid) == wwn
