# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How many bytes of module arguments io_policy sends for a policy with iotune_copy_tools, per kind of
run: the copy tools go by digest, their content only to an enforcing run on a host not known to have
them (docs/performance.md, roles/copy_tools/README.md). Runs on the controller side only, no host.

    ANSIBLE_COLLECTIONS_PATH=<dir make collection prints> python3 bench/policy_args.py

Exit status: 0 when a run that needs no content sends under 3 KB, 1 otherwise, 2 when the collection
cannot be imported."""

import json
import os
import sys

LIMIT = 3000
POLICY = {'iotune_copy_tools': {'buffer_size': '8M'}, 'iotune_mounts': [{'path': '/data', 'present': ['noatime']}]}


def main():
    for path in os.environ.get('ANSIBLE_COLLECTIONS_PATH', '').split(os.pathsep):
        if path:
            sys.path.insert(0, path)
    try:
        from ansible_collections.iotune.storage.plugins.action.io_policy import module_args
    except ImportError as exc:
        print('policy_args: cannot import the collection (set ANSIBLE_COLLECTIONS_PATH): %s' % exc, file=sys.stderr)
        return 2
    enforce = {'policy': POLICY, 'mode': 'enforce'}
    sent, dummy = module_args(enforce)
    known = dict((item['path'], item['sha256']) for item in sent['copy_tools_files'] if 'sha256' in item)
    runs = (
        ('audit', module_args({'policy': POLICY})[0]),
        ('enforce, check mode', module_args(enforce, check_mode=True)[0]),
        ('enforce, host known to have the tools', module_args(enforce, known=known)[0]),
        ('enforce, host not known to have them', sent),
        ('no copy tools in the policy', module_args({'policy': {'iotune_mounts': POLICY['iotune_mounts']}})[0]),
    )
    print('{0:<40} {1:>10} {2:>16}'.format('run', 'arguments', 'copy_tools_files'))
    for name, args in runs:
        print('{0:<40} {1:>8} B {2:>14} B'.format(name, len(json.dumps(args)), len(json.dumps(args.get('copy_tools_files', [])))))
    worst = max(len(json.dumps(args)) for name, args in runs[:3])
    ok = worst < LIMIT
    print('RESULT: {0} (a run that needs no tool content sends {1} B, goal < {2} B)'.format('PASS' if ok else 'FAIL', worst, LIMIT))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
