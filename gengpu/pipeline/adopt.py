"""gengpu import --snapshot/--context: the profile a running cluster implies.

the cluster's state (snapshot file, stdin or context) -> its GPU nodes grouped into pools -> the profile text ->
checked as any profile (what the nodes could not say stays a placeholder, and is reported) -> printed or written
to a new file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gengpu.findings import Finding, UsageError, sort_findings
from gengpu.pipeline.state import load_snapshot


@dataclass
class Adopted:
    text: str | None
    findings: list[Finding] = field(default_factory=list)  # the snapshot's problems, then the profile's


def adopt(snapshot: str | None, context: str | None, name: str, output: str | None, progress: bool = True) -> Adopted:
    from gengpu import adopting, filewrites
    from gengpu.checking.profile import check_profile_file
    from gengpu.loading import load_bytes

    snap, findings = load_snapshot(snapshot, context, [], progress)
    if snap is None:
        return Adopted(None, sort_findings(findings))
    from gengpu.checking.rules import finding
    from gengpu.live.pools import is_gpu_node

    if not any(is_gpu_node(n) for n in snap.nodes):
        # never a silent exit 0 with nothing written: a profile is made of GPU nodes
        said = "holds no Node" if not snap.nodes else f"holds {len(snap.nodes)} node(s) and none with NVIDIA GPUs"
        if not any(f.rule == "snapshot-incomplete" for f in findings):
            findings.append(finding("snapshot-incomplete", snap.source, 1, 1,
                                    f"the snapshot {said}: nothing to import a profile from"))
        return Adopted(None, sort_findings(findings))
    text = adopting.profile_text(snap, name)
    shown = output or f"{name}.yaml"
    docs, errors = load_bytes(text.encode("utf-8"), shown)
    if not errors:
        errors = check_profile_file(docs, shown, shown)[1]
    if output is not None:
        path = Path(output)
        if path.exists() or path.is_symlink():
            raise UsageError(f"{output} exists; gengpu import writes only a new file (or to standard output)")
        filewrites.write_whole(path, text, 0o644)
    return Adopted(text, sort_findings(findings + errors))
