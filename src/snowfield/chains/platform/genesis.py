"""The P-Chain genesis, shaped like avalanchego's local network (genesis/genesis_local.*).

Allocations become UTXOs (txID empty, index = position; a locktime makes a stakeable lock),
initial stakers become AddPermissionlessValidatorTxs staking from the genesis start time for
`initial_stake_duration` minus `offset`·i seconds (with their potential rewards added to the
supply), and the primary network's chains (X, C) are recorded by their CreateChainTxs, whose
ids are the blockchain ids. The AVAX asset id is an input (it comes from the X-Chain genesis).

Public API: `Allocation`, `InitialStaker`, `GenesisChain`, `GenesisConfig`, `build_state`,
`genesis_block`, `genesis_chain_tx`, `local_config` (+ `LocalStaker`), `AVM_ID`, `EVM_ID`,
`X_FX_IDS`,
`EWOQ_ADDRESS`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from snowfield.chains.platform import rewards
from snowfield.chains.platform.config import AVAX, LOCAL_PARAMS, Params
from snowfield.chains.platform.gas import FeeState
from snowfield.chains.platform.records import Blockchain, TxRecord, TxStatus
from snowfield.chains.platform.stakers import Staker, StakerKind
from snowfield.chains.platform.state import PlatformState
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.ids import EMPTY_ID, ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, NodeID, ShortID
from snowfield.formats.platform.blocks import ApricotCommitBlock, block_id, encode_block
from snowfield.formats.platform.components import UTXO, UTXOID, BaseTxFields, TransferableOutput
from snowfield.formats.platform.secp256k1fx import Input, OutputOwners, TransferOutput
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.formats.platform.stakeable import LockOut
from snowfield.formats.platform.staking_txs import AddPermissionlessValidatorTx, Validator
from snowfield.formats.platform.subnet_txs import CreateChainTx
from snowfield.formats.platform.txs import Tx
from snowfield.formats.platform.types import TransferableOut

AVM_ID = ID.from_string("jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq")
EVM_ID = ID.from_string("mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6")
X_FX_IDS = tuple(
    sorted(
        ID.from_string(text)
        for text in (
            "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ",  # secp256k1fx
            "qd2U4HDWUvMrVUeTcCHp6xH3Qpnn1XbU5MDdnBoiifFqvgXwT",  # nftfx
            "rXJsCSEYXg2TehWxCEEGj6JU2PWKTkd6cBdNLjoe2SpsKD9cy",  # propertyfx
        )
    )
)
EWOQ_ADDRESS = ShortID.from_public_key(public_key_of(EWOQ_KEY))


@dataclass(frozen=True, slots=True)
class Allocation:
    """`amount` nAVAX to `address`; a future `locktime` makes it a stakeable lock."""

    address: ShortID
    amount: int
    locktime: int = 0


@dataclass(frozen=True, slots=True)
class InitialStaker:
    """A genesis validator of the primary network with its BLS key and proof."""

    node_id: NodeID
    public_key: bytes
    proof_of_possession: bytes
    reward_address: ShortID
    weight: int
    delegation_fee: int = 1_000_000


@dataclass(frozen=True, slots=True)
class GenesisChain:
    """A primary-network chain the genesis creates (X, C)."""

    name: str
    vm_id: ID
    genesis_data: bytes
    fx_ids: tuple[ID, ...] = ()


@dataclass(frozen=True, slots=True)
class GenesisConfig:
    """Everything the P-Chain genesis holds (durations in seconds)."""

    network_id: int
    avax_asset_id: ID
    start_time: int
    allocations: tuple[Allocation, ...] = ()
    stakers: tuple[InitialStaker, ...] = ()
    chains: tuple[GenesisChain, ...] = ()
    initial_stake_duration: int = 31_536_000
    initial_stake_duration_offset: int = 5_400
    params: Params = field(default=LOCAL_PARAMS)


def _owner(address: ShortID) -> OutputOwners:
    return OutputOwners(0, 1, (address,))


def _output(allocation: Allocation) -> TransferableOut:
    output = TransferOutput(allocation.amount, _owner(allocation.address))
    return LockOut(allocation.locktime, output) if allocation.locktime else output


def _empty_base(config: GenesisConfig) -> BaseTxFields:
    return BaseTxFields(config.network_id, P_CHAIN_ID, (), ())


def staker_tx(config: GenesisConfig, staker: InitialStaker, end: int) -> Tx:
    """The genesis AddPermissionlessValidatorTx of `staker` (no inputs, no credentials)."""
    stake = (
        TransferableOutput(
            config.avax_asset_id, TransferOutput(staker.weight, _owner(staker.reward_address))
        ),
    )
    unsigned = AddPermissionlessValidatorTx(
        _empty_base(config),
        Validator(staker.node_id, config.start_time, end, staker.weight),
        PRIMARY_NETWORK_ID,
        ProofOfPossession(staker.public_key, staker.proof_of_possession),
        stake,
        _owner(staker.reward_address),
        _owner(staker.reward_address),
        staker.delegation_fee,
    )
    return Tx(unsigned)


def chain_tx(config: GenesisConfig, chain: GenesisChain) -> Tx:
    return genesis_chain_tx(config.network_id, chain)


def genesis_chain_tx(network_id: int, chain: GenesisChain) -> Tx:
    """The genesis CreateChainTx of `chain`; its id is the chain's blockchain id."""
    unsigned = CreateChainTx(
        BaseTxFields(network_id, P_CHAIN_ID, (), ()),
        PRIMARY_NETWORK_ID,
        chain.name,
        chain.vm_id,
        chain.fx_ids,
        chain.genesis_data,
        Input(()),
    )
    return Tx(unsigned)


def genesis_id(config: GenesisConfig, txs: list[Tx], utxos: list[UTXO]) -> ID:
    """A digest of the genesis contents: the parent id of the genesis block."""
    digest = hashlib.sha256(
        config.network_id.to_bytes(4, "big") + config.start_time.to_bytes(8, "big")
    )
    for item in (*utxos, *txs):
        digest.update(item.encode())
    return ID(digest.digest())


def build_state(config: GenesisConfig) -> PlatformState:
    """The P-Chain state at height 0."""
    fees = config.params.fees
    utxos = [
        UTXO(UTXOID(EMPTY_ID, i), config.avax_asset_id, _output(a))
        for i, a in enumerate(config.allocations)
    ]
    supply = sum(a.amount for a in config.allocations) + sum(s.weight for s in config.stakers)
    state = PlatformState(
        config.network_id,
        config.avax_asset_id,
        config.params,
        config.start_time,
        FeeState(fees.max_capacity, 0),  # full capacity: clients refuse to build above it
        supply,
    )
    for utxo in utxos:
        state.utxos.add(utxo)
    txs = _add_stakers(state, config) + _add_chains(state, config)
    genesis = genesis_block(genesis_id(config, txs, utxos))
    state.last_block_id, state.genesis_block = block_id(genesis), encode_block(genesis)
    state.record_validator_sets()
    return state


def genesis_block(parent: ID) -> ApricotCommitBlock:
    """avalanchego's P-Chain genesis block: a commit block at height 0 on the genesis id."""
    return ApricotCommitBlock(parent, 0)


def _add_stakers(state: PlatformState, config: GenesisConfig) -> list[Tx]:
    txs = []
    for i, staker in enumerate(config.stakers):
        duration = config.initial_stake_duration - i * config.initial_stake_duration_offset
        tx = staker_tx(config, staker, config.start_time + duration)
        reward = rewards.calculate(
            config.params.staking.rewards, duration, staker.weight, state.current_supply
        )
        state.current_supply += reward
        unsigned = tx.unsigned
        assert isinstance(unsigned, AddPermissionlessValidatorTx)
        owner = _owner(staker.reward_address)
        state.stakers.add(
            Staker(
                tx.id,
                StakerKind.PRIMARY_VALIDATOR,
                staker.node_id,
                PRIMARY_NETWORK_ID,
                staker.weight,
                config.start_time,
                config.start_time + duration,
                reward,
                staker.public_key,
                staker.delegation_fee,
                unsigned.stake,
                0,
                owner,
                owner,
            )
        )
        state.txs[tx.id] = TxRecord(tx, TxStatus.COMMITTED, 0)
        txs.append(tx)
    return txs


def _add_chains(state: PlatformState, config: GenesisConfig) -> list[Tx]:
    txs = []
    for chain in config.chains:
        tx = chain_tx(config, chain)
        state.blockchains[tx.id] = Blockchain(
            tx.id, chain.name, PRIMARY_NETWORK_ID, chain.vm_id, chain.fx_ids, chain.genesis_data
        )
        state.txs[tx.id] = TxRecord(tx, TxStatus.COMMITTED, 0)
        txs.append(tx)
    return txs


@dataclass(frozen=True, slots=True)
class LocalStaker:
    """An initial staker of a local network: its node id and BLS proof of possession."""

    node_id: NodeID
    public_key: bytes
    proof_of_possession: bytes


LOCAL_DELEGATION_FEES = (1_000_000, 500_000, 250_000, 125_000, 62_500)
LOCAL_EWOQ_AMOUNT = 20_000_000 * AVAX  # genesis_local.json's unlocked P-Chain amount for ewoq
LOCAL_STAKER_WEIGHT = 2_000_000 * AVAX  # 10M staked funds over the five local stakers


def local_config(
    network_id: int,
    avax_asset_id: ID,
    start_time: int,
    stakers: tuple[LocalStaker, ...],
    chains: tuple[GenesisChain, ...],
    dev_addresses: tuple[ShortID, ...] = (),
    dev_amount: int = 1_000_000 * AVAX,
) -> GenesisConfig:
    """A genesis like avalanchego's local network: ewoq and the dev addresses funded, the
    stakers validating with ewoq as reward address and the local delegation fees."""
    allocations = (
        Allocation(EWOQ_ADDRESS, LOCAL_EWOQ_AMOUNT),
        *(Allocation(a, dev_amount) for a in dev_addresses),
    )
    initial = tuple(
        InitialStaker(
            s.node_id,
            s.public_key,
            s.proof_of_possession,
            EWOQ_ADDRESS,
            LOCAL_STAKER_WEIGHT,
            LOCAL_DELEGATION_FEES[i % len(LOCAL_DELEGATION_FEES)],
        )
        for i, s in enumerate(stakers)
    )
    return GenesisConfig(network_id, avax_asset_id, start_time, allocations, initial, chains)
