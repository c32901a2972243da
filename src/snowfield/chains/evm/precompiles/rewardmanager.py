"""Reward manager (0x0200…0004): where block fees go — burned, a reward address, or the
block producer's (allowFeeRecipients)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from snowfield.chains.evm.precompiles import allowlist
from snowfield.chains.evm.precompiles.abi import address_arg, checksummed, selector, topic, word
from snowfield.chains.evm.precompiles.abi import words as unpack
from snowfield.chains.evm.precompiles.base import (
    LOG_GAS,
    LOG_TOPIC_GAS,
    READ_GAS_PER_SLOT,
    WRITE_GAS_PER_SLOT,
    FunctionTable,
    PrecompileEnv,
    PrecompileError,
)
from snowfield.chains.evm.precompiles.module import (
    ActivationContext,
    PrecompileConfig,
    PrecompileModule,
    StateWriter,
)
from snowfield.errors import InvalidParams

REWARD_MANAGER = bytes.fromhex("0200000000000000000000000000000000000004")
BLACKHOLE = bytes.fromhex("0100000000000000000000000000000000000000")
REWARD_KEY = int.from_bytes(b"rask".ljust(32, b"\x00"), "big")
ALLOW_FEE_RECIPIENTS = int.from_bytes(b"afrav".ljust(32, b"\x00"), "big")
WRITE_GAS = WRITE_GAS_PER_SLOT + READ_GAS_PER_SLOT
ALLOWED = topic("FeeRecipientsAllowed(address)")
CHANGED = topic("RewardAddressChanged(address,address,address)")
DISABLED = topic("RewardsDisabled(address)")


class StorageReader(Protocol):
    def storage(self, address: bytes, slot: int) -> int: ...


def reward_address(state: StorageReader, producer: bytes) -> bytes:
    """GetCoinbaseAt with the reward manager active: the producer's own address when fee
    recipients are allowed, else the stored reward address."""
    value = state.storage(REWARD_MANAGER, REWARD_KEY)
    if value == ALLOW_FEE_RECIPIENTS:
        return producer
    return (value & (2**160 - 1)).to_bytes(20, "big")


def _writer(
    name: str, event: Callable[[PrecompileEnv, int], tuple[tuple[bytes, ...], int]]
) -> Callable[[PrecompileEnv], bytes]:
    def run(env: PrecompileEnv) -> bytes:
        env.use_gas(WRITE_GAS)
        if env.read_only:
            raise PrecompileError("write protection")
        args = unpack(env.input[4:], 1) if name == "setRewardAddress" else []
        if not allowlist.env_role(env, REWARD_MANAGER, env.caller).enabled:
            raise PrecompileError(f"non-enabled cannot call {name}: {checksummed(env.caller)}")
        new = ALLOW_FEE_RECIPIENTS
        if name == "disableRewards":
            new = int.from_bytes(BLACKHOLE, "big")
        elif args:
            new = int.from_bytes(address_arg(args[0]), "big")
            if new == 0:
                raise PrecompileError("reward address cannot be empty")
        topics, gas = event(env, new)
        env.use_gas(gas)
        env.add_log(REWARD_MANAGER, topics, b"")
        env.set_state(REWARD_MANAGER, REWARD_KEY, new)
        return b""

    return run


def _sender_only(kind: bytes) -> Callable[[PrecompileEnv, int], tuple[tuple[bytes, ...], int]]:
    return lambda env, new: ((kind, word(env.caller)), LOG_GAS + LOG_TOPIC_GAS * 2)


def _changed(env: PrecompileEnv, new: int) -> tuple[tuple[bytes, ...], int]:
    old = env.get_state(REWARD_MANAGER, REWARD_KEY) & (2**160 - 1)
    topics = (CHANGED, word(env.caller), word(old), word(new))
    return topics, LOG_GAS + LOG_TOPIC_GAS * 4 + READ_GAS_PER_SLOT


def _reader(name: str) -> Callable[[PrecompileEnv], bytes]:
    def run(env: PrecompileEnv) -> bytes:
        env.use_gas(READ_GAS_PER_SLOT)
        value = env.get_state(REWARD_MANAGER, REWARD_KEY)
        if name == "areFeeRecipientsAllowed":
            return word(int(value == ALLOW_FEE_RECIPIENTS))
        return word(value & (2**160 - 1))

    return run


def _configure(config: PrecompileConfig, state: StateWriter, ctx: ActivationContext) -> None:
    """Configure: the initial reward config, else the chain's allowFeeRecipients."""
    initial = config.params.get("initialRewardConfig")
    if initial is None:
        allow = bool(ctx.chain_settings.get("allowFeeRecipients"))
        value = ALLOW_FEE_RECIPIENTS if allow else int.from_bytes(BLACKHOLE, "big")
    elif initial.get("allowFeeRecipients"):
        value = ALLOW_FEE_RECIPIENTS
    else:
        address = initial.get("rewardAddress") or "0x" + "00" * 20
        value = int(address, 16) or int.from_bytes(BLACKHOLE, "big")
    state.set_state(REWARD_MANAGER, REWARD_KEY, value)
    allowlist.configure(REWARD_MANAGER, config, state, ctx)


def _verify(params: Mapping[str, Any]) -> None:
    allowlist.verify(params)
    initial = params.get("initialRewardConfig")
    if initial is None:
        return
    if not isinstance(initial, dict):
        raise InvalidParams("invalid rewardManagerConfig: initialRewardConfig must be an object")
    address = initial.get("rewardAddress")
    if address is not None and not allowlist.is_address(address):
        raise InvalidParams(f"invalid rewardManagerConfig: rewardAddress {address!r}")
    if initial.get("allowFeeRecipients") and address and int(address, 16):
        raise InvalidParams("cannot enable both fee recipients and reward address at the same time")


MODULE = PrecompileModule(
    key="rewardManagerConfig",
    address=REWARD_MANAGER,
    contract=FunctionTable(
        REWARD_MANAGER,
        {
            selector("allowFeeRecipients()"): _writer("allowFeeRecipients", _sender_only(ALLOWED)),
            selector("disableRewards()"): _writer("disableRewards", _sender_only(DISABLED)),
            selector("setRewardAddress(address)"): _writer("setRewardAddress", _changed),
            selector("areFeeRecipientsAllowed()"): _reader("areFeeRecipientsAllowed"),
            selector("currentRewardAddress()"): _reader("currentRewardAddress"),
            **allowlist.functions(REWARD_MANAGER),
        },
    ),
    configure=_configure,
    verify=_verify,
)
