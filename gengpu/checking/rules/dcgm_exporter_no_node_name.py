from gengpu.checking.rules._dcgm import env, exporters, flag, truthy
from gengpu.checking.rules.base import GPU_STACK, Hit, Rule


def check(subject, ctx=None):
    for path, c, spec in exporters(subject):
        name = c.get("name", "?")
        variables = env(c)
        off = flag(c, "-n", "--no-hostname", boolean=True)
        if truthy(off if off is not None else variables.get("DCGM_EXPORTER_NO_HOSTNAME", "false")):
            yield Hit(path + ("image",), f"{subject.label}: container {name} runs dcgm-exporter without its "
                      "Hostname label (--no-hostname): no series says which node its GPU is on")
        elif "NODE_NAME" not in variables and spec.get("hostNetwork") is not True:
            yield Hit(path + ("image",), f"{subject.label}: container {name} sets no NODE_NAME: dcgm-exporter's "
                      "Hostname label will be the pod's own name, not the node's")


RULE = Rule(
    id="dcgm-exporter-no-node-name",
    severity="warning",
    summary="A hand-written dcgm-exporter whose series will not name their node.",
    fix="Set env NODE_NAME from the downward API (valueFrom.fieldRef.fieldPath: spec.nodeName), as NVIDIA's Helm "
    "chart and the GPU Operator do, and keep the Hostname label (no --no-hostname).",
    explanation="dcgm-exporter labels every series with Hostname (hostname in later releases): the NODE_NAME "
    "environment variable if set, else the container's own hostname, which in a pod without hostNetwork is the "
    "pod's name. Series that do not name their node cannot be joined to the node's pool, its instance type or its "
    "price: alerts cannot say which node to drain, and gengpu rightsize leaves them out.",
    source="NVIDIA/dcgm-exporter 4.5.3-4.8.2 internal/pkg/hostname/hostname.go:29-60, pkg/cmd/app.go",
    check=check,
    applies_to=GPU_STACK,
)
