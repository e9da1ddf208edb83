# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters that validate the iotune policy on the controller, before any host work."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.iotune.storage.plugins.plugin_utils._benchmark import benchmark_settings as _benchmark_settings
from ansible_collections.iotune.storage.plugins.plugin_utils._benchmark import validate_benchmark
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import (
    buffer_size_text, slice_name_problem, validate_buffer_size, validate_copy_tools)
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import cache_sysctl as _cache_sysctl
from ansible_collections.iotune.storage.plugins.module_utils.policy.validate import validate_policy
from ansible_collections.iotune.storage.plugins.plugin_utils._profiles import PolicyError
from ansible_collections.iotune.storage.plugins.plugin_utils._profiles import effective_policy as _effective_policy


def policy_errors(policy):
    """Every problem of the policy dict, [] when it is valid."""
    return validate_policy(policy)


def effective_policy(policy):
    """The policy with its profile merged under the user's values, validated and normalized."""
    try:
        return _effective_policy(policy)
    except PolicyError as exc:
        raise AnsibleFilterError('invalid iotune policy: %s' % '; '.join(exc.errors))


def cache_sysctl(cache):
    """The vm.* sysctls of a normalized iotune_cache, for the sysctl option of cache_limits."""
    if cache is not None and not isinstance(cache, dict):
        raise AnsibleFilterError('cache_sysctl expects the iotune_cache dict of an effective policy')
    return _cache_sysctl(cache)


def copy_tools_errors(settings, where='iotune_copy_tools', sep='.'):
    """Every problem of copy tools settings ({state, buffer_size, streams}, and the role's slice), [] when they are
    valid; a message names the field as where + sep + key (the copy_tools role passes 'copy_tools', '_')."""
    errors = []
    if isinstance(settings, dict) and 'slice' in settings:
        settings = dict(settings)
        problem = slice_name_problem(settings.pop('slice'))
        if problem:
            errors.append('%s%sslice: %s' % (where, sep, problem))
    validate_copy_tools(settings, where, errors, sep)
    return errors


def copy_buffer_size(size):
    """A valid buffer size (int bytes or text such as 8MiB) as iotune-copy reads it: 8M, 256k, or bytes."""
    errors = []
    value = validate_buffer_size(size, 'buffer size', errors)
    if errors:
        raise AnsibleFilterError('; '.join(errors))
    return buffer_size_text(value)


def benchmark_errors(benchmark, measuring=None):
    """Every problem of iotune_benchmark, [] when it is valid; ``measuring`` true when a
    measurement will run whether or not it is enabled (benchmark_io.yml)."""
    return validate_benchmark(benchmark, measuring)


def benchmark_settings(benchmark):
    """iotune_benchmark with its defaults and the computed timeout (validate it first)."""
    errors = validate_benchmark(benchmark)
    if errors:
        raise AnsibleFilterError('invalid iotune_benchmark: %s' % '; '.join(errors))
    return _benchmark_settings(benchmark)


class FilterModule(object):
    def filters(self):
        return {
            'policy_errors': policy_errors,
            'effective_policy': effective_policy,
            'cache_sysctl': cache_sysctl,
            'copy_tools_errors': copy_tools_errors,
            'copy_buffer_size': copy_buffer_size,
            'benchmark_errors': benchmark_errors,
            'benchmark_settings': benchmark_settings,
        }
