"""The P-Chain's mutable state: UTXOs, stakers, subnets, chains, L1 validators, fees, supply, time.

Only executors, the time advance and the block acceptor mutate it; queries read it through
`PlatformChain`. `validator_history` keeps each subnet's validator set as of every height that
changed it (platform.getValidatorsAt).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from snowfield.chains.platform.config import Params
from snowfield.chains.platform.gas import FeeState, ValidatorFeeState
from snowfield.chains.platform.records import Blockchain, L1Validator, Subnet, TxRecord
from snowfield.chains.platform.stakers import StakerSet
from snowfield.chains.platform.utxos import utxo_set
from snowfield.chains.utxoset import UTXOSet
from snowfield.formats.ids import EMPTY_ID, ID
from snowfield.formats.platform.components import UTXO

ValidatorSet = dict[bytes, tuple[int, bytes | None]]  # node id bytes → (weight, BLS key)
INACTIVE_NODE_ID = bytes(20)  # ids.EmptyNodeID: where an L1's inactive weight is counted


@dataclass(slots=True)
class PlatformState:
    """Everything consensus on the P-Chain decides."""

    network_id: int
    avax_asset_id: ID
    params: Params
    timestamp: int
    fee_state: FeeState
    current_supply: int
    height: int = 0
    last_block_id: ID = EMPTY_ID
    genesis_block: bytes = b""  # the height-0 block's bytes (platform.getBlockByHeight 0)
    validator_fee_state: ValidatorFeeState = field(default_factory=ValidatorFeeState)
    utxos: UTXOSet[UTXO] = field(default_factory=utxo_set)
    stakers: StakerSet = field(default_factory=StakerSet)
    subnets: dict[ID, Subnet] = field(default_factory=dict)
    blockchains: dict[ID, Blockchain] = field(default_factory=dict)
    l1_validators: dict[ID, L1Validator] = field(default_factory=dict)
    # Validation ids registered once (a removed validator's id cannot come back).
    used_validation_ids: set[ID] = field(default_factory=set)
    txs: dict[ID, TxRecord] = field(default_factory=dict)
    reward_utxos: dict[ID, list[UTXO]] = field(default_factory=dict)
    history_heights: list[int] = field(default_factory=list)
    history_sets: list[dict[ID, ValidatorSet]] = field(default_factory=list)
    _sets_key: object = field(default=None, compare=False, repr=False)

    def validator_sets(self) -> dict[ID, ValidatorSet]:
        """Every subnet's current validator set (primary-network stakers, subnet validators and
        active L1 validators)."""
        sets: dict[ID, ValidatorSet] = {}
        subnet_ids = {key[0] for key in self.stakers.validators}
        for subnet_id in subnet_ids:
            weights = self.stakers.weights(subnet_id)
            sets[subnet_id] = {node.raw: value for node, value in weights.items()}
        for validator in self.l1_validators.values():
            if validator.active:
                entry = sets.setdefault(validator.subnet_id, {})
                entry[validator.node_id] = (validator.weight, validator.public_key)
            elif validator.weight:
                # As avalanchego: an inactive L1 validator (its balance ran out, or disabled)
                # still weighs in the L1's total, under the empty node id and without a key,
                # so a Warp quorum is counted against it (it just cannot sign).
                entry = sets.setdefault(validator.subnet_id, {})
                inactive, _ = entry.get(INACTIVE_NODE_ID, (0, None))
                entry[INACTIVE_NODE_ID] = (inactive + validator.weight, None)
        return sets

    def record_validator_sets(self) -> None:
        """Appends the sets as of `height` when they differ from the last recorded ones."""
        # The sets change only with the stakers or the L1 validators: most blocks skip the
        # recomputation, which costs as many steps as there are stakers.
        key = (
            self.stakers.version,
            tuple((v.validation_id, v.active, v.weight) for v in self.l1_validators.values()),
        )
        if key == self._sets_key:
            return
        self._sets_key = key
        sets = self.validator_sets()
        if self.history_sets and self.history_sets[-1] == sets:
            return
        if self.history_heights and self.history_heights[-1] == self.height:
            self.history_sets[-1] = sets
            return
        self.history_heights.append(self.height)
        self.history_sets.append(sets)

    def validator_sets_at(self, height: int) -> dict[ID, ValidatorSet]:
        index = bisect.bisect_right(self.history_heights, height) - 1
        return self.history_sets[index] if index >= 0 else {}
