"""Brute-force metrics, independent of the service: per-block facts read from the node (blocks,
receipts, logs, callTracer traces) or from the raw indexed rows, then every series recomputed
from scratch with its own calendar."""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass
from typing import Any

import httpx

from snowfield.store.database import Database

DAY = 86400
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
ALL = ("hour", "day", "week", "month")
INTERVALS = {
    m: ALL if m in ("activeAddresses", "activeSenders", "gasUsed", "txCount") else ("day",)
    for m in (
        "activeAddresses", "activeSenders", "cumulativeTxCount", "cumulativeAddresses",
        "cumulativeContracts", "cumulativeDeployers", "contracts", "deployers", "gasUsed",
        "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice",
        "feesPaid",
    )
}  # fmt: skip


@dataclass(frozen=True)
class Block:
    chain: int
    number: int
    ts: int
    gas: int  # header gasUsed
    txs: tuple[tuple[str, str | None, int, int], ...]  # from, to, gasUsed, effective price
    transfers: tuple[tuple[str, str], ...]  # from, to
    creators: tuple[str, ...]  # `from` of each successful CREATE/CREATE2 (one per contract)


def _addr(topic: str) -> str:
    return "0x" + topic[-40:].lower()


def _transfer_parties(log: dict[str, Any]) -> list[tuple[str, str]]:
    topics = log["topics"]
    if topics and topics[0] == TRANSFER and len(topics) in (3, 4):
        return [(_addr(topics[1]), _addr(topics[2]))]
    if topics and topics[0] == SINGLE and len(topics) == 4:
        return [(_addr(topics[2]), _addr(topics[3]))]
    if topics and topics[0] == BATCH and len(topics) == 4:
        # One party pair per id of the batch: the count of ids is the first array's length.
        data = bytes.fromhex(log["data"][2:])
        ids_at = int.from_bytes(data[0:32], "big")
        count = int.from_bytes(data[ids_at : ids_at + 32], "big")
        return [(_addr(topics[2]), _addr(topics[3]))] * count
    return []


def _creations(frame: dict[str, Any], failed: bool) -> list[str]:
    out = []
    for child in frame.get("calls") or ():
        bad = failed or bool(child.get("error"))
        if child.get("type") in ("CREATE", "CREATE2") and not bad:
            out.append(child["from"].lower())
        out += _creations(child, bad)
    return out


def node_blocks(rpc: str) -> list[Block]:
    """Every block of the node's chain, from JSON-RPC alone."""
    client = httpx.Client(timeout=60)

    def ask(method: str, *params: Any) -> Any:
        reply = client.post(rpc, json={"jsonrpc": "2.0", "id": 1, "method": method,
                                       "params": list(params)}).json()  # fmt: skip
        return reply["result"]

    chain = int(ask("eth_chainId"), 16)
    head = int(ask("eth_blockNumber"), 16)
    out = []
    for n in range(head + 1):
        block = ask("eth_getBlockByNumber", hex(n), True)
        receipts = ask("eth_getBlockReceipts", hex(n))
        traces = ask("debug_traceBlockByNumber", hex(n), {"tracer": "callTracer"})
        txs, transfers, creators = [], [], []
        for tx, receipt, trace in zip(block["transactions"], receipts, traces, strict=True):
            ok = int(receipt["status"], 16) == 1
            to = None if tx.get("to") is None else tx["to"].lower()
            txs.append((tx["from"].lower(), to, int(receipt["gasUsed"], 16),
                        int(receipt["effectiveGasPrice"], 16)))  # fmt: skip
            for log in receipt["logs"]:
                transfers += _transfer_parties(log)
            result = trace.get("result", trace)
            if to is None and ok:
                creators.append(tx["from"].lower())
            creators += _creations(result, not ok or bool(result.get("error")))
        out.append(Block(chain, n, int(block["timestamp"], 16), int(block["gasUsed"], 16),
                         tuple(txs), tuple(transfers), tuple(creators)))  # fmt: skip
    client.close()
    return out


def db_blocks(db: Database, chain: int) -> list[Block]:
    """Every indexed block of `chain`, from the raw rows with plain SQL."""
    txs: dict[int, list[tuple[str, str | None, int, int]]] = {}
    for n, f, t, g, p in db.query(
        "SELECT block_number, from_addr, to_addr, gas_used, gas_price FROM transactions"
        " WHERE chain_id = ? ORDER BY block_number, tx_index",
        (chain,),
    ):
        txs.setdefault(n, []).append((f, t, int(g), int(p)))
    transfers: dict[int, list[tuple[str, str]]] = {}
    for n, f, t in db.query(
        "SELECT block_number, from_addr, to_addr FROM transfers WHERE chain_id = ?"
        " ORDER BY block_number, log_index, batch_index",
        (chain,),
    ):
        transfers.setdefault(n, []).append((f, t))
    creators: dict[int, list[str]] = {}
    for n, who in db.query(
        "SELECT block_number, COALESCE(factory, deployer) FROM contracts WHERE chain_id = ?"
        " ORDER BY block_number, tx_index",
        (chain,),
    ):
        creators.setdefault(n, []).append(who)
    return [
        Block(
            chain,
            n,
            int(ts),
            int(gas),
            tuple(txs.get(n, ())),
            tuple(transfers.get(n, ())),
            tuple(creators.get(n, ())),
        )
        for n, ts, gas in db.query(
            "SELECT number, timestamp, gas_used FROM blocks WHERE chain_id = ? ORDER BY number",
            (chain,),
        )
    ]


def same_facts(a: list[Block], b: list[Block]) -> bool:
    """Equal up to the order of transfers and creators inside a block."""

    def key(x: Block) -> Any:
        return (x.chain, x.number, x.ts, x.gas, x.txs, sorted(x.transfers), sorted(x.creators))

    return [key(x) for x in a] == [key(x) for x in b]


# -- calendar (deliberately not the service's code) -------------------------------------------


def start_of(interval: str, ts: int) -> int:
    d = dt.datetime.fromtimestamp(ts, dt.UTC)
    if interval == "hour":
        d = d.replace(minute=0, second=0)
    elif interval == "day":
        d = d.replace(hour=0, minute=0, second=0)
    elif interval == "week":
        d = d.replace(hour=0, minute=0, second=0) - dt.timedelta(days=d.weekday())
    else:
        d = d.replace(day=1, hour=0, minute=0, second=0)
    return int(d.timestamp())


def after(interval: str, start: int) -> int:
    d = dt.datetime.fromtimestamp(start, dt.UTC)
    if interval == "month":
        return int((d.replace(day=28) + dt.timedelta(days=4)).replace(day=1).timestamp())
    step = {"hour": 3600, "day": DAY, "week": 7 * DAY}[interval]
    return start + step


def buckets(interval: str, blocks: list[Block]) -> list[int]:
    """Oldest first, from the first block's bucket to the last's, gaps included."""
    if not blocks:
        return []
    out, b = [], start_of(interval, min(x.ts for x in blocks))
    last = start_of(interval, max(x.ts for x in blocks))
    while b <= last:
        out.append(b)
        b = after(interval, b)
    return out


# -- the metrics --------------------------------------------------------------------------------


def _as_number(n: int) -> int | float:
    return n if n < 2**63 else float(n)


def _addresses(blocks: list[Block], senders_only: bool) -> set[str]:
    out: set[str] = set()
    for x in blocks:
        for f, t, _, _ in x.txs:
            out.add(f)
            if t is not None and not senders_only:
                out.add(t)
        for f, t in x.transfers:
            out.add(f)
            if not senders_only:
                out.add(t)
    return out


def _per_chain(blocks: list[Block]) -> dict[int, list[Block]]:
    out: dict[int, list[Block]] = {}
    for x in sorted(blocks, key=lambda x: (x.chain, x.number)):
        out.setdefault(x.chain, []).append(x)
    return out


def _avg(chain_blocks: list[Block], b: int, end: int, amount: str) -> float:
    inside = [x for x in chain_blocks if b <= x.ts < end]
    if not inside:
        return 0.0
    earlier = [x.ts for x in chain_blocks if x.ts < b]
    since = max(earlier) if earlier else min(x.ts for x in inside)
    total = sum(len(x.txs) if amount == "tx" else x.gas for x in inside)
    return total / max(1, max(x.ts for x in inside) - since)


def _max(chain_blocks: list[Block], b: int, end: int, amount: str) -> float:
    best = 0.0
    for prev, x in itertools.pairwise(chain_blocks):
        if b <= x.ts < end:
            n = len(x.txs) if amount == "tx" else x.gas
            best = max(best, n / max(1, x.ts - prev.ts))
    return best


def value(metric: str, blocks: list[Block], b: int, end: int) -> int | float:
    """One data point of `metric` for the bucket [b, end) over `blocks` (any chains)."""
    inside = [x for x in blocks if b <= x.ts < end]
    txs = [t for x in inside for t in x.txs]
    chains = _per_chain(blocks)
    if metric == "activeAddresses":
        return len(_addresses(inside, False))
    if metric == "activeSenders":
        return len(_addresses(inside, True))
    if metric == "cumulativeTxCount":
        return sum(len(x.txs) for x in blocks if x.ts < b + DAY)
    if metric == "cumulativeAddresses":
        return len(_addresses([x for x in blocks if x.ts < b + DAY], False))
    if metric == "cumulativeContracts":
        return sum(len(x.creators) for x in blocks if x.ts < b)
    if metric == "cumulativeDeployers":
        return len({c for x in blocks if x.ts < b + DAY for c in x.creators})
    if metric == "contracts":
        return sum(len(x.creators) for x in inside)
    if metric == "deployers":
        return len({c for x in inside for c in x.creators})
    if metric == "gasUsed":
        return _as_number(sum(t[2] for t in txs))
    if metric == "txCount":
        return len(txs)
    if metric in ("avgTps", "avgGps"):
        amount = "tx" if metric == "avgTps" else "gas"
        return float(sum(_avg(c, b, end, amount) for c in chains.values()))
    if metric in ("maxTps", "maxGps"):
        amount = "tx" if metric == "maxTps" else "gas"
        return max((_max(c, b, end, amount) for c in chains.values()), default=0.0)
    if metric == "avgGasPrice":
        return sum(t[3] for t in txs) / len(txs) if txs else 0.0
    if metric == "maxGasPrice":
        return max((t[3] for t in txs), default=0)
    if metric == "feesPaid":
        return _as_number(sum(t[2] * t[3] for t in txs))
    raise AssertionError(metric)


def expected(metric: str, interval: str, blocks: list[Block]) -> list[tuple[int, int | float]]:
    """The whole series, newest first."""
    return [(b, value(metric, blocks, b, after(interval, b))) for b in buckets(interval, blocks)][
        ::-1
    ]
