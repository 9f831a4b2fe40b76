"""The one place gengpu talks to Prometheus: instant queries over the HTTP API (/api/v1/query), which Thanos,
Mimir, Cortex and VictoriaMetrics answer the same way. Read-only and bounded: each answer must arrive whole within
GENGPU_PROMETHEUS_TIMEOUT (a server that trickles its answer is cut off, not waited on read after read), all of a
command's queries within GENGPU_PROMETHEUS_DEADLINE, a 429 or 503 asked again after its Retry-After (three tries,
within the same limits), and each answer under a size limit and parsed once (a key twice or nesting no answer has
is refused); every failure is a UsageError naming the server and what to do, the server's own words escaped.
"""

from __future__ import annotations

import json
import os
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request

from gengpu import answers, settings
from gengpu.findings import UsageError
from gengpu.loading import jsontext
from gengpu.reporting.safe import shown

MAX_ANSWER = 64 * 1024 * 1024
TIMEOUT = 60.0  # seconds for one whole answer (GENGPU_PROMETHEUS_TIMEOUT)
DEADLINE = 600.0  # seconds for all of a command's queries (GENGPU_PROMETHEUS_DEADLINE)
RETRIES = 3  # tries of one query answered 429 or 503
TOKEN_ENV = "GENGPU_PROMETHEUS_TOKEN"  # a bearer token, for a server behind an authenticating proxy


class Prometheus:
    def __init__(self, url: str):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UsageError(f"--prometheus {url!r}: give the server's http(s) URL, e.g. http://prometheus:9090")
        timeout = settings.seconds("GENGPU_PROMETHEUS_TIMEOUT", TIMEOUT)
        deadline = settings.seconds("GENGPU_PROMETHEUS_DEADLINE", DEADLINE)
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.deadline = time.monotonic() + deadline  # the whole command's
        self.budget = deadline
        self.queries = 0
        self.answered = 0  # bytes of every answer: what a run costs the server and the network

    def _past_deadline(self) -> str:
        return (f"Prometheus at {self.url}: the queries did not finish within the {self.budget:g} s this command may "
                "spend (GENGPU_PROMETHEUS_DEADLINE); narrow the window (--since) or check fewer pools at once")

    def query(self, expr: str, at: float) -> list[tuple[dict, float]]:
        """An instant query at a time (unix seconds): each result's labels and value."""
        body = urllib.parse.urlencode({"query": expr, "time": f"{at:.3f}", "timeout": f"{int(self.timeout)}s"})
        request = urllib.request.Request(f"{self.url}/api/v1/query", data=body.encode(), method="POST",
                                         headers={"Content-Type": "application/x-www-form-urlencoded",
                                                  "Accept": "application/json"})
        if os.environ.get(TOKEN_ENV):
            request.add_header("Authorization", f"Bearer {os.environ[TOKEN_ENV]}")
        self.queries += 1
        now = time.monotonic()
        if now >= self.deadline:
            raise UsageError(self._past_deadline())
        # this answer's own limit, and never past the command's
        until = min(now + self.timeout, self.deadline)
        for attempt in range(RETRIES):
            try:
                with urllib.request.urlopen(request, timeout=max(0.001, until - time.monotonic())) as response:
                    raw = answers.read_whole(response, until, MAX_ANSWER)
                break
            except urllib.error.HTTPError as e:
                if e.code in (429, 503) and attempt < RETRIES - 1 and time.monotonic() < until - 1:
                    wait = settings.retry_after(e.headers.get("Retry-After"), attempt,
                                                max(0.0, until - time.monotonic() - 1))
                    e.close()
                    time.sleep(wait)
                    continue
                self._refused(e, attempt + 1)
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as e:
                self._unreached(e, until)
        self.answered += len(raw)
        if len(raw) > MAX_ANSWER:
            raise UsageError(f"Prometheus at {self.url} answered more than {MAX_ANSWER // (1024 * 1024)} MiB to one "
                             "query; narrow the window (--since) or check fewer pools at once")
        try:
            answer = jsontext.parse(raw)
        except jsontext.NotJson:  # (a login page, a proxy's error: told below as not a Prometheus at all)
            answer = None
        except jsontext.JsonRefused as exc:
            raise UsageError(f"{self.url}/api/v1/query did not answer JSON gengpu reads: {exc}") from None
        if not isinstance(answer, dict) or answer.get("status") != "success" or not isinstance(answer.get("data"), dict):
            raise UsageError(f"{self.url}/api/v1/query did not answer as Prometheus does (no status: success); is it "
                             "a Prometheus-compatible server?")
        data = answer["data"]
        if data.get("resultType") == "scalar":
            return [({}, _value(data.get("result")))]
        if data.get("resultType") != "vector" or not isinstance(data.get("result"), list):
            raise UsageError(f"Prometheus at {self.url} answered a {data.get('resultType')!r} to an instant query")
        out = []
        for row in data["result"]:
            if isinstance(row, dict) and isinstance(row.get("metric"), dict):
                out.append(({str(k): str(v) for k, v in row["metric"].items()}, _value(row.get("value"))))
        return out

    def _refused(self, e: urllib.error.HTTPError, tries: int):
        raw = e.read(MAX_ANSWER + 1)
        answer = _json(raw)
        if isinstance(answer, dict) and answer.get("error"):
            kind = f" {shown(str(answer['errorType']))}" if answer.get("errorType") else ""
            raise UsageError(f"Prometheus at {self.url} refused a query ({e.code}{kind}): "
                             f"{shown(str(answer['error']))}") from None
        if e.code in (401, 403):
            raise UsageError(f"Prometheus at {self.url} answered HTTP {e.code} {shown(str(e.reason))}: it wants "
                             f"credentials gengpu was not given or refused them; set {TOKEN_ENV} to a bearer token "
                             "the server (or its proxy) accepts") from None
        if e.code in (429, 503):
            raise UsageError(f"Prometheus at {self.url} answered HTTP {e.code} {shown(str(e.reason))} on "
                             f"{tries} {'try' if tries == 1 else 'tries'}: it is overloaded or limiting this client; "
                             "try again later or with a narrower --since") from None
        raise UsageError(f"Prometheus at {self.url} answered HTTP {e.code} {shown(str(e.reason))}: is this the "
                         "server's base URL (the one whose /api/v1/query answers)?") from None

    def _unreached(self, e: Exception, until: float):
        reason = getattr(e, "reason", e)
        if isinstance(reason, TimeoutError):
            if until >= self.deadline:  # the run's limit, not the answer's, ran out
                raise UsageError(self._past_deadline()) from None
            raise UsageError(f"Prometheus at {self.url} did not answer a query whole within {self.timeout:g} s "
                             "(GENGPU_PROMETHEUS_TIMEOUT sets the limit); a query over a long window may need "
                             "more, or a narrower --since") from None
        if isinstance(reason, ssl.SSLCertVerificationError):
            raise UsageError(f"TLS with Prometheus at {self.url} failed: its certificate is not one this machine "
                             f"trusts ({shown(str(reason.verify_message or reason)[:300])}); give the CA through "
                             "SSL_CERT_FILE") from None
        if isinstance(reason, ssl.SSLError):
            raise UsageError(f"TLS with Prometheus at {self.url} failed: the handshake did not complete "
                             f"({shown(str(reason)[:300])})") from None
        raise UsageError(f"cannot reach Prometheus at {self.url}: {shown(str(reason)[:300])}") from None


def _json(raw: bytes):
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested beyond what any answer of Prometheus's is
        return None


def _value(pair) -> float:
    try:
        return float(pair[1])
    except (TypeError, ValueError, IndexError):
        return float("nan")
