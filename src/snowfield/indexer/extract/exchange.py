"""X-Chain rows from the containers of `/ext/index/X/tx`: every accepted tx in acceptance order,
those of the DAG (vertex) era and those of the linear (block) era alike. Pure: bytes in, rows out.

Output indices follow avalanchego's avm (`txs.Tx.UTXOs`): the BaseTx outputs first, then a
CreateAssetTx's initial states (state by state, output by output) or an OperationTx's operation
outputs (operation by operation), or an ExportTx's exported outputs (those live in shared
memory for the destination chain: `consumed_on` names it)."""

from __future__ import annotations

from collections.abc import Iterator

from snowfield.formats import proposervm
from snowfield.formats.exchange import fxs
from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.exchange.txs import (
    UTXO,
    BaseTx,
    CreateAssetTx,
    ExportTx,
    ImportTx,
    OperationTx,
    Tx,
)
from snowfield.formats.exchange.types import owners_of
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import UTXOID
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.registry import Encodable
from snowfield.indexer.extract.platform import Addresses
from snowfield.store.x_rows import XAssetRow, XPlace, XTxRows, XUtxoRow

# The real service's XChainTransactionType names of the avm's tx types.
TX_TYPES = {
    BaseTx: "BaseTx",
    CreateAssetTx: "CreateAssetTx",
    OperationTx: "OperationTx",
    ImportTx: "ImportTx",
    ExportTx: "ExportTx",
}
_OUTPUT_TYPES: dict[type, str] = {
    TransferOutput: "SECP256K1",
    fxs.MintOutput: "SECP256K1_MINT",
    fxs.NftTransferOutput: "NFT",
    fxs.NftMintOutput: "NFT_MINT",
    fxs.PropertyMintOutput: "PROPERTY_MINT",
    fxs.PropertyOwnedOutput: "PROPERTY",
}
_MINTS = (fxs.MintOutput, fxs.NftMintOutput, fxs.PropertyMintOutput)


def extract_tx(
    index: int, data: bytes, accepted_ns: int, xchain: str, addresses: Addresses
) -> XTxRows:
    """The rows of the accepted tx at position `index` of the X-Chain's tx index."""
    tx = Tx.decode(data)
    unsigned = tx.unsigned
    tx_id = str(tx.id)
    rows = XTxRows(
        index,
        tx_id,
        accepted_ns // 1_000_000_000,
        TX_TYPES[type(unsigned)],
        "0x" + unsigned.base.memo.hex(),
        str(unsigned.source_chain) if isinstance(unsigned, ImportTx) else None,
        str(unsigned.destination_chain) if isinstance(unsigned, ExportTx) else None,
        "0x" + data.hex(),
    )
    destination = rows.destination_chain or xchain
    for i, (asset_id, output, on) in enumerate(_outputs(tx, xchain, destination)):
        rows.utxos.append(_utxo(tx.id, i, asset_id, output, on, addresses))
    rows.consumed = [str(i.utxo_id.input_id) for i in unsigned.base.inputs]
    if isinstance(unsigned, OperationTx):
        rows.consumed += [str(u.input_id) for op in unsigned.operations for u in op.utxo_ids]
    if isinstance(unsigned, ImportTx):
        rows.imported = [str(i.utxo_id.input_id) for i in unsigned.imported_inputs]
    for u in rows.utxos:
        rows.addresses.update(u.addresses)
    if isinstance(unsigned, CreateAssetTx):
        states = [o for s in unsigned.states for o in s.outputs]
        cap = "variable" if any(isinstance(o, _MINTS) for o in states) else "fixed"
        rows.asset = XAssetRow(tx_id, unsigned.name, unsigned.symbol, unsigned.denomination, cap)
    return rows


def _outputs(tx: Tx, xchain: str, destination: str) -> Iterator[tuple[ID, Encodable, str]]:
    """(asset, fx output, the chain it lives on) of each output, in output-index order."""
    unsigned = tx.unsigned
    yield from ((o.asset_id, o.output, xchain) for o in unsigned.base.outputs)
    if isinstance(unsigned, CreateAssetTx):
        for state in unsigned.states:
            yield from ((tx.id, o, xchain) for o in state.outputs)
    elif isinstance(unsigned, OperationTx):
        for op in unsigned.operations:
            yield from ((op.asset_id, o, xchain) for o in op.op.outputs())
    elif isinstance(unsigned, ExportTx):
        yield from ((o.asset_id, o.output, destination) for o in unsigned.exported_outputs)


def _utxo(
    tx: ID, index: int, asset_id: ID, output: Encodable, on: str, addresses: Addresses
) -> XUtxoRow:
    owners = owners_of(output)
    utxo_id = UTXOID(tx, index)
    raw = UTXO(utxo_id, asset_id, output).encode()
    return XUtxoRow(
        str(utxo_id.input_id),
        str(tx),
        index,
        str(asset_id),
        output.amt if isinstance(output, TransferOutput) else 0,
        addresses.of(owners.addresses),
        owners.threshold,
        owners.locktime,
        _OUTPUT_TYPES.get(type(output), type(output).__name__),
        on,
        "0x" + raw.hex(),
    )


def block_places(index: int, container_id: str, data: bytes, accepted_ns: int) -> list[XPlace]:
    """Where the txs of one linear-era container (a proposervm block around a StandardBlock)
    were accepted: its id is the container's, its height the inner block's."""
    block = StandardBlock.decode(proposervm.parse(data).inner_block)
    stamp = block.time or accepted_ns // 1_000_000_000
    return [XPlace(str(tx.id), container_id, block.height, stamp, index) for tx in block.txs]
