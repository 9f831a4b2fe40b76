from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule
from gengpu.cluster import mig_layout, mig_resource
from gengpu.compiling.nodes import DEVICE_PLUGIN_LABEL
from gengpu.compiling.sharing import DEVICE_PLUGIN_CONFIGMAP, device_plugin_config

STRATEGY = {"time-slicing": "time-slicing", "mps": "mps"}
UNREADABLE = object()  # a config key that is not YAML any parser reads


def _config_keys(cluster) -> tuple[str, set[str]] | None:
    """The device plugin's config ConfigMap in the snapshot (the ClusterPolicy's devicePlugin.config.name, else
    gengpu's) and its keys; None where the snapshot does not hold it."""
    names = [p.text("spec", "devicePlugin", "config", "name") for p in cluster.snapshot.clusterpolicies]
    names = [n for n in names if n] or [DEVICE_PLUGIN_CONFIGMAP]
    ns = cluster.profile.operator.namespace
    for cm in cluster.snapshot.configmaps:
        if cm.name in names and cm.text("metadata", "namespace") in (None, ns):
            return cm.name, {str(k) for k in cm.mapping("data")}
    return None


def _running(cluster, label: str | None) -> tuple[str, str, dict] | None:
    """(ConfigMap, key, sharing) of the config the node's device plugin runs, where the snapshot holds it: the key its
    label names, else the ClusterPolicy's devicePlugin.config.default. The sharing is read from the config itself
    (timeSlicing or mps: replicas of nvidia.com/gpu and renameByDefault), so the key may be called anything."""
    import yaml

    found = _config_keys(cluster)
    defaults = [p.text("spec", "devicePlugin", "config", "default") for p in cluster.snapshot.clusterpolicies]
    key = label or next((d for d in defaults if d), None)
    if found is None or key is None:
        return None
    name, _ = found
    memo = cluster.memo.setdefault("device-plugin-configs", {})
    if key not in memo:  # each key parsed once per check, not once per node
        cm = next(c for c in cluster.snapshot.configmaps if c.name == name)
        text = cm.text("data", key)
        try:
            memo[key] = yaml.safe_load(text) if text is not None else None
        except (yaml.YAMLError, RecursionError):  # (nested past any parser's depth: the plugin cannot read it either)
            memo[key] = UNREADABLE
    config = memo[key]
    if config is None:
        return None
    if config is UNREADABLE:
        return name, key, None
    sharing = config.get("sharing") if isinstance(config, dict) else None
    for mode, block in (sharing.items() if isinstance(sharing, dict) else ()):
        if mode in ("timeSlicing", "mps") and isinstance(block, dict):
            named = {str(r.get("name")): r.get("replicas") for r in reversed(block.get("resources") or [])
                     if isinstance(r, dict)}
            return name, key, {"mode": "time-slicing" if mode == "timeSlicing" else "mps",
                               "replicas": named.get("nvidia.com/gpu"),
                               "rename": bool(block.get("renameByDefault", False)),
                               "mig": {r: n for r, n in named.items() if r.startswith("nvidia.com/mig-")}}
    return name, key, {"mode": "none", "replicas": None, "rename": False, "mig": {}}


def _sliced_mig(pool) -> dict:
    """resource -> replicas the pool's time-sliced MIG devices promise (none where the layout is not time-sliced)."""
    s = pool.sharing
    if s.mig_replicas == 1:
        return {}
    names = [mig_resource(p) for p in mig_layout(pool)] if s.mig.strategy == "mixed" else ["nvidia.com/gpu"]
    return {n: s.mig_replicas for n in names}


def _sliced(mig: dict) -> str:
    return ", ".join(f"{r} x {n}" for r, n in sorted(mig.items())) + " time-sliced" if mig else \
        "MIG devices not time-sliced"


def _sharing(s) -> str:
    return "no sharing" if s["mode"] == "none" else f"{s['mode']} x {s['replicas']}" + \
        (" (renamed nvidia.com/gpu.shared)" if s["rename"] else "")


def check(node, cluster):
    pool = node.pool
    if pool is None or pool.dra:
        return
    labels = node.item.labels
    label = labels.get(DEVICE_PLUGIN_LABEL)
    others = {p.name: p for p in cluster.profile.node_pools if p is not pool}
    if label in others and device_plugin_config(cluster.profile, others[label]) != \
            device_plugin_config(cluster.profile, pool):
        yield at_pool(node, f"{DEVICE_PLUGIN_LABEL} is {label}, the sharing config gengpu generates for pool "
                      f"{label}: the device plugin runs another pool's config", "name")
    found = _config_keys(cluster)
    if label is not None and found is not None and label not in found[1]:
        name, keys = found
        yield at_pool(node, f"{DEVICE_PLUGIN_LABEL}={label} names no key of ConfigMap {name} "
                      f"({', '.join(sorted(keys)) or 'empty'}): the config-manager stops with 'specified config "
                      "does not exist'", "name")
    s = pool.sharing
    running = _running(cluster, label)
    if running is not None and running[2] is None:
        yield at_pool(node, f"runs config {running[1]} of ConfigMap {running[0]}, which is not YAML the device plugin "
                      "reads (a syntax error, or nesting deeper than any parser takes): its config-manager stops",
                      "sharing")
    elif running is not None and s.mode != "mig":
        name, key, has = running
        wanted = {"mode": s.mode if s.mode in STRATEGY else "none", "replicas": s.replicas if s.mode in STRATEGY
                  else None, "rename": bool(s.rename_by_default) if s.mode in STRATEGY else False}
        if {k: v for k, v in has.items() if k != "mig"} != wanted:
            yield at_pool(node, f"runs config {key} of ConfigMap {name} ({_sharing(has)}), the pool promises "
                          f"{_sharing(wanted)}", "sharing")
    elif running is not None and mig_layout(pool):
        name, key, has = running
        wanted = _sliced_mig(pool)
        single = s.mig.strategy == "single" and has["replicas"] is not None
        sliced = ({"nvidia.com/gpu": has["replicas"]} if single else has["mig"]) if has["mode"] == "time-slicing" \
            else {}
        if has["mode"] == "mps":
            yield at_pool(node, f"runs config {key} of ConfigMap {name} (MPS), which the device plugin refuses on "
                          f"MIG devices ('sharing using MPS is not supported for MIG devices'), the pool promises "
                          f"{_sliced(wanted)}", "sharing", "mig")
        elif sliced != wanted:
            yield at_pool(node, f"runs config {key} of ConfigMap {name} ({_sliced(sliced)}), the pool promises "
                          f"{_sliced(wanted)}", "sharing", "mig")
    # GFD labels nvidia.com/gpu.* whatever name the shared GPUs are advertised under (resource.go
    # fullGPUResourceName), with or without the operator; the product ends in -SHARED when they are shared and not
    # renamed
    replicas, strategy = labels.get("nvidia.com/gpu.replicas"), labels.get("nvidia.com/gpu.sharing-strategy")
    product = labels.get("nvidia.com/gpu.product", "")
    if s.mode in STRATEGY and replicas is not None and replicas != str(s.replicas):
        yield at_pool(node, f"GPU Feature Discovery reports nvidia.com/gpu.replicas={replicas}, the pool shares each "
                      f"GPU {s.replicas} ways: the node runs an older or another sharing config", "sharing", "replicas")
    if s.mode in STRATEGY and strategy is not None and strategy != STRATEGY[s.mode]:
        yield at_pool(node, f"GPU Feature Discovery reports nvidia.com/gpu.sharing-strategy={strategy}, the pool "
                      f"uses {s.mode}", "sharing", "mode")
    if s.mode in STRATEGY and s.rename_by_default and product.endswith("-SHARED"):
        yield at_pool(node, f"GPU Feature Discovery reports nvidia.com/gpu.product={product}: the device plugin does "
                      "not rename the shared GPUs, the pool promises nvidia.com/gpu.shared", "sharing",
                      "renameByDefault")
    for resource, promised in (_sliced_mig(pool) or dict.fromkeys(
            [mig_resource(p) for p in mig_layout(pool)] if s.mode == "mig" else [], 1)).items():
        said = labels.get(f"{resource}.replicas")  # (GFD's 0 where the plugin runs no config: not shared)
        if said is not None and said.isdecimal() and max(int(said), 1) != promised:
            yield at_pool(node, f"GPU Feature Discovery reports {resource}.replicas={said}, the pool "
                          + (f"time-slices each MIG device {promised} ways" if promised > 1 else
                             "does not time-slice its MIG devices") + ": the node runs an older or another sharing "
                          "config", "sharing", "mig")
    if s.mode not in STRATEGY and s.mode != "mig" and strategy not in (None, "none"):
        yield at_pool(node, f"GPU Feature Discovery reports nvidia.com/gpu.sharing-strategy={strategy} on a pool "
                      "that does not share its GPUs: a stale sharing config is still applied", "sharing")


RULE = Rule(
    id="node-sharing-config-mismatch",
    severity="error",
    summary="A node runs another sharing config than its pool's: GPU Feature Discovery's sharing labels disagree "
    "with the profile, its config label names another pool's config, or a key the ConfigMap lacks.",
    fix="Find the config the node runs (its nvidia.com/device-plugin.config label, else the ClusterPolicy's "
    "devicePlugin.config.default) and make it hold the pool's sharing: the device plugin picks the new config up "
    "within a minute.",
    explanation="GPU Feature Discovery labels what really applies on the node (nvidia.com/gpu.replicas, "
    "nvidia.com/gpu.sharing-strategy, and a product ending in -SHARED when the shared GPUs keep the name "
    "nvidia.com/gpu), with or without the GPU Operator. gengpu judges those against the pool, whatever the config "
    "is called: NVIDIA's documented set-up (one config applied to every node through the ClusterPolicy's "
    "devicePlugin.config.default, no node label) is fine when it holds the pool's sharing. A label naming a key the "
    "ConfigMap lacks stops the config-manager.",
    source="NVIDIA/k8s-device-plugin v0.19.1 internal/lm/resource.go (replicas, sharing-strategy, product), "
    "cmd/config-manager; GPU Operator docs gpu-sharing (devicePlugin.config.default)",
    check=check,
    applies_to=LIVE_NODE,
)
