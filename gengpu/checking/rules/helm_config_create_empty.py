from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule
from gengpu.checking.podspecs import dig

# chart -> paths of config blocks that can create a ConfigMap from `data`
BLOCKS = {"gpu-operator": (("devicePlugin", "config"), ("migManager", "config"), ("dcgmExporter", "config"))}


def check(subject, ctx=None):
    for path in BLOCKS.get(subject.chart, ()):
        block = dig(subject.data, *path)
        if isinstance(block, dict) and block.get("create") is True and not block.get("data"):
            yield Hit(path + ("data",) if "data" in block else path + ("create",),
                      f"{subject.label}: {'.'.join(path)}.create is true but {'.'.join(path)}.data is empty: the "
                      "ConfigMap the ClusterPolicy points at is created empty")


RULE = Rule(
    id="helm-config-create-empty",
    severity="error",
    summary="A chart asked to create a config ConfigMap with no data.",
    fix="Put the configs under data (one key per config), or set create: false and name an existing ConfigMap.",
    explanation="With create: true and empty data the chart renders an empty ConfigMap and points the ClusterPolicy "
    "at it; the device plugin (or mig-manager) then finds no config to load. The gpu-operator chart now refuses "
    "it itself: 'devicePlugin.config.data cannot be empty when devicePlugin.config.create is set to true'.",
    source="NVIDIA/gpu-operator#2641 and its fix #2642 (chart template check)",
    check=check,
    applies_to=HELM_VALUES,
)
