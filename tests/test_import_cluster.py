"""gengpu import --snapshot: the profile a running cluster implies, from real node states (tests/live-corpus).
Adopting is import, then check: a healthy cluster's own profile must find nothing wrong with it."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

import live_index

CORPUS = Path(__file__).resolve().parent / "live-corpus"
HEALTHY = [e for e in live_index.states() if e["verdict"] == "healthy"]


def test_a_dgx_a100_on_openshift_becomes_its_profile(run, tmp_path):
    """openshift-psap's DGX A100 (a whole Node, as the Python client dumps it): nodes you bring, one pool tied to its
    nodes by what they are (check matches the model and count; a selector on GFD's product would change with MIG and
    sharing: -MIG-<profile>, -SHARED), 8 GPUs, NVIDIA's stock all-balanced under the mixed strategy."""
    state = "openshift-psap-blog-artifacts-dgxa100-all-balanced-mixed.yaml"
    shutil.copy(CORPUS / "states" / state, tmp_path / state)
    result = run("import", "--snapshot", state, "--name", "dgx", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"""# Imported by gengpu from {state}: 1 node(s), 1 GPU pool(s).
# check: no node states its kubelet version; spec.kubernetesVersion is a guess
# check: limits, capacity types, taints and quotas are the team's to set: a snapshot does not show them
# check: spec.argocd.repoURL is a placeholder: the repository Argo CD syncs (or set spec.gitops: flux)
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata:
  name: dgx
spec:
  platform: kubernetes
  kubernetesVersion: '1.33'
  operator:
    enabled: true
  nodePools:
  - name: a100-sxm4-40gb-x8
    gpu: A100-40GB
    gpusPerNode: 8
    sharing:
      mode: mig
      mig:
        strategy: mixed
        preset: all-balanced
  argocd:
    repoURL: https://github.com/example/gitops.git
"""


@pytest.mark.parametrize("entry", HEALTHY, ids=[Path(e["file"]).stem for e in HEALTHY])
def test_adopting_a_healthy_cluster(run, tmp_path, entry):
    """`gengpu import` on a healthy state as pasted: a complete profile that checks clean against the same state, or
    exit 1 naming each field the paste cannot give (its GPU model, its GPU count); never exit 0 with nothing."""
    name = Path(entry["file"]).name
    shutil.copy(CORPUS / entry["file"], tmp_path / name)
    result = run("import", "--snapshot", name, "-o", "imported.yaml", cwd=tmp_path)
    written = tmp_path / "imported.yaml"
    if not written.exists():
        assert result.exit_code == 1 and "nothing to import a profile from" in result.output
        return
    text = written.read_text()
    pools = yaml.safe_load(text)["spec"]["nodePools"]
    missing = [f"set {field}" for field in ("gpu", "gpusPerNode")
               if any(p.get(field) in (None, "UNKNOWN") for p in pools)]
    if missing:
        assert result.exit_code == 1 and all(m in text for m in missing), text
        return
    assert result.exit_code == 0, result.output
    check = run("check", "imported.yaml", "--snapshot", name, "--output", "json", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(check.stdout)["findings"] if f["severity"] != "info"] == [], text
    COMPLETE.append(entry["file"])


COMPLETE: list[str] = []


def test_the_import_figure():
    """Printed for the closing note (run after the imports above): healthy states whose import is complete and checks
    clean. A floor, so that a change that loses some is seen."""
    from gengpu.live import snapshot

    with_nodes = [e for e in HEALTHY if (snapshot.load((CORPUS / e["file"]).read_bytes(), e["file"])[0] or
                                         snapshot.Snapshot("")).nodes]
    print(f"\nimport: {len(COMPLETE)} of {len(HEALTHY)} healthy states ({len(with_nodes)} show a node) give a complete "
          "profile that checks clean")
    if len(COMPLETE) > 0:  # (when the parametrized imports ran in this session)
        assert len(COMPLETE) >= 28


def test_import_writes_only_a_new_file(run, tmp_path):
    state = CORPUS / "states" / "k8s-device-plugin-1501-h100x8-labels-non-mig.txt"
    shutil.copy(state, tmp_path / state.name)
    (tmp_path / "p.yaml").write_text("mine\n")
    result = run("import", "--snapshot", state.name, "-o", "p.yaml", cwd=tmp_path)
    assert (result.exit_code, result.stderr) == (
        2, "gengpu: error: p.yaml exists; gengpu import writes only a new file (or to standard output)\n")
    assert (tmp_path / "p.yaml").read_text() == "mine\n"
    assert run("import", cwd=tmp_path).exit_code == 2
