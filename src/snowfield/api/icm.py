"""Operation 16: the cross-chain (ICM) messages an address sent or received.

A message is shown in the data service's three shapes: `pending` (its send indexed, no
receive yet), `delivered` (both), `delivered_source_not_indexed` (only its receive: the source
chain is not indexed here). Its reward is the send's fee as last raised by AddFeeAmount, with
the fee token's metadata from the source chain's index; no price is known here, so `price` is
left out. The EVM chain id of a side whose chain is not indexed here is left out too."""

from __future__ import annotations

import dataclasses
from typing import Any

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import ADDRESS, NETWORK, PAGE_SIZE, PAGE_TOKEN
from snowfield.store import chain_queries, icm, token_queries
from snowfield.store.database import Database
from snowfield.store.documents import put
from snowfield.store.keys import ApiKey
from snowfield.store.pagination import Key, Page
from snowfield.store.rows import ChainRow, IcmEventRow

ZERO_ADDRESS = "0x" + "00" * 20
MESSAGE_NETWORK = dataclasses.replace(
    NETWORK,
    description="Only messages seen on chains of this network; fuji and testnet both name the"
    " test networks.",
)


class _Chains:
    """The indexed chains both ways: EVM chain id ⇄ blockchain id."""

    def __init__(self, rows: list[ChainRow]) -> None:
        self.by_evm = {c.chain_id: c for c in rows}
        self.by_blockchain = {c.blockchain_id: c for c in rows if c.blockchain_id}

    def blockchain_id(self, chain_id: int) -> str | None:
        found = self.by_evm.get(chain_id)
        return None if found is None else found.blockchain_id

    def evm_id(self, blockchain_id: str | None) -> str | None:
        found = self.by_blockchain.get(blockchain_id or "")
        return None if found is None else str(found.chain_id)


def visible_chains(db: Database, network: str | None, key: ApiKey | None) -> list[ChainRow]:
    """The indexed chains a request may see: on `network` (any when None), allowed by `key`."""
    testnet = None if network is None else network != "mainnet"
    return [
        c
        for c in chain_queries.list_chains(db)
        if chain_queries.on_network(c, testnet) and (key is None or key.allows(c.chain_id))
    ]


def render(db: Database, message_ids: list[str], visible: list[int]) -> list[Json]:
    """The messages, in the order given, as seen on the `visible` chains; a message whose
    events an unwind took between the reads is left out."""
    chains = _Chains(chain_queries.list_chains(db))
    events = icm.events_of(db, message_ids, visible)
    fee_tokens: dict[int, set[str]] = {}
    for found in events.values():
        for e in found:
            if e.fee_token is not None:
                fee_tokens.setdefault(e.chain_id, set()).add(e.fee_token)
    tokens = {
        (chain_id, address): token
        for chain_id, addresses in fee_tokens.items()
        for address, token in token_queries.tokens(db, chain_id, addresses).items()
    }
    items = [_message(m, events.get(m, []), chains, tokens) for m in message_ids]
    return [m for m in items if m is not None]


def _messages(
    db: Database,
    address: str,
    network: str | None,
    key: ApiKey | None,
    after: Key | None,
    size: int,
) -> tuple[list[Json], Page[Any]]:
    visible = [c.chain_id for c in visible_chains(db, network, key)]
    page = icm.messages_of(db, address, visible, after=after, limit=size)
    return render(db, [m for m, _ in page.items], visible), page


def _message(
    message_id: str,
    events: list[IcmEventRow],
    chains: _Chains,
    tokens: dict[tuple[int, str], Any],
) -> Json | None:
    send = next((e for e in events if e.kind == "send"), None)
    receive = next((e for e in events if e.kind == "receive"), None)
    carrier = send or receive
    if carrier is None:
        return None  # its events left with an unwind between the two reads
    source_chain = None if send is None else send.chain_id
    source = carrier.peer_chain if send is None else chains.blockchain_id(send.chain_id)
    destination = carrier.destination_chain
    out: Json = {
        "messageId": message_id,
        "icmContractAddress": carrier.contract,
    }
    put(out, sourceBlockchainId=source, destinationBlockchainId=destination)
    put(
        out,
        sourceEvmChainId=str(source_chain) if source_chain is not None else chains.evm_id(source),
        destinationEvmChainId=(
            str(receive.chain_id) if receive is not None else chains.evm_id(destination)
        ),
    )
    out["messageNonce"] = str(carrier.nonce)
    out["from"] = carrier.origin
    out["to"] = carrier.destination
    out["data"] = "0x" + (carrier.payload or b"").hex()
    on_destination = [e for e in events if receive is not None and e.chain_id == receive.chain_id]
    out["messageExecuted"] = any(e.kind == "executed" for e in on_destination)
    out["receipts"] = [
        {"receivedMessageNonce": str(n), "relayerRewardAddress": a} for n, a in carrier.receipts
    ]
    on_source = [e for e in events if send is not None and e.chain_id == send.chain_id]
    out["receiptDelivered"] = any(e.kind == "receipt" for e in on_source)
    out["rewardDetails"] = _reward(send, on_source, tokens)
    if send is not None:
        out["sourceTransaction"] = {
            "txHash": send.tx_hash,
            "timestamp": send.block_timestamp,
            "gasSpent": str(send.gas_spent),
        }
    if receive is not None:
        out["destinationTransaction"] = {
            "txHash": receive.tx_hash,
            "timestamp": receive.block_timestamp,
            "gasSpent": str(receive.gas_spent),
            "rewardRedeemer": receive.reward_redeemer,
            "delivererAddress": receive.deliverer,
        }
    if send is None:
        out["status"] = "delivered_source_not_indexed"
    else:
        out["status"] = "pending" if receive is None else "delivered"
    return out


def _reward(
    send: IcmEventRow | None, on_source: list[IcmEventRow], tokens: dict[tuple[int, str], Any]
) -> Json:
    """The fee: the send's, as the last AddFeeAmount on the source raised it. Unknown without
    the send (the source chain is not indexed): a zero amount of no token."""
    fee_token, amount = ZERO_ADDRESS, 0
    if send is not None:
        fee_token, amount = send.fee_token or ZERO_ADDRESS, send.fee_amount or 0
        for e in on_source:
            if e.kind == "fee" and e.fee_token is not None:
                fee_token, amount = e.fee_token, e.fee_amount or 0
    token = None if send is None else tokens.get((send.chain_id, fee_token))
    out: Json = {
        "address": fee_token,
        "name": (token.name if token is not None else None) or "",
        "symbol": (token.symbol if token is not None else None) or "",
        "decimals": (token.decimals if token is not None else None) or 0,
        "ercType": "ERC-20",
        "value": str(amount),
    }
    return out


async def list_messages_by_address(ctx: Context) -> Json:
    after = ctx.after()
    items, page = await ctx.run(
        _messages,
        ctx.db,
        ctx.args["address"],
        ctx.args["network"],
        ctx.key,
        after,
        ctx.args["pageSize"],
    )
    return {"messages": items, **ctx.next_page(page)}


OPERATIONS = (
    Operation(
        "listIcmMessagesByAddress",
        "/v1/icm/addresses/{address}/messages",
        "List the cross-chain (ICM) messages an address sent or is the destination of, newest"
        " first: pending, delivered, or delivered with the source chain not indexed.",
        "Interchain messaging",
        (ADDRESS, MESSAGE_NETWORK, PAGE_TOKEN, PAGE_SIZE.bounded(1, 100, 10)),
        "ListIcmMessagesResponse",
        20,
        list_messages_by_address,
    ),
)
