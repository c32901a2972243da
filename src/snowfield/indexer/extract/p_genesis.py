"""A P-Chain genesis UTXO as `platform.getUTXOs` returns it (its tx id is the empty id: no tx
created it). Pure."""

from __future__ import annotations

from snowfield.formats.ids import EMPTY_ID, P_CHAIN_ID
from snowfield.formats.platform.components import UTXO
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.platform.stakeable import LockOut
from snowfield.indexer.extract.platform import Addresses
from snowfield.store.primary_rows import UtxoRow


def genesis_utxo(utxo_bytes: bytes, addresses: Addresses) -> UtxoRow | None:
    """The row of a genesis UTXO; None for a UTXO some tx created."""
    utxo = UTXO.decode(utxo_bytes)
    if utxo.utxo_id.tx_id != EMPTY_ID:
        return None
    inner = utxo.output
    stakeable = None
    if isinstance(inner, LockOut):
        stakeable, inner = inner.locktime, inner.output
    if not isinstance(inner, TransferOutput):
        return None
    return UtxoRow(
        str(utxo.id),
        str(utxo.utxo_id.tx_id),
        utxo.utxo_id.output_index,
        str(utxo.asset_id),
        inner.amt,
        addresses.of(inner.owners.addresses),
        inner.owners.threshold,
        inner.owners.locktime,
        stakeable,
        False,
        str(P_CHAIN_ID),
        str(P_CHAIN_ID),
        "0x" + utxo_bytes.hex(),
    )
