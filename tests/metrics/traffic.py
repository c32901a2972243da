"""Traffic spread over days, weeks and months on a devnet, driven by its time control
(evm_setNextBlockTimestamp, evm_increaseTime, evm_mine), and a metrics server for tests."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import httpx
from eth_account import Account

from snowfield.api.metrics.service import create_metrics_app
from snowfield.store.database import Database
from snowfield.testing import DEV_KEYS, RunningNode, run_demo_rounds, serve_asgi
from tests.helpers import rpc_reply

DAY = 86400
# Extra senders beyond the dev keys the demo uses (funded by dev key 0 on first use).
EXTRA_KEYS = [bytes([i + 1]) * 32 for i in range(4)]


def first_monday_after(ts: int) -> int:
    """00:00 UTC of the first Monday at least a day after `ts` (test-side calendar)."""
    day = dt.datetime.fromtimestamp(ts, dt.UTC).date() + dt.timedelta(days=2)
    while day.weekday() != 0:
        day += dt.timedelta(days=1)
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp())


def call(node: RunningNode, method: str, *params: Any) -> Any:
    reply = rpc_reply(node.rpc, method, *params)
    assert "error" not in reply, (method, reply)
    return reply["result"]


class Traffic:
    """Sends signed transfers from several keys at chosen timestamps."""

    def __init__(self, node: RunningNode) -> None:
        self.node = node
        self.chain_id = int(call(node, "eth_chainId"), 16)
        self.nonces: dict[str, int] = {}

    def _nonce(self, address: str) -> int:
        if address not in self.nonces:
            self.nonces[address] = int(
                call(self.node, "eth_getTransactionCount", address, "pending"), 16
            )
        return self.nonces[address]

    def transfer(
        self, key: bytes, to: str, value: int, *, at: int | None = None, gas: int = 21000
    ) -> str:
        """One transfer mined in its own block (automine), at `at` when given."""
        account = Account.from_key(key)
        nonce = self._nonce(account.address)
        tx = {
            "to": to, "value": value, "gas": gas, "maxFeePerGas": 10**11,
            "maxPriorityFeePerGas": 10**9 + nonce % 3, "nonce": nonce,
            "chainId": self.chain_id, "type": 2,
        }  # fmt: skip
        raw = "0x" + bytes(Account.sign_transaction(tx, key).raw_transaction).hex()
        if at is not None:
            call(self.node, "evm_setNextBlockTimestamp", at)
        tx_hash = str(call(self.node, "eth_sendRawTransaction", raw))
        self.nonces[account.address] = nonce + 1
        return tx_hash

    def fund_extra(self, at: int) -> None:
        for i, key in enumerate(EXTRA_KEYS):
            self.transfer(DEV_KEYS[0], Account.from_key(key).address, 10**20, at=at + i)

    def demo_round(self, at: int) -> None:
        """The demo's contracts and traffic (ERC-20/721/1155, factories, a failed tx), every
        block at `at` (same-second blocks) since the node never goes back in time."""
        call(self.node, "evm_setNextBlockTimestamp", at)
        call(self.node, "evm_mine")
        run_demo_rounds(self.node.rpc, 1)
        # The demo kept track of dev-key nonces on its own.
        self.nonces.clear()

    def day_of_transfers(self, day: int, salt: int) -> None:
        """Transfers from several senders at hours and seconds that vary by `salt`."""
        senders = [DEV_KEYS[1], DEV_KEYS[2], *EXTRA_KEYS]
        for i in range(3 + salt % 3):
            key = senders[(salt + i) % len(senders)]
            to = "0x" + f"{(salt * 7 + i) % 5 + 1:02x}" * 20
            offset = (salt * 3600 + i * (1 + salt % 4) * 613) % (DAY - 600)
            self.transfer(key, to, 1000 + i, at=max(day + offset, self.head_ts()))
        # A same-second block and an empty block.
        self.transfer(senders[salt % len(senders)], "0x" + "77" * 20, 5)
        call(self.node, "evm_mine")

    def head_ts(self) -> int:
        return int(call(self.node, "eth_getBlockByNumber", "latest", False)["timestamp"], 16)


def build_history(node: RunningNode, monday: int, days: list[int], demo_days: set[int]) -> None:
    """Traffic on each of `days` (offsets from `monday`); demo rounds on `demo_days`."""
    traffic = Traffic(node)
    traffic.fund_extra(monday - 3600)
    for n, offset in enumerate(days):
        day = monday + offset * DAY
        if offset in demo_days:
            traffic.demo_round(max(day + 7 * 3600, traffic.head_ts()))
        traffic.day_of_transfers(day, n + offset)
    # evm_increaseTime: the next block's time is the node clock plus the offset.
    head = traffic.head_ts()
    call(node, "evm_increaseTime", head - int(time.time()) + 2 * DAY + 5)
    call(node, "evm_mine")


@contextlib.contextmanager
def serve_metrics(db: Database, **kwargs: Any) -> Iterator[str]:
    """The metrics app on a free loopback port; its base URL."""
    with serve_asgi(create_metrics_app(db, **kwargs), name="metrics") as base:
        yield base


def fetch_series(
    client: httpx.Client, base: str, chain: str, metric: str, **query: Any
) -> list[tuple[int, Any]]:
    """Every point of a series, following nextPageToken; newest first."""
    out: list[tuple[int, Any]] = []
    params = {k: v for k, v in query.items() if v is not None}
    token = None
    for _ in range(1000):
        paging = {"pageToken": token} if token else {}
        reply = client.get(
            f"{base}/v2/chains/{chain}/metrics/{metric}", params={**params, **paging}
        )
        assert reply.status_code == 200, reply.text
        body = reply.json()
        out += [(p["timestamp"], p["value"]) for p in body["results"]]
        token = body.get("nextPageToken")
        if token is None:
            return out
    raise AssertionError("too many pages")
