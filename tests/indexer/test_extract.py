"""Pure extraction: logs to transfers, call frames to internal transactions and contracts,
ABI return values, NFT metadata documents."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.indexer.abi import as_string
from snowfield.indexer.extract.traces import contract_rows, internal_rows
from snowfield.indexer.extract.transfers import (
    TRANSFER,
    TRANSFER_BATCH,
    TRANSFER_SINGLE,
    transfer_rows,
)
from snowfield.indexer.nfts import _data_uri, normalise
from snowfield.store.rows import TxRow

A = "0x" + "aa" * 20
B = "0x" + "bb" * 20
TOKEN = "0x" + "cc" * 20


def topic(address: str) -> str:
    return "0x" + "00" * 12 + address[2:]


def word(n: int) -> str:
    return f"{n:064x}"


def receipt(*logs: dict[str, object], status: str = "0x1") -> dict[str, object]:
    return {"status": status, "transactionHash": "0x" + "11" * 32, "logs": list(logs)}


def log(topics: list[str], data: str = "0x", index: int = 0) -> dict[str, object]:
    return {"address": TOKEN, "topics": topics, "data": data, "logIndex": hex(index)}


def test_erc20_erc721_and_1155_transfers_are_told_apart() -> None:
    logs = [
        log([TRANSFER, topic(A), topic(B)], "0x" + word(5), 0),
        log([TRANSFER, topic(A), topic(B), "0x" + word(7)], "0x", 1),
        log([TRANSFER_SINGLE, topic(A), topic(A), topic(B)], "0x" + word(3) + word(9), 2),
    ]
    rows = transfer_rows(1, 10, 1000, [receipt(*logs)])
    assert [(r.erc_type, r.token_id, r.value) for r in rows] == [
        ("ERC-20", None, 5),
        ("ERC-721", 7, 1),
        ("ERC-1155", 3, 9),
    ]
    assert all(r.from_addr == A and r.to_addr == B for r in rows)


@given(st.lists(st.tuples(st.integers(0, 2**256 - 1), st.integers(0, 2**256 - 1)), max_size=6))
def test_transfer_batch_gives_one_row_per_id(pairs: list[tuple[int, int]]) -> None:
    n = len(pairs)
    data = word(64) + word(64 + 32 * (n + 1)) + word(n)
    data += "".join(word(i) for i, _ in pairs) + word(n) + "".join(word(v) for _, v in pairs)
    rows = transfer_rows(
        1, 1, 1, [receipt(log([TRANSFER_BATCH, topic(A), topic(A), topic(B)], "0x" + data))]
    )
    assert [(r.token_id, r.value) for r in rows] == pairs
    assert [r.batch_index for r in rows] == list(range(n))


@pytest.mark.parametrize(
    "logs",
    [
        [log([TRANSFER, topic(A)], "0x" + word(1))],  # too few topics
        [log([TRANSFER, topic(A), topic(B)], "0x" + word(1) + word(2))],  # data too long
        [log([TRANSFER_BATCH, topic(A), topic(A), topic(B)], "0x" + word(999) + word(1))],
        [log([], "0x")],
    ],
)
def test_malformed_logs_are_not_transfers(logs: list[dict[str, object]]) -> None:
    assert transfer_rows(1, 1, 1, [receipt(*logs)]) == []


def test_logs_of_failed_transactions_are_ignored() -> None:
    logs = [log([TRANSFER, topic(A), topic(B)], "0x" + word(5))]
    assert transfer_rows(1, 1, 1, [receipt(*logs, status="0x0")]) == []


def tx(index: int, *, created: str | None = None) -> TxRow:
    return TxRow(
        1,
        5,
        index,
        "0x" + f"{index:064x}",
        "0x",
        0,
        A,
        None if created else B,
        0,
        0,
        0,
        0,
        0,
        2,
        1,
        "",
        created,
    )


def test_nested_frames_in_preorder_with_inherited_reverts() -> None:
    trace = {
        "type": "CALL",
        "from": A,
        "to": B,
        "calls": [
            {
                "type": "CALL",
                "from": B,
                "to": TOKEN,
                "value": "0x5",
                "error": "execution reverted",
                "calls": [{"type": "CREATE2", "from": TOKEN, "to": "0x" + "dd" * 20}],
            },
            {"type": "CREATE", "from": B, "to": "0x" + "ee" * 20, "gas": "0x10"},
            {"type": "SELFDESTRUCT", "from": B, "to": A},
        ],
    }
    rows = internal_rows(1, [tx(0)], [trace])
    assert [(r.trace_index, r.call_type, r.reverted) for r in rows] == [
        (0, "CALL", True),
        (1, "CREATE2", True),
        (2, "CREATE", False),
        (3, "UNKNOWN", False),
    ]
    assert rows[0].value == 5 and rows[2].gas_limit == 16
    contracts = contract_rows(1, [tx(0)], rows)
    # The CREATE2 inside the reverted call never existed; the CREATE did, made by B.
    assert [(c.address, c.factory, c.deployer, c.creation) for c in contracts] == [
        ("0x" + "ee" * 20, B, A, "CREATE")
    ]


def test_top_level_creations_come_from_receipts() -> None:
    created = "0x" + "12" * 20
    contracts = contract_rows(1, [tx(0, created=created)], [])
    assert [(c.address, c.factory, c.creation) for c in contracts] == [(created, None, "CREATE")]


def test_strings_dynamic_and_bytes32() -> None:
    dynamic = bytes.fromhex(word(32) + word(4)) + b"SNOW" + b"\0" * 28
    assert as_string(dynamic) == "SNOW"
    assert as_string(b"MKR" + b"\0" * 29) == "MKR"
    assert as_string(bytes.fromhex(word(32) + word(999))) is None
    assert as_string(b"\xff" * 32) is None


def test_metadata_documents_normalise_to_service_fields() -> None:
    doc = {
        "name": "Flake",
        "image": "ipfs://x",
        "animation_url": "https://a",
        "external_url": "https://e",
        "background_color": "fff",
        "attributes": [{"trait_type": "t", "value": 1}],
        "decimals": 0,
        "unknown": "dropped",
    }
    assert normalise(doc) == {
        "name": "Flake",
        "imageUri": "ipfs://x",
        "animationUri": "https://a",
        "externalUrl": "https://e",
        "background": "fff",
        "attributes": '[{"trait_type":"t","value":1}]',
        "decimals": 0,
    }


def test_data_uris_plain_and_base64() -> None:
    body = b'{"name":"x"}'
    assert _data_uri("data:application/json;base64," + base64.b64encode(body).decode()) == body
    assert _data_uri("data:application/json,%7B%22name%22%3A%22x%22%7D") == body


def test_parity_traces_nest_by_trace_address() -> None:
    from snowfield.indexer.extract.parity import frames_by_tx

    def call(position: int, address: list[int], **action: object) -> dict[str, object]:
        return {"type": "call", "transactionPosition": position, "traceAddress": address,
                "action": {"callType": "call", "from": A, "to": B, "value": "0x0", **action},
                "result": {"gasUsed": "0x5"}}  # fmt: skip

    traces = [
        call(0, []),
        call(0, [0], callType="delegatecall"),
        {**call(0, [1]), "error": "Reverted"},
        {
            "type": "create",
            "transactionPosition": 0,
            "traceAddress": [1, 0],
            "action": {"from": B, "value": "0x1", "gas": "0x9", "creationMethod": "create2"},
            "result": {"address": TOKEN, "gasUsed": "0x2"},
        },
        {
            "type": "suicide",
            "transactionPosition": 1,
            "traceAddress": [0],
            "action": {"address": B, "refundAddress": A, "balance": "0x7"},
        },
        call(1, []),
        {"type": "reward", "action": {}},
    ]
    roots = frames_by_tx(traces, 2)
    rows = internal_rows(1, [tx(0), tx(1)], roots)
    assert [(r.tx_index, r.call_type, r.reverted, r.value) for r in rows] == [
        (0, "DELEGATECALL", False, 0),
        (0, "CALL", True, 0),
        (0, "CREATE2", True, 1),
        (1, "UNKNOWN", False, 7),
    ]
    assert rows[2].to_addr == TOKEN and rows[2].gas_limit == 9 and rows[2].gas_used == 2
