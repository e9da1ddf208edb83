"""A measured search on the VM (tune_io.yml, docs/tuning.md), after the benchmark tests ("y_t" sorts
after "y_b"), small enough for make test:

- read-ahead for a cold buffered sequential read on vdb, whose read-ahead prepare.yml cut to 8 KiB:
  every candidate applied through the journal and undone after its measurement, the VM's state
  digest (molecule/shared/state_digest.py, not the module's own) the prepared one afterwards;
- an A/A search (the current value against itself) answers "no difference".
The full search and the A/A series run in make bench (bench/tune_bench.py).
"""
import json
import os

import yaml

# prepared and quiet_host are fixtures: importing them makes them available here (quiet_host is
# autouse: measure only when the other lane of make test has ended)
from test_x_enforce import differences, digest, playbook, prepared  # noqa: F401 pylint: disable=unused-import
from test_y_benchmark import quiet_host  # noqa: F401 pylint: disable=unused-import

REPORTS = os.path.join(os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent"), "tune-reports")


def tune(tmp_path, name, search):
    run_id = "vm-tune-" + name
    path = tmp_path / ("%s.yml" % name)
    path.write_text(yaml.safe_dump({"iotune_tune": dict(search, run_id=run_id), "tune_io_poll_delay": 3}))
    rc, output = playbook("tune_io", "-e", "@%s" % path, reports="tune-reports")
    assert rc == 0, output[-4000:]
    with open(os.path.join(REPORTS, "tune", "iotune-vm-%s.json" % run_id)) as handle:
        return json.load(handle), output


def test_a_short_search_leaves_the_vm_as_it_was(host, prepared, tmp_path):
    # 8 KiB buffered reads of a new file, read once after fio drops its pages (fadvise_hint 0: no
    # POSIX_FADV_SEQUENTIAL doubling the window), as test_y_benchmark's read-ahead case
    report, output = tune(tmp_path, "read-ahead", {
        "target": "/data/ext4", "settings": {"read_ahead_kb": [4096]}, "size": "48m", "runtime": 2, "rounds": 6,
        "max_seconds": 600, "workload": {"rw": "read", "bs": "8k", "direct": False, "ioengine": "psync",
                                         "name": "read-ahead", "options": {"fadvise_hint": 0}}})
    search = report["search"]
    print("\n" + search["msg"])
    assert search["current"] == {"read_ahead_kb": 8} and search["device"]["name"] == "vdb"
    assert len(search["rounds"]) == 6 and all(sorted(r) == ["current", "read_ahead_kb=4096"] for r in search["rounds"])
    assert len(search["trials"]) == 6
    assert search["state_digest"]["before"] == search["state_digest"]["after"]
    assert search["decision"]["verdicts"][0]["outcome"] in ("better", "no-difference", "undecided", "inconsistent", "worse")
    assert "search: " + search["msg"] in output
    assert host.file("/sys/block/vdb/queue/read_ahead_kb").content_string.strip() == "8"
    assert differences(prepared, digest(host)) == []
    assert host.run("ls -A /data/ext4 | grep -q '^.iotune-fio-'").rc != 0, "a scratch file was left behind"


def test_an_a_a_search_finds_no_difference(host, prepared, tmp_path):
    # 8 rounds: the interval of one candidate at 95 % is then the lowest to the highest paired effect,
    # so it excludes zero only when all 8 fall on one side: 2 in 256 A/A runs (docs/tuning.md)
    report, dummy = tune(tmp_path, "a-a", {"target": "/data/xfs", "settings": {"read_ahead_kb": [128]}, "aa": True,
                                           "workload": "seq-read-direct", "size": "32m", "runtime": 1, "rounds": 8})
    search = report["search"]
    print("\n" + search["msg"])
    assert search["candidates"] == [{"name": "current-again", "setting": None, "value": None}]
    assert search["trials"] == []
    # "no difference" where the run could have seen 25 %, else "undecided" naming the rounds it would need; never "better"
    verdict = search["decision"]["verdicts"][0]
    assert search["decision"]["recommended"] is None and verdict["outcome"] in ("no-difference", "undecided"), verdict
    assert (verdict["detectable"] <= 0.25) == (verdict["outcome"] == "no-difference"), verdict
    assert differences(prepared, digest(host)) == []
