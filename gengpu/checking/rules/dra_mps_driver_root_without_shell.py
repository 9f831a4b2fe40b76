from gengpu.checking.rules.base import Hit, Rule, pool_path
from gengpu.compiling import dra
from gengpu.catalog import version_tuple


def affected(profile) -> bool:
    """The DRA driver version the profile installs runs its MPS control daemon through the driver root's shell."""
    defect = dra.driver_settings()["defects"]["mpsDriverRootShell"]
    return dra.chart_name(profile) == defect["chart"] and \
        version_tuple(dra.chart_version(profile)) <= version_tuple(defect["through"])


def check(profile, ctx=None):
    if dra.driver_root(profile) != dra.DRIVER_ROOT_GKE or not affected(profile):
        return
    for pool in profile.dra_pools:
        if pool.sharing.mode == "mps":
            yield Hit(pool_path(pool, "sharing", "mode"),
                      f"nodePools[{pool.index}] shares its GPUs with MPS through NVIDIA's DRA driver "
                      f"{dra.chart_version(profile)}, whose MPS control daemon runs `chroot {dra.DRIVER_ROOT_GKE} "
                      "sh`: GKE's driver root has no shell, so the daemon restarts forever and the claims never start")


RULE = Rule(
    id="dra-mps-driver-root-without-shell",
    severity="error",
    summary="MPS through NVIDIA's DRA driver cannot start where the driver root has no shell (GKE).",
    fix="Use sharing.mode: time-slicing for this DRA pool, or hand its GPUs out with the device plugin "
    "(allocation: device-plugin) until a fixed DRA driver version is available to gengpu.",
    explanation="NVIDIA's DRA driver starts one MPS control daemon per claimed GPU with `chroot <nvidiaDriverRoot> "
    "sh -c ...`. On GKE the driver root is Google's driver installer folder (/home/kubernetes/bin/nvidia), which "
    "holds the driver's libraries and binaries but no shell: the daemon fails with \"chroot: failed to run command "
    "'sh'\" and every MPS claim stays unprepared. The fix landed in the kubernetes-sigs line of the driver "
    "(dra-driver-nvidia-gpu 0.4.0); the nvidia-dra-driver-gpu chart gengpu installs has it through 25.12.0.",
    source="NVIDIA/k8s-dra-driver-gpu v25.12.0 templates/mps-control-daemon.tmpl.yaml; issue 469; "
    "kubernetes-sigs/dra-driver-nvidia-gpu PR 889",
    check=check,
)
