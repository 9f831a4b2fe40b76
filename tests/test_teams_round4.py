"""What teams run, round 4 (issue 48): the behaviours of the new kinds and rules that their one-example-each rule
files do not pin down. Each test failed before the change it covers."""

import json

SERVING = """\
apiVersion: workload.serving.volcano.sh/v1alpha1
kind: ModelServing
metadata:
  name: pd
spec:
  replicas: 1
  template:
    roles:
    - name: prefill
      replicas: 1
      workerReplicas: 1
      entryTemplate:
        spec:
          containers:
          - name: leader
            image: vllm/vllm-openai:v0.11.0
            command: [sh, -c, "bash multi-node-serving.sh leader --ray_cluster_size=2; vllm serve m --tensor-parallel-size 8 --pipeline-parallel-size 2"]
            resources: {limits: {nvidia.com/gpu: "8"}}
      workerTemplate:
        spec:
          containers:
          - name: worker
            image: vllm/vllm-openai:v0.11.0
            command: [sh, -c, "bash multi-node-serving.sh worker --ray_address=$(ENTRY_ADDRESS)"]
            resources: {limits: {nvidia.com/gpu: "8"}}
    - name: decode
      replicas: 1
      workerReplicas: WORKERS
      entryTemplate:
        spec:
          containers:
          - name: leader
            image: vllm/vllm-openai:v0.11.0
            command: [sh, -c, "bash multi-node-serving.sh leader --ray_cluster_size=2; vllm serve m --tensor-parallel-size 8 --pipeline-parallel-size 2"]
            resources: {limits: {nvidia.com/gpu: "8"}}
      workerTemplate:
        spec:
          containers:
          - name: worker
            image: vllm/vllm-openai:v0.11.0
            command: [sh, -c, "bash multi-node-serving.sh worker --ray_address=$(ENTRY_ADDRESS)"]
            resources: {limits: {nvidia.com/gpu: "8"}}
"""


def findings(run, tmp_path, files: dict, *args):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = run("validate", *files, "--output", "json", *args, cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    return [(f["file"], f["line"], f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]
            if f["rule"] not in ("object-no-schema", "not-recognized")]


def test_each_modelserving_role_is_its_own_group(run, tmp_path):
    """Kthena's workerReplicas counts workers only (the entry pod is one more), and each role is a group of its
    own: decode without workers holds 8 GPUs for a 16-GPU engine, prefill with one worker holds 16."""
    def parallel(text):  # (the engines also run without a /dev/shm mount: serving-shm-missing, a warning)
        return [f for f in findings(run, tmp_path, {"ms.yaml": text}) if f[2] != "serving-shm-missing"]

    assert parallel(SERVING.replace("WORKERS", "1")) == []
    assert parallel(SERVING.replace("WORKERS", "0")) == [
        ("ms.yaml", 34, "serving-parallel-over-gpus",
         "ModelServing pd: vllm shards the model over 16 GPU(s) (tensor x pipeline parallel) across the group, which "
         "has 8 GPU(s) (8 on the leader, no workers); the engine stops at start")]


TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  generateName: grpo-
spec:
  runtimeRef:
    name: grpo-distributed
  trainer:
    numNodes: 2
    resourcesPerNode:
      requests:
        nvidia.com/gpu: 2
"""

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: grpo-distributed
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: trainer
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
                  resources:
                    limits:
                      nvidia.com/gpu: LIMIT
"""


def test_a_trainjob_requesting_gpus_is_judged_with_its_runtime(run, tmp_path):
    """Trainer merges resourcesPerNode into the runtime's node container: a GPU only requested is refused unless that
    runtime, in the same run, limits it. The generateName gets its name before the CRD's CEL rules run, as on the
    API server (they were 'no such key: name' errors)."""
    alone = findings(run, tmp_path, {"job.yaml": TRAINJOB})
    assert alone == [("job.yaml", 12, "gpu-in-requests-only",
                      "TrainJob grpo-: trainer.resourcesPerNode requests nvidia.com/gpu without a limit, and Trainer "
                      "merges it into ClusterTrainingRuntime/grpo-distributed's node container as written: the API "
                      "server refuses the node pods unless that runtime limits it")]
    together = {"job.yaml": TRAINJOB, "runtime.yaml": RUNTIME.replace("LIMIT", "2")}
    assert findings(run, tmp_path, together) == []
    # a runtime of another name limits nothing for this TrainJob
    other = {"job.yaml": TRAINJOB, "runtime.yaml": RUNTIME.replace("LIMIT", "2").replace(
        "name: grpo-distributed", "name: torch-distributed")}
    assert [f[2] for f in findings(run, tmp_path, other)] == ["gpu-in-requests-only"]


def pod(command: str, env: str = "") -> str:
    return ("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\nspec:\n"
            "  leaderWorkerTemplate:\n    size: 2\n    workerTemplate:\n      spec:\n        containers:\n"
            "        - name: worker\n          image: vllm/vllm-openai:v0.11.0\n"
            f"          command: [sh, -c, {json.dumps(command)}]\n{env}"
            "          resources: {limits: {nvidia.com/gpu: 8}}\n")


def test_references_kubernetes_cannot_expand_are_told_and_shell_substitutions_are_not(run, tmp_path):
    ok = [
        "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block",  # LWS adds it
        "echo $(hostname) $(nproc)",  # the shell's command substitution
        "echo $$(NOT_EXPANDED)",  # Kubernetes' escape
    ]
    for command in ok:
        assert findings(run, tmp_path, {"lws.yaml": pod(command)}) == [], command
    assert findings(run, tmp_path, {"lws.yaml": pod("echo $(MODEL)", "          env: [{name: MODEL, value: m}]\n")}) == []
    # envFrom may define anything: not judged
    assert findings(run, tmp_path, {"lws.yaml": pod("echo $(MODEL)", "          envFrom: [{configMapRef: {name: m}}]\n")}) \
        == []
    assert findings(run, tmp_path, {"lws.yaml": pod("ray start --address=$(LWS_LEADER_ADRESS):6379 --block")}) == [
        ("lws.yaml", 13, "env-reference-undefined",
         "LeaderWorkerSet vllm: container worker refers to $(LWS_LEADER_ADRESS), which no variable of its env defines "
         "(and LeaderWorkerSet adds only LWS_LEADER_ADDRESS, LWS_GROUP_SIZE, LWS_WORKER_INDEX): Kubernetes passes "
         "the text on as written; did you mean $(LWS_LEADER_ADDRESS)?")]


def test_a_template_a_program_fills_in_is_not_an_object(run, tmp_path):
    """Kthena's converter templates hold `metadata: ${MODEL_SERVING_TEMPLATE_METADATA}`: a template, said once as one,
    not an object-malformed error."""
    text = ("apiVersion: workload.serving.volcano.sh/v1alpha1\nkind: ModelServing\n"
            "metadata: ${MODEL_SERVING_TEMPLATE_METADATA}\nspec:\n  schedulerName: ${SCHEDULER_NAME}\n")
    (tmp_path / "vllm.yaml").write_text(text)
    result = run("validate", "vllm.yaml", "-v", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "its metadata is the placeholder ${MODEL_SERVING_TEMPLATE_METADATA}: a template a program fills in" \
        in result.output


def test_a_kind_of_another_group_is_said_once(run, tmp_path):
    """apps/v1 Job: api-version-removed names where Job is served; kind-not-served does not say it again. A kind no
    built-in group has (a misspelt Deployment) is kind-not-served's. Trainer's kinds in kubeflow.org are served in
    trainer.kubeflow.org."""
    text = ("apiVersion: apps/v1\nkind: Job\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Deploymnet\n"
            "metadata: {name: b}\n---\napiVersion: kubeflow.org/v2alpha1\nkind: TrainJob\nmetadata: {name: c}\n")
    got = [(line, rule) for _, line, rule, _ in findings(run, tmp_path, {"a.yaml": text})]
    assert got == [(1, "api-version-removed"), (6, "kind-not-served"), (10, "kind-not-served")]


def test_a_leaderworkerset_group_counts_its_leader_once(run, tmp_path):
    """size counts the leader (LWS leaderworkerset_types.go: "the total number of pods in each group"): a group of 2
    pods of 8 GPUs holds 16, too few for tensor 8 x pipeline 3 = 24 (leader + size x workers would make it 24 and
    pass), enough for 8 x 2."""
    lws = ("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\nspec:\n"
           "  leaderWorkerTemplate:\n    size: 2\n    leaderTemplate:\n      spec:\n        containers:\n"
           "        - name: leader\n          image: vllm/vllm-openai:v0.11.0\n          command: [sh, -c, \"bash "
           "multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); vllm serve m --tensor-parallel-size 8 "
           "--pipeline-parallel-size PP\"]\n          resources: {limits: {nvidia.com/gpu: 8}}\n"
           "    workerTemplate:\n      spec:\n        containers:\n        - name: worker\n"
           "          image: vllm/vllm-openai:v0.11.0\n          command: [sh, -c, \"bash multi-node-serving.sh worker "
           "--ray_address=$(LWS_LEADER_ADDRESS)\"]\n          resources: {limits: {nvidia.com/gpu: 8}}\n")
    parallel = [f for f in findings(run, tmp_path, {"lws.yaml": lws.replace("PP", "3")})
                if f[2] == "serving-parallel-over-gpus"]
    assert parallel == [("lws.yaml", 13, "serving-parallel-over-gpus",
                         "LeaderWorkerSet vllm: vllm shards the model over 24 GPU(s) (tensor x pipeline parallel) "
                         "across the group, which has 16 GPU(s) (8 on the leader, 8 on each of 1 worker(s)); the engine "
                         "stops at start")]
    assert [f for f in findings(run, tmp_path, {"lws.yaml": lws.replace("PP", "2")})
            if f[2] == "serving-parallel-over-gpus"] == []


def test_a_field_only_commented_out_in_the_shipped_counters_files_is_not_exported(run, tmp_path):
    """dcp-metrics-included.csv keeps DCGM_FI_DEV_POWER_VIOLATION behind '#': the exporter reads '#' lines as
    comments (encoding/csv Comment), so an alert on it finds no series; GPU_UTIL, a live row, is exported."""
    rule = ("apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: gpu}\nspec:\n  groups:\n"
            "  - name: gpu\n    rules:\n    - alert: GpuThrottled\n      expr: FIELD > 0\n")
    got = findings(run, tmp_path, {"rule.yaml": rule.replace("FIELD", "rate(DCGM_FI_DEV_POWER_VIOLATION[5m])")})
    assert [(f[1], f[2]) for f in got] == [(9, "dcgm-metric-not-exported")]
    assert findings(run, tmp_path, {"rule.yaml": rule.replace("FIELD", "DCGM_FI_DEV_GPU_UTIL")}) == []
