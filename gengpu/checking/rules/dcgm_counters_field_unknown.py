import difflib

from gengpu.checking.rules._counters import EXPORTER_FIELDS, fields, rows
from gengpu.checking.rules.base import DCGM_COUNTERS, Hit, Rule
from gengpu.loading.counters import MARK


def check(subject, ctx=None):
    for i, row in rows(subject):
        name = row["field"]
        if row["fields"] == 3 and name not in fields() and name not in EXPORTER_FIELDS:
            close = difflib.get_close_matches(name, list(fields()) + list(EXPORTER_FIELDS), n=1, cutoff=0.8)
            yield Hit((MARK, i, "field"), f"{subject.label}: {name} is not a DCGM field dcgm-exporter knows, so it "
                      "stops at start (\"could not find DCGM field\")" + (f"; did you mean {close[0]}?" if close else ""),
                      doc=subject.doc)


RULE = Rule(
    id="dcgm-counters-field-unknown",
    severity="error",
    summary="A counters file names a DCGM field dcgm-exporter does not know.",
    fix="Use the field's DCGM name (gengpu's table: gengpu/data/dcgm-exporter/fields.yaml, from go-dcgm), or one of "
    "the exporter's own DCGM_EXP_* counters; remove fields a newer DCGM added if the exporter image is older.",
    explanation="dcgm-exporter looks each line's first field up in go-dcgm's field table (current and legacy names) "
    "and its own DCGM_EXP_* counters; an unknown name ends the exporter at start with 'could not find DCGM field': "
    "no metric is exported at all.",
    source="NVIDIA/dcgm-exporter 4.5.3-4.8.2 ExtractCounters (dcgm.GetFieldID, IsLegacyField, IdentifyMetricType); "
    "NVIDIA/go-dcgm ec245c0 pkg/dcgm/const_fields.go",
    check=check,
    applies_to=DCGM_COUNTERS,
)
