"""ACP-99's registration flow on a devnet L1 whose genesis holds our ValidatorManager at the
manager address the conversion names (make up's demo L1 genesis): the contract's Warp message,
aggregated over the peer protocol, is accepted by the P-Chain as RegisterL1ValidatorTx, and
the P-Chain's L1ValidatorRegistration, signed by the L1's validators, completes it on the
contract."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from snowfield.aggregator.service import AggregatorService
from snowfield.aggregator.validators import AggregationError
from snowfield.cli.up import demo_l1_genesis
from snowfield.config.network import DEMO_CLOCK_JUMP
from snowfield.crypto import bls
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.ids import ID, ShortID
from snowfield.node.l1_boot import MANAGER_ADDRESS
from snowfield.rpc.client import RpcClient
from snowfield.testing import serve_devnet
from snowfield.workload.contracts import load
from snowfield.workload.icm import (
    MESSENGER_ADDRESS,
    EvmAccount,
    deploy_messenger,
    send_message_data,
)
from snowfield.workload.icm_relayer import Relayer
from snowfield.workload.platform_demo import PWallet
from snowfield.workload.validator_manager import (
    ACTIVE,
    Initiated,
    ManagerClient,
    run_manager_demo,
    start_unregistered,
)

MANAGER = "0x" + MANAGER_ADDRESS.hex()


def _p(base: str, method: str, params: dict[str, object]) -> dict[str, object]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply = httpx.post(f"{base}/ext/bc/P", json=body, timeout=10).json()
    assert "result" in reply, reply
    return dict(reply["result"])


async def _relay_both_ways(
    base: str, c_rpc: str, l1: str, c_id: str, secret: bytes, tmp: Path
) -> None:
    urls = {c_id: c_rpc, l1: f"{base}/ext/bc/{l1}/rpc"}
    clients = {k: RpcClient(u) for k, u in urls.items()}
    accounts = {k: EvmAccount(c, secret) for k, c in clients.items()}
    relayer = Relayer(urls, base, secret, "0x" + "ab" * 20, tmp / "relayer.json")
    try:
        echoes = {}
        for chain in urls:
            await deploy_messenger(clients[chain], accounts[chain])
            echo = load("IcmEcho").deploy_data(MESSENGER_ADDRESS)
            echoes[chain] = (await accounts[chain].send(None, echo, gas=2_000_000))[
                "contractAddress"
            ]
        for source, destination in ((c_id, l1), (l1, c_id)):
            data = send_message_data(ID.from_string(destination).raw, echoes[destination], b"hi")
            await accounts[source].send(MESSENGER_ADDRESS, data)
            assert await relayer.step() == 1, (source, destination)
    finally:
        await relayer.close()
        for client in clients.values():
            await client.aclose()


async def _remove(base: str, l1: str, owner: bytes, subnet: ID, started: Initiated) -> str:
    async with RpcClient(f"{base}/ext/bc/{l1}/rpc") as rpc, RpcClient(f"{base}/ext/bc/P") as p:
        wallet = PWallet(p, EWOQ_KEY, 12345, ID(bytes(32)))
        aggregator = AggregatorService(base, deadline=5)
        try:
            client = ManagerClient(base, rpc, MANAGER, owner, wallet, aggregator)
            return await client.remove_unregistered(started, subnet)
        finally:
            await aggregator.close()


async def _status(base: str, l1: str, validation_id: ID) -> tuple[int, int]:
    async with RpcClient(f"{base}/ext/bc/{l1}/rpc") as rpc:
        wallet = PWallet(rpc, EWOQ_KEY, 12345, ID(bytes(32)))
        client = ManagerClient(base, rpc, MANAGER, EWOQ_KEY, wallet, None)  # type: ignore[arg-type]
        return await client.status(validation_id)


async def _p_block(base: str, network_id: int, avax: str) -> None:
    """A P-Chain block, so that the chain's time catches up with the network clock."""
    from snowfield.formats.platform.transfer_txs import BaseTx

    async with RpcClient(f"{base}/ext/bc/P") as p:
        await PWallet(p, EWOQ_KEY, network_id, ID.from_string(avax)).issue(BaseTx)


def test_register_an_l1_validator_through_the_manager_contract(tmp_path: Path) -> None:
    genesis = demo_l1_genesis(tmp_path)
    with serve_devnet(validators=4, l1=(f"managed={genesis}",)) as node:
        (chain,) = [c for c in node.node.platform.chain.blockchains() if c.name == "managed"]
        l1, subnet = str(chain.blockchain_id), chain.subnet_id
        owner_secret = node.node.dev_keys[2].private_key
        key = bls.SecretKey.generate()
        node_id = bytes(range(40, 60))
        balance_owner = ShortID(bytes(range(20)))

        async def flow() -> tuple[object, ...]:
            async with (
                RpcClient(f"{node.base}/ext/bc/{l1}/rpc") as rpc,
                RpcClient(f"{node.base}/ext/bc/P") as p,
            ):
                wallet = PWallet(
                    p,
                    EWOQ_KEY,
                    node.node.settings.network_id,
                    ID.from_string(node.node.ids.avax_asset),
                )
                aggregator = AggregatorService(node.base, deadline=10)
                try:
                    manager = ManagerClient(
                        node.base, rpc, MANAGER, owner_secret, wallet, aggregator
                    )
                    await manager.initialize(subnet)
                    await manager.initialize(subnet)  # once only: the second is a no-op
                    done = await manager.register(node_id, key, balance_owner, 7, 10**9, subnet)
                    status = await manager.status(done.validation_id)
                    # the same node again is refused by the contract
                    with pytest.raises(RuntimeError, match="initiateValidatorRegistration"):
                        await manager.register(node_id, key, balance_owner, 7, 10**9, subnet)
                    return done, status
                finally:
                    await aggregator.close()

        done, status = asyncio.run(flow())
        assert status == (ACTIVE, 7)
        assert _p(node.base, "platform.getTxStatus", {"txID": done.register_tx}) == {  # type: ignore[attr-defined]
            "status": "Committed"
        }
        validator = _p(
            node.base,
            "platform.getL1Validator",
            {"validationID": str(done.validation_id)},  # type: ignore[attr-defined]
        )
        assert validator["weight"] == "7" and validator["subnetID"] == str(subnet)
        assert validator["balance"] and int(str(validator["balance"])) > 0
        # make up's demo: a registration nobody takes to the P-Chain, started before the clock
        # moves a day on; the P-Chain refuses to call it unregistered while it could still be
        unregistered = asyncio.run(
            start_unregistered(node.base, l1, MANAGER, owner_secret, EWOQ_KEY)
        )
        assert unregistered is not None
        with pytest.raises(AggregationError):
            asyncio.run(_remove(node.base, l1, owner_secret, subnet, unregistered))
        httpx.post(node.rpc, json={"jsonrpc": "2.0", "id": 1, "method": "evm_increaseTime",
                                   "params": [DEMO_CLOCK_JUMP]})  # fmt: skip
        asyncio.run(_p_block(node.base, node.node.settings.network_id, node.node.ids.avax_asset))
        # then one more validator through the same (initialized) manager, and the expired one
        # removed on the P-Chain's L1ValidatorRegistration(false)
        lines: list[str] = []
        demo = asyncio.run(
            run_manager_demo(
                node.base, l1, MANAGER, owner_secret, EWOQ_KEY, lines.append, unregistered
            )
        )
        assert demo is not None and "registered validation" in lines[-2]
        assert f"removed validation {unregistered.validation_id}" in lines[-1]
        status = asyncio.run(_status(node.base, l1, unregistered.validation_id))
        assert status == (0, 0)  # Unknown: the manager forgot it
        again = _p(node.base, "platform.getL1Validator", {"validationID": str(demo.validation_id)})
        assert again["weight"] == "1"
        # ICM both ways still verifies: a C-Chain message for the L1 is signed by the L1's
        # validators (its set now differs from the primary network's)
        asyncio.run(
            _relay_both_ways(
                node.base, node.rpc, l1, str(node.node.ids.c_chain), owner_secret, tmp_path
            )
        )
        # a chain without the contract: the demo says so and does nothing
        c_chain = str(node.node.ids.c_chain)
        assert (
            asyncio.run(
                run_manager_demo(node.base, c_chain, MANAGER, owner_secret, EWOQ_KEY, lines.append)
            )
            is None
        )
