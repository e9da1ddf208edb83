# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs on the guest (python3 - RUN_ID < journal_state.py), just before rollback_io.yml: for each
record of the run's journal, whether its target still holds what the run wrote (``holds``: true,
false, or null when it cannot be told from here: mounts, units, directories). A false one is
something the upgrade (or the reboot) replaced since the hardening run; check_upgrade.py expects
the rollback to refuse those, naming them, and to restore the rest. Standard library only; reads
only; prints JSON."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import hashlib
import json
import sys

run_id = sys.argv[1]
path = '/var/lib/iotune/journal/%s.jsonl' % run_id


def read(target):
    with open(target, 'rb') as handle:
        return handle.read()


def holds(record):
    kind, target, after = record.get('kind'), record.get('target'), record.get('after')
    try:
        if kind == 'file':
            try:
                content = read(target)
            except IOError:
                content = None
            if not isinstance(after, dict) or after.get('state') != 'present':
                return content is None, 'absent' if content is None else 'present'
            if content is None:
                return False, 'absent'
            digest = hashlib.sha256(content).hexdigest()
            return digest == after.get('sha256'), 'sha256 %s' % digest[:12]
        if kind == 'sysctl' and isinstance(after, dict):
            now = dict((key, int(read('/proc/sys/' + key.replace('.', '/')).split()[0])) for key in after)
            return all(now[key] == value for key, value in after.items()), now
        if kind == 'sysfs':
            text = read(target).decode().strip()
            if '[' in text:
                text = text.split('[', 1)[1].split(']', 1)[0]
            return (text == str(after)), text
    except (IOError, OSError, ValueError, KeyError, TypeError) as error:
        return None, str(error)
    return None, None


records = []
with open(path) as handle:
    for line in handle:
        line = line.strip()
        if not line:
            continue
        record = json.loads(line)
        held, now = holds(record)
        records.append({'seq': record.get('seq'), 'kind': record.get('kind'), 'target': record.get('target'),
                        'holds': held, 'now': now})
json.dump({'run_id': run_id, 'journal': path, 'records': records}, sys.stdout, indent=1, default=str)
print()
