"""The custom EVM's genesis JSON (data-api.md's "EVM genesis data", the bytes a CreateChainTx
carries) to a chain config with SubnetEvmRules, and back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.chains.evm.genesis import Allocation, ChainConfig
from snowfield.chains.evm.precompiles import registry
from snowfield.chains.evm.precompiles.module import PrecompileConfig
from snowfield.chains.evm.rules.subnetevm import SubnetEvmRules
from snowfield.errors import InvalidParams

MAX_GENESIS_BYTES = 1 << 20  # the P-Chain bounds a CreateChainTx's genesis far below this


@dataclass(frozen=True, slots=True)
class CustomGenesis:
    """A parsed genesis: the chain config (with its rules) and the genesis block's time."""

    config: ChainConfig
    timestamp: int


def parse_genesis(data: bytes | str, alias: str = "") -> CustomGenesis:
    """The chain a genesis JSON describes; InvalidParams with the reason when it is bad."""
    if len(data) > MAX_GENESIS_BYTES:
        raise InvalidParams(f"genesis of {len(data)} bytes exceeds {MAX_GENESIS_BYTES}")
    try:
        genesis = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidParams(f"invalid genesis JSON: {exc}") from None
    if not isinstance(genesis, dict) or not isinstance(genesis.get("config"), dict):
        raise InvalidParams("invalid genesis: missing config")
    config = genesis["config"]
    chain_id = config.get("chainId")
    if isinstance(chain_id, bool) or not isinstance(chain_id, int) or chain_id <= 0:
        raise InvalidParams("invalid genesis: config.chainId must be a positive integer")
    fee = FeeConfig.from_json(config.get("feeConfig", FeeConfig().as_json()))
    gas_limit = _quantity(genesis.get("gasLimit", hex(fee.gas_limit)), "gasLimit")
    if gas_limit != fee.gas_limit:
        raise InvalidParams(
            f"gas limit in genesis ({gas_limit}) does not match fee config gasLimit "
            f"({fee.gas_limit})"
        )
    allow = config.get("allowFeeRecipients", False)
    if not isinstance(allow, bool):
        raise InvalidParams("invalid genesis: config.allowFeeRecipients must be a boolean")
    at_genesis = [
        registry.parse_config(m.key, config[m.key]) for m in registry.modules() if m.key in config
    ]
    upgrades = _upgrades(config.get("upgrades"))
    base_fee = genesis.get("baseFeePerGas")
    rules = SubnetEvmRules(
        fee_config=fee,
        allow_fee_recipients=allow,
        precompile_configs=(*sorted(at_genesis, key=lambda c: c.timestamp), *upgrades),
        genesis_precompiles=len(at_genesis),
    )
    chain = ChainConfig(
        chain_id=chain_id,
        gas_limit=fee.gas_limit,
        min_base_fee=fee.min_base_fee if base_fee is None else _quantity(base_fee, "baseFee"),
        alias=alias or str(chain_id),
        alloc=_alloc(genesis.get("alloc") or {}),
        rules=rules,
    )
    return CustomGenesis(chain, _quantity(genesis.get("timestamp", "0x0"), "timestamp"))


def _upgrades(upgrades: Any) -> tuple[PrecompileConfig, ...]:
    """precompileUpgrades: one config per entry, in non-decreasing timestamp order."""
    if upgrades is None:
        return ()
    entries = upgrades.get("precompileUpgrades", []) if isinstance(upgrades, dict) else None
    if not isinstance(entries, list):
        raise InvalidParams("invalid upgrades: precompileUpgrades must be an array")
    out: list[PrecompileConfig] = []
    for entry in entries:
        if not isinstance(entry, dict) or len(entry) != 1:
            raise InvalidParams("invalid precompile upgrade: exactly one config per entry")
        ((key, body),) = entry.items()
        parsed = registry.parse_config(key, body)
        if out and parsed.timestamp < out[-1].timestamp:
            raise InvalidParams(
                f"config block timestamp ({parsed.timestamp}) < previous timestamp "
                f"({out[-1].timestamp})"
            )
        out.append(parsed)
    return tuple(out)


def _alloc(alloc: Any) -> tuple[Allocation, ...]:
    if not isinstance(alloc, dict):
        raise InvalidParams("invalid genesis: alloc must be an object")
    out = []
    for address, account in alloc.items():
        raw = address.removeprefix("0x")
        if len(raw) != 40 or not isinstance(account, dict):
            raise InvalidParams(f"invalid genesis alloc entry: {address}")
        try:
            key = bytes.fromhex(raw)
            code = bytes.fromhex(account.get("code", "0x").removeprefix("0x"))
        except ValueError:
            raise InvalidParams(f"invalid genesis alloc entry: {address}") from None
        storage = tuple(
            (_quantity(k, "storage key"), _quantity(v, "storage value"))
            for k, v in (account.get("storage") or {}).items()
        )
        out.append(
            Allocation(key, _quantity(account.get("balance", "0x0"), "balance"), code, storage)
        )
    return tuple(out)


def _quantity(value: Any, name: str) -> int:
    """geth's HexOrDecimal: "0x…" hex or a decimal string or number."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str):
        try:
            number = int(value, 16) if value[:2] in ("0x", "0X") else int(value, 10)
        except ValueError:
            number = -1
        if number >= 0:
            return number
    raise InvalidParams(f"invalid genesis: {name} {value!r} is not a quantity")


def genesis_json(
    chain_id: int,
    alloc: dict[bytes, int],
    *,
    fee: FeeConfig | None = None,
    precompiles: dict[str, dict[str, Any]] | None = None,
    upgrades: list[dict[str, Any]] | None = None,
    allow_fee_recipients: bool = False,
    timestamp: int = 0,
) -> bytes:
    """A custom EVM genesis in data-api.md's shape (what a CreateChainTx carries)."""
    fee = fee or FeeConfig()
    config: dict[str, Any] = {
        "chainId": chain_id,
        "homesteadBlock": 0,
        "eip150Block": 0,
        "eip155Block": 0,
        "eip158Block": 0,
        "byzantiumBlock": 0,
        "constantinopleBlock": 0,
        "petersburgBlock": 0,
        "istanbulBlock": 0,
        "muirGlacierBlock": 0,
        "berlinBlock": 0,
        "londonBlock": 0,
        "customEVMTimestamp": 0,
        "feeConfig": fee.as_json(),
        "allowFeeRecipients": allow_fee_recipients,
        **(precompiles or {}),
    }
    if upgrades:
        config["upgrades"] = {"precompileUpgrades": upgrades}
    body = {
        "config": config,
        "alloc": {a.hex(): {"balance": hex(v)} for a, v in alloc.items()},
        "nonce": "0x0",
        "timestamp": hex(timestamp),
        "extraData": "0x",
        "gasLimit": hex(fee.gas_limit),
        "difficulty": "0x0",
        "mixHash": "0x" + "00" * 32,
        "coinbase": "0x" + "00" * 20,
        "number": "0x0",
        "gasUsed": "0x0",
        "parentHash": "0x" + "00" * 32,
    }
    return json.dumps(body).encode()
