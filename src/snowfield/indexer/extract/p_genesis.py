"""A P-Chain genesis UTXO as `platform.getUTXOs` returns it (its tx id is the empty id: no tx
created it). Pure."""

from __future__ import annotations

from snowfield.formats.ids import EMPTY_ID
from snowfield.formats.platform.components import UTXO
from snowfield.indexer.extract.platform import Addresses, node_utxo
from snowfield.store.primary_rows import UtxoRow


def genesis_utxo(utxo_bytes: bytes, addresses: Addresses) -> UtxoRow | None:
    """The row of a genesis UTXO; None for a UTXO some tx created."""
    utxo = UTXO.decode(utxo_bytes)
    if utxo.utxo_id.tx_id != EMPTY_ID:
        return None
    return node_utxo(utxo, utxo_bytes, addresses)
