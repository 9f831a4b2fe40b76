from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule


def check(cluster, ctx=None):
    for domain in cluster.snapshot.computedomains:
        state = domain.text("status", "status")
        if state is None or state == "Ready":
            continue  # (no status in the snapshot: nothing said)
        nodes = [n for n in domain.sequence("status", "nodes") if isinstance(n, dict)]
        down = [str(n.get("name") or "?") for n in nodes if n.get("status") != "Ready"]
        want = domain.get("spec", "numNodes")
        counts = f"{len(nodes) - len(down)} of {len(nodes)} node(s) Ready" if nodes else "no node has joined it"
        if isinstance(want, int) and want > 0:
            counts += f", numNodes {want}"
        waiting = f" (not Ready: {', '.join(down[:5])}{' ...' if len(down) > 5 else ''})" if down else ""
        ns = domain.text("metadata", "namespace")
        yield at_item(domain, f"ComputeDomain {ns + '/' if ns else ''}{domain.name} is {state}: {counts}{waiting}; "
                      "its IMEX daemons are not all ready to broker GPU memory across the NVLink domain", "status")


RULE = Rule(
    id="computedomain-not-ready",
    severity="warning",
    summary="A ComputeDomain (NVIDIA's DRA driver, multi-node NVLink) is not Ready: the IMEX daemons of its nodes are "
    "not all up.",
    fix="Check the domain's daemon pods in the DRA driver's namespace (kubectl get pods -n nvidia-dra-driver-gpu -l "
    "resource.nvidia.com/computeDomain) and their logs; a node whose daemon is not Ready names where to look. A "
    "domain whose workload pods are not scheduled yet has no daemons: schedule the workload first.",
    explanation="A ComputeDomain's daemons start on the nodes its workload's pods land on, and its status turns Ready "
    "when they are ready (with numNodes set, when that many are). A workload that shares GPU memory across nodes "
    "before then fails its IMEX calls. NotReady is expected for a moment after the workload is scheduled; a domain "
    "that stays NotReady with its pods running is broken (a daemon that cannot start, or status updates lost, "
    "NVIDIA/k8s-dra-driver-gpu #1050).",
    source="NVIDIA/k8s-dra-driver-gpu api/nvidia.com/resource/v1beta1 ComputeDomainStatus (status Ready/NotReady, "
    "nodes[].status)",
    check=check,
    applies_to=LIVE_CLUSTER,
)
