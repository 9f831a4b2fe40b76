"""SIGKILL `gengpu build` at random moments, then build again: count the user's files lost and broken overlays.

Each round starts from a copy of the examples with files of the user's in them
(a local/ component, notes, an empty folder, a symlink), changes the profiles
so the build has files to write, rename and delete, kills the build after a
random delay within its usual run time, runs a normal build, and compares
the result with a build that was never killed.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENGPU = str(Path(sys.executable).parent / "gengpu")


def _snapshot(folder: Path) -> dict:
    out = {}
    for top, dirs, names in os.walk(folder, followlinks=False):
        if top == str(folder):
            dirs[:] = [d for d in dirs if d != ".cache"]  # gengpu's cache, not the user's files
        for name in dirs + names:
            path = Path(top) / name
            rel = path.relative_to(folder).as_posix()
            out[rel] = ("link", os.readlink(path)) if path.is_symlink() else ("dir",) if path.is_dir() \
                else ("file", path.read_bytes())
    return out


def _repo(at: Path, variant: int) -> None:
    shutil.copytree(ROOT / "profiles", at / "profiles")
    shutil.copytree(ROOT / "overlays", at / "overlays")
    shutil.copytree(ROOT / "argocd", at / "argocd")
    overlay = at / "overlays" / "eks-l4-mps"
    (overlay / "local").mkdir()
    (overlay / "local" / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1alpha1\n"
                                                          "kind: Component\n")
    (overlay / "local" / "copy.yaml").write_bytes((overlay / "namespace.yaml").read_bytes())
    (overlay / "NOTES.md").write_text("mine\n")
    (overlay / "empty").mkdir()
    (overlay / "link").symlink_to("NOTES.md")
    (at / "overlays" / "aks-t4-timeslicing" / "mine.yaml").write_text("kind: ConfigMap # mine\n")
    rng = random.Random(variant)
    for profile in sorted((at / "profiles").glob("*.yaml")):
        text = profile.read_text()
        if rng.random() < 0.6:
            text = text.replace("replicas: 4", "replicas: 6").replace("replicas: 10", "replicas: 8")
        if rng.random() < 0.5:
            text = text.replace("verify: true", "verify: false")
        profile.write_text(text)
    if rng.random() < 0.5:
        (at / "profiles" / "gke-autopilot-l4.yaml").unlink()


def _user_files(snapshot: dict) -> dict:
    return {k: v for k, v in snapshot.items() if k.startswith(("overlays/eks-l4-mps/local", "profiles/"))
            or k in ("overlays/eks-l4-mps/NOTES.md", "overlays/eks-l4-mps/empty", "overlays/eks-l4-mps/link",
                     "overlays/aks-t4-timeslicing/mine.yaml")}


def main(rounds: int) -> int:
    lost = broken = leftovers = failed = 0
    killed_mid_run = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        reference = {}
        for variant in range(4):
            ref = base / f"ref{variant}"
            _repo(ref, variant)
            start = time.monotonic()
            subprocess.run([GENGPU, "build"], cwd=ref, check=True, capture_output=True)
            reference[variant] = (_snapshot(ref), time.monotonic() - start)
        rng = random.Random(0)
        for round_ in range(rounds):
            variant = round_ % 4
            expected, took = reference[variant]
            work = base / f"w{round_}"
            _repo(work, variant)
            before = _user_files(_snapshot(work))
            proc = subprocess.Popen([GENGPU, "build"], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0, took * 1.2))
            if proc.poll() is None:
                killed_mid_run += 1
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            after = subprocess.run([GENGPU, "build"], cwd=work, capture_output=True, text=True)
            if after.returncode != 0:
                failed += 1
                print(f"round {round_}: the build after the kill failed: {after.stderr.strip()[:300]}")
            got = _snapshot(work)
            missing = {k for k, v in before.items() if got.get(k) != v}
            lost += len(missing)
            if got != expected:
                broken += 1
                diff = sorted(set(got.items()) ^ set(expected.items()), key=str)[:3] if not missing else missing
                print(f"round {round_}: overlays differ from an uninterrupted build: {str(diff)[:300]}")
            leftovers += sum(1 for k in got if ".gengpu-" in k)
            shutil.rmtree(work)
    print(f"{rounds} builds killed at random moments ({killed_mid_run} while running), each followed by a normal "
          f"build:")
    print(f"  user files lost: {lost}   overlays differing from an uninterrupted build: {broken}   "
          f"leftover temporary files: {leftovers}   failed rebuilds: {failed}")
    return 1 if lost or broken or leftovers or failed else 0
