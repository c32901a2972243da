"""The allow list every permissioned precompile embeds: roles, their setters, RoleSet events."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from snowfield.chains.evm.precompiles.abi import (
    address_arg,
    checksummed,
    selector,
    topic,
    word,
    words,
)
from snowfield.chains.evm.precompiles.base import (
    READ_GAS_PER_SLOT,
    WRITE_GAS_PER_SLOT,
    PrecompileEnv,
    PrecompileError,
    charge_log,
)
from snowfield.chains.evm.precompiles.module import (
    ActivationContext,
    PrecompileConfig,
    StateWriter,
)
from snowfield.errors import InvalidParams

ROLE_SET = topic("RoleSet(uint256,address,address,uint256)")
_SETTERS = {"setAdmin": 2, "setEnabled": 1, "setNone": 0, "setManager": 3}
_LISTS = (("enabledAddresses", 1), ("adminAddresses", 2), ("managerAddresses", 3))


class Role(enum.IntEnum):
    NONE = 0
    ENABLED = 1
    ADMIN = 2
    MANAGER = 3

    @property
    def enabled(self) -> bool:
        return self in (Role.ADMIN, Role.ENABLED, Role.MANAGER)

    def can_modify(self, current: Role, target: Role) -> bool:
        if self is Role.ADMIN:
            return True
        low = (Role.ENABLED, Role.NONE)
        return self is Role.MANAGER and current in low and target in low

    @property
    def label(self) -> str:
        return {0: "NoRole", 1: "EnabledRole", 2: "AdminRole", 3: "ManagerRole"}[self.value]


class StorageReader(Protocol):
    def storage(self, address: bytes, slot: int) -> int: ...


def role_of(state: StorageReader, precompile: bytes, account: bytes) -> Role:
    value = state.storage(precompile, int.from_bytes(account, "big"))
    return Role(value) if value in (0, 1, 2, 3) else Role.NONE


def env_role(env: PrecompileEnv, precompile: bytes, account: bytes) -> Role:
    value = env.get_state(precompile, int.from_bytes(account, "big"))
    return Role(value) if value in (0, 1, 2, 3) else Role.NONE


def functions(precompile: bytes) -> dict[bytes, Callable[[PrecompileEnv], bytes]]:
    """readAllowList and the four role setters of the allow list at `precompile`."""
    table: dict[bytes, Callable[[PrecompileEnv], bytes]] = {
        selector("readAllowList(address)"): lambda env: _read(env, precompile)
    }
    for name, role in _SETTERS.items():
        table[selector(f"{name}(address)")] = _setter(precompile, Role(role))
    return table


def _read(env: PrecompileEnv, precompile: bytes) -> bytes:
    env.use_gas(READ_GAS_PER_SLOT)
    (account,) = words(env.input[4:], 1)
    return word(env_role(env, precompile, address_arg(account)).value)


def _setter(precompile: bytes, role: Role) -> Callable[[PrecompileEnv], bytes]:
    def run(env: PrecompileEnv) -> bytes:
        env.use_gas(WRITE_GAS_PER_SLOT)
        (value,) = words(env.input[4:], 1)
        account = address_arg(value)
        if env.read_only:
            raise PrecompileError("write protection")
        caller = env_role(env, precompile, env.caller)
        current = env_role(env, precompile, account)
        if not caller.can_modify(current, role):
            raise PrecompileError(
                f"cannot modify allow list: modify address: {checksummed(account)}, "
                f"from role: {current.label}, to role: {role.label}"
            )
        charge_log(env, 4, 32)
        topics = (ROLE_SET, word(role.value), word(account), word(env.caller))
        env.add_log(precompile, topics, word(current.value))
        env.set_state(precompile, int.from_bytes(account, "big"), role.value)
        return b""

    return run


def verify(params: Mapping[str, Any]) -> None:
    """AllowListConfig.Verify: address lists, no address in two of them."""
    seen: set[str] = set()
    for name, _ in _LISTS:
        listed = params.get(name) or []
        if not isinstance(listed, list):
            raise InvalidParams(f"invalid allow list config: {name} must be an array")
        for item in listed:
            if not is_address(item):
                raise InvalidParams(f"invalid allow list config: {name} holds {item!r}")
            if item.lower() in seen:
                raise InvalidParams(f"duplicate address in allow list config: {item}")
            seen.add(item.lower())


def configure(
    precompile: bytes, config: PrecompileConfig, state: StateWriter, ctx: ActivationContext
) -> None:
    """AllowListConfig.Configure: the listed addresses get their roles."""
    for name, role in _LISTS:
        for item in config.params.get(name) or []:
            state.set_state(precompile, int(item, 16), role)


def is_address(item: Any) -> bool:
    if not isinstance(item, str) or not item.startswith("0x") or len(item) != 42:
        return False
    try:
        int(item, 16)
    except ValueError:
        return False
    return True
