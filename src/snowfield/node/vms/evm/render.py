"""JSON shapes of blocks, transactions, receipts and logs, as coreth renders them."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.model import Authorization, Block, Log, Receipt, Tx


def hx(value: int) -> str:
    return hex(value)


def hb(value: bytes) -> str:
    return "0x" + value.hex()


def header_json(block: Block) -> dict[str, Any]:
    h = block.header
    out = _header_fields(block)
    if not h.has_ext_data:  # the custom EVM's header has no atomic fields
        for name in ("blockExtraData", "extDataGasUsed", "extDataHash"):
            del out[name]
    return out


def _header_fields(block: Block) -> dict[str, Any]:
    h = block.header
    return {
        "baseFeePerGas": hx(h.base_fee),
        "blobGasUsed": hx(h.blob_gas_used),
        "blockExtraData": hb(block.ext_data),
        "blockGasCost": hx(h.block_gas_cost),
        "difficulty": hx(h.difficulty),
        "excessBlobGas": hx(h.excess_blob_gas),
        "extDataGasUsed": hx(h.ext_data_gas_used),
        "extDataHash": hb(h.ext_data_hash),
        "extraData": hb(h.extra_data),
        "gasLimit": hx(h.gas_limit),
        "gasUsed": hx(h.gas_used),
        "hash": hb(block.hash),
        "logsBloom": hb(h.bloom),
        "miner": hb(h.coinbase),
        "mixHash": hb(h.mix_hash),
        "nonce": hb(h.nonce),
        "number": hx(h.number),
        "parentBeaconBlockRoot": hb(h.parent_beacon_root),
        "parentHash": hb(h.parent_hash),
        "receiptsRoot": hb(h.receipt_root),
        "sha3Uncles": hb(h.uncle_hash),
        "size": hx(block.size),
        "stateRoot": hb(h.state_root),
        "timestamp": hx(h.timestamp),
        "transactionsRoot": hb(h.tx_root),
    }


def block_json(block: Block, full: bool) -> dict[str, Any]:
    out = header_json(block)
    if full:
        out["transactions"] = [tx_json(tx, block, i) for i, tx in enumerate(block.txs)]
    else:
        out["transactions"] = [hb(tx.hash) for tx in block.txs]
    out["uncles"] = []
    return out


def tx_json(tx: Tx, block: Block | None = None, index: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "blockHash": hb(block.hash) if block else None,
        "blockNumber": hx(block.number) if block else None,
        "from": hb(tx.sender),
        "gas": hx(tx.gas),
        "gasPrice": hx(tx.effective_gas_price(block.header.base_fee) if block else tx.max_fee),
    }
    if tx.type >= 2:
        out["maxFeePerGas"] = hx(tx.max_fee)
        out["maxPriorityFeePerGas"] = hx(tx.max_priority_fee)
    out.update(
        {
            "hash": hb(tx.hash),
            "input": hb(tx.data),
            "nonce": hx(tx.nonce),
            "to": hb(tx.to) if tx.to is not None else None,
            "transactionIndex": hx(index) if index is not None else None,
            "value": hx(tx.value),
            "type": hx(tx.type),
        }
    )
    if tx.type >= 1:
        out["accessList"] = [
            {"address": hb(addr), "storageKeys": ["0x" + k.to_bytes(32, "big").hex() for k in keys]}
            for addr, keys in tx.access_list
        ]
    if tx.chain_id is not None:
        out["chainId"] = hx(tx.chain_id)
    if tx.type == 4:
        out["authorizationList"] = [authorization_json(a) for a in tx.authorizations]
    out["v"] = hx(tx.v)
    out["r"] = hx(tx.r)
    out["s"] = hx(tx.s)
    if tx.type >= 1:
        out["yParity"] = hx(tx.v)
    return out


def transaction_json(tx: Tx) -> dict[str, Any]:
    """A transaction on its own, as geth marshals types.Transaction (eth_signTransaction):
    no block position and no sender."""
    out = tx_json(tx)
    for key in ("blockHash", "blockNumber", "transactionIndex", "from"):
        del out[key]
    if tx.type >= 2:
        del out["gasPrice"]
    return out


def authorization_json(auth: Authorization) -> dict[str, Any]:
    return {
        "chainId": hx(auth.chain_id),
        "address": hb(auth.address),
        "nonce": hx(auth.nonce),
        "yParity": hx(auth.y_parity),
        "r": hx(auth.r),
        "s": hx(auth.s),
    }


def logs_json(block: Block, tx_index: int) -> list[dict[str, Any]]:
    first = sum(len(r.logs) for r in block.receipts[:tx_index])
    tx = block.txs[tx_index]
    return [
        log_json(log, block, tx, tx_index, first + i)
        for i, log in enumerate(block.receipts[tx_index].logs)
    ]


def log_json(
    log: Log, block: Block, tx: Tx, tx_index: int, log_index: int, *, removed: bool = False
) -> dict[str, Any]:
    return {
        "address": hb(log.address),
        "topics": [hb(t) for t in log.topics],
        "data": hb(log.data),
        "blockNumber": hx(block.number),
        "transactionHash": hb(tx.hash),
        "transactionIndex": hx(tx_index),
        "blockHash": hb(block.hash),
        "logIndex": hx(log_index),
        "removed": removed,
    }


def receipt_json(block: Block, index: int) -> dict[str, Any]:
    tx = block.txs[index]
    receipt: Receipt = block.receipts[index]
    return {
        "blockHash": hb(block.hash),
        "blockNumber": hx(block.number),
        "contractAddress": hb(receipt.contract_address) if receipt.contract_address else None,
        "cumulativeGasUsed": hx(receipt.cumulative_gas),
        "effectiveGasPrice": hx(receipt.effective_gas_price),
        "from": hb(tx.sender),
        "gasUsed": hx(receipt.gas_used),
        "logs": logs_json(block, index),
        "logsBloom": hb(receipt.bloom),
        "status": hx(receipt.status),
        "to": hb(tx.to) if tx.to is not None else None,
        "transactionHash": hb(tx.hash),
        "transactionIndex": hx(index),
        "type": hx(tx.type),
    }
