"""Plain value transfers skip the interpreter (as geth does for code-less accounts); the state,
receipts and failures must be exactly those of full EVM execution."""

from __future__ import annotations

from eth_account import Account
from hypothesis import given, settings
from hypothesis import strategies as st
from web3 import Web3

from snowfield.chains.evm import records
from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.execution.transactions import decode_tx
from snowfield.chains.evm.genesis import Allocation, ChainConfig
from snowfield.chains.evm.rules.cchain import CChainRules
from snowfield.chains.journal import MemoryJournal
from snowfield.errors import SnowfieldError
from tests.bytecode import STORE, deploy_code

KEYS = [Account.from_key(bytes([i + 1]) * 32) for i in range(3)]
EMPTY = "0x" + "00" * 19 + "77"  # allocated at genesis with no balance
CONFIG = ChainConfig(
    alloc=(
        *(Allocation(bytes.fromhex(k.address[2:]), 10**18) for k in KEYS),
        Allocation(bytes.fromhex(EMPTY[2:]), 0),
    ),
    rules=CChainRules(),
)
TARGETS = [k.address for k in KEYS] + [EMPTY, "0x" + "55" * 20, "0x" + "66" * 20]

transfer = st.tuples(
    st.integers(0, 2),  # sender
    st.integers(0, len(TARGETS) - 1),  # recipient
    st.sampled_from([0, 1, 10**9, 10**17, 2 * 10**18]),  # value (the last cannot be afforded)
    st.sampled_from([0, 1, 2]),  # tx type
    st.sampled_from([0, 10**9]),  # tip
    st.booleans(),  # mine after this one
)


def _sign(
    chain: EvmChain, nonces: dict[int, int], spec: tuple[int, int, int, int, int, bool]
) -> bytes:
    sender, target, value, tx_type, tip, _ = spec
    base = chain.next_base_fee()
    fields: dict[str, object] = {
        "to": TARGETS[target],
        "value": value,
        "gas": 21000,
        "nonce": nonces[sender],
        "chainId": 43112,
    }
    if tx_type == 2:
        fields.update(type=2, maxFeePerGas=2 * base + tip, maxPriorityFeePerGas=tip)
    else:
        fields["gasPrice"] = base + tip
        if tx_type == 1:
            fields.update(type=1, accessList=[])
    return bytes(Account.sign_transaction(fields, KEYS[sender].key).raw_transaction)


@settings(max_examples=40, deadline=None)
@given(st.lists(transfer, min_size=1, max_size=12))
def test_fast_path_equals_full_execution(specs: list[tuple[int, int, int, int, int, bool]]) -> None:
    chains = [
        EvmChain(CONFIG, MemoryJournal(), genesis_time=1_700_000_000, fast_transfers=f)
        for f in (True, False)
    ]
    nonces = [{0: 0, 1: 0, 2: 0} for _ in chains]
    for spec in specs:
        outcomes = []
        for chain, nonce in zip(chains, nonces, strict=True):
            try:
                chain.submit_decoded(decode_tx(_sign(chain, nonce, spec)))
                nonce[spec[0]] += 1
                outcomes.append("ok")
            except SnowfieldError as exc:
                outcomes.append(type(exc).__name__)
        assert outcomes[0] == outcomes[1]
        if spec[5]:
            blocks = [c.mine(timestamp=c.head.header.timestamp + 1) for c in chains]
            assert (blocks[0] is None) == (blocks[1] is None)
    blocks = [c.mine(allow_empty=True, timestamp=c.head.header.timestamp + 1) for c in chains]
    fast, full = chains
    assert fast.head.hash == full.head.hash
    for a, b in zip(fast.blocks, full.blocks, strict=True):
        assert a.header == b.header and a.receipts == b.receipts
    # The journal holds the same state writes, in the same order: a replay cannot tell.
    assert _journaled_writes(fast) == _journaled_writes(full)


def _journaled_writes(chain: EvmChain) -> list[list[tuple[bytes, bytes]]]:
    return [
        list(records.decode_any(record, 43112)[1].items()) for record in chain.journal.records()
    ]


def test_transfer_to_a_contract_runs_its_code() -> None:
    chain = EvmChain(CONFIG, MemoryJournal(), genesis_time=1_700_000_000)
    key = KEYS[0]
    base = chain.next_base_fee()
    deploy = {
        "data": deploy_code(STORE),
        "gas": 200_000,
        "nonce": 0,
        "chainId": 43112,
        "gasPrice": base,
    }
    chain.submit_decoded(
        decode_tx(bytes(Account.sign_transaction(deploy, key.key).raw_transaction))
    )
    address = chain.mine().receipts[0].contract_address  # type: ignore[union-attr]
    assert address is not None
    call = {
        "to": Web3.to_checksum_address(address),
        "value": 5,
        "gas": 100_000,
        "nonce": 1,
        "chainId": 43112,
        "gasPrice": base,
    }
    chain.submit_decoded(decode_tx(bytes(Account.sign_transaction(call, key.key).raw_transaction)))
    receipt = chain.mine().receipts[0]  # type: ignore[union-attr]
    assert receipt.status == 1 and len(receipt.logs) == 1 and receipt.gas_used > 21000
