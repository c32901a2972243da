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
from snowfield.indexer.extract.parity import frames_by_tx
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
    def __init__(self, calls: Calls, traces: str = "auto") -> None:
        self.calls = calls
        self.block_receipts = True
        # Parity's trace_block is preferred where served: nodes record it while executing,
        # while callTracer re-executes the block (on anvil ~20x slower).
        self.trace_api: str | None = None if traces == "none" else traces

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
            if self.trace_api is not None:
                calls.append(self._trace_call(n))
        api, with_receipts = self.trace_api, self.block_receipts
        per = 1 + with_receipts + (api is not None)
        results = await self.calls.many(calls)
        out = []
        for i in range(len(numbers)):
            block, *rest = results[i * per : i * per + per]
            if isinstance(block, RpcError):
                raise Unavailable(f"eth_getBlockByNumber failed: {block.message}")
            if block is None:
                break
            receipts = rest.pop(0) if with_receipts else None
            traces = rest.pop(0) if api is not None else None
            out.append(await self._complete(block, receipts, traces, api))
        return out

    def _trace_call(self, number: int) -> tuple[str, Sequence[Any]]:
        if self.trace_api in ("auto", "parity"):
            return ("trace_block", (hex(number),))
        return ("debug_traceBlockByNumber", (hex(number), CALL_TRACER))

    async def _complete(
        self, block: dict[str, Any], receipts: Any, traces: Any, api: str | None
    ) -> RawBlock:
        txs = block.get("transactions") or []
        if isinstance(receipts, RpcError) and receipts.code == METHOD_NOT_FOUND:
            log.warning("node has no eth_getBlockReceipts; fetching receipts per transaction")
            self.block_receipts = False
            receipts = None
        if receipts is None or isinstance(receipts, RpcError):
            receipts = await self._receipts(txs)
        frames = await self._frames(block, traces, api)
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

    async def _frames(
        self, block: dict[str, Any], traces: Any, api: str | None
    ) -> list[dict[str, Any]] | None:
        """The block's callTracer frames; `api` is the trace API `traces` came from. Switches
        API (auto → debug) or stops tracing (with one warning) when the node lacks one."""
        if api is None:
            return None
        if isinstance(traces, RpcError) and _unsupported(traces):
            if api == "auto":
                if self.trace_api == "auto":
                    log.info("no trace_block (%s); using callTracer traces", traces.message)
                    self.trace_api = "debug"
                return await self._frames(block, await self._refetch(block), self.trace_api)
            if self.trace_api == api:
                log.warning(
                    "node serves no %s traces (%s): internal transactions and contracts"
                    " created by contracts are skipped",
                    api,
                    traces.message,
                )
                self.trace_api = None
            return None
        if isinstance(traces, RpcError):
            raise Unavailable(f"tracing block {block.get('number')} failed: {traces.message}")
        if api in ("auto", "parity"):
            self.trace_api = "parity"
            return frames_by_tx(traces or [], len(block.get("transactions") or []))
        return [t.get("result") or {} for t in traces or []]

    async def _refetch(self, block: dict[str, Any]) -> Any:
        (result,) = await self.calls.many([self._trace_call(qty(block["number"]))])
        return result


def _unsupported(error: RpcError) -> bool:
    text = error.message.lower()
    return error.code == METHOD_NOT_FOUND or "not supported" in text or "unsupported" in text
