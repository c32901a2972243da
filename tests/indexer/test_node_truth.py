"""Truth is the node: the devnet's demo traffic (ERC-20/721/1155 transfers, internal calls, a
self-destruct, a revert) indexed, then every balance the store answers for every address it
touched, at three heights, equals what the node answers at that block (eth_getBalance, and
balanceOf, ownerOf and balanceOf(id) through eth_call); every transaction's complete view
equals eth_getTransactionByHash, its receipt and its callTracer trace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from web3 import Web3
from web3.exceptions import ContractLogicError

from snowfield.store import balance_queries, block_writes, evm_queries, tx_queries
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page
from snowfield.store.rows import ERC20, ERC721, ERC1155
from tests.indexer.conftest import Indexed
from tests.truth import ABI, call_frames, touched_addresses

CHAIN = 43112


def _all(read: Callable[[Key | None], Page[Any]]) -> Iterator[Any]:
    """Every item of a keyset listing, two at a time (so that paging is exercised too)."""
    after = None
    while True:
        page = read(after)
        yield from page.items
        if page.next_key is None:
            return
        after = page.next_key


def _tokens(db: Database, erc_type: str) -> list[tuple[str, str | None]]:
    rows = db.query(
        "SELECT DISTINCT token, token_id FROM transfers WHERE erc_type = ?"
        " ORDER BY token, token_id",
        (erc_type,),
    )
    return [(str(t), i) for t, i in rows]


def _held(db: Database, address: str, height: int) -> dict[tuple[int, str, int | None], int]:
    """Every token balance the store lists for `address` at `height`, by (kind, token, id)."""
    found: dict[tuple[int, str, int | None], int] = {}
    listings = (
        lambda after: balance_queries.erc20_balances(
            db, CHAIN, address, block=height, contracts=None, after=after, limit=2
        ),
        lambda after: balance_queries.collectible_balances(
            db, CHAIN, address, block=height, contract=None, after=after, limit=2
        ),
    )
    for listing in listings:
        for b in _all(listing):
            assert b.balance > 0
            found[(b.kind, b.token, b.token_id)] = b.balance
    # The per-kind listings agree with the collectibles one.
    per_kind = (
        (ERC721, balance_queries.erc721_balances),
        (ERC1155, balance_queries.erc1155_balances),
    )
    for kind, read in per_kind:
        items = _all(
            lambda after, read=read: read(
                db, CHAIN, address, block=height, contract=None, after=after, limit=3
            )
        )
        assert {(b.kind, b.token, b.token_id): b.balance for b in items} == {
            k: v for k, v in found.items() if k[0] == kind
        }
    return found


def test_every_balance_at_three_heights_is_the_nodes(indexed: Indexed) -> None:
    w3, db, head = indexed.w3, indexed.db, indexed.head
    addresses = touched_addresses(db)
    erc20 = _tokens(db, "ERC-20")
    erc721 = _tokens(db, "ERC-721")
    erc1155 = _tokens(db, "ERC-1155")
    assert len(addresses) > 10 and erc20 and erc721 and erc1155
    checked = 0
    for height in (head // 3, 2 * head // 3, head):
        owners: dict[tuple[str, int], str] = {}
        for address in addresses:
            who = Web3.to_checksum_address(address)
            stored = balance_queries.native_balance_at(db, CHAIN, address, height) or 0
            assert stored == w3.eth.get_balance(who, height), (address, height)
            held = _held(db, address, height)
            for token, _ in erc20:
                contract = w3.eth.contract(Web3.to_checksum_address(token), abi=ABI)
                node = contract.get_function_by_signature("balanceOf(address)")(who).call(
                    block_identifier=height
                )
                assert held.get((ERC20, token, None), 0) == node, (address, token, height)
                checked += 1
            for token, token_id in erc1155:
                assert token_id is not None
                contract = w3.eth.contract(Web3.to_checksum_address(token), abi=ABI)
                node = contract.get_function_by_signature("balanceOf(address,uint256)")(
                    who, int(token_id)
                ).call(block_identifier=height)
                assert held.get((ERC1155, token, int(token_id)), 0) == node
                checked += 1
            for (kind, token, token_id), balance in held.items():
                if kind == ERC721 and token_id is not None:
                    assert balance == 1 and (token, token_id) not in owners
                    owners[(token, token_id)] = address
        for token, token_id in erc721:
            assert token_id is not None
            contract = w3.eth.contract(Web3.to_checksum_address(token), abi=ABI)
            try:
                owner = contract.functions.ownerOf(int(token_id)).call(block_identifier=height)
            except ContractLogicError:  # not minted yet at that height
                owner = None
            stored_owner = owners.get((token, int(token_id)))
            assert stored_owner == (owner.lower() if owner else None), (token, token_id, height)
            checked += 1
    assert checked > 100


def test_every_transaction_view_is_the_nodes(indexed: Indexed) -> None:
    w3, db = indexed.w3, indexed.db
    hashes = [str(r[0]) for r in db.query("SELECT hash FROM transactions ORDER BY hash")]
    kinds: set[str] = set()
    for tx_hash in hashes:
        view = tx_queries.find_transaction(db, CHAIN, tx_hash)
        assert view is not None
        tx, receipt = w3.eth.get_transaction(tx_hash), w3.eth.get_transaction_receipt(tx_hash)
        block = w3.eth.get_block(tx["blockNumber"])
        t = view.tx
        assert (t.block_number, t.tx_index, t.block_hash) == (
            tx["blockNumber"], tx["transactionIndex"], tx["blockHash"].to_0x_hex(),
        )  # fmt: skip
        assert (t.from_addr, t.to_addr, t.value, t.nonce, t.gas_limit, t.tx_type) == (
            tx["from"].lower(), tx["to"].lower() if tx["to"] else None, tx["value"],
            tx["nonce"], tx["gas"], tx["type"],
        )  # fmt: skip
        assert t.input == tx["input"].to_0x_hex()
        assert t.max_fee_per_gas == tx.get("maxFeePerGas")
        assert t.max_priority_fee_per_gas == tx.get("maxPriorityFeePerGas")
        assert (t.status, t.gas_used, t.gas_price) == (
            receipt["status"], receipt["gasUsed"], receipt["effectiveGasPrice"],
        )  # fmt: skip
        assert (view.block.number, view.block.base_fee) == (
            block["number"], block["baseFeePerGas"],
        )  # fmt: skip
        assert [
            (g.log_index, g.address, list(g.topics), g.data) for g in view.logs
        ] == [
            (g["logIndex"], g["address"].lower(), [x.to_0x_hex() for x in g["topics"]],
             g["data"].to_0x_hex())
            for g in receipt["logs"]
        ]  # fmt: skip
        assert all(x.tx_hash == tx_hash for x in [*view.transfers, *view.internal_txs])
        trace = w3.provider.make_request(
            "debug_traceTransaction", [tx_hash, {"tracer": "callTracer"}]
        )["result"]
        frames = list(call_frames(trace))
        assert [
            (i.call_type, i.from_addr, i.to_addr, i.value, i.gas_used) for i in view.internal_txs
        ] == [
            (f["type"], f["from"].lower(), f["to"].lower(), int(f.get("value", "0x0"), 16),
             int(f["gasUsed"], 16))
            for f in frames
        ]  # fmt: skip
        kinds.update(i.call_type for i in view.internal_txs if block_writes.listed(i))
        if t.status == 0:
            kinds.add("failed")
    assert {"CALL", "CREATE", "CREATE2", "failed"} <= kinds


def test_blocks_carry_their_fees_and_running_count(indexed: Indexed) -> None:
    w3, db, head = indexed.w3, indexed.db, indexed.head
    stored = evm_queries.blocks_by_number(db, CHAIN, range(head + 1))
    total = 0
    for number in range(head + 1):
        block = w3.eth.get_block(number, full_transactions=True)
        fees = sum(
            r["gasUsed"] * r["effectiveGasPrice"]
            for r in (w3.eth.get_transaction_receipt(t["hash"]) for t in block["transactions"])
        )
        total += len(block["transactions"])
        b = stored[number]
        # web3.py leaves the fields it does not know as the node's hex.
        assert (b.fees_spent, b.cumulative_txs, b.gas_cost) == (
            fees, total, int(block.get("blockGasCost", "0x0"), 16),
        )  # fmt: skip
        millis = block.get("timestampMilliseconds")
        assert b.timestamp_ms == (None if millis is None else int(millis, 16))
