"""Devnet throughput: eth_sendRawTransaction one at a time, ours against anvil in the same run.

Automine (every transaction mined before the call returns; runs of `--txs`) and interval mode
(blocks every --block-time seconds; runs of `--interval-txs`). Each node first gets WARMUP
transactions untimed; a run ends at its last transaction's receipt. Prints tx/s for each and
the ratio ours/anvil, then the devnet's L1 (`--l1`, measured in the same node after its
C-Chain) beside its C-Chain. Loopback only; every loop is bounded in count and time.

    python bench/devnet.py [--txs 500 2000] [--interval-txs 2000 10000] [--block-time 0.25]
                           [--rounds 3]

Two CPU placements, as two machine speeds: each server pinned to CPU 0 with the client on
CPU 1 (one core per node), and no pinning (the server shares both cores with the client).

anvil's automine rate falls as its chain grows (measured here: ~870 tx/s over 500
transactions, ~450 over 2000, ~60 over 3000), so runs of two lengths are reported. In
interval mode a run ends with a wait for the next block, up to one block time at a phase
set by when the node started: over 2,000 transactions (~0.5 s) it is up to half the run and
swung the ratio 0.8-1.3x between runs; over 10,000 it is at most a tenth. The interval
target is judged on the longest run.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.client
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson
from eth_account import Account

from snowfield.supervisor import terminate
from snowfield.testing import anvil_binary as testing_anvil_binary
from snowfield.testing import free_port

KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
CUSTOM_EVM = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
L1_CHAIN_ID = 99999  # the chain id `--l1 NAME` gives the first L1 without a genesis file
TIME_LIMIT = 300.0


def anvil_binary() -> Path | None:
    """anvil from npm (installed under .bench/ on first use), or None where npm is missing."""
    try:
        return testing_anvil_binary()
    except (OSError, subprocess.CalledProcessError):
        return None


def rpc(client: httpx.Client, url: str, method: str, *params: object) -> object:
    reply = client.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    ).json()
    if "error" in reply:
        raise RuntimeError(f"{method}: {reply['error']}")
    return reply["result"]


@dataclass(frozen=True)
class Placement:
    """Where the servers and this process (the client) run; None: anywhere."""

    name: str
    server: frozenset[int] | None = None
    client: frozenset[int] | None = None

    @contextlib.contextmanager
    def client_pinned(self) -> Iterator[None]:
        before = os.sched_getaffinity(0) if self.client is not None else None
        if self.client is not None:
            os.sched_setaffinity(0, self.client)
        try:
            yield
        finally:
            if before is not None:
                os.sched_setaffinity(0, before)


FREE = Placement("no pinning")


def placements() -> list[Placement]:
    """One core per node (where the machine has two) and no pinning."""
    if (os.cpu_count() or 1) >= 2 and hasattr(os, "sched_setaffinity"):
        return [Placement("server on CPU 0, client on CPU 1", frozenset({0}), frozenset({1})),
                FREE]  # fmt: skip
    return [FREE]


@contextlib.contextmanager
def running(cmd: list[str], url: str, placement: Placement = FREE) -> Iterator[None]:
    cpus = placement.server
    # Threads inherit the affinity: anvil's runtime and our writer thread stay on `cpus`.
    pin = None if cpus is None else functools.partial(os.sched_setaffinity, 0, cpus)
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=pin
    )
    try:
        deadline = time.monotonic() + 60
        with httpx.Client(timeout=2) as client:
            while True:
                with contextlib.suppress(httpx.HTTPError, RuntimeError):
                    rpc(client, url, "eth_chainId")
                    break
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"{cmd[0]} did not start")
                time.sleep(0.1)
        yield
    finally:
        terminate(proc)


_SIGNED: dict[int, list[str]] = {}  # by chain id: every placement and run reuses them


def signed(chain_id: int, count: int) -> list[str]:
    """`count` transfers from KEY, nonces from 0."""
    txs = _SIGNED.setdefault(chain_id, [])
    for nonce in range(len(txs), count):
        tx = {
            "to": "0x" + "44" * 20,
            "value": 1,
            "gas": 21000,
            # Far above any base fee a run reaches (the custom EVM's 10 s window drives
            # it past 100 gwei over ~1,000 one-transaction blocks); the base fee is what is paid.
            "maxFeePerGas": 10**13,
            "maxPriorityFeePerGas": 10**9,
            "nonce": nonce,
            "chainId": chain_id,
            "type": 2,
        }
        txs.append("0x" + bytes(Account.sign_transaction(tx, KEY).raw_transaction).hex())
    return txs[:count]


class Connection:
    """One keep-alive HTTP/1.1 connection (stdlib): the thinnest client, so the figures are
    the servers', and the same for both nodes."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.path = parts.path or "/"
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.ids = 0

    def call(self, method: str, *params: object) -> object:
        self.ids += 1
        body = orjson.dumps(
            {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": list(params)}
        )
        self.conn.request("POST", self.path, body, {"content-type": "application/json"})
        reply = orjson.loads(self.conn.getresponse().read())
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def close(self) -> None:
        self.conn.close()


class Rate(float):
    """tx/s; `complete` is False when the time limit cut the run short (the rate is then
    over the transactions sent before it). `wait` is the share of the run spent after the
    last send, waiting for its receipt (in interval mode, up to one block time)."""

    complete: bool = True
    wait: float = 0.0


WARMUP = 50  # transactions sent to each node before the clock starts


def measure(url: str, txs: list[str]) -> Rate:
    """Sends each transaction and waits for the last receipt; returns tx/s over all but the
    first WARMUP, which warm both nodes (connection, caches, first blocks) untimed."""
    client = Connection(url)
    try:
        for raw in txs[:WARMUP]:
            client.call("eth_sendRawTransaction", raw)
        txs = txs[WARMUP:]
        started = time.perf_counter()
        last = None
        for sent, raw in enumerate(txs, 1):
            last = client.call("eth_sendRawTransaction", raw)
            if time.perf_counter() - started > TIME_LIMIT:
                return _cut_short(sent, started)
        sent_all = time.perf_counter()
        while client.call("eth_getTransactionReceipt", last) is None:
            if time.perf_counter() - started > TIME_LIMIT:
                return _cut_short(len(txs), started)
            time.sleep(0.005)
        elapsed = time.perf_counter() - started
    finally:
        client.close()
    rate = Rate(len(txs) / elapsed)
    rate.wait = (started + elapsed - sent_all) / elapsed
    return rate


def _mean(a: Rate, b: Rate) -> Rate:
    rate = Rate((a + b) / 2)
    rate.complete = getattr(a, "complete", True) and getattr(b, "complete", True)
    rate.wait = (a.wait + b.wait) / 2
    return rate


def _cut_short(sent: int, started: float) -> Rate:
    rate = Rate(sent / (time.perf_counter() - started))
    rate.complete = False
    return rate


def l1_rpc(base: str) -> str:
    """The JSON-RPC URL of the devnet's L1 (`--l1`), from the P-Chain's blockchain list."""
    with httpx.Client(timeout=10) as client:
        reply = rpc(client, f"{base}/ext/bc/P", "platform.getBlockchains")
    assert isinstance(reply, dict)
    (chain,) = [c for c in reply["blockchains"] if c["vmID"] == CUSTOM_EVM]
    return f"{base}/ext/bc/{chain['id']}/rpc"


def ours(count: int, block_time: float | None, placement: Placement) -> tuple[Rate, Rate]:
    """The C-Chain's rate and, in the same node, its L1's (same gas limit, same mode)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    url = f"{base}/ext/bc/C/rpc"
    with tempfile.TemporaryDirectory() as data:
        cmd = [
            sys.executable,
            "-m",
            "snowfield",
            "devnet",
            "--port",
            str(port),
            "--data-dir",
            data,
            "--log-level",
            "warn",
            "--gas-limit",
            "30000000",
            "--l1",
            f"bench L1={_l1_genesis(Path(data))}",
        ]
        if block_time is not None:
            cmd += ["--block-time", str(block_time)]
        with running(cmd, url, placement), placement.client_pinned():
            # The first chain measured warms the process for the second: each goes first in
            # turn, and the two runs are averaged. Each run sends `count` transactions, as
            # anvil's does: in interval mode the wait for the last block weighs on a run in
            # inverse proportion to its length, so runs of half the length would not compare.
            run = WARMUP + count  # each run warms up on its first WARMUP
            c_txs, l1_txs = signed(43112, 2 * run), signed(L1_CHAIN_ID, 2 * run)
            l1_url = l1_rpc(base)
            c_first = measure(url, c_txs[:run])
            l1_second = measure(l1_url, l1_txs[:run])
            l1_first = measure(l1_url, l1_txs[run:])
            c_second = measure(url, c_txs[run:])
            return _mean(c_first, c_second), _mean(l1_first, l1_second)


def _l1_genesis(folder: Path) -> Path:
    """The bench L1's genesis: the devnet's default L1 genesis (custom EVM fee rules, the
    C-Chain's gas limit) funding the bench key, with a target gas no run reaches. A run sends
    thousands of one-transaction blocks within seconds: at the default target (15M gas per
    10 s) the base fee compounds past any fixed fee cap, which would measure the fee rules,
    not the chain."""
    import json

    from snowfield.node.l1_boot import devnet_l1_genesis

    sender = bytes.fromhex(Account.from_key(KEY).address[2:])
    genesis = json.loads(
        devnet_l1_genesis(L1_CHAIN_ID, [sender], 10**30, 30_000_000, int(time.time()))
    )
    genesis["config"]["feeConfig"]["targetGas"] = 10**15
    path = folder / "bench-l1-genesis.json"
    path.write_text(json.dumps(genesis))
    return path


def anvil(binary: Path, count: int, block_time: float | None, placement: Placement) -> Rate:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [
        str(binary),
        "--port",
        str(port),
        "--host",
        "127.0.0.1",
        "--silent",
        "--chain-id",
        "31337",
    ]
    if block_time is not None:
        cmd += ["--block-time", str(block_time)]
    txs = signed(31337, WARMUP + count)
    with running(cmd, url, placement), placement.client_pinned():
        return measure(url, txs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--txs", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--interval-txs", type=int, nargs="+", default=[2000, 10_000])
    parser.add_argument("--block-time", type=float, default=0.25)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    binary = anvil_binary()
    runs = [("automine", None, count) for count in args.txs]
    runs += [(f"interval {args.block_time}s", args.block_time, n) for n in args.interval_txs]
    for placement in placements():
        rows = []
        l1_rows = []
        for label, block_time, count in runs:
            # Rounds alternate the two nodes, each on a fresh process, and the medians are
            # compared: a run of either swung +-10% on this machine.
            mine, l1, base = [], [], []
            for _ in range(args.rounds):
                c_rate, l1_rate = ours(count, block_time, placement)
                mine.append(c_rate)
                l1.append(l1_rate)
                if binary:
                    base.append(anvil(binary, count, block_time, placement))
            name = f"{label}, {count} txs"
            rows.append((name, _median(mine), _median(base) if base else None))
            l1_rows.append((name, _median(mine), _median(l1)))
        print(f"\n== {placement.name} (medians of {args.rounds} rounds)")
        report(rows, l1_rows)
    print("(last-receipt wait: share of each run, snowfield / anvil, spent after the last send)")
    print(f"(cores: {os.cpu_count()}; anvil from npm @foundry-rs/anvil-linux-amd64)")


def _median(rates: list[Rate]) -> Rate:
    """The median run (its own wait and completeness with it); the lower middle of an even
    count."""
    return sorted(rates)[(len(rates) - 1) // 2]


def report(
    rows: list[tuple[str, Rate, Rate | None]], l1_rows: list[tuple[str, Rate, Rate]]
) -> None:
    header = f"{'mode':<28}{'snowfield tx/s':>16}{'anvil tx/s':>14}{'ratio':>9}"
    print(f"{header}{'last-receipt wait':>20}")
    cut = False
    for label, mine, base in rows:
        ratio = f"{mine / base:.2f}x" if base else "n/a"
        base_text = f"{base:,.0f}" if base else "unavailable"
        marks = ("" if mine.complete else "*", "" if base is None or base.complete else "*")
        cut = cut or "*" in marks
        waits = " / ".join(f"{r.wait:.0%}" for r in (mine, base) if r is not None)
        print(f"{label:<28}{f'{mine:,.0f}{marks[0]}':>16}{base_text + marks[1]:>14}{ratio:>9}"
              f"{waits:>20}")  # fmt: skip
    print(f"\n{'mode':<28}{'C-Chain tx/s':>16}{'L1 tx/s':>14}{'L1/C':>9}")
    for label, c_rate, l1 in l1_rows:
        marks = ["" if r.complete else "*" for r in (c_rate, l1)]
        cut = cut or "*" in marks
        row = f"{label:<28}{f'{c_rate:,.0f}{marks[0]}':>16}{f'{l1:,.0f}{marks[1]}':>14}"
        print(f"{row}{f'{l1 / c_rate:.2f}x':>9}")
    if cut:
        print(f"* did not finish within {TIME_LIMIT:.0f} s: rate over the transactions sent")


if __name__ == "__main__":
    main()
