"""Shared by the dcgm-exporter rules: its containers in a hand-written workload and the settings they run with, read
the way the exporter reads them (NVIDIA/dcgm-exporter 4.5.3-4.8.2 pkg/cmd/app.go: each flag or its env var)."""

import posixpath
import re

IMAGE = re.compile(r"(^|/)dcgm-exporter[:@]")
SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock"  # --pod-resources-kubelet-socket default


def exporters(subject):
    """(path of the container, the container, its pod spec) of every dcgm-exporter container."""
    for path, spec in subject.pods:
        for i, c in enumerate(spec.get("containers") or []):
            if isinstance(c, dict) and IMAGE.search(str(c.get("image", ""))):
                yield path + ("containers", i), c, spec


def env(c) -> dict:
    out = {}
    for e in c.get("env") or []:
        if isinstance(e, dict) and "name" in e:
            out[str(e["name"])] = e.get("value") if "value" in e else e.get("valueFrom")
    return out


def flag(c, *names, boolean: bool = False) -> str | None:
    """A flag's value from the container's command and args (`--flag=v`, `--flag v`; a bare boolean flag: 'true')."""
    words = [str(w) for w in (c.get("command") or []) + (c.get("args") or [])]
    words = [part for w in words for part in w.split()]
    for i, word in enumerate(words):
        for name in names:
            if word == name:
                if boolean:
                    return "true"
                return words[i + 1] if i + 1 < len(words) else ""
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def truthy(value) -> bool:
    return str(value).lower() in ("true", "1", "t", "yes")


def kubernetes_mode(c) -> bool:
    value = flag(c, "-k", "--kubernetes", boolean=True)
    return truthy(value) if value is not None else truthy(env(c).get("DCGM_EXPORTER_KUBERNETES", "false"))


def socket(c) -> str:
    return flag(c, "--pod-resources-kubelet-socket") or str(env(c).get("DCGM_POD_RESOURCES_KUBELET_SOCKET") or SOCKET)


def mounts(c, path: str) -> bool:
    """Whether a volume mounted in the container holds the path."""
    folder = posixpath.dirname(path)
    for m in c.get("volumeMounts") or []:
        mount = str((m or {}).get("mountPath", "")).rstrip("/") if isinstance(m, dict) else ""
        if mount and (folder == mount or folder.startswith(mount + "/")):
            return True
    return False
