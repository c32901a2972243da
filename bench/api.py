"""Data API, operation 5 (an address's transactions): throughput and latency in one run.

1. Throughput: requests/s of `GET /v1/chains/{chainId}/addresses/{address}/transactions?pageSize=10`
   served by `create_data_app` under uvicorn, against a Starlette hello-world app under the same
   uvicorn settings that answers with the same response bytes (one real op-5 body, captured
   first and served verbatim). Two loads: one URL (the first page of one address) and a
   spread over the first SPREAD_PAGES pages of SPREAD_ADDRESSES addresses, so that no cache
   of a hot URL can carry the figure. Same load generator for both: wrk when installed
   (`apt-get install -y wrk`; a Lua hook cycles the URLs), else a bounded asyncio keep-alive
   client. Target: >= 50% (issue 18) for one URL, >= 40% for the spread (issue 34): the
   best round of each, and the median of the rounds' ratios (a round's two runs are adjacent
   in time, so a host whose speed drifts moves both alike; --rounds sets how many).
   --server-cpus 0 1 gives the servers two cores: the ratio at a second machine speed.
2. Latency: p50/p95 of sequential requests against two SQLite databases of synthetic,
   schema-faithful rows (written with `write_batch`), 100k and 2M transactions, where the queried
   address has the same 1,000 transactions in both. Pages 1, 2, 50 and 100 (the last, reached
   through nextPageToken): keyset paging should cost the same on every page. Target: the ratio of
   medians large/small <= 1.2x.

3. The request log's cost (usage metrics, issue 32): requests/s of the same service with and
   without its request log (`create_data_app(log_requests=False)`), rounds alternating, same
   loads; then side by side (with wrk): both servers on the same CPU at once, one wrk each, so
   that the kernel's fair scheduler gives each half the core and their requests/s ratio is
   the ratio of their CPU per request, whatever the machine's speed does meanwhile (on a
   shared host it moved by 20-40% between ten-second runs, more than the 5% judged). Each
   then serves half its usual rate, so a flush carries half the requests: conservative for
   the log. The unlogged one reads a copy of the large store (its size again on disk, for the
   run): until schema 29 put the log in a file of its own, each of the log's commits emptied
   the page cache of a server sharing the logged one's file. Target: the log costs <= 5%.

Rate limiting cannot trip (a limit of 10^12 units a minute). Each server is its own process,
pinned to CPU 0; the load generator and the client run on the last CPU. Databases are cached
under .bench/api/ by size, schema version and a digest of the DDL. Loopback only; every loop is
bounded in count and time.

    python bench/api.py [--sizes 100000 2000000] [--duration 10] [--load auto|wrk|python]
                        [--server-cpus 0 [1]] [--skip-latency] [--log-only]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import dataclasses
import hashlib
import http.client
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import uvicorn
import uvloop
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.ratelimit import MemoryLimiter
from snowfield.server import DEFAULT_LIMITS, server_config
from snowfield.store import usage_log
from snowfield.store.database import Database
from snowfield.store.rows import (
    BalanceRow,
    BlockBundle,
    BlockRow,
    ChainRow,
    ContractRow,
    InternalTxRow,
    TokenRow,
    TransferRow,
    TxRow,
)
from snowfield.store.schema import SCHEMA_VERSION, TABLES
from snowfield.store.writes import upsert_chain, write_batch
from snowfield.supervisor import terminate
from snowfield.testing import free_port

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".bench" / "api"
HOST = "127.0.0.1"
GENERATOR_VERSION = 2  # bump when the synthetic rows change, so cached databases are rebuilt

CHAIN_ID = 43112
PER_BLOCK = 20  # transactions per block
BLOCKS_PER_BATCH = 1_000  # one write_batch (one SQLite transaction) per 20,000 transactions
TARGET = "0x" + "5eed" * 10  # the queried address
TARGET_TXS = 1_000  # its transactions, the same in every database
PAGE_SIZE = 10
PAGES = (1, 2, 50, 100)  # 100 is the last page of 1,000 transactions
OTHER_ADDRESSES = 50_000
SPREAD_ADDRESSES = 1_024  # the spread load: this many addresses ...
SPREAD_PAGES = 4  # ... and their first pages (about 90 transactions each in the 2M database)
UNLIMITED = 10**12  # compute units a minute: rate limiting cannot trip
TARGET_RATIO = 0.50  # operation 5 / hello world (issue 18), one URL
TARGET_RATIOS = {"one URL": TARGET_RATIO, "spread": 0.40}  # by load (issue 34)

BUILD_LIMIT = 1_800.0  # seconds for building one database
START_LIMIT = 60.0  # seconds for a server to answer
WARMUP_SECONDS = 2.0
ROUNDS = 2  # throughput: ours and the baseline alternate, best round of each is reported
CONNECTIONS = 8
LATENCY_ROUNDS = 4  # latency: databases and pages interleave, so drift hits all alike
LATENCY_PER_ROUND = 50
LATENCY_LIMIT = 300.0

SELECTOR_TRANSFER = "0xa9059cbb"  # transfer(address,uint256)
SELECTOR_SWAP = "0x7ff36ab5"  # swapExactETHForTokens(...)


def _address(n: int, salt: int) -> str:
    """Addresses spread over the key space like real ones (a multiplicative hash of n)."""
    return f"0x{((n + 1) * 0x9E3779B97F4A7C15 * (salt + 1)) % 2**160:040x}"


OTHERS = tuple(_address(n, 0) for n in range(OTHER_ADDRESSES))
TOKENS = tuple(_address(n, 1) for n in range(16))
ROUTERS = tuple(_address(n, 2) for n in range(4))
DEPLOYER = _address(0, 3)
assert TARGET not in {*OTHERS, *TOKENS, *ROUTERS, DEPLOYER}


# -- synthetic chain ---------------------------------------------------------------------------


@dataclass(slots=True)
class TxParts:
    """One transaction and the rows that hang off it."""

    tx: TxRow
    transfers: list[TransferRow]
    internals: list[InternalTxRow]
    activity: set[str]


def _hash(kind: int, n: int) -> str:
    return f"0x{kind:02x}{n:062x}"


def _tx(block: BlockRow, index: int, g: int, sender: str, to: str | None, selector: str,
        value: int, created: str | None = None) -> TxRow:  # fmt: skip
    return TxRow(
        CHAIN_ID, block.number, index, _hash(1, g), block.hash, block.timestamp, sender, to,
        value, g, 120_000, 51_000 + g % 9_000, 25 * 10**9 + g % 10**9, 2, int(g % 50 != 0),
        selector, created,
    )  # fmt: skip


def _transaction(block: BlockRow, index: int, g: int, kind: int, a: str, b: str) -> TxParts:
    """kind 0: native a→b; 1: ERC-20 transfer a→b; 2: a calls a router that pays b (internal)."""
    value = 10**15 + g
    if kind == 0:
        return TxParts(_tx(block, index, g, a, b, "", value), [], [], {a, b})
    if kind == 1:
        # Hashed, not g % 16: TARGET's transactions are every stride-th, and a stride that is a
        # multiple of 16 (2M: 2,000) would give all of its transfers one token.
        token = TOKENS[(g * 0x9E3779B1 >> 20) % len(TOKENS)]
        tx = _tx(block, index, g, a, token, SELECTOR_TRANSFER, 0)
        transfer = TransferRow(CHAIN_ID, block.number, index, index, 0, tx.hash, block.timestamp,
                               token, "ERC-20", a, b, None, value * 1_000)  # fmt: skip
        return TxParts(tx, [transfer], [], {a, token, b})
    router = ROUTERS[g % len(ROUTERS)]
    tx = _tx(block, index, g, a, router, SELECTOR_SWAP, value)
    internal = InternalTxRow(CHAIN_ID, block.number, index, 0, tx.hash, router, b, "CALL",
                             value, 30_000, 9_000, False)  # fmt: skip
    return TxParts(tx, [], [internal], {a, router, b})


def _parties(g: int, stride: int, rng: random.Random) -> tuple[int, str, str]:
    """Kind and parties of body transaction g: every stride-th involves TARGET, in turn as
    native sender, native receiver, ERC-20 receiver and receiver of an internal call."""
    a, b = rng.choice(OTHERS), rng.choice(OTHERS)
    if g % stride != stride // 2:
        return g % 3, a, b
    turn = (g // stride) % 4
    if turn == 0:
        return 0, TARGET, b
    return (0, 1, 2)[turn - 1], a, TARGET


def _block_row(number: int, txs: int) -> BlockRow:
    return BlockRow(CHAIN_ID, number, _hash(0, number), _hash(0, number - 1),
                    1_700_000_000 + 2 * number, txs * 60_000, 15_000_000, 25 * 10**9, txs,
                    OTHERS[number % 97])  # fmt: skip


def _bundle(block: BlockRow, parts: Sequence[TxParts], contracts: Sequence[ContractRow] = (),
            rng: random.Random | None = None) -> BlockBundle:  # fmt: skip
    senders = sorted({p.tx.from_addr for p in parts})
    rand = rng or random.Random(block.number)
    balances = tuple(BalanceRow(CHAIN_ID, s, block.number, rand.randrange(10**21)) for s in senders)
    activity = tuple((addr, p.tx.tx_index) for p in parts for addr in sorted(p.activity))
    return BlockBundle(
        block,
        tuple(p.tx for p in parts),
        tuple(t for p in parts for t in p.transfers),
        tuple(i for p in parts for i in p.internals),
        tuple(contracts),
        balances,
        activity,
    )


def genesis() -> tuple[BlockBundle, list[TokenRow]]:
    """Block 0: the deployments of the tokens and routers that body transactions call."""
    created = [*TOKENS, *ROUTERS]
    block = _block_row(0, len(created))
    parts, contracts = [], []
    for i, address in enumerate(created):
        tx = _tx(block, i, i, DEPLOYER, None, "0x60806040", 0, created=address)
        tx = dataclasses.replace(tx, hash=_hash(2, i))  # body transaction i has _hash(1, i)
        parts.append(TxParts(tx, [], [], {DEPLOYER, address}))
        contracts.append(ContractRow(CHAIN_ID, address, 0, i, tx.hash, DEPLOYER, None, "CREATE"))
    tokens = [TokenRow(CHAIN_ID, t, "ERC-20", f"Bench Token {n}", f"BT{n}", 18, 0)
              for n, t in enumerate(TOKENS)]  # fmt: skip
    tokens += [TokenRow(CHAIN_ID, r, "UNKNOWN", None, None, None, 0) for r in ROUTERS]
    return _bundle(block, parts, contracts), tokens


def body_blocks(size: int, first: int, count: int, rng: random.Random) -> list[BlockBundle]:
    """Blocks first..first+count-1 (1-based) of a body of `size` transactions."""
    stride = size // TARGET_TXS
    bundles = []
    for number in range(first, first + count):
        block = _block_row(number, PER_BLOCK)
        parts = []
        for index in range(PER_BLOCK):
            g = (number - 1) * PER_BLOCK + index
            kind, a, b = _parties(g, stride, rng)
            parts.append(_transaction(block, index, g, kind, a, b))
        bundles.append(_bundle(block, parts, rng=rng))
    return bundles


# -- the cached databases ----------------------------------------------------------------------


def cache_path(size: int) -> Path:
    """Keyed by size, schema version, a digest of the DDL (edits without a version bump) and
    the generator version."""
    digest = hashlib.sha256("\n".join(TABLES).encode()).hexdigest()[:10]
    return CACHE / f"op5-{size}-schema{SCHEMA_VERSION}-{digest}-gen{GENERATOR_VERSION}.db"


def database(size: int) -> Path:
    """The cached database of `size` body transactions, built when missing."""
    path = cache_path(size)
    if path.exists():
        print(f"  {size:>11,} transactions: cached {path.relative_to(ROOT)}", flush=True)
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    for stale in CACHE.glob(f"op5-{size}-*"):
        stale.unlink()
    partial = path.with_suffix(".partial")
    build(partial, size)
    os.replace(partial, path)
    return path


def build(path: Path | str, size: int) -> None:
    if size % (PER_BLOCK * BLOCKS_PER_BATCH) or size % TARGET_TXS:
        raise SystemExit(f"--sizes must be multiples of {PER_BLOCK * BLOCKS_PER_BATCH:,}")
    db = Database(str(path))
    db.migrate()
    upsert_chain(db, ChainRow(CHAIN_ID, "Bench C-Chain", "local", "http://127.0.0.1:9650/rpc",
                              description="synthetic rows of bench/api.py"))  # fmt: skip
    first, tokens = genesis()
    write_batch(db, CHAIN_ID, [first], tokens)
    rng = random.Random(size)
    started = shown = time.monotonic()
    blocks = size // PER_BLOCK
    for start in range(1, blocks + 1, BLOCKS_PER_BATCH):
        write_batch(db, CHAIN_ID, body_blocks(size, start, BLOCKS_PER_BATCH, rng))
        now = time.monotonic()
        done = (start + BLOCKS_PER_BATCH - 1) * PER_BLOCK
        if now - started > BUILD_LIMIT:
            db.close()
            raise SystemExit(f"building {size:,} took over {BUILD_LIMIT:.0f} s; aborted")
        if now - shown > 10 or done == size:
            shown = now
            rate = done / (now - started)
            print(f"  {size:>11,} transactions: built {done / size:4.0%} ({done:,} in"
                  f" {now - started:.0f} s, {rate:,.0f} tx/s)", flush=True)  # fmt: skip
    if db.dialect == "sqlite":  # bench/history_layout.py builds PostgreSQL stores too
        db.query("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def describe(path: Path) -> str:
    # Counting millions of rows from a cold page cache can outlast the store's default
    # 10 s query limit (meant for API reads), so this one-off census gets more.
    db = Database(str(path), query_timeout=300)
    try:
        counts = [
            db.query_one(f"SELECT COUNT(*) FROM {t}") for t in ("transactions", "address_txs")
        ]
        mine = db.query_one("SELECT COUNT(*) FROM address_txs WHERE address = ?", (TARGET,))
    finally:
        db.close()
    txs, pairs = (int(c[0]) if c else 0 for c in counts)
    assert mine is not None and int(mine[0]) == TARGET_TXS
    size_mb = path.stat().st_size / 2**20
    return f"{txs:,} txs, {pairs:,} address_txs rows, {size_mb:,.0f} MiB"


# -- servers (each a child process running this file with --serve) -----------------------------


def data_app(path: Path, *, log_requests: bool = True) -> ASGIApp:
    """The data service as `snowfield serve` composes it (its request log included, unless
    measuring without it), with a limit that cannot trip."""
    db = Database(str(path))
    db.migrate()
    policy = RatePolicy(anonymous=UNLIMITED, keyed=UNLIMITED)
    return create_data_app(db, policy=policy, limiter=MemoryLimiter(), log_requests=log_requests)


def hello_app(body: bytes) -> ASGIApp:
    """Starlette's hello world on the same route, answering with the captured bytes."""

    async def hello(request: Request) -> Response:
        return Response(body, media_type="application/json")

    path = "/v1/chains/{chainId}/addresses/{address}/transactions"
    return Starlette(routes=[Route(path, hello, methods=["GET"])])


def serve(kind: str, target: str, port: int) -> None:
    """uvicorn as `snowfield serve` runs it (its `server_config`: our HTTP protocol and limits,
    no access log, no server header; uvloop, one process), for both apps."""
    if kind.startswith("data"):
        app = data_app(Path(target), log_requests=kind != "data-unlogged")
    else:
        app = hello_app(Path(target).read_bytes())
    config = server_config(app, host=HOST, port=port, limits=DEFAULT_LIMITS)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(uvicorn.Server(config).serve())


def pin(cpus: set[int]) -> None:
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setaffinity(0, cpus)


PIDS: dict[int, int] = {}  # server process by port, for its CPU time


def cpu_seconds(port: int) -> float:
    """User + system CPU time of the server on `port` so far (Linux /proc; 0 elsewhere)."""
    return _cpu(f"/proc/{PIDS[port]}/stat") if port in PIDS else 0.0


def main_thread_seconds(port: int) -> float:
    """The same, of the server's main thread alone (the event loop's: its other threads are
    workers, the request log's writer among them)."""
    return _cpu(f"/proc/{PIDS[port]}/task/{PIDS[port]}/stat") if port in PIDS else 0.0


def _cpu(stat: str) -> float:
    try:
        fields = Path(stat).read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def server(kind: str, target: Path, probe: str, cpus: set[int]) -> Iterator[int]:
    """A server child on a free port, pinned to `cpus`; yields the port once `probe` is 200."""
    port = free_port()
    cmd = [sys.executable, __file__, "--serve", kind, str(target), "--port", str(port)]
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log,
                                preexec_fn=lambda: pin(cpus))  # fmt: skip
        try:
            wait_ready(proc, port, probe)
            PIDS[port] = proc.pid
            yield port
        except BaseException:
            log.seek(0)
            sys.stderr.write(log.read().decode(errors="replace")[-4000:])
            raise
        finally:
            terminate(proc)


def wait_ready(proc: subprocess.Popen[bytes], port: int, probe: str) -> None:
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError, http.client.HTTPException):
            client = Client(port)
            status, _ = client.get(probe)
            client.close()
            if status == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not answer 200 on {probe}")


# -- clients and load generators ---------------------------------------------------------------


class Client:
    """One keep-alive HTTP/1.1 connection (stdlib), for capture, paging and latency."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)

    def get(self, path: str) -> tuple[int, bytes]:
        self.conn.request("GET", path)
        reply = self.conn.getresponse()
        return reply.status, reply.read()

    def close(self) -> None:
        self.conn.close()


@dataclass(frozen=True, slots=True)
class Rate:
    requests: int
    seconds: float
    failures: int  # non-2xx answers and socket errors
    cpu: float = 0.0  # the server's CPU seconds over the run
    main_cpu: float = 0.0  # of which its main thread's

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    @property
    def per_cpu_second(self) -> float:
        """Requests per second of the server's own CPU time: what it would serve on a core
        of its own, whatever else the machine runs (a busy machine moves req/s, not this)."""
        return self.requests / self.cpu if self.cpu else 0.0


_WRK_ROTATION = """
local paths = {%s}
local n = 0
request = function()
  n = n %% #paths + 1
  return wrk.format(nil, paths[n])
end
"""


def wrk_load(port: int, paths: Sequence[str], duration: float) -> Rate:
    """wrk on the first path, or cycling through all of them (a Lua request hook)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(_WRK_ROTATION % ",".join(f'"{p}"' for p in paths))
        script.flush()
        cmd = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{duration:.0f}s", "--timeout", "10s",
               *(["-s", script.name] if len(paths) > 1 else []),
               f"http://{HOST}:{port}{paths[0]}"]  # fmt: skip
        out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                             timeout=duration + 30).stdout  # fmt: skip
    found = re.search(r"(\d+) requests in ([\d.]+)(m?s)", out)
    if found is None:
        raise RuntimeError(f"unexpected wrk output:\n{out}")
    seconds = float(found[2]) / (1000 if found[3] == "ms" else 1)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sockets = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out
    )
    failures = (int(errors[1]) if errors else 0) + (
        sum(map(int, sockets.groups())) if sockets else 0
    )
    return Rate(int(found[1]), seconds, failures)


async def _connection(
    port: int, paths: Sequence[str], deadline: float, budget: list[int]
) -> tuple[int, int]:
    """Requests one after another on one keep-alive connection until the deadline or budget,
    cycling through `paths`."""
    reader, writer = await asyncio.open_connection(HOST, port)
    requests = [f"GET {p} HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode() for p in paths]
    done = failed = 0
    try:
        while time.perf_counter() < deadline and budget[0] > 0:
            budget[0] -= 1
            writer.write(requests[done % len(requests)])
            head = await reader.readuntil(b"\r\n\r\n")
            length = re.search(rb"(?i)content-length: *(\d+)", head)
            await reader.readexactly(int(length[1]) if length else 0)
            done += 1
            failed += head[9:10] != b"2"
    finally:
        writer.close()
    return done, failed


async def _python_load(port: int, paths: Sequence[str], duration: float) -> Rate:
    budget = [int(duration * 100_000)]  # far above what one core can serve
    started = time.perf_counter()
    # Each connection walks its own rotation of the paths, so they do not move in lockstep.
    step = max(1, len(paths) // CONNECTIONS)
    rotations = [[*paths[i * step :], *paths[: i * step]] for i in range(CONNECTIONS)]
    async with asyncio.timeout(duration + 30):
        results = await asyncio.gather(
            *(_connection(port, r, started + duration, budget) for r in rotations)
        )
    seconds = time.perf_counter() - started
    return Rate(sum(r[0] for r in results), seconds, sum(r[1] for r in results))


def python_load(port: int, paths: Sequence[str], duration: float) -> Rate:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(_python_load(port, paths, duration))


def load(generator: str, port: int, paths: Sequence[str], duration: float) -> Rate:
    before, main_before = cpu_seconds(port), main_thread_seconds(port)
    rate = (wrk_load if generator == "wrk" else python_load)(port, paths, duration)
    rate = dataclasses.replace(
        rate,
        cpu=cpu_seconds(port) - before,
        main_cpu=main_thread_seconds(port) - main_before,
    )
    if rate.failures:
        raise RuntimeError(f"{rate.failures} failed requests on port {port}: rate limit tripped?")
    return rate


# -- measurements ------------------------------------------------------------------------------


def op5_path(address: str = TARGET, token: str | None = None) -> str:
    path = f"/v1/chains/{CHAIN_ID}/addresses/{address}/transactions?pageSize={PAGE_SIZE}"
    return path if token is None else f"{path}&pageToken={urllib.parse.quote(token)}"


def page_paths(port: int) -> dict[int, str]:
    """Walks every page of TARGET through nextPageToken; the paths of PAGES, checked complete."""
    client = Client(port)
    paths, path, seen = {}, op5_path(), 0
    for page in range(1, TARGET_TXS // PAGE_SIZE + 2):
        if page in PAGES:
            paths[page] = path
        status, body = client.get(path)
        assert status == 200, body[:300]
        reply = _json(body)
        seen += len(reply["transactions"])
        if "nextPageToken" not in reply:
            break
        path = op5_path(token=reply["nextPageToken"])
    client.close()
    assert seen == TARGET_TXS and set(paths) == set(PAGES), (seen, sorted(paths))
    return paths


def _json(body: bytes) -> dict[str, Any]:
    value = orjson.loads(body)
    assert isinstance(value, dict)
    return value


def spread_paths(port: int) -> list[str]:
    """Pages 1 to SPREAD_PAGES of SPREAD_ADDRESSES addresses (later pages through their
    nextPageToken), shuffled: a load no cache of a few hot URLs can serve."""
    client = Client(port)
    paths: list[str] = []
    deadline = time.monotonic() + START_LIMIT
    for address in OTHERS[:SPREAD_ADDRESSES]:
        path: str | None = op5_path(address)
        for _ in range(SPREAD_PAGES):
            if path is None or time.monotonic() > deadline:
                break
            paths.append(path)
            status, body = client.get(path)
            assert status == 200, body[:300]
            token = _json(body).get("nextPageToken")
            path = None if token is None else op5_path(address, token)
    client.close()
    later = len(paths) - SPREAD_ADDRESSES
    assert later >= SPREAD_ADDRESSES, f"only {later} later pages: is the database too small?"
    random.Random(0).shuffle(paths)
    return paths


def throughput(
    generator: str,
    ours: int,
    base: int,
    loads: dict[str, list[str]],
    duration: float,
    rounds: int = ROUNDS,
    pairs: dict[str, list[tuple[Rate, Rate]]] | None = None,
) -> dict[str, tuple[Rate, Rate]]:
    """Per load (a list of paths): ours and the baseline alternate `rounds` times after a
    warm-up; best round of each (by req/s; the req/CPU-s figures are those rounds'). Every
    round's (ours, baseline) goes to `pairs` when given."""
    best: dict[tuple[str, int], Rate] = {}
    for name, paths in loads.items():
        for port in (ours, base):
            load(generator, port, paths, WARMUP_SECONDS)
        for n in range(rounds):
            pair: list[Rate] = []
            for label, port in (("snowfield", ours), ("baseline", base)):
                rate = load(generator, port, paths, duration)
                print(f"  {name}, round {n + 1}: {label:<10}{rate.per_second:>10,.0f} req/s"
                      f"{rate.per_cpu_second:>10,.0f} req/CPU-s  ({rate.requests:,} in"
                      f" {rate.seconds:.1f} s)", flush=True)  # fmt: skip
                if (name, port) not in best or rate.per_second > best[(name, port)].per_second:
                    best[(name, port)] = rate
                pair.append(rate)
            if pairs is not None:
                pairs.setdefault(name, []).append((pair[0], pair[1]))
    return {name: (best[(name, ours)], best[(name, base)]) for name in loads}


Samples = dict[tuple[int, int], list[float]]  # (size, page) -> seconds per request


def latencies(ports: dict[int, int], paths: dict[int, dict[int, str]]) -> Samples:
    """Seconds per sequential request, by (size, page); sizes and pages interleave by round."""
    clients = {size: Client(port) for size, port in ports.items()}
    samples: Samples = {(s, p): [] for s in ports for p in PAGES}
    deadline = time.monotonic() + LATENCY_LIMIT
    for rnd in range(LATENCY_ROUNDS + 1):  # round 0 warms up and is dropped
        for size, client in clients.items():
            for page in PAGES:
                for _ in range(LATENCY_PER_ROUND):
                    started = time.perf_counter()
                    status, _ = client.get(paths[size][page])
                    elapsed = time.perf_counter() - started
                    assert status == 200
                    if rnd:
                        samples[(size, page)].append(elapsed)
                if time.monotonic() > deadline:
                    raise RuntimeError(f"latency runs took over {LATENCY_LIMIT:.0f} s")
    for client in clients.values():
        client.close()
    return samples


def p50_p95(values: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(values, n=20, method="inclusive")
    return statistics.median(values) * 1000, cuts[18] * 1000


# -- report ------------------------------------------------------------------------------------


def report_throughput(
    rates: dict[str, tuple[Rate, Rate]],
    generator: str,
    pairs: dict[str, list[tuple[Rate, Rate]]] | None = None,
) -> None:
    for name, (ours, base) in rates.items():
        ratio = ours.per_second / base.per_second
        target = TARGET_RATIOS.get(name, TARGET_RATIO)
        verdict = "meets" if ratio >= target else "BELOW"
        print(f"  {name}:")
        print(f"    {'snowfield data app':<22}{ours.per_second:>10,.0f} req/s (best round)")
        print(f"    {'hello-world baseline':<22}{base.per_second:>10,.0f} req/s (best round)")
        print(f"    ratio snowfield / baseline: {ratio:.0%}"
              f" ({verdict} the >= {target:.0%} target)")  # fmt: skip
        if ours.cpu and base.cpu:
            cpu_ratio = ours.per_cpu_second / base.per_cpu_second
            print(f"    per CPU second of the server: {ours.per_cpu_second:,.0f} /"
                  f" {base.per_cpu_second:,.0f} req = {cpu_ratio:.0%}"
                  " (steadier on a busy machine)")  # fmt: skip
        if pairs and len(pairs.get(name, ())) > 1:
            # A round's two runs are adjacent in time: the host's speed moves both alike.
            per_round = [a.per_second / b.per_second for a, b in pairs[name]]
            print(f"    median of {len(per_round)} rounds' ratios:"
                  f" {statistics.median(per_round):.1%}"
                  f" (rounds {min(per_round):.1%} to {max(per_round):.1%})")  # fmt: skip
    if generator == "python":
        print("  (python load generator: it shares the client CPU and may cap the baseline,"
              " which flatters the ratio; install wrk for cleaner figures)")  # fmt: skip


@contextlib.contextmanager
def copy_of(path: Path) -> Iterator[Path]:
    """A copy of a cached database beside it, removed afterwards."""
    copy = path.with_name(path.name + ".side")
    db = Database(str(path))
    db.query("PRAGMA wal_checkpoint(TRUNCATE)")  # nothing in a WAL that the copy would miss
    db.close()
    try:
        shutil.copyfile(path, copy)
        yield copy
    finally:
        for left in (copy, *(copy.with_name(copy.name + end) for end in ("-wal", "-shm"))):
            left.unlink(missing_ok=True)  # the server's SQLite leaves its WAL and index


def side_by_side(
    ours: int, base: int, loads: dict[str, list[str]], duration: float, rounds: int
) -> dict[str, list[tuple[Rate, Rate]]]:
    """Per load, `rounds` runs of wrk against both servers at once (one wrk each)."""
    found: dict[str, list[tuple[Rate, Rate]]] = {}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for name, paths in loads.items():
            for n in range(rounds):
                a, b = (pool.submit(load, "wrk", port, paths, duration) for port in (ours, base))
                pair = (a.result(), b.result())
                print(f"  {name}, round {n + 1}: {pair[0].per_second:,.0f} req/s logged,"
                      f" {pair[1].per_second:,.0f} without the log:"
                      f" {pair[0].per_second / pair[1].per_second:.1%}", flush=True)  # fmt: skip
                found.setdefault(name, []).append(pair)
    return found


def report_side_by_side(pairs: dict[str, list[tuple[Rate, Rate]]]) -> None:
    for name, runs in pairs.items():
        ratios = [a.per_second / b.per_second for a, b in runs]
        median = statistics.median(ratios)
        verdict = "within" if median >= 0.95 else "OVER"
        print(f"  {name}, side by side: median of {len(ratios)} runs {median:.1%}"
              f" (+{1 - median:.1%} cost, {verdict} the 5% budget);"
              f" runs {min(ratios):.1%} to {max(ratios):.1%}")  # fmt: skip


def report_log_cost(
    rates: dict[str, tuple[Rate, Rate]], pairs: dict[str, list[tuple[Rate, Rate]]]
) -> None:
    """Requests/s with the request log over requests/s without it (target: >= 95%); then the
    median over rounds of each round's ratio (the two runs of a round are adjacent in time, so
    the machine's other load moves both alike: steadier than the best rounds' ratio)."""
    for name, (logged, unlogged) in rates.items():
        ratio = logged.per_second / unlogged.per_second
        verdict = "within" if ratio >= 0.95 else "OVER"
        print(f"  {name}: {logged.per_second:,.0f} req/s logged, {unlogged.per_second:,.0f}"
              f" without the log: {ratio:.1%} ({1 - ratio:+.1%} cost, {verdict} the 5%"
              " budget)")  # fmt: skip
        if logged.cpu and unlogged.cpu:
            # CPU time includes the log's writer thread: the log's whole cost, even when the
            # load generator, not the server, sets the pace on a busy machine.
            cpu = logged.per_cpu_second / unlogged.per_cpu_second
            print(f"    per CPU second of the server (the writer included):"
                  f" {logged.per_cpu_second:,.0f} / {unlogged.per_cpu_second:,.0f} req ="
                  f" {cpu:.1%} ({1 - cpu:+.1%} cost)")  # fmt: skip
        _report_threads(pairs[name])
        per_round = [a.per_second / b.per_second for a, b in pairs[name]]
        per_cpu = [a.per_cpu_second / b.per_cpu_second for a, b in pairs[name] if a.cpu and b.cpu]
        print(f"    median of {len(per_round)} rounds' ratios: {statistics.median(per_round):.1%}"
              " req/s" + (f", {statistics.median(per_cpu):.1%} per CPU second" if per_cpu
                          else ""))  # fmt: skip


def _report_threads(pairs: list[tuple[Rate, Rate]]) -> None:
    """CPU µs per request, medians over the rounds: where the log's cost is paid (the event
    loop's thread, or the writer's). A batch flushed after a round ends counts in the next."""

    def us(seconds: float, rate: Rate) -> float:
        return seconds / rate.requests * 1e6

    logged = [us(a.cpu, a) for a, _ in pairs]
    unlogged = [us(b.cpu, b) for _, b in pairs]
    main = [us(a.main_cpu, a) for a, _ in pairs]
    others = [us(a.cpu - a.main_cpu, a) for a, _ in pairs]
    bare = statistics.median(unlogged)
    cost = statistics.median(logged) - bare
    print(f"    CPU per request, medians: {statistics.median(logged):.1f} µs logged against"
          f" {bare:.1f} µs (+{cost:.1f} µs, {cost / bare:+.1%}); logged server's main thread"
          f" {statistics.median(main):.1f} µs, its other threads (the log's writer)"
          f" {statistics.median(others):.1f} µs")  # fmt: skip


def clear_request_logs(paths: Sequence[Path]) -> None:
    """The cached databases keep no request log of the bench's own load."""
    for path in paths:
        db = Database(str(path))
        usage_log.clear(db)
        db.close()


def report_latency(sizes: Sequence[int], samples: Samples) -> None:
    small, large = sizes[0], sizes[-1]
    head = "".join(f"{f'{s:,} p50':>15}{'p95':>8}" for s in sizes)
    print(f"  {'page':<12}{head}{'p50 ratio':>11}")
    for page in PAGES:
        cells = [p50_p95(samples[(s, page)]) for s in sizes]
        row = "".join(f"{p50:>15.2f}{p95:>8.2f}" for p50, p95 in cells)
        ratio = cells[-1][0] / cells[0][0]
        name = {1: "1 (first)", 2: "2 (keyset)", PAGES[-1]: f"{page} (last)"}.get(page, str(page))
        print(f"  {name:<12}{row}{ratio:>10.2f}x")
    first = {s: p50_p95(samples[(s, 1)])[0] for s in sizes}
    worst = max(p50_p95(samples[(large, p)])[0] / p50_p95(samples[(small, p)])[0] for p in PAGES)
    verdict = "meets" if worst <= 1.2 else "ABOVE"
    print(f"  ratio of medians {large:,} / {small:,}: worst page {worst:.2f}x"
          f" ({verdict} the <= 1.2x target)")  # fmt: skip
    for s in sizes:
        deep = max(p50_p95(samples[(s, p)])[0] for p in PAGES[1:]) / first[s]
        print(f"  {s:,}: slowest later page / first page p50 = {deep:.2f}x (no OFFSET cost: ~1)")
    n = LATENCY_ROUNDS * LATENCY_PER_ROUND
    print(f"  (ms; {n} sequential keep-alive requests per cell after {LATENCY_PER_ROUND} warm-up,"
          f" in {LATENCY_ROUNDS} interleaved rounds)")  # fmt: skip


def choose_generator(wanted: str) -> str:
    if wanted != "auto":
        if wanted == "wrk" and shutil.which("wrk") is None:
            raise SystemExit("wrk is not installed (apt-get install -y wrk)")
        return wanted
    if shutil.which("wrk"):
        return "wrk"
    print("wrk not found (apt-get install -y wrk): falling back to the python load generator")
    return "python"


def load_average() -> str:
    """Other work on the machine skews absolute figures (ratios are same-run)."""
    with contextlib.suppress(OSError):
        return f"{os.getloadavg()[0]:.1f}"
    return "unknown"


def run(
    sizes: Sequence[int],
    duration: float,
    generator: str,
    cpus: set[int],
    latency: bool,
    spread: bool = True,
    log_only: bool = False,
    rounds: int = ROUNDS,
) -> None:
    cores = os.cpu_count() or 1
    pin({cores - 1})  # this process, wrk and the client; the servers run on `cpus`
    print(f"bench/api.py: cores {cores} (servers pinned to CPU {sorted(cpus)}; load generator"
          f" and client to CPU {cores - 1}); load generator: {generator},"
          f" {CONNECTIONS} connections")  # fmt: skip
    print(f"rate limiting: disabled for the bench (RatePolicy of {UNLIMITED:.0e} units/min)")
    print("databases (synthetic rows via write_batch; the queried address has"
          f" {TARGET_TXS:,} transactions in each):")  # fmt: skip
    paths = {size: database(size) for size in sizes}
    for size, path in paths.items():
        print(f"  {size:>11,}: {describe(path)}", flush=True)
    before = load_average()
    with contextlib.ExitStack() as stack:
        side_copy = None
        if generator == "wrk":
            side_copy = stack.enter_context(copy_of(paths[sizes[-1]]))
        ports = {
            s: stack.enter_context(server("data", p, op5_path(), cpus)) for s, p in paths.items()
        }
        large = sizes[-1]
        capture = Client(ports[large])
        _, body = capture.get(op5_path())
        capture.close()
        captured = stack.enter_context(tempfile.NamedTemporaryFile(suffix=".json"))
        captured.write(body)
        captured.flush()
        base = stack.enter_context(server("hello", Path(captured.name), op5_path(), cpus))
        print(f"\n1. throughput of operation 5 against the {large:,} database ({len(body):,}"
              "-byte body, served verbatim by the baseline):", flush=True)  # fmt: skip
        loads = {"one URL": [op5_path()]}
        if spread:
            loads["spread"] = spread_paths(ports[large])
            print(f"  loads: one URL (the first page of one address); spread"
                  f" ({len(loads['spread']):,} URLs: pages 1-{SPREAD_PAGES} of"
                  f" {SPREAD_ADDRESSES:,} addresses)")  # fmt: skip
        if not log_only:
            paired: dict[str, list[tuple[Rate, Rate]]] = {}
            rates = throughput(generator, ports[large], base, loads, duration, rounds, paired)
            report_throughput(rates, generator, paired)
        unlogged = stack.enter_context(server("data-unlogged", paths[large], op5_path(), cpus))
        print("\n3. the request log's cost (usage, issue 32): operation 5 with the log against"
              " the same service without it, the same loads:", flush=True)  # fmt: skip
        pairs: dict[str, list[tuple[Rate, Rate]]] = {}
        logged = throughput(generator, ports[large], unlogged, loads, duration, rounds, pairs)
        report_log_cost(logged, pairs)
        if generator == "wrk":
            # Two new servers, started together, so that both have served the same requests:
            # side by side, one that has served the spread serves one URL ~9% slower than a
            # new one, log or no log (two unlogged servers, one after 65 s of spread load:
            # 91.0% over eight rounds; its larger memory shares the core's caches with the
            # other), which the logged server of parts 1 and 3 would have charged to the log.
            # The unlogged one reads a copy made before any server started: nothing the
            # logged server does reaches it (until schema 29, the log's commits to a shared
            # file dropped its page cache, SQLite's WAL mode, flattering the log).
            assert side_copy is not None
            logged_new = stack.enter_context(server("data", paths[large], op5_path(), cpus))
            apart = stack.enter_context(server("data-unlogged", side_copy, op5_path(), cpus))
            print("  side by side (two new servers on the same CPU at once, one wrk each; the"
                  " unlogged one on a copy of the store):", flush=True)  # fmt: skip
            report_side_by_side(side_by_side(logged_new, apart, loads, duration, rounds))
        if latency and not log_only:
            print("\n2. latency of operation 5, by database size and page:", flush=True)
            pages = {size: page_paths(port) for size, port in ports.items()}
            report_latency(sizes, latencies(ports, pages))
    clear_request_logs(list(paths.values()))
    print(f"(1-minute load average: {before} before the measurements, {load_average()} after)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[100_000, 2_000_000])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per load run")
    parser.add_argument("--load", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument(
        "--server-cpus",
        type=int,
        nargs="+",
        default=[0],
        help="CPUs the servers are pinned to (one or two: two machine speeds)",
    )
    parser.add_argument("--skip-latency", action="store_true", help="throughput only")
    parser.add_argument(
        "--one-url", action="store_true", help="no spread load (small databases have too few pages)"
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="rounds of parts 1 and 3")
    parser.add_argument(
        "--log-only", action="store_true", help="only part 3: the request log's cost"
    )
    parser.add_argument("--serve", nargs=2, metavar=("KIND", "TARGET"), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], args.serve[1], args.port)
        return
    run(sorted(args.sizes), args.duration, choose_generator(args.load), set(args.server_cpus),
        not args.skip_latency, not args.one_url, args.log_only, args.rounds)  # fmt: skip


if __name__ == "__main__":
    main()
