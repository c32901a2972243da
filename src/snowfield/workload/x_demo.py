"""Demo traffic on the X-Chain: a fungible asset at the start, then each round an AVAX transfer
between dev keys, an NFT minted every third round (a new family of GROUPS when the mint rights
run out: nftfx consumes a group's right with its one mint), and atomic moves: every
other round an export X→P that the P-Chain imports at once, otherwise an export X→C.

It talks to the node only over its public APIs (info, avm, platform) and signs locally."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.components import UTXO as PUTXO
from snowfield.formats.platform.components import TransferableInput
from snowfield.formats.platform.secp256k1fx import TransferInput, TransferOutput
from snowfield.formats.platform.transfer_txs import ImportTx
from snowfield.rpc.client import RpcClient
from snowfield.workload.platform_demo import PWallet
from snowfield.workload.xwallet import XWallet, x_network

TRANSFER = 1_000_000_000  # nAVAX: 1 AVAX per round to the next dev key
EXPORT = 500_000_000
GROUPS = 16


async def _import_on_p(base: str, secret: bytes, network_id: int, avax: ID, x_chain: ID) -> str:
    """Imports on P every UTXO the X-Chain exported to the key."""
    async with RpcClient(f"{base}/ext/bc/P") as p:
        wallet = PWallet(p, secret, network_id, avax)
        reply = await p.call_object(
            "platform.getUTXOs", {"addresses": [wallet.text], "sourceChain": str(x_chain)}
        )
        utxos = [PUTXO.decode(decode_hex(text)) for text in reply["utxos"]]
        imported = tuple(
            sorted(
                (
                    TransferableInput(u.utxo_id, u.asset_id, TransferInput(u.output.amount, (0,)))
                    for u in utxos
                    if isinstance(u.output, TransferOutput)
                ),
                key=lambda i: i.sort_key(),
            )
        )
        if not imported:
            return ""
        return await wallet.issue(
            lambda fields: ImportTx(fields, x_chain, imported), auths=len(imported)
        )


async def run_x_demo(
    base: str,
    secrets: Sequence[bytes],
    *,
    rounds: int | None,
    interval: float,
    stop: asyncio.Event | None,
    log: Callable[[str], None],
) -> int:
    """Runs until `rounds` or `stop`; returns the number of rounds done."""
    net = await x_network(base)
    async with RpcClient(f"{base}/ext/info") as info:
        c_chain = ID.from_string(
            (await info.call_object("info.getBlockchainID", {"alias": "C"}))["blockchainID"]
        )
    wallet = XWallet(base, net, secrets[0])
    others = [ShortID.from_public_key(public_key_of(s)) for s in secrets[1:]] or [wallet.address]
    try:
        token = await wallet.create_asset("Snow Token", "SNOW", 2, 100_000_000)
        log(f"X-Chain: token {token}")
        art = ID(bytes(32))
        n = 0
        while (rounds is None or n < rounds) and not (stop is not None and stop.is_set()):
            to = others[n % len(others)]
            sent = await wallet.send(to, TRANSFER)
            line = f"X round {n + 1}: sent {sent}"
            if n % 3 == 0:
                number = n // 3
                if number % GROUPS == 0:
                    art = await wallet.create_nft("Snow Art", "ART", groups=GROUPS)
                    line += f", NFT family {art}"
                minted = await wallet.mint_nft(art, number % GROUPS, f"art #{number}".encode(), to)
                line += f", minted {minted}"
            if n % 2 == 0:
                await wallet.export(P_CHAIN_ID, wallet.address, EXPORT)
                imported = await _import_on_p(
                    base, secrets[0], net.network_id, net.avax, net.x_chain
                )
                line += f", X→P imported on P {imported}"
            else:
                exported = await wallet.export(c_chain, wallet.address, EXPORT)
                line += f", X→C export {exported}"
            log(line)
            n += 1
            if rounds is None or n < rounds:
                await asyncio.sleep(interval)
        return n
    finally:
        await wallet.close()
