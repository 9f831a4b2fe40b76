import functools

from gengpu.checking.rules.base import OBJECT, Hit, Rule


@functools.cache
def deprecated() -> dict[tuple[str, str], tuple[str, str]]:
    """(apiVersion, kind) -> (the CRD's own deprecation warning, where the CRD comes from), for every version a
    synced CRD marks deprecated (scripts/sync-schemas records them in schemas/crds/SOURCES.yaml)."""
    from gengpu.checking.crds import sources

    out = {}
    for source in sources():
        origin = (f"{source['module']}@{source['version']}" if "module" in source
                  else f"{source['repo']}@{source['tag']}")
        for entry in source.get("deprecated", []):
            out[(entry["apiVersion"], entry["kind"])] = (entry["warning"], origin)
    return out


def check(subject, ctx=None):
    from gengpu.checking.subjects import table

    api, kind = str(subject.data.get("apiVersion", "")), str(subject.data.get("kind", ""))
    found = deprecated().get((api, kind))
    if found:
        warning, origin = found
        plan = (table().get("deprecationPlans") or {}).get(api)
        yield Hit(("apiVersion",), f"{subject.label}: {api} is deprecated ({origin}: \"{warning.rstrip('.')}\")"
                  + (f"; {' '.join(plan.split())}" if plan else ""))


RULE = Rule(
    id="api-version-deprecated",
    severity="warning",
    summary="An object in an API version its own CRD marks deprecated: served today, refused after an upgrade.",
    fix="Move the object to the version the warning names (for Kueue, kueue.x-k8s.io/v1beta2) before the upgrade "
    "that stops serving it.",
    explanation="A CRD can keep serving a deprecated version for a few releases; the API server then answers every "
    "request with a warning few read, and the upgrade that stops serving it refuses the manifests outright. gengpu "
    "reads the deprecation from the CRDs it syncs at their pinned versions (Kueue v1beta1 since v0.16, the Azure "
    "provider's AKSNodeClass v1alpha2) and adds what upstream has announced.",
    source="schemas/crds/SOURCES.yaml (the deprecated flag and deprecationWarning of each synced CRD); "
    "gengpu/data/kinds.yaml deprecationPlans (kubernetes-sigs/kueue issue 13957, PR 14558)",
    check=check,
    applies_to=OBJECT,
)
