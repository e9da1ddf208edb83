# -*- coding: utf-8 -*-
# Copyright: iotune.storage contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.iotune.storage.plugins.module_utils.common.args import element_message
from ansible_collections.iotune.storage.plugins.module_utils.plan.block_queue import validate_request

# what AnsibleModule of ansible-core 2.16 and 2.17 says (seen with 2.17.14)
OLD_CORE = ("argument 'nr_requests' is of type <class 'float'> found in 'devices'. and we were unable to convert to int: "
            "<class 'float'> cannot be converted to an int")


def test_an_old_cores_message_names_the_element():
    params = {'devices': [{'match': {'name': 'vda'}, 'nr_requests': 64}, {'match': {'name': 'vdb'}, 'nr_requests': 1e8}]}
    message = element_message(OLD_CORE, params, 'devices', validate_request)
    assert message.startswith('devices[1].nr_requests: 100000000.0 is not valid; expected'), message


def test_other_messages_are_kept():
    params = {'devices': [{'match': {'name': 'vda'}, 'nr_requests': 1e8}]}
    for message in ("argument 'devices' is of type <class 'str'> and we were unable to convert to list", None,
                    "argument 'nr_requests' is of type <class 'float'> found in 'devices[0]'."):
        assert element_message(message, params, 'devices', validate_request) == message
    # no element the validator finds wrong: the message as it was
    assert element_message(OLD_CORE, {'devices': [{'match': {'name': 'vda'}, 'nr_requests': 64}]}, 'devices',
                           validate_request) == OLD_CORE
