"""What an LLM serving engine in a container is told to use: its parallelism and memory settings, read from wherever
engines take them (command and args, `sh -c` scripts, environment variables), each with the path of the item that
says it, so a finding points at the file line.

Flag spellings are the engines' own: vLLM's argument parser (vllm/engine/arg_utils.py: --tensor-parallel-size / -tp,
--pipeline-parallel-size / -pp, --data-parallel-size / -dp, --nnodes, --gpu-memory-utilization; its
FlexibleArgumentParser also takes underscores), SGLang's server args (--tp-size / --tp / --tensor-parallel-size,
--pp-size, --dp-size / --dp, --nnodes, --mem-fraction-static) and TGI's launcher (--num-shard, NUM_SHARD; without
it every visible GPU is a shard).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from gengpu.checking.rules._pods import gpu_resources, whole

ENGINES = {
    "vllm": {"tp": ("--tensor-parallel-size", "-tp"), "pp": ("--pipeline-parallel-size", "-pp"),
             "dp": ("--data-parallel-size", "-dp"), "nnodes": ("--nnodes",),
             "memory": ("--gpu-memory-utilization",)},
    "sglang": {"tp": ("--tp-size", "--tp", "--tensor-parallel-size"), "pp": ("--pp-size", "--pipeline-parallel-size"),
               "dp": ("--dp-size", "--dp", "--data-parallel-size"), "nnodes": ("--nnodes",),
               "memory": ("--mem-fraction-static",)},
    "tgi": {"tp": ("--num-shard",)},
}
ENV = {"tgi": {"tp": "NUM_SHARD"}}
SHELLS = ("sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/env")


@dataclass
class Setting:
    value: str
    path: tuple  # where it is written (the flag's value item, the script, the env entry)


@dataclass
class Engine:
    name: str  # vllm, sglang, tgi
    settings: dict = field(default_factory=dict)  # tp, pp, dp, nnodes, memory -> Setting
    ray: bool = False  # the container starts a Ray cluster: the engine's GPUs span the Ray nodes, not this pod
    where: tuple = ()  # the container's path

    def number(self, key: str, group_size: int | None = None) -> int | None:
        """A whole-number setting, with $(LWS_GROUP_SIZE) taken as the group's size; None when unknown."""
        setting = self.settings.get(key)
        if setting is None:
            return None
        value = setting.value.strip()
        if group_size is not None and re.fullmatch(r"\$[({]?LWS_GROUP_SIZE[)}]?", value):
            return group_size
        return int(value) if re.fullmatch(r"[0-9]+", value) else None

    def parallel_path(self) -> tuple:
        """Where the parallelism is written (tensor, else pipeline, else the container): what a finding points at."""
        setting = self.settings.get("tp") or self.settings.get("pp")
        return setting.path if setting else self.where

    def parallel(self) -> int | None:
        """GPUs the engine shards one model over (tensor x pipeline), or None when a factor is not a number."""
        tp = self.number("tp") if "tp" in self.settings else 1
        pp = self.number("pp") if "pp" in self.settings else 1
        return tp * pp if tp is not None and pp is not None else None


def _tokens(container: dict, path: tuple) -> list[tuple[str, tuple]]:
    """(token, path of the item that holds it) of command then args; a shell's -c script split as the shell would."""
    out = []
    for part in ("command", "args"):
        items = container.get(part)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if not isinstance(item, (str, int, float)) or isinstance(item, bool):
                continue
            text = str(item)
            where = path + (part, i)
            if " " in text.strip() or "\n" in text:  # a script (`sh -c "..."`) or a flag and value in one item
                try:
                    words = shlex.split(text, comments=True)
                except ValueError:
                    words = text.split()
                out += [(w, where) for w in words]
            else:
                out.append((text, where))
    return out


def _which(tokens: list[str], image: str, own_command: bool) -> str | None:
    joined = " ".join(tokens)
    # vllm/vllm-openai's entrypoint is the OpenAI server: args alone are engine arguments
    if re.search(r"(^|[\s/])vllm(\s+serve\b|\.entrypoints)", joined) or "vllm-openai" in image and not own_command:
        return "vllm"
    if "sglang.launch_server" in joined or re.search(r"(^|\s)sglang\s+serve\b", joined):
        return "sglang"
    if "text-generation-launcher" in joined or "text-generation-inference" in image:
        return "tgi"
    return None


def engine(container: dict, path: tuple) -> Engine | None:
    """The serving engine a container runs, with what it is told, or None."""
    if not isinstance(container, dict):
        return None
    found = _tokens(container, path)
    words = [w for w, _ in found]
    name = _which(words, str(container.get("image", "")), isinstance(container.get("command"), list))
    if name is None:
        return None
    # a Ray cluster under the engine: `ray start`, or vLLM's examples/online_serving/multi-node-serving.sh
    ray = any(w == "ray" and i + 1 < len(words) and words[i + 1] == "start" or "multi-node-serving.sh" in w
              or w.startswith("--ray_cluster_size") for i, w in enumerate(words))
    out = Engine(name, where=path, ray=ray)
    flags = {spelling: key for key, spellings in ENGINES[name].items() for spelling in spellings}
    for i, (word, where) in enumerate(found):
        flag, eq, value = word.partition("=")
        flag = flag.replace("_", "-") if flag.startswith("--") else flag
        if flag not in flags:
            continue
        if not eq:
            if i + 1 >= len(found):
                continue
            value, where = found[i + 1][0], found[i + 1][1]
        out.settings.setdefault(flags[flag], Setting(value, where))
    env = container.get("env") if isinstance(container.get("env"), list) else []
    for key, variable in ENV.get(name, {}).items():
        for j, item in enumerate(env):
            if isinstance(item, dict) and item.get("name") == variable and isinstance(item.get("value"), (str, int)):
                out.settings.setdefault(key, Setting(str(item["value"]), path + ("env", j, "value")))
    return out


def gpus(container: dict) -> int | None:
    """The whole number of NVIDIA GPUs a container's limits give it (0 when none), or None when not a number."""
    limits = gpu_resources(container, "limits", vendors=False)
    found = [whole(v) for k, v in limits.items() if str(k) == "nvidia.com/gpu"]
    if not found:
        return 0
    return found[0]


def memory_backed_shm(spec: dict, container: dict) -> bool:
    """Whether the container's /dev/shm is memory-backed and large enough to matter: an emptyDir of medium Memory
    mounted there, or the host's IPC namespace."""
    if spec.get("hostIPC") is True:
        return True
    volumes = {v.get("name"): v for v in spec.get("volumes") or [] if isinstance(v, dict)}
    for mount in container.get("volumeMounts") or []:
        if isinstance(mount, dict) and str(mount.get("mountPath", "")).rstrip("/") == "/dev/shm":
            volume = volumes.get(mount.get("name")) or {}
            empty = volume.get("emptyDir") if isinstance(volume.get("emptyDir"), dict) else None
            if empty is not None and empty.get("medium") == "Memory" or "hostPath" in volume:
                return True
    return False


@dataclass
class Pod:
    path: tuple  # the pod spec's
    spec: dict
    role: str  # "pod", or a group's "leader" / "worker"
    group: tuple = ()  # leader/worker pods: the path of the group they form (one object may hold several)


# Leader/worker templates by the key that holds them: LeaderWorkerSet's leaderTemplate and workerTemplate, Kthena's
# ModelServing roles' entryTemplate and workerTemplate.
_ROLES = {"leaderTemplate": "leader", "entryTemplate": "leader", "workerTemplate": "worker"}


def pods(subject) -> list[Pod]:
    """A workload's pod specs, a leader/worker group's told apart by role and group."""
    out = []
    for path, spec in subject.pods:
        at = next((i for i, step in enumerate(path) if step in _ROLES), None)
        if at is None:
            out.append(Pod(path, spec, "pod"))
        else:
            out.append(Pod(path, spec, _ROLES[path[at]], tuple(path[:at])))
    return out


def group_size(subject, group: tuple = ()) -> int | None:
    """Pods in one leader/worker group, leader included, else None: a LeaderWorkerSet's size (default 1; also each
    role of a DisaggregatedSet), a ModelServing role's entry pod plus its workerReplicas."""
    data = subject.data
    api = str(data.get("apiVersion", ""))
    if not group and data.get("kind") == "LeaderWorkerSet":
        group = ("spec", "leaderWorkerTemplate")
    node = data
    for step in group:  # (spec, leaderWorkerTemplate), (spec, template, roles, i)
        node = node[step] if isinstance(node, dict) and step in node or isinstance(node, list) and \
            isinstance(step, int) and step < len(node) else None
    if not isinstance(node, dict):
        return None
    if group[-1:] == ("leaderWorkerTemplate",) and api.split("/")[0] in _LWS_GROUPS:
        return whole(node.get("size", 1))
    if data.get("kind") == "ModelServing" and api.startswith("workload.serving.volcano.sh/"):
        workers = whole(node.get("workerReplicas", 0))
        return 1 + workers if workers is not None else None
    return None


_LWS_GROUPS = ("leaderworkerset.x-k8s.io", "disaggregatedset.x-k8s.io")


def groups(subject) -> dict[tuple, list[Pod]]:
    """Leader/worker pods by the group they form."""
    out: dict[tuple, list[Pod]] = {}
    for pod in pods(subject):
        if pod.role != "pod":
            out.setdefault(pod.group, []).append(pod)
    return out


def engines(subject) -> list[tuple[Pod, dict, Engine]]:
    """(pod, container, engine) for every container of a workload that runs a serving engine."""
    out = []
    for pod in pods(subject):
        for i, c in enumerate(pod.spec.get("containers") or []):
            found = engine(c, pod.path + ("containers", i))
            if found is not None:
                out.append((pod, c, found))
    return out
