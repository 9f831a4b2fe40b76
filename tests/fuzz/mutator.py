"""Deterministic mutations of gengpu's inputs: case N is the same file on every machine and every run.

Seeds are the example profiles, the example overlays' manifests, the broken
configs of tests/fixtures and the real-world files of tests/corpus. A case applies one to three mutations, on the data
(values of other types, hostile strings, deleted or unknown keys, other enum
values, suppressed rules) or on the text (tags, merge keys, aliases, tabs,
encodings, truncation, junk documents).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

HOSTILE = ["rg$(touch x)", "c;touch x;", "a\nb", "`id`", "'; rm -rf / #", "x" * 5000, "Über", "", " ", "-1",
           "../../etc/passwd", "${HOME}", "a b", "\t", "nvidia.com/gpu", "1.30", "yes", "null", "~", "*", "&a",
           "\u2028", "\x00", "💥", "{{ .Values }}", "---"]
SCALARS = [0, 1, -1, 2, 8, 48, 49, 1000, 2**63, -(2**63), 1.5, 0.5, 1e308, True, False, None]


@dataclass(frozen=True)
class Case:
    number: int
    seed: str  # seed file, relative to the repository
    kind: str  # profile | manifest
    mutations: tuple[str, ...]
    content: bytes

    @property
    def name(self) -> str:
        return f"case-{self.number}.yaml"


@lru_cache(maxsize=1)
def seeds() -> list[tuple[str, str, str]]:
    """(path, kind, text) of every seed, in a fixed order."""
    out = [(p, "profile") for p in sorted((ROOT / "profiles").glob("*.yaml"))]
    out += [(p, "profile") for p in sorted((ROOT / "tests" / "fixtures" / "profiles").glob("*.yaml"))]
    out += [(p, "manifest") for p in sorted((ROOT / "overlays").rglob("*.yaml"))
            if not p.name.startswith(("kustomization", "gengpu-cluster"))]
    out += [(p, "manifest") for p in sorted((ROOT / "tests" / "fixtures" / "upstream").rglob("*.yaml"))]
    out += [(p, "manifest") for p in sorted((ROOT / "tests" / "corpus").rglob("*.y*ml")) if p.name != "corpus.yaml"]
    return [(p.relative_to(ROOT).as_posix(), kind, p.read_text(encoding="utf-8")) for p, kind in out]


@lru_cache(maxsize=1)
def _vocabulary() -> dict:
    from gengpu import catalog
    from gengpu.checking.rules import RULES

    schema = json.loads((ROOT / "schemas" / "profile.schema.json").read_text(encoding="utf-8"))
    enums: set = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            enums.update(v for v in node.get("enum", []) if isinstance(v, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    gpus = sorted(catalog.gpus())
    mig = sorted({p for g in catalog.gpus().values() for p in (g.get("mig") or {}).get("profiles", {})})
    types = sorted({t for p in ("eks", "gke", "aks") for t in _instance_types(catalog, p)})
    return {"enums": sorted(enums), "gpus": gpus + ["Z9", "a100", "h100"], "mig": mig + ["9g.1gb", "1g.5gb+me"],
            "types": types + ["g9.huge", "Standard_X"], "rules": sorted(RULES)}


def _instance_types(catalog, platform):
    clouds = catalog.clouds()
    if platform == "eks":
        fams = clouds["eks"]["families"]
        return [*fams, *(f"{f}.{s}" for f, spec in fams.items() for s in spec["sizes"])]
    if platform == "gke":
        return list(clouds["gke"]["machineTypes"])
    return list(clouds["aks"]["vmSizes"])


def _paths(data, limit: int = 40, most: int = 5000):
    """Paths to the values of plain data, in document order, down to a depth limit (aliases make it a graph)."""
    out, stack = [], [((), data)]
    while stack and len(out) < most:
        prefix, node = stack.pop()
        out.append(prefix)
        if len(prefix) >= limit:
            continue
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend(reversed([(prefix + (k,), v) for k, v in children]))
    return out


def _get(data, path):
    for part in path:
        data = data[part]
    return data


def _set(data, path, value):
    _get(data, path[:-1])[path[-1]] = value


def _value(rng: random.Random, current):
    vocab = _vocabulary()
    pools = [HOSTILE, SCALARS, vocab["enums"], vocab["gpus"], vocab["mig"], vocab["types"]]
    choice = rng.randrange(10)
    if choice == 0:
        return [rng.choice(SCALARS + HOSTILE) for _ in range(rng.randrange(3))]
    if choice == 1:
        return {rng.choice(["a", "mode", "replicas", "name", "<<"]): rng.choice(SCALARS + HOSTILE)}
    if choice == 2 and isinstance(current, int) and not isinstance(current, bool):
        return current + rng.choice([-current - 1, -1, 1, 100, 10**6])
    return rng.choice(rng.choice(pools))


def _data_mutation(rng: random.Random, data, kind: str) -> str:
    paths = [p for p in _paths(data) if p]
    if not paths:
        return "no paths"
    path = rng.choice(paths)
    parent = _get(data, path[:-1])
    op = rng.randrange(9)
    if op <= 2:
        _set(data, path, _value(rng, _get(data, path)))
        return f"set {'.'.join(map(str, path))}"
    if op == 3 and isinstance(parent, dict):
        del parent[path[-1]]
        return f"delete {'.'.join(map(str, path))}"
    if op == 4 and isinstance(parent, dict):
        key = str(path[-1])
        typo = key[:-1] if len(key) > 1 and rng.random() < 0.5 else key + "s"
        parent[typo] = parent.pop(path[-1])
        return f"rename {'.'.join(map(str, path))} -> {typo}"
    if op == 5 and isinstance(parent, list):
        parent.append(parent[path[-1]])
        return f"repeat {'.'.join(map(str, path))}"
    if op == 6 and kind == "profile" and isinstance(data, dict) and isinstance(data.get("spec"), dict):
        rule = rng.choice(_vocabulary()["rules"])
        data["spec"].setdefault("suppress", [])
        if isinstance(data["spec"]["suppress"], list):
            data["spec"]["suppress"].append({"rule": rule, "reason": "fuzz"})
        return f"suppress {rule}"
    if op == 7 and isinstance(_get(data, path), str):
        vocab = _vocabulary()
        _set(data, path, rng.choice(vocab["enums"] + vocab["gpus"] + vocab["mig"] + vocab["types"]))
        return f"swap {'.'.join(map(str, path))}"
    if op == 8 and isinstance(parent, dict):
        parent[rng.choice(["verify", "gpusPerNode", "sharing", "limits", "zones", "labels", "taints"])] = \
            _value(rng, None) if rng.random() < 0.5 else True
        return f"add key under {'.'.join(map(str, path[:-1])) or '(top)'}"
    _set(data, path, _value(rng, _get(data, path)))
    return f"set {'.'.join(map(str, path))}"


def _bomb(depth: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, depth):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def _text_mutation(rng: random.Random, text: str) -> tuple[str, str | bytes]:
    lines = text.splitlines(keepends=True) or ["\n"]
    i = rng.randrange(len(lines))
    op = rng.randrange(16)
    line = lines[i]
    indent = line[:len(line) - len(line.lstrip())]
    if op == 0:
        return "truncate", text[:rng.randrange(len(text) + 1)]
    if op == 1:
        del lines[i]
        return f"delete line {i + 1}", "".join(lines)
    if op == 2:
        lines.insert(i, line)
        return f"repeat line {i + 1}", "".join(lines)
    if op == 3:
        lines[i] = line.replace("  ", "\t", 1)
        return f"tab on line {i + 1}", "".join(lines)
    if op == 4 and ":" in line:
        key, _, value = line.partition(":")
        tag = rng.choice(["!!int abc", "!!float x", "!!bool maybe", "!!null x", "!!binary aGVsbG8=", "!custom v",
                          "!!str", "!!map", "!!seq", "!!timestamp no", "!!set"])
        lines[i] = f"{key}: {tag}{value if tag in ('!!str', '!!map', '!!seq') else ''}"
        if not lines[i].endswith("\n"):
            lines[i] += "\n"
        return f"tag {tag} on line {i + 1}", "".join(lines)
    if op == 5 and ":" in line and line.strip().endswith(":") is False:
        key = line.split(":")[0].strip().lstrip("- ")
        return f"merge key at line {i + 1}", "".join(
            lines[:i] + [f"{indent}<<: {rng.choice(['{' + key + ': 1}', '[1, 2]', '*nope', 'x', '[{a: 1}, {b: 2}]'])}\n"]
            + lines[i:])
    if op == 6:
        return "junk document after", text + "---\n" + rng.choice(["- 1\n", "junk\n", "{a: b}\n", "kind: [x]\n",
                                                                    "apiVersion: v1\nkind: Pod\n", "~\n"])
    if op == 7:
        return "alias bomb", text + _bomb(rng.randrange(3, 10))
    if op == 8:
        depth = rng.choice([50, 99, 101, 250, 1200])
        return f"nested {depth}", text + "deep: " + "[" * depth + "]" * depth + "\n"
    if op == 9:
        return "utf-16", ("\ufeff" + text).encode("utf-16-le")
    if op == 10:
        raw = text.encode("utf-8")
        at = rng.randrange(len(raw) + 1)
        return "invalid utf-8", raw[:at] + b"\xff\xfe" + raw[at:]
    if op == 11:
        return "comment only", "".join("# " + ln for ln in lines)
    if op == 12:
        return "empty", rng.choice(["", "\n", "---\n", "~\n", "[]\n", "{}\n", "0\n"])
    if op == 13:
        lines[i] = indent + " " + line.lstrip()
        return f"indent line {i + 1}", "".join(lines)
    if op == 14:
        return "anchor reuse", text.replace(":", ": &x", 1) + "again: *x\n"
    lines.insert(i, indent + rng.choice(["? [a, b]\n  : c\n", "key: 'unterminated\n", "a: b: c\n", "- x\n",
                                         "\x00\n", "k: \"\\uD800\"\n", "%TAG ! tag:x,2000:\n"]))
    return f"insert at line {i + 1}", "".join(lines)


def case(number: int) -> Case:
    """Case `number`: a seed and its mutations, from a generator seeded with the number alone."""
    rng = random.Random(number)
    kind = rng.choice(["profile", "manifest"])  # half of the cases are profiles, though seeds are fewer
    path, kind, text = rng.choice([s for s in seeds() if s[1] == kind])
    mutations = []
    content: str | bytes = text
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if isinstance(content, bytes):
            break
        if rng.random() < 0.55:
            try:
                docs = list(yaml.load_all(content, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
            except Exception:  # noqa: BLE001  (whatever PyYAML makes of a mutated text, mutate the text)
                docs = []
            if docs and all(d is not None for d in docs):
                target = rng.randrange(len(docs))
                mutations.append(_data_mutation(rng, docs[target], kind))
                try:
                    content = yaml.dump_all(docs, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                                            sort_keys=False, allow_unicode=True)
                except (yaml.YAMLError, RecursionError, ValueError):
                    mutations.append("(not representable)")
                continue
        what, content = _text_mutation(rng, content)
        mutations.append(what)
    data = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
    return Case(number, path, kind, tuple(mutations), data)
