"""Batched read-only calls against a node: eth_call and eth_getBalance, chunked to the
node's batch limit and run a few batches at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from snowfield.indexer.extract.hexnum import data_bytes, qty
from snowfield.rpc.client import RpcClient, RpcError


class Calls:
    def __init__(self, client: RpcClient, *, batch_size: int = 40, concurrency: int = 4) -> None:
        self.client = client
        self.batch_size = batch_size
        self._gate = asyncio.Semaphore(concurrency)

    async def many(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        """Each call's result or RpcError, in call order."""
        chunks = [calls[i : i + self.batch_size] for i in range(0, len(calls), self.batch_size)]

        async def one(chunk: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
            async with self._gate:
                return await self.client.batch_results(chunk)

        results = await asyncio.gather(*(one(c) for c in chunks))
        return [r for part in results for r in part]

    async def eth_calls(self, calls: Sequence[tuple[str, str, int]]) -> list[bytes | None]:
        """(to, data, block) → return data, or None when the call failed or reverted."""
        results = await self.many(
            [("eth_call", ({"to": to, "data": data}, hex(block))) for to, data, block in calls]
        )
        return [None if isinstance(r, RpcError) or r is None else data_bytes(r) for r in results]

    async def balances(self, wanted: Sequence[tuple[str, int]]) -> list[int]:
        """(address, block) → native balance at that block; an error raises (no guessing)."""
        results = await self.many([("eth_getBalance", (a, hex(b))) for a, b in wanted])
        for r in results:
            if isinstance(r, RpcError):
                raise r
        return [qty(r) for r in results]
