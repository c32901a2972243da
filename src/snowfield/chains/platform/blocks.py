"""Accepting P-Chain blocks: standard blocks of decision txs, proposal blocks that end a staker
and their commit/abort options. One code path serves building and replaying, so a chain rebuilt
from its journal of block bytes reaches the same state.

Public API: `AcceptedBlock`, `BlockAcceptor` (`accept(bytes)`, `standard(time, txs)`,
`reward(staker, commit)`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from snowfield.chains.platform.executor import Effect, Env, execute
from snowfield.chains.platform.records import TxRecord, TxStatus
from snowfield.chains.platform.stakers import Staker
from snowfield.chains.platform.staking_end import end_staker
from snowfield.chains.platform.timeflow import advance_time
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.platform.blocks import (
    BanffAbortBlock,
    BanffCommitBlock,
    BanffProposalBlock,
    BanffStandardBlock,
    decode_block,
    encode_block,
)
from snowfield.formats.platform.transfer_txs import RewardValidatorTx
from snowfield.formats.platform.txs import Tx
from snowfield.formats.platform.types import Block


@dataclass(frozen=True, slots=True)
class AcceptedBlock:
    """A block the chain accepted: what a runtime wraps (ProposerVM), journals and indexes."""

    id: ID
    height: int
    time: int
    data: bytes
    block: Block


def reward_tx(staker_tx_id: ID) -> Tx:
    return Tx(RewardValidatorTx(staker_tx_id))


@dataclass(slots=True)
class BlockAcceptor:
    """Applies blocks to `env.state`; holds the proposal awaiting its option."""

    env: Env
    pending: tuple[Staker, Tx] | None = None
    dropped: dict[ID, str] = field(default_factory=dict)
    # Effects of txs verified at issue, with the (last block, time) they were verified on: a
    # block that starts from that very state applies its first tx's effect without
    # executing it a second time (the issue path builds a block per tx).
    verified: dict[ID, tuple[tuple[ID, int], Effect]] = field(default_factory=dict)

    def remember(self, tx_id: ID, effect: Effect) -> None:
        if len(self.verified) >= 256:
            self.verified.clear()
        state = self.env.state
        self.verified[tx_id] = ((state.last_block_id, state.timestamp), effect)

    def _effect(self, tx: Tx, first: bool) -> Effect:
        cached = self.verified.pop(tx.id, None)
        state = self.env.state
        if first and cached is not None and cached[0] == (state.last_block_id, state.timestamp):
            return cached[1]
        return execute(self.env, tx)

    def _start(self, parent_id: ID, height: int) -> None:
        state = self.env.state
        if parent_id != state.last_block_id or height != state.height + 1:
            raise InvalidParams(
                f"block does not extend the last accepted block {state.last_block_id}"
            )
        state.height = height

    def _finish(self, block: Block, time: int) -> AcceptedBlock:
        state, data = self.env.state, encode_block(block)
        state.last_block_id = ID(hashlib.sha256(data).digest())  # block_id without re-encoding
        state.record_validator_sets()
        return AcceptedBlock(state.last_block_id, state.height, time, data, block)

    def _advance(self, time: int) -> None:
        if time < self.env.state.timestamp:
            raise InvalidParams("proposed timestamp is before the current chain time")
        advance_time(self.env.state, time)

    def _run(self, txs: tuple[Tx, ...], strict: bool) -> tuple[Tx, ...]:
        included: list[Tx] = []
        for tx in txs:
            try:
                self._effect(tx, first=not included)()
            except InvalidParams as err:
                if strict:
                    raise
                self.dropped[tx.id] = err.message
                continue
            self.env.state.txs[tx.id] = TxRecord(tx, TxStatus.COMMITTED, self.env.state.height)
            included.append(tx)
        return tuple(included)

    def standard(self, time: int, txs: tuple[Tx, ...]) -> AcceptedBlock | None:
        """Builds and accepts a standard block at `time` with the txs of `txs` that verify;
        None when it would hold no tx and not move time."""
        state = self.env.state
        if not txs and time <= state.timestamp:
            return None
        parent, height, moves = state.last_block_id, state.height + 1, time > state.timestamp
        state.height = height
        self._advance(time)
        included = self._run(txs, strict=False)
        if not included and not moves:  # every tx was dropped: nothing to accept
            state.height -= 1
            return None
        return self._finish(BanffStandardBlock(time, parent, height, included), time)

    def reward(self, staker: Staker, commit: bool) -> list[AcceptedBlock]:
        """A proposal block ending `staker` and the option `commit` chooses."""
        state = self.env.state
        tx = reward_tx(staker.tx_id)
        proposal = BanffProposalBlock(
            state.timestamp, (), state.last_block_id, state.height + 1, tx
        )
        first = self.accept_block(proposal)
        option_type = BanffCommitBlock if commit else BanffAbortBlock
        option = option_type(state.timestamp, state.last_block_id, state.height + 1)
        return [first, self.accept_block(option)]

    def accept(self, data: bytes) -> AcceptedBlock:
        """Replays one journaled block."""
        return self.accept_block(decode_block(data))

    def accept_block(self, block: Block) -> AcceptedBlock:
        if isinstance(block, BanffStandardBlock):
            self._start(block.parent_id, block.height)
            self._advance(block.time)
            self._run(block.txs, strict=True)
            return self._finish(block, block.time)
        if isinstance(block, BanffProposalBlock):
            return self._proposal(block)
        if isinstance(block, BanffCommitBlock | BanffAbortBlock):
            return self._option(block, isinstance(block, BanffCommitBlock))
        raise InvalidParams(f"unsupported block type: {type(block).__name__}")

    def _proposal(self, block: BanffProposalBlock) -> AcceptedBlock:
        if self.pending is not None:
            raise InvalidParams("a proposal block is already awaiting its option")
        self._start(block.parent_id, block.height)
        self._advance(block.time)
        self._run(block.decision_txs, strict=True)
        unsigned = block.tx.unsigned
        if not isinstance(unsigned, RewardValidatorTx):
            raise InvalidParams("proposal blocks only carry RewardValidatorTx")
        staker = self.env.state.stakers.by_tx.get(unsigned.tx_id)
        if staker is None or staker.end > self.env.state.timestamp:
            raise InvalidParams("attempting to remove staker before their end time")
        self.pending = (staker, block.tx)
        return self._finish(block, block.time)

    def _option(self, block: BanffCommitBlock | BanffAbortBlock, commit: bool) -> AcceptedBlock:
        if self.pending is None:
            raise InvalidParams("an option block needs a proposal block as its parent")
        self._start(block.parent_id, block.height)
        staker, tx = self.pending
        self.pending = None
        end_staker(self.env.state, staker, commit)
        status = TxStatus.COMMITTED if commit else TxStatus.ABORTED
        self.env.state.txs[tx.id] = TxRecord(tx, status, block.height)
        return self._finish(block, block.time)
