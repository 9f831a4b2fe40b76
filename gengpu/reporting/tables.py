"""Plain-text tables and detail views for `gengpu rules`, `explain`, `catalog` and `mig`."""

from __future__ import annotations

import textwrap


def table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells])


def wrap(label: str, body: str) -> str:
    return f"{label}:\n" + textwrap.indent(textwrap.fill(body, 88), "  ")


def rule_detail(rule) -> str:
    return "\n".join([
        f"{rule.id} ({rule.severity}, checks {rule.applies_to})",
        "",
        rule.summary,
        "",
        wrap("Why", rule.explanation),
        "",
        wrap("Fix", rule.fix),
        "",
        wrap("Source", rule.source),
        *(["", wrap("Judges", "documents that are " + ", ".join(rule.judges) + " (`gengpu validate -v` says what "
                    "each document was taken for)")] if rule.judges else []),
        *(["", "This rule cannot be suppressed: gengpu cannot compile a profile that breaks it."]
          if not rule.suppressible else []),
    ])


def rule_examples(examples: dict) -> str:
    """A rule's failing example, near miss and other failing examples: each file with line numbers (findings point
    at them), the command and its findings."""
    out = []
    titles = {"fails": "Breaks the rule", "passes": "A near miss that does not"}
    for name, example in examples.items():
        out += [f"{titles.get(name, 'Also breaks it')}: gengpu {example.run}"]
        out += [f"  with {k}={v}" for k, v in sorted(example.env.items())]
        for path, text in example.files.items():
            out += ["", f"  {path}:"]
            if isinstance(text, bytes):
                out += [f"    (bytes) {text!r}"]
                continue
            lines = text.splitlines() or [""]
            out += [f"  {n:>4} | {line}".rstrip() for n, line in enumerate(lines, 1)]
        out += ["", "  Findings:" if example.findings else "  Findings: none"]
        out += [f"    {f}" for f in example.findings]
        out.append("")
    return "\n".join(out).rstrip("\n")


def rule_dict(rule) -> dict:
    return {"id": rule.id, "severity": rule.severity, "appliesTo": rule.applies_to, "summary": rule.summary,
            "fix": rule.fix, "explanation": rule.explanation, "source": rule.source}


def gpu_rows(gpus: dict) -> list[list]:
    rows = []
    for gpu_id, g in gpus.items():
        m = g.get("mig")
        rows.append([gpu_id, g["architecture"], g["computeCapability"], f"{g['memoryGB']} GB",
                     f"{m['slices']['compute']} slices, {len(m['profiles'])} profiles" if m else "no",
                     g["mpsMaxClients"], ", ".join(g.get("aliases", []))])
    return rows


def gpu_detail(gpu_id: str, g: dict) -> str:
    out = [f"{gpu_id} ({g['architecture']}, compute capability {g['computeCapability']}, {g['memoryGB']} GB)",
           f"aliases: {', '.join(g.get('aliases', []))}",
           f"MPS clients per GPU: {g['mpsMaxClients']}"]
    if g.get("minDriver"):
        out.append(f"minimum driver: {g['minDriver']}")
    m = g.get("mig")
    if not m:
        out.append("MIG: not supported")
        return "\n".join(out)
    out.append(f"MIG: {m['slices']['compute']} compute / {m['slices']['memory']} memory slices, "
               f"driver {m['minDriver']} or newer" + (f", PCI ids {', '.join(g['pciDeviceIds'])}"
                                                       if g.get("pciDeviceIds") else ""))
    out.append("")
    out.append(table(["profile", "compute", "memory", "max", "start slots"],
                     [[n, p["compute"], p["memory"], p["max"], ", ".join(map(str, p["starts"]))]
                      for n, p in m["profiles"].items()]))
    return "\n".join(out)


def changes(chosen: list[dict], stands: list[dict]) -> str:
    """Upstream changes as blocks: component, version and date; what changed; what gengpu does; each profile's
    standing."""
    if not chosen:
        return "No upstream change matches."

    def fill(text: str, hang: str = "") -> str:  # whole words and paths: never broken at a hyphen
        return textwrap.indent(textwrap.fill(" ".join(text.split()), 86, subsequent_indent=hang,
                                             break_on_hyphens=False, break_long_words=False), "  ")

    out = []
    for change, standing in zip(chosen, stands):
        head = " ".join(str(x) for x in (change["component"], change.get("chart"), change.get("version")) if x)
        out.append(f"{head}{' (' + change['date'] + ')' if change.get('date') else ''}  [{change['id']}]")
        out.append(fill(change["what"]))
        does = change["gengpu"]
        parts = [f"{label}{', '.join(does[key]) if isinstance(does[key], list) else does[key]}"
                 for key, label in (("rules", "rules "), ("profile", "profile "), ("writes", "writes "),
                                    ("not", "not yet: ")) if does.get(key)]
        out.append(fill("gengpu: " + "; ".join(parts), "  "))
        out.append(fill("source: " + change["source"], "  "))
        out += [f"  {name}: {where}" for name, where in standing.items()]
        out.append("")
    return "\n".join(out).rstrip()
