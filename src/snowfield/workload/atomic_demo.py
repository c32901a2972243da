"""Demo atomic traffic on the C-Chain: each round a dev account exports a little AVAX to its own
P-Chain address (a C ExportTx, carried in its block's extra data; P can import the UTXO).

It talks to the node only over its public APIs (info, avm, eth, avax) and signs locally."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from snowfield.crypto.keys import key_from_bytes
from snowfield.crypto.secp256k1 import public_key_of, sign_recoverable
from snowfield.formats.atomic.txs import AtomicTx, EVMInput, EVMOutput, ExportTx, ImportTx
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.hexcheck import decode_hex, encode_hex
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.components import UTXO, TransferableInput, TransferableOutput
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
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


def export_tx(
    net: _Network,
    secret: bytes,
    nonce: int,
    base_fee: int,
    amount: int,
    destination: ID = P_CHAIN_ID,
) -> AtomicTx:
    """A signed C→P (or C→`destination`) ExportTx of `amount` to the key's own address there,
    paying coreth's fee."""
    key = key_from_bytes(secret)
    owner = ShortID.from_public_key(public_key_of(secret))
    out = TransferableOutput(net.avax, TransferOutput(amount, OutputOwners(0, 1, (owner,))))

    def build(fee: int) -> ExportTx:
        ins = (EVMInput(key.address, amount + fee, net.avax, nonce),)
        return ExportTx(net.network_id, net.c_chain, destination, ins, (out,))

    # The unsigned size does not depend on the fee (fixed-width u64), so one pass prices it.
    gas = len(AtomicTx(build(0)).unsigned_bytes()) + PER_SIGNATURE + BASE_COST
    unsigned = build(-(-gas * base_fee // 10**9))
    digest = hashlib.sha256(AtomicTx(unsigned).unsigned_bytes()).digest()
    return AtomicTx(unsigned, (Credential((sign_recoverable(secret, digest),)),))


def import_tx(
    net: _Network, secret: bytes, source: ID, utxos: Sequence[UTXO], base_fee: int
) -> AtomicTx:
    """A signed C-Chain ImportTx of the key's AVAX UTXOs `source` exported to it, credited to
    the key's own EVM account less coreth's fee."""
    key = key_from_bytes(secret)
    ins = tuple(
        sorted(
            (
                TransferableInput(u.utxo_id, u.asset_id, TransferInput(u.output.amount, (0,)))
                for u in utxos
                if isinstance(u.output, TransferOutput) and u.asset_id == net.avax
            ),
            key=lambda i: i.sort_key(),
        )
    )
    total = sum(i.input.amount for i in ins)

    def build(fee: int) -> ImportTx:
        outs = (EVMOutput(key.address, total - fee, net.avax),)
        return ImportTx(net.network_id, net.c_chain, source, ins, outs)

    gas = len(AtomicTx(build(0)).unsigned_bytes()) + PER_SIGNATURE * len(ins) + BASE_COST
    unsigned = build(-(-gas * base_fee // 10**9))
    digest = hashlib.sha256(AtomicTx(unsigned).unsigned_bytes()).digest()
    signature = sign_recoverable(secret, digest)
    return AtomicTx(unsigned, tuple(Credential((signature,)) for _ in ins))


async def _accepted(avax: RpcClient, tx: AtomicTx) -> tuple[str, str]:
    """Issues `tx` over avax.issueTx; (its id, its final status)."""
    reply = await avax.call_object("avax.issueTx", {"tx": encode_hex(tx.encode())})
    tx_id = str(reply["txID"])
    status = {"status": "Processing"}
    for _ in range(STATUS_POLLS):
        status = await avax.call_object("avax.getAtomicTxStatus", {"txID": tx_id})
        if status["status"] != "Processing":
            break
        await asyncio.sleep(0.1)
    return tx_id, str(status["status"])


async def import_to_c(base: str, secret: bytes, source: ID) -> str:
    """Imports on the C-Chain every AVAX UTXO `source` exported to the key; the tx id ("" when
    there is none to import)."""
    net = await _network(base)
    owner = ShortID.from_public_key(public_key_of(secret))
    hrp = hrp_for_network(net.network_id)
    address = format_address("C", hrp, owner.raw)
    async with (
        RpcClient(f"{base}/ext/bc/C/rpc") as rpc,
        RpcClient(f"{base}/ext/bc/C/avax") as avax,
    ):
        reply = await avax.call_object(
            "avax.getUTXOs", {"addresses": [address], "sourceChain": str(source), "encoding": "hex"}
        )
        utxos = [UTXO.decode(decode_hex(u)) for u in reply["utxos"]]
        if not utxos:
            return ""
        base_fee = int(await rpc.call("eth_baseFee"), 16)
        tx_id, status = await _accepted(avax, import_tx(net, secret, source, utxos, base_fee))
    if status != "Accepted":
        raise RuntimeError(f"C-Chain import {tx_id}: {status}")
    return tx_id


async def export_from_c(base: str, secret: bytes, destination: ID, amount: int) -> str:
    """Exports `amount` from the key's EVM account to its own address on `destination`."""
    net = await _network(base)
    address = "0x" + key_from_bytes(secret).address.hex()
    async with (
        RpcClient(f"{base}/ext/bc/C/rpc") as rpc,
        RpcClient(f"{base}/ext/bc/C/avax") as avax,
    ):
        nonce = int(await rpc.call("eth_getTransactionCount", address, "latest"), 16)
        base_fee = int(await rpc.call("eth_baseFee"), 16)
        tx = export_tx(net, secret, nonce, base_fee, amount, destination)
        tx_id, status = await _accepted(avax, tx)
    if status != "Accepted":
        raise RuntimeError(f"C-Chain export {tx_id}: {status}")
    return tx_id


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
            tx_id, status = await _accepted(avax, tx)
            if status == "Accepted":
                accepted.append(tx_id)
            log(f"atomic round {n + 1}: C→P export {tx_id} {status}")
            n += 1
            if rounds is None or n < rounds:
                await asyncio.sleep(interval)
    return accepted
