"""The accepted chain: its blocks by number and hash, where each transaction landed, the head's
state, and the journal that brings them back after a restart."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from snowfield.chains.evm import records
from snowfield.chains.evm.atomic import AtomicLedger
from snowfield.chains.evm.execution.accounts import AccountFields
from snowfield.chains.evm.execution.state import StateReader, StateStore
from snowfield.chains.evm.model import Block, Header, Receipt, Tx, encode_block
from snowfield.chains.evm.precompiles.warp import SEND_WARP_MESSAGE
from snowfield.chains.evm.warp import WARP_ADDRESS, sent_message
from snowfield.chains.journal import Journal
from snowfield.crypto.hashing import keccak
from snowfield.formats.warp.message import UnsignedMessage


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


class ChainHistory:
    """Accepted blocks and the states after them; every change is journaled first.

    Readers may use it from any thread; changes come from the block producer and the dev
    controls, under their locks."""

    def __init__(
        self,
        chain_id: int,
        header_type: type[Header],
        journal: Journal,
        store: StateStore,
        atomic: AtomicLedger | None,
    ) -> None:
        self.chain_id = chain_id
        self.header_type = header_type
        self.journal = journal
        self.store = store
        # The C-Chain's atomic txs: which accepted block carried each (rebuilt on replay).
        self.atomic = atomic
        self.blocks: list[Block] = []
        self._by_hash: dict[bytes, Block] = {}
        self._tx_loc: dict[bytes, TxLocation] = {}
        # Unsigned Warp messages sent by accepted blocks, by message id (rebuilt on replay).
        self._warp_messages: dict[bytes, bytes] = {}
        # The state of `latest`: the head block's root, unless cheat codes edited it since.
        self._head_root = b""
        # Blocks built on an edited state: their parent's root is not their pre-state.
        self._pre_roots: dict[int, bytes] = {}
        self._head_reader: StateReader | None = None

    def replay(self) -> bool:
        """Rebuilds the chain from its journal; False when the journal is empty."""
        for record in self.journal.records():
            decoded = records.decode_any(record, self.chain_id, self.header_type)
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

    # -- reads -------------------------------------------------------------------------

    @property
    def head(self) -> Block:
        return self.blocks[-1]

    @property
    def head_root(self) -> bytes:
        return self._head_root

    def block(self, number: int) -> Block | None:
        return self.blocks[number] if 0 <= number < len(self.blocks) else None

    def block_by_hash(self, block_hash: bytes) -> Block | None:
        return self._by_hash.get(block_hash)

    def accepted_block(self, block_hash: bytes) -> bool:
        return block_hash in self._by_hash

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

    def ancestors(self, number: int) -> Callable[[], Iterator[bytes]]:
        """Hashes of the blocks before `number`, newest first (for BLOCKHASH)."""

        def walk() -> Iterator[bytes]:
            for n in range(number - 1, max(number - 257, -1), -1):
                yield self.blocks[n].hash

        return walk

    def warp_message(self, message_id: bytes) -> bytes | None:
        """The unsigned Warp message an accepted block sent with this id (None: none)."""
        return self._warp_messages.get(message_id)

    # -- changes -----------------------------------------------------------------------

    def accept(
        self,
        header: Header,
        txs: tuple[Tx, ...],
        receipts: tuple[Receipt, ...],
        accepted_ns: int,
        ext_data: bytes = b"",
    ) -> Block:
        """Journals the block with the state writes made since the last record, then links
        it as the head."""
        header_rlp = header.encode()  # once: the body, the hash and the record hold it
        body = encode_block(header, txs, ext_data, 0, header_rlp)
        block = Block(header, keccak(header_rlp), txs, receipts, body, accepted_ns, ext_data)
        # Invariant: a block is visible only after its record is journaled.
        self.journal.append(records.encode(block, self.store.drain(), header_rlp))
        self._link(block)
        return block

    def know_head_accounts(self, known: dict[bytes, AccountFields | None]) -> None:
        """Seeds the head's reader with accounts as the head block left them (the block
        builder has them at hand, so the next reads need not walk the trie)."""
        self._head_reader = self.store.reader(self._head_root, known)

    def set_head_state(self, root: bytes) -> None:
        """Makes `root` (its nodes written to the store) the state of `latest`."""
        self.journal.append(records.encode_edit(records.StateEdit(root, self.store.drain())))
        self._head_root = root

    def rewind(self, height: int, root: bytes) -> tuple[Block, ...]:
        """Cuts the chain back to block `height` with head state `root`; the blocks cut."""
        self.journal.append(records.encode_rewind(records.Rewind(height, root)))
        cut = tuple(self.blocks[height + 1 :])
        self._cut(height, root)
        return cut

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


def _sent_warp_messages(block: Block) -> Iterator[UnsignedMessage]:
    """The messages the block's SendWarpMessage logs carry."""
    for receipt in block.receipts:
        for log in receipt.logs:
            if log.address == WARP_ADDRESS and log.topics[:1] == (SEND_WARP_MESSAGE,):
                message = sent_message(log.data)
                if message is not None:
                    yield message
