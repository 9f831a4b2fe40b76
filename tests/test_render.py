"""Overlays through the real kustomize and kubeconform, with the committed schemas and no network."""

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from gengpu.headers import header
from gengpu.rendering import k8s_schemas
from gengpu.schemas_dir import schemas_path

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "bin"
OVERLAYS = sorted(p.parent for p in (REPO / "overlays").glob("*/kustomization.yaml")) + \
    sorted(p.parent for p in (REPO / "overlays").glob("*/verify/*/kustomization.yaml"))


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.relative_to(REPO / "overlays").as_posix())
def test_committed_overlay_passes_kubeconform_strict_with_nothing_skipped(overlay):
    rendered = subprocess.run([BIN / "kustomize", "build", overlay], capture_output=True, text=True, check=True)
    # the Kubernetes version the cluster's profile names (verify/ folders belong to their cluster's overlay)
    top = REPO / "overlays" / overlay.relative_to(REPO / "overlays").parts[0]
    version = yaml.safe_load((top / "kustomization.yaml").read_text())["metadata"]["annotations"][
        "gengpu.dev/kubernetes-version"]
    k8s = k8s_schemas.schema_dir(version)
    proc = subprocess.run(
        [BIN / "kubeconform", "-kubernetes-version", f"{version}.0", "-strict", "-summary", "-output", "json",
         "-schema-location", f"{k8s.parent}/{{{{ .NormalizedKubernetesVersion }}}}-local{{{{ .StrictSuffix }}}}/"
                             "{{ .ResourceKind }}{{ .KindSuffix }}.json",
         "-schema-location", f"{schemas_path()}/crds/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json",
         "-schema-location", f"{schemas_path()}/documented/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json", "-"],
        input=rendered.stdout, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
    summary = json.loads(proc.stdout)["summary"]
    expected = len([d for d in rendered.stdout.split("\n---\n") if d.strip()])
    assert summary == {"valid": expected, "invalid": 0, "errors": 0, "skipped": 0}


def test_validate_runs_clean_on_the_example_repo(repo, run):
    result = run("validate")
    assert result.exit_code == 0, result.output
    assert result.output == ("gengpu: checked 7 profile(s), 13 rendered kustomization(s), 2 Argo CD manifest(s): "
                             "no findings.\n")


BROKEN = {
    "gengpu": ["error object-schema ConfigMap gengpu-device-plugin-config at /immutable: \"yes\" is not of types "
               "\"null\", \"boolean\"",
               "error object-schema ServiceMonitor nvidia-dcgm-exporter at /spec/endpoints/0/honourLabels: unknown field "
               "'honourLabels'"],
    "kubeconform": ["error object-schema ConfigMap gengpu-device-plugin-config at /immutable: got string, want null "
                    "or boolean (kubeconform)",
                    "error object-schema ServiceMonitor nvidia-dcgm-exporter at /spec/endpoints/0/honourLabels: unknown "
                    "field 'honourLabels' (kubeconform)"],
}


@pytest.mark.parametrize("engine", sorted(BROKEN))
def test_both_engines_find_schema_errors_of_an_overlay_at_their_lines(repo, run, engine):
    monitor = repo / "overlays" / "aks-t4-timeslicing" / "monitoring.yaml"
    monitor.write_text(monitor.read_text().replace("    honorLabels: true\n", "    honorLabels: true\n"
                                                                            "    honourLabels: true\n", 1))
    cm = repo / "overlays" / "aks-t4-timeslicing" / "device-plugin-config.yaml"
    cm.write_text(cm.read_text() + "immutable: 'yes'\n")
    result = run("validate", "overlays/aks-t4-timeslicing", "--engine", engine, "--no-cache")
    assert result.exit_code == 1
    findings = [line for line in result.output.splitlines() if not line.startswith("  ")]
    line = cm.read_text().splitlines().index("immutable: 'yes'") + 1
    monitor_line = monitor.read_text().splitlines().index("    honourLabels: true") + 1
    assert findings[:-1] == [f"overlays/aks-t4-timeslicing/device-plugin-config.yaml:{line}:12: {BROKEN[engine][0]}",
                             f"overlays/aks-t4-timeslicing/monitoring.yaml:{monitor_line}:5: {BROKEN[engine][1]}"]


@pytest.mark.parametrize("engine", ["gengpu", "kubeconform"])
def test_argocd_objects_validate_against_the_argo_cd_crds(repo, run, engine):
    result = run("validate", "--engine", engine)
    assert result.exit_code == 0, result.output
    appset = repo / "argocd" / "applicationset.yaml"
    appset.write_text(appset.read_text().replace("goTemplate: true", "goTemplates: true"))
    broken = run("validate", "--engine", engine)
    assert broken.exit_code == 1
    assert broken.output.startswith("argocd/applicationset.yaml:12:3: error object-schema ApplicationSet gpu-clusters "
                                    "at /spec/goTemplates: unknown field 'goTemplates'"
                                    + (" (kubeconform)\n" if engine == "kubeconform" else "\n"))


@pytest.mark.parametrize("engine", ["gengpu", "kubeconform"])
def test_a_kind_without_schema_is_an_error_not_a_skip(repo, run, engine):
    overlay = repo / "overlays" / "eks-l4-mps"
    (overlay / "widget.yaml").write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n")
    k = overlay / "kustomization.yaml"
    k.write_text(k.read_text().replace("resources:\n", "resources:\n- widget.yaml\n"))
    result = run("validate", "overlays/eks-l4-mps", "--engine", engine)
    assert result.exit_code == 1
    assert result.output.startswith(
        "overlays/eks-l4-mps/widget.yaml:1:1: error overlay-kind-no-schema Widget w: no schema for example.com/v1 "
        "Widget" + (" (kubeconform)\n" if engine == "kubeconform" else "\n"))


def test_kustomize_errors_are_findings(repo, run):
    local = repo / "overlays" / "gke-a100-spot" / "local"
    local.mkdir()
    (local / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                              "resources: [missing.yaml]\n")
    assert run("build").exit_code == 0  # the kustomization now lists components: [local], so kustomize renders it
    k = repo / "overlays" / "eks-l4-mps" / "kustomization.yaml"
    k.write_text(k.read_text().replace("- namespace.yaml\n", "- namespaces.yaml\n"))
    result = run("validate", "overlays/eks-l4-mps", "overlays/gke-a100-spot")
    assert result.exit_code == 1
    first, _, second, _, _ = result.output.splitlines()
    assert first.startswith("overlays/eks-l4-mps/kustomization.yaml:1:1: error kustomize-build kustomize build failed: "
                            "accumulating resources: accumulation err='accumulating resources from 'namespaces.yaml'")
    assert second.startswith("overlays/gke-a100-spot/kustomization.yaml:1:1: error kustomize-build kustomize build "
                             "failed: accumulating components: accumulateDirectory: \"recursed accumulation of path ")


@pytest.mark.parametrize("tool", ["kustomize", "kubeconform"])
def test_missing_binary_is_a_clear_usage_error(repo, run, monkeypatch, tool, tmp_path):
    monkeypatch.setenv(f"GENGPU_{tool.upper()}", str(tmp_path / "nowhere" / tool))
    # gengpu renders and checks its own overlays itself: kustomize is needed for a verify overlay (components),
    # kubeconform for --engine kubeconform.
    result = run("validate", "overlays/eks-l4-mps/verify/l4-mps", "--engine", "kubeconform")
    assert result.exit_code == 2
    assert result.output.startswith(f"gengpu: error: GENGPU_{tool.upper()}={tmp_path}/nowhere/{tool} is not an "
                                    f"executable file; run {REPO / 'scripts' / 'install-tools'} (builds {tool} ")
    assert "Traceback" not in result.output


def test_missing_binary_on_an_empty_path(repo, run, monkeypatch, tmp_path):
    monkeypatch.delenv("GENGPU_KUBECONFORM")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr("gengpu.binaries._bin_dirs", lambda: [tmp_path / "bin"])
    result = run("validate", "overlays/eks-l4-mps", "--engine", "kubeconform")
    assert result.exit_code == 2
    assert result.output == (
        "gengpu: error: kubeconform not found (looked at $GENGPU_KUBECONFORM, ./bin and PATH); run "
        f"{REPO / 'scripts' / 'install-tools'} (builds kubeconform v0.7.0 into ./bin), or `GOBIN=$PWD/bin go "
        "install github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0`, or set GENGPU_KUBECONFORM to the binary\n")


def test_a_pip_installed_gengpu_names_go_install_and_kubectl(monkeypatch, tmp_path):
    """Without a source checkout there is no scripts/install-tools to run: the hint names what works anywhere."""
    from gengpu import binaries as tools

    monkeypatch.setattr(tools, "__file__", str(tmp_path / "site-packages" / "gengpu" / "rendering" / "tools.py"))
    assert tools._install_hint("kustomize") == (
        "`GOBIN=$PWD/bin go install sigs.k8s.io/kustomize/kustomize/v5@v5.8.1` (or put kubectl on PATH: gengpu uses "
        "its kustomize), or set GENGPU_KUSTOMIZE to the binary")


def test_schema_cache_is_a_local_ref_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("GENGPU_CACHE_DIR", str(tmp_path))
    folder = k8s_schemas.schema_dir("1.30")
    assert folder == tmp_path / "kubernetes-validate-1.37.0" / "v1.30.0-local-strict"
    deployment = json.loads((folder / "deployment-apps-v1.json").read_text())
    assert "$id" not in deployment
    assert json.dumps(deployment).count('"_definitions.json#/$defs/') > 0
    assert "/api/_definitions.json" not in (folder / "deployment-apps-v1.json").read_text()
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")]


def test_files_beside_the_overlay_are_checked_too(repo, run):
    nap = repo / "overlays" / "gke-a100-spot" / "gke-autoprovisioning.yaml"
    nap.write_text(nap.read_text().replace("diskSizeGb: 100", "autoprovisioning:\n  diskSizeGb: 100"))
    script = repo / "overlays" / "aks-t4-timeslicing" / "aks-nodepool-t4-shared.sh"
    script.write_text(script.read_text() + "if then\n")
    result = run("validate", "overlays/gke-a100-spot", "overlays/aks-t4-timeslicing")
    assert result.exit_code == 1
    findings = [line for line in result.output.splitlines() if not line.startswith("  ")][:-1]
    lines = len(script.read_text().splitlines())
    assert findings == [
        f"overlays/aks-t4-timeslicing/aks-nodepool-t4-shared.sh:{lines}:1: error script-syntax bash cannot parse it: "
        "syntax error near unexpected token `then'",
        "overlays/gke-a100-spot/gke-autoprovisioning.yaml:28:1: error gke-autoprovisioning-schema unknown field "
        "'autoprovisioning'",
    ]


def test_kubectls_kustomize_is_called_as_kubectl_calls_it(tmp_path, monkeypatch):
    """Without kustomize, gengpu falls back to `kubectl kustomize DIR` (kubectl has no `build` verb and refuses one:
    "error: specify one path to kustomization.yaml"). kubectl is not installed here: a stand-in with kubectl's
    argument rules runs the real kustomize."""
    from gengpu import binaries as tools
    from gengpu.rendering import render

    shim = tmp_path / "path" / "kubectl"
    shim.parent.mkdir()
    shim.write_text(f"""#!/usr/bin/env bash
if [ "$1" = version ]; then echo "Client Version: v1.35.0"; echo "Kustomize Version: v5.7.1"; exit 0; fi
if [ "$1" != kustomize ] || [ $# -ne 2 ]; then echo "error: specify one path to kustomization.yaml" >&2; exit 1; fi
exec {REPO / "bin" / "kustomize"} build "$2"
""")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", str(shim.parent) + ":/usr/bin:/bin")
    monkeypatch.delenv("GENGPU_KUSTOMIZE", raising=False)
    monkeypatch.setattr(tools, "_bin_dirs", lambda: [])
    overlay = REPO / "overlays" / "eks-l4-mps" / "verify" / "l4-mps"
    out, findings = render.kustomize_build(overlay, "verify")
    assert findings == []
    real = subprocess.run([str(REPO / "bin" / "kustomize"), "build", str(overlay)], capture_output=True, text=True,
                          check=True).stdout
    assert out == real
    assert "Kustomize Version: v5.7.1" in tools.version(tools.find("kustomize"))


def test_an_overlay_is_checked_against_the_kubernetes_version_it_names(repo, run):
    """The kustomization's gengpu.dev/kubernetes-version annotation picks the schemas: a resource.k8s.io/v1
    DeviceClass (GA in Kubernetes 1.34) has no schema at 1.33 and one at 1.34."""
    overlay = repo / "overlays" / "eks-l4-mps"
    local = overlay / "local"
    local.mkdir()
    (local / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                              "resources: [deviceclass.yaml]\n")
    (local / "deviceclass.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                                            "metadata: {name: gpu.example.com}\nspec:\n  selectors:\n"
                                            "  - cel: {expression: \"device.driver == 'gpu.example.com'\"}\n")
    assert run("build", "profiles/eks-l4-mps.yaml").exit_code == 0  # lists components: [local]

    def rules():
        result = run("validate", "overlays/eks-l4-mps", "--output", "json", "--no-cache")
        return sorted({f["rule"] for f in json.loads(result.output)["findings"] if f["severity"] == "error"})

    # 1.33, as the profile says: DeviceClass v1 is not served yet (and has no schema there)
    assert rules() == ["api-version-removed", "overlay-kind-no-schema"]
    k = overlay / "kustomization.yaml"
    k.write_text(k.read_text().replace("gengpu.dev/kubernetes-version: '1.33'", "gengpu.dev/kubernetes-version: '1.34'"))
    assert rules() == []


def test_kubeconform_findings_name_file_line_field_and_fix(run, tmp_path):
    """--engine kubeconform: every schema error of kubeconform becomes a finding at the field, with its fix."""
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                                "resources: [app.yaml]\n")
    (overlay / "app.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: two\n  selectr: {}\n"
        "  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n"
        "    spec:\n      containers: [{name: c, image: x}]\n")
    result = run("validate", "overlay", "--engine", "kubeconform", "--kubernetes-version", "1.33", "--output", "json",
                 cwd=tmp_path)
    assert result.exit_code == 1
    found = json.loads(result.stdout)["findings"]
    assert [(f["file"], f["line"], f["column"], f["severity"], f["rule"], f["fix"]) for f in found] == [
        ("overlay/app.yaml", 6, 13, "error", "object-schema", "fix the field so it matches the schema"),
        ("overlay/app.yaml", 7, 3, "error", "object-schema", "remove or rename the field")]
    assert found[0]["message"].startswith("Deployment app at /spec/replicas: ")
    assert found[0]["message"].endswith(" (kubeconform)")
    assert found[1]["message"] == "Deployment app at /spec/selectr: unknown field 'selectr' (kubeconform)"


OWN_KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
labels:
  - pairs: {app.kubernetes.io/managed-by: gengpu}
    includeSelectors: false
resources:
  - deploy.yaml
  - widget.yaml
  - nodepool.yaml
"""
OWN_FILES = {
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: \"two\"\n"
                   "  selector: {matchLabels: {app: app}}\n  template:\n    metadata: {labels: {app: app}}\n"
                   "    spec:\n      containers:\n        - name: c\n          image: cuda\n          colour: blue\n",
    "widget.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n",
    "nodepool.yaml": "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  template:\n"
                     "    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}\n"
                     "      requirements:\n        - key: node.kubernetes.io/instance-type\n          operator: In\n"
                     "          values: []\n",
}


OWN_HEADER = header("profiles/x.yaml")


def _own_overlay(overlay: Path, generated: bool) -> Path:
    """OWN_KUSTOMIZATION and OWN_FILES in a folder: gengpu's (with its header) or a hand-written one."""
    overlay.mkdir(parents=True)
    (overlay / "kustomization.yaml").write_text((OWN_HEADER if generated else "") + OWN_KUSTOMIZATION)
    for name, text in OWN_FILES.items():
        (overlay / name).write_text(text)
    return overlay


@pytest.mark.parametrize("generated", [True, False], ids=["in-process", "kustomize"])
def test_an_overlays_findings_are_the_same_whether_gengpu_or_kustomize_renders_it(run, tmp_path, generated):
    """A kustomization gengpu wrote is rendered in process, a hand-written one by kustomize, whose output names no
    source file: either way each finding points at the file, line and field it came from. Expected from the
    Kubernetes schema (replicas is an integer, containers have no colour), Karpenter's CRD (its CEL rule on empty
    In requirements) and gengpu's rule that an overlay's kinds need a schema."""
    overlay = _own_overlay(tmp_path / "overlays" / "x", generated)
    report = json.loads(run("validate", "overlays/x", "--output", "json", cwd=tmp_path).stdout)
    assert [(f["file"], f["line"], f["column"], f["rule"], f["message"], f["fix"]) for f in report["findings"]] == [
        ("overlays/x/deploy.yaml", 6, 13, "object-schema",
         'Deployment app at /spec/replicas: "two" is not of types "null", "integer"',
         "fix the field so it matches the schema"),
        ("overlays/x/deploy.yaml", 14, 11, "object-schema",
         "Deployment app at /spec/template/spec/containers/0/colour: unknown field 'colour'",
         "remove or rename the field"),
        ("overlays/x/nodepool.yaml", 9, 7, "object-cel",
         "NodePool gpu at /spec/template/spec/requirements: requirements with operator 'In' must have a value defined",
         report["findings"][2]["fix"]),
        ("overlays/x/widget.yaml", 1, 1, "overlay-kind-no-schema", "Widget w: no schema for example.com/v1 Widget",
         "Add its CRD to scripts/crd-sources.yaml and run scripts/sync-schemas, or remove the resource."),
    ]


@pytest.mark.parametrize("generated", [True, False], ids=["in-process", "kustomize"])
def test_a_broken_resource_file_of_an_overlay_is_a_finding_at_its_line(run, tmp_path, generated):
    overlay = _own_overlay(tmp_path / "overlays" / "x", generated)
    (overlay / "widget.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [w\n")
    report = json.loads(run("validate", "overlays/x", "--output", "json", cwd=tmp_path).stdout)
    found = [(f["file"], f["rule"]) for f in report["findings"]]
    # in process the file's own YAML error stops the render; kustomize fails on it, and the file is read beside
    assert found == ([("overlays/x/widget.yaml", "yaml-syntax")] if generated else
                     [("overlays/x/kustomization.yaml", "kustomize-build"), ("overlays/x/widget.yaml", "yaml-syntax")])


def test_render_says_which_renderer_ran_and_every_file_that_stopped_it(tmp_path):
    """render() returns the resources, the findings that stopped it and whether it rendered in process: a
    kustomization that does not parse stops it before any renderer, every broken file of a generated overlay is
    named, and whatever gengpu does not render itself (an empty kustomization, a missing file) is kustomize's."""
    from gengpu.rendering import render

    overlay = tmp_path / "x"
    overlay.mkdir()
    k = overlay / "kustomization.yaml"

    def rendered():
        resources, findings, inprocess = render.render(overlay, "overlays/x", render.Files())
        return [(f.file, f.line, f.rule) for f in findings], inprocess

    k.write_text(OWN_HEADER + "resources: [a.yaml\n")
    assert rendered() == ([("overlays/x/kustomization.yaml", 4, "yaml-syntax")], True)
    k.write_text(OWN_HEADER + OWN_KUSTOMIZATION)
    for name, text in OWN_FILES.items():
        (overlay / name).write_text(text)
    (overlay / "deploy.yaml").write_text("kind: [x\n")
    (overlay / "widget.yaml").write_text("kind: [y\n")
    assert rendered() == ([("overlays/x/deploy.yaml", 2, "yaml-syntax"), ("overlays/x/widget.yaml", 2, "yaml-syntax")],
                          True)
    k.write_text("")
    found, inprocess = rendered()
    assert [rule for _, _, rule in found] == ["kustomize-build"] and not inprocess
    (overlay / "deploy.yaml").unlink()
    k.write_text(OWN_HEADER + OWN_KUSTOMIZATION)
    assert rendered() == ([("overlays/x/kustomization.yaml", 1, "kustomize-build")], False)


def test_a_kubeconform_that_cannot_start_is_a_finding_not_a_crash(tmp_path, monkeypatch):
    """kubeconform reads its schema locations as Go templates: a schema folder whose path holds braces makes the real
    binary stop before it validates anything, printing usage text instead of JSON. gengpu reports what it said."""
    from gengpu.checking.rules import RULES
    from gengpu.rendering import render

    odd = tmp_path / "schemas{{"
    odd.symlink_to(schemas_path(), target_is_directory=True)
    monkeypatch.setattr(render, "schemas_path", lambda: odd)
    found = render.kubeconform_check("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", tmp_path, "overlays/x",
                                     "1.33", RULES)
    assert [(f.file, f.line, f.column, f.severity, f.rule, f.fix) for f in found] == [
        ("overlays/x", 0, 0, "error", "kustomize-build",
         "run kubeconform by hand on `kustomize build` output to see why")]
    assert found[0].message.startswith("kubeconform failed: failed initialising schema location registry: template:")


def test_a_resource_kubeconform_rejects_without_a_field_is_a_finding_at_its_source(tmp_path):
    """A document without apiVersion fails in kubeconform with a message and no field: one finding at the file that
    holds the resource (or the kustomization, for a resource of no file), with kubeconform's words."""
    from gengpu.checking.rules import RULES
    from gengpu.rendering import render

    (tmp_path / "cm.yaml").write_text("# a note\nkind: ConfigMap\nmetadata: {name: x}\n")
    text = ("kind: ConfigMap\nmetadata: {name: x}\n---\nkind: Secret\nmetadata: {name: s}\n---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: z}\ndata: 5\n")
    found = render.kubeconform_check(text, tmp_path, "overlays/x", "1.33", RULES)
    # a field error of a resource no file holds (kustomize made it) is at the kustomization too
    field = [f for f in found if "ConfigMap z" in f.message]
    assert [(f.file, f.line, f.column, f.rule, f.fix) for f in field] == [
        ("overlays/x/kustomization.yaml", 1, 1, "object-schema", "fix the field so it matches the schema")]
    assert field[0].message.startswith("ConfigMap z at /data: ") and field[0].message.endswith(" (kubeconform)")
    found = [f for f in found if f not in field]
    assert sorted((f.file, f.line, f.column, f.rule, f.message, f.fix) for f in found) == [
        ("overlays/x/cm.yaml", 2, 1, "object-schema",
         "ConfigMap x: error while parsing: missing 'apiVersion' key (kubeconform)",
         "fix the resource"),
        ("overlays/x/kustomization.yaml", 1, 1, "object-schema",
         "Secret s: error while parsing: missing 'apiVersion' key (kubeconform)",
         "fix the resource")]


@pytest.mark.parametrize("engine", ["gengpu", "kubeconform"])
def test_plain_manifests_are_each_checked_at_their_own_file(tmp_path, engine):
    """The Argo CD root objects are plain files no kustomization lists: every file's problems are found, at its own
    file and line, whichever engine checks them."""
    from gengpu.checking.rules import RULES
    from gengpu.rendering import render

    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata: 5\n")
    (tmp_path / "c.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: c\ncolour: blue\n")
    names = ["b.yaml", "c.yaml", "missing.yaml"]
    if engine == "gengpu":
        (tmp_path / "a.yaml").write_text("kind: [x\n")
        names.insert(0, "a.yaml")
    # kubeconform checks files concurrently and reports them in any order; reports sort findings
    found = sorted(render.check_manifests(tmp_path, "argocd", names, RULES, "1.33", engine), key=lambda f: f.file)
    assert [(f.file, f.line, f.rule) for f in found] == ([("argocd/a.yaml", 2, "yaml-syntax")] if engine == "gengpu"
                                                          else []) + [
        ("argocd/b.yaml", 5, "object-schema"), ("argocd/c.yaml", 5, "object-schema")]
    assert found[-1].message.startswith("Secret c at /colour: ") and found[-1].fix == "remove or rename the field"


def test_the_cache_folder_follows_gengpus_variable_then_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.setenv("GENGPU_CACHE_DIR", str(tmp_path / "mine"))
    assert k8s_schemas.cache_root() == tmp_path / "mine"
    monkeypatch.delenv("GENGPU_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert k8s_schemas.cache_root() == tmp_path / "xdg" / "gengpu"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert k8s_schemas.cache_root() == tmp_path / "home" / ".cache" / "gengpu"


def test_a_schema_folder_another_process_finished_first_is_used_as_it_is(tmp_path, monkeypatch):
    """Two validations building the same schema folder at once: the second's rename fails and the first's folder
    stands; a rename that fails with no finished folder there is an error. Only the package's object schemas are
    copied (not all.json), and no half-built folder is left."""
    monkeypatch.setenv("GENGPU_CACHE_DIR", str(tmp_path))
    first = k8s_schemas.schema_dir("1.31")
    assert not (first / "all.json").exists() and (first / "_definitions.json").is_file()
    (first / "_definitions.json").rename(tmp_path / "defs.json")  # as if the first build had not finished

    def failing(self, target):
        raise OSError(39, "Directory not empty", str(target))

    monkeypatch.setattr(Path, "rename", failing)
    with pytest.raises(OSError):
        k8s_schemas.schema_dir("1.31")

    def other_finishes(self, target):
        (tmp_path / "defs.json").replace(Path(target) / "_definitions.json")  # the other build ends just now
        raise OSError(39, "Directory not empty", str(target))

    monkeypatch.setattr(Path, "rename", other_finishes)
    assert k8s_schemas.schema_dir("1.31") == first and (first / "_definitions.json").is_file()
    assert not [p for p in first.parent.iterdir() if p.name.startswith(".")]


def test_a_resource_from_outside_the_overlay_folder_is_reported_at_its_kustomization(run, tmp_path):
    """kustomize's output names no source file; gengpu finds a resource's file among the overlay's own. One taken
    from elsewhere (../shared) is reported at the kustomization that brings it in, line 1."""
    (tmp_path / "overlays" / "x").mkdir(parents=True)
    (tmp_path / "overlays" / "shared").mkdir()
    (tmp_path / "overlays" / "shared" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata: 5\n")
    (tmp_path / "overlays" / "shared" / "kustomization.yaml").write_text("resources:\n  - cm.yaml\n")
    (tmp_path / "overlays" / "x" / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../shared\n")
    report = json.loads(run("validate", "overlays/x", "--output", "json", cwd=tmp_path).stdout)
    assert [(f["file"], f["line"], f["column"], f["rule"]) for f in report["findings"]] == [
        ("overlays/x/kustomization.yaml", 1, 1, "object-schema")]
    assert report["findings"][0]["message"].startswith("ConfigMap shared at /data: ")
