"""A recorded OpenMetrics file of dcgm-exporter samples (with timestamps: the format `promtool tsdb
create-blocks-from openmetrics` loads), aggregated here with PromQL's own definitions so that a file and a server
holding the same samples give the same figures: a range [W] at time T holds the samples in (T-W, T];
quantile_over_time interpolates between the two nearest ranks; duplicate series are merged as the server-side query
merges them: max (avg for means, min for the first sample's time), and a device's presence counted over the steps any
of its series was seen.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

from gengpu.findings import Finding
from gengpu.metrics import usage as u
from gengpu.metrics.joining import METRICS as JOIN_METRICS


@dataclass
class Recorded:
    """The samples of the metrics gengpu reads, by series (frozen label set)."""

    source: str
    series: dict[str, dict[tuple, list[tuple[float, float]]]] = field(default_factory=dict)  # metric -> labels -> samples
    matchers: tuple = ()  # --match: only the series of one cluster

    @property
    def last(self) -> float | None:
        times = [s[-1][0] for m in u.METRICS for s in self.series.get(m, {}).values() if s]
        return max(times) if times else None

    def _window(self, metric: str, at: float, seconds: int, where=None):
        for labels, samples in self.series.get(metric, {}).items():
            values = [(t, v) for t, v in samples if at - seconds < t <= at]
            if values and (where is None or where(dict(labels))) and u.matches(dict(labels), self.matchers):
                yield dict(labels), values

    def nodes(self, window: str, at: float) -> dict[tuple[str, str], int]:
        out: dict[tuple[str, str], int] = {}
        for labels, _ in self._window(u.FB_USED, at, u.seconds(window)):
            label = next((k for k in u.NODE_LABELS if labels.get(k)), "")
            key = (label, labels.get(label, ""))
            out[key] = out.get(key, 0) + 1
        return out

    def models(self, window: str, at: float) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for labels, _ in self._window(u.FB_USED, at, u.seconds(window)):
            node = next((labels[k] for k in u.NODE_LABELS if labels.get(k)), "")
            out.setdefault(node, set()).add(labels.get("modelName", ""))
        return out

    def exported(self, window: str, at: float) -> bool:
        return any(labels.get("exported_pod") for labels, _ in self._window(u.FB_USED, at, u.seconds(window)))

    def node_labels(self, nodes: list[str], keys: list[str], window: str, at: float):
        from gengpu.metrics import joining

        wanted, found = set(nodes), joining.NodeLabels(joining.names(keys))
        for source, metric, node_label in joining.SOURCES:
            for labels, _ in self._window(metric, at, u.seconds(window), lambda ls: ls.get(node_label) in wanted):
                found.add(source, labels)
        return found

    def pool_usage(self, node_label: str, nodes: list[str], window: str, at: float, exported: bool) -> u.Usage:
        wanted, seconds = set(nodes), u.seconds(window)
        namespace_label, pod_label = u.POD_LABELS[exported]
        result = u.Usage()
        for level, stats in (("device", u.DEVICE_STATS), ("pod", u.POD_STATS)):
            keys = (node_label, *u.DEVICE_LABELS) + ((namespace_label, pod_label) if level == "pod" else ())
            for stat, metric, fn in stats:
                groups: dict[tuple, list[float]] = {}
                free = {tuple(sorted(labels.items())): _apply("last", values, at, seconds, 0)
                        for labels, values in self._window(u.FB_FREE, at, seconds)} if fn == "last_total" else {}
                for labels, values in self._window(metric, at, seconds, lambda ls: ls.get(node_label) in wanted and (
                        level == "device" or ls.get(pod_label))):
                    group = tuple((k, labels[k]) for k in keys if labels.get(k))
                    step = u.seconds(u.resolution(window))
                    if fn == "last_total":  # (this series' used + the free of the series of the same labels)
                        other = free.get(tuple(sorted(labels.items())))
                        value = None if other is None else _apply("last", values, at, seconds, step) + other
                    else:
                        value = _steps(values, at, seconds, step) if fn == "present" else \
                            _apply(fn, values, at, seconds, step)
                    if value is not None and (fn != "present" or value):
                        groups.setdefault(group, []).append(value)
                for group, found in groups.items():
                    value = float(len(set().union(*found))) if fn == "present" else \
                        sum(found) / len(found) if fn == "mean" else min(found) if fn == "first_ts" else max(found)
                    result.add(level, stat, dict(group), value, exported)
        result.sort()
        return result


LOOKBACK = 300  # PromQL's default lookback delta: an instant selector sees the newest sample of the last 5 minutes


def _apply(fn: str, samples: list[tuple[float, float]], at: float, window: int, step: int) -> float | None:
    # NaN samples count for nothing, as in PromQL's max/min/quantile over time (a NaN only when all are)
    values = [v for _, v in samples if not math.isnan(v)] or [math.nan]
    if fn == "max":
        return max(values)
    if fn == "mean":
        return sum(values) / len(values)
    if fn == "last":
        return values[-1]
    if fn == "p95":
        return quantile(0.95, values)
    seen = _steps(samples, at, window, step)
    if not seen:
        return None
    return min(seen.values()) if fn == "first_ts" else max(seen.values())


def _steps(samples: list[tuple[float, float]], at: float, window: int, step: int) -> dict[int, float]:
    """A subquery [window:step] as the server evaluates it: the steps, at multiples of step in (at - window, at],
    at which the series had a sample in the lookback before it, and the newest such sample's time."""
    seen = {}
    k = math.floor((at - window) / step) + 1
    times = [t for t, _ in samples]
    while k * step <= at:
        s = k * step
        i = bisect.bisect_right(times, s) - 1
        if i >= 0 and times[i] > s - LOOKBACK:
            seen[s] = times[i]
        k += 1
    return seen


def quantile(q: float, values: list[float]) -> float:
    """Prometheus's quantile_over_time (promql/quantile.go: quantile): linear between the nearest ranks."""
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    lower = max(0, math.floor(rank))
    upper = min(len(ordered) - 1, lower + 1)
    weight = rank - math.floor(rank)
    return ordered[lower] * (1 - weight) + ordered[upper] * weight


def load(text: str, source: str) -> tuple[Recorded | None, list[Finding]]:
    """The samples of gengpu's metrics in an OpenMetrics text (other metrics are skipped); a finding when the file
    is not OpenMetrics with timestamps."""
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    def bad(line: int, message: str, fix: str) -> tuple[None, list[Finding]]:
        return None, [Finding(source, line, 1, "error", "metrics-file-invalid", message, fix)]

    fix = ("record the samples as OpenMetrics with a timestamp on every sample and a final '# EOF' line (the format "
           "`promtool tsdb create-blocks-from openmetrics` loads), or point --prometheus at the server")
    recorded = Recorded(source)
    try:
        for family in text_string_to_metric_families(text):
            if family.name not in u.METRICS and family.name not in JOIN_METRICS:
                continue
            by_series = recorded.series.setdefault(family.name, {})
            for sample in family.samples:
                if sample.timestamp is None:
                    return bad(_line_of(text, family.name), f"a {family.name} sample has no timestamp: a recording "
                               "needs the time of every sample", fix)
                stamp = sample.timestamp  # a Timestamp, or a float for a fractional one
                t = float(stamp) if isinstance(stamp, (int, float)) else stamp.sec + stamp.nsec / 1e9
                if not math.isfinite(t):
                    return bad(_line_of(text, family.name), f"a {family.name} sample has the timestamp {t}", fix)
                by_series.setdefault(tuple(sorted(sample.labels.items())), []).append((t, float(sample.value)))
    except AttributeError:  # prometheus_client compares a fractional timestamp with a whole one and stops
        return bad(1, "not OpenMetrics the parser can read: a timestamp written with a fraction or an exponent "
                   "among whole-second ones", fix)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        message = str(e).splitlines()[0] if str(e) else type(e).__name__
        return bad(_line_of(text, message.split("'", 2)[1] if message.count("'") >= 2 else ""),
                   f"not OpenMetrics: {message[:300]}", fix)
    for by_series in recorded.series.values():
        for samples in by_series.values():
            samples.sort()
    if not any(recorded.series.get(m) for m in u.METRICS):
        return bad(1, f"no dcgm-exporter samples ({', '.join(u.METRICS)}) in the file", fix)
    return recorded, []


def _line_of(text: str, fragment: str) -> int:
    """The line a parse error quotes, where it can be found (the parser names the line, not its number)."""
    fragment = fragment.strip()
    if fragment:
        for number, line in enumerate(text.splitlines(), 1):
            if fragment in line and not line.startswith("#"):
                return number
    return 1
