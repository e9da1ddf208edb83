# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tunefstab lines as the vendors write them (issue 39, items 3 and 4): the ``system_default`` line the
Veritas installer writes, and the value forms vxtunefs(1M) documents, each parsed or named with its line.

The samples are written here in the shape of the real ones: the installer's line is what the Veritas CPI
code of Storage Foundation 6.0 appends (``"\\nsystem_default $tunable=$value\\n"`` into /etc/vx/tunefstab,
``set_tunefs_tunable_value_sys`` of its FS60 product module), and the value forms are those of HP-UX
vxtunefs(1M) ("in bytes, kilobytes, megabytes or sectors (512 bytes)")."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.iotune.storage.plugins.module_utils.parse.tunefstab import SYSTEM_DEFAULT, parse_tunable_value, parse_tunefstab
from ansible_collections.iotune.storage.plugins.module_utils.plan import tunefstab as tp

LVOL1 = '/dev/vg01/lvol1'
# the shape of a file the installer has edited: its own line appended after the administrator's
INSTALLER = '/dev/vg01/lvol1 read_pref_io=65536,read_nstream=4\n\nsystem_default read_pref_io=131072\n'


def plan(tmp_path, fixture_path, text, entries):
    path = tmp_path / 'tunefstab'
    path.write_text(text)
    normalized = [tp.validate_entry(entry)[0] for entry in entries]
    return tp.plan_tunefstab(normalized, path=str(path), vxtunefs=None, proc_root=fixture_path('vxfs', 'proc')), str(path)


def test_the_installers_system_default_line_is_the_system_default_not_a_device():
    errors = []
    entries = parse_tunefstab(INSTALLER, errors)
    assert errors == []
    assert [(entry['device'], entry['line']) for entry in entries] == [(LVOL1, 1), (SYSTEM_DEFAULT, 3)]


def test_it_takes_precedence_over_the_devices_line(tmp_path, fixture_path):
    result, path = plan(tmp_path, fixture_path, INSTALLER, [{'device': LVOL1, 'tunables': {'read_pref_io': 65536}}])
    check, = result['checks']
    assert check['status'] == 'error' and result['changes'] == []
    assert '%s line 3 is a system-default line that sets read_pref_io to 131072 for every VxFS file system' % path \
        in check['message']


def test_the_policys_system_default_entry_edits_that_line_in_its_spelling(tmp_path, fixture_path):
    result, dummy = plan(tmp_path, fixture_path, INSTALLER, [{'device': SYSTEM_DEFAULT, 'tunables': {'read_pref_io': 262144}}])
    change, = result['changes']
    assert change['after'] == INSTALLER.replace('system_default read_pref_io=131072', 'system_default read_pref_io=262144')


@pytest.mark.parametrize('text, value', [
    ('2048s', 1048576), ('2048S', 1048576), ('128k', 131072), ('128K', 131072), ('1m', 1048576), ('1M', 1048576),
    ('1g', 1 << 30), ('65536', 65536), ('-1', -1),
])
def test_the_value_forms_vxtunefs_documents(text, value):
    assert parse_tunable_value(text) == value


@pytest.mark.parametrize('written', ['0x100000', '1.5m', '1MiB', '64KB', '-2k', '2048sectors'])
def test_another_form_is_an_error_naming_the_line_and_nothing_is_written_for_it(tmp_path, fixture_path, written):
    text = '# tuned by hand\n/dev/vg01/lvol1 read_pref_io=%s,read_nstream=4\n' % written
    errors = []
    parse_tunefstab(text, errors)
    assert errors == ['tunefstab line 2: read_pref_io=%s: not a value vxtunefs documents (bytes, or a number followed '
                      'by k, m, g, t or s (512-byte sectors))' % written]
    result, path = plan(tmp_path, fixture_path, text, [{'device': LVOL1, 'tunables': {'read_pref_io': 65536, 'read_nstream': 2}}])
    checks = dict((check['setting'], check) for check in result['checks'])
    assert checks['read_pref_io']['status'] == 'error'
    assert checks['read_pref_io']['message'] == (
        'read_pref_io on %s: %s line 2: read_pref_io=%s is not a value vxtunefs documents (bytes, or a number followed by '
        'k, m, g, t or s (512-byte sectors)): the value of the next mount is not known; correct the line, harden_io does not '
        'rewrite it' % (LVOL1, path, written))
    # the other tunable of the line is planned as before, and the line keeps what was written
    assert checks['read_nstream']['status'] == 'drift'
    change, = result['changes']
    assert change['after'] == text.replace('read_nstream=4', 'read_nstream=2')


def test_a_system_default_value_in_another_form_makes_every_devices_value_unknown(tmp_path, fixture_path):
    text = 'system_default read_pref_io=0x20000\n'
    result, path = plan(tmp_path, fixture_path, text, [{'device': LVOL1, 'tunables': {'read_pref_io': 131072}}])
    check, = result['checks']
    assert check['status'] == 'error' and result['changes'] == []
    assert check['message'].startswith('read_pref_io on %s: %s line 1: read_pref_io=0x20000 is not a value' % (LVOL1, path))
