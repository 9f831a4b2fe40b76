"""An answer from a server gengpu asks (the Kubernetes API server, Prometheus), read whole within a time however
slowly it trickles, and never past a size: the one reader both clients use."""

from __future__ import annotations

import time

CHUNK = 64 * 1024


def _socket(response):
    """The socket under an http.client response (urllib's) or a urllib3 one, where it is still open."""
    fp = getattr(response, "fp", None) or getattr(getattr(response, "_fp", None), "fp", None)
    sock = getattr(getattr(fp, "raw", None), "_sock", None)
    return sock if sock is not None and sock.fileno() != -1 else None


def read_whole(response, until: float, limit: int) -> bytes:
    """The body, in chunks as they come, until its end or more than `limit` bytes (the caller refuses those);
    TimeoutError at `until` (monotonic): each read's socket timeout is what is left, so a server that sends a byte
    at a time is cut off at the deadline, not waited on read after read."""
    parts, size = [], 0
    while size <= limit:
        left = until - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"did not arrive whole in time ({size} bytes so far)")
        sock = _socket(response)
        if sock is not None:
            sock.settimeout(left)
        try:
            chunk = response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK)
        except Exception as exc:  # (urllib3 wraps the socket's timeout in its ReadTimeoutError)
            if isinstance(exc, TimeoutError) or "timed out" in str(exc).lower():
                raise TimeoutError(f"did not arrive whole in time ({size} bytes so far)") from None
            raise
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)
