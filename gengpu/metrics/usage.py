"""What the GPUs of each pool did over a window, from dcgm-exporter's series: per device (a GPU or a MIG
instance) and per pod on it, the peak and p95 memory and the mean and p95 activity.

The figures are the same whichever source answers: a Prometheus-compatible server aggregates them in PromQL (one
bounded query per pool, gengpu/metrics/prometheus.py), a recorded OpenMetrics file is aggregated here with
Prometheus's own definitions (gengpu/metrics/recorded.py). Labels and units are dcgm-exporter's (4.8.2, read from
its source: docs/research/dcgm-exporter.md): memory in MiB, DCGM_FI_DEV_GPU_UTIL in percent, the profiling
engine-activity ratio in 0..1; the node is `Hostname` (`hostname` in later releases), the workload `pod` and
`namespace`, or `exported_pod` and `exported_namespace` once Prometheus has scraped the exporter's own pod.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
METRICS = (FB_USED, FB_FREE, GPU_UTIL, ENGINE_ACTIVE)
NODE_LABELS = ("Hostname", "hostname")  # the Kubernetes node name (NODE_NAME) in both spellings
DEVICE_LABELS = ("gpu", "UUID", "GPU_I_ID", "GPU_I_PROFILE", "modelName")
POD_LABELS = {True: ("exported_namespace", "exported_pod"), False: ("namespace", "pod")}

# (stat, metric, function): what is asked of every device; POD_STATS of every pod on a device.
# first/last are sample timestamps: how much of the window the data covers.
DEVICE_STATS = (
    ("mem_peak", FB_USED, "max"), ("mem_p95", FB_USED, "p95"), ("mem_total", FB_USED, "last_total"),
    ("util_mean", GPU_UTIL, "mean"), ("util_p95", GPU_UTIL, "p95"),
    ("active_mean", ENGINE_ACTIVE, "mean"), ("active_p95", ENGINE_ACTIVE, "p95"),
    ("first", FB_USED, "first_ts"), ("last", FB_USED, "last_ts"), ("present", FB_USED, "present"),
)
POD_STATS = (
    ("mem_peak", FB_USED, "max"), ("mem_p95", FB_USED, "p95"), ("util_mean", GPU_UTIL, "mean"),
    ("util_p95", GPU_UTIL, "p95"), ("active_mean", ENGINE_ACTIVE, "mean"), ("active_p95", ENGINE_ACTIVE, "p95"),
)


@dataclass
class Figures:
    """One device's, or one pod's on a device, over the window. Memory in MiB, activity as a share of the device."""

    mem_peak: float | None = None
    mem_p95: float | None = None
    mem_total: float | None = None  # FB_USED + FB_FREE at a series' last sample: the memory the GPU reports
    util_mean: float | None = None  # GPU_UTIL, percent
    util_p95: float | None = None
    active_mean: float | None = None  # GR_ENGINE_ACTIVE, 0..1
    active_p95: float | None = None
    first: float | None = None
    last: float | None = None
    present: float | None = None  # steps of the coverage subquery at which the device had a sample

    def set(self, stat: str, value: float) -> None:
        if not math.isnan(value):
            setattr(self, stat, value)

    # Engine activity (the profiling metric) where the exporter has it: GPU_UTIL counts a kernel running on one SM
    # as 100%, so it overstates what a kernel uses; it is the fallback.
    @property
    def activity_mean(self) -> float | None:
        return self.active_mean if self.active_mean is not None else _percent(self.util_mean)

    @property
    def activity_p95(self) -> float | None:
        return self.active_p95 if self.active_p95 is not None else _percent(self.util_p95)

    @property
    def activity_source(self) -> str:
        """The series the activity figures come from; "" where the exporter gave neither."""
        if self.active_mean is not None:
            return ENGINE_ACTIVE
        return GPU_UTIL if self.util_mean is not None else ""

    @property
    def hours(self) -> float:
        return (self.last - self.first) / 3600 if self.first is not None and self.last is not None else 0.0


def _percent(value: float | None) -> float | None:
    return None if value is None else value / 100


@dataclass
class Device:
    """A GPU, or a MIG instance of one, on a node: its own figures and those of each pod seen on it."""

    node: str
    gpu: str
    uuid: str
    mig: str  # GPU_I_PROFILE, '' for a whole GPU
    model: str
    instance: str = ""  # GPU_I_ID: which instance of its profile on the GPU
    figures: Figures = field(default_factory=Figures)
    pods: dict[tuple[str, str], Figures] = field(default_factory=dict)  # (namespace, pod) -> figures

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.node, self.uuid or self.gpu, self.mig, self.instance)

    @property
    def order(self) -> tuple:
        """By node, then GPU and instance as numbers (GPU 10 after GPU 9)."""
        return (self.node, _number(self.gpu), self.uuid, self.mig, _number(self.instance))

    @property
    def shown(self) -> str:
        """How a finding names it: a MIG instance by its profile and GPU instance ID (nvidia-smi's GI), as one GPU
        may hold several of one profile."""
        instance = f" GI {self.instance}" if self.mig and self.instance else ""
        return f"{self.node} GPU {self.gpu}{' ' + self.mig if self.mig else ''}{instance}"


@dataclass
class Usage:
    """Every device of some nodes, as the series name them."""

    devices: list[Device] = field(default_factory=list)
    by_key: dict[tuple[str, str, str, str], Device] = field(default_factory=dict, repr=False)

    def add(self, level: str, stat: str, labels: dict, value: float, exported: bool) -> None:
        node = next((labels[k] for k in NODE_LABELS if labels.get(k)), "")
        key = (node, labels.get("UUID") or labels.get("gpu", ""), labels.get("GPU_I_PROFILE", ""),
               labels.get("GPU_I_ID", ""))
        device = self.by_key.get(key)
        if device is None:
            device = Device(node, labels.get("gpu", ""), labels.get("UUID", ""), labels.get("GPU_I_PROFILE", ""),
                            labels.get("modelName", ""), labels.get("GPU_I_ID", ""))
            self.devices.append(device)
            self.by_key[key] = device
        if level == "device":
            device.figures.set(stat, value)
        else:
            namespace_label, pod_label = POD_LABELS[exported]
            pod = (labels.get(namespace_label, ""), labels.get(pod_label, ""))
            device.pods.setdefault(pod, Figures()).set(stat, value)

    def sort(self) -> None:
        self.devices.sort(key=lambda d: d.order)


def _number(text: str):
    return (0, int(text), "") if text.isdecimal() else (1, 0, text)


# --- PromQL ---------------------------------------------------------------------------------------------------------

STAT_LABEL = "gengpu_stat"
_MATCHER = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')


class BadRegex(ValueError):
    """A matcher's regex that RE2 (Prometheus's syntax) refuses."""


@functools.lru_cache(maxsize=64)
def _regex(pattern: str):
    """The matcher's regex as Prometheus runs it: RE2 (linear time, so `(a+)+` cannot hang; no backreferences or
    lookaround), anchored at both ends by fullmatch."""
    import re2

    options = re2.Options()
    options.log_errors = False  # (the reason is ours to tell, not a line on stderr)
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise BadRegex(f"{why} (Prometheus's regexes are RE2: no backreferences or lookaround)") from None


def parse_match(text: str) -> tuple[tuple[str, str, str], ...]:
    """`--match`: PromQL label matchers (cluster="prod", region=~"eu-.*", env!="dev"), comma-separated, that pick
    one cluster's series on a backend holding several (Thanos, Mimir, VictoriaMetrics). ValueError when malformed."""
    out, pos = [], 0
    while pos < len(text):
        m = _MATCHER.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(text)
        out.append((m.group(1), m.group(2), re.sub(r"\\(.)", r"\1", m.group(3))))
        if m.group(2) in ("=~", "!~"):
            try:
                _regex(out[-1][2])
            except BadRegex as exc:
                raise BadRegex(f"the regex of {m.group(1)}{m.group(2)} is not one Prometheus runs: {exc}") from None
        pos = m.end()
    if not out:
        raise ValueError(text)
    return tuple(out)


def matches(labels: dict, matchers) -> bool:
    """A series' labels against the matchers, as Prometheus judges them (regexes anchored)."""
    for key, op, value in matchers:
        have = labels.get(key, "")
        ok = have == value if op in ("=", "!=") else _regex(value).fullmatch(have) is not None
        if ok != (op in ("=", "=~")):
            return False
    return True


def _terms(matchers) -> str:
    return "".join(f", {k}{op}{quote(v)}" for k, op, v in matchers)


def _selector(matchers, *terms: str) -> str:
    inner = ", ".join([*terms, *(f"{k}{op}{quote(v)}" for k, op, v in matchers)])
    return f"{{{inner}}}" if inner else ""


def quote(text: str) -> str:
    """A PromQL string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def node_regex(nodes: list[str]) -> str:
    """RE2 alternation matching exactly these node names (Prometheus anchors label regexes)."""
    import re

    return "|".join(re.escape(n) for n in sorted(nodes))


def _range(fn: str, metric: str, selector: str, window: str, resolution: str) -> str:
    vector = f"{metric}{{{selector}}}"
    if fn == "max":
        return f"max_over_time({vector}[{window}])"
    if fn == "p95":
        return f"quantile_over_time(0.95, {vector}[{window}])"
    if fn == "mean":
        return f"avg_over_time({vector}[{window}])"
    if fn == "last":
        return f"last_over_time({vector}[{window}])"
    # sample timestamps through a subquery: portable to Thanos, Mimir and VictoriaMetrics, bounded by its steps
    inner = "min_over_time" if fn == "first_ts" else "max_over_time"
    return f"{inner}(timestamp({vector})[{window}:{resolution}])"


def pool_query(node_label: str, nodes: list[str], window: str, resolution: str, exported: bool,
               matchers=()) -> str:
    """One query for every figure of a pool's devices and pods, each result tagged with its stat."""
    selector = f"{node_label}=~{quote(node_regex(nodes))}{_terms(matchers)}"
    device_keys = ", ".join((node_label, *DEVICE_LABELS))
    namespace_label, pod_label = POD_LABELS[exported]
    parts = []
    for level, stats in (("device", DEVICE_STATS), ("pod", POD_STATS)):
        keys = device_keys if level == "device" else f"{device_keys}, {namespace_label}, {pod_label}"
        sel = selector if level == "device" else f'{selector}, {pod_label}!=""'
        for stat, metric, fn in stats:
            if fn == "present":
                # how many steps of the window the device was there (the hours it ran, autoscaled or not), counted
                # over its series merged step by step: an exporter restarted mid-window is a new series of the GPU
                expr = f"count_over_time((max by ({keys}) ({metric}{{{sel}}}))[{window}:{resolution}])"
            elif fn == "last_total":
                # used + free of one series (matched on all its labels), then the largest: a restarted exporter's
                # two series each give the GPU's whole memory, where the larger used and the larger free apart
                # added up to more than it has
                expr = (f"max by ({keys}) ({_range('last', FB_USED, sel, window, resolution)} + "
                        f"{_range('last', FB_FREE, sel, window, resolution)})")
            else:
                # duplicates (an exporter restarted mid-window) merged: the earliest first sample, a mean's mean,
                # else the largest
                outer = "avg" if fn == "mean" else "min" if fn == "first_ts" else "max"
                expr = f"{outer} by ({keys}) ({_range(fn, metric, sel, window, resolution)})"
            parts.append(f'label_replace({expr}, "{STAT_LABEL}", "{level}:{stat}", "", "")')
    return "\nor ".join(parts)


def nodes_query(window: str, matchers=()) -> str:
    """Which nodes dcgm-exporter reported over the window, under which node label."""
    return f"count by ({', '.join(NODE_LABELS)}) (last_over_time({FB_USED}{_selector(matchers)}[{window}]))"


def models_query(window: str, matchers=()) -> str:
    """The GPU model of every node dcgm-exporter reported over the window."""
    return (f"count by ({', '.join(NODE_LABELS)}, modelName) "
            f"(last_over_time({FB_USED}{_selector(matchers)}[{window}]))")


def exported_query(window: str, matchers=()) -> str:
    """Whether the workload's labels were renamed exported_* by a scrape of the exporter's pod."""
    return f"count(last_over_time({FB_USED}{_selector(matchers, 'exported_pod!=' + quote(''))}[{window}]))"


def seconds(window: str) -> int:
    """A Prometheus duration (90m, 24h, 7d, 1w, 1h30m) in seconds; ValueError when it is not one."""
    import re

    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
    parts = re.findall(r"(\d+)(ms|s|m|h|d|w|y)", window)
    if not parts or "".join(n + u for n, u in parts) != window:
        raise ValueError(window)
    return int(sum(int(n) * units[u] for n, u in parts))


def resolution(window: str) -> str:
    """The subquery step for the coverage timestamps: about 250 steps over the window, at least a minute."""
    return f"{max(60, seconds(window) // 250)}s"


class Server:
    """The figures from a Prometheus-compatible server: two small queries for the whole window (which nodes, which
    pod labels), then one per pool; the aggregation stays in PromQL."""

    def __init__(self, client, matchers=()):
        self.client = client
        self.url = client.url
        self.matchers = matchers

    @property
    def queries(self) -> int:
        return self.client.queries

    def nodes(self, window: str, at: float) -> dict[tuple[str, str], int]:
        out = {}
        for labels, value in self.client.query(nodes_query(window, self.matchers), at):
            label = next((k for k in NODE_LABELS if labels.get(k)), "")
            out[(label, labels.get(label, ""))] = int(value) if math.isfinite(value) else 0
        return out

    def exported(self, window: str, at: float) -> bool:
        return any(value > 0 for _, value in self.client.query(exported_query(window, self.matchers), at))

    def models(self, window: str, at: float) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for labels, _ in self.client.query(models_query(window, self.matchers), at):
            node = next((labels[k] for k in NODE_LABELS if labels.get(k)), "")
            out.setdefault(node, set()).add(labels.get("modelName", ""))
        return out

    def node_labels(self, nodes: list[str], keys: list[str], window: str, at: float):
        """What kube-state-metrics, Karpenter and the exporter's own series kept of these nodes' labels."""
        from gengpu.metrics import joining

        spelled = joining.names(keys)
        found = joining.NodeLabels(spelled)
        for labels, value in self.client.query(joining.query(nodes, spelled, window, self.matchers), at):
            found.add(labels.pop(joining.SOURCE_LABEL, ""), labels, value)
        return found

    def pool_usage(self, node_label: str, nodes: list[str], window: str, at: float, exported: bool) -> Usage:
        result = Usage()
        for labels, value in self.client.query(pool_query(node_label, nodes, window, resolution(window), exported,
                                                          self.matchers),
                                               at):
            level, _, stat = labels.pop(STAT_LABEL, ":").partition(":")
            if level in ("device", "pod") and stat:
                result.add(level, stat, labels, value, exported)
        result.sort()
        return result
