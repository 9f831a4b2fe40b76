"""The programs gengpu runs (kustomize, kubeconform, celcheck, promtool), found at their pinned versions: env var,
project bin folder, then PATH. Shared by rendering (kustomize, kubeconform) and checking (celcheck)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gengpu.findings import UsageError
from gengpu.schemas_dir import data_path

ENV = {"kustomize": "GENGPU_KUSTOMIZE", "kubeconform": "GENGPU_KUBECONFORM", "promtool": "GENGPU_PROMTOOL",
       "celcheck": "GENGPU_CELCHECK"}


def pinned() -> dict[str, tuple[str, str, str | None]]:
    """name -> (Go package, version, module folder or None), from gengpu/data/tools.txt."""
    out = {}
    text = (data_path() / "tools.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            name, package, version, *folder = line.split()
            out[name] = (package, version, folder[0] if folder else None)  # a fifth field names the versioned module
    return out


@dataclass(frozen=True)
class Tool:
    name: str
    argv: tuple[str, ...]  # the command that runs it (kubectl kustomize is two words)

    @property
    def via_kubectl(self) -> bool:
        return len(self.argv) == 2 and self.argv[1] == "kustomize"

    def build(self, folder, anywhere: bool = False) -> list[str]:
        """`kustomize build DIR`, or `kubectl kustomize DIR` (kubectl takes no build verb); anywhere: files may lie
        outside DIR, as when Flux's kustomize-controller builds (it turns kustomize's load restrictions off)."""
        loose = ["--load-restrictor", "LoadRestrictionsNone"] if anywhere else []
        return [*self.argv, str(folder), *loose] if self.via_kubectl else [*self.argv, "build", str(folder), *loose]


def _bin_dirs() -> list[Path]:
    dirs = [Path.cwd() / "bin"]
    checkout = Path(__file__).resolve().parents[1] / "bin"  # an editable install's checkout
    if checkout not in dirs:
        dirs.append(checkout)
    return dirs


def _install_hint(name: str) -> str:
    package, version, folder = pinned()[name]
    how = f"`GOBIN=$PWD/bin go install {package}@{version}`" if folder is None else \
        f"`go build -o bin/{name} {package}` in {folder} of gengpu's source"
    checkout = Path(__file__).resolve().parents[1] / "scripts" / "install-tools"
    script = f"run {checkout} (builds {name} {version} into ./bin), or " if checkout.is_file() else ""
    kubectl = " (or put kubectl on PATH: gengpu uses its kustomize)" if name == "kustomize" else ""
    return f"{script}{how}{kubectl}, or set {ENV[name]} to the binary"


def find(name: str) -> Tool:
    env = os.environ.get(ENV[name])
    if env:
        if not (Path(env).is_file() and os.access(env, os.X_OK)):
            raise UsageError(f"{ENV[name]}={env} is not an executable file; {_install_hint(name)}")
        return Tool(name, (env,))
    for folder in _bin_dirs():
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return Tool(name, (str(candidate),))
    on_path = shutil.which(name)
    if on_path:
        return Tool(name, (on_path,))
    if name == "kustomize" and shutil.which("kubectl"):
        return Tool(name, (shutil.which("kubectl"), "kustomize"))
    raise UsageError(f"{name} not found (looked at ${ENV[name]}, ./bin and PATH); {_install_hint(name)}")


def version(tool: Tool) -> str:
    if tool.via_kubectl:
        cmd = [tool.argv[0], "version", "--client"]  # kubectl's own version names the kustomize it embeds
    else:
        cmd = [*tool.argv, "version" if tool.name == "kustomize" else "-v"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except OSError as exc:
        raise UsageError(f"cannot run {tool.name}: {exc}") from exc
    return (out.stdout or out.stderr).strip()


def identity(*names: str) -> str:
    """Which binaries a result came from (path, size, time): a new kubeconform or kustomize invalidates it."""
    parts = []
    for name in names:
        try:
            tool = find(name)
        except UsageError:
            parts.append(f"{name}: missing")
            continue
        try:
            st = os.stat(tool.argv[0])
            parts.append(f"{' '.join(tool.argv)}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{' '.join(tool.argv)}: unreadable")
    return "\n".join(parts)
