from gengpu.checking.rules.base import KARPENTER_NODECLASS, Hit, Rule
from gengpu.checking.podspecs import dig


def check(subject, ctx=None):
    if subject.data.get("kind") != "EC2NodeClass":
        return
    terms = dig(subject.data, "spec", "amiSelectorTerms")
    for i, term in enumerate(terms if isinstance(terms, list) else []):
        alias = term.get("alias") if isinstance(term, dict) else None
        if isinstance(alias, str) and alias.endswith("@latest"):
            yield Hit(("spec", "amiSelectorTerms", i, "alias"),
                      f"{subject.label}: amiSelectorTerms alias {alias} follows every new AMI release: each one "
                      "drifts every node, GPU nodes and their running jobs included")


RULE = Rule(
    id="ec2nodeclass-ami-latest",
    severity="warning",
    summary="An EC2NodeClass that follows the latest AMI.",
    fix="Pin the alias to a release, e.g. al2023@v20260917, and move it on purpose.",
    explanation="With @latest, Karpenter's drift detection replaces every node when AWS publishes an AMI; GPU "
    "nodes then come back with a new NVIDIA driver (the EKS GPU AMIs bundle it), possibly older or newer than the "
    "CUDA version the workloads need, and long training jobs are interrupted.",
    source="Karpenter docs 'EC2NodeClass amiSelectorTerms' (pinning aliases); AWS EKS accelerated AMIs",
    check=check,
    applies_to=KARPENTER_NODECLASS,
)
