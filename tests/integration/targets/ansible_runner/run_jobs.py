# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run iotune.storage.audit_io through ansible_runner.run() in a private data directory laid out
as AWX lays out a job's (inventory/, env/, project/), then check its status, events and reports."""

import hashlib
import json
import os
import sys

import ansible_runner
import yaml


def digest(path):
    try:
        with open(path, 'rb') as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def main(out, policy_file):
    with open(policy_file) as handle:
        policy = yaml.safe_load(handle)
    data = os.path.join(out, 'job')
    for part in ('inventory', 'env', 'project'):
        os.makedirs(os.path.join(data, part))
    with open(os.path.join(data, 'inventory', 'hosts'), 'w') as handle:
        handle.write('localhost ansible_connection=local ansible_python_interpreter=%s\n' % sys.executable)
    reports = os.path.join(out, 'reports')
    host_dir = os.path.join(out, 'host')
    extravars = dict(policy, iotune_report_dir=reports, io_audit_host_report_dir=host_dir)
    fstab_before = digest('/etc/fstab')
    result = ansible_runner.run(
        private_data_dir=data,
        playbook='iotune.storage.audit_io',
        extravars=extravars,
        envvars={'ANSIBLE_COLLECTIONS_PATH': os.environ['ANSIBLE_COLLECTIONS_PATH'],
                 'ANSIBLE_LOCALHOST_WARNING': 'false', 'ANSIBLE_FORCE_COLOR': 'false'},
        quiet=True,
    )
    stdout = result.stdout.read()
    assert (result.status, result.rc) == ('successful', 0), (result.status, result.rc, stdout[-3000:])
    print('ok   ansible-runner: status %s, rc %d, stats %s' % (result.status, result.rc, json.dumps(result.stats)))

    events = list(result.events)
    policy_events = [e for e in events if e.get('event') == 'runner_on_ok'
                     and e['event_data'].get('resolved_action') == 'iotune.storage.io_policy']
    assert len(policy_events) == 1, [(e.get('event'), e['event_data'].get('task')) for e in events]
    res = policy_events[0]['event_data']['res']
    assert policy_events[0]['event_data']['host'] == 'localhost'
    assert res['changed'] is False and res['summary']['drift'] == 1, res['summary']
    print('ok   events: %d in all, io_policy returned %s' % (len(events), json.dumps(res['summary'])))

    with open(os.path.join(host_dir, 'audit-latest.json')) as handle:
        report = json.load(handle)
    assert report == res['report']
    with open(os.path.join(reports, 'hosts', 'localhost.json')) as handle:
        assert json.load(handle) == report
    with open(os.path.join(reports, 'summary.json')) as handle:
        summary = json.load(handle)
    assert summary['hosts'] == 1 and summary['summary']['drift'] == 1, summary
    with open(os.path.join(reports, 'junit.xml')) as handle:
        assert '<failure ' in handle.read()
    # the job's artifacts, as AWX keeps them: the status, rc and event files
    artifacts = result.config.artifact_dir
    with open(os.path.join(artifacts, 'status')) as handle:
        assert handle.read().strip() == 'successful'
    assert len(os.listdir(os.path.join(artifacts, 'job_events'))) == len(events)
    assert digest('/etc/fstab') == fstab_before, '/etc/fstab changed'
    print('ok   reports and artifacts written, /etc/fstab unchanged')


if __name__ == '__main__':
    main(*sys.argv[1:])
