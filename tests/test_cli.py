"""The CLI surface: version, schema, start-up cost, help text."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from gengpu import __version__
from gengpu.cli import main

REPO = Path(__file__).resolve().parent.parent


def test_version(run):
    result = run("--version")
    assert result.output == f"gengpu, version {__version__}\n"


def test_schema_is_the_committed_file_and_valid_2020_12(run):
    result = run("schema")
    assert result.exit_code == 0
    assert result.output == (REPO / "schemas" / "profile.schema.json").read_text()
    schema = json.loads(result.output)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("profile", sorted((REPO / "profiles").glob("*.yaml")), ids=lambda p: p.stem)
def test_example_profiles_match_the_printed_schema_and_carry_the_modeline(profile):
    schema = json.loads((REPO / "schemas" / "profile.schema.json").read_text())
    text = profile.read_text()
    assert text.startswith("# yaml-language-server: $schema=../schemas/profile.schema.json\n")
    assert list(Draft202012Validator(schema).iter_errors(yaml.safe_load(text))) == []


def test_start_up_imports_no_heavy_module():
    code = ("import sys; from gengpu.cli import main; "
            "print(sorted(m for m in ('jsonschema', 'ruamel.yaml', 'yaml', 'referencing') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "[]\n"


def _schema_fields(node, prefix, defs, out):
    if "$ref" in node:
        node = defs[node["$ref"].split("/")[-1]]
    for key, sub in node.get("properties", {}).items():
        path = f"{prefix}.{key}" if prefix else key
        out.add(path)
        if "items" in sub:
            item = sub["items"]
            _schema_fields(item, path + "[]", defs, out)
        _schema_fields(sub, path, defs, out)
    return out


def test_readme_documents_every_profile_field():
    schema = json.loads((REPO / "schemas" / "profile.schema.json").read_text())
    fields = _schema_fields(schema, "", schema["$defs"], set())
    readme = (REPO / "docs" / "profile.md").read_text()
    documented = set()
    for first, rest in re.findall(r"^\| `([^`]+)`((?: / `[^`]+`)*)", readme, flags=re.M):
        documented.add(first)
        base = first.rsplit(".", 1)[0]
        documented.update(f"{base}{suffix}" for suffix in re.findall(r"`(\.[^`]+)`", rest))
    missing = sorted(f for f in fields if f not in documented and not any(
        d.startswith(f + ".") or d.startswith(f + "[]") for d in documented))
    assert missing == []


def test_help_lists_every_command(run):
    out = run("--help").output
    for command in ("build", "validate", "schema"):
        assert re.search(rf"^  {command}\s", out, flags=re.M), command


@pytest.mark.parametrize("args", [["rules"], ["mig", "layouts", "A100-40GB"], ["catalog", "gpus"]])
def test_a_reader_that_goes_away_ends_gengpu_quietly(args):
    gengpu = Path(sys.executable).parent / "gengpu"
    proc = subprocess.Popen([gengpu, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # as `| head` does once it has what it wants
    _, err = proc.communicate()
    assert (proc.returncode, err) == (141, b"")


def test_the_shell_completes_rule_ids_and_gpu_models():
    """What `eval "$(_GENGPU_COMPLETE=bash_source gengpu)"` gives a shell, asked the way bash asks."""
    import subprocess
    import sys

    def complete(words, cword):
        env = {**os.environ, "COMP_WORDS": words, "COMP_CWORD": str(cword), "_GENGPU_COMPLETE": "bash_complete"}
        script = Path(sys.executable).parent / "gengpu"  # the console script pip installed
        out = subprocess.run([str(script)], env=env, capture_output=True, text=True).stdout
        return [line.split(",", 1)[1] for line in out.splitlines()]

    assert complete("gengpu explain mig-l", 2) == ["mig-layout-invalid", "mig-layout-not-checked"]
    assert complete("gengpu mig layouts h100", 3) == ["H100-80GB", "H100-94GB"]
    assert complete("gengpu init --gpu B2", 3) == ["B200-180GB"]


def test_validate_reads_a_manifest_from_stdin(run, tmp_path, monkeypatch):
    """`-` is standard input, reported as <stdin> with its own lines."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: cuda\n"
           "    resources:\n      limits:\n        nvidia.com/gpus: 1\n")
    monkeypatch.chdir(tmp_path)
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["validate", "-", "--output", "json"], input=pod, catch_exceptions=False)
    found = [(f["file"], f["line"], f["rule"]) for f in json.loads(result.output)["findings"]]
    assert found == [("<stdin>", 10, "gpu-resource-name-unknown")]


def test_init_leaves_the_replicas_limit_to_the_rules_and_writes_nothing(run, tmp_path):
    """The CLI does not repeat the MPS client limit: init builds the profile, the rule refuses it with its
    message, and nothing is written."""
    result = run("init", str(tmp_path / "gitops"), "--platform", "eks", "--gpu", "L4", "--sharing", "mps",
                 "--replicas", "60")
    assert result.exit_code == 2
    assert ("/gitops/profiles/gitops.yaml:26:17: error mps-replicas-over-limit nodePools[0].sharing.replicas is 60; MPS on "
            "L4 allows at most 48 clients per GPU") in result.output
    assert "the profile these choices make does not pass gengpu's checks; nothing was written" in result.output
    assert not (tmp_path / "gitops").exists()
