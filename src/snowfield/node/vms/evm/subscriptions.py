"""WebSocket subscriptions (eth_subscribe): newHeads, logs, newPendingTransactions."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from snowfield.chains.evm.model import Block, Tx
from snowfield.node.connections import Connection
from snowfield.node.vms.evm.logfilter import LogCriteria, matching_logs
from snowfield.node.vms.evm.render import header_json, log_json, tx_json

Send = Callable[[bytes], None]


@dataclass(frozen=True, slots=True)
class Subscription:
    ident: str
    kind: str
    connection: Connection
    criteria: LogCriteria | None = None
    full_txs: bool = False


class SubscriptionHub:
    """Fans accepted blocks and pending transactions out to subscribers (event-loop thread)."""

    def __init__(self) -> None:
        self._subs: dict[str, Subscription] = {}

    def __len__(self) -> int:
        return len(self._subs)

    def add(
        self,
        kind: str,
        conn: Connection,
        criteria: LogCriteria | None = None,
        full_txs: bool = False,
    ) -> str:
        ident = "0x" + secrets.token_hex(16)
        self._subs[ident] = Subscription(ident, kind, conn, criteria, full_txs)
        conn.subscriptions.add(ident)
        return ident

    def remove(self, ident: str, conn: Connection) -> bool:
        sub = self._subs.get(ident)
        if sub is None or sub.connection is not conn:
            return False
        del self._subs[ident]
        conn.subscriptions.discard(ident)
        return True

    def drop_connection(self, conn: Connection) -> None:
        """Ends every subscription of a connection that closed, and releases its queue."""
        for ident in list(conn.subscriptions):
            self._subs.pop(ident, None)
        conn.subscriptions.clear()
        conn.close()

    def publish_block(self, block: Block) -> None:
        if not self._subs:
            return
        head: dict[str, Any] | None = None
        for sub in list(self._subs.values()):
            if sub.kind == "newHeads":
                head = head or header_json(block)
                _notify(sub, head)
            elif sub.kind == "logs" and sub.criteria is not None:
                for log, tx_index, log_index in matching_logs(block, sub.criteria):
                    _notify(sub, log_json(log, block, block.txs[tx_index], tx_index, log_index))

    def publish_removed(self, blocks: tuple[Block, ...]) -> None:
        """As geth on a reorg: logs of blocks taken off the chain (evm_revert), newest
        block first, flagged `removed`."""
        for block in reversed(blocks):
            for sub in list(self._subs.values()):
                if sub.kind != "logs" or sub.criteria is None:
                    continue
                for log, tx_index, log_index in matching_logs(block, sub.criteria):
                    tx = block.txs[tx_index]
                    _notify(sub, log_json(log, block, tx, tx_index, log_index, removed=True))

    def publish_pending(self, tx: Tx) -> None:
        if not self._subs:
            return
        for sub in list(self._subs.values()):
            if sub.kind == "newPendingTransactions":
                _notify(sub, tx_json(tx) if sub.full_txs else "0x" + tx.hash.hex())


def _notify(sub: Subscription, result: Any) -> None:
    message = {
        "jsonrpc": "2.0",
        "method": "eth_subscription",
        "params": {"subscription": sub.ident, "result": result},
    }
    sub.connection.push(orjson.dumps(message))
