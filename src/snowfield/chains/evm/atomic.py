"""The C-Chain's atomic txs: verification against the EVM state and shared memory, the atomic
mempool, building a block's batch, and the record of accepted atomic txs.

An ImportTx consumes UTXOs another chain (P or X) exported to C and credits EVM balances
(nAVAX * 10^9 wei); an ExportTx debits balances, bumps nonces and exports UTXOs to P or X.
The error texts are coreth's where it has one.

Public API: `AtomicContext`, `AtomicLedger` (`issue`, `has_pending`, `build`, `accepted`,
`index`, `status`, `tx`) and `Batch` (what a block built from the pool carries).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from snowfield.chains.atomic import AtomicElement, AtomicRequests, SharedMemory
from snowfield.chains.evm.atomic_fees import X2C_RATE, gas_used, required_fee
from snowfield.chains.secp256k1fx import Signers, verify_owner
from snowfield.crypto.secp256k1 import eth_address_of, recover_public_key
from snowfield.errors import Conflict, InvalidParams
from snowfield.formats.atomic.extdata import decode_batch, encode_batch
from snowfield.formats.atomic.txs import (
    AtomicTx,
    ExportTx,
    ImportTx,
    require_sorted_evm_outputs,
)
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import UTXO, UTXOID
from snowfield.formats.platform.secp256k1fx import TransferInput, TransferOutput

MAX_POOL = 4096
# coreth's per-block limit on atomic gas since ApricotPhase5.
ATOMIC_GAS_LIMIT = 100_000

Account = Callable[[bytes], tuple[int, int]]  # address → (balance in wei, nonce)


class AtomicStatus(StrEnum):
    UNKNOWN = "Unknown"
    DROPPED = "Dropped"
    PROCESSING = "Processing"
    ACCEPTED = "Accepted"


@dataclass(frozen=True, slots=True)
class AtomicContext:
    """Who the C-Chain is: network, its own id, the AVAX asset and the chains it trades with."""

    network_id: int
    chain_id: ID
    avax_asset: ID
    peers: frozenset[ID]
    # Whether ApricotPhase2 is in force, and with it the sorted-outputs rule on imports (the
    # devnet activates every upgrade at genesis).
    apricot_phase2: bool = True


@dataclass(frozen=True, slots=True)
class Effect:
    """What a verified atomic tx does: balance changes in wei, nonces, shared memory."""

    balances: dict[bytes, int]
    nonces: dict[bytes, int]
    peer: ID
    request: AtomicRequests
    spends: frozenset[bytes]  # what two txs may not both do: UTXO ids, (address, nonce)


@dataclass(slots=True)
class Batch:
    """A block's atomic txs with their account writes (address → (balance, nonce))."""

    txs: list[AtomicTx] = field(default_factory=list)
    accounts: dict[bytes, tuple[int, int]] = field(default_factory=dict)
    requests: dict[ID, AtomicRequests] = field(default_factory=dict)
    gas: int = 0

    @property
    def ext_data(self) -> bytes:
        return encode_batch(self.txs)


class AtomicLedger:
    """The C-Chain's atomic mempool and accepted atomic txs."""

    def __init__(self, context: AtomicContext, shared_memory: SharedMemory) -> None:
        self.context = context
        self.shared_memory = shared_memory
        self._pool: dict[ID, tuple[AtomicTx, frozenset[bytes]]] = {}
        self._accepted: dict[ID, tuple[int, bytes]] = {}  # id → (height, signed bytes)
        self._dropped: dict[ID, str] = {}

    # -- issuing ---------------------------------------------------------------------

    def issue(self, data: bytes, account: Account, base_fee: int, now: int) -> ID:
        """Verifies a signed atomic tx against the head and queues it; returns its id."""
        tx = AtomicTx.decode(data)
        tx_id = tx.id
        if tx_id in self._pool or tx_id in self._accepted:
            raise Conflict(f"tx {tx_id} already known")
        if len(self._pool) >= MAX_POOL:
            raise Conflict("atomic mempool is full")
        gas = gas_used(tx)
        if gas > ATOMIC_GAS_LIMIT:
            # It could never be built into a block; this also bounds the signatures to check.
            raise InvalidParams(f"tx gas {gas} exceeds the block's atomic gas limit")
        effect = self.verify(tx, account, base_fee, now)
        for other_id, (_, spends) in self._pool.items():
            if spends & effect.spends:
                raise Conflict(f"tx {tx_id} conflicts with tx {other_id} in the atomic mempool")
        self._pool[tx_id] = (tx, effect.spends)
        self._dropped.pop(tx_id, None)
        return tx_id

    def has_pending(self) -> bool:
        return bool(self._pool)

    # -- verification ------------------------------------------------------------------

    def verify(self, tx: AtomicTx, account: Account, base_fee: int, now: int) -> Effect:
        """coreth's syntactic and semantic checks; the tx's effect, or InvalidParams."""
        unsigned = tx.unsigned
        ctx = self.context
        assert isinstance(unsigned, ImportTx | ExportTx)  # the codec's only two tx types
        if unsigned.network_id != ctx.network_id:
            raise InvalidParams("tx was issued with a different network ID")
        if unsigned.blockchain_id != ctx.chain_id:
            raise InvalidParams("tx has wrong chain ID")
        fee = required_fee(gas_used(tx), base_fee)
        if isinstance(unsigned, ImportTx):
            return self._verify_import(tx, unsigned, fee, now)
        assert isinstance(unsigned, ExportTx)
        return self._verify_export(tx, unsigned, account, fee)

    def _verify_import(self, tx: AtomicTx, unsigned: ImportTx, fee: int, now: int) -> Effect:
        ctx = self.context
        if not unsigned.imported_inputs:
            raise InvalidParams("tx has no imported inputs")
        if ctx.apricot_phase2:
            require_sorted_evm_outputs(unsigned)
        if unsigned.source_chain not in ctx.peers:
            raise InvalidParams(f"invalid source chain {unsigned.source_chain}")
        if len(tx.credentials) != len(unsigned.imported_inputs):
            raise InvalidParams("incorrect number of credentials")
        keys = [inp.utxo_id.input_id.raw for inp in unsigned.imported_inputs]
        try:
            values = self.shared_memory.get(ctx.chain_id, unsigned.source_chain, keys)
        except InvalidParams:
            raise InvalidParams(
                f"failed to fetch import UTXOs from {unsigned.source_chain}: not found "
                "(unknown, or already imported)"
            ) from None
        signers = Signers(tx)
        consumed = 0
        for inp, value, cred in zip(unsigned.imported_inputs, values, tx.credentials, strict=True):
            utxo = UTXO.decode(value)
            if utxo.asset_id != inp.asset_id or utxo.asset_id != ctx.avax_asset:
                raise InvalidParams("only AVAX can be imported to the C-Chain")
            out, spend = utxo.output, inp.input
            assert isinstance(spend, TransferInput)
            if not isinstance(out, TransferOutput) or out.amt != spend.amt:
                raise InvalidParams("input amount does not match the UTXO's")
            verify_owner(signers, out.owners, spend.sig_indices, cred, now)
            consumed += spend.amt
        balances: dict[bytes, int] = {}
        produced = 0
        for credit in unsigned.outs:
            if credit.amount == 0:
                raise InvalidParams("output has no value")
            if credit.asset_id != ctx.avax_asset:
                raise InvalidParams("only AVAX can be imported to the C-Chain")
            produced += credit.amount
            balances[credit.address] = balances.get(credit.address, 0) + credit.amount * X2C_RATE
        _flow("import", consumed, produced, fee)
        request = AtomicRequests(remove=tuple(keys))
        return Effect(balances, {}, unsigned.source_chain, request, frozenset(keys))

    def _verify_export(
        self, tx: AtomicTx, unsigned: ExportTx, account: Account, fee: int
    ) -> Effect:
        ctx = self.context
        if not unsigned.exported_outputs:
            raise InvalidParams("tx has no export outputs")
        if unsigned.destination_chain not in ctx.peers:
            raise InvalidParams(f"invalid destination chain {unsigned.destination_chain}")
        if len(tx.credentials) != len(unsigned.ins):
            raise InvalidParams("incorrect number of credentials")
        digest = hashlib.sha256(tx.unsigned_bytes()).digest()
        balances: dict[bytes, int] = {}
        nonces: dict[bytes, int] = {}
        spends: set[bytes] = set()
        consumed = 0
        for inp, cred in zip(unsigned.ins, tx.credentials, strict=True):
            if inp.asset_id != ctx.avax_asset:
                raise InvalidParams("only AVAX can be exported from the C-Chain")
            if len(cred.signatures) != 1:
                raise InvalidParams("expected one signature per EVM input")
            if eth_address_of(recover_public_key(digest, cred.signatures[0])) != inp.address:
                raise InvalidParams("signature doesn't match public key")
            balance, nonce = account(inp.address)
            if inp.nonce != nonce:
                raise InvalidParams(
                    f"invalid nonce: address 0x{inp.address.hex()} has nonce {nonce}, "
                    f"tx has {inp.nonce}"
                )
            debit = inp.amount * X2C_RATE
            if balance < debit:
                raise InvalidParams(
                    f"insufficient funds: address 0x{inp.address.hex()} has {balance} wei, "
                    f"export needs {debit}"
                )
            balances[inp.address] = -debit
            nonces[inp.address] = nonce + 1
            spends.add(inp.address + nonce.to_bytes(8, "big"))
            consumed += inp.amount
        produced = 0
        for out in unsigned.exported_outputs:
            if out.asset_id != ctx.avax_asset:
                raise InvalidParams("only AVAX can be exported from the C-Chain")
            produced += out.output.amount
        _flow("export", consumed, produced, fee)
        request = AtomicRequests(put=tuple(_exported(tx.id, unsigned)))
        return Effect(balances, nonces, unsigned.destination_chain, request, frozenset(spends))

    # -- building and accepting ----------------------------------------------------------

    def build(self, account: Account, base_fee: int, now: int) -> Batch:
        """The pool's txs that still verify on the state `account` reads, in issue order, up
        to the block's atomic gas limit; the ones that no longer verify are dropped."""
        batch = Batch()
        used: set[bytes] = set()

        def current(address: bytes) -> tuple[int, int]:
            return batch.accounts[address] if address in batch.accounts else account(address)

        for tx_id, (tx, _) in list(self._pool.items()):
            gas = gas_used(tx)
            if batch.txs and batch.gas + gas > ATOMIC_GAS_LIMIT:
                break
            try:
                effect = self.verify(tx, current, base_fee, now)
            except InvalidParams as exc:
                self._drop(tx_id, str(exc))
                continue
            if effect.spends & used:
                self._drop(tx_id, "conflicts with a tx of the same block")
                continue
            used |= effect.spends
            for address, change in effect.balances.items():
                balance, nonce = current(address)
                batch.accounts[address] = (balance + change, effect.nonces.get(address, nonce))
            _merge(batch.requests, effect.peer, effect.request)
            batch.txs.append(tx)
            batch.gas += gas
        return batch

    def _drop(self, tx_id: ID, reason: str) -> None:
        self._pool.pop(tx_id, None)
        self._dropped[tx_id] = reason

    def accepted(self, height: int, batch: Batch) -> None:
        """The block at `height` accepted `batch`: its shared memory requests apply."""
        self.shared_memory.apply(self.context.chain_id, batch.requests)
        self.index(height, batch.ext_data)

    def index(self, height: int, ext_data: bytes) -> None:
        """Records the atomic txs of an accepted block's extra data (also on replay)."""
        for tx in decode_batch(ext_data):
            tx_id = tx.id
            self._accepted[tx_id] = (height, tx.encode())
            self._pool.pop(tx_id, None)

    def forget(self, height: int) -> None:
        """The chain was cut back to `height`: later blocks' atomic txs are unknown again."""
        for tx_id in [t for t, (h, _) in self._accepted.items() if h > height]:
            del self._accepted[tx_id]

    # -- reading -----------------------------------------------------------------------

    def status(self, tx_id: ID) -> tuple[AtomicStatus, int | None]:
        if tx_id in self._accepted:
            return AtomicStatus.ACCEPTED, self._accepted[tx_id][0]
        if tx_id in self._pool:
            return AtomicStatus.PROCESSING, None
        if tx_id in self._dropped:
            return AtomicStatus.DROPPED, None
        return AtomicStatus.UNKNOWN, None

    def tx(self, tx_id: ID) -> tuple[bytes, int | None] | None:
        """The signed bytes of a known atomic tx, with its height once accepted."""
        if tx_id in self._accepted:
            height, data = self._accepted[tx_id]
            return data, height
        if tx_id in self._pool:
            return self._pool[tx_id][0].encode(), None
        return None

    def utxos(
        self,
        source: ID,
        addresses: Iterable[bytes],
        start: tuple[bytes, bytes] | None,
        limit: int,
    ) -> list[tuple[bytes, AtomicElement]]:
        """UTXOs `source` exported to the C-Chain owned by `addresses` (after `start`)."""
        return self.shared_memory.indexed(self.context.chain_id, source, addresses, start, limit)


def _flow(kind: str, consumed: int, produced: int, fee: int) -> None:
    if consumed < produced + fee:
        raise InvalidParams(
            f"{kind} tx flow check failed due to: insufficient funds: consumed {consumed} nAVAX, "
            f"produced {produced} nAVAX + fee {fee} nAVAX"
        )


def _exported(tx_id: ID, unsigned: ExportTx) -> list[AtomicElement]:
    elements = []
    for index, out in enumerate(unsigned.exported_outputs):
        utxo = UTXO(UTXOID(tx_id, index), out.asset_id, out.output)
        assert isinstance(out.output, TransferOutput)
        traits = tuple(a.raw for a in out.output.owners.addresses)
        elements.append(AtomicElement(utxo.id.raw, utxo.encode(), traits))
    return elements


def _merge(requests: dict[ID, AtomicRequests], peer: ID, request: AtomicRequests) -> None:
    have = requests.get(peer, AtomicRequests())
    requests[peer] = AtomicRequests(have.remove + request.remove, have.put + request.put)
