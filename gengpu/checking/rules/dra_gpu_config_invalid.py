from gengpu.checking.rules._dra import nvidia_configs
from gengpu.checking.rules.base import DRA, Hit, Rule

STRATEGIES = ("TimeSlicing", "MPS")
INTERVALS = ("Default", "Short", "Medium", "Long")


def check(subject, ctx=None):
    for path, params in nvidia_configs(subject.data):
        sharing = params.get("sharing")
        if not isinstance(sharing, dict):
            continue
        strategy = sharing.get("strategy")
        if strategy is not None and strategy not in STRATEGIES:
            yield Hit(path + ("sharing", "strategy"), f"{subject.label}: unknown GPU sharing strategy: {strategy}, "
                      f"supported GPU sharing strategies: {', '.join(STRATEGIES)}")
        interval = (sharing.get("timeSlicingConfig") or {}).get("interval") \
            if isinstance(sharing.get("timeSlicingConfig"), dict) else None
        if interval is not None and interval not in INTERVALS:
            yield Hit(path + ("sharing", "timeSlicingConfig", "interval"),
                      f"{subject.label}: unknown time-slice interval: {interval}, use one of {', '.join(INTERVALS)}")
        mps = sharing.get("mpsConfig") if isinstance(sharing.get("mpsConfig"), dict) else {}
        percent = mps.get("defaultActiveThreadPercentage")
        if isinstance(percent, int) and not 0 <= percent <= 100:
            yield Hit(path + ("sharing", "mpsConfig", "defaultActiveThreadPercentage"),
                      f"{subject.label}: active thread percentage must be between 0 and 100, not {percent}")


RULE = Rule(
    id="dra-gpu-config-invalid",
    severity="error",
    summary="A GpuConfig or MigDeviceConfig that NVIDIA's DRA driver refuses.",
    fix="Use strategy TimeSlicing or MPS, an interval of Default, Short, Medium or Long, and an active thread "
    "percentage from 0 to 100.",
    explanation="The driver validates these opaque parameters only when it prepares the claim on the node; the API "
    "server stores them as they are. The pod then hangs in ContainerCreating with the driver's message.",
    source="NVIDIA/k8s-dra-driver-gpu v0.4.0 api/nvidia.com/resource/v1beta1/validate.go",
    check=check,
    applies_to=DRA,
)
