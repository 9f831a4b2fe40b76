"""`gengpu diff --base REF` on a two-commit repository."""

import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}


@pytest.fixture
def history(repo, run, monkeypatch):
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)

    def git(*args):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "base")
    profile = repo / "profiles" / "eks-l4-mps.yaml"
    profile.write_text(profile.read_text().replace("replicas: 4", "replicas: 6").replace("v26.7.0", "v26.3.0"))
    (repo / "profiles" / "gke-autopilot-l4.yaml").unlink()
    assert run("build").exit_code == 0
    git("add", "-A")
    git("commit", "-qm", "more MPS clients, older operator, one cluster less")
    return repo


def test_diff_shows_each_clusters_changes(history, run):
    result = run("diff", "--base", "HEAD~1", "--exit-code")
    assert result.exit_code == 1
    out = result.output
    assert "GPU spend" not in out  # no limit changed, and the removed cluster's pool had none
    assert out.startswith("## eks-l4-mps\n\n~ Application argocd/gpu-eks-l4-mps\n")
    assert "    -    targetRevision: v26.7.0\n    +    targetRevision: v26.3.0\n" in out
    assert "~ ConfigMap gpu-operator/gengpu-device-plugin-config\n" in out
    assert "    -          replicas: 4\n    +          replicas: 6\n" in out
    assert "~ NodeOverlay l4-mps-1gpu\n" in out
    assert "    -    nvidia.com/gpu: '4'\n    +    nvidia.com/gpu: '6'\n" in out
    assert "## gke-autopilot-l4 (removed cluster)\n\n- Application argocd/gpu-gke-autopilot-l4 (removed)\n" in out
    assert "## aks-t4-timeslicing" not in out  # unchanged clusters stay out of the report


def test_no_changes(history, run):
    result = run("diff", "--base", "HEAD", "--exit-code")
    assert (result.exit_code, result.output) == (0, "No changes against HEAD.\n")


def test_unknown_revision(history, run):
    result = run("diff", "--base", "nope")
    assert (result.exit_code, result.output) == (2, "gengpu: error: unknown git revision 'nope'\n")


MIG_POOL = """\
    - name: h100-mig
      gpu: H100-80GB
      gpusPerNode: 8
      instanceTypes: [p5.48xlarge]
      capacityTypes: [on-demand]
      provisioner: karpenter
      sharing:
        mode: mig
        mig:
          strategy: mixed
          preset: all-balanced
"""


def test_adding_a_mig_pool_shows_every_file_it_changes(history, run):
    """The most dangerous change of the issue: the operator's values (MIG strategy, mig-manager rebooting nodes)
    are part of the diff, and a new NodePool comes with its body."""
    profile = history / "profiles" / "eks-spot-ondemand.yaml"
    text = profile.read_text()
    assert "  # The account's granted quotas" in text
    profile.write_text(text.replace("  # The account's granted quotas", MIG_POOL + "  # The account's granted quotas"))
    assert run("build").exit_code == 0
    result = run("diff", "--base", "HEAD")
    out = result.output
    # the new pool has no limits: the spend lines say so before the resources
    assert out.startswith("GPU spend and quota at the limits (estimates):\n\n  eks-spot-ondemand: no GPU change, "
                          "up to +$0.00/month (a pool is now unbounded)\n")
    assert "~ file gpu-operator-values.yaml\n" in out
    assert "    -  strategy: none\n    +  strategy: mixed\n" in out
    assert "    +  - name: WITH_REBOOT\n    +    value: 'true'\n" in out
    assert "+ NodePool h100-mig (new)\n" in out
    assert "    +      - key: karpenter.k8s.aws/instance-gpu-count\n" in out
    assert "+ file components/h100-mig-1g.10gb/placement.yaml (new)\n" in out
    report = json.loads(run("diff", "--base", "HEAD", "--output", "json").output)
    keys = {c["key"]: c["change"] for c in report["clusters"]["eks-spot-ondemand"]["changes"]}
    assert keys["file gpu-operator-values.yaml"] == "changed" and keys["NodePool h100-mig"] == "added"
    markdown = run("diff", "--base", "HEAD", "--output", "markdown").output
    assert "<details><summary><code>~ file gpu-operator-values.yaml</code></summary>\n\n```diff\n" in markdown


def test_a_raised_limit_shows_the_gpus_spend_and_quota_it_adds(history, run):
    """8 -> 64 L4s on eks-l4-mps: +56 GPUs, priced at the dearer of the pool's two shapes per GPU (g6.2xlarge,
    on-demand in us-east-1 from karpenter-provider-aws's generated table), 730 hours a month; the On-Demand G
    quota grows by 56 nodes of 8 vCPUs."""
    import yaml

    table = yaml.safe_load((REPO / "gengpu" / "data" / "prices.yaml").read_text())
    row = table["eks"]["g6.2xlarge"]["us-east-1"]
    assert row["onDemandFrom"] == "karpenter-provider-aws/pricing_aws"
    assert table["eks"]["g6.2xlarge"]["us-east-1"]["onDemand"] > table["eks"]["g6.xlarge"]["us-east-1"]["onDemand"]
    expected = 56 * row["onDemand"] * 730
    profile = history / "profiles" / "eks-l4-mps.yaml"
    profile.write_text(profile.read_text().replace("        gpus: 8\n", "        gpus: 64\n")
                       .replace("L-DB2E81BA: 64", "L-DB2E81BA: 512"))
    assert run("build").exit_code == 0
    out = run("diff", "--base", "HEAD").output
    assert out.startswith("GPU spend and quota at the limits (estimates):\n\n"
                          f"  eks-l4-mps: +56 L4, up to +${expected:,.0f}/month; quota us-east-1 Running On-Demand G "
                          "and VT instances (L-DB2E81BA) +448\n\nEstimates from list prices")
    spend = json.loads(run("diff", "--base", "HEAD", "--output", "json").output)["spend"]["eks-l4-mps"]
    assert spend["gpus"] == {"L4": 56} and spend["maxMonthly"]["change"] == round(expected, 2)
    markdown = run("diff", "--base", "HEAD", "--output", "markdown").output
    assert markdown.startswith("## GPU spend and quota at the limits (estimates)\n\n- **eks-l4-mps**: +56 L4")
