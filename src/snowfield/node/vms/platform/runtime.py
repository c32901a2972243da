"""The P-Chain at work: issued txs built into blocks on the event loop, each accepted block
wrapped in its ProposerVM container, journaled, and announced when it creates a chain."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from snowfield.chains.journal import Journal
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.records import Blockchain
from snowfield.crypto.staking import StakingIdentity
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.platform.txs import Tx
from snowfield.node.vms.platform.blocks import (
    PContainer,
    PlatformBlocks,
    decode_record,
    encode_record,
)

log = logging.getLogger(__name__)
Proposer = Callable[[int], StakingIdentity | None]  # the signer of the block at a height


# The wall-clock timer's period: due staker ends and fee exhaustion are issued within it.
TIMER_SECONDS = 1.0
BATCH_WAITS = 8  # loop turns a pending block waits for more txs while they keep coming


class PlatformRuntime:
    """The P-Chain at work: every write runs on the event loop, so calls never interleave;
    each issued tx is built into a block at once (clients see `Committed` on their next poll).
    Each accepted block is wrapped in its ProposerVM container (signed by `proposer`),
    journaled, and kept in `blocks`; a moved network clock or the timer issues what is due."""

    def __init__(
        self,
        chain: PlatformChain,
        journal: Journal,
        clock: Callable[[], float] = time.time,
        proposer: Proposer = lambda _height: None,
    ) -> None:
        self.chain = chain
        self.journal = journal
        self._clock = clock
        self._proposer = proposer
        state = chain.state
        self.blocks = PlatformBlocks(state.last_block_id, state.genesis_block, state.timestamp)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.Task[None] | None = None
        self._pending: asyncio.Future[None] | None = None
        self._waits = 0
        for record in journal.records():
            self._replay(record)
        # Told of each blockchain a CreateChainTx adds once its block is accepted (the node
        # starts the ones it hosts); the replayed ones are in `chain.blockchains()`.
        self.chain_listeners: list[Callable[[Blockchain], None]] = []
        self._known_chains = set(chain.state.blockchains)

    def _replay(self, record: bytes) -> None:
        accepted_ns, data, wrapped = decode_record(record)
        if not wrapped:  # an older journal's bare block: wrap it as its builder would have
            block = self.chain.apply_block(data)
            self.blocks.add(self.blocks.wrap(block, None, block.time * 1_000_000_000))
            return
        wrapper = self.blocks.parse(data)
        block = self.chain.apply_block(wrapper.inner_block)
        container = PContainer(
            wrapper.id, block.id, block.height, block.time, accepted_ns or 0, data, block.data
        )
        self.blocks.add(container)

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.advance()
        self._timer = asyncio.create_task(self._tick())

    async def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            await asyncio.gather(self._timer, return_exceptions=True)
            self._timer = None
        self._loop = None

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TIMER_SECONDS)
            try:
                self.advance()
            except Exception:  # a failed build must not stop the timer; the next tick retries
                log.exception("P-Chain block timer failed")

    def clock_moved(self) -> None:
        """The network clock moved (maybe on another thread): issue what is now due on the
        event loop, ahead of the reply to the call that moved it."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.advance)

    def now(self) -> int:
        return int(self._clock())

    def advance(self) -> None:
        """Builds whatever is due by now: staker ends, time moves, the mempool's txs."""
        for block in self.chain.build_block(self.now()):
            container = self.blocks.wrap(
                block, self._proposer(block.height), int(self._clock() * 1_000_000_000)
            )
            self.journal.append(encode_record(container))
            self.blocks.add(container)
        if len(self.chain.state.blockchains) != len(self._known_chains):
            self._announce_chains()

    def _announce_chains(self) -> None:
        for blockchain in self.chain.blockchains():
            if blockchain.blockchain_id not in self._known_chains:
                self._known_chains.add(blockchain.blockchain_id)
                for listener in self.chain_listeners:
                    listener(blockchain)

    def issue(self, tx: Tx) -> ID:
        """Verifies a tx and builds its block at once (callers off the event loop: the boot)."""
        tx_id = self.chain.issue_tx(tx, self.now())
        self.advance()
        return tx_id

    async def issue_in_block(self, tx: Tx) -> ID:
        """Verifies a tx and answers once its block is accepted. The block is built in the next
        loop turn with every tx issued in this one: concurrent clients share blocks, as a real
        P-Chain's mempool fills one block with several txs, and each reply still follows the
        acceptance (a client reads `Committed`, and the state, at once)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            tx_id = self.chain.issue_tx(tx, self.now())
            self.advance()
            return tx_id
        # Its block is built within a few loop turns: executing the tx there is its
        # verification (its error is the same executor's), not a second run after one at
        # issue (-12% server CPU per tx, bench/pchain.py).
        tx_id = self.chain.issue_tx(tx, self.now(), verify=False)
        if self._pending is None:
            self._pending = loop.create_future()
            self._waits = 0
            loop.call_soon(self._build_when_quiet, self.chain.mempool_size)
        await asyncio.shield(self._pending)
        refused = self.chain.refusal(tx_id)
        if refused is not None:
            raise InvalidParams(refused)
        return tx_id

    def _build_when_quiet(self, seen: int) -> None:
        """Builds the pending block once a loop turn adds no tx to it (at most BATCH_WAITS
        turns): requests already read from other connections join the block first, so fewer,
        fuller blocks are built under load (-13% server CPU per tx, bench/pchain.py); a lone
        client waits one turn."""
        n = self.chain.mempool_size
        if n != seen and self._waits < BATCH_WAITS:
            self._waits += 1
            asyncio.get_running_loop().call_soon(self._build_when_quiet, n)
            return
        self._build_pending()

    def _build_pending(self) -> None:
        pending, self._pending = self._pending, None
        try:
            self.advance()
        except Exception as exc:  # every waiting issuer learns it; the node goes on
            if pending is not None:
                pending.set_exception(exc)
            return
        if pending is not None:
            pending.set_result(None)
