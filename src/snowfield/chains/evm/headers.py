"""The header of a block the devnet executed: roots, bloom and the environment it ran in."""

from __future__ import annotations

from collections.abc import Sequence

from snowfield.chains.evm.execution.roots import ordered_root
from snowfield.chains.evm.execution.state import BlockEnv
from snowfield.chains.evm.model import Header, Receipt, Tx
from snowfield.chains.evm.rules.base import EvmRules, HeaderFields


def executed_header(
    parent: Header,
    parent_hash: bytes,
    env: BlockEnv,
    root: bytes,
    txs: Sequence[Tx],
    receipts: Sequence[Receipt],
    gas_used: int,
    rules: EvmRules,
    predicate_results: bytes | None = None,
) -> Header:
    """The header of `txs` run in `env` on top of `parent` (whose hash is `parent_hash`),
    leaving state `root`, in the layout of `rules`."""
    bloom = 0
    for receipt in receipts:
        bloom |= int.from_bytes(receipt.bloom, "big")
    fields = HeaderFields(
        parent_hash=parent_hash,
        coinbase=env.coinbase,
        state_root=root,
        tx_root=ordered_root([tx.raw for tx in txs]),
        receipt_root=ordered_root([r.encode() for r in receipts]),
        bloom=bloom.to_bytes(256, "big"),
        difficulty=env.difficulty,
        number=env.number,
        gas_limit=env.gas_limit,
        gas_used=gas_used,
        timestamp=env.timestamp,
        base_fee=env.base_fee,
        mix_hash=env.mix_hash,
        predicate_results=predicate_results,
    )
    return rules.build_header(parent, fields)
