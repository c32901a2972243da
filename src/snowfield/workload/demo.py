"""Demo traffic: native transfers, ERC-20/721/1155 transfers, factory deployments with CREATE
and CREATE2, contract-to-contract value, a self-destruct, a failed transaction and a reverted
inner call; on a custom EVM chain, calls to each active precompile.

It talks to the node only over JSON-RPC and signs locally, so it runs against any EVM node."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from snowfield.crypto.keys import DevKey, key_from_bytes, sign_transaction
from snowfield.rpc.client import RpcClient
from snowfield.workload.contracts import call_data, event_topic, load
from snowfield.workload.precompile_demo import active_precompiles, precompile_round

TRANSFER = event_topic("Transfer(address,address,uint256)")
RECEIPT_TIMEOUT = 60.0
GAS_TRANSFER = 21_000
GAS_DEPLOY = 3_000_000
GAS_CALL = 500_000


WARP = "0x0200000000000000000000000000000000000005"  # the Warp precompile
# Creation code of a contract whose code is CALLER SELFDESTRUCT (0x33ff): a call hands its
# balance to the caller (since Cancun the code stays; only the value moves).
SELF_DESTRUCTING = bytes.fromhex("6133ff6000526002601ef3")


@dataclass
class DemoReport:
    """What the demo deployed and sent, so tests can check the chain against it."""

    contracts: dict[str, str] = field(default_factory=dict)
    sent: Counter[str] = field(default_factory=Counter)
    tx_hashes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    rounds: int = 0


class _Wallet:
    """Signs and sends for a set of keys, tracking nonces locally."""

    def __init__(self, client: RpcClient, keys: Sequence[DevKey], chain_id: int) -> None:
        self.client = client
        self.keys = keys
        self.chain_id = chain_id
        self.nonces: dict[bytes, int] = {}

    async def fees(self) -> tuple[int, int]:
        try:
            base = int(await self.client.call("eth_baseFee"), 16)
            tip = int(await self.client.call("eth_maxPriorityFeePerGas"), 16)
        except Exception:  # a node without the Avalanche extras
            price = int(await self.client.call("eth_gasPrice"), 16)
            return price * 2, price
        return 2 * base + tip, tip

    async def send(
        self, key: DevKey, to: str | None, data: bytes = b"", value: int = 0, gas: int = GAS_CALL
    ) -> str:
        if key.address not in self.nonces:
            count = await self.client.call(
                "eth_getTransactionCount", "0x" + key.address.hex(), "pending"
            )
            self.nonces[key.address] = int(count, 16)
        max_fee, tip = await self.fees()
        fields: dict[str, Any] = {
            "chainId": self.chain_id,
            "nonce": self.nonces[key.address],
            "gas": gas,
            "maxFeePerGas": max_fee,
            "maxPriorityFeePerGas": tip,
            "value": value,
            "data": "0x" + data.hex(),
            "type": 2,
        }
        if to is not None:
            fields["to"] = to
        raw = sign_transaction(fields, key.private_key)
        tx_hash = str(await self.client.call("eth_sendRawTransaction", "0x" + raw.hex()))
        self.nonces[key.address] += 1
        return tx_hash

    async def receipt(self, tx_hash: str) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RECEIPT_TIMEOUT
        while True:
            receipt = await self.client.call("eth_getTransactionReceipt", tx_hash)
            if receipt is not None:
                return dict(receipt)
            if loop.time() > deadline:
                raise TimeoutError(f"no receipt for {tx_hash}")
            await asyncio.sleep(0.05)


class _Demo:
    def __init__(self, wallet: _Wallet, report: DemoReport, log: Callable[[str], None]) -> None:
        self.w = wallet
        self.report = report
        self.log = log
        k = wallet.keys
        self.a, self.b, self.c = k[0], k[1 % len(k)], k[2 % len(k)]

    def addr(self, key: DevKey) -> str:
        return "0x" + key.address.hex()

    async def tx(
        self,
        kind: str,
        key: DevKey,
        to: str | None,
        data: bytes = b"",
        value: int = 0,
        gas: int = GAS_CALL,
        expect_ok: bool = True,
    ) -> dict[str, Any]:
        tx_hash = await self.w.send(key, to, data, value, gas)
        receipt = await self.w.receipt(tx_hash)
        self.report.sent[kind] += 1
        self.report.tx_hashes.append(tx_hash)
        ok = receipt["status"] == "0x1"
        if not ok:
            self.report.failed.append(tx_hash)
        if ok != expect_ok:
            raise RuntimeError(f"{kind} {tx_hash}: status {receipt['status']}, expected the other")
        return receipt

    async def deploy(self, name: str, *args: Any, label: str | None = None) -> str:
        receipt = await self.tx(
            "deploy", self.a, None, load(name).deploy_data(*args), gas=GAS_DEPLOY
        )
        address = str(receipt["contractAddress"])
        self.report.contracts[label or name] = address
        self.log(f"deployed {label or name} at {address}")
        return address

    async def setup(self) -> None:
        await self.deploy("DemoToken", "Snow Token", "SNOW", 18, 10**9 * 10**18, label="SNOW")
        await self.deploy("DemoToken", "Flake Dollar", "FUSD", 6, 10**9 * 10**6, label="FUSD")
        for name in ("DemoNFT", "DemoMulti", "Factory", "Splitter", "Reverter"):
            await self.deploy(name)
        # Give the second account tokens of its own to pass on.
        await self.tx(
            "erc20",
            self.a,
            self.report.contracts["SNOW"],
            call_data("transfer(address,uint256)", self.addr(self.b), 10**6 * 10**18),
        )

    async def round(self, n: int) -> None:
        c = self.report.contracts
        a, b, cc = self.a, self.b, self.c
        await self.tx("native", a, self.addr(b), value=10**15 + n, gas=GAS_TRANSFER)
        await self.tx("native", b, self.addr(cc), value=10**14 + n, gas=GAS_TRANSFER)
        await self.tx(
            "erc20", a, c["SNOW"], call_data("transfer(address,uint256)", self.addr(cc), 10**18 + n)
        )
        await self.tx(
            "erc20",
            a,
            c["FUSD"],
            call_data("transfer(address,uint256)", self.addr(b), 2_500_000 + n),
        )
        await self.tx(
            "erc20", b, c["SNOW"], call_data("transfer(address,uint256)", self.addr(cc), 3 * 10**17)
        )
        minted = await self.tx("erc721", a, c["DemoNFT"], call_data("mint(address)", self.addr(b)))
        token_id = next(
            int(log["topics"][3], 16)
            for log in minted["logs"]
            if log["topics"][0] == "0x" + TRANSFER.hex()
        )
        await self.tx(
            "erc721",
            b,
            c["DemoNFT"],
            call_data(
                "transferFrom(address,address,uint256)", self.addr(b), self.addr(cc), token_id
            ),
        )
        await self.tx(
            "erc1155",
            a,
            c["DemoMulti"],
            call_data("mint(address,uint256,uint256)", self.addr(a), 1, 100),
        )
        await self.tx(
            "erc1155",
            a,
            c["DemoMulti"],
            call_data(
                "safeTransferFrom(address,address,uint256,uint256,bytes)",
                self.addr(a),
                self.addr(b),
                1,
                5,
                b"",
            ),
        )
        await self.tx(
            "erc1155",
            a,
            c["DemoMulti"],
            call_data("mintBatch(address,uint256[],uint256[])", self.addr(a), [2, 3], [10, 10]),
        )
        await self.tx(
            "erc1155",
            a,
            c["DemoMulti"],
            call_data(
                "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
                self.addr(a),
                self.addr(cc),
                [2, 3],
                [1, 2],
                b"",
            ),
        )
        created = await self.tx(
            "create", a, c["Factory"], call_data("deploy(uint256)", n), value=10**15
        )
        await self.tx(
            "create2",
            a,
            c["Factory"],
            call_data("deploy2(uint256,bytes32)", n, n.to_bytes(32, "big")),
            value=10**15,
        )
        child = "0x" + created["logs"][0]["topics"][1][-40:]
        await self.tx(
            "value",
            a,
            c["Splitter"],
            call_data("split(address,address)", child, self.addr(cc)),
            value=2 * 10**15,
        )
        doomed = await self.tx("selfdestruct", a, None, SELF_DESTRUCTING, 10**15 + n, 100_000)
        await self.tx("selfdestruct", b, str(doomed["contractAddress"]), gas=100_000)
        await self.tx(
            "failed", a, c["Reverter"], call_data("alwaysRevert()"), gas=100_000, expect_ok=False
        )
        await self.tx("inner-revert", a, c["Reverter"], call_data("tryInner()"))
        # A Warp message each round: something for the aggregator (operation 1) to sign.
        payload = f"snowfield demo round {n}".encode()
        await self.tx("warp", a, WARP, call_data("sendWarpMessage(bytes)", payload), gas=200_000)
        self.report.rounds += 1


async def run_demo(
    client: RpcClient,
    keys: Sequence[bytes],
    *,
    rounds: int | None,
    interval: float,
    stop: asyncio.Event | None,
    log: Callable[[str], None],
) -> DemoReport:
    """Deploys the demo contracts, then runs rounds of traffic until `rounds` or `stop`."""
    chain_id = int(await client.call("eth_chainId"), 16)
    wallet = _Wallet(client, [key_from_bytes(k) for k in keys], chain_id)
    report = DemoReport()
    demo = _Demo(wallet, report, log)
    await demo.setup()
    # On a custom EVM chain, the precompiles it has active get their calls too.
    precompiles = await active_precompiles(client.call)
    if precompiles:
        log(f"calling the precompiles {', '.join(precompiles)}")

    async def send(kind: str, to: str, data: bytes) -> Any:
        return await demo.tx(kind, demo.a, to, data)

    others = [demo.addr(k) for k in wallet.keys[1:]]
    n = 0
    while rounds is None or n < rounds:
        if stop is not None and stop.is_set():
            break
        await demo.round(n)
        if precompiles:
            await precompile_round(client.call, send, precompiles, demo.addr(demo.a), others, n)
        n += 1
        log(f"round {n}: {sum(report.sent.values())} transactions so far")
        if rounds is None or n < rounds:
            await asyncio.sleep(interval)
    return report
