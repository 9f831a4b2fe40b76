"""An independent check of gengpu's output: reads only a profile (as plain YAML) and what was built from it
(the overlay rendered by the real kustomize, the files beside it, argocd/), never gengpu's compiler.

Each check is a plain statement about what a cluster needs to work; `check(repo, name)` returns the statements
that fail, and counts those that hold.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from fractions import Fraction
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
KUSTOMIZE = str(REPO / "bin" / "kustomize")
SHARED = ("time-slicing", "mps")
# Taints the platforms put on spot nodes themselves (AKS: every spot node pool; GKE: spot nodes it creates).
PLATFORM_SPOT_TAINTS = {"aks": {"key": "kubernetes.azure.com/scalesetpriority", "value": "spot", "effect": "NoSchedule"},
                        "gke": {"key": "cloud.google.com/gke-spot", "value": "true", "effect": "NoSchedule"}}


class Checks:
    def __init__(self):
        self.held = 0
        self.failed: list[str] = []

    def that(self, ok: bool, what: str) -> None:
        if ok:
            self.held += 1
        else:
            self.failed.append(what)


def _docs(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]


def _gpus_per_node(pool: dict) -> int | None:
    return pool.get("gpusPerNode")


def _advertised(pool: dict) -> dict[str, int]:
    """resource -> how many one GPU of the pool advertises (from the profile alone)."""
    sharing = pool.get("sharing") or {}
    mode = sharing.get("mode", "none")
    if mode in SHARED:
        return {"nvidia.com/gpu.shared" if sharing.get("renameByDefault") else "nvidia.com/gpu": sharing["replicas"]}
    if mode == "mig":
        mig = sharing.get("mig") or {}
        layout, ways = mig.get("layout") or {}, mig.get("replicas") or 1  # (time-sliced: each device x replicas)
        if mig.get("layouts") and _gpus_per_node(pool):
            # per GPU (mixed): each entry's devices over the node's GPUs, the whole GPUs as nvidia.com/gpu; a GPU's
            # share as a fraction (28 1g.10gb on 8 GPUs: 7/2 per GPU)
            gpus, out = _gpus_per_node(pool), {}
            for entry in mig["layouts"]:
                part = Fraction(len([i for i in entry["gpus"] if i < gpus]), gpus)
                for name, n in ({"nvidia.com/gpu": 1} if entry.get("whole") else
                                {f"nvidia.com/mig-{p}": n * ways for p, n in entry["layout"].items()}).items():
                    out[name] = out.get(name, 0) + n * part
            return out
        if mig.get("strategy") == "mixed":
            return {f"nvidia.com/mig-{p}": n * ways for p, n in layout.items()}
        return {"nvidia.com/gpu": sum(layout.values()) * ways} if layout else {}
    return {"nvidia.com/gpu": 1}


def _tolerates(tolerations: list, taint: dict) -> bool:
    for t in tolerations or []:
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        if t.get("operator") == "Exists" and (not t.get("key") or t["key"] == taint["key"]):
            return True
        if t.get("key") == taint["key"] and str(t.get("value") or "") == str(taint.get("value") or ""):
            return True
    return False


def _script_flags(path: Path) -> dict[str, str]:
    """--flag -> its value words, joined by spaces (az takes `--labels a=b c=d`)."""
    words = shlex.split(path.read_text().replace("\\\n", " "), comments=True)
    flags: dict[str, list[str]] = {}
    current = None
    for w in words:
        if w.startswith("--"):
            current = flags.setdefault(w, [])
        elif current is not None:
            current.append(w)
    return {k: " ".join(v) for k, v in flags.items()}


def _chart_defaults() -> dict:
    return yaml.safe_load((REPO / "gengpu" / "data" / "charts" / "nvidia-dra-driver-gpu-v25.12.0.yaml").read_text())


def _coalesce(default, given):
    """Helm's values merge (helm pkg/chartutil/coalesce.go): maps merge, lists and scalars replace, null deletes."""
    if isinstance(default, dict) and isinstance(given, dict):
        out = dict(default)
        for key, value in given.items():
            if value is None:
                out.pop(key, None)
            else:
                out[key] = _coalesce(default.get(key), value)
        return out
    return given


def _matches(expression: dict, labels: dict) -> bool:
    op, key, values = expression["operator"], expression["key"], expression.get("values") or []
    if op == "In":
        return labels.get(key) in values
    if op == "NotIn":
        return labels.get(key) not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    raise ValueError(op)


def _plugin_lands(values: dict, labels: dict) -> bool:
    """The chart's kubelet plugin DaemonSet, with the chart's defaults under gengpu's values, schedules on a node
    with these labels: its nodeSelector holds and one of its required node affinity terms matches."""
    plugin = _coalesce(_chart_defaults()["kubeletPlugin"], values.get("kubeletPlugin") or {})
    if any(labels.get(k) != v for k, v in (plugin.get("nodeSelector") or {}).items()):
        return False
    required = (((plugin.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = required.get("nodeSelectorTerms")
    return not terms or any(all(_matches(e, labels) for e in t.get("matchExpressions", [])) for t in terms)


def _check_limits(name: str, pool: dict, limits: dict, platform: str, c: Checks) -> None:
    """A Karpenter pool's limits admit the GPUs the profile promises (limits.gpus) and at least one node, counted
    as Karpenter counts them: each resource over the nodes' capacity, which on a shared or MIG pool is slots."""
    pname, gpus = pool["name"], pool["limits"]["gpus"]
    per_gpu = {"nvidia.com/gpu": 1, **_advertised(pool)}
    per_node = _gpus_per_node(pool)
    for resource, n in per_gpu.items():
        c.that(int(limits.get(resource, -1)) == gpus * n,
               f"{name}/{pname}: NodePool limit {resource} admits {gpus} GPUs ({n} per GPU)")
        if per_node:
            c.that(int(limits.get(resource, 0)) >= per_node * n, f"{name}/{pname}: NodePool limit {resource} admits "
                   "one node")
    if "nodes" in limits:
        c.that(int(limits["nodes"]) >= 1, f"{name}/{pname}: NodePool node limit admits one node")
        if per_node and platform != "eks" and per_gpu["nvidia.com/gpu"] > 1:
            c.that(int(limits["nodes"]) * per_node <= gpus, f"{name}/{pname}: node limit keeps starting nodes within "
                   f"{gpus} GPUs")


def _check_dra_pool(overlay: Path, name: str, pool: dict, operator: bool, c: Checks) -> None:
    """A DRA pool: no device-plugin key, nodes kept from the device plugin, one claim template per slice type."""
    pname = pool["name"]
    sharing = pool.get("sharing") or {}
    mode = sharing.get("mode", "none")
    dp = overlay / "device-plugin-config.yaml"
    if dp.exists():
        c.that(pname not in _docs(dp.read_text())[0]["data"], f"{name}/{pname}: no device-plugin key (DRA)")
    gates = {"time-slicing": "TimeSlicingSettings", "mps": "MPSSupport"}
    if (overlay / "dra-driver-values.yaml").exists():
        values = _docs((overlay / "dra-driver-values.yaml").read_text())[0]
        c.that(values.get("gpuResourcesEnabledOverride") is True and values["resources"]["gpus"]["enabled"] is True,
               f"{name}/{pname}: DRA chart allocates GPUs")
    else:  # the GPU Operator's GPUCluster runs the DRA driver: its gates are the operator's draDriver values
        operator_values = _docs((overlay / "gpu-operator-values.yaml").read_text())[0]
        c.that(operator_values["gpuCluster"] == {"deployCR": True}
               and operator_values["clusterPolicy"] == {"deployCR": False},
               f"{name}/{pname}: without a DRA driver release, the operator makes a GPUCluster and no ClusterPolicy")
        values = operator_values["draDriver"]
    if mode in gates:
        c.that(values.get("featureGates", {}).get(gates[mode]) is True, f"{name}/{pname}: DRA sharing gate on")
    script = next(iter(sorted(overlay.glob(f"*-nodepool-{pname}.sh"))), None)
    if script is not None:
        raw = _script_flags(script).get("--labels") or _script_flags(script).get("--node-labels") or ""
        labels = dict(kv.split("=", 1) for kv in re.split(r"[ ,]", raw) if "=" in kv)
    else:  # an EKS managed node group: the labels docs/overlays.md tells its owner to give it
        labels = {"gengpu.dev/pool": pname, "nvidia.com/dra-kubelet-plugin": "true",
                  **({"nvidia.com/gpu.deploy.device-plugin": "false"} if operator else {})}
    if script is not None and script.name.startswith("gke-"):
        # GKE's DRA setup: its driver install off, none of its own sharing; Google's installer brings the driver
        accelerator = _script_flags(script).get("--accelerator", "")
        c.that("gpu-driver-version=disabled" in accelerator and "gpu-sharing-strategy" not in accelerator
               and "gpu-partition-size" not in accelerator, f"{name}/{pname}: GKE DRA pool without GKE's driver")
        if (overlay / "flux").is_dir():  # Flux: a Kustomization of the installer's GitRepository
            paths = [k["spec"]["path"] for k in _docs((overlay / "flux" / "kustomizations.yaml").read_text())]
            c.that(any("nvidia-driver-installer" in p for p in paths),
                   f"{name}/{pname}: Google's driver installer syncs with the cluster")
        else:
            app = yaml.safe_load((overlay.parent.parent / "argocd" / "applications" / f"{name}.yaml").read_text())
            c.that(any("nvidia-driver-installer" in str(s.get("path", "")) for s in app["spec"]["sources"]),
                   f"{name}/{pname}: Google's driver installer syncs with the cluster")
    if mode == "mig":  # what the MIG manager writes once the layout is made
        labels = {**labels, "nvidia.com/mig.config.state": "success"}
    if (overlay / "dra-driver-values.yaml").exists():  # (a GPUCluster's plugin selects the deploy label the operator
        # sets on every GPU node it finds: nvidia.com/gpu.deploy.dra-driver, manifests/state-dra-driver)
        c.that(_plugin_lands(values, labels), f"{name}/{pname}: DRA kubelet plugin can land on the pool's nodes")
    if mode == "mig":
        c.that(not _plugin_lands(values, {**labels, "nvidia.com/mig.config.state": "pending"}),
               f"{name}/{pname}: DRA kubelet plugin waits for the MIG layout")
    if operator:
        c.that(labels.get("nvidia.com/gpu.deploy.device-plugin") == "false",
               f"{name}/{pname}: operator's device plugin kept off")
    layout = (sharing.get("mig") or {}).get("layout") or {}
    wanted = {f"{pname}-{p}": "mig.nvidia.com" for p in layout} if mode == "mig" and layout else \
        {} if mode == "mig" else {pname: "gpu.nvidia.com"}
    found = {}
    for folder in sorted((overlay / "components").glob(f"{pname}*")):
        placement = yaml.safe_load((folder / "placement.yaml").read_text())["spec"]
        if placement["pool"] != pname:
            continue
        template = yaml.safe_load((folder / "resourceclaimtemplate.yaml").read_text())
        c.that(placement["claim"]["resourceClaimTemplateName"] == template["metadata"]["name"] == folder.name,
               f"{name}/{pname}: claim names its template")
        request = template["spec"]["spec"]["devices"]["requests"][0]
        found[folder.name] = request["exactly"]["deviceClassName"]
        if mode == "mig":
            profile = folder.name.removeprefix(f"{pname}-")
            c.that(profile in request["exactly"]["selectors"][0]["cel"]["expression"], f"{name}/{pname}: MIG selector")
    if wanted:
        c.that(found == wanted, f"{name}/{pname}: one claim template per slice type")
    if pool.get("verify"):
        deploy = _docs((overlay / "verify" / pname / "deployment.yaml").read_text())[0]
        pod = deploy["spec"]["template"]["spec"]
        c.that(all(ct["resources"].get("claims") == [{"name": "gpu"}] and
                   not any(k.startswith("nvidia.com/") for k in ct["resources"]["limits"]) for ct in pod["containers"]),
               f"{name}/{pname}: verify claims its GPU")
        if mode in SHARED:
            c.that(len(pod["containers"]) == sharing["replicas"], f"{name}/{pname}: verify shares one claim")


def check(repo: Path, name: str, c: Checks) -> None:
    profile = yaml.safe_load((repo / "profiles" / f"{name}.yaml").read_text())
    spec = profile["spec"]
    overlay = repo / "overlays" / name
    platform = spec["platform"]
    operator = (spec.get("operator") or {}).get("enabled", True) and platform != "gke-autopilot"
    rendered = _docs(subprocess.run([KUSTOMIZE, "build", str(overlay)], capture_output=True, text=True,
                                    check=True).stdout)
    by_kind: dict[str, list[dict]] = {}
    for d in rendered:
        by_kind.setdefault(d["kind"], []).append(d)

    dp = next((d for d in by_kind.get("ConfigMap", []) if d["metadata"]["name"] == "gengpu-device-plugin-config"),
              None)
    mig_cm = next((d for d in by_kind.get("ConfigMap", []) if d["metadata"]["name"] == "gengpu-mig-parted-config"),
                  None)
    for pool in spec["nodePools"]:
        pname = pool["name"]
        sharing = pool.get("sharing") or {}
        mode = sharing.get("mode", "none")
        taints = pool.get("taints", [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
                                     if platform != "gke-autopilot" else [])
        if pool.get("allocation") == "dra":
            _check_dra_pool(overlay, name, pool, operator, c)
            continue

        # 1. the pool's sharing config, under the key its nodes are labelled with
        if operator:
            c.that(dp is not None and pname in dp["data"], f"{name}/{pname}: device-plugin config key")
            if dp is not None and pname in dp["data"] and mode in SHARED:
                config = yaml.safe_load(dp["data"][pname])
                block = config["sharing"]["timeSlicing" if mode == "time-slicing" else "mps"]
                c.that(block["resources"][0]["replicas"] == sharing["replicas"], f"{name}/{pname}: replicas")
                c.that(bool(block.get("renameByDefault")) == bool(sharing.get("renameByDefault")),
                       f"{name}/{pname}: renameByDefault")
                if "failRequestsGreaterThanOne" in sharing:
                    c.that(block.get("failRequestsGreaterThanOne") == sharing["failRequestsGreaterThanOne"],
                           f"{name}/{pname}: failRequestsGreaterThanOne")
            if mode == "mig" and (sharing.get("mig") or {}).get("layout"):
                configs = yaml.safe_load(mig_cm["data"]["config.yaml"])["mig-configs"] if mig_cm else {}
                entry = (configs.get(pname) or [{}])[0]
                c.that(entry.get("mig-devices") == sharing["mig"]["layout"], f"{name}/{pname}: MIG layout")
                c.that("all-disabled" in configs, f"{name}: all-disabled MIG config")

        # 2. the provisioned nodes: labels and taints
        labels, node_taints = None, None
        provisioner = pool.get("provisioner")
        if platform in ("eks", "aks") and provisioner in ("karpenter", "node-auto-provisioning"):
            nodepool = next((d for d in by_kind.get("NodePool", []) if d["metadata"]["name"] == pname), None)
            c.that(nodepool is not None, f"{name}/{pname}: NodePool")
            if nodepool:
                labels = nodepool["spec"]["template"]["metadata"]["labels"]
                node_taints = nodepool["spec"]["template"]["spec"].get("taints", [])
                if "limits" in pool and "gpus" in pool["limits"]:
                    _check_limits(name, pool, nodepool["spec"]["limits"], platform, c)
        elif platform == "gke" and provisioner == "node-auto-provisioning":
            cc = next((d for d in by_kind.get("ComputeClass", []) if d["metadata"]["name"] == pname), None)
            c.that(cc is not None, f"{name}/{pname}: ComputeClass")
            if cc:
                labels = cc["spec"]["nodePoolConfig"]["nodeLabels"]
                node_taints = cc["spec"]["nodePoolConfig"].get("taints", [])
        elif platform in ("aks", "gke") and provisioner == "managed":
            script = overlay / (f"aks-nodepool-{pname}.sh" if platform == "aks" else f"gke-nodepool-{pname}.sh")
            c.that(script.exists(), f"{name}/{pname}: node pool script")
            if script.exists():
                flags = _script_flags(script)
                raw = flags.get("--labels") or flags.get("--node-labels") or ""
                labels = dict(kv.split("=", 1) for kv in re.split(r"[ ,]", raw) if "=" in kv)
                tflag = flags.get("--node-taints", "")
                node_taints = [{"key": k, "value": v or None, "effect": e} for k, v, e in
                               re.findall(r"([^=,:]+)(?:=([^:,]*))?:(\w+)", tflag)]
        if labels is not None:
            c.that(labels.get("gengpu.dev/pool") == pname, f"{name}/{pname}: pool label")
            if operator:
                c.that(labels.get("nvidia.com/device-plugin.config") == pname, f"{name}/{pname}: config label")
        if node_taints is not None:
            for t in taints:
                c.that(any(n["key"] == t["key"] and n["effect"] == t["effect"]
                           and str(n.get("value") or "") == str(t.get("value") or "") for n in node_taints),
                       f"{name}/{pname}: node taint {t['key']}")

        # 3. Karpenter's simulation: one node's real capacity, for this pool only
        if platform == "eks" and provisioner == "karpenter" and mode != "none" and _gpus_per_node(pool):
            overlays = [d for d in by_kind.get("NodeOverlay", []) if any(
                r["key"] == "karpenter.sh/nodepool" and r["values"] == [pname] for r in d["spec"]["requirements"])]
            c.that(len(overlays) == 1, f"{name}/{pname}: one NodeOverlay scoped to the pool")
            if overlays:
                want = {r: str(n * _gpus_per_node(pool)) for r, n in _advertised(pool).items()}
                c.that(overlays[0]["spec"]["capacity"] == want, f"{name}/{pname}: NodeOverlay capacity")

        # 4. placement: a component per advertised resource, tolerating the pool's taints
        advertised = _advertised(pool)
        components = sorted((overlay / "components").glob(f"{pname}*"))
        placements = [yaml.safe_load((p / "placement.yaml").read_text())["spec"] for p in components
                      if yaml.safe_load((p / "placement.yaml").read_text())["spec"]["pool"] == pname]
        c.that(sorted(p["resource"] for p in placements) == sorted(advertised) or platform == "gke-autopilot"
               or not operator, f"{name}/{pname}: component resources")
        for p in placements:
            for t in taints:
                c.that(_tolerates(p["tolerations"], t), f"{name}/{pname}: placement tolerates {t['key']}")

        # 5. verification: one node's worth of slices, each pod asking for the component's resource
        if pool.get("verify") and _gpus_per_node(pool) and advertised and operator:
            deploy = _docs((overlay / "verify" / pname / "deployment.yaml").read_text())[0]
            first = next(iter(advertised))
            c.that(deploy["spec"]["replicas"] == _gpus_per_node(pool) * advertised[first],
                   f"{name}/{pname}: verify replicas")
            limits = deploy["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
            c.that(limits.get(first) == 1, f"{name}/{pname}: verify asks for {first}")

    # 6. Argo CD: the cluster's Application syncs this overlay; Flux: a Kustomization does, and the operator's
    # HelmRelease comes after it with the values file's values
    if spec.get("gitops") == "flux":
        c.that(not (repo / "argocd" / "applications" / f"{name}.yaml").exists(), f"{name}: no Application")
        kustomizations = {k["metadata"]["name"]: k["spec"]
                          for k in _docs((overlay / "flux" / "kustomizations.yaml").read_text())}
        # the overlay's files, each in exactly one stage: what the chart needs, or other projects' CRs after it
        listed = _docs((overlay / "kustomization.yaml").read_text())[0]["resources"]
        staged = [r.removeprefix("../../") for stage in ("configs", "addons")
                  if (overlay / "flux" / stage / "kustomization.yaml").exists()
                  for r in _docs((overlay / "flux" / stage / "kustomization.yaml").read_text())[0]["resources"]]
        c.that(sorted(staged) == sorted(listed), f"{name}: Flux stages hold the overlay's files once each")
        if (overlay / "flux" / "configs").exists():
            c.that(kustomizations.get(f"gpu-{name}", {}).get("path") == f"./overlays/{name}/flux/configs",
                   f"{name}: Flux Kustomization")
        if (overlay / "gpu-operator-values.yaml").exists():
            c.that(kustomizations.get(f"gpu-{name}-operator", {}).get("dependsOn") == [{"name": f"gpu-{name}"}],
                   f"{name}: the operator after the overlay")
            if f"gpu-{name}-addons" in kustomizations:
                c.that(kustomizations[f"gpu-{name}-addons"]["dependsOn"][0] == {"name": f"gpu-{name}-operator"},
                       f"{name}: node pools and monitoring after the operator")
            release = _docs((overlay / "flux" / "operator" / "gpu-operator.yaml").read_text())[0]
            c.that(release["spec"]["values"] == _docs((overlay / "gpu-operator-values.yaml").read_text())[0],
                   f"{name}: HelmRelease values are the values file's")
    else:
        app = yaml.safe_load((repo / "argocd" / "applications" / f"{name}.yaml").read_text())
        c.that(any(s.get("path") == f"overlays/{name}" for s in app["spec"]["sources"]), f"{name}: Application")

    # 7. every DaemonSet gengpu deploys reaches every GPU node: the GPU Operator's operands and NFD's worker, and the
    # DRA kubelet plugin on DRA pools, tolerate the pools' taints and those the platform puts on spot nodes itself
    values_file = overlay / "gpu-operator-values.yaml"
    operator_values = _docs(values_file.read_text())[0] if values_file.exists() else None
    dra_file = overlay / "dra-driver-values.yaml"
    dra_values = _docs(dra_file.read_text())[0] if dra_file.exists() else None
    for pool in spec["nodePools"]:
        pname = pool["name"]
        taints = list(pool.get("taints", [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
                                     if platform != "gke-autopilot" else []))
        if "spot" in pool.get("capacityTypes", []) and platform in PLATFORM_SPOT_TAINTS:
            taints.append(PLATFORM_SPOT_TAINTS[platform])
        daemonsets = []
        if operator_values is not None:
            daemonsets += [("operator operands", operator_values["daemonsets"]["tolerations"]),
                           ("NFD worker", operator_values["node-feature-discovery"]["worker"]["tolerations"])]
        if dra_values is not None and pool.get("allocation") == "dra":
            daemonsets.append(("DRA kubelet plugin", dra_values["kubeletPlugin"]["tolerations"]))
        for what, tolerations in daemonsets:
            for t in taints:
                c.that(_tolerates(tolerations, t), f"{name}/{pname}: {what} tolerate {t['key']}")

    # 8. integers are integers: every count a cloud CLI or Karpenter reads is written as a whole number (a float
    # count=1.0 or '1.0' GPUs matches no machine or instance type)
    for script in sorted(overlay.glob("*-nodepool-*.sh")):
        flags = _script_flags(script)
        for flag in ("--max-nodes", "--max-count", "--min-nodes", "--min-count", "--node-count"):
            if flag in flags:
                c.that(flags[flag].split()[0].isdigit(), f"{name}: {script.name} {flag} is a whole number")
        for count in re.findall(r"count=([^,\s]+)", flags.get("--accelerator", "")):
            c.that(count.isdigit(), f"{name}: {script.name} accelerator count is a whole number")
    for pool_doc in by_kind.get("NodePool", []):
        for r in pool_doc["spec"]["template"]["spec"]["requirements"]:
            if r["key"].endswith("gpu-count"):
                c.that(all(str(v).isdigit() for v in r["values"]), f"{name}: NodePool GPU count is a whole number")
        for resource, value in (pool_doc["spec"].get("limits") or {}).items():
            c.that(re.fullmatch(r"[0-9]+(Gi)?", str(value)) is not None, f"{name}: NodePool limit {resource} is whole")
    for overlay_doc in by_kind.get("NodeOverlay", []):
        c.that(all(str(v).isdigit() for v in overlay_doc["spec"]["capacity"].values()),
               f"{name}: NodeOverlay capacity is whole")
