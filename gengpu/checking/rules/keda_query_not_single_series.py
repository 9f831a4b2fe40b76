from gengpu.checking.rules._keda import grouped_by, triggers
from gengpu.checking.rules.base import QUERIES, Hit, Rule

# the labels of the scaled workload's own pods: one series per replica
PER_POD = {"pod", "exported_pod", "pod_name"}


def check(subject, ctx=None):
    spec = subject.data.get("spec") if isinstance(subject.data.get("spec"), dict) else {}
    least = spec.get("minReplicaCount")
    if not isinstance(least, int) or least < 2:
        return  # with one replica the query may give one series; the rule speaks only where it never can
    for i, trigger in triggers(subject):
        query = trigger["metadata"].get("query")
        labels = grouped_by(query) if isinstance(query, str) else None
        if labels and PER_POD & set(labels):
            yield Hit(("spec", "triggers", i, "metadata", "query"), f"{subject.label}: trigger {i}'s query keeps "
                      f"one series per {', '.join(sorted(PER_POD & set(labels)))} (by ({', '.join(labels)})) and "
                      f"minReplicaCount is {least}: it always returns several series, and KEDA's prometheus scaler "
                      "refuses a result of more than one element, so the trigger never scales", doc=subject.doc)


RULE = Rule(
    id="keda-query-not-single-series",
    severity="error",
    summary="A KEDA prometheus trigger whose query returns one series per pod of a workload that always runs at "
    "least two: the scaler refuses it.",
    fix="Aggregate to one value: drop the `by (pod)` (avg(DCGM_FI_DEV_GPU_UTIL{...}) for the mean over the pods), "
    "or use max/sum over them as the scaling signal.",
    explanation="KEDA's prometheus scaler reads one number: a query whose result has more than one element is an "
    "error ('prometheus query ... returned multiple elements'), and the ScaledObject stops scaling on it. Grouping "
    "by the pod label gives one element per replica, so with minReplicaCount 2 or more the query fails every time.",
    source="kedacore/keda pkg/scalers/prometheus_scaler.go at v2.20.2 (ExecutePromQuery: len(result) > 1 is an error)",
    check=check,
    applies_to=QUERIES,
)
