"""What a merge disrupts on a running cluster, read from both sides of `gengpu diff`.

A change is disruptive when applying it restarts, evicts or replaces something that GPU workloads run on:
  - a MIG layout that changes: the MIG manager re-partitions every node labelled with that config, evicting its GPU
    pods first (and rebooting where the cloud needs it);
  - a device-plugin config that changes (sharing mode, replicas, renaming): the plugin restarts on the nodes labelled
    with that config and advertises new resources; pods already running keep their devices, new ones see the change;
  - the driver the GPU Operator installs (its version, or the operator release, whose driver DaemonSet changes with
    it): the upgrade controller reloads the driver node by node, deleting the GPU pods of each, or, from GPU Operator
    v26.7.0 when the driver and its manager stay the same, restarts the driver pods in place on cordoned nodes;
  - a Karpenter node template or node class: every node of the pool has drifted and Karpenter replaces them all,
    within the pool's disruption budgets.
Limits, weights, disruption settings, monitoring and placement components disrupt nothing and are not listed.
A managed node pool's script is listed apart: Argo CD never runs it, so nothing changes until someone does.
"""

from __future__ import annotations

import yaml

# Karpenter leaves these out of the template hash that decides drift (sigs.k8s.io/karpenter pkg/apis/v1
# nodepool.go, `hash:"ignore"`): changing them replaces no node.
_NOT_DRIFT = ("expireAfter", "terminationGracePeriod")
_NODE_CLASSES = ("EC2NodeClass", "AKSNodeClass")


def _configmaps(objs: dict) -> dict[str, dict]:
    """ConfigMap name -> its data, for one side."""
    return {str((o.get("metadata") or {}).get("name")): (o.get("data") or {}) for k, o in objs.items()
            if isinstance(o, dict) and o.get("kind") == "ConfigMap"}


def _parse(text) -> object:
    try:
        return yaml.safe_load(text) if isinstance(text, str) else None
    except yaml.YAMLError:
        return None


def _mig_configs(objs: dict) -> dict[str, object]:
    """mig-parted config name -> its entry, from every ConfigMap that holds a mig-parted config."""
    out = {}
    for data in _configmaps(objs).values():
        for text in data.values():
            parsed = _parse(text)
            if isinstance(parsed, dict) and isinstance(parsed.get("mig-configs"), dict):
                out.update(parsed["mig-configs"])
    return out


def _sharing_configs(objs: dict) -> dict[str, dict]:
    """device-plugin config name -> the config, from every ConfigMap whose values are device-plugin configs."""
    out = {}
    for data in _configmaps(objs).values():
        for key, text in data.items():
            parsed = _parse(text)
            if isinstance(parsed, dict) and parsed.get("version") == "v1" and "mig-configs" not in parsed:
                out[str(key)] = parsed
    return out


def _mode(config: dict) -> str:
    sharing = config.get("sharing") or {}
    strategy = (config.get("flags") or {}).get("migStrategy")
    tail = f", MIG strategy {strategy}" if strategy else ""
    for mode, key in (("time-slicing", "timeSlicing"), ("mps", "mps")):
        block = sharing.get(key) or {}
        resources = block.get("resources") or []
        if resources:
            replicas = ", ".join(f"{r.get('name')} x{r.get('replicas')}" for r in resources if isinstance(r, dict))
            return f"{mode} ({replicas}{', renamed' if block.get('renameByDefault') else ''}){tail}"
    return f"no sharing{tail}"


def _values(objs: dict, name: str) -> dict:
    parsed = _parse(objs.get(f"file {name}"))
    return parsed if isinstance(parsed, dict) else {}


def _driver(objs: dict) -> tuple[bool, str | None, str | None]:
    """(whether the GPU Operator installs the driver, the driver version set, the operator chart version that an
    Argo CD Application or a Flux HelmRelease pins)."""
    values = _values(objs, "gpu-operator-values.yaml")
    driver = values.get("driver") or {}
    chart = None
    for key, obj in objs.items():
        if isinstance(obj, dict) and obj.get("kind") == "Application":
            for source in (obj.get("spec") or {}).get("sources") or []:
                if isinstance(source, dict) and source.get("chart") == "gpu-operator":
                    chart = str(source.get("targetRevision"))
        elif isinstance(obj, dict) and obj.get("kind") == "HelmRelease":
            spec = ((obj.get("spec") or {}).get("chart") or {}).get("spec") or {}
            if spec.get("chart") == "gpu-operator" and spec.get("version"):
                chart = str(spec["version"])
    return bool(values) and driver.get("enabled", True) is not False, driver.get("version"), chart


def _of_kind(objs: dict, kinds) -> dict[str, dict]:
    return {str((o.get("metadata") or {}).get("name")): o for o in objs.values()
            if isinstance(o, dict) and o.get("kind") in kinds}


def _template(nodepool: dict) -> dict:
    template = dict((nodepool.get("spec") or {}).get("template") or {})
    spec = {k: v for k, v in (template.get("spec") or {}).items() if k not in _NOT_DRIFT}
    return {**template, "spec": spec}


def _karpenter(before: dict, after: dict) -> list[dict]:
    out = []
    old_pools, new_pools = _of_kind(before, ("NodePool",)), _of_kind(after, ("NodePool",))
    old_classes, new_classes = _of_kind(before, _NODE_CLASSES), _of_kind(after, _NODE_CLASSES)
    for name in sorted(set(old_pools) & set(new_pools)):
        new = new_pools[name]
        changed = []
        if _template(old_pools[name]) != _template(new):
            changed.append("its node template")
        ref = (((new.get("spec") or {}).get("template") or {}).get("spec") or {}).get("nodeClassRef") or {}
        cls = str(ref.get("name"))
        if cls in old_classes and cls in new_classes and \
                (old_classes[cls].get("spec") != new_classes[cls].get("spec")):
            changed.append(f"its node class {ref.get('kind')} {cls}")
        if changed:
            budgets = ((new.get("spec") or {}).get("disruption") or {}).get("budgets")
            pace = "within its disruption budgets" if budgets else "under Karpenter's default budget (10% of nodes)"
            out.append({"pool": name, "kind": "node-replacement",
                        "what": f"NodePool {name}: {' and '.join(changed)} changed",
                        "nodes": f"every node of NodePool {name} (label karpenter.sh/nodepool={name})",
                        "effect": f"Karpenter marks them drifted and replaces them, {pace}; their pods are evicted "
                                  "and rescheduled"})
    return out


def _dra_pools(objs: dict) -> set[str]:
    """Pools whose GPUs NVIDIA's DRA kubelet plugin hands out (the gengpu.dev/pool values of its node affinity)."""
    plugin = _values(objs, "dra-driver-values.yaml").get("kubeletPlugin") or {}
    terms = ((((plugin.get("affinity") or {}).get("nodeAffinity") or {})
              .get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms") or [])
    return {str(v) for t in terms for e in (t.get("matchExpressions") or [])
            if e.get("key") == "gengpu.dev/pool" for v in (e.get("values") or [])}


def _mig(before: dict, after: dict) -> list[dict]:
    old, new = _mig_configs(before), _mig_configs(after)
    dra = _dra_pools(after)
    return [{"pool": name, "kind": "mig-repartition", "what": f"MIG config {name} changed",
             "nodes": f"every node labelled nvidia.com/mig.config={name}",
             "effect": "the MIG manager re-partitions their GPUs: it stops the GPU clients, evicts the GPU pods and "
                       "may reboot the node; MIG devices of the old layout are gone"
                       + ("; the DRA kubelet plugin lists MIG devices only when it starts, so restart its pods on "
                          "those nodes (label nvidia-dra-driver-gpu-component=kubelet-plugin) once "
                          "nvidia.com/mig.config.state is success" if name in dra else "")}
            for name in sorted(set(old) & set(new)) if old[name] != new[name] and name != "all-disabled"]


def _sharing(before: dict, after: dict) -> list[dict]:
    old, new = _sharing_configs(before), _sharing_configs(after)
    return [{"pool": name, "kind": "device-plugin-restart",
             "what": f"device-plugin config {name}: {_mode(old[name])} -> {_mode(new[name])}",
             "nodes": f"every node labelled nvidia.com/device-plugin.config={name}",
             "effect": "the device plugin restarts and advertises the new resources; running pods keep their "
                       "devices, pods asking for a resource the nodes no longer advertise stay Pending"}
            for name in sorted(set(old) & set(new)) if old[name] != new[name]]


def _drivers(before: dict, after: dict, table: dict | None = None) -> list[dict]:
    """A new driver, or a new GPU Operator release over the same one. Any operator release changes the driver
    DaemonSet (its k8s-driver-manager image, its chart label), so its pods are replaced: node by node with their GPU
    pods deleted, unless both releases stamp the same install digest (same driver and driver manager) and the new
    one restarts such pods in place (operator.yaml minFor)."""
    from gengpu.catalog import chart_has, operator

    (owned_before, version_before, chart_before), (owned, version, chart) = _driver(before), _driver(after)
    if not (owned_before and owned) or (version_before, chart_before) == (version, chart):
        return []
    table = table or operator()
    old, new = table["releases"].get(chart_before or table["default"]), table["releases"].get(chart or table["default"])
    changes = []
    if version_before != version:
        changes.append(f"driver version {version_before or 'the chart default'} -> {version or 'the chart default'}")
    if chart_before != chart:
        managers = f"k8s-driver-manager {old['driverManager']} -> {new['driverManager']}" \
            if old and new and old["driverManager"] != new["driverManager"] else None
        picks = ", with the driver its chart picks" if not version else ""
        changes.append(f"GPU Operator {chart_before} -> {chart}{picks}" + (f" ({managers})" if managers else ""))
    same_driver = old and new and (version_before or old["driver"]) == (version or new["driver"])
    if same_driver and chart_before == chart:
        return []  # the version written out is the chart's default: the DaemonSet does not change
    in_place = same_driver and old["driverManager"] == new["driverManager"] and \
        chart_has(chart_before, table["minFor"]["driverConfigDigest"]) and \
        chart_has(chart, table["minFor"]["inPlaceDriverRestart"])
    if in_place:
        return [{"pool": None, "kind": "driver-restart", "what": "; ".join(changes),
                 "nodes": "every GPU node whose driver the GPU Operator installs",
                 "effect": "the upgrade controller cordons each node and restarts its driver pod in place (the same "
                           "driver and driver manager: the install digest matches); GPU pods keep running, new ones "
                           "wait until the node is uncordoned"}]
    return [{"pool": None, "kind": "driver-upgrade", "what": "; ".join(changes),
             "nodes": "every GPU node whose driver the GPU Operator installs",
             "effect": "the upgrade controller reloads the driver node by node (driver.upgradePolicy), deleting "
                       "each node's GPU pods first"}]


def disruptions(before: dict, after: dict) -> list[dict]:
    """What applying `after` over `before` disrupts on one cluster (objects as diffing reads them)."""
    return [*_mig(before, after), *_sharing(before, after), *_drivers(before, after), *_karpenter(before, after)]


def manual(before: dict, after: dict) -> list[str]:
    """Managed node pool scripts that changed: Argo CD does not run them, the existing pool keeps its settings."""
    return sorted(key.removeprefix("file ") for key in set(before) & set(after)
                  if key.startswith("file ") and key.endswith(".sh") and before[key] != after[key])
