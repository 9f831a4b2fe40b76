"""gengpu import --snapshot: the profile a running cluster implies, from real node states (tests/live-corpus).
Adopting is import, then check: a healthy cluster's own profile must find nothing wrong with it."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

CORPUS = Path(__file__).resolve().parent / "live-corpus"
HEALTHY = [e for e in yaml.safe_load((CORPUS / "states.yaml").read_text())["states"] if e["verdict"] == "healthy"]


def test_a_dgx_a100_on_openshift_becomes_its_profile(run, tmp_path):
    """openshift-psap's DGX A100 (a whole Node, as the Python client dumps it): nodes you bring, one pool selected by
    GFD's product, 8 GPUs, NVIDIA's stock all-balanced under the mixed strategy."""
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
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
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
    """Either the profile is whole and `check` finds nothing wrong with the cluster it came from, or import exits 1
    naming the field the nodes could not give (never a profile that passes and then fails its own cluster)."""
    state = Path(entry["file"]).name
    shutil.copy(CORPUS / entry["file"], tmp_path / state)
    imported = run("import", "--snapshot", state, "--name", "adopted", "-o", "p.yaml", cwd=tmp_path)
    if imported.exit_code == 1:
        assert "error profile-schema missing required field" in imported.stderr, imported.stderr
        return
    assert imported.exit_code == 0, imported.output
    checked = run("check", "p.yaml", "--snapshot", state, "--output", "json", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(checked.stdout)["findings"] if f["severity"] != "info"] == []


def test_import_writes_only_a_new_file(run, tmp_path):
    state = CORPUS / "states" / "k8s-device-plugin-1501-h100x8-labels-non-mig.txt"
    shutil.copy(state, tmp_path / state.name)
    (tmp_path / "p.yaml").write_text("mine\n")
    result = run("import", "--snapshot", state.name, "-o", "p.yaml", cwd=tmp_path)
    assert (result.exit_code, result.stderr) == (
        2, "gengpu: error: p.yaml exists; gengpu import writes only a new file (or to standard output)\n")
    assert (tmp_path / "p.yaml").read_text() == "mine\n"
    assert run("import", cwd=tmp_path).exit_code == 2
