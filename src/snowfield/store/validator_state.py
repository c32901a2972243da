"""What the indexer last observed of the P-Chain's validators at the node, beyond what the
blocks hold: each current staker's uptime and connection, the L1 validators (balance, weight,
owners) as platform.getL1Validator answers, and the current supply. Each sync replaces the
previous observation in one transaction (the node's view, not a history)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store import sql, webhook_validators
from snowfield.store.database import Database
from snowfield.store.primary_queries import Reads
from snowfield.store.validator_schema import BUMP_GENERATION


@dataclass(frozen=True, slots=True)
class Observation:
    tx_id: str
    node_id: str
    uptime: str
    connected: bool
    version: str | None


@dataclass(frozen=True, slots=True)
class L1Validator:
    validation_id: str
    subnet_id: str
    node_id: str
    weight: int
    balance: int
    start_time: int
    public_key: str
    remaining_owner: dict[str, Any]  # {"addresses": [...], "threshold": n}
    deactivation_owner: dict[str, Any]
    height: int


def record(
    db: Database,
    pchain: str,
    stakers: Sequence[Observation],
    l1: Sequence[L1Validator],
    supply: tuple[int, int, int] | None,
) -> None:
    """Replaces the observation: the stakers and L1 validators the node lists now (an L1
    validation it no longer lists stays, at weight 0), and the supply (amount, height)."""
    with db.transaction() as w:
        # Before the previous observation is replaced: the webhooks compare against it.
        webhook_validators.on_observation(w, pchain, l1, int(time.time() * 1000))
        w.execute("DELETE FROM p_staker_observations WHERE pchain = ?", (pchain,))
        w.executemany(
            "INSERT INTO p_staker_observations (pchain, tx_id, node_id, uptime, connected,"
            " version) VALUES (?, ?, ?, ?, ?, ?)",
            [(pchain, s.tx_id, s.node_id, s.uptime, int(s.connected), s.version) for s in stakers],
        )
        height = max((v.height for v in l1), default=None)
        if height is not None:
            w.execute(
                "UPDATE p_l1_validators SET weight = '0', balance = '0', height = ?"
                " WHERE pchain = ?",
                (height, pchain),
            )
        w.executemany(
            "INSERT INTO p_l1_validators (pchain, validation_id, subnet_id, node_id, weight,"
            " balance, start_time, public_key, remaining_owner, deactivation_owner, height)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, validation_id)"
            " DO UPDATE SET weight = excluded.weight, balance = excluded.balance,"
            " height = excluded.height",
            [
                (
                    pchain,
                    v.validation_id,
                    v.subnet_id,
                    v.node_id,
                    str(v.weight),
                    str(v.balance),
                    v.start_time,
                    v.public_key,
                    json.dumps(v.remaining_owner),
                    json.dumps(v.deactivation_owner),
                    v.height,
                )
                for v in l1
            ],
        )
        # The active validations' entries show the observation and the stake: rendered
        # again (store/validator_documents.py; that module reads this one, so it is told in
        # SQL, and the observer refreshes them after this transaction).
        w.execute(
            "UPDATE p_validator_documents SET valid_until = 0 WHERE pchain = ? AND status = ?",
            (pchain, "active"),
        )
        w.execute(BUMP_GENERATION, (pchain,))  # and the list's answers move
        if supply is not None:
            w.execute(
                "INSERT INTO p_supply (pchain, supply, stake, height) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (pchain) DO UPDATE SET supply = excluded.supply,"
                " stake = excluded.stake, height = excluded.height",
                (pchain, str(supply[0]), str(supply[1]), supply[2]),
            )


def observations(db: Reads, pchain: str, tx_ids: Sequence[str]) -> dict[str, Observation]:
    out: dict[str, Observation] = {}
    for chunk in sql.chunks(list(tx_ids)):
        for tx, node, uptime, connected, version in db.query(
            "SELECT tx_id, node_id, uptime, connected, version FROM p_staker_observations"
            f" WHERE pchain = ? AND tx_id IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        ):
            out[str(tx)] = Observation(str(tx), str(node), str(uptime), bool(connected), version)
    return out


def versions(db: Database, pchain: str) -> dict[str, str | None]:
    """The observed version of each current staker's node, by staking tx."""
    rows = db.query("SELECT tx_id, version FROM p_staker_observations WHERE pchain = ?", (pchain,))
    return {str(r[0]): r[1] for r in rows}


def supply(db: Reads, pchain: str) -> tuple[int, int, int] | None:
    """(current supply, current primary-network stake, height) as the node last said."""
    rows = db.query("SELECT supply, stake, height FROM p_supply WHERE pchain = ?", (pchain,))
    return None if not rows else (int(rows[0][0]), int(rows[0][1]), int(rows[0][2]))


def l1_subnets(db: Database, pchain: str) -> list[str]:
    """The subnets converted to L1s (whose validators the indexer asks the node about)."""
    rows = db.query(
        "SELECT subnet_id FROM p_subnets WHERE pchain = ? AND conversion_tx IS NOT NULL"
        " ORDER BY subnet_id",
        (pchain,),
    )
    return [str(r[0]) for r in rows]


def l1_validators(
    db: Database,
    pchain: str,
    *,
    subnet_id: str | None,
    node_id: str | None,
    validation_id: str | None,
    include_inactive: bool,
    after: tuple[str, int, str] | None,
    limit: int,
) -> tuple[list[L1Validator], tuple[str, int, str] | None]:
    """L1 validations by (subnet, start, validation id); removed ones (weight 0) are left out,
    inactive ones (no balance left) unless asked for."""
    where = ["pchain = ?", "weight <> '0'"]
    params: list[Any] = [pchain]
    for column, value in (
        ("subnet_id", subnet_id),
        ("node_id", node_id),
        ("validation_id", validation_id),
    ):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if not include_inactive:
        where.append("balance <> '0'")
    if after is not None:
        where.append("(subnet_id, start_time, validation_id) > (?, ?, ?)")
        params += list(after)
    rows = db.query(
        "SELECT validation_id, subnet_id, node_id, weight, balance, start_time, public_key,"
        f" remaining_owner, deactivation_owner, height FROM p_l1_validators"
        f" WHERE {' AND '.join(where)} ORDER BY subnet_id, start_time, validation_id LIMIT ?",
        [*params, limit + 1],
    )
    items = [
        L1Validator(
            r[0],
            r[1],
            r[2],
            int(r[3]),
            int(r[4]),
            int(r[5]),
            r[6],
            json.loads(r[7]),
            json.loads(r[8]),
            int(r[9]),
        )
        for r in rows[:limit]
    ]
    last = items[-1] if items and len(rows) > limit else None
    key = None if last is None else (last.subnet_id, last.start_time, last.validation_id)
    return items, key


def l1_height(db: Database, pchain: str) -> int | None:
    row = db.query_one("SELECT MAX(height) FROM p_l1_validators WHERE pchain = ?", (pchain,))
    return None if row is None or row[0] is None else int(row[0])
