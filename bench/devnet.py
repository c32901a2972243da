"""Devnet throughput: eth_sendRawTransaction one at a time, ours against anvil in the same run.

Automine (every transaction mined before the call returns) and interval mode (blocks every
--block-time seconds). Each node first gets WARMUP transactions untimed. Prints tx/s for
each and the ratio ours/anvil, then the devnet's L1 (`--l1`, measured in the same node after
its C-Chain) beside its C-Chain. Loopback only; every loop is bounded in count and time.

    python bench/devnet.py [--txs 500 2000] [--block-time 0.25]

anvil's automine rate falls as its chain grows (measured here: ~870 tx/s over 500
transactions, ~450 over 2000, ~60 over 3000), so runs of two lengths are reported.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
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


@contextlib.contextmanager
def running(cmd: list[str], url: str) -> Iterator[None]:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def signed(chain_id: int, count: int) -> list[str]:
    txs = []
    for nonce in range(count):
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
    return txs


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


def ours(count: int, block_time: float | None) -> tuple[float, float]:
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
        with running(cmd, url):
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


def anvil(binary: Path, count: int, block_time: float | None) -> float:
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
    with running(cmd, url):
        return measure(url, signed(31337, WARMUP + count))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--txs", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--block-time", type=float, default=0.25)
    args = parser.parse_args()
    binary = anvil_binary()
    rows = []
    l1_rows = []
    for count in args.txs:
        for label, block_time in (
            ("automine", None),
            (f"interval {args.block_time}s", args.block_time),
        ):
            mine, l1 = ours(count, block_time)
            base = anvil(binary, count, block_time) if binary else None
            rows.append((f"{label}, {count} txs", mine, base))
            l1_rows.append((f"{label}, {count} txs", mine, l1))
    header = f"{'mode':<26}{'snowfield tx/s':>16}{'anvil tx/s':>14}{'ratio':>9}"
    print(f"{header}{'last-receipt wait':>20}")
    cut = False
    for label, mine, base in rows:
        ratio = f"{mine / base:.2f}x" if base else "n/a"
        base_text = f"{base:,.0f}" if base else "unavailable"
        marks = ("" if getattr(mine, "complete", True) else "*", "")
        if base is not None and not getattr(base, "complete", True):
            marks = (marks[0], "*")
        cut = cut or "*" in marks
        waits = " / ".join(f"{getattr(r, 'wait', 0.0):.0%}" for r in (mine, base) if r is not None)
        print(f"{label:<26}{f'{mine:,.0f}{marks[0]}':>16}{base_text + marks[1]:>14}{ratio:>9}"
              f"{waits:>20}")  # fmt: skip
    print(f"\n{'mode':<26}{'C-Chain tx/s':>16}{'L1 tx/s':>14}{'L1/C':>9}")
    for label, c_rate, l1 in l1_rows:
        marks = ["" if getattr(r, "complete", True) else "*" for r in (c_rate, l1)]
        cut = cut or "*" in marks
        row = f"{label:<26}{f'{c_rate:,.0f}{marks[0]}':>16}{f'{l1:,.0f}{marks[1]}':>14}"
        print(f"{row}{f'{l1 / c_rate:.2f}x':>9}")
    if cut:
        print(f"* did not finish within {TIME_LIMIT:.0f} s: rate over the transactions sent")
    print("(last-receipt wait: share of each run, snowfield / anvil, spent after the last send)")
    print(f"(cores: {os.cpu_count()}; anvil from npm @foundry-rs/anvil-linux-amd64)")


if __name__ == "__main__":
    main()
