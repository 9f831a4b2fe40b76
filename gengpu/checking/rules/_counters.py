"""What dcgm-exporter makes of a counters file's rows (internal/pkg/counters/counter_config.go ExtractCounters at
4.5.3-4.8.2): the DCGM fields it knows (gengpu/data/dcgm-exporter/fields.yaml, from go-dcgm and DCGM), its own
DCGM_EXP_* counters, and the Prometheus types it accepts."""

from __future__ import annotations

import functools

from gengpu.loading.counters import ERROR, MARK

# internal/pkg/counters/exporter_counters.go (DCGMFields) and const.go at 4.5.3-4.8.2
EXPORTER_FIELDS = ("DCGM_EXP_XID_ERRORS_COUNT", "DCGM_EXP_CLOCK_EVENTS_COUNT", "DCGM_EXP_GPU_HEALTH_STATUS",
                   "DCGM_EXP_P2P_STATUS")
# internal/pkg/counters/variables.go promMetricType
PROM_TYPES = ("gauge", "counter", "histogram", "summary", "label")


@functools.cache
def fields() -> dict:
    """Field name -> {type}, current names and the legacy names the exporter still accepts."""
    from gengpu import catalog

    table = catalog.data_file("dcgm-exporter/fields.yaml")
    return {**(table.get("legacy") or {}), **table["fields"]}


def rows(subject) -> list[tuple[int, dict]]:
    return [(i, r) for i, r in enumerate(subject.data.get(MARK) or []) if isinstance(r, dict)]


def error(subject) -> dict | None:
    return subject.data.get(ERROR) if isinstance(subject.data.get(ERROR), dict) else None


def exported(subject) -> set[str]:
    """The fields a counters file has the exporter export (a row it reads without an error)."""
    return {r["field"] for _, r in rows(subject) if r.get("fields") == 3 and r["field"] in fields()
            or r["field"] in EXPORTER_FIELDS}
