"""Queries the platform.* services need: UTXO paging, tx statuses (Dropped with its reason), and
the atomicity of shared memory."""

from __future__ import annotations

import pytest

from snowfield.chains.atomic import AtomicElement, AtomicRequests, SharedMemory
from snowfield.chains.platform.config import AVAX, DAY
from snowfield.chains.platform.genesis import Allocation
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.platform.components import (
    UTXO,
    UTXOID,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import TransferInput, TransferOutput
from snowfield.formats.platform.transfer_txs import ImportTx
from tests.chains.platform.test_staking import _validator_tx
from tests.chains.platform.wallet import AVAX_ID, KEY2, START, address, new_chain, owner, sign


def test_utxos_page_by_address_then_id() -> None:
    chain = new_chain(allocations=[Allocation(address(KEY2), AVAX * (i + 1)) for i in range(5)])
    first, cursor = chain.utxos([address(KEY2)], limit=2)
    rest, end = chain.utxos([address(KEY2)], start=cursor, limit=10)
    assert len(first) == 2 and len(rest) == 3
    assert [u.id for u in first + rest] == sorted(u.id for u in first + rest)
    assert end == (address(KEY2), rest[-1].id)
    assert chain.utxos([address(KEY2)], start=end)[0] == []


def test_a_tx_that_stops_verifying_before_its_block_is_dropped_with_its_reason() -> None:
    chain = new_chain()
    tx = _validator_tx(chain, START + DAY + 10)
    chain.issue(tx.encode())
    chain.build_block(START + 20)  # the chain time moved: the period is now under a day
    status, reason = chain.tx_status(tx.id)
    assert status == "Dropped" and reason == "staking period is too short"
    assert chain.tx_status(ID(b"\x01" * 32)) == ("Unknown", None)


def test_shared_memory_applies_all_requests_or_none() -> None:
    memory = SharedMemory()
    x, p = ID(b"\x0a" * 32), ID(bytes(32))
    element = AtomicElement(b"k" * 32, b"value", (b"a" * 20,))
    memory.apply(x, {p: AtomicRequests(put=(element,))})
    assert memory.get(p, x, [b"k" * 32]) == [b"value"]
    other = AtomicElement(b"o" * 32, b"other", (b"a" * 20,))
    with pytest.raises(InvalidParams, match="not found"):
        memory.apply(p, {x: AtomicRequests(remove=(b"k" * 32, b"missing"), put=(other,))})
    assert memory.get(p, x, [b"k" * 32]) == [b"value"]
    assert memory.indexed(x, p, [b"a" * 20]) == []
    memory.apply(p, {x: AtomicRequests(remove=(b"k" * 32,), put=(other,))})
    assert memory.indexed(p, x, [b"a" * 20]) == []
    assert memory.indexed(x, p, [b"a" * 20]) == [(b"a" * 20, other)]


def test_a_block_whose_txs_all_drop_is_not_built() -> None:
    chain = new_chain()
    x_chain = next(c.blockchain_id for c in chain.blockchains() if c.name == "X-Chain")
    incoming = UTXO(UTXOID(ID(b"\x77" * 32), 0), AVAX_ID, TransferOutput(2 * AVAX, owner(KEY2)))
    put = AtomicElement(incoming.id.raw, incoming.encode(), (address(KEY2).raw,))
    chain.shared_memory.apply(x_chain, {P_CHAIN_ID: AtomicRequests(put=(put,))})
    imported = (TransferableInput(incoming.utxo_id, AVAX_ID, TransferInput(2 * AVAX, (0,))),)
    change = (TransferableOutput(AVAX_ID, TransferOutput(AVAX, owner(KEY2))),)
    base = BaseTxFields(12345, P_CHAIN_ID, change, ())
    tx = sign(ImportTx(base, x_chain, imported), [[KEY2]])
    chain.issue(tx.encode())
    # the X-Chain takes the UTXO back before the P-Chain builds (a race a network can have)
    chain.shared_memory.apply(P_CHAIN_ID, {x_chain: AtomicRequests(remove=(incoming.id.raw,))})
    assert chain.build_block(START) == [] and chain.height == 0
    assert chain.tx_status(tx.id) == ("Dropped", "failed to get shared memory: not found")
