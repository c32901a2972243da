"""An EVM chain of the devnet: one object over its history, block production, call engine and
dev controls, as the node's services use it."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from snowfield.chains.clock import NetworkClock
from snowfield.chains.evm.atomic import AtomicLedger
from snowfield.chains.evm.calls import CallEngine, CallPrelude
from snowfield.chains.evm.devcontrols import DevControls, RewindListener
from snowfield.chains.evm.environment import BlockEnvs
from snowfield.chains.evm.execution.accesslist import AccessListResult
from snowfield.chains.evm.execution.call import CallArgs, CallLimits
from snowfield.chains.evm.execution.edits import AccountEdit
from snowfield.chains.evm.execution.state import StateReader, StateStore
from snowfield.chains.evm.execution.tracing import Tracer
from snowfield.chains.evm.fees import SUGGESTED_TIP
from snowfield.chains.evm.genesis import ChainConfig
from snowfield.chains.evm.history import ChainHistory, TxLocation
from snowfield.chains.evm.model import Block
from snowfield.chains.evm.production import BlockListener, BlockParams, BlockProducer
from snowfield.chains.evm.simulation import SimBlock, SimOptions, SimulatedBlock
from snowfield.chains.evm.warp import SnowContext
from snowfield.chains.journal import Journal
from snowfield.formats.ids import ID

# CallPrelude appears in the façade's signatures: its callers import it from here.
__all__ = ["CallPrelude", "EvmChain"]

DEFAULT_CALL_LIMITS = CallLimits()


class EvmChain:
    """The state machine of one EVM chain; thread-safe for one writer and many readers.

    A façade: `history` holds the accepted blocks and states (and replays the journal),
    `producer` admits transactions and builds blocks, `calls` runs code without effects,
    `dev` holds the cheat codes."""

    def __init__(
        self,
        config: ChainConfig,
        journal: Journal,
        *,
        clock: Callable[[], float] | NetworkClock = time.time,
        genesis_time: int | None = None,
        fast_transfers: bool = True,
        call_limits: CallLimits = DEFAULT_CALL_LIMITS,
        snow: SnowContext | None = None,
        atomic: AtomicLedger | None = None,
    ) -> None:
        self.config = config
        self.rules = config.rules
        self.snow = snow if snow is not None else SnowContext()
        self.atomic = atomic
        self.call_limits = call_limits
        self.fast_transfers = fast_transfers
        self.journal = journal
        # The network's clock when hosted by a node; a private one (from `clock`) otherwise.
        self.clock = clock if isinstance(clock, NetworkClock) else NetworkClock(clock)
        self.store = StateStore()
        self.history = ChainHistory(
            config.chain_id, self.rules.header_type, journal, self.store, atomic
        )
        envs = BlockEnvs(self.history, self.rules, config.chain_id, self.snow)
        self.producer = BlockProducer(
            config, self.history, envs, self.clock, atomic, fast_transfers
        )
        self.calls = CallEngine(self.history, envs, call_limits)
        self.dev = DevControls(self.producer, self.history, self.clock)
        self.mempool = self.producer.mempool
        # Bound, not wrapped: each transaction's admission and mining (the devnet's hot path)
        # passes through no extra frame.
        self.submit_decoded = self.producer.submit_decoded
        self.is_cheap = self.producer.is_cheap
        self.try_lock = self.producer.try_lock
        self.unlock = self.producer.unlock
        self.mine = self.producer.mine
        if not self.history.replay():
            self.producer.create_genesis(genesis_time if genesis_time is not None else int(clock()))

    def subscribe(self, listener: BlockListener) -> None:
        """Calls `listener` (on the writer's thread) after each block is accepted."""
        self.producer.subscribe(listener)

    def on_rewind(self, listener: RewindListener) -> None:
        """Calls `listener(height, cut blocks)` after the chain is cut back to `height`."""
        self.dev.on_rewind(listener)

    # -- history -----------------------------------------------------------------------

    @property
    def blocks(self) -> list[Block]:
        return self.history.blocks

    @property
    def head(self) -> Block:
        return self.history.blocks[-1]

    def block(self, number: int) -> Block | None:
        return self.history.block(number)

    def block_by_hash(self, block_hash: bytes) -> Block | None:
        return self.history.block_by_hash(block_hash)

    def accepted_block(self, block_hash: bytes) -> bool:
        return self.history.accepted_block(block_hash)

    def locate(self, tx_hash: bytes) -> TxLocation | None:
        return self.history.locate(tx_hash)

    def root_of(self, block: Block) -> bytes:
        """The state root after `block`: for the head, as cheat codes may have left it."""
        return self.history.root_of(block)

    def state_at(self, block: Block) -> StateReader:
        return self.history.state_at(block)

    def warp_message(self, message_id: bytes) -> bytes | None:
        """The unsigned Warp message an accepted block sent with this id (None: none)."""
        return self.history.warp_message(message_id)

    # -- production --------------------------------------------------------------------

    def pending_nonce(self, address: bytes) -> int:
        return self.producer.pending_nonce(address)

    def next_base_fee(self, timestamp: int | None = None) -> int:
        """The next block's base fee; at `timestamp`, else now (EstimateNextBaseFee)."""
        return self.producer.next_base_fee(timestamp)

    def suggested_tip(self) -> int:
        return SUGGESTED_TIP

    def issue_atomic(self, data: bytes) -> ID:
        """Verifies a signed atomic tx against the head and queues it for the next block."""
        return self.producer.issue_atomic(data)

    def drop_pending(self, tx_hash: bytes) -> bool:
        """Removes a transaction from the mempool; False when it is not there."""
        return self.producer.drop_pending(tx_hash)

    def quiesced(self) -> AbstractContextManager[None]:
        """Holds block production and admission: the head and the mempool stand still."""
        return self.producer.quiesced()

    @property
    def params(self) -> BlockParams:
        """What the next blocks are built with (cheat codes replace it)."""
        return self.producer.params

    @params.setter
    def params(self, params: BlockParams) -> None:
        self.producer.params = params

    @property
    def next_timestamp(self) -> int | None:
        return self.producer.next_timestamp

    @next_timestamp.setter
    def next_timestamp(self, timestamp: int | None) -> None:
        self.producer.next_timestamp = timestamp

    # -- dev controls ------------------------------------------------------------------

    @property
    def time_offset(self) -> int:
        """The network clock's offset from wall time (evm_increaseTime's total)."""
        return self.dev.time_offset

    @time_offset.setter
    def time_offset(self, seconds: int) -> None:
        self.dev.time_offset = seconds

    def increase_time(self, seconds: int) -> int:
        return self.dev.increase_time(seconds)

    def set_next_timestamp(self, timestamp: int) -> None:
        self.dev.set_next_timestamp(timestamp)

    def reset_block_params(self) -> None:
        """Forgets what cheat codes set for the next blocks (coinbase, gas limit, time)."""
        self.dev.reset_block_params()

    def edit_state(self, edits: list[AccountEdit]) -> None:
        """Writes accounts into the head's state, journaled so a restart finds them."""
        self.dev.edit_state(edits)

    def load_nodes(self, root: bytes, nodes: dict[bytes, bytes]) -> None:
        """Makes the state at `root` (whose trie nodes and code are `nodes`) the head's."""
        self.dev.load_nodes(root, nodes)

    def rewind(self, height: int, root: bytes | None = None) -> None:
        """Cuts the chain back to block `height`, with head state `root` (default: that
        block's); journaled, so a restart does not bring the cut blocks back."""
        self.dev.rewind(height, root)

    # -- calls -------------------------------------------------------------------------

    def call(
        self,
        args: CallArgs,
        block: Block,
        *,
        gas: int | None = None,
        prelude: CallPrelude | None = None,
    ) -> bytes:
        """eth_call: the return data, or ExecutionReverted/InvalidParams."""
        return self.calls.call(args, block, gas=gas, prelude=prelude)

    def estimate_gas(self, args: CallArgs, block: Block, prelude: CallPrelude | None = None) -> int:
        """Smallest gas limit with which the call succeeds."""
        return self.calls.estimate_gas(args, block, prelude)

    def create_access_list(self, args: CallArgs, block: Block) -> AccessListResult:
        """eth_createAccessList on `block`'s state: the accounts and slots the call touches."""
        return self.calls.create_access_list(args, block)

    def trace_block(self, block: Block, tracer: Tracer, only: int | None = None) -> list[Any]:
        """Replays an accepted block (or its transaction at index `only`) under `tracer`."""
        return self.calls.trace_block(block, tracer, only)

    def trace_tx(self, tx_hash: bytes, tracer: Tracer) -> Any:
        return self.calls.trace_tx(tx_hash, tracer)

    def trace_call(self, args: CallArgs, block: Block, tracer: Tracer, pre: CallPrelude) -> Any:
        """debug_traceCall: the call on `block`'s state, with overrides, under `tracer`."""
        return self.calls.trace_call(args, block, tracer, pre)

    def simulate(
        self, base: Block, blocks: Sequence[SimBlock], options: SimOptions
    ) -> list[SimulatedBlock]:
        """eth_simulateV1: `blocks` of calls simulated on top of `base`; nothing is kept."""
        return self.calls.simulate(base, blocks, options)
