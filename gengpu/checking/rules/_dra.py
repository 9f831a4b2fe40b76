"""Walk the opaque configs NVIDIA's DRA driver reads from ResourceClaims and ResourceClaimTemplates."""

from gengpu.checking.podspecs import dig

DRIVER = "gpu.nvidia.com"
KINDS = ("GpuConfig", "MigDeviceConfig")


def nvidia_configs(obj: dict):
    """(path to parameters, parameters) of every opaque config for NVIDIA's GPU driver."""
    devices = dig(obj, "spec", "spec", "devices") if obj.get("kind") == "ResourceClaimTemplate" else \
        dig(obj, "spec", "devices")
    base = ("spec", "spec", "devices") if obj.get("kind") == "ResourceClaimTemplate" else ("spec", "devices")
    configs = devices.get("config") if isinstance(devices, dict) else None
    for i, config in enumerate(configs if isinstance(configs, list) else []):
        opaque = config.get("opaque") if isinstance(config, dict) else None
        params = opaque.get("parameters") if isinstance(opaque, dict) else None
        if isinstance(params, dict) and opaque.get("driver") == DRIVER and params.get("kind") in KINDS:
            yield base + ("config", i, "opaque", "parameters"), params


def request_classes(requests) -> list[tuple[tuple, str]]:
    """(path under devices.requests, device class) of every request of a ResourceClaim's or a claim template's spec:
    resource.k8s.io/v1 (exactly.deviceClassName, firstAvailable[].deviceClassName) and v1beta1 (deviceClassName)."""
    out = []
    for i, request in enumerate(requests if isinstance(requests, list) else []):
        if not isinstance(request, dict):
            continue
        exactly = request.get("exactly") if isinstance(request.get("exactly"), dict) else {}
        for path, name in ((("exactly", "deviceClassName"), exactly.get("deviceClassName")),
                           (("deviceClassName",), request.get("deviceClassName"))):
            if isinstance(name, str):
                out.append(((i, *path), name))
        for j, sub in enumerate(request.get("firstAvailable") or []):
            if isinstance(sub, dict) and isinstance(sub.get("deviceClassName"), str):
                out.append(((i, "firstAvailable", j, "deviceClassName"), sub["deviceClassName"]))
    return out


def gate_problems(chart: str, version: str | None, gates: dict):
    """(gate, message) for each feature gate setting NVIDIA's DRA driver refuses at start, at this chart line and
    version (software.yaml draDriver.gates and gateChecks). A version newer than gengpu knows, or none, is judged only
    by the checks every known version of the line makes, and its gate names not at all (a newer driver may know
    more); an older one not at all."""
    import difflib

    from gengpu.catalog import software, version_tuple as vt

    settings = software()["draDriver"]
    known = settings["gates"].get(chart) or {}
    if not known:
        return
    ordered = sorted(known, key=vt)
    if version and vt(version) < vt(ordered[0]):
        return
    table = None
    if version and vt(version) <= vt(ordered[-1]):
        table = known[[v for v in ordered if vt(v) <= vt(version)][-1]]
    judged_at = version if table is not None else ordered[0]
    if table is not None:
        for gate in gates:
            if gate not in table and gate not in settings["loggingGates"] and gate not in settings["metaGates"]:
                close = difflib.get_close_matches(gate, list(table), n=1)
                hint = f"did you mean {close[0]}?" if close else f"it knows {', '.join(sorted(table))}"
                yield gate, (f"feature gate {gate} is not one {chart} {version} knows, so its components stop at "
                             f"start (unrecognized feature gate); {hint}")
    defaults = table or known[ordered[-1]]
    on = {g for g, default in defaults.items() if default}
    if str(gates.get("AllAlpha")).lower() == "true":
        on |= {g for g, default in defaults.items() if not default}  # (a gate set below still wins)
    for gate, value in gates.items():
        flag = str(value).lower() if isinstance(value, (bool, str)) else None
        if flag == "true":
            on.add(gate)
        elif flag == "false":
            on.discard(gate)
    for check in settings["gateChecks"]:
        since = check["since"].get(chart)
        if since is None or vt(since) > vt(judged_at) or check["gate"] not in on:
            continue
        gate, other = check["gate"], check.get("requires") or check["excludes"]
        where = other if other in gates else gate  # the setting that made the pair: what the user wrote
        if "requires" in check and other not in on:
            yield where, f"feature gate {gate} requires {other} to also be enabled, so the driver's components exit " \
                "at start"
        elif "excludes" in check and other in on:
            yield where, f"feature gate {gate} is mutually exclusive with {other}, so the driver's components exit " \
                "at start"
