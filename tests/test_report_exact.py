"""Each report format, byte for byte, on findings made by hand: what CI systems parse must not drift."""

import json

import pytest

from gengpu import reporting
from gengpu.findings import Finding, display, sort_findings

ERROR = Finding("profiles/a.yaml", 3, 7, "error", "mig-layout-invalid", "7 x 2g.10gb: too many", "use 3")
WARNING = Finding("profiles/a.yaml", 9, 0, "warning", "pool-unbounded", "no limits, 100%", "")
INFO = Finding("overlays/b/x.yaml", 0, 0, "info", "object-cel-not-evaluated", "celcheck missing", "install it")


def test_text():
    assert reporting.text([ERROR, WARNING, INFO]) == (
        "profiles/a.yaml:3:7: error mig-layout-invalid 7 x 2g.10gb: too many\n  fix: use 3\n"
        "profiles/a.yaml:9:0: warning pool-unbounded no limits, 100%\n"
        "overlays/b/x.yaml:0:0: info object-cel-not-evaluated celcheck missing\n  fix: install it")
    coloured = reporting.text([ERROR], color=True)
    assert coloured == ("profiles/a.yaml:3:7: \x1b[31m\x1b[1merror\x1b[0m mig-layout-invalid 7 x 2g.10gb: too many\n"
                        "\x1b[2m  fix: use 3\x1b[0m")


def test_a_value_of_thousands_of_characters_is_quoted_cut_to_its_ends():
    """A schema's message repeats the value it refuses; a hostile file's value of 5,000 characters is cut in every
    report, its quotes and what it is kept. A message of many words, however long, keeps every one."""
    long = Finding("a.yaml", 1, 1, "error", "object-schema", f"'spec.x': '{'a' * 4999}b' is not of type 'integer'")
    assert long.message == f"'spec.x': '{'a' * 59}…[4932 characters]…{'a' * 8}b' is not of type 'integer'"
    assert json.loads(reporting.as_json([long]))["findings"][0]["message"] == long.message
    edge = "x" * 199
    assert Finding("a.yaml", 1, 1, "error", "r", f"{edge} {edge}").message == f"{edge} {edge}"
    assert Finding("a.yaml", 1, 1, "error", "r", f"{edge}x {edge}").message == (
        f"{'x' * 60}…[130 characters]…{'x' * 10} {edge}")


def test_json_counts_every_severity():
    data = json.loads(reporting.as_json([ERROR, WARNING, INFO]))
    assert data["summary"] == {"error": 1, "warning": 1, "info": 1}
    assert data["findings"][1] == {"file": "profiles/a.yaml", "line": 9, "column": 0, "severity": "warning",
                                   "rule": "pool-unbounded", "message": "no limits, 100%", "fix": ""}
    assert json.loads(reporting.as_json([]))["summary"] == {"error": 0, "warning": 0, "info": 0}


def test_github_leaves_out_unknown_positions_and_escapes():
    assert reporting.github([ERROR, WARNING, INFO]).splitlines() == [
        "::error file=profiles/a.yaml,line=3,col=7,title=gengpu mig-layout-invalid::7 x 2g.10gb: too many%0Afix: use 3",
        "::warning file=profiles/a.yaml,line=9,title=gengpu pool-unbounded::no limits, 100%25",
        "::notice file=overlays/b/x.yaml,title=gengpu object-cel-not-evaluated::celcheck missing%0Afix: install it",
    ]


def test_sarif_regions_levels_and_rule_index():
    data = json.loads(reporting.sarif([ERROR, WARNING, INFO]))
    run = data["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == sorted(ids)
    results = run["results"]
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]) for r in results] == [
        ("mig-layout-invalid", "error", {"startLine": 3, "startColumn": 7}),
        ("pool-unbounded", "warning", {"startLine": 9}),
        ("object-cel-not-evaluated", "note", {"startLine": 1})]
    assert [ids[r["ruleIndex"]] for r in results] == [r["ruleId"] for r in results]
    assert results[0]["message"]["text"] == "7 x 2g.10gb: too many Fix: use 3"
    assert results[1]["message"]["text"] == "no limits, 100%"
    rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == "pool-unbounded")
    assert rule["defaultConfiguration"] == {"level": "warning"} and rule["properties"]["problem.severity"] == "warning"
    assert len({r["partialFingerprints"]["gengpu/v2"] for r in results}) == 3


def test_junit_fails_a_file_only_for_errors():
    out = reporting.junit([ERROR, WARNING, INFO])
    assert out.splitlines()[1:3] == [
        '<testsuites name="gengpu" tests="2" failures="1">',
        '  <testsuite name="gengpu validate" tests="2" failures="1" errors="0">']
    assert ('<failure message="1 error(s)" type="gengpu">profiles/a.yaml:3:7: error mig-layout-invalid 7 x 2g.10gb: '
            'too many\nprofiles/a.yaml:9:0: warning pool-unbounded no limits, 100%</failure>') in out
    assert "<system-out>overlays/b/x.yaml:0:0: info object-cel-not-evaluated celcheck missing</system-out>" in out


@pytest.mark.parametrize("findings,strict,code", [
    ([], False, 0), ([INFO], True, 0), ([WARNING], False, 0), ([WARNING], True, 1), ([ERROR], False, 1),
    ([INFO, ERROR], False, 1)])
def test_exit_code(findings, strict, code):
    assert reporting.exit_code(findings, strict) == code


def test_colour_follows_no_color_force_color_and_the_terminal(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert reporting.use_color(Tty()) is True and reporting.use_color(object()) is False
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert reporting.use_color(object()) is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert reporting.use_color(Tty()) is False


def test_findings_sort_by_place_and_drop_duplicates(tmp_path, monkeypatch):
    later = Finding("profiles/a.yaml", 3, 7, "error", "a-rule", "x")
    assert sort_findings([WARNING, ERROR, later, ERROR]) == [later, ERROR, WARNING]
    assert ERROR.is_error and not WARNING.is_error
    monkeypatch.chdir(tmp_path)
    assert display(tmp_path / "profiles" / "a.yaml") == "profiles/a.yaml"
    assert display(tmp_path.parent / "elsewhere.yaml") == (tmp_path.parent / "elsewhere.yaml").as_posix()
    assert display(tmp_path) == "."


def test_github_escapes_carriage_returns_and_percent_signs():
    odd = Finding("a,b:c.yaml", 1, 1, "error", "x", "50%\r\nnext", "")
    assert reporting.github([odd]) == "::error file=a%2Cb%3Ac.yaml,line=1,col=1,title=gengpu x::50%25%0D%0Anext"


def test_sarif_describes_known_and_unknown_rules_in_full(tmp_path, monkeypatch):
    from gengpu import __version__
    from gengpu.checking.rules import RULES

    monkeypatch.chdir(tmp_path)  # the fingerprint's path is relative to the repository gengpu runs in: none here

    custom = Finding("f.yaml", 2, 0, "error", "zz-custom", "made elsewhere", "")
    out = reporting.sarif([WARNING, custom])
    assert out.startswith('{\n  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",\n  "version": "2.1.0",')
    data = json.loads(out)
    driver = data["runs"][0]["tool"]["driver"]
    assert {k: v for k, v in driver.items() if k != "rules"} == {
        "name": "gengpu", "semanticVersion": __version__, "version": __version__,
        "informationUri": "https://github.com/gengpu/gengpu"}
    by_id = {r["id"]: r for r in driver["rules"]}
    assert set(by_id) == set(RULES) | {"zz-custom"}
    rule = RULES["pool-unbounded"]
    assert by_id["pool-unbounded"] == {
        "id": "pool-unbounded", "name": "pool-unbounded", "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.explanation},
        "help": {"text": f"{rule.fix}\n\nSource: {rule.source}", "markdown": f"{rule.fix}\n\n*Source: {rule.source}*"},
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["gpu", "kubernetes"], "problem.severity": "warning"}}
    assert by_id["zz-custom"] == {
        "id": "zz-custom", "name": "zz-custom", "shortDescription": {"text": "zz-custom"},
        "fullDescription": {"text": "zz-custom"}, "help": {"text": "zz-custom", "markdown": "zz-custom"},
        "defaultConfiguration": {"level": "error"}, "properties": {"tags": ["gpu", "kubernetes"],
                                                                     "problem.severity": "error"}}
    result = data["runs"][0]["results"][1]
    assert result == {
        "ruleId": "zz-custom", "ruleIndex": sorted(by_id).index("zz-custom"), "level": "error",
        "message": {"text": "made elsewhere"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "f.yaml"}, "region": {"startLine": 2}}}],
        # rule, repository path, object (none: not a YAML object) and message without positions: the baseline's
        "partialFingerprints": {"gengpu/v2": __import__("hashlib").sha256(b"zz-custom\0f.yaml\0\0made elsewhere")
                                .hexdigest()[:32]}}


def test_junit_in_full():
    assert reporting.junit([ERROR, INFO]) == "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="gengpu" tests="2" failures="1">',
        '  <testsuite name="gengpu validate" tests="2" failures="1" errors="0">',
        '    <testcase classname="gengpu" name="profiles/a.yaml">',
        '      <failure message="1 error(s)" type="gengpu">profiles/a.yaml:3:7: error mig-layout-invalid 7 x 2g.10gb: '
        'too many</failure>',
        '    </testcase>',
        '    <testcase classname="gengpu" name="overlays/b/x.yaml">',
        '      <system-out>overlays/b/x.yaml:0:0: info object-cel-not-evaluated celcheck missing</system-out>',
        '    </testcase>',
        '  </testsuite>',
        '</testsuites>'])
    assert reporting.junit([Finding("<&>.yaml", 1, 1, "error", "r", "a < b & c")]).splitlines()[3:5] == [
        '    <testcase classname="gengpu" name="&lt;&amp;&gt;.yaml">',
        '      <failure message="1 error(s)" type="gengpu">&lt;&amp;&gt;.yaml:1:1: error r a &lt; b &amp; c</failure>']


def test_sarif_passes_the_oasis_sarif_2_1_0_schema():
    """Against the OASIS SARIF 2.1.0 schema (errata01), vendored from oasis-tcs/sarif-spec (schemas/upstream/
    SOURCES.yaml): every severity, a rule gengpu does not know, a finding without a position and hostile text."""
    import gzip
    from pathlib import Path

    import jsonschema

    raw = (Path(__file__).resolve().parent.parent / "schemas" / "upstream" / "oasis-tcs" / "sarif-spec" /
           "sarif-2.1" / "schema" / "sarif-schema-2.1.0.json.gz").read_bytes()
    schema = json.loads(gzip.decompress(raw))
    hostile = Finding("overlays/b/x.yaml", 2, 1, "warning", "node-gpu-condition", "reason \x1b]0;owned\x07\u202e\nok", "")
    custom = Finding("profiles/a.yaml", 1, 1, "error", "my-own-rule", "from a plugin", "")
    log = json.loads(reporting.sarif([ERROR, WARNING, INFO, hostile, custom]))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    assert [e.message for e in validator.iter_errors(log)] == []
    assert len(log["runs"][0]["results"]) == 5
    # the schema is strict enough to catch a broken log
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert [e.message for e in validator.iter_errors(log)] != []
