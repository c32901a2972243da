"""Raw blocks from a node: full blocks, receipts and callTracer traces, fetched in JSON-RPC
batches. Falls back where a node lacks a method: per-transaction receipts without
eth_getBlockReceipts; no traces (with one warning) without the debug namespace."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.errors import Unavailable
from snowfield.indexer.calls import Calls
from snowfield.indexer.extract.hexnum import qty
from snowfield.rpc.client import RpcError

log = logging.getLogger("snowfield.indexer")
METHOD_NOT_FOUND = -32601
CALL_TRACER = {"tracer": "callTracer"}


@dataclass(frozen=True, slots=True)
class RawBlock:
    block: dict[str, Any]
    receipts: list[dict[str, Any]]
    traces: list[dict[str, Any]] | None  # None when the node serves no traces

    @property
    def number(self) -> int:
        return qty(self.block["number"])


class NodeSource:
    def __init__(self, calls: Calls) -> None:
        self.calls = calls
        self.block_receipts = True
        self.traces = True

    async def chain_id(self) -> int:
        return qty(await self.calls.client.call("eth_chainId"))

    async def head(self) -> int:
        return qty(await self.calls.client.call("eth_blockNumber"))

    async def block_hashes(self, numbers: Sequence[int]) -> list[str | None]:
        results = await self.calls.many(
            [("eth_getBlockByNumber", (hex(n), False)) for n in numbers]
        )
        return [r["hash"].lower() if isinstance(r, dict) else None for r in results]

    async def blocks(self, numbers: Sequence[int]) -> list[RawBlock]:
        """The blocks, in order; a block the node does not have (yet) ends the list."""
        calls: list[tuple[str, Sequence[Any]]] = []
        for n in numbers:
            calls.append(("eth_getBlockByNumber", (hex(n), True)))
            if self.block_receipts:
                calls.append(("eth_getBlockReceipts", (hex(n),)))
            if self.traces:
                calls.append(("debug_traceBlockByNumber", (hex(n), CALL_TRACER)))
        results = await self.calls.many(calls)
        per = 1 + self.block_receipts + self.traces
        out = []
        for i in range(len(numbers)):
            block, *rest = results[i * per : i * per + per]
            if isinstance(block, RpcError):
                raise Unavailable(f"eth_getBlockByNumber failed: {block.message}")
            if block is None:
                break
            receipts = rest.pop(0) if self.block_receipts else None
            traces = rest.pop(0) if self.traces else None
            out.append(await self._complete(block, receipts, traces))
        return out

    async def _complete(self, block: dict[str, Any], receipts: Any, traces: Any) -> RawBlock:
        txs = block.get("transactions") or []
        if isinstance(receipts, RpcError) and receipts.code == METHOD_NOT_FOUND:
            log.warning("node has no eth_getBlockReceipts; fetching receipts per transaction")
            self.block_receipts = False
            receipts = None
        if receipts is None or isinstance(receipts, RpcError):
            receipts = await self._receipts(txs)
        if isinstance(traces, RpcError):
            if traces.code == METHOD_NOT_FOUND or "not supported" in traces.message.lower():
                log.warning(
                    "node serves no callTracer traces (%s): internal transactions "
                    "and factory-created contracts are skipped",
                    traces.message,
                )
                self.traces = False
                traces = None
            else:
                raise Unavailable(f"debug_traceBlockByNumber failed: {traces.message}")
        frames = None if traces is None else [t.get("result") or {} for t in traces]
        if frames is not None and len(frames) != len(txs):
            raise Unavailable("trace count does not match the block's transactions")
        if len(receipts) != len(txs):
            raise Unavailable("receipt count does not match the block's transactions")
        return RawBlock(block, list(receipts), frames)

    async def _receipts(self, txs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        results = await self.calls.many(
            [("eth_getTransactionReceipt", (tx["hash"],)) for tx in txs]
        )
        for r in results:
            if isinstance(r, RpcError) or r is None:
                raise Unavailable("a receipt of the block is missing")
        return list(results)
