"""What a file is, decided before any rule sees it (gengpu/loading/roles.py), one class of the sweep's false alarms
per test (tests/sweep/verdicts.yaml names them), each in a small repository as the pre-commit hook sees it: the
changed files given, the rest of the repository around them. Every test failed before file roles existed."""

import json

import pytest

HELM_RELEASE = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: gpu-operator
  namespace: gpu-operator
spec:
  interval: 1h
  chart:
    spec:
      chart: gpu-operator
      version: v26.7.0
      sourceRef: {kind: HelmRepository, name: nvidia}
  values:
    driver:
      enabled: false
"""


def write(root, files: dict):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def validate(run, root, *paths, verbose=False):
    """(file, line, severity, rule, message) of every finding, from the repository's root as pre-commit runs."""
    result = run("validate", *paths, "--output", "json", "--no-cache", *(["-v"] if verbose else []), cwd=root)
    assert result.exit_code in (0, 1), result.output
    return [(f["file"], f["line"], f["severity"], f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]]


def judged(found):
    return [f for f in found if f[2] != "info"]


def test_a_kustomization_without_apiversion_is_kustomizes_not_a_device_plugin_config(run, tmp_path):
    """Was: device-plugin-unknown-field 'namePrefix', device-plugin-config-schema 'resources' is not an object,
    dra-chart-gpus-without-override (kustomize's own file read by its `resources` key)."""
    write(tmp_path, {"app/kustomization.yaml": "namePrefix: kustomize-\nnamespace: apps\nresources:\n- cm.yaml\n",
                     "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n"})
    assert validate(run, tmp_path, "app/kustomization.yaml", "app/cm.yaml") == []


def test_a_charts_files_and_values_are_that_charts(run, tmp_path):
    """Was: object-malformed on Chart.yaml, yaml-syntax on templates, device-plugin-unknown-field 'replicaCount' and
    helm-values-unknown-key 'global' on another chart's values and ci/ values."""
    values = "replicaCount: 2\nglobal: {imageRegistry: x}\nresources:\n  limits: {cpu: 1}\nnodeSelector: {}\n"
    write(tmp_path, {"charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
                     "charts/web/values.yaml": values,
                     "charts/web/values-prod.yaml": values,
                     "charts/web/ci/lint-values.yaml": values,
                     "charts/web/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
                                                             "  name: {{ .Release.Name }}\n"})
    found = validate(run, tmp_path, "charts/web/Chart.yaml", "charts/web/values.yaml", "charts/web/values-prod.yaml",
                     "charts/web/ci/lint-values.yaml", "charts/web/templates/deployment.yaml", verbose=True)
    assert found == [("charts/web/Chart.yaml", 0, "info", "not-recognized",
                      "5 of 5 file(s) hold nothing gengpu judges (Helm chart files: 2, values of other charts: 2, "
                      "charts' own values.yaml: 1); `gengpu validate -v` says what each was taken for")]


def test_values_beside_nvidias_chart_are_nvidias_and_a_marker_names_a_chart_nothing_else_names(run, tmp_path):
    """A values file is the chart's whose Chart.yaml is beside it, or the chart a `# gengpu: chart=` line names; a
    key only another chart has is then a finding, where the same file without that evidence is not judged."""
    wrong = "driver:\n  enabled: false\ndevicePlugin:\n  configs:\n    name: sharing\n"
    write(tmp_path, {"gpu-operator/Chart.yaml": "apiVersion: v2\nname: gpu-operator\nversion: v26.7.0\n",
                     "gpu-operator/values-prod.yaml": wrong,
                     "elsewhere/marked.yaml": "# gengpu: chart=gpu-operator\n" + wrong,
                     "elsewhere/unmarked.yaml": wrong})
    found = judged(validate(run, tmp_path, "gpu-operator/values-prod.yaml", "elsewhere/marked.yaml",
                            "elsewhere/unmarked.yaml"))
    assert [(f[0], f[1], f[3]) for f in found] == [("elsewhere/marked.yaml", 5, "helm-values-unknown-key"),
                                                   ("gpu-operator/values-prod.yaml", 4, "helm-values-unknown-key")]


def test_a_helmrelease_patch_is_judged_as_the_release_it_patches(run, tmp_path):
    """Was: object-schema missing 'interval', 'chart', 'sourceRef' on a patch that holds only spec.values. Now the
    patch is judged after kustomize applies it: nothing missing, and the chart's values checked at the version the
    base release pins, at the patch's own lines."""
    write(tmp_path, {"base/release.yaml": HELM_RELEASE,
                     "base/kustomization.yaml": "resources:\n- release.yaml\n",
                     "prod/kustomization.yaml": "resources:\n- ../base\npatches:\n- path: values.yaml\n",
                     "prod/values.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n"
                                         "  name: gpu-operator\n  namespace: gpu-operator\nspec:\n  values:\n"
                                         "    devicePlugin:\n      configs:\n        name: sharing\n"})
    found = judged(validate(run, tmp_path, "prod/values.yaml"))
    assert found == [("prod/values.yaml", 9, "warning", "helm-values-unknown-key",
                      "HelmRelease gpu-operator gpu-operator values: devicePlugin.configs is not a key of the "
                      "gpu-operator chart (v24.9.0 to v26.7.0); Helm ignores it - did you mean config?")]


def test_deployment_patches_and_delete_directives_are_parts(run, tmp_path):
    """Was: missing required field 'selector' on a Deployment patch, unknown field '$patch' on a delete directive,
    missing 'spec' on kubebuilder's CRD patches that no kustomization applies."""
    write(tmp_path, {
        "base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n"
                            "    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n"
                            "    spec:\n      containers:\n      - name: web\n        image: nginx\n",
        "base/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n",
        "base/kustomization.yaml": "resources:\n- deploy.yaml\n- ns.yaml\n",
        "prod/kustomization.yaml": "resources:\n- ../base\npatchesStrategicMerge:\n- replicas.yaml\n- drop-ns.yaml\n",
        "prod/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
        "prod/drop-ns.yaml": "$patch: delete\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n",
        "config/crd/patches/webhook_in_widgets.yaml":
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.x.io\n"
            "spec:\n  conversion:\n    strategy: Webhook\n    webhookClientConfig: {}\n"})
    assert judged(validate(run, tmp_path, "prod/replicas.yaml", "prod/drop-ns.yaml",
                           "config/crd/patches/webhook_in_widgets.yaml")) == []


def test_a_patch_that_breaks_its_target_is_found_at_the_patchs_line(run, tmp_path):
    write(tmp_path, {
        "base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n"
                            "    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n"
                            "    spec:\n      containers:\n      - name: web\n        image: nginx\n",
        "base/kustomization.yaml": "resources:\n- deploy.yaml\n",
        "prod/kustomization.yaml": "resources:\n- ../base\npatches:\n- path: gpu.yaml\n",
        "prod/gpu.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicaz: 3\n"})
    assert judged(validate(run, tmp_path, "prod/gpu.yaml")) == [
        ("prod/gpu.yaml", 6, "error", "object-schema", "Deployment web at /spec/replicaz: unknown field 'replicaz'")]


def test_resources_are_judged_as_their_kustomization_completes_them(run, tmp_path):
    """Was: missing required field 'selector' (commonLabels adds it) and a webhook's service without a namespace
    (the kustomization's namespace fills it in); a field kustomize cannot fix is still found, at its line."""
    write(tmp_path, {
        "app/kustomization.yaml": "namespace: apps\ncommonLabels: {app: web}\nresources:\n- deploy.yaml\n- hook.yaml\n"
                                  "- broken.yaml\n",
        "app/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n"
                           "    spec:\n      containers:\n      - name: web\n        image: nginx\n",
        "app/hook.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n"
                         "  name: web\nwebhooks:\n- name: web.example.com\n  admissionReviewVersions: [v1]\n"
                         "  sideEffects: None\n  clientConfig:\n    service:\n      name: web\n",
        "app/broken.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  portz: []\n"})
    assert judged(validate(run, tmp_path, "app/deploy.yaml", "app/hook.yaml", "app/broken.yaml")) == [
        ("app/broken.yaml", 6, "error", "object-schema", "Service web at /spec/portz: unknown field 'portz'")]


def test_the_repositorys_own_crd_is_the_schema_of_its_custom_resources(run, tmp_path):
    """Was: a field of the repository's own (newer) NIMService CRD called unknown against gengpu's pinned copy."""
    from gengpu.schemas_dir import schemas_path

    schema = json.loads((schemas_path() / "crds" / "nimservice-apps-v1alpha1.json").read_text())
    schema["properties"]["spec"]["properties"]["newField"] = {"type": "string"}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "nimservices.apps.nvidia.com"},
           "spec": {"group": "apps.nvidia.com", "scope": "Namespaced",
                    "names": {"kind": "NIMService", "plural": "nimservices", "singular": "nimservice"},
                    "versions": [{"name": "v1alpha1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": schema}}]}}
    sample = ("apiVersion: apps.nvidia.com/v1alpha1\nkind: NIMService\nmetadata:\n  name: llm\nspec:\n"
              "  image: {repository: nvcr.io/nim/x, tag: '1.0'}\n  authSecret: ngc\n  expose:\n"
              "    service: {port: 8000}\n  storage:\n    pvc: {create: true, size: 10Gi}\n  newField: x\n")
    write(tmp_path, {"config/crd/bases/apps.nvidia.com_nimservices.yaml": json.dumps(crd),
                     "config/samples/llm.yaml": sample, "elsewhere/llm.yaml": sample})
    (tmp_path / "elsewhere" / ".git").mkdir()  # another repository: gengpu's pinned CRD, which lacks the field
    assert [f[:4] for f in judged(validate(run, tmp_path, "config/samples/llm.yaml", "elsewhere/llm.yaml"))] == [
        ("elsewhere/llm.yaml", 12, "error", "object-schema")]


@pytest.mark.parametrize("name, text", [
    (".common-ci.yml", "job:\n  script:\n    - !reference [.setup, script]\n"),
    ("mkdocs.yml", "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.emoji.twemoji\n"),
    ("recyclarr.yml", "sonarr:\n  main:\n    api_key: !env_var SONARR_API_KEY\n"),
    ("omni/cluster-template.yaml", "kind: Cluster\nname: home\nkubernetes:\n  version: v1.31.0\n"),
    ("bundle/tests/scorecard/config.yaml", "kind: Configuration\napiversion: scorecard.operatorframework.io/v1alpha3\n"
                                           "metadata:\n  name: config\n"),
    ("homepage/services.yaml", "- Group:\n    - App:\n        href: {{HOMEPAGE_VAR_URL}}\n"),
    ("manifests/deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Name }}\n"),
])
def test_files_of_other_tools_are_not_judged(run, tmp_path, name, text):
    """Was: yaml-tag on !reference, !!python/name and !env_var; object-malformed on cluster templates and the
    scorecard config; yaml-syntax on templates."""
    write(tmp_path, {name: text})
    found = validate(run, tmp_path, name)
    assert [f[3] for f in found] == ["not-recognized"]


def test_istios_merged_values_in_a_configmap_are_just_data(run, tmp_path):
    """Was: 59 device-plugin-unknown-field errors on the istio-sidecar-injector ConfigMap's values key."""
    values = json.dumps({"global": {"proxy": {"resources": {"limits": {"cpu": "2"}}}}, "sidecarInjectorWebhook": {}})
    write(tmp_path, {"istio.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio-sidecar-injector\n"
                                   f"data:\n  values: '{values}'\n"})
    assert validate(run, tmp_path, "istio.yaml") == []


def test_a_sops_encrypted_secret_is_not_judged(run, tmp_path):
    write(tmp_path, {"secret.sops.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n"
                                         "  token: ENC[AES256_GCM,data:abc,iv:x,tag:y,type:str]\nsops:\n"
                                         "  lastmodified: '2024-01-01T00:00:00Z'\n  mac: ENC[AES256_GCM,data:x]\n"
                                         "  version: 3.8.1\n"})
    assert [f[3] for f in validate(run, tmp_path, "secret.sops.yaml")] == ["not-recognized"]


def test_flux_substitution_placeholders_are_values_flux_fills_in(run, tmp_path):
    """In a repository whose Flux Kustomizations substitute variables, ${VAR:-568} is not a string where an integer
    goes; in a repository without, the API server gets the placeholder itself (tests/corpus ccc-gpu-reservation)."""
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${APP}-unlock\nspec:\n  template:\n    spec:\n"
           "      restartPolicy: Never\n      securityContext:\n        runAsUser: ${PUID:-568}\n"
           "      containers:\n      - name: c\n        image: busybox\n")
    flux = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app\nspec:\n"
            "  interval: 1h\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n"
            "  postBuild:\n    substitute: {APP: volsync}\n")
    write(tmp_path, {"flux/apps/job.yaml": job, "flux/ks.yaml": flux, "plain/job.yaml": job})
    (tmp_path / "flux" / ".git").mkdir()
    (tmp_path / "plain" / ".git").mkdir()
    assert [f[:4] for f in judged(validate(run, tmp_path, "flux/apps/job.yaml", "plain/job.yaml"))] == [
        ("plain/job.yaml", 10, "error", "object-schema")]


def test_an_anchor_defined_twice_is_read_as_kustomize_reads_it(run, tmp_path):
    """Was: yaml-syntax 'found duplicate anchor', so nothing in the file was judged (YAML 1.2 lets a later anchor
    replace an earlier one). The GPU finding in it is now found."""
    write(tmp_path, {"release.yaml": HELM_RELEASE.replace("  values:\n    driver:\n      enabled: false\n",
                                                          "  values:\n    driver: &off\n      enabled: false\n"
                                                          "    toolkit: &off\n      enabled: false\n"
                                                          "    devicePlugin:\n      configs: *off\n")})
    assert [f[1:4] for f in judged(validate(run, tmp_path, "release.yaml"))] == [
        (19, "warning", "helm-values-unknown-key")]


def test_advice_is_a_warning_only_where_its_consequence_is_in_the_files(run, tmp_path):
    """Was: dcgm-monitor-honor-labels as a warning on NVIDIA's own ServiceMonitor, whatever read the labels."""
    monitor = ("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: dcgm-exporter\nspec:\n"
               "  selector:\n    matchLabels: {app: nvidia-dcgm-exporter}\n  endpoints:\n  - port: gpu-metrics\n")
    alerts = ("apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: gpu\nspec:\n  groups:\n"
              "  - name: gpu\n    rules:\n    - alert: Idle\n      expr: avg by (pod) (DCGM_FI_DEV_GPU_UTIL) < 5\n")
    write(tmp_path, {"monitor.yaml": monitor, "alerts.yaml": alerts})
    alone = validate(run, tmp_path, "monitor.yaml")
    assert [(f[2], f[3]) for f in alone] == [("info", "dcgm-monitor-honor-labels")]
    together = validate(run, tmp_path, "monitor.yaml", "alerts.yaml")
    assert [(f[0], f[2], f[3]) for f in together] == [("monitor.yaml", "warning", "dcgm-monitor-honor-labels")]


def test_nvidias_own_daemons_and_the_sandbox_resource_are_not_mistakes(run, tmp_path):
    """Was: gpu-visible-devices-env on NVIDIA's device plugin DaemonSet, gpu-resource-name-unknown on
    nvidia.com/pgpu (the Kata sandbox device plugin's resource), flag-overridden-by-operator on a standalone
    plugin's own ConfigMap."""
    write(tmp_path, {
        "plugin.yaml": "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: nvidia-device-plugin\nspec:\n"
                       "  selector:\n    matchLabels: {app: dp}\n  template:\n    metadata:\n      labels: {app: dp}\n"
                       "    spec:\n      containers:\n      - name: dp\n"
                       "        image: nvcr.io/nvidia/k8s-device-plugin:v0.17.0\n        env:\n"
                       "        - {name: NVIDIA_VISIBLE_DEVICES, value: all}\n",
        "config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nvidia-device-plugin-config\n"
                       "  namespace: gpu-device-plugin\ndata:\n  config.yaml: |\n    version: v1\n    flags:\n"
                       "      failOnInitError: false\n",
        "kata.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: cc\nspec:\n  runtimeClassName: kata-qemu-nvidia-gpu\n"
                     "  containers:\n  - name: c\n    image: x\n    resources:\n      limits:\n        nvidia.com/pgpu: 1\n"})
    assert judged(validate(run, tmp_path, "plugin.yaml", "config.yaml", "kata.yaml")) == []


def test_verbose_says_what_each_file_was_taken_for(run, tmp_path):
    write(tmp_path, {"kustomization.yaml": "resources:\n- ns.yaml\n",
                     "ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: gpu\n",
                     ".github/workflows/ci.yaml": "on: push\njobs: {}\n"})
    result = run("validate", "kustomization.yaml", "ns.yaml", ".github/workflows/ci.yaml", "-v", "--no-cache",
                 cwd=tmp_path)
    said = [line for line in result.stderr.splitlines() if line.startswith("gengpu: ") and ": " in line[8:]]
    assert "gengpu: .github/workflows/ci.yaml: not judged: other: in .github/ (GitHub)" in said
    assert any(line.startswith("gengpu: ns.yaml:1: object (Namespace gpu)") for line in said)
    assert any(line.startswith("gengpu: kustomization.yaml:1: nothing GPU-related: kustomization: kustomize reads "
                               "a file of this name") for line in said)


def test_fields_of_a_newer_operator_release_the_files_pin_are_said_once(run, tmp_path):
    """A ClusterPolicy with fields gengpu's CRD (GPU Operator v26.7.0) lacks: unknown fields, unless the files install
    a newer operator, whose CRD may have them; then one line says so (was: an error per field)."""
    policy = ("apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: cluster-policy\nspec:\n"
              "  operator: {}\n  daemonsets: {}\n  dcgm: {enabled: true}\n"
              "  dcgmExporter: {enabled: true}\n  devicePlugin: {enabled: true}\n  driver: {enabled: true}\n"
              "  gfd: {enabled: true}\n  nodeStatusExporter: {enabled: false}\n  toolkit: {enabled: true}\n"
              "  validator: {}\n  futureThing: {enabled: true}\n  laterThing: true\n")
    write(tmp_path, {"policy.yaml": policy, "release.yaml": HELM_RELEASE.replace("v26.7.0", "v27.1.0")})
    alone = validate(run, tmp_path, "policy.yaml")
    assert [(f[1], f[2], f[3]) for f in alone] == [(16, "error", "object-schema"), (17, "error", "object-schema")]
    together = validate(run, tmp_path, "policy.yaml", "release.yaml")
    assert together == [("policy.yaml", 16, "info", "object-schema",
                         "ClusterPolicy cluster-policy: fields gengpu's CRD (from v26.7.0) does not have, 'futureThing' "
                         "first; these files install gpu-operator v27.1.0, whose CRD may have them: not checked")]


def test_an_anchor_defined_twice_in_a_file_nested_past_the_limit_is_a_finding(run, tmp_path):
    """scripts/fuzz case 3913: the stream that libyaml refuses for its second anchor is composed again in pure
    Python, which recursed once per level: 1,200 levels were gengpu's internal error (exit 3), not yaml-limit."""
    (tmp_path / "deep.yaml").write_text("a: &x 1\nb: &x 2\nc: " + "[" * 1200 + "]" * 1200 + "\n")
    result = run("validate", "deep.yaml", "--output", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert [(f["line"], f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]] == [
        (1, "yaml-limit", "values nest deeper than 100 levels")]
