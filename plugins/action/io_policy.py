# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""io_policy on the controller: validate the policy and merge its profile before any
host work, add the copy tools (by digest; their content only where the host needs it), then
run the module once."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import datetime
import os

from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from ansible_collections.iotune.storage.plugins.module_utils.common.checks import CONCERNS
from ansible_collections.iotune.storage.plugins.module_utils.policy.schema import POLICY_KEYS
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import SLICE_NAME_ACCEPTED, validate_bulk_slice
from ansible_collections.iotune.storage.plugins.module_utils.policy.severity import validate_overrides
from ansible_collections.iotune.storage.plugins.module_utils.policy.waivers import validate_waivers, waivers_for_host
from ansible_collections.iotune.storage.plugins.plugin_utils._benchmark import validate_benchmark
from ansible_collections.iotune.storage.plugins.plugin_utils._copy_tools import (
    DEFAULT_BIN_DIR, DEFAULT_CONFIG, DEFAULT_SLICE, copy_tool_files)
from ansible_collections.iotune.storage.plugins.plugin_utils._profiles import PolicyError, effective_policy
from ansible_collections.iotune.storage.plugins.plugin_utils._variables import selects_nothing, slicing_errors, unknown_variables

# Arguments only the controller side reads; the module never sees them.
CONTROLLER_ARGS = ('benchmark', 'measuring', 'validate_only', 'fail_on_drift', 'copy_tools_bin_dir', 'copy_tools_config',
                   'copy_tools_slice')
# The policy, when the task does not give one: the host's iotune_* variables.
POLICY_VARS = POLICY_KEYS
# The waivers and the severity overrides, when the task does not give them (docs/waivers.md, docs/severity.md).
WAIVERS_VAR = 'iotune_waivers'
SEVERITY_VAR = 'iotune_severity'
# An argument the task does not give comes from this variable of the host when it is set: the
# enforcing roles' settings, which belong in the inventory so audit, enforce and rollback agree.
ARG_VARS = (
    ('fstab', 'mount_options_fstab'),
    ('remount', 'mount_options_remount'),
    ('tunefstab_path', 'tunefstab_path'),
    ('tunefstab_apply', 'tunefstab_apply'),
    ('vxtunefs', 'tunefstab_vxtunefs'),
    ('block_queue_persist', 'block_queue_persist'),
    ('rules_file', 'block_queue_rules_file'),
    ('sysctl_file', 'cache_limits_sysctl_file'),
    ('journal_dir', 'iotune_journal_dir'),
    ('copy_tools_bin_dir', 'copy_tools_bin_dir'),
    ('copy_tools_config', 'copy_tools_config'),
    ('copy_tools_slice', 'copy_tools_slice'),
    ('benchmark', 'iotune_benchmark'),
)


def with_host_vars(args, lookup):
    """``args`` completed from the host's variables: ``lookup(name)`` returns a
    variable's value, or None when it is not set (or set empty)."""
    args = dict(args)
    if args.get('policy') is None:
        args['policy'] = dict((name, lookup(name)) for name in POLICY_VARS)
    if args.get('waivers') is None:
        args['waivers'] = lookup(WAIVERS_VAR)
    if args.get('severity') is None:
        args['severity'] = lookup(SEVERITY_VAR)
    for arg, var in ARG_VARS:
        if args.get(arg) is None:
            value = lookup(var)
            if value not in (None, ''):
                args[arg] = value
    return args


def fail_on_drift(value):
    """The ``fail_on_drift`` argument as a bool (None when not given); ValueError naming it."""
    if value is None:
        return None
    try:
        return boolean(value, strict=True)
    except TypeError:
        raise ValueError('fail_on_drift: must be a boolean (true or false), got %r' % (value,))


def controller_errors(controller):
    """Errors in the options only the controller reads: ``fail_on_drift`` a boolean; the copy tools'
    absolute paths (not a directory ending in /) and a slice name as the policy's bulk_slice.name takes."""
    errors = []
    try:
        fail_on_drift(controller['fail_on_drift'])
    except ValueError as exc:
        errors.append(str(exc))
    for name in ('copy_tools_bin_dir', 'copy_tools_config'):
        value = controller[name]
        if value is not None and not (isinstance(value, str) and os.path.isabs(value)):
            errors.append('%s: must be an absolute path, got %r' % (name, value))
    if isinstance(controller['copy_tools_config'], str) and controller['copy_tools_config'].endswith('/'):
        errors.append('copy_tools_config: must be a file, not a directory, got %r' % controller['copy_tools_config'])
    if controller['copy_tools_slice'] is not None:
        problems = []
        validate_bulk_slice({'memory_high': 'infinity', 'name': controller['copy_tools_slice']}, 'copy_tools_slice', problems)
        if problems:
            errors.append('copy_tools_slice: %r is not a slice name (accepted: %s)' % (controller['copy_tools_slice'], SLICE_NAME_ACCEPTED))
    return errors


# The host fact that says which copy tools a host has, from io_policy's last result there (kept
# across plays, and across runs with a fact cache): {'host': inventory_hostname, 'files': {path:
# sha256}}. The tools' content is sent only to a host that is not known to have them. The fact
# names its host because a host's facts are not always its own: after a run_once task,
# ansible-core 2.21 keeps one facts object for every host that had none (ansible/ansible#87148),
# so the fact of the first host to finish showed on every host started after it, each of which
# was sent no content and needed a second round trip.
INSTALLED_FACT = 'iotune_copy_tools_installed'


def installed_fact(host, files):
    """The value of INSTALLED_FACT for ``host`` that has ``files`` (path: sha256)."""
    return {'host': host, 'files': files}


def known_tools(fact, host):
    """The files (path: sha256) ``fact`` (INSTALLED_FACT's value) says ``host`` has; None when it
    is not a fact of this host (absent, of another host, or of another form)."""
    if isinstance(fact, dict) and fact.get('host') == host and isinstance(fact.get('files'), dict):
        return fact['files']
    return None


def tools_sender(args, policy, check_mode, known):
    """``send(path, sha256)``: whether a tool's content goes with the arguments: only in a run that
    can install it (mode enforce, not check mode, state present) to a host not known to have it
    (``known``: path -> sha256 from the host's fact, None when nothing is known)."""
    installing = args.get('mode') == 'enforce' and not check_mode and \
        (policy['iotune_copy_tools'].get('state') or 'present') == 'present'
    return lambda path, digest: installing and (known or {}).get(path) != digest


def module_args(args, policy_errors=None, check_mode=False, known=None, host=None, groups=(), today=None):
    """(module arguments, errors) for the task arguments ``args``: the effective policy, the
    waivers that cover ``host`` (a member of ``groups``) with the days left from ``today`` (the
    controller's date by default), and the copy tools' files (each tool's content only where
    ``tools_sender`` says); errors name the field and the accepted values."""
    args = dict(args)
    controller = dict((key, args.pop(key, None)) for key in CONTROLLER_ARGS)
    errors = []
    try:
        policy = effective_policy(args.get('policy') or {})
    except PolicyError as exc:
        errors.extend(exc.errors)
        policy = None
    waivers, waiver_errors = validate_waivers(args.pop('waivers', None), WAIVERS_VAR)
    errors.extend(waiver_errors)
    severity, severity_errors = validate_overrides(args.pop('severity', None), SEVERITY_VAR)
    errors.extend(severity_errors)
    if severity:
        args['severity'] = severity
    if waivers:
        args['waivers'] = waivers_for_host(waivers, host, groups, today or datetime.datetime.now(datetime.timezone.utc).date())
    if controller['benchmark'] is not None or controller['measuring']:
        errors.extend(validate_benchmark(controller['benchmark'], controller['measuring']))
    errors.extend(controller_errors(controller))
    if errors:
        return None, errors
    args['policy'] = policy
    concerns = CONCERNS if args.get('concerns') is None else args['concerns']
    if policy['iotune_copy_tools'] and 'copy_tools' in concerns:
        bulk = (policy['iotune_cache'] or {}).get('bulk_slice') or {}
        files = copy_tool_files(
            policy['iotune_copy_tools'],
            bin_dir=controller['copy_tools_bin_dir'] or DEFAULT_BIN_DIR,
            config=controller['copy_tools_config'] or DEFAULT_CONFIG,
            slice_name=controller['copy_tools_slice'] or bulk.get('name') or DEFAULT_SLICE,
            send=tools_sender(args, policy, check_mode, known))
        # the option each file comes from, for the module's messages: the tools, then copy.conf
        args['copy_tools_files'] = [dict(item, option='copy_tools_config' if index == len(files) - 1 else 'copy_tools_bin_dir')
                                    for index, item in enumerate(files)]
    return args, []


def run_module(execute, task_args, args, check_mode, known, host=None):
    """The module's result for ``args`` (``execute(args)`` runs it): one round trip, and a second,
    with the tools' content, only when the host's fact was stale (the host lost or changed a tool
    since; the module then changed nothing). With the fact of the tools ``host`` has now."""
    done = execute(args)
    tools = (done.get('concerns') or {}).get('copy_tools') or {}
    if done.get('failed') and tools.get('content_needed') and known:
        retry = module_args(task_args, check_mode=check_mode, known=None)[0]
        if 'waivers' in args:
            retry['waivers'] = args['waivers']
        stale = ', '.join(tools['content_needed'])
        done = execute(retry)
        done = dict(done, warnings=list(done.get('warnings') or []) + [
            '%s: a second round trip: the fact %s said this host had %s as this collection builds it, and it did '
            'not (removed or changed since); the content was sent again' % (host, INSTALLED_FACT, stale)])
        tools = (done.get('concerns') or {}).get('copy_tools') or {}
    if isinstance(tools.get('installed'), dict):
        done = dict(done, ansible_facts=dict(done.get('ansible_facts') or {},
                                             **{INSTALLED_FACT: installed_fact(host, dict(known or {}, **tools['installed']))}))
    return done


class ActionModule(ActionBase):
    TRANSFERS_FILES = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        task_vars = task_vars or {}

        def lookup(name):
            return self._templar.template(task_vars[name]) if name in task_vars else None

        facts = task_vars.get('ansible_facts') or {}
        host = task_vars.get('inventory_hostname')
        known = known_tools(facts.get(INSTALLED_FACT), host)
        task_args = with_host_vars(self._task.args, lookup)
        args, errors = module_args(task_args, check_mode=bool(self._task.check_mode), known=known,
                                   host=host, groups=task_vars.get('group_names') or ())
        errors = unknown_variables(task_vars) + slicing_errors(lookup) + errors
        if errors:
            result.update(failed=True, changed=False, errors=errors,
                          msg='Invalid iotune policy: %s' % '; '.join(errors))
            return result
        if self._task.args.get('validate_only'):
            result.update(changed=False, msg='the policy is valid', policy=args['policy'])
            return result
        nothing = selects_nothing(args['policy'])
        result.update(run_module(
            lambda module_args: self._execute_module(module_name='iotune.storage.io_policy', module_args=module_args,
                                                     task_vars=task_vars),
            task_args, args, bool(self._task.check_mode), known, host))
        gate = fail_on_drift(self._task.args.get('fail_on_drift'))
        if gate is not None:
            # for io_fleet_report's gated_hosts: the io_audit role fails drifting hosts in one task per host only
            # when a host has the gate on (docs/performance.md, "Fleet")
            result['fail_on_drift'] = gate
        # the module's arguments may hold the copy tools' content: a result never echoes it
        result.pop('invocation', None)
        if nothing:
            result['warnings'] = ['the policy selects nothing on this host: %s are all unset or empty, so nothing was '
                                  'audited' % ', '.join(POLICY_KEYS)] + list(result.get('warnings') or [])
        return result
