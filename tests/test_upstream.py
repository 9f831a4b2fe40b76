"""gengpu's verdicts agree with NVIDIA's own parsers, run for real.

A small Go harness (tests/upstream) links k8s-device-plugin's api/config/v1 and
mig-parted's api/spec/v1 at the versions pinned in its go.mod, and parses each
config the way the plugin and mig-parted do. Wherever upstream refuses a config,
gengpu must report an error; wherever upstream accepts one, gengpu must not,
unless tests/fixtures/upstream/stricter.yaml names the documented rule that
refuses it on purpose.
"""

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from gengpu.loading import load_embedded, load_file

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "fixtures" / "upstream"
STRICTER = yaml.safe_load((CORPUS / "stricter.yaml").read_text())
KINDS = {"device-plugin": "device-plugin-config", "mig-parted": "mig-parted-config"}


def gengpu_errors(run, kind, files):
    result = run("validate", "--kind", KINDS[kind], "--output", "json", *files)
    assert result.exit_code in (0, 1), result.output
    errors = {}
    for f in json.loads(result.output)["findings"]:
        if f["severity"] == "error":
            errors.setdefault(Path(f["file"]).name, set()).add(f["rule"])
    return errors


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_verdicts_agree_on_the_corpus(harness, run, kind):
    files = sorted((CORPUS / kind).glob("*.yaml"))
    upstream = harness(kind, files)
    ours = gengpu_errors(run, kind, files)
    for path in files:
        name, stem = path.name, path.stem
        verdict = upstream[name]
        if not verdict["valid"]:
            assert ours.get(name), f"{name}: upstream refuses it ({verdict['error']}) but gengpu finds no error"
        elif stem in STRICTER[kind]:
            assert ours.get(name) == set(STRICTER[kind][stem]), f"{name}: expected {STRICTER[kind][stem]}"
        else:
            assert not ours.get(name), f"{name}: upstream accepts it but gengpu reports {ours.get(name)}"
        # The corpus is labelled: bad-* upstream refuses, ok-* and strict-* it accepts.
        assert verdict["valid"] == (not stem.startswith("bad-")), f"{name}: {verdict}"


def test_corpus_is_big_enough():
    bad = [p for k in KINDS for p in (CORPUS / k).glob("bad-*.yaml")]
    assert len(bad) >= 40
    for kind, cases in STRICTER.items():
        for stem in cases:
            assert (CORPUS / kind / f"{stem}.yaml").is_file(), stem


def test_every_generated_config_is_accepted_by_upstream_and_by_gengpu(harness, run, tmp_path):
    """Each device-plugin key and mig-parted config.yaml of every committed overlay."""
    written = {"device-plugin": [], "mig-parted": []}
    for cm in sorted((HERE.parent / "overlays").glob("*/*-config.yaml")):
        docs, _ = load_file(cm)
        for key in docs[0].data["data"]:
            inner, _ = load_embedded(docs[0], ("data", key))
            kind = "mig-parted" if "mig-configs" in inner[0].data else "device-plugin"
            out = tmp_path / kind / f"{cm.parent.name}--{key}.yaml"
            out.parent.mkdir(exist_ok=True)
            out.write_text(docs[0].data["data"][key])
            written[kind].append(out)
    # six overlays with the operator, each with a default key and one key per device-plugin pool (gke-dra's pools
    # use DRA and have none); two MIG overlays (eks-h100-mig, and gke-dra's MIG manager config)
    assert (len(written["device-plugin"]), len(written["mig-parted"])) == (11, 2)
    for kind, files in written.items():
        upstream = harness(kind, files)
        assert [n for n, v in upstream.items() if not v["valid"]] == []
        assert gengpu_errors(run, kind, files) == {}


def _merge(base, patch):
    """How the ApplicationSet controller applies templatePatch: maps merge, lists are replaced."""
    if isinstance(base, dict) and isinstance(patch, dict):
        return {**base, **{k: _merge(base.get(k), v) for k, v in patch.items()}}
    return patch


def test_the_fleet_applicationset_generates_the_same_applications(harness, tmp_path, monkeypatch):
    """Render the ApplicationSet's template with Go's text/template for every overlay's parameter file."""
    repo = HERE.parent
    monkeypatch.chdir(repo)
    appset = yaml.safe_load((repo / "argocd" / "applicationset.yaml").read_text())["spec"]
    params = sorted(Path("overlays").glob("*/gengpu-cluster.yaml"))
    assert len(params) == len(list(Path("profiles").glob("*.yaml")))
    (tmp_path / "template").write_text(yaml.safe_dump(appset["template"]))
    (tmp_path / "patch").write_text(appset["templatePatch"])
    render = lambda name: json.loads(subprocess.run(  # noqa: E731
        [str(harness.binary), "appset-patch", str(tmp_path / name), *map(str, params)],
        capture_output=True, text=True, check=True).stdout)
    templates, patches = render("template"), render("patch")
    for param in params:
        generated = _merge(yaml.safe_load(templates[str(param)]), yaml.safe_load(patches[str(param)]))
        written = yaml.safe_load((repo / "argocd" / "applications" / f"{param.parent.name}.yaml").read_text())
        assert generated["spec"] == written["spec"], param
        assert generated["metadata"]["name"] == written["metadata"]["name"]
        assert generated["metadata"]["labels"] == written["metadata"]["labels"]


def test_argo_cd_objects_point_at_what_exists():
    repo = HERE.parent
    for app_file in sorted((repo / "argocd" / "applications").glob("*.yaml")):
        app = yaml.safe_load(app_file.read_text())
        if app["kind"] != "Application":
            continue
        for source in app["spec"]["sources"]:
            if "path" in source and source["repoURL"] == "https://github.com/example/gpu-gitops.git":
                assert (repo / source["path"] / "kustomization.yaml").is_file(), source
            for values in source.get("helm", {}).get("valueFiles", []):
                assert (repo / values.removeprefix("$values/")).is_file(), values
    root = yaml.safe_load((repo / "argocd" / "root-application.yaml").read_text())
    assert (repo / root["spec"]["source"]["path"] / "kustomization.yaml").is_file()
    listed = yaml.safe_load((repo / "argocd" / "applications" / "kustomization.yaml").read_text())["resources"]
    assert listed == sorted(p.name for p in (repo / "argocd" / "applications").glob("*.yaml")
                            if p.name != "kustomization.yaml")


def test_verification_workloads_pass_pod_security_restricted(harness, tmp_path):
    """Kubernetes' own Pod Security admission code, restricted level, on every rendered verify overlay."""
    kustomize = HERE.parent / "bin" / "kustomize"
    rendered = []
    for overlay in sorted((HERE.parent / "overlays").glob("*/verify/*")):
        out = tmp_path / f"{overlay.parent.parent.name}-{overlay.name}.yaml"
        out.write_text(subprocess.run([str(kustomize), "build", str(overlay)], capture_output=True, text=True,
                                      check=True).stdout)
        docs = list(yaml.safe_load_all(out.read_text()))
        namespace, = [d for d in docs if d["kind"] == "Namespace"]
        assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
        deployment, = [d for d in docs if d["kind"] == "Deployment"]
        assert deployment["metadata"]["namespace"] == namespace["metadata"]["name"]
        for c in deployment["spec"]["template"]["spec"]["containers"]:
            assert set(c["resources"]["requests"]) == {"cpu", "memory"}
            assert {"cpu", "memory"} <= set(c["resources"]["limits"])
        rendered.append(out)
    assert len(rendered) == 5
    out = subprocess.run([str(harness.binary), "pss", *map(str, rendered)], capture_output=True, text=True,
                         check=True)
    verdicts = json.loads(out.stdout)
    assert len(verdicts) == 5 and all(v["valid"] for v in verdicts), verdicts


# Every branch of go-nvlib's parser: fields (2 or 3, suffixes, numbers, spaces), +/- attributes (empty, repeated,
# leading digit or dot, trailing dot, characters), both signs at once.
MIG_NAMES = ["1g.10gb", "1c.2g.10gb", "7g.80gb", "1g.10gb+me", "1g.10gb+me,gfx", "1g.10gb-me", "1g.10gb+me.all",
             "", "1g.10gb+me-x", "1g10gb", "1g.10gb.x.y", " 1g.10gb", "1g.10gb ", "1x.10gb", "1g.10", "ag.10gb",
             "1g.10gb+", "1g.10gb+me,me", "1g.10gb+1me", "1g.10gb+.me", "1g.10gb+me.", "1g.10gb+m_e",
             "1g.10gb+ me", "1g.10gb+me ", "+1g.10gb", "1c.1g", "c.1g.5gb", "1g.5gb+me,", "1g.5gb+,me", "2.5g.10gb",
             "-1g.5gb", "+1g.5gb", "1c.2g.10", "1c.2x.10gb", "1c .2g.10gb", "1g.-5gb", "1g.+5gb", "1g. 5gb",
             "1g.5gb-", "10g.100gb-me,gfx"]


def test_mig_profile_names_are_judged_as_go_nvlib_judges_them(harness):
    """gengpu's mig-profile-name-invalid check against go-nvlib's own parser (what mig-parted runs): the same
    verdict and the same message for every name."""
    from gengpu.mig import profile_name_problem

    out = subprocess.run([str(harness.binary), "mig-profile", *MIG_NAMES], capture_output=True, text=True,
                         check=True)
    upstream = {v["file"]: v for v in json.loads(out.stdout)}
    assert len(upstream) == len(MIG_NAMES)
    mine = {name: profile_name_problem(name) for name in MIG_NAMES}
    assert {n: v.get("error") for n, v in upstream.items()} == mine
    assert sum(v["valid"] for v in upstream.values()) >= 6 and sum(not v["valid"] for v in upstream.values()) >= 25
