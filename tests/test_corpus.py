"""gengpu on the files teams already have: the real-world corpus of tests/corpus, judged against verdicts decided
from upstream before gengpu ran on them (tests/corpus/corpus.yaml). Where NVIDIA's own parsers can judge a config
in a corpus file, the upstream harness (tests/upstream) judges it too."""

from pathlib import Path

import pytest
import yaml

from gengpu.pipeline import validate as pipeline
from gengpu.checking.subjects import classify
from gengpu.checking.targets import DEVICE_PLUGIN_CONFIG, MIG_PARTED_CONFIG
from gengpu.loading import load_file

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
ENTRIES = yaml.safe_load((CORPUS / "corpus.yaml").read_text())["files"]
# Rules that hold a config to what NVIDIA's parsers refuse (the harness must refuse it too).
PARSER_RULES = {"device-plugin-config-schema", "mig-parted-config-schema", "sharing-replicas-too-low"}


def judge(entry: dict, monkeypatch) -> tuple[bool, list[str]]:
    """Whether gengpu judges the file as upstream does, and what differs."""
    monkeypatch.chdir(CORPUS)
    # `with`: files that go with it in its repository (a counters file its alerts read), checked in the same run;
    # only the entry's own findings are judged
    result = pipeline.validate([entry["file"], *entry.get("with", [])])
    findings = [f for f in result.findings if f.file == entry["file"]]
    problems = []
    errors = [f for f in findings if f.is_error]
    got = {(f.rule, f.line) for f in findings}
    for want in entry.get("expect", []):
        if not any(rule == want["rule"] and (want["line"] is None or line == want["line"]) for rule, line in got):
            problems.append(f"expected {want['rule']} at line {want['line']} ({want['why']})")
    problems += [f"{f.rule} at {f.line}: {f.message}, where upstream says it does not apply"
                 for f in findings if f.rule in entry.get("absent", [])]
    if entry["verdict"] == "valid":
        problems += [f"false alarm: {f.rule} at {f.line}:{f.column}: {f.message}" for f in errors]
    elif not errors:
        problems.append("no error on a file upstream refuses")
    unparsable = any(w["rule"] == "yaml-syntax" for w in entry.get("expect", []))  # nothing to recognise in it
    # an object of a kind no API serves is said to be so (api-version-removed, kind-not-served): its GPU content is
    # moot, and saying so is recognising it
    refused = any(f.rule in ("api-version-removed", "kind-not-served") for f in findings)
    if entry["gpu"] and not unparsable and not refused:
        kinds = {line.split(": ")[1].split(" ")[0] for line in result.recognition
                 if ": not recognised" not in line and line.startswith(entry["file"] + ":")}
        if not kinds - {"object"}:
            problems.append(f"not recognised as GPU-related ({'; '.join(result.recognition) or 'nothing'})")
    return not problems, problems


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_corpus_file_is_judged_as_upstream_judges_it(entry, monkeypatch):
    ok, problems = judge(entry, monkeypatch)
    assert ok, "\n".join(problems)


def test_corpus_agreement_figure(monkeypatch, capsys):
    """The figure the README and closing notes quote; every file must agree."""
    wrong = {}
    for entry in ENTRIES:
        ok, problems = judge(entry, monkeypatch)
        if not ok:
            wrong[entry["file"]] = problems
    n = len(ENTRIES)
    invalid = sum(e["verdict"] == "invalid" for e in ENTRIES)
    sources = {e["source"].get("repo") or e["source"]["url"].split("/issues/")[0].split("/pull/")[0] for e in ENTRIES}
    with capsys.disabled():
        print(f"\ncorpus: {n - len(wrong)}/{n} files judged as upstream judges them ({100 * (n - len(wrong)) / n:.1f}%); "
              f"{invalid} broken, {n - invalid} shipped as correct, from {len(sources)} upstream sources")
    assert wrong == {}


def test_the_corpus_is_big_and_sourced():
    repos = {e["source"].get("repo") or e["source"]["url"].split("/issues/")[0].split("/pull/")[0] for e in ENTRIES}
    assert len(ENTRIES) >= 80 and len(repos) >= 10
    for e in ENTRIES:
        assert (CORPUS / e["file"]).is_file(), e["file"]
        source = e["source"]
        assert ("repo" in source and "path" in source and len(source.get("commit") or "") == 40) or \
            source.get("url", "").startswith("https://github.com/"), e["file"]
        assert e["verdict"] in ("valid", "invalid") and e["reason"]
        assert e["verdict"] == "valid" or e.get("expect"), f"{e['file']}: a broken file names what must be found"


def _configs():
    """(corpus entry, label, config kind, text, first line, last line) of every device-plugin and mig-parted
    config in the corpus, with the lines it spans in its file."""
    out = []
    for entry in ENTRIES:
        docs, _ = load_file(CORPUS / entry["file"], entry["file"])
        for doc in docs:
            for s in classify(doc)[0]:
                if s.kind in (DEVICE_PLUGIN_CONFIG, MIG_PARTED_CONFIG):
                    first = s.doc.line_shift + 1
                    out.append((entry, s.label, s.kind, s.doc.text, first, first + s.doc.text.count("\n")))
    return out


def test_nvidias_parsers_agree_with_the_corpus_verdicts(harness, tmp_path):
    configs = _configs()
    assert len(configs) >= 20
    kinds = {DEVICE_PLUGIN_CONFIG: "device-plugin", MIG_PARTED_CONFIG: "mig-parted"}
    disagree = []
    for i, (entry, label, kind, text, first, last) in enumerate(configs):
        path = tmp_path / f"{i}.yaml"
        path.write_text(text)
        verdict = harness(kinds[kind], [path])[path.name]
        # The corpus expects a parser-level error in this config: NVIDIA's parser must refuse it; otherwise accept it
        # (gengpu's stricter rules, such as unknown keys the plugin ignores, do not count).
        must_fail = any(w["rule"] in PARSER_RULES and first <= w["line"] <= last for w in entry.get("expect", []))
        if must_fail != (not verdict["valid"]):
            disagree.append(f"{entry['file']} {label} (lines {first}-{last}): upstream says {verdict}")
    assert disagree == []
