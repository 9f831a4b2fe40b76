"""A real Prometheus for the tests of `gengpu rightsize`: recorded samples turned into TSDB blocks with `promtool tsdb
create-blocks-from openmetrics`, and `prometheus` (both built at the pinned version into ./bin by
scripts/install-tools) serving them on a free loopback port, scraping nothing; or (serve) one running a scrape
config of gengpu's."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from apiserver import BIN, _port, _wait


@dataclass
class Prometheus:
    url: str
    proc: subprocess.Popen
    log: object

    def stop(self) -> None:
        self.log.close()
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start(work: Path, openmetrics: str) -> Prometheus:
    recording = work / "samples.om"
    recording.write_text(openmetrics, encoding="utf-8")
    data = work / "data"
    subprocess.run([str(BIN / "promtool"), "tsdb", "create-blocks-from", "openmetrics", str(recording), str(data)],
                   check=True, capture_output=True)
    return serve(work, "global:\n  scrape_interval: 1m\n", data)


def serve(work: Path, config_text: str, data: Path | None = None) -> Prometheus:
    """A Prometheus running config_text (a scraping one, for tests of gengpu's scrape configs)."""
    work.mkdir(parents=True, exist_ok=True)
    data = data or work / "data"
    config = work / "prometheus.yml"
    config.write_text(config_text, encoding="utf-8")
    port = _port()
    log = work / "prometheus.log"
    out = log.open("w")
    proc = subprocess.Popen(
        [str(BIN / "prometheus"), f"--config.file={config}", f"--storage.tsdb.path={data}",
         f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=100y"],
        stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    try:
        _wait(ready, "prometheus", proc, log, 60)
    except RuntimeError:
        proc.kill()
        out.close()
        raise
    return Prometheus(url, proc, out)
