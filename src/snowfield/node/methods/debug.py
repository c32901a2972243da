"""The debug_ namespace: transaction and block traces with geth's callTracer."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.model import Block
from snowfield.errors import InvalidParams, NotFound
from snowfield.node.methods import params as p
from snowfield.node.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param

SUPPORTED = ("callTracer",)


def trace_config(value: Any) -> dict[str, Any]:
    config = p.obj(value)
    tracer = config.get("tracer")
    if tracer not in SUPPORTED:
        raise InvalidParams(
            f'tracer {tracer!r} is not supported; use {{"tracer": "callTracer"}}'
            if tracer is not None
            else 'the default struct logger is not supported; use {"tracer": "callTracer"}'
        )
    return config


def _shape(frame: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    if (config.get("tracerConfig") or {}).get("onlyTopCall"):
        frame = dict(frame)
        frame.pop("calls", None)
    return frame


def debug_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain

    async def trace_block(block: Block | None, config: dict[str, Any]) -> list[dict[str, Any]]:
        if block is None:
            raise NotFound("block not found")
        frames = await rt.compute(chain.trace_block, block)
        return [
            {"txHash": "0x" + tx.hash.hex(), "result": _shape(frame, config)}
            for tx, frame in zip(block.txs, frames, strict=True)
        ]

    async def trace_tx(tx_hash: bytes, config: dict[str, Any] | None) -> dict[str, Any]:
        trace_config(config or {})
        loc = chain.locate(tx_hash)
        if loc is None:
            raise NotFound(f"transaction 0x{tx_hash.hex()} not found")
        frames = await rt.compute(chain.trace_block, loc.block)
        return _shape(frames[loc.index], config or {})

    async def by_number(ref: p.BlockRef, config: dict[str, Any] | None) -> list[dict[str, Any]]:
        return await trace_block(rt.find(ref), trace_config(config or {}))

    async def by_hash(block_hash: bytes, config: dict[str, Any] | None) -> list[dict[str, Any]]:
        return await trace_block(chain.block_by_hash(block_hash), trace_config(config or {}))

    opt_config = Param("config", p.obj, None)
    return [
        Method("debug_traceTransaction", trace_tx, (Param("hash", p.hash32), opt_config)),
        Method("debug_traceBlockByNumber", by_number, (Param("block", p.block_number), opt_config)),
        Method("debug_traceBlockByHash", by_hash, (Param("hash", p.hash32), opt_config)),
    ]
