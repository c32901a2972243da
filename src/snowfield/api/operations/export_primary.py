"""Primary-network transaction exports (TRANSACTION_EXPORT_PRIMARY_NETWORK, …_STAKING and
…_SIMPLE): the P- and X-Chain transactions of addresses in a date range, as CSV.

Each (chain, address) of the request, in order, contributes every item that
listLatestPrimaryNetworkTransactions pages through for that chain and address over the dates
(startTimestamp: the first date's 00:00 UTC; endTimestamp: the last date's 23:59:59;
sortOrder asc), rendered by the same functions; `_STAKING` adds that operation's `txTypes` of
the staking txs. Without addresses, a chain's every transaction (as the listing without
`addresses`). The file is capped as EVM exports are (export_run.py): `WarnTruncatedExport`
with `nextDate`.

Columns: `address` (empty without addresses), `blockchainId`, `txHash`, `txType`,
`timestamp`, then `transaction`: the listed item as JSON, so that `read_rows` gives back
exactly the listed items."""

from __future__ import annotations

import csv
import io
import secrets
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import orjson

from snowfield.api.operations.export_request import dates
from snowfield.api.operations.export_run import DAY, Halted, LeaseLost, Outcome, day_start
from snowfield.api.primary.addressing import CHAINS, MAX_ADDRESSES, Target, bare_address
from snowfield.api.primary.transactions import p_documents
from snowfield.api.primary.x_chain import documents_of
from snowfield.errors import InvalidParams, NotFound
from snowfield.store import export_jobs, p_address_queries, primary, x_address_queries
from snowfield.store.database import Database
from snowfield.store.export_jobs import ExportJob
from snowfield.store.keys import ApiKey
from snowfield.store.p_address_queries import TxFilter
from snowfield.store.pagination import Key
from snowfield.store.primary import PrimaryNetwork
from snowfield.store.primary_queries import STAKING_TX_TYPES

PRIMARY = (
    "TRANSACTION_EXPORT_PRIMARY_NETWORK",
    "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING",
    "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE",
)
STAKING = "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING"
MAX_CHAINS = 8
HEADER = ("address", "blockchainId", "txHash", "txType", "timestamp", "transaction")
PAGE = 100  # items per read: the listing's own most
CHUNK_ROWS = 5_000


def primary_request(kind: str, body: Mapping[str, Any], hrp: str) -> dict[str, Any]:
    """The request checked against the indexed network (its HRP) and normalised: chains by
    name (p-chain, x-chain), addresses bare and lower-case."""
    span, options = dates(body, "{includeChains, addresses?}")
    extra = sorted(set(options) - {"addresses", "includeChains", "cChainEvmAddresses"})
    if extra:
        raise InvalidParams(f"unknown field options.{extra[0]}")
    chains = options.get("includeChains")
    if not isinstance(chains, list) or not chains or len(chains) > MAX_CHAINS:
        raise InvalidParams(f"options.includeChains must list 1 to {MAX_CHAINS} chains")
    named: list[str] = []
    for ref in chains:
        if not isinstance(ref, str) or ref not in CHAINS:
            raise InvalidParams(
                "options.includeChains must name p-chain, x-chain, c-chain or their ids"
            )
        chain, mainnet = CHAINS[ref]
        if mainnet is not None and mainnet != (hrp == "avax"):
            raise InvalidParams(f"{ref} is not a chain of the indexed network")
        if chain == "C":
            raise NotFound("the c-chain's atomic transactions are not indexed for exports")
        named.append("p-chain" if chain == "P" else "x-chain")
    out: dict[str, Any] = {"includeChains": list(dict.fromkeys(named))}
    given = options.get("addresses")
    if given is not None:
        if not isinstance(given, list) or not all(isinstance(a, str) for a in given):
            raise InvalidParams("options.addresses must be an array of strings")
        if len(given) > MAX_ADDRESSES:
            raise InvalidParams(f"options.addresses may list at most {MAX_ADDRESSES} values")
        if given:
            out["addresses"] = list(dict.fromkeys(bare_address(a, hrp) for a in given))
    return {"type": kind, **span, "options": out}


def indexed(db: Database) -> PrimaryNetwork:
    found = primary.networks(db)
    if not found:
        raise NotFound("the primary network is not indexed")
    return found[0]


def create_primary(
    db: Database, kind: str, body: Mapping[str, Any], key: ApiKey | None
) -> ExportJob:
    request = primary_request(kind, body, indexed(db).hrp)
    token = secrets.token_urlsafe(24)
    return export_jobs.create_job(
        db, str(uuid.uuid4()), kind, key.id if key else None, request, token
    )


def _items(db: Database, net: PrimaryNetwork, chain: str, f: TxFilter) -> Iterator[tuple[str, str]]:
    """(blockchain id, the item as JSON) of every tx the listing pages through, in order."""
    after: Key | None = None
    while True:
        if chain == "p-chain":
            page = p_address_queries.tx_page(db, net.pchain, f, after, PAGE)
            docs = [orjson.dumps(d) for d in p_documents(db, net, [r[0] for r in page.items])]
            place = net.pchain
        else:
            if net.xchain is None:
                return
            xpage = x_address_queries.tx_page(db, net.xchain, f, after, PAGE)
            docs = [orjson.dumps(d) for d in documents_of(db, Target("X", net), xpage.items)]
            page, place = xpage, net.xchain  # type: ignore[assignment]
        for doc in docs:
            yield place, doc.decode()
        after = page.next_key
        if after is None:
            return


def plan(job: ExportJob) -> list[tuple[str, str | None, TxFilter]]:
    """(chain, address, the listing's filter) per part of the file, in order."""
    request, options = job.request, job.request["options"]
    first, last = request.get("firstDate"), request.get("lastDate")
    start = None if first is None else day_start(first)
    end = None if last is None else day_start(last) + DAY - 1
    types = list(STAKING_TX_TYPES) if job.kind == STAKING else None
    addresses: list[str | None] = list(options.get("addresses") or [None])
    return [
        (chain, a, TxFilter(None if a is None else [a], types, start, end, False))
        for chain in options["includeChains"]
        for a in addresses
    ]


def csv_line(address: str | None, chain_id: str, document: str) -> tuple[list[Any], int]:
    """The cells of one item and its time."""
    item = orjson.loads(document)
    stamp = int(item.get("blockTimestamp", item.get("timestamp", 0)))
    return [address or "", chain_id, item["txHash"], item["txType"], stamp, document], stamp


def write_lines(lines: Iterable[list[Any]], *, header: bool) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if header:
        writer.writerow(HEADER)
    writer.writerows(lines)
    return out.getvalue()


def read_rows(text: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(address, blockchain id, item) of every line: the inverse of `csv_line`."""
    reader = csv.reader(io.StringIO(text, newline=""))
    if next(reader, None) != list(HEADER):
        raise ValueError("not a primary-network transaction export (header differs)")
    for cells in reader:
        yield cells[0], cells[1], orjson.loads(cells[5])


def run_primary_export(
    db: Database,
    job: ExportJob,
    owner: str,
    *,
    lease: int,
    max_rows: int,
    chunk_rows: int = CHUNK_ROWS,
    clock: Callable[[], float] = time.time,
    halted: Callable[[], bool] = lambda: False,
) -> Outcome:
    """Writes the job's file, as export_run.run_export does for EVM jobs."""
    net = indexed(db)
    done, seq = 0, 0
    lines: list[list[Any]] = []

    def flush() -> None:
        nonlocal seq, lines
        export_jobs.write_chunk(db, job.id, seq, write_lines(lines, header=seq == 0))
        seq, lines = seq + 1, []
        message = f"{done} transactions exported"
        if not export_jobs.report_progress(db, job.id, owner, lease, done, None, message,
                                           clock=clock):  # fmt: skip
            raise LeaseLost(job.id)
        if halted():
            raise Halted(job.id)

    for chain, address, f in plan(job):
        for chain_id, document in _items(db, net, chain, f):
            cells, stamp = csv_line(address, chain_id, document)
            if done == max_rows:
                flush()
                day = time.strftime("%Y-%m-%d", time.gmtime(stamp))
                return Outcome("COMPLETED_WITH_WARNING", done, "WarnTruncatedExport", day)
            lines.append(cells)
            done += 1
            if len(lines) >= chunk_rows:
                flush()
    flush()
    return Outcome("COMPLETED", done)
