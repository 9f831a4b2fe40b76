from gengpu.checking.rules._counters import fields, rows
from gengpu.checking.rules.base import DCGM_COUNTERS, Hit, Rule
from gengpu.loading.counters import MARK


def check(subject, ctx=None):
    for i, row in rows(subject):
        if row["fields"] == 3 and (fields().get(row["field"]) or {}).get("type") == "binary":
            yield Hit((MARK, i, "field"), f"{subject.label}: {row['field']} is a binary DCGM field (a structure, "
                      "not a number): dcgm-exporter cannot turn it into a metric value", doc=subject.doc)


RULE = Rule(
    id="dcgm-counters-field-not-numeric",
    severity="warning",
    summary="A counters file asks for a DCGM field whose value is a binary structure, not a number.",
    fix="Remove the line: accounting data, per-process and vGPU instance lists are read with DCGM's own tools "
    "(dcgmi), not as Prometheus metrics.",
    explanation="DCGM keeps some fields as binary structures (accounting data, vGPU instance lists, per-process "
    "utilisation). dcgm-exporter converts each value to a string for Prometheus, and for these it writes 'ERROR - "
    "FAILED TO CONVERT TO STRING': the series carries no number. The exporter keeps running, so the mistake shows "
    "only as a metric that never has a value.",
    source="NVIDIA/DCGM v4.5.3 dcgmlib/src/dcgm_fields.cpp (DCGM_FT_BINARY fields); NVIDIA/dcgm-exporter "
    "internal/pkg/collector (ToString); dcgm-exporter issue 394",
    check=check,
    applies_to=DCGM_COUNTERS,
)
