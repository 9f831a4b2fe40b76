import functools
import re

from gengpu.checking.consequences import UNLESS_EXPORTED
from gengpu.checking.rules.base import QUERIES, Hit, Rule

_FIELD = re.compile(r"\bDCGM_(?:FI|EXP)_[A-Z0-9_]+\b")
COUNTERS = ("default-counters.csv", "dcp-metrics-included.csv")


@functools.cache
def exported() -> frozenset:
    """The fields dcgm-exporter's shipped counter files enable (the image's default and the GPU Operator's)."""
    from gengpu.schemas_dir import data_path

    from gengpu.loading.counters import read

    folder = data_path() / "dcgm-exporter" / "NVIDIA" / "dcgm-exporter" / "etc"
    names = set()
    for name in COUNTERS:  # read as the exporter reads them: a '#' line is a comment, not a field
        rows, _ = read((folder / name).read_text(encoding="utf-8"))
        names |= {row["field"] for row in rows if row["field"].startswith("DCGM_")}
    return frozenset(names)


def check(subject, ctx=None):
    for path, expr in subject.queries:
        missing = sorted({m for m in _FIELD.findall(expr) if m not in exported()})
        if missing:
            # a counters file in the same run that exports them makes the finding moot (checking/consequences.py)
            yield Hit(path, f"{subject.label}: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not "
                            "exported by dcgm-exporter's shipped counter files or any counters file checked with it, "
                            "so this query finds no series", needs=UNLESS_EXPORTED + ",".join(missing))


RULE = Rule(
    id="dcgm-metric-not-exported",
    severity="warning",
    summary="A query of a DCGM field that dcgm-exporter does not export unless told to.",
    fix="Query a field the exporter exports (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE for total memory), or add the "
    "field to the exporter's counters file (the GPU Operator's dcgmExporter.config) and suppress this rule with "
    "that reason.",
    explanation="dcgm-exporter exports only the fields listed in its counters CSV: etc/default-counters.csv in its "
    "image, etc/dcp-metrics-included.csv where the GPU Operator deploys it, or a counters file of your own. An "
    "alert, recording rule, dashboard panel or KEDA trigger on any other field (DCGM_FI_DEV_FB_TOTAL, "
    "DCGM_FI_DEV_ECC_*, most profiling fields) evaluates to nothing: the alert never fires, the panel stays empty, "
    "and nothing says why. A counters file checked in the same run that exports the field makes it fine. A "
    "warning: the rule loads and the rest of it works.",
    source="NVIDIA/dcgm-exporter etc/default-counters.csv and etc/dcp-metrics-included.csv at 4.5.3-4.8.2 "
    "(gengpu/data/dcgm-exporter/SOURCES.yaml)",
    check=check,
    applies_to=QUERIES,
)
