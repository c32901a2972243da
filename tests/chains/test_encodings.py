"""Our hand-rolled encodings of headers, receipts and journal records match the generic RLP
encoder byte for byte (block hashes and roots depend on it)."""

from __future__ import annotations

import rlp
from eth_account import Account
from hypothesis import given, settings
from hypothesis import strategies as st

from snowfield.chains.evm import records
from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.execution.transactions import decode_tx
from snowfield.chains.evm.genesis import Allocation, ChainConfig
from snowfield.chains.evm.model import Header, Log, Receipt
from snowfield.chains.evm.rules.cchain import CChainRules
from snowfield.chains.journal import MemoryJournal
from tests.bytecode import STORE, deploy_code

hashes = st.binary(min_size=32, max_size=32)
uints = st.integers(0, 2**256 - 1)
small = st.integers(0, 2**64 - 1)


@settings(max_examples=80, deadline=None)
@given(
    st.tuples(
        hashes,
        hashes,
        st.binary(min_size=20, max_size=20),
        hashes,
        hashes,
        hashes,
        st.binary(min_size=256, max_size=256),
        uints,
        small,
        small,
        small,
        small,
        st.binary(max_size=80),
        hashes,
        st.binary(min_size=8, max_size=8),
        hashes,
        uints,
        small,
        small,
        small,
        small,
        hashes,
    )
)
def test_header(fields: tuple[object, ...]) -> None:
    header = Header(*fields)  # type: ignore[arg-type]
    assert header.encode() == rlp.encode(list(fields))
    assert Header.decode(header.encode()) == header


logs = st.lists(
    st.builds(
        Log,
        st.binary(min_size=20, max_size=20),
        st.lists(hashes, max_size=4).map(tuple),
        st.binary(max_size=100),
    ),
    max_size=3,
).map(tuple)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([0, 1, 2, 4]), st.integers(0, 1), small, logs)
def test_receipt(tx_type: int, status: int, cumulative: int, entries: tuple[Log, ...]) -> None:
    bloom = bytes(range(256))
    receipt = Receipt(tx_type, status, cumulative, 0, entries, bloom, None, 0)
    body = rlp.encode(
        [status, cumulative, bloom, [[e.address, list(e.topics), e.data] for e in entries]]
    )
    assert receipt.encode() == (body if tx_type == 0 else bytes([tx_type]) + body)


def test_journal_record() -> None:
    key = Account.from_key(b"\x01" * 32)
    config = ChainConfig(
        alloc=(Allocation(bytes.fromhex(key.address[2:]), 10**20),), rules=CChainRules()
    )
    chain = EvmChain(config, MemoryJournal())
    base = chain.next_base_fee()
    deploy = {"data": deploy_code(STORE), "gas": 200_000, "nonce": 0, "gasPrice": base}
    send = {"to": "0x" + "55" * 20, "value": 5, "gas": 21_000, "nonce": 1, "gasPrice": base}
    for fields in (deploy, send):
        signed = Account.sign_transaction({**fields, "chainId": 43112}, key.key)
        chain.submit_decoded(decode_tx(bytes(signed.raw_transaction)))
    chain.mine()
    again = {**send, "nonce": 2, "chainId": 43112}
    chain.submit_decoded(decode_tx(bytes(Account.sign_transaction(again, key.key).raw_transaction)))
    chain.mine()  # a block of transfers only: built on the account trie directly
    for record in chain.journal.records():
        block, writes = records.decode_any(record, 43112)
        generic = rlp.encode(
            [
                1,
                block.header.encode(),
                [tx.raw for tx in block.txs],
                [tx.sender for tx in block.txs],
                [r.encode() for r in block.receipts],
                [[k, v] for k, v in writes.items()],
                block.accepted_ns,
                block.ext_data,
                block.version,
            ]
        )
        assert record == generic == records.encode(block, writes)
