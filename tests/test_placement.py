"""Placement components, rendered by the real kustomize into a workload the way a user's application overlay
includes them: they add node selection and tolerations and keep everything the workload has (its GPU requests
above all), for every example pool."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
KUSTOMIZE = str(REPO / "bin" / "kustomize")
COMPONENTS = sorted(p for p in (REPO / "overlays").glob("*/components/*") if p.is_dir())
# Components of DRA pools add a claim instead of relying on an extended resource.
CLAIMING = [p for p in COMPONENTS if "claim" in yaml.safe_load((p / "placement.yaml").read_text())["spec"]]
COMPONENTS = [p for p in COMPONENTS if p not in CLAIMING]

APP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      nodeSelector: {team: research}
      tolerations: [{key: team, operator: Equal, value: research, effect: NoSchedule}]
      initContainers:
        - {name: warmup, image: cuda, resources: {limits: {RESOURCE: 1}}}
      containers:
        - {name: main, image: cuda, resources: {limits: {RESOURCE: 2, cpu: "4"}}}
        - {name: sidecar, image: proxy, resources: {limits: {cpu: 100m}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - {name: job, image: cuda, resources: {limits: {RESOURCE: 1}}}
"""


def render(tmp_path, component: Path, workloads: str | None = None, top: str = "") -> tuple[dict, list[dict]]:
    """The component included by an application overlay of workloads (default APP, asking for the component's
    resource), rendered by the real kustomize; top: more of the application's kustomization."""
    placement = yaml.safe_load((component / "placement.yaml").read_text())
    shutil.copytree(component, tmp_path / "pool")
    app = tmp_path / "app"
    app.mkdir()
    (app / "workloads.yaml").write_text(workloads or APP.replace("RESOURCE", placement["spec"]["resource"]))
    (app / "kustomization.yaml").write_text(f"{top}resources: [workloads.yaml]\ncomponents: [../pool]\n")
    out = subprocess.run([KUSTOMIZE, "build", str(app)], capture_output=True, text=True, check=True).stdout
    return placement["spec"], list(yaml.safe_load_all(out))


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_a_component_keeps_the_workload_and_adds_only_placement(tmp_path, component):
    spec, docs = render(tmp_path, component)
    cronjob, deployment = sorted(docs, key=lambda d: d["kind"])
    resource = spec["resource"]
    pod = deployment["spec"]["template"]["spec"]
    # every container's own resources, untouched
    assert [c["resources"]["limits"] for c in pod["initContainers"] + pod["containers"]] == [
        {resource: 1}, {resource: 2, "cpu": "4"}, {"cpu": "100m"}]
    assert pod["nodeSelector"] == {"team": "research", **spec["nodeSelector"]}
    assert pod["tolerations"][0] == {"key": "team", "operator": "Equal", "value": "research",
                                     "effect": "NoSchedule"}
    assert pod["tolerations"][1:] == spec["tolerations"]
    assert deployment["metadata"]["annotations"] == {"gengpu.dev/pool": spec["pool"]}
    job = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert job["containers"][0]["resources"] == {"limits": {resource: 1}}
    assert job["nodeSelector"] == spec["nodeSelector"]
    assert job.get("tolerations", []) == spec["tolerations"]


DRA_APP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      resourceClaims: [{name: scratch, resourceClaimTemplateName: nvme}]
      containers:
        - {name: main, image: cuda, resources: {claims: [{name: gpu}, {name: scratch}], limits: {cpu: "4"}}}
"""


@pytest.mark.parametrize("component", CLAIMING, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_a_dra_component_adds_its_claim_and_template_in_the_apps_namespace(tmp_path, component):
    spec, docs = render(tmp_path, component, DRA_APP, top="namespace: research\n")
    deployment, template = sorted(docs, key=lambda d: d["kind"])
    pod = deployment["spec"]["template"]["spec"]
    assert spec["claim"] == {"name": "gpu", "resourceClaimTemplateName": component.name}
    assert pod["resourceClaims"] == [{"name": "scratch", "resourceClaimTemplateName": "nvme"}, spec["claim"]]
    assert pod["containers"][0]["resources"] == {"claims": [{"name": "gpu"}, {"name": "scratch"}],
                                                 "limits": {"cpu": "4"}}
    assert pod["nodeSelector"] == spec["nodeSelector"]
    assert (template["kind"], template["metadata"]) == (
        "ResourceClaimTemplate", {"name": component.name, "namespace": "research"})


def test_every_pool_is_pinned_to_its_own_nodes(repo, run):
    """Two pools of one cluster never share a node selector: the fixture clusters with several pools (GKE
    managed and auto-provisioned pools of one accelerator included)."""
    for fixture in sorted((REPO / "tests" / "fixtures" / "profiles").glob("*.yaml")):
        shutil.copy(fixture, repo / "profiles")
    assert run("build").exit_code == 0
    pairs = 0
    for overlay in sorted((repo / "overlays").iterdir()):
        selectors: dict[str, set] = {}
        for component in sorted((overlay / "components").glob("*")):
            spec = yaml.safe_load((component / "placement.yaml").read_text())["spec"]
            selectors.setdefault(spec["pool"], set()).add(tuple(sorted(spec["nodeSelector"].items())))
        pools = list(selectors)
        for i, a in enumerate(pools):
            for b in pools[i + 1:]:
                pairs += 1
                assert not selectors[a] & selectors[b], (overlay.name, a, b)
    assert pairs >= 2  # eks-shared-paths and gke-driver-paths have two pools each


def test_a_pods_own_toleration_of_the_pool_taint_is_made_valid(tmp_path):
    """A pod's own toleration with the pool taint's key is replaced by the pool's (Exists with a value is invalid)."""
    component = next(c for c in COMPONENTS if any(
        t["operator"] == "Exists" for t in yaml.safe_load((c / "placement.yaml").read_text())["spec"]["tolerations"]))
    spec = yaml.safe_load((component / "placement.yaml").read_text())["spec"]
    key = next(t["key"] for t in spec["tolerations"] if t["operator"] == "Exists")
    shutil.copytree(component, tmp_path / "pool")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "d.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
        f"      tolerations: [{{key: {key}, operator: Equal, value: 'yes', effect: NoExecute}}]\n"
        "      containers: [{name: c, image: i}]\n")
    (tmp_path / "app" / "kustomization.yaml").write_text("resources: [d.yaml]\ncomponents: [../pool]\n")
    out = subprocess.run([KUSTOMIZE, "build", str(tmp_path / "app")], capture_output=True, text=True,
                         check=True).stdout
    tolerations = yaml.safe_load(out)["spec"]["template"]["spec"]["tolerations"]
    assert [t for t in tolerations if t["key"] == key] == [
        next(t for t in spec["tolerations"] if t["key"] == key)]


def test_fixture_pools_are_pinned_apart_and_mig_components_name_their_profile(repo, run):
    """Two GKE pools of one accelerator (a managed and an auto-provisioned one) get different selectors; a mixed MIG
    layout of a single profile still names its component <pool>-<profile>, as the README says."""
    fixtures = REPO / "tests" / "fixtures" / "profiles"
    shutil.copy(fixtures / "gke-driver-paths.yaml", repo / "profiles")
    path = repo / "profiles" / "eks-h100-mig.yaml"
    profile = yaml.safe_load(path.read_text())
    profile["spec"]["nodePools"][0]["sharing"]["mig"]["layout"] = {"7g.80gb": 1}
    path.write_text(yaml.safe_dump(profile))
    assert run("build").exit_code == 0
    specs = [yaml.safe_load((c / "placement.yaml").read_text())["spec"]
             for c in sorted((repo / "overlays" / "gke-driver-paths" / "components").iterdir())]
    assert [(s["pool"], s["nodeSelector"]) for s in specs] == [
        ("l4-managed", {"cloud.google.com/gke-accelerator": "nvidia-l4", "gengpu.dev/pool": "l4-managed"}),
        ("l4-nap", {"cloud.google.com/compute-class": "l4-nap"})]
    assert [c.name for c in (repo / "overlays" / "eks-h100-mig" / "components").iterdir()] == ["h100-mig-7g.80gb"]
