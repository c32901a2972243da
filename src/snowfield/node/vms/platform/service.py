"""platform.* at /ext/bc/P: the P-Chain's gorilla service in avalanchego's shapes (u64s as
decimal strings, fee endpoints as plain numbers, bytes as checked hex, `P-<hrp>1…` addresses)."""

from __future__ import annotations

from typing import Any

from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.gas import calculate_price
from snowfield.errors import Conflict, InvalidParams, NotFound
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.codec import Packer
from snowfield.formats.hexcheck import (
    Encoding,
    decode,
    encode,
    encode_hexnc,
    parse_encoding,
    wants_json,
)
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, ShortID
from snowfield.formats.platform import rendering
from snowfield.formats.platform.avax_json import JsonContext
from snowfield.formats.platform.blocks import decode_block
from snowfield.formats.platform.components import UTXO, TransferableOutput
from snowfield.formats.platform.txs import Tx
from snowfield.formats.timefmt import format_rfc3339
from snowfield.node.gorilla_params import Params, chain_address
from snowfield.node.registry import ChainIds
from snowfield.node.utxo_paging import checked_count, empty_end, page_limit, utxo_page
from snowfield.node.vms.platform.runtime import PlatformRuntime
from snowfield.node.vms.platform.validator_reads import ValidatorReads, validator_methods
from snowfield.rpc.service import ServiceHandler

MAX_STAKE_ADDRESSES = 256  # platformvm's maxGetStakeAddrs
P_ALIASES = ("P", "platform", str(P_CHAIN_ID))
_PLURAL = {
    "balance": "balances",
    "unlocked": "unlockeds",
    "lockedStakeable": "lockedStakeables",
    "lockedNotStakeable": "lockedNotStakeables",
}


class PlatformService:
    """The handlers of platform.*, over one hosted P-Chain."""

    def __init__(self, runtime: PlatformRuntime, network_id: int, chain_ids: ChainIds) -> None:
        self.runtime = runtime
        self.hrp = hrp_for_network(network_id)
        self.json_context = JsonContext(network_id, "P")
        self.chain_ids = chain_ids

    @property
    def chain(self) -> PlatformChain:
        return self.runtime.chain

    def address(self, text: str) -> ShortID:
        return chain_address(text, P_ALIASES, self.hrp)

    def format(self, address: ShortID | bytes) -> str:
        raw = address.raw if isinstance(address, ShortID) else address
        return format_address("P", self.hrp, raw)

    def addresses(self, params: Params) -> list[ShortID]:
        return [self.address(t) for t in checked_count(params.strings("addresses"))]

    # --- UTXOs and txs ---------------------------------------------------------------------

    def get_utxos(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        addresses = self.addresses(params)
        encoding = parse_encoding(params.get("encoding"))
        limit = page_limit(params.uint("limit"))
        start = params.nested("startIndex")
        source = params.string("sourceChain")
        if source and self._chain_id(source) != P_CHAIN_ID:
            return self._atomic_utxos(addresses, self._chain_id(source), start, limit, encoding)
        cursor = self._cursor(start)
        utxos, last = self.chain.utxos(addresses, cursor, limit)
        end = {"address": self.format(last[0]), "utxo": str(last[1])} if last else empty_end()
        return utxo_page([u.encode() for u in utxos], end, encoding)

    def _atomic_utxos(
        self,
        addresses: list[ShortID],
        source: ID,
        start: Params | None,
        limit: int,
        encoding: Encoding,
    ) -> dict[str, Any]:
        cursor = self._cursor(start)
        after = (cursor[0].raw, cursor[1].raw) if cursor else None
        page = self.chain.atomic_utxos(source, addresses, after, limit)
        end = empty_end()
        if page:
            trait, element = page[-1]
            end = {"address": self.format(trait), "utxo": str(UTXO.decode(element.value).id)}
        return utxo_page([e.value for _, e in page], end, encoding)

    def _cursor(self, start: Params | None) -> tuple[ShortID, ID] | None:
        if start is None or not start.string("address"):
            return None
        return self.address(start.string("address")), start.id("utxo")

    def _chain_id(self, name: str) -> ID:
        blockchain_id = self.chain_ids(name)
        if blockchain_id is None:
            try:
                return ID.from_string(name)
            except InvalidParams:
                raise InvalidParams(f"problem parsing source chainID {name!r}") from None
        return ID.from_string(blockchain_id)

    async def issue_tx(self, raw: dict[str, Any]) -> dict[str, str]:
        # avalanchego's three stages and their wrappings (platformvm/service.go IssueTx)
        params = Params(raw)
        encoding = parse_encoding(params.get("encoding"))
        try:
            data = decode(params.string("tx"), encoding)
        except InvalidParams as err:
            raise InvalidParams(f"problem decoding transaction: {err.message}") from None
        try:
            tx = Tx.decode(data)
        except InvalidParams as err:
            raise InvalidParams(f"couldn't parse tx: {err.message}") from None
        try:
            return {"txID": str(await self.runtime.issue_in_block(tx))}
        except (InvalidParams, Conflict) as err:
            raise type(err)(f"couldn't issue tx: {err.message}") from None

    def get_tx_status(self, raw: dict[str, Any]) -> dict[str, str]:
        status, reason = self.chain.tx_status(Params(raw).id("txID"))
        return {"status": str(status), **({"reason": reason} if reason else {})}

    def get_tx(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        asked = params.get("encoding")
        encoding = None if wants_json(asked) else parse_encoding(asked)
        tx = self.chain.tx(params.id("txID"))
        if tx is None:
            raise InvalidParams("not found")
        if encoding is None:
            return {"tx": rendering.tx_json(tx, self.json_context), "encoding": "json"}
        return {"tx": encode(tx.encode(), encoding), "encoding": str(encoding)}

    # --- fees, balances, chain state -------------------------------------------------------

    def get_fee_config(self, _: dict[str, Any]) -> dict[str, Any]:
        fees = self.chain.fee_config
        return {
            "weights": list(fees.weights),
            "maxCapacity": fees.max_capacity,
            "maxPerSecond": fees.max_per_second,
            "targetPerSecond": fees.target_per_second,
            "minPrice": fees.min_price,
            "excessConversionConstant": fees.excess_conversion_constant,
        }

    def get_fee_state(self, _: dict[str, Any]) -> dict[str, Any]:
        # The real node reports its last accepted block's state and relies on a steady flow of
        # blocks to refill capacity; the devnet builds blocks only when txs come, so it reports
        # the state of the next block (capacity refilled up to now), which issueTx verifies with.
        now = max(self.runtime.now(), self.chain.timestamp)
        state, price = self.chain.fee_state_at(now)
        return {
            "capacity": state.capacity,
            "excess": state.excess,
            "price": price,
            "timestamp": _time(now),
        }

    def get_validator_fee_config(self, _: dict[str, Any]) -> dict[str, Any]:
        """validators/fee.Config: what each active L1 validator pays per second."""
        fees = self.chain.state.params.validator_fees
        return {
            "capacity": fees.capacity,
            "target": fees.target,
            "minPrice": fees.min_price,
            "excessConversionConstant": fees.excess_conversion_constant,
        }

    def get_validator_fee_state(self, _: dict[str, Any]) -> dict[str, Any]:
        """The last accepted block's L1 validator fee excess and the price it sets."""
        fees, state = self.chain.state.params.validator_fees, self.chain.validator_fee_state
        price = calculate_price(fees.min_price, state.excess, fees.excess_conversion_constant)
        return {"excess": state.excess, "price": price, "timestamp": _time(self.chain.timestamp)}

    def get_balance(self, raw: dict[str, Any]) -> dict[str, Any]:
        balance = self.chain.balance(self.addresses(Params(raw)))
        asset = str(self.chain.state.avax_asset_id)
        amounts = {
            "balance": balance.total,
            "unlocked": balance.unlocked,
            "lockedStakeable": balance.locked_stakeable,
            "lockedNotStakeable": balance.locked_not_stakeable,
        }
        ids = [
            {"txID": str(u.utxo_id.tx_id), "outputIndex": u.utxo_id.output_index}
            for u in balance.utxos
        ]
        return {
            **{key: str(value) for key, value in amounts.items()},
            **{_PLURAL[key]: {asset: str(value)} for key, value in amounts.items()},
            "utxoIDs": ids or None,
        }

    def get_height(self, _: dict[str, Any]) -> dict[str, str]:
        return {"height": str(self.runtime.blocks.last.height)}

    def get_block(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        asked = params.get("encoding")
        encoding = None if wants_json(asked) else parse_encoding(asked)
        block_id = params.id("blockID")
        found = self.runtime.blocks.by_inner_id(block_id)
        if found is None:
            raise InvalidParams(f"couldn't get block with id {block_id}: not found")
        return self._block(found.inner, encoding)

    def get_block_by_height(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        asked = params.get("encoding")
        encoding = None if wants_json(asked) else parse_encoding(asked)
        height = params.uint("height")
        if height > self.runtime.blocks.last_height():
            raise InvalidParams(f"couldn't get block at height {height}: not found")
        return self._block(self.runtime.blocks.at(height).inner, encoding)

    def _block(self, inner: bytes, encoding: Encoding | None) -> dict[str, Any]:
        if encoding is None:
            block = rendering.block_json(decode_block(inner), self.json_context)
            return {"block": block, "encoding": "json"}
        return {"block": encode(inner, encoding), "encoding": str(encoding)}

    def get_timestamp(self, _: dict[str, Any]) -> dict[str, str]:
        return {"timestamp": _time(self.chain.timestamp)}

    def get_staking_asset_id(self, _: dict[str, Any]) -> dict[str, str]:
        return {"assetID": str(self.chain.state.avax_asset_id)}

    def get_min_stake(self, _: dict[str, Any]) -> dict[str, str]:
        staking = self.chain.state.params.staking
        return {
            "minValidatorStake": str(staking.min_validator_stake),
            "minDelegatorStake": str(staking.min_delegator_stake),
        }

    def get_blockchains(self, _: dict[str, Any]) -> dict[str, Any]:
        return {
            "blockchains": [
                {
                    "id": str(c.blockchain_id),
                    "name": c.name,
                    "subnetID": str(c.subnet_id),
                    "vmID": str(c.vm_id),
                }
                for c in self.chain.blockchains()
            ]
        }

    def get_subnets(self, raw: dict[str, Any]) -> dict[str, Any]:
        wanted = {ID.from_string(t) for t in Params(raw).strings("ids")}
        primary = {"id": str(PRIMARY_NETWORK_ID), "controlKeys": [], "threshold": "0"}
        subnets = [
            {
                "id": str(s.subnet_id),
                "controlKeys": [self.format(a) for a in s.owner.addresses],
                "threshold": str(s.owner.threshold),
            }
            for s in self.chain.subnets()
            if not wanted or s.subnet_id in wanted
        ]
        first = [primary] if not wanted or PRIMARY_NETWORK_ID in wanted else []
        return {"subnets": first + subnets}

    def get_subnet(self, raw: dict[str, Any]) -> dict[str, Any]:
        subnet_id = Params(raw).id("subnetID")
        if subnet_id == PRIMARY_NETWORK_ID:
            raise InvalidParams("the primary network isn't a subnet")
        subnet = self.chain.subnet(subnet_id)
        empty = str(ID(bytes(32)))
        converted = subnet.conversion_id is not None
        return {
            "isPermissioned": not converted,
            "controlKeys": [self.format(a) for a in subnet.owner.addresses],
            "threshold": str(subnet.owner.threshold),
            "locktime": str(subnet.owner.locktime),
            "subnetTransformationTxID": empty,  # TransformSubnetTx is refused post-Etna
            "conversionID": str(subnet.conversion_id) if converted else empty,
            "managerChainID": str(subnet.manager_chain_id) if converted else empty,
            "managerAddress": encode_hexnc(subnet.manager_address or b"") if converted else None,
        }

    def get_reward_utxos(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        encoding = parse_encoding(params.get("encoding"))
        utxos = self.chain.reward_utxos(params.id("txID"))
        return {
            "numFetched": str(len(utxos)),
            "utxos": [encode(u.encode(), encoding) for u in utxos],
            "encoding": str(encoding),
        }

    def get_stake(self, raw: dict[str, Any]) -> dict[str, Any]:
        params = Params(raw)
        texts = params.strings("addresses")
        if len(texts) > MAX_STAKE_ADDRESSES:
            raise InvalidParams(
                f"{len(texts)} addresses provided but this method can take at most "
                f"{MAX_STAKE_ADDRESSES}"
            )
        encoding = parse_encoding(params.get("encoding"))
        staked, outputs = self.chain.stake_of([self.address(t) for t in texts])
        asset = str(self.chain.state.avax_asset_id)
        return {
            "staked": str(staked),
            "stakeds": {asset: str(staked)} if staked else {},
            "stakedOutputs": [encode(_output_bytes(out), encoding) for out in outputs],
            "encoding": str(encoding),
        }

    def get_total_stake(self, raw: dict[str, Any]) -> dict[str, str]:
        params = Params(raw)
        subnet = params.id("subnetID") if params.string("subnetID") else PRIMARY_NETWORK_ID
        weights = self.chain.validators_at(self.chain.height, subnet)
        total = str(sum(weight for weight, _ in weights.values()))
        return {"stake": total, "weight": total}

    def validated_by(self, raw: dict[str, Any]) -> dict[str, str]:
        blockchain_id = Params(raw).id("blockchainID")
        return {"subnetID": str(self._subnet_of(blockchain_id))}

    def _subnet_of(self, blockchain_id: ID) -> ID:
        for chain in self.chain.blockchains():
            if chain.blockchain_id == blockchain_id:
                return chain.subnet_id
        if blockchain_id == P_CHAIN_ID or self.chain_ids(str(blockchain_id)) is not None:
            return PRIMARY_NETWORK_ID  # the network's own chains
        raise InvalidParams(f"problem retrieving blockchain {str(blockchain_id)!r}: not found")

    def validates(self, raw: dict[str, Any]) -> dict[str, Any]:
        subnet_id = Params(raw).id("subnetID")
        if subnet_id != PRIMARY_NETWORK_ID:
            try:
                self.chain.subnet(subnet_id)
            except (InvalidParams, NotFound):
                raise InvalidParams(f'problem retrieving subnet "{subnet_id}": not found') from None
        chains = [
            str(c.blockchain_id) for c in self.chain.blockchains() if c.subnet_id == subnet_id
        ]
        return {"blockchainIDs": chains}

    def get_blockchain_status(self, raw: dict[str, Any]) -> dict[str, str]:
        name = Params(raw).string("blockchainID")
        if not name:
            raise InvalidParams("argument 'blockchainID' not given")
        if self.chain_ids(name) is not None:  # hosted here: this node validates its subnet
            return {"status": "Validating"}
        try:
            blockchain_id = ID.from_string(name)
        except InvalidParams as err:
            raise InvalidParams(f"problem parsing blockchainID {name!r}: {err.message}") from None
        known = any(c.blockchain_id == blockchain_id for c in self.chain.blockchains())
        return {"status": "Created" if known else "Unknown"}


def _output_bytes(output: TransferableOutput) -> bytes:
    """A TransferableOutput as getStake encodes it: codec version, then the struct."""
    packer = Packer().u16(0)
    output.pack(packer)
    return packer.to_bytes()


def _time(unix_seconds: int) -> str:
    return format_rfc3339(unix_seconds * 1_000_000_000)


def platform_methods(
    runtime: PlatformRuntime, network_id: int, chain_ids: ChainIds
) -> dict[str, ServiceHandler]:
    """platform.* by wire name."""
    service = PlatformService(runtime, network_id, chain_ids)
    reads = ValidatorReads(lambda: runtime.chain, service.format)
    methods: dict[str, ServiceHandler] = {
        "platform.getUTXOs": service.get_utxos,
        "platform.issueTx": service.issue_tx,
        "platform.getTxStatus": service.get_tx_status,
        "platform.getTx": service.get_tx,
        "platform.getFeeConfig": service.get_fee_config,
        "platform.getFeeState": service.get_fee_state,
        "platform.getValidatorFeeConfig": service.get_validator_fee_config,
        "platform.getValidatorFeeState": service.get_validator_fee_state,
        "platform.getBalance": service.get_balance,
        "platform.getHeight": service.get_height,
        "platform.getTimestamp": service.get_timestamp,
        "platform.getBlock": service.get_block,
        "platform.getBlockByHeight": service.get_block_by_height,
        "platform.getStakingAssetID": service.get_staking_asset_id,
        "platform.getMinStake": service.get_min_stake,
        "platform.getBlockchains": service.get_blockchains,
        "platform.getSubnets": service.get_subnets,
        "platform.getSubnet": service.get_subnet,
        "platform.getRewardUTXOs": service.get_reward_utxos,
        "platform.getStake": service.get_stake,
        "platform.getTotalStake": service.get_total_stake,
        "platform.validatedBy": service.validated_by,
        "platform.validates": service.validates,
        "platform.getBlockchainStatus": service.get_blockchain_status,
    }
    # The validator reads in avalanchego's full shapes (signer, owners, delegators when one
    # node is asked for, L1 validators) and getValidatorsAt.
    return methods | validator_methods(reads)
