"""An independent check of gengpu's output: reads only a profile (as plain YAML) and what was built from it
(the overlay rendered by the real kustomize, the files beside it, argocd/), never gengpu's compiler.

Each check is a plain statement about what a cluster needs to work; `check(repo, name)` returns the statements
that fail, and counts those that hold.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
KUSTOMIZE = str(REPO / "bin" / "kustomize")
SHARED = ("time-slicing", "mps")


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
        layout = (sharing.get("mig") or {}).get("layout") or {}
        if (sharing.get("mig") or {}).get("strategy") == "mixed":
            return {f"nvidia.com/mig-{p}": n for p, n in layout.items()}
        return {"nvidia.com/gpu": sum(layout.values())} if layout else {}
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


def _check_dra_pool(overlay: Path, name: str, pool: dict, operator: bool, c: Checks) -> None:
    """A DRA pool: no device-plugin key, nodes kept from the device plugin, one claim template per slice type."""
    pname = pool["name"]
    sharing = pool.get("sharing") or {}
    mode = sharing.get("mode", "none")
    dp = overlay / "device-plugin-config.yaml"
    if dp.exists():
        c.that(pname not in _docs(dp.read_text())[0]["data"], f"{name}/{pname}: no device-plugin key (DRA)")
    values = _docs((overlay / "dra-driver-values.yaml").read_text())[0]
    c.that(values.get("gpuResourcesEnabledOverride") is True and values["resources"]["gpus"]["enabled"] is True,
           f"{name}/{pname}: DRA chart allocates GPUs")
    gates = {"time-slicing": "TimeSlicingSettings", "mps": "MPSSupport"}
    if mode in gates:
        c.that(values.get("featureGates", {}).get(gates[mode]) is True, f"{name}/{pname}: DRA sharing gate on")
    script = next(iter(sorted(overlay.glob(f"*-nodepool-{pname}.sh"))), None)
    if script is not None:
        raw = _script_flags(script).get("--labels") or _script_flags(script).get("--node-labels") or ""
        labels = dict(kv.split("=", 1) for kv in re.split(r"[ ,]", raw) if "=" in kv)
        selector = values["kubeletPlugin"]["nodeSelector"]
        c.that(all(labels.get(k) == v for k, v in selector.items()), f"{name}/{pname}: DRA plugin runs on the pool")
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
                    c.that(str(nodepool["spec"]["limits"].get("nvidia.com/gpu")) == str(pool["limits"]["gpus"]),
                           f"{name}/{pname}: NodePool GPU limit")
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

    # 6. Argo CD: the cluster's Application syncs this overlay
    app = yaml.safe_load((repo / "argocd" / "applications" / f"{name}.yaml").read_text())
    c.that(any(s.get("path") == f"overlays/{name}" for s in app["spec"]["sources"]), f"{name}: Application")
