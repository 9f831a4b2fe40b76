from gengpu import charts
from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule


def check(subject, ctx=None):
    for problem in charts.check_keys(subject.chart, subject.data, subject.chart_version):
        if not problem.unknown:
            yield Hit(problem.path, f"{subject.label}: {problem.message}", key=True)


RULE = Rule(
    id="helm-values-key-removed",
    severity="warning",
    summary="A values key that older versions of the chart had and the newest no longer has.",
    fix="Remove it, or move it to where the newer chart expects it (see the chart's release notes).",
    explanation="After an upgrade of the chart the key is silently ignored: cdi.default, for example, left the "
    "gpu-operator chart in v25.10.0. Harmless on the old chart, a trap on the next upgrade.",
    source="gengpu/data/charts (the charts' values.yaml by version)",
    check=check,
    applies_to=HELM_VALUES,
)
