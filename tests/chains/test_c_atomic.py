"""The C-Chain's atomic txs as a state machine: imports credit, exports debit and bump the nonce,
conflicts and bad txs are refused with clear errors, and a replay keeps what was accepted."""

from __future__ import annotations

import hashlib

import pytest

from snowfield.chains.atomic import AtomicElement, AtomicRequests, SharedMemory
from snowfield.chains.evm.atomic import ATOMIC_GAS_LIMIT, AtomicContext, AtomicLedger
from snowfield.chains.evm.atomic_fees import X2C_RATE, gas_used, required_fee
from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.genesis import Allocation, ChainConfig
from snowfield.chains.evm.rules.cchain import CChainRules
from snowfield.chains.journal import MemoryJournal
from snowfield.crypto.hashing import keccak
from snowfield.crypto.secp256k1 import eth_address_of, public_key_of, sign_recoverable
from snowfield.errors import Conflict, InvalidParams
from snowfield.formats.atomic.extdata import decode_batch
from snowfield.formats.atomic.txs import AtomicTx, EVMInput, EVMOutput, ExportTx, ImportTx
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.components import (
    UTXO,
    UTXOID,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.rlp import encode_bytes

AVAX = ID(hashlib.sha256(b"avax").digest())
C = ID(hashlib.sha256(b"c-chain").digest())
NETWORK = 12345
KEY = hashlib.sha256(b"atomic key").digest()
PUB = public_key_of(KEY)
OWNER = ShortID.from_public_key(PUB)
ETH = eth_address_of(PUB)
FUNDED = 1_000 * 10**18


def sign(unsigned: ImportTx | ExportTx, count: int) -> AtomicTx:
    digest = hashlib.sha256(AtomicTx(unsigned).unsigned_bytes()).digest()
    credential = Credential((sign_recoverable(KEY, digest),))
    return AtomicTx(unsigned, (credential,) * count)


def exported_by_p(memory: SharedMemory, tx_byte: int, amount: int) -> UTXO:
    """A UTXO P exported to C, owned by OWNER."""
    owners = OutputOwners(0, 1, (OWNER,))
    utxo = UTXO(UTXOID(ID(bytes([tx_byte]) * 32), 0), AVAX, TransferOutput(amount, owners))
    element = AtomicElement(utxo.id.raw, utxo.encode(), (OWNER.raw,))
    memory.apply(P_CHAIN_ID, {C: AtomicRequests(put=(element,))})
    return utxo


def import_of(utxo: UTXO, credit: int, to: bytes = ETH, network: int = NETWORK) -> AtomicTx:
    assert isinstance(utxo.output, TransferOutput)
    spend = TransferableInput(utxo.utxo_id, AVAX, TransferInput(utxo.output.amt, (0,)))
    return sign(ImportTx(network, C, P_CHAIN_ID, (spend,), (EVMOutput(to, credit, AVAX),)), 1)


def export_of(amount: int, nonce: int, burn: int = 100_000) -> AtomicTx:
    out = TransferableOutput(AVAX, TransferOutput(amount, OutputOwners(0, 1, (OWNER,))))
    debit = EVMInput(ETH, amount + burn, AVAX, nonce)
    return sign(ExportTx(NETWORK, C, P_CHAIN_ID, (debit,), (out,)), 1)


def make_chain(memory: SharedMemory, journal: MemoryJournal) -> EvmChain:
    context = AtomicContext(NETWORK, C, AVAX, frozenset({P_CHAIN_ID}))
    config = ChainConfig(alloc=(Allocation(ETH, FUNDED),), rules=CChainRules())
    ledger = AtomicLedger(context, memory)
    return EvmChain(config, journal, genesis_time=1_700_000_000, atomic=ledger)


@pytest.fixture
def memory() -> SharedMemory:
    return SharedMemory()


def test_import_credits_the_balance_and_lands_in_the_extra_data(memory: SharedMemory) -> None:
    chain = make_chain(memory, MemoryJournal())
    utxo = exported_by_p(memory, 1, 5_000_000)
    tx = import_of(utxo, 4_000_000)
    fee = required_fee(gas_used(tx), chain.next_base_fee())
    assert fee <= 5_000_000 - 4_000_000
    tx_id = chain.issue_atomic(tx.encode())
    block = chain.mine()
    assert block is not None and block.txs == ()
    assert decode_batch(block.ext_data) == (tx,)
    assert block.header.ext_data_hash == keccak(encode_bytes(block.ext_data))
    assert block.header.ext_data_gas_used == gas_used(tx)
    assert chain.state_at(chain.head).balance(ETH) == FUNDED + 4_000_000 * X2C_RATE
    assert chain.atomic is not None
    assert chain.atomic.status(tx_id) == ("Accepted", block.number)
    assert memory.indexed(C, P_CHAIN_ID, [OWNER.raw]) == []  # consumed


def test_conflicts_and_bad_txs_are_refused(memory: SharedMemory) -> None:
    chain = make_chain(memory, MemoryJournal())
    utxo = exported_by_p(memory, 2, 5_000_000)
    chain.issue_atomic(import_of(utxo, 4_000_000).encode())
    with pytest.raises(Conflict, match="already known"):
        chain.issue_atomic(import_of(utxo, 4_000_000).encode())
    with pytest.raises(Conflict, match="conflicts with tx"):
        chain.issue_atomic(import_of(utxo, 3_000_000).encode())  # the same UTXO twice
    chain.mine()
    with pytest.raises(InvalidParams, match="failed to fetch import UTXOs"):
        chain.issue_atomic(import_of(utxo, 2_000_000).encode())  # already consumed
    other = exported_by_p(memory, 3, 5_000_000)
    with pytest.raises(InvalidParams, match="flow check failed"):
        chain.issue_atomic(import_of(other, 5_000_000).encode())  # no fee left
    with pytest.raises(InvalidParams, match="different network ID"):
        chain.issue_atomic(import_of(other, 4_000_000, network=1).encode())
    nonce = chain.state_at(chain.head).nonce(ETH)
    with pytest.raises(InvalidParams, match="invalid nonce"):
        chain.issue_atomic(export_of(1_000_000, nonce + 1).encode())
    with pytest.raises(InvalidParams, match="insufficient funds"):
        chain.issue_atomic(export_of(FUNDED // X2C_RATE * 2, nonce).encode())
    with pytest.raises(InvalidParams, match="is not a UnsignedAtomicTx"):
        chain.issue_atomic(b"\x00\x00\x00\x00\x00\x07" + bytes(40))


def test_repeated_import_outputs_are_refused_from_apricot_phase2_only(
    memory: SharedMemory,
) -> None:
    def repeated(utxo: UTXO) -> AtomicTx:
        assert isinstance(utxo.output, TransferOutput)
        spend = TransferableInput(utxo.utxo_id, AVAX, TransferInput(utxo.output.amt, (0,)))
        credits = (EVMOutput(ETH, 1_000_000, AVAX),) * 3
        return sign(ImportTx(NETWORK, C, P_CHAIN_ID, (spend,), credits), 1)

    chain = make_chain(memory, MemoryJournal())
    with pytest.raises(InvalidParams, match="outputs not sorted and unique"):
        chain.issue_atomic(repeated(exported_by_p(memory, 7, 5_000_000)).encode())
    context = AtomicContext(NETWORK, C, AVAX, frozenset({P_CHAIN_ID}), apricot_phase2=False)
    ledger = AtomicLedger(context, memory)
    tx = repeated(exported_by_p(memory, 8, 5_000_000))
    effect = ledger.verify(tx, lambda _: (0, 0), 0, 1_700_000_000)
    assert effect.balances == {ETH: 3_000_000 * X2C_RATE}


def test_export_debits_bumps_the_nonce_and_exports(memory: SharedMemory) -> None:
    chain = make_chain(memory, MemoryJournal())
    before = chain.state_at(chain.head).balance(ETH)
    tx = export_of(2_000_000, 0)
    tx_id = chain.issue_atomic(tx.encode())
    with pytest.raises(Conflict, match="conflicts with tx"):
        chain.issue_atomic(export_of(1_000_000, 0).encode())  # the same nonce twice
    chain.mine()
    state = chain.state_at(chain.head)
    assert state.balance(ETH) == before - 2_100_000 * X2C_RATE
    assert state.nonce(ETH) == 1
    ((trait, element),) = memory.indexed(P_CHAIN_ID, C, [OWNER.raw])
    exported = UTXO.decode(element.value)
    assert trait == OWNER.raw and exported.utxo_id == UTXOID(tx_id, 0)
    assert exported.output == TransferOutput(2_000_000, OutputOwners(0, 1, (OWNER,)))


def test_a_replay_keeps_accepted_atomic_txs(memory: SharedMemory) -> None:
    journal = MemoryJournal()
    chain = make_chain(memory, journal)
    tx_id = chain.issue_atomic(import_of(exported_by_p(memory, 4, 3_000_000), 2_000_000).encode())
    chain.mine()
    balance = chain.state_at(chain.head).balance(ETH)
    again = make_chain(memory, journal)
    assert again.atomic is not None
    assert again.atomic.status(tx_id) == ("Accepted", 1)
    assert again.state_at(again.head).balance(ETH) == balance
    assert again.head.hash == chain.head.hash


def test_shared_memory_journal_survives_reload() -> None:
    journal = MemoryJournal()
    memory = SharedMemory(journal)
    memory.end_replay()
    utxo = exported_by_p(memory, 5, 7)
    memory.apply(C, {P_CHAIN_ID: AtomicRequests(remove=(utxo.id.raw,))})
    exported_by_p(memory, 6, 8)
    reloaded = SharedMemory(journal)
    # While chains replay, a value since removed is still readable (as when first accepted).
    assert reloaded.get(C, P_CHAIN_ID, [utxo.id.raw]) == [utxo.encode()]
    reloaded.end_replay()
    with pytest.raises(InvalidParams, match="not found"):
        reloaded.get(C, P_CHAIN_ID, [utxo.id.raw])
    assert len(reloaded.indexed(C, P_CHAIN_ID, [OWNER.raw])) == 1


def test_a_block_holds_at_most_the_atomic_gas_limit(memory: SharedMemory) -> None:
    chain = make_chain(memory, MemoryJournal())
    txs = [import_of(exported_by_p(memory, 10 + i, 3_000_000), 2_000_000) for i in range(12)]
    for tx in txs:
        chain.issue_atomic(tx.encode())
    first, second = chain.mine(), chain.mine()
    assert first is not None and second is not None
    batches = [decode_batch(first.ext_data), decode_batch(second.ext_data)]
    assert [t for batch in batches for t in batch] == txs  # issue order, each once
    assert first.header.ext_data_gas_used <= ATOMIC_GAS_LIMIT
    assert first.header.ext_data_gas_used + gas_used(txs[len(batches[0])]) > ATOMIC_GAS_LIMIT
    assert chain.mine() is None  # nothing left


def test_a_rewind_past_atomic_txs_is_refused(memory: SharedMemory) -> None:
    chain = make_chain(memory, MemoryJournal())
    chain.mine(allow_empty=True)
    chain.issue_atomic(import_of(exported_by_p(memory, 40, 3_000_000), 2_000_000).encode())
    chain.mine()
    with pytest.raises(InvalidParams, match="later blocks hold atomic transactions"):
        chain.rewind(1)
    assert chain.head.number == 2
    chain.mine(allow_empty=True)
    chain.rewind(2)  # past plain blocks only
    assert chain.head.number == 2


def test_a_tx_over_the_atomic_gas_limit_is_refused(memory: SharedMemory) -> None:
    chain = make_chain(memory, MemoryJournal())
    utxos = [exported_by_p(memory, 100 + i, 1_000_000) for i in range(95)]
    spends = tuple(
        TransferableInput(u.utxo_id, AVAX, TransferInput(1_000_000, (0,)))
        for u in sorted(utxos, key=lambda u: u.utxo_id.tx_id.raw)
    )
    unsigned = ImportTx(NETWORK, C, P_CHAIN_ID, spends, (EVMOutput(ETH, 90_000_000, AVAX),))
    tx = sign(unsigned, len(spends))
    assert gas_used(tx) > ATOMIC_GAS_LIMIT
    with pytest.raises(InvalidParams, match="exceeds the block's atomic gas limit"):
        chain.issue_atomic(tx.encode())
