from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule
from gengpu.checking.podspecs import dig

# chart -> (path of the config block, key holding the configs)
BLOCKS = {"gpu-operator": ((("devicePlugin", "config"), "data"), (("migManager", "config"), "data")),
          "nvidia-device-plugin": ((("config",), "map"),)}


def check(subject, ctx=None):
    for path, held in BLOCKS.get(subject.chart, ()):
        block = dig(subject.data, *path)
        if not isinstance(block, dict):
            continue
        default, configs = block.get("default"), block.get(held)
        if default and isinstance(configs, dict) and configs and str(default) not in configs:
            yield Hit(path + ("default",), f"{subject.label}: {'.'.join(path)}.default is '{default}', which is not "
                      f"a key of {'.'.join(path)}.{held} ({', '.join(map(str, configs))})")


RULE = Rule(
    id="helm-config-default-unknown",
    severity="error",
    summary="The default config names a key the chart's config data does not have.",
    fix="Make default one of the keys under data (or map), or add a config of that name.",
    explanation="Nodes without a config label get the default config; when it names no key, the device plugin's "
    "config-manager exits ('specified config does not exist') and those nodes advertise no GPUs.",
    source="NVIDIA/k8s-device-plugin cmd/config-manager; gpu-operator values devicePlugin.config.default",
    check=check,
    applies_to=HELM_VALUES,
)
