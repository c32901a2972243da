"""The call engine: calls, gas estimates, access lists, traces and simulations on the states of
accepted blocks, within the RPC limits; nothing it writes is kept."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from snowfield.chains.evm.environment import BlockEnvs
from snowfield.chains.evm.execution.accesslist import (
    AccessListResult,
    AccessListState,
    create_access_list,
)
from snowfield.chains.evm.execution.call import TX_GAS, CallArgs, CallLimits, execute_call, gas_used
from snowfield.chains.evm.execution.deadline import CallState, CallTimeout, deadline, go_duration
from snowfield.chains.evm.execution.hooks import silence
from snowfield.chains.evm.execution.overrides import (
    NO_BLOCK_OVERRIDES,
    BlockOverrides,
    StateOverrides,
    apply_state_overrides,
)
from snowfield.chains.evm.execution.state import (
    BlockBuilder,
    StateClass,
    error_text,
    is_revert,
    output_of,
    revert_reason,
)
from snowfield.chains.evm.execution.tracing import Tracer, TxStart
from snowfield.chains.evm.model import Block
from snowfield.chains.evm.simulation import SimBlock, SimOptions, SimulatedBlock, Simulator
from snowfield.chains.evm.view import ChainView
from snowfield.chains.evm.warp import WARP_ADDRESS
from snowfield.errors import ExecutionReverted, InvalidParams, NotFound
from snowfield.formats.warp.predicate import decode_results


@dataclass(frozen=True, slots=True)
class CallPrelude:
    """What a call changes before it runs: geth's state and block overrides."""

    state: StateOverrides = field(default_factory=dict)
    block: BlockOverrides = NO_BLOCK_OVERRIDES


class CallEngine:
    """Executes without effects over a read-only view of the chain (py-evm's and reth's
    call/estimate/trace paths); thread-safe: each run works on its own scratch state."""

    def __init__(self, view: ChainView, envs: BlockEnvs, limits: CallLimits) -> None:
        self.view = view
        self.envs = envs
        self.limits = limits

    def call(
        self,
        args: CallArgs,
        block: Block,
        *,
        gas: int | None = None,
        prelude: CallPrelude | None = None,
    ) -> bytes:
        """eth_call: the return data, or ExecutionReverted/InvalidParams (also when the call
        runs past the RPC time limit); `prelude` holds the state and block overrides."""
        with self._time_limited():
            run_gas = gas or self.limits.call_gas(args.gas)
            computation = self._run(args, block, run_gas, prelude)
        if computation.is_error:
            raise _execution_error(computation)
        return output_of(computation)

    def estimate_gas(self, args: CallArgs, block: Block, prelude: CallPrelude | None = None) -> int:
        """Smallest gas limit with which the call succeeds (binary search, as geth), searched
        below the request's gas (else the block's limit) and the RPC gas cap."""
        cap = args.gas if args.gas and args.gas >= TX_GAS else block.header.gas_limit
        cap = min(cap, self.limits.gas_cap) if self.limits.gas_cap else cap
        with self._time_limited():
            return self._search_gas(args, block, cap, prelude)

    def create_access_list(self, args: CallArgs, block: Block) -> AccessListResult:
        """eth_createAccessList on `block`'s state: the accounts and slots the call touches."""
        nonce = (
            args.nonce if args.nonce is not None else self.view.state_at(block).nonce(args.sender)
        )

        def run(traced: CallArgs, gas: int) -> Any:
            return self._run(traced, block, gas, state_class=AccessListState)

        with self._time_limited():
            return create_access_list(run, args, self.limits.call_gas(args.gas), nonce)

    def trace_block(self, block: Block, tracer: Tracer, only: int | None = None) -> list[Any]:
        """Replays an accepted block with every transaction (or the one at index `only`)
        under `tracer`; the results in order."""
        if block.number == 0:
            return []
        parent = self.view.block(block.number - 1)
        assert parent is not None  # an accepted block's parent is accepted
        header = block.header
        results = _header_results(self.envs.rules.predicate_results(header))
        # The block's own fee recipient and gas limit, whatever the rules would pick now.
        coinbase, gas_limit = header.coinbase, header.gas_limit
        env = self.envs.for_block(
            parent, header.timestamp, header.base_fee, coinbase, gas_limit, results
        )
        env = replace(env, coinbase=coinbase, gas_limit=gas_limit)
        builder = BlockBuilder(
            self.view.store.scratch(),
            self.view.pre_root(block),
            env,
            tracer.state_class,
            fast_transfers=False,
            prepare=partial(
                self.envs.rules.on_block_start,
                parent_timestamp=parent.header.timestamp,
                number=block.number,
                timestamp=header.timestamp,
            ),
        )
        outputs: list[Any] = []
        log_index = 0
        pairs = list(zip(block.txs, block.receipts, strict=True))
        for index, (tx, receipt) in enumerate(pairs if only is None else pairs[: only + 1]):
            if only is not None and index < only:
                silence(builder.state)
                builder.apply(tx)
                log_index += len(receipt.logs)
                continue
            start = TxStart(tx.sender, tx.to, tx.gas, env.coinbase, log_index)
            trace = tracer.start(builder.state, start)
            with self._time_limited():  # per traced transaction, as geth's trace timeout
                applied = builder.apply(tx)
            assert applied.computation is not None  # fast transfers are off
            outputs.append(trace.result(builder.state, applied.computation, receipt.gas_used))
            log_index += len(receipt.logs)
        return outputs

    def trace_tx(self, tx_hash: bytes, tracer: Tracer) -> Any:
        loc = self.view.locate(tx_hash)
        if loc is None:
            raise NotFound(f"transaction 0x{tx_hash.hex()} not found")
        return self.trace_block(loc.block, tracer, only=loc.index)[0]

    def trace_call(self, args: CallArgs, block: Block, tracer: Tracer, pre: CallPrelude) -> Any:
        """debug_traceCall: the call on `block`'s state, with overrides, under `tracer`."""
        self._check_chain_id(args)
        env = pre.block.apply(self.envs.for_call(block))
        gas = self.limits.call_gas(args.gas)
        started: list[tuple[Any, Any]] = []

        def prepare(state: Any) -> None:
            apply_state_overrides(state, pre.state)
            start = TxStart(args.sender, args.to, gas, env.coinbase)
            started.append((state, tracer.start(state, start)))

        with self._time_limited():
            root = self.view.root_of(block)
            computation = execute_call(
                self.view.store, root, env, args, gas, tracer.state_class, prepare
            )
            ((state, trace),) = started
            return trace.result(state, computation, gas_used(gas, computation))

    def simulate(
        self, base: Block, blocks: Sequence[SimBlock], options: SimOptions
    ) -> list[SimulatedBlock]:
        """eth_simulateV1: `blocks` of calls simulated on top of `base`, within the RPC time
        limit; nothing is kept."""
        with self._time_limited():
            simulator = Simulator(self.view, self.envs, base, options, self.limits.gas_cap)
            return simulator.run(blocks)

    def _search_gas(
        self, args: CallArgs, block: Block, cap: int, prelude: CallPrelude | None
    ) -> int:
        high = cap
        computation = self._run(args, block, high, prelude)
        if computation.is_error:
            if is_revert(computation):
                raise _execution_error(computation)
            raise InvalidParams(f"gas required exceeds allowance ({cap})")
        low = TX_GAS - 1
        while low + 1 < high:
            mid = (low + high) // 2
            if self._succeeds(args, block, mid, prelude):
                high = mid
            else:
                low = mid
        return high

    def _succeeds(
        self, args: CallArgs, block: Block, gas: int, prelude: CallPrelude | None
    ) -> bool:
        try:
            return not self._run(args, block, gas, prelude).is_error
        except InvalidParams:  # below intrinsic gas
            return False

    @contextmanager
    def _time_limited(self) -> Iterator[None]:
        timeout = self.limits.timeout
        try:
            with deadline(timeout):
                yield
        except CallTimeout:
            raise InvalidParams(f"execution aborted (timeout = {go_duration(timeout)})") from None

    def _run(
        self,
        args: CallArgs,
        block: Block,
        gas: int,
        prelude: CallPrelude | None = None,
        state_class: StateClass = CallState,
    ) -> Any:
        self._check_chain_id(args)
        env = self.envs.for_call(block)
        prepare = None
        if prelude is not None:
            env = prelude.block.apply(env)
            prepare = partial(apply_state_overrides, overrides=prelude.state)
        root = self.view.root_of(block)
        return execute_call(self.view.store, root, env, args, gas, state_class, prepare)

    def _check_chain_id(self, args: CallArgs) -> None:
        chain_id = self.envs.chain_id
        if args.chain_id is not None and args.chain_id != chain_id:
            raise InvalidParams(
                f"chainId does not match node's (have={args.chain_id}, want={chain_id})"
            )


def _header_results(data: bytes) -> dict[bytes, frozenset[int]]:
    """A header's Warp predicate results: tx hash → failed predicate indices."""
    if not data:
        return {}
    decoded = decode_results(data)
    return {tx: by_address.get(WARP_ADDRESS, frozenset()) for tx, by_address in decoded.items()}


def _execution_error(computation: Any) -> Exception:
    output = output_of(computation)
    if is_revert(computation):
        reason = revert_reason(output)
        message = "execution reverted" + (f": {reason}" if reason else "")
        return ExecutionReverted(message, data="0x" + output.hex())
    return InvalidParams(error_text(computation) or "execution failed")
