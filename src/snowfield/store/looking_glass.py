"""Address lists of the metrics service ("looking glass"): the reward addresses of a subnet's
validators over a time range, and BTC.b's net bridgers on the C-Chain of mainnet."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.store.database import Database

BTCB_CHAIN = 43114
BTCB_TOKEN = "0x152b9d0fdc40c096757f570a51e494bd4b943e50"  # BTC.b on the C-Chain of mainnet
ZERO = "0x" + "00" * 20


@dataclass(frozen=True, slots=True)
class ValidatorAddresses:
    start: int  # the validation's start (its AddValidatorTx's time): the sort key
    tx_id: str
    addresses: tuple[str, ...]


def validator_addresses(
    db: Database,
    pchain: str,
    subnet: str,
    start: int | None,
    end: int | None,
    after: int | None,
    limit: int,
) -> tuple[list[ValidatorAddresses], bool]:
    """Validations of `subnet` whose period overlaps [start, end], by start time, each with
    the addresses its rewards go to; pages continue after a start time (a page ends with
    every validation of its last start time, so no page boundary splits one)."""
    where = ["pchain = ?", "subnet_id = ?", "kind <> 'DELEGATOR'"]
    bound: list[object] = [pchain, subnet]
    for cond, value in (("end_time > ?", start), ("start_time <= ?", end),
                        ("start_time > ?", after)):  # fmt: skip
        if value is not None:
            where.append(cond)
            bound.append(value)
    rows = db.query(
        f"SELECT start_time, tx_id, reward_addresses FROM p_stakers WHERE {' AND '.join(where)}"
        " ORDER BY start_time, tx_id LIMIT ?",
        (*bound, limit + 1),
    )
    found = [ValidatorAddresses(int(s), str(t), tuple(str(a).split(","))) for s, t, a in rows]
    if len(found) <= limit:
        return found, False
    page = found[:limit]
    last = page[-1].start
    if found[limit].start == last:  # the rest of that start time joins this page
        rest = db.query(
            f"SELECT start_time, tx_id, reward_addresses FROM p_stakers WHERE"
            f" {' AND '.join(where)} AND start_time = ? AND tx_id > ? ORDER BY tx_id",
            (*bound, last, page[-1].tx_id),
        )
        page += [ValidatorAddresses(int(s), str(t), tuple(str(a).split(","))) for s, t, a in rest]
    more = db.query_one(
        f"SELECT 1 FROM p_stakers WHERE {' AND '.join(where)} AND start_time > ? LIMIT 1",
        (*bound, last),
    )
    return page, more is not None


def btcb_bridged(db: Database) -> list[tuple[str, int]]:
    """(address, net amount bridged in) of every address that minted or burned BTC.b on the
    indexed C-Chain of mainnet: mints to it less burns from it; largest first."""
    net: dict[str, int] = {}
    for holder, value, sign in (
        *((r[0], r[1], 1) for r in db.query(
            "SELECT to_addr, value FROM transfers WHERE chain_id = ? AND token = ?"
            " AND from_addr = ?", (BTCB_CHAIN, BTCB_TOKEN, ZERO))),
        *((r[0], r[1], -1) for r in db.query(
            "SELECT from_addr, value FROM transfers WHERE chain_id = ? AND token = ?"
            " AND to_addr = ?", (BTCB_CHAIN, BTCB_TOKEN, ZERO))),
    ):  # fmt: skip
        net[str(holder)] = net.get(str(holder), 0) + sign * int(value)
    return sorted(net.items(), key=lambda kv: (-kv[1], kv[0]))
