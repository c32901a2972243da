"""A fork across days: two devnets share genesis and a few blocks of a Monday, then diverge.
Indexing one, then the other, unwinds mid-day and rebuilds the forgotten hour, day, week and
month buckets: the rollups equal those of indexing the second chain alone."""

from __future__ import annotations

import time
from pathlib import Path

from snowfield.store.dump import dump
from snowfield.testing import DEV_KEYS, index_node, open_database, serve_devnet
from tests.metrics.test_kill import ROLLUPS
from tests.metrics.traffic import DAY, Traffic, call, first_monday_after


def test_unwind_rebuilds_the_buckets_of_the_second_chain(tmp_path: Path) -> None:
    monday = first_monday_after(int(time.time()))
    genesis = monday - 2 * DAY + 77  # the Saturday before: other week, maybe other month
    with serve_devnet(genesis_timestamp=genesis) as a, serve_devnet(genesis_timestamp=genesis) as b:
        ta, tb = Traffic(a), Traffic(b)
        for t in (ta, tb):  # the shared prefix: funding, then one sender per block
            t.fund_extra(monday + 600)
            for i in range(4):
                t.transfer(DEV_KEYS[i % 2], "0x" + "11" * 20, 1000 + i, at=monday + 3600 * (i + 1))
        shared = [call(n, "eth_getBlockByNumber", "0x8", False)["hash"] for n in (a, b)]
        assert shared[0] == shared[1]
        for n, day in enumerate((0, 1, 8)):
            ta.day_of_transfers(monday + day * DAY + (10 * 3600 if day == 0 else 0), n)
        ta.demo_round(monday + 8 * DAY + 20 * 3600)
        for n, day in enumerate((0, 2, 9, 40)):
            tb.day_of_transfers(monday + day * DAY + (12 * 3600 if day == 0 else 0), n + 5)
            if day == 2:
                tb.demo_round(tb.head_ts() + 60)

        with open_database(str(tmp_path / "forked.db")) as db:
            index_node(db, a.rpc, batch_blocks=4)
            assert index_node(db, b.rpc, batch_blocks=4).stats.unwinds == 1
            forked = dump(db, ROLLUPS)
        with open_database(str(tmp_path / "straight.db")) as db:
            index_node(db, b.rpc, batch_blocks=6)
            straight = dump(db, ROLLUPS)
    assert forked == straight
    assert {row[1] for row in straight["rollups"]} == {"hour", "day", "week", "month"}
