"""platform.* validator reads in avalanchego's shapes (vms/platformvm/api/validator.go and
service.go): getCurrentValidators (primary, permissioned subnet and L1), getValidatorsAt,
getL1Validator and getCurrentSupply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.queries import ValidatorInfo
from snowfield.chains.platform.records import L1Validator
from snowfield.chains.platform.stakers import Staker, StakerKind
from snowfield.errors import InvalidParams
from snowfield.formats.hexcheck import encode_hexnc
from snowfield.formats.ids import ID, PRIMARY_NETWORK_ID, NodeID, ShortID
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.node.gorilla_params import MAX_UINT64, Params
from snowfield.rpc.service import ServiceHandler

Format = Callable[[ShortID], str]  # an address as `P-<hrp>1…`
# avalanchego's gorilla codec answers any argument its json types refuse with this.
BAD_ARGUMENT = (
    "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
    "See documentation for example calls"
)
MAX_NODE_IDS = 1024  # the request body bound keeps far fewer; this bounds the work per call


def _float32(value: float) -> str:
    """avalanchego's json.Float32: a quoted decimal with four places."""
    return f"{value:.4f}"


class ValidatorReads:
    """The handlers, over one P-Chain; `chain()` is read per call (the runtime's chain)."""

    def __init__(self, chain: Callable[[], PlatformChain], format_address: Format) -> None:
        self._chain = chain
        self._format = format_address

    def owner(self, locktime: int, threshold: int, addresses: tuple[ShortID, ...]) -> Any:
        return {
            "locktime": str(locktime),
            "threshold": str(threshold),
            "addresses": [self._format(a) for a in addresses],
        }

    # --- getCurrentValidators ------------------------------------------------------------

    def get_current_validators(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        subnet = params.id("subnetID") if params.string("subnetID") else PRIMARY_NETWORK_ID
        texts = params.strings("nodeIDs")
        if len(texts) > MAX_NODE_IDS:
            raise InvalidParams(f"at most {MAX_NODE_IDS} nodeIDs may be given")
        node_ids = {NodeID.from_string(t) for t in texts}
        chain = self._chain()
        record = chain.state.subnets.get(subnet)
        if record is not None and not record.is_permissioned:
            return {"validators": self._l1_validators(chain, subnet, node_ids)}
        found = chain.current_validators(subnet, node_ids)
        return {"validators": [self._validator(chain, v, len(node_ids)) for v in found]}

    def _staker(self, staker: Staker) -> dict[str, Any]:
        return {
            "txID": str(staker.tx_id),
            "startTime": str(staker.start),
            "endTime": str(staker.end),
            "weight": str(staker.weight),
            "nodeID": str(staker.node_id),
        }

    def _validator(self, chain: PlatformChain, info: ValidatorInfo, queried: int) -> Any:
        staker = info.staker
        if staker.kind is StakerKind.SUBNET_PERMISSIONED_VALIDATOR:
            return self._staker(staker)
        key = (staker.subnet_id, staker.node_id)
        result: dict[str, Any] = {
            **self._staker(staker),
            **self._rewards_owners(staker),
            "potentialReward": str(staker.potential_reward),
            "accruedDelegateeReward": str(chain.state.stakers.delegatee_rewards.get(key, 0)),
            "delegationFee": _float32(100 * staker.delegation_shares / 1_000_000),
        }
        if staker.subnet_id == PRIMARY_NETWORK_ID:
            result["uptime"] = _float32(info.uptime)
            result["connected"] = info.connected
        signer = self._signer(chain, staker.tx_id)
        if signer is not None:
            result["signer"] = signer
        result["delegatorCount"] = str(len(info.delegators))
        result["delegatorWeight"] = str(info.delegator_weight)
        if queried == 1:  # one validator asked for: its delegators in full
            result["delegators"] = [self._delegator(d) for d in info.delegators]
        return result

    def _rewards_owners(self, staker: Staker) -> dict[str, Any]:
        owners: dict[str, Any] = {}
        for name, owner in (
            ("validationRewardOwner", staker.rewards_owner),
            ("delegationRewardOwner", staker.delegation_rewards_owner),
        ):
            if owner is not None:
                owners[name] = self.owner(owner.locktime, owner.threshold, owner.addresses)
        return owners

    def _delegator(self, staker: Staker) -> dict[str, Any]:
        result = self._staker(staker)
        owner = staker.rewards_owner
        if owner is not None:
            result["rewardOwner"] = self.owner(owner.locktime, owner.threshold, owner.addresses)
        result["potentialReward"] = str(staker.potential_reward)
        return result

    @staticmethod
    def _signer(chain: PlatformChain, tx_id: ID) -> dict[str, str] | None:
        record = chain.state.txs.get(tx_id)
        signer = getattr(record.tx.unsigned, "signer", None) if record else None
        if not isinstance(signer, ProofOfPossession):
            return None
        return {
            "publicKey": encode_hexnc(signer.public_key),
            "proofOfPossession": encode_hexnc(signer.proof),
        }

    def _l1_validators(self, chain: PlatformChain, subnet: ID, node_ids: set[NodeID]) -> list[Any]:
        """An L1's validators: permissioned stakers left from before the conversion, then its
        L1 validators (active or not), filtered by node id when asked."""
        result: list[Any] = [
            self._staker(info.staker) for info in chain.current_validators(subnet, node_ids)
        ]
        for record in sorted(chain.l1_validators(subnet), key=lambda v: v.validation_id):
            if not node_ids or NodeID(record.node_id) in node_ids:
                result.append(self.l1_validator(record))
        return result

    def l1_validator(self, record: L1Validator) -> dict[str, Any]:
        """APIL1Validator: node, weight, start, then the BaseL1Validator fields."""
        balance_owner, disable_owner = record.remaining_balance_owner, record.deactivation_owner
        return {
            "nodeID": str(NodeID(record.node_id)),
            "weight": str(record.weight),
            "startTime": str(record.start_time),
            "validationID": str(record.validation_id),
            "publicKey": encode_hexnc(record.public_key),
            "remainingBalanceOwner": self.owner(
                0, balance_owner.threshold, balance_owner.addresses
            ),
            "deactivationOwner": self.owner(0, disable_owner.threshold, disable_owner.addresses),
            "minNonce": str(record.min_nonce),
            "balance": str(record.balance),
        }

    # --- getL1Validator, getValidatorsAt, getCurrentSupply ----------------------------------

    def get_l1_validator(self, raw: dict[str, Any]) -> dict[str, Any]:
        validation_id = Params(raw).id("validationID")
        chain = self._chain()
        record = chain.state.l1_validators.get(validation_id)
        if record is None:
            raise InvalidParams(f'fetching L1 validator "{validation_id}" failed: not found')
        return {
            **self.l1_validator(record),
            "subnetID": str(record.subnet_id),
            "height": str(chain.height),
        }

    def get_validators_at(self, raw: dict[str, Any]) -> dict[str, Any]:
        """A bare map NodeID → {publicKey (hexnc or null), weight}: the node's MarshalJSON."""
        params = Params(raw)
        chain = self._chain()
        height = _height(params.get("height"), chain.height)
        subnet = params.id("subnetID") if params.string("subnetID") else PRIMARY_NETWORK_ID
        if height > chain.height:
            raise InvalidParams(
                f"failed to get validator set at {height}: failed to fetch validator set at "
                f"unfinalized height: current P-chain height ({chain.height}) < requested "
                f"P-Chain height ({height})"
            )
        found = chain.validators_at(height, subnet)
        return {
            str(NodeID(node)): {
                "publicKey": encode_hexnc(key) if key else None,
                "weight": str(weight),
            }
            for node, (weight, key) in sorted(found.items())
        }

    def get_current_supply(self, raw: dict[str, Any]) -> dict[str, str]:
        params = Params(raw)
        subnet = params.id("subnetID") if params.string("subnetID") else PRIMARY_NETWORK_ID
        chain = self._chain()
        if subnet != PRIMARY_NETWORK_ID:  # only elastic subnets have a supply of their own
            raise InvalidParams("fetching current supply failed: not found")
        return {"supply": str(chain.current_supply), "height": str(chain.height)}


def _height(value: Any, current: int) -> int:
    """platformapi.Height: a u64 (number or decimal string) or "proposed" (the current height
    on a devnet, where the proposer window never lags)."""
    if value is None:
        return 0
    if value == "proposed":
        return current
    if isinstance(value, bool):
        raise InvalidParams(BAD_ARGUMENT)
    if isinstance(value, int) and 0 <= value < MAX_UINT64:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        number = int(value)
        if number < MAX_UINT64:  # MaxUint64 is the proposed height's sentinel
            return number
    raise InvalidParams(BAD_ARGUMENT)


def validator_methods(reads: ValidatorReads) -> dict[str, ServiceHandler]:
    return {
        "platform.getCurrentValidators": reads.get_current_validators,
        "platform.getValidatorsAt": reads.get_validators_at,
        "platform.getL1Validator": reads.get_l1_validator,
        "platform.getCurrentSupply": reads.get_current_supply,
    }
