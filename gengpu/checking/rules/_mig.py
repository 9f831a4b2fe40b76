"""Walk the entries of a mig-parted config."""


def entries(data):
    """(config name, index, entry) for every entry of every mig config."""
    configs = data.get("mig-configs") if isinstance(data, dict) else None
    if not isinstance(configs, dict):
        return
    for name, items in configs.items():
        for i, entry in enumerate(items if isinstance(items, list) else []):
            if isinstance(entry, dict):
                yield name, i, entry


def devices(entry) -> dict:
    value = entry.get("mig-devices")
    return value if isinstance(value, dict) else {}
