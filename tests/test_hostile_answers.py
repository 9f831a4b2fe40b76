"""Hostile answers, round 2 (issue 50): an API server that throttles, trickles, floods, nests or puts escape codes in
its reason phrase, and the bad data and settings that used to end in gengpu's internal-error exit (3). Each case
is told as what it is, bounded in time and memory, and escaped where it is shown. The fake server is plain HTTP
in this process; TLS is tested against the real API server (test_live.py)."""

from __future__ import annotations

import http.server
import json
import urllib.parse
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
MPS = REPO / "profiles" / "eks-l4-mps.yaml"
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "l4-mps-0", "labels": {
    "gengpu.dev/pool": "l4-mps", "nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "4"}},
    "status": {"capacity": {"nvidia.com/gpu": "4"}, "allocatable": {"nvidia.com/gpu": "4"},
               "conditions": [{"type": "Ready", "status": "True"}]}}


class _Handler(http.server.BaseHTTPRequestHandler):
    """A fake server's handler: `send` answers with a status, a body, a reason phrase and headers as given."""

    protocol_version = "HTTP/1.1"

    def send(self, code, body, reason=None, headers=()):
        self.send_response(code, reason)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class _Served:
    """A local HTTP server in a thread of this process, with one handler class."""

    def __init__(self, handler):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        # (shutdown() waits for the loop's next poll: 0.5 s by default, at every test's end)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Fake(_Served):
    """An API server answering every list with NODE (or nothing), or what `answer` says for the nodes' list."""

    def __init__(self, answer):
        self.answer, self.asked, self.authorization = answer, [], []
        fake = self

        class Handler(_Handler):
            def do_GET(self):  # noqa: N802
                fake.asked.append(self.path)
                fake.authorization.append(self.headers.get("Authorization"))
                path = self.path.split("?")[0]
                if path == "/api/v1/nodes":
                    fake.answer(self, len([p for p in fake.asked if p.split("?")[0] == path]))
                    return
                body = json.dumps({"kind": "List", "items": [], "metadata": {}}).encode()
                if "/configmaps/" in path:  # (gengpu's sharing ConfigMaps: not there)
                    self.send(404, b'{"kind":"Status","code":404}')
                    return
                self.send(200, body)

        super().__init__(Handler)

    def kubeconfig(self, path: Path, token: str | None = "t") -> Path:
        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "fake", "user": {"token": token} if token else {}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}]}))
        return path


def nodes_page(handler, body=None):
    handler.send(200, body or json.dumps({"kind": "NodeList", "items": [NODE], "metadata": {}}).encode())


@pytest.fixture
def check(run, tmp_path, monkeypatch):
    fakes = []

    def _check(answer, *more, token="t"):
        fake = Fake(answer)
        fakes.append(fake)
        monkeypatch.setenv("KUBECONFIG", str(fake.kubeconfig(tmp_path / "kubeconfig", token)))
        shutil.copy(MPS, tmp_path / MPS.name)
        started = time.monotonic()
        result = run("check", MPS.name, "--context", "fake", "--output", "json", *more, cwd=tmp_path)
        return result, fake, time.monotonic() - started

    yield _check
    for fake in fakes:
        fake.close()


def throttled_once(retry_after: str):
    """An API server that answers the first nodes' list with 429 and that Retry-After, then the page."""
    def answer(handler, n):
        if n == 1:
            handler.send(429, b'{"kind":"Status","code":429}', headers=[("Retry-After", retry_after)])
        else:
            nodes_page(handler)

    return answer


@pytest.fixture
def waits(monkeypatch) -> list:
    """Each wait gengpu works out before asking again (settings.retry_after's answers), in order."""
    from gengpu import settings

    said, real = [], settings.retry_after
    monkeypatch.setattr(settings, "retry_after", lambda *args: said.append(real(*args)) or said[-1])
    return said


def test_a_throttled_list_is_asked_again_after_retry_after(check):
    result, fake, took = check(throttled_once("1"))
    assert result.exit_code == 0, result.output
    assert [p.split("?")[0] for p in fake.asked].count("/api/v1/nodes") == 2 and took >= 1


def test_a_server_that_keeps_throttling_is_told_as_throttling_not_rbac(check):
    result, fake, _ = check(lambda h, n: h.send(429, b"{}", headers=[("Retry-After", "0")]))
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        "gengpu: error: cannot list nodes: throttled (429 Too Many Requests, asked again after its Retry-After): the "
        "API server is busy; try later")
    assert [p.split("?")[0] for p in fake.asked].count("/api/v1/nodes") == 3


def test_a_busy_server_is_waited_for_as_each_answer_says_and_not_after_the_last(check, waits):
    """429 and 503 are both "busy, ask again" (the API server's max-in-flight and its shutting-down answers): each
    wait is the answer's Retry-After in seconds, else (an HTTP date) 1, 2, 4 ... by attempt; after the last try,
    gengpu does not wait for nothing."""
    said = {1: (429, "Wed, 21 Oct 2015 07:28:00 GMT"), 2: (503, "0.25"), 3: (429, "5")}
    result, fake, _ = check(lambda h, n: h.send(said[n][0], b"{}", headers=[("Retry-After", said[n][1])]))
    assert (result.exit_code, waits) == (2, [1.0, 0.25])
    assert [p.split("?")[0] for p in fake.asked].count("/api/v1/nodes") == 3
    assert result.output.splitlines()[-1] == (
        "gengpu: error: cannot list nodes: throttled (429 Too Many Requests, asked again after its Retry-After): the "
        "API server is busy; try later")


def test_an_answer_that_trickles_is_cut_off_at_the_request_timeout(check, monkeypatch):
    """A byte every 50 ms, each read well within any socket timeout: the answer as a whole must arrive within the
    request's time (1 s here), not wait read after read."""
    body = json.dumps({"kind": "NodeList", "items": [NODE] * 50, "metadata": {}}).encode()

    def answer(handler, n):
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        try:
            for i in range(len(body)):
                handler.wfile.write(body[i:i + 1])
                handler.wfile.flush()
                time.sleep(0.05)
        except OSError:  # (gengpu hung up)
            pass

    monkeypatch.setattr("gengpu.live.kube.TIMEOUT", 1)
    result, _, took = check(answer)
    assert result.exit_code == 2 and took < 8, (took, result.output)
    assert result.output.splitlines()[-1].startswith(
        "gengpu: error: the API server of context 'fake' did not answer whole in time: the answer to /api/v1/nodes "
        "did not arrive whole in time (")


def test_an_answer_over_the_size_limit_is_refused(check, monkeypatch):
    monkeypatch.setenv("GENGPU_MAX_ANSWER_BYTES", "4096")
    body = json.dumps({"kind": "NodeList", "items": [NODE] * 40, "metadata": {}}).encode()
    result, _, _ = check(lambda h, n: nodes_page(h, body))
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        "gengpu: error: the API server's answer to /api/v1/nodes is over 4096 bytes (GENGPU_MAX_ANSWER_BYTES sets the "
        "limit); no page of objects is that large")


def test_the_size_limit_is_the_largest_answer_read_and_is_told_in_mib(check, monkeypatch):
    """An answer of exactly GENGPU_MAX_ANSWER_BYTES is read; one byte more is refused, the limit told in MiB from
    1 MiB up (a limit of 1,048,577 bytes is told as 1 MiB)."""
    body = json.dumps({"kind": "NodeList", "items": [NODE] * 4, "metadata": {}}).encode()
    assert len(body) >= 1024  # (the least limit there is)
    monkeypatch.setenv("GENGPU_MAX_ANSWER_BYTES", str(len(body)))
    result, _, _ = check(lambda h, n: nodes_page(h, body))
    assert result.exit_code == 0, result.output
    monkeypatch.setenv("GENGPU_MAX_ANSWER_BYTES", str(1024 * 1024 + 1))
    big = json.dumps({"kind": "NodeList", "items": [NODE] * 3500, "metadata": {}}).encode()
    assert len(big) > 1024 * 1024 + 1
    result, _, _ = check(lambda h, n: nodes_page(h, big))
    assert result.output.splitlines()[-1] == (
        "gengpu: error: the API server's answer to /api/v1/nodes is over 1 MiB (GENGPU_MAX_ANSWER_BYTES sets the "
        "limit); no page of objects is that large")


def test_a_retry_after_longer_than_the_request_has_left_is_cut_to_what_is_left(check, monkeypatch, waits):
    """A 429 asking for 5 s when the request has 2 s: gengpu waits what is left but a second (the second for the
    answer itself), not 5 s and not nothing."""
    monkeypatch.setattr("gengpu.live.kube.TIMEOUT", 2)
    result, _, _ = check(throttled_once("5"))
    assert result.exit_code == 0, result.output
    assert len(waits) == 1 and 0.5 < waits[0] <= 1.0, waits


def test_a_request_has_time_left_for_its_answer_or_no_wait_at_all(check, monkeypatch, waits):
    """A 429 asking for 5 s when the request has half a second: less than the second kept for the answer is left,
    so gengpu asks again at once (a wait of 0), never past the request's time."""
    monkeypatch.setattr("gengpu.live.kube.TIMEOUT", 0.5)
    check(throttled_once("5"))
    assert waits[:1] == [0.0], waits


@pytest.mark.parametrize("status, read", [(200, True), (299, True), (300, False)])
def test_only_a_2xx_answer_is_a_page(check, status, read):
    """Any 2xx is an answer (RFC 9110 15.3); a 300 is the server's refusal."""
    result, _, _ = check(lambda h, n: h.send(status, json.dumps(
        {"kind": "NodeList", "items": [NODE], "metadata": {}}).encode()))
    if read:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 2 and result.output.splitlines()[-1].startswith(
            f"gengpu: error: cannot list nodes: HTTP {status}"), result.output


@pytest.mark.parametrize("token, sent", [("t", "Bearer t"), (None, None)])
def test_a_kubeconfig_token_is_sent_and_no_authorization_without_one(check, token, sent):
    """Every request carries the context's bearer token; a context without one (a local cluster open to anyone, or
    client certificates) sends no Authorization header at all, not an empty one."""
    result, fake, _ = check(lambda h, n: nodes_page(h), token=token)
    assert result.exit_code == 0, result.output
    assert fake.authorization and set(fake.authorization) == {sent}


@pytest.mark.parametrize("metadata_first", [True, False])
def test_every_page_of_a_list_is_read_by_its_continue_token_wherever_the_metadata_is(run, tmp_path, monkeypatch,
                                                                                      metadata_first):
    """A list of two pages, each page asked for once. The first's metadata (and its continue token) where the API
    server puts it, before the items: the second page is asked for from the head while the first is parsed. After
    its items, past the head gengpu peeks at: the token the whole parse reads asks for it. Both pages' nodes are
    captured."""
    second = {**NODE, "metadata": {**NODE["metadata"], "name": "l4-mps-1"}}
    filler = {**NODE, "metadata": {**NODE["metadata"], "annotations": {"x": "y" * 8192}}}

    def answer(handler, n):
        if n == 1:
            page = {"kind": "NodeList", "items": [filler, NODE], "metadata": {"continue": "page-2"}}
            if metadata_first:
                page = {"kind": "NodeList", "metadata": page["metadata"], "items": page["items"]}
            handler.send(200, json.dumps(page).encode())
        else:
            nodes_page(handler, json.dumps({"kind": "NodeList", "items": [second], "metadata": {}}).encode())

    fake = Fake(answer)
    try:
        monkeypatch.setenv("KUBECONFIG", str(fake.kubeconfig(tmp_path / "kubeconfig")))
        result = run("snapshot", "-o", "snap.json", cwd=tmp_path)
        assert result.exit_code == 0, result.output
        nodes = [p for p in fake.asked if p.startswith("/api/v1/nodes")]
    finally:
        fake.close()
    assert [i["metadata"]["name"] for i in json.loads((tmp_path / "snap.json").read_text())["items"]
            if i["kind"] == "Node"] == ["l4-mps-0", "l4-mps-0", "l4-mps-1"]
    assert len(nodes) == 2 and "continue=page-2" in nodes[1] and "continue" not in nodes[0]


@pytest.mark.parametrize("body, why", [
    (b'{"kind": "NodeList", "items": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
     "it is nested deeper than any Kubernetes object or Prometheus answer"),
    (b'{"kind": "NodeList", "items": [], "items": [], "metadata": {}}', "the key 'items' is given twice in one object"),
])
def test_an_answer_that_is_not_json_gengpu_reads_is_told_as_such(check, body, why):
    result, _, _ = check(lambda h, n: nodes_page(h, body))
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == f"gengpu: error: cannot list nodes: HTTP 200 the answer is not JSON " \
                                             f"gengpu reads: {why}"


def test_a_reason_phrase_with_escape_codes_is_shown_escaped(check):
    result, _, _ = check(lambda h, n: h.send(500, b"{}", reason="Oops\x1b]0;pwned\x07"))
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert result.output.splitlines()[-1] == "gengpu: error: cannot list nodes: HTTP 500 Oops\\x1b]0;pwned\\x07"


@pytest.mark.parametrize("name, value", [
    ("GENGPU_MAX_SNAPSHOT_BYTES", "abc"), ("GENGPU_MAX_SNAPSHOT_BYTES", "-1"),
    ("GENGPU_MAX_SNAPSHOT_BYTES", "9" * 30), ("GENGPU_MAX_FILE_BYTES", "1e9"), ("GENGPU_MAX_ANSWER_BYTES", "²"),
])
def test_a_bad_setting_is_a_clear_error(run, tmp_path, monkeypatch, name, value):
    shutil.copy(MPS, tmp_path / MPS.name)
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [NODE]}))
    monkeypatch.setenv(name, value)
    if name == "GENGPU_MAX_ANSWER_BYTES":  # read when an API server is asked
        from gengpu import settings

        with pytest.raises(Exception) as raised:
            settings.byte_count(name, 1024)
        assert str(raised.value).startswith(f"{name}={value!r}: give a whole number of bytes from 1024 to ")
        return
    result = run("check", MPS.name, "--snapshot", "snap.yaml", cwd=tmp_path)
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1].startswith(f"gengpu: error: {name}={value!r}: give a whole number of bytes")


def test_bad_data_in_a_snapshot_is_never_an_internal_error(run, tmp_path):
    """A GPU count of '²' (a digit to str.isdigit, not to int), a lone surrogate in a node's name (JSON's \\udc80),
    and a sharing config nested 20,000 deep: every format says what it found, none exits 3."""
    node = json.loads(json.dumps(NODE))
    node["metadata"]["name"] = "l4-mps-0\udc80"
    node["metadata"]["labels"].update({"nvidia.com/gpu.count": "²", "nvidia.com/gpu.replicas": "²",
                                       "nvidia.com/device-plugin.config": "l4-mps"})
    node["status"]["capacity"]["nvidia.com/gpu"] = "²"
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gengpu-device-plugin-config",
                                                                      "namespace": "gpu-operator"},
              "data": {"l4-mps": "[" * 20_000 + "]" * 20_000}}
    (tmp_path / "snap.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, config]}))
    shutil.copy(MPS, tmp_path / MPS.name)
    for fmt in ("text", "json", "github", "sarif", "junit"):
        result = run("check", MPS.name, "--snapshot", "snap.json", "--output", fmt, cwd=tmp_path)
        assert result.exit_code == 1, (fmt, result.output)
        assert "\udc80" not in result.output and "\\udc80" in result.output.replace("\\\\", "\\"), fmt
    found = json.loads(run("check", MPS.name, "--snapshot", "snap.json", "--output", "json",
                           cwd=tmp_path).stdout)["findings"]
    assert "node l4-mps-0\\udc80 (pool l4-mps): runs config l4-mps of ConfigMap gengpu-device-plugin-config, which " \
           "is not YAML the device plugin reads (a syntax error, or nesting deeper than any parser takes): its " \
           "config-manager stops" in [f["message"] for f in found]
    imported = run("import", "--snapshot", "snap.json", "-o", "imported.yaml", cwd=tmp_path)
    assert imported.exit_code in (0, 1), imported.output


def test_import_keeps_label_text_in_its_comments_and_two_labels_two_pools(run, tmp_path):
    """A product label with line breaks stays inside its comment line (it used to start a second YAML document), and
    Karpenter pools l4.spot and l4-spot, one name apart by slug, become two pools."""
    nodes = []
    for name, pool, product in (("a", "l4.spot", "NVIDIA-L4\n---\nkind: Evil\n"), ("b", "l4-spot", "NVIDIA-L4")):
        node = json.loads(json.dumps(NODE))
        node["metadata"] = {"name": name, "labels": {"nvidia.com/gpu.product": product, "nvidia.com/gpu.count": "1",
                                                     "karpenter.sh/nodepool": pool}}
        nodes.append(node)
    (tmp_path / "snap.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes}))
    result = run("import", "--snapshot", "snap.json", "-o", "imported.yaml", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output  # (the profile it wrote has findings: a model to fill in)
    text = (tmp_path / "imported.yaml").read_text()
    assert len(list(yaml.safe_load_all(text))) == 1
    assert "(nvidia.com/gpu.product=NVIDIA-L4\\n---\\nkind: Evil\\n)" in text
    pools = yaml.safe_load(text)["spec"]["nodePools"]
    assert [p["name"] for p in pools] == ["l4-spot", "l4-spot-2"]


class FakePrometheus(_Served):
    """A Prometheus whose /api/v1/query answers what `answer(handler, n)` says; n counts the queries."""

    def __init__(self, answer):
        self.asked = 0
        fake = self

        self.requests: list[tuple[dict, dict]] = []  # each query's headers and form, as the server got them

        class Handler(_Handler):
            def do_POST(self):  # noqa: N802
                form = urllib.parse.parse_qs(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
                fake.requests.append(({k.lower(): v for k, v in self.headers.items()}, form))
                fake.asked += 1
                answer(self, fake.asked)

        super().__init__(Handler)


@pytest.fixture
def rightsize(run, tmp_path):
    usage = REPO / "tests" / "usage"
    shutil.copy(usage / "gke-a100.yaml", tmp_path / "gke-a100.yaml")
    shutil.copy(usage / "snapshot.yaml", tmp_path / "snapshot.yaml")
    fakes = []

    def _rightsize(answer):
        fake = FakePrometheus(answer)
        fakes.append(fake)
        result = run("rightsize", "gke-a100.yaml", "--snapshot", "snapshot.yaml", "--prometheus", fake.url,
                     "--output", "json", cwd=tmp_path)
        return result, fake

    yield _rightsize
    for fake in fakes:
        fake.close()


EMPTY = json.dumps({"status": "success", "data": {"resultType": "vector", "result": []}}).encode()


def test_prometheus_error_text_is_shown_escaped(rightsize):
    """Prometheus's error and errorType come from the server: a title escape, a bell and a forged line stay text."""
    body = json.dumps({"status": "error", "errorType": "bad_data\x07",
                       "error": "parse error\x1b]0;pwned\x07\ngengpu: no findings"}).encode()
    result, fake = rightsize(lambda h, n: h.send(400, body))
    assert result.exit_code == 2
    assert result.stderr == (f"gengpu: error: Prometheus at {fake.url} refused a query (400 bad_data\\x07): parse "
                             "error\\x1b]0;pwned\\x07\\ngengpu: no findings\n")


def test_a_prometheus_reason_phrase_is_shown_escaped(rightsize):
    result, fake = rightsize(lambda h, n: h.send(502, b"<html/>", reason="Bad\x1b[2J Gateway"))
    assert result.exit_code == 2
    assert result.stderr == (f"gengpu: error: Prometheus at {fake.url} answered HTTP 502 Bad\\x1b[2J Gateway: is this "
                             "the server's base URL (the one whose /api/v1/query answers)?\n")


def test_a_throttled_query_is_asked_again_after_retry_after(rightsize):
    def answer(h, n):
        if n == 1:
            h.send(429, b'{"status":"error","error":"slow down"}', headers=[("Retry-After", "1")])
        else:
            h.send(200, EMPTY)

    started = time.monotonic()
    result, fake = rightsize(answer)
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started >= 1  # (Retry-After was waited)
    assert fake.asked > 1


def test_a_prometheus_that_keeps_throttling_is_told_so(rightsize):
    result, fake = rightsize(lambda h, n: h.send(503, b"busy", reason="Service Unavailable",
                                                 headers=[("Retry-After", "0")]))
    assert result.exit_code == 2
    assert fake.asked == 3
    assert result.stderr == (f"gengpu: error: Prometheus at {fake.url} answered HTTP 503 Service Unavailable on 3 "
                             "tries: it is overloaded or limiting this client; try again later or with a narrower "
                             "--since\n")


def test_a_prometheus_answer_with_a_key_twice_is_refused(rightsize):
    body = b'{"status":"success","status":"error","data":{"resultType":"vector","result":[]}}'
    result, fake = rightsize(lambda h, n: h.send(200, body))
    assert result.exit_code == 2
    assert result.stderr == (f"gengpu: error: {fake.url}/api/v1/query did not answer JSON gengpu reads: the key "
                             "'status' is given twice in one object\n")


def test_prometheus_wanting_credentials_is_told_so(rightsize):
    result, fake = rightsize(lambda h, n: h.send(401, b"no", reason="Unauthorized"))
    assert result.exit_code == 2
    assert result.stderr == (f"gengpu: error: Prometheus at {fake.url} answered HTTP 401 Unauthorized: it wants "
                             "credentials gengpu was not given or refused them; set GENGPU_PROMETHEUS_TOKEN to a "
                             "bearer token the server (or its proxy) accepts\n")


def test_each_query_carries_the_token_and_tells_the_server_its_time_limit(rightsize, monkeypatch):
    """A Prometheus behind an authenticating proxy gets GENGPU_PROMETHEUS_TOKEN as a bearer token on every query,
    and every query tells the server gengpu's limit for one answer (Prometheus's timeout parameter), so the server
    stops a query gengpu has stopped waiting for."""
    monkeypatch.setenv("GENGPU_PROMETHEUS_TOKEN", "s3cret")
    monkeypatch.setenv("GENGPU_PROMETHEUS_TIMEOUT", "45")
    result, fake = rightsize(lambda h, n: h.send(200, EMPTY))
    assert fake.requests
    for headers, form in fake.requests:
        assert headers["authorization"] == "Bearer s3cret"
        assert headers["content-type"] == "application/x-www-form-urlencoded"
        assert headers["accept"] == "application/json"
        assert (form["timeout"], sorted(form)) == (["45s"], ["query", "time", "timeout"])


def test_a_prometheus_certificate_not_trusted_is_told_as_tls(run, tmp_path):
    """A self-signed certificate: named as a TLS failure with where to give the CA, not 'cannot reach'."""
    import ssl
    import subprocess

    key, cert = tmp_path / "tls.key", tmp_path / "tls.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
    usage = REPO / "tests" / "usage"
    shutil.copy(usage / "gke-a100.yaml", tmp_path / "gke-a100.yaml")
    shutil.copy(usage / "snapshot.yaml", tmp_path / "snapshot.yaml")
    fake = FakePrometheus(lambda h, n: h.send(200, EMPTY))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    fake.server.socket = context.wrap_socket(fake.server.socket, server_side=True)
    url = fake.url.replace("http://", "https://")
    try:
        result = run("rightsize", "gke-a100.yaml", "--snapshot", "snapshot.yaml", "--prometheus", url, cwd=tmp_path)
    finally:
        fake.close()
    assert result.exit_code == 2
    assert result.stderr == (f"gengpu: error: TLS with Prometheus at {url} failed: its certificate is not one this "
                             "machine trusts (self-signed certificate); give the CA through SSL_CERT_FILE\n")


def _verify_failed(text: str):
    import ssl

    e = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")
    e.verify_message = text
    return e


@pytest.mark.parametrize("reason, said", [
    (_verify_failed("v" * 400), "TLS with Prometheus at https://prom:9090 failed: its certificate is not one this "
                                "machine trusts (" + "v" * 300 + "); give the CA through SSL_CERT_FILE"),
    # (no verify message: the error's own text)
    (_verify_failed(""), "TLS with Prometheus at https://prom:9090 failed: its certificate is not one this machine "
                         "trusts ([SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed); give the CA through "
                         "SSL_CERT_FILE"),
    (__import__("ssl").SSLError(1, "[SSL: WRONG_VERSION_NUMBER] " + "h" * 400),
     "TLS with Prometheus at https://prom:9090 failed: the handshake did not complete ([SSL: WRONG_VERSION_NUMBER] "
     + "h" * (300 - len("[SSL: WRONG_VERSION_NUMBER] ")) + ")"),
    (ConnectionRefusedError("r" * 400), "cannot reach Prometheus at https://prom:9090: " + "r" * 300),
    (ConnectionRefusedError("refused\x1b[2J"), "cannot reach Prometheus at https://prom:9090: refused\\x1b[2J"),
])
def test_why_prometheus_was_not_reached_is_one_line_of_at_most_300_characters_of_its_reason(reason, said):
    """A certificate's reason (its verify message, else the error itself), a handshake's and a connection's, each
    cut at 300 characters and shown without terminal escapes, whether urllib wraps the error or not."""
    import urllib.error

    from gengpu.findings import UsageError
    from gengpu.metrics.prometheus import Prometheus

    prometheus = Prometheus("https://prom:9090")
    for e in (reason, urllib.error.URLError(reason)):
        with pytest.raises(UsageError) as told:
            prometheus._unreached(e, time.monotonic() + 60)
        assert str(told.value) == said


def _recorded(tmp_path) -> None:
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    import dcgm_samples

    usage = REPO / "tests" / "usage"
    shutil.copy(usage / "gke-a100.yaml", tmp_path / "gke-a100.yaml")
    shutil.copy(usage / "snapshot.yaml", tmp_path / "snapshot.yaml")
    recording = dcgm_samples.openmetrics(dcgm_samples.a100_fleet(), step=300)
    # a label value that makes a backtracking engine take exponential time over (a+)+
    (tmp_path / "gpus.om").write_text(recording.replace('exported_namespace="serving"',
                                                        'exported_namespace="' + "a" * 40 + '!"'), encoding="utf-8")


def test_match_regexes_run_as_prometheus_runs_them(tmp_path):
    """--match over a recording: RE2, as Prometheus, so (a+)+ over 'aaa...!' ends at once (Python's re took
    exponential time: it never ended); RE2's refusals are clear errors naming the matcher (exit 3 before)."""
    import subprocess
    import sys

    _recorded(tmp_path)
    gengpu = [sys.executable, "-m", "gengpu", "rightsize", "gke-a100.yaml", "--snapshot", "snapshot.yaml", "--metrics",
              "gpus.om", "-q", "--output", "json"]
    done = subprocess.run([*gengpu, "--match", 'exported_namespace=~"(a+)+"'], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["recommendations"][0]["reason"] == ("no dcgm-exporter series for the pool's 4 "
                                                                      "node(s) in 7d: nothing to size on")
    for matcher, op, why in [('gpu=~"["', "gpu=~", "missing ]: ["),
                             ('gpu=~"a(?=b)"', "gpu=~", "invalid perl operator: (?="),
                             ('gpu!~"a**"', "gpu!~", "bad repetition operator: **")]:
        done = subprocess.run([*gengpu, "--match", matcher], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stderr) == (2, f"gengpu: error: --match '{matcher}': the regex of "
                                                     f"{op} is not one Prometheus runs: {why} "
                                                     "(Prometheus's regexes are RE2: no backreferences or "
                                                     "lookaround)\n")


def test_a_range_answer_to_an_instant_query_is_told_by_its_type(rightsize):
    result, fake = rightsize(lambda h, n: h.send(200, b'{"status":"success","data":{"resultType":"matrix","result":[]}}'))
    assert (result.exit_code, result.stderr) == (2, f"gengpu: error: Prometheus at {fake.url} answered a 'matrix' to "
                                                    "an instant query\n")


@pytest.mark.parametrize("body", [b'{"status":"success","data":[]}', b'{"status":"error","data":{}}', b'[]'])
def test_an_answer_not_shaped_as_prometheus_answers_is_told_so(rightsize, body):
    """A 200 whose JSON is not Prometheus's answer (its data not an object, its status not success, not an object at
    all): the server is named as answering otherwise than Prometheus, not an internal error."""
    result, fake = rightsize(lambda h, n: h.send(200, body))
    assert (result.exit_code, result.stderr) == (2, f"gengpu: error: {fake.url}/api/v1/query did not answer as "
                                                    "Prometheus does (no status: success); is it a "
                                                    "Prometheus-compatible server?\n")


@pytest.mark.parametrize("code, body, said", [
    (404, b"not here", "answered HTTP 404 Not Found: is this the server's base URL (the one whose /api/v1/query "
                       "answers)?"),
    (429, b"slow down", "answered HTTP 429 Too Many Requests on 3 tries: it is overloaded or limiting this client; try "
                        "again later or with a narrower --since"),
    (422, b'{"status":"error","error":"no type"}', "refused a query (422): no type"),
    (403, b"no", "answered HTTP 403 Forbidden: it wants credentials gengpu was not given or refused them; set "
                 "GENGPU_PROMETHEUS_TOKEN to a bearer token the server (or its proxy) accepts"),
])
def test_each_refusal_of_prometheus_is_told_as_what_it_is(rightsize, code, body, said):
    result, fake = rightsize(lambda h, n: h.send(code, body, headers=[("Retry-After", "0")]))
    assert result.exit_code == 2
    assert result.stderr == f"gengpu: error: Prometheus at {fake.url} {said}\n"
    assert fake.asked == (3 if code == 429 else 1)


@pytest.mark.parametrize("limit, asked", [("1.9", 3), ("0.8", 1)])
def test_a_busy_prometheus_is_asked_again_only_while_a_second_of_the_answers_limit_is_left(rightsize, monkeypatch,
                                                                                            limit, asked):
    """503 with Retry-After: 0, answered at once. With 1.9 s for the answer there is time to ask again, three tries in
    all; with 0.8 s there is not (a second is kept for the answer itself), and the error says one try, not three."""
    monkeypatch.setenv("GENGPU_PROMETHEUS_TIMEOUT", limit)
    result, fake = rightsize(lambda h, n: h.send(503, b"busy", headers=[("Retry-After", "0")]))
    tries = "1 try" if asked == 1 else f"{asked} tries"
    assert (result.exit_code, result.stderr, fake.asked) == (
        2, f"gengpu: error: Prometheus at {fake.url} answered HTTP 503 Service Unavailable on {tries}: it is "
           "overloaded or limiting this client; try again later or with a narrower --since\n", asked)


def test_https_to_a_server_that_speaks_plain_http_is_a_tls_failure(run, tmp_path):
    usage = REPO / "tests" / "usage"
    shutil.copy(usage / "gke-a100.yaml", tmp_path / "gke-a100.yaml")
    shutil.copy(usage / "snapshot.yaml", tmp_path / "snapshot.yaml")
    fake = FakePrometheus(lambda h, n: h.send(200, EMPTY))
    url = fake.url.replace("http://", "https://")
    try:
        result = run("rightsize", "gke-a100.yaml", "--snapshot", "snapshot.yaml", "--prometheus", url, cwd=tmp_path)
    finally:
        fake.close()
    assert result.exit_code == 2
    assert result.stderr.startswith(f"gengpu: error: TLS with Prometheus at {url} failed: the handshake did not "
                                    "complete ([SSL: WRONG_VERSION_NUMBER] wrong version number")


@pytest.mark.parametrize("head, token", [
    (b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"eyJ2IjoibWV0YS5r=",'
     b'"remainingItemCount":3},"items":[]}', "eyJ2IjoibWV0YS5r="),
    (b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"metadata":'
     b'{"continue":"x"}}]}', None),  # (an item's field, not the list's)
    (b'{"kind":"PodList","items":[],"metadata":{"continue":"late"}}', None),  # (after the items: not read ahead)
    (b'{"metadata":{"continue":"a\\u002fb"}}', None),  # (an escaped token: left to the parse)
])
def test_the_next_page_is_asked_for_only_on_a_token_read_as_the_parse_reads_it(head, token):
    """The paged lists ask for the next page while parsing this one, on the continue token at the answer's head;
    where the head does not plainly give it, the list waits for the parse (kube._pages)."""
    from gengpu.live.client import continue_token

    assert continue_token(head) == token


def test_a_prometheus_answer_without_the_stat_gengpu_asked_for_sizes_nothing(rightsize):
    """Every query answered with a series of a node that lacks the label gengpu's pool query tags each figure with
    (a proxy or a backend that drops label_replace's label): no figure is taken from it, and nothing crashes."""
    series = {"Hostname": "gke-a100-inference-0", "gpu": "0", "UUID": "GPU-1", "modelName": "NVIDIA A100-SXM4-40GB"}
    body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": [
        {"metric": series, "value": [1764547200, "1"]}]}}).encode()
    result, fake = rightsize(lambda h, n: h.send(200, body))
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    assert [r["verdict"] for r in report["recommendations"]] == ["none", "none"]
    assert all(not r["evidence"].get("devices") for r in report["recommendations"])


@pytest.mark.parametrize("value", [["1764547200", "lots"], ["1764547200"], [1764547200, None], "7"])
def test_a_prometheus_sample_value_that_is_not_a_number_counts_for_nothing(rightsize, value):
    """A sample whose value is not a number's text (a word, missing, null, not a pair): read as NaN, which counts
    for nothing, as Prometheus's own NaN does; no crash, and nothing is sized on it."""
    series = {"Hostname": "gke-a100-inference-0", "gpu": "0", "UUID": "GPU-1", "modelName": "NVIDIA A100-SXM4-40GB",
              "gengpu_stat": "device:mem_peak"}
    body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": [
        {"metric": series, "value": value}]}}).encode()
    result, fake = rightsize(lambda h, n: h.send(200, body))
    assert result.exit_code in (0, 1), result.output
    assert [r["verdict"] for r in json.loads(result.stdout)["recommendations"]] == ["none", "none"]


@pytest.mark.parametrize("status, said, reason", [
    (0, "SSLError\nMaxRetryError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed",
     "TLS with the API server failed: its certificate is not one the kubeconfig's certificate-authority signed "
     "(MaxRetryError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed)"),
    (0, "SSLError: [SSL: WRONG_VERSION_NUMBER] wrong version number",
     "TLS with the API server failed: the TLS handshake failed (SSLError: [SSL: WRONG_VERSION_NUMBER] wrong version "
     "number)"),
    (401, "Unauthorized", "credentials rejected (401: the token or certificate of the kubeconfig is expired or wrong; "
                          "log in again)"),
    (403, "Forbidden", "forbidden (RBAC)"),
    (404, "Not Found", "not served (its CRD is not installed)"),
    (410, "Gone", "the list expired twice while it was read (410 Gone); try again"),
    (429, "Too Many Requests", "throttled (429 Too Many Requests, asked again after its Retry-After): the API server "
                               "is busy; try later"),
    (503, "Service Unavailable", "unavailable (503, asked again after its Retry-After): the API server is overloaded "
                                 "or restarting"),
    (500, "Internal Server Error", "HTTP 500 Internal Server Error"),
    (502, None, "HTTP 502"),
    (500, "x" * 400, ("HTTP 500 " + "x" * 400)[:300]),
    (0, "SSLError\n" + "y" * 400, "TLS with the API server failed: the TLS handshake failed (" + "y" * 300 + ")"),
    # (the client's reason is the exception's class, a line break, then its text: every line of that text is read)
    (0, "SSLError\nMaxRetryError: max retries exceeded\n[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed",
     "TLS with the API server failed: its certificate is not one the kubeconfig's certificate-authority signed "
     "(MaxRetryError: max retries exceeded\\n[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed)"),
    (500, "SSLError in a proxy", "HTTP 500 SSLError in a proxy"),  # (a status: the server's answer, not TLS)
    # no status: the exception's first line, cut; a control character shown, not printed
    (None, "connection refused\nretrying", "connection refused"),
    (None, "z" * 400, "z" * 200),
    (None, "bad \x1b[31m answer", "bad \\x1b[31m answer"),
])
def test_why_the_api_server_did_not_answer_in_a_users_words(status, said, reason):
    """Each refusal of the API server (its status, or a TLS failure the client reports as status 0) said as what it
    means and what to do, one line, never a terminal escape."""
    from kubernetes.client.exceptions import ApiException

    from gengpu.live import client

    assert client.reason(ApiException(status=status, reason=said)) == reason
    assert client.tls_failure(ApiException(status=status, reason=said)) == (reason if reason.startswith("TLS") else None)


def test_an_error_that_says_nothing_is_named_by_its_class():
    from gengpu.live import client

    assert client.reason(ConnectionResetError()) == "ConnectionResetError"
    assert client.reason(ConnectionResetError("reset by peer\nagain")) == "reset by peer"


def test_an_answer_gengpu_cannot_read_is_refused_as_the_clients_error():
    from kubernetes.client.exceptions import ApiException

    from gengpu.live import client

    assert client.parse(b'{"kind": "List", "items": []}') == {"kind": "List", "items": []}
    with pytest.raises(ApiException) as refused:
        client.parse(b'{"kind": "List", "items": [')
    assert refused.value.status == 200 and refused.value.reason.startswith("the answer is not JSON gengpu reads: ")


@pytest.mark.parametrize("head, token", [
    (b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEi"},'
     b'"items":[', "eyJ2IjoibWV0YS5rOHMuaW8vdjEi"),
    (b'{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"continue":"x"}}]}', None),
    (b'{"kind":"PodList","metadata":{"continue":""},"items":[]}', ""),
    (b'[{"metadata":{"continue":"x"}}]', None),
])
def test_a_lists_continue_token_is_read_from_its_metadata_only(head, token):
    from gengpu.live.client import continue_token

    assert continue_token(head) == token


def test_a_captures_clock_gives_each_request_what_is_left_and_says_when_it_ran_out():
    from gengpu.findings import UsageError
    from gengpu.live import kube

    clock = kube.Clock(1000)
    assert clock.timeout() == kube.TIMEOUT and not clock.ran_out()
    short = kube.Clock(5)
    assert 4 < short.timeout() <= 5 and not short.ran_out()
    over = kube.Clock(0)
    assert over.ran_out()
    # (a request cut within 50 ms of the deadline was cut by it; half a second before, by its own time limit)
    assert kube.Clock(0.01).ran_out() and not kube.Clock(0.5).ran_out()
    with pytest.raises(UsageError) as stopped:
        over.timeout()
    assert str(stopped.value) == ("the capture did not finish within 0 s (GENGPU_KUBE_DEADLINE sets the limit); the API "
                                  "server is slow to answer, or the cluster larger than the limit allows")


def test_a_kubeconfig_without_a_current_context_is_told_as_such(run, tmp_path, monkeypatch):
    """No --context, and a kubeconfig that names none current (contexts only: one written by hand, or by a tool that
    leaves the choice to kubectl config use-context): the error says it is the current context that cannot be used,
    and no snapshot is written."""
    (tmp_path / "kubeconfig").write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "prod", "context": {"cluster": "c", "user": "u"}}]}))
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "kubeconfig"))
    result = run("snapshot", "-o", "snap.yaml", cwd=tmp_path)
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        2, f"gengpu: error: cannot use the current context of the kubeconfig: Invalid kube-config file. Expected key "
           f"current-context in {tmp_path / 'kubeconfig'}")
    assert not (tmp_path / "snap.yaml").exists()


def test_a_token_the_kubeconfig_refreshes_is_used_and_the_kubeconfig_left_as_it_was(run, tmp_path, monkeypatch):
    """A kubeconfig user whose token expired and is refreshed by a command (the gcp auth-provider's cmd-path, as
    gcloud wrote them): the client runs the command and uses the new token. It would also write the new token back
    into the kubeconfig; gengpu never writes a file it did not generate, so the kubeconfig keeps every byte."""
    fake = Fake(lambda h, n: nodes_page(h))
    try:
        ran = tmp_path / "refreshed"
        script = tmp_path / "token.py"
        script.write_text(f"import json, pathlib\npathlib.Path({str(ran)!r}).write_text('yes')\n"
                          "print(json.dumps({'credential': {'access_token': 'fresh', "
                          "'token_expiry': '2099-01-01T00:00:00Z'}}))\n")
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": fake.url}}],
            "users": [{"name": "fake", "user": {"auth-provider": {"name": "gcp", "config": {
                "access-token": "stale", "expiry": "2000-01-01T00:00:00Z",
                "cmd-path": sys.executable, "cmd-args": str(script)}}}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}]}))
        before = kubeconfig.read_bytes()
        monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
        shutil.copy(MPS, tmp_path / MPS.name)
        result = run("check", MPS.name, "--context", "fake", "--output", "json", cwd=tmp_path)
    finally:
        fake.close()
    assert result.exit_code in (0, 1), result.output
    assert ran.read_text() == "yes" and kubeconfig.read_bytes() == before
