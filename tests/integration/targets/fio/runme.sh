#!/usr/bin/env bash
# shellcheck disable=SC2154,SC2034  # work, mounts and loops are ../setup_loop_fs/loop_fs.sh's (set, and used by its cleanup)
# The fio module and benchmark_io.yml on this machine's kernel: scratch files on loop-device
# xfs and ext4 file systems, a read-only mount, raw loop devices with and without a signature.
# The measured xfs is on a loop device with direct I/O (its reads reach the disk under the image
# file); the devices that do not tell the truth are measured too and must be marked "memory": an
# xfs on a loop device without direct I/O (losetup's default: the host's page cache answers for the
# image file) and a tmpfs. The blank raw device keeps losetup's default: it is measured only to
# check the refusals and the destructive run, and must be marked memory as well.
# Then benchmark_io.yml on the xfs mount: reports with charts, rendered in headless Chromium.
set -eu
cd "$(dirname "$0")"

# shellcheck source=../setup_loop_fs/loop_fs.sh
source ../setup_loop_fs/loop_fs.sh
loop_fs_init fio

mkdir -p "$work/img" "$work/mnt/xfs" "$work/mnt/ro" "$work/mnt/cached" "$work/mnt/tmpfs" "$work/reports"
truncate -s 400M "$work/img/xfs.img" "$work/img/cached.img"
truncate -s 64M "$work/img/ext4.img" "$work/img/blank.img"
loop_xfs=$(losetup -f --show --direct-io=on "$work/img/xfs.img"); loops+=("$loop_xfs")
loop_cached=$(losetup -f --show "$work/img/cached.img"); loops+=("$loop_cached")
loop_ext4=$(losetup -f --show "$work/img/ext4.img"); loops+=("$loop_ext4")
loop_blank=$(losetup -f --show "$work/img/blank.img"); loops+=("$loop_blank")
mkfs.xfs -q -f "$loop_xfs"
mkfs.ext4 -q -F "$loop_ext4"
mkfs.xfs -q -f "$loop_cached"
[ "$(cat "/sys/block/${loop_xfs#/dev/}/loop/dio")" = 1 ] || { echo "FAIL: $loop_xfs has no direct I/O"; exit 1; }
mounts=("$work/mnt/xfs" "$work/mnt/ro" "$work/mnt/cached" "$work/mnt/tmpfs")
mount -t xfs "$loop_xfs" "$work/mnt/xfs"
mount -t ext4 -o ro "$loop_ext4" "$work/mnt/ro"
mount -t xfs "$loop_cached" "$work/mnt/cached"
mount -t tmpfs -o size=128m iotune-fio "$work/mnt/tmpfs"

echo "localhost ansible_connection=local ansible_python_interpreter=$(command -v python3)" >"$work/inventory"
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_NOCOLOR=true

ansible-playbook -i "$work/inventory" fio.yml -e fio_work="$work" -e fio_dir="$work/mnt/xfs" \
  -e fio_ro_dir="$work/mnt/ro" -e fio_ext4_dev="$loop_ext4" -e fio_blank_dev="$loop_blank" \
  -e fio_cached_dir="$work/mnt/cached" -e fio_tmpfs_dir="$work/mnt/tmpfs" -e fio_loop="${loop_xfs#/dev/}" \
  -e fio_cached_loop="${loop_cached#/dev/}" "$@"

# benchmark_io.yml: check mode measures nothing, then a real run writes the reports
bench=(ansible-playbook -i "$work/inventory" iotune.storage.benchmark_io -e iotune_report_dir="$work/reports"
       -e io_audit_host_report_dir="$work/host" -e io_benchmark_poll_delay=1
       -e "{\"iotune_benchmark\": {\"directory\": \"$work/mnt/xfs\", \"size\": \"64m\", \"runtime\": 2, \"repeat\": 2,
            \"jobs\": [\"seq-read\", \"rand-write-4k\", {\"preset\": \"seq-read\", \"direct\": false, \"name\": \"cached-read\"}]}}")
"${bench[@]}" --check >"$work/check.log" 2>&1 || { tail -30 "$work/check.log"; echo "FAIL: benchmark_io --check"; exit 1; }
grep -q "check mode: would measure 3 job(s) x 2" "$work/check.log" || { tail -30 "$work/check.log"; echo "FAIL: check mode plan"; exit 1; }
[ ! -e "$work/host" ] || { echo "FAIL: check mode wrote a report"; exit 1; }
"${bench[@]}" >"$work/bench.log" 2>&1 || { tail -40 "$work/bench.log"; echo "FAIL: benchmark_io"; exit 1; }
# the cache guard's reason, alone or after "MEMORY, not the disk:" when the figures say so too (buffered reads twice as
# fast as the direct ones of the run)
grep -q "fio job cached-read: .*buffered I/O on a 64 MiB working set" "$work/bench.log" ||
  { tail -40 "$work/bench.log"; echo "FAIL: no cache-guard warning"; exit 1; }
if find "$work/mnt/xfs" -mindepth 1 -maxdepth 1 -name '.iotune-fio-*' | grep -q .; then echo "FAIL: scratch file left behind"; exit 1; fi

python3 - "$work" <<'PY'
import json, os, subprocess, sys
work = sys.argv[1]
report = json.load(open(work + "/host/benchmark-latest.json"))
assert report["mode"] == "benchmark" and report["checks"] == [], report
bench = report["benchmark"]
assert bench["phases"] == ["run"] and bench["rolled_back"] is False, bench
results = bench["results"]["run"]["results"]
assert [r["name"] for r in results] == ["seq-read", "rand-write-4k", "cached-read"], results
assert [r["cache_suspect"] for r in results] == [False, False, True], results
assert results[0]["read"]["bw_bytes"] > 0 and results[1]["write"]["iops"] > 0
assert json.load(open(work + "/reports/hosts/localhost.json")) == report
page = "file://" + work + "/reports/report.html"
base = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
dom = subprocess.run(base + ["--dump-dom", page], capture_output=True, text=True, timeout=120, check=True)
assert "data-charts=" in dom.stdout and dom.stdout.count("<svg") >= 3, dom.stdout[:2000]
shot = work + "/reports/report.png"
subprocess.run(base + ["--window-size=1400,2000", "--screenshot=" + shot, page], capture_output=True, timeout=120, check=True)
assert open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(shot) > 20000
print("ok   benchmark_io: %d jobs, charts rendered (%d bytes of PNG)" % (len(results), os.path.getsize(shot)))
PY
