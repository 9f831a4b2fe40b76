"""Shared by the live rules: where a node's finding points (its pool's place in the profile) and how a node is
named in a message."""

from gengpu.checking.rules.base import Hit


def at_pool(node, message: str, *rest) -> Hit:
    """A finding of a pool's node, at the pool in the profile (the promise), naming the node."""
    return Hit(("spec", "nodePools", node.pool.index, *rest) if node.pool else ("spec",),
               f"node {node.name} (pool {node.pool.name if node.pool else '-'}): {message}",
               subject=f"Node/{node.name}", node=node.name, pool=node.pool.name if node.pool else "")


def at_item(item, message: str, *path, node: str = "", pool: str = "", subject: str = "") -> Hit:
    """A finding of an object no pool promised, at the object in the snapshot (about another object: subject)."""
    return Hit(path, message, doc=item, subject=subject or subject_of(item), node=node, pool=pool)


def subject_of(item) -> str:
    """Kind/namespace/name of a snapshot's object (Kind/name for one without a namespace)."""
    ns = item.text("metadata", "namespace")
    return "/".join(p for p in (str(item.data.get("kind") or "?"), ns, item.name or "?") if p)
