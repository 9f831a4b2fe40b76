"""CEL rules of CRDs (x-kubernetes-validations), evaluated by tools/celcheck: the API server's own code, offline.

kubeconform and JSON Schema cannot see these rules (a Karpenter NodePool that sets the restricted label
karpenter.sh/nodepool passes both, and the API server refuses it). Objects of a run are collected and sent to
one celcheck process at the end; its findings land at the field's line like any schema finding.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field

from gengpu.findings import Finding, UsageError
from gengpu.schemas_dir import schemas_path

_STEP = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def parse_field(path: str) -> tuple:
    """Kubernetes field path (spec.requirements[0].key, metadata.labels[a.b/c]) to a path tuple."""
    out = []
    for name, index in _STEP.findall(path):
        if name:
            out.append(name)
        else:
            out.append(int(index) if index.isdigit() else index)
    return tuple(out)


@dataclass
class Batch:
    """Objects waiting for celcheck: (document, data, label, schema file name)."""

    items: list = field(default_factory=list)

    def add(self, doc, data: dict, label: str, name: str, honoured=frozenset()) -> None:
        if "object-cel" not in honoured and (schemas_path() / "cel" / name).is_file():
            self.items.append((doc, data, label, name))

    def run(self, rules) -> list[Finding]:
        if not self.items:
            return []
        from gengpu.rendering import tools

        try:
            tool = tools.find("celcheck")
        except UsageError as exc:
            rule = rules["object-cel-not-evaluated"]
            doc = self.items[0][0]
            return [Finding(doc.file, 0, 0, rule.severity, rule.id,
                            f"CEL rules of {len(self.items)} object(s) not evaluated: {exc}", rule.fix)]
        lines = "".join(json.dumps({"id": i, "schema": name, "object": data}) + "\n"
                        for i, (_, data, _, name) in enumerate(self.items))
        proc = subprocess.run([*tool.argv, str(schemas_path() / "cel")], input=lines, capture_output=True, text=True,
                              timeout=300)
        if proc.returncode != 0:
            raise UsageError(f"celcheck failed: {proc.stderr.strip()[:300]}")
        rule = rules["object-cel"]
        findings = []
        for line in proc.stdout.splitlines():
            verdict = json.loads(line)
            doc, _, label, _ = self.items[verdict["id"]]
            if verdict.get("fatal"):
                raise UsageError(f"celcheck cannot use {self.items[verdict['id']][3]}: {verdict['fatal']}")
            for error in verdict["errors"]:
                path = parse_field(error["field"])
                line_no, col = doc.position(path)
                # A rule over a map names the offending key ('label "karpenter.sh/nodepool" is restricted'): point at it.
                for key in re.findall(r'"([^"]+)"', error["detail"]):
                    if doc.position(path + (key,), key=True) != (line_no, col):
                        line_no, col = doc.position(path + (key,), key=True)
                        break
                pointer = "/" + "/".join(map(str, path))
                findings.append(Finding(doc.file, line_no, col, rule.severity, rule.id,
                                        f"{label} at {pointer}: {error['detail']}", rule.fix))
        self.items = []
        return findings
