"""The classes of issue 47, each on a fixture that states only what the class needs: the GPU stack's pods read as
kubectl prints them, lifecycle in flight (a driver upgrade, a renamed resource), slices pasted without devices, a
model outside the catalog, pools for VMs, and the subject of every live finding in JSON and SARIF. The corpus of
real states (tests/live-corpus/states.yaml) holds the same classes as they were pasted."""

import json

import pytest
import yaml

from gengpu.live import stack, tables
from gengpu.live.snapshot import Item
from gengpu.model import build_profile

PROFILE = {"apiVersion": "gengpu.dev/v1alpha1", "kind": "GPUProfile", "metadata": {"name": "live"},
           "spec": {"platform": "kubernetes", "kubernetesVersion": "1.33", "operator": {"version": "v26.7.0"},
                    "nodePools": [{"name": "gpu", "gpu": "L4", "gpusPerNode": 1}],
                    "argocd": {"repoURL": "https://github.com/example/gitops.git"}}}

# every STATUS kubectl prints for a pod (kubernetes pkg/printers/internalversion printPod), with READY and RESTARTS
STATUSES = ["Running", "Completed", "Pending", "ContainerCreating", "PodInitializing", "CrashLoopBackOff", "Error",
            "OOMKilled", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError", "RunContainerError",
            "ExitCode:137", "Signal:9", "Init:0/1", "Init:2/4", "Init:CrashLoopBackOff", "Init:Error",
            "Init:ImagePullBackOff", "Init:ExitCode:1", "Init:Signal:9", "Terminating", "Evicted", "NodeAffinity",
            "Unknown", "UnexpectedAdmissionError"]


@pytest.mark.parametrize("shown", STATUSES)
def test_a_pasted_row_reads_back_as_the_status_kubectl_printed(shown):
    """A table row becomes a pod whose container states kubectl would print as that STATUS: a row and a captured pod
    are judged by the same code."""
    pod = Item(tables.pod("nvidia-driver-daemonset-x7k2p", "gpu-operator", shown, "0/1", 3))
    assert stack.state(pod).shown == shown


@pytest.mark.parametrize("shown,verdict", [
    ("Running", ""), ("Completed", ""), ("CrashLoopBackOff", "failing"), ("Init:ImagePullBackOff", "failing"),
    ("Init:ExitCode:1", "failing"), ("OOMKilled", "failing"), ("Init:0/1", "waiting"), ("ContainerCreating", "waiting"),
    ("Pending", "waiting"), ("Terminating", ""), ("Evicted", "")])
def test_what_a_status_means_for_the_stack(shown, verdict):
    assert stack.verdict(Item(tables.pod("nvidia-device-plugin-daemonset-q8w4c", "", shown, "1/1", 0))) == verdict


def test_an_init_container_running_again_after_restarts_is_failing_and_its_log_is_every_containers():
    """Init:2/5 after 46 restarts (developer-onizuka/gpu-operator4, tests/live-corpus/states.yaml): kubectl shows
    Init:N/M between back-offs and counts the init containers' restarts, so the third init container keeps failing;
    a table does not name it, so the log to read is every container's, each line with its name."""
    pod = Item(tables.pod("nvidia-operator-validator-4rvfq", "", "Init:2/5", "0/2", 46))
    shown = stack.state(pod)
    assert (stack.verdict(pod), shown.shown, shown.ready, shown.restarts) == ("failing", "Init:2/5", "0/2", 46)
    assert stack.logs_command(pod, stack.component(pod), shown) == \
        "kubectl logs nvidia-operator-validator-4rvfq --all-containers --prefix"
    assert stack.verdict(Item(tables.pod("nvidia-operator-validator-4rvfq", "", "Init:2/5", "0/2", 0))) == "waiting"


def test_not_ready_is_a_running_pod_with_a_completed_container_and_waits():
    """kubectl prints NotReady for a running pod one of whose containers completed while another runs, without a
    Ready condition (printPod): nvidia-cuda-validator 1/2 beside a sidecar that never exits."""
    pod = Item(tables.pod("nvidia-cuda-validator-8l6zq", "", "NotReady", "1/2", 0))
    shown = stack.state(pod)
    assert (shown.shown, shown.ready, pod.text("status", "phase"), stack.verdict(pod)) == \
        ("NotReady", "1/2", "Running", "waiting")


def test_running_but_not_ready_is_failing_after_restarts_and_waiting_before():
    """NVIDIA's troubleshooting shows a driver pod 0/2 Running with 3 restarts as the cause of every Init:0/1."""
    assert stack.verdict(Item(tables.pod("nvidia-driver-daemonset-4rtiu", "", "Running", "0/2", 3))) == "failing"
    assert stack.verdict(Item(tables.pod("nvidia-driver-daemonset-4rtiu", "", "Running", "0/2", 0))) == "waiting"


@pytest.mark.parametrize("name,component", [
    ("nvidia-driver-daemonset-48.84.202110270303-0-9df9j", "NVIDIA driver container"),
    ("nvidia-gpu-driver-ubuntu22.04-7c9d8", "NVIDIA driver container"),
    ("nvidia-device-plugin-validator-87zdl", "GPU Operator validator"),
    ("nvidia-device-plugin-daemonset-nqxmc", "NVIDIA device plugin"),
    ("gpu-operator-1780680501-node-feature-discovery-worker-2gb9m", "Node Feature Discovery"),
    ("gpu-operator-69fd4d9858-nvrvc", "GPU Operator"),
    ("nvidia-gpu-device-plugin-small-cos-4fpl4", "GKE device plugin"),
    ("nvidia-dra-driver-gpu-kubelet-plugin-qsp2x", "NVIDIA DRA driver"),
    ("shop-7c9d8f-x2k4p", None)])
def test_which_part_of_the_stack_a_pod_is_by_its_name(name, component):
    found = stack.component(Item({"metadata": {"name": name}}))
    assert (found.name if found else None) == component


def test_a_pod_of_another_name_is_the_stack_by_its_image():
    """A ComputeDomain's daemon pods are named after the domain: their image says what they are."""
    pod = Item({"metadata": {"name": "training-7f4kd"}, "spec": {"containers": [
        {"name": "compute-domain-daemon", "image": "nvcr.io/nvidia/k8s-dra-driver-gpu:v25.12.0"}]}})
    assert stack.component(pod).name == "NVIDIA DRA driver"


def test_a_mixed_paste_reads_each_table_and_leaves_the_rest_to_the_node_reader(tmp_path, run):
    """`kubectl get pods -o wide`, then a node's describe, then its events, in one paste."""
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(PROFILE))
    (tmp_path / "s.txt").write_text(
        "$ kubectl get pods -n gpu-operator -o wide\n"
        "NAME                                  READY   STATUS                  RESTARTS   AGE   IP          NODE\n"
        "nvidia-container-toolkit-daemonset-x  0/1     Init:ImagePullBackOff   0          73m   10.0.1.4    gpu-1\n"
        "$ kubectl describe node gpu-1\n"
        "Name:               gpu-1\n"
        "Labels:             nvidia.com/gpu.present=true\n"
        "                    nvidia.com/gpu.product=NVIDIA-L4\n"
        "Capacity:\n"
        "  cpu:             8\n"
        "Allocatable:\n"
        "  cpu:             8\n")
    result = run("check", "p.yaml", "--snapshot", "s.txt", "--output", "json", cwd=tmp_path)
    got = [(f["file"], f["line"], f["rule"], f.get("object"), f.get("node"), f.get("pool"))
           for f in json.loads(result.stdout)["findings"] if f["severity"] != "info"]
    assert got == [  # (a node of a pool: at the pool in the profile, its promise)
        ("p.yaml", 10, "node-gpus-not-advertised", "Node/gpu-1", "gpu-1", "gpu"),
        ("s.txt", 3, "gpu-stack-pod-failing", "Pod/gpu-operator/nvidia-container-toolkit-daemonset-x", "gpu-1", "gpu")]


def _check(run, tmp_path, profile: dict, snapshot: str, name: str = "s.txt"):
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(profile))
    (tmp_path / name).write_text(snapshot)
    result = run("check", "p.yaml", "--snapshot", name, "--output", "json", cwd=tmp_path)
    return [(f["rule"], f["severity"]) for f in json.loads(result.stdout)["findings"] if f["severity"] != "info"]


def _snapshot(*items) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(items)})


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-1", "labels": {
    "nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "1"}},
    "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"},
               "conditions": [{"type": "Ready", "status": "True"}]}}


def _policy(states: str) -> dict:
    return {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"},
            "spec": {}, "status": {"state": "notReady", "conditions": [
                {"type": "Ready", "status": "False", "reason": "OperandNotReady",
                 "message": f"ClusterPolicy is not ready, states not ready: [{states}]"}]}}


def test_a_driver_upgrade_in_flight_is_not_an_operator_failure(run, tmp_path):
    """The upgrade controller keeps the ClusterPolicy notReady on its driver state while nodes upgrade: the node says
    it (a warning); a state other than the driver's is still the operator's error."""
    upgrading = {**NODE, "metadata": {**NODE["metadata"], "labels": {
        **NODE["metadata"]["labels"], "nvidia.com/gpu-driver-upgrade-state": "upgrade-required"}}}
    assert _check(run, tmp_path, PROFILE, _snapshot(upgrading, _policy("state-driver"))) == \
        [("node-driver-upgrading", "warning")]
    assert _check(run, tmp_path, PROFILE, _snapshot(upgrading, _policy("state-driver, state-container-toolkit"))) == \
        [("node-driver-upgrading", "warning"), ("operator-not-ready", "error")]
    assert _check(run, tmp_path, PROFILE, _snapshot(NODE, _policy("state-driver"))) == [("operator-not-ready", "error")]


def test_a_resourceslice_table_shows_no_devices_and_is_not_read_as_none(run, tmp_path):
    """`kubectl get resourceslices` lists slices, not their devices: a DRA node with its gpu.nvidia.com slice there
    publishes GPUs, however many."""
    dra = {**PROFILE, "spec": {**PROFILE["spec"], "kubernetesVersion": "1.34",
                               "nodePools": [{"name": "gpu", "gpu": "L4", "gpusPerNode": 1, "allocation": "dra"}]}}
    node = ("Name:               gpu-1\nLabels:             nvidia.com/gpu.present=true\n"
            "                    nvidia.com/gpu.product=NVIDIA-L4\n")
    table = ("NAME                          NODE    DRIVER           POOL    AGE\n"
             "gpu-1-gpu.nvidia.com-kx9f2    gpu-1   gpu.nvidia.com   gpu-1   3m\n")
    assert _check(run, tmp_path, dra, node + table) == []
    assert _check(run, tmp_path, dra, node + table.replace("gpu.nvidia.com ", "compute-domain.nvidia.com ")
                  .replace("DRIVER          ", "DRIVER                     ")) == [("node-gpus-not-advertised", "error")]


def test_a_model_outside_the_catalog_ties_to_its_node_by_its_product_string(run, tmp_path):
    other = {**PROFILE, "spec": {**PROFILE["spec"], "nodePools": [
        {"name": "gpu", "gpu": "NVIDIA-GeForce-RTX-5090", "gpusPerNode": 1}]}}
    node = {**NODE, "metadata": {"name": "gpu-1", "labels": {"nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-5090",
                                                               "nvidia.com/gpu.count": "1"}}}
    second = {**node, "metadata": {**node["metadata"], "name": "gpu-2"}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(other))
    (tmp_path / "s.yaml").write_text(_snapshot(node, second))
    result = run("check", "p.yaml", "--snapshot", "s.yaml", "--output", "json", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["unknown-gpu-model"]


VM = {**PROFILE, "spec": {**PROFILE["spec"], "nodePools": [
    {"name": "vgpu", "gpu": "A10", "gpusPerNode": 2, "workload": "vm-vgpu", "vgpuType": "A10-8Q"},
    {"name": "pass", "gpu": "A10", "gpusPerNode": 2, "workload": "vm-passthrough",
     "nodeSelector": {"example.com/pool": "pass"}}]}}


def _vm_node(name: str, allocatable: dict, labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-A10", **(labels or {})}},
        "status": {"capacity": allocatable, "allocatable": allocatable,
                   "conditions": [{"type": "Ready", "status": "True"}]}}


def test_gpus_for_vms_are_judged_by_the_sandbox_plugins_resources(run, tmp_path):
    """vGPU: GPUs x the type's share of the frame buffer (A10-8Q: 3 per A10); passthrough: one per GPU, by device
    name; names of an earlier layout at 0 say nothing."""
    healthy = _snapshot(
        _vm_node("v1", {"nvidia.com/NVIDIA_A10-8Q": "6", "nvidia.com/NVIDIA_A10-12Q": "0", "nvidia.com/gpu": "0"},
                 {"nvidia.com/gpu.workload.config": "vm-vgpu"}),
        _vm_node("p1", {"nvidia.com/GA102GL_A10": "2"}, {"example.com/pool": "pass"}))
    assert _check(run, tmp_path, VM, healthy, "s.yaml") == []
    broken = _snapshot(
        _vm_node("v1", {"nvidia.com/NVIDIA_A10-8Q": "3"}, {"nvidia.com/gpu.workload.config": "vm-vgpu"}),
        _vm_node("p1", {"nvidia.com/GA102GL_A10": "1", "nvidia.com/2236": "0"}, {"example.com/pool": "pass"}),
        _vm_node("p2", {"nvidia.com/gpu": "2"}, {"example.com/pool": "pass"}))
    assert sorted(_check(run, tmp_path, VM, broken, "s.yaml")) == [
        ("node-gpus-missing", "error"), ("node-gpus-missing", "error"), ("node-gpus-not-advertised", "error")]


def test_pools_for_vms_label_their_nodes_and_turn_on_the_sandbox_stack():
    from gengpu.compiling import nodes, operator_app

    cc = {**VM, "spec": {**VM["spec"], "nodePools": [*VM["spec"]["nodePools"], {
        "name": "cc", "gpu": "H100-80GB", "gpusPerNode": 8, "workload": "vm-passthrough",
        "confidentialComputing": "on"}]}}
    profile = build_profile(cc, "p.yaml")
    vgpu, passthrough, confidential = profile.node_pools
    assert nodes.node_labels(profile, vgpu) == {"gengpu.dev/pool": "vgpu", "nvidia.com/gpu.workload.config": "vm-vgpu",
                                                "nvidia.com/vgpu.config": "A10-8Q"}
    assert nodes.node_labels(profile, passthrough) == {
        "gengpu.dev/pool": "pass", "nvidia.com/gpu.workload.config": "vm-passthrough"}
    assert nodes.node_labels(profile, confidential)["nvidia.com/cc.mode"] == "on"
    values = operator_app.helm_values(profile)
    assert values["sandboxWorkloads"] == {"enabled": True, "defaultWorkload": "container", "mode": "kata"}
    assert values["ccManager"] == {"enabled": True, "defaultMode": "off"}
    assert "sandboxWorkloads" not in operator_app.helm_values(build_profile(PROFILE, "p.yaml"))


def test_live_findings_name_their_subject_for_machines(run, tmp_path):
    """object, node and pool in JSON; the same as SARIF result properties; control characters made visible."""
    pods = ("NAME                              READY   STATUS             RESTARTS   AGE   IP         NODE\n"
            "nvidia-driver-daemonset-7xk2p     0/1     CrashLoopBackOff   6          14m   10.0.1.1   gpu-1\n")
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(PROFILE))
    (tmp_path / "s.txt").write_text(pods)
    found = json.loads(run("check", "p.yaml", "--snapshot", "s.txt", "--output", "json", cwd=tmp_path).stdout)
    assert [(f["object"], f["node"], "pool" in f) for f in found["findings"]] == \
        [("Pod/nvidia-driver-daemonset-7xk2p", "gpu-1", False)]
    sarif = json.loads(run("check", "p.yaml", "--snapshot", "s.txt", "--output", "sarif", cwd=tmp_path).stdout)
    assert sarif["runs"][0]["results"][0]["properties"] == {"object": "Pod/nvidia-driver-daemonset-7xk2p",
                                                            "node": "gpu-1"}
    from gengpu.findings import Finding
    from gengpu.reporting import safe

    shown = safe.findings([Finding("s.txt", 1, 1, "error", "x", "m", subject="Pod/a\x1b[31mb", node="n\x07")])[0]
    assert (shown.subject, shown.node) == ("Pod/a\\x1b[31mb", "n\\x07")


def test_a_profile_without_a_device_plugin_is_not_held_against_nodes_that_register_gpus(run, tmp_path):
    """no-device-plugin is the profile's (nothing gengpu installs runs one); nodes that register GPUs show the cluster
    runs its own, and check does not contradict them."""
    bare = {**PROFILE, "spec": {**PROFILE["spec"], "operator": {"enabled": False}}}
    assert _check(run, tmp_path, bare, _snapshot(NODE), "s.yaml") == []
    silent = {**NODE, "status": {**NODE["status"], "capacity": {"cpu": "8"}, "allocatable": {"cpu": "8"}}}
    assert sorted(_check(run, tmp_path, bare, _snapshot(silent), "s.yaml")) == [
        ("no-device-plugin", "error"), ("node-gpus-not-advertised", "error")]


@pytest.mark.parametrize("state, expected", [
    # operands paused while the driver pod restarts: upgrading, with or without a state label
    (None, [("node-driver-upgrading", "warning")]),
    ("pod-restart-required", [("node-driver-upgrading", "warning")]),
    # the upgrade gave up with the operands still paused: failed, and only that (not also "upgrading")
    ("upgrade-failed", [("node-driver-upgrade-failed", "error")]),
])
def test_paused_operands_are_told_by_the_upgrade_state_beside_them(run, tmp_path, state, expected):
    labels = {**NODE["metadata"]["labels"], "nvidia.com/gpu.deploy.device-plugin": "paused-for-driver-upgrade",
              "nvidia.com/gpu.deploy.dcgm-exporter": "paused-for-driver-upgrade"}
    if state:
        labels["nvidia.com/gpu-driver-upgrade-state"] = state
    node = {**NODE, "metadata": {**NODE["metadata"], "labels": labels}}
    assert _check(run, tmp_path, PROFILE, _snapshot(node)) == expected


def _event(kind: str, name: str, message: str) -> dict:
    return {"involvedObject": {"kind": kind, "name": name}, "type": "Warning", "reason": "X", "message": message}


@pytest.mark.parametrize("kind, name, message, kept", [
    # the GPU stack's own objects: any Warning about one
    ("ClusterPolicy", "cluster-policy", "x", True), ("NVIDIADriver", "default", "x", True),
    ("GPUCluster", "g", "x", True), ("ComputeDomain", "cd", "x", True),
    # a GPU node's, and not another node's
    ("Node", "gpu-1", "NodeNotReady", True), ("Node", "cpu-1", "NodeNotReady", False),
    # a pod or DaemonSet of the stack, by its name
    ("Pod", "nvidia-device-plugin-daemonset-x7k2p", "Back-off restarting failed container", True),
    ("DaemonSet", "nvidia-dcgm-exporter", "x", True), ("Pod", "web-7d9f", "Back-off restarting failed container", False),
    ("Deployment", "nvidia-device-plugin-daemonset", "x", False),  # (a Deployment is no pod or DaemonSet of it)
    # words that name the GPU, or a message the stack's known causes explain (kinds.yaml stackEvents)
    ("Pod", "train-0", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.", True),
    ("Pod", "train-0", "failed to find plugin \"gke\" in path", True),
    ("Pod", "train-0", "Readiness probe failed", False),
    ("Pod", "train-0", "PodResources API Get method disabled", True),
    ("Pod", "train-0", "Liveness probe failed: HTTP probe failed with statuscode: 500", False),
])
def test_which_warnings_a_live_capture_keeps(kind, name, message, kept):
    from gengpu.live.kube import _gpu_event

    assert _gpu_event(_event(kind, name, message), {"gpu-1"}) is kept


def test_a_kept_warnings_message_is_cut_at_its_bound():
    from gengpu.live.kube import EVENT_MESSAGE, _gpu_event

    for length, shown in ((EVENT_MESSAGE, "x" * EVENT_MESSAGE), (EVENT_MESSAGE + 1, "x" * EVENT_MESSAGE + " ...")):
        event = _event("ClusterPolicy", "cluster-policy", "x" * length)
        assert _gpu_event(event, set()) and event["message"] == shown
    event = _event("Pod", "web", "y" * (EVENT_MESSAGE + 1))
    assert not _gpu_event(event, set()) and event["message"] == "y" * (EVENT_MESSAGE + 1)  # (dropped: left whole)
    assert _gpu_event({"involvedObject": None, "message": None}, {"gpu-1"}) is False


@pytest.mark.parametrize("ns, state, logs, command", [
    # the container the status names, its previous run's log after restarts
    ("gpu-operator", stack.PodState("CrashLoopBackOff", "0/1", 3, "nvidia-driver-ctr", False, ""), "",
     "kubectl logs -n gpu-operator p -c nvidia-driver-ctr --previous"),
    # CrashLoopBackOff with no restart counted yet, plain or of an init container: still the run that failed
    ("", stack.PodState("CrashLoopBackOff", "0/1", 0, "c", False, ""), "", "kubectl logs p -c c --previous"),
    ("", stack.PodState("Init:CrashLoopBackOff", "0/1", 0, "driver-validation", True, ""), "",
     "kubectl logs p -c driver-validation --previous"),
    # no container named: the component's own, and no previous run to read
    ("", stack.PodState("ImagePullBackOff", "0/1", 0, "", False, ""), "nvidia-device-plugin",
     "kubectl logs p -c nvidia-device-plugin"),
    ("", stack.PodState("Pending", "0/1", 0, "", False, ""), "", "kubectl logs p"),
    # an init container a table does not name: every container's log, each line with its name
    ("", stack.PodState("Init:0/3", "0/1", 0, "", True, ""), "toolkit", "kubectl logs p --all-containers --prefix"),
    # values that reach a shell are quoted
    ("team a", stack.PodState("Error", "0/1", 1, "c;rm -rf /", False, ""), "",
     "kubectl logs -n 'team a' p -c 'c;rm -rf /' --previous"),
])
def test_the_log_command_a_failing_pod_is_told_to_read(ns, state, logs, command):
    pod = Item({"kind": "Pod", "metadata": {"name": "p", **({"namespace": ns} if ns else {})}})
    assert stack.logs_command(pod, stack.Component("c", logs, "", ""), state) == command


_PULL_CAUSE = ("its image cannot be pulled (kubectl describe pod names the image and the registry's answer): a version "
               "with no image for this node's OS (the driver's images are tagged per version and OS), a private "
               "registry without its pull secret, or no route to the registry")
_CONFIG_CAUSE = "a ConfigMap or Secret it reads is missing (kubectl describe pod names it)"
_RUNTIME_CAUSE = ("the container runtime could not start it (kubectl describe pod says why; for NVIDIA's containers "
                  "most often the nvidia runtime or its hook missing on the node)")
_OOM_CAUSE = "it was killed for exceeding its memory limit: raise the component's resources.limits.memory"


@pytest.mark.parametrize("reason, cause", [
    # kubelet's waiting and terminated reasons (images.ErrImagePullBackOff ..., kuberuntime's ErrCreateContainer ...)
    *[(r, _PULL_CAUSE) for r in ("ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull",
                                 "RegistryUnavailable", "SignatureValidationFailed")],
    ("CreateContainerConfigError", _CONFIG_CAUSE),
    *[(r, _RUNTIME_CAUSE) for r in ("CreateContainerError", "RunContainerError", "ContainerCannotRun", "StartError",
                                    "PreStartHookError", "PostStartHookError", "PreCreateHookError",
                                    "ImageInspectError")],
    ("OOMKilled", _OOM_CAUSE),
    # no cause of its own: what the component's failure usually is
    ("CrashLoopBackOff", None), ("Error", None), ("ExitCode:2", None),
])
@pytest.mark.parametrize("init", [False, True])
def test_a_failing_stack_pods_cause_is_its_reasons_in_its_containers_or_its_init_containers(reason, cause, init):
    """The cause a finding gives for a failing pod of the stack is its STATUS's (a pull, a ConfigMap or Secret, the
    runtime, memory), whether a container or an init container shows it; other reasons get the component's own."""
    pod = Item(tables.pod("nvidia-driver-daemonset-x7k2p", "gpu-operator", ("Init:" if init else "") + reason,
                          "0/1", 3))
    comp = stack.component(pod)
    assert comp.name == "NVIDIA driver container" and stack.verdict(pod) == "failing"
    assert stack.cause(pod, comp, stack.state(pod)) == (cause or comp.failing)
    assert comp.failing not in (_PULL_CAUSE, _CONFIG_CAUSE, _RUNTIME_CAUSE, _OOM_CAUSE)


def test_an_event_message_of_no_known_cause_has_none():
    assert stack.event_cause("Successfully assigned gpu-operator/nvidia-driver-daemonset-x7k2p to gpu-1") == ""


@pytest.mark.parametrize("state", ["running", ["waiting"], None, 7, {"waiting": "CrashLoopBackOff"}])
def test_a_container_state_that_is_no_mapping_is_no_state(state):
    """A snapshot edited by hand, or cut, may hold a container's state as something other than the API's mapping
    of one state: the container is read as in no state, as kubectl prints it (no reason of its own), never an error."""
    pod = Item({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nvidia-driver-daemonset-x7k2p"},
                "spec": {"containers": [{"name": "nvidia-driver-ctr"}]},
                "status": {"phase": "Running", "containerStatuses": [
                    {"name": "nvidia-driver-ctr", "ready": False, "restartCount": 2, "state": state}]}})
    shown = stack.state(pod)
    assert (shown.shown, shown.ready, shown.restarts, shown.container, stack.verdict(pod)) == \
        ("Running", "0/1", 2, "", "failing")


def _api_pod(inits: list[tuple[str, bool]], init_statuses: list[dict], statuses: list[dict], phase: str,
             conditions: list[dict], containers: tuple[str, ...] = ("main",), **spec) -> dict:
    """A pod as the API holds it: its init containers (name, whether a sidecar: restartPolicy Always), its
    containers, and the statuses the kubelet reported."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nvidia-device-plugin-daemonset-q8w4c"},
            "spec": {"initContainers": [{"name": n, **({"restartPolicy": "Always"} if sidecar else {})}
                                        for n, sidecar in inits],
                     "containers": [{"name": n} for n in containers], **spec},
            "status": {"phase": phase, "conditions": conditions, "initContainerStatuses": init_statuses,
                       "containerStatuses": statuses}}


def _status(name: str, state: dict, restarts: int = 0, ready: bool = False, started: bool | None = None,
            **more) -> dict:
    return {"name": name, "state": state, "ready": ready, "restartCount": restarts,
            **({"started": started} if started is not None else {}), **more}


_INITIALIZING = [{"type": "Initialized", "status": "False"}, {"type": "PodScheduled", "status": "True"}]
_WAITS = [_status("main", {"waiting": {"reason": "PodInitializing"}})]
# Pods in states the pasted rows never show, with the READY, STATUS and RESTARTS kubectl's printPod prints for them
# (k8s.io/kubernetes v1.34.2 pkg/printers/internalversion/printers.go; tests/test_live.py has a real API server print
# each), and the container the state is about, whether it is an init container, and its message.
API_PODS = {
    # an init container running (the kubelet marks every running container started, sidecar or not): the device
    # plugin waits on its toolkit-validation init container, which has restarted 3 times
    "init-running": (_api_pod([("toolkit-validation", False)], [
        _status("toolkit-validation", {"running": {}}, restarts=3, started=True)], _WAITS, "Pending", _INITIALIZING),
        ("0/1", "Init:0/1", 3), "toolkit-validation", True, ""),
    # a sidecar started and ready is counted in READY, and the init container after it is the one running
    "sidecar-then-init": (_api_pod([("log-agent", True), ("toolkit-validation", False)], [
        _status("log-agent", {"running": {}}, restarts=1, ready=True, started=True),
        _status("toolkit-validation", {"running": {}}, started=True)], _WAITS, "Pending", _INITIALIZING),
        ("1/2", "Init:1/2", 1), "toolkit-validation", True, ""),
    # initialized: READY counts the sidecar beside the containers, RESTARTS the sidecar's restarts too
    # (a completed init container's restarts are not counted once the pod is initialized; a sidecar's are)
    "sidecar-running": (_api_pod([("log-agent", True), ("driver-wait", False)], [
        _status("log-agent", {"running": {}}, restarts=2, ready=True, started=True),
        _status("driver-wait", {"terminated": {"exitCode": 0, "reason": "Completed"}}, restarts=1)],
        [_status("main", {"running": {}}, restarts=1, ready=True, started=True)], "Running",
        [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"},
         {"type": "PodScheduled", "status": "True"}]),
        ("2/2", "Running", 3), "", False, ""),
    # two sidecars, one of them not ready: READY counts the ready one
    "two-sidecars": (_api_pod([("log-agent", True), ("metrics", True)], [
        _status("log-agent", {"running": {}}, ready=True, started=True),
        _status("metrics", {"running": {}}, ready=False, started=True)],
        [_status("main", {"running": {}}, ready=True, started=True)], "Running",
        [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "False"}]),
        ("2/3", "Running", 0), "", False, ""),
    # an init container that cannot pull its image, or that ended in error: the state's own message
    "init-image-pull": (_api_pod([("toolkit-validation", False)], [
        _status("toolkit-validation", {"waiting": {"reason": "ImagePullBackOff", "message": 'Back-off pulling image '
                                                   '"nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.10.9"'}})],
        _WAITS, "Pending", _INITIALIZING),
        ("0/1", "Init:ImagePullBackOff", 0), "toolkit-validation", True,
        'Back-off pulling image "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.10.9"'),
    "init-error": (_api_pod([("driver-validation", False)], [
        _status("driver-validation", {"terminated": {"exitCode": 1, "reason": "Error",
                                                     "message": "nvidia-smi: command not found"}}, restarts=1)],
        _WAITS, "Pending", _INITIALIZING),
        ("0/1", "Init:Error", 1), "driver-validation", True, "nvidia-smi: command not found"),
    # (states that carry no message: none)
    "init-config-error": (_api_pod([("toolkit-validation", False)], [
        _status("toolkit-validation", {"waiting": {"reason": "CreateContainerConfigError"}})], _WAITS, "Pending",
        _INITIALIZING), ("0/1", "Init:CreateContainerConfigError", 0), "toolkit-validation", True, ""),
    "init-exit-code": (_api_pod([("driver-validation", False)], [
        _status("driver-validation", {"terminated": {"exitCode": 3}})], _WAITS, "Pending", _INITIALIZING),
        ("0/1", "Init:ExitCode:3", 0), "driver-validation", True, ""),
    # a container crash-looping: why it last ended, not the back-off
    "container-crashloop": (_api_pod([], [], [
        _status("main", {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed "
                                     "container=main"}}, restarts=9,
                lastState={"terminated": {"exitCode": 1, "reason": "Error",
                                          "message": "failed to get device handle"}})],
        "Running", [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "False"}]),
        ("0/1", "CrashLoopBackOff", 9), "main", False, "failed to get device handle"),
    # the second init container crash-looping after the first completed: RESTARTS counts both, the message is why it
    # last ended (CrashLoopBackOff's own says only "back-off")
    "second-init-crashloop": (_api_pod([("k8s-driver-manager", False), ("toolkit-validation", False)], [
        _status("k8s-driver-manager", {"terminated": {"exitCode": 0, "reason": "Completed"}}, restarts=2),
        _status("toolkit-validation", {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting"
                                                   " failed container=toolkit-validation"}}, restarts=3,
                lastState={"terminated": {"exitCode": 1, "reason": "Error", "message": "waiting for nvidia driver"}})],
        _WAITS, "Pending", _INITIALIZING),
        ("0/1", "Init:CrashLoopBackOff", 5), "toolkit-validation", True, "waiting for nvidia driver"),
    # a container that ended in error: the state is about it, with its message
    # (its own message, not its last termination's)
    "container-error": (_api_pod([], [], [
        _status("main", {"terminated": {"exitCode": 1, "reason": "Error",
                                        "message": "failed to initialize NVML: Unknown Error"}}, restarts=4,
                lastState={"terminated": {"exitCode": 1, "reason": "Error", "message": "an older run"}})],
        "Running", [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "False"}]),
        ("0/1", "Error", 4), "main", False, "failed to initialize NVML: Unknown Error"),
    # a container waiting without a reason says nothing: the pod's phase
    "waiting-no-reason": (_api_pod([], [], [_status("main", {"waiting": {}})], "Pending", []),
                          ("0/1", "Pending", 0), "", False, ""),
    # one container completed beside one running: Running where the pod is Ready, else NotReady (the real API
    # server's printer showed gengpu a Ready condition of status False is not Ready)
    "completed-beside-running": (_api_pod([], [], [
        _status("exporter", {"terminated": {"exitCode": 0, "reason": "Completed"}}),
        _status("main", {"running": {}}, ready=True, started=True)], "Running",
        [{"type": "Ready", "status": "True"}], containers=("main", "exporter")),
        ("1/2", "Running", 0), "exporter", False, ""),
    "completed-beside-running-not-ready": (_api_pod([], [], [
        _status("exporter", {"terminated": {"exitCode": 0, "reason": "Completed"}}),
        _status("main", {"running": {}}, ready=True, started=True)], "Running",
        [{"type": "Ready", "status": "False"}], containers=("main", "exporter")),
        ("1/2", "NotReady", 0), "exporter", False, ""),
    "completed-beside-running-no-ready-condition": (_api_pod([], [], [
        _status("exporter", {"terminated": {"exitCode": 0, "reason": "Completed"}}),
        _status("main", {"running": {}}, ready=True, started=True)], "Running", [], containers=("main", "exporter")),
        ("1/2", "NotReady", 0), "exporter", False, ""),
    # a pod its scheduling gates hold (Kueue's admission gate): the PodScheduled reason
    "scheduling-gated": (_api_pod([], [], [], "Pending",
                                  [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
                                  schedulingGates=[{"name": "kueue.x-k8s.io/admission"}]),
                         ("0/1", "SchedulingGated", 0), "", False, ""),
}


@pytest.mark.parametrize("name", API_PODS)
def test_a_pod_as_the_api_holds_it_is_read_as_kubectl_prints_it(name):
    pod, (ready, shown, restarts), container, init, message = API_PODS[name]
    assert stack.state(Item(pod)) == stack.PodState(shown, ready, restarts, container, init, message)


def test_a_running_init_container_after_restarts_is_failing_and_a_running_sidecar_is_not():
    assert stack.verdict(Item(API_PODS["init-running"][0])) == "failing"
    assert stack.verdict(Item(API_PODS["sidecar-running"][0])) == ""
    assert stack.verdict(Item(API_PODS["sidecar-then-init"][0])) == "failing"


def test_a_pod_a_snapshot_cut_is_read_from_what_it_keeps():
    """No phase nor reason: Unknown, READY unknown. Statuses without the spec's containers or init containers: counted
    from the statuses. A last state that is no mapping: no message from it."""
    bare = stack.state(Item({"metadata": {"name": "p"}}))
    assert (bare.shown, bare.ready) == ("Unknown", "")
    two = Item({"metadata": {"name": "p"}, "status": {"phase": "Running", "containerStatuses": [
        _status("a", {"running": {}}, ready=True), _status("b", {"running": {}})]}})
    assert stack.state(two).ready == "1/2"
    odd = Item({"metadata": {"name": "p"}, "status": {"phase": "Running", "containerStatuses": [
        _status("a", {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}}, lastState="terminated")]}})
    assert (stack.state(odd).shown, stack.state(odd).message) == ("CrashLoopBackOff", "back-off")
    pod = API_PODS["init-running"][0]
    cut = {**pod, "spec": {"containers": pod["spec"]["containers"]}, "status": {
        **pod["status"], "initContainerStatuses": pod["status"]["initContainerStatuses"] * 2}}
    assert stack.state(Item(cut)).shown == "Init:0/2"


def test_a_pasted_scheduling_gated_row_is_a_pending_pod():
    pod = tables.pod("train-0", "team-a", "SchedulingGated", "0/1", 0)
    assert pod["status"]["phase"] == "Pending" and stack.state(Item(pod)).shown == "SchedulingGated"


@pytest.mark.parametrize("reason, phase, shown", [
    # printPod: a pod being deleted is Terminating, Unknown where its node was lost, its phase's reason once ended
    ("NodeLost", "Running", "Unknown"), ("", "Running", "Terminating"), ("", "Pending", "Terminating"),
    ("Evicted", "Failed", "Evicted"), ("", "Succeeded", "Succeeded"),
])
def test_a_pod_being_deleted(reason, phase, shown):
    pod = {"metadata": {"name": "nvidia-driver-daemonset-x7k2p", "deletionTimestamp": "2026-12-07T07:00:00Z"},
           "spec": {"containers": [{"name": "main"}]},
           "status": {"phase": phase, **({"reason": reason} if reason else {})}}
    assert stack.state(Item(pod)).shown == shown


def _facts(pod: dict) -> dict:
    """What Kubernetes says of a pod in a state, whatever printed it: its phase, its Ready and PodScheduled
    conditions, whether it is being deleted, and each container's and init container's state (kind, reason, whether
    it exited 0), readiness and restarts."""
    status = pod["status"]
    conditions = {c["type"]: (c["status"], c.get("reason")) for c in status.get("conditions", [])}

    def each(key):
        out = []
        for s in status.get(key, []):
            [(kind, detail)] = s["state"].items()
            out.append((kind, detail.get("reason"), None if kind != "terminated" else detail["exitCode"] == 0,
                        s["ready"], s["restartCount"]))
        return out

    return {"phase": status["phase"], "conditions": conditions, "deleting": "deletionTimestamp" in pod["metadata"],
            "containers": each("containerStatuses"), "inits": each("initContainerStatuses")}


_RUN, _WAIT_INIT = ("running", None, None, True, 0), ("waiting", "PodInitializing", None, False, 0)


@pytest.mark.parametrize("shown, ready, restarts, facts", [
    # running: Ready where every container is
    ("Running", "1/1", 0, {"phase": "Running", "conditions": {"Ready": ("True", None)}, "deleting": False,
                           "containers": [_RUN], "inits": []}),
    ("Running", "1/2", 0, {"phase": "Running", "conditions": {"Ready": ("False", None)}, "deleting": False,
                           "containers": [_RUN, ("running", None, None, False, 0)], "inits": []}),
    ("Terminating", "1/1", 0, {"phase": "Running", "conditions": {"Ready": ("True", None)}, "deleting": True,
                               "containers": [_RUN], "inits": []}),
    ("Pending", "0/1", 0, {"phase": "Pending", "conditions": {}, "deleting": False, "containers": [], "inits": []}),
    ("SchedulingGated", "0/1", 0, {"phase": "Pending", "conditions": {"PodScheduled": ("False", "SchedulingGated")},
                                   "deleting": False, "containers": [], "inits": []}),
    # ended: Completed exited 0 and the pod succeeded; any other terminated reason is a failure (exit code not 0)
    ("Completed", "0/1", 0, {"phase": "Succeeded", "conditions": {}, "deleting": False,
                             "containers": [("terminated", "Completed", True, False, 0)], "inits": []}),
    ("Error", "0/1", 3, {"phase": "Running", "conditions": {}, "deleting": False,
                         "containers": [("terminated", "Error", False, False, 3)], "inits": []}),
    ("OOMKilled", "0/1", 2, {"phase": "Running", "conditions": {}, "deleting": False,
                             "containers": [("terminated", "OOMKilled", False, False, 2)], "inits": []}),
    ("CrashLoopBackOff", "0/1", 7, {"phase": "Running", "conditions": {}, "deleting": False,
                                    "containers": [("waiting", "CrashLoopBackOff", None, False, 7)], "inits": []}),
    # (the last container is the one STATUS is about; the others run, ready as READY counts them)
    ("CrashLoopBackOff", "1/2", 7, {"phase": "Running", "conditions": {}, "deleting": False,
                                    "containers": [_RUN, ("waiting", "CrashLoopBackOff", None, False, 7)],
                                    "inits": []}),
    # a container being created: the pod is Pending until one has started, Running after a restart
    ("ContainerCreating", "0/1", 0, {"phase": "Pending", "conditions": {}, "deleting": False,
                                     "containers": [("waiting", "ContainerCreating", None, False, 0)], "inits": []}),
    ("PodInitializing", "0/1", 0, {"phase": "Pending", "conditions": {}, "deleting": False,
                                   "containers": [("waiting", "PodInitializing", None, False, 0)], "inits": []}),
    ("ContainerCreating", "0/1", 1, {"phase": "Running", "conditions": {}, "deleting": False,
                                     "containers": [("waiting", "ContainerCreating", None, False, 1)], "inits": []}),
    # one container completed beside a running one, no Ready condition
    ("NotReady", "1/2", 0, {"phase": "Running", "conditions": {}, "deleting": False,
                            "containers": [_RUN, ("terminated", "Completed", True, False, 0)], "inits": []}),
    ("NotReady", "2/3", 0, {"phase": "Running", "conditions": {}, "deleting": False,
                            "containers": [_RUN, _RUN, ("terminated", "Completed", True, False, 0)], "inits": []}),
    # initializing: the pod is Pending, its containers wait, the init containers before the N-th have exited 0
    ("Init:1/3", "0/1", 4, {"phase": "Pending", "conditions": {}, "deleting": False, "containers": [_WAIT_INIT],
                            "inits": [("terminated", "Completed", True, True, 0), ("waiting", "PodInitializing", None,
                                                                                   False, 4),
                                      ("waiting", "PodInitializing", None, False, 0)]}),
    # (initialized once, its init containers running again: its containers run)
    ("Init:0/1", "1/1", 0, {"phase": "Pending", "conditions": {"Initialized": ("True", None)}, "deleting": False,
                            "containers": [_RUN], "inits": [("waiting", "PodInitializing", None, False, 0)]}),
    ("Init:Error", "0/1", 2, {"phase": "Pending", "conditions": {}, "deleting": False, "containers": [_WAIT_INIT],
                              "inits": [("terminated", "Error", False, False, 2)]}),
    ("Init:ContainerCannotRun", "0/1", 0, {"phase": "Pending", "conditions": {}, "deleting": False,
                                           "containers": [_WAIT_INIT],
                                           "inits": [("terminated", "ContainerCannotRun", False, False, 0)]}),
    ("Init:CrashLoopBackOff", "0/1", 5, {"phase": "Pending", "conditions": {}, "deleting": False,
                                         "containers": [_WAIT_INIT],
                                         "inits": [("waiting", "CrashLoopBackOff", None, False, 5)]}),
    # the kubelet's waiting reasons (images.ErrImageInspect), and an init container's reason of neither kind (a later
    # kubelet's) as one: a terminated init container's reason is the runtime's few
    ("Init:ImageInspectError", "0/1", 0, {"phase": "Pending", "conditions": {}, "deleting": False,
                                          "containers": [_WAIT_INIT],
                                          "inits": [("waiting", "ImageInspectError", None, False, 0)]}),
    ("Init:SomeLaterReason", "0/1", 2, {"phase": "Pending", "conditions": {}, "deleting": False,
                                        "containers": [_WAIT_INIT],
                                        "inits": [("waiting", "SomeLaterReason", None, False, 2)]}),
    ("ImageInspectError", "0/1", 0, {"phase": "Running", "conditions": {}, "deleting": False,
                                     "containers": [("waiting", "ImageInspectError", None, False, 0)], "inits": []}),
])
def test_a_pasted_row_is_a_pod_in_the_state_kubernetes_gives_its_status(shown, ready, restarts, facts):
    """A row's pod is one Kubernetes could hold (pod phases and container states, kubernetes.io/docs pod lifecycle):
    not only printed alike, but in the phase, conditions and container states that STATUS means."""
    pod = tables.pod("nvidia-driver-daemonset-x7k2p", "", shown, ready, restarts)
    assert _facts(pod) == facts
    # (its spec has the containers READY counts and the init containers Init:N/M counts, each named, as the API
    # requires of a container)
    spec = pod["spec"]
    assert "nodeName" not in spec  # (a row without NODE: on no node it names)
    assert [sorted(c) for c in spec["containers"]] == [["name"]] * int(ready.partition("/")[2])
    assert [sorted(c) for c in spec.get("initContainers", [])] == [["name"]] * len(facts["inits"])
    assert {c["name"] for c in spec["containers"] + spec.get("initContainers", [])} == {""}


@pytest.mark.parametrize("shown, phase", [
    ("Evicted", "Failed"), ("NodeAffinity", "Failed"), ("UnexpectedAdmissionError", "Failed"), ("Unknown", "Unknown")])
def test_a_pasted_row_of_a_reason_of_the_pods_own_is_a_pod_in_that_phase_with_that_reason(shown, phase):
    """STATUS Evicted, NodeAffinity ... is the pod's status.reason (printPod prints it before any container's): the
    kubelet failed the pod; Unknown is the phase of a pod whose node stopped reporting (kubernetes.io pod lifecycle)."""
    pod = tables.pod("nvidia-driver-daemonset-x7k2p", "", shown, "0/1", 0)
    assert pod["status"] == {"phase": phase, "reason": shown}
    assert stack.state(Item(pod)).shown == shown


@pytest.mark.parametrize("ready, shown, containers, inits", [
    ("1/1000", "Running", 1000, 0), ("1/1001", "Running", 1, 0), ("0/1", "Init:0/1000", 1, 1000),
    ("0/1", "Init:0/1001", 1, 0)])
def test_a_pasted_row_counts_at_most_a_thousand_containers(ready, shown, containers, inits):
    """A row counting more containers than a pod runs (READY 1/100000) is no row kubectl printed: gengpu does not
    build that many containers from it."""
    spec = tables.pod("nvidia-driver-daemonset-x7k2p", "", shown, ready, 0)["spec"]
    assert (len(spec["containers"]), len(spec.get("initContainers", []))) == (containers, inits)


def test_a_finding_about_an_object_read_from_the_api_server_is_at_the_context_not_a_line():
    """An object captured from the API server has no file: a finding about it (a failing driver pod) names the
    context it came from, at line 0, column 0; only a snapshot file's objects have lines."""
    from pathlib import Path

    import snapshots

    from gengpu.checking import live
    from gengpu.live import pools, snapshot
    from gengpu.pipeline.profiles import load_profiles, profile_files
    from gengpu.pipeline.state import cluster_profile

    mps = Path(__file__).resolve().parent.parent / "profiles" / "eks-l4-mps.yaml"
    loaded = load_profiles(profile_files([str(mps)]), Path("overlays"))
    objects = snapshots.healthy(mps.read_text())["items"]
    objects.append(tables.pod("nvidia-driver-daemonset-x7k2p", "gpu-operator", "CrashLoopBackOff", "0/1", 7, "l4-mps-0"))
    snap = snapshot.from_objects("context prod", objects, {"nodes", "pods"}, [])
    profile, doc, _ = cluster_profile([(c.profile, c.source.docs[0]) for c in loaded.profiles], snap)
    found = live.check_cluster(pools.Cluster(profile, doc, snap, pools.map_nodes(profile, snap)))
    assert [(f.file, f.line, f.column, f.rule, f.subject) for f in found] == [
        ("context prod", 0, 0, "gpu-stack-pod-failing", "Pod/gpu-operator/nvidia-driver-daemonset-x7k2p")]
    # with the rule's fix, as a finding at a line of a file has it
    from gengpu.checking.rules import RULES

    assert [f.fix for f in found] == [RULES["gpu-stack-pod-failing"].fix] and found[0].fix
