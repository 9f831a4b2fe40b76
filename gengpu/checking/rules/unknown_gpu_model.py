from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, gpu_path


def check(profile, ctx=None):
    known = ", ".join(catalog.gpus())
    for pool in profile.node_pools:
        for i, (written, gpu_id) in enumerate(zip(pool.gpus, pool.gpu_ids)):
            if gpu_id is None:
                yield Hit(gpu_path(pool, i),
                          f"nodePools[{pool.index}].gpu '{written}' is not a GPU model gengpu knows ({known})")


RULE = Rule(
    id="unknown-gpu-model",
    severity="error",
    summary="The pool's GPU model is not in the GPU catalog.",
    fix="Use a model id or alias from `gengpu catalog gpus`, e.g. T4, A100-40GB or H100-80GB.",
    explanation="Every hardware check (MIG profiles, MPS client limits, driver minimums) looks the GPU up in "
    "gengpu's catalog. An unknown model cannot be checked, so it is an error rather than a silent pass.",
    source="gengpu/data/gpus.yaml",
    check=check,
)
