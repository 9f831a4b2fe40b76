from gengpu.checking.rules._keda import triggers
from gengpu.checking.rules.base import QUERIES, Hit, Rule


def check(subject, ctx=None):
    for i, trigger in triggers(subject):
        if "metricName" in trigger["metadata"]:
            yield Hit(("spec", "triggers", i, "metadata", "metricName"), f"{subject.label}: trigger {i} sets "
                      "metricName, which KEDA ignores since 2.12 (it names the metric s<index>-prometheus itself)",
                      key=True, doc=subject.doc)


RULE = Rule(
    id="keda-metric-name-ignored",
    severity="warning",
    summary="A KEDA prometheus trigger sets metricName, which KEDA no longer reads.",
    fix="Remove metricName; name the trigger with its `name` field if you need to tell triggers apart.",
    explanation="KEDA deprecated the prometheus scaler's metricName in 2.10 and removed it in 2.12: the scaler names "
    "the external metric itself (s0-prometheus, s1-prometheus ...). The trigger still works, but a dashboard, HPA "
    "or alert that looks for the metric under metricName finds nothing.",
    source="kedacore/keda CHANGELOG (v2.10.0 deprecation, v2.12.0 removal, #4899); pkg/scalers/prometheus_scaler.go "
    "at v2.20.2",
    check=check,
    applies_to=QUERIES,
)
