"""`snowfield serve --db-read`: the data API reads from a PostgreSQL streaming replica while the
indexer writes to the primary. A transaction sent to the node is visible in operation 5 within
1 s at p99; with the replica stopped, reads go to the primary (no 5xx) and come back once it
is up again."""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from snowfield.testing import DevnetProcess, free_port
from tests.helpers import rpc_reply, signed_transfer
from tests.pg_clusters import Cluster, primary_and_replica

SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"  # the devnet's dev account 0 (KEY0)
SAMPLES = 30
CEILING = 1.0  # seconds, p99
# Batches of SAMPLES measured, one of which must meet the ceiling: p99 of 30 is about their
# maximum, which one pause of a loaded machine (other jobs than this test's) sets alone.
BATCHES = 3


@contextlib.contextmanager
def child(argv: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`snowfield argv` with its stderr in `log`: a pipe no one reads while the test runs
    would stall a child that logs more than the pipe holds."""
    with open(log, "ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "snowfield", *argv], stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _ready(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        assert time.monotonic() < deadline, f"{url} never answered"
        time.sleep(0.1)


def _clients_on(cluster: Cluster) -> int:
    """Client connections the cluster serves besides this one."""
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
            " AND pid <> pg_backend_pid()"
        ).fetchone()
    return int(row[0]) if row else 0


class Sender:
    """Sends transfers from dev account 0 and times each until operation 5 lists it."""

    def __init__(self, rpc: str, api: str) -> None:
        self.rpc, self.api = rpc, api
        self.nonce = int(rpc_reply(rpc, "eth_getTransactionCount", SENDER, "latest")["result"], 16)
        self.statuses: list[int] = []

    def visible_after(self, within: float = 30) -> float:
        raw = signed_transfer(self.nonce, to="0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
        self.nonce += 1
        began = time.monotonic()
        tx_hash = rpc_reply(self.rpc, "eth_sendRawTransaction", raw)["result"]
        url = f"{self.api}/v1/chains/43112/addresses/{SENDER}/transactions"
        while time.monotonic() - began < within:
            reply = httpx.get(url, params={"pageSize": 5}, timeout=10)
            self.statuses.append(reply.status_code)
            if reply.status_code == 200 and any(
                t["nativeTransaction"]["txHash"] == tx_hash for t in reply.json()["transactions"]
            ):
                return time.monotonic() - began
            time.sleep(0.02)
        raise AssertionError(f"{tx_hash} never became visible")


def _freshness(sender: Sender) -> tuple[float, list[float]]:
    """The p99 of SAMPLES transactions' times to visibility, and the times."""
    times = [sender.visible_after() for _ in range(SAMPLES)]
    p50 = statistics.median(times)
    p99 = statistics.quantiles(times, n=100, method="inclusive")[98]
    print(f"freshness through the replica: p50 {p50:.3f} s, p99 {p99:.3f} s")
    return p99, times


@contextlib.contextmanager
def devnet(root: Path) -> Iterator[DevnetProcess]:
    """The node in a process of its own: in this one it would share the test's interpreter."""
    node = DevnetProcess(root / "devnet", free_port())
    node.start()
    try:
        yield node
    finally:
        node.stop()


def test_serve_reads_the_replica_and_falls_back_to_the_primary(tmp_path: Path) -> None:
    if not os.environ.get("SNOWFIELD_TEST_PG"):
        pytest.skip("set SNOWFIELD_TEST_PG=1 to test a PostgreSQL streaming replica")
    api_port = free_port()
    api = f"http://127.0.0.1:{api_port}"
    with primary_and_replica() as (primary, replica), devnet(tmp_path) as node:
        index = ["index", "--rpc", node.rpc, "--db", primary.url, "--poll-interval", "0.05",
                 "--no-discover", "--log-level", "warn"]  # fmt: skip
        serve = ["serve", "--db", primary.url, "--db-read", replica.url, "--port", str(api_port),
                 "--metrics-api-port", str(free_port()), "--log-level", "warn"]  # fmt: skip
        logs = tmp_path / "index.log", tmp_path / "serve.log"
        with child(index, logs[0]) as indexer, child(serve, logs[1]) as server:
            _ready(f"{api}/v1/chains", server, logs[1])
            sender = Sender(node.rpc, api)
            # The index process answers no health check: its first transaction seen through
            # the API is the sign it runs (its start-up, seconds on a loaded machine, is not
            # the freshness measured below).
            try:
                sender.visible_after(within=120)
            except AssertionError as exc:  # say what the children said
                tails = [f"{p.name} ({c.poll()}): {p.read_text(errors='replace')[-1500:]}"
                         for p, c in zip(logs, (indexer, server), strict=True)]  # fmt: skip
                raise AssertionError(f"{exc}; {tails}") from None
            batches = [_freshness(sender)]
            while batches[-1][0] > CEILING and len(batches) < BATCHES:
                batches.append(_freshness(sender))
            assert batches[-1][0] <= CEILING, batches
            assert _clients_on(replica) > 0, "the API reads from the replica"

            replica.stop()
            fallen = [sender.visible_after() for _ in range(5)]  # the primary answers
            print(f"freshness through the primary (replica stopped): max {max(fallen):.3f} s")
            assert max(fallen) <= 5 * CEILING, fallen

            replica.start()
            deadline = time.monotonic() + 30
            while _clients_on(replica) == 0 and time.monotonic() < deadline:
                sender.visible_after()
            assert _clients_on(replica) > 0, "reads came back to the replica"
            assert set(sender.statuses) == {200}, sorted(set(sender.statuses))
