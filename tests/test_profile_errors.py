"""Broken profiles: every error names file, line, column, field and a fix — never a traceback."""

import json

import pytest

BASE = """\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata:
  name: broken
spec:
  platform: eks
  region: us-east-1
  kubernetesVersion: "1.33"
  nodePools:
    - name: pool
      gpu: A100-40GB
      gpusPerNode: 8
      instanceTypes: [p4d.24xlarge]
      sharing:
        mode: time-slicing
        replicas: 4
  argocd:
    repoURL: https://github.com/example/gitops.git
"""

# (case id, text replacement (old, new), expected findings: "line:col: severity rule message")
CASES = [
    ("wrong-type-string-for-int", ("gpusPerNode: 8", "gpusPerNode: eight"),
     ["12:20: error profile-schema 'spec.nodePools[0].gpusPerNode': 'eight' is not of type 'integer'"]),
    ("unquoted-version", ('kubernetesVersion: "1.33"', "kubernetesVersion: 1.33"),
     ["8:22: error profile-schema 'spec.kubernetesVersion': 1.33 is read as a number, but a string is expected"]),
    ("unquoted-version-trailing-zero", ('kubernetesVersion: "1.33"', "kubernetesVersion: 1.30"),
     ["8:22: error profile-schema 'spec.kubernetesVersion': 1.30 is read as a number, but a string is expected"]),
    ("unknown-key-typo", ("      gpusPerNode: 8", "      gpuPerNode: 8"),
     ["12:7: error profile-schema unknown field 'spec.nodePools[0].gpuPerNode'"]),
    ("unknown-top-level-key", ("kind: GPUProfile", "kind: GPUProfile\nstatus: {}"),
     ["3:1: error profile-schema unknown field 'status'"]),
    ("duplicate-key", ("  region: us-east-1", "  region: us-east-1\n  region: eu-west-1"),
     ["8:3: error yaml-duplicate-key duplicate key 'region' (the first one is on line 7)"]),
    ("missing-platform", ("  platform: eks\n", ""),
     ["5:1: error profile-schema missing required field 'platform' in 'spec'"]),
    ("missing-argocd", ("  argocd:\n    repoURL: https://github.com/example/gitops.git\n", ""),
     ["5:1: error profile-schema missing required field 'argocd' in 'spec'"]),
    ("bad-platform-enum", ("platform: eks", "platform: openshift"),
     ["6:13: error profile-schema 'spec.platform': 'openshift' is not one of ['eks', 'gke', 'gke-autopilot', 'aks', 'kubernetes']"]),
    ("bad-sharing-mode", ("mode: time-slicing", "mode: timeslicing"),
     ["15:15: error profile-schema 'spec.nodePools[0].sharing.mode': 'timeslicing' is not one of "
      "['none', 'time-slicing', 'mps', 'mig']"]),
    ("replicas-one", ("replicas: 4", "replicas: 1"),
     ["16:19: error profile-schema 'spec.nodePools[0].sharing.replicas': 1 is less than the minimum of 2"]),
    ("replicas-missing", ("        replicas: 4\n", ""),
     ["14:7: error profile-schema missing required field 'replicas' in 'spec.nodePools[0].sharing'"]),
    ("replicas-with-mig", ("mode: time-slicing", "mode: mig"),
     ["14:7: error profile-schema missing required field 'mig' in 'spec.nodePools[0].sharing'",
      "16:9: error profile-schema 'spec.nodePools[0].sharing.replicas' is not allowed with this sharing mode"]),
    ("bad-api-version", ("apiVersion: gengpu.dev/v1alpha1", "apiVersion: gengpu.dev/v1"),
     ["1:13: error profile-schema 'apiVersion': 'gengpu.dev/v1alpha1' was expected"]),
    ("bad-name", ("  name: broken", "  name: Broken_Cluster"),
     ["4:9: error profile-schema 'metadata.name': 'Broken_Cluster' does not match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"]),
    ("empty-pools", ("  nodePools:\n", "  nodePools: []\n  nodePoolz:\n"),
     ["9:3: error profile-schema 'spec.nodePools': [] should be non-empty",
      "10:3: error profile-schema unknown field 'spec.nodePoolz'"]),
    ("syntax-error", ("      instanceTypes: [p4d.24xlarge]", "      instanceTypes: [p4d.24xlarge"),
     ["14:14: error yaml-syntax invalid YAML: while parsing a flow sequence: did not find expected ',' or ']'"]),
    ("region-of-another-cloud", ("  region: us-east-1", "  region: eastus"),
     ["7:11: error region-format-mismatch spec.region 'eastus' is not a region name of Amazon EKS (like "
      "ap-south-1)",
      "15:15: warning shared-gpu-multi-request nodePools[0] time-slices without failRequestsGreaterThanOne: a "
      "container asking for 2 shared GPUs may get two slices of the same GPU"]),
    ("mig-layout-too-big", ("        mode: time-slicing\n        replicas: 4\n",
                            "        mode: mig\n        mig:\n          strategy: mixed\n          layout:\n"
                            "            3g.20gb: 3\n"),
     ["19:13: error mig-layout-invalid nodePools[0].sharing.mig.layout: 3 x 3g.20gb exceeds the maximum of 2 on "
      "A100-40GB (the layouts it can hold: `gengpu mig layouts A100-40GB`)"]),
    ("two-documents", None,
     ["1:1: error profile-schema a profile file holds exactly one document of kind GPUProfile"]),
]


def write(tmp_path, case, change):
    text = BASE if change else BASE + "---\n" + BASE
    if change:
        old, new = change
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / f"{case}.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("case,change,expected", CASES, ids=[c[0] for c in CASES])
def test_broken_profile(tmp_path, run, case, change, expected):
    write(tmp_path, case, change)
    result = run("validate", f"{case}.yaml", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if not line.startswith("  fix: ")]
    assert lines[:len(expected)] == [f"{case}.yaml:{e}" for e in expected]
    assert "Traceback" not in result.output
    # Every finding carries a fix.
    assert result.output.count("\n  fix: ") == len(expected)


def test_the_base_profile_is_clean(tmp_path, run):
    write(tmp_path, "base", ("", ""))
    result = run("validate", "base.yaml", cwd=tmp_path)
    assert result.exit_code == 0, result.output


def test_fix_hints_are_specific(tmp_path, run):
    write(tmp_path, "typo", ("      gpusPerNode: 8", "      gpuPerNode: 8"))
    write(tmp_path, "unquoted", ('kubernetesVersion: "1.33"', "kubernetesVersion: 1.33"))
    result = run("validate", "typo.yaml", "unquoted.yaml", "--output", "json", cwd=tmp_path)
    report = json.loads(result.output)
    fixes = {f["file"]: f["fix"] for f in report["findings"]}
    assert fixes["typo.yaml"].startswith("did you mean gpusPerNode? remove it or fix its spelling; allowed here: "
                                         "allocation, capacityTypes, confidentialComputing, consolidateAfter, consolidationPolicy, cudaVersion, "
                                         "gpu, "
                                         "gpusPerNode")
    assert fixes["unquoted.yaml"] == 'quote the value: "1.33"'
    assert report["summary"] == {"error": 2, "warning": 0, "info": 0}
    # replicas: 1 shares nothing: the fix says what does
    write(tmp_path, "one", ("replicas: 4", "replicas: 1"))
    result = run("validate", "one.yaml", "--output", "json", cwd=tmp_path)
    assert [f["fix"] for f in json.loads(result.output)["findings"]] == [
        "use 2 or more to share each GPU; for one pod per GPU, set sharing.mode: none"]
    # YAML reads 1.30 as 1.3: the fix quotes what the file says, not another version
    write(tmp_path, "thirty", ('kubernetesVersion: "1.33"', "kubernetesVersion: 1.30"))
    result = run("validate", "thirty.yaml", "--output", "json", cwd=tmp_path)
    assert [f["fix"] for f in json.loads(result.output)["findings"]] == ['quote the value: "1.30"']


def test_one_bad_file_does_not_hide_the_others(tmp_path, run):
    write(tmp_path, "a", ("platform: eks", "platform: openshift"))
    write(tmp_path, "b", ("replicas: 4", "replicas: 0"))
    write(tmp_path, "c", None)
    result = run("validate", "a.yaml", "b.yaml", "c.yaml", cwd=tmp_path)
    files = [line.split(":")[0] for line in result.output.splitlines() if not line.startswith(" ")]
    assert files[:3] == ["a.yaml", "b.yaml", "c.yaml"]


def test_missing_file_is_a_usage_error(tmp_path, run):
    result = run("validate", "nope.yaml", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.output == "gengpu: error: nope.yaml: no such file or folder\n"
