from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule


def check(node, cluster):
    if node.pool is None:
        return
    conditions = node.item.get("status", "conditions")
    if not isinstance(conditions, list) or not isinstance(node.item.get("status"), dict):
        return  # not in the snapshot: snapshot-object-partial says so
    ready = next((c for c in conditions if isinstance(c, dict) and c.get("type") == "Ready"), None)
    if ready is None:
        return  # every node has one: a list without it is an excerpt, which says nothing of readiness
    if str(ready.get("status")) != "True":
        status = str(ready.get("status"))
        why = f" ({ready.get('reason')}" + (f": {ready.get('message')}" if ready.get("message") else "") + ")" \
            if ready and ready.get("reason") else ""
        yield at_pool(node, f"is not Ready (Ready is {status}){why}")


RULE = Rule(
    id="node-not-ready",
    severity="error",
    summary="A GPU node of a pool is not Ready.",
    fix="kubectl describe node: a GPU node that never became Ready often waits for its driver or container "
    "toolkit; replace it if it stays NotReady.",
    explanation="A node that is not Ready takes no pods; on a GPU pool it holds expensive capacity that nothing "
    "uses, and the provisioner may keep it while pods stay pending.",
    source="Kubernetes node conditions (Ready)",
    check=check,
    applies_to=LIVE_NODE,
)
