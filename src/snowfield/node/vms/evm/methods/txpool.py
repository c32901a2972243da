"""The txpool_ namespace: what the mempool holds, as geth shows it."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.model import Tx
from snowfield.node.vms.evm.render import tx_json
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method


def _checksum(address: bytes) -> str:
    from eth_utils import to_checksum_address

    return str(to_checksum_address(address))


def txpool_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain

    def split() -> tuple[list[Tx], list[Tx]]:
        state = chain.state_at(chain.head)
        return chain.mempool.split(state.nonce)

    def group(txs: list[Tx], render: Any) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for tx in txs:
            out.setdefault(_checksum(tx.sender), {})[str(tx.nonce)] = render(tx)
        return out

    def content() -> dict[str, Any]:
        pending, queued = split()
        return {"pending": group(pending, tx_json), "queued": group(queued, tx_json)}

    def inspect() -> dict[str, Any]:
        def line(tx: Tx) -> str:
            to = _checksum(tx.to) if tx.to else "contract creation"
            return f"{to}: {tx.value} wei + {tx.gas} gas × {tx.max_fee} wei"  # noqa: RUF001 (as geth prints it)

        pending, queued = split()
        return {"pending": group(pending, line), "queued": group(queued, line)}

    def status() -> dict[str, str]:
        pending, queued = split()
        return {"pending": hex(len(pending)), "queued": hex(len(queued))}

    return [
        Method("txpool_content", content),
        Method("txpool_inspect", inspect),
        Method("txpool_status", status),
    ]
