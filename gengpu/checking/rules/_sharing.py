"""Walk the replicated resources of a device-plugin config."""


def replicated(data):
    """(mode, block, index, resource) for every sharing resource entry."""
    sharing = data.get("sharing") if isinstance(data, dict) else None
    if not isinstance(sharing, dict):
        return
    for mode in ("timeSlicing", "mps"):
        block = sharing.get(mode)
        if not isinstance(block, dict):
            continue
        for i, res in enumerate(block.get("resources") or []):
            if isinstance(res, dict):
                yield mode, block, i, res
