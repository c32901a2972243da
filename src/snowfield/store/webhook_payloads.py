"""The body of an `address_activity` delivery, built from the rows of the block being written:
chainkit's WebhookAddressActivityResponse ({webhookId, eventType, messageId, event:
{transaction, logs?}}), the transaction in its `Transaction` model with its ERC transfers and,
when asked, internal transactions and logs. Built once, at write time: the outbox keeps the exact
bytes that are signed and sent, so a retry sends the very same message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from snowfield.store.rows import BlockBundle, InternalTxRow, LogRow, TransferRow, TxRow

# Our ERC types as the webhook payload's `type` spells them ("ERC20"), and the token field.
_ERC_KIND = {
    "ERC-20": ("ERC20", "erc20Token", "erc20Transfers"),
    "ERC-721": ("ERC721", "erc721Token", "erc721Transfers"),
    "ERC-1155": ("ERC1155", "erc1155Token", "erc1155Transfers"),
}


@dataclass(frozen=True, slots=True)
class TokenFacts:
    name: str | None
    symbol: str | None
    decimals: int | None


@dataclass(frozen=True, slots=True)
class TxParts:
    """One transaction of a bundle and what it carries."""

    tx: TxRow
    cumulative_gas: int
    transfers: tuple[TransferRow, ...]
    internals: tuple[InternalTxRow, ...]
    logs: tuple[LogRow, ...]


def split(bundle: BlockBundle) -> list[TxParts]:
    """The bundle's transactions with their transfers, internal calls and logs."""
    transfers: dict[int, list[TransferRow]] = {}
    internals: dict[int, list[InternalTxRow]] = {}
    logs: dict[int, list[LogRow]] = {}
    for t in bundle.transfers:
        transfers.setdefault(t.tx_index, []).append(t)
    for i in bundle.internal_txs:
        internals.setdefault(i.tx_index, []).append(i)
    for log in bundle.logs:
        logs.setdefault(log.tx_index, []).append(log)
    out, cumulative = [], 0
    for tx in sorted(bundle.txs, key=lambda t: t.tx_index):
        # Invariant: a receipt's cumulative gas is the gas of the block's transactions so far.
        cumulative += tx.gas_used
        out.append(
            TxParts(
                tx,
                cumulative,
                tuple(transfers.get(tx.tx_index, ())),
                tuple(internals.get(tx.tx_index, ())),
                tuple(logs.get(tx.tx_index, ())),
            )
        )
    return out


def _with_decimals(value: int, decimals: int | None) -> str:
    if not decimals:
        return str(value)
    text = format(Decimal(value).scaleb(-decimals), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _transfer(t: TransferRow, facts: Mapping[str, TokenFacts]) -> dict[str, Any]:
    kind, token_field, _ = _ERC_KIND[t.erc_type]
    fact = facts.get(t.token, TokenFacts(None, None, None))
    decimals = fact.decimals if t.erc_type == "ERC-20" else 0
    out: dict[str, Any] = {
        "transactionHash": t.tx_hash,
        "type": kind,
        "from": t.from_addr,
        "to": t.to_addr,
        "value": str(t.value),
        "blockTimestamp": t.block_timestamp,
        "logIndex": t.log_index,
        token_field: {
            "address": t.token,
            "name": fact.name or "",
            "symbol": fact.symbol or "",
            "decimals": decimals or 0,
            "valueWithDecimals": _with_decimals(t.value, decimals),
        },
    }
    if t.token_id is not None:
        out["tokenId"] = str(t.token_id)
    return out


def _internal(i: InternalTxRow) -> dict[str, Any]:
    return {
        "from": i.from_addr,
        "to": i.to_addr,
        "internalTxType": i.call_type,
        "value": str(i.value),
        "gasUsed": str(i.gas_used),
        "gasLimit": str(i.gas_limit),
        "transactionHash": i.tx_hash,
    }


def log_entry(log: LogRow, *, removed: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"address": log.address, "topic0": log.topics[0] if log.topics else ""}
    for n, topic in enumerate(log.topics[1:4], start=1):
        out[f"topic{n}"] = topic
    out.update(
        {
            "data": log.data,
            "transactionIndex": log.tx_index,
            "logIndex": log.log_index,
            "removed": removed,
        }
    )
    return out


def transaction(
    parts: TxParts, block_hash: str, facts: Mapping[str, TokenFacts], *, internals: bool
) -> dict[str, Any]:
    """The payload's `transaction` (chainkit's Transaction model)."""
    tx = parts.tx
    out: dict[str, Any] = {
        "blockHash": block_hash,
        "blockNumber": str(tx.block_number),
        "from": tx.from_addr,
        "gas": str(tx.gas_limit),
        "gasPrice": str(tx.gas_price),
        # A legacy transaction names no fee caps: its gas price is both (as the real payloads).
        "maxFeePerGas": str(tx.max_fee_per_gas if tx.max_fee_per_gas is not None else tx.gas_price),
        "maxPriorityFeePerGas": str(
            tx.max_priority_fee_per_gas if tx.max_priority_fee_per_gas is not None else tx.gas_price
        ),
        "txHash": tx.hash,
        "txStatus": str(tx.status),
        "input": tx.input if tx.input is not None else tx.selector or "0x",
        "nonce": str(tx.nonce),
        "to": tx.to_addr or "",
        "transactionIndex": tx.tx_index,
        "value": str(tx.value),
        "type": tx.tx_type,
        "chainId": str(tx.chain_id),
        "receiptCumulativeGasUsed": str(parts.cumulative_gas),
        "receiptGasUsed": str(tx.gas_used),
        "receiptEffectiveGasPrice": str(tx.gas_price),
        # Post-Byzantium receipts carry a status, not a state root; the index keeps none.
        "receiptRoot": "",
        "blockTimestamp": tx.block_timestamp,
    }
    if tx.created is not None:
        out["contractAddress"] = tx.created
    for _, _, name in _ERC_KIND.values():
        out[name] = []
    for t in parts.transfers:
        out[_ERC_KIND[t.erc_type][2]].append(_transfer(t, facts))
    if internals:
        out["internalTransactions"] = [_internal(i) for i in parts.internals]
    return out


def event(
    parts: TxParts,
    block_hash: str,
    facts: Mapping[str, TokenFacts],
    *,
    logs: bool,
    internals: bool,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "transaction": transaction(parts, block_hash, facts, internals=internals)
    }
    if logs:
        out["logs"] = [log_entry(log) for log in parts.logs]
    return out


def involved(bundle: BlockBundle) -> dict[int, set[str]]:
    """Per transaction index, every address it involves (sender, receiver, token transfers,
    internal calls: the bundle's activity) and the contracts whose logs it emitted."""
    out: dict[int, set[str]] = {}
    for address, tx_index in bundle.activity:
        out.setdefault(tx_index, set()).add(address)
    for log in bundle.logs:
        out.setdefault(log.tx_index, set()).add(log.address)
    return out


def topics0(parts: TxParts) -> set[str]:
    return {log.topics[0] for log in parts.logs if log.topics}


def addresses_of(bundles: Sequence[BlockBundle]) -> list[str]:
    return sorted({a for b in bundles for addresses in involved(b).values() for a in addresses})
