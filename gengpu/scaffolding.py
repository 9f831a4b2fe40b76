"""`gengpu init`: a GitOps repository a team can start from, passing its own checks right away."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gengpu import __version__, catalog, mig
from gengpu.compiling.yamltext import dump
from gengpu.findings import UsageError
from gengpu.schemas_dir import schemas_path

REGIONS = {"eks": "us-east-1", "gke": "us-central1", "gke-autopilot": "us-central1", "aks": "eastus"}
PROVISIONERS = {"eks": "karpenter", "gke": "node-auto-provisioning", "gke-autopilot": "autopilot", "aks": "managed"}
DEFAULT_HOOKS_REPO = "https://github.com/gengpu/gengpu"
DEFAULT_HOOKS_REV = f"v{__version__}"  # the release tag of the gengpu that writes the scaffold


@dataclass
class Choices:
    platform: str
    gpu: str
    sharing: str = "none"
    replicas: int = 4
    name: str = "gpu-cluster"
    repo_url: str = "https://github.com/example/gpu-gitops.git"
    hooks_repo: str = DEFAULT_HOOKS_REPO
    hooks_rev: str = DEFAULT_HOOKS_REV
    region: str | None = None  # default: REGIONS[platform]
    branch: str = "main"  # the branch Argo CD follows
    mig_preset: str = "all-balanced"  # all-balanced or all-<profile>, as mig-manager names them
    gitops: str = "argocd"  # or flux
    monitoring: str = "service-monitor"  # spec.monitoring.mode


def monitoring_mode(platform: str) -> str:
    """What init picks when not told: GKE's managed DCGM metrics on GKE, else a Prometheus Operator ServiceMonitor."""
    return "gke-managed" if platform.startswith("gke") else "service-monitor"


def monitoring_modes(platform: str) -> list[str]:
    if platform == "gke-autopilot":  # no privileged dcgm-exporter there (rule monitoring-platform-mismatch)
        return ["gke-managed", "none"]
    return ["service-monitor", "scrape-config", *(["gke-managed"] if platform == "gke" else []), "none"]


def _instance(platform: str, gpu_id: str) -> tuple[str, int]:
    """A small instance type carrying the GPU on the platform, and its GPU count."""
    clouds = catalog.clouds()
    if platform == "eks":
        for family, spec in clouds["eks"]["families"].items():
            if spec["gpu"] == gpu_id:
                size, count = min(spec["sizes"].items(), key=lambda kv: (kv[1], kv[0] != "xlarge"))
                return f"{family}.{size}", count
    elif platform in ("gke", "gke-autopilot"):
        # a machine type sold on demand first (A3 High 1g/2g/4g are Spot-only); the spot ones after
        machines = sorted(clouds["gke"]["machineTypes"].items(), key=lambda kv: bool(kv[1].get("spotOnly")))
        for machine, spec in machines:
            if spec["gpu"] == gpu_id:
                return machine, spec["gpus"]
        if gpu_id in clouds["gke"]["attachable"]["gpus"]:
            return "n1-standard-8", 1
    elif platform == "aks":
        for size, spec in clouds["aks"]["vmSizes"].items():
            if spec["gpu"] == gpu_id and "fraction" not in spec and not spec.get("retired"):
                return size, spec["gpus"]
    offered = ", ".join(sorted(catalog.platform_gpus(platform)))
    raise UsageError(f"{platform} offers no {gpu_id}; choose one of {offered}")


def profile(c: Choices) -> dict:
    gpu_id = catalog.resolve_gpu(c.gpu)
    if gpu_id is None:
        raise UsageError(f"unknown GPU '{c.gpu}'; known: {', '.join(catalog.gpus())}")
    instance, count = _instance(c.platform, gpu_id)
    if c.platform == "gke-autopilot":
        allowed = catalog.clouds()["gke"]["autopilot"]["allowedCounts"].get(catalog.gke_accelerator(gpu_id), [1])
        count = count if count in allowed else allowed[0]
    spot_only = (catalog.instance_type(c.platform, instance) or {}).get("spotOnly")
    pool: dict = {"name": "gpu", "gpu": gpu_id, "gpusPerNode": count, "instanceTypes": [instance],
                  "capacityTypes": ["spot"] if spot_only else ["on-demand"], "provisioner": PROVISIONERS[c.platform]}
    if c.platform == "gke-autopilot":
        pool["taints"] = []
    if pool["provisioner"] in ("karpenter", "node-auto-provisioning") and c.platform != "gke-autopilot":
        # GKE needs a maximum per accelerator, and an unbounded autoscaled pool has no spending ceiling: room for
        # four nodes to start (`gengpu plan` prices it)
        pool["limits"] = {"gpus": count * 4}
    if c.sharing in ("time-slicing", "mps"):
        pool["sharing"] = {"mode": c.sharing, "replicas": c.replicas,
                           "failRequestsGreaterThanOne": True}
    elif c.sharing == "mig":
        if not catalog.gpus()[gpu_id].get("mig"):
            raise UsageError(f"{gpu_id} does not support MIG; choose time-slicing or mps")
        pool["sharing"] = {"mode": "mig", "mig": {"strategy": "mixed", "preset": c.mig_preset}}
        if c.platform == "gke-autopilot":
            # GKE's own MIG gives a node one partition size: every GPU split into its smallest instances
            smallest = next(iter(mig.profiles(gpu_id)))
            pool["sharing"]["mig"] = {"strategy": "single", "preset": f"all-{smallest.replace('+', '.')}"}
    operator = {"enabled": False} if c.platform == "gke-autopilot" else {"version": catalog.operator()["default"]}
    if c.platform == "gke" and pool["provisioner"] != "node-auto-provisioning":
        pool["labels"] = {"gke-no-default-nvidia-gpu-device-plugin": "true"}
    return {
        "apiVersion": "gengpu.dev/v1alpha1",
        "kind": "GPUProfile",
        "metadata": {"name": c.name, "description": f"{gpu_id} on {c.platform}, started with gengpu init."},
        "spec": {
            "platform": c.platform,
            "region": c.region or REGIONS[c.platform],
            "kubernetesVersion": "1.33",
            "operator": operator,
            "nodePools": [pool],
            "monitoring": {"mode": c.monitoring},
            **({"gitops": "flux"} if c.gitops == "flux" else {"argocd": {"repoURL": c.repo_url, "revision": c.branch}}),
        },
    }


def files(c: Choices) -> dict[str, str]:
    """Relative path -> text of the scaffold (the overlays come from `gengpu build` afterwards)."""
    hooks_owner_repo = c.hooks_repo.removeprefix("https://github.com/").removesuffix(".git")
    return {
        f"profiles/{c.name}.yaml": "# yaml-language-server: $schema=../schemas/profile.schema.json\n"
                                   + dump(profile(c)),
        "schemas/profile.schema.json": (schemas_path() / "profile.schema.json").read_text(encoding="utf-8"),
        ".pre-commit-config.yaml": dump({"repos": [{"repo": c.hooks_repo, "rev": c.hooks_rev, "hooks": [
            {"id": "gengpu-validate"}, {"id": "gengpu-overlays-up-to-date"}]}]}),
        ".github/workflows/gpu-lint.yaml": dump({
            "name": "gpu-lint",
            "on": {"pull_request": None, "push": {"branches": ["main"]}},
            "permissions": {"contents": "read", "security-events": "write", "pull-requests": "read"},
            "jobs": {"gengpu": {
                "uses": f"{hooks_owner_repo}/.github/workflows/gengpu-lint.yaml@{c.hooks_rev}",
                "with": {"gengpu-ref": c.hooks_rev},
            }},
        }),
        ".gitignore": ".venv/\nbin/\n.cache/\n",  # .cache/: gengpu's content cache
        "README.md": (f"# {c.name}: GPU GitOps\n\nEdit `profiles/`, run `gengpu build`, commit profiles and "
                      "`overlays/` together. " + (
                          f"Flux syncs `overlays/{c.name}/flux/`: point a Kustomization of the cluster's bootstrap "
                          f"path at it (`path: ./overlays/{c.name}/flux`), once.\n\n" if c.gitops == "flux" else
                          "Argo CD syncs `argocd/root-application.yaml` (one Application per "
                          "cluster) or `argocd/applicationset.yaml` (every overlay): apply one of them, once.\n\n")
                      + "`pre-commit install` runs gengpu's checks before each commit; `.github/workflows/gpu-lint.yaml`"
                      " runs them on pull requests.\n"),
    }


def git_branch(target: Path) -> str:
    """The branch the new repository will commit to: the checked-out one, else git's init.defaultBranch, else main."""
    import subprocess

    for args, cwd in ((["symbolic-ref", "--short", "HEAD"], target), (["config", "--get", "init.defaultBranch"], None)):
        try:
            proc = subprocess.run(["git", *args], cwd=cwd if cwd and cwd.is_dir() else None, capture_output=True,
                                  text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return "main"
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout.strip()
    return "main"


def refuse_existing(target: Path, c: Choices) -> None:
    """gengpu init writes only new files."""
    existing = sorted(rel for rel in files(c) if (target / rel).exists())
    if existing:
        raise UsageError(f"{target} already has {', '.join(existing)}; gengpu init writes only new files")


def write(target: Path, c: Choices) -> list[str]:
    """Write the scaffold; refuse to touch any file that exists already."""
    content = files(c)
    refuse_existing(target, c)
    for rel, text in content.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    return sorted(content)
