"""Recorded dcgm-exporter samples for the tests of `gengpu rightsize`, written as OpenMetrics with timestamps (the
format `promtool tsdb create-blocks-from openmetrics` loads into a real Prometheus, and `--metrics` reads).

The shape is dcgm-exporter 4.8.2's as Prometheus stores it behind the GPU Operator's ServiceMonitor
(docs/research/dcgm-exporter.md, read from NVIDIA/dcgm-exporter at 691c927): one series per GPU with `gpu`, `UUID`,
`pci_bus_id`, `device`, `modelName`, `Hostname` and `DCGM_FI_DRIVER_VERSION` (pkg/cmd/render_metrics template and
default-counters.csv), the workload's labels as `exported_pod`/`exported_namespace`/`exported_container` because
the scrape's own `pod`/`namespace`/`container` name the exporter (prometheus scrape/scrape.go, honor_labels false),
and the scrape's `instance`, `job`, `endpoint` and `service`. Units: DCGM_FI_DEV_FB_USED/FREE in MiB,
DCGM_FI_DEV_GPU_UTIL in percent, DCGM_FI_PROF_GR_ENGINE_ACTIVE a ratio 0..1 (default-counters.csv comments). An
A100-SXM4-40GB shows 40536 MiB used+free (nvidia-smi's 40960 MiB less what the driver reserves).

The values are synthetic, from a seeded generator: the same text on every run.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

END = 1764547200  # 2025-12-01T00:00:00Z: a fixed end, so every figure is the same on every run
HELP = {
    "DCGM_FI_DEV_FB_USED": ("gauge", "Framebuffer memory used (in MiB)."),
    "DCGM_FI_DEV_FB_FREE": ("gauge", "Framebuffer memory free (in MiB)."),
    "DCGM_FI_DEV_GPU_UTIL": ("gauge", "GPU utilization (in %)."),
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": ("gauge", "Ratio of time the graphics engine is active."),
}
A100_MIB = 40536


@dataclass
class Gpu:
    node: str
    index: int
    namespace: str
    pod: str  # '' for a GPU no pod holds
    mem: tuple[float, float]  # MiB: base, daily swing
    util: float  # percent, mean
    model: str = "NVIDIA A100-SXM4-40GB"
    total: int = A100_MIB  # MiB used + free: the GPU's, or the MIG instance's
    mig: str = ""  # GPU_I_PROFILE of a MIG instance's series
    instance: int = 0  # GPU_I_ID

    @property
    def uuid(self) -> str:
        """The GPU's UUID (a MIG instance's series carry their parent GPU's)."""
        digest = f"{abs(hash_text(self.node)) % 16**8:08x}"
        return f"GPU-{digest}-{self.index:04x}-4a1e-9c2b-{abs(hash_text(self.node + 'gpu')) % 16**12:012x}"


def hash_text(text: str) -> int:
    """A stable hash (Python's own is salted per process)."""
    value = 0
    for ch in text.encode():
        value = (value * 131 + ch) % (2**61 - 1)
    return value


def _labels(gpu: Gpu, exporter_pod: str) -> str:
    pairs = [("gpu", str(gpu.index)), ("UUID", gpu.uuid), ("pci_bus_id", f"00000000:{0x10 + gpu.index:02X}:00.0"),
             ("device", f"nvidia{gpu.index}"), ("modelName", gpu.model)]
    if gpu.mig:  # the template's order: MIG labels before Hostname
        pairs += [("GPU_I_PROFILE", gpu.mig), ("GPU_I_ID", str(gpu.instance))]
    pairs += [("Hostname", gpu.node),
             ("DCGM_FI_DRIVER_VERSION", "580.95.05")]
    if gpu.pod:
        pairs += [("exported_container", "main"), ("exported_namespace", gpu.namespace), ("exported_pod", gpu.pod)]
    pairs += [("container", "nvidia-dcgm-exporter"), ("endpoint", "gpu-metrics"), ("instance", f"{gpu.node}:9400"),
              ("job", "nvidia-dcgm-exporter"), ("namespace", "gpu-operator"), ("pod", exporter_pod),
              ("service", "nvidia-dcgm-exporter")]
    return ",".join(f'{k}="{v}"' for k, v in pairs)


def openmetrics(gpus: list[Gpu], hours: float = 26, step: int = 60, end: int = END, seed: int = 7) -> str:
    """A daily cycle and two hours more by default: what rightsize needs before it proposes anything (24 h)."""
    rng = random.Random(seed)
    times = [end - int(hours * 3600) + step * (i + 1) for i in range(int(hours * 3600) // step)]
    series: dict[str, list[str]] = {name: [] for name in HELP}
    for gpu in gpus:
        labels = _labels(gpu, f"nvidia-dcgm-exporter-{hash_text(gpu.node) % 100000:05d}")
        for t in times:
            day = math.sin(2 * math.pi * ((t % 86400) / 86400))
            used = round(gpu.mem[0] + gpu.mem[1] * (day + 1) / 2 + rng.uniform(0, 8))
            util = max(0, min(100, round(gpu.util + 3 * day + rng.uniform(-2, 2)))) if gpu.pod and gpu.util else 0
            active = max(0.0, min(1.0, util / 100 + rng.uniform(-0.01, 0.01))) if util else 0.0
            series["DCGM_FI_DEV_FB_USED"].append(f"DCGM_FI_DEV_FB_USED{{{labels}}} {used} {t}")
            series["DCGM_FI_DEV_FB_FREE"].append(f"DCGM_FI_DEV_FB_FREE{{{labels}}} {gpu.total - used} {t}")
            if not gpu.mig:  # DCGM has no GPU_UTIL for a MIG instance: the exporter leaves the series out
                series["DCGM_FI_DEV_GPU_UTIL"].append(f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {util} {t}")
            series["DCGM_FI_PROF_GR_ENGINE_ACTIVE"].append(f"DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{labels}}} "
                                                           f"{active:.6f} {t}")
    out = []
    for name, lines in series.items():
        kind, text = HELP[name]
        out += [f"# HELP {name} {text}", f"# TYPE {name} {kind}", *lines]
    return "\n".join(out) + "\n# EOF\n"


def a100_fleet() -> list[Gpu]:
    """The case of the issue: an inference pool of four A100s, one pod each at about 4.5 GiB and 8%; a training
    pool of two at about 36 GiB and 92%."""
    return ([Gpu(f"gke-a100-inference-{i}", 0, "serving", f"llm-{i}", (3900, 700), 8) for i in range(4)]
            + [Gpu(f"gke-a100-training-{i}", 0, "research", f"trainer-{i}", (35800, 1100), 92) for i in range(2)])


def with_series(recording: str, name: str, help_text: str, rows: list[dict[str, str]], hours: float = 26,
                step: int = 60, end: int = END, upto: float | None = None) -> str:
    """The recording with one more gauge family (kube-state-metrics' kube_node_labels, Karpenter's node metrics): a
    series of value 1 per row of labels, sampled as the exporter's are; upto: the hours after the window's start
    the series stops (a node removed then)."""
    times = [end - int(hours * 3600) + step * (i + 1) for i in range(int(hours * 3600) // step)]
    if upto is not None:
        times = [t for t in times if t <= end - int(hours * 3600) + upto * 3600]
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
    for row in rows:
        labels = ",".join(f'{k}="{v}"' for k, v in row.items())
        lines += [f"{name}{{{labels}}} 1 {t}" for t in times]
    return recording.removesuffix("# EOF\n") + "\n".join(lines) + "\n# EOF\n"
