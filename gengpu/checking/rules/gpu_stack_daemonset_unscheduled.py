from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule
from gengpu.live import stack
from gengpu.live.pools import is_gpu_node
from gengpu.live.snapshot import Item


def check(cluster, ctx=None):
    gpu_nodes = [n for n in cluster.snapshot.nodes if is_gpu_node(n)]
    if not gpu_nodes:
        return  # no GPU node in the snapshot: a DaemonSet of the stack rightly runs nowhere
    for ds in cluster.snapshot.daemonsets:
        desired = ds.get("status", "desiredNumberScheduled")
        if desired != 0:
            continue
        pod = Item({"metadata": {"name": ds.name}, "spec": ds.mapping("spec", "template", "spec")})
        component = stack.component(pod)
        if component is None:
            continue
        selector = {str(k): str(v) for k, v in ds.mapping("spec", "template", "spec", "nodeSelector").items()}
        lacking = [f"{k}={v}" for k, v in selector.items() if not any(n.labels.get(k) == v for n in gpu_nodes)]
        why = f": no GPU node has {', '.join(lacking)}" if lacking else \
            " (its node selector matches; its affinity or the nodes' taints keep it off)"
        ns = ds.text("metadata", "namespace")
        yield at_item(ds, f"DaemonSet {ns + '/' if ns else ''}{ds.name} ({component.name}) runs on no node while the "
                      f"snapshot has {len(gpu_nodes)} GPU node(s){why}", "status")


RULE = Rule(
    id="gpu-stack-daemonset-unscheduled",
    severity="warning",
    summary="A DaemonSet of NVIDIA's GPU stack schedules no pod (DESIRED 0) while the cluster has GPU nodes.",
    fix="Give the GPU nodes the labels its node selector asks for: the GPU Operator selects nodes by "
    "nvidia.com/gpu.deploy.<operand>=true, which it writes on nodes Node Feature Discovery labels "
    "feature.node.kubernetes.io/pci-10de.present=true (is NFD's worker running there, and does it tolerate the GPU "
    "nodes' taints?); or tolerate the nodes' taints in the operator's daemonsets.tolerations.",
    explanation="The operator deploys each operand only on nodes it has labelled for it, after Node Feature Discovery "
    "found an NVIDIA PCI device. A GPU node NFD cannot reach (a taint its worker does not tolerate) or whose labels "
    "were removed gets no driver, toolkit or device plugin, and the DaemonSets say DESIRED 0 with no error anywhere.",
    source="NVIDIA GPU Operator (controllers/state_manager.go: gpu.deploy labels from NFD's pci-10de label); "
    "troubleshooting: operands not deployed",
    check=check,
    applies_to=LIVE_CLUSTER,
)
