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
    # no GPU limit changed, and the removed cluster's pool had none: no spend lines. The MPS clients change restarts
    # the device plugin of the pool's nodes; the operator's version changes no driver on EKS (the AMI has it).
    assert "GPU spend" not in out
    assert out.startswith(
        "Disruption (what applying this merge restarts, evicts or replaces):\n\n"
        "  eks-l4-mps: device-plugin config l4-mps: mps (nvidia.com/gpu x4), MIG strategy none -> mps (nvidia.com/gpu "
        "x6), MIG strategy none\n"
        "    nodes: every node labelled nvidia.com/device-plugin.config=l4-mps\n"
        "    effect: the device plugin restarts and advertises the new resources; running pods keep their devices, "
        "pods asking for a resource the nodes no longer advertise stay Pending\n\n"
        "## eks-l4-mps\n\n~ Application argocd/gpu-eks-l4-mps\n")
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
    # The MIG strategy is the cluster's: every device plugin restarts with it. The new pool has no limits: the spend
    # lines say so before the resources.
    restart = ("    nodes: every node labelled nvidia.com/device-plugin.config={}\n    effect: the device plugin "
               "restarts and advertises the new resources; running pods keep their devices, pods asking for a "
               "resource the nodes no longer advertise stay Pending\n")
    assert out.startswith(
        "Disruption (what applying this merge restarts, evicts or replaces):\n\n"
        "  eks-spot-ondemand: device-plugin config default: no sharing, MIG strategy none -> no sharing, MIG strategy "
        "mixed\n" + restart.format("default") +
        "  eks-spot-ondemand: device-plugin config gpu: no sharing, MIG strategy none -> no sharing, MIG strategy "
        "mixed\n" + restart.format("gpu") + "\n"
        "GPU spend and quota at the limits (estimates):\n\n  eks-spot-ondemand: no GPU change, "
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
    assert out.startswith("Disruption:\n\nNone: nothing here restarts, evicts or replaces what GPU workloads run "
                          "on.\n\nGPU spend and quota at the limits (estimates):\n\n"
                          f"  eks-l4-mps: +56 L4, up to +${expected:,.0f}/month; quota us-east-1 Running On-Demand G "
                          "and VT instances (L-DB2E81BA) +448\n\nEstimates from list prices")
    spend = json.loads(run("diff", "--base", "HEAD", "--output", "json").output)["spend"]["eks-l4-mps"]
    assert spend["gpus"] == {"L4": 56} and spend["maxMonthly"]["change"] == round(expected, 2)
    markdown = run("diff", "--base", "HEAD", "--output", "markdown").output
    assert markdown.startswith("## Disruption\n\nNone: nothing here restarts, evicts or replaces what GPU workloads run "
                               "on.\n\n## GPU spend and quota at the limits (estimates)\n\n- **eks-l4-mps**: +56 L4")


def test_disruption_names_repartitions_node_replacements_driver_upgrades_and_scripts(history, run):
    """Four merges that disrupt a running cluster, each named with the nodes it touches: a new MIG layout
    (re-partition), an instance family less (Karpenter drift replaces the pool's nodes), a driver version the operator
    installs (node-by-node reload), and a changed node pool script (not applied by Argo CD at all)."""
    def edit(name, old, new):
        path = history / "profiles" / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))

    edit("eks-h100-mig.yaml", "            2g.20gb: 1\n            1g.10gb: 2\n", "            1g.10gb: 4\n")
    edit("eks-spot-ondemand.yaml", "instanceTypes: [p3, ", "instanceTypes: [")
    edit("aks-t4-timeslicing.yaml", "    driver: preinstalled\n", "    driver: operator\n")
    assert run("build").exit_code == 0
    subprocess.run(["git", "add", "-A"], cwd=history, check=True)
    subprocess.run(["git", "commit", "-qm", "driver by the operator"], cwd=history, check=True)
    edit("aks-t4-timeslicing.yaml", "    driver: operator\n", "    driver: operator\n    driverVersion: 580.95.05\n")
    assert run("build").exit_code == 0
    report = json.loads(run("diff", "--base", "HEAD~1", "--output", "json").output)["disruption"]
    assert {cluster: [d["kind"] for d in entry["disruptions"]] for cluster, entry in report.items()} == {
        "aks-t4-timeslicing": [],
        "eks-h100-mig": ["mig-repartition"],
        "eks-spot-ondemand": ["node-replacement"],
    }
    assert report["aks-t4-timeslicing"]["manual"] == ["aks-nodepool-t4-shared.sh"]
    assert report["eks-h100-mig"]["disruptions"][0]["nodes"] == "every node labelled nvidia.com/mig.config=h100-mig"
    assert report["eks-spot-ondemand"]["disruptions"][0]["what"] == "NodePool gpu: its node template changed"
    # against the commit where the operator already installed the driver, only its version changes
    out = run("diff", "--base", "HEAD").output
    assert out.startswith(
        "Disruption (what applying this merge restarts, evicts or replaces):\n\n"
        "  aks-t4-timeslicing: driver version the chart default -> 580.95.05\n"
        "    nodes: every GPU node whose driver the GPU Operator installs\n"
        "    effect: the upgrade controller reloads the driver node by node (driver.upgradePolicy), deleting each "
        "node's GPU pods first\n\n")
    markdown = run("diff", "--base", "HEAD~1", "--output", "markdown").output
    assert "- **eks-h100-mig**: MIG config h100-mig changed. Nodes: every node labelled nvidia.com/mig.config=" \
           "h100-mig. The MIG manager re-partitions their GPUs" in markdown


def test_a_dra_pools_new_mig_layout_says_to_restart_the_dra_kubelet_plugin(history, run):
    """gke-dra's A100 DRA pool goes from seven 1g.5gb devices to three 2g.10gb: the MIG manager re-partitions the
    pool's nodes, and the DRA kubelet plugin, which lists MIG devices only when it starts, must be restarted."""
    profile = history / "profiles" / "gke-dra.yaml"
    profile.write_text(profile.read_text().replace("preset: all-1g.5gb", "preset: all-2g.10gb"))
    assert run("build").exit_code == 0
    report = json.loads(run("diff", "--base", "HEAD", "--output", "json").output)["disruption"]
    [found] = report["gke-dra"]["disruptions"]
    assert (found["kind"], found["pool"]) == ("mig-repartition", "a100-mig")
    assert found["effect"].endswith("; the DRA kubelet plugin lists MIG devices only when it starts, so restart its "
                                    "pods on those nodes (label nvidia-dra-driver-gpu-component=kubelet-plugin) once "
                                    "nvidia.com/mig.config.state is success")


def test_a_link_out_of_the_repository_at_the_base_is_not_followed(history, run):
    """A commit holding overlays/<name>/x -> /etc/passwd (or ../../outside): `git archive` carries the link, and
    extracting it made diff exit 3. Such a link is left out of the base: nothing outside is read or written."""
    (history / "overlays" / "eks-l4-mps" / "passwd.yaml").symlink_to("/etc/passwd")
    (history / "overlays" / "eks-l4-mps" / "up.yaml").symlink_to("../../../outside.yaml")
    subprocess.run(["git", "add", "-A"], cwd=history, check=True)
    subprocess.run(["git", "commit", "-qm", "links"], cwd=history, check=True)
    result = run("diff", "--base", "HEAD", "--exit-code")
    assert (result.exit_code, result.output) == (0, "No changes against HEAD.\n")
    assert not (history.parent / "outside.yaml").exists()


def test_a_new_operator_release_over_a_pinned_driver_replaces_the_driver_pods(history, run):
    """The driver version stays pinned and only the GPU Operator moves (v26.3.0 -> v26.7.0): its driver DaemonSet
    changes with the release (k8s-driver-manager v0.10.0 -> v0.12.0, values.yaml at both tags), and the driver pods are
    replaced node by node with their GPU pods deleted. gengpu used to report no disruption here. Pinning the chart's
    own default driver changes no DaemonSet, and is not reported."""
    profile = history / "profiles" / "aks-t4-timeslicing.yaml"
    text = profile.read_text()
    pinned = "    version: v26.3.0\n    driver: operator\n    driverVersion: 580.95.05\n"
    profile.write_text(text.replace("    version: v26.7.0\n    driver: preinstalled\n", pinned))
    assert run("build").exit_code == 0
    subprocess.run(["git", "add", "-A"], cwd=history, check=True)
    subprocess.run(["git", "commit", "-qm", "the operator installs a pinned driver"], cwd=history, check=True)
    profile.write_text(profile.read_text().replace("version: v26.3.0", "version: v26.7.0"))
    assert run("build").exit_code == 0
    [found] = json.loads(run("diff", "--base", "HEAD", "--output", "json").output)["disruption"][
        "aks-t4-timeslicing"]["disruptions"]
    assert found == {
        "pool": None, "kind": "driver-upgrade",
        "what": "GPU Operator v26.3.0 -> v26.7.0 (k8s-driver-manager v0.10.0 -> v0.12.0)",
        "nodes": "every GPU node whose driver the GPU Operator installs",
        "effect": "the upgrade controller reloads the driver node by node (driver.upgradePolicy), deleting each "
                  "node's GPU pods first"}

    subprocess.run(["git", "add", "-A"], cwd=history, check=True)
    subprocess.run(["git", "commit", "-qm", "v26.7.0"], cwd=history, check=True)
    profile.write_text(profile.read_text().replace("driverVersion: 580.95.05", "driverVersion: 595.91.07"))
    assert run("build").exit_code == 0
    subprocess.run(["git", "add", "-A"], cwd=history, check=True)
    subprocess.run(["git", "commit", "-qm", "the chart's driver, pinned"], cwd=history, check=True)
    profile.write_text(profile.read_text().replace("    driverVersion: 595.91.07\n", ""))
    assert run("build").exit_code == 0
    report = json.loads(run("diff", "--base", "HEAD", "--output", "json").output)["disruption"]
    assert report.get("aks-t4-timeslicing", {}).get("disruptions", []) == []


def test_an_operator_patch_over_the_same_driver_and_manager_restarts_the_driver_in_place():
    """From GPU Operator v26.7.0 the upgrade controller restarts a driver pod in place when its install digest (driver
    and driver-manager images among it) is unchanged (internal/predicates/restart_only.go, PR 2527). gengpu knows no
    v26.7 patch release yet, so the release table here adds one that keeps v26.7.0's driver and manager."""
    from gengpu import catalog, disruption

    def side(chart):
        return {"file gpu-operator-values.yaml": "driver:\n  enabled: true\n",
                "Application argocd/gpu": {"kind": "Application", "spec": {"sources": [
                    {"chart": "gpu-operator", "targetRevision": chart}]}}}

    table = dict(catalog.operator())
    table["releases"] = {**table["releases"], "v26.7.1": table["releases"]["v26.7.0"]}
    [found] = disruption._drivers(side("v26.7.0"), side("v26.7.1"), table)
    assert (found["kind"], found["what"]) == ("driver-restart", "GPU Operator v26.7.0 -> v26.7.1, with the driver its "
                                                                "chart picks")
    assert found["effect"].startswith("the upgrade controller cordons each node and restarts its driver pod in place")
    # the same move from v26.3.0, whose pods the v26.7 controller compares by a digest of another driver manager
    [found] = disruption._drivers(side("v26.3.0"), side("v26.7.1"), table)
    assert found["kind"] == "driver-upgrade"
