"""Verifies an X-Chain tx against the state and says what accepting it changes.

A port of the facts in avalanchego `vms/avm/txs/executor` (syntactic and semantic verifiers,
the executor's UTXO numbering) with their error texts: network and chain ids, credential
counts, each spent UTXO's owner signatures and locktime, the flow check (per asset, consumed
≥ produced, plus the static fee in AVAX), asset rules for new assets, each operation spending
the output its fx mints or moves, and atomic inputs from and outputs to P and C.

Public API: `Effect`, `verify(state, shared_memory, tx, now)`, `apply(state, effect)`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from snowfield.chains.atomic import AtomicElement, AtomicRequests, SharedMemory
from snowfield.chains.exchange.state import (
    NFT_FX,
    PROPERTY_FX,
    SECP_FX,
    Asset,
    ExchangeState,
)
from snowfield.chains.secp256k1fx import Signers, verify_owner
from snowfield.errors import InvalidParams
from snowfield.formats.exchange import fxs
from snowfield.formats.exchange.txs import (
    UTXO,
    BaseTx,
    CreateAssetTx,
    ExportTx,
    ImportTx,
    OperationTx,
    Tx,
)
from snowfield.formats.exchange.types import FxOperation, owners_of
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import UTXOID, BaseTxFields, TransferableInput
from snowfield.formats.platform.secp256k1fx import TransferInput, TransferOutput
from snowfield.formats.platform.types import AnyCredential
from snowfield.formats.registry import Encodable

MIN_NAME_LEN, MAX_NAME_LEN = 1, 128
MIN_SYMBOL_LEN, MAX_SYMBOL_LEN = 1, 4
MAX_DENOMINATION = 32
# Which outputs each fx creates, and what each operation may spend.
_FX_OUTPUTS: dict[int, tuple[type[Encodable], ...]] = {
    SECP_FX: (TransferOutput, fxs.MintOutput),
    NFT_FX: (fxs.NftMintOutput, fxs.NftTransferOutput),
    PROPERTY_FX: (fxs.PropertyMintOutput, fxs.PropertyOwnedOutput),
}
_OPERATION_SPENDS: dict[type[FxOperation], tuple[int, type[Encodable]]] = {
    fxs.MintOperation: (SECP_FX, fxs.MintOutput),
    fxs.NftMintOperation: (NFT_FX, fxs.NftMintOutput),
    fxs.NftTransferOperation: (NFT_FX, fxs.NftTransferOutput),
    fxs.PropertyMintOperation: (PROPERTY_FX, fxs.PropertyMintOutput),
    fxs.PropertyBurnOperation: (PROPERTY_FX, fxs.PropertyOwnedOutput),
}


@dataclass(frozen=True, slots=True)
class Effect:
    """What accepting one tx does: UTXOs spent and created, an asset, shared-memory requests."""

    tx: Tx
    consumed: tuple[ID, ...]
    produced: tuple[UTXO, ...]
    asset: Asset | None = None
    atomic: dict[ID, AtomicRequests] | None = None


def verify(state: ExchangeState, shared_memory: SharedMemory, tx: Tx, now: int) -> Effect:
    """The effect of `tx` on `state`; InvalidParams with avalanchego's reason if it is invalid."""
    unsigned = tx.unsigned
    base: BaseTxFields = unsigned.base  # every AVM tx embeds the BaseTx body
    _check_ids(state, base)
    check = _Spend(state, tx, now)
    if isinstance(unsigned, CreateAssetTx):
        return check.create_asset(unsigned)
    if isinstance(unsigned, OperationTx):
        return check.operations(unsigned)
    if isinstance(unsigned, ImportTx):
        return check.import_(unsigned, shared_memory)
    if isinstance(unsigned, ExportTx):
        return check.export(unsigned)
    if isinstance(unsigned, BaseTx):
        return check.base_tx(unsigned)
    raise InvalidParams(f"unsupported tx type {type(unsigned).__name__}")


def apply(state: ExchangeState, effect: Effect) -> None:
    """Accepts a verified effect (shared memory is the chain's to apply, once per container)."""
    for utxo_id in effect.consumed:
        state.utxos.remove(utxo_id)
    for utxo in effect.produced:
        state.utxos.add(utxo)
    if effect.asset is not None:
        state.assets[effect.asset.asset_id] = effect.asset
    state.txs[effect.tx.id] = effect.tx


def _check_ids(state: ExchangeState, base: BaseTxFields) -> None:
    config = state.config
    if base.network_id != config.network_id:
        raise InvalidParams(
            f"tx has wrong network ID: expected {config.network_id} got {base.network_id}"
        )
    if base.blockchain_id != config.chain_id:
        raise InvalidParams(
            f"tx has wrong chain ID: expected {config.chain_id} got {base.blockchain_id}"
        )


class _Spend:
    """The checks of one tx: its inputs, credentials and flow of funds."""

    def __init__(self, state: ExchangeState, tx: Tx, now: int) -> None:
        self.state, self.tx, self.now = state, tx, now
        self.signers = Signers(tx)
        self.consumed: dict[ID, int] = defaultdict(int)
        self.produced: dict[ID, int] = defaultdict(int)
        self.spent: list[ID] = []

    # --- the tx types ----------------------------------------------------------------------

    def base_tx(self, tx: BaseTx) -> Effect:
        self._credentials(len(tx.base.inputs))
        self._spend_base(tx.base, self.state.config.tx_fee)
        return Effect(self.tx, tuple(self.spent), tuple(self._outputs(tx.base)))

    def create_asset(self, tx: CreateAssetTx) -> Effect:
        _check_asset(tx)
        self._credentials(len(tx.base.inputs))
        self._spend_base(tx.base, self.state.config.create_asset_tx_fee)
        tx_id = self.tx.id
        produced = self._outputs(tx.base)
        for state in tx.states:
            for output in state.outputs:
                produced.append(UTXO(UTXOID(tx_id, len(produced)), tx_id, output))
        fx_indices = frozenset(s.fx_index for s in tx.states)
        asset = Asset(tx_id, tx.name, tx.symbol, tx.denomination, fx_indices)
        return Effect(self.tx, tuple(self.spent), tuple(produced), asset)

    def operations(self, tx: OperationTx) -> Effect:
        if not tx.operations:
            raise InvalidParams("an operationTx must have at least one operation")
        self._credentials(len(tx.base.inputs) + len(tx.operations))
        self._spend_base(tx.base, self.state.config.tx_fee)
        produced = self._outputs(tx.base)
        credentials = self.tx.credentials[len(tx.base.inputs) :]
        for operation, credential in zip(tx.operations, credentials, strict=True):
            self._operate(operation.asset_id, operation.utxo_ids, operation.op, credential)
            for output in operation.op.outputs():
                produced.append(UTXO(UTXOID(self.tx.id, len(produced)), operation.asset_id, output))
        return Effect(self.tx, tuple(self.spent), tuple(produced))

    def import_(self, tx: ImportTx, shared_memory: SharedMemory) -> Effect:
        if not tx.imported_inputs:
            raise InvalidParams("no import inputs")
        self._check_peer(tx.source_chain, "source")
        self._credentials(len(tx.base.inputs) + len(tx.imported_inputs))
        keys = [inp.utxo_id.input_id.raw for inp in tx.imported_inputs]
        try:
            values = shared_memory.get(self.state.config.chain_id, tx.source_chain, keys)
        except InvalidParams:
            raise InvalidParams("failed to get shared memory: not found") from None
        credentials = self.tx.credentials[len(tx.base.inputs) :]
        for inp, value, credential in zip(tx.imported_inputs, values, credentials, strict=True):
            self._consume(inp, UTXO.decode(value), credential, imported=True)
        self._spend_base(tx.base, self.state.config.tx_fee)
        atomic = {tx.source_chain: AtomicRequests(remove=tuple(keys))}
        return Effect(self.tx, tuple(self.spent), tuple(self._outputs(tx.base)), atomic=atomic)

    def export(self, tx: ExportTx) -> Effect:
        if not tx.exported_outputs:
            raise InvalidParams("no export outputs")
        self._check_peer(tx.destination_chain, "destination")
        self._credentials(len(tx.base.inputs))
        for out in tx.exported_outputs:
            self.produced[out.asset_id] += out.output.amount
        self._spend_base(tx.base, self.state.config.tx_fee)
        produced = self._outputs(tx.base)
        elements = []
        for i, out in enumerate(tx.exported_outputs):
            utxo = UTXO(UTXOID(self.tx.id, len(tx.base.outputs) + i), out.asset_id, out.output)
            traits = tuple(a.raw for a in owners_of(out.output).addresses)
            elements.append(AtomicElement(utxo.id.raw, utxo.encode(), traits))
        atomic = {tx.destination_chain: AtomicRequests(put=tuple(elements))}
        return Effect(self.tx, tuple(self.spent), tuple(produced), atomic=atomic)

    # --- the parts -------------------------------------------------------------------------

    def _credentials(self, expected: int) -> None:
        if len(self.tx.credentials) != expected:
            raise InvalidParams(
                f"wrong number of credentials: {len(self.tx.credentials)} != {expected}"
            )

    def _check_peer(self, chain_id: ID, what: str) -> None:
        # The X-Chain trades with the other chains of the primary network: P and C.
        if chain_id == self.state.config.chain_id or chain_id not in _peers(self.state):
            raise InvalidParams(f"{what} chain {chain_id} is not in the primary network")

    def _spend_base(self, base: BaseTxFields, fee: int) -> None:
        """The BaseTx's own inputs (credentials in input order) and the flow check."""
        for inp, credential in zip(base.inputs, self.tx.credentials, strict=False):
            utxo = self.state.utxos.get(inp.utxo_id.input_id)
            if utxo is None or inp.utxo_id.input_id in self.spent:
                raise InvalidParams(f"failed to get UTXO {inp.utxo_id}: not found")
            self._consume(inp, utxo, credential, imported=False)
        for out in base.outputs:
            self.produced[out.asset_id] += out.output.amount
        self.produced[self.state.config.avax_asset_id] += fee
        for asset, amount in self.produced.items():
            have = self.consumed[asset]
            if amount > have:
                raise InvalidParams(
                    f"insufficient funds: needs {amount - have} more units of asset {asset}"
                )

    def _consume(
        self, inp: TransferableInput, utxo: UTXO, credential: AnyCredential, *, imported: bool
    ) -> None:
        if inp.asset_id != utxo.asset_id:
            raise InvalidParams("attempting to consume an asset with a different asset ID")
        spent, transfer = utxo.output, inp.input
        if not isinstance(spent, TransferOutput) or not isinstance(transfer, TransferInput):
            raise InvalidParams("incompatible input and output types")
        if transfer.amt != spent.amt:
            raise InvalidParams("utxo amount and input amount are not equal")
        verify_owner(self.signers, spent.owners, transfer.sig_indices, credential, self.now)
        self.consumed[utxo.asset_id] += transfer.amt
        if not imported:
            self.spent.append(utxo.id)

    def _operate(
        self,
        asset_id: ID,
        utxo_ids: Sequence[UTXOID],
        operation: FxOperation,
        credential: AnyCredential,
    ) -> None:
        fx_index, spends = _OPERATION_SPENDS[type(operation)]
        asset = self.state.assets.get(asset_id)
        if asset is None or fx_index not in asset.fx_indices:
            raise InvalidParams(f"asset {asset_id} does not support this operation's fx")
        if len(utxo_ids) != 1:
            raise InvalidParams("wrong number of utxos for the operation")
        utxo = self.state.utxos.get(utxo_ids[0].input_id)
        if utxo is None or utxo.id in self.spent:
            raise InvalidParams(f"failed to get UTXO {utxo_ids[0]}: not found")
        if utxo.asset_id != asset_id:
            raise InvalidParams("attempting to consume an asset with a different asset ID")
        if not isinstance(utxo.output, spends):
            raise InvalidParams("wrong utxo type for the operation")
        _check_operation(operation, utxo.output)
        indices = operation.spend_input.indices
        verify_owner(self.signers, owners_of(utxo.output), indices, credential, self.now)
        self.spent.append(utxo.id)

    def _outputs(self, base: BaseTxFields) -> list[UTXO]:
        tx_id = self.tx.id
        return [
            UTXO(UTXOID(tx_id, i), out.asset_id, out.output) for i, out in enumerate(base.outputs)
        ]


def _peers(state: ExchangeState) -> frozenset[ID]:
    return state.peers


def _check_operation(operation: FxOperation, spent: Encodable) -> None:
    """What an operation creates must match what it spends (nftfx rules)."""
    same = True
    if isinstance(operation, fxs.NftMintOperation) and isinstance(spent, fxs.NftMintOutput):
        same = operation.group_id == spent.group_id
    elif isinstance(operation, fxs.NftTransferOperation) and isinstance(
        spent, fxs.NftTransferOutput
    ):
        moved = operation.output
        same = (moved.group_id, moved.payload) == (spent.group_id, spent.payload)
    if not same:
        raise InvalidParams("wrong unique ID provided")


def _check_asset(tx: CreateAssetTx) -> None:
    """The syntactic rules of a new asset, with avalanchego's texts."""
    name, symbol = tx.name, tx.symbol
    problem = None
    if len(name) < MIN_NAME_LEN:
        problem = f"name is too short, minimum size is {MIN_NAME_LEN}"
    elif len(name) > MAX_NAME_LEN:
        problem = f"name is too long, maximum size is {MAX_NAME_LEN}"
    elif len(symbol) < MIN_SYMBOL_LEN:
        problem = f"symbol is too short, minimum size is {MIN_SYMBOL_LEN}"
    elif len(symbol) > MAX_SYMBOL_LEN:
        problem = f"symbol is too long, maximum size is {MAX_SYMBOL_LEN}"
    elif not tx.states:
        problem = "assets must support at least one Fx"
    elif tx.denomination > MAX_DENOMINATION:
        problem = "denomination is too large"
    elif name.strip() != name:
        problem = "unexpected whitespace provided"
    elif not all(c.isascii() and (c.isalnum() or c == " ") for c in name):
        problem = "asset's name must be made up of only letters and numbers"
    elif not all(c.isascii() and c.isupper() for c in symbol):
        problem = "asset's symbol must be all upper case letters"
    if problem:
        raise InvalidParams(problem)
    for state in tx.states:
        allowed = _FX_OUTPUTS.get(state.fx_index)
        if allowed is None:
            raise InvalidParams("unknown fx")
        if not all(isinstance(out, allowed) for out in state.outputs):
            raise InvalidParams("initial state output does not belong to its fx")
