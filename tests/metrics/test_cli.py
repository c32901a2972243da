"""`snowfield serve` serves the metrics API beside the data API, on --metrics-api-port."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from snowfield.testing import free_port


def test_serve_starts_the_metrics_api(tmp_path: Path) -> None:
    data, metrics = free_port(), free_port()
    cmd = [sys.executable, "-m", "snowfield", "serve", "--db", str(tmp_path / "s.db"),
           "--port", str(data), "--log-level", "warn"]  # fmt: skip
    env_port = {"SNOWFIELD_METRICS_API_PORT": str(metrics)}  # the environment variable works
    proc = subprocess.Popen(cmd, env={**os.environ, **env_port}, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{metrics}/v2/chains/total/metrics/txCount"
        deadline = time.monotonic() + 30
        while True:
            try:
                reply = httpx.get(url, timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
        assert reply.status_code == 200 and reply.json() == {"results": []}
        missing = httpx.get(f"http://127.0.0.1:{metrics}/v1/avg_tps/5", timeout=5)
        assert missing.status_code == 404 and isinstance(missing.json()["message"], list)
        assert httpx.get(f"http://127.0.0.1:{data}/v1/chains", timeout=5).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
