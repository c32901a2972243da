"""GET /v1/avax/supply: the AVAX supply of the indexed primary network, from the node's own
figures (platform.getCurrentSupply and the current stake, as the indexer last observed them)
and what the P, X and C indexes add up (store/supply_queries.py). The real service has no
parameters (it answers for mainnet): this one answers for mainnet when it is indexed, else for
the test network the store holds. Amounts in AVAX, as the real service gives them."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from decimal import Decimal

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.schemas import S, Schema, obj
from snowfield.errors import NotFound
from snowfield.store import supply_queries as q
from snowfield.store import validator_state
from snowfield.store.database import Database
from snowfield.store.primary import PrimaryNetwork

NANO = Decimal(10) ** 9
WEI = Decimal(10) ** 18
FIELDS = (
    "circulatingSupply",
    "totalSupply",
    "totalPBurned",
    "totalCBurned",
    "totalXBurned",
    "totalStaked",
    "totalLocked",
    "totalRewards",
)
SUPPLY_COMPONENTS: dict[str, Schema] = {
    "AvaxSupplyResponse": obj(
        {
            **{f: S for f in FIELDS},
            "lastUpdated": {"type": "string", "format": "date-time"},
            "genesisUnlock": S,
            "l1ValidatorFees": S,
        }
    )
}
L1_BALANCE_TXS = ("ConvertSubnetToL1Tx", "RegisterL1ValidatorTx", "IncreaseL1ValidatorBalanceTx")


def avax(amount: Decimal | int, unit: Decimal = NANO) -> str:
    """An amount in AVAX, as a plain decimal string without trailing zeros ("12.5", "0")."""
    value = (Decimal(amount) / unit).normalize()
    return f"{value:f}"


def _parts(db: Database, net: PrimaryNetwork, now: int) -> Json | None:
    observed = validator_state.supply(db, net.pchain)
    if observed is None:
        return None
    current, staked, height = observed
    held = q.l1_balances(db, net.pchain)
    # Balances deposited into L1 validators leave the P-Chain's UTXOs: burned once spent on
    # fees, not while a validator still holds them (the node's figure, at the observation).
    p_burned = max(0, q.p_burned(db, net.pchain, net.avax_asset) - held)
    x_burned = (
        0
        if net.xchain is None
        else q.x_burned(db, net.pchain, net.xchain, net.avax_asset, net.cchain)
    )
    # The C-Chain burns its blocks' fees (wei) and its atomic txs' fees (nAVAX).
    c_wei = 0 if net.cchain is None else q.c_fees(db, net.cchain)
    c_wei += 0 if net.cchain is None else q.c_atomic_fees(db, net.cchain) * 10**9
    deposited = q.p_burned(db, net.pchain, net.avax_asset, L1_BALANCE_TXS)
    total = Decimal(current - p_burned - x_burned) - Decimal(c_wei) * NANO / WEI
    locked = q.locked(db, net.pchain, net.xchain, net.avax_asset, now)
    at = q.block_time(db, net.pchain, height)
    return {
        "circulatingSupply": avax(total - locked),
        "totalSupply": avax(total),
        "totalPBurned": avax(p_burned),
        "totalCBurned": avax(c_wei, WEI),
        "totalXBurned": avax(x_burned),
        "totalStaked": avax(staked),
        "totalLocked": avax(locked),
        "totalRewards": avax(q.rewards_paid(db, net.pchain, net.avax_asset)),
        "lastUpdated": datetime.fromtimestamp(now if at is None else at, UTC)
        .isoformat()
        .replace("+00:00", "Z"),
        "genesisUnlock": avax(q.genesis_unlocked(db, net.pchain, net.avax_asset, now)),
        "l1ValidatorFees": avax(max(0, deposited - held)),
    }


async def get_supply(ctx: Context) -> Json:
    networks = sorted(await ctx.primary_networks(), key=lambda n: n.network_id != 1)
    if not networks:
        raise NotFound("no primary network is indexed")
    net = networks[0]  # mainnet first, as the real service answers for it
    found = await ctx.run(_parts, ctx.db, net, int(time.time()))
    if found is None:
        raise NotFound("the supply has not been observed at the node yet")
    return found


OPERATIONS = (
    Operation(
        "getAvaxSupply",
        "/v1/avax/supply",
        "Get AVAX supply information: total and circulating supply, AVAX burned on P, X and C,"
        " staked, locked, rewards paid, genesis unlocks and L1 validator fees.",
        "AVAX Supply",
        (),
        "AvaxSupplyResponse",
        20,
        get_supply,
    ),
)
