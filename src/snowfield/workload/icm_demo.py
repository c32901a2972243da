"""Demo ICM traffic: the messenger (keyless, one address) and an echo receiver on each chain,
then each round a message from every chain to the next one's echo, with a fee in a demo token
on the first chain. A relayer (`snowfield relayer`) delivers them.

It talks to the node only over JSON-RPC and signs locally.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from snowfield.formats.ids import ID
from snowfield.rpc.client import RpcClient
from snowfield.workload.contracts import call_data, load
from snowfield.workload.icm import (
    MESSENGER_ADDRESS,
    EvmAccount,
    deploy_messenger,
    send_message_data,
)

FEE = 10**17
RECEIVER_GAS = 300_000  # the echo stores the message: new storage slots cost 20,000 each


async def run_icm_demo(
    chains: Mapping[str, str],
    secret: bytes,
    *,
    rounds: int | None,
    interval: float,
    stop: asyncio.Event | None,
    log: Callable[[str], None],
) -> int:
    """`chains`: blockchain id (cb58) → JSON-RPC URL. Returns the messages sent."""
    clients = {chain: RpcClient(url) for chain, url in chains.items()}
    accounts = {chain: EvmAccount(client, secret) for chain, client in clients.items()}
    sent = 0
    try:
        # only the chains whose genesis funds the key (a chain of the P-Chain demo does not)
        order = [
            chain
            for chain, account in accounts.items()
            if int(await clients[chain].call("eth_getBalance", account.address, "latest"), 16)
        ]
        accounts = {chain: accounts[chain] for chain in order}
        if len(order) < 2:
            raise RuntimeError("ICM needs two chains that fund the demo key")
        echoes = {}
        for chain, account in accounts.items():
            await deploy_messenger(clients[chain], account)
            deployed = await account.send(
                None, load("IcmEcho").deploy_data(MESSENGER_ADDRESS), gas=2_000_000
            )
            echoes[chain] = deployed["contractAddress"]
        first = accounts[order[0]]
        token = load("DemoToken").deploy_data("Relay Fee", "RFEE", 18, 10**27)
        fee_token = (await first.send(None, token, gas=3_000_000))["contractAddress"]
        await first.send(
            fee_token, call_data("approve(address,uint256)", MESSENGER_ADDRESS, 10**27)
        )
        log(f"ICM: messenger {MESSENGER_ADDRESS} on {len(order)} chains, echoes {echoes}")
        n = 0
        while (rounds is None or n < rounds) and not (stop is not None and stop.is_set()):
            for i, chain in enumerate(order):
                destination = order[(i + 1) % len(order)]
                fee = {"fee_token": fee_token, "fee": FEE} if i == 0 else {}
                message = f"snowfield ICM round {n} from {chain[:8]}".encode()
                data = send_message_data(
                    ID.from_string(destination).raw,
                    echoes[destination],
                    message,
                    gas_limit=RECEIVER_GAS,
                    **fee,
                )
                await accounts[chain].send(MESSENGER_ADDRESS, data)
                sent += 1
            n += 1
            if rounds is None or n < rounds:
                await asyncio.sleep(interval)
        return sent
    finally:
        for client in clients.values():
            await client.aclose()
