"""The latest data point follows new blocks, and a reader polling while the indexer commits one
block at a time only ever sees whole blocks' worth of rollups."""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path

import httpx

from snowfield.testing import DEV_KEYS, index_node, open_database, serve_devnet
from tests.metrics.traffic import (
    DAY,
    Traffic,
    call,
    first_monday_after,
    serve_metrics,
)


def latest(client: httpx.Client, base: str, metric: str, interval: str = "day") -> tuple[int, int]:
    body = client.get(f"{base}/v2/chains/43112/metrics/{metric}",
                      params={"timeInterval": interval, "pageSize": 1}).json()  # fmt: skip
    point = body["results"][0]
    return point["timestamp"], point["value"]


def test_the_latest_point_changes_as_blocks_arrive(tmp_path: Path) -> None:
    with serve_devnet() as node, open_database(str(tmp_path / "s.db")) as db:
        traffic = Traffic(node)
        day = first_monday_after(int(time.time())) + 3 * DAY
        traffic.transfer(DEV_KEYS[0], "0x" + "21" * 20, 1, at=day + 100)
        index_node(db, node.rpc)
        with serve_metrics(db) as base, httpx.Client(timeout=30) as client:
            assert latest(client, base, "txCount") == (day, 1)
            assert latest(client, base, "txCount", "hour") == (day, 1)
            assert latest(client, base, "activeAddresses") == (day, 2)
            traffic.transfer(DEV_KEYS[1], "0x" + "22" * 20, 1, at=day + 200)
            traffic.transfer(DEV_KEYS[1], "0x" + "21" * 20, 1, at=day + 3700)
            index_node(db, node.rpc)
            assert latest(client, base, "txCount") == (day, 3)
            assert latest(client, base, "txCount", "hour") == (day + 3600, 1)
            assert latest(client, base, "activeAddresses") == (day, 4)
            assert latest(client, base, "cumulativeTxCount") == (day, 3)
            traffic.transfer(DEV_KEYS[2], "0x" + "23" * 20, 1, at=day + DAY + 5)
            index_node(db, node.rpc)
            assert latest(client, base, "txCount") == (day + DAY, 1)
            assert latest(client, base, "cumulativeTxCount") == (day + DAY, 4)


def test_readers_never_see_part_of_a_block(tmp_path: Path) -> None:
    with serve_devnet() as node, open_database(str(tmp_path / "s.db")) as db:
        traffic = Traffic(node)
        day = first_monday_after(int(time.time()))
        for i in range(40):
            for _ in range(i % 3):
                traffic.transfer(DEV_KEYS[i % 3], "0x" + "31" * 20, 1, at=day + i * 1800)
        head = int(call(node, "eth_blockNumber"), 16)
        counts = [
            len(call(node, "eth_getBlockByNumber", hex(n), False)["transactions"])
            for n in range(head + 1)
        ]
        prefix_sums = set(itertools.accumulate(counts, initial=0))
        seen: set[int] = set()
        with serve_metrics(db) as base:
            done = threading.Event()
            worker = threading.Thread(
                target=lambda: (index_node(db, node.rpc, batch_blocks=1), done.set())
            )
            worker.start()
            url = f"{base}/v2/chains/43112/metrics/txCount"
            try:
                with httpx.Client(timeout=30) as client:
                    while not done.is_set():
                        reply = client.get(url, params={"timeInterval": "hour", "pageSize": 2160})
                        if reply.status_code == 404:  # no rollup committed yet
                            continue
                        total = sum(p["value"] for p in reply.json()["results"])
                        assert total in prefix_sums
                        seen.add(total)
            finally:
                worker.join()
    assert len(seen) > 1
