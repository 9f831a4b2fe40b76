"""Read Karpenter NodePools: their requirements, and whether they launch GPU instances."""

from gengpu import catalog
from gengpu.checking.podspecs import dig

REQUIREMENTS = ("spec", "template", "spec", "requirements")
GPU_KEYS = ("karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-gpu-name",
            "karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.azure.com/sku-gpu-count",
            "karpenter.azure.com/sku-gpu-name", "karpenter.azure.com/sku-gpu-manufacturer",
            # EKS Auto Mode's own names for them (awsdocs/amazon-eks-user-guide automode/create-node-pool.adoc)
            "eks.amazonaws.com/instance-gpu-count", "eks.amazonaws.com/instance-gpu-name",
            "eks.amazonaws.com/instance-gpu-manufacturer")
TYPE_KEYS = {"node.kubernetes.io/instance-type": "eks", "karpenter.k8s.aws/instance-family": "eks",
             "eks.amazonaws.com/instance-family": "eks", "karpenter.azure.com/sku-name": "aks"}


def requirements(obj: dict):
    """(index, requirement) for every requirement of a NodePool's template whose key is a label's (one of another
    shape is the schema check's finding, and cannot be looked up)."""
    items = dig(obj, *REQUIREMENTS)
    for i, req in enumerate(items if isinstance(items, list) else []):
        if isinstance(req, dict) and isinstance(req.get("key"), str):
            yield i, req


def _values(req) -> list[str]:
    values = req.get("values")
    return [str(v) for v in values] if isinstance(values, list) else []


def launches_gpus(obj: dict) -> bool:
    """Only GPU instances can satisfy the NodePool: a GPU requirement, or instance types that all carry GPUs."""
    for _, req in requirements(obj):
        key, op, values = req.get("key"), req.get("operator"), _values(req)
        if key in GPU_KEYS:
            if op == "Exists" or (op == "In" and values and values != ["0"]) or (op == "Gt" and values):
                return True
        platform = TYPE_KEYS.get(key)
        if platform and op == "In" and values and all(catalog.instance_type(platform, v) for v in values):
            return True
    return False
