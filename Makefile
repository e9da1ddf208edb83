# iotune.storage — every target sets up what it needs, so each works on a fresh machine.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

VENV      := .venv
BIN       := $(CURDIR)/$(VENV)/bin
PYTHON    := $(BIN)/python
# ansible-test and the tests need the collection under ansible_collections/<ns>/<name>,
# outside this git work tree (ansible-test would otherwise list files through git).
BUILD     := /tmp/iotune-build-$(shell echo '$(CURDIR)' | md5sum | cut -c1-8)
COLL_ROOT := $(BUILD)/collections
COLL_DIR  := $(COLL_ROOT)/ansible_collections/iotune/storage
export ANSIBLE_COLLECTIONS_PATH := $(COLL_ROOT)
# Ansible's own files (ansible-lint's install of the collection, molecule's scenario state, SSH control
# sockets, remote tmp) in the build directory, not ~/.ansible: a copy of the collection left in
# ~/.ansible/collections would shadow the user's own install for every later ansible-playbook.
# (ansible-test keeps its pip cache in ~/.ansible/test, a path it does not let one change.)
export ANSIBLE_HOME := $(BUILD)/ansible-home
export PATH := $(BIN):$(PATH)
export ANSIBLE_FORCE_COLOR := false
export PY_COLORS := 0

.PHONY: help setup collection build schema lint unit unit-tarball compat fuzz integration molecule molecule-default molecule-vm molecule-stacks molecule-fleet test images demo bench test-upgrade clean

help:
	@echo "make demo         run the main job against the built-in lab VM"
	@echo "make test         setup + lint + unit + unit-tarball + compat + integration + molecule (what CI runs)"
	@echo "make setup        Debian packages, Docker, .venv, offline ansible-test bootstrap"
	@echo "make build        the collection tarball in build/, with the copy tools built into zipapps"
	@echo "make schema       regenerate the argument specs and the docs that list settings from the settings tables and the policy schema"
	@echo "make lint         yamllint, ansible-lint (production), ansible-test sanity"
	@echo "make unit         unit tests of module_utils and modules"
	@echo "make unit-tarball the unit tests inside the release tarball, installed with ansible-galaxy"
	@echo "make compat       the unit tests under ansible-core 2.16, 2.17, 2.18, 2.20 and 2.21 (one venv each)"
	@echo "make fuzz         the property tests with many new random examples (make unit runs a fixed set)"
	@echo "make integration  loop-device tests on this machine (root)"
	@echo "make molecule     molecule scenarios: default (docker), vm (qemu), stacks (qemu: NVMe, iSCSI+multipath, LVM, MD, NFS), fleet (IOTUNE_FLEET_SIZE containers, default 6)"
	@echo "make images       build the lab container and VM images (cached by recipe hash)"
	@echo "make test-upgrade the real Debian 12 -> 13 upgrade through upgrade_check.yml on a lab VM (~135 MB, 10-15 min; not in make test)"
	@echo "make bench        benchmarks on this machine: fio module vs fio CLI, iotune-copy vs dd and cp (copy speed, cache pollution), playbooks vs ansible -m ping on 10/20/40 lab containers"

$(PYTHON): requirements-dev.txt scripts/setup
	bash scripts/setup

setup:
	bash scripts/setup

# A copy of the working tree (tracked and new files, minus .gitignore'd ones) where
# ansible-test and ansible find the collection, with the copy tools built from tools/iotune_copy
# into their zipapps (roles/copy_tools/files/iotune-copy.pyz, iotune-bulk.pyz).
collection: $(PYTHON)
	@rm -rf $(COLL_DIR) && mkdir -p $(COLL_DIR)
	@git ls-files -z --cached --others --exclude-standard \
	  | rsync -a --from0 --ignore-missing-args --files-from=- ./ $(COLL_DIR)/
	@mkdir -p $(COLL_DIR)/roles/copy_tools/files && $(PYTHON) tools/zipapps.py $(COLL_DIR)/roles/copy_tools/files >/dev/null

# The release tarball, built from that copy, so that it holds the built copy tools: build/iotune-storage-<version>.tar.gz
build: collection
	@mkdir -p build
	cd $(COLL_DIR) && $(BIN)/ansible-galaxy collection build --force --output-path $(CURDIR)/build

# The parts of the roles' argument specs, the docs and the module docs that come from the settings
# tables (plugins/module_utils/settings/) and the policy schema built from them
# (plugins/module_utils/policy/schema.py); a unit test fails when they differ.
schema: collection
	cd $(COLL_DIR) && PYTHONPATH=$(COLL_ROOT) $(PYTHON) scripts/gen_schema --root $(CURDIR)

lint: collection
	$(BIN)/yamllint -s .
	$(BIN)/ansible-lint --profile production
	$(BIN)/antsibull-changelog lint
	$(BIN)/antsibull-changelog lint-changelog-yaml --strict changelogs/changelog.yaml
	cd $(COLL_DIR) && $(BIN)/ansible-test sanity --venv --python 3.11 --color no

unit: collection
	cd $(COLL_DIR) && PYTHONPATH=$(COLL_ROOT) $(PYTHON) -m pytest -q -p no:cacheprovider tests/unit

# The unit tests as a user of the release tarball runs them: built, installed with ansible-galaxy, run there
# (the tarball leaves out scripts/, lab/ and their tests).
unit-tarball: build
	rm -rf $(BUILD)/installed && mkdir -p $(BUILD)/installed
	$(BIN)/ansible-galaxy collection install --force -p $(BUILD)/installed build/iotune-storage-$$(sed -n 's/^version: *//p' galaxy.yml).tar.gz >/dev/null
	cd $(BUILD)/installed/ansible_collections/iotune/storage && PYTHONPATH=$(BUILD)/installed $(PYTHON) -m pytest -q -p no:cacheprovider tests/unit

# The unit tests under every other ansible-core from 2.16 to 2.21, one venv each (requirements/compat/).
compat: collection
	bash scripts/compat $(COLL_ROOT) $(BUILD)

# The property tests with many new random examples (make unit runs a fixed set): minutes, not for CI.
fuzz: collection
	cd $(COLL_DIR) && IOTUNE_FUZZ=1 PYTHONPATH=$(COLL_ROOT) $(PYTHON) -m pytest -q -p no:cacheprovider \
	  tests/unit/plugins/module_utils/parse/test_parser_properties.py tests/unit/plugins/module_utils/measure/test_fio_properties.py

integration: collection
	bash tests/integration/run

molecule-default: collection images
	$(BIN)/molecule test -s default

molecule-vm: collection images
	$(BIN)/molecule test -s vm

molecule-stacks: collection images
	$(BIN)/molecule test -s stacks

molecule-fleet: collection images
	$(BIN)/molecule test -s fleet

molecule: molecule-default molecule-vm molecule-stacks molecule-fleet

images: $(PYTHON)
	lab/container-image
	lab/vm-image

test: setup lint unit unit-tarball compat integration molecule

demo: collection images
	bash scripts/demo

bench: collection
	bash bench/run

# Not part of test: downloads about 135 MB into the guest and takes 10-15 minutes (docs/upgrades.md).
test-upgrade: collection images
	bash scripts/test-upgrade

clean:
	rm -rf build $(BUILD) tests/output
