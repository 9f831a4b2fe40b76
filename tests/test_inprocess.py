"""gengpu renders its own overlays without kustomize: the result must be what `kustomize build` gives, resource for
resource, on every example and on a generated fleet. And the schema engine must give the same verdict as kubeconform
on every resource of a committed corpus of broken overlays."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

import fleetgen
from gengpu.checking.objects import Schemas, schema_errors, without_nulls
from gengpu.rendering import render

REPO = Path(__file__).resolve().parent.parent
KUSTOMIZE = REPO / "bin" / "kustomize"
MUTATED = Path(__file__).resolve().parent / "fixtures" / "mutated-overlays"


def _key(obj: dict) -> tuple:
    meta = obj.get("metadata") or {}
    return obj.get("kind"), meta.get("namespace"), meta.get("name")


def _kustomize(overlay: Path) -> dict:
    out = subprocess.run([str(KUSTOMIZE), "build", str(overlay)], capture_output=True, text=True, check=True).stdout
    return {_key(d): d for d in yaml.safe_load_all(out) if d}


def _ours(overlay: Path) -> dict:
    resources, findings, inprocess = render.render(overlay, overlay.name, render.Files())
    assert inprocess and findings == []
    # through YAML text, as kustomize's side is: the comparison is of what a consumer reads
    return {_key(r.data): yaml.safe_load(yaml.safe_dump(r.data)) for r in resources}


MAIN = sorted(p.parent for p in (REPO / "overlays").glob("*/kustomization.yaml"))


@pytest.mark.parametrize("overlay", MAIN, ids=lambda p: p.name)
def test_inprocess_render_equals_kustomize_on_the_examples(overlay):
    ours, theirs = _ours(overlay), _kustomize(overlay)
    assert sorted(ours, key=str) == sorted(theirs, key=str)
    for key in theirs:
        assert ours[key] == theirs[key], key


def test_inprocess_render_equals_kustomize_on_a_generated_fleet(tmp_path, run, monkeypatch):
    fleetgen.write(24, tmp_path)
    monkeypatch.chdir(tmp_path)
    assert run("build").exit_code == 0
    overlays = sorted(p.parent for p in (tmp_path / "overlays").glob("*/kustomization.yaml"))
    assert len(overlays) == 24
    for overlay in overlays:
        assert _ours(overlay) == _kustomize(overlay), overlay.name


def test_an_overlay_with_a_local_component_goes_to_kustomize(repo):
    overlay = repo / "overlays" / "eks-l4-mps"
    (overlay / "local").mkdir()
    (overlay / "local" / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations: {team: ml}\n")
    k = overlay / "kustomization.yaml"
    k.write_text(k.read_text() + "components:\n- local\n")
    resources, findings, inprocess = render.render(overlay, "overlays/eks-l4-mps", render.Files())
    assert not inprocess and findings == []
    assert all(r.data["metadata"]["annotations"]["team"] == "ml" for r in resources)


def _kubeconform(stream: Path, version: str) -> dict:
    from gengpu.rendering import k8s_schemas
    from gengpu.schemas_dir import schemas_path

    local = k8s_schemas.schema_dir(version)
    proc = subprocess.run([
        str(REPO / "bin" / "kubeconform"), "-kubernetes-version", f"{version}.0", "-strict", "-verbose", "-output",
        "json",
        "-schema-location", str(local.parent / "{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}"
                                / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        "-schema-location", str(schemas_path() / "crds" / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        "-schema-location", str(schemas_path() / "documented" / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        str(stream)], capture_output=True, text=True)
    return {(r["kind"], r["name"]): r["status"] for r in json.loads(proc.stdout)["resources"]}


def test_the_engine_and_kubeconform_agree_on_every_resource_of_the_mutated_overlays(tmp_path):
    cases = sorted(p for p in MUTATED.iterdir() if p.is_dir())
    assert len(cases) >= 10
    invalid = total = 0
    for case in cases:
        stream = tmp_path / f"{case.name}.yaml"
        stream.write_text(subprocess.run([str(KUSTOMIZE), "build", str(case)], capture_output=True, text=True,
                                         check=True).stdout)
        theirs = _kubeconform(stream, "1.33")
        schemas = Schemas("1.33")
        for doc in yaml.safe_load_all(stream.read_text()):
            if not doc:
                continue
            group, _, version = doc["apiVersion"].rpartition("/")
            validator = schemas.validator(group, version, doc["kind"])
            ours = "statusError" if validator is None else (
                "statusInvalid" if schema_errors(validator, without_nulls(doc)) else "statusValid")
            key = (doc["kind"], doc["metadata"]["name"])
            assert ours == theirs[key], f"{case.name}: {key}"
            total += 1
            invalid += ours != "statusValid"
    assert total > 50 and invalid >= 10, (total, invalid)


def test_the_mutated_overlays_are_what_their_script_makes(tmp_path):
    """tests/fixtures/mutated-overlays is committed output of its make.py: rerunning it changes nothing."""
    shutil.copytree(MUTATED, tmp_path / "m")
    subprocess.run(["python3", str(MUTATED / "make.py"), str(tmp_path / "m")], check=True, cwd=REPO)
    for path in sorted(MUTATED.rglob("*")):
        if path.is_file():
            assert (tmp_path / "m" / path.relative_to(MUTATED)).read_bytes() == path.read_bytes(), path
