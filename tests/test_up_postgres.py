"""`snowfield up --db postgresql://… --redis redis://…`: the whole stack on PostgreSQL (and the
data API's limits in Redis), from one command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from snowfield.cli.up import children
from snowfield.config import UpSettings
from snowfield.store.database import Database
from snowfield.testing import database_urls, free_port

DEV = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
REDIS_URL = "redis://127.0.0.1:6379/0"


def _flag(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_every_child_gets_the_database_and_the_api_gets_redis(tmp_path: Path) -> None:
    # A data directory under tmp: the children's plan writes the demo L1's genesis into it.
    url = "postgresql://127.0.0.1:5432/test?schema=up"
    settings = UpSettings(data_dir=tmp_path, db=url, redis=REDIS_URL)
    stores = {c.name: _flag(c.command, "--db") for c in children(settings)}
    assert stores == {
        "devnet": None,
        "indexer": url,
        "primary": url,
        "relayer": None,
        "api": url,
        "webhooks": url,
    }
    (api,) = [c for c in children(settings) if c.name == "api"]
    assert _flag(api.command, "--redis") == REDIS_URL
    # Without --db: the embedded SQLite file under the data directory, limits in memory.
    default = {c.name: c for c in children(UpSettings(data_dir=tmp_path))}
    assert _flag(default["indexer"].command, "--db") == str(tmp_path / "snowfield.db")
    assert "--redis" not in default["api"].command


def _up(tmp_path: Path, db: str, redis: str | None, ports: tuple[int, int, int]) -> list[str]:
    node, api, metrics = ports
    argv = [
        sys.executable, "-m", "snowfield", "up", "--data-dir", str(tmp_path),
        "--node-port", str(node), "--api-port", str(api), "--metrics-api-port", str(metrics),
        "--db", db,
    ]  # fmt: skip
    return [*argv, "--redis", redis] if redis else argv


def _wait_for_transactions(proc: subprocess.Popen[bytes], api: int) -> httpx.Response:
    deadline = time.monotonic() + 180
    url = f"http://127.0.0.1:{api}/v1/chains/43112/addresses/{DEV}/transactions"
    while time.monotonic() < deadline:
        if proc.poll() is not None:  # why, in the failure: its children's lines
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            # The devnet's banner can fill the tail: the lines that say what failed come first.
            said = [
                line
                for line in out.splitlines()
                if any(w in line.lower() for w in ("error", "traceback", "exit", "fail", "stopped"))
            ]
            raise AssertionError(
                f"snowfield up exited with {proc.returncode}: {said[-40:]}\n{out[-3000:]}"
            )
        try:
            reply = httpx.get(url, timeout=5)
        except httpx.HTTPError:
            time.sleep(0.5)
            continue
        if reply.status_code == 200 and reply.json()["transactions"]:
            return reply
        time.sleep(0.5)
    raise AssertionError("the demo's transactions never reached the data API")


def test_up_runs_everything_on_postgresql(tmp_path: Path) -> None:
    urls = database_urls(tmp_path)
    if len(urls) < 2:
        pytest.skip("set SNOWFIELD_TEST_PG=1 to run snowfield up on PostgreSQL")
    url = urls[1]
    redis = REDIS_URL if os.environ.get("SNOWFIELD_TEST_REDIS") else None
    ports = (free_port(), free_port(), free_port())
    proc = subprocess.Popen(
        _up(tmp_path, url, redis, ports), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    store = Database(url)
    try:
        reply = _wait_for_transactions(proc, ports[1])
        assert int(reply.headers["ratelimit-remaining"]) < int(reply.headers["ratelimit-limit"])
        # The rows are in PostgreSQL, not in the embedded default's file.
        blocks = store.query_one("SELECT count(*) FROM blocks WHERE chain_id = 43112")
        assert blocks is not None and blocks[0] > 0
        assert not (tmp_path / "snowfield.db").exists()
        deadline = time.monotonic() + 60
        while not store.query_one("SELECT 1 FROM p_blocks") and time.monotonic() < deadline:
            time.sleep(0.5)
        assert store.query_one("SELECT 1 FROM p_blocks"), "the primary-network indexer writes"
        series = httpx.get(
            f"http://127.0.0.1:{ports[2]}/v2/chains/43112/metrics/txCount?timeInterval=hour",
            timeout=5,
        ).json()["results"]
        assert sum(point["value"] for point in series) > 0
    finally:
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=60)[0].decode(errors="replace")
        schema = store.url.schema
        store.close()
        import psycopg

        with psycopg.connect(store.url.target, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    assert proc.returncode == 0, out[-4000:]
    if redis:
        import redis as redis_client

        assert any(redis_client.Redis.from_url(redis).scan_iter(match="snowfield:rl:*")), "in Redis"
