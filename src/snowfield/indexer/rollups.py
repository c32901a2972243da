"""The metrics rollup math (pure): what a run of consecutive blocks adds to each hour, day,
week and month bucket. docs/metrics.md defines every metric; the store adds the deltas."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snowfield.store.buckets import INTERVALS, bucket_start
from snowfield.store.rollups import BucketDelta, faster
from snowfield.store.rows import BlockBundle


@dataclass(frozen=True, slots=True)
class _BlockSums:
    """One block's contribution, computed once and added to the block's four buckets."""

    txs: int
    gas_used: int
    fees: int
    price_sum: int
    price_max: int
    rate_den: int | None  # seconds since the previous block (>= 1); None at genesis
    addresses: frozenset[str]
    senders: frozenset[str]
    deployers: frozenset[str]


def _sums(bundle: BlockBundle, prev_ts: int | None) -> _BlockSums:
    addresses: set[str] = set()
    senders: set[str] = set()
    gas_used = fees = price_sum = price_max = 0
    for tx in bundle.txs:
        # Failed transactions count: they have receipts, used gas and paid fees. A creation
        # has no `to`: only its sender is active (the new contract is not a party yet).
        senders.add(tx.from_addr)
        if tx.to_addr is not None:
            addresses.add(tx.to_addr)
        gas_used += tx.gas_used
        fees += tx.gas_used * tx.gas_price
        price_sum += tx.gas_price
        price_max = max(price_max, tx.gas_price)
    for t in bundle.transfers:
        senders.add(t.from_addr)
        addresses.add(t.to_addr)
    addresses |= senders
    # The `from` of a CREATE/CREATE2 frame: the factory inside a call, else the tx sender.
    deployers = frozenset(c.factory or c.deployer for c in bundle.contracts)
    den = None if prev_ts is None else max(1, bundle.block.timestamp - prev_ts)
    return _BlockSums(
        len(bundle.txs), gas_used, fees, price_sum, price_max, den,
        frozenset(addresses), frozenset(senders), deployers,
    )  # fmt: skip


def _add(d: BucketDelta, bundle: BlockBundle, s: _BlockSums) -> None:
    block = bundle.block
    d.last_ts = block.timestamp
    d.blocks += 1
    d.txs += s.txs
    d.gas_used += s.gas_used
    d.block_gas += block.gas_used
    d.contracts += len(bundle.contracts)
    d.fees += s.fees
    d.price_sum += s.price_sum
    d.price_max = max(d.price_max, s.price_max)
    if s.rate_den is not None:  # the genesis block has no previous block: no rate
        d.max_tps = faster(d.max_tps, (s.txs, s.rate_den))
        d.max_gps = faster(d.max_gps, (block.gas_used, s.rate_den))
    d.addresses |= s.addresses
    d.senders |= s.senders
    if d.span == "day":  # deployers are a day-only metric: no member sets for other spans
        d.deployers |= s.deployers


def compute(bundles: Sequence[BlockBundle], prev_ts: int | None) -> list[BucketDelta]:
    """The deltas of consecutive blocks; `prev_ts` is the timestamp of the block before the
    first (None when the first is genesis)."""
    deltas: dict[tuple[str, int], BucketDelta] = {}
    for bundle in bundles:
        ts = bundle.block.timestamp
        sums = _sums(bundle, prev_ts)
        for span in INTERVALS:
            start = bucket_start(span, ts)
            delta = deltas.get((span, start))
            if delta is None:
                delta = deltas[(span, start)] = BucketDelta(span, start, ts, prev_ts)
            _add(delta, bundle, sums)
        prev_ts = ts
    return list(deltas.values())
