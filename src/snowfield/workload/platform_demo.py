"""P-Chain demo traffic: stake a new validator, delegate to it, create a subnet and a chain,
convert the subnet to an L1, then move the network clock past the stakers' end so the rewards
are paid. Over the public APIs only (platform.*, evm_increaseTime); txs are built and signed
here with our formats and keys, paying a generous fee (the node burns what it is given)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from snowfield.config.network import DEMO_CLOCK_JUMP
from snowfield.crypto import bls
from snowfield.crypto.secp256k1 import public_key_of, sign_recoverable
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.hexcheck import decode_hex, encode_hex
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, NodeID, ShortID
from snowfield.formats.platform.components import (
    UTXO,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.l1_txs import ConvertSubnetToL1Tx, L1Validator, PChainOwner
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.formats.platform.staking_txs import (
    AddPermissionlessDelegatorTx,
    AddPermissionlessValidatorTx,
    Validator,
)
from snowfield.formats.platform.subnet_txs import CreateChainTx, CreateSubnetTx
from snowfield.formats.platform.transfer_txs import BaseTx
from snowfield.formats.platform.txs import Tx, unsigned_bytes
from snowfield.formats.platform.types import UnsignedTx
from snowfield.rpc.client import RpcClient

AVAX = 1_000_000_000
FEE_GAS = 60_000  # above every demo tx's gas (ConvertSubnetToL1Tx: ~19,000 with a few inputs)
VALIDATOR_STAKE = 2_000 * AVAX  # the local network's minimum
DELEGATOR_STAKE = 25 * AVAX
L1_BALANCE = AVAX
# Where the demo's staking rewards go: an address of its own, so they are easy to see.
REWARDS_SECRET = hashlib.sha256(b"snowfield demo staking rewards").digest()
SUBNET_EVM_ID = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"  # the VM id subnet-evm uses


@dataclass
class PlatformDemoReport:
    """What the demo issued (tx ids by name) and where to look for the results."""

    txs: dict[str, str] = field(default_factory=dict)
    periods: dict[str, tuple[int, int]] = field(default_factory=dict)  # stakers' (start, end)
    node_id: str = ""
    subnet_id: str = ""
    chain_id: str = ""
    rewards_address: str = ""


class PWallet:
    """Spends the UTXOs one key owns alone on the P-Chain; signs locally."""

    def __init__(self, p: RpcClient, secret: bytes, network_id: int, asset: ID) -> None:
        self.p = p
        self.secret = secret
        self.network_id = network_id
        self.asset = asset
        self.address = ShortID.from_public_key(public_key_of(secret))
        self.owner = OutputOwners(0, 1, (self.address,))
        self.text = format_address("P", hrp_for_network(network_id), self.address.raw)

    async def _utxos(self) -> list[UTXO]:
        reply = await self.p.call_object("platform.getUTXOs", {"addresses": [self.text]})
        utxos = [UTXO.decode(decode_hex(text)) for text in reply["utxos"]]
        return [
            u
            for u in utxos
            if isinstance(u.output, TransferOutput)
            and u.output.owners.threshold == 1
            and u.output.owners.locktime == 0
            and u.asset_id == self.asset
        ]

    async def issue(
        self, make: Callable[[BaseTxFields], UnsignedTx], spend: int = 0, auths: int = 0
    ) -> str:
        """Builds `make` over every spendable UTXO (change back to the key), signs, issues."""
        state = await self.p.call_object("platform.getFeeState")
        fee = int(state["price"]) * FEE_GAS
        utxos = await self._utxos()
        total = sum(u.output.amount for u in utxos)
        if total < spend + fee:
            raise RuntimeError(f"{self.text} holds {total} nAVAX; the demo needs {spend + fee}")
        inputs = tuple(
            sorted(
                (
                    TransferableInput(u.utxo_id, u.asset_id, TransferInput(u.output.amount, (0,)))
                    for u in utxos
                ),
                key=lambda i: i.sort_key(),
            )
        )
        change = TransferableOutput(self.asset, TransferOutput(total - spend - fee, self.owner))
        base = BaseTxFields(self.network_id, P_CHAIN_ID, (change,), inputs)
        unsigned = make(base)
        digest = hashlib.sha256(unsigned_bytes(unsigned)).digest()
        signature = sign_recoverable(self.secret, digest)
        credentials = tuple(Credential((signature,)) for _ in range(len(inputs) + auths))
        tx = Tx(unsigned, credentials)
        reply = await self.p.call_object("platform.issueTx", {"tx": encode_hex(tx.encode())})
        return str(reply["txID"])


def _bls(seed: bytes) -> ProofOfPossession:
    secret = bls.SecretKey.from_bytes(b"\x00" + hashlib.sha256(seed).digest()[1:])
    return ProofOfPossession(secret.public_key().to_bytes(), secret.prove_possession().to_bytes())


async def run_platform_demo(
    base_url: str, secret: bytes, log: Callable[[str], None], seed: bytes = b"demo"
) -> PlatformDemoReport:
    """Runs every P-Chain flow once, funded by `secret`'s P-Chain UTXOs; `seed` names the new
    validators (a second run needs another)."""
    report = PlatformDemoReport()
    async with (
        RpcClient(base_url + "/ext/bc/P") as p,
        RpcClient(base_url + "/ext/info") as info,
        RpcClient(base_url + "/ext/bc/C/rpc") as c,
    ):
        network_id = int((await info.call_object("info.getNetworkID"))["networkID"])
        asset = ID.from_string((await p.call_object("platform.getStakingAssetID"))["assetID"])
        wallet = PWallet(p, secret, network_id, asset)
        rewards = OutputOwners(0, 1, (ShortID.from_public_key(public_key_of(REWARDS_SECRET)),))
        report.rewards_address = format_address(
            "P", hrp_for_network(network_id), rewards.addresses[0].raw
        )
        now = await _chain_time(p)
        node = NodeID(hashlib.sha256(seed + b" validator").digest()[:20])
        report.node_id = str(node)
        stake = (TransferableOutput(asset, TransferOutput(VALIDATOR_STAKE, wallet.owner)),)
        end = now + DEMO_CLOCK_JUMP - 60  # a day (the least stake) and ten minutes

        def validator(base: BaseTxFields) -> AddPermissionlessValidatorTx:
            return AddPermissionlessValidatorTx(
                base,
                Validator(node, 0, end, VALIDATOR_STAKE),
                PRIMARY_NETWORK_ID,
                _bls(seed + b" validator"),
                stake,
                rewards,
                rewards,
                20_000,
            )

        report.txs["addValidator"] = await wallet.issue(validator, VALIDATOR_STAKE)
        # a staker starts at its block's time, the chain time once it is accepted
        report.periods["addValidator"] = (await _chain_time(p), end)
        delegated = (TransferableOutput(asset, TransferOutput(DELEGATOR_STAKE, wallet.owner)),)

        def delegator(base: BaseTxFields) -> AddPermissionlessDelegatorTx:
            validator = Validator(node, 0, end - 300, DELEGATOR_STAKE)
            return AddPermissionlessDelegatorTx(
                base, validator, PRIMARY_NETWORK_ID, delegated, rewards
            )

        report.txs["addDelegator"] = await wallet.issue(delegator, DELEGATOR_STAKE)
        report.periods["addDelegator"] = (await _chain_time(p), end - 300)
        log(f"P-Chain: {node} validates with a delegator until {end}")
        subnet = await wallet.issue(lambda base: CreateSubnetTx(base, wallet.owner))
        report.txs["createSubnet"] = report.subnet_id = subnet
        genesis = b'{"config":{"chainId":99990},"alloc":{}}'  # beside the demo L1 (99999)

        def chain(base: BaseTxFields) -> CreateChainTx:
            vm = ID.from_string(SUBNET_EVM_ID)
            return CreateChainTx(
                base, ID.from_string(subnet), "demochain", vm, (), genesis, Input((0,))
            )

        report.txs["createChain"] = report.chain_id = await wallet.issue(chain, auths=1)
        owner = PChainOwner(1, (wallet.address,))
        l1_validator = L1Validator(
            hashlib.sha256(seed + b" l1").digest()[:20],
            100,
            L1_BALANCE,
            _bls(seed + b" l1"),
            owner,
            owner,
        )

        def convert(base: BaseTxFields) -> ConvertSubnetToL1Tx:
            return ConvertSubnetToL1Tx(
                base,
                ID.from_string(subnet),
                ID.from_string(report.chain_id),
                bytes(20),  # the manager contract's address on the new chain
                (l1_validator,),
                Input((0,)),
            )

        report.txs["convertSubnetToL1"] = await wallet.issue(convert, L1_BALANCE, auths=1)
        log(f"P-Chain: subnet {subnet} with chain {report.chain_id} is now an L1")
        # The network clock passes the stakers' end; the next P-Chain block pays the rewards.
        await c.call("evm_increaseTime", DEMO_CLOCK_JUMP)  # a minute past their end
        report.txs["afterStaking"] = await wallet.issue(BaseTx)
        balance = await p.call_object(
            "platform.getBalance", {"addresses": [report.rewards_address]}
        )
        log(f"P-Chain: staking ended, {balance['balance']} nAVAX of rewards paid")
    return report


async def _chain_time(p: RpcClient) -> int:
    from datetime import datetime

    text = (await p.call_object("platform.getTimestamp"))["timestamp"]
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def demo_secret(keys: Sequence[bytes]) -> bytes:
    """The dev key the P-Chain demo spends from: the last, which the EVM demo leaves alone."""
    return keys[-1]
