"""Hostile and malformed input: every class the fuzzer found is a finding at its line, never a crash or a hang."""

import codecs
import json
import os
from pathlib import Path

import pytest

from gengpu.loading import reading, source

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: i
      resources:
        limits:
          nvidia.com/gpu: 1
"""


def validate(run, tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    result = run("validate", name, "--output", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    return [(f["rule"], f"{f['line']}:{f['column']}", f["message"]) for f in json.loads(result.stdout)["findings"]]


BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 10))

# Each in a file gengpu judges (a device-plugin config, or a Kubernetes object for tags of other tools): the same
# YAML in a file of another tool is not gengpu's to judge (test_hostile_yaml_of_another_tool_is_not_judged).
CASES = {
    "tag-int": ("sharing: !!int abc\n", [("yaml-tag", "1:10", "'abc' is not a valid !!int value")]),
    "tag-float": ("sharing: !!float x\n", [("yaml-tag", "1:10", "'x' is not a valid !!float value")]),
    "tag-bool": ("sharing: !!bool maybe\n", [("yaml-tag", "1:10", "'maybe' is not a valid !!bool value")]),
    "tag-custom": ("apiVersion: v1\nkind: ConfigMap\nmetadata: !Ref x\n",
                   [("yaml-tag", "3:11", "unknown tag '!Ref'")]),
    "tag-on-a-list": ("sharing: !!map [1]\n",
                      [("yaml-tag", "1:10", "a list cannot carry the tag 'tag:yaml.org,2002:map'")]),
    "merge-scalar": ("sharing: {<<: x}\n", [("yaml-merge", "1:15", "a merge key (<<) needs a mapping or a list of "
                                                                  "mappings")]),
    "alias-bomb": (BOMB, [("yaml-limit", "4:5", "the document expands to more than 100000 values through aliases "
                                                 "(an alias bomb?)")]),
    "alias-bomb-in-configmap": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nvidia-device-plugin-config}\ndata:\n  any: |\n"
        + "".join("    " + line + "\n" for line in BOMB.splitlines()),
        [("yaml-limit", "9:9", "the document expands to more than 100000 values through aliases (an alias bomb?)")]),
    # more digits than Python turns into an integer (sys.get_int_max_str_digits, 4300 by default): what gengpu cannot
    # read is said, not taken for a wrong !!int tag the file does not have; an explicit tag alike
    "int-5000-digits": ("sharing: " + "9" * 5000 + "\n",
                        [("yaml-limit", "1:10", "a number of 5000 digits; gengpu reads numbers of up to 4300")]),
    "tagged-int-5000-digits": ("sharing: !!int -" + "9" * 5000 + "\n",
                               [("yaml-limit", "1:10", "a number of 5000 digits; gengpu reads numbers of up to 4300")]),
    # one it reads, in the wrong place: the message quotes the value cut to its ends
    "int-4300-digits": ("sharing:\n  timeSlicing: " + "9" * 4300 + "\n",
                        [("device-plugin-config-schema", "2:16", "'sharing.timeSlicing': " + "9" * 60
                          + "…[4230 characters]…" + "9" * 10 + " is not of type 'object'")]),
    "nested-250": ("a: " + "[" * 250 + "]" * 250 + "\n",
                   [("yaml-limit", "1:104", "values nest deeper than 100 levels")]),
    "nested-2000": ("a: " + "[" * 2000 + "]" * 2000 + "\n",
                    [("yaml-limit", "1:1003", "values nest too deep for a YAML parser")]),
    "kind-list-after-a-pod": (POD + "---\nkind: [x]\n---\n- 1\n",
                              [("object-malformed", "13:1", "'kind' must be a string, not list"),
                               ("object-malformed", "15:1", "document 3 is a list, not a Kubernetes object")]),
    "invalid-utf8": (b"version: v1\n# caf\xe9\nflags: {}\n",
                     [("file-unreadable", "2:6", "byte 0xe9 is not UTF-8 text")]),
    "duplicate-key": ("sharing: 1\nflags: 2\nsharing: 3\n",
                      [("yaml-duplicate-key", "3:1", "duplicate key 'sharing' (the first one is on line 1)")]),
}


@pytest.mark.parametrize("text", ["a: !!int abc\n", "script: !reference [.setup, script]\n", "a: {<<: x}\n",
                                  "a: 1\nb: 2\na: 3\n", "docs: [1, 2\n"])
def test_hostile_yaml_of_another_tool_is_not_judged(run, tmp_path, text):
    """YAML that no Kubernetes tool or NVIDIA parser reads (a GitLab CI file's !reference, an app's config): not
    gengpu's to judge, whatever is wrong in it; one line says so."""
    assert validate(run, tmp_path, "ci.yaml", text) == [
        ("not-recognized", "0:0", "1 of 1 file(s) hold nothing gengpu judges (files of other tools: 1); "
                                  "`gengpu validate -v` says what each was taken for")]


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_file_is_a_finding(run, tmp_path, case):
    text, expected = CASES[case]
    assert validate(run, tmp_path, f"{case}.yaml", text) == expected


def test_merge_keys_resolve_as_kubectl_resolves_them(run, tmp_path):
    """Explicit keys win over merged ones; values keep the line they are written on."""
    text = ("version: v1\nbase: &base {replicas: 4, name: nvidia.com/gpu}\nsharing:\n  timeSlicing:\n"
            "    resources:\n      - <<: *base\n        replicas: 1\n")
    got = validate(run, tmp_path, "merge.yaml", text)
    assert ("sharing-replicas-too-low", "7:19",
            "device-plugin-config: sharing.timeSlicing.resources[0].replicas is 1; the plugin needs 2 or more and "
            "refuses the whole config") in got
    assert ("device-plugin-unknown-field", "2:1", "unknown field 'base'") in got


def test_utf16_with_a_byte_order_mark_is_read(run, tmp_path):
    text = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n      - name: nvidia.com/gpu\n        replicas: 1\n"
    assert validate(run, tmp_path, "utf16.yaml", codecs.BOM_UTF16_LE + text.encode("utf-16-le")) == [
        ("sharing-replicas-too-low", "6:19", "device-plugin-config: sharing.timeSlicing.resources[0].replicas is 1; "
                                             "the plugin needs 2 or more and refuses the whole config")]


def test_a_file_over_the_size_limit_is_refused_before_it_is_parsed(run, tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "MAX_BYTES", 1024 * 1024)
    text = "labels:\n" + "".join(f"  k{i}: v{i}\n" for i in range(100_000))
    assert validate(run, tmp_path, "big.yaml", text) == [
        ("yaml-limit", "1:1", "file is 1 MiB; gengpu reads files up to 1 MiB")]


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n", "{\"apiVersion\": \"gengpu.dev/v1alpha1\", "
                                  "\"kind\": \"GPUProfle\", \"metadata\": {\"name\": \"x\"}}\n"])
def test_validate_and_build_agree_on_a_file_in_profiles(run, tmp_path, text):
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "p.yaml").write_text(text)
    validated = run("validate", "profiles/p.yaml", cwd=tmp_path)
    default = run("validate", cwd=tmp_path)
    built = run("build", cwd=tmp_path)
    assert (validated.exit_code, default.exit_code, built.exit_code) == (1, 1, 1), validated.output
    assert not (tmp_path / "overlays").exists()


@pytest.mark.parametrize("value,found", [
    ("|\n    version: v1\n    sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]\n",
     ("yaml-syntax", "9:5", "invalid YAML: while parsing a flow mapping: did not find expected ',' or '}'")),
    ("|\n    version: v1\n    sharing:\n    \ttimeSlicing: {}\n",
     ("yaml-syntax", "9:5", "invalid YAML: while scanning for the next token: found character that cannot start "
                            "any token")),
    ("just-a-string", ("gpu-configmap-invalid", "6:3", "ConfigMap time-slicing-config key any holds a str, not a "
                                                       "device-plugin config")),
    ("''", ("gpu-configmap-invalid", "6:3", "ConfigMap time-slicing-config key any holds nothing, not a "
                                            "device-plugin config")),
])
def test_a_gpu_configmap_whose_value_is_no_config_is_an_error(run, tmp_path, value, found):
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: time-slicing-config\ndata:\n  any: {value}\n"
    assert validate(run, tmp_path, "cm.yaml", text) == [found]


def test_any_other_configmap_is_just_data(run, tmp_path):
    """A Kubernetes object gengpu checks (its schema) and finds nothing GPU-related in: nothing to say."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-settings\ndata:\n  any: 'a: [b'\n"
    assert validate(run, tmp_path, "cm.yaml", text) == []


def test_a_negative_gpu_quantity_is_an_error(run, tmp_path):
    assert validate(run, tmp_path, "pod.yaml", POD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: -1")) == [
        ("gpu-quantity-not-integer", "11:27", "Pod p: container c asks for -1 nvidia.com/gpu; GPUs come in whole "
                                              "numbers, 0 or more")]


def test_a_rule_the_compiler_relies_on_cannot_be_suppressed(run, tmp_path):
    """A T4 pool with MIG and the MIG rule suppressed: validate said clean and build crashed; now both refuse."""
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "t4.yaml").write_text("""\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata: {name: t4}
spec:
  platform: aks
  region: eastus
  kubernetesVersion: "1.33"
  nodePools:
    - name: t4
      gpu: T4
      instanceTypes: [Standard_NC4as_T4_v3]
      verify: true
      sharing: {mode: mig, mig: {strategy: single, preset: all-1g.5gb}}
  suppress:
    - rule: mig-requires-capable-gpu
      reason: we know better
  argocd: {repoURL: https://github.com/example/gitops.git}
""")
    result = run("validate", "--output", "json", cwd=tmp_path)
    found = [(f["rule"], f"{f['line']}:{f['column']}", f["message"]) for f in json.loads(result.stdout)["findings"]]
    assert ("mig-requires-capable-gpu", "13:23", "nodePools[0].sharing.mode is mig, but T4 does not support MIG") in found
    assert ("suppression-unknown-rule", "15:13", "spec.suppress[0].rule 'mig-requires-capable-gpu' cannot be "
                                                 "suppressed: gengpu cannot compile a profile that breaks it") in found
    built = run("build", cwd=tmp_path)
    assert built.exit_code == 1 and not (tmp_path / "overlays").exists()


def test_rules_skip_what_the_schema_already_refused(run, tmp_path):
    """resources: 5 where a list belongs crashed the sharing rules; the schema finding is the whole story."""
    text = "version: v1\nsharing:\n  timeSlicing:\n    resources: 5\n"
    assert validate(run, tmp_path, "dp.yaml", text) == [
        ("device-plugin-config-schema", "4:16", "'sharing.timeSlicing.resources': 5 is not of type 'array'")]


@pytest.mark.parametrize("name,text,expected", [
    ("clusterpolicy-list", "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: cp\nspec:\n"
                           "  devicePlugin: [1]\n",
     ("object-schema", "6:3", "ClusterPolicy cp at /spec/devicePlugin: [1] is not of type \"object\"")),
    ("limits-list", POD.replace("        limits:\n          nvidia.com/gpu: 1\n", "        limits:\n          - 1\n"),
     ("object-schema", "10:9", "Pod p at /spec/containers/0/resources/limits: [1] is not of types \"null\", "
                               "\"object\"")),
])
def test_a_wrong_shape_in_an_object_is_a_schema_finding(run, tmp_path, name, text, expected):
    assert expected in validate(run, tmp_path, f"{name}.yaml", text)


def test_an_unknown_gpu_with_a_verification_workload_is_refused_by_both(run, tmp_path):
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "p.yaml").write_text(
        "apiVersion: gengpu.dev/v1alpha1\nkind: GPUProfile\nmetadata: {name: p}\nspec:\n  platform: eks\n"
        "  region: us-east-1\n  kubernetesVersion: \"1.33\"\n  nodePools:\n    - name: x\n      gpu: Z9\n"
        "      instanceTypes: [g6.xlarge]\n      verify: true\n  argocd: {repoURL: https://github.com/e/g.git}\n")
    assert run("validate", cwd=tmp_path).exit_code == 1
    assert run("build", cwd=tmp_path).exit_code == 1
    assert not (tmp_path / "overlays").exists()


def test_keys_true_and_1_are_two_keys_and_checked_as_kubernetes_reads_them(run, tmp_path):
    # True == 1 in Python; YAML (and sigs.k8s.io/yaml, which makes them "true" and "1") keeps both.
    found = validate(run, tmp_path, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
                     "  labels:\n    true: a\n    1: 2\n")
    assert [rule for rule, _, _ in found] == ["object-schema"]
    assert "/metadata/labels/true: 2 is not of types" in found[0][2]


def test_a_key_that_is_not_a_string_in_a_gpu_config_is_a_finding(run, tmp_path):
    found = validate(run, tmp_path, "mig.yaml", "version: v1\nmig-configs:\n  on:\n    - devices: all\n"
                     "      mig-enabled: true\n")
    assert [(rule, at) for rule, at, _ in found] == [("mig-parted-config-schema", "4:7")]


def test_a_placement_whose_pool_is_not_a_name_is_no_crash(run, tmp_path):
    """Found by scripts/fuzz (case 10427): a Placement's spec.pool mutated into a mapping."""
    import shutil
    from pathlib import Path

    shutil.copytree(Path(__file__).resolve().parent.parent / "overlays" / "eks-h100-mig", tmp_path / "o")
    placement = tmp_path / "o" / "components" / "h100-mig-2g.20gb" / "placement.yaml"
    placement.write_text(placement.read_text().replace("  pool: h100-mig\n", "  pool:\n    replicas: 2\n"))
    result = run("validate", "o", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    assert "internal error" not in result.output


def test_a_verified_mig_pool_of_an_unknown_gpu_builds_without_a_verify_workload(run, tmp_path):
    """Found by the hypothesis test: with the unknown-GPU finding suppressed, the pool's MIG layout advertises
    nothing, and verify: true crashed the build (IndexError); now there is simply nothing to verify."""
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "f.yaml").write_text("""\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata: {name: fuzzed}
spec:
  platform: eks
  region: us-east-1
  kubernetesVersion: "1.30"
  nodePools:
    - name: p0
      gpu: Z9-unknown
      instanceTypes: [p3]
      provisioner: karpenter
      limits: {gpus: 8}
      verify: true
      sharing: {mode: mig, mig: {strategy: mixed, layout: {1g.5gb: 1}}}
  argocd: {repoURL: https://github.com/example/gitops.git}
  suppress:
    - {rule: unknown-gpu-model, reason: a model the catalog does not have yet}
""")
    result = run("build", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "overlays" / "fuzzed" / "kustomization.yaml").is_file()
    assert not (tmp_path / "overlays" / "fuzzed" / "verify").exists()


def test_a_pool_limited_to_no_nodes_whose_quota_has_no_name_is_judged_not_crashed(run, tmp_path):
    """Found by the hypothesis test: an AKS Karpenter spot/on-demand H200 pool with limits.nodes 0 crashed the
    fleet quota's sort (a quota without a name); now it gets its findings."""
    (tmp_path / "f.yaml").write_text(
        "apiVersion: gengpu.dev/v1alpha1\nkind: GPUProfile\nmetadata: {name: fuzzed}\nspec:\n  platform: aks\n"
        "  region: eastus\n  kubernetesVersion: \"1.30\"\n  nodePools:\n    - name: p0\n      gpu: H200-141GB\n"
        "      instanceTypes: [Standard_ND96isr_H200_v5]\n      provisioner: karpenter\n"
        "      capacityTypes: [spot, on-demand]\n      limits: {nodes: 0}\n      sharing: {mode: none}\n"
        "  argocd: {repoURL: \"https://github.com/example/gitops.git\"}\n")
    result = run("validate", "f.yaml", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "internal error" not in result.output
    assert "limits-below-one-node" in result.output


def test_a_fifo_is_not_read(run, tmp_path):
    """A FIFO would block the run until something writes to it; it is named and skipped, the other files checked."""
    os.mkfifo(tmp_path / "odd.yaml")
    what = "a FIFO"
    (tmp_path / "ok.yaml").write_text("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                                      "      - name: nvidia.com/gpu\n        replicas: 1\n")
    result = run("validate", "--output", "json", str(tmp_path / "odd.yaml"), str(tmp_path / "ok.yaml"),
                 cwd=tmp_path)
    found = sorted((f["file"].rsplit("/", 1)[-1], f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"])
    assert found == [
        ("odd.yaml", "file-unreadable", f"cannot read file: it is {what}, not a regular file"),
        ("ok.yaml", "sharing-replicas-too-low", "device-plugin-config: sharing.timeSlicing.resources[0].replicas is 1; "
                                                "the plugin needs 2 or more and refuses the whole config")]


def test_an_endless_device_is_read_no_further_than_the_limit(monkeypatch):
    """/dev/zero is a character device: refused before a byte is read. A regular file that grows without end is
    read up to the limit and refused."""
    assert reading.read_bytes(Path("/dev/zero"), "zero")[1][0].message == \
        "cannot read file: it is a character device, not a regular file"
    monkeypatch.setattr(reading, "MAX_BYTES", 10)
    raw, findings = reading.read_bytes(Path(__file__), "me")
    assert raw is None and [(f.rule, f.message) for f in findings] == [
        ("yaml-limit", f"file is {Path(__file__).stat().st_size // (1024 * 1024)} MiB; gengpu reads files up to 0 MiB")]


PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: gpu
spec:
  requirements:
    - key: karpenter.k8s.aws/instance-family
      operator: In
      values: ["g5"]
  ttlSecondsAfterEmpty: 30
"""


@pytest.mark.parametrize("old, new, message", [
    ("  requirements:\n    - key: karpenter.k8s.aws/instance-family\n      operator: In\n      values: [\"g5\"]\n",
     "  requirements: {key: karpenter.k8s.aws/instance-family}\n",
     "p.yaml:6:3: spec.requirements: is dict, not a list; write it as a list (- item per line)"),
    ("    - key: karpenter.k8s.aws/instance-family\n      operator: In\n      values: [\"g5\"]\n",
     "    - karpenter.k8s.aws/instance-family\n",
     "p.yaml:7:7: spec.requirements[0]: is str, not a mapping; write it as key: value pairs"),
    ("spec:\n  requirements:\n    - key: karpenter.k8s.aws/instance-family\n      operator: In\n      values: [\"g5\"]\n"
     "  ttlSecondsAfterEmpty: 30\n", "spec:\n  - a\n",
     "p.yaml:5:1: spec: is list, not a mapping; write it as key: value pairs"),
    ("  ttlSecondsAfterEmpty: 30\n", "  ttlSecondsAfterEmpty: 30\n  taints: [nvidia.com/gpu]\n",
     "p.yaml:11:12: spec.taints[0]: is str, not a mapping; write it as key: value pairs"),
    ("  ttlSecondsAfterEmpty: 30\n", "  ttlSecondsAfterEmpty: 30\n  taints: [{key: nvidia.com/gpu, effect: Sometimes}]\n",
     "p.yaml:11:12: spec.taints[0]: a taint needs a key and an effect of NoSchedule, PreferNoSchedule or NoExecute; "
     "fix the taint"),
    ("ttlSecondsAfterEmpty: 30", "ttlSecondsAfterEmpty: .inf",
     "p.yaml:10:25: spec.ttlSecondsAfterEmpty: Infinity is not a whole number of seconds; write a whole number, 0 or more"),
    ("ttlSecondsAfterEmpty: 30", "ttlSecondsAfterEmpty: .nan",
     "p.yaml:10:25: spec.ttlSecondsAfterEmpty: NaN is not a whole number of seconds; write a whole number, 0 or more"),
    ("ttlSecondsAfterEmpty: 30", "ttlSecondsAfterEmpty: thirty",
     "p.yaml:10:25: spec.ttlSecondsAfterEmpty: \"thirty\" is not a whole number of seconds; write a whole number, "
     "0 or more"),
    ("ttlSecondsAfterEmpty: 30", "ttlSecondsAfterEmpty: -30",
     "p.yaml:10:25: spec.ttlSecondsAfterEmpty: -30 is not a whole number of seconds; write a whole number, 0 or more"),
    ("ttlSecondsAfterEmpty: 30", "ttlSecondsAfterEmpty: 2.5",
     "p.yaml:10:25: spec.ttlSecondsAfterEmpty: 2.5 is not a whole number of seconds; write a whole number, 0 or more"),
    ("ttlSecondsAfterEmpty: 30", "ttlSecondsAfterEmpty: true",
     "p.yaml:10:25: spec.ttlSecondsAfterEmpty: true is not a whole number of seconds; write a whole number, 0 or more"),
])
def test_a_malformed_provisioner_is_refused_at_its_line(run, tmp_path, old, new, message):
    """Each of these exited 3 (a traceback), or wrote a wrong duration (-30s, 2.5s, Trues): now each is refused with
    its file, line, field and a fix, and nothing is printed for the profile."""
    assert old in PROVISIONER
    (tmp_path / "p.yaml").write_text(PROVISIONER.replace(old, new))
    result = run("import", "karpenter-provisioner", "p.yaml", cwd=tmp_path)
    assert (result.exit_code, result.output) == (2, f"gengpu: error: {message}\n")


def test_a_key_with_a_newline_stays_inside_its_comment(run, tmp_path):
    """A key printed raw into a "not imported" comment could start a line of its own in the YAML a user pastes."""
    (tmp_path / "p.yaml").write_text(PROVISIONER + '  "x\\nspec: {evil: true}": 1\n')
    result = run("import", "karpenter-provisioner", "p.yaml", cwd=tmp_path)
    assert result.exit_code == 0
    assert '# not imported: spec."x\\nspec: {evil: true}" is not imported: the profile has no field for it' in \
        result.output.splitlines()
    import yaml

    assert set(yaml.safe_load(result.output)) == {"zones", "nodePools"}


@pytest.mark.parametrize("make, what", [(lambda p: os.mkfifo(p), "a FIFO"),
                                        (lambda p: p.symlink_to("/dev/zero"), "a character device")])
def test_import_never_reads_a_fifo_or_a_device(run, tmp_path, make, what):
    """A FIFO blocked the import forever; /dev/zero was read until the kernel killed the process."""
    make(tmp_path / "p.yaml")
    result = run("import", "karpenter-provisioner", "p.yaml", cwd=tmp_path)
    assert (result.exit_code, result.output) == (
        2, f"gengpu: error: p.yaml:0:0: cannot read file: it is {what}, not a regular file\n")


FLOATS = """\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata:
  name: floats
spec:
  platform: aks
  region: eastus
  kubernetesVersion: "1.33"
  nodePools:
    - name: t4
      gpu: T4
      gpusPerNode: 1.0
      instanceTypes: [Standard_NC4as_T4_v3]
      provisioner: managed
      limits:
        nodes: 2.0
  argocd:
    repoURL: https://github.com/example/gitops.git
"""


def test_whole_number_floats_are_refused_not_written_as_counts(run, tmp_path):
    """JSON Schema's integer takes 1.0: gpusPerNode 1.0 and limits.nodes 2.0 validated clean and the AKS script got
    --max-count 2.0, which az refuses. Counts are whole numbers, written without a decimal point."""
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "floats.yaml").write_text(FLOATS)
    result = run("validate", "profiles/floats.yaml", "--output", "json", cwd=tmp_path)
    found = [(f["line"], f["column"], f["rule"], f["message"], f["fix"]) for f in json.loads(result.stdout)["findings"]]
    assert found == [
        (12, 20, "profile-schema", "'spec.nodePools[0].gpusPerNode': 1.0 is not of type 'integer'",
         "write a whole number without a decimal point: 1"),
        (16, 16, "profile-schema", "'spec.nodePools[0].limits.nodes': 2.0 is not of type 'integer'",
         "write a whole number without a decimal point: 2")]
    assert run("build", cwd=tmp_path).exit_code == 1
    assert not (tmp_path / "overlays").exists()


@pytest.mark.parametrize("field, value", [("name", '"nl\\n"'), ("pool", '"t4\\n"'), ("region", '"eastus\\n"')])
def test_a_name_ending_in_a_newline_is_refused(run, tmp_path, field, value):
    """Python's `$` matches before a final newline, ECMA-262's (JSON Schema's) does not: the fast engine refused
    these, the one that lists errors passed them, and build wrote overlays/nl<newline>/. The stricter verdict
    stands, with the error at the field."""
    text = FLOATS.replace("1.0", "1").replace("2.0", "2")
    text = {"name": text.replace("  name: floats", f"  name: {value}"),
            "pool": text.replace("    - name: t4", f"    - name: {value}"),
            "region": text.replace("  region: eastus", f"  region: {value}")}[field]
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "p.yaml").write_text(text)
    result = run("validate", "profiles/p.yaml", "--output", "json", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"] == ["profile-schema"]
    assert run("build", cwd=tmp_path).exit_code == 1
    assert not (tmp_path / "overlays").exists()


def test_one_definition_of_a_name():
    """The schema, init and import agree on what a name is (gengpu/names.py)."""
    from gengpu import names
    from gengpu.schemas_dir import profile_schema

    schema = profile_schema()
    for where in (schema["properties"]["metadata"]["properties"]["name"], schema["$defs"]["nodePool"]["properties"]["name"]):
        assert (where["pattern"], where["maxLength"]) == (names.PATTERN, names.MAX_LENGTH)
    assert [names.valid(n) for n in ("a", "a-1", "a\n", "-a", "a/b", "A", "a" * 40, "a" * 41, 1)] == \
        [True, True, False, False, False, False, True, False, False]
    assert names.slug("Ünïcode Dir/../x", "gpu") == "n-code-dir-x" and names.slug("///", "gpu") == "gpu"


@pytest.mark.parametrize("name", ["a/b", "nl\n", "../up", "Upper"])
def test_init_refuses_a_name_that_cannot_be_a_file_or_label(run, tmp_path, name):
    result = run("init", str(tmp_path / "repo"), "--platform", "eks", "--gpu", "L4", "--name", name)
    assert result.exit_code == 2
    assert result.output == (f"gengpu: error: --name {name!r} is not a valid name: use lowercase letters, digits and "
                             "dashes, starting and ending with a letter or digit, at most 40 characters\n")
    assert not (tmp_path / "repo").exists()
