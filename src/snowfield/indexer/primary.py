"""The primary network's indexer: P-Chain containers from `/ext/index/P/block` in batched
ranges → rows (extract/platform.py) → the store with the checkpoint, one transaction a batch;
reward UTXOs and current stakers' potential rewards from `platform.*`; then follow the head.

It talks to the node over its public interfaces only, so it indexes a real node (with
`--index-enabled`) exactly as it indexes the devnet."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.crypto.proposervm import parse_verified
from snowfield.errors import InvalidParams, Unavailable
from snowfield.formats.bech32 import hrp_for_network
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID
from snowfield.formats.platform.blocks import decode_block
from snowfield.formats.platform.txs import Tx
from snowfield.formats.timefmt import parse_rfc3339
from snowfield.indexer.c_atomic import sync_c_atomic
from snowfield.indexer.extract.platform import (
    Addresses,
    block_detail,
    genesis_rows,
    reward_utxo,
)
from snowfield.indexer.extract.vertices import vertex_row
from snowfield.indexer.p_genesis import sync_p_genesis
from snowfield.indexer.primary_extraction import (
    PROCESS_BACKLOG,
    Extraction,
    InlineExtraction,
    ProcessExtraction,
)
from snowfield.indexer.validator_observer import ValidatorObserver
from snowfield.indexer.x_genesis import sync_x_genesis
from snowfield.indexer.xchain import sync_xchain
from snowfield.rpc.client import RpcClient, RpcError
from snowfield.store import l1_fee_math, l1_fees, primary, primary_queries, vertices
from snowfield.store.database import Database
from snowfield.store.l1_fee_math import FeeConfig
from snowfield.store.primary_rows import BlockRows, StakerRow, UtxoRow

log = logging.getLogger("snowfield.indexer.primary")
MAX_RANGE = 1024  # the index API's getContainerRange limit
P_CHAIN_ID = "11111111111111111111111111111111LpoYY"
METHOD_NOT_FOUND = -32601
# platform.* questions a sync asks at once (stakers by node, reward UTXOs, genesis txs):
# enough to hide the round trips, few enough to leave a real node's API to its other callers.
IN_FLIGHT = 8
REWARDED = frozenset({"VALIDATOR", "DELEGATOR"})  # staker kinds with a potential reward

Progress = Callable[[int, int], None]  # (containers done, containers total)
Extracted = tuple[list[BlockRows], dict[str, int]]  # a batch's rows, its potential rewards


@dataclass(frozen=True, slots=True)
class Container:
    index: int
    id: str
    data: bytes
    timestamp_ns: int


class IndexClient:
    """One index of the node's index API (`/ext/index/<chain>/<kind>`)."""

    def __init__(self, url: str, *, timeout: float = 30.0) -> None:
        self.client = RpcClient(url, timeout=timeout, retries=2)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def last_index(self) -> int:
        """The index of the last accepted container; -1 while there is none."""
        try:
            got = await self.client.call_object("index.getLastAccepted", {"encoding": "hex"})
        except RpcError as err:
            if "no containers" in err.message.lower():
                return -1
            raise
        return int(got["index"])

    async def containers(self, start: int, count: int) -> list[Container]:
        got = await self.client.call_object(
            "index.getContainerRange",
            {"startIndex": start, "numToFetch": min(count, MAX_RANGE), "encoding": "hex"},
        )
        # The spec's index answers an array; avalanchego wraps it as {"containers": [...]}.
        items = got.get("containers") if isinstance(got, dict) else got
        return [
            Container(
                int(c["index"]),
                str(c["id"]),
                decode_hex(str(c["bytes"])),
                _nanos(str(c.get("timestamp", ""))),
            )
            for c in items or ()
        ]


class PlatformSource:
    """The node's P-Chain (its index, reward UTXOs and current stakers) and the X-Chain's
    vertex index."""

    def __init__(self, base_url: str, *, timeout: float = 30.0) -> None:
        base = base_url.rstrip("/")
        self.blocks = IndexClient(f"{base}/ext/index/P/block", timeout=timeout)
        self.vertices = IndexClient(f"{base}/ext/index/X/vtx", timeout=timeout)
        self.xtxs = IndexClient(f"{base}/ext/index/X/tx", timeout=timeout)
        self.xblocks = IndexClient(f"{base}/ext/index/X/block", timeout=timeout)
        self.cblocks = IndexClient(f"{base}/ext/index/C/block", timeout=timeout)
        self.platform = RpcClient(f"{base}/ext/bc/P", timeout=timeout, retries=2)
        self.info = RpcClient(f"{base}/ext/info", timeout=timeout, retries=2)
        self.avm = RpcClient(f"{base}/ext/bc/X", timeout=timeout, retries=2)
        self._gate = asyncio.Semaphore(IN_FLIGHT)

    async def aclose(self) -> None:
        await self.blocks.aclose()
        await self.vertices.aclose()
        await self.xtxs.aclose()
        await self.xblocks.aclose()
        await self.cblocks.aclose()
        for client in (self.platform, self.info, self.avm):
            await client.aclose()

    async def last_index(self) -> int:
        return await self.blocks.last_index()

    async def containers(self, start: int, count: int) -> list[Container]:
        return await self.blocks.containers(start, count)

    async def network(self) -> primary.PrimaryNetwork:
        # Independent questions: asked together, the answer takes one round trip, not four.
        network, xchain, cchain, asset = await asyncio.gather(
            self.info.call_object("info.getNetworkID"),
            self._chain_id("X"),
            self._chain_id("C"),
            self.platform.call_object("platform.getStakingAssetID", {}),
        )
        network_id = int(network["networkID"])
        return primary.PrimaryNetwork(
            P_CHAIN_ID,
            network_id,
            hrp_for_network(network_id),
            xchain,
            cchain,
            str(asset["assetID"]),
        )

    async def _chain_id(self, alias: str) -> str | None:
        """The id of the chain the node knows by `alias`; None when it has none."""
        try:
            got = await self.info.call_object("info.getBlockchainID", {"alias": alias})
        except RpcError:
            return None
        return str(got["blockchainID"]) or None

    async def reward_utxos(self, tx_id: str) -> list[bytes]:
        """The reward UTXOs a staker was paid (none when the node does not serve them)."""
        try:
            async with self._gate:
                got = await self.platform.call_object(
                    "platform.getRewardUTXOs", {"txID": tx_id, "encoding": "hex"}
                )
        except RpcError as err:
            if err.code == METHOD_NOT_FOUND:
                return []
            raise
        return [decode_hex(str(u)) for u in got.get("utxos") or ()]

    async def current(self, node_ids: Collection[str]) -> dict[str, tuple[int, int]]:
        """Current stakers by staking tx id: (start time, potential reward); validators and,
        for the given nodes, their delegators (avalanchego lists those only when asked)."""
        params: dict[str, Any] = {"nodeIDs": sorted(set(node_ids))} if node_ids else {}
        async with self._gate:
            got = await self.platform.call_object("platform.getCurrentValidators", params)
        out: dict[str, tuple[int, int]] = {}
        for v in got.get("validators") or ():
            for staker in (v, *(v.get("delegators") or ())):
                if "potentialReward" in staker:
                    start = int(staker.get("startTime", 0))
                    out[str(staker["txID"])] = (start, int(staker["potentialReward"]))
        return out

    async def validator_fee_config(self) -> FeeConfig:
        """What the node charges L1 validators (platform.getValidatorFeeConfig); avalanchego's
        mainnet configuration from a node older than the method."""
        try:
            got = await self.platform.call_object("platform.getValidatorFeeConfig", {})
        except RpcError as err:
            if err.code == METHOD_NOT_FOUND:
                return l1_fee_math.MAINNET
            raise
        return FeeConfig(
            int(got["capacity"]),
            int(got["target"]),
            int(got["minPrice"]),
            int(got["excessConversionConstant"]),
        )

    async def block_at(self, height: int) -> bytes:
        got = await self.platform.call_object(
            "platform.getBlockByHeight", {"height": height, "encoding": "hex"}
        )
        return decode_hex(str(got["block"]))

    async def chain_time(self) -> int:
        got = await self.platform.call_object("platform.getTimestamp", {})
        return parse_rfc3339(str(got["timestamp"])) // 1_000_000_000

    async def tx(self, tx_id: str) -> bytes:
        async with self._gate:
            got = await self.platform.call_object(
                "platform.getTx", {"txID": tx_id, "encoding": "hex"}
            )
        return decode_hex(str(got["tx"]))

    async def p_utxos(self, addresses: list[str]) -> list[bytes]:
        """Every UTXO the P-Chain holds for `addresses` (platform.getUTXOs, page by page)."""
        out: list[bytes] = []
        params: dict[str, Any] = {"addresses": addresses, "limit": 1024, "encoding": "hex"}
        while True:
            async with self._gate:
                got = await self.platform.call_object("platform.getUTXOs", params)
            page = [decode_hex(str(u)) for u in got.get("utxos") or ()]
            out += page
            end = got.get("endIndex")
            if len(page) < 1024 or not end:
                return out
            params = {**params, "startIndex": end}

    async def x_tx(self, tx_id: str) -> bytes:
        """An X-Chain tx by id (avm.getTx): the genesis tx, which its tx index does not list."""
        async with self._gate:
            got = await self.avm.call_object("avm.getTx", {"txID": tx_id, "encoding": "hex"})
        return decode_hex(str(got["tx"]))


def _verify(containers: Sequence[Container]) -> None:
    """Raises InvalidParams for the first container that is not a P-Chain block its proposer
    signed (or an unsigned or option block), naming it and avalanchego's reason."""
    chain = ID.from_string(P_CHAIN_ID)
    for container in containers:
        try:
            block = parse_verified(container.data, chain)
        except InvalidParams as exc:
            raise InvalidParams(
                f"P-Chain container {container.index} ({container.id}) failed verification: "
                f"{exc.message}"
            ) from None
        if str(block.id) != container.id:
            raise InvalidParams(
                f"P-Chain container {container.index} is named {container.id} but its block "
                f"id is {block.id}"
            )


def _nanos(text: str) -> int:
    """Index API timestamps are RFC 3339 with nanoseconds; 0 when absent or unreadable."""
    try:
        return parse_rfc3339(text) if text else 0
    except (InvalidParams, ValueError):
        return 0


class PrimaryIndexer:
    """Indexes the P-Chain of one node into `db`."""

    def __init__(
        self,
        db: Database,
        source: PlatformSource,
        *,
        batch_size: int = 256,
        process_backlog: int = PROCESS_BACKLOG,
        verify_containers: bool = False,
    ) -> None:
        self.db = db
        self.source = source
        # Check each container as avalanchego's proposervm.Parse(bytes, chainID) does (the
        # proposer's certificate and signature for the P-Chain, Granite's epoch) before a row
        # is written: for a node the indexer does not trust.
        self.verify_containers = verify_containers
        self.batch_size = min(batch_size, MAX_RANGE)
        self.process_backlog = process_backlog  # extract in a worker from this many on
        self.network: primary.PrimaryNetwork | None = None
        self.addresses: Addresses | None = None
        self.observer = ValidatorObserver(source.platform, source.info)
        self.fees: FeeConfig | None = None

    async def prepare(self) -> primary.PrimaryNetwork:
        if self.network is None:
            self.network = await self.source.network()
            self.addresses = Addresses(self.network.hrp)
            await asyncio.to_thread(primary.record_network, self.db, self.network)
        if self.fees is None:
            self.fees = await self.source.validator_fee_config()
        return self.network

    async def sync(self, progress: Progress | None = None) -> int:
        """Indexes every container the node has accepted; returns the next index."""
        net = await self.prepare()
        await self._catch_up_fees(net.pchain)
        done = await asyncio.to_thread(primary.checkpoint, self.db, net.pchain)
        start = 0 if done is None else done.next_index
        last = await self.source.last_index()
        total = last + 1 - start
        extraction = self._extraction(total)
        # Three batches in flight: the next range is fetched, and this one extracted and its
        # stakers' potential rewards asked, while the one before it is written. Batches are
        # still written in order, each with its checkpoint; a batch's reward UTXOs are looked
        # up after the write of the one before (the lookup may read it).
        ahead = self._fetch(start, last)
        rows: asyncio.Future[Extracted] | None = None
        try:
            pending: tuple[list[Container], asyncio.Future[Extracted]] | None = None
            while True:
                containers = await ahead
                if containers is not None:
                    start = containers[-1].index + 1
                    ahead = self._fetch(start, last)
                    rows = asyncio.ensure_future(self._extract(extraction, containers))
                if pending is not None:
                    written, extracted = pending
                    await self._write(net.pchain, written, *await extracted)
                    if progress is not None:
                        progress(written[-1].index + 1 - (last + 1 - total), total)
                if containers is None or rows is None:
                    break
                pending = (containers, rows)
        finally:
            # A write failed or the sync was cancelled: no fetch or extraction outlives it.
            for task in (ahead, rows):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
            extraction.close()
        if not await asyncio.to_thread(primary.genesis_done, self.db, net.pchain):
            await self._genesis(net.pchain)
        now = await self.source.chain_time()
        await asyncio.to_thread(primary.record_chain_time, self.db, net.pchain, now)
        await self.observer.maybe_observe(self.db, net.pchain)
        if net.xchain is not None:
            await self._sync_vertices(net.xchain)
            assert self.addresses is not None
            await sync_x_genesis(
                self.db, self.source.x_tx, net.xchain, net.pchain, net.avax_asset, self.addresses
            )
            await sync_xchain(
                self.db,
                self.source.xtxs,
                self.source.xblocks,
                net.xchain,
                self.addresses,
                self.batch_size,
            )
        assert self.addresses is not None
        await sync_p_genesis(self.db, self.source.p_utxos, net.pchain, net.xchain, self.addresses)
        if net.cchain is not None:
            assert self.addresses is not None
            await sync_c_atomic(
                self.db,
                self.source.cblocks,
                net.cchain,
                self.addresses,
                self.batch_size,
                net.avax_asset,
            )
        return start

    async def _catch_up_fees(self, pchain: str) -> None:
        """Replays the L1 fee ledger over the blocks indexed before it existed: their
        containers are fetched again for their times and L1 txs (store/l1_fees.lag)."""
        assert self.fees is not None and self.addresses is not None
        first = await asyncio.to_thread(l1_fees.lag, self.db, pchain, self.fees)
        done = await asyncio.to_thread(primary.checkpoint, self.db, pchain)
        if first is None or done is None:
            return
        offset = done.height - (done.next_index - 1)  # block height of index 0
        start = max(first - offset, 0)
        log.info("replaying L1 validator fees from P-Chain height %d", first)
        extraction = InlineExtraction(self.addresses)
        while start < done.next_index:
            containers = await self.source.containers(start, self.batch_size)
            if not containers:
                return
            containers = [c for c in containers if c.index < done.next_index]
            blocks = await extraction.blocks(containers)
            await asyncio.to_thread(primary.write_fees, self.db, pchain, blocks, self.fees)
            start = containers[-1].index + 1

    def _fetch(self, start: int, last: int) -> asyncio.Task[list[Container] | None]:
        """The batch from `start` (None past `last` or when the node has none)."""

        async def fetch() -> list[Container] | None:
            if start > last:
                return None
            containers = await self.source.containers(start, self.batch_size) or None
            if containers and self.verify_containers:
                await asyncio.to_thread(_verify, containers)
            return containers

        return asyncio.ensure_future(fetch())

    async def _sync_vertices(self, xchain: str) -> None:
        """The X-Chain's vertices (its DAG history, read-only after linearization); a node
        that serves no vertex index has none to give."""
        try:
            last = await self.source.vertices.last_index()
        except (RpcError, Unavailable) as err:
            log.debug("no X-Chain vertex index: %s", err)
            return
        start = await asyncio.to_thread(vertices.next_index, self.db, xchain)
        while start <= last:
            batch = await self.source.vertices.containers(start, self.batch_size)
            if not batch:
                break
            rows = [vertex_row(c.index, c.id, c.data, c.timestamp_ns) for c in batch]
            start = batch[-1].index + 1
            await asyncio.to_thread(vertices.write_vertices, self.db, xchain, rows, start)

    async def _genesis(self, pchain: str) -> None:
        """The genesis stakers: their txs live in the genesis state, not in any block; the
        node serves them by id (platform.getTx) and lists them as current validators. They go
        into the genesis block (height 0) at genesis time."""
        assert self.addresses is not None
        genesis, current = await asyncio.gather(self.source.block_at(0), self.source.current(()))
        first = await asyncio.to_thread(primary.first_block, self.db, pchain)
        starts = {tx_id: start for tx_id, (start, _) in current.items()}
        known = await asyncio.to_thread(primary.known_txs, self.db, pchain, list(starts))
        unknown = {t: start for t, start in starts.items() if t not in known}
        # Stakers of blocks this sync has not reached yet start after the first block.
        bound = first[2] if first is not None else min(unknown.values(), default=0)
        wanted = [t for t, start in unknown.items() if start <= bound]
        txs = [Tx.decode(raw) for raw in await asyncio.gather(*map(self.source.tx, wanted))]
        genesis_time = min((starts[t] for t in wanted), default=bound)
        block_id = str(ID(hashlib.sha256(genesis).digest()))
        parent = str(getattr(decode_block(genesis), "parent_id", ""))
        rows = genesis_rows(0, block_id, genesis_time, txs, self.addresses)
        rows.parent_id = parent
        rows.detail = block_detail(genesis, genesis, decode_block(genesis))
        potential = {t: reward for t, (_, reward) in current.items()}
        await asyncio.to_thread(primary.write_genesis, self.db, pchain, rows, potential)

    async def follow(self, interval: float = 1.0, stop: asyncio.Event | None = None) -> None:
        """Syncs, then keeps following the head until `stop` is set."""
        stop = stop or asyncio.Event()
        while not stop.is_set():
            try:
                await self.sync()
            except (Unavailable, RpcError, OSError) as err:
                log.warning("primary network sync failed: %s", err)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)

    def _extraction(self, backlog: int) -> Extraction:
        assert self.network is not None and self.addresses is not None
        if backlog >= self.process_backlog:
            return ProcessExtraction(self.network.hrp)
        return InlineExtraction(self.addresses)

    async def _extract(self, extraction: Extraction, containers: Sequence[Container]) -> Extracted:
        blocks = await extraction.blocks(containers)
        return blocks, await self._potential(blocks)

    async def _write(
        self,
        pchain: str,
        containers: Sequence[Container],
        blocks: list[BlockRows],
        potential: dict[str, int],
    ) -> None:
        rewards = await self._rewards(blocks)
        await asyncio.to_thread(
            primary.write_blocks,
            self.db,
            pchain,
            blocks,
            containers[-1].index + 1,
            rewards,
            potential,
            self.fees,
        )

    async def _rewards(self, blocks: Sequence[BlockRows]) -> list[tuple[int, UtxoRow]]:
        """Reward UTXOs of the stakers a commit block rewarded (the proposal before it names
        them with RewardValidatorTx), each with the commit block's height.

        The node is asked for every staker of the batch together (at most IN_FLIGHT at once):
        on mainnet most P-Chain blocks pay a reward, and one round trip after another would
        bound a backfill."""
        assert self.addresses is not None
        ended: list[tuple[int, str]] = []  # (commit height, staking tx)
        proposals = {b.height: b for b in blocks}
        for b in blocks:
            if b.option != "commit":
                continue
            proposal = proposals.get(b.height - 1)
            if proposal is not None:
                ended += [(b.height, staking_tx) for staking_tx, _ in proposal.ended]
            else:  # the proposal closed the previous batch
                before = await asyncio.to_thread(
                    primary_queries.ended_at, self.db, P_CHAIN_ID, b.height - 1
                )
                ended += [(b.height, staking_tx) for staking_tx in before]
        if not ended:
            return []
        stakers = await asyncio.to_thread(_stakers, self.db, [t for _, t in ended], blocks)
        paid = [(h, s) for (h, _), s in zip(ended, stakers, strict=True) if s is not None]
        answers = await asyncio.gather(*(self.source.reward_utxos(s.tx_id) for _, s in paid))
        return [
            (height, reward_utxo(raw, self.addresses, _reward_type(staker, i), staker))
            for (height, staker), utxos in zip(paid, answers, strict=True)
            for i, raw in enumerate(utxos)
        ]

    async def _potential(self, blocks: Sequence[BlockRows]) -> dict[str, int]:
        """The potential rewards of the stakers this batch adds that are still current.

        A staker's potential reward is fixed when its tx is accepted, so it is asked once, for
        the batch that adds it, and only for its nodes: a batch without stakers asks nothing,
        and a real node is not asked for its whole validator set (megabytes on mainnet) every
        batch. The genesis stakers' come with the genesis (`_genesis`)."""
        added = {s.tx_id: s for b in blocks for s in b.stakers if s.kind in REWARDED}
        if not added:
            return {}
        validators = {s.node_id for s in added.values() if s.kind == "VALIDATOR"}
        delegated = {s.node_id for s in added.values() if s.kind == "DELEGATOR"}
        # avalanchego lists a validator's delegators only when asked for that one node.
        questions = [self.source.current((n,)) for n in delegated]
        if validators:
            questions.append(self.source.current(validators))
        try:
            answers = await asyncio.gather(*questions)
        except RpcError as err:
            log.warning("platform.getCurrentValidators failed: %s", err)
            return {}
        return {
            tx_id: reward
            for answer in answers
            for tx_id, (_, reward) in answer.items()
            if tx_id in added
        }


def _reward_type(staker: StakerRow, index: int) -> str:
    # platformvm pays a validator its validation reward first, then the delegation fees it
    # accrued; a delegator gets its share.
    if staker.kind == "DELEGATOR":
        return "DELEGATOR"
    return "VALIDATOR" if index == 0 else "VALIDATOR_FEE"


def _stakers(
    db: Database, tx_ids: Sequence[str], blocks: Sequence[BlockRows]
) -> list[StakerRow | None]:
    """Each staker by its tx id: from the batch's blocks, else from the store."""
    batch = {s.tx_id: s for b in blocks for s in b.stakers}
    return [batch.get(t) or primary_queries.staker(db, P_CHAIN_ID, t) for t in tx_ids]
