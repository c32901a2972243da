"""UTXOs, ownership and the flow check, through PlatformChain.issue/build_block."""

from __future__ import annotations

from dataclasses import replace

import pytest

from snowfield.chains.platform.config import AVAX
from snowfield.chains.platform.genesis import Allocation
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.errors import Conflict, InvalidParams
from snowfield.formats.ids import P_CHAIN_ID
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import TransferInput, TransferOutput
from snowfield.formats.platform.stakeable import LockIn
from snowfield.formats.platform.transfer_txs import BaseTx
from snowfield.formats.platform.txs import Tx
from tests.chains.platform.wallet import (
    AVAX_ID,
    KEY2,
    START,
    Wallet,
    address,
    new_chain,
    owner,
    sign,
)


def _send(wallet: Wallet, amount: int, to: bytes = KEY2) -> Tx:
    out = TransferableOutput(AVAX_ID, TransferOutput(amount, owner(to)))
    return wallet.build(BaseTx, amount, (out,))


def _snapshot(chain: object) -> tuple[object, ...]:
    state = chain.state  # type: ignore[attr-defined]
    return (sorted(u.id for u in state.utxos), state.fee_state, state.current_supply, state.height)


def test_base_tx_moves_funds_and_burns_exactly_the_fee() -> None:
    chain = new_chain()
    wallet = Wallet(chain)
    before = chain.balance([address(EWOQ_KEY)]).unlocked
    tx = _send(wallet, 5 * AVAX)
    assert chain.issue(tx.encode()) == tx.id
    assert chain.tx_status(tx.id)[0] == "Processing"
    blocks = chain.build_block(START + 10)
    assert len(blocks) == 1 and chain.height == 1 and chain.timestamp == START + 10
    assert chain.tx_status(tx.id)[0] == "Committed"
    assert chain.balance([address(KEY2)]).unlocked == 5 * AVAX
    assert before - chain.balance([address(EWOQ_KEY)]).unlocked == 5 * AVAX + 5_179
    assert chain.fee_state[0].excess == 5_179


def test_rejected_txs_change_nothing() -> None:
    chain = new_chain()
    wallet = Wallet(chain)
    tx = _send(wallet, AVAX)
    before = _snapshot(chain)
    forged = sign(tx.unsigned, [[KEY2]])
    with pytest.raises(InvalidParams, match="wrong signature"):
        chain.issue(forged.encode())
    no_creds = Tx(tx.unsigned)
    with pytest.raises(InvalidParams, match="wrong number of credentials"):
        chain.issue(no_creds.encode())
    unsigned = tx.unsigned
    assert isinstance(unsigned, BaseTx)
    cheap = replace(
        unsigned.base,
        outputs=tuple(
            replace(o, output=TransferOutput(o.output.amount + 1, o.output.owners))  # type: ignore[attr-defined]
            for o in unsigned.base.outputs
        ),
    )
    with pytest.raises(InvalidParams, match="insufficient unlocked funds"):
        chain.issue(sign(BaseTx(cheap), [[EWOQ_KEY]]).encode())
    wrong_net = replace(unsigned.base, network_id=1)
    with pytest.raises(InvalidParams, match="wrong network ID"):
        chain.issue(sign(BaseTx(wrong_net), [[EWOQ_KEY]]).encode())
    assert _snapshot(chain) == before
    # No tx and no due staker change: no block (platformvm builds none just to move time).
    assert chain.build_block(START + 1) == [] and chain.height == 0


def test_double_spends_are_refused_in_the_mempool_and_after_acceptance() -> None:
    chain = new_chain()
    wallet = Wallet(chain)
    first, second = _send(wallet, AVAX), _send(wallet, 2 * AVAX)
    chain.issue(first.encode())
    with pytest.raises(Conflict, match="conflicts"):
        chain.issue(second.encode())
    with pytest.raises(Conflict, match="already known"):
        chain.issue(first.encode())
    chain.build_block(START + 1)
    with pytest.raises(InvalidParams, match="not found"):
        chain.issue(second.encode())


def test_multisig_threshold_and_locktime() -> None:
    multisig = owner(EWOQ_KEY, KEY2, threshold=2)
    timelocked = owner(EWOQ_KEY, locktime=START + 100)
    chain = new_chain()
    outs = (
        TransferableOutput(AVAX_ID, TransferOutput(10 * AVAX, multisig)),
        TransferableOutput(AVAX_ID, TransferOutput(10 * AVAX, timelocked)),
    )
    funding = Wallet(chain).build(BaseTx, 20 * AVAX, outs)
    chain.issue(funding.encode())
    chain.build_block(START + 1)
    balance = chain.balance([address(EWOQ_KEY)])
    assert balance.locked_not_stakeable == 10 * AVAX
    utxos = {u.output.owners: u for u in chain.state.utxos if isinstance(u.output, TransferOutput)}
    joint, locked = utxos[multisig], utxos[timelocked]
    change = TransferableOutput(AVAX_ID, TransferOutput(10 * AVAX - 10_000, owner(EWOQ_KEY)))

    def spend(utxo: object, indices: tuple[int, ...], keys: list[bytes]) -> Tx:
        inp = TransferableInput(utxo.utxo_id, AVAX_ID, TransferInput(10 * AVAX, indices))  # type: ignore[attr-defined]
        base = BaseTxFields(12345, P_CHAIN_ID, (change,), (inp,))
        return sign(BaseTx(base), [keys])

    ordered = sorted([EWOQ_KEY, KEY2], key=address)
    with pytest.raises(InvalidParams, match="less signers than expected"):
        chain.issue(spend(joint, (0,), ordered[:1]).encode())
    with pytest.raises(InvalidParams, match="wrong signature"):
        chain.issue(spend(joint, (0, 1), ordered[::-1]).encode())
    chain.issue(spend(joint, (0, 1), ordered).encode())
    with pytest.raises(InvalidParams, match="output is time locked"):
        chain.issue(spend(locked, (0,), [EWOQ_KEY]).encode())


def test_stakeable_locked_funds_must_be_marked_and_stay_locked() -> None:
    lock = START + 1_000
    chain = new_chain(allocations=[Allocation(address(KEY2), 5_000 * AVAX, lock)])
    assert chain.balance([address(KEY2)]).locked_stakeable == 5_000 * AVAX
    (utxo,) = chain.utxos([address(KEY2)])[0]
    out = TransferableOutput(AVAX_ID, TransferOutput(4_000 * AVAX, owner(KEY2)))
    plain = TransferableInput(utxo.utxo_id, AVAX_ID, TransferInput(5_000 * AVAX, (0,)))
    base = BaseTxFields(12345, P_CHAIN_ID, (out,), (plain,))
    with pytest.raises(InvalidParams, match="locked funds not marked as locked"):
        chain.issue(sign(BaseTx(base), [[KEY2]]).encode())
    marked = replace(plain, input=LockIn(lock, TransferInput(5_000 * AVAX, (0,))))
    with pytest.raises(InvalidParams, match="insufficient unlocked funds"):
        chain.issue(sign(BaseTx(replace(base, inputs=(marked,))), [[KEY2]]).encode())
