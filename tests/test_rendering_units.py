"""Small pieces of rendering that decide what a finding says: kubeconform's error paths and leaves, the pinned
tool table, and how a tool's version is read."""

import os
from pathlib import Path

import pytest

from gengpu.headers import header
from gengpu.loading.source import load_documents
from gengpu import binaries as tools
from gengpu.rendering import inprocess, kustomized, render

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_json_pointers_unescape_and_index():
    assert kustomized.json_pointer("") == () and kustomized.json_pointer("/") == ()
    assert kustomized.json_pointer("/metadata/annotations/a~1b~0c/0") == ("metadata", "annotations", "a/b~c", 0)
    assert kustomized.json_pointer("/spec/template/spec/containers/12/name") == (
        "spec", "template", "spec", "containers", 12, "name")
    assert kustomized.json_pointer("/XPU/X") == ("XPU", "X")  # only the slashes around it are stripped


def test_a_path_is_shown_as_a_json_pointer():
    # as findings show a path: ~ and / escaped as RFC 6901 says
    assert render._pointer(("metadata", "annotations", "a/b~c", 0)) == "/metadata/annotations/a~1b~0c/0"


def test_kubeconform_errors_without_a_path_are_at_the_object():
    assert render._leaf_errors("", [{"msg": "bad"}]) == [("", "bad")]


def test_kubeconform_leaves_come_from_its_message_when_errors_stop_at_a_ref():
    # kubeconform 0.7.0: validationErrors name the $ref ("validation failed"), the msg lists the leaves
    msg = ("problem validating schema. Check JSON formatting: jsonschema validation failed with 'file:///x.json#'\n"
           "- at '/spec/replicas': got string, want null or integer\n"
           "- at '/spec/template': validation failed\n"
           "- at '/spec/template/spec/containers/0/name': got number, want string")
    errors = [{"path": "/spec/template", "msg": "validation failed"}]
    assert render._leaf_errors(msg, errors) == [
        ("/spec/replicas", "got string, want null or integer"),
        ("/spec/template/spec/containers/0/name", "got number, want string")]
    # errors that already are leaves are taken as they are
    plain = [{"path": "/data/count", "msg": "got number, want string"}]
    assert render._leaf_errors("ignored", plain) == [("/data/count", "got number, want string")]
    # no leaf in the message: fall back to the errors, and to nothing without either
    assert render._leaf_errors("no leaves here", errors) == [("/spec/template", "validation failed")]
    assert render._leaf_errors("", []) == []
    assert render._leaf_errors("- at '/a': x", []) == [("/a", "x")]


def test_kubeconform_leaves_on_one_line_are_each_a_leaf():
    # kubeconform v0.7.0's own msg for a Deployment with a string replicas and a misspelt selector
    msg = ("problem validating schema. Check JSON formatting: jsonschema validation failed with "
           "'file:///root/.cache/gengpu/kubernetes-validate-1.37.0/v1.33.0-local-strict/deployment-apps-v1.json#' - at "
           "'/spec': validation failed   - at '/spec/replicas': got string, want null or integer   - at '/spec': "
           "additional properties 'selectr' not allowed")
    assert render._leaf_errors(msg, [{"path": "/spec", "msg": "validation failed"}]) == [
        ("/spec/replicas", "got string, want null or integer"), ("/spec", "additional properties 'selectr' not allowed")]


def test_the_pinned_tool_table():
    pinned = tools.pinned()
    assert pinned["kustomize"] == ("sigs.k8s.io/kustomize/kustomize/v5", "v5.8.1", None)
    assert pinned["kubeconform"] == ("github.com/yannh/kubeconform/cmd/kubeconform", "v0.7.0", None)
    assert pinned["promtool"] == ("github.com/prometheus/prometheus/cmd/promtool", "v0.316.0", "tools/promtool")
    assert pinned["celcheck"][2] == "tools/celcheck"
    assert pinned["kube-apiserver"] == ("k8s.io/kubernetes/cmd/kube-apiserver", "v1.34.2", "tools/kube-apiserver")
    assert pinned["etcd"] == ("go.etcd.io/etcd/server/v3", "v3.6.4", "tools/etcd")
    assert pinned["prometheus"] == ("github.com/prometheus/prometheus/cmd/prometheus", "v0.316.0", "tools/promtool")
    assert pinned["flux"] == ("github.com/fluxcd/flux2/v2/cmd/flux", "v2.9.5", "tools/flux")
    assert pinned["kubectl"] == ("k8s.io/kubernetes/cmd/kubectl", "v1.34.2", "tools/kubectl")
    assert sorted(pinned) == ["celcheck", "etcd", "flux", "kube-apiserver", "kubeconform", "kubectl", "kustomize",
                              "prometheus", "promtool"]


def test_versions_are_read_the_way_each_tool_prints_them():
    assert tools.version(tools.Tool("kustomize", (os.path.join(REPO, "bin", "kustomize"),))) == "v5.8.1"
    # kubeconform built from a module prints its build's version with -v
    assert tools.version(tools.Tool("kubeconform", (os.path.join(REPO, "bin", "kubeconform"),))) == "development"
    kubectl = tools.Tool("kustomize", ("kubectl", "kustomize"))
    assert kubectl.via_kubectl and kubectl.build("d") == ["kubectl", "kustomize", "d"]
    assert tools.Tool("kustomize", ("/bin/kustomize",)).build("d") == ["/bin/kustomize", "build", "d"]


GENERATED = header("profiles/p.yaml")
KUSTOMIZATION = ("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata:\n  name: p\n"
                 "labels:\n  - pairs: {app.kubernetes.io/managed-by: gengpu}\n    includeSelectors: false\n"
                 "resources:\n  - a.yaml\n  - b.yml\n")


@pytest.mark.parametrize("header, change, planned", [
    (GENERATED, None, ["a.yaml", "b.yml"]),
    ("", None, None),  # a hand-written kustomization: kustomize renders it
    ("#!/bin/sh\n" + GENERATED, None, ["a.yaml", "b.yml"]),
    (GENERATED, ("  - b.yml\n", "  - b.yml\npatches:\n  - path: p.yaml\n"), None),  # a field gengpu never writes
    (GENERATED, ("kind: Kustomization", "kind: Component"), None),
    (GENERATED, ("  - a.yaml\n  - b.yml\n", "  - ../base\n"), None),  # a folder, not a file of its own
    (GENERATED, ("  - b.yml\n", "  - b.json\n"), None),
    (GENERATED, ("  - b.yml\n", "  - 7\n"), None),
    (GENERATED, ("resources:\n  - a.yaml\n  - b.yml\n", "resources: a.yaml\n"), None),
    (GENERATED, ("includeSelectors: false", "includeSelectors: true"), None),  # selectors change too
    (GENERATED, ("includeSelectors: false", "fields: [{path: spec}]"), None),
    (GENERATED, ("labels:\n  - pairs: {app.kubernetes.io/managed-by: gengpu}\n    includeSelectors: false\n",
                 "labels:\n  - app.kubernetes.io/managed-by\n"), None),
    (GENERATED, ("labels:\n  - pairs: {app.kubernetes.io/managed-by: gengpu}\n    includeSelectors: false\n", ""),
     ["a.yaml", "b.yml"]),
])
def test_only_kustomizations_gengpu_wrote_and_kustomize_would_render_the_same_are_rendered_in_process(
        header, change, planned):
    """The in-process renderer takes a generated kustomization of files of its own folder and one label transformer
    that leaves selectors alone; anything else goes to kustomize."""
    text = KUSTOMIZATION if change is None else KUSTOMIZATION.replace(*change)
    assert change is None or text != KUSTOMIZATION
    (doc,), errors = load_documents(header + text, "kustomization.yaml")
    assert not errors
    assert inprocess.plan(doc, header + text) == planned


def test_in_process_labels_are_every_transformers_pairs_as_strings():
    (doc,), _ = load_documents("kind: Kustomization\nlabels:\n  - pairs: {a: x, n: 1}\n  - pairs: {b: y}\n  - {}\n",
                               "k.yaml")
    assert inprocess.labels(doc) == {"a": "x", "n": "1", "b": "y"}


def test_a_results_identity_names_each_binary_by_path_size_and_time(monkeypatch, tmp_path):
    """The cache key of a validated overlay: a binary that changes (or goes) invalidates what it found."""
    from pathlib import Path

    real = Path(tools.__file__).resolve().parents[1] / "bin" / "kubeconform"
    st = real.stat()
    monkeypatch.setenv("GENGPU_KUBECONFORM", str(real))
    monkeypatch.setenv("GENGPU_KUSTOMIZE", str(tmp_path / "none"))
    assert tools.identity("kustomize", "kubeconform") == f"kustomize: missing\n{real}:{st.st_size}:{st.st_mtime_ns}"


def test_binaries_are_found_in_the_working_folders_bin_before_the_checkouts(monkeypatch, tmp_path):
    from pathlib import Path

    monkeypatch.delenv("GENGPU_KUSTOMIZE", raising=False)
    checkout = Path(tools.__file__).resolve().parents[1] / "bin" / "kustomize"
    monkeypatch.chdir(tmp_path)
    assert tools.find("kustomize").argv == (str(checkout),)  # an editable install's own bin/
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "kustomize").symlink_to(checkout)
    assert tools.find("kustomize").argv == (str(tmp_path / "bin" / "kustomize"),)


def test_a_tool_is_found_by_its_variable_its_bin_folders_path_or_kubectl_and_keeps_its_name(monkeypatch, tmp_path):
    from pathlib import Path

    from gengpu.findings import UsageError

    plain = tmp_path / "plain"
    plain.write_text("not a program\n")  # a file, but not executable
    monkeypatch.setenv("GENGPU_KUSTOMIZE", str(plain))
    with pytest.raises(UsageError, match="GENGPU_KUSTOMIZE=.* is not an executable file"):
        tools.find("kustomize")
    monkeypatch.delenv("GENGPU_KUSTOMIZE")
    real = Path(tools.__file__).resolve().parents[1] / "bin" / "kustomize"
    monkeypatch.setenv("GENGPU_KUSTOMIZE", str(real))
    assert tools.find("kustomize") == tools.Tool("kustomize", (str(real),))
    monkeypatch.delenv("GENGPU_KUSTOMIZE")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "kustomize").write_text("not executable\n")
    path_dir = tmp_path / "path"
    path_dir.mkdir()
    monkeypatch.setattr(tools, "_bin_dirs", lambda: [folder])
    monkeypatch.setenv("PATH", str(path_dir))
    (path_dir / "kubectl").symlink_to(real)  # any executable named kubectl
    assert tools.find("kustomize") == tools.Tool("kustomize", (str(path_dir / "kubectl"), "kustomize"))
    with pytest.raises(UsageError, match="kubeconform not found"):
        tools.find("kubeconform")  # kubectl stands in for kustomize only
    (path_dir / "kustomize").symlink_to(real)
    assert tools.find("kustomize") == tools.Tool("kustomize", (str(path_dir / "kustomize"),))


def test_kubeconform_errors_missing_a_message_or_a_path_keep_what_they_have():
    assert render._leaf_errors("", [{"path": "/a"}]) == [("/a", "")]
    # errors that stop at a $ref and a message without leaves: the errors as they are
    assert render._leaf_errors("no leaves here", [{"msg": "validation failed"}]) == [("", "validation failed")]
    assert render._leaf_errors("no leaves here", [{"path": "/b", "msg": "validation failed"}, {"path": "/c"}]) == [
        ("/b", "validation failed"), ("/c", "")]


def test_a_kubernetes_version_without_schemas_names_the_versions_there_are():
    from gengpu.findings import UsageError
    from gengpu.rendering import k8s_schemas

    with pytest.raises(UsageError) as raised:
        k8s_schemas.schema_dir("1.2")
    assert str(raised.value) == ("no Kubernetes schemas for 1.2 in kubernetes-validate (it has 1.25 to 1.37); change "
                                 "spec.kubernetesVersion")


def test_data_files_read_from_the_cache_are_what_the_yaml_says(tmp_path, monkeypatch):
    """catalog.data_file keeps each parsed data file in gengpu's cache as JSON: that is only right if every data
    file holds plain JSON types (no dates, no keys that are not strings), and the cached form equals the YAML."""
    import json

    import yaml

    from gengpu import catalog

    monkeypatch.chdir(tmp_path)  # a cache of its own (.cache/gengpu under the working directory)
    data_dir = Path(REPO) / "gengpu" / "data"
    catalog.data_file.cache_clear()
    catalog.data_file("prices.yaml")
    assert not (tmp_path / ".cache").exists()  # outside a repo gengpu has run in, nothing is created
    (tmp_path / ".cache" / "gengpu").mkdir(parents=True)
    for path in sorted(data_dir.glob("*.yaml")):
        parsed = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
        assert json.loads(json.dumps(parsed)) == parsed, path.name
        catalog.data_file.cache_clear()
        first = catalog.data_file(path.name)  # parsed, then written to the cache
        catalog.data_file.cache_clear()
        assert catalog.data_file(path.name) == first == parsed  # read back from the cache
    assert len(list((tmp_path / ".cache" / "gengpu").glob("data-*.json"))) == len(list(data_dir.glob("*.yaml")))
    catalog.data_file.cache_clear()
