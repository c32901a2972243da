"""platform.issueTx refuses bad txs over JSON-RPC with avalanchego's wording (a -32000 gorilla
error, never an internal error) and changes nothing: malformed bytes, bad signature, double
spend, fee too low, overlapping validator, stake out of bounds, unknown subnet, wrong owner."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.config import AVAX, DAY
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.hexcheck import encode_hex as encode
from snowfield.formats.ids import ID, PRIMARY_NETWORK_ID, NodeID
from snowfield.formats.platform.components import BaseTxFields, TransferableOutput
from snowfield.formats.platform.secp256k1fx import Input, TransferOutput
from snowfield.formats.platform.staking_txs import (
    AddPermissionlessDelegatorTx,
    AddPermissionlessValidatorTx,
    Validator,
)
from snowfield.formats.platform.subnet_txs import CreateChainTx, CreateSubnetTx
from snowfield.formats.platform.transfer_txs import BaseTx
from snowfield.formats.platform.txs import Tx
from snowfield.testing import RunningNode, serve_devnet
from tests.chains.platform.wallet import KEY2, Wallet, owner, pop, sign

NEW_NODE = NodeID(hashlib.sha256(b"bad-txs node").digest()[:20])


_clients: list[httpx.Client] = []  # one connection: a new client costs ~35 ms of TLS setup


def service(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = _clients[0].post(url, json=body)
    assert response.status_code == 200
    reply: dict[str, Any] = response.json()
    return reply


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet() as node, httpx.Client(timeout=30) as client:
        _clients.append(client)
        yield node
        _clients.clear()


def chain_of(node: RunningNode) -> PlatformChain:
    chain: PlatformChain = node.node.chains["P"].runtime.chain
    return chain


def snapshot(node: RunningNode) -> tuple[Any, ...]:
    """What a refused tx must leave as it was, read over the API and from the state."""
    p = node.base + "/ext/bc/P"
    chain = chain_of(node)
    reads = [
        service(p, m, params)["result"]
        for m, params in (
            ("platform.getHeight", {}),
            ("platform.getCurrentValidators", {}),
            ("platform.getSubnets", {}),
            ("platform.getBlockchains", {}),
        )
    ]
    utxos = sorted(str(u.id) for u in chain.state.utxos)
    return (*map(repr, reads), utxos, repr(chain.fee_state), chain.state.current_supply)


def refused(node: RunningNode, tx: Tx | bytes | str, message: str) -> str:
    """Issues `tx`; asserts avalanchego's error text and that the state did not move."""
    before = snapshot(node)
    text = tx if isinstance(tx, str) else encode(tx if isinstance(tx, bytes) else tx.encode())
    reply = service(node.base + "/ext/bc/P", "platform.issueTx", {"tx": text})
    assert reply["error"]["code"] == -32000, reply
    error: str = reply["error"]["message"]
    assert message in error, error
    assert snapshot(node) == before
    return error


def base_tx(wallet: Wallet, amount: int = AVAX) -> Tx:
    out = TransferableOutput(wallet.chain.state.avax_asset_id, TransferOutput(amount, owner(KEY2)))
    return wallet.build(lambda base: BaseTx(base), amount, (out,))


def stake(chain: PlatformChain, amount: int) -> tuple[TransferableOutput, ...]:
    return (TransferableOutput(chain.state.avax_asset_id, TransferOutput(amount, owner(EWOQ_KEY))),)


def validator_tx(chain: PlatformChain, node_id: NodeID, weight: int, days: int = 2) -> Tx:
    end = chain.state.timestamp + days * DAY

    def make(base: BaseTxFields) -> AddPermissionlessValidatorTx:
        return AddPermissionlessValidatorTx(
            base,
            Validator(node_id, 0, end, weight),
            PRIMARY_NETWORK_ID,
            pop(node_id.raw),
            stake(chain, weight),
            owner(EWOQ_KEY),
            owner(EWOQ_KEY),
            20_000,
        )

    return Wallet(chain).build(make, weight)


def test_malformed_bytes(devnet: RunningNode) -> None:
    refused(devnet, "0xzz", "problem decoding transaction")
    refused(devnet, "0x00000000", "problem decoding transaction")  # a bad checksum
    good = base_tx(Wallet(chain_of(devnet))).encode()
    refused(devnet, good[:-7], "couldn't parse tx")  # truncated
    refused(devnet, good + b"\x00", "couldn't parse tx")  # trailing bytes
    refused(devnet, b"\x00\x01" + good[2:], "couldn't parse tx")  # codec version 1


def test_bad_signature(devnet: RunningNode) -> None:
    tx = base_tx(Wallet(chain_of(devnet)))
    refused(devnet, sign(tx.unsigned, [[KEY2]]), "wrong signature")


def test_double_spend(devnet: RunningNode) -> None:
    wallet = Wallet(chain_of(devnet))
    first, second = base_tx(wallet, AVAX), base_tx(wallet, 2 * AVAX)  # the same UTXO
    reply = service(devnet.base + "/ext/bc/P", "platform.issueTx", {"tx": encode(first.encode())})
    assert "error" not in reply, reply  # accepted at once: second's input is now spent
    refused(devnet, second, "not found")
    refused(devnet, first, "duplicate tx")


def test_fee_too_low(devnet: RunningNode) -> None:
    chain = chain_of(devnet)
    tx = base_tx(Wallet(chain))
    unsigned = tx.unsigned
    assert isinstance(unsigned, BaseTx)
    outputs = tuple(  # one nAVAX more to the outputs: one nAVAX short of the fee
        replace(o, output=TransferOutput(o.output.amount + 1, o.output.owners))  # type: ignore[attr-defined]
        for o in unsigned.base.outputs
    )
    cheap = BaseTx(replace(unsigned.base, outputs=outputs))
    refused(devnet, sign(cheap, [[EWOQ_KEY]] * len(tx.credentials)), "insufficient unlocked funds")


def test_overlapping_validator(devnet: RunningNode) -> None:
    chain = chain_of(devnet)
    genesis = next(iter(chain.current_validators(PRIMARY_NETWORK_ID))).staker.node_id
    refused(devnet, validator_tx(chain, genesis, 2_000 * AVAX), "duplicate validation")


def test_stake_out_of_bounds(devnet: RunningNode) -> None:
    chain = chain_of(devnet)
    refused(
        devnet, validator_tx(chain, NEW_NODE, 1_999 * AVAX), "weight of this validator is too low"
    )
    refused(
        devnet, validator_tx(chain, NEW_NODE, 2_000 * AVAX, days=400), "staking period is too long"
    )
    refused(
        devnet, validator_tx(chain, NEW_NODE, 2_000 * AVAX, days=0), "staking period is too short"
    )
    genesis = next(iter(chain.current_validators(PRIMARY_NETWORK_ID))).staker

    def delegate(weight: int) -> Callable[[BaseTxFields], AddPermissionlessDelegatorTx]:
        def make(base: BaseTxFields) -> AddPermissionlessDelegatorTx:
            # Two days: a valid period with a margin (the chain's clock moves on between
            # building and issuing; a period of exactly the minimum failed on a loaded machine).
            validator = Validator(genesis.node_id, 0, chain.state.timestamp + 2 * DAY, weight)
            return AddPermissionlessDelegatorTx(
                base, validator, PRIMARY_NETWORK_ID, stake(chain, weight), owner(EWOQ_KEY)
            )

        return make

    wallet = Wallet(chain)
    refused(devnet, wallet.build(delegate(AVAX), AVAX), "weight of this delegator is too low")
    too_much = 3_000_001 * AVAX  # above the maximum stake; ewoq holds 20M
    refused(
        devnet, validator_tx(chain, NEW_NODE, too_much), "weight of this validator is too large"
    )
    # a validator may carry at most 5x its own stake in delegations (and 3M AVAX in all)
    over = genesis.weight * 4 + AVAX  # 2M + 8M + 1: over both limits
    refused(devnet, wallet.build(delegate(over), over), "validator would be over delegated")


def test_unknown_subnet(devnet: RunningNode) -> None:
    unknown = ID(hashlib.sha256(b"no such subnet").digest())
    wallet = Wallet(chain_of(devnet))
    tx = wallet.build(
        lambda base: CreateChainTx(
            base, unknown, "nochain", ID(b"\x0a" * 32), (), b"{}", Input((0,))
        ),
        auth=[[EWOQ_KEY]],
    )
    refused(devnet, tx, "not found")


def test_wrong_owner(devnet: RunningNode) -> None:
    wallet = Wallet(chain_of(devnet))
    subnet = wallet.build(lambda base: CreateSubnetTx(base, owner(EWOQ_KEY)))
    reply = service(devnet.base + "/ext/bc/P", "platform.issueTx", {"tx": encode(subnet.encode())})
    assert reply["result"]["txID"] == str(subnet.id)
    tx = wallet.build(
        lambda base: CreateChainTx(
            base, subnet.id, "mine", ID(b"\x0a" * 32), (), b"{}", Input((0,))
        ),
        auth=[[KEY2]],  # signed by a key that does not own the subnet
    )
    refused(devnet, tx, "unauthorized subnet modification")


def test_a_refused_tx_moves_no_time(devnet: RunningNode) -> None:
    """A refused tx issued when the network clock is ahead of the last block (the block built
    for it would move time) is refused without any block: height and fee state stay put."""
    rpc = devnet.base + "/ext/bc/C/rpc"
    reply = httpx.post(
        rpc, json={"jsonrpc": "2.0", "id": 1, "method": "evm_increaseTime", "params": [7]}
    ).json()
    assert "error" not in reply, reply
    chain = chain_of(devnet)
    assert int(devnet.node.chains["P"].runtime.now()) > chain.state.timestamp
    tx = base_tx(Wallet(chain))
    refused(devnet, sign(tx.unsigned, [[KEY2]]), "wrong signature")
