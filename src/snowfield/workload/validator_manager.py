"""An L1 validator registered end to end through our ValidatorManager contract (ACP-99's
message flow), over public interfaces only:

  1. the manager's owner calls initiateValidatorRegistration: the contract sends a Warp
     RegisterL1ValidatorMessage (ACP-77 codec bytes) from the manager address;
  2. the L1's validators sign it (the aggregator, over the peer protocol);
  3. RegisterL1ValidatorTx with the signed message, a balance and the BLS proof of possession
     goes to the P-Chain;
  4. the P-Chain's L1ValidatorRegistration for the tx is signed by the L1's validators (a
     P-Chain message is verified on an L1 against the L1's own set);
  5. completeValidatorRegistration delivers it to the contract: the validator is Active.

A registration that is never completed on the P-Chain is undone the same way: once its expiry
has passed, the P-Chain attests L1ValidatorRegistration(false) (the RegisterL1Validator message
as justification) and completeValidatorRemoval makes the manager forget the validator.

`genesis_with_manager` puts the contract's runtime code at the manager address of an L1's
genesis (the address the conversion names), as avalanche-cli's genesis holds its proxy.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from eth_abi import decode

from snowfield.aggregator.aggregate import AggregationRequest
from snowfield.aggregator.service import AggregatorService
from snowfield.crypto import bls
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.l1_txs import RegisterL1ValidatorTx
from snowfield.formats.warp.justification import encode_justification
from snowfield.formats.warp.message import UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, decode_payload, encode_payload
from snowfield.formats.warp.platform_messages import L1ValidatorRegistration, encode_message
from snowfield.formats.warp.predicate import warp_access_list
from snowfield.rpc.client import RpcClient
from snowfield.workload.contracts import call_data, event_topic, load
from snowfield.workload.icm import EvmAccount, sent_warp_message
from snowfield.workload.platform_demo import PWallet

INITIATED = event_topic("InitiatedValidatorRegistration(bytes32,bytes20,bytes32,uint64,uint64)")
COMPLETED = event_topic("CompletedValidatorRegistration(bytes32,uint64)")
REMOVED = event_topic("CompletedValidatorRemoval(bytes32)")
OWNER_TYPE = "(uint32,address[])"
INITIATE = f"initiateValidatorRegistration(bytes,bytes,{OWNER_TYPE},{OWNER_TYPE},uint64)"
ACTIVE = 2  # ValidatorStatus.Active
DEMO_BALANCE = 10**9  # 1 AVAX: pays the new L1 validator's continuous fee for days


def genesis_with_manager(genesis: bytes, manager: bytes) -> bytes:
    """`genesis` (an EVM genesis JSON) with the ValidatorManager's runtime code at `manager`."""
    doc = json.loads(genesis)
    key = manager.hex()
    alloc = doc.setdefault("alloc", {})
    entry = alloc.get(key) or alloc.get("0x" + key) or {"balance": "0x0"}
    entry["code"] = "0x" + load("ValidatorManager").deployed_bytecode.hex()
    alloc.pop("0x" + key, None)
    alloc[key] = entry
    return json.dumps(doc).encode()


@dataclass(frozen=True, slots=True)
class Initiated:
    """A registration the manager started: its validation id and the Warp message it sent."""

    validation_id: ID
    message: UnsignedMessage  # the RegisterL1Validator message, from the manager's address

    @property
    def register_message(self) -> bytes:
        """The RegisterL1Validator codec bytes (the justification of a removal)."""
        payload = decode_payload(self.message.payload)
        assert isinstance(payload, AddressedCall)
        return payload.payload


@dataclass(frozen=True, slots=True)
class Registration:
    validation_id: ID
    node_id: bytes
    register_tx: str  # the P-Chain RegisterL1ValidatorTx id
    completed_tx: str  # the L1 tx that completed it on the manager


class ManagerClient:
    """The manager contract on one L1, its owner's key, and the P-Chain wallet that pays."""

    def __init__(
        self,
        node_url: str,
        l1_rpc: RpcClient,
        manager: str,
        owner_secret: bytes,
        wallet: PWallet,
        aggregator: AggregatorService,
    ) -> None:
        self.node_url = node_url.rstrip("/")
        self.rpc = l1_rpc
        self.manager = manager
        self.owner = EvmAccount(l1_rpc, owner_secret)
        self.wallet = wallet
        self.aggregator = aggregator

    async def initialize(self, subnet_id: ID) -> None:
        """Sets the L1's subnet and the owner, once (a second call is a no-op here)."""
        if int(await self._view("owner()"), 16):
            return
        receipt = await self.owner.send(
            self.manager,
            call_data("initialize(bytes32,address)", subnet_id.raw, self.owner.address),
        )
        _require(receipt, "initialize")

    async def register(
        self,
        node_id: bytes,
        key: bls.SecretKey,
        owner: ShortID,
        weight: int,
        balance: int,
        subnet_id: ID,
    ) -> Registration:
        """Registers `node_id` (20 bytes) with `key` as an L1 validator: steps 1-5 above."""
        started = await self.initiate(node_id, key, owner, weight)
        validation_id = started.validation_id
        signed = await self.aggregator.aggregate(AggregationRequest(started.message))
        pop = key.prove_possession().to_bytes()
        tx_id = await self.wallet.issue(
            lambda base: RegisterL1ValidatorTx(base, balance, pop, signed.encode()),
            spend=balance,
        )
        registration = await self.aggregator.aggregate_tx(tx_id, signing_subnet=str(subnet_id))
        completed = await self.owner.send(
            self.manager,
            call_data("completeValidatorRegistration(uint32)", 0),
            access_list=warp_access_list(registration.encode()),
        )
        _require(completed, "completeValidatorRegistration")
        if not any(item["topics"][0] == "0x" + COMPLETED.hex() for item in completed["logs"]):
            raise RuntimeError("the manager did not complete the registration")
        return Registration(validation_id, node_id, tx_id, completed["transactionHash"])

    async def initiate(
        self, node_id: bytes, key: bls.SecretKey, owner: ShortID, weight: int
    ) -> Initiated:
        """Step 1: the manager sends the RegisterL1Validator message (expiring in a day)."""
        owners = (1, ["0x" + owner.raw.hex()])
        initiated = await self.owner.send(
            self.manager,
            call_data(INITIATE, node_id, key.public_key().to_bytes(), owners, owners, weight),
        )
        _require(initiated, "initiateValidatorRegistration")
        unsigned = sent_warp_message(initiated)
        if unsigned is None:
            raise RuntimeError("the manager sent no Warp message")
        (validation_id,) = [
            ID(bytes.fromhex(item["topics"][1][2:]))
            for item in initiated["logs"]
            if item["topics"][0] == "0x" + INITIATED.hex()
        ]
        return Initiated(validation_id, unsigned)

    async def remove_unregistered(self, started: Initiated, subnet_id: ID) -> str:
        """A registration the P-Chain never took, past its expiry: the P-Chain's
        L1ValidatorRegistration(false), signed by the L1's validators with the registration
        message as justification, removes it from the manager. The L1 tx's hash."""
        attestation = L1ValidatorRegistration(started.validation_id, False)
        unsigned = UnsignedMessage(
            self.wallet.network_id,
            P_CHAIN_ID,
            encode_payload(AddressedCall(b"", encode_message(attestation))),
        )
        justification = encode_justification(started.register_message)
        request = AggregationRequest(unsigned, justification, signing_subnet=str(subnet_id))
        signed = await self.aggregator.aggregate(request)
        removed = await self.owner.send(
            self.manager,
            call_data("completeValidatorRemoval(uint32)", 0),
            access_list=warp_access_list(signed.encode()),
        )
        _require(removed, "completeValidatorRemoval")
        if not any(item["topics"][0] == "0x" + REMOVED.hex() for item in removed["logs"]):
            raise RuntimeError("the manager did not remove the validator")
        return str(removed["transactionHash"])

    async def status(self, validation_id: ID) -> tuple[int, int]:
        """(ValidatorStatus, weight) the manager holds for `validation_id`."""
        raw = await self._view("getValidator(bytes32)", validation_id.raw)
        status, _node, weight, _expiry = decode(
            ["uint8", "bytes", "uint64", "uint64"], bytes.fromhex(raw[2:])
        )
        return int(status), int(weight)

    async def _view(self, signature: str, *args: Any) -> str:
        data = "0x" + call_data(signature, *args).hex()
        return str(await self.rpc.call("eth_call", {"to": self.manager, "data": data}, "latest"))


def _require(receipt: dict[str, Any], what: str) -> None:
    if receipt.get("status") != "0x1":
        raise RuntimeError(f"{what} failed on the validator manager: {receipt}")


@contextlib.asynccontextmanager
async def _managed(
    base: str, l1: str, manager: str, owner_secret: bytes, p_secret: bytes
) -> AsyncIterator[tuple[ManagerClient, ID] | None]:
    """The manager of the L1 `l1` (initialized) and the L1's subnet; None without a contract."""
    async with RpcClient(f"{base}/ext/bc/{l1}/rpc") as rpc, RpcClient(f"{base}/ext/bc/P") as p:
        if await rpc.call("eth_getCode", manager, "latest") in ("0x", None):
            yield None
            return
        chains = (await p.call_object("platform.getBlockchains"))["blockchains"]
        subnet = ID.from_string(next(c["subnetID"] for c in chains if c["id"] == l1))
        async with RpcClient(f"{base}/ext/info") as info:
            network_id = int((await info.call_object("info.getNetworkID"))["networkID"])
        avax = ID.from_string((await p.call_object("platform.getStakingAssetID"))["assetID"])
        wallet = PWallet(p, p_secret, network_id, avax)
        aggregator = AggregatorService(base)
        try:
            client = ManagerClient(base, rpc, manager, owner_secret, wallet, aggregator)
            await client.initialize(subnet)
            yield client, subnet
        finally:
            await aggregator.close()


async def start_unregistered(
    node_url: str, l1: str, manager: str, owner_secret: bytes, p_secret: bytes
) -> Initiated | None:
    """make up's demo, before the P-Chain demo moves the clock a day on: a registration that
    nobody takes to the P-Chain (a fresh node id, weight 1), for `run_manager_demo` to remove
    once it has expired; None when the L1 holds no manager contract."""
    async with _managed(node_url.rstrip("/"), l1, manager, owner_secret, p_secret) as found:
        if found is None:
            return None
        client, _ = found
        return await client.initiate(
            os.urandom(20), bls.SecretKey.generate(), client.wallet.address, 1
        )


async def run_manager_demo(
    node_url: str,
    l1: str,
    manager: str,
    owner_secret: bytes,
    p_secret: bytes,
    log: Callable[[str], None],
    unregistered: Initiated | None = None,
) -> Registration | None:
    """make up's demo: the L1 `l1`'s manager contract initialized and one new validator
    (weight 1, a fresh node id and BLS key) registered through it, then `unregistered` (a
    registration `start_unregistered` began and let expire) removed through the P-Chain's
    L1ValidatorRegistration(false); None when the L1 holds no manager contract."""
    base = node_url.rstrip("/")
    async with _managed(base, l1, manager, owner_secret, p_secret) as found:
        if found is None:
            log(f"validator manager: no contract at {manager} on {l1}")
            return None
        client, subnet = found
        key = bls.SecretKey.generate()
        done = await client.register(
            os.urandom(20), key, client.wallet.address, 1, DEMO_BALANCE, subnet
        )
        log(
            f"validator manager: registered validation {done.validation_id} on {l1} "
            f"(P-Chain tx {done.register_tx})"
        )
        if unregistered is not None:
            removed = await client.remove_unregistered(unregistered, subnet)
            log(
                f"validator manager: removed validation {unregistered.validation_id}, whose "
                f"registration expired, on the P-Chain's word (L1 tx {removed})"
            )
    return done
