"""An EVM chain of the devnet: accepts transactions, builds and journals blocks, answers reads."""

from __future__ import annotations

import threading
import time
from collections import ChainMap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from snowfield.chains.clock import NetworkClock, check_time
from snowfield.chains.evm import records
from snowfield.chains.evm.atomic import AtomicLedger, Batch
from snowfield.chains.evm.execution.accesslist import (
    AccessListResult,
    AccessListState,
    create_access_list,
)
from snowfield.chains.evm.execution.accounts import AccountFields
from snowfield.chains.evm.execution.call import (
    TX_GAS,
    CallArgs,
    CallLimits,
    execute_call,
    gas_used,
)
from snowfield.chains.evm.execution.deadline import CallState, CallTimeout, deadline, go_duration
from snowfield.chains.evm.execution.edits import AccountEdit, apply_edits
from snowfield.chains.evm.execution.hooks import silence
from snowfield.chains.evm.execution.overrides import (
    NO_BLOCK_OVERRIDES,
    BlockOverrides,
    StateOverrides,
    apply_state_overrides,
)
from snowfield.chains.evm.execution.roots import ordered_root
from snowfield.chains.evm.execution.state import (
    BlockBuilder,
    BlockEnv,
    InvalidTx,
    StateClass,
    StateReader,
    StateStore,
    apply_genesis,
    error_text,
    is_revert,
    output_of,
    revert_reason,
    write_state,
)
from snowfield.chains.evm.execution.tracing import Tracer, TxStart
from snowfield.chains.evm.execution.transactions import decode_tx, intrinsic_gas
from snowfield.chains.evm.execution.transfers import NeedsEvm, TransferBuilder
from snowfield.chains.evm.fees import BLACKHOLE, SUGGESTED_TIP
from snowfield.chains.evm.genesis import ChainConfig
from snowfield.chains.evm.headers import executed_header
from snowfield.chains.evm.limits import check_pool_sizes
from snowfield.chains.evm.mempool import Mempool
from snowfield.chains.evm.model import (
    ZERO_HASH,
    Block,
    Header,
    Receipt,
    Tx,
    encode_block,
)
from snowfield.chains.evm.precompiles.warp import SEND_WARP_MESSAGE
from snowfield.chains.evm.rules.base import HeaderFields
from snowfield.chains.evm.simulation import SimBlock, SimOptions, SimulatedBlock, Simulator
from snowfield.chains.evm.state_dump import check_state
from snowfield.chains.evm.warp import (
    WARP_ADDRESS,
    SnowContext,
    WarpBlock,
    extra_intrinsic_gas,
    sent_message,
    verify_message,
)
from snowfield.chains.journal import Journal
from snowfield.crypto.hashing import keccak
from snowfield.errors import Conflict, ExecutionReverted, InvalidParams, NotFound
from snowfield.formats.ids import ID
from snowfield.formats.rlp import encode_bytes
from snowfield.formats.warp.message import Message, UnsignedMessage
from snowfield.formats.warp.predicate import decode_results, encode_results

BlockListener = Callable[[Block], None]
DEFAULT_CALL_LIMITS = CallLimits()
RewindListener = Callable[[int, tuple[Block, ...]], None]


@dataclass(frozen=True, slots=True)
class BlockParams:
    """What the next blocks are built with; cheat codes change it (not journaled: the
    blocks themselves record what they were built with)."""

    coinbase: bytes
    gas_limit: int
    base_fee: int | None = None  # the next block's only, then the fee rule again


@dataclass(frozen=True, slots=True)
class TxLocation:
    block: Block
    index: int

    @property
    def tx(self) -> Tx:
        return self.block.txs[self.index]

    @property
    def receipt(self) -> Receipt:
        return self.block.receipts[self.index]


# Transactions without a chain id the node accepts anyway, as coreth's
# allow-unprotected-tx-hashes does: keyless deployments that must land at one address on every
# chain. The deterministic deployment proxy (coreth's default), and the ICM messenger's
# (snowfield.workload.icm.KEYLESS; a test pins the hash to it).
ALLOWED_UNPROTECTED_TX_HASHES = frozenset(
    bytes.fromhex(h)
    for h in (
        "fefb2da535e927b85fe68eb81cb2e4a5827c905f78381a01ef2322aa9b0aee8e",
        "4e2ab3d833d6294a952825e2d06d40abfd2a3bfd406a609142e653b18fd48e3b",
    )
)


class EvmChain:
    """The state machine of one EVM chain; thread-safe for one writer and many readers."""

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
        # Who the chain is on the network and the validators Warp messages verify against.
        self.snow = snow if snow is not None else SnowContext()
        # Unsigned Warp messages sent by accepted blocks, by message id (rebuilt on replay).
        self._warp_messages: dict[bytes, bytes] = {}
        self.rules = config.rules
        # The C-Chain's atomic txs (None on chains without them): pool, batches, accepted.
        self.atomic = atomic
        self.call_limits = call_limits
        self.fast_transfers = fast_transfers
        self.journal = journal
        # The network's clock when hosted by a node; a private one (from `clock`) otherwise.
        self.clock = clock if isinstance(clock, NetworkClock) else NetworkClock(clock)
        self.store = StateStore()
        self.mempool = Mempool()
        self.blocks: list[Block] = []
        self._by_hash: dict[bytes, Block] = {}
        self._tx_loc: dict[bytes, TxLocation] = {}
        self._listeners: list[BlockListener] = []
        self._rewind_listeners: list[RewindListener] = []
        # The state of `latest`: the head block's root, unless cheat codes edited it since.
        self._head_root = b""
        # Blocks built on an edited state: their parent's root is not their pre-state.
        self._pre_roots: dict[int, bytes] = {}
        self.params = BlockParams(BLACKHOLE, config.gas_limit)
        # _write guards the head and the mempool (held briefly); _mining serializes block
        # production, so the head cannot move while a block is being built.
        self._write = threading.RLock()
        self._mining = threading.RLock()
        self._head_reader: StateReader | None = None
        self.next_timestamp: int | None = None
        if not self._replay():
            self._create_genesis(genesis_time if genesis_time is not None else int(clock()))

    # -- lifecycle ---------------------------------------------------------------------

    def _replay(self) -> bool:
        for record in self.journal.records():
            decoded = records.decode_any(record, self.config.chain_id, self.rules.header_type)
            if isinstance(decoded, records.StateEdit):
                self.store.load(decoded.writes)
                self._head_root = decoded.root
            elif isinstance(decoded, records.Rewind):
                self._cut(decoded.height, decoded.root)
            else:
                self.store.load(decoded[1])
                self._link(decoded[0])
                if self.atomic is not None and decoded[0].ext_data:
                    self.atomic.index(decoded[0].number, decoded[0].ext_data)
        return bool(self.blocks)

    def _create_genesis(self, timestamp: int) -> None:
        alloc = [(a.address, a.balance, a.code, dict(a.storage)) for a in self.config.alloc]
        root = apply_genesis(self.store, alloc)
        root = write_state(
            self.store, root, lambda w: self.rules.on_block_start(w, None, 0, timestamp)
        )
        header = self.rules.genesis_header(
            HeaderFields(
                parent_hash=ZERO_HASH,
                coinbase=bytes(20),
                state_root=root,
                tx_root=ordered_root([]),
                receipt_root=ordered_root([]),
                bloom=bytes(256),
                difficulty=0,
                number=0,
                gas_limit=self.config.gas_limit,
                gas_used=0,
                timestamp=timestamp,
                base_fee=self.config.min_base_fee,
            )
        )
        self._accept(header, (), (), int(self.clock() * 1e9))

    def subscribe(self, listener: BlockListener) -> None:
        """Calls `listener` (on the writer's thread) after each block is accepted."""
        self._listeners.append(listener)

    def on_rewind(self, listener: RewindListener) -> None:
        """Calls `listener(height, cut blocks)` after the chain is cut back to `height`."""
        self._rewind_listeners.append(listener)

    # -- reads -------------------------------------------------------------------------

    @property
    def head(self) -> Block:
        return self.blocks[-1]

    def block(self, number: int) -> Block | None:
        return self.blocks[number] if 0 <= number < len(self.blocks) else None

    def block_by_hash(self, block_hash: bytes) -> Block | None:
        return self._by_hash.get(block_hash)

    def locate(self, tx_hash: bytes) -> TxLocation | None:
        return self._tx_loc.get(tx_hash)

    def root_of(self, block: Block) -> bytes:
        """The state root after `block`: for the head, as cheat codes may have left it."""
        return self._head_root if block is self.head else block.header.state_root

    def pre_root(self, block: Block) -> bytes:
        """The state root `block` was built on."""
        found = self._pre_roots.get(block.number)
        return found if found is not None else self.blocks[block.number - 1].header.state_root

    def state_at(self, block: Block) -> StateReader:
        if block is self.head:
            reader = self._head_reader
            if reader is None or reader.root != self._head_root:
                reader = self._head_reader = self.store.reader(self._head_root)
            return reader
        return self.store.reader(block.header.state_root)

    def pending_nonce(self, address: bytes) -> int:
        nonce = self.state_at(self.head).nonce(address)
        return nonce + self.mempool.pending_count(address, nonce)

    def next_base_fee(self, timestamp: int | None = None) -> int:
        """The next block's base fee; at `timestamp`, else now (EstimateNextBaseFee)."""
        if self.params.base_fee is not None:
            return self.params.base_fee
        head = self.head
        ts = timestamp if timestamp is not None else max(int(self.clock()), head.header.timestamp)
        return self.rules.next_base_fee(head.header, ts, self.state_at(head))

    def suggested_tip(self) -> int:
        return SUGGESTED_TIP

    def ancestors(self, number: int) -> Callable[[], Iterator[bytes]]:
        """Hashes of the blocks before `number`, newest first (for BLOCKHASH)."""

        def walk() -> Iterator[bytes]:
            for n in range(number - 1, max(number - 257, -1), -1):
                yield self.blocks[n].hash

        return walk

    def env_for(
        self,
        parent: Block,
        timestamp: int,
        base_fee: int,
        predicate_results: dict[bytes, frozenset[int]] | None = None,
    ) -> BlockEnv:
        """The environment of a block built on `parent`; its Warp predicates are verified
        now, unless `predicate_results` (a replay's, from its header) decide them."""
        state, parent_ts = self.state_at(parent), parent.header.timestamp
        return BlockEnv(
            number=parent.number + 1,
            timestamp=timestamp,
            coinbase=self.rules.coinbase(self.params.coinbase, state, parent_ts),
            gas_limit=self.rules.gas_limit(self.params.gas_limit, state, parent_ts),
            base_fee=base_fee,
            chain_id=self.config.chain_id,
            prev_hashes=self.ancestors(parent.number + 1),
            stateful=self.rules.precompiles(timestamp),
            create_check=self.rules.create_check(timestamp),
            warp=self._warp_block(timestamp, predicate_results),
        )

    def _warp_block(
        self, timestamp: int, results: dict[bytes, frozenset[int]] | None
    ) -> WarpBlock | None:
        config = self.rules.warp_config(timestamp)
        if config is None:
            return None
        if results is not None:
            return WarpBlock(self.snow, results=results)
        snow = self.snow
        # The block verifies at the P-Chain height it is built at (the proposer's).
        try:
            height = snow.validators.p_chain_height() if snow.validators is not None else 0
        except InvalidParams:  # no P-Chain (yet): nothing verifies
            snow = replace(snow, validators=None)
            height = 0

        def verify(message: Message) -> bool:
            return verify_message(message, snow, config, height) is None

        return WarpBlock(snow, verify=verify)

    def warp_message(self, message_id: bytes) -> bytes | None:
        """The unsigned Warp message an accepted block sent with this id (None: none)."""
        return self._warp_messages.get(message_id)

    def accepted_block(self, block_hash: bytes) -> bool:
        return block_hash in self._by_hash

    # -- transactions ------------------------------------------------------------------

    def submit(self, raw: bytes) -> Tx:
        """Validates a signed transaction and adds it to the mempool (as geth's pool would)."""
        return self.submit_decoded(decode_tx(raw))

    def submit_decoded(self, tx: Tx) -> Tx:
        self.check(tx)
        with self._write:
            self._check_against_state(tx)
            refused = self.rules.tx_error(
                self.state_at(self.head), tx.sender, self.head.header.timestamp
            )
            if refused is not None:
                raise InvalidParams(refused)
            self.mempool.add(tx)
        return tx

    def is_cheap(self, tx: Tx) -> bool:
        """True when executing `tx` runs no EVM code: a plain transfer to a code-less account."""
        return tx.is_plain_transfer and not self.state_at(self.head).has_code(tx.to or b"")

    def try_lock(self) -> bool:
        """Takes the block-production lock if no one holds it; pair with `unlock`."""
        return self._mining.acquire(blocking=False)

    def unlock(self) -> None:
        self._mining.release()

    def check(self, tx: Tx) -> None:
        """Stateless checks: chain id, known, gas bounds, fee fields."""
        if tx.chain_id is None and tx.hash not in ALLOWED_UNPROTECTED_TX_HASHES:
            raise InvalidParams("only replay-protected (EIP-155) transactions allowed over RPC")
        if tx.chain_id is not None and tx.chain_id != self.config.chain_id:
            raise InvalidParams(
                f"invalid chain id for signer: have {tx.chain_id} want {self.config.chain_id}"
            )
        if tx.hash in self.mempool.by_hash or tx.hash in self._tx_loc:
            raise Conflict("already known")
        check_pool_sizes(tx.to is None, len(tx.data), len(tx.raw))
        if tx.gas > self.params.gas_limit:
            raise InvalidParams("exceeds block gas limit")
        needed = intrinsic_gas(tx)
        if tx.access_list and self.rules.warp_config(self.head.header.timestamp) is not None:
            needed += extra_intrinsic_gas(tx.access_list)  # InvalidParams when malformed
        if tx.gas < needed:
            raise InvalidParams(f"intrinsic gas too low: gas {tx.gas}, minimum needed {needed}")
        if tx.max_priority_fee > tx.max_fee:
            raise InvalidParams(
                f"max priority fee per gas higher than max fee per gas: address "
                f"0x{tx.sender.hex()}, maxPriorityFeePerGas: {tx.max_priority_fee}, "
                f"maxFeePerGas: {tx.max_fee}"
            )

    def _check_against_state(self, tx: Tx) -> None:
        state = self.state_at(self.head)
        nonce = state.nonce(tx.sender)
        if tx.nonce < nonce:
            raise InvalidParams(f"nonce too low: next nonce {nonce}, tx nonce {tx.nonce}")
        base_fee = self.next_base_fee()
        if tx.max_fee < base_fee:
            raise InvalidParams(
                f"max fee per gas less than block base fee: address 0x{tx.sender.hex()}, "
                f"maxFeePerGas: {tx.max_fee}, baseFee: {base_fee}"
            )
        have = state.balance(tx.sender)
        want = tx.gas * tx.max_fee + tx.value
        if have < want:
            raise InvalidParams(
                f"insufficient funds for gas * price + value: address 0x{tx.sender.hex()} "
                f"have {have} want {want}"
            )

    def issue_atomic(self, data: bytes) -> ID:
        """Verifies a signed atomic tx against the head and queues it for the next block."""
        if self.atomic is None:
            raise InvalidParams("this chain has no atomic transactions")
        with self._write:
            state = self.state_at(self.head)
            return self.atomic.issue(
                data,
                lambda a: (state.balance(a), state.nonce(a)),
                self.next_base_fee(),
                max(int(self.clock()), self.head.header.timestamp),
            )

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

    # -- block production --------------------------------------------------------------

    def set_next_timestamp(self, timestamp: int) -> None:
        check_time(timestamp)
        if timestamp < self.head.header.timestamp:
            raise InvalidParams(
                f"timestamp {timestamp} is before the latest block's {self.head.header.timestamp}"
            )
        self.next_timestamp = timestamp

    @property
    def time_offset(self) -> int:
        """The network clock's offset from wall time (evm_increaseTime's total)."""
        return self.clock.offset

    @time_offset.setter
    def time_offset(self, seconds: int) -> None:
        self.clock.offset = seconds

    def increase_time(self, seconds: int) -> int:
        return self.clock.increase(seconds)

    def _next_time(self) -> int:
        if self.next_timestamp is not None:
            ts, self.next_timestamp = self.next_timestamp, None
            self.clock.advance_to(ts)  # the whole network moves to the block's time
            return ts
        return max(int(self.clock()), self.head.header.timestamp)

    def mine(self, *, allow_empty: bool = False, timestamp: int | None = None) -> Block | None:
        """Builds one block from the executable mempool transactions and accepts it.

        The state lock is held only to take the candidates and to accept the block, so
        transactions keep being admitted while a large block executes."""
        with self._mining:
            with self._write:
                if not len(self.mempool) and not allow_empty and not self._atomic_pending():
                    return None
                parent = self.head
                if timestamp is not None:
                    self.clock.advance_to(timestamp)
                ts = timestamp if timestamp is not None else self._next_time()
                base_fee = self.next_base_fee(ts)
                env = self.env_for(parent, ts, base_fee)
                candidates = list(self.mempool.executable(self.state_at(parent).nonce, base_fee))
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
                    known = (
                        builder.accounts_after()
                        if isinstance(builder, TransferBuilder) and not batch.txs
                        else None
                    )
                    block = self._accept(
                        header, tuple(included), tuple(receipts), time.time_ns(), known, batch
                    )
        if block is not None:
            for listener in self._listeners:
                listener(block)
        return block

    def _build(
        self, parent: Block, env: BlockEnv, candidates: list[Tx]
    ) -> tuple[BlockBuilder | TransferBuilder, tuple[list[Tx], list[Receipt], list[Tx]]]:
        """Executes the candidates: on the account trie directly when the block holds only
        plain transfers to code-less accounts, else (or when that finds otherwise) with py-evm."""
        root = self.root_of(parent)
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
            transfers = TransferBuilder(self.store, self.state_at(parent), env)
            try:
                return transfers, self._fill(transfers, candidates)
            except NeedsEvm:
                pass  # nothing was written: the builder is dropped
        builder = BlockBuilder(self.store, root, env, fast_transfers=self.fast_transfers)
        return builder, self._fill(builder, candidates)

    def _fill(
        self, builder: BlockBuilder | TransferBuilder, candidates: list[Tx]
    ) -> tuple[list[Tx], list[Receipt], list[Tx]]:
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

    def _accept(
        self,
        header: Header,
        txs: tuple[Tx, ...],
        receipts: tuple[Receipt, ...],
        accepted_ns: int,
        known: dict[bytes, AccountFields | None] | None = None,
        batch: Batch | None = None,
    ) -> Block:
        """Journals and links the block; `known` holds accounts as they are after it;
        `batch` is its atomic txs (its extra data)."""
        header_rlp = header.encode()  # once: the body, the hash and the record hold it
        ext_data = batch.ext_data if batch is not None and batch.txs else b""
        body = encode_block(header, txs, ext_data, 0, header_rlp)
        block = Block(header, keccak(header_rlp), txs, receipts, body, accepted_ns, ext_data)
        # Invariant: a block is visible only after its record is journaled.
        self.journal.append(records.encode(block, self.store.drain(), header_rlp))
        self._link(block)
        if ext_data and self.atomic is not None and batch is not None:
            self.atomic.accepted(block.number, batch)
        if self.params.base_fee is not None:
            self.params = replace(self.params, base_fee=None)
        if known is not None:
            self._head_reader = self.store.reader(header.state_root, known)
        for tx in txs:
            self.mempool.remove(tx)
        state = self.state_at(block)
        for sender in {tx.sender for tx in txs}:
            # Replacements admitted while the block was built may now be stale.
            if self.mempool.has_sender(sender):
                self.mempool.drop_stale(sender, state.nonce(sender))
        return block

    def _link(self, block: Block) -> None:
        if self.blocks and self._head_root != self.head.header.state_root:
            self._pre_roots[block.number] = self._head_root
        self._head_root = block.header.state_root
        self._by_hash[block.hash] = block
        for index, tx in enumerate(block.txs):
            self._tx_loc[tx.hash] = TxLocation(block, index)
        self.blocks.append(block)
        for message in _sent_warp_messages(block):
            self._warp_messages[message.id.raw] = message.encode()

    # -- cheat codes -------------------------------------------------------------------

    def edit_state(self, edits: list[AccountEdit]) -> None:
        """Writes accounts into the head's state, journaled so a restart finds them."""
        with self._mining, self._write:
            self._set_head_state(apply_edits(self.store, self._head_root, edits))

    def load_nodes(self, root: bytes, nodes: dict[bytes, bytes]) -> None:
        """Makes the state at `root` (whose trie nodes and code are `nodes`) the head's."""
        with self._mining, self._write:
            check_state(ChainMap(nodes, self.store.recording.data), root)
            for key, value in nodes.items():
                self.store.recording[key] = value
            self._set_head_state(root)

    @contextmanager
    def quiesced(self) -> Iterator[None]:
        """Holds block production and admission: the head and the mempool stand still."""
        with self._mining, self._write:
            yield

    def drop_pending(self, tx_hash: bytes) -> bool:
        """Removes a transaction from the mempool; False when it is not there."""
        with self._write:
            tx = self.mempool.by_hash.get(tx_hash)
            if tx is not None:
                self.mempool.remove(tx)
            return tx is not None

    def reset_block_params(self) -> None:
        """Forgets what cheat codes set for the next blocks (coinbase, gas limit, time)."""
        self.params = BlockParams(BLACKHOLE, self.config.gas_limit)
        self.time_offset = 0
        self.next_timestamp = None

    def _set_head_state(self, root: bytes) -> None:
        self.journal.append(records.encode_edit(records.StateEdit(root, self.store.drain())))
        self._head_root = root

    def rewind(self, height: int, root: bytes | None = None) -> None:
        """Cuts the chain back to block `height`, with head state `root` (default: that
        block's); journaled, so a restart does not bring the cut blocks back."""
        with self._mining, self._write:
            if any(block.ext_data for block in self.blocks[height + 1 :]):
                # Their UTXOs moved in the network's shared memory, which other chains have
                # seen (and may have spent): the EVM state alone cannot go back.
                raise InvalidParams(
                    f"cannot rewind to block {height}: later blocks hold atomic transactions"
                )
            root = root if root is not None else self.blocks[height].header.state_root
            self.journal.append(records.encode_rewind(records.Rewind(height, root)))
            cut = tuple(self.blocks[height + 1 :])
            self._cut(height, root)
        for listener in self._rewind_listeners:
            listener(height, cut)

    def _cut(self, height: int, root: bytes) -> None:
        for block in self.blocks[height + 1 :]:
            self._by_hash.pop(block.hash, None)
            for message in _sent_warp_messages(block):
                self._warp_messages.pop(message.id.raw, None)
            self._pre_roots.pop(block.number, None)
            for tx in block.txs:
                self._tx_loc.pop(tx.hash, None)
        del self.blocks[height + 1 :]
        self._head_root = root
        if self.atomic is not None:
            self.atomic.forget(height)

    # -- execution without effects -------------------------------------------------------

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
            run_gas = gas or self.call_limits.call_gas(args.gas)
            computation = self._run(args, block, run_gas, prelude)
        if computation.is_error:
            raise _execution_error(computation)
        return output_of(computation)

    def estimate_gas(self, args: CallArgs, block: Block, prelude: CallPrelude | None = None) -> int:
        """Smallest gas limit with which the call succeeds (binary search, as geth), searched
        below the request's gas (else the block's limit) and the RPC gas cap."""
        cap = args.gas if args.gas and args.gas >= TX_GAS else block.header.gas_limit
        cap = min(cap, self.call_limits.gas_cap) if self.call_limits.gas_cap else cap
        with self._time_limited():
            return self._search_gas(args, block, cap, prelude)

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

    @contextmanager
    def _time_limited(self) -> Iterator[None]:
        timeout = self.call_limits.timeout
        try:
            with deadline(timeout):
                yield
        except CallTimeout:
            raise InvalidParams(f"execution aborted (timeout = {go_duration(timeout)})") from None

    def _succeeds(
        self, args: CallArgs, block: Block, gas: int, prelude: CallPrelude | None
    ) -> bool:
        try:
            return not self._run(args, block, gas, prelude).is_error
        except InvalidParams:  # below intrinsic gas
            return False

    def create_access_list(self, args: CallArgs, block: Block) -> AccessListResult:
        """eth_createAccessList on `block`'s state: the accounts and slots the call touches."""
        nonce = args.nonce if args.nonce is not None else self.state_at(block).nonce(args.sender)

        def run(traced: CallArgs, gas: int) -> Any:
            return self._run(traced, block, gas, state_class=AccessListState)

        with self._time_limited():
            return create_access_list(run, args, self.call_limits.call_gas(args.gas), nonce)

    def _run(
        self,
        args: CallArgs,
        block: Block,
        gas: int,
        prelude: CallPrelude | None = None,
        state_class: StateClass = CallState,
    ) -> Any:
        self._check_chain_id(args)
        env = self.call_env(block)
        prepare = None
        if prelude is not None:
            env = prelude.block.apply(env)
            prepare = partial(apply_state_overrides, overrides=prelude.state)
        root = self.root_of(block)
        return execute_call(self.store, root, env, args, gas, state_class, prepare)

    def _check_chain_id(self, args: CallArgs) -> None:
        if args.chain_id is not None and args.chain_id != self.config.chain_id:
            raise InvalidParams(
                f"chainId does not match node's (have={args.chain_id}, want={self.config.chain_id})"
            )

    def call_env(self, block: Block) -> BlockEnv:
        """The environment a call on `block`'s state sees: the block's own, with no base fee
        charged (as geth)."""
        return BlockEnv(
            number=block.number,
            timestamp=block.header.timestamp,
            coinbase=block.header.coinbase,
            gas_limit=block.header.gas_limit,
            base_fee=0,
            chain_id=self.config.chain_id,
            prev_hashes=self.ancestors(block.number),
            stateful=self.rules.precompiles(block.header.timestamp),
            create_check=self.rules.create_check(block.header.timestamp),
            warp=self.call_warp(block.header.timestamp),
        )

    def call_warp(self, timestamp: int) -> WarpBlock | None:
        """A call's Warp context: the chain's ids; predicates count as verified."""
        return WarpBlock(self.snow) if self.rules.warp_config(timestamp) is not None else None

    # -- tracing -----------------------------------------------------------------------

    def trace_block(self, block: Block, tracer: Tracer, only: int | None = None) -> list[Any]:
        """Replays an accepted block with every transaction (or the one at index `only`)
        under `tracer`; the results in order."""
        if block.number == 0:
            return []
        parent = self.blocks[block.number - 1]
        results = _header_results(self.rules.predicate_results(block.header))
        env = replace(
            self.env_for(parent, block.header.timestamp, block.header.base_fee, results),
            coinbase=block.header.coinbase,
            gas_limit=block.header.gas_limit,
        )
        builder = BlockBuilder(
            self.store.scratch(),
            self.pre_root(block),
            env,
            tracer.state_class,
            fast_transfers=False,
            prepare=partial(
                self.rules.on_block_start,
                parent_timestamp=parent.header.timestamp,
                number=block.number,
                timestamp=block.header.timestamp,
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
        loc = self.locate(tx_hash)
        if loc is None:
            raise NotFound(f"transaction 0x{tx_hash.hex()} not found")
        return self.trace_block(loc.block, tracer, only=loc.index)[0]

    def trace_call(self, args: CallArgs, block: Block, tracer: Tracer, pre: CallPrelude) -> Any:
        """debug_traceCall: the call on `block`'s state, with overrides, under `tracer`."""
        self._check_chain_id(args)
        env = pre.block.apply(self.call_env(block))
        gas = self.call_limits.call_gas(args.gas)
        started: list[tuple[Any, Any]] = []

        def prepare(state: Any) -> None:
            apply_state_overrides(state, pre.state)
            start = TxStart(args.sender, args.to, gas, env.coinbase)
            started.append((state, tracer.start(state, start)))

        with self._time_limited():
            computation = execute_call(
                self.store, self.root_of(block), env, args, gas, tracer.state_class, prepare
            )
            ((state, trace),) = started
            return trace.result(state, computation, gas_used(gas, computation))

    def simulate(
        self, base: Block, blocks: Sequence[SimBlock], options: SimOptions
    ) -> list[SimulatedBlock]:
        """eth_simulateV1: `blocks` of calls simulated on top of `base`, within the RPC time
        limit; nothing is kept."""
        with self._time_limited():
            return Simulator(self, base, options).run(blocks)


@dataclass(frozen=True, slots=True)
class CallPrelude:
    """What a call changes before it runs: geth's state and block overrides."""

    state: StateOverrides = field(default_factory=dict)
    block: BlockOverrides = NO_BLOCK_OVERRIDES


def _sent_warp_messages(block: Block) -> Iterator[UnsignedMessage]:
    """The messages the block's SendWarpMessage logs carry."""
    for receipt in block.receipts:
        for log in receipt.logs:
            if log.address == WARP_ADDRESS and log.topics[:1] == (SEND_WARP_MESSAGE,):
                message = sent_message(log.data)
                if message is not None:
                    yield message


def _encoded_results(warp: WarpBlock | None) -> bytes | None:
    if warp is None or not warp.results:
        return None
    return encode_results(warp.header_results())


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
