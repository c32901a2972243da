"""The gas and fee of a C-Chain atomic tx (coreth's rules since ApricotPhase5)."""

from __future__ import annotations

from snowfield.formats.atomic.txs import AtomicTx, ExportTx, ImportTx

X2C_RATE = 10**9  # nAVAX (9 decimals, on X and P) to wei (18 decimals, on C)
COST_PER_SIGNATURE = 1_000  # secp256k1fx's cost of verifying one signature
ATOMIC_TX_BASE_COST = 10_000  # ApricotPhase5's fixed gas per atomic tx


def signatures_of(tx: AtomicTx) -> int:
    """Signatures the tx's inputs need: an import's signature indices, one per EVM input."""
    unsigned = tx.unsigned
    if isinstance(unsigned, ImportTx):
        return sum(len(getattr(inp.input, "sig_indices", ())) for inp in unsigned.imported_inputs)
    assert isinstance(unsigned, ExportTx)
    return len(unsigned.ins)


def gas_used(tx: AtomicTx) -> int:
    """Bytes of the unsigned tx + 1,000 per signature + the fixed 10,000."""
    return len(tx.unsigned_bytes()) + COST_PER_SIGNATURE * signatures_of(tx) + ATOMIC_TX_BASE_COST


def required_fee(gas: int, base_fee_wei: int) -> int:
    """The fee in nAVAX: gas * base fee, in wei, divided by 10^9 rounding up (as coreth)."""
    return -(-gas * base_fee_wei // X2C_RATE)
