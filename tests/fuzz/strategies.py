"""Hypothesis strategies for profiles that reach the compiler: the schema's enums and the catalog's GPUs, instance
types and MIG profiles, combined freely, with rules suppressed at random so the compiler meets what the rules
would otherwise stop."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads((ROOT / "schemas" / "profile.schema.json").read_text(encoding="utf-8"))


def _enum(*path) -> list:
    node = _schema()
    for part in path:
        node = node[part]
    return list(node["enum"] if "enum" in node else node["items"]["enum"])


@lru_cache(maxsize=1)
def _catalog():
    from gengpu import catalog
    from gengpu.checking.rules import RULES

    clouds = catalog.clouds()
    types = {
        "eks": [*clouds["eks"]["families"], *(f"{f}.{s}" for f, spec in clouds["eks"]["families"].items()
                                              for s in spec["sizes"])],
        "gke": list(clouds["gke"]["machineTypes"]),
        "aks": list(clouds["aks"]["vmSizes"]),
    }
    types["gke-autopilot"] = types["gke"]
    types["kubernetes"] = []  # nodes you bring: no instance types
    gpus = catalog.gpus()
    mig = {g: list((spec.get("mig") or {}).get("profiles", {})) for g, spec in gpus.items()}
    return sorted(gpus), types, mig, sorted(RULES)


PROVISIONERS = {"eks": ["karpenter", "managed"], "gke": ["managed", "node-auto-provisioning"],
                "gke-autopilot": ["autopilot"], "aks": ["managed", "node-auto-provisioning"], "kubernetes": ["managed"]}


@st.composite
def pools(draw, platform: str, index: int):
    """Mostly a consistent pool (an instance type and the GPU it carries); now and then anything the schema allows."""
    from gengpu import catalog

    gpus, types, mig, _ = _catalog()
    machine = draw(st.sampled_from(types[platform])) if types[platform] else None
    carried = (catalog.instance_type(platform if platform != "gke-autopilot" else "gke", machine) or {}).get("gpu") \
        if machine else None
    gpu = carried if carried and draw(st.integers(0, 4)) else draw(st.sampled_from(gpus + ["Z9-unknown"]))
    provisioner = draw(st.sampled_from(PROVISIONERS[platform] if draw(st.integers(0, 4)) else
                                       _enum("$defs", "nodePool", "properties", "provisioner")))
    pool = {"name": f"p{index}", "gpu": gpu, "provisioner": provisioner}
    if machine:
        pool["instanceTypes"] = [machine]
    if draw(st.booleans()) or not machine:  # nodes you bring state their GPUs per node
        pool["gpusPerNode"] = draw(st.integers(1, 16))
    if draw(st.booleans()):
        pool["capacityTypes"] = draw(st.lists(st.sampled_from(["spot", "on-demand"]), min_size=1, max_size=2,
                                              unique=True))
    if draw(st.booleans()):
        pool["limits"] = draw(st.fixed_dictionaries({}, optional={k: st.integers(0, 64) for k in
                                                                   ("nodes", "gpus", "cpu", "memoryGiB")}))
    pool["verify"] = draw(st.booleans())
    mode = draw(st.sampled_from(["none", "time-slicing", "mps", "mig"]))
    sharing: dict = {"mode": mode}
    if mode in ("time-slicing", "mps"):
        sharing["replicas"] = draw(st.integers(2, 64))
        if draw(st.booleans()):
            sharing["renameByDefault"] = True
        if draw(st.booleans()):
            sharing["failRequestsGreaterThanOne"] = draw(st.booleans())
    elif mode == "mig":
        profiles = mig.get(gpu) or ["1g.5gb"]
        strategy = draw(st.sampled_from(["single", "mixed"]))
        if draw(st.booleans()):
            sharing["mig"] = {"strategy": strategy, "preset": f"all-{draw(st.sampled_from(profiles))}"}
        else:
            chosen = draw(st.lists(st.sampled_from(profiles), min_size=1, max_size=3, unique=True))
            sharing["mig"] = {"strategy": strategy, "layout": {p: draw(st.integers(1, 7)) for p in chosen}}
    pool["sharing"] = sharing
    return pool


@st.composite
def profiles(draw):
    _, _, _, rules = _catalog()
    platform = draw(st.sampled_from(_enum("properties", "spec", "properties", "platform")))
    region = {"eks": "us-east-1", "gke": "us-central1", "gke-autopilot": "us-central1", "aks": "eastus"}.get(platform)
    count = draw(st.integers(1, 3))
    spec = {"platform": platform, **({"region": region} if region else {}),
            "kubernetesVersion": draw(st.sampled_from(["1.30", "1.33", "1.37"])),
            "nodePools": [draw(pools(platform, i)) for i in range(count)],
            "argocd": {"repoURL": "https://github.com/example/gitops.git"}}
    if draw(st.booleans()):
        spec["operator"] = {"enabled": draw(st.booleans())}
    if draw(st.booleans()):
        spec["monitoring"] = {"mode": draw(st.sampled_from(_enum("$defs", "monitoring", "properties", "mode")))}
    suppressed = draw(st.lists(st.sampled_from(rules), max_size=6, unique=True))
    if suppressed:
        spec["suppress"] = [{"rule": r, "reason": "hypothesis"} for r in suppressed]
    return {"apiVersion": "gengpu.dev/v1alpha1", "kind": "GPUProfile", "metadata": {"name": "fuzzed"}, "spec": spec}
