"""Every demo of `snowfield devnet --demo` at once, against a node's public APIs: the P-Chain
demo first, then EVM traffic on the C-Chain and each L1 beside the atomic, X-Chain, validator
manager and ICM demos, each from dev keys the others leave alone."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from snowfield.crypto.keys import EWOQ_KEY, key_from_bytes
from snowfield.errors import SnowfieldError, Unavailable
from snowfield.rpc.client import RpcClient
from snowfield.workload.atomic_demo import run_atomic_demo
from snowfield.workload.demo import run_demo
from snowfield.workload.icm_demo import run_icm_demo
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from snowfield.workload.validator_manager import (
    Initiated,
    run_manager_demo,
    start_unregistered,
)
from snowfield.workload.x_demo import run_x_demo

log = logging.getLogger(__name__)
# Dev keys of the ICM traffic: the relayer `snowfield up` starts pays delivery gas with one,
# the demo sends with the other (neither is used on the EVM chains by another demo).
ICM_RELAYER_KEY, ICM_DEMO_KEY = 4, 5
ICM_RESTARTS = 5  # times the ICM demo starts again after a request the node did not answer
# How a demo that stopped on an error says so: what stopped, and why.
Report = Callable[[str, Exception], None]


@dataclass(frozen=True, slots=True)
class DemoNetwork:
    """What the demos are told about the node they drive."""

    base: str  # the node's http://host:port
    keys: Sequence[bytes]  # its funded dev keys, in order
    # Blockchain ids of its custom EVM chains, asked when the EVM demos start: the `--l1`s and
    # the chain the P-Chain demo creates.
    l1s: Callable[[], Sequence[str]]
    manager: str  # the validator manager's address on those L1s ("0x…")


async def run_demos(network: DemoNetwork, stopping: Callable[[], bool]) -> None:
    """Runs until cancelled; a demo that stops on an error stops alone, with a warning unless
    `stopping()` says the node is shutting down (its requests then fail by design)."""
    base, keys = network.base, list(network.keys)

    def report(what: str, exc: Exception) -> None:
        if not stopping():
            log.warning("demo: %s stopped: %s", what, exc)

    # Before the P-Chain demo moves the clock a day on: a validator registration on each L1's
    # manager that nobody takes to the P-Chain; expired by then, the manager demo removes it.
    unregistered = (
        await _start_unregistered(base, list(network.l1s()), network.manager, keys[3], report)
        if len(keys) > 3
        else {}
    )
    try:  # once: staking, a subnet, a chain, an L1, and a day later the rewards
        await run_platform_demo(base, demo_secret(keys), _say)
    except (SnowfieldError, RuntimeError, OSError) as exc:  # e.g. a restart: stakes exist
        report("the P-Chain demo", exc)
    # The C-Chain and every L1 of the devnet (`--l1`): the same demo on each.
    labels = ["C", *network.l1s()]
    # Atomic C→P exports beside the EVM traffic, from a key the EVM demo (keys 0-2) does not
    # use: a shared key's nonce would break the EVM demo's local nonce count.
    side_tasks = []
    if len(keys) > 3:
        side_tasks.append(asyncio.create_task(_atomic(base, keys[-1], report)))
    # X-Chain traffic from keys the EVM demo (0-2) and the P-Chain demo (the last) leave alone.
    if len(keys) > 5:
        side_tasks.append(asyncio.create_task(_x(base, keys[3:-1], report)))
    # The demo L1's validator manager registers a validator (key 3 owns it on the L1; ewoq
    # pays on the P-Chain, which no other demo spends from).
    if len(keys) > 3 and len(labels) > 1:
        manager = _manager(base, labels[1:], network.manager, keys[3], report, unregistered)
        side_tasks.append(asyncio.create_task(manager))
    # Cross-chain (ICM) messages between the C-Chain and the L1s, from key 5 (key 4 relays).
    if len(keys) > 6 and len(labels) > 1:
        side_tasks.append(asyncio.create_task(_icm(base, labels, keys[ICM_DEMO_KEY], report)))
    try:
        async with asyncio.TaskGroup() as group:
            for label in labels:
                group.create_task(_evm(base, label, keys, report))
    finally:
        for task in side_tasks:
            task.cancel()


def _say(line: str) -> None:
    log.info("demo: %s", line)


async def _evm(base: str, label: str, keys: list[bytes], report: Report) -> None:
    # A chain the demo cannot drive stops only its own demo, not the others'. One whose
    # genesis funds no dev account (the P-Chain demo's subnet chain) is left alone.
    try:
        async with RpcClient(f"{base}/ext/bc/{label}/rpc") as client:
            first = "0x" + key_from_bytes(keys[0]).address.hex()
            if int(await client.call("eth_getBalance", first, "latest"), 16) == 0:
                log.info("demo %s: its genesis funds no dev account; no traffic", label)
                return
            await run_demo(
                client,
                keys,
                rounds=None,
                interval=2.0,
                stop=None,
                log=lambda line: log.info("demo %s: %s", label, line),
            )
    except (SnowfieldError, RuntimeError, OSError) as exc:
        report(label, exc)


async def _start_unregistered(
    base: str, l1s: list[str], manager: str, owner: bytes, report: Report
) -> dict[str, Initiated]:
    started = {}
    for l1 in l1s:
        try:
            chain = await _blockchain_id(base, l1)
            found = await start_unregistered(base, chain, manager, owner, EWOQ_KEY)
        except (SnowfieldError, RuntimeError, OSError) as exc:  # e.g. a restart: it exists
            report("the validator manager demo", exc)
            continue
        if found is not None:
            started[chain] = found
    return started


async def _manager(
    base: str,
    l1s: list[str],
    manager: str,
    owner: bytes,
    report: Report,
    unregistered: dict[str, Initiated],
) -> None:
    for l1 in l1s:  # those whose genesis holds the manager contract
        try:
            chain = await _blockchain_id(base, l1)
            await run_manager_demo(
                base, chain, manager, owner, EWOQ_KEY, _say, unregistered.get(chain)
            )
        except (SnowfieldError, RuntimeError, OSError) as exc:
            report("the validator manager demo", exc)


async def _icm(base: str, labels: list[str], secret: bytes, report: Report) -> None:
    chains = {(await _blockchain_id(base, label)): f"{base}/ext/bc/{label}/rpc" for label in labels}
    for attempt in range(ICM_RESTARTS + 1):
        try:
            await run_icm_demo(chains, secret, rounds=None, interval=4.0, stop=None, log=_say)
            return
        except Unavailable as exc:
            # The node did not answer one request (seen once in `up`'s test, as the other
            # services stopped and the node still served: ReadError on a request to the L1;
            # the demo's RPC client does not retry, a send may not be repeated blindly). The
            # demo starts again, from the chain's state; only a node that stays unreachable
            # stops it.
            if attempt == ICM_RESTARTS:
                report("the ICM demo", exc)
                return
            log.info("demo: the ICM demo lost a request (%s); starting it again", exc)
            await asyncio.sleep(2.0)
        except (SnowfieldError, RuntimeError, OSError) as exc:
            report("the ICM demo", exc)
            return


async def _blockchain_id(base: str, label: str) -> str:
    async with RpcClient(f"{base}/ext/info") as info:
        reply = await info.call_object("info.getBlockchainID", {"alias": label})
    return str(reply["blockchainID"])


async def _x(base: str, secrets: list[bytes], report: Report) -> None:
    try:
        await run_x_demo(base, secrets, rounds=None, interval=3.0, stop=None, log=_say)
    except (SnowfieldError, RuntimeError, OSError) as exc:
        report("the X-Chain demo", exc)


async def _atomic(base: str, secret: bytes, report: Report) -> None:
    try:
        await run_atomic_demo(base, secret, rounds=None, interval=5.0, stop=None, log=_say)
    except (SnowfieldError, OSError) as exc:
        report("the C-Chain atomic demo", exc)
