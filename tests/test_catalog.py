"""The capability tables: complete, consistent, and printed by `gengpu catalog`."""

import json
from pathlib import Path

import pytest

from gengpu import catalog

REQUIRED = ["T4", "V100-16GB", "V100-32GB", "P100", "A10", "A10G", "L4", "L40S", "A30-24GB", "A100-40GB",
            "A100-80GB", "H100-80GB", "H100-94GB", "H200-141GB", "GH200", "B200-180GB", "GB200", "RTX-PRO-6000"]


def test_every_required_gpu_is_there():
    assert [g for g in REQUIRED if g not in catalog.gpus()] == []


@pytest.mark.parametrize("gpu", REQUIRED)
def test_ids_and_aliases_resolve_case_insensitively(gpu):
    assert catalog.resolve_gpu(gpu.lower()) == gpu
    assert catalog.resolve_gpu(gpu.upper()) == gpu
    for alias in catalog.gpus()[gpu].get("aliases", []):
        assert catalog.resolve_gpu(alias) == gpu
        assert catalog.resolve_gpu(alias.swapcase()) == gpu


def test_no_alias_names_two_gpus():
    seen = {}
    for gpu_id, gpu in catalog.gpus().items():
        for name in [gpu_id, *gpu.get("aliases", [])]:
            assert seen.setdefault(name.lower(), gpu_id) == gpu_id, name


def test_cloud_tables_name_known_gpus():
    clouds = catalog.clouds()
    named = [f["gpu"] for f in clouds["eks"]["families"].values()]
    named += [m["gpu"] for m in clouds["gke"]["machineTypes"].values()]
    named += list(clouds["gke"]["accelerators"]) + clouds["gke"]["attachable"]["gpus"]
    named += [v["gpu"] for v in clouds["aks"]["vmSizes"].values()]
    assert sorted({g for g in named if g not in catalog.gpus()}) == []
    accelerators = set(clouds["gke"]["accelerators"].values()) | {
        m["accelerator"] for m in clouds["gke"]["machineTypes"].values() if "accelerator" in m}
    assert sorted(set(clouds["gke"]["autopilot"]["allowedCounts"]) - accelerators) == []


def test_instance_types():
    assert catalog.instance_type("eks", "p4d.24xlarge") == {"gpu": "A100-40GB", "gpus": 8, "arch": "amd64",
                                                            "gpuName": "a100"}
    assert catalog.instance_type("eks", "g5") == {"gpu": "A10G", "family": True, "counts": [1, 4, 8], "arch": "amd64",
                                                  "gpuName": "a10g"}
    assert catalog.instance_type("eks", "g5.3xlarge") is None
    assert catalog.instance_type("aks", "Standard_NV6ads_A10_v5") == {"gpu": "A10", "gpus": 1, "fraction": "1/6"}
    assert catalog.instance_type("gke", "a3-highgpu-1g") == {"gpu": "H100-80GB", "gpus": 1, "spotOnly": True}
    assert catalog.instance_type("gke", "n1-standard-8")["attachable"] == ["T4", "V100-16GB", "P100"]


def test_software_tables():
    releases = catalog.operator()["releases"]
    assert catalog.operator()["default"] in releases
    assert releases["v26.7.0"]["devicePlugin"] == "v0.20.0"
    assert catalog.software()["cuda"] == {"11": "450.80.02", "12": "525.60.13", "13": "580.65.06"}


def test_catalog_gpus_cli(run):
    out = run("catalog", "gpus").output.splitlines()
    assert out[0].split() == ["id", "architecture", "cc", "memory", "MIG", "MPS", "clients", "aliases"]
    assert len(out) == 2 + len(catalog.gpus())
    detail = run("catalog", "gpus", "nvidia-tesla-t4").output
    assert detail.splitlines()[0] == "T4 (turing, compute capability 7.5, 16 GB)"
    assert "MIG: not supported" in detail
    data = json.loads(run("catalog", "gpus", "A30", "--output", "json").output)
    assert data["A30-24GB"]["mig"]["profiles"]["4g.24gb"] == {"compute": 4, "memory": 4, "max": 1, "starts": [0]}
    unknown = run("catalog", "gpus", "X1")
    assert unknown.exit_code == 2 and unknown.output.startswith("gengpu: error: unknown GPU 'X1'; known: T4, ")


def test_catalog_clouds_and_operator_cli(run):
    aks = run("catalog", "clouds", "aks").output
    assert aks.startswith("aks: Azure Kubernetes Service - ships driver, toolkit\n")
    assert "Standard_NV6ads_A10_v5" in aks and "1/6 of 1" in aks
    autopilot = json.loads(run("catalog", "clouds", "gke-autopilot", "--output", "json").output)
    assert ["nvidia-tesla-t4", "", "1, 2, 4", ""] in autopilot["gke-autopilot"]["instances"]
    op = run("catalog", "operator", "v26.7.0").output.splitlines()
    assert op[2].split()[:6] == ["v26.7.0", "595.91.07", "v1.20.0", "v0.20.0", "v0.15.0", "4.6.0-4.8.3"]
    assert run("catalog", "operator", "v1.0.0").exit_code == 2


def test_the_catalog_knows_every_gpu_and_profile_of_nvidias_default_mig_configs():
    """mig-parted's default config (v0.15.0) and the GPU Operator's default ConfigMap (v26.7.0), as shipped."""
    import yaml

    from gengpu import mig
    from gengpu.checking.podspecs import dig

    corpus = Path(__file__).resolve().parent / "corpus" / "nvidia"
    default = yaml.safe_load((corpus / "mig-parted-config-default.yaml").read_text())
    operator = yaml.safe_load(yaml.safe_load((corpus / "gpu-operator-0400_configmap.yaml").read_text())["data"]
                              ["config.yaml"])
    known_profiles = set().union(*(mig.profiles(g) for g in mig.mig_gpus())) | catalog.unattributed_mig_profiles()
    for config in (default, operator):
        assert dig(config, "version") == "v1"
        for name, entries in config["mig-configs"].items():
            for entry in entries:
                _, unknown = mig.gpus_for_device_filter(entry.get("device-filter"))
                assert unknown == [], f"{name}: device-filter {unknown}"
                assert set(entry.get("mig-devices") or {}) <= known_profiles, name


def test_every_upstream_change_names_what_gengpu_has():
    """changes.yaml: known components, ISO dates, rule ids gengpu has, profile fields its schema has."""
    import datetime

    from gengpu import upstream_changes
    from gengpu.checking.rules import RULES
    from gengpu.schemas_dir import schemas_path

    schema = json.loads((schemas_path() / "profile.schema.json").read_text())

    def field_exists(path: str) -> bool:
        node = schema["properties"]["spec"]
        for part in path.split("."):
            if part.endswith("[]"):
                node = node["properties"][part[:-2]]["items"]
            else:
                node = node["properties"][part]
            node = schema["$defs"][node["$ref"].split("/")[-1]] if "$ref" in node else node
        return True

    changes = upstream_changes.changes()
    assert len({c["id"] for c in changes}) == len(changes)
    for change in changes:
        assert change["component"] in upstream_changes.COMPONENTS, change["id"]
        if "date" in change:
            datetime.date.fromisoformat(change["date"])
        does = change["gengpu"]
        assert set(does) <= {"rules", "profile", "writes", "not"} and does, change["id"]
        assert [r for r in does.get("rules", []) if r not in RULES] == [], change["id"]
        assert all(field_exists(f) for f in does.get("profile", [])), change["id"]
        assert change["source"].strip(), change["id"]


def test_catalog_changes_cli(run, tmp_path):
    kueue = run("catalog", "changes", "--component", "kueue").output
    assert kueue.splitlines() == [
        "kueue v0.20.0  [kueue-v1beta1-unserved]",
        "  kueue.x-k8s.io/v1beta1 is no longer served (deprecated since v0.16, v1beta2 stored",
        "  since v0.16); v0.21 drops it.",
        "  gengpu: rules api-version-deprecated",
        "  source: kubernetes-sigs/kueue issue 13957, PR 14558 (merged 2026-08-25);",
        "    CHANGELOG-0.16.md",
        "",
        "kueue v0.18.0  [kueue-dra-quotas]",
        "  KueueDRAIntegration (beta, on by default; DynamicResourceAllocation before) charges",
        "  the devices of a queued pod's ResourceClaimTemplates to quota under the",
        "  Configuration's resources.deviceClassMappings names; a Workload with an unmapped",
        "  DeviceClass, or with a ResourceClaim of its own, is marked inadmissible.",
        "  gengpu: rules kueue-dra-claim-inadmissible",
        "  source: kubernetes-sigs/kueue v0.19.2 (8eab6877)",
        "    site/content/en/docs/tasks/manage/setup_dra.md, site/static/examples/dra;",
        "    pkg/dra/claims.go, pkg/controller/core/workload_controller.go at ff69552e",
    ]
    since = json.loads(run("catalog", "changes", "--since", "2026-08-19", "--output", "json").output)
    assert [c["id"] for c in since] == ["gpucluster", "nvidiadriver-upgrade-policy", "gpu-client-label",
                                       "in-place-driver-restart", "allocation-policy",
                                       "mig-profile-suffixes", "karpenter-dra", "karpenter-crds-1-15", "argo-cd-crds-3-6",
                                       "flux-crds-1-10"]
    bad = run("catalog", "changes", "--since", "last week")
    assert bad.exit_code == 2 and "--since 'last week' is not a date: write it as YYYY-MM-DD" in bad.output

    # a profile pinned behind: operator v26.3.0 (device plugin v0.19.0), Karpenter v1.14.2, on EKS
    text = (Path(__file__).resolve().parents[1] / "profiles" / "eks-l4-mps.yaml").read_text()
    old = tmp_path / "old.yaml"
    old.write_text(text.replace("version: v26.7.0", "version: v26.3.0").replace(
        "  nodePools:", "  eks:\n    karpenter: {version: v1.14.2}\n  nodePools:"))
    data = json.loads(run("catalog", "changes", "--profile", old, "--output", "json").output)
    stands = {c["id"]: c["profiles"] for c in data}
    shown = next(iter(stands["gpucluster"]))
    assert stands["gpucluster"] == {shown: "not yet: it installs v26.3.0, the change is in v26.7.0"}
    assert stands["dcgm-exporter-pod-uid"] == {shown: "not yet: it installs v26.3.0, the change is in v26.3.2"}
    assert stands["allocation-policy"] == {shown: "not yet: it installs v0.19.0, the change is in v0.20.0"}
    assert stands["karpenter-dra"] == {shown: "not yet: it installs v1.14.2, the change is in v1.15.0"}
    assert stands["eks-auto-mode-dra"] == {shown: "applies to this platform"}
    assert stands["gke-computeclass-gpu-sharing"] == {} and stands["dra-driver-new-home"] == {}
    assert stands["dcgm-exporter-per-process"] == {shown: "not yet: it installs 4.8.0, the change is in 4.8.2"}
    assert stands["mig-profile-suffixes"] == {shown: "not yet: it installs v0.19.0, the change is in v0.20.0"}
