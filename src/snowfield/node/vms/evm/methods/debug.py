"""The debug_ namespace: transaction and block traces with geth's tracers."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.chain import CallPrelude
from snowfield.chains.evm.execution.call import CallArgs
from snowfield.chains.evm.execution.tracing import Tracer
from snowfield.chains.evm.model import Block
from snowfield.errors import NotFound
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.methods.tracers import trace_call_config, tracer_of
from snowfield.node.vms.evm.methods.txargs import call_args
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param


def debug_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain

    async def trace_block(block: Block | None, tracer: Tracer) -> list[dict[str, Any]]:
        if block is None:
            raise NotFound("block not found")
        results = await rt.compute(chain.trace_block, block, tracer)
        return [
            {"txHash": "0x" + tx.hash.hex(), "result": result}
            for tx, result in zip(block.txs, results, strict=True)
        ]

    async def trace_tx(tx_hash: bytes, tracer: Tracer) -> Any:
        return await rt.compute(chain.trace_tx, tx_hash, tracer)

    async def by_number(ref: p.BlockRef, tracer: Tracer) -> list[dict[str, Any]]:
        return await trace_block(rt.find(ref), tracer)

    async def by_hash(block_hash: bytes, tracer: Tracer) -> list[dict[str, Any]]:
        return await trace_block(chain.block_by_hash(block_hash), tracer)

    async def trace_call(
        args: CallArgs, ref: p.BlockRef, config: tuple[Tracer, CallPrelude]
    ) -> Any:
        tracer, prelude = config
        return await rt.compute(chain.trace_call, args, rt.resolve(ref), tracer, prelude)

    config = Param("config", tracer_of, tracer_of({}))
    call_config = Param("config", trace_call_config, trace_call_config({}))
    return [
        Method(
            "debug_traceCall",
            trace_call,
            (
                Param("args", call_args),
                Param("block", p.block_number_or_hash, p.LATEST),
                call_config,
            ),
        ),
        Method("debug_traceTransaction", trace_tx, (Param("hash", p.hash32), config)),
        Method("debug_traceBlockByNumber", by_number, (Param("block", p.block_number), config)),
        Method("debug_traceBlockByHash", by_hash, (Param("hash", p.hash32), config)),
    ]
