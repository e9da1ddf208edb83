"""The controller-side fleet reports of the audit: JSON, JUnit XML, HTML.

They are files on the controller, so these tests read them directly; the
testinfra host fixture is used only to match them with the host's own report.
"""
import json
import os
import subprocess

import pytest

REPORTS = os.path.join(os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent"), "reports")
XSD = os.path.join(os.environ.get("MOLECULE_PROJECT_DIRECTORY", "."), ".venv", "share", "iotune", "junit-10.xsd")


@pytest.fixture(scope="module")
def summary():
    with open(os.path.join(REPORTS, "summary.json")) as handle:
        return json.load(handle)


def test_controller_copy_matches_host_report(host):
    name = host.backend.get_hostname()
    with open(os.path.join(REPORTS, "hosts", name + ".json")) as handle:
        controller = json.load(handle)
    on_host = json.loads(host.file("/var/lib/iotune/reports/audit-latest.json").content_string)
    assert controller == on_host
    # the host context comes from the one io_facts pass of the audit
    assert on_host["host_facts"]["fio"] == host.check_output("fio --version").strip().replace("fio-", "")
    assert on_host["host_facts"]["memory_bytes"] > 0


def test_summary_totals(summary):
    assert summary["hosts"] >= 1
    assert sum(summary["summary"].values()) == len(summary["checks"])
    assert all("host" in c and "status" in c for c in summary["checks"])


def test_junit_validates_against_the_ci_schema(summary):
    junit = os.path.join(REPORTS, "junit.xml")
    result = subprocess.run(["xmllint", "--noout", "--schema", XSD, junit],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    with open(junit) as handle:
        text = handle.read()
    assert text.count("<testcase ") == len(summary["checks"])
    failing = summary["summary"]["drift"] + summary["summary"]["not_persistent"]
    assert text.count("<failure ") == failing


def test_html_renders_in_headless_chromium(summary, tmp_path):
    page = "file://" + os.path.join(REPORTS, "report.html")
    base = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
    dom = subprocess.run(base + ["--dump-dom", page], capture_output=True, text=True, timeout=120, check=True)
    # The page's script sets data-rendered to the number of checks once it has built its views.
    assert 'data-rendered="%d"' % len(summary["checks"]) in dom.stdout
    assert "Uncaught" not in dom.stderr
    shot = os.path.join(REPORTS, "report.png")
    subprocess.run(base + ["--window-size=1400,900", "--screenshot=" + shot, page],
                   capture_output=True, text=True, timeout=120, check=True)
    with open(shot, "rb") as handle:
        png = handle.read()
    assert png.startswith(b"\x89PNG") and len(png) > 20000
