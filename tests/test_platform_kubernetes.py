"""platform: kubernetes, nodes a team brings (on-premises, OpenShift, k3s/RKE2, node groups made by hand): gengpu
writes the operator, sharing and MIG configs, placement and monitoring, provisions no node, and writes a script per
pool that labels and taints the pool's nodes as its provisioners would have."""

import subprocess

import pytest

FIXTURE_PROFILE = "onprem-kubernetes.yaml"  # the profile_repo fixture's


def test_a_cluster_of_nodes_you_bring_builds_and_validates(run, profile_repo):
    """No NodePool, ComputeClass or cloud script: the overlay and its label scripts, through the real kustomize and
    kubeconform."""
    assert run("build", cwd=profile_repo).exit_code == 0
    overlay = profile_repo / "overlays" / "onprem-kubernetes"
    assert sorted(p.name for p in overlay.iterdir() if p.is_file()) == [
        "device-plugin-config.yaml", "gengpu-check-rbac.yaml", "gengpu-cluster.yaml", "gpu-operator-values.yaml",
        "kustomization.yaml", "label-nodes-a100-mig.sh", "label-nodes-t4-shared.sh", "mig-parted-config.yaml",
        "monitoring.yaml", "namespace.yaml"]
    script = (overlay / "label-nodes-a100-mig.sh").read_text().splitlines()
    assert script[-2:] == [
        "kubectl label nodes --overwrite -l node-role.kubernetes.io/gpu= gengpu.dev/pool=a100-mig "
        "nvidia.com/device-plugin.config=a100-mig nvidia.com/mig.config=a100-mig",
        "kubectl taint nodes --overwrite -l node-role.kubernetes.io/gpu= nvidia.com/gpu:NoSchedule"]
    for name in ("label-nodes-a100-mig.sh", "label-nodes-t4-shared.sh"):
        assert subprocess.run(["bash", "-n", str(overlay / name)]).returncode == 0
    result = run("validate", "--engine", "kubeconform", cwd=profile_repo)
    assert result.exit_code == 0, result.output


def test_a_pool_without_a_node_selector_labels_the_nodes_it_is_given(run, profile_repo):
    profile = profile_repo / "profiles" / FIXTURE_PROFILE
    profile.write_text(profile.read_text().replace("      nodeSelector:\n        rack: r12\n", ""))
    assert run("build", cwd=profile_repo).exit_code == 0
    script = profile_repo / "overlays" / "onprem-kubernetes" / "label-nodes-t4-shared.sh"
    text = script.read_text()
    assert '[ "$#" -gt 0 ] || { echo "usage: $0 NODE..." >&2; exit 2; }' in text
    assert 'kubectl label nodes --overwrite "$@" gengpu.dev/pool=t4-shared nvidia.com/device-plugin.config=t4-shared' \
        in text
    usage = subprocess.run(["bash", str(script)], capture_output=True, text=True)
    assert (usage.returncode, usage.stderr) == (2, f"usage: {script} NODE...\n")


@pytest.mark.parametrize("change, message", [
    (("      gpusPerNode: 8\n", "      gpusPerNode: 8\n      instanceTypes: [p4d.24xlarge]\n"),
     "'spec.nodePools[0].instanceTypes' is not allowed on platform kubernetes"),
    (("      gpusPerNode: 4\n", ""), "missing required field 'gpusPerNode' in 'spec.nodePools[1]'"),
    (("  platform: kubernetes\n", "  platform: eks\n"), "missing required field 'region' in 'spec'"),
])
def test_what_the_platform_needs_is_held_by_the_schema(run, profile_repo, change, message):
    profile = profile_repo / "profiles" / FIXTURE_PROFILE
    profile.write_text(profile.read_text().replace(*change))
    result = run("validate", f"profiles/{FIXTURE_PROFILE}", "--output", "json", cwd=profile_repo)
    import json

    findings = json.loads(result.stdout)["findings"]
    assert result.exit_code == 1
    assert [f["rule"] for f in findings if f["severity"] == "error"][:1] == ["profile-schema"]
    assert any(message in f["message"] for f in findings), [f["message"] for f in findings]


def test_the_catalog_and_the_plan_know_the_platform(run, profile_repo):
    assert run("catalog", "clouds", "kubernetes").output.startswith(
        "kubernetes: Kubernetes (nodes you bring) - ships no GPU software\n")
    result = run("plan", cwd=profile_repo)
    assert result.exit_code == 0 and "onprem-kubernetes/a100-mig" in result.output
