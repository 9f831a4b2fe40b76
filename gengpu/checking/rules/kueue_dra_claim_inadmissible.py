import re

import yaml

from gengpu.checking.podspecs import dig, text
from gengpu.checking.rules.base import OBJECT, OVERLAY, Hit, Rule
from gengpu.checking.rules._dra import request_classes
from gengpu.checking.subjects import pod_specs

QUEUE = "kueue.x-k8s.io/queue-name"
CONFIG_KEY = "controller_manager_config.yaml"  # the key of Kueue's ConfigMap (and of its chart's managerConfig)


def _configuration(data) -> dict | None:
    return data if isinstance(data, dict) and data.get("kind") == "Configuration" and \
        str(data.get("apiVersion", "")).startswith("config.kueue.x-k8s.io/") else None


GATE = "KueueDRAIntegration"
SINCE = "v0.18.0"  # the first Kueue release with the gate (on by default)
_IMAGE = re.compile(r"(^|/)kueue/kueue:(v?\d+\.\d+\.\d+)")


def _configurations(overlay):
    """Every Kueue Configuration in the files: a document of its own, the ConfigMap kueue-manager-config's key, or the
    chart's managerConfig.controllerManagerConfigYaml in a HelmRelease's values."""
    for doc in overlay.docs:
        data = doc.data if isinstance(doc.data, dict) else {}
        texts = [data["data"].get(CONFIG_KEY)] if data.get("kind") == "ConfigMap" and \
            isinstance(data.get("data"), dict) else []
        texts.append(dig(data, "spec", "values", "managerConfig", "controllerManagerConfigYaml"))
        parsed = [_configuration(data)]
        for text in texts:
            try:
                parsed.append(_configuration(yaml.safe_load(text)) if isinstance(text, str) else None)
            except yaml.YAMLError:
                continue
        yield from filter(None, parsed)


def dra_off(overlay) -> str | None:
    """Why Kueue in the files does not account DRA claims at all, if it does not: the KueueDRAIntegration gate turned
    off (the Configuration's featureGates, or the chart's controllerManager.featureGates), or a Kueue release before
    the gate (the chart a HelmRelease or Application pins, or the manager's image)."""
    for config in _configurations(overlay):
        if (dig(config, "featureGates") or {}).get(GATE) is False:
            return f"the Kueue Configuration turns {GATE} off (featureGates)"
    from gengpu import catalog

    for doc in overlay.docs:
        data = doc.data if isinstance(doc.data, dict) else {}
        gates = dig(data, "spec", "values", "controllerManager", "featureGates")
        for gate in gates if isinstance(gates, list) else []:
            if isinstance(gate, dict) and gate.get("name") == GATE and gate.get("enabled") is False:
                return f"the kueue chart's controllerManager.featureGates turns {GATE} off"
        pins = [dig(data, "spec", "chart", "spec", "version")] if dig(data, "spec", "chart", "spec", "chart") == \
            "kueue" else []
        pins += [m.group(2) for m in _IMAGE.finditer(yaml.safe_dump(data))] if data.get("kind") == "Deployment" else []
        for pin in pins:
            if isinstance(pin, str) and re.fullmatch(r"v?\d+\.\d+\.\d+", pin) and \
                    catalog.version_tuple(pin) < catalog.version_tuple(SINCE):
                return f"Kueue {pin} predates {GATE} ({SINCE}) and does not account DRA claims"
    return None


def mappings(overlay) -> dict[str, str] | None:
    """DeviceClass -> the resource name Kueue charges it as, from the Kueue Configuration in the files (a document of
    its own, the ConfigMap kueue-manager-config, or the chart's managerConfig.controllerManagerConfigYaml); None when
    the files hold no Configuration."""
    found = None
    for config in _configurations(overlay):
        found = found or {}
        for m in dig(config, "resources", "deviceClassMappings") or []:
            for cls in (m.get("deviceClassNames") or []) if isinstance(m, dict) else []:
                found[str(cls)] = str(m.get("name"))
    return found


def _queued(obj: dict) -> bool:
    labels = dig(obj, "metadata", "labels")
    return isinstance(labels, dict) and bool(labels.get(QUEUE))


def check(overlay, ctx=None):
    if dra_off(overlay):
        return  # Kueue admits the workloads without charging their claims: nothing is refused
    charged = mappings(overlay)
    objects = [s for s in overlay.subjects if s.kind == OBJECT and isinstance(s.data, dict)]
    templates = {(text(s.data, "metadata", "namespace"), text(s.data, "metadata", "name")): s
                 for s in objects if s.data.get("kind") == "ResourceClaimTemplate"}
    for s in objects:
        if not _queued(s.data):
            continue
        namespace = text(s.data, "metadata", "namespace")
        for path, spec in pod_specs(s.data):
            for j, claim in enumerate(spec.get("resourceClaims") or []):
                if not isinstance(claim, dict):
                    continue
                if claim.get("resourceClaimName"):
                    yield Hit(path + ("resourceClaims", j, "resourceClaimName"), f"{s.label} is queued in Kueue "
                              f"and uses ResourceClaim {claim['resourceClaimName']}: Kueue marks it inadmissible "
                              "(KueueDRAIntegration does not support use of resource claims); use a "
                              "ResourceClaimTemplate", doc=s.doc)
                name = text(claim, "resourceClaimTemplateName")
                template = (templates.get((namespace, name)) or templates.get((None, name))) if name else None
                if charged is None or template is None:
                    continue
                for _, cls in request_classes(dig(template.data, "spec", "spec", "devices", "requests")):
                    if cls not in charged:
                        yield Hit(path + ("resourceClaims", j, "resourceClaimTemplateName"), f"{s.label} is queued "
                                  f"in Kueue and its ResourceClaimTemplate {name} asks for DeviceClass {cls}, which "
                                  "the Kueue Configuration's resources.deviceClassMappings does not map: Kueue marks "
                                  f"it inadmissible (DeviceClass {cls} is not mapped in DRA configuration)", doc=s.doc)
    for s in objects if charged else []:
        if s.data.get("kind") != "ClusterQueue":
            continue
        for g, group in enumerate(dig(s.data, "spec", "resourceGroups") or []):
            for c, covered in enumerate((group or {}).get("coveredResources") or []):
                if covered in charged and covered not in charged.values():
                    yield Hit(("spec", "resourceGroups", g, "coveredResources", c), f"{s.label} covers {covered}, a "
                              f"DeviceClass: Kueue charges its claims as {charged[covered]}, the deviceClassMappings "
                              "name, which this queue does not cover, so they are never admitted", doc=s.doc)


RULE = Rule(
    id="kueue-dra-claim-inadmissible",
    severity="error",
    summary="A workload queued in Kueue whose DRA claims Kueue will not admit: a ResourceClaim of its own, a "
    "DeviceClass the Kueue Configuration does not map, or a ClusterQueue quota named after a DeviceClass.",
    fix="Give queued workloads ResourceClaimTemplates, not ResourceClaims; map every DeviceClass they ask for in the "
    "Kueue Configuration (resources.deviceClassMappings: name nvidia.com/gpu, deviceClassNames [gpu.nvidia.com]) and "
    "restart kueue-controller-manager; in ClusterQueues, give the quota to the mapping's name, not the DeviceClass's.",
    explanation="From Kueue v0.18 the KueueDRAIntegration feature (on by default) counts DRA devices against quota "
    "(with the gate off, or on an older Kueue, claims are not charged and nothing here applies). "
    "It charges the devices a pod's ResourceClaimTemplates request under the name that the Configuration's "
    "deviceClassMappings gives their DeviceClass, and a ClusterQueue covers that name. A Workload whose template asks "
    "for a DeviceClass without a mapping, or whose pods use a ResourceClaim directly, is not admitted: Kueue unsets "
    "its quota reservation and marks it inadmissible ('DeviceClass <class> is not mapped in DRA configuration for "
    "podset <podset>', 'KueueDRAIntegration feature does not support use of resource claims'). A ClusterQueue "
    "covering the DeviceClass's own name gives quota to a resource nothing is charged as.",
    source="kubernetes-sigs/kueue v0.19.2 site/content/en/docs/tasks/manage/setup_dra.md; pkg/dra/claims.go, "
    "pkg/controller/core/workload_controller.go (handleDRA) at ff69552e; apis/config/v1beta2/configuration_types.go "
    "(DeviceClassMapping)",
    check=check,
    applies_to=OVERLAY,
)
