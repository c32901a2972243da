"""Rows of the primary network's index (P-Chain blocks, txs, UTXOs, stakers, subnets,
chains): what the indexer extracts and the writer stores."""

from __future__ import annotations

from dataclasses import dataclass, field

from snowfield.store.primary_blocks import BlockDetail


@dataclass(frozen=True, slots=True)
class UtxoRow:
    """One UTXO a tx emitted (or a reward UTXO the chain paid)."""

    utxo_id: str
    tx_id: str
    output_index: int
    asset_id: str
    amount: int
    addresses: tuple[str, ...]
    threshold: int
    locktime: int
    stakeable_locktime: int | None
    staked: bool
    created_on: str
    consumed_on: str
    utxo_bytes: str
    reward_type: str | None = None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True, slots=True)
class Spend:
    """An input: the UTXO it consumes, with what the input itself says of it."""

    utxo_id: str
    source_tx: str
    output_index: int
    asset_id: str
    amount: int
    source_chain: str  # where the UTXO was created (another chain for an ImportTx)


@dataclass(frozen=True, slots=True)
class StakerRow:
    tx_id: str
    kind: str  # VALIDATOR | DELEGATOR | SUBNET_VALIDATOR
    node_id: str
    subnet_id: str
    start: int
    end: int
    amount: int
    reward_addresses: tuple[str, ...]
    fee_addresses: tuple[str, ...]  # the validator's delegation-reward owner (validators)
    delegation_fee: int | None  # millionths


@dataclass(frozen=True, slots=True)
class SubnetRow:
    subnet_id: str
    tx_id: str
    owner: tuple[tuple[str, ...], int, int]  # addresses, threshold, locktime


@dataclass(frozen=True, slots=True)
class PChainRow:
    blockchain_id: str
    subnet_id: str
    name: str
    vm_id: str
    evm_chain_id: int | None
    genesis: str | None  # the genesis as JSON text when it is an EVM's


@dataclass(frozen=True, slots=True)
class ConversionRow:
    subnet_id: str
    tx_id: str
    manager_chain: str
    manager_address: str


@dataclass(frozen=True, slots=True)
class L1Event:
    """What a tx does to an L1 validator's fee balance (store/l1_fees.fee_event reads it from the
    tx's L1Change): "add" (ConvertSubnetToL1Tx's validators, RegisterL1ValidatorTx: the balance
    it starts with), "topup" (IncreaseL1ValidatorBalanceTx: `amount` more), "disable"
    (DisableL1ValidatorTx) or "remove" (SetL1ValidatorWeightTx to weight 0): the balance left is
    refunded, none is charged after."""

    kind: str
    validation_id: str
    subnet_id: str = ""
    node_id: str = ""
    amount: int = 0


@dataclass(frozen=True, slots=True)
class L1Change:
    """What an L1 validator tx did to one validation (validator_activity webhooks match on it):
    `kind` register (RegisterL1ValidatorTx, ConvertSubnetToL1Tx's initial validators), weight
    (SetL1ValidatorWeightTx), increase (IncreaseL1ValidatorBalanceTx) or disable
    (DisableL1ValidatorTx). Node and subnet are known from register only; the others name the
    validation id alone. `weight` for register and weight, `balance` the balance given
    (register) or added (increase)."""

    tx_id: str
    tx_index: int
    kind: str
    validation_id: str
    node_id: str | None = None
    subnet_id: str | None = None
    weight: int | None = None
    balance: int | None = None


@dataclass(frozen=True, slots=True)
class TxRow:
    tx_id: str
    tx_type: str
    tx_index: int
    memo: str
    details: dict[str, object]  # type-specific fields of the Staking transaction resource
    addresses: tuple[str, ...]  # every address the tx names (inputs resolve at write time)


@dataclass(slots=True)
class BlockRows:
    height: int
    block_id: str
    parent_id: str
    timestamp: int
    txs: list[TxRow] = field(default_factory=list)
    emitted: list[UtxoRow] = field(default_factory=list)
    spends: list[tuple[str, Spend]] = field(default_factory=list)  # (consuming tx, spend)
    stakers: list[StakerRow] = field(default_factory=list)
    # (ended staking tx id, rewarding tx id): a RewardValidatorTx's decision (commit/abort)
    # lands in the next block; the row says which block decided.
    ended: list[tuple[str, str]] = field(default_factory=list)
    removed: list[tuple[str, str, str]] = field(default_factory=list)  # node, subnet, tx
    subnets: list[SubnetRow] = field(default_factory=list)
    owners: list[tuple[str, tuple[tuple[str, ...], int, int]]] = field(default_factory=list)
    chains: list[PChainRow] = field(default_factory=list)
    conversions: list[ConversionRow] = field(default_factory=list)
    rewarding: list[str] = field(default_factory=list)  # staking txs rewarded (committed here)
    l1_changes: list[L1Change] = field(default_factory=list)  # indexer/extract/l1_changes.py
    option: str | None = None  # "commit" / "abort" for option blocks
    detail: BlockDetail | None = None  # what the block operations show of its bytes


@dataclass(frozen=True, slots=True)
class VertexRow:
    """One X-Chain vertex at its position in the vertex index."""

    index: int
    vertex_id: str
    height: int
    timestamp: int
    parents: tuple[str, ...]
    txs: tuple[str, ...]
    size: int
