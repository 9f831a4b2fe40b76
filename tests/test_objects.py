"""Every Kubernetes object in a validated file gets its schema checked in-process, strict about unknown fields,
and its CRD's CEL rules run through tools/celcheck (the API server's own code). kubeconform is the referee."""

import json
import subprocess
from pathlib import Path

import yaml

from gengpu.checking import objects

REPO = Path(__file__).resolve().parent.parent


def findings(run, tmp_path, text, name="case.yaml", *extra):
    (tmp_path / name).write_text(text)
    result = run("validate", name, "--output", "json", *extra, cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    return [(f["rule"], f"{f['line']}:{f['column']}", f["message"]) for f in json.loads(result.stdout)["findings"]]


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gpu
spec:
  selector: {matchLabels: {app: gpu}}
  template:
    metadata: {labels: {app: gpu}}
    spec:
      containers:
        - name: cuda
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          securityContext:
            allowPrivilegedEscalation: false
          resources:
            limits:
              nvidia.com/gpu: 1
"""

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    metadata:
      labels:
        karpenter.sh/nodepool: gpu
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: gpu
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: [g6]
      taints:
        - {key: nvidia.com/gpu, effect: NoSchedule}
"""


def test_a_misspelt_field_of_a_hand_written_object_is_found_at_its_key(run, tmp_path):
    assert findings(run, tmp_path, DEPLOYMENT) == [
        ("object-schema", "14:13", "Deployment gpu at /spec/template/spec/containers/0/securityContext/"
                                   "allowPrivilegedEscalation: unknown field 'allowPrivilegedEscalation'")]


def test_a_missing_required_field_of_a_custom_resource(run, tmp_path):
    text = NODEPOOL.replace("      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n"
                            "        name: gpu\n", "")
    assert findings(run, tmp_path, text) == [
        ("object-schema", "10:5", "NodePool gpu at /spec/template/spec: missing required field 'nodeClassRef'")]


def test_a_cel_rule_of_the_crd_is_evaluated_by_the_api_servers_code(run, tmp_path):
    assert findings(run, tmp_path, NODEPOOL) == [
        ("object-cel", "9:9", 'NodePool gpu at /spec/template/metadata/labels: label "karpenter.sh/nodepool" is '
                              'restricted')]
    near_miss = NODEPOOL.replace("karpenter.sh/nodepool: gpu", "gengpu.dev/pool: gpu")
    assert findings(run, tmp_path, near_miss) == []


NIMSERVICE = """\
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata:
  name: llm
spec:
  image: {repository: nvcr.io/nim/meta/llama-3.2-1b-instruct, tag: "1.12.0"}
  authSecret: ngc-api-secret
  storage:
    nimCache: {name: llm}
  replicas: 1
  resources:
    limits:
      nvidia.com/gpu: 1
  expose:
    service: {type: ClusterIP, port: 8000}
"""


def test_integers_reach_cel_rules_as_integers(run, tmp_path):
    """celcheck decodes an object as the API server does: 1 is an int64, so rules over integers evaluate (they
    failed with "expected int, got float64", on every NIMService that sets replicas: NVIDIA's samples, issue 48)."""
    assert findings(run, tmp_path, NIMSERVICE) == []
    autoscaled = NIMSERVICE + "  scale:\n    enabled: true\n    hpa: {minReplicas: 1, maxReplicas: 2}\n"
    assert findings(run, tmp_path, autoscaled) == [
        ("object-cel", "5:1", "NIMService llm at /spec: spec.replicas cannot be set when spec.scale.enabled is true")]


def _integer_rules():
    """(schema, path, integer fields, rule) for every committed CRD's CEL rule that reads only integer fields."""
    import re

    out = []
    for schema in sorted((REPO / "schemas" / "cel").glob("*.json")):
        def walk(node, path):
            if not isinstance(node, dict):
                return
            props = node.get("properties") or {}
            for check in node.get("x-kubernetes-validations") or []:
                named = set(re.findall(r"self\.(\w+)", check["rule"]))
                if "oldSelf" not in check["rule"] and named and \
                        all((props.get(k) or {}).get("type") == "integer" for k in named):
                    out.append((schema.name, path, sorted(named), check["rule"]))
            for key, child in props.items():
                walk(child, path + [key])
            for key, step in (("items", "[]"), ("additionalProperties", "{}")):
                walk(node.get(key), path + [step])
        walk(json.loads(schema.read_text()), [])
    return out


def test_every_crd_rule_over_integers_evaluates():
    """Each committed CRD's CEL rule that compares integer fields gets integers from a YAML file and evaluates: its
    own verdict, never a type error ("expected int, got float64" was what the NIM, Karpenter AKS and KServe rules
    said before celcheck decoded numbers as the API server does)."""
    from gengpu.checking import cel

    rules = _integer_rules()
    assert len(rules) >= 20 and {r[0] for r in rules} >= {
        "aksnodeclass-karpenter-v1beta1.json", "llminferenceservice-serving-v1alpha2.json", "nodepool-karpenter-v1.json"}
    for schema, path, fields, rule in rules:
        obj = yaml.safe_load("\n".join(f"{name}: 1" for name in fields))  # integers as a YAML file gives them
        for step in reversed(path):
            obj = [obj] if step == "[]" else {"key": obj} if step == "{}" else {step: obj}
        for error in cel.errors(schema, obj):
            assert not any(word in error["detail"] for word in ("float64", "overload", "expected int")), \
                (schema, path, rule, error)
    # and the verdicts are the rules' own: equal thresholds refused where the rule wants one strictly greater
    kubelet = {"spec": {"kubelet": {"imageGCHighThresholdPercent": 80, "imageGCLowThresholdPercent": 80}}}
    assert [e["detail"] for e in cel.errors("aksnodeclass-karpenter-v1beta1.json", kubelet)] == [
        "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"]
    kubelet["spec"]["kubelet"]["imageGCHighThresholdPercent"] = 85
    assert cel.errors("aksnodeclass-karpenter-v1beta1.json", kubelet) == []


def test_without_celcheck_gengpu_says_what_it_skipped(run, tmp_path, monkeypatch):
    from gengpu.checking import cel

    monkeypatch.setattr(cel, "_checker", None)  # a fresh process: no celcheck started yet
    monkeypatch.setattr(cel, "_missing", None)
    monkeypatch.setenv("GENGPU_CELCHECK", str(tmp_path / "nowhere"))
    got = findings(run, tmp_path, NODEPOOL)
    assert len(got) == 1 and got[0][:2] == ("object-cel-not-evaluated", "0:0")
    assert got[0][2].startswith("NodePool gpu: CEL rules not evaluated: GENGPU_CELCHECK=")


def test_explicit_nulls_pass_as_the_api_server_accepts_them(run, tmp_path):
    text = ("apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: cluster-policy\nspec:\n"
            "  operator: {defaultRuntime: containerd}\n  daemonsets: {}\n  dcgm: {enabled: true}\n"
            "  dcgmExporter: {enabled: true}\n  devicePlugin: {enabled: true}\n  driver: {enabled: true}\n"
            "  gfd: {enabled: true}\n  nodeStatusExporter: {enabled: false}\n  toolkit: {enabled: true}\n"
            "  validator:\n    plugin: null\n")
    assert [f for f in findings(run, tmp_path, text) if f[0] == "object-schema"] == []


def test_clusterpolicy_fields_of_gpu_operator_v26_7_are_known(run, tmp_path):
    text = ("apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: cluster-policy\nspec:\n"
            "  driver:\n    enabled: true\n    licensingConfig:\n      secretName: licensing\n"
            "  vgpuManager:\n    enabled: false\n    kernelModuleConfig:\n      name: kmod\n")
    assert [f for f in findings(run, tmp_path, text) if "unknown field" in f[2]] == []


def test_a_kind_without_a_schema_is_said_to_be_unchecked(run, tmp_path):
    text = "apiVersion: example.com/v1\nkind: GpuJob\nmetadata:\n  name: x\nspec:\n  anything: 1\n"
    assert findings(run, tmp_path, text) == [
        ("object-no-schema", "2:7", "GpuJob x: no schema for example.com/v1 GpuJob; its fields are not checked (GPU "
                                    "rules still run)")]


def test_a_kyverno_clusterpolicy_is_not_judged_by_nvidias_crd(run, tmp_path):
    text = ("apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: gpus\nspec:\n  rules: []\n")
    assert findings(run, tmp_path, text) == [
        ("object-no-schema", "2:7", "ClusterPolicy gpus: no schema for kyverno.io/v1 ClusterPolicy; its fields are not "
                                    "checked (GPU rules still run)")]


def test_the_kubernetes_version_chooses_the_schemas(run, tmp_path):
    """resource.k8s.io/v1 exists from Kubernetes 1.34 on: on 1.33 it is not served yet, which the API server refuses,
    and its fields are not checked."""
    text = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec:\n"
            "  selectors:\n    - cel:\n        expression: device.driver == 'gpu.example.com'\n")
    assert findings(run, tmp_path, text, "dc.yaml", "--kubernetes-version", "1.34") == []
    assert findings(run, tmp_path, text, "dc.yaml", "--kubernetes-version", "1.33") == [
        ("api-version-removed", "1:13", "DeviceClass gpu.example.com: Kubernetes 1.33 does not serve resource.k8s.io/v1 "
                                        "yet; it serves DeviceClass as resource.k8s.io/v1alpha3 or resource.k8s.io/v1beta1 "
                                        "or resource.k8s.io/v1beta2"),
        ("object-no-schema", "2:7", "DeviceClass gpu.example.com: no schema for resource.k8s.io/v1 DeviceClass; its "
                                    "fields are not checked (GPU rules still run)")]


def _kubeconform_verdicts(path: Path, version: str) -> dict:
    k8s = objects.native_dir(version)
    from gengpu.rendering import k8s_schemas
    from gengpu.schemas_dir import schemas_path

    local = k8s_schemas.schema_dir(version)
    proc = subprocess.run([
        str(REPO / "bin" / "kubeconform"), "-kubernetes-version", f"{version}.0", "-strict", "-verbose", "-output", "json",
        "-schema-location", str(local.parent / "{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}"
                                / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        "-schema-location", str(schemas_path() / "crds" / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        "-schema-location", str(schemas_path() / "documented" / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        str(path)], capture_output=True, text=True)
    assert k8s.is_dir()
    return {(r["kind"], r["name"]): r["status"] for r in json.loads(proc.stdout)["resources"]}


def test_engine_and_kubeconform_agree_resource_by_resource(tmp_path):
    """The example overlays' rendered objects, each also broken in a way of each kind, judged by both."""
    docs = []
    for overlay in sorted([*(REPO / "overlays").glob("*"), *(REPO / "overlays").glob("*/verify/*"),
                           REPO / "argocd" / "applications"]):
        out = subprocess.run([str(REPO / "bin" / "kustomize"), "build", str(overlay)], capture_output=True,
                             text=True, check=True).stdout
        docs += [d for d in yaml.safe_load_all(out) if d]
    for i, doc in enumerate(docs):  # the overlays share names (every one has a gpu-operator Namespace)
        doc["metadata"]["name"] = f"{doc['metadata']['name']}-{i}"
    broken = []
    for i, doc in enumerate(docs):
        bad = json.loads(json.dumps(doc))
        bad["metadata"]["name"] = f"{doc['metadata']['name']}-broken-{i}"
        spec = bad.get("spec") if isinstance(bad.get("spec"), dict) else bad.setdefault("data", {})
        if i % 3 == 0:
            spec["unknownField"] = True
        elif i % 3 == 1:
            bad["metadata"]["labels"] = {"a": 1}  # not a string
        else:
            bad["metadata"]["annotations"] = ["not", "a", "map"]
        broken.append(bad)
    path = tmp_path / "all.yaml"
    path.write_text(yaml.safe_dump_all(docs + broken, sort_keys=False))
    version = "1.33"
    theirs = _kubeconform_verdicts(path, version)
    schemas = objects.Schemas(version)
    ours = {}
    for doc in docs + broken:
        group, _, ver = doc["apiVersion"].rpartition("/")
        validator = schemas.validator(group, ver, doc["kind"])
        if validator is None:
            ours[(doc["kind"], doc["metadata"]["name"])] = "statusError"  # kubeconform: could not find schema
        else:
            ok = not objects.schema_errors(validator, doc)
            ours[(doc["kind"], doc["metadata"]["name"])] = "statusValid" if ok else "statusInvalid"
    assert len(ours) == len(docs) * 2 and len(docs) >= 40
    assert {k: v for k, v in ours.items()} == {k: theirs[k] for k in ours}


def test_a_hand_written_gke_autoprovisioning_file_is_checked_against_gclouds_keys(run, tmp_path):
    good = "resourceLimits:\n  - resourceType: nvidia-l4\n    minimum: 0\n    maximum: 8\n"
    assert findings(run, tmp_path, good, "nap.yaml") == []
    bad = good + "autoscalingProfile: optimize-utilization\n"
    got = findings(run, tmp_path, bad, "nap.yaml")
    assert [(rule, where) for rule, where, _ in got] == [("gke-autoprovisioning-schema", "5:1")]
