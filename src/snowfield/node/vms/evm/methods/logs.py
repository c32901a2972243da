"""eth_getLogs, the polling filters and the WebSocket subscriptions."""

from __future__ import annotations

import dataclasses
from typing import Any

from snowfield.errors import InvalidParams, MethodNotFound, NotFound
from snowfield.node.connections import Connection
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.filters import Filter
from snowfield.node.vms.evm.logfilter import LogCriteria, matching_logs, parse_criteria
from snowfield.node.vms.evm.render import log_json
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param, wants_context

MAX_LOG_RANGE = 100_000


def query_logs(
    rt: EvmRuntime, criteria: LogCriteria, start: int | None = None
) -> list[dict[str, Any]]:
    chain = rt.chain
    if criteria.block_hash is not None:
        block = chain.block_by_hash(criteria.block_hash)
        if block is None:
            raise NotFound("unknown block")
        blocks = [block]
    else:
        first = rt.number_of(criteria.from_block) if start is None else start
        last = min(rt.number_of(criteria.to_block), chain.head.number)
        if criteria.to_block.number is not None and first > criteria.to_block.number:
            raise InvalidParams("invalid block range")
        if last - first >= MAX_LOG_RANGE:
            raise InvalidParams(f"block range too large: at most {MAX_LOG_RANGE} blocks per query")
        blocks = [b for b in (chain.block(n) for n in range(first, last + 1)) if b is not None]
    return [
        log_json(log, block, block.txs[tx_index], tx_index, log_index)
        for block in blocks
        for log, tx_index, log_index in matching_logs(block, criteria)
    ]


def log_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain
    filters = rt.filters

    def get_logs(criteria: LogCriteria) -> list[dict[str, Any]]:
        return query_logs(rt, criteria)

    def new_filter(criteria: LogCriteria) -> str:
        # As geth: a filter reports logs of blocks accepted after it was installed, never
        # the past ones its range may name (eth_getFilterLogs serves those).
        return filters.install("logs", chain.head.number, criteria)

    def new_block_filter() -> str:
        return filters.install("block", chain.head.number)

    def new_pending_filter(full: bool = False) -> str:
        return filters.install("pending", chain.head.number)

    def filter_changes(ident: str) -> list[Any]:
        f = filters.get(ident)
        head = chain.head.number
        if f.kind == "pending":
            hashes = ["0x" + h.hex() for h in f.pending]
            f.pending.clear()
            return hashes
        if f.kind == "block":
            out = ["0x" + b.hash.hex() for b in chain.blocks[f.cursor + 1 : head + 1]]
            f.cursor = head
            return out
        assert f.criteria is not None
        if f.criteria.block_hash is not None:
            return [] if f.cursor >= head else _once(f, head, query_logs(rt, f.criteria))
        return _new_logs(rt, f, head)

    def filter_logs(ident: str) -> list[dict[str, Any]]:
        f = filters.get(ident)
        if f.kind != "logs" or f.criteria is None:
            raise NotFound("filter not found")
        return query_logs(rt, f.criteria)

    def uninstall(ident: str) -> bool:
        return filters.uninstall(ident)

    @wants_context
    def subscribe(kind: str, arg: Any, conn: Connection | None = None) -> str:
        if conn is None:
            raise MethodNotFound("notifications not supported")
        if kind == "newHeads":
            return rt.hub.add("newHeads", conn)
        if kind == "logs":
            return rt.hub.add("logs", conn, parse_criteria(arg or {}))
        if kind == "newPendingTransactions":
            return rt.hub.add("newPendingTransactions", conn, full_txs=bool(arg))
        raise MethodNotFound(f'no "{kind}" subscription in eth namespace')

    @wants_context
    def unsubscribe(ident: str, conn: Connection | None = None) -> bool:
        if conn is None:
            raise MethodNotFound("notifications not supported")
        return rt.hub.remove(ident, conn)

    return [
        Method("eth_getLogs", get_logs, (Param("criteria", parse_criteria),)),
        Method("eth_newFilter", new_filter, (Param("criteria", parse_criteria),)),
        Method("eth_newBlockFilter", new_block_filter),
        Method(
            "eth_newPendingTransactionFilter",
            new_pending_filter,
            (Param("full", p.boolean, False),),
        ),
        Method("eth_getFilterChanges", filter_changes, (Param("id", p.string),)),
        Method("eth_getFilterLogs", filter_logs, (Param("id", p.string),)),
        Method("eth_uninstallFilter", uninstall, (Param("id", p.string),)),
        Method(
            "eth_subscribe", subscribe, (Param("kind", p.string), Param("arg", lambda v: v, None))
        ),
        Method("eth_unsubscribe", unsubscribe, (Param("id", p.string),)),
    ]


def _new_logs(rt: EvmRuntime, f: Filter, head: int) -> list[dict[str, Any]]:
    """Logs of the blocks after the filter's cursor that lie inside its range."""
    assert f.criteria is not None
    first = max(f.cursor + 1, f.criteria.from_block.number or 0)
    last = min(head, rt.number_of(f.criteria.to_block))
    f.cursor = head
    if first > last:
        return []
    return query_logs(rt, dataclasses.replace(f.criteria, to_block=p.BlockRef(number=last)), first)


def _once(f: Any, head: int, logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    f.cursor = head
    return logs
