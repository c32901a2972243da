"""Demo atomic traffic on the C-Chain: each round a dev account exports a little AVAX to its own
P-Chain address (a C ExportTx, carried in its block's extra data; P can import the UTXO).

It talks to the node only over its public APIs (info, avm, eth, avax) and signs locally."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from snowfield.crypto.keys import key_from_bytes
from snowfield.crypto.secp256k1 import public_key_of, sign_recoverable
from snowfield.formats.atomic.txs import AtomicTx, EVMInput, ExportTx
from snowfield.formats.hexcheck import encode_hex
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.components import TransferableOutput
from snowfield.formats.platform.secp256k1fx import Credential, OutputOwners, TransferOutput
from snowfield.rpc.client import RpcClient

EXPORT_AMOUNT = 1_000_000  # nAVAX per round: 0.001 AVAX
STATUS_POLLS = 50
# coreth's atomic gas since ApricotPhase5: unsigned bytes + 1,000 per signature + 10,000.
PER_SIGNATURE, BASE_COST = 1_000, 10_000


@dataclass(frozen=True, slots=True)
class _Network:
    network_id: int
    c_chain: ID
    avax: ID


async def _network(base: str) -> _Network:
    async with RpcClient(f"{base}/ext/info") as info, RpcClient(f"{base}/ext/bc/X") as x:
        network_id = int((await info.call_object("info.getNetworkID"))["networkID"])
        c_chain = (await info.call_object("info.getBlockchainID", {"alias": "C"}))["blockchainID"]
        avax = (await x.call_object("avm.getAssetDescription", {"assetID": "AVAX"}))["assetID"]
    return _Network(network_id, ID.from_string(c_chain), ID.from_string(avax))


def export_tx(net: _Network, secret: bytes, nonce: int, base_fee: int, amount: int) -> AtomicTx:
    """A signed C→P ExportTx of `amount` to the key's own P address, paying coreth's fee."""
    key = key_from_bytes(secret)
    owner = ShortID.from_public_key(public_key_of(secret))
    out = TransferableOutput(net.avax, TransferOutput(amount, OutputOwners(0, 1, (owner,))))

    def build(fee: int) -> ExportTx:
        ins = (EVMInput(key.address, amount + fee, net.avax, nonce),)
        return ExportTx(net.network_id, net.c_chain, P_CHAIN_ID, ins, (out,))

    # The unsigned size does not depend on the fee (fixed-width u64), so one pass prices it.
    gas = len(AtomicTx(build(0)).unsigned_bytes()) + PER_SIGNATURE + BASE_COST
    unsigned = build(-(-gas * base_fee // 10**9))
    digest = hashlib.sha256(AtomicTx(unsigned).unsigned_bytes()).digest()
    return AtomicTx(unsigned, (Credential((sign_recoverable(secret, digest),)),))


async def run_atomic_demo(
    base: str,
    secret: bytes,
    *,
    rounds: int | None,
    interval: float,
    stop: asyncio.Event | None,
    log: Callable[[str], None],
) -> list[str]:
    """Exports EXPORT_AMOUNT to P each round until `rounds` or `stop`; the accepted tx ids."""
    net = await _network(base)
    address = "0x" + key_from_bytes(secret).address.hex()
    accepted: list[str] = []
    async with (
        RpcClient(f"{base}/ext/bc/C/rpc") as rpc,
        RpcClient(f"{base}/ext/bc/C/avax") as avax,
    ):
        n = 0
        while (rounds is None or n < rounds) and not (stop is not None and stop.is_set()):
            nonce = int(await rpc.call("eth_getTransactionCount", address, "latest"), 16)
            base_fee = int(await rpc.call("eth_baseFee"), 16)
            tx = export_tx(net, secret, nonce, base_fee, EXPORT_AMOUNT)
            reply = await avax.call_object("avax.issueTx", {"tx": encode_hex(tx.encode())})
            tx_id = reply["txID"]
            for _ in range(STATUS_POLLS):
                status = await avax.call_object("avax.getAtomicTxStatus", {"txID": tx_id})
                if status["status"] != "Processing":
                    break
                await asyncio.sleep(0.1)
            if status["status"] == "Accepted":
                accepted.append(tx_id)
            log(f"atomic round {n + 1}: C→P export {tx_id} {status['status']}")
            n += 1
            if rounds is None or n < rounds:
                await asyncio.sleep(interval)
    return accepted
