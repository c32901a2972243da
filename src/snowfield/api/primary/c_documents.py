"""The C-Chain's atomic resources as the real service renders them: a shared-memory UTXO (Utxo,
created on one chain and consumed on another), and CChainExportTransaction /
CChainImportTransaction, from the tx's own bytes and the UTXOs the index joined to it."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence

from eth_utils import to_checksum_address

from snowfield.api.operation import Json
from snowfield.formats.atomic.txs import AtomicTx, ExportTx, ImportTx
from snowfield.formats.platform.secp256k1fx import Credential, TransferInput
from snowfield.store.atomic_utxos import AtomicUtxo
from snowfield.store.c_atomic_queries import CTx
from snowfield.store.x_documents import Assets


def utxo(assets: Assets, u: AtomicUtxo) -> Json:
    out: Json = {
        "addresses": list(u.addresses),
        "asset": assets.amount(u.asset_id, u.amount),
        "consumedOnChainId": u.consumed_on,
        "createdOnChainId": u.created_on,
        "utxoId": u.utxo_id,
        "creationTxHash": u.tx_id,
        "locktime": u.locktime,
        "outputIndex": str(u.output_index),
        "threshold": u.threshold,
        "timestamp": u.timestamp,
        "utxoType": "transfer",  # shared memory holds secp256k1fx transfer outputs only
    }
    if u.utxo_bytes is not None:
        out["utxoBytes"] = u.utxo_bytes
    if u.consuming_tx is not None:
        out["consumingTxHash"] = u.consuming_tx
        out["consumingTxTimestamp"] = u.consuming_timestamp
    return out


def _sums(assets: Assets, entries: Iterable[tuple[str, int]]) -> list[Json]:
    totals: dict[str, int] = {}
    for asset_id, amount in entries:
        totals[asset_id] = totals.get(asset_id, 0) + amount
    return [assets.amount(a, v) for a, v in sorted(totals.items())]


def _credentials(tx: AtomicTx) -> list[list[Json]]:
    """Per credential, its signatures (UtxoCredential, base64 as the real service's example).
    `publicKey` is left out: recovering it is the crypto package's, which the API does not
    import (the import contracts)."""
    return [
        [
            {"signature": base64.b64encode(sig).decode()}
            for sig in (cred.signatures if isinstance(cred, Credential) else ())
        ]
        for cred in tx.credentials
    ]


def decode(t: CTx) -> AtomicTx:
    # The index keeps the tx's bytes as plain 0x hex (no checksum).
    return AtomicTx.decode(bytes.fromhex(t.tx_bytes.removeprefix("0x")))


def transaction(
    assets: Assets, cchain: str, t: CTx, tx: AtomicTx, utxos: Sequence[AtomicUtxo]
) -> Json:
    """`utxos`: what the index joined to the tx (an export's emitted UTXOs, an import's
    consumed ones)."""
    out: Json = {
        "txHash": t.tx_id,
        "blockHeight": t.height,
        "blockHash": t.block_hash,
        "timestamp": t.timestamp,
        "memo": "",  # atomic txs carry no memo
        "txType": t.tx_type,
    }
    unsigned = tx.unsigned
    if isinstance(unsigned, ExportTx):
        creds = _credentials(tx)
        out["sourceChain"], out["destinationChain"] = cchain, str(unsigned.destination_chain)
        out["amountUnlocked"] = _sums(assets, ((str(i.asset_id), i.amount) for i in unsigned.ins))
        out["amountCreated"] = _sums(
            assets, ((str(o.asset_id), o.output.amount) for o in unsigned.exported_outputs)
        )
        out["evmInputs"] = [
            {
                "fromAddress": to_checksum_address(i.address),
                "asset": assets.amount(str(i.asset_id), i.amount),
                "credentials": creds[n] if n < len(creds) else [],
            }
            for n, i in enumerate(unsigned.ins)
        ]
        out["emittedUtxos"] = [utxo(assets, u) for u in sorted(utxos, key=_by_index)]
    elif isinstance(unsigned, ImportTx):
        out["sourceChain"], out["destinationChain"] = str(unsigned.source_chain), cchain
        ins = unsigned.imported_inputs
        out["amountUnlocked"] = _sums(assets, ((str(i.asset_id), _amount(i.input)) for i in ins))
        out["amountCreated"] = _sums(assets, ((str(o.asset_id), o.amount) for o in unsigned.outs))
        out["evmOutputs"] = [
            {
                "toAddress": to_checksum_address(o.address),
                "asset": assets.amount(str(o.asset_id), o.amount),
            }
            for o in unsigned.outs
        ]
        known = {u.utxo_id: u for u in utxos}
        out["consumedUtxos"] = [
            utxo(assets, known[str(i.utxo_id.input_id)])
            for i in ins
            if str(i.utxo_id.input_id) in known
        ]
    return out


def _amount(inp: object) -> int:
    return inp.amount if isinstance(inp, TransferInput) else 0


def _by_index(u: AtomicUtxo) -> int:
    return u.output_index
