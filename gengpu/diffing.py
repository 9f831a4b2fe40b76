"""`gengpu diff --base REF`: what a merge changes on each cluster, resource by resource.

Both sides are rendered the way Argo CD renders them: `kustomize build` of every
overlay, plus the cluster's Argo CD Application (where the GPU Operator chart
version and values file live). The base side comes from `git archive REF`.
"""

from __future__ import annotations

import difflib
import io
import subprocess
import tarfile
import tempfile
from pathlib import Path

import yaml

from gengpu import disruption
from gengpu.compiling.yamltext import dump_sorted
from gengpu.findings import UsageError
from gengpu.loading.reading import read_text
from gengpu.rendering import render


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True)


def _export(ref: str, root: Path, folders: list[str], target: Path) -> list[str]:
    """The given folders of the repository at ref, written under target (missing folders are skipped). Returns
    what was left out: a link that leads out of the repository (or an absolute one) is never written, so nothing
    at ref can make gengpu read or write outside its scratch folder."""
    present = [f for f in folders if _git(["cat-file", "-e", f"{ref}:{f}"], root).returncode == 0]
    if not present:
        return []
    proc = _git(["archive", "--format=tar", ref, *present], root)
    if proc.returncode != 0:
        raise UsageError(f"git archive {ref} failed: {proc.stderr.decode().strip()}")
    skipped = []
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        for member in tar.getmembers():
            try:
                tar.extract(member, target, filter="data")
            except tarfile.FilterError:
                skipped.append(member.name)
    return skipped


def _key(doc: dict) -> str:
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    ns = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{doc.get('kind')} {ns}{meta.get('name')}"


def _side_files(overlay: Path) -> dict[str, str]:
    """Files of an overlay that are not its rendered resources (Helm values, provisioning scripts, the GKE
    auto-provisioning file, placement components, verify workloads), by relative path -> text."""
    k = _yaml(read_text(overlay / "kustomization.yaml"))
    listed = k.get("resources") if isinstance(k, dict) else None
    resources = {str(r) for r in listed} if isinstance(listed, list) else set()
    out = {}
    for path in sorted(p for p in overlay.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(overlay).as_posix()
        if rel in resources or rel == "kustomization.yaml" or rel.startswith("local/"):
            continue
        text = read_text(path)  # regular files only, bounded; a file that is not text is left out
        if text is not None:
            out[f"file {rel}"] = text
    return out


def _yaml(text: str | None):
    try:
        return yaml.safe_load(text) if text is not None else None
    except yaml.YAMLError:
        return None


def _objects(tree: Path, overlays_dir: str) -> dict[str, dict[str, object]]:
    """cluster -> resource key (or `file <path>`) -> object (or text), for one side."""
    clusters: dict[str, dict[str, object]] = {}
    for overlay in sorted((tree / overlays_dir).glob("*/kustomization.yaml")):
        name = overlay.parent.name
        text, findings = render.kustomize_build(overlay.parent, f"{overlays_dir}/{name}")
        if text is None:
            raise UsageError(f"{findings[0].file}: {findings[0].message}")
        objs: dict[str, object] = {_key(d): d for d in yaml.safe_load_all(text) if isinstance(d, dict)}
        doc = _yaml(read_text(tree / "argocd" / "applications" / f"{name}.yaml"))
        if isinstance(doc, dict):
            objs[_key(doc)] = doc
        objs.update(_side_files(overlay.parent))
        clusters[name] = objs
    return clusters


def _text(item) -> list[str]:
    if item is None:
        return []
    if isinstance(item, str):
        return [line for line in item.splitlines(keepends=True) if not line.startswith("# gengpu-digest:")]
    return dump_sorted(item).splitlines(keepends=True)


def _plans(tree: Path, overlays_dir: str) -> dict[str, list]:
    """cluster -> its pools' cost and quota plans, from the profiles of one side (those that load cleanly)."""
    from gengpu import planning
    from gengpu.pipeline.profiles import DEFAULT_PROFILES, load_profiles

    folder = tree / DEFAULT_PROFILES
    files = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]) if folder.is_dir() else []
    loaded = load_profiles(files, tree / overlays_dir)
    return {c.name: planning.plan_profile(c.profile) for c in loaded.profiles if c.profile is not None}


def _root(base: str) -> Path:
    top = _git(["rev-parse", "--show-toplevel"], Path.cwd())
    if top.returncode != 0:
        raise UsageError("gengpu diff runs inside a git repository")
    root = Path(top.stdout.decode().strip())
    if _git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], root).returncode != 0:
        raise UsageError(f"unknown git revision '{base}'")
    return root


def _changes(base: str, before: dict, after: dict) -> dict[str, dict]:
    """cluster -> {state, changes: [{key, change, diff}]}: every resource, Application and generated file that
    differs between base and the working tree, new and removed ones with their whole text."""
    report = {}
    for cluster in sorted(set(before) | set(after)):
        old, new = before.get(cluster, {}), after.get(cluster, {})
        found = []
        for key in sorted(set(old) | set(new)):
            a, b = _text(old.get(key)), _text(new.get(key))
            if a == b:
                continue
            change = "added" if key not in old else "removed" if key not in new else "changed"
            lines = [d.rstrip("\n") for d in difflib.unified_diff(a, b, fromfile=base, tofile="working tree", n=2)]
            found.append({"key": key, "change": change, "diff": lines})
        if found:
            state = "added" if cluster not in before else "removed" if cluster not in after else "changed"
            report[cluster] = {"state": state, "changes": found}
    return report


def _disruption(before: dict, after: dict) -> dict[str, dict]:
    """cluster -> {disruptions, manual}: what applying the merge disrupts on each cluster that exists on both
    sides (a new cluster has nothing running yet; a removed one is pruned whole)."""
    out = {}
    for cluster in sorted(set(before) & set(after)):
        old = {k: _strip(v) for k, v in before[cluster].items()}
        new = {k: _strip(v) for k, v in after[cluster].items()}
        found, manual = disruption.disruptions(old, new), disruption.manual(old, new)
        if found or manual:
            out[cluster] = {"disruptions": found, "manual": manual}
    return out


def _strip(item):
    return "".join(_text(item)) if isinstance(item, str) else item


def compare(base: str, overlays_dir: str = "overlays") -> tuple[dict[str, dict], dict[str, dict], dict[str, dict]]:
    """(what changes per cluster, the change in GPUs, maximum monthly spend and quota at the pools' limits, what the
    change disrupts per cluster), base to working tree; the base's overlays, Applications and profiles come from
    one `git archive`."""
    from gengpu.pipeline.profiles import DEFAULT_PROFILES
    from gengpu.reporting import plan as plan_report

    root = _root(base)
    with tempfile.TemporaryDirectory(prefix="gengpu-diff-") as tmp:
        skipped = _export(base, root, [overlays_dir, "argocd", DEFAULT_PROFILES], Path(tmp))
        try:
            before, plans_before = _objects(Path(tmp), overlays_dir), _plans(Path(tmp), overlays_dir)
        except UsageError as exc:
            if skipped:
                raise UsageError(f"{exc} (at {base}, gengpu did not follow links out of the repository: "
                                 f"{', '.join(skipped)})") from None
            raise
    after = _objects(root, overlays_dir)
    report = _changes(base, before, after)
    return report, plan_report.spend_delta(plans_before, _plans(root, overlays_dir)), _disruption(before, after)


def _disruption_lines(found: dict[str, dict], markdown: bool) -> list[str]:
    if not found:
        return ["## Disruption" if markdown else "Disruption:", "",
                "None: nothing here restarts, evicts or replaces what GPU workloads run on.", ""]
    out = ["## Disruption" if markdown else "Disruption (what applying this merge restarts, evicts or replaces):", ""]
    for cluster, entry in found.items():
        for d in entry["disruptions"]:
            if markdown:
                out.append(f"- **{cluster}**: {d['what']}. Nodes: {d['nodes']}. {d['effect'][0].upper()}"
                           f"{d['effect'][1:]}.")
            else:
                out += [f"  {cluster}: {d['what']}", f"    nodes: {d['nodes']}", f"    effect: {d['effect']}"]
        for script in entry["manual"]:
            line = f"{script} changed: Argo CD does not run it; the existing node pool keeps its old settings " \
                   "until you create a new pool with it and move the workloads"
            out.append(f"- **{cluster}**: {line}." if markdown else f"  {cluster}: {line}")
    out.append("")
    return out


_MARK = {"added": " (new)", "removed": " (removed)", "changed": ""}
_SIGN = {"added": "+", "removed": "-", "changed": "~"}


def diff(base: str, overlays_dir: str = "overlays", output: str = "text") -> tuple[str, bool]:
    """The report (text, markdown or json), and whether anything changes."""
    from gengpu.reporting import plan as plan_report

    report, delta, disrupted = compare(base, overlays_dir)
    if output == "json":
        import json

        return json.dumps({"base": base, "clusters": report, "spend": delta, "disruption": disrupted},
                          indent=2) + "\n", bool(report)
    if not report:
        return f"No changes against {base}.\n", False
    out = _disruption_lines(disrupted, output == "markdown")
    out += plan_report.delta_lines(delta, output == "markdown")
    for cluster, entry in report.items():
        state = {"added": " (new cluster)", "removed": " (removed cluster)", "changed": ""}[entry["state"]]
        out += [f"## {cluster}{state}", ""]
        for c in entry["changes"]:
            head = f"{_SIGN[c['change']]} {c['key']}{_MARK[c['change']]}"
            if output == "markdown":
                out += [f"<details><summary><code>{head}</code></summary>", "", "```diff", *c["diff"], "```", "",
                        "</details>", ""]
            else:
                out += [head, *("    " + line for line in c["diff"])]
        if output != "markdown":
            out.append("")
    return "\n".join(out), True
