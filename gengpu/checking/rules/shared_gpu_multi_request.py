from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        s = pool.sharing
        if s.mode == "time-slicing" and not s.fail_requests_greater_than_one and not pool.dra:
            yield Hit(pool_path(pool, "sharing", "failRequestsGreaterThanOne") if s.fail_requests_greater_than_one
                      is not None else pool_path(pool, "sharing", "mode"),
                      f"nodePools[{pool.index}] time-slices without failRequestsGreaterThanOne: a container asking "
                      "for 2 shared GPUs may get two slices of the same GPU")


RULE = Rule(
    id="shared-gpu-multi-request",
    severity="warning",
    summary="A container may ask for several time-sliced replicas and get slices of one GPU.",
    fix="Set sharing.failRequestsGreaterThanOne: true, or suppress the rule where every workload asks for one GPU.",
    explanation="With time-slicing, N replicas are not N GPUs: a request for 2 can be served by two replicas of one "
    "physical GPU, so a 'multi-GPU' job runs on one GPU. failRequestsGreaterThanOne makes such requests fail loudly "
    "instead.",
    source="NVIDIA/k8s-device-plugin README 'Shared Access to GPUs'",
    check=check,
)
