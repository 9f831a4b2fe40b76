"""Small pieces of rendering that decide what a finding says: kubeconform's error paths and leaves, the pinned
tool table, and how a tool's version is read."""

import os

from gengpu.rendering import render, tools

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_json_pointers_unescape_and_index():
    assert render._json_pointer("") == () and render._json_pointer("/") == ()
    assert render._json_pointer("/metadata/annotations/a~1b~0c/0") == ("metadata", "annotations", "a/b~c", 0)
    assert render._json_pointer("/spec/template/spec/containers/12/name") == (
        "spec", "template", "spec", "containers", 12, "name")


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
    assert pinned["celcheck"][2] == "tools/celcheck" and sorted(pinned) == [
        "celcheck", "kubeconform", "kustomize", "promtool"]


def test_versions_are_read_the_way_each_tool_prints_them():
    assert tools.version(tools.Tool("kustomize", (os.path.join(REPO, "bin", "kustomize"),))) == "v5.8.1"
    # kubeconform built from a module prints its build's version with -v
    assert tools.version(tools.Tool("kubeconform", (os.path.join(REPO, "bin", "kubeconform"),))) == "development"
    kubectl = tools.Tool("kustomize", ("kubectl", "kustomize"))
    assert kubectl.via_kubectl and kubectl.build("d") == ["kubectl", "kustomize", "d"]
    assert tools.Tool("kustomize", ("/bin/kustomize",)).build("d") == ["/bin/kustomize", "build", "d"]
