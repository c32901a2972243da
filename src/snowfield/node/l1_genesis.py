"""The custom EVM's genesis JSON (the bytes a CreateChainTx carries): the chain id, gas
limit, timestamp and allocation an L1 of the devnet starts from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from snowfield.chains.evm.genesis import Allocation
from snowfield.errors import InvalidParams

# subnet-evm's default fee config gas limit, used when the genesis names none.
DEFAULT_GAS_LIMIT = 8_000_000
# Bounds a genesis that a CreateChainTx could still carry (a P tx is at most 64 KiB) but that
# would take the node long to load.
MAX_ALLOCATIONS = 10_000
MAX_STORAGE_SLOTS = 10_000


@dataclass(frozen=True, slots=True)
class EvmGenesis:
    chain_id: int
    gas_limit: int
    timestamp: int
    alloc: tuple[Allocation, ...]


def parse_evm_genesis(data: bytes) -> EvmGenesis:
    """Reads the genesis JSON; InvalidParams names what is wrong."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InvalidParams(f"genesis is not JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict):
        raise InvalidParams("genesis must be an object with a config object")
    config = doc["config"]
    chain_id = config.get("chainId")
    if not isinstance(chain_id, int) or isinstance(chain_id, bool) or not 0 < chain_id < 2**63:
        raise InvalidParams("genesis config.chainId must be a positive integer")
    fee_config = config.get("feeConfig")
    fee_limit = fee_config.get("gasLimit") if isinstance(fee_config, dict) else None
    gas_limit = _quantity(doc.get("gasLimit", fee_limit or DEFAULT_GAS_LIMIT), "gasLimit")
    if not 21_000 <= gas_limit <= 2**63:
        raise InvalidParams("genesis gasLimit must be at least 21000")
    alloc = doc.get("alloc") or {}
    if not isinstance(alloc, dict) or len(alloc) > MAX_ALLOCATIONS:
        raise InvalidParams(f"genesis alloc must be a map of at most {MAX_ALLOCATIONS} accounts")
    return EvmGenesis(
        chain_id=chain_id,
        gas_limit=gas_limit,
        timestamp=_quantity(doc.get("timestamp", 0), "timestamp"),
        alloc=tuple(_allocation(k, v) for k, v in alloc.items()),
    )


def _allocation(address: str, account: Any) -> Allocation:
    raw = _hex_bytes(address, "alloc address")
    if len(raw) != 20 or not isinstance(account, dict):
        raise InvalidParams(f"genesis alloc {address!r} must map a 20-byte address to an account")
    storage = account.get("storage") or {}
    if not isinstance(storage, dict) or len(storage) > MAX_STORAGE_SLOTS:
        raise InvalidParams(f"genesis alloc {address!r} storage must be a map")
    return Allocation(
        address=raw,
        balance=_quantity(account.get("balance", "0x0"), "balance"),
        code=_hex_bytes(account.get("code", "0x"), "code"),
        storage=tuple(
            (_quantity(k, "storage key"), _quantity(v, "storage value")) for k, v in storage.items()
        ),
    )


def _quantity(value: Any, what: str) -> int:
    """A hex string, a decimal string or an integer, as geth's genesis decoding takes it."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and 0 < len(value) <= 80 and value.isascii():
        try:
            number = int(value, 16) if value[:2] in ("0x", "0X") else int(value, 10)
        except ValueError:
            number = -1
        if 0 <= number < 2**256:
            return number
    raise InvalidParams(f"genesis {what} must be a non-negative quantity")


def _hex_bytes(value: Any, what: str) -> bytes:
    if isinstance(value, str):
        text = value[2:] if value[:2] in ("0x", "0X") else value
        try:
            return bytes.fromhex(text)
        except ValueError:
            pass
    raise InvalidParams(f"genesis {what} must be hex")


def default_evm_genesis(
    chain_id: int, gas_limit: int, timestamp: int, alloc: tuple[Allocation, ...]
) -> bytes:
    """The genesis `--l1 NAME` gives an L1 without a file: the custom EVM's default fee config
    at the devnet's gas limit, and the dev accounts funded."""
    fee_config = {
        "gasLimit": gas_limit,
        "targetBlockRate": 2,
        "minBaseFee": 25_000_000_000,
        "targetGas": 15_000_000,
        "baseFeeChangeDenominator": 36,
        "minBlockGasCost": 0,
        "maxBlockGasCost": 1_000_000,
        "blockGasCostStep": 200_000,
    }
    config = {
        "chainId": chain_id,
        **dict.fromkeys(_FORK_BLOCKS, 0),
        "feeConfig": fee_config,
        "allowFeeRecipients": False,
        "warpConfig": {"blockTimestamp": timestamp, "quorumNumerator": 67},
    }
    return orjson.dumps(
        {
            "config": config,
            "alloc": {a.address.hex(): {"balance": hex(a.balance)} for a in alloc},
            "nonce": "0x0",
            "timestamp": hex(timestamp),
            "extraData": "0x",
            "gasLimit": hex(gas_limit),
            "difficulty": "0x0",
            "mixHash": "0x" + "00" * 32,
            "coinbase": "0x" + "00" * 20,
            "number": "0x0",
            "gasUsed": "0x0",
            "parentHash": "0x" + "00" * 32,
        }
    )


_FORK_BLOCKS = (
    "homesteadBlock",
    "eip150Block",
    "eip155Block",
    "eip158Block",
    "byzantiumBlock",
    "constantinopleBlock",
    "petersburgBlock",
    "istanbulBlock",
    "muirGlacierBlock",
)
