"""Atomic tx gas and fee against coreth's own test table (TestImportTxGasCost): the unsigned
size + 1,000 per signature (+ 10,000 fixed since ApricotPhase5); fee = ceil(gas * fee / 1e9)."""

from __future__ import annotations

import pytest

from snowfield.chains.evm.atomic_fees import ATOMIC_TX_BASE_COST, gas_used, required_fee
from snowfield.formats.atomic.txs import AtomicTx, EVMOutput, ImportTx
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import UTXOID, TransferableInput
from snowfield.formats.platform.secp256k1fx import TransferInput

GWEI = 10**9
AVAX, ANT = ID(b"\x01" * 32), ID(b"\x02" * 32)
ETH = b"\xee" * 20
AMOUNT = 5_000_000


def _tx(assets: list[ID], outs: list[ID], sigs: int = 1) -> AtomicTx:
    inputs = tuple(
        TransferableInput(
            UTXOID(ID(bytes([i + 1]) * 32), 0), asset, TransferInput(AMOUNT, tuple(range(sigs)))
        )
        for i, asset in enumerate(assets)
    )
    credits = tuple(EVMOutput(ETH, AMOUNT, asset) for asset in outs)
    return AtomicTx(ImportTx(5, ID(b"\x03" * 32), ID(b"\x04" * 32), inputs, credits))


# (name, tx, coreth's gas without the fixed cost, base fee in wei, coreth's fee in nAVAX)
CASES = [
    ("simple import", _tx([AVAX], [AVAX]), 1230, 25 * GWEI, 30750),
    ("simple import 1wei", _tx([AVAX], [AVAX]), 1230, 1, 1),
    ("simple ANT import", _tx([AVAX, ANT], [ANT]), 2318, 25 * GWEI, 57950),
    ("complex ANT import", _tx([AVAX, ANT], [AVAX, ANT]), 2378, 25 * GWEI, 59450),
    ("multisig import", _tx([AVAX], [AVAX], sigs=2), 2234, 25 * GWEI, 55850),
    ("large import", _tx([AVAX] * 10, [AVAX]), 11022, 25 * GWEI, 275550),
]


@pytest.mark.parametrize(
    ("tx", "gas", "base_fee", "fee"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_coreth_gas_cost_table(tx: AtomicTx, gas: int, base_fee: int, fee: int) -> None:
    assert gas_used(tx) == gas + ATOMIC_TX_BASE_COST
    assert required_fee(gas, base_fee) == fee


def test_fixed_fee_case() -> None:
    """coreth's "simple import 1wei + fixed fee": 11,230 gas, fee 1 nAVAX."""
    tx = _tx([AVAX], [AVAX])
    assert gas_used(tx) == 11230 and required_fee(gas_used(tx), 1) == 1
