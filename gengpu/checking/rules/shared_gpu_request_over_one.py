from gengpu.checking.rules._pods import containers, gpu_resources, whole
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    if ctx is None:
        return
    for path, c in containers(subject):
        for name, value in gpu_resources(c, "limits", vendors=False).items():
            count = whole(value)
            offers = [o for p in ctx.offers if (o := p.offer(name))]
            if count and count > 1 and offers and all(o.max_per_container == 1 for o in offers):
                yield Hit(path + ("resources", "limits", name),
                          f"{subject.label}: container {c.get('name', '?')} asks for {count} {name}, but every pool "
                          "sharing it rejects requests above 1 (failRequestsGreaterThanOne)")


RULE = Rule(
    id="shared-gpu-request-over-one",
    severity="error",
    summary="More than one shared GPU per container where the plugin allows only one.",
    fix="Ask for 1, or turn failRequestsGreaterThanOne off for time-slicing pools.",
    explanation="With MPS (by default) or failRequestsGreaterThanOne, the plugin fails a container asking for more "
    "than one replica: 'maximum request size for shared resources is 1' (UnexpectedAdmissionError).",
    source="NVIDIA/k8s-device-plugin internal/rm/rm.go (ValidateRequest); pain point TS-06a",
    check=check,
    applies_to=WORKLOAD,
)
