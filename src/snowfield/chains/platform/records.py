"""What the P-Chain records besides UTXOs and stakers: subnets, chains, L1 validators, txs."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from snowfield.formats.ids import ID
from snowfield.formats.platform.l1_txs import PChainOwner
from snowfield.formats.platform.secp256k1fx import OutputOwners
from snowfield.formats.platform.txs import Tx


@dataclass(frozen=True, slots=True)
class Subnet:
    """A subnet: its owner, and once converted to an L1 its manager and conversion id."""

    subnet_id: ID
    owner: OutputOwners
    conversion_id: ID | None = None
    manager_chain_id: ID | None = None
    manager_address: bytes | None = None

    @property
    def is_permissioned(self) -> bool:
        return self.conversion_id is None


@dataclass(frozen=True, slots=True)
class Blockchain:
    """A chain CreateChainTx (or the genesis) created."""

    blockchain_id: ID
    name: str
    subnet_id: ID
    vm_id: ID
    fx_ids: tuple[ID, ...]
    genesis_data: bytes


@dataclass(frozen=True, slots=True)
class L1Validator:
    """An ACP-77 L1 validator; inactive (out of the set) while its balance is zero."""

    validation_id: ID
    subnet_id: ID
    node_id: bytes
    public_key: bytes
    remaining_balance_owner: PChainOwner
    deactivation_owner: PChainOwner
    start_time: int
    weight: int
    balance: int
    min_nonce: int = 0
    height: int = 0

    @property
    def active(self) -> bool:
        return self.balance > 0


class TxStatus(enum.StrEnum):
    """platform.getTxStatus values."""

    COMMITTED = "Committed"
    ABORTED = "Aborted"
    PROCESSING = "Processing"
    DROPPED = "Dropped"
    UNKNOWN = "Unknown"


@dataclass(frozen=True, slots=True)
class TxRecord:
    """A tx the chain knows: the signed tx, its status, the height that decided it, why dropped."""

    tx: Tx
    status: TxStatus
    height: int | None = None
    reason: str | None = None
