"""The C-Chain's atomic txs from the containers of `/ext/index/C/block` (proposervm blocks
around coreth blocks, whose extra data holds the atomic txs): the UTXOs each ExportTx puts into
shared memory for the X- or P-Chain, and the UTXOs each ImportTx takes from it. Pure."""

from __future__ import annotations

from dataclasses import dataclass, field

import rlp

from snowfield.crypto.hashing import keccak
from snowfield.errors import InvalidParams
from snowfield.formats import proposervm
from snowfield.formats.atomic.extdata import block_ext_data, decode_batch
from snowfield.formats.atomic.txs import ExportTx, ImportTx
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import UTXO, UTXOID, TransferableOutput
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.indexer.extract.platform import Addresses
from snowfield.store.x_rows import XUtxoRow


@dataclass(slots=True)
class AtomicRows:
    """One accepted atomic tx of the C-Chain block at `height`."""

    tx_id: str
    tx_type: str  # ImportTx | ExportTx
    height: int  # the C-Chain block's number
    block_id: str  # the C-Chain block's hash (0x hex), as the EVM and the data API name it
    timestamp: int
    chain: str  # the source (import) or destination (export) chain
    tx_bytes: str
    fee: int  # nAVAX of `avax` burned: AVAX in less AVAX out
    exported: list[XUtxoRow] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)  # UTXO ids taken from shared memory


def _inner(container: bytes) -> bytes:
    """The coreth block of a container: inside a proposervm block, or itself before the
    proposervm fork."""
    try:
        return proposervm.parse(container).inner_block
    except InvalidParams:
        return container


def _evm_hash(block: bytes) -> str:
    """The coreth block's hash: keccak256 of its RLP header (the first item)."""
    header = rlp.decode(block)[0]
    digest = keccak(rlp.encode(header))
    return "0x" + digest.hex()


def _fee(unsigned: ImportTx | ExportTx, avax: ID) -> int:
    if isinstance(unsigned, ImportTx):
        paid = sum(i.input.amount for i in unsigned.imported_inputs if i.asset_id == avax)
        return paid - sum(o.amount for o in unsigned.outs if o.asset_id == avax)
    paid = sum(i.amount for i in unsigned.ins if i.asset_id == avax)
    return paid - sum(o.output.amount for o in unsigned.exported_outputs if o.asset_id == avax)


def extract_block(
    index: int,
    container_id: str,
    data: bytes,
    accepted_ns: int,
    addresses: Addresses,
    avax: ID,
) -> list[AtomicRows]:
    """The atomic txs of the container at position `index` of the C-Chain's block index."""
    out: list[AtomicRows] = []
    inner = _inner(data)
    height, extra = block_ext_data(inner)
    txs = decode_batch(extra)
    if not txs:
        return out
    block_hash = _evm_hash(inner)
    for tx in txs:
        unsigned = tx.unsigned
        tx_id = str(tx.id)
        stamp = accepted_ns // 1_000_000_000
        if isinstance(unsigned, ImportTx):
            rows = AtomicRows(
                tx_id, "ImportTx", height, block_hash, stamp, str(unsigned.source_chain),
                "0x" + tx.encode().hex(), _fee(unsigned, avax),
            )  # fmt: skip
            rows.imported = [str(i.utxo_id.input_id) for i in unsigned.imported_inputs]
        elif isinstance(unsigned, ExportTx):
            rows = AtomicRows(
                tx_id, "ExportTx", height, block_hash, stamp, str(unsigned.destination_chain),
                "0x" + tx.encode().hex(), _fee(unsigned, avax),
            )  # fmt: skip
            for i, out_ in enumerate(unsigned.exported_outputs):
                rows.exported.append(_exported(tx.id, i, out_, rows.chain, addresses))
        else:
            continue
        out.append(rows)
    return out


def _exported(
    tx: ID, index: int, out: TransferableOutput, chain: str, addresses: Addresses
) -> XUtxoRow:
    asset_id, inner = out.asset_id, out.output
    assert isinstance(inner, TransferOutput)  # ExportTx admits secp256k1fx outputs only
    utxo_id = UTXOID(tx, index)
    raw = UTXO(utxo_id, asset_id, inner).encode()
    return XUtxoRow(
        str(utxo_id.input_id),
        str(tx),
        index,
        str(asset_id),
        inner.amt,
        addresses.of(inner.owners.addresses),
        inner.owners.threshold,
        inner.owners.locktime,
        "SECP256K1",
        chain,
        "0x" + raw.hex(),
    )
