"""eth_simulateV1: blocks of calls simulated on top of a block, as geth's simulator builds them
(numbers and timestamps filled in, gaps filled with empty blocks, state carried forward)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from snowfield.chains.evm.environment import BlockEnvs
from snowfield.chains.evm.execution.call import UNCAPPED_GAS, CallArgs
from snowfield.chains.evm.execution.overrides import (
    NO_BLOCK_OVERRIDES,
    AccountOverride,
    BlockOverrides,
    apply_state_overrides,
)
from snowfield.chains.evm.execution.simulate import (
    CallOutcome,
    CallRules,
    SimulationState,
    TransferLoggingState,
    run_call,
)
from snowfield.chains.evm.execution.state import BlockBuilder, BlockEnv, StateStore
from snowfield.chains.evm.headers import executed_header
from snowfield.chains.evm.model import Block, Header, Receipt, Tx, encode_block
from snowfield.chains.evm.view import ChainView
from snowfield.crypto.hashing import keccak
from snowfield.errors import SimulationError
from snowfield.formats.rlp import encode as rlp_encode

MAX_BLOCKS = 256
TIMESTAMP_INCREMENT = 12


@dataclass(frozen=True, slots=True)
class SimBlock:
    """One entry of blockStateCalls."""

    block: BlockOverrides = NO_BLOCK_OVERRIDES
    state: Mapping[bytes, AccountOverride] = field(default_factory=dict)
    calls: tuple[CallArgs, ...] = ()


@dataclass(frozen=True, slots=True)
class SimOptions:
    validate: bool = False
    trace_transfers: bool = False


@dataclass(frozen=True, slots=True)
class SimulatedBlock:
    block: Block
    calls: tuple[CallOutcome, ...]


def sanitize(blocks: Sequence[SimBlock], base: Header) -> list[SimBlock]:
    """Gives every block a number and a timestamp, checks both increase, and fills a gap in
    the numbers with empty blocks (geth's sanitizeChain)."""
    out: list[SimBlock] = []
    number, time = base.number, base.timestamp
    for spec in blocks:
        wanted = spec.block.number if spec.block.number is not None else number + 1
        if wanted <= number:
            raise SimulationError(
                f"block numbers must be in order: {wanted} <= {number}", reason="block number"
            )
        if wanted - base.number > MAX_BLOCKS:
            raise SimulationError("too many blocks", reason="client limit")
        for filler in range(number + 1, wanted):
            time += TIMESTAMP_INCREMENT
            out.append(SimBlock(BlockOverrides(number=filler, time=time)))
        stamp = spec.block.time if spec.block.time is not None else time + TIMESTAMP_INCREMENT
        if stamp <= time:
            raise SimulationError(
                f"block timestamps must be in order: {stamp} <= {time}", reason="block timestamp"
            )
        number, time = wanted, stamp
        out.append(
            dataclasses.replace(
                spec, block=dataclasses.replace(spec.block, number=number, time=stamp)
            )
        )
    return out


class Simulator:
    """Runs sanitized blocks one after another on a scratch copy of the base block's state."""

    def __init__(
        self, view: ChainView, envs: BlockEnvs, base: Block, options: SimOptions, gas_cap: int
    ) -> None:
        self.view = view
        self.envs = envs
        self.options = options
        self.store: StateStore = view.store.scratch()
        self.parent = base
        self.root = view.root_of(base)  # the parent's state: cheat codes may have edited it
        self.hashes: list[bytes] = []  # simulated blocks, oldest first, for BLOCKHASH
        self.base_number = base.number
        self.budget = gas_cap or UNCAPPED_GAS

    def run(self, blocks: Sequence[SimBlock]) -> list[SimulatedBlock]:
        return [self._block(spec) for spec in sanitize(blocks, self.parent.header)]

    def _block(self, spec: SimBlock) -> SimulatedBlock:
        env = self._env(spec.block)
        state_class = TransferLoggingState if self.options.trace_transfers else SimulationState
        builder = BlockBuilder(self.store, self.root, env, state_class, fast_transfers=False)
        apply_state_overrides(builder.state, spec.state)
        rules = CallRules(self.options.validate, env)
        outcomes, left = [], env.gas_limit
        for args in spec.calls:
            gas = args.gas if args.gas is not None else left
            if gas > left:
                raise SimulationError(
                    f"block gas limit reached: remaining: {left}, required: {gas}",
                    reason="block gas limit",
                )
            outcome = run_call(builder.state, args, min(gas, self.budget), rules)
            left -= outcome.gas_used
            self.budget -= outcome.gas_used
            outcomes.append(outcome)
        block = self._assemble(env, builder.finish(), spec.calls, outcomes)
        self.parent, self.root = block, block.header.state_root
        self.hashes.append(block.hash)
        return SimulatedBlock(block, tuple(outcomes))

    def _env(self, overrides: BlockOverrides) -> BlockEnv:
        parent = self.parent.header
        base_fee = overrides.base_fee
        assert overrides.number is not None and overrides.time is not None  # sanitized
        rules = self.envs.rules
        if base_fee is None:
            # As geth: without validation no base fee is charged (a call may pay nothing).
            fee = rules.next_base_fee(parent, overrides.time, self.view.store.reader(self.root))
            base_fee = fee if self.options.validate else 0
        return BlockEnv(
            number=overrides.number,
            timestamp=overrides.time,
            coinbase=overrides.fee_recipient or parent.coinbase,
            gas_limit=overrides.gas_limit or parent.gas_limit,
            base_fee=base_fee,
            chain_id=self.envs.chain_id,
            prev_hashes=self._ancestors(),
            mix_hash=overrides.prev_randao or parent.mix_hash,
            difficulty=parent.difficulty,
            stateful=rules.precompiles(overrides.time),
            create_check=rules.create_check(overrides.time),
            warp=self.envs.call_warp(overrides.time),
        )

    def _ancestors(self) -> Callable[[], Iterator[bytes]]:
        simulated = list(reversed(self.hashes))
        real = self.view.ancestors(self.base_number + 1)

        def walk() -> Iterator[bytes]:
            yield from simulated
            yield from real()

        return walk

    def _assemble(
        self, env: BlockEnv, root: bytes, calls: Sequence[CallArgs], outcomes: list[CallOutcome]
    ) -> Block:
        txs = tuple(
            _transaction(args, outcome, self.envs.chain_id, env.base_fee)
            for args, outcome in zip(calls, outcomes, strict=True)
        )
        receipts, cumulative = [], 0
        for tx, outcome in zip(txs, outcomes, strict=True):
            cumulative += outcome.gas_used
            receipts.append(
                Receipt(
                    type=tx.type,
                    status=outcome.status,
                    cumulative_gas=cumulative,
                    gas_used=outcome.gas_used,
                    logs=outcome.receipt_logs,
                    bloom=outcome.bloom,
                    contract_address=outcome.created,
                    effective_gas_price=tx.effective_gas_price(env.base_fee),
                )
            )
        header = executed_header(
            self.parent.header,
            self.parent.hash,
            env,
            root,
            txs,
            receipts,
            cumulative,
            self.envs.rules,
        )
        body = encode_block(header, txs, b"", 0)
        return Block(header, keccak(header.encode()), txs, tuple(receipts), body, 0)


def _transaction(args: CallArgs, outcome: CallOutcome, chain_id: int, base_fee: int) -> Tx:
    """The unsigned dynamic-fee transaction geth makes of a call (its hash names the call)."""
    fee_cap = args.max_fee if args.max_fee is not None else args.gas_price or 0
    tip = args.max_priority_fee if args.max_priority_fee is not None else args.gas_price or 0
    access = [[a.address, list(a.storage_keys)] for a in args.access_list or ()]
    fields = [chain_id, outcome.nonce, tip, fee_cap, outcome.gas, args.to or b""]
    fields += [args.value, args.data, access, 0, 0, 0]
    raw = b"\x02" + rlp_encode(fields)
    return Tx(
        hash=keccak(raw),
        raw=raw,
        type=2,
        sender=outcome.sender,
        nonce=outcome.nonce,
        to=args.to,
        value=args.value,
        gas=outcome.gas,
        max_fee=fee_cap,
        max_priority_fee=tip,
        data=args.data,
        chain_id=chain_id,
        access_list=tuple(
            (a.address, tuple(int.from_bytes(k, "big") for k in a.storage_keys))
            for a in args.access_list or ()
        ),
        v=0,
        r=0,
        s=0,
        evm_factory=lambda: None,
    )
