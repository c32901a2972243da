"""eth_simulateV1 (viem's simulateCalls): geth's simOpts decoded, simulated blocks rendered
as blocks with a `calls` member."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.execution.simulate import CallOutcome
from snowfield.chains.evm.execution.state import revert_reason
from snowfield.chains.evm.model import Block
from snowfield.chains.evm.simulation import MAX_BLOCKS, SimBlock, SimOptions, SimulatedBlock
from snowfield.errors import InvalidParams, SimulationError
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.methods.overrides import block_overrides, state_overrides
from snowfield.node.vms.evm.methods.txargs import Field, call_args, decode_struct
from snowfield.node.vms.evm.render import block_json, hb, hx, log_json
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param
from snowfield.rpc.errors import REVERTED, VM_ERROR

MAX_CALLS_PER_BLOCK = 5_000
MAX_CALLS = 10_000


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidParams("non-array")
    return value


SIM_BLOCK_FIELDS = (
    Field("blockOverrides", "*override.BlockOverrides", lambda v: v),
    Field("stateOverrides", "*override.StateOverride", lambda v: v),
    Field("calls", "[]ethapi.TransactionArgs", _list),
)
SIM_OPTS_FIELDS = (
    Field("blockStateCalls", "[]ethapi.simBlock", _list),
    Field("traceTransfers", "bool", p.boolean),
    Field("validation", "bool", p.boolean),
    Field("returnFullTransactions", "bool", p.boolean),
)


def sim_block(value: Any) -> SimBlock:
    got = decode_struct(value, "ethapi.simBlock", SIM_BLOCK_FIELDS)
    calls = tuple(call_args(call) for call in got.get("calls", ()))
    if len(calls) > MAX_CALLS_PER_BLOCK:
        raise SimulationError("too many calls in a block", reason="client limit")
    return SimBlock(
        block=block_overrides(got.get("blockOverrides") or {}),
        state=state_overrides(got["stateOverrides"]) if "stateOverrides" in got else {},
        calls=calls,
    )


def sim_opts(value: Any) -> tuple[list[SimBlock], SimOptions, bool]:
    """geth's simOpts: the blocks, how to run them, whether to return full transactions."""
    got = decode_struct(value, "ethapi.simOpts", SIM_OPTS_FIELDS)
    raw_blocks = got.get("blockStateCalls", [])
    if not raw_blocks:
        raise SimulationError("empty input", reason="invalid params")
    if len(raw_blocks) > MAX_BLOCKS:
        raise SimulationError("too many blocks", reason="client limit")
    blocks = [sim_block(block) for block in raw_blocks]
    if sum(len(block.calls) for block in blocks) > MAX_CALLS:
        raise SimulationError("too many calls", reason="client limit")
    options = SimOptions(
        validate=got.get("validation", False), trace_transfers=got.get("traceTransfers", False)
    )
    return blocks, options, got.get("returnFullTransactions", False)


def simulated_json(simulated: SimulatedBlock, full: bool) -> dict[str, Any]:
    block = simulated.block
    out = block_json(block, full)
    calls, first_log = [], 0
    for index, outcome in enumerate(simulated.calls):
        calls.append(_call_json(outcome, block, index, first_log))
        first_log += len(outcome.logs)
    out["calls"] = calls
    return out


def _call_json(outcome: CallOutcome, block: Block, index: int, first_log: int) -> dict[str, Any]:
    tx = block.txs[index]
    out: dict[str, Any] = {
        "returnData": hb(outcome.output),
        "logs": [
            log_json(log, block, tx, index, first_log + i) for i, log in enumerate(outcome.logs)
        ],
        "gasUsed": hx(outcome.gas_used),
        "maxUsedGas": hx(outcome.max_used_gas),
        "status": hx(outcome.status),
    }
    if outcome.reverted:
        reason = revert_reason(outcome.output)
        message = "execution reverted" + (f": {reason}" if reason else "")
        out["error"] = {"message": message, "code": REVERTED, "data": hb(outcome.output)}
    elif outcome.error is not None:
        out["error"] = {"message": outcome.error, "code": VM_ERROR}
    return out


def simulate_methods(rt: EvmRuntime) -> list[Method]:
    async def simulate(
        opts: tuple[list[SimBlock], SimOptions, bool], ref: p.BlockRef
    ) -> list[dict[str, Any]]:
        blocks, options, full = opts
        base = rt.resolve(ref)
        simulated = await rt.compute(rt.chain.simulate, base, blocks, options)
        return [simulated_json(block, full) for block in simulated]

    return [
        Method(
            "eth_simulateV1",
            simulate,
            (Param("opts", sim_opts), Param("block", p.block_number_or_hash, p.LATEST)),
        )
    ]
