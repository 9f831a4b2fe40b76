from gengpu.checking.rules._counters import EXPORTER_FIELDS, PROM_TYPES, error, fields, rows
from gengpu.checking.rules.base import DCGM_COUNTERS, Hit, Rule
from gengpu.loading.counters import ERROR, MARK


def check(subject, ctx=None):
    problem = error(subject)
    if problem:
        yield Hit((ERROR,), f"{subject.label}: line {problem['line']}: {problem['message']}: dcgm-exporter cannot "
                  "read the file and stops", doc=subject.doc)
    for i, row in rows(subject):
        if row["fields"] != 3:
            yield Hit((MARK, i), f"{subject.label}: {row['field'] or '(empty)'} has {row['fields']} field(s); "
                      "dcgm-exporter wants three (DCGM field, Prometheus type, help) and stops: \"malformed CSV "
                      "record\"", doc=subject.doc)
        elif row["field"] in fields() and row["field"] not in EXPORTER_FIELDS and row["type"] not in PROM_TYPES:
            yield Hit((MARK, i, "type"), f"{subject.label}: {row['field']} has Prometheus type {row['type']!r}; "
                      f"dcgm-exporter knows {', '.join(PROM_TYPES)} and stops: \"could not find Prometheus metric "
                      "type\"", doc=subject.doc)


RULE = Rule(
    id="dcgm-counters-invalid",
    severity="error",
    summary="A dcgm-exporter counters file the exporter cannot read: a CSV error, a line without exactly three "
    "fields, or a Prometheus type it does not know.",
    fix="Write each line as `DCGM_FI_..., gauge|counter|label, help text`: three comma-separated fields, a help "
    "text without a double quote (or the whole field quoted), comments on lines of their own starting with #.",
    explanation="dcgm-exporter reads its counters file with Go's encoding/csv (comments start with #) and then wants "
    "three fields per line and a Prometheus type of gauge, counter, histogram, summary or label. Any error stops it "
    "at start: the pod crash-loops and no GPU metric is exported. A help text with a comma needs quotes; a quote "
    "inside an unquoted field is itself an error; every line must have as many fields as the first.",
    source="NVIDIA/dcgm-exporter 4.5.3-4.8.2 internal/pkg/counters/counter_config.go (ReadCSVFile, ExtractCounters), "
    "variables.go (promMetricType); Go encoding/csv",
    check=check,
    applies_to=DCGM_COUNTERS,
)
