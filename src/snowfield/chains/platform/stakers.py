"""Current stakers of the P-Chain: validators and delegators, in avalanchego's removal order.

Public API: `StakerKind` (the priorities: delegators leave before validators at the same time),
`Staker` (one staking tx's record), `StakerSet` (by tx id, by (subnet, node), and the next to end).
"""

from __future__ import annotations

import enum
import heapq
from dataclasses import dataclass, field

from snowfield.formats.ids import ID, NodeID
from snowfield.formats.platform.components import TransferableOutput
from snowfield.formats.platform.secp256k1fx import OutputOwners


class StakerKind(enum.IntEnum):
    """Current-staker priorities (lower ends first at equal end times)."""

    SUBNET_PERMISSIONED_VALIDATOR = 1
    PRIMARY_DELEGATOR = 2
    PRIMARY_VALIDATOR = 3

    @property
    def rewarded(self) -> bool:
        """Primary-network stakers leave through a RewardValidatorTx; others at their end."""
        return self is not StakerKind.SUBNET_PERMISSIONED_VALIDATOR


@dataclass(frozen=True, slots=True)
class Staker:
    """A current staker: what its tx added and what it may earn."""

    tx_id: ID
    kind: StakerKind
    node_id: NodeID
    subnet_id: ID
    weight: int
    start: int
    end: int
    potential_reward: int = 0
    public_key: bytes | None = None
    delegation_shares: int = 0
    stake: tuple[TransferableOutput, ...] = ()
    outputs_count: int = 0  # len(base outputs): returned stake starts at this index
    rewards_owner: OutputOwners | None = None
    delegation_rewards_owner: OutputOwners | None = None

    @property
    def order(self) -> tuple[int, int, bytes]:
        return (self.end, int(self.kind), self.tx_id.raw)


@dataclass(slots=True)
class StakerSet:
    """The current stakers, indexed for the rules and queries that need them."""

    by_tx: dict[ID, Staker] = field(default_factory=dict)
    validators: dict[tuple[ID, NodeID], Staker] = field(default_factory=dict)
    delegators: dict[tuple[ID, NodeID], dict[ID, Staker]] = field(default_factory=dict)
    delegatee_rewards: dict[tuple[ID, NodeID], int] = field(default_factory=dict)
    # counts changes: what depends on the set only is recomputed after one
    version: int = field(default=0, compare=False)
    # Kept with every add and remove, so that the rules' reads do not walk every staker:
    # each validator's delegated weight, and a heap of (removal order, tx id) whose entries
    # for stakers already gone are skipped when met.
    _delegated: dict[tuple[ID, NodeID], int] = field(default_factory=dict, compare=False)
    _ending: list[tuple[tuple[int, int, bytes], ID]] = field(default_factory=list, compare=False)

    def add(self, staker: Staker) -> None:
        self.version += 1
        self.by_tx[staker.tx_id] = staker
        key = (staker.subnet_id, staker.node_id)
        if staker.kind is StakerKind.PRIMARY_DELEGATOR:
            self.delegators.setdefault(key, {})[staker.tx_id] = staker
            self._delegated[key] = self._delegated.get(key, 0) + staker.weight
        else:
            self.validators[key] = staker
        heapq.heappush(self._ending, (staker.order, staker.tx_id))

    def remove(self, staker: Staker) -> None:
        self.version += 1
        del self.by_tx[staker.tx_id]
        key = (staker.subnet_id, staker.node_id)
        if staker.kind is StakerKind.PRIMARY_DELEGATOR:
            del self.delegators[key][staker.tx_id]
            self._delegated[key] -= staker.weight
        else:
            del self.validators[key]
            self.delegators.pop(key, None)
            self.delegatee_rewards.pop(key, None)
            self._delegated.pop(key, None)

    def delegated_weight(self, subnet_id: ID, node_id: NodeID) -> int:
        return self._delegated.get((subnet_id, node_id), 0)

    def delegators_of(self, subnet_id: ID, node_id: NodeID) -> list[Staker]:
        return sorted(self.delegators.get((subnet_id, node_id), {}).values(), key=_order)

    def next_to_end(self) -> Staker | None:
        ending = self._ending
        while ending:
            order, tx_id = ending[0]
            staker = self.by_tx.get(tx_id)
            if staker is not None and staker.order == order:
                return staker
            heapq.heappop(ending)  # left the set (or was replaced)
        return None

    def weights(self, subnet_id: ID) -> dict[NodeID, tuple[int, bytes | None]]:
        """Each validator's weight (its own plus its delegators') and BLS key on `subnet_id`."""
        result: dict[NodeID, tuple[int, bytes | None]] = {}
        for (subnet, node_id), validator in self.validators.items():
            if subnet == subnet_id:
                delegated = self._delegated.get((subnet, node_id), 0)
                result[node_id] = (validator.weight + delegated, validator.public_key)
        return result


def _order(staker: Staker) -> tuple[int, int, bytes]:
    return staker.order
