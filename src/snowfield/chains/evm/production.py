"""Block production: transactions into the mempool, blocks built from it and accepted (the
locks that keep the head still while it happens are here)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial

from snowfield.chains.clock import NetworkClock
from snowfield.chains.evm.admission import TxValidator
from snowfield.chains.evm.atomic import AtomicLedger, Batch
from snowfield.chains.evm.environment import BlockEnvs
from snowfield.chains.evm.execution.edits import AccountEdit, apply_edits
from snowfield.chains.evm.execution.roots import ordered_root
from snowfield.chains.evm.execution.state import (
    BlockBuilder,
    BlockEnv,
    InvalidTx,
    apply_genesis,
    write_state,
)
from snowfield.chains.evm.execution.transfers import NeedsEvm, TransferBuilder
from snowfield.chains.evm.fees import BLACKHOLE
from snowfield.chains.evm.genesis import ChainConfig
from snowfield.chains.evm.headers import executed_header
from snowfield.chains.evm.history import ChainHistory
from snowfield.chains.evm.mempool import Mempool
from snowfield.chains.evm.model import ZERO_HASH, Block, Receipt, Tx
from snowfield.chains.evm.rules.base import HeaderFields
from snowfield.chains.evm.warp import WarpBlock
from snowfield.crypto.hashing import keccak
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.rlp import encode_bytes
from snowfield.formats.warp.predicate import encode_results

BlockListener = Callable[[Block], None]
Built = tuple[list[Tx], list[Receipt], list[Tx]]  # included, their receipts, to drop


@dataclass(frozen=True, slots=True)
class BlockParams:
    """What the next blocks are built with; cheat codes change it (not journaled: the
    blocks themselves record what they were built with)."""

    coinbase: bytes
    gas_limit: int
    base_fee: int | None = None  # the next block's only, then the fee rule again

    @classmethod
    def default(cls, config: ChainConfig) -> BlockParams:
        return cls(BLACKHOLE, config.gas_limit)


class BlockProducer:
    """Admits transactions to the mempool and builds, executes and accepts blocks from it.

    Thread-safe for one writer and many readers: `_write` guards the head and the mempool
    (held briefly); `_mining` serializes block production, so the head cannot move while a
    block is being built."""

    def __init__(
        self,
        config: ChainConfig,
        history: ChainHistory,
        envs: BlockEnvs,
        clock: NetworkClock,
        atomic: AtomicLedger | None,
        fast_transfers: bool,
    ) -> None:
        self.config = config
        self.rules = config.rules
        self.history = history
        self.store = history.store
        self.envs = envs
        self.clock = clock
        # The C-Chain's atomic txs (None on chains without them): pool, batches, accepted.
        self.atomic = atomic
        self.fast_transfers = fast_transfers
        self.validator = TxValidator(config.chain_id, config.rules)
        self.mempool = Mempool()
        self.params = BlockParams.default(config)
        self.next_timestamp: int | None = None
        self._write = threading.RLock()
        self._mining = threading.RLock()
        self._listeners: list[BlockListener] = []

    def subscribe(self, listener: BlockListener) -> None:
        """Calls `listener` (on the writer's thread) after each block is accepted."""
        self._listeners.append(listener)

    def create_genesis(self, timestamp: int) -> Block:
        """Builds and accepts block 0: the config's allocation, then the rule set's writes."""
        config, rules = self.config, self.rules
        alloc = [(a.address, a.balance, a.code, dict(a.storage)) for a in config.alloc]
        root = apply_genesis(self.store, alloc)
        root = write_state(self.store, root, lambda w: rules.on_block_start(w, None, 0, timestamp))
        header = rules.genesis_header(
            HeaderFields(
                parent_hash=ZERO_HASH,
                coinbase=bytes(20),
                state_root=root,
                tx_root=ordered_root([]),
                receipt_root=ordered_root([]),
                bloom=bytes(256),
                difficulty=0,
                number=0,
                gas_limit=config.gas_limit,
                gas_used=0,
                timestamp=timestamp,
                base_fee=config.min_base_fee,
            )
        )
        return self.history.accept(header, (), (), int(self.clock() * 1e9))

    # -- reads of the pending state ----------------------------------------------------

    def pending_nonce(self, address: bytes) -> int:
        history = self.history
        nonce = history.state_at(history.head).nonce(address)
        return nonce + self.mempool.pending_count(address, nonce)

    def next_base_fee(self, timestamp: int | None = None) -> int:
        """The next block's base fee; at `timestamp`, else now (EstimateNextBaseFee)."""
        if self.params.base_fee is not None:
            return self.params.base_fee
        head = self.history.head
        ts = timestamp if timestamp is not None else max(int(self.clock()), head.header.timestamp)
        return self.rules.next_base_fee(head.header, ts, self.history.state_at(head))

    # -- admission ---------------------------------------------------------------------

    def submit_decoded(self, tx: Tx) -> Tx:
        """Validates a signed transaction and adds it to the mempool (as geth's pool would)."""
        history = self.history
        known = tx.hash in self.mempool.by_hash or history.locate(tx.hash) is not None
        head = history.head
        self.validator.check(
            tx, known=known, gas_limit=self.params.gas_limit, timestamp=head.header.timestamp
        )
        with self._write:
            head = history.head
            state = history.state_at(head)
            self.validator.check_state(tx, state, self.next_base_fee(), head.header.timestamp)
            self.mempool.add(tx)
        return tx

    def is_cheap(self, tx: Tx) -> bool:
        """True when executing `tx` runs no EVM code: a plain transfer to a code-less account."""
        history = self.history
        return tx.is_plain_transfer and not history.state_at(history.head).has_code(tx.to or b"")

    def issue_atomic(self, data: bytes) -> ID:
        """Verifies a signed atomic tx against the head and queues it for the next block."""
        if self.atomic is None:
            raise InvalidParams("this chain has no atomic transactions")
        with self._write:
            head = self.history.head
            state = self.history.state_at(head)
            return self.atomic.issue(
                data,
                lambda a: (state.balance(a), state.nonce(a)),
                self.next_base_fee(),
                max(int(self.clock()), head.header.timestamp),
            )

    def drop_pending(self, tx_hash: bytes) -> bool:
        """Removes a transaction from the mempool; False when it is not there."""
        with self._write:
            tx = self.mempool.by_hash.get(tx_hash)
            if tx is not None:
                self.mempool.remove(tx)
            return tx is not None

    # -- locks -------------------------------------------------------------------------

    def try_lock(self) -> bool:
        """Takes the block-production lock if no one holds it; pair with `unlock`."""
        return self._mining.acquire(blocking=False)

    def unlock(self) -> None:
        self._mining.release()

    @contextmanager
    def quiesced(self) -> Iterator[None]:
        """Holds block production and admission: the head and the mempool stand still."""
        with self._mining, self._write:
            yield

    # -- building ----------------------------------------------------------------------

    def mine(self, *, allow_empty: bool = False, timestamp: int | None = None) -> Block | None:
        """Builds one block from the executable mempool transactions and accepts it.

        The state lock is held only to take the candidates and to accept the block, so
        transactions keep being admitted while a large block executes."""
        history = self.history
        with self._mining:
            with self._write:
                if not len(self.mempool) and not allow_empty and not self._atomic_pending():
                    return None
                parent = history.head
                if timestamp is not None:
                    self.clock.advance_to(timestamp)
                ts = timestamp if timestamp is not None else self._next_time()
                base_fee = self.next_base_fee(ts)
                params = self.params
                env = self.envs.for_block(parent, ts, base_fee, params.coinbase, params.gas_limit)
                state = history.state_at(parent)
                candidates = list(self.mempool.executable(state.nonce, base_fee))
            builder, (included, receipts, rejected) = self._build(parent, env, candidates)
            block = None
            batch = Batch()
            if included or allow_empty or self._atomic_pending():
                root = builder.finish()
                batch, root = self._atomic_batch(root, env)
                header = executed_header(
                    parent.header,
                    parent.hash,
                    env,
                    root,
                    included,
                    receipts,
                    builder.gas_used,
                    self.rules,
                    _encoded_results(env.warp),
                )
                if self.rules.block_fee_error(header, included, receipts) is not None:
                    # As subnet-evm's miner: the tips do not pay the block gas cost yet;
                    # the transactions wait for a later block (the cost falls with time).
                    included, receipts = [], []
                    allow_empty = False
                    batch = Batch()  # (custom-EVM rules only: no atomic txs there)
                if batch.txs:
                    header = replace(
                        header,
                        ext_data_hash=keccak(encode_bytes(batch.ext_data)),
                        ext_data_gas_used=batch.gas,
                    )
            with self._write:
                for tx in rejected:
                    self.mempool.remove(tx)
                if included or allow_empty or batch.txs:
                    ext_data = batch.ext_data if batch.txs else b""
                    block = history.accept(
                        header, tuple(included), tuple(receipts), time.time_ns(), ext_data
                    )
                    self._accepted(block, builder, batch)
        if block is not None:
            for listener in self._listeners:
                listener(block)
        return block

    def _next_time(self) -> int:
        if self.next_timestamp is not None:
            ts, self.next_timestamp = self.next_timestamp, None
            self.clock.advance_to(ts)  # the whole network moves to the block's time
            return ts
        return max(int(self.clock()), self.history.head.header.timestamp)

    def _build(
        self, parent: Block, env: BlockEnv, candidates: list[Tx]
    ) -> tuple[BlockBuilder | TransferBuilder, Built]:
        """Executes the candidates: on the account trie directly when the block holds only
        plain transfers to code-less accounts, else (or when that finds otherwise) with py-evm."""
        root = self.history.root_of(parent)
        prepare = partial(
            self.rules.on_block_start,
            parent_timestamp=parent.header.timestamp,
            number=env.number,
            timestamp=env.timestamp,
        )
        if self.rules.activations_between(parent.header.timestamp, env.timestamp):
            builder = BlockBuilder(self.store, root, env, fast_transfers=False, prepare=prepare)
            return builder, self._fill(builder, candidates)
        if self.fast_transfers and all(tx.is_plain_transfer for tx in candidates):
            transfers = TransferBuilder(self.store, self.history.state_at(parent), env)
            try:
                return transfers, self._fill(transfers, candidates)
            except NeedsEvm:
                pass  # nothing was written: the builder is dropped
        builder = BlockBuilder(self.store, root, env, fast_transfers=self.fast_transfers)
        return builder, self._fill(builder, candidates)

    def _fill(self, builder: BlockBuilder | TransferBuilder, candidates: list[Tx]) -> Built:
        """Executes candidates in order; returns (included, receipts, to drop from the pool).
        A sender whose transaction cannot run now keeps its later ones for another block."""
        included: list[Tx] = []
        receipts: list[Receipt] = []
        rejected: list[Tx] = []
        blocked: set[bytes] = set()
        view = builder if isinstance(builder, BlockBuilder) else builder.reader
        for tx in candidates:
            if tx.sender in blocked:
                continue
            if self.rules.tx_error(view, tx.sender, builder.env.timestamp) is not None:
                rejected.append(tx)
                continue
            try:
                applied = builder.apply(tx)
            except InvalidTx as exc:
                blocked.add(tx.sender)
                if "gas limit" not in str(exc) and "base fee" not in str(exc):
                    rejected.append(tx)
                continue
            included.append(tx)
            receipts.append(applied.receipt)
        return included, receipts, rejected

    def _accepted(
        self, block: Block, builder: BlockBuilder | TransferBuilder, batch: Batch
    ) -> None:
        """What follows a built block's acceptance: its atomic txs recorded, the one-block
        base fee forgotten, the head's accounts seeded, the pool cleared of what it holds."""
        if block.ext_data and self.atomic is not None:
            self.atomic.accepted(block.number, batch)
        if self.params.base_fee is not None:
            self.params = replace(self.params, base_fee=None)
        if isinstance(builder, TransferBuilder) and not batch.txs:
            self.history.know_head_accounts(builder.accounts_after())
        for tx in block.txs:
            self.mempool.remove(tx)
        state = self.history.state_at(block)
        for sender in {tx.sender for tx in block.txs}:
            # Replacements admitted while the block was built may now be stale.
            if self.mempool.has_sender(sender):
                self.mempool.drop_stale(sender, state.nonce(sender))

    def _atomic_pending(self) -> bool:
        return self.atomic is not None and self.atomic.has_pending()

    def _atomic_batch(self, root: bytes, env: BlockEnv) -> tuple[Batch, bytes]:
        """The pool's atomic txs that verify on the state at `root` (after the block's EVM
        txs, as coreth applies them), and the root with their balance and nonce writes."""
        if not self._atomic_pending():
            return Batch(), root
        assert self.atomic is not None
        reader = self.store.reader(root)
        batch = self.atomic.build(
            lambda a: (reader.balance(a), reader.nonce(a)), env.base_fee, env.timestamp
        )
        if not batch.txs:
            return batch, root
        edits = [AccountEdit(a, balance=b, nonce=n) for a, (b, n) in batch.accounts.items()]
        return batch, apply_edits(self.store, root, edits)


def _encoded_results(warp: WarpBlock | None) -> bytes | None:
    if warp is None or not warp.results:
        return None
    return encode_results(warp.header_results())
