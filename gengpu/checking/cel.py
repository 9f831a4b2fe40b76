"""CEL rules of CRDs (x-kubernetes-validations), evaluated by tools/celcheck: the API server's own code, offline.

kubeconform and JSON Schema cannot see these rules (a Karpenter NodePool that sets the restricted label
karpenter.sh/nodepool passes both, and the API server refuses it). One celcheck process per gengpu process
answers object after object over a pipe; its findings land at the field's line like any schema finding.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import subprocess

from gengpu.findings import Finding, UsageError
from gengpu.schemas_dir import schemas_path

_STEP = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def parse_field(path: str) -> tuple:
    """Kubernetes field path (spec.requirements[0].key, metadata.labels[a.b/c]) to a path tuple."""
    out = []
    if path in ("", "<nil>"):  # a rule on the object itself (x-kubernetes-validations at the root)
        return ()
    for name, index in _STEP.findall(path):
        if name:
            out.append(name)
        else:
            out.append(int(index) if index.isdecimal() else index)
    return tuple(out)


def has_rules(schema_name: str) -> bool:
    return (schemas_path() / "cel" / schema_name).is_file()


class _Checker:
    """A celcheck process of this process (a forked child starts its own)."""

    def __init__(self):
        from gengpu import binaries as tools

        self.pid = os.getpid()
        self.tool = tools.find("celcheck")  # raises UsageError when it is not installed
        self.proc = subprocess.Popen([*self.tool.argv, str(schemas_path() / "cel")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.count = 0
        atexit.register(self.close)  # not left to the interpreter's teardown (a ResourceWarning, a stray process)

    def close(self) -> None:
        if self.pid != os.getpid() or self.proc.poll() is not None:
            return
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()
        try:
            self.proc.wait(timeout=5)  # celcheck ends at the end of its input
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def check(self, schema_name: str, data: dict, inline: dict | None = None) -> list[dict]:
        self.count += 1
        request = {"id": self.count, "schema": schema_name, "object": data}
        if inline is not None:
            request["inline"] = inline
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise UsageError(f"celcheck stopped: {self.proc.stderr.read().strip()[:300]}")
        verdict = json.loads(line)
        if verdict.get("fatal"):
            raise UsageError(f"celcheck cannot use {schema_name}: {verdict['fatal']}")
        return verdict["errors"]


_checker: _Checker | None = None
_missing: str | None = None


def errors(schema_name: str, data: dict, inline: dict | None = None) -> list[dict] | None:
    """The CEL errors of an object, or None when celcheck is not installed. inline: the schema as written, for a
    CRD gengpu does not ship (the repository's own), named uniquely by schema_name."""
    global _checker, _missing
    if _missing is not None:
        return None
    if _checker is None or _checker.pid != os.getpid():
        try:
            _checker = _Checker()
        except UsageError as exc:
            _missing = str(exc)
            return None
    return _checker.check(schema_name, data, inline)


def findings(doc, file: str, data: dict, label: str, schema_name: str, rules,
             inline: dict | None = None) -> list[Finding]:
    """object-cel findings at their fields, or one object-cel-not-evaluated when celcheck is missing."""
    found = errors(schema_name, data, inline)
    if found is None:
        rule = rules["object-cel-not-evaluated"]
        return [Finding(file, 0, 0, rule.severity, rule.id, f"{label}: CEL rules not evaluated: {_missing}", rule.fix)]
    rule = rules["object-cel"]
    out = []
    for error in found:
        path = parse_field(error["field"])
        at, line, col = doc.where(path) if doc is not None else (file, 1, 1)
        # A rule over a map names the offending key ('label "karpenter.sh/nodepool" is restricted'): point at it.
        for key in re.findall(r'"([^"]+)"', error["detail"]):
            if doc is not None and doc.where(path + (key,), key=True) != (at, line, col):
                at, line, col = doc.where(path + (key,), key=True)
                break
        out.append(Finding(at, line, col, rule.severity, rule.id,
                           f"{label} at /{'/'.join(map(str, path))}: {error['detail']}", rule.fix))
    return out
