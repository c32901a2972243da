"""The JSON of a P-Chain transaction as operation 11 returns it (the Staking transaction
resource), rendered from the index's rows.

It is also operation 11's read model: the writer renders each staking tx's document when a
batch writes or changes what it shows (the tx itself, an emitted UTXO consumed or turned into a
reward UTXO), so that a page costs one query instead of a UTXO query and ten renderings
(bench/primary_api.py). The document leaves out what changes with the staker, not the rows
(`estimatedReward`, `rewardTxHash`): the read appends them. A missing document means "render
from the rows", never a different answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from snowfield.store.primary_queries import PTx, PUtxo, Reads, tx_rows, utxos_of

Json = dict[str, Any]
AVAX = {"name": "Avalanche", "symbol": "AVAX", "denomination": 9, "type": "secp256k1"}


def asset(avax_asset: str, asset_id: str, amount: int | str) -> Json:
    meta = AVAX if asset_id == avax_asset else {**AVAX, "name": asset_id, "symbol": ""}
    return {"assetId": asset_id, **meta, "amount": str(amount)}


def _amounts(utxos: Sequence[PUtxo]) -> dict[str, int]:
    sums: dict[str, int] = {}
    for u in utxos:
        sums[u.asset_id] = sums.get(u.asset_id, 0) + int(u.amount)
    return sums


def _asset_list(avax_asset: str, sums: dict[str, int]) -> list[Json]:
    return [asset(avax_asset, a, v) for a, v in sorted(sums.items()) if v > 0]


def utxo(avax_asset: str, u: PUtxo) -> Json:
    out: Json = {
        "addresses": list(u.addresses),
        "asset": asset(avax_asset, u.asset_id, u.amount),
        "consumedOnChainId": u.consumed_on,
        "createdOnChainId": u.created_on,
        "utxoId": u.utxo_id,
        "amount": u.amount,
        "assetId": u.asset_id,
        "blockNumber": str(u.block_height or 0),
        "blockTimestamp": u.block_timestamp or 0,
        "outputIndex": u.output_index,
        "txHash": u.tx_id,
        "utxoType": "STAKE" if u.staked else "TRANSFER",
        "staked": u.staked,
    }
    optional = {
        "consumingTxHash": u.consuming_tx,
        "consumingBlockNumber": None if u.consuming_height is None else str(u.consuming_height),
        "consumingBlockTimestamp": u.consuming_timestamp,
        "utxoBytes": u.utxo_bytes,
        "platformLocktime": u.locktime,
        "stakeableLocktime": u.stakeable_locktime,
        "threshold": u.threshold,
        "utxoStartTimestamp": u.utxo_start,
        "utxoEndTimestamp": u.utxo_end,
        "rewardType": u.reward_type,
    }
    out.update({k: v for k, v in optional.items() if v is not None})
    return out


def transaction(avax_asset: str, tx: PTx, emitted: list[PUtxo], consumed: list[PUtxo]) -> Json:
    """The tx's document: everything but the staker's state (see `staker_state`)."""
    staked = [u for u in emitted if u.staked]
    value = _amounts([u for u in emitted if not u.staked])
    spent = _amounts(consumed)
    out_sums = _amounts(emitted)
    burned = {a: spent.get(a, 0) - out_sums.get(a, 0) for a in spent}
    out: Json = {
        "txHash": tx.tx_id,
        "txType": tx.tx_type,
        "blockTimestamp": tx.timestamp,
        "blockNumber": str(tx.height),
        "blockHash": tx.block_id,
        "consumedUtxos": [utxo(avax_asset, u) for u in consumed],
        "emittedUtxos": [utxo(avax_asset, u) for u in emitted],
        "value": _asset_list(avax_asset, value),
        "amountBurned": _asset_list(avax_asset, burned),
        "amountStaked": _asset_list(avax_asset, _amounts(staked)),
        "amountL1ValidatorBalanceBurned": [],
    }
    out.update(tx.details)
    if tx.memo:
        out["memo"] = tx.memo
    return out


def staker_state(potential_reward: str | None, ended_tx: str | None) -> Json:
    """What a staking tx's resource adds from its staker: the reward estimate, the reward tx."""
    out: Json = {}
    if potential_reward is not None:
        out["estimatedReward"] = potential_reward
    if ended_tx is not None:
        out["rewardTxHash"] = ended_tx
    return out


def with_state(document: str, state: Json) -> orjson.Fragment:
    """A stored document with the staker's state appended, as JSON orjson embeds verbatim
    (the same keys in the same order as `transaction` followed by `staker_state`)."""
    body = document.encode()
    if not state:
        return orjson.Fragment(body)
    return orjson.Fragment(body[:-1] + b"," + orjson.dumps(state)[1:])


def render_stored(
    reads: Reads, pchain: str, avax_asset: str, tx_ids: Sequence[str]
) -> dict[str, str]:
    """The documents of these txs, rendered from the rows as they stand: tx id -> JSON."""
    txs = tx_rows(reads, pchain, tx_ids)
    emitted, consumed = utxos_of(reads, pchain, [t.tx_id for t in txs])
    return {
        t.tx_id: orjson.dumps(
            transaction(avax_asset, t, emitted[t.tx_id], consumed[t.tx_id])
        ).decode()
        for t in txs
    }
