from gengpu.checking.rules.base import OVERLAY, Hit, Rule
from gengpu.checking.subjects import pod_specs


def check(overlay, ctx=None):
    if ctx is None or ctx.profile.platform != "gke-autopilot":
        return
    for doc in overlay.docs:
        if not isinstance(doc.data, dict):
            continue
        name = f"{doc.data.get('kind')} {(doc.data.get('metadata') or {}).get('name', '?')}"
        for path, spec in pod_specs(doc.data):
            for field in ("hostPID", "hostIPC", "hostNetwork"):
                if spec.get(field) is True:
                    yield Hit(path + (field,), f"{name} sets {field}, which GKE Autopilot rejects", doc=doc)
            for group in ("initContainers", "containers"):
                for i, c in enumerate(spec.get(group) or []):
                    ctx_ = (c.get("securityContext") or {}) if isinstance(c, dict) else {}
                    if ctx_.get("privileged") is True:
                        yield Hit(path + (group, i, "securityContext", "privileged"),
                                  f"{name}: container {c.get('name', '?')} is privileged, which GKE Autopilot "
                                  "rejects", doc=doc)


RULE = Rule(
    id="autopilot-privileged-workload",
    severity="error",
    summary="A privileged pod in a GKE Autopilot cluster.",
    fix="Drop privileged mode and host namespaces; on Autopilot use GKE's managed GPU stack and managed DCGM metrics.",
    explanation="Autopilot 'enforces security constraints that reject workloads that need elevated privileges': "
    "privileged containers and host namespaces are refused unless the workload is on Google's allow-list. That is "
    "why the GPU Operator and its dcgm-exporter cannot run there.",
    source="GKE 'About privileged workload admission in Autopilot'",
    check=check,
    applies_to=OVERLAY,
)
