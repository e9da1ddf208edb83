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
# make test (scripts/test-lanes) makes the collection and the tarball once, the lab images beside the
# first steps, and runs the steps two at a time with IOTUNE_PREPARED=1, so that no step rebuilds what
# another reads.
ifdef IOTUNE_PREPARED
COLLECTION :=
INSTALLED :=
IMAGES :=
BUILT :=
else
COLLECTION := collection
INSTALLED := installed
IMAGES := images
BUILT := build
endif

.PHONY: help setup collection build schema lint docs unit installed unit-tarball compat fuzz integration molecule molecule-default molecule-vm molecule-stacks molecule-fleet molecule-platforms molecule-unix test images demo bench bench-tiny test-upgrade test-upgrade-kernel clean

help:
	@echo "make demo         run the main job against the built-in lab VM"
	@echo "make test         setup, then lint, unit, compat, integration and the container scenarios beside the two VM scenarios (what CI runs)"
	@echo "make setup        Debian packages, Docker, .venv, offline ansible-test bootstrap"
	@echo "make build        the collection tarball in build/, with the copy tools built into zipapps"
	@echo "make schema       regenerate the argument specs and the docs that list settings from the settings tables and the policy schema"
	@echo "make lint         yamllint, ansible-lint (production), antsibull-changelog, galaxy-importer on the tarball, ansible-test sanity"
	@echo "make docs         the documentation site (antsibull-docs and Sphinx: modules, roles, filters, the guides) in build/docs/html, opened in headless Chromium"
	@echo "make unit         unit tests of module_utils and modules"
	@echo "make unit-tarball the unit tests inside the release tarball, installed with ansible-galaxy"
	@echo "make compat       the installed tarball under ansible-core 2.16 to 2.20 (one venv each): playbooks on Debian 11/12/13 containers and ansible-test sanity under each (whole under 2.16; IOTUNE_COMPAT_SANITY=full: under all), the unit tests under 2.16"
	@echo "make fuzz         the property tests with many new random examples (make unit runs a fixed set)"
	@echo "make integration  loop-device tests on this machine (root)"
	@echo "make molecule     molecule scenarios: default (docker), unix (docker: simulated HP-UX and Solaris hosts), vm (qemu), stacks (qemu: NVMe, iSCSI+multipath, LVM, MD, NFS), fleet (IOTUNE_FLEET_SIZE containers, default 6), platforms (bullseye, bookworm, trixie)"
	@echo "make images       build the lab container images (Debian 11, 12, 13) and the VM image at once (cached by recipe hash)"
	@echo "make test-upgrade the real Debian 12 -> 13 upgrade through upgrade_check.yml on a lab VM (~135 MB, 10-15 min; not in make test)"
	@echo "make test-upgrade-kernel  the bookworm-backports kernel alone on the lab VM, before and after its reboot (~30 min; not in make test)"
	@echo "make bench        benchmarks on this machine: fio module vs fio CLI, iotune-copy vs dd and cp (copy speed, cache pollution), playbooks vs ansible -m ping on 10/40/100 lab containers, A/A searches and the read-ahead search of tune_io on a lab VM; make bench PART... runs only those parts (fio copy fleet mounts args tune)"
	@echo "make bench-tiny   every benchmark at a tiny size (in make test): each must run right; its goals are not judged"

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

lint: $(COLLECTION) $(BUILT)
	$(BIN)/yamllint -s .
	$(BIN)/ansible-lint --profile production
	$(BIN)/antsibull-changelog lint
	$(BIN)/antsibull-changelog lint-changelog-yaml --strict changelogs/changelog.yaml
	bash scripts/galaxy-import build/iotune-storage-$$(sed -n 's/^version: *//p' galaxy.yml).tar.gz $(BUILD)
	bash scripts/docs-site $(BUILD) $(COLL_DIR) --lint
	cd $(COLL_DIR) && $(BIN)/ansible-test sanity --venv --python $$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])') --color no

unit: $(COLLECTION)
	cd $(COLL_DIR) && PYTHONPATH=$(COLL_ROOT) $(PYTHON) -m pytest -q -p no:cacheprovider -n auto tests/unit

# The release tarball installed with ansible-galaxy, as a user installs it: $(BUILD)/installed
# (it leaves out scripts/, lab/, molecule/ and their tests: build_ignore in galaxy.yml).
installed: build
	rm -rf $(BUILD)/installed && mkdir -p $(BUILD)/installed
	$(BIN)/ansible-galaxy collection install --force -p $(BUILD)/installed build/iotune-storage-$$(sed -n 's/^version: *//p' galaxy.yml).tar.gz >/dev/null

# The unit tests as a user of the release tarball runs them (make compat runs them so under every other core).
unit-tarball: installed
	cd $(BUILD)/installed/ansible_collections/iotune/storage && PYTHONPATH=$(BUILD)/installed $(PYTHON) -m pytest -q -p no:cacheprovider -n auto tests/unit

# The installed tarball under every other ansible-core from 2.16 to 2.20, one venv each
# (requirements/compat/): the playbooks against three lab containers over SSH and ansible-test sanity
# under each, its unit tests under the oldest.
compat: $(INSTALLED) $(IMAGES)
	bash scripts/compat $(BUILD)/installed $(BUILD)

# The property tests with many new random examples (make unit runs a fixed set): minutes, not for CI.
fuzz: collection
	cd $(COLL_DIR) && IOTUNE_FUZZ=1 PYTHONPATH=$(COLL_ROOT) $(PYTHON) -m pytest -q -p no:cacheprovider \
	  tests/unit/plugins/module_utils/parse/test_parser_properties.py tests/unit/plugins/module_utils/measure/test_fio_properties.py

integration: $(COLLECTION)
	bash tests/integration/run

molecule-default: $(COLLECTION) $(IMAGES)
	$(BIN)/molecule test -s default

molecule-vm: $(COLLECTION) $(IMAGES)
	$(BIN)/molecule test -s vm

molecule-stacks: $(COLLECTION) $(IMAGES)
	$(BIN)/molecule test -s stacks

# the site from the built collection (its plugins' docs and docs/), then two of its pages in Chromium
docs: $(COLLECTION) $(PYTHON)
	bash scripts/docs-site $(BUILD) $(COLL_DIR)
	$(PYTHON) -m pytest -q -p no:cacheprovider tests/docs

molecule-fleet: $(COLLECTION) $(IMAGES)
	$(BIN)/molecule test -s fleet

molecule-platforms: $(COLLECTION) $(IMAGES)
	$(BIN)/molecule test -s platforms

molecule-unix: $(COLLECTION) $(IMAGES)
	$(BIN)/molecule test -s unix

molecule: molecule-default molecule-unix molecule-platforms molecule-vm molecule-stacks molecule-fleet

images: $(PYTHON)
	lab/images

test: setup
	bash scripts/test-lanes $(BUILD)

demo: collection images
	bash scripts/demo

# make bench PART...: only those parts of bench/run (make bench fleet: the fleet part alone)
BENCH_PARTS := $(shell sed -n 's/^  "\([a-z]*\)|.*/\1/p' bench/run)
bench: collection
	bash bench/run $(filter $(BENCH_PARTS),$(MAKECMDGOALS))
ifneq ($(filter bench,$(MAKECMDGOALS)),)
$(filter $(BENCH_PARTS),$(MAKECMDGOALS)):
	@:
endif

# every part of bench/run at a tiny size, so that no benchmark rots unseen (a step of make test)
bench-tiny: $(COLLECTION) $(IMAGES)
	bash bench/run --tiny

# Not part of test: downloads about 135 MB into the guest and takes 10-15 minutes (docs/upgrades.md).
test-upgrade: collection images
	bash scripts/test-upgrade

# Not part of test: the bookworm-backports kernel alone (a newer kernel and a flavour switch, cloud -> generic);
# its initramfs takes about 20 minutes under TCG.
test-upgrade-kernel: collection images
	IOTUNE_UPGRADE_KERNEL=1 bash scripts/test-upgrade

clean:
	rm -rf build $(BUILD) tests/output
