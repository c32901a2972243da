"""`ExchangeChain`: the X-Chain state machine behind avm.*: issue, build, replay, query.

History as the real network has it: until `dag_vertices` vertices are accepted the chain
runs as a DAG (each build one vertex of the mempool's txs; every other vertex a sibling of
the previous one, so the next has two parents), then a stop vertex linearizes it and each
build is one StandardBlock, whose chain starts from a height-0 block naming the stop vertex.
With `dag_vertices = 0` the chain is linear from genesis (a new network since Cortina).

Public API: `Accepted`, `ExchangeChain`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from snowfield.chains.atomic import AtomicElement, AtomicRequests, SharedMemory
from snowfield.chains.exchange.executor import Effect, apply, verify
from snowfield.chains.exchange.state import ExchangeState
from snowfield.errors import Conflict, InvalidParams
from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.exchange.txs import UTXO, ImportTx, Tx
from snowfield.formats.ids import EMPTY_ID, ID, ShortID
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.vertex import MAX_TXS, Vertex, decode_vertex

MAX_MEMPOOL = 4096
VERTEX, BLOCK = "vtx", "block"


@dataclass(frozen=True, slots=True)
class Accepted:
    """One accepted container: a vertex (stop vertices included) or a StandardBlock."""

    kind: str  # VERTEX or BLOCK
    id: ID
    height: int
    time: int  # unix seconds
    data: bytes
    txs: tuple[Tx, ...]


@dataclass(slots=True)
class _Dag:
    """The vertices so far: their heights, the frontier, and the sibling's parents."""

    heights: dict[ID, int] = field(default_factory=dict)
    frontier: tuple[ID, ...] = ()
    previous_parents: tuple[ID, ...] = ()
    count: int = 0
    stop_id: ID | None = None


class ExchangeChain:
    """One X-Chain: state, mempool and accepted containers."""

    def __init__(
        self,
        state: ExchangeState,
        shared_memory: SharedMemory,
        genesis_time: int,
        dag_vertices: int = 0,
    ) -> None:
        self.state = state
        self.shared_memory = shared_memory
        self.dag_vertices = dag_vertices
        self._dag = _Dag()
        self._mempool: dict[ID, Tx] = {}
        self._effects: dict[ID, Effect] = {}
        self.accepted: list[Accepted] = []
        self.blocks: list[StandardBlock] = []
        self.tx_container: dict[ID, ID] = {}
        self._genesis_time = genesis_time
        if dag_vertices == 0:
            self._linearize(EMPTY_ID)

    # --- writing -------------------------------------------------------------------------

    def issue(self, tx: Tx, now: int) -> ID:
        """Verifies a signed tx against the state and the mempool and queues it."""
        tx_id = tx.id
        if tx_id in self._mempool:
            return tx_id
        if tx_id in self.state.txs:
            raise Conflict(f"duplicate tx: {tx_id} is already accepted")
        if len(self._mempool) >= MAX_MEMPOOL:
            raise Conflict("mempool is full")
        spent = _spends(tx)
        for other in self._mempool.values():
            if spent & _spends(other):
                raise Conflict(f"tx {tx_id} conflicts with tx {other.id} in the mempool")
        # Kept for the build: the mempool holds no two txs spending one UTXO, so while the
        # UTXOs it consumes are unspent the effect stands without recovering signers again.
        self._effects[tx_id] = verify(self.state, self.shared_memory, tx, now)
        self._mempool[tx_id] = tx
        return tx_id

    @property
    def linearized(self) -> bool:
        return self._dag.stop_id is not None

    def build(self, now: int) -> list[Accepted]:
        """Accepts the mempool's txs as one vertex (or two siblings) or one block."""
        built: list[Accepted] = []
        while self._mempool:
            txs = self._take(MAX_TXS)
            if self.linearized:
                built += self._accept_block(txs, now)
            else:
                built += self._accept_vertex(txs, now)
                if self._dag.count >= self.dag_vertices:
                    built.append(self._stop_vertex(now))
        return built

    def linearize(self, now: int) -> list[Accepted]:
        """Ends the DAG phase now (the devnet's control; the network's point passed)."""
        return [] if self.linearized else [self._stop_vertex(now)]

    def _take(self, limit: int) -> list[Tx]:
        ids = list(self._mempool)[:limit]
        return [self._mempool.pop(tx_id) for tx_id in ids]

    def _execute(self, txs: Iterable[Tx], now: int) -> list[Effect]:
        """Applies each tx that still verifies (an earlier one may have spent its inputs)."""
        effects = []
        for tx in txs:
            effect = self._effects.pop(tx.id, None)
            if effect is None or not all(u in self.state.utxos for u in effect.consumed):
                try:
                    effect = verify(self.state, self.shared_memory, tx, now)
                except InvalidParams:
                    continue  # dropped: its inputs went to an earlier tx or another chain
            apply(self.state, effect)
            effects.append(effect)
        self._apply_atomic(effects)
        return effects

    def _apply_atomic(self, effects: list[Effect]) -> None:
        removes: dict[ID, list[bytes]] = {}
        puts: dict[ID, list[AtomicElement]] = {}
        for effect in effects:
            for peer, request in (effect.atomic or {}).items():
                removes.setdefault(peer, []).extend(request.remove)
                puts.setdefault(peer, []).extend(request.put)
        peers = set(removes) | set(puts)
        requests = {
            p: AtomicRequests(tuple(removes.get(p, ())), tuple(puts.get(p, ()))) for p in peers
        }
        if requests:
            self.shared_memory.apply(self.state.config.chain_id, requests)

    def _accept_vertex(self, txs: list[Tx], now: int) -> list[Accepted]:
        effects = self._execute(txs, now)
        if not effects:
            return []
        ordered = sorted((e.tx for e in effects), key=lambda t: t.id.raw)
        dag = self._dag
        # Every other vertex is a sibling of the previous one (same parents), so the DAG
        # has width: the vertex after a pair has both as parents.
        sibling = dag.count % 2 == 1 and len(dag.frontier) == 1
        parents = dag.previous_parents if sibling else dag.frontier
        vertex = self._vertex(parents, tuple(t.encode() for t in ordered))
        self._advance_frontier(vertex)
        return [self._record(VERTEX, vertex.id, vertex.height, now, vertex.encode(), ordered)]

    def _advance_frontier(self, vertex: Vertex) -> None:
        """The frontier loses the new vertex's parents and gains the vertex."""
        dag = self._dag
        kept = tuple(v for v in dag.frontier if v not in vertex.parent_ids)
        dag.frontier = (*kept, vertex.id)
        dag.previous_parents = vertex.parent_ids
        dag.count += 1

    def _vertex(
        self, parents: tuple[ID, ...], txs: tuple[bytes, ...], stop: bool = False
    ) -> Vertex:
        parents = tuple(sorted(parents, key=lambda p: p.raw))
        height = max((self._dag.heights[p] for p in parents), default=-1) + 1
        vertex = Vertex(self.state.config.chain_id, height, parents, txs, stop=stop)
        self._dag.heights[vertex.id] = height
        return vertex

    def _stop_vertex(self, now: int) -> Accepted:
        vertex = self._vertex(self._dag.frontier, (), stop=True)
        self._dag.frontier = (vertex.id,)
        self._linearize(vertex.id)
        return self._record(VERTEX, vertex.id, vertex.height, now, vertex.encode(), ())

    def _linearize(self, stop_id: ID) -> None:
        self._dag.stop_id = stop_id
        self.blocks.append(StandardBlock(stop_id, 0, self._genesis_time, ()))

    def _accept_block(self, txs: list[Tx], now: int) -> list[Accepted]:
        effects = self._execute(txs, now)
        if not effects:
            return []
        parent = self.blocks[-1]
        block = StandardBlock(
            parent.id, parent.height + 1, max(now, parent.time), tuple(e.tx for e in effects)
        )
        data = block.encode()
        block = replace(block, cached_id=tx_id_of(data))  # one encoding for bytes and id
        self.blocks.append(block)
        return [self._record(BLOCK, block.id, block.height, block.time, data, block.txs)]

    def _record(
        self, kind: str, container_id: ID, height: int, time: int, data: bytes, txs: Iterable[Tx]
    ) -> Accepted:
        accepted = Accepted(kind, container_id, height, time, data, tuple(txs))
        for tx in accepted.txs:
            self.tx_container[tx.id] = container_id
        self.accepted.append(accepted)
        return accepted

    # --- replay --------------------------------------------------------------------------

    def replay(self, kind: str, data: bytes, time: int) -> Accepted:
        """Re-accepts a journaled container (the same bytes give the same state)."""
        if kind == VERTEX:
            return self._replay_vertex(data, time)
        block = StandardBlock.decode(data)
        if not self.linearized or block.parent_id != self.blocks[-1].id:
            raise InvalidParams(f"X-Chain journal: block {block.id} does not extend the chain")
        self._execute(block.txs, block.time)
        self.blocks.append(block)
        return self._record(BLOCK, block.id, block.height, block.time, data, block.txs)

    def _replay_vertex(self, data: bytes, time: int) -> Accepted:
        vertex = decode_vertex(data)
        txs = [Tx.decode(raw) for raw in vertex.txs]
        self._execute(txs, time)
        self._dag.heights[vertex.id] = vertex.height
        if vertex.stop:
            self._dag.frontier = (vertex.id,)
            self._linearize(vertex.id)
        else:
            self._advance_frontier(vertex)
        return self._record(VERTEX, vertex.id, vertex.height, time, data, txs)

    # --- reading -------------------------------------------------------------------------

    def tx(self, tx_id: ID) -> Tx | None:
        return self.state.txs.get(tx_id) or self._mempool.get(tx_id)

    def is_accepted(self, tx_id: ID) -> bool:
        return tx_id in self.state.txs

    def utxos(
        self, addresses: Iterable[ShortID], start: tuple[ShortID, ID] | None, limit: int
    ) -> tuple[list[UTXO], tuple[ShortID, ID] | None]:
        return self.state.utxos.by_addresses(addresses, start, limit)

    def atomic_utxos(
        self,
        source_chain: ID,
        addresses: Iterable[ShortID],
        start: tuple[bytes, bytes] | None = None,
        limit: int = 1024,
    ) -> list[tuple[bytes, AtomicElement]]:
        traits = [a.raw for a in addresses]
        chain_id = self.state.config.chain_id
        return self.shared_memory.indexed(chain_id, source_chain, traits, start, limit)

    def balances(self, address: ShortID) -> dict[ID, tuple[int, list[ID]]]:
        """Per asset: the fungible amount `address` (co-)owns and those UTXOs' ids."""
        result: dict[ID, tuple[int, list[ID]]] = {}
        for utxo in self.state.utxos.of_addresses([address]):
            if not isinstance(utxo.output, TransferOutput):
                continue  # only fungible outputs have amounts (avax.Amounter)
            amount = utxo.output.amt
            total, ids = result.get(utxo.asset_id, (0, []))
            result[utxo.asset_id] = (total + amount, [*ids, utxo.id])
        return result


def _spends(tx: Tx) -> set[bytes]:
    base = tx.unsigned.base
    spent = {inp.utxo_id.input_id.raw for inp in base.inputs}
    if isinstance(tx.unsigned, ImportTx):
        spent |= {inp.utxo_id.input_id.raw for inp in tx.unsigned.imported_inputs}
    for operation in getattr(tx.unsigned, "operations", ()):
        spent |= {u.input_id.raw for u in operation.utxo_ids}
    return spent


def tx_id_of(data: bytes) -> ID:
    """The id of a tx or block: sha256 of its bytes."""
    return ID(hashlib.sha256(data).digest())
