# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run iotune.storage.audit_io, harden_io and rollback_io through ansible_runner.run() in a private
data directory laid out as AWX lays out a job's (inventory/, env/, project/), against three local
"hosts" that each have a scratch ext4 mount on a loop device and their own fstab, udev rules file,
sysctl file, journal and report directory (runme.sh makes them; never the machine's /etc/fstab).
Checks each job's status, rc, artifacts, events and the iotune_summary that set_stats publishes
(the playbook_on_stats event's artifact_data), that harden changes and rollback restores the
scratch state exactly, that a report directory that cannot be written stops the job before any
host work, and counts the job events per host at verbosity 0 and 1 (issue 41).

    python3 run_jobs.py WORK HOSTS_JSON     # HOSTS_JSON: {host: {"loop": "/dev/loop3", "mount": ..., "dir": ...}}"""

import hashlib
import json
import os
import subprocess
import sys

import ansible_runner
import yaml

STATUSES = ('compliant', 'drift', 'not_persistent', 'not_applicable', 'error')
# job events per host (event_data.host) at verbosity 0, as measured with three hosts (docs/fleet.md, AWX): a start
# and a result event per task a host runs or skips; the host that runs the run_once tasks (the start: report
# directory check and run id; the fleet reports, which also publish iotune_summary; the summary line) has their 6
# too. Audit: io_policy (the iotune_audit_fail_on gate's task runs once, on the first host, when no host has the gate
# on); harden: io_policy (the include of the measured phases, and the failing of a host whose run a measured
# regression rolled back (issue 54), are each skipped once, on the first host, when no host can measure; three tasks
# skipped on every host before issue 41's cuts: 18 and 8). A new task per host shows here.
BOUNDS = {'audit': {'first': 10, 'other': 2}, 'harden': {'first': 12, 'other': 2}}


def digest(path):
    try:
        with open(path, 'rb') as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return 'absent'


def scratch_state(hosts):
    """What harden may change and rollback must put back, per host: the files, the live mount options, read-ahead."""
    state = {'/etc/fstab': digest('/etc/fstab')}
    for name, host in sorted(hosts.items()):
        options = subprocess.run(['findmnt', '-n', '-o', 'OPTIONS', '--mountpoint', host['mount']],
                                 check=True, capture_output=True, text=True).stdout.strip()
        with open('/sys/block/%s/queue/read_ahead_kb' % os.path.basename(host['loop'])) as handle:
            read_ahead = handle.read().strip()
        state[name] = {'fstab': digest(host['dir'] + '/fstab'), 'rules': digest(host['dir'] + '/60-iotune.rules'),
                       'sysctl': digest(host['dir'] + '/60-iotune.conf'), 'tunefstab': digest(host['dir'] + '/tunefstab'),
                       'options': options, 'read_ahead_kb': read_ahead}
    return state


def write_job_dir(data, hosts):
    """The private data directory: an inventory whose host variables point every managed file at the scratch ones."""
    for part in ('inventory', 'env', 'project'):
        os.makedirs(os.path.join(data, part))
    inventory = {}
    for name, host in sorted(hosts.items()):
        with open('/sys/block/%s/queue/read_ahead_kb' % os.path.basename(host['loop'])) as handle:
            read_ahead = 2048 if handle.read().strip() == '1024' else 1024
        inventory[name] = {
            'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable,
            'mount_options_fstab': host['dir'] + '/fstab', 'block_queue_rules_file': host['dir'] + '/60-iotune.rules',
            'cache_limits_sysctl_file': host['dir'] + '/60-iotune.conf', 'tunefstab_path': host['dir'] + '/tunefstab',
            'iotune_journal_dir': host['dir'] + '/journal', 'io_audit_host_report_dir': host['dir'] + '/host',
            'iotune_mounts': [{'path': host['mount'], 'present': ['noatime']}],
            'iotune_block_devices': [{'match': {'name': os.path.basename(host['loop'])}, 'read_ahead_kb': read_ahead}],
        }
    with open(os.path.join(data, 'inventory', 'hosts.yml'), 'w') as handle:
        yaml.safe_dump({'all': {'hosts': inventory}}, handle)


def run_job(data, ident, playbook, extravars, verbosity=0, want='successful'):
    result = ansible_runner.run(
        private_data_dir=data, ident=ident, playbook=playbook, extravars=extravars, verbosity=verbosity, quiet=True,
        envvars={'ANSIBLE_COLLECTIONS_PATH': os.environ['ANSIBLE_COLLECTIONS_PATH'], 'ANSIBLE_LOCALHOST_WARNING': 'false',
                 'ANSIBLE_FORCE_COLOR': 'false'},
    )
    stdout = result.stdout.read()
    assert result.status == want and (result.rc == 0) == (want == 'successful'), (ident, result.status, result.rc, stdout[-3000:])
    events = list(result.events)
    artifacts = result.config.artifact_dir
    assert os.path.basename(artifacts) == ident, artifacts
    with open(os.path.join(artifacts, 'status')) as handle:
        assert handle.read().strip() == want
    with open(os.path.join(artifacts, 'rc')) as handle:
        assert int(handle.read().strip()) == result.rc
    assert len(os.listdir(os.path.join(artifacts, 'job_events'))) == len(events)
    return result, events, stdout


def iotune_summary(result, events):
    """The iotune_summary set_stats published: in the playbook_on_stats event, and in its file under job_events/."""
    stats = [e for e in events if e.get('event') == 'playbook_on_stats']
    assert len(stats) == 1, [e.get('event') for e in events]
    summary = stats[0]['event_data']['artifact_data']['iotune_summary']
    path = os.path.join(result.config.artifact_dir, 'job_events', '%d-%s.json' % (stats[0]['counter'], stats[0]['uuid']))
    with open(path) as handle:
        assert json.load(handle)['event_data']['artifact_data'] == {'iotune_summary': summary}
    # ansible-runner's result.stats carries the counts of the recap, not the custom stats
    assert 'artifact_data' not in result.stats and result.stats['failures'] == {}, result.stats
    return summary


def event_counts(events, hosts):
    """Job events per host (event_data.host), all of them, and the debug tasks' ok events."""
    per_host = dict((host, 0) for host in hosts)
    other = {}
    # what a host that does not run the run_once tasks gets: (task, event) pairs
    last = sorted(hosts)[-1]
    of_last = [(e['event_data'].get('task'), e['event']) for e in events if e.get('event_data', {}).get('host') == last]
    for event in events:
        host = event.get('event_data', {}).get('host')
        if host in per_host:
            per_host[host] += 1
        else:
            other[event.get('event')] = other.get(event.get('event'), 0) + 1
    debug = [e for e in events if e.get('event') == 'runner_on_ok' and e['event_data'].get('task_action') in ('debug', 'ansible.builtin.debug')]
    # what Ansible prints outside a task's result (warnings, and at verbosity 1 the config file line) comes as verbose events
    verbose = sorted(set(e.get('stdout', '').strip()[:160] for e in events if e.get('event') == 'verbose'))
    return {'all': len(events), 'per_host': per_host, 'debug': debug, 'other': other, 'verbose': verbose, 'last': (last, of_last)}


def check_counts(label, kind, counts, first):
    per_host = counts['per_host']
    print('ok   events of %s: %d in all; per host %s; %d debug event(s); without a host: %s'
          % (label, counts['all'], ', '.join('%s %d' % item for item in sorted(per_host.items())), len(counts['debug']),
             ', '.join('%s %d' % item for item in sorted(counts['other'].items()))))
    print('       %s: %s' % (counts['last'][0], '; '.join('%s %s' % pair for pair in counts['last'][1])))
    for line in counts['verbose']:
        print('       verbose: %s' % line)
    if label.endswith('verbosity 0'):
        others = [n for host, n in per_host.items() if host != first]
        assert per_host[first] <= BOUNDS[kind]['first'] and max(others) <= BOUNDS[kind]['other'], (label, per_host, BOUNDS[kind])
        # one summary at the end, on the controller: no event per check or per host
        assert len(counts['debug']) == 1 and counts['debug'][0]['event_data']['host'] == first, counts['debug']
        lines = counts['debug'][0]['event_data']['res']['msg']
        assert '; reports in ' in lines[0], lines


def check_reports(summary, reports, hosts):
    assert summary['reports'] == {'dir': reports, 'summary_json': reports + '/summary.json', 'junit_xml': reports + '/junit.xml',
                                  'report_html': reports + '/report.html'}, summary['reports']
    with open(summary['reports']['summary_json']) as handle:
        written = json.load(handle)
    assert written['run_id'] == summary['run_id'] and written['hosts'] == summary['hosts'] == len(hosts), (written['run_id'], summary)
    # summary.json counts the changed checks with the statuses after an enforcement
    expected = dict(summary['statuses'], **({'changed': summary['changed']} if summary['mode'] == 'harden' else {}))
    assert written['summary'] == expected, (written['summary'], summary)
    for name in ('junit_xml', 'report_html'):
        assert os.path.getsize(summary['reports'][name]) > 0
    for host in hosts:
        assert os.path.exists(os.path.join(reports, 'hosts', host + '.json')), host


def not_compliant(reports):
    found = []
    for name in sorted(os.listdir(os.path.join(reports, 'hosts'))):
        with open(os.path.join(reports, 'hosts', name)) as handle:
            found += [(c['id'], c['status'], c['message']) for c in json.load(handle)['checks'] if c['status'] != 'compliant']
    return found


def audit(data, reports, hosts):
    counts = {}
    for verbosity in (0, 1):
        result, events, dummy = run_job(data, 'audit-v%d' % verbosity, 'iotune.storage.audit_io',
                                        {'iotune_report_dir': reports, 'iotune_run_id': 'audit-v%d' % verbosity}, verbosity)
        policy = [e for e in events if e.get('event') == 'runner_on_ok' and e['event_data'].get('resolved_action') == 'iotune.storage.io_policy']
        assert sorted(e['event_data']['host'] for e in policy) == sorted(hosts)
        for event in policy:
            res = event['event_data']['res']
            assert res['changed'] is False and res['summary']['drift'] == 2, res['summary']
        summary = iotune_summary(result, events)
        assert (summary['mode'], summary['run_id'], summary['failed_hosts'], summary['changed']) == ('audit', 'audit-v%d' % verbosity, [], 0)
        assert summary['statuses'] == dict(zip(STATUSES, (0, 2 * len(hosts), 0, 0, 0))), summary['statuses']
        check_reports(summary, reports, hosts)
        counts[verbosity] = event_counts(events, hosts)
    print('ok   audit_io.yml: successful, io_policy on %d hosts, 2 drifts each; iotune_summary %s' % (len(hosts), json.dumps(summary, sort_keys=True)))
    return counts


def harden(data, reports, hosts, before):
    counts = {}
    for verbosity, changed in ((0, True), (1, False)):
        ident = 'harden-v%d' % verbosity
        result, events, dummy = run_job(data, ident, 'iotune.storage.harden_io', {'iotune_report_dir': reports, 'iotune_run_id': ident}, verbosity)
        summary = iotune_summary(result, events)
        assert (summary['mode'], summary['run_id'], summary['failed_hosts']) == ('harden', ident, []), summary
        # read-ahead stays not_persistent: the scratch rules file is outside udev's search path, so udev would not read it
        assert summary['statuses'] == dict(zip(STATUSES, (len(hosts), 0, len(hosts), 0, 0))), (summary, not_compliant(reports))
        assert summary['changed'] == (2 * len(hosts) if changed else 0), summary
        assert bool(result.stats['changed']) is changed, result.stats
        check_reports(summary, reports, hosts)
        counts[verbosity] = event_counts(events, hosts)
        print('ok   harden_io.yml (%s): successful, changed %s; iotune_summary %s' % (ident, changed, json.dumps(summary, sort_keys=True)))
    after = scratch_state(hosts)
    for host in hosts:
        assert 'noatime' in after[host]['options'].split(',') and after[host]['fstab'] != before[host]['fstab'], after[host]
        assert after[host]['read_ahead_kb'] != before[host]['read_ahead_kb'] and after[host]['rules'] != 'absent', after[host]
    return counts


def rollback(data, hosts, before):
    result, events, dummy = run_job(data, 'rollback', 'iotune.storage.rollback_io', {'iotune_run_id': 'harden-v0'})
    summary = iotune_summary(result, events)
    assert (summary['mode'], summary['run_id'], summary['run_ids'], summary['reports'], summary['failed_hosts']) == (
        'rollback', 'harden-v0', ['harden-v0'], None, []), summary
    assert summary['changed'] > 0 and summary['statuses']['error'] == 0, summary
    after = scratch_state(hosts)
    assert after == before, json.dumps({'before': before, 'after': after}, indent=1)
    print('ok   rollback_io.yml: successful, the scratch state is back (digest before == after); iotune_summary %s'
          % json.dumps(summary, sort_keys=True))
    return event_counts(events, hosts)


def bad_report_dir(data, work, hosts):
    """A report directory that cannot be written: the job fails at its start, naming it, and no host is worked on."""
    blocker = os.path.join(work, 'not-a-directory')
    with open(blocker, 'w') as handle:
        handle.write('x')
    for playbook in ('audit_io', 'harden_io'):
        result, events, dummy = run_job(data, 'bad-dir-' + playbook, 'iotune.storage.' + playbook,
                                        {'iotune_report_dir': blocker + '/reports'}, want='failed')
        failed = [e for e in events if e.get('event') == 'runner_on_failed']
        assert len(failed) == 1 and failed[0]['event_data']['task'].startswith('Check iotune_report_dir'), [e['event_data'].get('task') for e in failed]
        msg = failed[0]['event_data']['res']['msg']
        assert msg == 'iotune_report_dir: cannot create %s/reports: %s is not a directory; the run stopped before any host work' % (blocker, blocker), msg
        assert not [e for e in events if e['event_data'].get('resolved_action') == 'iotune.storage.io_policy'], 'io_policy ran'
        for host in hosts.values():
            assert not os.path.exists(host['dir'] + '/host'), 'a host report was written'
    print('ok   a report directory that cannot be written: status failed, rc %d, "%s", no io_policy event, no host report'
          % (result.rc, msg))


def main(work, hosts_file):
    with open(hosts_file) as handle:
        hosts = json.load(handle)
    data = os.path.join(work, 'job')
    write_job_dir(data, hosts)
    reports = os.path.join(work, 'reports')
    before = scratch_state(hosts)
    bad_report_dir(data, work, hosts)
    first = sorted(hosts)[0]
    counts = {'audit': audit(data, reports, hosts)}
    assert scratch_state(hosts) == before, 'audit_io.yml changed the scratch state'
    counts['harden'] = harden(data, reports, hosts, before)
    rollback_counts = rollback(data, hosts, before)
    for kind in ('audit', 'harden'):
        for verbosity in (0, 1):
            check_counts('%s at verbosity %d' % (kind, verbosity), kind, counts[kind][verbosity], first)
        # verbosity 1 adds lines without a host (the config file, the collection of the playbook), no host event
        assert counts[kind][1]['per_host'] == counts[kind][0]['per_host'], (kind, counts[kind][0]['per_host'], counts[kind][1]['per_host'])
    check_counts('rollback at verbosity 0 (its own bounds)', 'rollback', rollback_counts, first)
    # io_rollback per host (rollback_io.yml skips the role's argument-spec check: the module checks each host's
    # values), the summary lines and set_stats once (issue 41: the lines of what was restored were a debug task per host)
    others = [n for host, n in rollback_counts['per_host'].items() if host != first]
    assert rollback_counts['per_host'][first] <= 6 and max(others) <= 2 and len(rollback_counts['debug']) == 1, rollback_counts
    check_artifacts(os.path.join(data, 'artifacts'), hosts)


def check_artifacts(artifacts, hosts):
    """Every job's artifacts directory; its fact_cache (what AWX keeps for a template with fact caching) holds
    an empty entry per host, none in a job stopped before any host work: the playbooks leave no fact behind (their run
    ids are a registered result, not a fact)."""
    jobs = sorted(os.listdir(artifacts))
    for ident in jobs:
        cache = os.path.join(artifacts, ident, 'fact_cache')
        entries = sorted(os.listdir(cache)) if os.path.isdir(cache) else []
        stopped = ident.startswith('bad-dir-')
        allowed = [[]] if stopped else [sorted('s1_' + host for host in hosts), sorted(hosts)]
        assert entries in allowed, (ident, entries)
        for name in entries:
            with open(os.path.join(cache, name)) as handle:
                cached = json.load(handle)
            # ansible-core 2.19 and later wrap the facts in __payload__
            facts = json.loads(cached['__payload__']) if '__payload__' in cached else cached
            assert facts == {}, (ident, name, facts)
    print('ok   artifacts of every job (%s): %s; fact_cache holds an empty entry per host (none after a bad directory)'
          % (', '.join(jobs), ', '.join(sorted(os.listdir(os.path.join(artifacts, jobs[0]))))))


if __name__ == '__main__':
    main(*sys.argv[1:])
