"""Fuzz the surfaces beyond validate and build: `import`, `plan`, `init`, `diff` over hostile trees and refs, and a
cache of another shape. Each case is deterministic in its number; every command must end in 0, 1 or 2 (a finding
or a clear error), never in an internal error.

A case runs, in its own folder:
  import   a mutated karpenter.sh/v1alpha5 Provisioner; a printed result must be YAML with only zones and nodePools
  plan     the mutated profile of mutator.case(number), when it is one, after validate and build
  cache    every cache file replaced by JSON of another shape: validate and build must answer as before
  init     gengpu init with hostile names, regions, branches and URLs: nothing outside its folder, and what it
           writes passes its own checks
  diff     a git repository whose base commit holds links out of the tree, odd names and a FIFO-like entry, and
           hostile revisions
  check    a healthy snapshot of an example profile (tests/snapshots.py), mutated as data and as text: every
           finding format must answer
  rightsize  a recording of dcgm-exporter samples (tests/dcgm_samples.py) mutated line by line (values that are
           not numbers or are NaN, Inf, negative or huge; timestamps out of order or missing; labels cut; bytes that
           are not UTF-8; no # EOF), sized as JSON and sometimes written: a written profile must pass validate
  pastes   a real paste of the live corpus (tests/live-corpus: kubectl tables, describe text, labels, jq lines)
           mutated line by line (lines deleted, repeated, cut, indented or not, joined; characters a hand edit or a
           terminal leaves inserted): `check --snapshot` of it must answer in every format
  answers  hostile servers: `check --context` against an HTTP server answering the capture's LISTs with mutated
           lists, other shapes, error codes, endless continue tokens or bytes that are not JSON; `rightsize
           --prometheus` against one answering each query so (values NaN, Inf, negative, huge or not numbers,
           other result types, error statuses, deep nesting, control characters in labels). Servers that cannot
           be made to answer so (the real ones) are what the tests use; this is the fuzzer's side
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import yaml

from . import mutator
from .runner import Outcome, _internal, _invoke

PROVISIONERS = [
    """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: gpu}
spec:
  requirements:
    - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, p4d]}
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
    - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
  taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
  labels: {team: ml}
  limits: {resources: {cpu: 500, memory: 1000Gi, nvidia.com/gpu: 16}}
  ttlSecondsAfterEmpty: 30
  weight: 10
  kubeletConfiguration: {maxPods: 110}
  providerRef: {name: default}
""",
    """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: Big-GPUs}
spec:
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}
    - {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ["4"]}
  consolidation: {enabled: true}
""",
]
JUNK_CACHE = ["[]", "null", '"x"', "{}", '{"files": []}', '{"version": 1, "files": {"k": 1}, "states": []}',
              '[{"file": 1}]', '{"version": 1, "files": {"k": {"findings": [{"line": "x"}]}}}', "1e999", "{" * 50]
HOSTILE_REFS = ["HEAD~7", "--help", "$(id)", "a\nb", "HEAD:", "../x", "refs/heads/none", "-x", "HEAD@{99}", "💥"]


def provisioner(number: int) -> tuple[bytes, tuple[str, ...]]:
    rng = random.Random(f"provisioner-{number}")
    content: str | bytes = rng.choice(PROVISIONERS)
    mutations = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        if isinstance(content, bytes):
            break
        if rng.random() < 0.6:
            try:
                docs = list(yaml.safe_load_all(content))
            except Exception:  # noqa: BLE001  (a text mutation broke the YAML: mutate the text again)
                docs = []
            if docs and all(isinstance(d, (dict, list)) for d in docs):
                mutations.append(mutator._data_mutation(rng, docs[0], "manifest"))  # noqa: SLF001
                try:
                    content = yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True)
                except (yaml.YAMLError, RecursionError, ValueError):
                    mutations.append("(not representable)")
                continue
        what, content = mutator._text_mutation(rng, content)  # noqa: SLF001
        mutations.append(what)
    data = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
    return data, tuple(mutations)


def _code(out: Outcome, command: str, result) -> int:
    out.codes[command] = result.exit_code
    _internal(out, result)
    return result.exit_code


def _import(number: int, work: Path, out: Outcome) -> None:
    data, _ = provisioner(number)
    (work / "p.yaml").write_bytes(data)
    result = _invoke(["import", "karpenter-provisioner", "p.yaml"], work)
    if _code(out, "import", result) == 0:
        try:
            printed = yaml.safe_load(result.stdout)
            ok = isinstance(printed, dict) and set(printed) == {"zones", "nodePools"}
        except yaml.YAMLError:
            ok = False
        if not ok:
            out.internal += f"import printed YAML that is not a profile part:\n{result.stdout[:500]}"


def _plan_and_cache(number: int, work: Path, out: Outcome) -> None:
    case = mutator.case(number)
    if case.kind != "profile":
        return
    (work / "profiles").mkdir()
    (work / "profiles" / case.name).write_bytes(case.content)
    first = {c: _code(out, c, _invoke(args, work)) for c, args in (
        ("validate", ["validate", "-q"]), ("build", ["build", "-q"]), ("plan", ["plan", "--output", "json"]))}
    rng = random.Random(f"cache-{number}")
    for path in sorted((work / ".cache" / "gengpu").glob("*.json")):
        path.write_text(rng.choice(JUNK_CACHE))
    again = {c: _code(out, f"{c} (cache junk)", _invoke([c, "-q"], work)) for c in ("validate", "build")}
    if again != {c: first[c] for c in again}:
        out.internal += f"a cache of another shape changed the verdict: {first} then {again}"


def _init(number: int, work: Path, out: Outcome) -> None:
    rng = random.Random(f"init-{number}")
    args = ["init", "repo", "--platform", rng.choice(["eks", "gke", "gke-autopilot", "aks"]),
            "--gpu", rng.choice(["L4", "T4", "A100-40GB", "H100-80GB", "Z9", "💥"])]
    for flag in ("--name", "--region", "--branch", "--repo-url", "--sharing", "--replicas"):
        if rng.random() < 0.4:
            # a shell cannot pass a NUL byte in an argument
            value = rng.choice([h for h in mutator.HOSTILE if "\x00" not in h] + ["ok", "us-central1", "2", "mig"])
            args += [flag, value]
    before = set(os.listdir(work))
    _code(out, "init", _invoke(args, work))
    if set(os.listdir(work)) - before - {"repo"}:
        out.internal += f"init wrote outside its folder: {sorted(set(os.listdir(work)) - before)}"


def _git(work: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "f", "GIT_AUTHOR_EMAIL": "f@x", "GIT_COMMITTER_NAME": "f",
           "GIT_COMMITTER_EMAIL": "f@x"}
    subprocess.run(["git", *args], cwd=work, env=env, capture_output=True, check=False)


def _diff(number: int, work: Path, out: Outcome) -> None:
    rng = random.Random(f"diff-{number}")
    root = Path(__file__).resolve().parents[2]
    (work / "profiles").mkdir(exist_ok=True)
    seed = rng.choice(sorted((root / "profiles").glob("*.yaml")))
    (work / "profiles" / seed.name).write_text(seed.read_text())
    _invoke(["build", "-q"], work)
    overlay = next((p for p in sorted((work / "overlays").glob("*")) if p.is_dir()), work / "overlays")
    for _ in range(rng.randrange(1, 4)):
        what = rng.randrange(6)
        target = overlay / rng.choice(["x.yaml", "a\nb.yaml", "local/k.yaml", "deep/er/z.yaml", "-rf.yaml"])
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            if what == 0:
                target.symlink_to(rng.choice(["/etc/passwd", "../../../../outside", "/dev/zero", "."]))
            elif what == 1:
                target.write_bytes(bytes(rng.randrange(256) for _ in range(64)))
            elif what == 2:
                (overlay / "kustomization.yaml").write_text(rng.choice(["resources: [../../../etc]\n", "{", ""]))
            elif what == 3:
                target.write_text("\n".join(rng.choice(mutator.HOSTILE) for _ in range(5)))
            else:
                target.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
        except (OSError, ValueError):
            pass
    _git(work, "init", "-q")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "base")
    profile = work / "profiles" / seed.name
    profile.write_text(profile.read_text().replace("replicas: ", "replicas: 1") if rng.random() < 0.5 else
                       profile.read_text() + "\n# changed\n")
    _invoke(["build", "-q"], work)
    for ref in ("HEAD", rng.choice(HOSTILE_REFS)):
        _code(out, f"diff {json.dumps(ref)}", _invoke(["diff", "--base", ref, "--output", "json"], work))


def snapshot(number: int) -> tuple[str, bytes, tuple[str, ...]]:
    """An example profile's name and a snapshot of its cluster, mutated as data and as text."""
    import snapshots  # tests/snapshots.py: healthy snapshots built from the profile YAML

    rng = random.Random(f"check-{number}")
    profile = rng.choice(sorted((mutator.ROOT / "profiles").glob("*.yaml")))
    data = snapshots.healthy(profile.read_text(), per_pool=rng.choice([1, 2]))
    mutations = [mutator._data_mutation(rng, data, "manifest") for _ in range(rng.choice([1, 2, 4, 8]))]  # noqa: SLF001
    try:
        content: str | bytes = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    except (yaml.YAMLError, RecursionError, ValueError):
        return profile.name, b"[]", (*mutations, "(not representable)")
    if rng.random() < 0.3:
        what, content = mutator._text_mutation(rng, content)  # noqa: SLF001
        mutations.append(what)
    raw = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
    return profile.name, raw, tuple(mutations)


def _check(number: int, work: Path, out: Outcome) -> None:
    name, raw, _ = snapshot(number)
    (work / name).write_bytes((mutator.ROOT / "profiles" / name).read_bytes())
    (work / "snap.yaml").write_bytes(raw)
    for fmt in ("json", "sarif"):
        result = _invoke(["check", name, "--snapshot", "snap.yaml", "--output", fmt], work)
        if _code(out, f"check --output {fmt}", result) in (0, 1):
            try:
                json.loads(result.stdout)
            except ValueError:
                out.internal += f"check --output {fmt} printed no JSON:\n{result.stdout[:500]}"


CORPUS = mutator.ROOT / "tests" / "live-corpus"
# what a hand edit, a terminal or a chat leaves in a paste: separators, prompts, a tab, a NUL, other digits, a
# kubectl column word, events' "(x3 over", an Init: status
INSERTS = [":", "/", "=", "  ", "\\", "[", "(x3 over", "Init:", "$ ", "NAME  ", "\t", "é", "\x00", "١٢", "\u202e",
           "\x1b[2J", "<none>", "0/1", "-1", "99999999999999999999"]


def paste(number: int) -> tuple[str, str, bytes, tuple[str, ...]]:
    """A real paste of the live corpus, its profile and the paste mutated line by line."""
    rng = random.Random(f"pastes-{number}")
    states = yaml.safe_load((CORPUS / "states.yaml").read_text())["states"]
    texts = [(e["file"], e["profile"]) for e in states if not e["file"].endswith((".yaml", ".yml", ".json"))]
    texts += [(f"pastes/{e['file']}", "onprem-gb200-dra.yaml") for e in yaml.safe_load((CORPUS / "pastes.yaml")
                                                                                       .read_text())]
    name, profile = rng.choice(sorted(texts))
    lines = (CORPUS / name).read_text(errors="replace").splitlines()
    done = []
    for _ in range(rng.choice([1, 2, 4, 8])):
        if not lines:
            break
        i = rng.randrange(len(lines))
        how = rng.choice(["drop", "dup", "cut", "insert", "indent", "dedent", "join"])
        if how == "drop":
            lines.pop(i)
        elif how == "dup":
            lines.insert(i, rng.choice(lines))
        elif how == "cut":
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif how == "insert":
            at = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:at] + rng.choice(INSERTS) + lines[i][at:]
        elif how == "indent":
            lines[i] = "    " + lines[i]
        elif how == "dedent":
            lines[i] = lines[i].lstrip()
        elif i + 1 < len(lines):
            lines[i:i + 2] = [lines[i] + "   " + lines[i + 1]]
        done.append(f"{how} line {i + 1}")
    return name, profile, ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"), (name, *done)


def _pastes(number: int, work: Path, out: Outcome) -> None:
    name, profile, raw, _ = paste(number)
    (work / profile).write_bytes((CORPUS / "profiles" / profile).read_bytes())
    (work / "paste.txt").write_bytes(raw)
    for fmt in ("text", "json", "sarif"):
        result = _invoke(["check", profile, "--snapshot", "paste.txt", "--output", fmt], work)
        if _code(out, f"check --output {fmt} (a mutated paste)", result) in (0, 1) and fmt != "text":
            try:
                json.loads(result.stdout)
            except ValueError:
                out.internal += f"check --output {fmt} of a mutated {name} printed no JSON:\n{result.stdout[:500]}"
        _escaped(out, f"check --output {fmt} of a mutated {name}", result)


VALUES = ["NaN", "+Inf", "-Inf", "-1", "1e308", "0x10", "", "4.5.6", "١٢", "true"]


def recording(number: int) -> tuple[bytes, tuple[str, ...]]:
    """A small recording of the gke-a100 fleet, mutated line by line."""
    import dcgm_samples  # tests/dcgm_samples.py

    rng = random.Random(f"rightsize-{number}")
    gpus = rng.sample(dcgm_samples.a100_fleet(), rng.choice([1, 2, 4]))
    lines = dcgm_samples.openmetrics(gpus, hours=rng.choice([1, 3]), step=300).splitlines()
    done = []
    for _ in range(rng.choice([1, 3, 10])):
        i = rng.randrange(len(lines))
        how = rng.choice(["value", "time", "cut", "swap", "drop", "dup", "bytes", "eof"])
        parts = lines[i].rsplit(" ", 2)
        if how == "value" and len(parts) == 3:
            lines[i] = f"{parts[0]} {rng.choice(VALUES)} {parts[2]}"
        elif how == "time" and len(parts) == 3:
            lines[i] = f"{parts[0]} {parts[1]} {rng.choice(['', '-5', '1e30', 'x', '1764547200.5'])}".rstrip()
        elif how == "cut":
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif how == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == "drop":
            lines.pop(i)
        elif how == "dup":
            lines.insert(i, lines[i])
        elif how == "bytes":
            lines[i] = lines[i] + "\udcff"
        elif how == "eof" and lines[-1] == "# EOF":
            lines.pop()
        done.append(f"{how} line {i + 1}")
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"), tuple(done)


def _rightsize(number: int, work: Path, out: Outcome) -> None:
    usage = mutator.ROOT / "tests" / "usage"
    (work / "gke-a100.yaml").write_bytes((usage / "gke-a100.yaml").read_bytes())
    (work / "snap.yaml").write_bytes((usage / "snapshot.yaml").read_bytes())
    raw, _ = recording(number)
    (work / "gpus.om").write_bytes(raw)
    write = ["--write"] if number % 3 == 0 else []
    result = _invoke(["rightsize", "gke-a100.yaml", "--snapshot", "snap.yaml", "--metrics", "gpus.om", "--since", "1d",
                      "--min-hours", "0", "--output", "json", *write], work)
    if _code(out, "rightsize --output json", result) in (0, 1):
        try:
            json.loads(result.stdout)
        except ValueError:
            out.internal += f"rightsize --output json printed no JSON:\n{result.stdout[:500]}"
    if write and _code(out, "validate (after rightsize --write)", _invoke(["validate", "gke-a100.yaml"], work)) != 0:
        out.internal += "rightsize --write left a profile that does not validate"


def _serve(answer):
    """A local HTTP server whose every GET or POST is answered by answer(path) -> (status, body bytes[, reason
    phrase, headers])."""
    import http.server
    import threading

    class Hostile(http.server.BaseHTTPRequestHandler):
        def _reply(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            status, body, *more = answer(self.path)
            reason, headers = (more + [None, ()])[:2] if more else (None, ())
            self.send_response(status, reason)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _reply  # noqa: N815

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def _hostile_json(rng: random.Random, good: dict) -> tuple[int, bytes]:
    how = rng.choice(["mutated", "mutated", "mutated", "shape", "status", "bytes", "deep", "continue", "twice",
                      "reason", "throttled", "surrogate"])
    if how == "twice":  # a key given twice (issue 50: read last-wins silently before)
        text = json.dumps(good)
        return 200, text.replace('"items": ', '"items": [], "items": ', 1).encode()
    if how == "reason":  # escape codes and a forged line in the reason phrase
        return rng.choice([500, 502, 403]), b"{}", rng.choice(["Oops\x1b]0;pwned\x07", "x\r\ngengpu: no findings",
                                                                 "\u202eevil"]), ()
    if how == "throttled":
        return rng.choice([429, 503]), b"{}", None, [("Retry-After", rng.choice(["0", "1", "-5", "soon", "1e9"]))]
    if how == "surrogate":  # a lone surrogate in a name, as JSON lets through
        text = json.dumps(good)
        return 200, text.replace('"name": "', '"name": "\\udc80', 1).encode()
    if how == "mutated":
        data = json.loads(json.dumps(good))
        for _ in range(rng.choice([1, 2, 4])):
            mutator._data_mutation(rng, data, "manifest")  # noqa: SLF001
        try:
            return 200, json.dumps(data, allow_nan=True).encode("utf-8", "surrogatepass")
        except (ValueError, TypeError, RecursionError):
            return 200, b"{}"
    if how == "shape":
        return 200, rng.choice([b"[]", b"null", b'"x"', b"1e999", b'{"items": {}}', b'{"data": []}', b"{}"])
    if how == "status":
        return rng.choice([401, 403, 404, 410, 429, 500, 503]), rng.choice([b"{}", b"<html>no</html>", b""])
    if how == "bytes":
        return 200, bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 64])))
    if how == "deep":
        depth = rng.choice([5000, 200_000])
        return 200, b'{"items": ' + b"[" * depth + b"]" * depth + b"}"
    token = f"t{rng.randrange(10 ** 9)}"  # a continue token that never ends the list
    return 200, json.dumps({**good, "metadata": {"continue": token}}).encode()


def _answers(number: int, work: Path, out: Outcome) -> None:
    import snapshots  # tests/snapshots.py

    rng = random.Random(f"answers-{number}")
    profile = rng.choice(sorted((mutator.ROOT / "profiles").glob("*.yaml")))
    (work / profile.name).write_bytes(profile.read_bytes())
    snap = snapshots.healthy(profile.read_text(), per_pool=1)
    nodes = [i for i in snap["items"] if i.get("kind") == "Node"]

    def api(path: str) -> tuple[int, bytes]:
        good = {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": nodes if "/nodes" in path else []}
        return _hostile_json(rng, good) if rng.random() < 0.5 else (200, json.dumps(good).encode())

    httpd = _serve(api)
    try:
        (work / "kubeconfig").write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "fuzz",
            "clusters": [{"name": "fuzz", "cluster": {"server": f"http://127.0.0.1:{httpd.server_address[1]}"}}],
            "contexts": [{"name": "fuzz", "context": {"cluster": "fuzz", "user": "fuzz"}}],
            "users": [{"name": "fuzz", "user": {"token": "fuzz"}}]}))
        env = {"KUBECONFIG": str(work / "kubeconfig"), "GENGPU_KUBE_DEADLINE": "5"}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            result = _invoke(["check", profile.name, "--context", "fuzz", "--output", "json"], work)
        finally:
            for k, v in old.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        if _code(out, "check --context (hostile API server)", result) in (0, 1):
            json.loads(result.stdout)
        _escaped(out, "check --context (hostile API server)", result)
    finally:
        httpd.shutdown()
        httpd.server_close()

    usage = mutator.ROOT / "tests" / "usage"
    (work / "gke-a100.yaml").write_bytes((usage / "gke-a100.yaml").read_bytes())
    (work / "snap.yaml").write_bytes((usage / "snapshot.yaml").read_bytes())
    labels = {"__name__": "DCGM_FI_DEV_FB_USED", "Hostname": "gke-a100-inference-0", "gpu": "0",
              "UUID": "GPU-0", "modelName": "NVIDIA A100-SXM4-40GB"}

    def prometheus(path: str) -> tuple[int, bytes]:
        value = rng.choice(["NaN", "+Inf", "-Inf", "-1", "1e308", "x", "", "12", "0.5"])
        good = {"status": "success", "data": {"resultType": "vector", "result": [
            {"metric": {**labels, **({"Hostname": "\x1b]0;t\x07\u202e"} if rng.random() < 0.2 else {})},
             "value": [1764547200, value]}]}}
        if rng.random() < 0.3:
            return rng.choice([(400, b'{"status":"error","errorType":"bad_data","error":"x"}'),
                               (200, b'{"status":"success","data":{"resultType":"matrix","result":[]}}'),
                               (200, b'{"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}}'),
                               (200, b'{"status":"success","data":{"resultType":"vector","result":' + b"[" * 3000 +
                                b"]" * 3000 + b"}}")])
        return _hostile_json(rng, good) if rng.random() < 0.3 else (200, json.dumps(good).encode())

    httpd = _serve(prometheus)
    try:
        match = rng.choice([[], [], ["--match", 'Hostname=~"(a+)+"'], ["--match", 'gpu=~"["'],
                            ["--match", 'gpu=~"(?<x>0)"'], ["--match", 'gpu!~"a(?=b)"'], ["--match", "gpu=\"²\""]])
        fmt = rng.choice(["json", "markdown"])
        result = _invoke(["rightsize", "gke-a100.yaml", "--snapshot", "snap.yaml", "--prometheus",
                          f"http://127.0.0.1:{httpd.server_address[1]}", "--since", "1d", "--min-hours", "0",
                          "--output", fmt, *match], work)
        if _code(out, "rightsize --prometheus (hostile server)", result) in (0, 1) and fmt == "json":
            json.loads(result.stdout)
        _escaped(out, "rightsize --prometheus (hostile server)", result)
    finally:
        httpd.shutdown()
        httpd.server_close()


def _escaped(out: Outcome, command: str, result) -> None:
    """Nothing a hostile server wrote reaches the terminal raw: no escape, bell or bidirectional override."""
    raw = [ch for ch in "\x1b\x07\u202e" if ch in result.output]
    if raw:
        out.internal += f"{command}: a raw {raw[0]!r} from the server reached the output"


def run(number: int, workdir: Path) -> Outcome:
    out = Outcome(number)
    for name, surface in (("import", _import), ("plan", _plan_and_cache), ("init", _init), ("diff", _diff),
                          ("check", _check), ("pastes", _pastes), ("rightsize", _rightsize),
                          ("answers", _answers)):
        folder = workdir / name
        folder.mkdir(parents=True)
        try:
            surface(number, folder, out)
        except Exception as exc:  # noqa: BLE001  (a failure of the harness is reported as one, with its surface)
            import traceback

            out.internal += f"{name}: harness failed: " + "".join(traceback.format_exception(exc))
    return out
