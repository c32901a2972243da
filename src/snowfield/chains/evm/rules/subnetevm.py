"""The custom EVM's rules (subnet-evm): its header, fee config, block gas cost and precompiles."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from snowfield.chains.evm import feeconfig
from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.chains.evm.fees import BLACKHOLE
from snowfield.chains.evm.model import (
    EMPTY_EXT_DATA_HASH,
    EMPTY_UNCLE_HASH,
    Header,
    Receipt,
    SubnetEvmHeader,
    Tx,
)
from snowfield.chains.evm.precompiles import registry
from snowfield.chains.evm.precompiles.abi import checksummed
from snowfield.chains.evm.precompiles.allowlist import Role, role_of
from snowfield.chains.evm.precompiles.base import StatefulPrecompile
from snowfield.chains.evm.precompiles.deployerallowlist import DEPLOYER_ALLOW_LIST
from snowfield.chains.evm.precompiles.feemanager import FEE_MANAGER, stored_fee_config
from snowfield.chains.evm.precompiles.module import ActivationContext, PrecompileConfig
from snowfield.chains.evm.precompiles.rewardmanager import REWARD_MANAGER, reward_address
from snowfield.chains.evm.precompiles.txallowlist import TX_ALLOW_LIST
from snowfield.chains.evm.precompiles.warp import warp_config
from snowfield.chains.evm.rules.base import EvmRules, HeaderFields, StorageView
from snowfield.chains.evm.warp import WARP_ADDRESS, WarpConfig
from snowfield.formats.warp.predicate import encode_results

_ETH_BLOCKS = (
    "homesteadBlock",
    "eip150Block",
    "eip155Block",
    "eip158Block",
    "byzantiumBlock",
    "constantinopleBlock",
    "petersburgBlock",
    "istanbulBlock",
    "muirGlacierBlock",
    "berlinBlock",
    "londonBlock",
)
_UPGRADE_TIMES = ("customEVMTimestamp", "durangoTimestamp", "etnaTimestamp", "fortunaTimestamp")
_ETH_RULES = (
    "IsHomestead",
    "IsEIP150",
    "IsEIP155",
    "IsEIP158",
    "IsByzantium",
    "IsConstantinople",
    "IsPetersburg",
    "IsIstanbul",
    "IsCancun",
)


@dataclasses.dataclass(frozen=True, slots=True)
class SubnetEvmRules(EvmRules):
    """subnet-evm after Etna, before Granite: the fee window in header.Extra, a block gas
    cost paid by tips, precompiles from genesis and upgrades."""

    fee_config: FeeConfig = dataclasses.field(default_factory=FeeConfig)
    allow_fee_recipients: bool = False
    # Genesis precompiles then precompileUpgrades, in activation order.
    precompile_configs: tuple[PrecompileConfig, ...] = ()
    # How many of `precompile_configs` come from the genesis (the rest are upgrades).
    genesis_precompiles: int = 0
    name = "subnet-evm"
    header_type = SubnetEvmHeader
    block_fee_applies = True

    # -- headers and fees ------------------------------------------------------------------

    def genesis_header(self, fields: HeaderFields) -> Header:
        return self._header(fields, b"", 0)

    def build_header(self, parent: Header, fields: HeaderFields) -> Header:
        elapsed = max(fields.timestamp - parent.timestamp, 0)
        window = feeconfig.next_window(parent.number, parent.extra_data, parent.gas_used, elapsed)
        # After Durango the predicate results follow the fee window, even when empty.
        results = fields.predicate_results or encode_results({})
        return self._header(
            fields,
            feeconfig.window_bytes(window) + results,
            self.block_gas_cost(parent, fields.timestamp),
        )

    def block_gas_cost(self, parent: Header, timestamp: int, fee: FeeConfig | None = None) -> int:
        fee = fee or self.fee_config
        return feeconfig.block_gas_cost(
            fee, parent.block_gas_cost, max(timestamp - parent.timestamp, 0)
        )

    def _header(self, fields: HeaderFields, extra: bytes, cost: int) -> Header:
        return SubnetEvmHeader(
            parent_hash=fields.parent_hash,
            uncle_hash=EMPTY_UNCLE_HASH,
            coinbase=fields.coinbase,
            state_root=fields.state_root,
            tx_root=fields.tx_root,
            receipt_root=fields.receipt_root,
            bloom=fields.bloom,
            difficulty=fields.difficulty,
            number=fields.number,
            gas_limit=fields.gas_limit,
            gas_used=fields.gas_used,
            timestamp=fields.timestamp,
            extra_data=extra,
            mix_hash=fields.mix_hash,
            nonce=bytes(8),
            ext_data_hash=EMPTY_EXT_DATA_HASH,
            base_fee=fields.base_fee,
            ext_data_gas_used=0,
            block_gas_cost=cost,
            blob_gas_used=0,
            excess_blob_gas=0,
            parent_beacon_root=b"\x00" * 32,
        )

    def fee_config_at(self, state: StorageView, timestamp: int) -> tuple[FeeConfig, int]:
        """The fee config in force after a block at `timestamp` with state `state`, and the
        block that last changed it (GetFeeConfigAt: the fee manager's, when active)."""
        if not self.is_active(FEE_MANAGER, timestamp):
            return self.fee_config, 0
        return stored_fee_config(state)

    def next_base_fee(self, parent: Header, timestamp: int, state: StorageView) -> int:
        fee, _ = self.fee_config_at(state, parent.timestamp)
        return feeconfig.base_fee(
            fee,
            parent.number,
            parent.base_fee,
            parent.extra_data,
            parent.gas_used,
            max(timestamp - parent.timestamp, 0),
        )

    def gas_limit(self, requested: int, state: StorageView, parent_timestamp: int) -> int:
        # The fee config in force fixes the gas limit (the producer has no say).
        return self.fee_config_at(state, parent_timestamp)[0].gas_limit

    def coinbase(self, requested: bytes, state: StorageView, timestamp: int) -> bytes:
        if self.is_active(REWARD_MANAGER, timestamp):
            return reward_address(state, requested)
        if self.allow_fee_recipients:
            return requested
        return BLACKHOLE

    def block_fee_error(
        self, header: Header, txs: Sequence[Tx], receipts: Sequence[Receipt]
    ) -> str | None:
        tips = sum(
            tx.tip(header.base_fee) * r.gas_used for tx, r in zip(txs, receipts, strict=True)
        )
        bought = feeconfig.block_fee_shortfall(header.base_fee, header.block_gas_cost, tips)
        if bought is None:
            return None
        return (
            f"insufficient gas to cover the block cost: expected {header.block_gas_cost} "
            f"but got {bought}"
        )

    # -- precompiles -----------------------------------------------------------------------

    def config_at(self, address: bytes, timestamp: int) -> PrecompileConfig | None:
        """The latest config of the precompile at `address` activated by `timestamp`."""
        latest = None
        for config in self.precompile_configs:
            if config.timestamp <= timestamp and registry.module(config.key).address == address:
                latest = config
        return latest

    def is_active(self, address: bytes, timestamp: int) -> bool:
        config = self.config_at(address, timestamp)
        return config is not None and not config.disable

    def warp_config(self, timestamp: int) -> WarpConfig | None:
        config = self.config_at(WARP_ADDRESS, timestamp)
        return warp_config(config) if config is not None and not config.disable else None

    def predicate_results(self, header: Header) -> bytes:
        return header.extra_data[feeconfig.WINDOW_SIZE :]

    def precompiles(self, timestamp: int) -> Mapping[bytes, StatefulPrecompile]:
        out: dict[bytes, StatefulPrecompile] = {}
        for found in registry.modules():
            if self.is_active(found.address, timestamp):
                out[found.address] = found.contract
        return out

    def activations(self, after: int | None, until: int) -> list[PrecompileConfig]:
        """Configs taking effect in a block at `until` after one at `after` (None: genesis)."""
        return [
            c
            for c in self.precompile_configs
            if c.timestamp <= until and (after is None or c.timestamp > after)
        ]

    def create_check(self, timestamp: int) -> Callable[[Any, bytes], str | None] | None:
        if not self.is_active(DEPLOYER_ALLOW_LIST, timestamp):
            return None
        key = DEPLOYER_ALLOW_LIST

        def check(state: Any, origin: bytes) -> str | None:
            value = int(state.get_storage(key, int.from_bytes(origin, "big")))
            if value in (Role.ENABLED, Role.ADMIN, Role.MANAGER):
                return None
            return f"tx.origin {checksummed(origin)} is not authorized to deploy a contract"

        return check

    def on_block_start(
        self, state: Any, parent_timestamp: int | None, number: int, timestamp: int
    ) -> None:
        """ApplyPrecompileActivations: a disabled precompile's account is removed; an
        activated one is configured and given nonce 1 and code 0x01 (so Solidity's
        extcodesize check passes)."""
        ctx = ActivationContext(
            number,
            timestamp,
            {"feeConfig": self.fee_config, "allowFeeRecipients": self.allow_fee_recipients},
        )
        for config in self.activations(parent_timestamp, timestamp):
            found = registry.module(config.key)
            if config.disable:
                state.delete_account(found.address)
                continue
            found.configure(config, state, ctx)
            state.set_nonce(found.address, 1)
            state.set_code(found.address, b"\x01")

    def activations_between(self, parent_timestamp: int, timestamp: int) -> bool:
        return bool(self.activations(parent_timestamp, timestamp))

    def tx_error(self, state: StorageView, sender: bytes, timestamp: int) -> str | None:
        if (
            self.is_active(TX_ALLOW_LIST, timestamp)
            and not role_of(state, TX_ALLOW_LIST, sender).enabled
        ):
            return "cannot issue transaction from non-allow listed address: " + checksummed(sender)
        return None

    # -- config and rules ----------------------------------------------------------------

    def chain_config_json(self, chain_id: int) -> dict[str, Any]:
        """eth_getChainConfig: the chain config with the fee config, genesis precompiles
        and the upgrade config."""
        out: dict[str, Any] = {"chainId": chain_id}
        out.update(dict.fromkeys(_ETH_BLOCKS, 0))
        out["eip150Hash"] = "0x" + "00" * 32
        out["feeConfig"] = self.fee_config.as_json()
        out["allowFeeRecipients"] = self.allow_fee_recipients
        out.update(dict.fromkeys(_UPGRADE_TIMES, 0))
        for c in self.precompile_configs[: self.genesis_precompiles]:
            out[c.key] = c.as_json()
        upgrades = [
            {c.key: c.as_json()} for c in self.precompile_configs[self.genesis_precompiles :]
        ]
        out["upgrades"] = {"precompileUpgrades": upgrades} if upgrades else {}
        return out

    def active_rules_json(self, timestamp: int) -> dict[str, Any]:
        """eth_getActiveRulesAt: each active precompile's config key → {timestamp}."""
        active = self.enabled_configs(timestamp)
        return {
            "ethRules": dict.fromkeys(_ETH_RULES, True),
            "nativeRules": {"IsCustomEVM": True, "IsDurango": True, "IsEtna": True},
            "precompiles": {key: {"timestamp": c.timestamp} for key, c in active.items()},
        }

    def active_precompiles_json(self, timestamp: int) -> dict[str, Any]:
        """eth_getActivePrecompilesAt (EnabledStatefulPrecompiles): the active configs."""
        return {key: c.as_json() for key, c in self.enabled_configs(timestamp).items()}

    def enabled_configs(self, timestamp: int) -> dict[str, PrecompileConfig]:
        out: dict[str, PrecompileConfig] = {}
        for found in registry.modules():
            config = self.config_at(found.address, timestamp)
            if config is not None and not config.disable:
                out[found.key] = config
        return out
