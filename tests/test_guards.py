"""Behaviour that was right but that nothing held: each test here kills a plausible bug that the rest of the suite let
through (planted one at a time, issue 22)."""

import json
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
VENDORED = REPO / "tests" / "upstream" / "vendored" / "NVIDIA" / "k8s-dra-driver-gpu" / "api" / "nvidia.com" / \
    "resource" / "v1beta1"


def _profile(tmp_path, name: str, text: str) -> None:
    (tmp_path / "profiles").mkdir(exist_ok=True)
    (tmp_path / "profiles" / f"{name}.yaml").write_text(text)


def test_mps_client_limit_of_a_mixed_pool_is_the_strictest_models(run, tmp_path):
    """A pool of T4s (48 MPS clients) and V100s (16): 20 replicas are too many for the V100 nodes, whichever model
    is listed first."""
    _profile(tmp_path, "mixed", """\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata: {name: mixed}
spec:
  platform: eks
  region: us-east-1
  kubernetesVersion: "1.33"
  nodePools:
    - name: mps
      gpu: [T4, V100-16GB]
      instanceTypes: [g4dn, p3]
      provisioner: karpenter
      limits: {gpus: 8}
      sharing: {mode: mps, replicas: 20}
  quotas: {L-DB2E81BA: 1000, L-417A185B: 1000}
  argocd: {repoURL: https://github.com/example/gitops.git}
""")
    report = json.loads(run("validate", "profiles/mixed.yaml", "--output", "json", cwd=tmp_path).stdout)
    assert [(f["rule"], f["message"]) for f in report["findings"] if f["rule"] == "mps-replicas-over-limit"] == [
        ("mps-replicas-over-limit", "nodePools[0].sharing.replicas is 20; MPS on V100-16GB allows at most 16 clients "
                                    "per GPU")]


def test_an_autopilot_verify_pod_asks_for_the_pools_gpu_count(run, tmp_path):
    """L4 on Autopilot comes in 1, 2, 4 or 8 per node: a pool of 2-GPU nodes is verified on a 2-GPU node (the
    accelerator count selector), not on the smallest one the accelerator allows."""
    text = (REPO / "profiles" / "gke-autopilot-l4.yaml").read_text()
    text = text.replace("gpusPerNode: 1", "gpusPerNode: 2").replace("g2-standard-12", "g2-standard-24")
    _profile(tmp_path, "gke-autopilot-l4", text.replace("      taints: []\n", "      taints: []\n      verify: true\n"))
    assert run("build", cwd=tmp_path).exit_code == 0
    deploy = yaml.safe_load((tmp_path / "overlays" / "gke-autopilot-l4" / "verify" / "l4" / "deployment.yaml").read_text())
    pod = deploy["spec"]["template"]["spec"]
    assert pod["nodeSelector"]["cloud.google.com/gke-accelerator-count"] == "2"
    assert pod["nodeSelector"]["cloud.google.com/gke-accelerator"] == "nvidia-l4"


def _go_json_fields(path: Path) -> dict[str, set[str]]:
    """struct name -> its JSON field names, from a Go source file (the driver's API types)."""
    out, current = {}, None
    for line in path.read_text().splitlines():
        m = re.match(r"type (\w+) struct \{", line)
        if m:
            current = out.setdefault(m.group(1), set())
        elif line.startswith("}"):
            current = None
        elif current is not None:
            tag = re.search(r'json:"([^",]+)', line)
            if tag:
                current.add(tag.group(1))
    return out


def _go_constants(path: Path, type_name: str) -> set[str]:
    text = path.read_text()
    values = set(re.findall(rf'\w+\s+{type_name}\s*=\s*"([^"]+)"', text))
    block = re.search(r"const \((.*?)\)", text, re.S)
    for name, value in re.findall(r'(\w+Strategy)\s*=\s*"([^"]+)"', block.group(1) if block else ""):
        if type_name == "strategy":
            values.add(value)
    return values


def test_dra_sharing_settings_use_the_drivers_own_field_names_and_values(run, tmp_path):
    """The GpuConfig gengpu writes into a DRA pool's ResourceClaimTemplate, field by field against the DRA driver's
    API types at the pinned version (api/nvidia.com/resource/v1beta1, vendored): a renamed field would be dropped
    by the driver's decoder and the pool would share nothing."""
    fields = _go_json_fields(VENDORED / "sharing.go") | _go_json_fields(VENDORED / "gpuconfig.go")
    strategies = _go_constants(VENDORED / "sharing.go", "strategy")
    intervals = _go_constants(VENDORED / "sharing.go", "TimeSliceInterval")
    assert strategies == {"TimeSlicing", "MPS"} and "Default" in intervals
    for fixture in ("aks-dra-mps", "gke-dra-no-operator"):
        (tmp_path / "profiles").mkdir(exist_ok=True)
        (tmp_path / "profiles" / f"{fixture}.yaml").write_text(
            (REPO / "tests" / "fixtures" / "profiles" / f"{fixture}.yaml").read_text())
    assert run("build", cwd=tmp_path).exit_code == 0
    seen = set()
    for template in sorted((tmp_path / "overlays").glob("*/components/*/resourceclaimtemplate.yaml")):
        devices = yaml.safe_load(template.read_text())["spec"]["spec"]["devices"]
        for config in devices.get("config", []):
            params = config["opaque"]["parameters"]
            assert set(params) - {"apiVersion", "kind"} <= fields["GpuConfig"]
            sharing = params["sharing"]
            assert set(sharing) <= fields["GpuSharing"] and sharing["strategy"] in strategies
            if "timeSlicingConfig" in sharing:
                assert set(sharing["timeSlicingConfig"]) <= fields["TimeSlicingConfig"]
                assert sharing["timeSlicingConfig"]["interval"] in intervals
            if "mpsConfig" in sharing:
                mps = sharing["mpsConfig"]
                assert set(mps) <= fields["MpsConfig"]
                assert isinstance(mps["defaultActiveThreadPercentage"], int) and \
                    0 < mps["defaultActiveThreadPercentage"] <= 100
                assert re.fullmatch(r"[0-9]+Mi", mps["defaultPinnedDeviceMemoryLimit"])
            seen.add(sharing["strategy"])
    assert seen == {"MPS", "TimeSlicing"}


def test_an_n1_machine_with_several_gpus_is_priced_per_gpu(run, tmp_path):
    """A GKE N1 node with four T4s attached costs its host plus four times the T4's price, not one."""
    prices = yaml.safe_load((REPO / "gengpu" / "data" / "prices.yaml").read_text())["gke"]
    host = prices["n1-standard-16"]["us-central1"]["onDemand"]
    t4 = prices["accelerator:T4"]["us-central1"]["onDemand"]
    _profile(tmp_path, "n1", """\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata: {name: n1}
spec:
  platform: gke
  region: us-central1
  kubernetesVersion: "1.33"
  nodePools:
    - name: t4
      gpu: T4
      gpusPerNode: 4
      instanceTypes: [n1-standard-16]
      provisioner: managed
      limits: {nodes: 2}
  argocd: {repoURL: https://github.com/example/gitops.git}
""")
    pool = json.loads(run("plan", "--output", "json", cwd=tmp_path).stdout)["pools"][0]
    [shape] = pool["nodeShapes"]
    assert (shape["type"], shape["gpus"], shape["onDemandPerHour"]) == ("n1-standard-16", 4, host + 4 * t4)
    assert pool["perGpuHour"]["on-demand"]["low"] == round((host + 4 * t4) / 4, 4)


def test_the_validation_cache_follows_the_profile_a_workload_is_checked_against(run, tmp_path):
    """--profile is an input of every verdict on the files it judges: after the profile changes, a cached result
    of the old one must not come back."""
    _profile(tmp_path, "eks", (REPO / "profiles" / "eks-l4-mps.yaml").read_text())
    (tmp_path / "app.yaml").write_text("""\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
    - {name: c, image: cuda, resources: {limits: {nvidia.com/gpu: 2}}}
""")

    def rules():
        out = run("validate", "--profile", "profiles/eks.yaml", "app.yaml", "--output", "json", cwd=tmp_path).stdout
        return sorted(f["rule"] for f in json.loads(out)["findings"])

    first = rules()
    assert "shared-gpu-request-over-one" in first  # MPS refuses more than one shared GPU per container
    profile = tmp_path / "profiles" / "eks.yaml"
    profile.write_text(profile.read_text().replace("mode: mps", "mode: time-slicing"))
    second = rules()
    assert second != first and "shared-gpu-request-over-one" not in second


def test_a_taint_key_with_two_effects_is_tolerated_for_both(run, tmp_path):
    """A pool tainted dedicated=gpu:NoSchedule and dedicated=gpu:NoExecute: its placement tolerates the key for
    every effect, or pods are kept off (NoSchedule) or evicted (NoExecute)."""
    text = (REPO / "profiles" / "aks-t4-timeslicing.yaml").read_text()
    one = "        - key: sku\n          value: gpu\n          effect: NoSchedule\n"
    assert one in text
    _profile(tmp_path, "aks-t4-timeslicing", text.replace(one, one + one.replace("NoSchedule", "NoExecute")))
    assert run("build", cwd=tmp_path).exit_code == 0
    placement = yaml.safe_load(
        (tmp_path / "overlays" / "aks-t4-timeslicing" / "components" / "t4-shared" / "placement.yaml").read_text())
    assert placement["spec"]["tolerations"] == [{"key": "sku", "operator": "Exists"}]
