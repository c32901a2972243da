"""Chains are cached for a few seconds per path reference; a new chain shows up after that.
The primary networks likewise, but an index without any is asked again at once."""

from __future__ import annotations

import asyncio

from snowfield.api.operation import ChainCache, NetworkCache
from snowfield.store import primary
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.writes import upsert_chain


def test_a_new_chain_appears_once_the_entry_expires(db: Database) -> None:
    now = [100.0]
    cache = ChainCache(db, ttl=5.0, clock=lambda: now[0])
    assert asyncio.run(cache.find("43112")) is None
    upsert_chain(db, ChainRow(chain_id=43112, name="C", network="local", rpc_url="http://x"))
    now[0] += 4.9
    assert asyncio.run(cache.find("43112")) is None  # still the cached answer
    now[0] += 0.2
    found = asyncio.run(cache.find("43112"))
    assert found is not None and found.chain_id == 43112


def test_a_first_primary_network_is_seen_at_once_and_then_cached(db: Database) -> None:
    now = [100.0]
    cache = NetworkCache(db, ttl=5.0, clock=lambda: now[0])
    assert asyncio.run(cache.get(None)) == []
    fuji = primary.PrimaryNetwork("P" * 10, 5, "fuji", None, None, "A" * 10)
    primary.record_network(db, fuji)
    assert asyncio.run(cache.get(None)) == [fuji]  # no empty answer was kept
    primary.record_network(db, primary.PrimaryNetwork("Q" * 10, 1, "avax", None, None, "B" * 10))
    now[0] += 4.9
    assert asyncio.run(cache.get(None)) == [fuji]  # still the cached answer
    now[0] += 0.2
    assert len(asyncio.run(cache.get(None))) == 2
