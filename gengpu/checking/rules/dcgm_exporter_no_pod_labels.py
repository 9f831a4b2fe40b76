from gengpu.checking.rules._dcgm import exporters, kubernetes_mode, mounts, socket
from gengpu.checking.consequences import WORKLOAD_LABELS
from gengpu.checking.rules.base import GPU_STACK, Hit, Rule


def check(subject, ctx=None):
    for path, c, _ in exporters(subject):
        name = c.get("name", "?")
        if not kubernetes_mode(c):
            yield Hit(path + ("image",), f"{subject.label}: container {name} runs dcgm-exporter without Kubernetes "
                      "mode (DCGM_EXPORTER_KUBERNETES is not true, no -k): its series name no pod",
                      needs=WORKLOAD_LABELS)
        elif not mounts(c, socket(c)):
            yield Hit(path + ("image",), f"{subject.label}: container {name} runs dcgm-exporter in Kubernetes mode "
                      f"but mounts nothing at {socket(c).rsplit('/', 1)[0]}: it cannot ask the kubelet which pod "
                      "holds which GPU, so its series name no pod", needs=WORKLOAD_LABELS)


RULE = Rule(
    id="dcgm-exporter-no-pod-labels",
    severity="warning",
    summary="A hand-written dcgm-exporter whose series cannot name the pods on each GPU: Kubernetes mode off, or "
    "the kubelet's pod-resources socket not mounted.",
    fix="Set DCGM_EXPORTER_KUBERNETES=true and mount the host's /var/lib/kubelet/pod-resources at the same path "
    "(read-only), as NVIDIA's Helm chart and the GPU Operator do.",
    explanation="dcgm-exporter adds pod, namespace and container labels only in Kubernetes mode (-k, env "
    "DCGM_EXPORTER_KUBERNETES, default false in the binary), and finds the pod of each GPU by asking the kubelet's "
    "pod-resources API over its socket (--pod-resources-kubelet-socket, default "
    "/var/lib/kubelet/pod-resources/kubelet.sock). Without both, every series is a GPU with no owner: idle GPUs "
    "held by pods and pods that would fit a MIG slice cannot be found (gengpu rightsize), and per-team dashboards "
    "are empty.",
    source="NVIDIA/dcgm-exporter 4.5.3-4.8.2 pkg/cmd/app.go (flags), deployment/templates/daemonset.yaml",
    check=check,
    applies_to=GPU_STACK,
)
