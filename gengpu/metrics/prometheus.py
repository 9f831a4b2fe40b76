"""The one place gengpu talks to Prometheus: instant queries over the HTTP API (/api/v1/query), which Thanos,
Mimir, Cortex and VictoriaMetrics answer the same way. Read-only, bounded (a timeout per request and a size limit
per answer); every failure is a UsageError naming the server and what to do.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request

from gengpu.findings import UsageError

MAX_ANSWER = 64 * 1024 * 1024
TIMEOUT = float(os.environ.get("GENGPU_PROMETHEUS_TIMEOUT", "60"))
TOKEN_ENV = "GENGPU_PROMETHEUS_TOKEN"  # a bearer token, for a server behind an authenticating proxy


class Prometheus:
    def __init__(self, url: str, timeout: float = TIMEOUT):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UsageError(f"--prometheus {url!r}: give the server's http(s) URL, e.g. http://prometheus:9090")
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.queries = 0
        self.answered = 0  # bytes of every answer: what a run costs the server and the network

    def query(self, expr: str, at: float) -> list[tuple[dict, float]]:
        """An instant query at a time (unix seconds): each result's labels and value."""
        body = urllib.parse.urlencode({"query": expr, "time": f"{at:.3f}", "timeout": f"{int(self.timeout)}s"})
        request = urllib.request.Request(f"{self.url}/api/v1/query", data=body.encode(), method="POST",
                                         headers={"Content-Type": "application/x-www-form-urlencoded",
                                                  "Accept": "application/json"})
        if os.environ.get(TOKEN_ENV):
            request.add_header("Authorization", f"Bearer {os.environ[TOKEN_ENV]}")
        self.queries += 1
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read(MAX_ANSWER + 1)
        except urllib.error.HTTPError as e:
            raw = e.read(MAX_ANSWER + 1)
            answer = _json(raw)
            if isinstance(answer, dict) and answer.get("error"):
                raise UsageError(f"Prometheus at {self.url} refused a query ({e.code} {answer.get('errorType', '')}):"
                                 f" {answer['error']}") from None
            raise UsageError(f"Prometheus at {self.url} answered HTTP {e.code} {e.reason}: is this the server's "
                             "base URL (the one whose /api/v1/query answers)?") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise UsageError(f"cannot reach Prometheus at {self.url}: {reason}") from None
        self.answered += len(raw)
        if len(raw) > MAX_ANSWER:
            raise UsageError(f"Prometheus at {self.url} answered more than {MAX_ANSWER // (1024 * 1024)} MiB to one "
                             "query; narrow the window (--since) or check fewer pools at once")
        answer = _json(raw)
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
