"""The JSON of a transaction and of what happened in it, as the data service returns it:
camelCase, big numbers as strings, optional fields omitted (never null).

These objects are also operation 5's read model: `write_batch` renders each transaction's
`nativeTransaction` and, per involved address, its sub-lists, when it writes the rows, so that
the service answers a page with one query. A document is a cache of this rendering: NULL means
"render from the rows" (rows written before documents existed, or whose token facts arrived
later), never a different answer."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar

import orjson

from snowfield.store.rows import InternalTxRow, NftRow, TokenRow, TransferRow, TxRow
from snowfield.store.selectors import METHOD_NAMES

Json = dict[str, Any]
Tokens = Mapping[str, TokenRow]
Nfts = Mapping[tuple[str, int], NftRow]


def joined(items: Sequence[bytes]) -> orjson.Fragment:
    """A JSON array of finished documents' bytes, for orjson to embed verbatim (a stored page
    inside a larger answer: P-Chain UTXOs; operation 5 and listNative join their whole answer
    instead, store/history_pages.py)."""
    return orjson.Fragment(b"[" + b",".join(items) + b"]")


class _HasParties(Protocol):
    @property
    def from_addr(self) -> str: ...
    @property
    def to_addr(self) -> str | None: ...


_Party = TypeVar("_Party", bound=_HasParties)

ERC_TYPES = ("ERC-20", "ERC-721", "ERC-1155")
INTERNAL_TX_TYPES = frozenset(
    {"UNKNOWN", "CALL", "CREATE", "CREATE2", "CREATE3", "CALLCODE", "DELEGATECALL", "STATICCALL"}
)
ZERO_ADDRESS = "0x" + "00" * 20
# Keys of fetched NFT metadata JSON (ERC-721 metadata standard and OpenSea) → the spec's names.
_NFT_FIELDS = (
    ("name", ("name",)),
    ("symbol", ("symbol",)),
    ("imageUri", ("imageUri", "image")),
    ("description", ("description",)),
    ("animationUri", ("animationUri", "animation_url")),
    ("externalUrl", ("externalUrl", "external_url")),
    ("background", ("background", "background_color")),
)


def party(address: str, tokens: Tokens) -> Json:
    """A from/to party: the address, plus token facts when the address is a known token."""
    out: Json = {"address": address}
    token = tokens.get(address)
    if token is not None and token.erc_type in ERC_TYPES:
        put(out, name=token.name, symbol=token.symbol, decimals=token.decimals)
    return out


def put(out: Json, **values: Any) -> None:
    # Invariant: optional fields are omitted, never null (the clients reject null).
    out.update({k: v for k, v in values.items() if v is not None})


def method(tx: TxRow) -> Json:
    if tx.to_addr is None:
        return {
            "callType": "CONTRACT_CREATION",
            "methodHash": "",
            "methodName": "Contract Creation",
        }
    if not tx.selector:
        return {"callType": "NATIVE_TRANSFER", "methodHash": "", "methodName": "Native Transfer"}
    out: Json = {"callType": "CONTRACT_CALL", "methodHash": tx.selector}
    put(out, methodName=METHOD_NAMES.get(tx.selector))
    return out


def native_transaction(tx: TxRow, tokens: Tokens) -> Json:
    # A creation's `to` is the contract it created (the clients require a `to`).
    to = tx.to_addr or tx.created or ZERO_ADDRESS
    return {
        "blockNumber": str(tx.block_number),
        "blockTimestamp": tx.block_timestamp,
        "blockHash": tx.block_hash,
        "chainId": str(tx.chain_id),
        "blockIndex": tx.tx_index,
        "txHash": tx.hash,
        "txStatus": "1" if tx.status else "0",
        "txType": tx.tx_type,
        "gasLimit": str(tx.gas_limit),
        "gasUsed": str(tx.gas_used),
        "gasPrice": str(tx.gas_price),
        "nonce": str(tx.nonce),
        "from": party(tx.from_addr, tokens),
        "to": party(to, tokens),
        "method": method(tx),
        "value": str(tx.value),
    }


def _token_name(tokens: Tokens, address: str) -> tuple[str, str]:
    token = tokens.get(address)
    if token is None:
        return "", ""
    return token.name or "", token.symbol or ""


def erc20_token(address: str, tokens: Tokens) -> Json:
    name, symbol = _token_name(tokens, address)
    token = tokens.get(address)
    # ERC-20 `decimals()` is optional; wallets assume 18 when a token does not answer.
    decimals = token.decimals if token is not None and token.decimals is not None else 18
    return {
        "address": address,
        "name": name,
        "symbol": symbol,
        "decimals": decimals,
        "ercType": "ERC-20",
    }


def nft_metadata(nft: NftRow | None, erc_type: str) -> Json:
    if nft is None:
        return {"indexStatus": "unindexed"}
    out: Json = {"indexStatus": nft.index_status}
    put(out, metadataLastUpdatedTimestamp=nft.metadata_updated)
    for name, keys in _NFT_FIELDS:
        value = next((nft.metadata[k] for k in keys if k in nft.metadata), None)
        if isinstance(value, str):
            out[name] = value
    extra = "attributes" if erc_type == "ERC-721" else "properties"
    if extra in nft.metadata and nft.metadata[extra] is not None:
        value = nft.metadata[extra]
        out[extra] = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    if erc_type == "ERC-1155" and isinstance(nft.metadata.get("decimals"), int):
        out["decimals"] = nft.metadata["decimals"]
    return out


def erc721_token(token: str, token_id: int, tokens: Tokens, nft: NftRow | None) -> Json:
    name, symbol = _token_name(tokens, token)
    return {
        "address": token,
        "name": name,
        "symbol": symbol,
        "ercType": "ERC-721",
        "tokenId": str(token_id),
        "tokenUri": nft.token_uri if nft is not None else "",
        "metadata": nft_metadata(nft, "ERC-721"),
    }


def erc1155_token(token: str, token_id: int, nft: NftRow | None) -> Json:
    return {
        "address": token,
        "ercType": "ERC-1155",
        "tokenId": str(token_id),
        "tokenUri": nft.token_uri if nft is not None else "",
        "metadata": nft_metadata(nft, "ERC-1155"),
    }


def transfer(t: TransferRow, tokens: Tokens, nfts: Nfts) -> Json:
    """A transfer as the sub-list entries of operation 5 show it (no block fields)."""
    out: Json = {
        "from": party(t.from_addr, tokens),
        "to": party(t.to_addr, tokens),
        "logIndex": t.log_index,
    }
    token_id = t.token_id if t.token_id is not None else 0
    if t.erc_type == "ERC-20":
        out.update(value=str(t.value), erc20Token=erc20_token(t.token, tokens))
    elif t.erc_type == "ERC-721":
        nft = nfts.get((t.token, token_id))
        out["erc721Token"] = erc721_token(t.token, token_id, tokens, nft)
    else:
        nft = nfts.get((t.token, token_id))
        out.update(value=str(t.value), erc1155Token=erc1155_token(t.token, token_id, nft))
    return out


def internal_transaction(i: InternalTxRow, tokens: Tokens) -> Json:
    return {
        "from": party(i.from_addr, tokens),
        "to": party(i.to_addr, tokens),
        "internalTxType": i.call_type if i.call_type in INTERNAL_TX_TYPES else "UNKNOWN",
        "value": str(i.value),
        "isReverted": i.reverted,
        "gasUsed": str(i.gas_used),
        "gasLimit": str(i.gas_limit),
    }


SUBLISTS = {
    "ERC-20": "erc20Transfers",
    "ERC-721": "erc721Transfers",
    "ERC-1155": "erc1155Transfers",
}


def sublists(
    transfers: Sequence[TransferRow],
    internals: Sequence[InternalTxRow],
    tokens: Tokens,
    nfts: Nfts,
    memo: dict[int, orjson.Fragment] | None = None,
) -> Json:
    """Operation 5's sub-lists of one transaction: the transfers and internal transactions
    given (those the queried address sent or received), in the order given. With `memo`, each
    row is rendered once, as JSON kept by the row's identity: a transfer appears in the
    documents of both its sender and its receiver."""
    out: Json = {
        "erc20Transfers": [],
        "erc721Transfers": [],
        "erc1155Transfers": [],
        "internalTransactions": [],
    }
    for t in transfers:
        out[SUBLISTS[t.erc_type]].append(_once(memo, t, partial(transfer, t, tokens, nfts)))
    for i in internals:
        out["internalTransactions"].append(_once(memo, i, partial(internal_transaction, i, tokens)))
    return out


def _once(
    memo: dict[int, orjson.Fragment] | None, row: object, render: Callable[[], Json]
) -> Json | orjson.Fragment:
    if memo is None:
        return render()
    if id(row) not in memo:
        memo[id(row)] = orjson.Fragment(orjson.dumps(render()))
    return memo[id(row)]


def native_document(tx: TxRow, tokens: Tokens) -> str:
    return orjson.dumps(native_transaction(tx, tokens)).decode()


def sublists_document(
    transfers: Sequence[TransferRow],
    internals: Sequence[InternalTxRow],
    tokens: Tokens,
    nfts: Nfts,
    memo: dict[int, orjson.Fragment] | None = None,
) -> str:
    """The sub-lists as JSON, or "" when all four are empty (most rows: stored small)."""
    if not transfers and not internals:
        return ""
    return orjson.dumps(sublists(transfers, internals, tokens, nfts, memo)).decode()


def involving(address: str, rows: Iterable[_Party]) -> list[_Party]:
    """The rows that `address` sent or received (operation 5 limits its sub-lists to these)."""
    return [r for r in rows if address in (r.from_addr, r.to_addr)]
