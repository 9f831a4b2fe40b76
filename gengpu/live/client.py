"""GETs to a Kubernetes API server, the one client discipline for its answers: each answer whole within its time
however slowly it trickles, under a size limit, parsed once; a 429 or 503 asked again after its Retry-After; TLS,
login and RBAC failures named as such, the server's words escaped (reason())."""

from __future__ import annotations

import re
import sys
import time

from gengpu.findings import UsageError
from gengpu.reporting.safe import shown

RETRIES = 3  # tries of a request the server answers 429 or 503
MAX_ANSWER = 256 * 1024 * 1024  # bytes of one answer (GENGPU_MAX_ANSWER_BYTES): a page of 500 pods is a few MiB


class Api:
    """GETs to the API server of a kubeconfig context: the kubernetes client's kubeconfig loading (auth plugins,
    client certificates, proxies, TLS) and its urllib3 pool, without its generated API classes and models, whose
    import alone took longer than reading 1,000 nodes. An answer other than 2xx raises the client's ApiException."""

    def __init__(self, context: str | None):
        import os

        try:
            from kubernetes.client import rest
            from kubernetes.client.configuration import Configuration
            from kubernetes.config import kube_config
            from kubernetes.config.config_exception import ConfigException
        except ImportError as exc:  # pragma: no cover - a dependency of gengpu
            raise UsageError(f"the kubernetes Python client is missing ({exc}); reinstall gengpu") from exc
        try:
            # KUBECONFIG as this process sees it (the client reads it once, when first imported); ':' lists merge
            settings = Configuration()
            kube_config.load_kube_config(config_file=os.environ.get("KUBECONFIG") or None, context=context,
                                         client_configuration=settings, persist_config=False)
            # one try per request, each bounded by its time: urllib3's default of three retries made an API server
            # that accepts and never answers take four timeouts to fail
            settings.retries = False
            self.rest = rest.RESTClientObject(settings)
        except (ConfigException, OSError, ValueError, TypeError) as exc:
            where = f"context {context!r}" if context else "the current context"
            raise UsageError(f"cannot use {where} of the kubeconfig: {exc}") from None
        self.settings = settings
        if not settings.verify_ssl:
            import urllib3

            # the kubeconfig asks for it (insecure-skip-tls-verify): said once here, not on every request
            urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
            sys.stderr.write("gengpu: warning: the kubeconfig turns TLS verification off for this cluster\n")

    def get(self, path: str, query: dict, timeout: float) -> dict:
        """One GET's JSON: the whole answer within `timeout` (however steadily the server trickles it), under
        MAX_ANSWER bytes, parsed once (a key twice or nesting past any object's is refused); a 429 or 503 asked
        again after its Retry-After, within the same time."""
        return parse(self.fetch(path, query, timeout))

    def fetch(self, path: str, query: dict, timeout: float) -> bytes:
        """One GET's answer as it came (get() without the parse): the paged lists ask for the next page while this
        one is parsed."""
        from urllib.parse import urlencode

        from kubernetes.client.exceptions import ApiException

        from gengpu import answers, settings

        # an exec or OIDC credential refreshes here, as the client's ApiClient does before each request
        headers = {"Accept": "application/json", "User-Agent": "gengpu"}
        for auth in self.settings.auth_settings().values():
            if auth.get("in") == "header" and auth.get("value"):
                headers[auth["key"]] = auth["value"]
        # (the kubeconfig loader strips a server URL's trailing slash)
        url = self.settings.host + path + (f"?{urlencode(query)}" if query else "")
        until = time.monotonic() + timeout
        limit = settings.byte_count("GENGPU_MAX_ANSWER_BYTES", MAX_ANSWER)
        for attempt in range(RETRIES):
            left = until - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no whole answer to {path} within {timeout:g} s")
            answer = self.rest.request("GET", url, headers=headers, _request_timeout=left)
            response = answer.response  # (urllib3's, its body not read yet)
            if answer.status in (429, 503) and attempt < RETRIES - 1:
                response.close()  # (its body unread: the connection is not reused)
                time.sleep(settings.retry_after(response.headers.get("Retry-After"), attempt,
                                                max(0.0, until - time.monotonic() - 1)))
                continue
            try:
                data = answers.read_whole(response, until, limit)
            except TimeoutError as exc:
                response.close()  # (read in part: the connection is not reused)
                raise TimeoutError(f"the answer to {path} {exc}") from None
            except BaseException:
                response.close()
                raise
            if len(data) > limit:
                response.close()
                shown_limit = f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
                raise UsageError(f"the API server's answer to {path} is over {shown_limit} (GENGPU_MAX_ANSWER_BYTES "
                                 "sets the limit); no page of objects is that large")
            response.release_conn()
            if not 200 <= answer.status <= 299:
                raise ApiException(status=answer.status, reason=answer.reason)
            return data
        raise ApiException(status=answer.status, reason=answer.reason)  # (not reached: the last try returns)

    def close(self) -> None:
        self.rest.close()


def parse(data: bytes, unread: tuple[tuple[str, str], ...] = ()) -> dict:
    """An answer's JSON, parsed once (the values under the keys `unread` stepped over, see jsontext.parse_unread);
    refused (as the client's ApiException) when it is not JSON gengpu reads."""
    from kubernetes.client.exceptions import ApiException

    from gengpu.loading import jsontext

    try:
        return jsontext.parse_unread(data, unread) if unread else jsontext.parse(data)
    except jsontext.JsonRefused as exc:
        raise ApiException(status=200, reason=f"the answer is not JSON gengpu reads: {exc}") from None


# the continue token of a list's answer, which the API server writes in the list's metadata before its items
_CONTINUE = re.compile(rb'^\s*\{[^\[]*?"metadata"\s*:\s*\{[^{}]*?"continue"\s*:\s*"([A-Za-z0-9_=+/.-]*)"')


def continue_token(data: bytes) -> str | None:
    """The continue token at the head of a list's answer, read without parsing it (None where it is not there)."""
    found = _CONTINUE.match(data[:4096])
    return found.group(1).decode("ascii") if found else None


def tls_failure(exc) -> str | None:
    """What a TLS failure was, where the client's exception is one (the client says 'SSLError' and its details)."""
    reason = str(getattr(exc, "reason", "") or "")
    if getattr(exc, "status", None) == 0 and reason.startswith("SSLError"):
        detail = reason.split("\n", 1)[1] if "\n" in reason else reason
        cause = "its certificate is not one the kubeconfig's certificate-authority signed" \
            if "CERTIFICATE_VERIFY_FAILED" in detail else "the TLS handshake failed"
        return f"TLS with the API server failed: {cause} ({shown(detail[:300])})"
    return None


def reason(exc) -> str:
    status = getattr(exc, "status", None)
    tls = tls_failure(exc)
    if tls:
        return tls
    if status == 401:
        return "credentials rejected (401: the token or certificate of the kubeconfig is expired or wrong; log in again)"
    if status == 403:
        return "forbidden (RBAC)"
    if status == 410:
        return "the list expired twice while it was read (410 Gone); try again"
    if status == 404:
        return "not served (its CRD is not installed)"
    if status == 429:
        return "throttled (429 Too Many Requests, asked again after its Retry-After): the API server is busy; try later"
    if status == 503:
        return "unavailable (503, asked again after its Retry-After): the API server is overloaded or restarting"
    if status:
        return shown(f"HTTP {status} {getattr(exc, 'reason', '') or ''}".strip()[:300])
    # (an error that says nothing, a bare ConnectionResetError(), is named by its class)
    return shown((str(getattr(exc, "reason", None) or exc).splitlines() or [type(exc).__name__])[0][:200])
