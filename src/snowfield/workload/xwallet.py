"""A one-key X-Chain wallet over the public avm.* API: builds, signs and issues BaseTx,
CreateAssetTx (fungible or NFT), NFT mint OperationTx, ExportTx and ImportTx.

It talks to the node only over JSON-RPC and signs locally; the demo and the tests use it."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from snowfield.crypto.secp256k1 import public_key_of, sign_recoverable
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.exchange import fxs
from snowfield.formats.exchange.txs import (
    UTXO,
    BaseTx,
    CreateAssetTx,
    ExportTx,
    ImportTx,
    InitialState,
    Operation,
    OperationTx,
    Tx,
    state_key,
    unsigned_bytes,
)
from snowfield.formats.exchange.types import AvmUnsignedTx
from snowfield.formats.hexcheck import decode_hex, encode_hex
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.registry import Encodable
from snowfield.rpc.client import RpcClient

STATUS_POLLS = 50


@dataclass(frozen=True, slots=True)
class XNetwork:
    network_id: int
    x_chain: ID
    avax: ID
    tx_fee: int
    create_asset_fee: int


async def x_network(base: str) -> XNetwork:
    """The ids and fees a wallet needs, as client libraries build their Context."""
    async with RpcClient(f"{base}/ext/info") as info, RpcClient(f"{base}/ext/bc/X") as x:
        network_id = int((await info.call_object("info.getNetworkID"))["networkID"])
        chain = (await info.call_object("info.getBlockchainID", {"alias": "X"}))["blockchainID"]
        avax = (await x.call_object("avm.getAssetDescription", {"assetID": "AVAX"}))["assetID"]
        fees = await x.call_object("avm.getTxFee")
    return XNetwork(
        network_id,
        ID.from_string(chain),
        ID.from_string(avax),
        int(fees["txFee"]),
        int(fees["createAssetTxFee"]),
    )


def _sorted_inputs(inputs: Sequence[TransferableInput]) -> tuple[TransferableInput, ...]:
    return tuple(sorted(inputs, key=lambda i: i.sort_key()))


def _sorted_outputs(outputs: Sequence[TransferableOutput]) -> tuple[TransferableOutput, ...]:
    return tuple(sorted(outputs, key=lambda o: o.sort_key()))


class XWallet:
    """Spends the AVAX UTXOs one key owns alone; every tx pays the change back to the key."""

    def __init__(self, base: str, net: XNetwork, secret: bytes) -> None:
        self.x = RpcClient(f"{base}/ext/bc/X")
        self.net = net
        self.secret = secret
        self.address = ShortID.from_public_key(public_key_of(secret))
        self.owner = OutputOwners(0, 1, (self.address,))
        self.text = format_address("X", hrp_for_network(net.network_id), self.address.raw)

    async def close(self) -> None:
        await self.x.aclose()

    async def utxos(self, source_chain: str | None = None) -> list[UTXO]:
        params: dict[str, object] = {"addresses": [self.text]}
        if source_chain:
            params["sourceChain"] = source_chain
        reply = await self.x.call_object("avm.getUTXOs", params)
        return [UTXO.decode(decode_hex(text)) for text in reply["utxos"]]

    async def _avax_inputs(self, need: int) -> tuple[list[TransferableInput], int]:
        chosen, total = [], 0
        for utxo in await self.utxos():
            out = utxo.output
            if utxo.asset_id != self.net.avax or not isinstance(out, TransferOutput):
                continue
            if out.owners.threshold != 1 or out.owners.locktime:
                continue
            chosen.append(
                TransferableInput(utxo.utxo_id, utxo.asset_id, TransferInput(out.amt, (0,)))
            )
            total += out.amt
            if total >= need:
                return chosen, total
        raise RuntimeError(f"{self.text} holds {total} nAVAX; needs {need}")

    async def _base(
        self, spend: int, fee: int, outputs: Sequence[TransferableOutput] = ()
    ) -> BaseTxFields:
        inputs, total = await self._avax_inputs(spend + fee)
        change = TransferableOutput(self.net.avax, TransferOutput(total - spend - fee, self.owner))
        outs = [*outputs, change] if total > spend + fee else list(outputs)
        return BaseTxFields(
            self.net.network_id, self.net.x_chain, _sorted_outputs(outs), _sorted_inputs(inputs)
        )

    def sign(self, unsigned: AvmUnsignedTx, count: int, nft_credentials: int = 0) -> Tx:
        digest = hashlib.sha256(unsigned_bytes(unsigned)).digest()
        signature = sign_recoverable(self.secret, digest)
        creds = [Credential((signature,)) for _ in range(count)]
        creds += [fxs.NftCredential((signature,)) for _ in range(nft_credentials)]
        return Tx(unsigned, tuple(creds))

    async def issue(self, tx: Tx, wait: bool = True) -> ID:
        reply = await self.x.call_object("avm.issueTx", {"tx": encode_hex(tx.encode())})
        tx_id = ID.from_string(reply["txID"])
        if wait:
            await self.wait(tx_id)
        return tx_id

    async def wait(self, tx_id: ID) -> None:
        for _ in range(STATUS_POLLS):
            status = await self.x.call_object("avm.getTxStatus", {"txID": str(tx_id)})
            if status["status"] == "Accepted":
                return
            await asyncio.sleep(0.05)
        raise RuntimeError(f"X-Chain tx {tx_id} was not accepted")

    # --- the tx kinds ----------------------------------------------------------------------

    async def send(self, to: ShortID, amount: int, wait: bool = True) -> ID:
        out = TransferableOutput(self.net.avax, TransferOutput(amount, OutputOwners(0, 1, (to,))))
        base = await self._base(amount, self.net.tx_fee, [out])
        return await self.issue(self.sign(BaseTx(base), len(base.inputs)), wait)

    async def create_asset(self, name: str, symbol: str, denomination: int, supply: int) -> ID:
        """A fungible asset: `supply` to the key, and the right to mint more."""
        outputs: tuple[Encodable, ...] = (
            TransferOutput(supply, self.owner),
            fxs.MintOutput(self.owner),
        )
        outputs = tuple(sorted(outputs, key=state_key))
        base = await self._base(0, self.net.create_asset_fee)
        unsigned = CreateAssetTx(base, name, symbol, denomination, (InitialState(0, outputs),))
        return await self.issue(self.sign(unsigned, len(base.inputs)))

    async def create_nft(self, name: str, symbol: str, groups: int = 1) -> ID:
        """An NFT family: one mint right per group, held by the key."""
        outputs = tuple(fxs.NftMintOutput(g, self.owner) for g in range(groups))
        base = await self._base(0, self.net.create_asset_fee)
        unsigned = CreateAssetTx(base, name, symbol, 0, (InitialState(1, outputs),))
        return await self.issue(self.sign(unsigned, len(base.inputs)))

    async def mint_nft(self, asset: ID, group: int, payload: bytes, to: ShortID) -> ID:
        """Spends the group's mint right (nftfx does not recreate it) to create one NFT."""
        mints = [
            u
            for u in await self.utxos()
            if u.asset_id == asset
            and isinstance(u.output, fxs.NftMintOutput)
            and u.output.group_id == group
        ]
        if not mints:  # nftfx consumes a group's mint right with its one mint
            raise RuntimeError(f"{self.text} holds no mint right of group {group} of {asset}")
        mint = mints[0]
        op = fxs.NftMintOperation(Input((0,)), group, payload, (OutputOwners(0, 1, (to,)),))
        base = await self._base(0, self.net.tx_fee)
        unsigned = OperationTx(base, (Operation(asset, (mint.utxo_id,), op),))
        return await self.issue(self.sign(unsigned, len(base.inputs), nft_credentials=1))

    async def export(self, destination: ID, to: ShortID, amount: int) -> ID:
        out = TransferableOutput(self.net.avax, TransferOutput(amount, OutputOwners(0, 1, (to,))))
        base = await self._base(amount, self.net.tx_fee)
        unsigned = ExportTx(base, destination, (out,))
        return await self.issue(self.sign(unsigned, len(base.inputs)))

    async def import_(self, source: ID) -> ID:
        """Imports every AVAX UTXO `source` exported to the key, paying the fee from them."""
        utxos = [
            u
            for u in await self.utxos(str(source))
            if isinstance(u.output, TransferOutput) and u.asset_id == self.net.avax
        ]
        total = sum(u.output.amt for u in utxos if isinstance(u.output, TransferOutput))
        imported = _sorted_inputs(
            [
                TransferableInput(u.utxo_id, u.asset_id, TransferInput(u.output.amt, (0,)))
                for u in utxos
                if isinstance(u.output, TransferOutput)
            ]
        )
        out = TransferableOutput(self.net.avax, TransferOutput(total - self.net.tx_fee, self.owner))
        base = BaseTxFields(self.net.network_id, self.net.x_chain, (out,), ())
        unsigned = ImportTx(base, source, imported)
        return await self.issue(self.sign(unsigned, len(imported)))
